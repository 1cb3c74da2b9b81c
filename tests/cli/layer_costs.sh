#!/bin/sh
# layer_costs.sh BIN_DIR SAMPLES DATA — nd-estimate -v's per-layer table and --json's layer_costs,
# checked by hand on a GPT of hidden h = 4096 at T = 2048 tokens a micro-batch on an A100 whose
# GEMM curve is flat at e = 0.5 (tests/data/layer_costs/):
# - a layer's GEMMs: QKV, the output projection and the 4h MLP hold 12 h^2 weights, and each
#   runs forward, input gradient and weight gradient, 2 T 12 h^2 FLOPs each:
#   6 x 2048 x 12 x 4096^2 / (312e12 x 0.5) = 15.858 ms;
# - the head's: the logits' 2 T V h three times, V = 50304: 6 x 2048 x 50304 x 4096 / 156e12
#   = 16.230 ms;
# - attention (FlashAttention, causal: 2 s^2 a (d + d) / 2 = 3.436e10 FLOPs forward, 2.5x that
#   backward) at A100's 0.76 and 0.66 on the curve s_k / (s_k + 512) over s_k = s / 2 = 1024 keys:
#   3.436e10 / (312e12 x 0.76 x 2/3) + 8.590e10 / (312e12 x 0.66 x 2/3) = 0.2174 + 0.6257 = 0.843 ms;
# - memory-bound = forward + backward - GEMM - attention; host = host ops x 10 us (A100's
#   host_dispatch_us); a 256-wide model of 2 layers is host-bound and says so.
set -u
bin=$1 samples=$2 data=$3
. "$(dirname "$0")/results.sh"
run() { "$bin/nd-estimate" -y "$data/gpt-4096.yaml" --device-file "$data/flat-a100.yaml" "$@"; }
run -v >"$work/t.txt" 2>&1 || echo "nd-estimate failed: $(tail -1 "$work/t.txt")"
# column $n of the row named $1: layer count forward backward recompute GEMM attention memory TP EP CP
# kernels hostops host device
col() { awk -v k="$1" -v c="$2" '$1 == k && NF >= 15 { print $c }' "$work/t.txt"; }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
why=""
near "$(col dense 6)" 15.858 0.0015 || why="dense GEMM $(col dense 6), not 15.858"
near "$(col head 6)" 16.230 0.0015 || why="$why; head GEMM $(col head 6), not 16.230"
near "$(col dense 7)" 0.843 0.0015 || why="$why; attention $(col dense 7), not 0.843"
[ "$(col dense 2)" = 4 ] || why="$why; count $(col dense 2), not 4"
result "per-layer GEMM and attention as worked by hand" "$why"
why=""
for k in embedding dense head; do
  sum=$(awk -v f="$(col $k 3)" -v b="$(col $k 4)" -v g="$(col $k 6)" -v a="$(col $k 7)" \
    'BEGIN { printf "%.3f", f + b - g - a }')
  near "$(col $k 8)" "$sum" 0.0025 || why="$why; $k memory $(col $k 8), not $sum"
  host=$(awk -v o="$(col $k 13)" 'BEGIN { printf "%.3f", o * 0.010 }')
  near "$(col $k 14)" "$host" 0.0015 || why="$why; $k host $(col $k 14), not $host"
done
grep -q "host-bound" "$work/t.txt" && why="$why; a 4096-wide layer called host-bound"
result "memory-bound is the rest of the compute; host is its operators at 10 us" "$why"
why=""
run --json >"$work/t.json" 2>/dev/null
for k in '"kind": "embedding"' '"kind": "dense"' '"kind": "head"' '"gemm_ms": 15.85' '"memory_bound_ms"'; do
  grep -q "$k" "$work/t.json" || why="$why; --json lacks $k"
done
sed 's/hidden_size: 4096/hidden_size: 256/; s/num_layers: 4/num_layers: 2/; s/num_attention_heads: 32/num_attention_heads: 4/' \
  "$data/gpt-4096.yaml" >"$work/small.yaml"
"$bin/nd-estimate" -y "$work/small.yaml" --device-file "$data/flat-a100.yaml" -v >"$work/s.txt" 2>&1
grep -q "^  dense .*host-bound$" "$work/s.txt" || why="$why; a 256-wide layer not called host-bound"
run >"$work/plain.txt" 2>&1
grep -q "Per layer" "$work/plain.txt" && why="$why; the table printed without -v"
result "--json's layer_costs; host-bound said where it is; the table only with -v" "$why"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
