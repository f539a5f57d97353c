#!/usr/bin/env bash
#
# bench/stored_bench.sh -- calls on arrays stored in a table, on the CPU
# path and through the GPU service: its first call (a cache miss, which
# loads the array) and its cached calls, in one run; next to the targets
# on stored arrays of issue 38.
#
#   bench/stored_bench.sh [--save]
#
# Runs on the server of PGHOST/PGPORT with GPUSCAN_USE_RUNNING_SERVER=1, as
# the other benches (gpuscan must be in its shared_preload_libraries for
# the GPU service), else on a throw-away server started with the preload.
# Where gpuscan_info() says gpu_usable = false, or the GPU service has no
# GPU, it says so and measures the CPU path only.
#
# In database gpuscan_stored_bench:
#   stored_bench.t  3 rows of STORED_ELEMENTS (10^7) random doubles (a) and
#                   as many flags (k, half true), both stored out of line
#                   uncompressed (SET STORAGE EXTERNAL);
#   stored_bench.m  a CSR matrix of STORED_NNZ (2^24) non-zeros, 16 a row
#                   (so STORED_NNZ / 16 rows and columns), random columns:
#                   row_ptr, col_idx and vals stored as a is, and x.
# Each statement below runs STORED_RUNS (5) times in one session after a
# warm-up, timed by psql's \timing (the statement as the client sees it),
# the median reported:
#   gpu_sum(a), gpu_prefix_sum_array(a) and gpu_compact_array(a, k) on row
#   1 (the arrays wrapped in cardinality() so that the result is not sent
#   to the client; the argument is the column, so the function gets the
#   stored value): on the CPU path (gpuscan.device = cpu); the first call
#   through the GPU service (gpuscan.device = gpu, gpuscan_cache_reset()
#   before each timed statement, so each loads the array); cached
#   (gpuscan.device = gpu after a load).
#   gpu_csr_spmv(row_ptr, col_idx, vals, x): on the CPU path, through the
#   GPU service with gpuscan.cache = off, and cached.
# For each path gpuscan_stats() says which path the timed calls took (a
# warning where it is not the one asked for), and the results' bits are
# compared with the CPU path's (md5 of float8send / array_send).  Prints
# markdown with the targets met or not; with --save writes
# bench/results/stored-<device or host>-<date>.md.
#
# Environment: STORED_ELEMENTS (10000000), STORED_NNZ (16777216, a multiple
# of 16), STORED_RUNS (5), STORED_KEEP (1: keep the database gpuscan_stored_bench afterwards), GPUSCAN_USE_RUNNING_SERVER, PG_CONFIG,
# GPUSCAN_DEVICE (as for the other benches).

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
CMD=$(bench_command bench/stored_bench.sh "STORED_ELEMENTS STORED_NNZ STORED_RUNS GPUSCAN_DEVICE GPUSCAN_USE_RUNNING_SERVER" "$@")
cd "$GPUSCAN_ROOT"

bench_args "$@"
# whole numbers, also where given as 1e7
ELEMS=$(awk -v s="${STORED_ELEMENTS:-10000000}" 'BEGIN { printf "%.0f\n", s + 0 }')
NNZ=$(awk -v s="${STORED_NNZ:-16777216}" 'BEGIN { printf "%.0f\n", s + 0 }')
RUNS=${STORED_RUNS:-5}
PER_ROW=16
NROWS=3
DB=gpuscan_stored_bench
[ "$ELEMS" -ge 1 ] || die "STORED_ELEMENTS must be at least 1"
if [ "$NNZ" -lt "$PER_ROW" ] || [ $((NNZ % PER_ROW)) -ne 0 ]; then die "STORED_NNZ must be a multiple of $PER_ROW"; fi
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "STORED_RUNS must be a whole number of at least 1"
MROWS=$((NNZ / PER_ROW))

bench_server_up
if [ "${GPUSCAN_USE_RUNNING_SERVER:-0}" != 1 ]; then
	# the throw-away server, with the GPU service
	msg "restarting the throw-away server with shared_preload_libraries = gpuscan"
	restart_temp_server shared_preload_libraries=gpuscan
