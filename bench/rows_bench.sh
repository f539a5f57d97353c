#!/usr/bin/env bash
#
# bench/rows_bench.sh -- the row aggregates over a large table against
# sum(), on the server PG* points at (gpuscan installed and preloaded).
#
#   bench/rows_bench.sh OUTDIR
#
# Makes an unlogged table t (g100 int, g10k int, x float8) of ROWS rows
# (x random()) with extended statistics on (g100, g10k), VACUUM (FREEZE,
# ANALYZE), reads it twice, then times in one
# session, the queries taking turns round after round (RUNS rounds; the
# median of each):
#   serial (max_parallel_workers_per_gather = 0) and with WORKERS workers
#   (the table's parallel_workers set to WORKERS):
#     SELECT sum(x) FROM t
#     SELECT gpu_sum(x) FROM t   with gpuscan.device = cpu, then = auto
#   with WORKERS workers:
#     SELECT g100, sum(x) ... GROUP BY g100 and gpu_sum(x), the same for g10k
#     and for the two columns (g100, g10k)
# then updates one row on every other page (half the pages no longer
# all-visible) and times the whole-table sums again.  Every gpu_sum result
# is checked: the same bits on every path and plan (the text of the
# double), else the script says MISMATCH.  Writes OUTDIR/rows.md (the
# table of medians), OUTDIR/rows-times.txt (every time) and
# OUTDIR/rows-plans.txt (EXPLAIN ANALYZE of the gpu_sum queries).
#
# Environment: ROWS=100000000, RUNS=5, WORKERS=8, ROWS_SKIP_HALF=1 skips
# the half-visible table, ROWS_ONLY_GROUPS=1 times the GROUP BY queries
# alone.  Not a test: apart from the result check,
# nothing is asserted.

set -euo pipefail
OUT=${1:?usage: bench/rows_bench.sh OUTDIR}
ROWS=${ROWS:-100000000}
RUNS=${RUNS:-5}
WORKERS=${WORKERS:-8}
mkdir -p "$OUT"
TIMES=$OUT/rows-times.txt
PLANS=$OUT/rows-plans.txt
: >"$TIMES"
: >"$PLANS"

sql() { psql -X -A -t -q -v ON_ERROR_STOP=1 "$@"; }

# the table, filled by 8 sessions at once
sql -c "CREATE EXTENSION IF NOT EXISTS gpuscan" -c "DROP TABLE IF EXISTS t" \
	-c "CREATE UNLOGGED TABLE t (g100 int, g10k int, x float8)"
t0=$(date +%s)
for p in 0 1 2 3 4 5 6 7; do
	sql -c "INSERT INTO t SELECT (i % 100)::int, (i % 10000)::int, random()
		FROM generate_series($p * ($ROWS / 8) + 1, ($p + 1) * ($ROWS / 8)) i" &
done
wait
# g10k determines g100: extended statistics tell the planner that the two
# columns make 10,000 groups, not 10^6
sql -c "CREATE STATISTICS t_groups (ndistinct) ON g100, g10k FROM t" \
	-c "VACUUM (FREEZE, ANALYZE) t" -c "ALTER TABLE t SET (parallel_workers = $WORKERS)"
echo "table: $(sql -c "SELECT count(*) FROM t") rows, $(sql -c "SELECT pg_size_pretty(pg_relation_size('t'))"), $(sql -c "SELECT relpages FROM pg_class WHERE relname = 't'") pages, made in $(($(date +%s) - t0)) s" | tee "$OUT/table.txt"
sql -c "SELECT sum(x) FROM t" -c "SELECT sum(x) FROM t" >/dev/null

# time_queries LABEL SETTINGS ITEM... -- RUNS rounds (after one not
# counted) of the items in turn in one session; an item is
# "NAME|ITS SETTINGS|QUERY".  Appends "LABEL<TAB>NAME<TAB>ms<TAB>result"
# lines to $TIMES.
time_queries() {
	local label=$1 settings=$2 script="" item name set q
	shift 2
	for ((r = 0; r < RUNS + 1; r++)); do
		for item in "$@"; do
			IFS='|' read -r name set q <<<"$item"
			script+="$settings $set"$'\n'"\\echo @@ $name"$'\n'"\\timing on"$'\n'"$q;"$'\n'"\\timing off"$'\n'
		done
	done
	sql -c "SET jit = off" -f <(echo "$script") 2>&1 | awk -v label="$label" '
		/^@@ / { q = substr($0, 4); n[q]++; res = ""; next }
		/^Time: / { if (n[q] > 1) printf "%s\t%s\t%s\t%s\n", label, q, $2, res; next }
		{ res = res == "" ? $0 : res " " $0 }' >>"$TIMES"
}

