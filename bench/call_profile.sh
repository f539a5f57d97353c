#!/usr/bin/env bash
#
# bench/call_profile.sh -- where the time of one array function call goes,
# stage by stage (src/pg/call_profile.h), on each path.
#
#   bench/call_profile.sh [--save]
#
# One stored double precision[] (and a boolean[] of the same length, half
# true) per size; for gpu_sum, gpu_prefix_sum_array, gpu_compact_array and
# the set-returning gpu_prefix_sum and gpu_compact, on the CPU path and,
# where a GPU is usable, the GPU path (gpuscan.device = gpu): one warm-up
# call, then PROFILE_RUNS calls in the same backend with
# client_min_messages = debug1, and the median of each stage over them.
# The stages: args (fetching the stored array from TOAST and opening it),
# dispatch, checks (NULL checks, flags, counting), alloc (result memory),
# upload / download (on the GPU path, the GPU service's: the session's copy
# of each chunk into the service's staging area and of each answer out of
# it), kernel (device work in the session: none on the service's path),
# wait (the session waiting for the service's answers), cpu (the CPU
# path's work), result (rows into the tuplestore), other (unclaimed).
# Prints a markdown table; with --save also writes it to
# bench/results/call-profile-<device or host>-<date>.md.  With perf on the
# PATH and PROFILE_PERF=1, also the top symbols of the CPU path's calls at
# the largest size (perf record -a during those calls).
#
# Environment: PROFILE_SIZES="1e6 1e7 6e7", PROFILE_RUNS=5, PROFILE_PERF=0,
# PROFILE_PATHS="cpu gpu" (default: cpu, and gpu where gpu_usable),
# PROFILE_ONLY=REGEX (only the functions whose label matches),
# PROFILE_SETTINGS="SET ...;" (run first in the session; named in the rows),
# PROFILE_INPUT=stored|memory (memory: the arrays reach the function already
# in backend memory, as array_cat(a, '{}') returns them, so that args is
# only the opening of the argument),
# PG_CONFIG, GPUSCAN_CPU_ONLY, GPUSCAN_USE_RUNNING_SERVER (as for
# bench/sql_bench.sh; the GPU path is the GPU service's, so a running server
# must preload gpuscan for it, and the throw-away server is restarted with
# the preload).

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
CMD=$(bench_command bench/call_profile.sh "PROFILE_SIZES PROFILE_RUNS PROFILE_PERF PROFILE_PATHS PROFILE_ONLY PROFILE_SETTINGS PROFILE_INPUT GPUSCAN_CPU_ONLY GPUSCAN_USE_RUNNING_SERVER" "$@")
cd "$GPUSCAN_ROOT"

bench_args "$@"
SIZES=${PROFILE_SIZES:-1e6 1e7 6e7}
RUNS=${PROFILE_RUNS:-5}
DB=gpuscan_call_profile

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
sql -c "CREATE EXTENSION gpuscan"
if [ -n "${PROFILE_PATHS:-}" ]; then
	read -r -a PATHS <<<"$PROFILE_PATHS"
else
	PATHS=(cpu)
	if gpu_usable; then PATHS+=(gpu); fi
fi

# the calls: label and query, %T the table, %A and %K its columns
CALLS=(
	"gpu_sum|SELECT gpu_sum(%A) FROM %T"
	"gpu_prefix_sum_array|SELECT cardinality(gpu_prefix_sum_array(%A, false)) FROM %T"
	"gpu_compact_array|SELECT cardinality(gpu_compact_array(%A, %K)) FROM %T"
	"gpu_prefix_sum (rows)|SELECT count(*) FROM %T, gpu_prefix_sum(%A, false)"
	"gpu_compact (rows)|SELECT count(*) FROM %T, gpu_compact(%A, %K)"
)
case ${PROFILE_INPUT:-stored} in
	stored) ARG_A=a ARG_K=k ;;
	memory) ARG_A="array_cat(a, '{}')" ARG_K="array_cat(k, '{}')" ;;
	*) die "PROFILE_INPUT must be stored or memory" ;;
