#!/usr/bin/env python3
"""Where one ONNX graph's time goes on ONNX Runtime's CPU provider: its own profiler (`enable_profiling`), by operator.

Chorus has no profiling switch of its own; a Chorus session and this one run the same graph file with the same
optimisation level and intra-op threads, so the operators that dominate here are the ones that dominate there
(issue 39 item 4: "which graph, which operator").

    VENV/bin/python bench/realsize/_ort_profile.py GRAPH [--dim NAME=N ...] [--fill NAME=V ...] [--threads 2]
        [--runs 2] [--top 12]

Every input is made from the graph's own signature: a symbolic dimension takes --dim's value (else 1), an input
named by --shape that whole shape, a float
input standard-normal values, an integer input --fill's value (else 1). The first run is a warm-up (first-call
allocations); the later runs are summed by operator type and by node. Prints JSON lines: one "total" row (with
the resident memory the session added at load, this process's peak after the runs, and the graph's files), then
one row per operator type, then the --top nodes. --no-arena and --no-prepack show what ONNX Runtime's arena and
its prepacked weight copies cost in memory.
"""
import argparse
import fnmatch
import json
import os
import tempfile
import time
from collections import defaultdict

import numpy as np
import onnxruntime as ort

TYPES = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(int64)": np.int64,
         "tensor(int32)": np.int32, "tensor(bool)": np.bool_, "tensor(double)": np.float64}


def status_mb(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024 / 1e6
    return 0.0


def graph_bytes(graph):
    """The graph file and any external-data file beside it that names it."""
    folder, name = os.path.split(os.path.abspath(graph))
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)
               if f == name or f.startswith(name + ".") or f.startswith(name + "_") or f == name[:-5] + ".weights")


def feeds(session, dims, fills, shapes):
    rng = np.random.default_rng(0)
    out = {}
    for given in session.get_inputs():
        shape = [d if isinstance(d, int) else dims.get(d, 1) for d in given.shape]
        for pattern, whole in shapes.items():
            if fnmatch.fnmatchcase(given.name, pattern):
                shape = whole
        dtype = TYPES[given.type]
        if np.issubdtype(dtype, np.floating):
            out[given.name] = rng.standard_normal(shape).astype(dtype)
        else:
            out[given.name] = np.full(shape, fills.get(given.name, 1), dtype)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("graph")
    parser.add_argument("--dim", action="append", default=[], help="NAME=N for a symbolic dimension")
    parser.add_argument("--fill", action="append", default=[], help="NAME=V for an integer input's value")
    parser.add_argument("--shape", action="append", default=[],
                        help="PATTERN=D0,D1,... an input's whole shape (a glob over input names; 0 allowed: an empty cache)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=2, help="runs after the warm-up")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--no-arena", action="store_true", help="enable_cpu_mem_arena off (Chorus: usesMemoryArena)")
    parser.add_argument("--no-prepack", action="store_true", help="session.disable_prepacking")
    parser.add_argument("--optimization", choices=["all", "extended", "basic", "disabled"], default="all")
    args = parser.parse_args()
    dims = {k: int(v) for k, v in (d.split("=", 1) for d in args.dim)}
    fills = {k: int(v) for k, v in (d.split("=", 1) for d in args.fill)}
    shapes = {k: [int(n) for n in v.split(",")] for k, v in (d.split("=", 1) for d in args.shape)}
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.enable_profiling = True
    options.profile_file_prefix = os.path.join(tempfile.mkdtemp(prefix="ort-profile-"), "profile")
    options.enable_cpu_mem_arena = not args.no_arena
    if args.no_prepack:
        options.add_session_config_entry("session.disable_prepacking", "1")
    options.graph_optimization_level = {"all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
                                        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                                        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                                        "disabled": ort.GraphOptimizationLevel.ORT_DISABLE_ALL}[args.optimization]
    before = status_mb("VmRSS")
    session = ort.InferenceSession(args.graph, options, providers=["CPUExecutionProvider"])
    loaded = status_mb("VmRSS")
    inputs = feeds(session, dims, fills, shapes)
    session.run(None, inputs)
    started = time.monotonic()
    for _ in range(args.runs):
        session.run(None, inputs)
    wall = (time.monotonic() - started) / args.runs
    events = json.load(open(session.end_profiling()))
    runs = [e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"]
    cutoff = runs[0]["ts"] + runs[0]["dur"] if runs else 0  # leave the warm-up run out
    by_type, by_node = defaultdict(float), defaultdict(float)
    for event in events:
        if event.get("cat") != "Node" or not event.get("name", "").endswith("_kernel_time") or event["ts"] < cutoff:
            continue
        by_type[event["args"].get("op_name", "?")] += event["dur"] / 1e6 / args.runs
        by_node[event["name"][:-len("_kernel_time")]] += event["dur"] / 1e6 / args.runs
    kernels = sum(by_type.values())
    graph = os.path.basename(args.graph)
    print(json.dumps({"graph": graph, "row": "total", "run_s": round(wall, 3), "kernels_s": round(kernels, 3),
                      "inputs": {k: list(v.shape) for k, v in inputs.items()}, "threads": args.threads,
                      "file_mb": round(graph_bytes(args.graph) / 1e6), "session_mb": round(loaded - before),
                      "peak_mb": round(status_mb("VmHWM")), "arena": not args.no_arena,
                      "prepack": not args.no_prepack, "optimization": args.optimization}))
    for name, seconds in sorted(by_type.items(), key=lambda item: -item[1]):
        print(json.dumps({"graph": graph, "row": "operator", "op": name, "s": round(seconds, 3),
                          "share": round(seconds / kernels, 3)}))
    for name, seconds in sorted(by_node.items(), key=lambda item: -item[1])[:args.top]:
        print(json.dumps({"graph": graph, "row": "node", "node": name, "s": round(seconds, 3),
                          "share": round(seconds / kernels, 3)}))


if __name__ == "__main__":
    main()
