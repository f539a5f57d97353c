#!/usr/bin/env bash
#
# bench/gpu_regress.sh -- the pg_regress part of test/check.sh on a GPU host,
# in about half its time: the Makefile's REGRESS with gpuscan.device=cpu and,
# at the same time, with the GPU path forced (gpuscan.device=gpu,
# gpuscan.gpu_min_elements=0) on the preloaded server (all GPU work in the
# GPU service), against the same expected files; then test/service_check.sh,
# and on a server without the preload (no GPU service, so no GPU path) two
# checks: gpuscan.device = gpu is an error whose hint names
# shared_preload_libraries, and under the default auto a call runs (on the
# CPU).  For a device call, whose time is short; the unit, shell-level and
# load tests of test/check.sh are not run.
#
#   bash bench/gpu_regress.sh OUTDIR
#
# Run after .gpu/pg-up.sh, make install and pg_restart -c
# shared_preload_libraries=gpuscan: the GPU pass runs on that server
# (PGHOST/PGPORT/PGUSER), the CPU pass and then test/service_check.sh on a
# throw-away server of test/lib.sh that preloads gpuscan too, which then
# restarts without the preload for the two checks.  Two servers, since the
# tests create and drop roles, which belong to the whole server.  OUTDIR
# gets the logs (regress-cpu.log, regress-gpu.log, service.log,
# no-preload.log) and each pass's regression.diffs if it has one
# (regression-cpu.diffs, regression-gpu.diffs).  The last line is "N passed,
# N failed, N skipped" ("failed (ignored)" is a failure); the exit status is
# 0 only if nothing failed.

set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
cd "$GPUSCAN_ROOT" || exit 1
OUTDIR=${1:?usage: bench/gpu_regress.sh OUTDIR}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

finish() {
	gpuscan_cleanup
	tally_exit
}
GPUSCAN_ON_DIE=tally_on_die

use_running_server
gpu_usable || die "gpuscan_info() of the server at $PGHOST:$PGPORT: no usable GPU"
gpuscan_make_args
RUN_ENV=(PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="${PGUSER:-$(id -un)}")
msg "GPU pass on the server at $PGHOST:$PGPORT"

TMPD=$(make_temp_dir)
start_temp_server "$TMPD" shared_preload_libraries=gpuscan
TMP_ENV=(PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER")
msg "CPU pass and service check on a throw-away server in $TMPD"

base_opts=$(make_var REGRESS_OPTS)
[ -n "$base_opts" ] || base_opts="--dbname=contrib_regression_gpuscan"
base_opts=$(printf '%s\n' "$base_opts" | sed -E 's/(^| )--outputdir=[^ ]*//')
RCDIR=$(mktemp -d /tmp/gpuscan-regress-rc.XXXXXX)
remove_on_exit "$RCDIR"

# regress LABEL PGOPTIONS ENV... -- make installcheck against the server of ENV
regress() {
	local label=$1 opts=$2 start
	shift 2
	start=$(date +%s)
	env "$@" PGOPTIONS="$opts" make --no-print-directory installcheck "${GPUSCAN_MAKE_ARGS[@]}" \
		REGRESS_OPTS="$base_opts --outputdir=test/results/$label" >"$OUTDIR/regress-$label.log" 2>&1
	echo $? >"$RCDIR/$label"
	echo "$(($(date +%s) - start))" >"$RCDIR/$label.s"
	echo "$opts" >"$RCDIR/$label.opts"
}

rm -rf test/results/cpu test/results/gpu
mkdir -p test/results/cpu test/results/gpu
regress gpu "-c gpuscan.device=gpu -c gpuscan.gpu_min_elements=0" "${RUN_ENV[@]}" &
gpu_job=$!
(
	regress cpu "-c gpuscan.device=cpu" "${TMP_ENV[@]}"
	env "${TMP_ENV[@]}" bash test/service_check.sh >"$OUTDIR/service.log" 2>&1
	echo $? >"$RCDIR/service"
) &
cpu_job=$!
wait "$cpu_job" "$gpu_job"

# count LABEL -- the pass's per-test lines and its totals
count() {
	local label=$1 log=$OUTDIR/regress-$1.log p f rc
	rc=$(cat "$RCDIR/$label" 2>/dev/null || echo 1)
	msg "pg_regress ($label, $(cat "$RCDIR/$label.s" 2>/dev/null) s): PGOPTIONS='$(cat "$RCDIR/$label.opts" 2>/dev/null)'"
	grep -E '\.\.\. (ok|FAILED|failed)|^(not )?ok [0-9]+ ' "$log" | sed 's/^/    /'
	p=$(grep -cE '\.\.\. ok( |$)|^ok [0-9]+ ' "$log")
	f=$(grep -cE '\.\.\. (FAILED|failed)|^not ok [0-9]+ ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		show_tail "$log"
		f=1
	fi
	if [ -s "test/results/$label/regression.diffs" ]; then
		cp "test/results/$label/regression.diffs" "$OUTDIR/regression-$label.diffs"
	fi
	tally_add "$p" "$f" "pg_regress($label)"
	msg "pg_regress ($label): $p passed, $f failed"
}
count cpu
count gpu

msg "test/service_check.sh (on the throw-away server)"
grep -E '^(ok|FAILED|skipped:|figure:|    )' "$OUTDIR/service.log"
if tally_read "$OUTDIR/service.log" "$(cat "$RCDIR/service" 2>/dev/null || echo 1)"; then
	tally_add_read service_check
	msg "service_check: $READ_PASSED passed, $READ_FAILED failed, $READ_SKIPPED skipped"
else
	show_tail "$OUTDIR/service.log"
	tally_fail "service_check (no tally line)"
fi

msg "the throw-away server restarted without the preload"
: >"$OUTDIR/no-preload.log"
restart_temp_server "shared_preload_libraries="
check_without_preload "$OUTDIR/no-preload.log" "${TMP_ENV[@]}"
finish
