#!/usr/bin/env bash
#
# bench/group_by_bench.sh -- the gpu_sum aggregate with GROUP BY against
# sum() on one throw-away server (test/lib.sh; no Citus).
#
#   bench/group_by_bench.sh [--save]
#
# A table of BENCH_ROWS rows (g100 = id % 100, g10k = id % 10000, x random()
# double precision), then paired rounds (bench/paired_lib.sh) of
#   SELECT g100, gpu_sum(x) FROM t GROUP BY g100   vs  the same with sum(x)
#   SELECT g10k, gpu_sum(x) FROM t GROUP BY g10k   vs  the same with sum(x)
# each timed server-side, each in a new session, with the server's default
# planner settings (parallel query allowed) and jit = off.  The plans of the
# four queries (EXPLAIN ANALYZE) go into the report.  Prints a markdown
# report; with --save also writes it to bench/results/group-by-<host>-<date>.md.
# Not a test: nothing is asserted.
#
# Environment: BENCH_ROWS=10000000, PAIRS=15, RUNS=3 (timed runs per
# measurement after one warm-up), BENCH_SETTINGS (SQL run first in every
# session, e.g. "SET max_parallel_workers_per_gather = 0;"), PG_CONFIG,
# GPUSCAN_CPU_ONLY.

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
# the command as given, for the report (before paired_lib.sh sets its defaults)
CMD=$(bench_command bench/group_by_bench.sh "BENCH_ROWS BENCH_SETTINGS PAIRS RUNS GPUSCAN_CPU_ONLY" "$@")
# shellcheck source=bench/paired_lib.sh
source "$HERE/paired_lib.sh"
cd "$GPUSCAN_ROOT"

bench_args "$@"
ROWS=${BENCH_ROWS:-10000000}
SETTINGS=${BENCH_SETTINGS:-}
DB=gpuscan_group_by_bench

bench_build
TMPD=$(make_temp_dir)
msg "starting a throw-away server in $TMPD"
start_temp_server "$TMPD" shared_buffers=1GB shared_preload_libraries=gpuscan
BENCH_PSQL=("$PSQL" -d "$DB")
sql() { "${BENCH_PSQL[@]}" -X -A -t -q -v ON_ERROR_STOP=1 "$@"; }

msg "making the table: $ROWS rows"
"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "CREATE DATABASE $DB"
sql -c "CREATE EXTENSION gpuscan" -f bench/sql/setup.sql >/dev/null
sql >/dev/null <<-SQL
	CREATE TABLE t AS SELECT (i % 100)::int AS g100, (i % 10000)::int AS g10k, random() AS x
	FROM generate_series(1, $ROWS) i;
	VACUUM ANALYZE t;
	CREATE EXTENSION IF NOT EXISTS pg_prewarm;
	SELECT pg_prewarm('t');
SQL
PLANS=""
for q in "SELECT g100, sum(x) FROM t GROUP BY g100" "SELECT g100, gpu_sum(x) FROM t GROUP BY g100" \
		"SELECT g10k, sum(x) FROM t GROUP BY g10k" "SELECT g10k, gpu_sum(x) FROM t GROUP BY g10k"; do
	PLANS+="$q"$'\n'$(sql -c "SET jit = off; $SETTINGS" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q" | sed 's/^/    /')$'\n\n'
done
wait_for_quiet
LOAD_BEFORE=$(loadavg)
SECONDS=0
paired "\`SELECT g100, gpu_sum(x) FROM t GROUP BY g100\` (100 groups)" \
	"SELECT g100, sum(x) FROM t GROUP BY g100" "SELECT g100, gpu_sum(x) FROM t GROUP BY g100" "$SETTINGS"
paired "\`SELECT g10k, gpu_sum(x) FROM t GROUP BY g10k\` (10000 groups)" \
	"SELECT g10k, sum(x) FROM t GROUP BY g10k" "SELECT g10k, gpu_sum(x) FROM t GROUP BY g10k" "$SETTINGS"
ELAPSED=$SECONDS
LOAD_AFTER=$(loadavg)
GITREV=$(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
PGVER=$(sql -c "SHOW server_version")
PGSET=$(sql -F ' = ' -c "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'hash_mem_multiplier', 'max_parallel_workers_per_gather') ORDER BY name" | paste -sd ',' - | sed 's/,/, /g')

report() {
	echo "# GROUP BY: gpu_sum vs sum() on one server"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), $ELAPSED s of timing"
	echo "- machine: $(machine_line), no GPU (gpuscan's CPU path); $(hostname)"
	echo "- load average (1, 5, 15 min) before the timing: $LOAD_BEFORE; after: $LOAD_AFTER (the timing itself keeps both cores busy)"
	echo "- PostgreSQL $PGVER, a throw-away server (test/lib.sh): $PGSET, jit = off${SETTINGS:+; every session: \`$SETTINGS\`}"
	echo "- table: \`t (g100 int, g10k int, x float8)\`, $ROWS rows, g100 = i % 100, g10k = i % 10000,"
	echo "  x = random(); vacuumed, analyzed, prewarmed"
	echo "- gpuscan: commit $GITREV"
	echo "- command: \`$CMD\`"
	echo "- method: $PAIRS paired rounds per query; each round times sum(x) and gpu_sum(x) server-side"
	echo "  (bench.time_query: clock_timestamp() around EXECUTE), each in a new session, one warm-up"
	echo "  run then the median of $RUNS, in alternating order.  Ratio = sum() time / gpu_sum time"
	echo "  (above 1: gpu_sum faster)."
	echo
	paired_report_tables
	echo
	echo "Plans (EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF), before the timing):"
	echo
	printf '%s' "$PLANS"
}

report
bench_save "$(report)" group-by
