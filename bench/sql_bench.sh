#!/usr/bin/env bash
#
# bench/sql_bench.sh -- SQL-level benchmarks of gpuscan against plain SQL.
#
#   bench/sql_bench.sh [--save]
#
# Builds gpuscan, starts a throw-away server (test/lib.sh; restarted with
# shared_preload_libraries = gpuscan, since the GPU path is the GPU
# service's) or uses a running one (GPUSCAN_USE_RUNNING_SERVER=1 with
# PGHOST/PGPORT/PGUSER, e.g. after `source .gpu/pg-up.sh` on the GPU
# machine; it must preload gpuscan for the GPU path), makes tables of random
# numbers for each size, and times each query server-side: one warm-up run,
# then BENCH_RUNS runs in the same backend, the median reported (see
# bench.time_query in bench/sql/setup.sql).  Prints a markdown table; with
# --save also writes it to bench/results/sql-<device or host>-<date>.md with
# the machine and the command on top.
#
# Environment:
#   BENCH_MAX=1e7          largest size (1e8: an 800 MB float8 array, near
#                          the 1 GB limit of a value; needs several GB of RAM)
#   BENCH_SIZES="1e3 1e6"  explicit list of sizes instead
#   BENCH_RUNS=5           timed runs per query after one warm-up run (at
#                          least 25 below 1e6 elements)
#   BENCH_SHARED_BUFFERS=1GB   shared_buffers of the throw-away server
#   BENCH_ONLY=REGEX       only rows whose query label matches REGEX
#   BENCH_PATHS="cpu gpu"  gpuscan paths to time (default: cpu, and gpu where
#                          gpuscan_info() says gpu_usable)
#   BENCH_PAIRS=15         paired mode: each gpuscan row is timed in this many
#                          rounds against its group's baseline, the two in
#                          alternating order (AB, BA, ...), each in a new
#                          backend; the row shows the medians over rounds and
#                          the median of the rounds' ratios, with their range
#   PG_CONFIG, GPUSCAN_CPU_ONLY, GPUSCAN_USE_RUNNING_SERVER as for make check
#
# Adding rows: write them into array_cases or rows_cases below with
#   bench_group                      start a group (one baseline, one fetch time)
#   bench_base  LABEL SQL [SETTINGS] the plain-SQL baseline of the group
#   bench_fetch LABEL SQL [SETTINGS] the TOAST fetch alone: later rows of the
#                                    group also show their time net of it
#   bench_fn    LABEL SQL [SETTINGS] a gpuscan query, timed on each path:
#                                    gpuscan.device = cpu, and = gpu where usable
#   bench_row   PATH LABEL SQL [SETTINGS]   one row on one path (sql|cpu|gpu)
# SETTINGS is SQL run first in the session (e.g. "SET work_mem = '1GB';");
# every session starts with SET jit = off and gpuscan.gpu_min_elements = 0.
# spmv_cases adds rows for gpu_csr_spmv and gpu_pagerank once, after the
# sizes (labels start "spmv:" and "pagerank:"; BENCH_ONLY='^(spmv|pagerank):'
# with BENCH_SIZES=1e3 runs little else).
# Tables: t8_SIZE / t4_SIZE (one float8[] / float4[] row of SIZE elements,
# column a), rows_SIZE (SIZE rows, float8 column x) and c_SIZE (one row:
# float8[] a and boolean[] k, half true at random); SIZE as in "1e6".

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
cd "$GPUSCAN_ROOT"

bench_args "$@"

RUNS=${BENCH_RUNS:-5}
PAIRS=${BENCH_PAIRS:-0}
MAX=${BENCH_MAX:-1e7}
ONLY=${BENCH_ONLY:-}
RUNNING=${GPUSCAN_USE_RUNNING_SERVER:-0}
DB=gpuscan_bench
SERIAL="SET max_parallel_workers_per_gather = 0;"
PARALLEL="SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"

# size_num 1e6 -> 1000000
size_num() { awk -v s="$1" 'BEGIN { printf "%.0f\n", s + 0 }'; }

# runs_for SIZE -- timed runs: BENCH_RUNS, and at least 25 below 1e6 elements
# (sub-millisecond times need more samples for a stable median)
runs_for() {
	if [ "$(size_num "$1")" -lt 1000000 ] && [ "$RUNS" -lt 25 ]; then
		echo 25
	else
		echo "$RUNS"
	fi
}

if [ -n "${BENCH_SIZES:-}" ]; then
	read -r -a SIZES <<<"$BENCH_SIZES"
