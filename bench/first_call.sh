#!/usr/bin/env bash
#
# bench/first_call.sh -- the first GPU call of a new connection, with and
# without gpuscan.gpu_prewarm, against a warm call.
#
#   bench/first_call.sh [--save]
#
# Each round opens a new connection and times (psql's \timing, the
# statement as the client sees it) a gpu_sum of 1000 elements with
# gpuscan.device = gpu, then a second one in the same connection:
#   off        no prewarm: the first call creates the CUDA context and the
#              staging
#   on         gpuscan is in session_preload_libraries with
#              gpuscan.gpu_prewarm = on (set per connection through
#              PGOPTIONS), the call right after connecting
#   on, later  the same, the call FIRST_CALL_PAUSE seconds (0.5) after
#              connecting: the prewarm done meanwhile
# Medians over FIRST_CALL_ROUNDS (5) rounds; also the connection's own
# time (connect and a trivial query, timed by the shell).  Needs a usable
# GPU and a running server (GPUSCAN_USE_RUNNING_SERVER=1 as for the other
# benches) whose user may set session_preload_libraries (a superuser).
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
gpu_usable || die "no usable GPU"
DB=gpuscan_first_call
"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
"$PSQL" -XAtq -v ON_ERROR_STOP=1 -d "$DB" -c "CREATE EXTENSION gpuscan"
PRELOAD="-c session_preload_libraries=gpuscan -c gpuscan.gpu_prewarm=on"
CALL="SET gpuscan.device = gpu; SELECT gpu_sum(array_fill(1::float8, ARRAY[1000]));"

# one_round OPTIONS PAUSE -- "connect_ms first_ms second_ms"
one_round() {
	local opts=$1 pause=$2 t0 t1 out first second
	t0=$(date +%s%N)
	PGOPTIONS="$opts" "$PSQL" -X -q -d "$DB" -c "SELECT 1" >/dev/null
	t1=$(date +%s%N)
	out=$(PGOPTIONS="$opts" "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$DB" <<-SQL
		SELECT pg_sleep($pause) WHERE $pause > 0;
		\\timing on
		$CALL
		$CALL
		SQL
	)
	[ "$(grep -c 'Time: ' <<<"$out")" = 4 ] || die "unexpected output: $out"
	first=$(grep -o 'Time: [0-9.]*' <<<"$out" | sed -n '2p' | cut -d' ' -f2)
	second=$(grep -o 'Time: [0-9.]*' <<<"$out" | sed -n '4p' | cut -d' ' -f2)
	echo "$(((t1 - t0) / 1000000)) $first $second"
}

ROWS=""
for mode in "off|0" "on|0" "on, later|$PAUSE"; do
	label=${mode%|*}
	pause=${mode#*|}
	opts=""
	[ "$label" != off ] && opts=$PRELOAD
	conn=() first=() second=()
	for _ in $(seq "$ROUNDS"); do
		read -r c f s <<<"$(one_round "$opts" "$pause")"
		conn+=("$c") first+=("$f") second+=("$s")
	done
	row="| $label | $(printf '%s\n' "${conn[@]}" | median) | $(printf '%s\n' "${first[@]}" | median) | $(printf '%s\n' "${second[@]}" | median) |"
	msg "$row"
	ROWS+="$row"$'\n'
done

REPORT="# The first GPU call of a connection

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_line)
- $("$PSQL" -XAtq -c "SELECT version()" | cut -d, -f1)
- gpuscan: commit $(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
- command: \`$CMD\`
- method: $ROUNDS rounds each; a new connection per round; psql's \\timing of
  \`$CALL\` (the statement as the client sees it), first and second in the connection;
  connect: a connection and \`SELECT 1\`, timed by the shell. prewarm: PGOPTIONS
  '$PRELOAD'; \"later\": the first call $PAUSE s after connecting.

| prewarm | connect and SELECT 1, ms | first GPU call, ms | second GPU call, ms |
| --- | ---: | ---: | ---: |
${ROWS}"
printf '%s\n' "$REPORT"
bench_save "$REPORT" first-call
