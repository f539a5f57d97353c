#!/usr/bin/env bash
#
# test/citus/check.sh -- what `make check-citus` runs: gpuscan on a Citus
# cluster of three throw-away servers on this machine.
#
#   1. PostgreSQL server + PGXS (installed with apt-get when run as root)
#   2. build gpuscan (CUDA where nvcc is found; GPUSCAN_CPU_ONLY=1 builds without)
#   3. build Citus from ../shared/citus once, install it (test/build_citus.sh)
#   4. a coordinator and two workers (test/citus/lib.sh), each seeing this
#      build, the workers added with citus_add_node
#   5. pg_regress against the coordinator: test/citus/sql/*.sql against
#      test/citus/expected/*.out, results in test/results/citus
#
# The servers are stopped and their directories removed however the script
# ends.  One test per set-up step and per pg_regress test ("failed
# (ignored)" is a failure); the last line printed is "N passed, N failed,
# N skipped" (none skipped: every test runs here), the exit status 0 only
# if nothing failed.
#
# Environment: PG_CONFIG, GPUSCAN_CPU_ONLY, GPUSCAN_KEEP_TMP=1 (keep the
# cluster's directory), GPUSCAN_CITUS_CACHE (test/build_citus.sh).

set -uo pipefail
# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=test/citus/lib.sh
source "$GPUSCAN_ROOT/test/citus/lib.sh"
cd "$GPUSCAN_ROOT" || exit 1

TESTS=(setup agg_split agg_results arrays window roles state_size settings)
DB=gpuscan_citus
OUTDIR=test/results/citus
SECONDS=0

# finish -- stop the cluster, print the failures and the totals (last line), exit
finish() {
	citus_stop_cluster
	msg "check-citus: ${SECONDS}s"
	tally_exit
}

# a set-up failure (die in test/lib.sh) is counted, then finish
GPUSCAN_ON_DIE=tally_on_die

# ---- 1. PostgreSQL ----
ensure_build_tools
ensure_postgres
pg_setup_paths
msg "PostgreSQL: $("$PG_CONFIG" --version) ($PG_CONFIG)"
LOGDIR=$(mktemp -d /tmp/gpuscan-citus-logs.XXXXXX)
remove_on_exit "$LOGDIR"

# ---- 2. build gpuscan (as test/check.sh: the same build stamp) ----
gpuscan_make_args
mkdir -p test/results
if build_gpuscan "$LOGDIR/build.log"; then
	tally_ok "build gpuscan"
else
	show_tail "$LOGDIR/build.log" 60
	tally_fail "build gpuscan"
	finish
fi

# ---- 3. Citus ----
msg "Citus: test/build_citus.sh (built once, then cached)"
rc=0
citus_version=$(bash test/build_citus.sh 2>"$LOGDIR/citus.log") || rc=$?
if [ "$rc" -eq 0 ]; then
	tally_ok "build and install $citus_version"
else
	show_tail "$LOGDIR/citus.log"
	if [ "$rc" -eq 2 ]; then
		tally_fail "Citus: no source tarball in ../shared/citus"
	else
		tally_fail "Citus: build or install failed"
	fi
	finish
fi

# ---- 4. cluster ----
TMPD=$(make_temp_dir)
msg "cluster in $TMPD"
# a subshell would lose the exports: run directly, failures exit via die
citus_start_cluster "$TMPD" "$DB"
msg "coordinator at port $PGPORT, workers at ports ${CITUS_WORKER_PORTS[*]} (user $PGUSER, database $DB)"
tally_ok "cluster: a coordinator and 2 workers"

# ---- 5. pg_regress ----
regress=$(dirname "$("$PG_CONFIG" --pgxs)")/../test/regress/pg_regress
rm -rf "$OUTDIR"
mkdir -p "$OUTDIR"
log=$LOGDIR/regress.log
msg "pg_regress against the coordinator: ${TESTS[*]}; results in $OUTDIR"
"$regress" --use-existing --host="$PGHOST" --port="$PGPORT" --dbname="$DB" \
	--inputdir=test/citus --outputdir="$OUTDIR" --bindir="$PGBIN" "${TESTS[@]}" >"$log" 2>&1
rc=$?
# PG <= 15: "test name ... ok   12 ms" / "... FAILED"; PG >= 16 (TAP): "ok 1 - name" / "not ok 2 - name"
grep -E '\.\.\. (ok|FAILED|failed)|^(not )?ok [0-9]+ ' "$log" | sed 's/^/    /'
p=$(grep -cE '\.\.\. ok( |$)|^ok [0-9]+ ' "$log")
f=$(grep -cE '\.\.\. FAILED|\.\.\. failed|^not ok [0-9]+ ' "$log")
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
	show_tail "$log"
	f=1
fi
if [ "$f" -gt 0 ]; then
	if [ -s "$OUTDIR/regression.diffs" ]; then
		echo "    --- $OUTDIR/regression.diffs (first 300 lines) ---"
		head -n 300 "$OUTDIR/regression.diffs"
	fi
	tally_add "$p" "$f" "pg_regress"
else
	tally_add "$p" 0
fi
msg "pg_regress: $p passed, $f failed"

finish
