#!/usr/bin/env python3
"""An independent count of nd-classify's device view, done HTA's way, run by hand.

    python3 tests/data/classify/hta_count.py TRACE.json[.gz] [--comm-kernel REGEX]

The expected numbers in tests/classify.cmake and tests/test_classify*.c that say "by
hta_count.py" come from this script. It shares no code with nd: it loads the whole trace
(Python's json, times read as exact decimals) and applies the rules of docs/classify.md
the way Holistic Trace Analysis (HTA) applies its own:

- iteration assignment (HTA's trace.add_iteration): a host event belongs to the
  ProfilerStep whose window holds its start, on any thread; a device kernel to the step of
  the runtime call with its correlation; a kernel without a known launch to the step whose
  window holds its start (nd's fallback);
- kernel types (HTA's utils.get_kernel_type, widened to nd's families): communication by
  the name's library family, or a kernel of no other class launched inside a collective
  op; copies and sets (gpu_memcpy, gpu_memset) are neither compute nor communication;
- the temporal sweep and HTA's comm/compute overlap (communication_analysis): over every
  instant, compute when a compute kernel runs (split evenly between the compute kernels
  running, each share to its kernel's step and launch phase), exposed communication when
  only communication kernels run (split evenly between them); overlap = communication
  time beside compute / communication time;
- phases of a launch: ND's frame patterns on the host events enclosing it on its thread.

Prints, per rank-step and as means, ms: time, comp (and by phase), exposed communication
by collective kind, idle, the overlap percentage and kernel time by class.
"""
import argparse
import collections
import decimal
import gzip
import json
import re
import sys

PHASES = ("fw", "bw", "rec", "opt", "other", "unknown")
FAMILIES = [  # (text, at the start?, kind or None: from the name)
    ("ncclKernel_", True, None), ("ncclDevKernel_", True, None), ("mscclKernel_", True, None),
    ("hcom", True, None), ("Hccl", True, None), ("rccl", False, None),
    ("deep_ep::", False, "all-to-all"), ("dpsk::ep::", False, "all-to-all"),
    ("nvshmem", False, None), ("mscclpp", False, None), ("ucc_tl_", False, None),
    ("ucc_ec_", False, None), ("symmetric_memory::", False, None),
    ("cross_device_reduce", False, "all-reduce"),
]
COLLECTIVE_OP = ("c10d::", "_c10d_functional::", "c10d_functional::", "nccl:", "gloo:")


def kind_of(text):
    n = "".join(c.lower() for c in text if c.isalnum())[:63]
    for word, kind in (("reducescatter", "reduce-scatter"), ("allreduce", "all-reduce"),
                       ("allgather", "all-gather"), ("alltoall", "all-to-all"),
                       ("broadcast", "broadcast")):
        if word in n:
            return kind
    if any(w in n for w in ("send", "recv", "receive", "p2p")):
        return "p2p"
    if "barrier" in n:
        return "barrier"
    if "reduce" in n:
        return "reduce"
    return None


def family_kind(name):
    """(is communication, its kind) by the kernel's name."""
    for text, prefix, kind in FAMILIES:
        at = (0 if name.startswith(text) else -1) if prefix else name.find(text)
        if at < 0:
            continue
        if kind:
            return True, kind
        if not prefix:
            return True, kind_of(name[at:])
        rest = name[len(text) + (1 if text == "hcom" and name[4:5] == "_" else 0):]
        return True, kind_of(re.split(r"[_(@ ]", rest, maxsplit=1)[0])
    return False, None


def kernel_class(name, memory):
    if memory:
        return "memcpy_memset"
    low = name[:255].lower().replace("fbgemm", "fb_gem")
    def any_of(words):
        return any(w in low for w in words)
    if any_of(("memcpy", "memset")):
        return "memcpy_memset"
    if any_of(("flash", "fmha", "attention", "sdpa", "attn")):
        return "attention_bwd" if any_of(("bwd", "backward", "grad", "dq_", "dkdv")) else "attention_fwd"
    if any_of(("grouped", "group_gemm", "groupgemm")) and any_of(("gemm", "mm", "matmul")):
        return "grouped_gemm"
    if any_of(("gemm", "matmul", "xmma", "cutlass", "cublas", "nvjet", "scudnn", "addmm", "bmm",
               "aclnnmm")):
        return "gemm"
    if any_of(("elementwise", "vectorized", "unrolled", "reduce", "norm", "softmax", "dropout",
               "gelu", "silu", "relu", "swiglu", "sigmoid", "tanh", "add", "mul", "div", "sqrt",
               "cast", "exp", "copy", "fill", "zero", "where", "pow", "neg", "clamp",
               "multi_tensor", "bn_fw", "bn_bw", "transdata", "transpose", "nchwtonhwc",
               "nhwctonchw", "catarray", "sum", "mean", "max", "min")):
        return "elementwise_norm"
    return "other"