else
	SIZES=()
	max=$(size_num "$MAX")
	for s in 1e3 1e4 1e5 1e6 1e7 1e8 1e9; do
		[ "$(size_num "$s")" -le "$max" ] && SIZES+=("$s")
	done
fi
for s in "${SIZES[@]}"; do
	[[ "$s" =~ ^[0-9]+(e[0-9]+)?$ ]] || die "bad size $s (use 1000 or 1e3)"
done

# ---- server ----
bench_server_up
if [ "${GPUSCAN_USE_RUNNING_SERVER:-0}" != 1 ]; then
	# the throw-away server, with the GPU service (the only GPU path)
	msg "restarting the throw-away server with shared_preload_libraries = gpuscan"
	restart_temp_server shared_preload_libraries=gpuscan
	# a service that is still starting is waited for, up to 60 s
	for _ in $(seq 600); do [[ "$(info_value gpu_service)" == starting* ]] || break; sleep 0.1; done
fi

# sql [psql args] -- psql on the bench database, stop at the first error
sql() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
sql -c "CREATE EXTENSION gpuscan" -f "$HERE/sql/setup.sql"

if [ -n "${BENCH_PATHS:-}" ]; then
	read -r -a PATHS <<<"$BENCH_PATHS"
else
	PATHS=(cpu)
	if gpu_usable; then
		PATHS+=(gpu)
	fi
fi
msg "paths: ${PATHS[*]}; sizes: ${SIZES[*]}; $RUNS timed runs per query after one warm-up"

# ---- rows ----
ROWS=()
GROUP_BASE=""
GROUP_FETCH=""
GROUP_BASE_SQL=""
GROUP_BASE_SETTINGS=""
SIZE=""

bench_group() { GROUP_BASE=""; GROUP_FETCH=""; GROUP_BASE_SQL=""; GROUP_BASE_SETTINGS=""; }

# time_sql PATH SETTINGS SQL -- "first|median|min" in ms, or "error: ..."
time_sql() {
	local path=$1 settings=$2 query=$3 device out
	device=$path
	[ "$path" = sql ] && device=cpu
	if ! out=$(sql -F '|' -v q="$query" 2>&1 <<-SQL
		SET jit = off;
		SET gpuscan.device = $device;
		SET gpuscan.gpu_min_elements = 0;
		$settings
		SELECT round(first_ms::numeric, 3), round(median_ms::numeric, 3), round(min_ms::numeric, 3)
		FROM bench.time_query(:'q', $(runs_for "$SIZE"), 1);
		SQL
	); then
		echo "error: $(printf '%s\n' "$out" | grep -m 1 'ERROR' | sed 's/.*ERROR: *//')"
		return 0
	fi
	printf '%s\n' "$out" | tail -n 1
}

# bench_row PATH LABEL SQL [SETTINGS] -- time one query on one path, add a row
# (ROW_ROLE=base or fetch makes it the group's baseline or fetch time)
bench_row() {
	local path=$1 label=$2 query=$3 settings=${4:-} role=${ROW_ROLE:-} res first median net="" ratio=""
	ROW_ROLE=""
	if [ -n "$ONLY" ] && ! [[ "$label" =~ $ONLY ]]; then
		return 0
	fi
	if [ "$PAIRS" -gt 0 ] && [ -z "$role" ] && [ -n "$GROUP_BASE_SQL" ]; then
		pair_row "$path" "$label" "$query" "$settings"
		return 0
	fi
	res=$(time_sql "$path" "$settings" "$query")
	if [[ "$res" == error:* ]]; then
		ROWS+=("| $SIZE | $label | $path | ${res//|/\\|} | | | |")
		printf '%s\n' "${ROWS[-1]}" >&2
		return 0
	fi
	IFS='|' read -r first median _ <<<"$res"
	case $role in
		base) GROUP_BASE=$median; GROUP_BASE_SQL=$query; GROUP_BASE_SETTINGS=$settings ;;
		fetch) GROUP_FETCH=$median ;;
	esac
	if [ -n "$GROUP_FETCH" ] && [ "$role" != fetch ]; then
		net=$(awk -v a="$median" -v b="$GROUP_FETCH" 'BEGIN { printf "%.3f", a - b }')
	fi
	if [ -n "$GROUP_BASE" ] && [ "$role" != fetch ]; then
		ratio=$(awk -v a="$median" -v b="$GROUP_BASE" 'BEGIN { if (a > 0) printf "%.2f×", b / a; else print "-" }')
	fi
	ROWS+=("| $SIZE | $label | $path | $median | $net | $ratio | $first |")
	printf '%s\n' "${ROWS[-1]}" >&2
}

