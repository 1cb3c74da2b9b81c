#!/bin/sh
# seeds.sh OUT_DIR — builds one seed corpus per fuzz target in OUT_DIR/<target>/ from
# samples/, tests/data/, tests/bad/ (bad inputs are good seeds: they reach the error
# paths) and ../shared/traces/ when present. The large real traces are cut down to one
# profiler step (python3, when installed) so the fuzzer's inputs stay small.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shared=${ND_SHARED_DIR:-$root/../shared}
rm -rf "$out"
targets="classified run hf_config ratios search_config devices chrome ascend_steps ascend_comm log round"
targets="$targets kernel_details"
targets="$targets csv_table safetensors"
targets="$targets kernel_tables"
targets="$targets toml torchtitan megatron mindformers mindspeed simumax"
targets="$targets yaml_edit"
for t in $targets; do
  mkdir -p "$out/$t"
done

# put TARGET FILE... : copies each existing file, named by its path so names never clash.
put() {
  t=$1
  shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    name=$(printf '%s' "${f#"$root"/}" | tr '/' '_')
    cp "$f" "$out/$t/$name"
  done
}

put classified "$root"/samples/rounds/*.csv "$root"/tests/bad/round_*.csv "$root"/tests/bad/round/*
put csv_table "$root"/samples/rounds/*.csv "$root"/tests/bad/round/* "$root"/tests/data/plot/*.csv \
    "$root"/samples/*/*.csv
put hf_config "$root"/samples/models/*.json "$root"/tests/bad/config_*.json "$root"/tests/bad/config/*
put run "$root"/samples/models/*.json "$root"/tests/bad/run_*.yaml "$root"/tests/bad/config_*.json \
    "$root"/tests/bad/run/* "$root"/tests/bad/config/*
# The sample runs name ../models/X.json; the run target keeps the models beside its input.
for f in "$root"/samples/runs/*.yaml; do
  sed 's#config_json: *\.\./models/#config_json: #' "$f" >"$out/run/samples_runs_$(basename "$f")"
done
put ratios "$root"/samples/ratios/*.json "$root"/tests/bad/ratios_*.json "$root"/tests/bad/ratios/*
put search_config "$root"/samples/search/*.yaml "$root"/tests/bad/search_*.yaml "$root"/tests/bad/search/*
put devices "$root"/samples/devices/*.yaml "$root"/tests/bad/devices_*.yaml "$root"/tests/bad/devices/*
put kernel_tables "$root"/samples/devices/gemm/*.csv "$root"/samples/devices/collectives/*.csv \
    "$root"/tests/data/kernel_tables/*
put chrome "$root"/samples/traces/*.json "$root"/tests/data/classify/*.json \
    "$root"/tests/bad/classify/*.json "$root"/tests/bad/trace/*
put ascend_steps "$root"/tests/data/classify/ascend_worked/ASCEND_PROFILER_OUTPUT/step_trace_time.csv \
    "$root"/tests/bad/classify/*/step_trace_time.csv "$root"/tests/bad/classify/*/*/step_trace_time.csv \
    "$shared"/traces/ascend_mstt/cluster_step_trace_time.csv "$root"/tests/bad/ascend/*/step_trace_time.csv
put ascend_comm "$root"/tests/data/classify/ascend_worked/ASCEND_PROFILER_OUTPUT/communication.json \
    "$root"/tests/bad/classify/*/*/communication.json "$shared"/traces/ascend_mstt/cluster_communication.json \
    "$root"/tests/bad/ascend/*/communication.json
put kernel_details "$root"/tests/data/classify/ascend_shapes/kernel_details.csv \
    "$root"/tests/data/classify/ascend_kernels/ASCEND_PROFILER_OUTPUT/kernel_details.csv \
    "$root"/tests/data/shared/traces/ascend_mstt/kernel_details__*.csv "$root"/tests/bad/classify/kernel_details*.csv

put log "$root"/samples/logs/*.log "$root"/tests/bad/log/*
# The YAML write-back: framework configs with anchors, aliases, merge keys and odd line breaks.
put yaml_edit "$root"/samples/frameworks/*.yaml "$root"/samples/frameworks/*/*.yaml \
    "$root"/samples/frameworks/*/*/*.yaml "$root"/tests/bad/run_*.yaml
