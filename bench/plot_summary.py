#!/usr/bin/env python3
"""bench/plot_summary.py -- the summary figure of docs/performance.md and README.md.

    python3 bench/plot_summary.py [OUTPUT]        (default: docs/performance.png)

Reads the committed measurements in bench/results/ and draws, per function and
input size, the time of the plain-SQL query, of gpuscan's CPU path and of its GPU
path, on a log scale.  Nothing is measured here; needs matplotlib
(pip install matplotlib).

Where each panel's numbers come from (the markdown tables of these files):

  sql-nvidia-h200-2026-11-21-run1.md    gpu_sum(a) at 1e3 .. 1e6 elements (H200 host)
  sql-nvidia-h200-2026-11-21-final.md   gpu_sum(a) at 1e7, gpu_prefix_sum_array,
                                        gpu_prefix_sum (rows), gpu_running_sum (H200 host)
  sql-nvidia-h200-2026-11-22-sum-scan.md
                                        the gpu_sum aggregate (GpuscanSum scan) over a
                                        10M-row table, paired rounds: the medians over the
                                        rounds, the baseline's from its row label (H200 host)
  sql-vm-2026-11-21.md                  gpu_compact_array and gpu_csr_spmv (2-core VM, no GPU)
  kernels-nvidia-h200-2026-11-21-spmv-staged-final.md
                                        gpu_pagerank's CPU and GPU paths end to end from host
                                        arrays, its first PageRank table (H200; not SQL-level)

A missing bar means that path was not measured there (the VM has no GPU; the
GpuscanSum scan, compaction and SpMV have no committed SQL-level GPU timings; no
plain-SQL PageRank was timed).
"""

import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
ROOT = os.path.dirname(HERE)

PATHS = ("sql", "cpu", "gpu")
LABELS = {"sql": "plain SQL", "cpu": "gpuscan, CPU path", "gpu": "gpuscan, GPU path"}
COLORS = {"sql": "#9e9e9e", "cpu": "#1f77b4", "gpu": "#2ca02c"}
PAIRED = re.compile(r"^(.*) \(paired; baseline ([0-9.]+) ms\)$")


