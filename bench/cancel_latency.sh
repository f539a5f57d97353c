#!/usr/bin/env bash
#
# bench/cancel_latency.sh -- how long after statement_timeout fires each
# gpuscan function stops, on the path PGOPTIONS asks for.
#
# The inputs are built first, inside a DO block, so that the timeout fires
# in gpuscan's code rather than in PostgreSQL's array constructors (which
# do not check for interrupts): the block builds its arrays (time B), then
# calls the function in a loop, each call taking time C.  With
# statement_timeout = B + 2.5 C the timeout fires in the middle of the
# third call; the latency is the elapsed time minus the timeout (measured
# by the client, so it includes the round trip and the freeing of the
# inputs).  Uses the server of PGHOST/PGPORT/PGUSER and a scratch database;
# prints one row per function and the largest latency last.
#
#   PGOPTIONS='-c gpuscan.device=cpu' bash bench/cancel_latency.sh
#   PGOPTIONS='-c gpuscan.device=gpu -c gpuscan.gpu_min_elements=0' bash bench/cancel_latency.sh

set -euo pipefail
DB=gpuscan_cancel_bench
: "${PSQL:=psql}"
ERR=$(mktemp /tmp/cancel_latency.XXXXXX)

# q SQL... -- psql on the scratch database, quiet, stop at errors
q() { "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

# now_ms -- wall clock in milliseconds
now_ms() { date +%s%3N; }

# block DECLS CALL N -- a DO block that declares DECLS, then runs CALL N times
block() {
	printf 'DO $$ DECLARE %s BEGIN FOR i IN 1..%d LOOP PERFORM %s; END LOOP; END $$' "$1" "$3" "$2"
}

# timed SQL -- run SQL, print its elapsed milliseconds
timed() {
	local t0
	t0=$(now_ms)
	q -c "$1" >/dev/null
	echo $(($(now_ms) - t0))
}

"$PSQL" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
trap '"$PSQL" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -f "$ERR"' EXIT
q <<'SQL'
CREATE EXTENSION gpuscan;
CREATE TABLE rows10m AS SELECT (i % 1000) / 8.0 AS x FROM generate_series(1, 10000000) i;
ANALYZE rows10m;
SQL

# label|declarations|call: each call runs for about a second on the CPU path
functions=(
	"gpu_sum, 100M real|a real[] := array_fill(0.5::real, ARRAY[100000000]);|gpu_sum(a)"
	"gpu_prefix_sum_array, 60M double|a float8[] := array_fill(0.5::float8, ARRAY[60000000]);|cardinality(gpu_prefix_sum_array(a))"
	"gpu_compact_array, 100M real|a real[] := array_fill(0.5::real, ARRAY[100000000]); k bool[] := array_fill(true, ARRAY[100000000]);|cardinality(gpu_compact_array(a, k))"
	"gpu_csr_spmv, 60M non-zeros|rp int[] := ARRAY[0, 60000000]; ci int[] := array_fill(0, ARRAY[60000000]); v float8[] := array_fill(0.5::float8, ARRAY[60000000]);|gpu_csr_spmv(rp, ci, v, '{1}'::float8[])"
	"gpu_pagerank, 5M nodes|rp int[] := ARRAY(SELECT generate_series(0, 5000000)); ci int[] := array_fill(0, ARRAY[5000000]);|gpu_pagerank(rp, ci, max_iterations => 30, tolerance => 0)"
)
# label|query: aggregate and window function over a table
queries=(
	"gpu_sum aggregate, 10M rows|SELECT gpu_sum(x) FROM rows10m WHERE x >= 0"
	"gpu_running_sum, 10M rows|SELECT count(s) FROM (SELECT gpu_running_sum(x) OVER (ORDER BY x ROWS UNBOUNDED PRECEDING) s FROM rows10m) t"
)

worst=0
# report LABEL SQL TIMEOUT_MS -- run SQL under the timeout, print the latency
report() {
	local t0 elapsed latency
	t0=$(now_ms)
	if q -c "SET statement_timeout = $3" -c "$2" >/dev/null 2>"$ERR"; then
		echo "$1: finished before the timeout of $3 ms" >&2
		return 0
	fi
	elapsed=$(($(now_ms) - t0))
	grep -q 'statement timeout' "$ERR" || { cat "$ERR" >&2; exit 1; }
	latency=$((elapsed - $3))
	[ "$latency" -gt "$worst" ] && worst=$latency
	printf '%-34s %10d %10d\n' "$1" "$3" "$latency"
}

printf '%-34s %10s %10s\n' function timeout_ms latency_ms
for entry in "${functions[@]}"; do
	IFS='|' read -r label decls call <<<"$entry"
	timed "$(block "$decls" "$call" 1)" >/dev/null	# warm up
	build=$(timed "$(block "$decls" "$call" 0)")
	one=$(timed "$(block "$decls" "$call" 1)")
	call_ms=$((one - build))
	report "$label" "$(block "$decls" "$call" 100)" $((build + call_ms * 5 / 2))
done
for entry in "${queries[@]}"; do
	IFS='|' read -r label sql <<<"$entry"
	timed "$sql" >/dev/null
	full=$(timed "$sql")
	report "$label" "$sql" $((full / 2))
done
echo "largest latency: $worst ms"