fi
sql() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
fmt() { awk -v x="$1" 'BEGIN { printf (x >= 100 ? "%.0f" : (x >= 1 ? "%.2f" : "%.3f")), x }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# at_least A B -- whether A >= B (decimal numbers)
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
# power_label N -- N as 2^k where it is a power of two, else N
power_label() {
	local n=$1 k=0
	while [ $((n % 2)) -eq 0 ] && [ "$n" -gt 1 ]; do n=$((n / 2)); k=$((k + 1)); done
	if [ "$n" -eq 1 ] && [ "$k" -gt 0 ]; then printf '2^%d' "$k"; else printf '%s' "$1"; fi
}

"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
sql -c "CREATE EXTENSION gpuscan" -c "CREATE SCHEMA stored_bench"

# a service that is still starting (just after a restart) is waited for, up to 60 s
for _ in $(seq 600); do
	[[ "$(sql -c "SELECT value FROM gpuscan_info() WHERE item = 'gpu_service'")" == starting* ]] || break
	sleep 0.1
done
# the GPU service with a GPU: gpu_usable, and the service's device 0
GPU=1
NO_GPU_WHY=""
if ! gpu_usable; then
	GPU=0
	NO_GPU_WHY="gpuscan_info() says gpu_usable = false"
elif [ "$(sql -c "SELECT count(*) FROM gpuscan_info() WHERE item = 'gpu_service_device 0'")" != 1 ]; then
	GPU=0
	NO_GPU_WHY="the GPU service has no GPU: is gpuscan in shared_preload_libraries?"
fi
if [ "$GPU" = 1 ]; then
	DEVICE_LINE=$(sql -c "SELECT value FROM gpuscan_info() WHERE item = 'gpu_service_device 0'")
	if [ "$(device_kind)" = standin ]; then
		DEVICE_LINE="$DEVICE_LINE (the stand-in device: no GPU, its times say nothing of one)"
	fi
else
	DEVICE_LINE="none: $NO_GPU_WHY"
	msg "$NO_GPU_WHY: measuring the CPU path only"
fi

msg "loading $NROWS rows of $ELEMS doubles and flags"
sql -c "CREATE TABLE stored_bench.t (id integer PRIMARY KEY, a double precision[], k boolean[])" \
	-c "ALTER TABLE stored_bench.t ALTER COLUMN a SET STORAGE EXTERNAL" \
	-c "ALTER TABLE stored_bench.t ALTER COLUMN k SET STORAGE EXTERNAL"
for id in $(seq "$NROWS"); do
	sql -o /dev/null -c "SELECT setseed(0.$id)" \
		-c "INSERT INTO stored_bench.t SELECT $id, array_agg(random() - 0.5), array_agg(random() < 0.5)
		    FROM generate_series(1, $ELEMS)"
done
msg "loading a matrix of $MROWS rows and $NNZ non-zeros ($PER_ROW a row, random columns)"
sql -c "CREATE TABLE stored_bench.m (row_ptr integer[], col_idx integer[], vals double precision[],
	                                 x double precision[])" \
	-c "ALTER TABLE stored_bench.m ALTER COLUMN row_ptr SET STORAGE EXTERNAL" \
	-c "ALTER TABLE stored_bench.m ALTER COLUMN col_idx SET STORAGE EXTERNAL" \
	-c "ALTER TABLE stored_bench.m ALTER COLUMN vals SET STORAGE EXTERNAL" \
	-c "SELECT setseed(0.5)" \
	-c "INSERT INTO stored_bench.m SELECT
	      (SELECT array_agg(i * $PER_ROW) FROM generate_series(0, $MROWS) i),
	      (SELECT array_agg(floor(random() * $MROWS)::integer) FROM generate_series(1, $NNZ)),
	      (SELECT array_agg(random() - 0.5) FROM generate_series(1, $NNZ)),
	      (SELECT array_agg(random()) FROM generate_series(1, $MROWS))" \
	-c "VACUUM ANALYZE stored_bench.t, stored_bench.m" >/dev/null

# measure SETTINGS BEFORE CALL FN -- psql's \timing of CALL, RUNS times in
# one session after SETTINGS and a warm-up, with BEFORE (untimed, may be
# empty) ahead of the warm-up and of each timed call: "median|paths", paths
# being what gpuscan_stats() says of FN's timed calls
measure() {
	local settings=$1 before=$2 call=$3 fn=$4 i out
	out=$({
		printf '%s\n' "SET jit = off;" "$settings" "$before" "$call" "SELECT gpuscan_stats_reset();"
		for ((i = 0; i < RUNS; i++)); do
			printf '%s\n' "$before" '\timing on' "$call" '\timing off'
		done
		printf '%s\n' "SELECT 'paths|' || coalesce(string_agg(path || ': ' || calls, ', ' ORDER BY path), 'none')
		               FROM gpuscan_stats() WHERE function = '$fn';"
	} | sql)
	printf '%s|%s\n' "$(sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' <<<"$out" | median)" \
		"$(sed -n 's/^paths|//p' <<<"$out")"
}

