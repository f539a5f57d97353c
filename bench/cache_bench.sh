#!/usr/bin/env bash
#
# bench/cache_bench.sh -- the GPU service's device cache of stored arrays:
# calls on stored arrays on the CPU, through the GPU service without the
# cache (gpuscan.cache = off: the array read and sent in slices) and from
# the cache; the first call of new connections; the CUDA contexts of many
# connections; pgbench with the cache on and off.
#
#   bench/cache_bench.sh [--save]
#
# Needs a server that preloads gpuscan (shared_preload_libraries) with a
# usable GPU: GPUSCAN_USE_RUNNING_SERVER=1 as for the other benches.
# Statement times are psql's \timing (the statement as the client sees
# it), medians.  CACHE_PARTS (sum contexts pgbench mix spmv pagerank) names the
# parts:
#   sum       cache_bench.t holds CACHE_ROWS (4) rows of CACHE_ELEMENTS
#             (10^7) random doubles, stored out of line uncompressed, with
#             their sums (on the CPU path) in a column.  `SELECT gpu_sum(a)
#             FROM cache_bench.t WHERE id = 1`, CACHE_RUNS (20) times in one
#             session after a warm-up: on the CPU path, through the service
#             without the cache (gpuscan.cache = off, gpuscan.device = gpu),
#             from the cache; the cache's first call (the load, after
#             gpuscan_cache_reset()); the first statement of CACHE_RUNS new
#             connections.
#   indices   gpu_compact_indices_array of a stored boolean[] of CACHE_ELEMENTS
#             flags (a third true, a tenth NULL): the CPU path, the service
#             without the cache, the cache's first call and its hits, as for
#             sum.
#   contexts  CACHE_CONNECTIONS (32) connections that each ran the gpu_sum
#             and calls on values in memory (gpuscan.device = gpu) and stay
#             open: the processes with a CUDA context and their memory
#             (nvidia-smi --query-compute-apps), before, cache on, cache off,
#             after.
#   pgbench   CACHE_CLIENTS (16) clients for CACHE_SECONDS (60) s, each
#             transaction the gpu_sum of a random row checked against its
#             stored sum (a wrong answer is a division by zero, which ends
#             the run), cache on and off.
#   mix       pgbench as above with a mix of every function, each answer
#             checked against the CPU path's exact sum of it (or its
#             positions): gpu_sum, gpu_prefix_sum_array, gpu_compact_array and
#             gpu_compact_indices_array of stored arrays (and flags) of
#             CACHE_MIX_ELEMENTS (10^6, cached) and 10^4 (not) doubles,
#             gpu_csr_spmv and gpu_pagerank of stored matrices of
#             CACHE_MIX_ROWS (65536) rows and 16 non-zeros a row (cached) and
#             of 1024 rows and 8 a row (not), cache on and off.
#             CACHE_PGBENCH_LOG names a file for pgbench's own reports.
#   spmv      gpu_csr_spmv on a stored matrix of 2^CACHE_SPMV_ROWS_LOG2 (20)
#             rows and columns, CACHE_SPMV_PER_ROW (64) non-zeros a row, with
#             one of 4 stored x vectors, another each call: the CPU path and
#             the service without the cache CACHE_SPMV_RUNS (5) times, the cache
#             CACHE_RUNS times.
#   pagerank  gpu_pagerank on a stored graph of 2^CACHE_PR_NODES_LOG2 (20)
#             nodes with out-degrees 0 .. 2 CACHE_PR_DEGREE (16) - 1 in turn
#             (about 2^24 edges), targets spread by a multiplicative hash: the
#             CPU path, the service without the cache and the cache (its first
#             call, then CACHE_SPMV_RUNS more), CACHE_SPMV_RUNS times each.
# Prints markdown; with --save writes bench/results/cache-<device>-<date>.md.

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
CMD=$(bench_command bench/cache_bench.sh "CACHE_PARTS CACHE_PGBENCH_LOG CACHE_MIX_ELEMENTS CACHE_MIX_ROWS CACHE_ROWS CACHE_ELEMENTS CACHE_RUNS CACHE_CONNECTIONS CACHE_CLIENTS CACHE_SECONDS CACHE_SPMV_ROWS_LOG2 CACHE_SPMV_PER_ROW CACHE_SPMV_RUNS CACHE_PR_NODES_LOG2 CACHE_PR_DEGREE GPUSCAN_USE_RUNNING_SERVER" "$@")
cd "$GPUSCAN_ROOT"