# pair_row PATH LABEL SQL SETTINGS -- (BENCH_PAIRS) time the query and the
# group's baseline in alternating order, each in a new backend (so that the
# baseline's parallel workers do not load gpuscan), and add a row: the
# medians over the rounds, and the median and range of the rounds' ratios
# (baseline ÷ this query)
pair_row() {
	local path=$1 label=$2 query=$3 settings=$4 r a b first="" res base=() mine=() ratios=()
	for ((r = 1; r <= PAIRS; r++)); do
		if ((r % 2)); then
			a=$(time_sql sql "$GROUP_BASE_SETTINGS" "$GROUP_BASE_SQL")
			b=$(time_sql "$path" "$settings" "$query")
		else
			b=$(time_sql "$path" "$settings" "$query")
			a=$(time_sql sql "$GROUP_BASE_SETTINGS" "$GROUP_BASE_SQL")
		fi
		for res in "$a" "$b"; do
			if [[ "$res" == error:* ]]; then
				ROWS+=("| $SIZE | $label | $path | ${res//|/\\|} | | | |")
				printf '%s\n' "${ROWS[-1]}" >&2
				return 0
			fi
		done
		[ -z "$first" ] && first=$(cut -d'|' -f1 <<<"$b")
		base+=("$(cut -d'|' -f2 <<<"$a")")
		mine+=("$(cut -d'|' -f2 <<<"$b")")
		ratios+=("$(awk -v a="${base[-1]}" -v b="${mine[-1]}" 'BEGIN { printf "%.4f", a / b }')")
		msg "$label, round $r: baseline ${base[-1]} ms, $path ${mine[-1]} ms, ratio ${ratios[-1]}"
	done
	paired_stats base mine ratios
	ROWS+=("| $SIZE | $label (paired; baseline $STAT_BASE ms) | $path | $STAT_MINE | | $(printf '%.2f× (rounds %.2f–%.2f; ≥ 1 in %d of %d)' "$STAT_RATIO" "$STAT_MIN" "$STAT_MAX" "$STAT_FAST" "$PAIRS") | $first |")
	printf '%s\n' "${ROWS[-1]}" >&2
}

# bench_base LABEL SQL [SETTINGS] -- plain SQL; the group's baseline
bench_base() { ROW_ROLE=base bench_row sql "$@"; }

# bench_fetch LABEL SQL [SETTINGS] -- the fetch alone; later rows show net times
bench_fetch() { ROW_ROLE=fetch bench_row sql "$@"; }

# bench_fn LABEL SQL [SETTINGS] -- a gpuscan query on every usable path
bench_fn() {
	local p
	for p in "${PATHS[@]}"; do
		bench_row "$p" "$@"
	done
}

# ---- the cases: add rows here ----

# array_cases SIZE -- one array of SIZE elements
array_cases() {
	local n=$1 ty
	for ty in 8 4; do
		bench_group
		bench_base "sum(x) FROM unnest(a), float${ty}[]" "SELECT sum(x) FROM t${ty}_$n, unnest(a) x"
		bench_fetch "a[1]: TOAST fetch only, float${ty}[]" "SELECT a[1] FROM t${ty}_$n"
		bench_fn "gpu_sum(a), float${ty}[]" "SELECT gpu_sum(a) FROM t${ty}_$n"
	done
	# prefix sums: the array form, and the rows of the set-returning form
	bench_group
	bench_base "array_agg of sum() OVER (ORDER BY i ROWS …) over unnest, float8[]" \
		"SELECT array_agg(s ORDER BY i) FROM (SELECT i, sum(x) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) s FROM t8_$n, unnest(a) WITH ORDINALITY u(x, i)) q"
	bench_fetch "a[1]: TOAST fetch only, float8[]" "SELECT a[1] FROM t8_$n"
	bench_fn "gpu_prefix_sum_array(a), float8[]" "SELECT gpu_prefix_sum_array(a) FROM t8_$n"
	bench_group
	bench_base "rows of sum() OVER (ORDER BY i ROWS …) over unnest, float8[]" \
		"SELECT count(s) FROM (SELECT sum(x) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) s FROM t8_$n, unnest(a) WITH ORDINALITY u(x, i)) q"
	bench_fn "rows of gpu_prefix_sum(a) in the select list, float8[]" \
		"SELECT count(s) FROM (SELECT gpu_prefix_sum(a) s FROM t8_$n) q"
	bench_fn "rows of gpu_prefix_sum(a) in FROM, float8[]" \
		"SELECT count(s) FROM t8_$n, gpu_prefix_sum(a) s"
	# stream compaction: half of the elements kept, at random
	bench_group
	bench_base "array_agg(v ORDER BY i) FROM unnest(a, k) WITH ORDINALITY … WHERE k" \
		"SELECT cardinality(r) FROM (SELECT (SELECT array_agg(v ORDER BY i) FROM unnest(a, k) WITH ORDINALITY u(v, kk, i) WHERE kk) r FROM c_$n) q"
	bench_fetch "a[1], k[1]: TOAST fetch only" "SELECT a[1], k[1] FROM c_$n"
	bench_fn "gpu_compact_array(a, k), float8[]" "SELECT cardinality(gpu_compact_array(a, k)) FROM c_$n"
	bench_fn "gpu_compact_indices_array(k)" "SELECT cardinality(gpu_compact_indices_array(k)) FROM c_$n"
	bench_group
	bench_base "rows of unnest(a, k) … WHERE k" \
		"SELECT count(v) FROM c_$n, unnest(a, k) u(v, kk) WHERE kk"
	bench_fn "rows of gpu_compact(a, k) in FROM" "SELECT count(v) FROM c_$n, gpu_compact(a, k) v"
	bench_fn "rows of gpu_compact(a, k) in the select list" \
		"SELECT count(v) FROM (SELECT gpu_compact(a, k) v FROM c_$n) q"
}

