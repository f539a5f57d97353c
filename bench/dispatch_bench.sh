#!/usr/bin/env bash
#
# bench/dispatch_bench.sh -- the array functions at every size on the CPU
# path, the GPU path and auto, next to the machine's copy rates: the table
# that gpuscan.device = auto's cost model is fitted to.
#
#   bench/dispatch_bench.sh [--save]
#
# For gpu_sum, gpu_prefix_sum_array and gpu_compact_array over
# double precision[] of 1e3 ... 6e7 elements and real[] of 1e6 ... 1e8 (a
# boolean[] half true for compaction), and gpu_csr_spmv and gpu_pagerank
# over random CSR matrices of 1e5 ... 1e7 non-zeros (10 a row): the
# median in-function time (gpuscan_stats()) of DISPATCH_RUNS calls after a
# warm-up, each with its arrays already in backend memory, under
# gpuscan.device = cpu, gpu and auto, the three taking turns call by call
# in one session (auto after the GPU's first call, so with the GPU open;
# gpuscan.gpu_min_elements = -1: the cost model chooses); the
# path auto took; the crossover size per function (where the GPU's time
# falls below the CPU's, between the measured sizes); and a fit of fixed
# and per-element cost per path, the figures of src/dispatch/cost_model.c.  Where
# nvcc is found, bench/copy_rates's PCIe rows (pinned and pageable) head the
# report.  Prints markdown; with --save writes
# bench/results/dispatch-<device or host>-<date>.md.
#
# Environment: DISPATCH_SIZES="1e3 1e4 1e5 1e6 1e7 6e7 1e6r 1e7r 1e8r" (a
# size with 'r' appended is real[]), DISPATCH_CSR_SIZES="1e5 1e6 1e7"
# (non-zeros; empty for none), DISPATCH_RUNS=5, DISPATCH_PATHS="cpu gpu
# auto" (default: cpu, auto, and gpu where gpu_usable), DISPATCH_SETTINGS
# (SQL run first in each session), PG_CONFIG, GPUSCAN_CPU_ONLY,
# GPUSCAN_USE_RUNNING_SERVER (as for bench/sql_bench.sh).  The GPU path is
# the GPU service's: the throw-away server is restarted with
# shared_preload_libraries = gpuscan, and a running server must preload
# gpuscan too.
#
# The path "own" is for an old build only, one from before the session's
# own GPU path was removed (it has gpuscan.debug_session_gpu), on a
# preloaded server: that build's own GPU path in the session, taking turns
# with the service's path "gpu" (bench/service_path_bench.sh OLD_TREE runs
# the old tree's copy of this script with DISPATCH_PATHS="cpu own gpu").
# Against a build without the setting the path is refused.

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
CMD=$(bench_command bench/dispatch_bench.sh "DISPATCH_SIZES DISPATCH_CSR_SIZES DISPATCH_RUNS DISPATCH_PATHS DISPATCH_SETTINGS GPUSCAN_CPU_ONLY GPUSCAN_USE_RUNNING_SERVER" "$@")
cd "$GPUSCAN_ROOT"

bench_args "$@"
read -r -a SIZES <<<"${DISPATCH_SIZES:-1e3 1e4 1e5 1e6 1e7 6e7 1e6r 1e7r 1e8r}"
read -r -a CSR_SIZES <<<"${DISPATCH_CSR_SIZES-1e5 1e6 1e7}"
RUNS=${DISPATCH_RUNS:-5}
DB=gpuscan_dispatch
FUNCS=(gpu_sum gpu_prefix_sum_array gpu_compact_array)

bench_server_up
if [ "${GPUSCAN_USE_RUNNING_SERVER:-0}" != 1 ]; then
	# the throw-away server, with the GPU service (the only GPU path)
	msg "restarting the throw-away server with shared_preload_libraries = gpuscan"
	restart_temp_server shared_preload_libraries=gpuscan
	# a service that is still starting is waited for, up to 60 s
	for _ in $(seq 600); do [[ "$(info_value gpu_service)" == starting* ]] || break; sleep 0.1; done
fi
sql() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
sql -c "CREATE EXTENSION gpuscan" -f "$HERE/sql/dispatch.sql"
if [ -n "${DISPATCH_PATHS:-}" ]; then
	read -r -a PATHS <<<"$DISPATCH_PATHS"
else
	PATHS=(cpu)
	if gpu_usable; then PATHS+=(gpu); fi
	PATHS+=(auto)
fi
# the path "own": only a build that still has the session's own GPU path
if [[ " ${PATHS[*]} " == *" own "* ]] &&
	[ "$(sql -c "LOAD 'gpuscan'" -c "SELECT current_setting('gpuscan.debug_session_gpu', true) IS NOT NULL")" != t ]; then
	die "DISPATCH_PATHS: the path \"own\" needs an old build with gpuscan.debug_session_gpu (the session's own GPU path); this one has none"
fi