def phase_bits(name):
    bits = set()
    if ("autograd::engine::evaluate_function" in name
            or re.search(r"torch/autograd/__init__\.py\(\d+\): backward", name)
            or re.search(r"torch/_tensor\.py\(\d+\): backward", name)):
        bits.add("bw")
    if "torch/utils/checkpoint.py" in name or "activation_checkpoint" in name:
        bits.add("rec")
    if any(w in name for w in ("Optimizer.step", "torch/optim/", "components/optim", "clip_grad",
                               "zero_grad")):
        bits.add("opt")
    if name.startswith("nn.Module: "):
        bits.add("fw")
    return bits


def bucket(bits):
    if "bw" in bits and "rec" in bits:
        return "rec"
    for b in ("bw", "opt", "fw"):
        if b in bits:
            return b
    return "other"


def ns(v):
    return int((decimal.Decimal(str(v)) * 1000).to_integral_value(decimal.ROUND_HALF_EVEN))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    return doc if isinstance(doc, list) else doc.get("traceEvents", [])


def count_kernel_details(path, patterns):
    """kernel_details.csv: a step per Step Id, its window the span of its tasks."""
    import csv
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    steps, kernels = {}, []
    for r in rows:
        r = {k.strip(): (v or "").strip() for k, v in r.items()}
        ts, dur = ns(r["Start Time(us)"]), ns(r["Duration(us)"])
        sid = r.get("Step Id", "")
        sid = int(sid) if sid.isdigit() else 0
        lo, hi = steps.get(sid, (ts, ts + dur))
        steps[sid] = (min(lo, ts), max(hi, ts + dur))
        comm, kind = family_kind(r["Name"])
        if r.get("Accelerator Core") == "HCCL" and not comm:
            comm, kind = True, kind_of(r["Name"])
        if any(p.search(r["Name"]) for p in patterns):
            comm, kind = True, kind or kind_of(r["Name"])
        kernels.append(dict(ts=ts, dur=dur, name=r["Name"], memory=False, args={}, sid=sid,
                            comm=comm, kind=kind or "unknown",
                            cls="communication" if comm else kernel_class(r["Name"], False),
                            phase="unknown"))
    order = sorted(steps)
    step_list = [dict(name="step%d" % i, ts=steps[i][0], dur=steps[i][1] - steps[i][0]) for i in order]
    for k in kernels:
        k["step"] = order.index(k["sid"])
    return step_list, kernels


def count(path, patterns):
    if path.endswith(".csv"):
        return count_kernel_details(path, patterns)
    events = load(path)
    device_pids = {e.get("pid") for e in events if e.get("ph") == "M"
                   and e.get("name") == "process_name"
                   and "Ascend Hardware" in str(e.get("args", {}).get("name", ""))}
    host, kernels, launches, steps = [], [], {}, []
    for e in events:
        if e.get("ph") != "X" or e.get("dur") is None or e.get("ts") is None:
            continue
        cat, name, args = e.get("cat", ""), e.get("name", ""), e.get("args", {}) or {}
        ts, dur = ns(e["ts"]), ns(e["dur"])
        if dur < 0:
            continue
        memory = cat in ("gpu_memcpy", "gpu_memset", "Memcpy", "Memset")
        if cat in ("kernel", "Kernel") or memory or (e.get("pid") in device_pids and cat == ""):
            if not name.startswith("ProfilerStep#"):
                kernels.append(dict(ts=ts, dur=dur, name=name, memory=memory, args=args))
            continue
        if cat in ("cuda_runtime", "cuda_driver", "Runtime", "Driver", "mtia_runtime",
                   "xpu_runtime", "privateuse1_runtime", "privateuse1_driver"):
            if "correlation" in args:
                launches[int(args["correlation"])] = (ts, (e.get("pid"), e.get("tid")))
            continue
        if name.startswith("ProfilerStep#"):
            steps.append(dict(name=name, ts=ts, dur=dur))
        if cat in ("cpu_op", "python_function", "user_annotation"):
            host.append(dict(ts=ts, end=ts + dur, name=name, thread=(e.get("pid"), e.get("tid")),
                             args=args))
    steps = sorted((s for s in steps if s["dur"] > 0), key=lambda s: s["ts"])
    if not steps:  # one window: the whole trace (nd's rule for traces without steps)
        lo = min([h["ts"] for h in host] + [k["ts"] for k in kernels])
        hi = max([h["end"] for h in host] + [k["ts"] + k["dur"] for k in kernels])
        steps = [dict(name="(whole trace)", ts=lo, dur=hi - lo)]
    by_thread = collections.defaultdict(list)
    for h in host:
        by_thread[h["thread"]].append(h)

    def step_of(t):
        hit = -1
        for i, s in enumerate(steps):
            if s["ts"] <= t < s["ts"] + s["dur"]:
                hit = i
        return hit

    def around(t, thread):
        return [h for h in by_thread.get(thread, []) if h["ts"] <= t < h["end"]]

    for k in kernels:
        launch = launches.get(int(k["args"].get("correlation", -1)))
        k["step"], k["phase"] = step_of(k["ts"]), "unknown"
        ops = []
        if launch is not None and step_of(launch[0]) >= 0:
            ops = around(*launch)
            k["step"], k["phase"] = step_of(launch[0]), bucket(set().union(*[phase_bits(o["name"]) for o in ops]))
        comm, kind = family_kind(k["name"])
        if any(p.search(k["name"]) for p in patterns):
            comm, kind = True, kind or kind_of(k["name"])
        coll_ops = sorted((o for o in ops if o["name"].startswith(COLLECTIVE_OP)
                           or o["name"] == "record_param_comms"), key=lambda o: -o["ts"])
        cls = kernel_class(k["name"], k["memory"])
        if not comm and coll_ops and cls == "other" and not k["memory"]:
            comm = True
        if comm:
            cls = "communication"
            own = k["args"].get("Collective name")
            kinds = [kind_of(own)] if own else []
            for o in coll_ops:  # innermost first
                kinds.append(kind_of(o["args"].get("Collective name") or o["name"].split("::")[-1].split(":")[-1]))
            kinds.append(kind)
            k["kind"] = next((x for x in kinds if x), "unknown")
        k["comm"], k["cls"] = comm, cls
    return steps, kernels