SUM="sum(x)||SELECT sum(x) FROM t"
GPU_CPU="gpu_sum(x), device = cpu|SET gpuscan.device = cpu;|SELECT gpu_sum(x)::text FROM t"
GPU_AUTO="gpu_sum(x), device = auto|SET gpuscan.device = auto;|SELECT gpu_sum(x)::text FROM t"
serial="SET max_parallel_workers_per_gather = 0;"
parallel="SET max_parallel_workers_per_gather = $WORKERS;"

# plans SETTINGS ITEM -- the item's EXPLAIN ANALYZE into $PLANS
plans() {
	local name set q
	IFS='|' read -r name set q <<<"$2"
	{
		echo "-- $name: $1 $set"
		sql -c "SET jit = off; $1 $set" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q"
		echo
	} >>"$PLANS"
}

run_table() {
	local tag=$1 s
	time_queries "$tag, serial" "$serial" "$SUM" "$GPU_CPU" "$GPU_AUTO"
	time_queries "$tag, $WORKERS workers" "$parallel" "$SUM" "$GPU_CPU" "$GPU_AUTO"
	for s in "$serial" "$parallel"; do
		plans "$s" "$GPU_CPU"
		plans "$s" "$GPU_AUTO"
	done
}

[ "${ROWS_ONLY_GROUPS:-0}" = 1 ] || run_table all-visible
for g in g100 g10k "g100, g10k"; do
	time_queries "GROUP BY $g, $WORKERS workers" "$parallel" \
		"sum(x)||SELECT $g, sum(x) FROM t GROUP BY $g" \
		"gpu_sum(x), device = cpu|SET gpuscan.device = cpu;|SELECT $g, gpu_sum(x) FROM t GROUP BY $g" \
		"gpu_sum(x), device = auto|SET gpuscan.device = auto;|SELECT $g, gpu_sum(x) FROM t GROUP BY $g"
	plans "$parallel" "gpu_sum(x), device = auto|SET gpuscan.device = auto;|SELECT $g, gpu_sum(x) FROM t GROUP BY $g"
done
# the groups' sums: the same on both paths (the text of the doubles, in group order)
for g in g100 g10k "g100, g10k"; do
	a=$(sql -c "SET gpuscan.device = cpu" -c "SELECT md5(string_agg(s::text, ',' ORDER BY $g)) FROM (SELECT $g, gpu_sum(x) s FROM t GROUP BY $g) q")
	b=$(sql -c "SET gpuscan.device = auto" -c "$parallel" -c "SELECT md5(string_agg(s::text, ',' ORDER BY $g)) FROM (SELECT $g, gpu_sum(x) s FROM t GROUP BY $g) q")
	echo "GROUP BY $g sums: cpu $a, auto $WORKERS workers $b $([ "$a" = "$b" ] && echo same || echo MISMATCH)" | tee -a "$OUT/table.txt"
done

if [ "${ROWS_SKIP_HALF:-0}" != 1 ] && [ "${ROWS_ONLY_GROUPS:-0}" != 1 ]; then
	# one row of every other page updated: those pages are no longer all-visible
	t0=$(date +%s)
	sql -c "UPDATE t SET x = x WHERE ctid = ANY (ARRAY(SELECT format('(%s,1)', b)::tid
		FROM generate_series(0, (SELECT relpages FROM pg_class WHERE relname = 't') - 1, 2) b))"
	echo "half the pages updated in $(($(date +%s) - t0)) s" | tee -a "$OUT/table.txt"
	sql -c "SELECT sum(x) FROM t" >/dev/null
	run_table half-visible
fi

# the table of medians, and the check that every gpu_sum gave the same bits
python3 - "$TIMES" "$OUT/rows.md" <<'PY'
import sys, statistics, collections
times = collections.OrderedDict()
results = collections.defaultdict(set)
for line in open(sys.argv[1]):
    label, q, ms, res = (line.rstrip("\n").split("\t") + [""])[:4]
    times.setdefault(label, collections.OrderedDict()).setdefault(q, []).append(float(ms))
    if q.startswith("gpu_sum") and "GROUP BY" not in label:
        results[label.split(",")[0]].add(res.strip())
out = ["| case | query | median ms | runs | speed-up over sum() |", "| --- | --- | ---: | ---: | ---: |"]
for label, qs in times.items():
    base = statistics.median(qs["sum(x)"]) if "sum(x)" in qs else None
    for q, v in qs.items():
        m = statistics.median(v)
        out.append("| %s | %s | %.1f | %d | %s |" % (label, q, m, len(v),
                   "%.2f×" % (base / m) if base and q != "sum(x)" else ""))
for tab, r in results.items():
    out.append("")
    out.append("%s: gpu_sum(x) %s" % (tab, "the same bits on every path and plan: " + next(iter(r))
               if len(r) == 1 else "MISMATCH: " + ", ".join(sorted(r))))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