# rows_cases SIZE -- a table of SIZE rows
rows_cases() {
	local n=$1
	bench_group
	bench_base "sum(x) over rows, serial" "SELECT sum(x) FROM rows_$n" "$SERIAL"
	bench_fn "gpu_sum(x) over rows, serial" "SELECT gpu_sum(x) FROM rows_$n" "$SERIAL"
	bench_fn "gpu_sum(x) over rows, serial, aggregate alone (no GpuscanSum)" \
		"SELECT gpu_sum(x) FROM rows_$n" "$SERIAL SET gpuscan.enable_sum_scan = off;"
	bench_group
	bench_base "sum(x) over rows, parallel ≤4" "SELECT sum(x) FROM rows_$n" "$PARALLEL"
	bench_fn "gpu_sum(x) over rows, parallel ≤4" "SELECT gpu_sum(x) FROM rows_$n" "$PARALLEL"
	bench_fn "gpu_sum(x) over rows, parallel ≤4, aggregate alone (no GpuscanSum)" \
		"SELECT gpu_sum(x) FROM rows_$n" "$PARALLEL SET gpuscan.enable_sum_scan = off;"
	bench_group
	bench_base "sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING)" \
		"SELECT count(s) FROM (SELECT sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) s FROM rows_$n) q" "$SERIAL"
	# the default frame (RANGE ... CURRENT ROW) makes PostgreSQL track peer
	# rows for any plain window function; the function ignores the frame, so
	# the second form gives the same results without that cost
	bench_fn "gpu_running_sum(x) OVER (ORDER BY id)" \
		"SELECT count(s) FROM (SELECT gpu_running_sum(x) OVER (ORDER BY id) s FROM rows_$n) q" "$SERIAL"
	bench_fn "gpu_running_sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING)" \
		"SELECT count(s) FROM (SELECT gpu_running_sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) s FROM rows_$n) q" "$SERIAL"
}

# spmv_cases -- gpu_csr_spmv next to join + GROUP BY, and gpu_pagerank on
# a graph of 12 million power-law edges, CPU and GPU paths (end to end);
# run once, after the sizes, unless BENCH_ONLY rules them out
spmv_cases() {
	SIZE=1e7
	msg "spmv: making the matrix and graph tables"
	sql -c "SELECT bench.make_csr_table('csr_1e6', 1000000, 10)" \
		-c "SELECT bench.make_graph_table('graph_1e6', 1000000, 12000000)" >/dev/null
	sql -c "VACUUM ANALYZE csr_1e6" -c "VACUUM ANALYZE csr_1e6_entries" -c "VACUUM ANALYZE csr_1e6_x" \
		-c "VACUUM ANALYZE graph_1e6"
	msg "spmv: timing"
	bench_group
	bench_base "spmv: join + GROUP BY, 1M x 1M, ~10M power-law entries" \
		"SELECT count(*) FROM (SELECT e.row_index, sum(e.val * x.xi) FROM csr_1e6_entries e JOIN csr_1e6_x x ON x.i = e.col GROUP BY e.row_index) q"
	bench_fetch "spmv: row_ptr, col_idx, vals, x: TOAST fetch only" \
		"SELECT row_ptr[1], col_idx[1], vals[1], x[1] FROM csr_1e6"
	bench_fn "spmv: gpu_csr_spmv(row_ptr, col_idx, vals, x)" \
		"SELECT gpu_csr_spmv(row_ptr, col_idx, vals, x) FROM csr_1e6"
	bench_group
	bench_fetch "pagerank: row_ptr, col_idx: TOAST fetch only" "SELECT row_ptr[1], col_idx[1] FROM graph_1e6"
	bench_fn "pagerank: gpu_pagerank, 1M nodes, 12M power-law edges" \
		"SELECT gpu_pagerank(row_ptr, col_idx) FROM graph_1e6"
	sql -c "DROP TABLE csr_1e6, csr_1e6_entries, csr_1e6_x, graph_1e6"
}

