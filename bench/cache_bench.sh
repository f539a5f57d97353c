#!/usr/bin/env bash
#
# bench/cache_bench.sh -- the GPU service's device cache of stored arrays:
# gpu_sum on a stored array, on the CPU, on the session's own GPU path and
# from the cache; the first call of new connections; the CUDA contexts of
# many connections; pgbench with the cache on and off.
#
#   bench/cache_bench.sh [--save]
#
# Needs a server that preloads gpuscan (shared_preload_libraries) with a
# usable GPU: GPUSCAN_USE_RUNNING_SERVER=1 as for the other benches.  The
# table cache_bench.t holds CACHE_ROWS (4) rows of CACHE_ELEMENTS (10^7)
# random doubles each, stored out of line uncompressed, with their sums
# (computed on the CPU path) in a column.  Reported:
#   - `SELECT gpu_sum(a) FROM cache_bench.t WHERE id = 1`, psql's \timing
#     (the statement as the client sees it), median of CACHE_RUNS (20) in
#     one session after a warm-up: on the CPU path; on the session's own
#     GPU path (gpuscan.cache = off, gpuscan.device = gpu); from the cache;
#   - the cache's first call on the row (the load), after
#     gpuscan_cache_reset();
#   - the first statement of CACHE_RUNS new connections, from the cache;
#   - CACHE_CONNECTIONS (32) connections that each ran the call and stay
#     open: the processes with a CUDA context (nvidia-smi
#     --query-compute-apps), with the cache on and then off;
#   - pgbench, CACHE_CLIENTS (16) clients for CACHE_SECONDS (60) s, each
#     transaction gpu_sum of a random row checked against its stored sum
#     (a wrong answer is a division by zero, which ends the run), with the
#     cache on and off.
# Prints markdown; with --save writes bench/results/cache-<device>-<date>.md.

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
CMD=$(bench_command bench/cache_bench.sh "CACHE_ROWS CACHE_ELEMENTS CACHE_RUNS CACHE_CONNECTIONS CACHE_CLIENTS CACHE_SECONDS GPUSCAN_USE_RUNNING_SERVER" "$@")
cd "$GPUSCAN_ROOT"

bench_args "$@"
NROWS=${CACHE_ROWS:-4}
ELEMS=${CACHE_ELEMENTS:-10000000}
RUNS=${CACHE_RUNS:-20}
CONNS=${CACHE_CONNECTIONS:-32}
CLIENTS=${CACHE_CLIENTS:-16}
SECONDS_=${CACHE_SECONDS:-60}
DB=gpuscan_cache_bench
bench_server_up
gpu_usable || die "no usable GPU"
PGBENCH=$PGBIN/pgbench
sql() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
sql -c "CREATE EXTENSION gpuscan" \
	-c "CREATE SCHEMA cache_bench" \
	-c "CREATE TABLE cache_bench.t (id integer PRIMARY KEY, a double precision[], s double precision)" \
	-c "ALTER TABLE cache_bench.t ALTER COLUMN a SET STORAGE EXTERNAL"
[ "$(sql -c "SELECT count(*) FROM gpuscan_info() WHERE item = 'gpu_service_device 0'")" = 1 ] ||
	die "the GPU service has no GPU: is gpuscan in shared_preload_libraries?"
msg "loading $NROWS rows of $ELEMS doubles"
for id in $(seq "$NROWS"); do
	sql -o /dev/null -c "SELECT setseed(0.$id)" \
		-c "INSERT INTO cache_bench.t (id, a) SELECT $id, array_agg(random() - 0.5) FROM generate_series(1, $ELEMS)"
done
sql -c "SET gpuscan.device = cpu" -c "UPDATE cache_bench.t SET s = gpu_sum(a)" -c "VACUUM ANALYZE cache_bench.t"
CALL="SELECT gpu_sum(a) FROM cache_bench.t WHERE id = 1;"

