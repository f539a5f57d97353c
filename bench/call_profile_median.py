#!/usr/bin/env python3
"""bench/call_profile_median.py LABEL ELEMENTS PATH < profile lines

Reads "gpuscan profile:" lines (src/pg/call_profile.c) and prints one markdown
row of bench/call_profile.sh: the median in-function time and the median of
each stage over the lines (a stage a line does not list took no time)."""
import re
import statistics
import sys

STAGES = ["args", "dispatch", "checks", "alloc", "upload", "kernel", "download",
          "wait", "cpu", "result", "other"]


def main():
    label, elements, path = sys.argv[1:4]
    totals = []
    stages = {s: [] for s in STAGES}
    for line in sys.stdin:
        m = re.search(r"gpuscan profile: \S+ \S+ \d+ elements ([0-9.]+) ms:(.*)", line)
        if not m:
            continue
        totals.append(float(m.group(1)))
        found = dict((k, float(v)) for k, v in re.findall(r"(\w+) (-?[0-9.]+)", m.group(2)))
        for s in STAGES:
            stages[s].append(found.get(s, 0.0))
    if not totals:
        sys.exit("no profile lines")
    cells = ["%.2f" % statistics.median(stages[s]) for s in STAGES]
    print("| %s | %s | %s | %.2f | %s |" % (label, elements, path, statistics.median(totals),
                                           " | ".join(cells)))


if __name__ == "__main__":
    main()