# digests SETTINGS DIGEST -- the md5 digests of DIGEST (a SELECT of one
# md5) on the CPU path, then after SETTINGS (gpuscan.device = gpu ...):
# through the service after a cache reset (a load, or as the settings
# say), and again (cached, or as the settings say): "cpu first again"
digests() {
	local gpu_settings=$1 digest=$2
	if [ "$GPU" = 1 ]; then
		sql -c "SET gpuscan.device = cpu" -c "$digest" -c "$gpu_settings" \
			-c "SELECT gpuscan_cache_reset()" -c "$digest" -c "$digest" |
			grep -E '^[0-9a-f]{32}$' | paste -sd ' '
	else
		sql -c "SET gpuscan.device = cpu" -c "$digest"
	fi
}

# same_bits CPU OTHER... -- "yes" if every digest equals the CPU path's, else which differ
same_bits() {
	local cpu=$1 d n=0 bad=""
	shift
	for d in "$@"; do
		n=$((n + 1))
		[ "$d" = "$cpu" ] || bad+="${bad:+, }$n"
	done
	if [ -z "$cpu" ]; then echo "?"; elif [ -z "$bad" ]; then echo yes; else echo "no ($bad)"; fi
}

# path_check WHAT PATHS PATTERN -- a warning line where PATHS (gpuscan_stats()
# of the timed calls) are not RUNS calls of a path matching PATTERN
WARNINGS=""
path_check() {
	local what=$1 paths=$2 pattern=$3
	if ! [[ $paths =~ ^${pattern}:\ ${RUNS}$ ]]; then
		WARNINGS+="- warning: $what took the path '${paths:-none}' in gpuscan_stats(), not $RUNS calls of '${pattern/"(, split)?"/}': the figure is not what it should be
"
		msg "warning: $what took the path '${paths:-none}'"
		return 1
	fi
}

T="stored_bench.t WHERE id = 1"
FUNCS=(gpu_sum gpu_prefix_sum_array gpu_compact_array)
declare -A EXPR=([gpu_sum]="gpu_sum(a)" [gpu_prefix_sum_array]="gpu_prefix_sum_array(a)"
	[gpu_compact_array]="gpu_compact_array(a, k)")
# OK["FN PATH"]: 0 where gpuscan_stats() named another path for FN on PATH (cpu, load, hit, off)
declare -A CPU LOAD HIT BITS PATHS OK
ROWS=""
for fn in "${FUNCS[@]}"; do
	e=${EXPR[$fn]}
	if [ "$fn" = gpu_sum ]; then
		call="SELECT $e FROM $T;"
		digest="SELECT md5(float8send($e)) FROM $T;"
	else
		call="SELECT cardinality($e) FROM $T;"
		digest="SELECT md5(array_send($e)) FROM $T;"
	fi
	IFS='|' read -r "CPU[$fn]" p_cpu <<<"$(measure "SET gpuscan.device = cpu;" "" "$call" "$fn")"
	OK["$fn cpu"]=1
	path_check "$fn on the CPU path" "$p_cpu" cpu || OK["$fn cpu"]=0
	if [ "$GPU" = 1 ]; then
		IFS='|' read -r "LOAD[$fn]" p_load <<<"$(measure "SET gpuscan.device = gpu;" \
			"SELECT gpuscan_cache_reset();" "$call" "$fn")"
		IFS='|' read -r "HIT[$fn]" p_hit <<<"$(measure "SET gpuscan.device = gpu;" "" "$call" "$fn")"
		OK["$fn load"]=1
		OK["$fn hit"]=1
		path_check "$fn's first call" "$p_load" 'gpu service(, split)?, loaded' || OK["$fn load"]=0
		path_check "$fn cached" "$p_hit" 'gpu service(, split)?, cached' || OK["$fn hit"]=0
		read -r -a d <<<"$(digests "SET gpuscan.device = gpu" "$digest")"
		BITS[$fn]=$(same_bits "${d[0]:-}" "${d[1]:-}" "${d[2]:-}")
		PATHS[$fn]="CPU: $p_cpu; first call: $p_load; cached: $p_hit"
		msg "$fn: CPU ${CPU[$fn]} ms, first call ${LOAD[$fn]} ms, cached ${HIT[$fn]} ms, same bits ${BITS[$fn]}"
		ROWS+="| \`$fn\` | $(fmt "${CPU[$fn]}") | $(fmt "${LOAD[$fn]}") | $(fmt "${HIT[$fn]}") | $(ratio "${LOAD[$fn]}" "${CPU[$fn]}") | $(ratio "${CPU[$fn]}" "${HIT[$fn]}") | ${BITS[$fn]} |
