#!/usr/bin/env bash
#
# bench/multi_gpu_bench.sh -- several GPUs on one host: sessions running
# gpu_csr_spmv on cached matrices spread over the GPU service's GPUs, and a
# parallel gpu_sum aggregate whose workers spread over the GPUs.
#
#   bench/multi_gpu_bench.sh [--save]
#
# Run it twice on one server, once as it starts (every GPU) and once after
# a restart with CUDA_VISIBLE_DEVICES=0 in the server's environment (one
# GPU), and compare the two reports: MGPU_SETUP=0 on the second run keeps
# the tables of the first.  Needs a server that preloads gpuscan with a
# usable GPU: GPUSCAN_USE_RUNNING_SERVER=1 as for the other benches.
# MGPU_PARTS (spmv psum split) names the parts:
#   spmv  two matrices of 2^MGPU_SPMV_ROWS_LOG2 (14) rows and columns and
#         MGPU_SPMV_PER_ROW (2048) non-zeros a row, each stored out of line in
#         a row of mgpu.m, and 4 stored x vectors; both matrices loaded into
#         the cache (one call each), then pgbench with MGPU_CLIENTS (8)
#         clients for MGPU_SECONDS (20) s, client c multiplying matrix
#         1 + c % 2 by a random x and checking the exact sum of y against
#         the CPU path's (a wrong answer is a division by zero, which ends
#         the run).  Reported: tps, failed transactions, and the requests
#         each GPU's process answered during the run (gpuscan_info()).
#   psum  gpu_sum over MGPU_ROWS (4*10^7) double precision rows with 4
#         parallel workers, gpuscan.device = gpu: the plan's workers, the
#         answer against the CPU path's bits, the sessions and workers that
#         opened each GPU (gpuscan_info()), the processes nvidia-smi saw
#         on each GPU while it ran, and the statement's time (median of
#         MGPU_RUNS, 3).
#   split gpu_sum of a stored real[] of MGPU_SPLIT_ELEMENTS (134217727, the most
#         elements an array may have) in one row of mgpu.big (built of 4 pieces, stored out of
#         line uncompressed): its parts cached on every GPU
#         (gpuscan.split_min_size, 256 MB by default) against all of it
#         cached on one GPU (gpuscan.split_min_size = -1), and the CPU path
#         once: the answers' bits, the time in the function (gpuscan_stats(),
#         after a first call that loads) and the statement's (psql), medians of
#         MGPU_SPLIT_RUNS (20) calls.
# Prints markdown; with --save writes bench/results/multi-gpu-<device>-<date>.md.

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
CMD=$(bench_command bench/multi_gpu_bench.sh "MGPU_PARTS MGPU_SETUP MGPU_SPMV_ROWS_LOG2 MGPU_SPMV_PER_ROW MGPU_CLIENTS MGPU_SECONDS MGPU_ROWS MGPU_RUNS MGPU_SPLIT_ELEMENTS MGPU_SPLIT_RUNS GPUSCAN_USE_RUNNING_SERVER CUDA_VISIBLE_DEVICES" "$@")
cd "$GPUSCAN_ROOT"

bench_args "$@"
PARTS=" ${MGPU_PARTS:-spmv psum split} "
SETUP=${MGPU_SETUP:-1}
SPMV_LOG2=${MGPU_SPMV_ROWS_LOG2:-14}
PER_ROW=${MGPU_SPMV_PER_ROW:-2048}
CLIENTS=${MGPU_CLIENTS:-8}
SECONDS_RUN=${MGPU_SECONDS:-20}
ROWS=${MGPU_ROWS:-40000000}
RUNS=${MGPU_RUNS:-3}
SPLIT_ELEMS=${MGPU_SPLIT_ELEMENTS:-134217727}
SPLIT_RUNS=${MGPU_SPLIT_RUNS:-20}
DB=gpuscan_mgpu_bench
bench_server_up
gpu_usable || die "no usable GPU"
PGBENCH=$PGBIN/pgbench
sql() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
part() { [[ $PARTS == *" $1 "* ]]; }
# work_counts ITEM_SUFFIX -- "GPU d: N" for every GPU of the service, from
# gpuscan_info()'s gpu_service_device d work rows: the number before SUFFIX
work_counts() {
	sql -c "SELECT string_agg(regexp_replace(item, '^gpu_service_device ([0-9]+) work$', 'GPU \\1') || ': ' ||
	                          substring(value from '([0-9]+) $1'), ', ' ORDER BY item)
	        FROM gpuscan_info() WHERE item LIKE 'gpu_service_device % work'"
}
# delta "GPU 0: a, GPU 1: b" "GPU 0: c, GPU 1: d" -- "GPU 0: c-a, GPU 1: d-b"
delta() {
	paste -d' ' <(tr ',' '\n' <<<"$1" | sed -E 's/.*: //') <(tr ',' '\n' <<<"$2") |
		awk '{ n = $NF - $1; $1 = ""; $NF = n; sub(/^ /, ""); print }' | paste -sd, | sed 's/,/, /g'
}