bench_args "$@"
PARTS=" ${CACHE_PARTS:-sum indices contexts pgbench mix spmv pagerank} "
NROWS=${CACHE_ROWS:-4}
ELEMS=${CACHE_ELEMENTS:-10000000}
RUNS=${CACHE_RUNS:-20}
CONNS=${CACHE_CONNECTIONS:-32}
CLIENTS=${CACHE_CLIENTS:-16}
PGB_SECONDS=${CACHE_SECONDS:-60}
SPMV_LOG2=${CACHE_SPMV_ROWS_LOG2:-20}
SPMV_PER_ROW=${CACHE_SPMV_PER_ROW:-64}
SPMV_RUNS=${CACHE_SPMV_RUNS:-5}
PR_LOG2=${CACHE_PR_NODES_LOG2:-20}
PR_DEGREE=${CACHE_PR_DEGREE:-16}
MIX_N=${CACHE_MIX_ELEMENTS:-1000000}
MIX_SMALL=10000
MIX_ROWS=${CACHE_MIX_ROWS:-65536}
MIX_PER_ROW=16
DB=gpuscan_cache_bench
bench_server_up
gpu_usable || die "no usable GPU"
PGBENCH=$PGBIN/pgbench
sql() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
part() { [[ $PARTS == *" $1 "* ]]; }
fmt() { awk -v x="$1" 'BEGIN { printf (x >= 100 ? "%.0f" : (x >= 1 ? "%.2f" : "%.3f")), x }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
# timed SETTINGS N CALL... -- psql's \timing of N calls after SETTINGS and a
# warm-up, one per line; CALL's :k becomes 1, 2, 3, 4 in turn
timed() {
	local settings=$1 n=$2 call=$3 i
	{
		printf '%s\n' "$settings" "${call//:k/4}" '\timing on'
		for ((i = 0; i < n; i++)); do printf '%s\n' "${call//:k/$((1 + i % 4))}"; done
	} | sql 2>&1 | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p'
}
# first_timed CALL -- psql's \timing of CALL as a new connection's first statement
first_timed() { { printf '%s\n' '\timing on' "$1"; } | sql 2>&1 | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p'; }

"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
sql -c "CREATE EXTENSION gpuscan" -c "CREATE SCHEMA cache_bench"
[ "$(sql -c "SELECT count(*) FROM gpuscan_info() WHERE item = 'gpu_service_device 0'")" = 1 ] ||
	die "the GPU service has no GPU: is gpuscan in shared_preload_libraries?"
SECTIONS=""
CALL="SELECT gpu_sum(a) FROM cache_bench.t WHERE id = 1;"

if part sum || part contexts || part pgbench; then
	msg "loading $NROWS rows of $ELEMS doubles"
	sql -c "CREATE TABLE cache_bench.t (id integer PRIMARY KEY, a double precision[], s double precision)" \
		-c "ALTER TABLE cache_bench.t ALTER COLUMN a SET STORAGE EXTERNAL"
	for id in $(seq "$NROWS"); do
		sql -o /dev/null -c "SELECT setseed(0.$id)" \
			-c "INSERT INTO cache_bench.t (id, a) SELECT $id, array_agg(random() - 0.5) FROM generate_series(1, $ELEMS)"
	done
	sql -c "SET gpuscan.device = cpu" -c "UPDATE cache_bench.t SET s = gpu_sum(a)" -c "VACUUM ANALYZE cache_bench.t"
fi

if part sum; then
	msg "gpu_sum: CPU, service without the cache, cache"
	T_CPU=$(timed "SET gpuscan.device = cpu;" "$RUNS" "$CALL" | median)
	T_OFF=$(timed "SET gpuscan.device = gpu; SET gpuscan.cache = off;" "$RUNS" "$CALL" | median)
	sql -c "SELECT gpuscan_cache_reset()" >/dev/null
	T_LOAD=$(first_timed "$CALL")
	T_HIT=$(timed "" "$RUNS" "$CALL" | median)
	FIRST=()
	for _ in $(seq "$RUNS"); do FIRST+=("$(first_timed "$CALL")"); done
	T_FIRST=$(printf '%s\n' "${FIRST[@]}" | median)
	PATHS=$(sql -c "$CALL" -c "$CALL" \
		-c "SELECT string_agg(path || ': ' || calls, ', ') FROM gpuscan_stats() WHERE function = 'gpu_sum'" | tail -n 1)
	msg "cpu $T_CPU ms, no cache $T_OFF ms, load $T_LOAD ms, hit $T_HIT ms, first statement of a connection $T_FIRST ms"
	SECTIONS+="
## gpu_sum of one stored array of $ELEMS doubles

\`$CALL\`, median of $RUNS in one session after a warm-up; the first statement of $RUNS new
connections, median.

| path | ms per statement | CPU path / this |
| --- | ---: | ---: |
| CPU (\`gpuscan.device = cpu\`) | $(fmt "$T_CPU") | 1.0 |
| the GPU service without the cache (\`gpuscan.device = gpu\`, \`gpuscan.cache = off\`) | $(fmt "$T_OFF") | $(ratio "$T_CPU" "$T_OFF") |
| the cache, first call (loads the array) | $(fmt "$T_LOAD") | $(ratio "$T_CPU" "$T_LOAD") |
| the cache, hits (\`gpuscan.device = auto\`) | $(fmt "$T_HIT") | $(ratio "$T_CPU" "$T_HIT") |
| the cache, first statement of a new connection | $(fmt "$T_FIRST") | $(ratio "$T_CPU" "$T_FIRST") |

gpuscan_stats() of a new session that ran the call twice: $PATHS.
"
fi

if part indices; then
	msg "gpu_compact_indices_array of $ELEMS stored flags: CPU, service without the cache, cache"
	sql -c "CREATE TABLE cache_bench.k (id integer PRIMARY KEY, k boolean[])" \
		-c "ALTER TABLE cache_bench.k ALTER COLUMN k SET STORAGE EXTERNAL" \
		-c "INSERT INTO cache_bench.k SELECT 1, array_agg(CASE WHEN i % 10 = 0 THEN NULL ELSE i % 3 = 0 END) FROM generate_series(1, $ELEMS) i" \
		-c "VACUUM ANALYZE cache_bench.k"
	ICALL="SELECT cardinality(gpu_compact_indices_array(k)) FROM cache_bench.k WHERE id = 1;"
	I_CPU=$(timed "SET gpuscan.device = cpu;" "$RUNS" "$ICALL" | median)
	I_OFF=$(timed "SET gpuscan.device = gpu; SET gpuscan.cache = off;" "$RUNS" "$ICALL" | median)
	sql -c "SELECT gpuscan_cache_reset()" >/dev/null
	I_LOAD=$(first_timed "$ICALL")
	I_HIT=$(timed "" "$RUNS" "$ICALL" | median)
	I_CPUMD5=$(sql -c "SET gpuscan.device = cpu" -c "SELECT md5(gpu_compact_indices_array(k)::text) FROM cache_bench.k")
	I_HITMD5=$(sql -c "SELECT md5(gpu_compact_indices_array(k)::text) FROM cache_bench.k")
	I_PATHS=$(sql -c "$ICALL" -c "$ICALL" \
		-c "SELECT string_agg(path || ': ' || calls, ', ') FROM gpuscan_stats() WHERE function = 'gpu_compact_indices_array'" | tail -n 1)
	msg "cpu $I_CPU ms, no cache $I_OFF ms, load $I_LOAD ms, hit $I_HIT ms"
	SECTIONS+="
## gpu_compact_indices_array of one stored boolean[] of $ELEMS flags

\`$ICALL\` (a third of the flags true, a tenth NULL), median of $RUNS in one session after a
warm-up.

| path | ms per statement | CPU path / this |
| --- | ---: | ---: |
| CPU (\`gpuscan.device = cpu\`) | $(fmt "$I_CPU") | 1.0 |
| the GPU service without the cache (\`gpuscan.device = gpu\`, \`gpuscan.cache = off\`) | $(fmt "$I_OFF") | $(ratio "$I_CPU" "$I_OFF") |
| the cache, first call (loads the flags) | $(fmt "$I_LOAD") | $(ratio "$I_CPU" "$I_LOAD") |
| the cache, hits (\`gpuscan.device = auto\`) | $(fmt "$I_HIT") | $(ratio "$I_CPU" "$I_HIT") |

The positions' md5 on the CPU path: $I_CPUMD5; from the cache: $I_HITMD5.
gpuscan_stats() of a new session that ran the call twice: $I_PATHS.
"
fi

# gpu_apps -- the processes with a CUDA context now and their device memory: "count MiB"
gpu_apps() {
	{ nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null || true; } |
		awk -F', *' 'NF >= 2 { n++; m += $2 } END { printf "%d %d\n", n, m }'
}
# work on values in memory, every call on the GPU: three functions and the aggregate
MEM_CALLS="SELECT gpu_sum(v), (gpu_prefix_sum_array(v))[1000000], array_length(gpu_compact_array(v, k), 1)
	FROM (SELECT array_agg(random()) v, array_agg(random() < 0.3) k FROM generate_series(1, 1000000)) a;
	SELECT gpu_sum(random()) FROM generate_series(1, 100000)"
# contexts SETTINGS -- gpu_apps while CONNS connections that each ran CALL
# (a stored array) and MEM_CALLS after SETTINGS stay open
contexts() {
	local pids=() out
	for _ in $(seq "$CONNS"); do
		sql -c "$1; SET gpuscan.gpu_min_elements = 0; SET application_name = 'contexts'" \
			-c "$CALL" -c "$MEM_CALLS" -c "SELECT pg_sleep(6)" >/dev/null &
		pids+=($!)
	done
	for _ in $(seq 300); do
		[ "$(sql -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'contexts' AND wait_event = 'PgSleep'")" = "$CONNS" ] && break
		sleep 0.1
	done
	out=$(gpu_apps)
	wait "${pids[@]}"
	printf '%s\n' "$out"
}
if part contexts; then
	msg "$CONNS connections: CUDA contexts"
	read -r CTX_BEFORE MEM_BEFORE <<<"$(gpu_apps)"
	read -r CTX_ON MEM_ON <<<"$(contexts "SET gpuscan.device = gpu")"
	read -r CTX_OFF MEM_OFF <<<"$(contexts "SET gpuscan.device = gpu; SET gpuscan.cache = off")"
	sleep 1
	read -r CTX_AFTER MEM_AFTER <<<"$(gpu_apps)"
	SECTIONS+="
## CUDA contexts of $CONNS connections

Each connection ran \`$CALL\` (a stored array) and, on values in memory,
\`gpu_sum\`, \`gpu_prefix_sum_array\` and \`gpu_compact_array\` of 10^6
values and the \`gpu_sum\` aggregate over 10^5 rows, all with
\`gpuscan.device = gpu\`, and stayed open; \`nvidia-smi
--query-compute-apps\` while they were open:

| | processes with a CUDA context | their device memory, MiB |
| --- | ---: | ---: |
| before the connections | $CTX_BEFORE | $MEM_BEFORE |
| cache on (the stored array from the cache) | $CTX_ON | $MEM_ON |
| cache off (the stored array read and sent in slices) | $CTX_OFF | $MEM_OFF |
| after the connections closed | $CTX_AFTER | $MEM_AFTER |
"
fi

# pgbench_run PGOPTIONS SCRIPT... -- "tps failed status" of pgbench running
# the scripts (each checks its answers) with equal weights
pgbench_run() {
	local out status=0 opts=$1 f
	local -a files=()
	shift
	for f in "$@"; do files+=(-f "$f"); done
	out=$(PGOPTIONS="$opts" "$PGBENCH" -n -c "$CLIENTS" -j "$CLIENTS" -T "$PGB_SECONDS" "${files[@]}" "$DB" 2>&1) ||
		status=$?
	# CACHE_PGBENCH_LOG: a file for pgbench's whole report (per script where there are several)
	[ -z "${CACHE_PGBENCH_LOG:-}" ] || printf '== PGOPTIONS=%s\n%s\n' "$opts" "$out" >>"$CACHE_PGBENCH_LOG"
	printf '%s %s %s\n' "$(sed -nE 's/^tps = ([0-9.]+) .*/\1/p' <<<"$out" | tail -n 1)" \
		"$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' <<<"$out")" "$status"
}
if part pgbench; then
	script=$(make_temp_dir)/cache.sql
	printf '%s\n' "\\set id random(1, $NROWS)" \
		"SELECT 1 / (gpu_sum(a) = s)::integer FROM cache_bench.t WHERE id = :id;" >"$script"
	msg "pgbench: $CLIENTS clients, $PGB_SECONDS s, cache on"
	read -r TPS_ON FAIL_ON ST_ON <<<"$(pgbench_run "" "$script")"
	msg "pgbench: cache off"
	read -r TPS_OFF FAIL_OFF ST_OFF <<<"$(pgbench_run "-c gpuscan.cache=off" "$script")"
	SECTIONS+="
## pgbench

$CLIENTS clients, $PGB_SECONDS s, \`gpuscan.device = auto\`; each transaction is the gpu_sum of a random
one of the $NROWS rows, checked against its stored sum (a wrong answer ends the run with an error).

| cache | tps | failed transactions | pgbench exit status |
| --- | ---: | ---: | ---: |
| on | $(fmt "${TPS_ON:-0}") | ${FAIL_ON:-?} | $ST_ON |
| off | $(fmt "${TPS_OFF:-0}") | ${FAIL_OFF:-?} | $ST_OFF |
"
fi

if part mix; then
	msg "loading the mix: arrays of $MIX_N and $MIX_SMALL doubles, matrices of $((MIX_ROWS * MIX_PER_ROW)) and 8192 non-zeros"
	sql -c "CREATE TABLE cache_bench.mix (id integer PRIMARY KEY, a double precision[], keep boolean[],
	                                      s double precision, ps double precision, cs double precision,
	                                      ci integer[])" \
		-c "ALTER TABLE cache_bench.mix ALTER COLUMN a SET STORAGE EXTERNAL" \
		-c "INSERT INTO cache_bench.mix (id, a, keep)
		    SELECT id, (SELECT array_agg(random() - 0.5) FROM generate_series(1, n)),
		           (SELECT array_agg(random() < 0.5) FROM generate_series(1, n))
		    FROM (VALUES (1, $MIX_N), (2, $MIX_N), (3, $MIX_SMALL), (4, $MIX_SMALL)) v (id, n)" \
		-c "CREATE TABLE cache_bench.mix_m (id integer PRIMARY KEY, row_ptr integer[], col_idx integer[],
		                                    vals double precision[], x double precision[],
		                                    ys double precision, rs double precision)" \
		-c "ALTER TABLE cache_bench.mix_m ALTER COLUMN row_ptr SET STORAGE EXTERNAL" \
		-c "ALTER TABLE cache_bench.mix_m ALTER COLUMN col_idx SET STORAGE EXTERNAL" \
		-c "ALTER TABLE cache_bench.mix_m ALTER COLUMN vals SET STORAGE EXTERNAL" \
		-c "INSERT INTO cache_bench.mix_m (id, row_ptr, col_idx, vals, x)
		    SELECT id, (SELECT array_agg(i * k) FROM generate_series(0, n) i),
		           (SELECT array_agg(((i * 2654435761) % n)::integer) FROM generate_series(0::bigint, n * k - 1) i),
		           (SELECT array_agg(random() - 0.5) FROM generate_series(1, n * k)),
		           (SELECT array_agg(random()) FROM generate_series(1, n))
		    FROM (VALUES (1, $MIX_ROWS, $MIX_PER_ROW), (2, 1024, 8)) v (id, n, k)" \
		-c "SET gpuscan.device = cpu" \
		-c "UPDATE cache_bench.mix SET s = gpu_sum(a), ps = gpu_sum(gpu_prefix_sum_array(a)),
		                               cs = gpu_sum(gpu_compact_array(a, keep)),
		                               ci = gpu_compact_indices_array(keep)" \
		-c "UPDATE cache_bench.mix_m SET ys = gpu_sum(gpu_csr_spmv(row_ptr, col_idx, vals, x)),
		                                 rs = gpu_sum(gpu_pagerank(row_ptr, col_idx))" \
		-c "VACUUM ANALYZE cache_bench.mix, cache_bench.mix_m"
	dir=$(make_temp_dir)
	MIX_CALLS=(
		"sum:gpu_sum(a) = s:mix:4"
		"prefix:gpu_sum(gpu_prefix_sum_array(a)) = ps:mix:4"
		"compact:gpu_sum(gpu_compact_array(a, keep)) = cs:mix:4"
		"indices:gpu_compact_indices_array(keep) = ci:mix:4"
		"spmv:gpu_sum(gpu_csr_spmv(row_ptr, col_idx, vals, x)) = ys:mix_m:2"
		"pagerank:gpu_sum(gpu_pagerank(row_ptr, col_idx)) = rs:mix_m:2")
	scripts=()
	for c in "${MIX_CALLS[@]}"; do
		IFS=: read -r name check table rows <<<"$c"
		printf '%s\n' "\\set id random(1, $rows)" \
			"SELECT 1 / ($check)::integer FROM cache_bench.$table WHERE id = :id;" >"$dir/$name.sql"
		scripts+=("$dir/$name.sql")
	done
	sql -c "SELECT gpuscan_cache_reset()" >/dev/null
	msg "pgbench, the mix: $CLIENTS clients, $PGB_SECONDS s, cache on"
	read -r MTPS_ON MFAIL_ON MST_ON <<<"$(pgbench_run "" "${scripts[@]}")"
	MIX_CACHED=$(sql -c "SELECT count(*) || ' entries, ' || pg_size_pretty(sum(bytes)) || ': ' ||
	                            string_agg(DISTINCT r.relname || ' ' || kind, ', ')
	                     FROM gpuscan_cache c JOIN pg_class r ON r.oid = c.relation")
	MIX_STREAMS=$(sql -c "SHOW gpuscan.service_streams")
	msg "pgbench, the mix: cache off"
	read -r MTPS_OFF MFAIL_OFF MST_OFF <<<"$(pgbench_run "-c gpuscan.cache=off" "${scripts[@]}")"
	SECTIONS+="
## pgbench: a mix of every function, on cached and uncached arrays

$CLIENTS clients, $PGB_SECONDS s, \`gpuscan.device = auto\`, \`gpuscan.service_streams = $MIX_STREAMS\`
(requests the service runs at once on the GPU), six scripts of equal weight, each checking
its answer exactly against the CPU path's (a wrong answer is a division by zero, which ends the
run with an error): \`gpu_sum(a)\`, \`gpu_sum(gpu_prefix_sum_array(a))\`,
\`gpu_sum(gpu_compact_array(a, keep))\` and \`gpu_compact_indices_array(keep)\` (against the positions
stored by the CPU path) of a random one of 4 stored arrays and their flags (2 of $MIX_N doubles,
stored out of line, which the cache takes; 2 of $MIX_SMALL, below its 256 kB), and
\`gpu_sum(gpu_csr_spmv(row_ptr, col_idx, vals, x))\` and \`gpu_sum(gpu_pagerank(row_ptr, col_idx))\` of a
random one of 2 stored matrices ($MIX_ROWS rows and $((MIX_ROWS * MIX_PER_ROW)) non-zeros, cached; 1024
rows and 8192 non-zeros, not). In the cache after
the run with it on: $MIX_CACHED.

| cache | tps | failed transactions | pgbench exit status |
| --- | ---: | ---: | ---: |
| on | $(fmt "${MTPS_ON:-0}") | ${MFAIL_ON:-?} | $MST_ON |
| off | $(fmt "${MTPS_OFF:-0}") | ${MFAIL_OFF:-?} | $MST_OFF |
"
fi

if part spmv; then
	NR=$((1 << SPMV_LOG2))
	NNZ=$((NR * SPMV_PER_ROW))
	msg "loading a matrix of $NR rows and $NNZ non-zeros, and 4 x vectors"
	sql -c "CREATE TABLE cache_bench.m (row_ptr integer[], col_idx integer[], vals double precision[])" \
		-c "ALTER TABLE cache_bench.m ALTER COLUMN row_ptr SET STORAGE EXTERNAL" \
		-c "ALTER TABLE cache_bench.m ALTER COLUMN col_idx SET STORAGE EXTERNAL" \
		-c "ALTER TABLE cache_bench.m ALTER COLUMN vals SET STORAGE EXTERNAL" \
		-c "CREATE TABLE cache_bench.x (id integer PRIMARY KEY, x double precision[])" \
		-c "INSERT INTO cache_bench.m SELECT
		      (SELECT array_agg(i * $SPMV_PER_ROW) FROM generate_series(0, $NR) i),
		      (SELECT array_agg(((i * 2654435761) % $NR)::integer) FROM generate_series(0::bigint, $NNZ - 1) i),
		      (SELECT array_agg(random() - 0.5) FROM generate_series(1, $NNZ))" \
		-c "INSERT INTO cache_bench.x SELECT k, (SELECT array_agg(random() + k + 0 * i) FROM generate_series(1, $NR) i)
		    FROM generate_series(1, 4) k" \
		-c "VACUUM ANALYZE cache_bench.m, cache_bench.x"
	SPMV="SELECT array_length(gpu_csr_spmv(row_ptr, col_idx, vals, x), 1) FROM cache_bench.m, cache_bench.x WHERE x.id = :k;"
	msg "gpu_csr_spmv: CPU, service without the cache, cache"
	S_CPU=$(timed "SET gpuscan.device = cpu;" "$SPMV_RUNS" "$SPMV" | median)
	S_OFF=$(timed "SET gpuscan.device = gpu; SET gpuscan.cache = off;" "$SPMV_RUNS" "$SPMV" | median)
	S_LOAD=$(first_timed "${SPMV//:k/1}")
	S_HIT=$(timed "" "$RUNS" "$SPMV" | median)
	S_PATHS=$(sql -c "${SPMV//:k/2}" -c "${SPMV//:k/3}" \
		-c "SELECT string_agg(path || ': ' || calls, ', ') FROM gpuscan_stats() WHERE function = 'gpu_csr_spmv'" | tail -n 1)
	msg "cpu $S_CPU ms, no cache $S_OFF ms, load $S_LOAD ms, hit $S_HIT ms"
	SECTIONS+="
## gpu_csr_spmv of a stored matrix, a new x each call

A matrix of $NR rows and columns and $NNZ non-zeros ($SPMV_PER_ROW a row, columns spread by a
multiplicative hash), its three arrays stored out of line in one row of cache_bench.m; x is one of
4 stored vectors of $NR doubles, another each call: \`$SPMV\`. Medians of $SPMV_RUNS calls
(CPU, the service without the cache) and $RUNS calls (cache) after a warm-up; the load is one call after the others.

| path | ms per statement | CPU path / this |
| --- | ---: | ---: |
| CPU (\`gpuscan.device = cpu\`) | $(fmt "$S_CPU") | 1.0 |
| the GPU service without the cache (\`gpuscan.device = gpu\`, \`gpuscan.cache = off\`) | $(fmt "$S_OFF") | $(ratio "$S_CPU" "$S_OFF") |
| the cache, first call (loads the matrix) | $(fmt "$S_LOAD") | $(ratio "$S_CPU" "$S_LOAD") |
| the cache, hits (\`gpuscan.device = auto\`) | $(fmt "$S_HIT") | $(ratio "$S_CPU" "$S_HIT") |

gpuscan_stats() of a new session that ran it twice: $S_PATHS.
"
fi

if part pagerank; then
	NN=$((1 << PR_LOG2))
	msg "loading a graph of $NN nodes"
	sql -c "CREATE TABLE cache_bench.g (row_ptr integer[], col_idx integer[])" \
		-c "ALTER TABLE cache_bench.g ALTER COLUMN row_ptr SET STORAGE EXTERNAL" \
		-c "ALTER TABLE cache_bench.g ALTER COLUMN col_idx SET STORAGE EXTERNAL" \
		-c "INSERT INTO cache_bench.g SELECT array_agg(c ORDER BY i), NULL FROM
		      (SELECT i, coalesce(sum(i % (2 * $PR_DEGREE)) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING
		                                                         AND 1 PRECEDING), 0) AS c
		       FROM generate_series(0::bigint, $NN) i) s" \
		-c "UPDATE cache_bench.g SET col_idx = (SELECT array_agg(((j * 2654435761) % $NN)::integer)
		      FROM generate_series(0::bigint, row_ptr[$NN + 1] - 1) j)" \
		-c "VACUUM ANALYZE cache_bench.g"
	EDGES=$(sql -c "SELECT cardinality(col_idx) FROM cache_bench.g")
	PR="SELECT cardinality(gpu_pagerank(row_ptr, col_idx)) FROM cache_bench.g;"
	ITER=$(sql -c "SET client_min_messages = debug1" -c "SET gpuscan.device = cpu" -c "$PR" 2>&1 >/dev/null |
		sed -nE 's/.*gpu_pagerank: [0-9]+ nodes, [0-9]+ edges, ([0-9]+) iterations?.*/\1/p' | tail -n 1)
	msg "gpu_pagerank ($EDGES edges, $ITER iterations): CPU, service without the cache, cache"
	P_CPU=$(timed "SET gpuscan.device = cpu;" "$SPMV_RUNS" "$PR" | median)
	P_OFF=$(timed "SET gpuscan.device = gpu; SET gpuscan.cache = off;" "$SPMV_RUNS" "$PR" | median)
	P_LOAD=$(first_timed "$PR")
	P_HIT=$(timed "" "$SPMV_RUNS" "$PR" | median)
	P_PATHS=$(sql -c "$PR" -c "SELECT string_agg(path || ': ' || calls, ', ') FROM gpuscan_stats() WHERE function = 'gpu_pagerank'" | tail -n 1)
	msg "cpu $P_CPU ms, no cache $P_OFF ms, load $P_LOAD ms, hit $P_HIT ms"
	SECTIONS+="
## gpu_pagerank of a stored graph, its second call

A graph of $NN nodes and $EDGES edges (node i has i mod $((2 * PR_DEGREE)) out-links, their targets
spread by a multiplicative hash), its row_ptr and col_idx stored out of line in one row of
cache_bench.g: \`$PR\` ($ITER iterations with the defaults). Medians of $SPMV_RUNS calls after a
warm-up; the cache's first call (the load) is one call.

| path | ms per statement | without the cache / this |
| --- | ---: | ---: |
| CPU (\`gpuscan.device = cpu\`) | $(fmt "$P_CPU") | $(ratio "$P_OFF" "$P_CPU") |
| the GPU service without the cache (\`gpuscan.device = gpu\`, \`gpuscan.cache = off\`) | $(fmt "$P_OFF") | 1.0 |
| the cache, first call (loads the graph, makes its transpose) | $(fmt "$P_LOAD") | $(ratio "$P_OFF" "$P_LOAD") |
| the cache, later calls (\`gpuscan.device = auto\`) | $(fmt "$P_HIT") | $(ratio "$P_OFF" "$P_HIT") |

gpuscan_stats() of a new session that ran it once: $P_PATHS.
"
fi

REPORT="# The GPU service's device cache of stored arrays

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_line)
- $("$PSQL" -XAtq -c "SELECT version()" | cut -d, -f1)
- gpuscan: commit $(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
- command: \`$CMD\`
- method: psql's \\timing (the statement as the client sees it), medians
$SECTIONS"
"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
printf '%s\n' "$REPORT"
bench_save "$REPORT" cache