# make_tables SIZE -- the tables the cases use
make_tables() {
	local n=$1 num
	num=$(size_num "$n")
	sql -c "SELECT bench.make_array_table('t8_$n', $num, 'float8')" \
		-c "SELECT bench.make_array_table('t4_$n', $num, 'float4')" \
		-c "SELECT bench.make_rows_table('rows_$n', $num, 'float8')" \
		-c "SELECT bench.make_flags_table('c_$n', $num, 0.5)" >/dev/null
	sql -c "VACUUM ANALYZE t8_$n" -c "VACUUM ANALYZE t4_$n" -c "VACUUM ANALYZE rows_$n" \
		-c "VACUUM ANALYZE c_$n"
}

# ---- run ----
SECONDS=0
for SIZE in "${SIZES[@]}"; do
	msg "size $SIZE: making tables"
	make_tables "$SIZE"
	msg "size $SIZE: timing"
	array_cases "$SIZE"
	rows_cases "$SIZE"
	# free the space before the next size
	sql -c "DROP TABLE t8_$SIZE, t4_$SIZE, rows_$SIZE"
done
if [ -z "$ONLY" ] || [[ "spmv: pagerank:" =~ $ONLY ]]; then
	spmv_cases
fi
ELAPSED=$SECONDS

# ---- report ----
gpu_name() {
	command -v nvidia-smi >/dev/null 2>&1 || return 0
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1
}
cpu_name() {
	awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null
}
GPU=$(gpu_name)
CPU="$(cpu_name), $(nproc) cores, $(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo) RAM"
PGVER=$(sql -c "SHOW server_version")
SETTINGS=$(sql -F ' = ' -c "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ('shared_buffers', 'max_parallel_workers', 'max_worker_processes') ORDER BY name" | paste -sd ',' - | sed 's/,/, /g')
INFO=$(sql -F ': ' -c "SELECT item, value FROM gpuscan_info()" | paste -sd ';' - | sed 's/;/; /g')
CMD=$(bench_command bench/sql_bench.sh "BENCH_MAX BENCH_SIZES BENCH_RUNS BENCH_PAIRS BENCH_ONLY BENCH_PATHS BENCH_SHARED_BUFFERS GPUSCAN_CPU_ONLY GPUSCAN_USE_RUNNING_SERVER" "$@")

report() {
	echo "# SQL benchmark: gpuscan vs plain SQL"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), $ELAPSED s"
	echo "- CPU: $CPU"
	echo "- GPU: ${GPU:-none}"
	echo "- PostgreSQL $PGVER ($SETTINGS), jit = off"
	echo "- gpuscan_info(): $INFO"
	echo "- command: \`$CMD\`"
	echo "- method: one warm-up run, then the median of $RUNS runs (25 below 1e6 elements) in the same backend, timed"
	echo "  server-side (clock_timestamp() around EXECUTE in PL/pgSQL; planning included)."
	echo "  \"first ms\" is the warm-up run (a new backend: includes one-time GPU set-up)."
	echo "  \"net of fetch\" subtracts the group's TOAST fetch (a[1] detoasts the whole array)."
	echo "  \"vs plain SQL\" is plain-SQL time ÷ this time (above 1× = faster)."
	if [ "$PAIRS" -gt 0 ]; then
		echo "  Paired rows (BENCH_PAIRS=$PAIRS): $PAIRS rounds, each timing the group's plain-SQL query and this one"
		echo "  as above, each in a new backend, in alternating order; \"median ms\" and the baseline are the"
		echo "  medians over the rounds, \"vs plain SQL\" the median of the rounds' ratios, with their range."
	fi
	echo
	echo "| size | query | path | median ms | net of fetch ms | vs plain SQL | first ms |"
	echo "| ---: | --- | --- | ---: | ---: | ---: | ---: |"
	printf '%s\n' "${ROWS[@]}"
}

report
bench_save "$(report)" sql

if [ "$RUNNING" = 1 ]; then
	"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB"
fi