"
	else
		PATHS[$fn]="CPU: $p_cpu"
		msg "$fn: CPU ${CPU[$fn]} ms"
		ROWS+="| \`$fn\` | $(fmt "${CPU[$fn]}") | - | - | - | - | - |
"
	fi
done

SPMV_E="gpu_csr_spmv(row_ptr, col_idx, vals, x)"
SPMV="SELECT cardinality($SPMV_E) FROM stored_bench.m;"
SPMV_DIGEST="SELECT md5(array_send($SPMV_E)) FROM stored_bench.m;"
IFS='|' read -r S_CPU s_cpu <<<"$(measure "SET gpuscan.device = cpu;" "" "$SPMV" gpu_csr_spmv)"
OK["gpu_csr_spmv cpu"]=1
path_check "gpu_csr_spmv on the CPU path" "$s_cpu" cpu || OK["gpu_csr_spmv cpu"]=0
if [ "$GPU" = 1 ]; then
	IFS='|' read -r S_OFF s_off <<<"$(measure "SET gpuscan.device = gpu; SET gpuscan.cache = off;" "" \
		"$SPMV" gpu_csr_spmv)"
	sql -c "SELECT gpuscan_cache_reset()" >/dev/null
	IFS='|' read -r S_HIT s_hit <<<"$(measure "SET gpuscan.device = gpu;" "" "$SPMV" gpu_csr_spmv)"
	OK["gpu_csr_spmv off"]=1
	OK["gpu_csr_spmv hit"]=1
	path_check "gpu_csr_spmv with the cache off" "$s_off" 'gpu service' || OK["gpu_csr_spmv off"]=0
	path_check "gpu_csr_spmv cached" "$s_hit" 'gpu service, cached' || OK["gpu_csr_spmv hit"]=0
	# the CPU path, the cache off twice; then the cache on: a load and a hit
	read -r -a d <<<"$(digests "SET gpuscan.device = gpu; SET gpuscan.cache = off" "$SPMV_DIGEST")"
	read -r -a d2 <<<"$(digests "SET gpuscan.device = gpu" "$SPMV_DIGEST")"
	S_BITS=$(same_bits "${d[0]:-}" "${d[1]:-}" "${d[2]:-}" "${d2[1]:-}" "${d2[2]:-}")
	S_PATHS="CPU: $s_cpu; cache off: $s_off; cached: $s_hit"
	msg "gpu_csr_spmv: CPU $S_CPU ms, cache off $S_OFF ms, cached $S_HIT ms, same bits $S_BITS"
	S_ROW="| $(power_label "$MROWS") rows, $PER_ROW a row | $(fmt "$S_CPU") | $(fmt "$S_OFF") | $(fmt "$S_HIT") | $(ratio "$S_CPU" "$S_OFF") | $(ratio "$S_CPU" "$S_HIT") | $S_BITS |"
else
	S_PATHS="CPU: $s_cpu"
	msg "gpu_csr_spmv: CPU $S_CPU ms"
	S_ROW="| $(power_label "$MROWS") rows, $PER_ROW a row | $(fmt "$S_CPU") | - | - | - | - | - |"
fi

# target TEXT OK [WHY] -- a line "target: TEXT: met" (OK = 1) or "not met", WHY after it
target() {
	local verdict="not met"
	[ "$2" = 1 ] && verdict=met
	printf 'target: %s: %s%s\n' "$1" "$verdict" "${3:+ ($3)}"
}
# size_note -- where the sizes are not the targets' own, a note saying so
SIZE_NOTE=""
[ "$ELEMS" = 10000000 ] || SIZE_NOTE="measured at $ELEMS elements; the target is for 10^7"
SPMV_NOTE=""
[ "$NNZ" = 16777216 ] || SPMV_NOTE="measured at $(power_label "$NNZ") non-zeros; the target is for 2^24"
# path_note FN PATH -- ", see the warnings on the paths" where FN took another
# path than asked for on the CPU path or on PATH
path_note() {
	[ "${OK["$1 cpu"]}" = 1 ] && [ "${OK["$1 $2"]}" = 1 ] || printf ', see the warnings on the paths'
}
# note A B -- A and B joined by "; ", either may be empty
note() { printf '%s' "$1${1:+${2:+; }}$2"; }
TARGETS=""
if [ "$GPU" = 1 ]; then
	for fn in "${FUNCS[@]}"; do
		ok=0
		at_least "${CPU[$fn]}" "${LOAD[$fn]}" && ok=1
		why="$(fmt "${LOAD[$fn]}") ms against $(fmt "${CPU[$fn]}") ms"
		why+=$(path_note "$fn" load)
		TARGETS+="$(target "stored 10^7 doubles, a cache miss ≤ the CPU path's statement, \`$fn\`" "$ok" \
			"$(note "$why" "$SIZE_NOTE")")
