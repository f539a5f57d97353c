#!/usr/bin/env bash
#
# bench/citus_bench.sh -- the distributed gpu_sum against sum() on a Citus
# cluster of three throw-away servers on this machine (test/citus/lib.sh).
#
#   bench/citus_bench.sh [--save]
#
# A table of BENCH_ROWS rows (id bigint, the distribution column; g int of
# 100 groups; x double precision) in BENCH_SHARDS shards over two workers,
# then paired rounds (bench/paired_lib.sh) of
#   SELECT gpu_sum(x) FROM dist               vs  SELECT sum(x) FROM dist
#   SELECT g, gpu_sum(x) FROM dist GROUP BY g vs  SELECT g, sum(x) FROM dist GROUP BY g
# each timed on the coordinator, server-side, each in a new session; and the
# size of a shipped partial state (the text worker_partial_agg returns, per
# shard).  Prints a markdown report; with --save also writes it to
# bench/results/citus-<host>-<date>.md.  Not a test: nothing is asserted.
#
# Environment: BENCH_ROWS=2000000, BENCH_SHARDS=32, PAIRS=15, RUNS=3 (timed
# runs per measurement after one warm-up), PG_CONFIG, GPUSCAN_CPU_ONLY.

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
# shellcheck source=test/citus/lib.sh
source "$HERE/../test/citus/lib.sh"
# the command as given, for the report (before paired_lib.sh sets its defaults)
CMD=$(bench_command bench/citus_bench.sh "BENCH_ROWS BENCH_SHARDS PAIRS RUNS GPUSCAN_CPU_ONLY" "$@")
# shellcheck source=bench/paired_lib.sh
source "$HERE/paired_lib.sh"
cd "$GPUSCAN_ROOT"

bench_args "$@"
ROWS=${BENCH_ROWS:-2000000}
SHARDS=${BENCH_SHARDS:-32}
DB=gpuscan_citus_bench

bench_build
CITUS_VERSION=$(bash test/build_citus.sh) || die "Citus did not build or install"
TMPD=$(make_temp_dir)
msg "starting the cluster in $TMPD"
citus_start_cluster "$TMPD" "$DB" shared_buffers=512MB
BENCH_PSQL=("$PSQL" -h 127.0.0.1 -p "$PGPORT" -d "$DB")
sql() { "${BENCH_PSQL[@]}" -X -A -t -q -v ON_ERROR_STOP=1 "$@"; }

msg "making the table: $ROWS rows in $SHARDS shards"
sql -c "CREATE EXTENSION gpuscan" -f bench/sql/setup.sql >/dev/null
sql >/dev/null <<-SQL
	CREATE TABLE dist (id bigint, g int, x float8);
	SELECT create_distributed_table('dist', 'id', shard_count := $SHARDS);
	INSERT INTO dist SELECT i, i % 100, random() FROM generate_series(1, $ROWS) i;
	VACUUM ANALYZE dist;
SQL
sql -c "SELECT count(*) FROM dist" >/dev/null
wait_for_quiet
LOAD_BEFORE=$(loadavg)
SECONDS=0
paired "\`SELECT gpu_sum(x) FROM dist\`" "SELECT sum(x) FROM dist" "SELECT gpu_sum(x) FROM dist"
paired "\`SELECT g, gpu_sum(x) FROM dist GROUP BY g\` (100 groups)" \
	"SELECT g, sum(x) FROM dist GROUP BY g" "SELECT g, gpu_sum(x) FROM dist GROUP BY g"
ELAPSED=$SECONDS
LOAD_AFTER=$(loadavg)
GITREV=$(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)

# the shipped partial states: whole table (one per shard), and per group
STATE=$(sql -F ' ' -c "SELECT min(length(result)), max(length(result)), count(*) FROM run_command_on_shards('dist',
	\$\$SELECT worker_partial_agg('gpu_sum(double precision)'::regprocedure, x)::text FROM %s\$\$)")
STATE_G=$(sql -F ' ' -c "SELECT min(split_part(result, ' ', 1)::int), max(split_part(result, ' ', 2)::int) FROM run_command_on_shards('dist',
	\$\$SELECT min(length(s)) || ' ' || max(length(s)) FROM (SELECT g, worker_partial_agg('gpu_sum(double precision)'::regprocedure, x)::text s FROM %s GROUP BY g) q\$\$)")
read -r smin smax sn <<<"$STATE"
read -r gmin gmax <<<"$STATE_G"
PLAN=$(sql -c "EXPLAIN (COSTS OFF, VERBOSE) SELECT g, gpu_sum(x) FROM dist GROUP BY g" |
	sed -E 's/port=[0-9]+/port=N/')
PGVER=$(sql -c "SHOW server_version")

report() {
	echo "# Citus: distributed gpu_sum vs sum()"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), $ELAPSED s of timing"
	echo "- machine: $(machine_line), no GPU (gpuscan's CPU path); $(hostname)"
	echo "- load average (1, 5, 15 min) before the timing: $LOAD_BEFORE; after: $LOAD_AFTER (the timing itself keeps both cores busy)"
	echo "- PostgreSQL $PGVER, $CITUS_VERSION; a coordinator and two workers on this machine"
	echo "  (test/citus/lib.sh: shared_preload_libraries = 'citus,gpuscan'), shared_buffers = 512MB each, jit = off"
	echo "- table: \`dist (id bigint, g int, x float8)\`, $ROWS rows of random(), g = id % 100,"
	echo "  distributed by id in $SHARDS shards; vacuumed and analyzed"
	echo "- gpuscan: commit $GITREV"
	echo "- command: \`$CMD\`"
	echo "- method: $PAIRS paired rounds per query; each round times sum(x) and gpu_sum(x) on the"
	echo "  coordinator, server-side (bench.time_query: clock_timestamp() around EXECUTE), each in a"
	echo "  new session (new connections to the workers), one warm-up run then the median of $RUNS,"
	echo "  in alternating order.  Ratio = sum() time / gpu_sum time (above 1: gpu_sum faster)."
	echo
	paired_report_tables
	echo
	echo "Shipped partial state (the text of worker_partial_agg's result, bytea hex, per shard):"
	echo "whole table $smin–$smax characters over $sn shards ($(( (smin - 2) / 2 ))–$(( (smax - 2) / 2 )) bytes of state);"
	echo "per group $gmin–$gmax characters."
	echo
	echo "The GROUP BY plan:"
	echo
	echo '```'
	printf '%s\n' "$PLAN"
	echo '```'
}

report
bench_save "$(report)" citus