def sweep(steps, kernels):
    out = [dict(comp=collections.Counter(), exposed=collections.Counter(), comm=0.0, overlap=0.0,
                classes=collections.Counter()) for _ in steps]
    for k in kernels:
        if k["step"] >= 0:
            out[k["step"]]["classes"][k["cls"]] += k["dur"]
    live = [k for k in kernels if not k["memory"] and k["dur"] > 0]
    edges = sorted({k["ts"] for k in live} | {k["ts"] + k["dur"] for k in live})
    live.sort(key=lambda k: k["ts"])
    running, nxt = [], 0
    for a, b in zip(edges, edges[1:]):
        while nxt < len(live) and live[nxt]["ts"] <= a:
            running.append(live[nxt])
            nxt += 1
        running = [k for k in running if k["ts"] + k["dur"] > a]
        comp = [k for k in running if not k["comm"]]
        comm = [k for k in running if k["comm"]]
        for k in comp:
            if k["step"] >= 0:
                out[k["step"]]["comp"][k["phase"]] += (b - a) / len(comp)
        for k in comm:
            if k["step"] < 0:
                continue
            o = out[k["step"]]
            o["comm"] += (b - a) / len(comm)
            if comp:
                o["overlap"] += (b - a) / len(comm)
            else:
                o["exposed"][k["kind"]] += (b - a) / len(comm)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--comm-kernel", action="append", default=[])
    a = ap.parse_args()
    steps, kernels = count(a.trace, [re.compile(p) for p in a.comm_kernel])
    rows = sweep(steps, kernels)
    mean = collections.defaultdict(float)
    for s, r in zip(steps, rows):
        comp = sum(r["comp"].values())
        exposed = sum(r["exposed"].values())
        line = dict(time=s["dur"], comp=comp, idle=s["dur"] - comp - exposed)
        line.update({"comp_" + p: r["comp"][p] for p in PHASES})
        line.update({"exposed " + k: v for k, v in r["exposed"].items()})
        line.update({"class " + c: v for c, v in r["classes"].items()})
        line["comm kernels"] = r["comm"]
        print(s["name"], " ".join("%s=%.3f" % (k, v / 1e6) for k, v in sorted(line.items())),
              "overlap_pct=%s" % ("%.3f" % (100 * r["overlap"] / r["comm"]) if r["comm"] else "null"))
        for k, v in line.items():
            mean[k] += v / len(steps)
    print("mean", " ".join("%s=%.3f" % (k, v / 1e6) for k, v in sorted(mean.items())))
    late = [k for k in kernels if k["step"] < 0 and k["ts"] >= steps[-1]["ts"] + steps[-1]["dur"]]
    print("no step: %d kernels %.3f ms; after the last step: %d kernels %.3f ms" % (
        sum(k["step"] < 0 for k in kernels), sum(k["dur"] for k in kernels if k["step"] < 0) / 1e6,
        len(late), sum(k["dur"] for k in late) / 1e6))
    end = steps[-1]["ts"] + steps[-1]["dur"]
    tail = [k for k in kernels if k["step"] == len(steps) - 1 and k["ts"] + k["dur"] > end]
    print("last step tail: %d kernels, %.3f ms past its end" % (
        len(tail), sum(k["ts"] + k["dur"] - max(k["ts"], end) for k in tail) / 1e6))


if __name__ == "__main__":
    sys.exit(main())
