#!/usr/bin/env python3
"""The paths of values in memory before and after the removal of the
session's own GPU path, from bench/service_path_bench.sh OLD_TREE's rounds.

    bench/two_trees.py BEFORE.md AFTER.md [BEFORE.md AFTER.md ...]

Each pair is one round: BEFORE.md the old tree's bench/dispatch_bench.sh
with DISPATCH_PATHS="cpu own gpu" (the CPU path, the session's own GPU path
and the GPU service, taking turns in one session), AFTER.md this tree's
with DISPATCH_PATHS="cpu gpu".  Prints markdown: one table per function,
each row a size (elements and type) with the median over the rounds of the
CPU, own GPU and service milliseconds before, the CPU and service
milliseconds after, and service after / own before (of those medians; with
more than one round also each round's, and in how many the service after
was at least as fast as the own path before).  An empty cell: no such
figure in the reports (a path that did not run, a run that failed).
"""
import os
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paths_rounds import number, read_tables  # noqa: E402

FUNCS = ["gpu_sum", "gpu_prefix_sum_array", "gpu_compact_array", "gpu_csr_spmv", "gpu_pagerank"]
# (label, report, column of bench/dispatch_table.py)
COLUMNS = [("CPU ms before", 0, "CPU ms"), ("own GPU ms before", 0, "own GPU ms"),
           ("service ms before", 0, "GPU ms"), ("CPU ms after", 1, "CPU ms"),
           ("service ms after", 1, "GPU ms")]


def fmt(x):
    """ms as bench/dispatch_table.py prints them"""
    return "" if x is None else ("%.3f" % x if x < 10 else "%.1f" % x)


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def figure(tables, fn, key, column):
    return number(tables.get(fn, {}).get(key, {}).get(column))


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit("usage: bench/two_trees.py BEFORE.md AFTER.md [BEFORE.md AFTER.md ...]")
    rounds = [(read_tables(args[i]), read_tables(args[i + 1])) for i in range(0, len(args), 2)]
    several = len(rounds) > 1
    funcs = [f for f in FUNCS if any(f in t for r in rounds for t in r)]
    funcs += sorted({f for r in rounds for t in r for f in t} - set(funcs))
    out = []
    for fn in funcs:
        keys = sorted({k for r in rounds for t in r for k in t.get(fn, {})}, key=lambda k: (k[1], k[0]))
        if not keys:
            continue
        out.append("## %s\n" % fn)
        head = ["elements", "type"] + [c[0] for c in COLUMNS] + ["service after / own before"]
        align = ["---:", "---"] + ["---:"] * (len(COLUMNS) + 1)
        if several:
            head += ["service after / own before, each round", "rounds at least as fast"]
            align += ["---", "---:"]
        out.append("| " + " | ".join(head) + " |")
        out.append("| " + " | ".join(align) + " |")
        for key in keys:
            meds = [median(figure(r[i], fn, key, col) for r in rounds) for _, i, col in COLUMNS]
            own, after = meds[1], meds[4]
            ratio = "%.3f" % (after / own) if own and after is not None else ""
            row = ["%d" % key[0], key[1]] + [fmt(m) for m in meds] + [ratio]
            if several:
                each = []
                for before_t, after_t in rounds:
                    o = figure(before_t, fn, key, "own GPU ms")
                    a = figure(after_t, fn, key, "GPU ms")
                    each.append(a / o if o and a is not None else None)
                known = [e for e in each if e is not None]
                row += [" ".join("-" if e is None else "%.3f" % e for e in each),
                        "%d of %d" % (sum(e <= 1.0 for e in known), len(known))]
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    if not out:
        out.append("(no rows: see the rounds' reports and their .log files)")
    print("\n".join(out))


if __name__ == "__main__":
    main()