printf 'a: &x 1\r\r\nb: [*x, 2]\rc: *x\302\205d:\n  <<: {e: 3}\n' >"$out/yaml_edit/line_breaks_aliases.yaml"
put round "$root"/samples/rounds/*.csv "$root"/tests/bad/round/* "$root"/tests/bad/round_*.csv
put safetensors "$root"/samples/checkpoints/*/*.safetensors
put toml "$root"/samples/frameworks/*.toml "$root"/samples/logs/*.toml "$root"/tests/bad/run/*.toml \
    "$root"/tests/data/torchtitan/*.toml
put torchtitan "$root"/samples/frameworks/*.toml "$root"/tests/bad/run/torchtitan_*.toml \
    "$root"/tests/data/torchtitan/*.toml
# The other framework readers and their write-back: the samples, the real public configs
# and the hostile inputs of the reliability rounds.
put megatron "$root"/samples/frameworks/*.sh "$root"/samples/frameworks/real/*.sh "$root"/tests/mega/*.sh \
    "$root"/tests/bad/run_bad.sh "$root"/tests/nd_compat/configs/*.sh
# Megatron's two-level CP, its list flag's levels over a line continuation
sh "$root"/tests/mega/continued.sh "$root"/tests/mega/unused_vars.sh >"$out/megatron/hier_cp.sh"
put mindformers "$root"/samples/frameworks/mindformers_*.yaml "$root"/samples/frameworks/real/*.yaml \
    "$root"/samples/frameworks/yaml/*.yaml "$root"/tests/nd_compat/configs/*.yaml
put mindspeed "$root"/samples/frameworks/*.json "$root"/tests/nd_compat/configs/*.json
# SimuMax: the first byte says which file the rest is, 0 the strategy, 1 the model (fuzz_simumax.c).
for f in "$root"/samples/frameworks/simumax/*.json "$root"/tests/bad/run/simumax_*.json; do
  [ -f "$f" ] || continue
  case $f in *.model.json) pick=1 ;; *) pick=0 ;; esac
  { printf '%s' "$pick"; cat "$f"; } >"$out/simumax/$(basename "$f")"
done
sh "$root/tests/nd_compat/tiny_moe.sh" "$out/moe.tmp" && cp "$out/moe.tmp/model.safetensors" "$out/safetensors/tiny_moe.safetensors"
sh "$root/tests/nd_compat/tiny_moe.sh" "$out/moe.tmp" 6 && cp "$out/moe.tmp/model.safetensors" "$out/safetensors/tiny_moe_6.safetensors"
rm -rf "$out/moe.tmp"

# Real Chrome traces, one profiler step each.
if command -v python3 >/dev/null 2>&1 && [ -d "$shared/traces" ]; then
  for f in "$shared"/traces/pytorch_hta/*.json.gz "$shared"/traces/ascend_mstt/trace_view*.json; do
    [ -f "$f" ] || continue
    python3 - "$f" "$out/chrome/shared_$(basename "$f" .gz)" <<'PY'
import gzip, json, sys
src, dst = sys.argv[1], sys.argv[2]
raw = (gzip.open if src.endswith(".gz") else open)(src, "rt", encoding="utf-8", errors="replace").read()
doc = json.loads(raw)
events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
def num(v):
    try: return float(v)
    except (TypeError, ValueError): return None
steps = [e for e in events if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
keep = [e for e in events if e.get("ph") == "M"]
if steps:
    s = steps[0]; t0 = num(s.get("ts")); t1 = t0 + (num(s.get("dur")) or 0)
    inside = [e for e in events if e.get("ph") == "X" and num(e.get("ts")) is not None
              and t0 <= num(e["ts"]) <= t1]
    # spread 400 events over the step, its communication first
    comm = [e for e in inside if any(w in str(e.get("name", "")).lower() for w in ("nccl", "c10d", "hcom", "wait"))]
    rest = [e for e in inside if e not in comm]
    step = max(1, len(rest) // 300)
    keep += [s] + comm[:100] + rest[::step][:300]
else:
    keep += events[:400]
keep.sort(key=lambda e: num(e.get("ts")) or 0)
if isinstance(doc, list):
    out = keep
else:
    out = {k: v for k, v in doc.items() if k != "traceEvents"}
    out["traceEvents"] = keep
with open(dst, "w") as f:
    json.dump(out, f, separators=(",", ":"))
PY
  done
fi
for t in "$out"/*; do
  printf '%s: %s seeds\n' "$(basename "$t")" "$(ls "$t" | wc -l)"
done