"
	done
	for fn in gpu_prefix_sum_array gpu_compact_array; do
		ok=0
		at_least "$(ratio "${CPU[$fn]}" "${HIT[$fn]}")" 10 && ok=1
		why="$(ratio "${CPU[$fn]}" "${HIT[$fn]}")×"
		why+=$(path_note "$fn" hit)
		TARGETS+="$(target "cached \`$fn\` ≥ 10× the CPU path's statement" "$ok" "$(note "$why" "$SIZE_NOTE")")
"
	done
	ok=0
	at_least "$S_CPU" "$S_OFF" && ok=1
	why="$(fmt "$S_OFF") ms against $(fmt "$S_CPU") ms"
	why+=$(path_note gpu_csr_spmv off)
	TARGETS+="$(target "\`gpu_csr_spmv\` (2^24 non-zeros) with the cache off ≥ the CPU path" "$ok" \
		"$(note "$why" "$SPMV_NOTE")")
"
	ok=1
	for fn in "${FUNCS[@]}"; do [ "${BITS[$fn]}" = yes ] || ok=0; done
	[ "$S_BITS" = yes ] || ok=0
	TARGETS+="$(target "results the same bits as the CPU path" "$ok" "every function above, every path")
"
else
	TARGETS="target: the targets on stored arrays: not measured ($NO_GPU_WHY)
"
fi

SETTINGS=$(sql -c "LOAD 'gpuscan'" -c "SELECT string_agg(name || ' = ' || current_setting(name), ', ' ORDER BY name)
	FROM pg_settings WHERE name IN ('shared_buffers', 'shared_preload_libraries', 'gpuscan.cache_size',
	  'gpuscan.copy_threads', 'gpuscan.fetch_stored_arrays', 'gpuscan.placement',
	  'gpuscan.service_staging_size', 'gpuscan.service_streams', 'gpuscan.split_min_size')")
REPORT="# Calls on stored arrays: the CPU path, the GPU service's first call and its cache

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_line)
- $("$PSQL" -XAtq -c "SELECT version()" | cut -d, -f1)
- gpuscan: commit $(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
- device: $DEVICE_LINE
- command: \`$CMD\`
- settings: $SETTINGS
- method: psql's \\timing (the statement as the client sees it), the median of $RUNS statements in
  one session after a warm-up. Row 1 of $NROWS of \`stored_bench.t\`: $ELEMS random doubles \`a\`
  and as many flags \`k\` (half true), stored out of line uncompressed; the array results wrapped
  in \`cardinality()\` so that they are not sent to the client, the argument the column itself
  (the stored value). CPU: \`gpuscan.device = cpu\`; first call: \`gpuscan.device = gpu\` with
  \`SELECT gpuscan_cache_reset()\` (untimed) before each statement, so each loads the array into
  the GPU service's cache; cached: \`gpuscan.device = gpu\` after a load. Same bits: the md5 of
  \`float8send\` / \`array_send\` of the result on each GPU path against the CPU path's (\"no\"
  names which differ: 1 first call, 2 cached; for SpMV 1 and 2 the cache off, 3 a load, 4 cached).

| function | CPU ms | first call (load) ms | cached ms | first / CPU | CPU / cached | same bits |
| --- | ---: | ---: | ---: | ---: | ---: | --- |
$ROWS
\`SELECT cardinality($SPMV_E) FROM stored_bench.m\`: a matrix of $MROWS rows and
columns and $NNZ non-zeros ($PER_ROW a row, random columns), row_ptr, col_idx and vals stored out of
line uncompressed, and x; cache off: \`gpuscan.device = gpu\`, \`gpuscan.cache = off\`; cached:
\`gpuscan.device = gpu\` after a load.

| gpu_csr_spmv, $(power_label "$NNZ") non-zeros | CPU ms | cache off ms | cached ms | CPU / cache off | CPU / cached | same bits |
| --- | ---: | ---: | ---: | ---: | ---: | --- |
$S_ROW

The paths of the timed calls in gpuscan_stats():
$(for fn in "${FUNCS[@]}"; do printf -- "- \`%s\`: %s\n" "$fn" "${PATHS[$fn]}"; done)
- \`gpu_csr_spmv\`: $S_PATHS
${WARNINGS:+
$WARNINGS}
${TARGETS%$'\n'}"
[ -n "${STORED_KEEP:-}" ] || "$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
printf '%s\n' "$REPORT"
bench_save "$REPORT" stored
