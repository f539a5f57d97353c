#!/usr/bin/env python3
"""bench/dispatch_table.py < calls

Reads the calls of bench/dispatch_bench.sh, one per line:
    function|type|elements|path asked|ms|path taken
and prints its markdown: per function, the median in-function time on each
path at each size with the path auto took and auto's time over the faster
path's; the crossover sizes; and a fit of fixed and per-element cost per
path (the figures of src/cost_model.c)."""
import collections
import statistics
import sys

FUNCS = ["gpu_sum", "gpu_prefix_sum_array", "gpu_compact_array"]
WORK = {"gpu_sum": "GS_WORK_SUM", "gpu_prefix_sum_array": "GS_WORK_SCAN",
        "gpu_compact_array": "GS_WORK_COMPACT"}


def main():
    times = collections.defaultdict(list)
    taken = collections.defaultdict(set)
    for line in sys.stdin:
        parts = line.strip().split("|")
        if len(parts) != 6:
            continue
        fn, typ, n, path, ms, took = parts
        key = (fn, typ, int(n), path)
        times[key].append(float(ms))
        taken[key].add(took)
    med = {k: statistics.median(v) for k, v in times.items()}
    sizes = sorted({(k[2], k[1]) for k in med})
    out = []
    for fn in FUNCS:
        out.append("## %s\n" % fn)
        out.append("| elements | type | CPU ms | GPU ms | auto ms | auto took | auto / faster | GPU GB/s of input |")
        out.append("| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: |")
        for n, typ in sizes:
            cpu = med.get((fn, typ, n, "cpu"))
            gpu = med.get((fn, typ, n, "gpu"))
            auto = med.get((fn, typ, n, "auto"))
            took = ",".join(sorted(taken.get((fn, typ, n, "auto"), [])))
            faster = min(x for x in (cpu, gpu) if x is not None) if (cpu or gpu) else None
            ratio = "%.2f" % (auto / faster) if auto is not None and faster else ""
            size = 4 if typ == "real" else 8
            bytes_in = n * (size + (1 if fn == "gpu_compact_array" else 0))
            rate = "%.1f" % (bytes_in / gpu / 1e6) if gpu else ""
            out.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
                n, typ, fmt(cpu), fmt(gpu), fmt(auto), took, ratio, rate))
        out.append("")
    out.append("## Crossovers (double precision; the GPU path faster from here on)\n")
    out.append("| function | last size the CPU was faster | first size the GPU was faster |")
    out.append("| --- | ---: | ---: |")
    for fn in FUNCS:
        last_cpu, first_gpu = None, None
        for n, typ in sizes:
            cpu = med.get((fn, typ, n, "cpu"))
            gpu = med.get((fn, typ, n, "gpu"))
            if typ != "float8" or cpu is None or gpu is None:
                continue
            if gpu < cpu and first_gpu is None:
                first_gpu = n
            if gpu >= cpu:
                last_cpu, first_gpu = n, None
        out.append("| %s | %s | %s |" % (fn, last_cpu or "-", first_gpu or "-"))
    out.append("")
    out.append("## Fit: fixed ms and ns per element (src/cost_model.c)\n")
    out.append("fixed: the median at the smallest size; per element: the slope between the two")
    out.append("largest double precision sizes, and for real from the fixed cost to the real size.\n")
    out.append("| function | path | fixed ms | ns per 8-byte element | ns per 4-byte element |")
    out.append("| --- | --- | ---: | ---: | ---: |")
    for fn in FUNCS:
        for path in ("cpu", "gpu"):
            f8 = sorted((n, m) for (f, t, n, p), m in med.items()
                        if f == fn and t == "float8" and p == path)
            f4 = sorted((n, m) for (f, t, n, p), m in med.items()
                        if f == fn and t == "real" and p == path)
            if len(f8) < 3:
                continue
            fixed = f8[0][1]
            (n1, t1), (n2, t2) = f8[-2], f8[-1]
            ns8 = (t2 - t1) / (n2 - n1) * 1e6
            ns4 = (f4[-1][1] - fixed) / f4[-1][0] * 1e6 if f4 else float("nan")
            out.append("| %s (%s) | %s | %.4f | %.3f | %.3f |" % (fn, WORK[fn], path, fixed, ns8, ns4))
    print("\n".join(out))


def fmt(x):
    return "" if x is None else ("%.3f" % x if x < 10 else "%.1f" % x)


if __name__ == "__main__":
    main()