esac
# expand_call QUERY TABLE -- the query of CALLS for one table
expand_call() {
	local q=${1//%T/$2}
	q=${q//%A/$ARG_A}
	printf '%s' "${q//%K/$ARG_K}"
}

TABLE="| function | elements | path | in-function ms | args | dispatch | checks | alloc | upload | kernel | download | wait | cpu | result | other |
| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
PERF_OUT=""
for size in $SIZES; do
	n=$(awk -v s="$size" 'BEGIN { printf "%.0f\n", s + 0 }')
	t="p_${size/+/}"
	msg "making $t: $n elements"
	sql -c "CREATE TABLE $t AS SELECT array_agg(random()) AS a, array_agg(random() < 0.5) AS k
	        FROM generate_series(1, $n)" -c "VACUUM ANALYZE $t"
	for call in "${CALLS[@]}"; do
		label=${call%%|*}
		query=$(expand_call "${call#*|}" "$t")
		[[ "$label" =~ ${PROFILE_ONLY:-.} ]] || continue
		for path in "${PATHS[@]}"; do
			stmts="SET jit = off; SET gpuscan.device = $path; SET gpuscan.gpu_min_elements = 0; ${PROFILE_SETTINGS:-}"
			stmts+=" $query;"
			for _ in $(seq "$RUNS"); do stmts+=" SET client_min_messages = debug1; $query; RESET client_min_messages;"; done
			lines=$(sql -c "$stmts" 2>&1 >/dev/null | grep 'gpuscan profile:' || true)
			[ -n "$lines" ] || die "no profile lines for $label on $path"
			row=$(python3 "$HERE/call_profile_median.py" "$label${PROFILE_SETTINGS:+ ($PROFILE_SETTINGS)}" \
				"$n" "$path" <<<"$lines")
			TABLE+=$'\n'"$row"
			msg "$row"
		done
	done
	if [ "${PROFILE_PERF:-0}" = 1 ] && command -v perf >/dev/null && [ "$size" = "${SIZES##* }" ]; then
		for call in "${CALLS[@]}"; do
			label=${call%%|*}
			query=$(expand_call "${call#*|}" "$t")
			pdata=$(mktemp /tmp/gpuscan-perf.XXXXXX)
			remove_on_exit "$pdata"
			perf record -q -a -o "$pdata" -- "$PSQL" -X -q -d "$DB" \
				-c "SET jit = off; SET gpuscan.device = cpu; $query; $query; $query;" >/dev/null 2>&1
			PERF_OUT+=$'\n'"### $label, $n elements, CPU path (three calls)"$'\n\n```\n'
			PERF_OUT+=$(perf report -q -i "$pdata" --comm postgres --no-children --sort sym \
				--percent-limit 1.5 2>/dev/null | grep -v '^$' | grep '%' | head -n 20)
			PERF_OUT+=$'\n```\n'
		done
	fi
	sql -c "DROP TABLE $t"
done

GITREV=$(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
REPORT="# Where the time of an array function call goes

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_line)
- $("$PSQL" -XAtq -c "SELECT version()" | cut -d, -f1)
- gpuscan: commit $GITREV
- command: \`$CMD\`
- method: one stored row per size (\`a\` double precision[] of random(), \`k\` boolean[] half
  true), passed ${PROFILE_INPUT:-stored} ($ARG_A, $ARG_K); each call once to warm up, then $RUNS times in the same backend with
  client_min_messages = debug1; each column is the median over the $RUNS calls of the stage's
  milliseconds in the \`gpuscan profile\` line (src/pg/call_profile.h). The GPU path is the GPU
  service's: upload and download are the session's copies into and out of the service's staging
  area, wait its waits for the service's answers.

$TABLE
${PERF_OUT:+
## perf: top symbols of the CPU path at the largest size
$PERF_OUT}"
printf '%s\n' "$REPORT"
bench_save "$REPORT" call-profile