# times SETTINGS N -- psql's \timing of N calls after SETTINGS and a warm-up, one per line
times() {
	{
		printf '%s\n' "$1" "$CALL" '\timing on'
		for ((i = 0; i < $2; i++)); do printf '%s\n' "$CALL"; done
	} | sql 2>&1 | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p'
}
fmt() { awk -v x="$1" 'BEGIN { printf (x >= 100 ? "%.0f" : (x >= 1 ? "%.2f" : "%.3f")), x }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

msg "one session: CPU, own GPU path, cache"
T_CPU=$(times "SET gpuscan.device = cpu;" "$RUNS" | median)
T_OWN=$(times "SET gpuscan.device = gpu; SET gpuscan.cache = off;" "$RUNS" | median)
sql -c "SELECT gpuscan_cache_reset()" >/dev/null
T_LOAD=$({ printf '%s\n' '\timing on' "$CALL"; } | sql 2>&1 | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p')
T_HIT=$(times "" "$RUNS" | median)
FIRST=()
for _ in $(seq "$RUNS"); do
	FIRST+=("$({ printf '%s\n' '\timing on' "$CALL"; } | sql 2>&1 | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p')")
done
T_FIRST=$(printf '%s\n' "${FIRST[@]}" | median)
PATHS=$(sql -c "$CALL" -c "$CALL" \
	-c "SELECT string_agg(path || ': ' || calls, ', ') FROM gpuscan_stats() WHERE function = 'gpu_sum'" | tail -n 1)
msg "cpu $T_CPU ms, own GPU $T_OWN ms, load $T_LOAD ms, hit $T_HIT ms, first call of a connection $T_FIRST ms"

# contexts SETTINGS -- the processes with a CUDA context while CONNS connections
# that each ran the call after SETTINGS stay open: "count total_MiB"
contexts() {
	local pids=() out
	for _ in $(seq "$CONNS"); do
		sql -c "$1" -c "$CALL" -c "SELECT pg_sleep(4)" >/dev/null &
		pids+=($!)
	done
	sleep 3
	out=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null || true)
	wait "${pids[@]}"
	printf '%s\n' "$out" | awk -F', *' 'NF >= 2 { n++; m += $2 } END { printf "%d %d\n", n, m }'
}
msg "$CONNS connections: CUDA contexts"
read -r CTX_ON MEM_ON <<<"$(contexts "SET gpuscan.device = gpu")"
read -r CTX_OFF MEM_OFF <<<"$(contexts "SET gpuscan.device = gpu; SET gpuscan.cache = off")"
CTX_SERVICE=$({ nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null || true; } | wc -l)

# pgbench_run SETTINGS -- "tps failed status" of the checked mix
PGB_SCRIPT=$(make_temp_dir)/cache.sql
printf '%s\n' "\\set id random(1, $NROWS)" \
	"SELECT 1 / (gpu_sum(a) = s)::integer FROM cache_bench.t WHERE id = :id;" >"$PGB_SCRIPT"
pgbench_run() {
	local out status=0
	out=$(PGOPTIONS="$1" "$PGBENCH" -n -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_" -f "$PGB_SCRIPT" "$DB" 2>&1) || status=$?
	printf '%s %s %s\n' "$(sed -nE 's/^tps = ([0-9.]+) .*/\1/p' <<<"$out" | tail -n 1)" \
		"$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' <<<"$out")" "$status"
}
msg "pgbench: $CLIENTS clients, $SECONDS_ s, cache on"
read -r TPS_ON FAIL_ON ST_ON <<<"$(pgbench_run "")"
msg "pgbench: cache off"
read -r TPS_OFF FAIL_OFF ST_OFF <<<"$(pgbench_run "-c gpuscan.cache=off")"

REPORT="# The GPU service's device cache of stored arrays

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_line)
- $("$PSQL" -XAtq -c "SELECT version()" | cut -d, -f1)
- gpuscan: commit $(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
- command: \`$CMD\`
- data: cache_bench.t, $NROWS rows of $ELEMS random doubles each (stored out of line, uncompressed)
- method: psql's \\timing of \`$CALL\` (the statement as the client sees it), median of $RUNS
  in one session after a warm-up; the first call of $RUNS new connections, median

## One stored array of $ELEMS doubles

| path | ms per statement | CPU path / this |
| --- | ---: | ---: |
| CPU (\`gpuscan.device = cpu\`) | $(fmt "$T_CPU") | 1.0 |
| the session's own GPU path (\`gpuscan.device = gpu\`, \`gpuscan.cache = off\`) | $(fmt "$T_OWN") | $(ratio "$T_CPU" "$T_OWN") |
| the cache, first call (loads the array) | $(fmt "$T_LOAD") | $(ratio "$T_CPU" "$T_LOAD") |
| the cache, hits (\`gpuscan.device = auto\`) | $(fmt "$T_HIT") | $(ratio "$T_CPU" "$T_HIT") |
| the cache, first statement of a new connection | $(fmt "$T_FIRST") | $(ratio "$T_CPU" "$T_FIRST") |

gpuscan_stats() of a new session that ran the call twice: $PATHS.

## CUDA contexts of $CONNS connections

Each connection ran the call with \`gpuscan.device = gpu\` and stayed open; nvidia-smi
--query-compute-apps while they were open:

| | processes with a CUDA context | their device memory, MiB |
| --- | ---: | ---: |
| cache on (the call runs in the service) | $CTX_ON | $MEM_ON |
| cache off (each session's own GPU path) | $CTX_OFF | $MEM_OFF |
| after the connections closed | $CTX_SERVICE | |

## pgbench

$CLIENTS clients, $SECONDS_ s, \`gpuscan.device = auto\`; each transaction is gpu_sum of a random one of
the $NROWS rows, checked against its stored sum (a wrong answer ends the run with an error).

| cache | tps | failed transactions | pgbench exit status |
| --- | ---: | ---: | ---: |
| on | $(fmt "${TPS_ON:-0}") | ${FAIL_ON:-?} | $ST_ON |
| off | $(fmt "${TPS_OFF:-0}") | ${FAIL_OFF:-?} | $ST_OFF |"
"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
printf '%s\n' "$REPORT"
bench_save "$REPORT" cache
