#!/usr/bin/env bash
#
# bench/first_call.sh -- the first call of a new connection on the GPU path
# (the GPU service's) and on the CPU path, each against a second call in
# the same connection.
#
#   bench/first_call.sh [--save]
#
# Each round opens a new connection and times (psql's \timing, the
# statement as the client sees it) a gpu_sum of 1000 elements, then a
# second one in the same connection:
#   cpu        gpuscan.device = cpu, the call right after connecting
#   gpu        gpuscan.device = gpu (the GPU service), the call right after
#              connecting: the connection's first request to the service
#   gpu, later the same, the call FIRST_CALL_PAUSE seconds (0.5) after
#              connecting: what a new connection readies by itself
#              meanwhile shows as the difference
# Medians over FIRST_CALL_ROUNDS (5) rounds; also the connection's own
# time (connect and a trivial query, timed by the shell).  The GPU path is
# the GPU service's: it needs a server that preloads gpuscan with a usable
# GPU (GPUSCAN_USE_RUNNING_SERVER=1 as for the other benches; the
# throw-away server otherwise, restarted with shared_preload_libraries =
# gpuscan).  Before the session's own GPU path was removed this measured
# that path's first call with and without gpuscan.gpu_prewarm, which is
# gone with it.
# Prints markdown; with --save writes bench/results/first-call-<device>-<date>.md.

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
CMD=$(bench_command bench/first_call.sh "FIRST_CALL_ROUNDS FIRST_CALL_PAUSE GPUSCAN_USE_RUNNING_SERVER" "$@")
cd "$GPUSCAN_ROOT"

bench_args "$@"
ROUNDS=${FIRST_CALL_ROUNDS:-5}
PAUSE=${FIRST_CALL_PAUSE:-0.5}
bench_server_up
if [ "${GPUSCAN_USE_RUNNING_SERVER:-0}" != 1 ]; then
	# the throw-away server, with the GPU service (the only GPU path)
	msg "restarting the throw-away server with shared_preload_libraries = gpuscan"
	restart_temp_server shared_preload_libraries=gpuscan
fi
# a service that is still starting (just after a restart) is waited for, up to 60 s
for _ in $(seq 600); do [[ "$(info_value gpu_service)" == starting* ]] || break; sleep 0.1; done
gpu_usable || die "no usable GPU"
[ "$(info_value "gpu_service_device 0")" != "" ] ||
	die "the GPU service has no GPU: is gpuscan in shared_preload_libraries?"
DB=gpuscan_first_call
"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
"$PSQL" -XAtq -v ON_ERROR_STOP=1 -d "$DB" -c "CREATE EXTENSION gpuscan"
# call DEVICE -- the timed statement on DEVICE
call() { echo "SET gpuscan.device = $1; SELECT gpu_sum(array_fill(1::float8, ARRAY[1000]));"; }

# one_round DEVICE PAUSE -- "connect_ms first_ms second_ms"
one_round() {
	local device=$1 pause=$2 t0 t1 out first second
	t0=$(date +%s%N)
	"$PSQL" -X -q -d "$DB" -c "SELECT 1" >/dev/null
	t1=$(date +%s%N)
	out=$("$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$DB" <<-SQL
		SELECT pg_sleep($pause) WHERE $pause > 0;
		\\timing on
		$(call "$device")
		$(call "$device")
		SQL
	)
	[ "$(grep -c 'Time: ' <<<"$out")" = 4 ] || die "unexpected output: $out"
	first=$(grep -o 'Time: [0-9.]*' <<<"$out" | sed -n '2p' | cut -d' ' -f2)
	second=$(grep -o 'Time: [0-9.]*' <<<"$out" | sed -n '4p' | cut -d' ' -f2)
	echo "$(((t1 - t0) / 1000000)) $first $second"
}

ROWS=""
for mode in "cpu|cpu|0" "gpu|gpu|0" "gpu, later|gpu|$PAUSE"; do
	IFS='|' read -r label device pause <<<"$mode"
	conn=() first=() second=()
	for _ in $(seq "$ROUNDS"); do
		read -r c f s <<<"$(one_round "$device" "$pause")"
		conn+=("$c") first+=("$f") second+=("$s")
	done
	row="| $label | $(printf '%s\n' "${conn[@]}" | median) | $(printf '%s\n' "${first[@]}" | median) | $(printf '%s\n' "${second[@]}" | median) |"
	msg "$row"
	ROWS+="$row"$'\n'
done

REPORT="# The first call of a connection: the GPU service and the CPU path

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_line)
- $("$PSQL" -XAtq -c "SELECT version()" | cut -d, -f1)
- gpuscan: commit $(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
- command: \`$CMD\`
- GPU: $(info_value "gpu_service_device 0") (the GPU service)
- method: $ROUNDS rounds each; a new connection per round; psql's \\timing of
  \`$(call DEVICE)\` (the statement as the client sees it), DEVICE the row's, first and
  second in the connection; connect: a connection and \`SELECT 1\`, timed by the shell;
  \"later\": the first call $PAUSE s after connecting.

| path | connect and SELECT 1, ms | first call, ms | second call, ms |
| --- | ---: | ---: | ---: |
${ROWS}"
printf '%s\n' "$REPORT"
bench_save "$REPORT" first-call
