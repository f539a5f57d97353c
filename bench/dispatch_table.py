#!/usr/bin/env python3
"""bench/dispatch_table.py < calls

Reads the calls of bench/dispatch_bench.sh, one per line:
    function|type|elements|path asked|ms|path taken
and prints its markdown: per function, the median in-function time on each
path at each size with the path auto took and auto's time over the faster
path's (and, where the path "own" ran, an old build's own GPU path in the
session beside the service's: the columns "own GPU ms" and "GPU / own", in
tables of such builds only); the crossover sizes; and a fit of fixed and
per-element cost per path (the figures of src/dispatch/cost_model.c).
bench/paths_rounds.py reads the tables back, with or without the own columns."""
import collections
import statistics
import sys

FUNCS = ["gpu_sum", "gpu_prefix_sum_array", "gpu_compact_array", "gpu_csr_spmv", "gpu_pagerank"]
WORK = {"gpu_sum": "GS_WORK_SUM", "gpu_prefix_sum_array": "GS_WORK_PREFIX_SUM",
        "gpu_compact_array": "GS_WORK_COMPACT", "gpu_csr_spmv": "GS_WORK_SPMV",
        "gpu_pagerank": "GS_WORK_PAGERANK"}
STAGED = {"gpu_sum", "gpu_prefix_sum_array", "gpu_compact_array"}


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
    # the path "own": an old build's own GPU path in the session, beside the
    # service's (dispatch.sql); absent from builds without it
    has_own = any(k[3] == "own" for k in med)
    out = []
    for fn in FUNCS:
        out.append("## %s\n" % fn)
        if has_own:
            out.append("| elements | type | CPU ms | own GPU ms | GPU ms | GPU / own | auto ms | auto took | auto / faster | GPU GB/s of input |")
            out.append("| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
        else:
            out.append("| elements | type | CPU ms | GPU ms | auto ms | auto took | auto / faster | GPU GB/s of input |")
            out.append("| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: |")
        for n, typ in sizes:
            if not any(k[0] == fn and k[1] == typ and k[2] == n for k in med):
                continue
            cpu = med.get((fn, typ, n, "cpu"))
            gpu = med.get((fn, typ, n, "gpu"))
            auto = med.get((fn, typ, n, "auto"))
            took = ",".join(sorted(taken.get((fn, typ, n, "auto"), [])))
            faster = min(x for x in (cpu, gpu) if x is not None) if (cpu or gpu) else None
            ratio = "%.2f" % (auto / faster) if auto is not None and faster else ""
            size = 4 if typ == "real" else 8
            bytes_in = n * (size + (1 if fn == "gpu_compact_array" else 0))
            rate = "%.1f" % (bytes_in / gpu / 1e6) if gpu and fn in STAGED else ""
            if has_own:
                own = med.get((fn, typ, n, "own"))
                vs_own = "%.3f" % (gpu / own) if gpu and own else ""
                out.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    n, typ, fmt(cpu), fmt(own), fmt(gpu), vs_own, fmt(auto), took, ratio, rate))
            else:
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
    out.append("## Fit: the figures of src/dispatch/cost_model.c\n")
    out.append("fixed: the median at the smallest size. CPU, and the GPU after its first chunk: ns per")
    out.append("element from the slope between the two largest sizes of the type. The GPU's first chunk")
    out.append("(staged functions): ns per element at 1e6 elements (one chunk), less the fixed cost.")
    out.append("SpMV and PageRank: per non-zero (edge), the first as the rest.\n")
    out.append("| function | path | fixed ms | first ns, 4 / 8 bytes | steady ns, 4 / 8 bytes |")
    out.append("| --- | --- | ---: | ---: | ---: |")
    for fn in FUNCS:
        for path in ("cpu", "gpu"):
            f8 = points(med, fn, "float8", path)
            f4 = points(med, fn, "real", path)
            if len(f8) < 2:
                continue
            fixed = f8[0][1]
            steady = [slope(f) for f in (f4, f8)]
            first = [first_chunk(f, fixed) if fn in STAGED and path == "gpu" else st
                     for f, st in zip((f4, f8), steady)]
            out.append("| %s (%s) | %s | %.4f | %s / %s | %s / %s |" % (
                fn, WORK[fn], path, fixed, ns(first[0]), ns(first[1]), ns(steady[0]), ns(steady[1])))
    print("\n".join(out))


def points(med, fn, typ, path):
    return sorted((n, m) for (f, t, n, p), m in med.items() if f == fn and t == typ and p == path)


def slope(pts):
    """ns per element between the two largest sizes"""
    if len(pts) < 2:
        return None
    (n1, t1), (n2, t2) = pts[-2], pts[-1]
    return (t2 - t1) / (n2 - n1) * 1e6


def first_chunk(pts, fixed):
    """ns per element of a call of 1e6 elements, less the fixed cost"""
    at = dict(pts)
    return (at[1000000] - fixed) / 1e6 * 1e6 if 1000000 in at else None


def ns(x):
    return "-" if x is None else "%.3f" % x


def fmt(x):
    return "" if x is None else ("%.3f" % x if x < 10 else "%.1f" % x)


if __name__ == "__main__":
    main()
