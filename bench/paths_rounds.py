#!/usr/bin/env python3
"""The GPU service's path against the session's own, over several rounds.

    bench/paths_rounds.py PATHS.md...

Each PATHS.md is one round of `bench/service_path_bench.sh -` (a server
run: the CPU path, the own GPU path and the service path taking turns call
by call in one session).  Prints, per function and size, the service / own
ratio of each round, their median, and in how many rounds the service path
was at least as fast: the rule for removing the own path asks that of every
row of one run.
"""
import statistics
import sys


def rows(path):
    """(function, elements, type) -> service / own ratio of one round"""
    out = {}
    fn = None
    with open(path) as f:
        for line in f:
            if line.startswith('## '):
                fn = line[3:].strip()
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if fn and len(cells) > 5 and cells[0].isdigit() and cells[5]:
                try:
                    out[(fn, int(cells[0]), cells[1])] = float(cells[5])
                except ValueError:
                    pass
    return out


def main():
    rounds = [rows(p) for p in sys.argv[1:]]
    keys = sorted({k for r in rounds for k in r}, key=lambda k: (k[0], k[2], k[1]))
    print('| function | elements | type | service / own, each round | median | rounds at least as fast |')
    print('| --- | ---: | --- | --- | ---: | ---: |')
    for k in keys:
        vals = [r[k] for r in rounds if k in r]
        print('| %s | %d | %s | %s | %.3f | %d of %d |' % (
            k[0], k[1], k[2], ' '.join('%.3f' % v for v in vals), statistics.median(vals),
            sum(v <= 1.0 for v in vals), len(vals)))
    every = [all(r[k] <= 1.0 for k in r) for r in rounds]
    print()
    print('rounds with the service path at least as fast on every row: %d of %d' %
          (sum(every), len(rounds)))


if __name__ == '__main__':
    main()