COPY_ROWS=""
if [ -z "${GPUSCAN_CPU_ONLY:-}" ] && gpu_usable && make -s bench/copy_rates >/dev/null 2>&1; then
	msg "copy rates (bench/copy_rates 480 0)"
	COPY_ROWS=$(./bench/copy_rates 480 0 | grep -E '^\| (host to device|device to host)' || true)
fi

# one line per call: function|type|elements|path asked|ms|path taken
RAW=$(mktemp /tmp/gpuscan-dispatch.XXXXXX)
remove_on_exit "$RAW"

# time_calls TABLE TYPE N FUNCTION... -- each function on every path, the
# paths taking turns call by call in one session (auto after the GPU path's
# first call, so in a session whose GPU is open)
time_calls() {
	local t=$1 type=$2 n=$3 fn path
	local devices
	devices="{$(IFS=,; echo "${PATHS[*]}")}"
	shift 3
	for fn in "$@"; do
		sql -F '|' -c "SET jit = off; SET gpuscan.gpu_min_elements = -1; ${DISPATCH_SETTINGS:-}" \
			-c "SELECT '$fn|$type|$n|' || device || '|' || ms || '|' || path
			      FROM dispatch.call_times('$t', '$fn', '$devices', $RUNS)" |
			grep -v '^$' | grep '|' >>"$RAW"
		for path in "${PATHS[@]}"; do
			msg "$fn $type $n $path: $(grep "^$fn|$type|$n|$path|" "$RAW" | cut -d'|' -f5 | median) ms"
		done
	done
}

# pieces N EXPR -- the SQL of an array of N values of EXPR
pieces() { sql -c "SELECT dispatch.random_pieces($1, '$2')"; }

for size in "${SIZES[@]}"; do
	type=float8
	case $size in
		*r) type=real; size=${size%r} ;;
	esac
	n=$(awk -v s="$size" 'BEGIN { printf "%.0f\n", s + 0 }')
	t="d_${size/+/}_$type"
	msg "making $t: $n elements of $type"
	sql -c "CREATE TABLE $t AS SELECT $(pieces "$n" "random()::$type") AS a,
	                                   $(pieces "$n" "random() < 0.5") AS k"
	time_calls "$t" "$type" "$n" "${FUNCS[@]}"
	sql -c "DROP TABLE $t"
done

for size in "${CSR_SIZES[@]}"; do
	n=$(awk -v s="$size" 'BEGIN { printf "%.0f\n", s + 0 }')
	rows=$((n / 10))
	t="c_${size/+/}"
	msg "making $t: $rows rows of 10 random columns each"
	sql -c "CREATE TABLE $t AS
	        SELECT (SELECT array_agg(i * 10) FROM generate_series(0, $rows) i) AS row_ptr,
	               (SELECT array_agg((random() * ($rows - 1))::int) FROM generate_series(1, $n)) AS col_idx,
	               (SELECT array_agg(random()) FROM generate_series(1, $n)) AS vals,
	               (SELECT array_agg(random()) FROM generate_series(1, $rows)) AS x"
	time_calls "$t" float8 "$n" gpu_csr_spmv gpu_pagerank
	sql -c "DROP TABLE $t"
done

# settings_line -- the settings that shape a call's copies, those this build has
# (current_setting, which also reads the hidden gpuscan.debug_chunk_size)
settings_line() {
	sql -c "LOAD 'gpuscan'" -c "SELECT string_agg(n || ' = ' || v, ', ' ORDER BY n)
	        FROM (SELECT n, current_setting(n, true) AS v
	              FROM unnest(ARRAY['gpuscan.copy_threads', 'gpuscan.debug_chunk_size',
	                                'gpuscan.service_staging_size', 'gpuscan.service_streams']) n) s
	        WHERE v IS NOT NULL"
}

TABLES=$(python3 "$HERE/dispatch_table.py" <"$RAW")
GITREV=$(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
REPORT="# The array functions on each path, and auto

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_line)
- $("$PSQL" -XAtq -c "SELECT version()" | cut -d, -f1)
- gpuscan: commit $GITREV
- command: \`$CMD\`
- settings: $(settings_line)${DISPATCH_SETTINGS:+; $DISPATCH_SETTINGS}
- method: one row per size (random() values; a boolean[] half true; CSR matrices of random
  columns, 10 a row, also the graphs of gpu_pagerank); each function called
  $RUNS times after a warm-up on each path, the paths taking turns call by call in one
  session, its arrays already in backend memory (fetched once into PL/pgSQL variables); the
  median in-function time from gpuscan_stats(). auto runs with gpuscan.gpu_min_elements = -1
  (the cost model), after the GPU path's first call, so with the GPU open.
${COPY_ROWS:+
## Copy rates of this machine (bench/copy_rates, 480 MB)

| what | ms | GB/s |
| --- | ---: | ---: |
$COPY_ROWS
}
$TABLES"
printf '%s\n' "$REPORT"
bench_save "$REPORT" dispatch