def sql_rows(name):
    """The rows of a bench/sql_bench.sh table: (size, query, path, median ms, paired baseline ms)"""
    rows = []
    with open(os.path.join(RESULTS, name), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 4 or not re.fullmatch(r"1e[0-9]+", cells[0]):
                continue
            try:
                median = float(cells[3])
            except ValueError:
                continue  # an error row
            query, baseline = cells[1], None
            m = PAIRED.match(query)
            if m:
                query, baseline = m.group(1), float(m.group(2))
            rows.append((cells[0], query, cells[2], median, baseline))
    return rows


def sql_panel(sources, base, fn, sizes=None):
    """{size: {path: ms}} for the baseline query `base` and the gpuscan query `fn`;
    later sources override earlier ones"""
    out = {}
    for name in sources:
        for size, query, path, ms, baseline in sql_rows(name):
            if sizes and size not in sizes:
                continue
            if query == base and path == "sql":
                out.setdefault(size, {})["sql"] = ms
            elif query == fn and path in ("cpu", "gpu"):
                out.setdefault(size, {})[path] = ms
                if baseline is not None:
                    out[size]["sql"] = baseline
    return out


def pagerank_panel(name):
    """{label: {path: ms}} from the first PageRank table of a kernel_bench result"""
    times = {}
    with open(os.path.join(RESULTS, name), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\|\s*(GPU|CPU) \((?:gsd|cpu)_pagerank_iteration\)\s*\|\s*([0-9.]+) ms", line)
            if m and m.group(1).lower() not in times:
                times[m.group(1).lower()] = float(m.group(2))
            if len(times) == 2:
                break
    return {"2^24": times}


def panels():
    h200 = "H200 host, 16 cores"
    vm = "2-core VM, no GPU"
    return [
        ("gpu_sum(a), float8[]", h200, "elements",
         sql_panel(["sql-nvidia-h200-2026-11-21-run1.md", "sql-nvidia-h200-2026-11-21-final.md"],
                   "sum(x) FROM unnest(a), float8[]", "gpu_sum(a), float8[]")),
        ("gpu_prefix_sum_array(a)", h200, "elements",
         sql_panel(["sql-nvidia-h200-2026-11-21-final.md"],
                   "array_agg of sum() OVER (ORDER BY i ROWS …) over unnest, float8[]",
                   "gpu_prefix_sum_array(a), float8[]")),
        # the final run's 1e6 baseline row was cut off: plain SQL at 1e7 only
        ("gpu_prefix_sum(a), rows", h200, "elements",
         sql_panel(["sql-nvidia-h200-2026-11-21-final.md"],
                   "rows of sum() OVER (ORDER BY i ROWS …) over unnest, float8[]",
                   "rows of gpu_prefix_sum(a) in the select list, float8[]")),
        ("gpu_running_sum(x), default frame", h200, "rows",
         sql_panel(["sql-nvidia-h200-2026-11-21-final.md"],
                   "sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING)",
                   "gpu_running_sum(x) OVER (ORDER BY id)")),
        ("gpu_sum(x) aggregate, GpuscanSum", h200, "rows",
         sql_panel(["sql-nvidia-h200-2026-11-22-sum-scan.md"],
                   "sum(x) over rows, serial", "gpu_sum(x) over rows, serial")),
        ("gpu_compact_array(a, k)", vm, "elements",
         sql_panel(["sql-vm-2026-11-21.md"],
                   "array_agg(v ORDER BY i) FROM unnest(a, k) WITH ORDINALITY … WHERE k",
                   "gpu_compact_array(a, k), float8[]")),
        ("gpu_csr_spmv, 1M × 1M", vm, "non-zeros",
         sql_panel(["sql-vm-2026-11-21.md"],
                   "spmv: join + GROUP BY, 1M x 1M, ~10M power-law entries",
                   "spmv: gpu_csr_spmv(row_ptr, col_idx, vals, x)")),
        ("gpu_pagerank, 2^20 nodes", "H200, end to end, not SQL", "edges",
         pagerank_panel("kernels-nvidia-h200-2026-11-21-spmv-staged-final.md")),
    ]


def size_key(s):
    m = re.fullmatch(r"1e([0-9]+)", s)
    return int(m.group(1)) if m else 0


def draw(out):
    ps = panels()
    fig, axes = plt.subplots(2, 4, figsize=(12, 5.8), dpi=90,
                             gridspec_kw={"width_ratios": [1.5, 1, 1, 1]})
    width = 0.26
    for ax, (title, machine, unit, data) in zip(axes.flat, ps):
        sizes = sorted(data, key=size_key)
        crowded = len(sizes) > 3
        for i, path in enumerate(PATHS):
            xs, ys = [], []
            for j, size in enumerate(sizes):
                if path in data[size]:
                    xs.append(j + (i - 1) * width)
                    ys.append(data[size][path])
            bars = ax.bar(xs, ys, width, color=COLORS[path], label=LABELS[path])
            for b, y in zip(bars, ys):
                text = f"{y:.0f}" if y >= 10 else (f"{y:.1f}" if y >= 1 else f"{y:.2f}")
                ax.annotate(text, (b.get_x() + b.get_width() / 2, y), ha="center", va="bottom",
                            fontsize=6, xytext=(0, 1), textcoords="offset points",
                            rotation=90 if crowded else 0)
        ax.set_yscale("log")
        ax.set_xlim(-0.6, len(sizes) - 0.4 if len(sizes) > 1 else 0.6)
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels(sizes, fontsize=8)
        ax.set_xlabel(unit, fontsize=8, labelpad=1)
        ax.set_title(f"{title}\n{machine}", fontsize=8.5)
        ax.tick_params(axis="y", labelsize=7)
        lo = min(v for d in data.values() for v in d.values())
        hi = max(v for d in data.values() for v in d.values())
        ax.set_ylim(lo / 3, hi * (12 if crowded else 4))
        ax.grid(axis="y", which="major", linewidth=0.4, alpha=0.5)
    for ax in axes[:, 0]:
        ax.set_ylabel("ms (log scale)", fontsize=8)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8.5, frameon=False)
    fig.suptitle("gpuscan against plain SQL: time per query (lower is better; medians from bench/results)",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    fig.savefig(out, dpi=90)
    print(f"wrote {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    draw(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "performance.png"))