if [ "$SETUP" = 1 ]; then
	"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
		-c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
	sql -c "CREATE EXTENSION gpuscan" -c "CREATE SCHEMA mgpu"
fi
GPUS=$(sql -c "SELECT value FROM gpuscan_info() WHERE item = 'gpu_service_device_count'")
[[ $GPUS =~ ^[1-9][0-9]*$ ]] || die "the GPU service has no GPU ($GPUS): is gpuscan in shared_preload_libraries?"
SECTIONS=""

if part spmv; then
	NR=$((1 << SPMV_LOG2))
	NNZ=$((NR * PER_ROW))
	if [ "$SETUP" = 1 ]; then
		msg "loading 2 matrices of $NR rows and $NNZ non-zeros, and 4 x vectors"
		sql -c "CREATE TABLE mgpu.m (id integer PRIMARY KEY, row_ptr integer[], col_idx integer[], vals double precision[])" \
			-c "ALTER TABLE mgpu.m ALTER COLUMN row_ptr SET STORAGE EXTERNAL" \
			-c "ALTER TABLE mgpu.m ALTER COLUMN col_idx SET STORAGE EXTERNAL" \
			-c "ALTER TABLE mgpu.m ALTER COLUMN vals SET STORAGE EXTERNAL" \
			-c "CREATE TABLE mgpu.x (id integer PRIMARY KEY, x double precision[])" \
			-c "INSERT INTO mgpu.m SELECT 1,
			      (SELECT array_agg(i * $PER_ROW) FROM generate_series(0, $NR) i),
			      (SELECT array_agg(((i * 2654435761) % $NR)::integer) FROM generate_series(0::bigint, $NNZ - 1) i),
			      (SELECT array_agg(random() - 0.5) FROM generate_series(1, $NNZ))" \
			-c "INSERT INTO mgpu.m SELECT 2, row_ptr, col_idx,
			      (SELECT array_agg(random() - 0.5) FROM generate_series(1, $NNZ)) FROM mgpu.m WHERE id = 1" \
			-c "INSERT INTO mgpu.x SELECT k, (SELECT array_agg(random() + k + 0 * i) FROM generate_series(1, $NR) i)
			    FROM generate_series(1, 4) k" \
			-c "SET gpuscan.device = cpu" \
			-c "CREATE TABLE mgpu.want AS SELECT m.id AS m, x.id AS k,
			      gpu_sum(gpu_csr_spmv(m.row_ptr, m.col_idx, m.vals, x.x)) AS s FROM mgpu.m, mgpu.x" \
			-c "VACUUM ANALYZE mgpu.m, mgpu.x, mgpu.want"
	fi
	CALL="SELECT 1 / (gpu_sum(gpu_csr_spmv(m.row_ptr, m.col_idx, m.vals, x.x)) = w.s)::integer
	      FROM mgpu.m m, mgpu.x x, mgpu.want w WHERE m.id = :m AND x.id = :k AND w.m = :m AND w.k = :k;"
	sql -c "SELECT gpuscan_cache_reset()" >/dev/null
	for m in 1 2; do
		sql -o /dev/null -c "$(sed "s/:m/$m/g; s/:k/1/g" <<<"$CALL")"
	done
	PLACED=$(sql -c "SELECT string_agg(DISTINCT 'GPU ' || device, ', ') FROM gpuscan_cache c
	                 JOIN pg_class r ON r.oid = c.relation WHERE r.relname = 'm'")
	BY_M=$(sql -c "SELECT string_agg(kind || ' on GPU ' || device, ', ' ORDER BY device, kind) FROM gpuscan_cache
	               WHERE kind = 'spmv plan'")
	script=$(make_temp_dir)/spmv.sql
	printf '%s\n' "\\set k random(1, 4)" "\\set m 1 + :client_id % 2" "$CALL" >"$script"
	before=$(work_counts requests)
	msg "pgbench: $CLIENTS clients, $SECONDS_RUN s, $GPUS GPU(s)"
	status=0
	out=$("$PGBENCH" -n -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_RUN" -f "$script" "$DB" 2>&1) || status=$?
	after=$(work_counts requests)
	TPS=$(sed -nE 's/^tps = ([0-9.]+) .*/\1/p' <<<"$out" | tail -n 1)
	FAILED=$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' <<<"$out")
	msg "tps $TPS, failed $FAILED, status $status"
	SECTIONS+="
## gpu_csr_spmv: $CLIENTS sessions, two cached matrices, $GPUS GPU(s) in the service

Two matrices of $NR rows and columns and $NNZ non-zeros each ($PER_ROW a row, columns spread by
a multiplicative hash), stored out of line in mgpu.m; x one of 4 stored vectors of $NR doubles,
another each call. Both matrices loaded into the cache first (one call each; their arrays went
to: $PLACED; plans: $BY_M). pgbench: $CLIENTS clients, $SECONDS_RUN s, client c multiplies matrix
1 + c % 2 and checks the exact sum of y against the CPU path's.

| GPUs in the service | tps | failed transactions | pgbench exit status | requests answered per GPU during the run |
| ---: | ---: | ---: | ---: | --- |
| $GPUS | ${TPS:-0} | ${FAILED:-?} | $status | $(delta "$before" "$after") |
"
fi

if part psum; then
	if [ "$SETUP" = 1 ]; then
		msg "loading $ROWS rows"
		sql -c "CREATE TABLE mgpu.r (v double precision) WITH (parallel_workers = 4)" \
			-c "INSERT INTO mgpu.r SELECT random() - 0.5 FROM generate_series(1, $ROWS)" \
			-c "VACUUM ANALYZE mgpu.r"
	fi
	PAR="SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;"
	WANT=$(sql -c "SET gpuscan.device = cpu" -c "SET max_parallel_workers_per_gather = 0" \
		-c "SELECT gpu_sum(v) FROM mgpu.r")
	smi_log=$(make_temp_dir)/smi.log
	bus_map=$(nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader 2>/dev/null || true)
	(while :; do
		nvidia-smi --query-compute-apps=gpu_bus_id,pid --format=csv,noheader 2>/dev/null || true
		sleep 0.2
	done) >"$smi_log" &
	smi=$!
	opened_before=$(work_counts sessions)
	msg "parallel gpu_sum: $RUNS runs"
	TIMES=$({
		printf '%s\n' "$PAR" "SET gpuscan.device = gpu;" '\timing on'
		for ((i = 0; i < RUNS; i++)); do echo "SELECT gpu_sum(v) FROM mgpu.r;"; done
	} | sql 2>&1 | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | median)
	GOT=$(sql -c "$PAR" -c "SET gpuscan.device = gpu" -c "SELECT gpu_sum(v) FROM mgpu.r")
	PLAN=$(sql -c "$PAR" -c "SET gpuscan.device = gpu" \
		-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT gpu_sum(v) FROM mgpu.r" |
		grep -E 'Workers (Planned|Launched)' | sed 's/^ *//' | paste -sd, | sed 's/,/, /g')
	kill "$smi" 2>/dev/null || true
	wait "$smi" 2>/dev/null || true
	opened_after=$(work_counts sessions)
	# the processes nvidia-smi saw on each GPU (bus id to index), the service's among them
	SEEN=$(sort -u "$smi_log" | awk -F', *' -v map="$bus_map" '
		BEGIN { n = split(map, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, ", *"); idx[f[2]] = f[1] } }
		NF == 2 { c[idx[$1]]++ }
		END { for (g in c) printf "GPU %s: %d processes\n", g, c[g] }' | sort | paste -sd, | sed 's/,/, /g')
	SAME=$([ "$GOT" = "$WANT" ] && echo "the same bits" || echo "DIFFERENT: $GOT against $WANT")
	msg "$TIMES ms; $SAME; $PLAN; seen: $SEEN"
	SECTIONS+="
## A parallel gpu_sum aggregate with 4 workers, $GPUS GPU(s)

\`SELECT gpu_sum(v) FROM mgpu.r\` over $ROWS double precision rows, \`gpuscan.device = gpu\`, 4 parallel
workers (\`parallel_workers = 4\` on the table, \`parallel_setup_cost = parallel_tuple_cost = 0\`); each
worker opens a GPU itself (gpuscan.placement = affinity spreads the leader and its workers over the
GPUs). The answer against the serial CPU path: $SAME. Plan: $PLAN.

| GPUs | ms per statement (median of $RUNS) | sessions and workers that opened each GPU during the runs (gpuscan_info) | processes nvidia-smi saw on each GPU (the service's included) |
| ---: | ---: | --- | --- |
| $GPUS | $TIMES | $(delta "$opened_before" "$opened_after") | $SEEN |
"
fi

# split_run SETTINGS -- "in-function ms, statement ms, the answer, the paths" of
# SPLIT_RUNS calls of the big gpu_sum after SETTINGS and a first call
split_run() {
	local out
	out=$({
		printf '%s\n' "$1" "SELECT gpu_sum(a) FROM mgpu.big;" "SELECT gpuscan_stats_reset();" '\timing on'
		for ((i = 0; i < SPLIT_RUNS; i++)); do echo "SELECT gpu_sum(a) FROM mgpu.big;"; done
		printf '%s\n' '\timing off' \
			"SELECT 'stats ' || round((sum(time_ms) / sum(calls))::numeric, 3) || ' ' || string_agg(path || coalesce(' on GPU ' || device, ''), '; ') FROM gpuscan_stats() WHERE function = 'gpu_sum';"
	} | sql 2>&1)
	printf '%s %s %s %s\n' "$(sed -nE 's/^stats ([0-9.]+) .*/\1/p' <<<"$out")" \
		"$(sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' <<<"$out" | median)" \
		"$(grep -E '^-?[0-9.e+-]+$' <<<"$out" | sort -u | paste -sd/)" \
		"$(sed -nE 's/^stats [0-9.]+ (.*)/\1/p' <<<"$out" | tr ' ' '_')"
}

if part split; then
	if [ "$SETUP" = 1 ]; then
		msg "loading a real[] of $SPLIT_ELEMS elements"
		Q=$((SPLIT_ELEMS / 4))
		sql -c "CREATE TABLE mgpu.big (a real[])" -c "ALTER TABLE mgpu.big ALTER COLUMN a SET STORAGE EXTERNAL" \
			-c "INSERT INTO mgpu.big SELECT (SELECT array_agg((random() - 0.5)::real) FROM generate_series(1, $Q))
			    || (SELECT array_agg((random() - 0.5)::real) FROM generate_series(1, $Q))
			    || (SELECT array_agg((random() - 0.5)::real) FROM generate_series(1, $Q))
			    || (SELECT array_agg((random() - 0.5)::real) FROM generate_series(1, $((SPLIT_ELEMS - 3 * Q))))"
	fi
	sql -c "SELECT gpuscan_cache_reset()" >/dev/null
	msg "gpu_sum of $SPLIT_ELEMS stored reals: CPU, one GPU, split"
	CPU_SUM=$(sql -c "SET gpuscan.device = cpu" -c "SELECT gpu_sum(a) FROM mgpu.big")
	read -r ONE_FN ONE_ST ONE_ANS ONE_PATH <<<"$(split_run "SET gpuscan.split_min_size = -1;")"
	read -r SPL_FN SPL_ST SPL_ANS SPL_PATH <<<"$(split_run "")"
	PARTS_AT=$(sql -c "SELECT string_agg(kind || ' on GPU ' || device, ', ' ORDER BY device, kind) FROM gpuscan_cache c
	                   JOIN pg_class r ON r.oid = c.relation WHERE r.relname = 'big'")
	msg "one GPU $ONE_FN ms ($ONE_ANS), split $SPL_FN ms ($SPL_ANS), CPU $CPU_SUM"
	SECTIONS+="
## gpu_sum of a stored real[] of $SPLIT_ELEMS elements: split over the GPUs, or on one

One row of mgpu.big, stored out of line uncompressed (built of 4 pieces by array_agg and ||). Each
way: a first call (it loads the array, or its parts, into the cache), then $SPLIT_RUNS calls in the
same session: the time in the function (gpuscan_stats(): its time / its calls) and the statement's
as psql sees it (median). The CPU path's answer: $CPU_SUM. The cache after the split calls:
$PARTS_AT.

| how | ms in the function | ms per statement | the answers | gpuscan_stats() path |
| --- | ---: | ---: | --- | --- |
| all of it cached on one GPU (\`gpuscan.split_min_size = -1\`) | $ONE_FN | $ONE_ST | $ONE_ANS | ${ONE_PATH//_/ } |
| split over the service's $GPUS GPU(s) (\`gpuscan.split_min_size\` 256 MB) | $SPL_FN | $SPL_ST | $SPL_ANS | ${SPL_PATH//_/ } |
"
fi

REPORT="# Several GPUs: $GPUS in the GPU service

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_line)
- GPUs: $(nvidia-smi --query-gpu=index,name --format=csv,noheader 2>/dev/null | paste -sd';' | sed 's/;/; /g')
- $("$PSQL" -XAtq -c "SELECT version()" | cut -d, -f1)
- gpuscan: commit $(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
- command: \`$CMD\`
$SECTIONS"
printf '%s\n' "$REPORT"
bench_save "$REPORT" multi-gpu
