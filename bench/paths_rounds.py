#!/usr/bin/env python3
"""The GPU service's path against another path, over several rounds.

    bench/paths_rounds.py PATHS.md...

Each PATHS.md is one round of `bench/service_path_bench.sh -` (a server
run: the CPU path and the service path taking turns call by call in one
session), or any report of bench/dispatch_bench.sh.  Prints, per function
and size, the service / CPU ratio of each round, their median, and in how
many rounds the service path was at least as fast.  Where every round has
the own columns (an old build's reports, with the path "own": its own GPU
path in the session), the ratio is service / own instead, as
bench/dispatch_table.py printed it: the rule for removing the own path
asked that of every row of one run.

read_tables() is also bench/two_trees.py's reader of the reports.
"""
import statistics
import sys


def cells_of(line):
    """The cells of a markdown table row, or None where the line is none"""
    line = line.strip()
    if not line.startswith('|'):
        return None
    return [c.strip() for c in line.strip('|').split('|')]


def number(cell):
    """A cell's number, or None where it is empty or no number"""
    try:
        return float(cell)
    except (TypeError, ValueError):
        return None


def read_tables(path):
    """The per-function tables of one bench/dispatch_bench.sh report:
    function -> (elements, type) -> {column header: cell}.  A table counts
    where it is under a heading `## FUNCTION` and its header starts with
    `elements`; its columns are found by name, so that tables with and
    without the own columns ("own GPU ms", "GPU / own") both read."""
    out = {}
    fn = None
    header = None
    with open(path) as f:
        for line in f:
            if line.startswith('## '):
                fn, header = line[3:].strip(), None
                continue
            cells = cells_of(line)
            if cells is None or fn is None:
                continue
            if cells[0] == 'elements':
                header = cells
            elif header and cells[0].isdigit() and len(cells) == len(header):
                out.setdefault(fn, {})[(int(cells[0]), cells[1])] = dict(zip(header, cells))
    return out


def ratios(tables, against):
    """(function, elements, type) -> service / AGAINST ("own" or "CPU")"""
    out = {}
    for fn, rows in tables.items():
        for (n, typ), row in rows.items():
            if against == 'own':
                r = number(row.get('GPU / own'))
            else:
                gpu, cpu = number(row.get('GPU ms')), number(row.get('CPU ms'))
                r = gpu / cpu if gpu is not None and cpu else None
            if r is not None:
                out[(fn, n, typ)] = r
    return out


def has_own(tables):
    """Whether a report has the own columns (an old build's, path "own")"""
    return any('GPU / own' in row for rows in tables.values() for row in rows.values())


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: bench/paths_rounds.py PATHS.md...')
    tables = [read_tables(p) for p in sys.argv[1:]]
    against = 'own' if all(has_own(t) for t in tables) else 'CPU'
    rounds = [ratios(t, against) for t in tables]
    keys = sorted({k for r in rounds for k in r}, key=lambda k: (k[0], k[2], k[1]))
    print('| function | elements | type | service / %s, each round | median | rounds at least as fast |' % against)
    print('| --- | ---: | --- | --- | ---: | ---: |')
    for k in keys:
        vals = [r[k] for r in rounds if k in r]
        print('| %s | %d | %s | %s | %.3f | %d of %d |' % (
            k[0], k[1], k[2], ' '.join('%.3f' % v for v in vals), statistics.median(vals),
            sum(v <= 1.0 for v in vals), len(vals)))
    every = [bool(r) and all(v <= 1.0 for v in r.values()) for r in rounds]
    print()
    print('rounds with the service path at least as fast as the %s path on every row: %d of %d' %
          (against, sum(every), len(rounds)))


if __name__ == '__main__':
    main()
