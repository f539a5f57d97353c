# test/service_lib.sh -- what the GPU service's checks share (sourced by
# test/service_check.sh and test/service_faults.sh after test/lib.sh, with
# DB set to their database): psql on it, gpuscan_info()'s rows, the
# service's state, polls for a state, and the checks' "ok"/"FAILED" lines.
# The checks that need a GPU in the service are declared as a part of N
# checks (gpu_part): where the service has none they are skipped and
# counted as N, and where it has one the part must run exactly N.

# q SQL... -- psql on the check database: stdout and stderr, errors with SQLSTATE
q() { "$PSQL" -X -At -q -v VERBOSITY=verbose -d "$DB" "$@" 2>&1; }
# info ITEM -- gpuscan_info()'s value for ITEM
info() { q -c "SELECT value FROM gpuscan_info() WHERE item = '$1'"; }
# check WHAT OUTPUT REGEX -- ok if OUTPUT matches the extended REGEX
check() {
	if grep -Eq -- "$3" <<<"$2"; then
		tally_ok "$1"
	else
		printf '    output: %s\n' "$2"
		tally_fail "$1"
	fi
}
# check_eq WHAT GOT WANT -- ok if GOT is WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		tally_ok "$1"
	else
		printf '    got: %s, want: %s\n' "$2" "$3"
		tally_fail "$1"
	fi
}
# poll SECONDS CMD... -- run CMD every 0.1 s until it succeeds, at most
# SECONDS; its status.  CMD's arguments are expanded once, before the first
# try: a state to read each time goes through a function (shows, ...).
poll() {
	local tries=$(( $1 * 10 ))
	shift
	for _ in $(seq "$tries"); do "$@" && return 0; sleep 0.1; done
	"$@"
}
# shows FUNC WANT -- whether FUNC (a function of no arguments, run now) prints WANT
shows() { [ "$("$1")" = "$2" ]; }
# shows_other FUNC WANT -- whether FUNC prints something, and not WANT
shows_other() { local v; v=$("$1"); [ -n "$v" ] && [ "$v" != "$2" ]; }
# waiting_for_service NAME -- whether the session with application_name NAME
# waits for the service's answer (active, wait event Extension: its latch)
waiting_for_service() {
	[ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$1' AND state = 'active' AND wait_event_type = 'Extension'")" = 1 ]
}
# gpu_part N -- the checks from here to gpu_part_end need a GPU in the
# service: N checks (passed, failed or skipped), run on the build's device
gpu_part() {
	GPU_PART_CHECKS=$1
	GPU_PART_START=$((TALLY_PASSED + TALLY_FAILED + TALLY_SKIPPED))
	tally_device "$(device_kind)"
}
# gpu_part_end -- the part ran as many checks as gpu_part declared (so that
# its skip without a GPU counts them right), or that fails
gpu_part_end() {
	local ran=$((TALLY_PASSED + TALLY_FAILED + TALLY_SKIPPED - GPU_PART_START))
	tally_device none
	if [ "$ran" -ne "$GPU_PART_CHECKS" ]; then
		tally_fail "the part that needs a GPU ran $ran checks, and declares $GPU_PART_CHECKS (gpu_part in $(basename "$0")): make them agree"
	fi
}
# no_gpu_why -- why the service has no GPU (gpuscan_info()'s gpu_service_device_count)
no_gpu_why() { info gpu_service_device_count | sed -E 's/^0 \((.*)\)$/\1/'; }
# service_pid -- the pid in gpuscan_info()'s gpu_service row, or nothing
service_pid() { info gpu_service | sed -nE 's/^running \(pid ([0-9]+),.*/\1/p'; }
# service_started -- wait up to 20 s for the service to take requests
# (gpuscan_info() says "starting" until then)
service_started() {
	for _ in $(seq 200); do
		case $(info gpu_service) in starting*) sleep 0.1 ;; *) return ;; esac
	done
}
# new_service_pid OLD -- the pid of the service once it runs again in a
# process other than OLD and takes requests (waits up to 20 s), or nothing
new_service_pid() {
	local p
	for _ in $(seq 200); do
		p=$(service_pid)
		[ -n "$p" ] && [ "$p" != "$1" ] && { echo "$p"; return; }
		sleep 0.1
	done
}
# channels_in_use -- the first number of the gpu_service_channels row
channels_in_use() { info gpu_service_channels | sed -nE 's/^([0-9]+) of [0-9]+ in use;.*/\1/p'; }
# requests_busy -- the requests waiting for or running on the service's GPUs (gpu_service_channels)
requests_busy() { info gpu_service_channels | sed -nE 's/.*; ([0-9]+) requests? waiting or running$/\1/p'; }
# staging_in_use -- the MB of the staging area in use (gpu_service_staging), or nothing
staging_in_use() { info gpu_service_staging | sed -nE 's/.*, ([0-9.]+) MB in use;.*/\1/p'; }
# fresh_database -- (re)create $DB with gpuscan, dropped again when the script exits
fresh_database() {
	"$PSQL" -XAtq -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" \
		-c "CREATE DATABASE $DB" >/dev/null || die "cannot create $DB"
	q -c "CREATE EXTENSION gpuscan" >/dev/null
	trap '"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1' EXIT
}
