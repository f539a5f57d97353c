#!/usr/bin/env bash
#
# test/check.sh -- everything `make check` runs, from a fresh machine:
#
#   1. PostgreSQL server + PGXS (installed with apt-get when run as root)
#   2. build (CUDA where nvcc is found; GPUSCAN_CPU_ONLY=1 builds without),
#      and no new circle between the modules or folders of src/, and each folder within its layer (test/module_circles.sh)
#   3. a throw-away server in /tmp that sees this build (test/lib.sh), with
#      gpuscan in shared_preload_libraries
#   4. pg_regress (the REGRESS list of the Makefile) with gpuscan.device=cpu,
#      and again with gpuscan.device=gpu against the same expected files
#      when a GPU is usable (results in test/results/gpu)
#   5. the C unit tests (make unit)
#   6. shell-level checks that differ by machine (GPU or not)
#   7. the GPU service (test/service_check.sh; the temporary server preloads
#      gpuscan), and the server without the preload: no service, every
#      function on the CPU, gpuscan.device = gpu an ERROR
#   8. a pgbench load test that checks every answer (test/load/run.sh), on
#      the CPU path and, where a GPU is usable, with the GPU path forced
#
# All GPU work runs in the GPU service, which runs only where gpuscan is in
# shared_preload_libraries: every pass that uses a GPU runs on the
# preloaded server.
#
# What cannot run here (the GPU pass without a GPU, limits' large cases
# without 8 GB of memory, ...) prints "skipped: WHAT: why" and counts as
# skipped, not passed.  The last line printed is "N passed, N failed, N
# skipped", after a line with the checks run on a GPU or on the stand-in
# device and the GPU service's checks skipped without a GPU; the exit
# status is 0 only if nothing failed.
#
# Environment:
#   PG_CONFIG                   pg_config to build and test against
#   GPUSCAN_CPU_ONLY=1          build without CUDA
#   GPUSCAN_REQUIRE_GPU=1       a missing GPU is a failure
#   GPUSCAN_USE_RUNNING_SERVER=1
#                               use the server of PGHOST/PGPORT/PGUSER (as from
#                               .gpu/pg-up.sh on the GPU machine): install into
#                               $PG_CONFIG's directories, GPU required
#   GPUSCAN_KEEP_TMP=1          keep the temporary server's directory

set -uo pipefail
# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$GPUSCAN_ROOT" || exit 1

RUNNING=${GPUSCAN_USE_RUNNING_SERVER:-0}
if [ "$RUNNING" = 1 ]; then
	export GPUSCAN_REQUIRE_GPU=1
fi
REQUIRE_GPU=${GPUSCAN_REQUIRE_GPU:-0}
CHECK_DB=gpuscan_check

# finish -- stop the server, print the failures and the totals (last line), exit
finish() {
	gpuscan_cleanup
	tally_exit
}

# set-up failures (die in test/lib.sh) are counted and end with the totals too
GPUSCAN_ON_DIE=tally_on_die

# ---- 1. PostgreSQL ----
if [ "$RUNNING" = 1 ]; then
	use_running_server
else
	ensure_build_tools
	ensure_postgres
	pg_setup_paths
fi
msg "PostgreSQL: $("$PG_CONFIG" --version) ($PG_CONFIG)"

# ---- 2. build ----
gpuscan_make_args
mkdir -p test/results
LOGDIR=$(mktemp -d /tmp/gpuscan-check-logs.XXXXXX)
remove_on_exit "$LOGDIR"
if build_gpuscan "$LOGDIR/build.log"; then
	grep -iE 'warning' "$LOGDIR/build.log" | sed 's/^/    /' | head -n 20
	tally_ok build
else
	show_tail "$LOGDIR/build.log" 60
	tally_fail build
	finish
fi

# the modules of src/: no circle between them that test/module_circles.known does not know
if bash test/module_circles.sh >"$LOGDIR/circles.log" 2>&1; then
	tally_ok "no new circle between the modules or folders of src/, and each folder within its layer (test/module_circles.sh)"
else
	grep '^FAILED' "$LOGDIR/circles.log" | sed 's/^FAILED /    /'
	tally_fail "a new circle between the modules or folders of src/, or an include across the layers (test/module_circles.sh)"
fi

# ---- 3. server ----
if [ "$RUNNING" = 1 ]; then
	msg "install into $("$PG_CONFIG" --pkglibdir) and use the server at $PGHOST:$PGPORT"
	if make --no-print-directory install "${GPUSCAN_MAKE_ARGS[@]}" >"$LOGDIR/install.log" 2>&1; then
		tally_ok install
	else
		show_tail "$LOGDIR/install.log"
		tally_fail install
		finish
	fi
else
	TMPD=$(make_temp_dir)
	msg "temporary server in $TMPD"
	# a subshell would lose the exports: run directly, failures exit via die
	# with the GPU service (shared_preload_libraries), as a production server runs
	start_temp_server "$TMPD" shared_preload_libraries=gpuscan
	msg "server up: PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER"
fi

# ---- 4. pg_regress ----
# REGRESS_OPTS of the Makefile with another --outputdir
base_opts=$(make_var REGRESS_OPTS)
[ -n "$base_opts" ] || base_opts="--dbname=contrib_regression_gpuscan"

# run_regress LABEL OUTDIR PGOPTIONS -- make installcheck, counted per test;
# "failed (ignored)" is a failure.  A test that passed with a result line
# "NAME: skipped, why" (a branch it could not run here, as limits without
# 8 GB of memory: its expected output of that branch) counts as skipped.
run_regress() {
	local label=$1 outdir=$2 opts=$3 ropts log rc p f name why
	ropts=$(printf '%s\n' "$base_opts" | sed -E 's/(^| )--outputdir=[^ ]*//')
	ropts="$ropts --outputdir=$outdir"
	log=$LOGDIR/regress-$label.log
	msg "pg_regress ($label): PGOPTIONS='$opts', results in $outdir"
	mkdir -p "$outdir"
	PGOPTIONS="$opts" make --no-print-directory installcheck "${GPUSCAN_MAKE_ARGS[@]}" \
		REGRESS_OPTS="$ropts" >"$log" 2>&1
	rc=$?
	# PG <= 15: "test name ... ok   12 ms" / "... FAILED"; PG >= 16 (TAP): "ok 1 - name" / "not ok 2 - name"
	grep -E '\.\.\. (ok|FAILED|failed)|^(not )?ok [0-9]+ ' "$log" | sed 's/^/    /'
	p=$(grep -cE '\.\.\. ok( |$)|^ok [0-9]+ ' "$log")
	f=$(grep -cE '\.\.\. (FAILED|failed)|^not ok [0-9]+ ' "$log")
	for name in $(sed -nE 's/.* ([a-z0-9_]+) +\.\.\. ok( .*)?$/\1/p; s/^ok [0-9]+ +[-+] ([a-z0-9_]+) .*/\1/p' "$log"); do
		why=$(sed -nE "s/^$name: skipped, (.*)\$/\1/p" "$outdir/results/$name.out" 2>/dev/null | head -n 1)
		if [ -n "$why" ]; then
			p=$((p - 1))
			tally_skip 1 "$name (pg_regress $label): $why"
		fi
	done
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		show_tail "$log"
		f=1
	fi
	if [ "$f" -gt 0 ]; then
		if [ -s "$outdir/regression.diffs" ]; then
			echo "    --- $outdir/regression.diffs (first 300 lines) ---"
			head -n 300 "$outdir/regression.diffs"
		fi
		tally_add "$p" "$f" "pg_regress($label)"
	else
		tally_add "$p" 0
	fi
	msg "pg_regress ($label): $p passed, $f failed"
}
REGRESS_TESTS=$(( $(make_var REGRESS | wc -w) + $(make_var ISOLATION | wc -w) ))

run_regress cpu test/results "-c gpuscan.device=cpu"

HAVE_GPU=0
DEVICE=none
if gpu_usable; then
	HAVE_GPU=1
	DEVICE=$(device_kind)
	msg "gpuscan_info(): gpu_usable = true ($([ "$DEVICE" = standin ] && echo "the stand-in device, no GPU" || echo "a GPU"))"
	tally_device "$DEVICE"
	run_regress gpu test/results/gpu "-c gpuscan.device=gpu -c gpuscan.gpu_min_elements=0"
	tally_device none
else
	tally_skip "$REGRESS_TESTS" "the GPU pass of pg_regress ($REGRESS_TESTS tests): no usable GPU"
	if [ "$REQUIRE_GPU" = 1 ]; then
		tally_fail "gpu usable (GPUSCAN_REQUIRE_GPU=1)"
	fi
fi

# ---- 5. C unit tests ----
if [ "$REQUIRE_GPU" = 1 ]; then
	export GPUSCAN_REQUIRE_GPU=1
	msg "unit tests: make unit (GPUSCAN_REQUIRE_GPU=1)"
else
	msg "unit tests: make unit"
fi
ulog=$LOGDIR/unit.log
make --no-print-directory unit "${GPUSCAN_MAKE_ARGS[@]}" >"$ulog" 2>&1
urc=$?
grep -E '^(not ok|  |#)' "$ulog" | head -n 60
# the unit tests count their own cases on the device (a skipped suite: one skip)
if tally_read "$ulog" "$urc" "unit: "; then
	grep -E '^unit: ' "$ulog" | tail -n 2 | sed 's/^/    /'
	tally_add_read unit
else
	show_tail "$ulog"
	tally_fail "unit (no tally line)"
fi

# ---- 6. shell-level checks ----
msg "shell-level checks (database $CHECK_DB)"
# q SQL -- psql on the check database, stop at the first error; stdout only
q() { "$PSQL" -X -At -q -v ON_ERROR_STOP=1 -d "$CHECK_DB" "$@"; }

"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $CHECK_DB" >/dev/null 2>&1
if "$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "CREATE DATABASE $CHECK_DB" >/dev/null &&
		q -c "CREATE EXTENSION gpuscan" >/dev/null; then
	tally_ok "CREATE EXTENSION gpuscan"

	stats_paths="SELECT coalesce(string_agg(DISTINCT path, ',' ORDER BY path), '') FROM gpuscan_stats() WHERE function = 'gpu_sum' AND calls > 0;"

	# device=auto always works
	out=$(q 2>"$LOGDIR/auto.err" <<-SQL
		SET gpuscan.device = auto;
		SELECT gpu_sum(ARRAY[1.0, 2.0]::float8[]);
		$stats_paths
		SQL
	)
	rc=$?
	if [ "$HAVE_GPU" = 0 ]; then
		want=$'3\ncpu'; what="device=auto sums on the CPU without a GPU"
	else
		want=3; out=$(printf '%s\n' "$out" | head -n 1); what="device=auto sums"
	fi
	if [ "$rc" -eq 0 ] && [ "$out" = "$want" ]; then
		tally_ok "$what"
	else
		printf '    rc=%s output: %s\n' "$rc" "$out"; show_tail "$LOGDIR/auto.err" 5
		tally_fail "$what"
	fi

	if [ "$HAVE_GPU" = 0 ]; then
		# device=gpu must raise an error at the call (not at SET)
		out=$(q 2>"$LOGDIR/gpu.err" <<-'SQL'
			SET gpuscan.device = gpu;
			\echo set-done
			SELECT gpu_sum(ARRAY[1.0]::float8[]);
			SQL
		)
		rc=$?
		what="device=gpu without a GPU raises an error"
		if [ "$rc" -eq 3 ] && [ "$out" = set-done ] && grep -q 'ERROR' "$LOGDIR/gpu.err"; then
			sed 's/^/    /' "$LOGDIR/gpu.err" | head -n 4
			tally_ok "$what"
		else
			printf '    rc=%s output: %s\n' "$rc" "$out"; show_tail "$LOGDIR/gpu.err" 5
			tally_fail "$what"
		fi
		# one rule for every function and plan: work that runs on the CPU
		# anyway (per-group sums, gpu_csr_agg's matrix) fails the same way
		for query in "SELECT g, gpu_sum(x) FROM (VALUES (1, 1.0::float8), (2, 2.0)) t(g, x) GROUP BY g" \
				"SELECT (gpu_csr_agg(r, c, v)).nrows FROM (VALUES (0::bigint, 0::bigint, 1.0::float8)) t(r, c, v)" \
				"SELECT gpu_sum(x) FROM (VALUES (1.0::float8), (2.0)) t(x)"; do
			out=$("$PSQL" -X -At -q -v VERBOSITY=verbose -d "$CHECK_DB" -c "SET gpuscan.device = gpu" \
				-c "$query" 2>&1)
			what="device=gpu without a GPU: 55000 from ${query:0:40}..."
			if grep -q '^ERROR:  55000: .*no GPU is usable' <<<"$out"; then
				tally_ok "$what"
			else
				printf '    output: %s\n' "$out"
				tally_fail "$what"
			fi
		done
	else
		# device=gpu runs on the GPU and gpuscan_stats() says so: path 'gpu
		# service', the GPU service running the work
		want_path="gpu service"
		out=$(q 2>"$LOGDIR/gpu.err" <<-SQL
			SET gpuscan.device = gpu;
			SET gpuscan.gpu_min_elements = 0;
			SELECT gpu_sum(ARRAY[1.0, 2.0]::float8[]);
			$stats_paths
			SQL
		)
		rc=$?
		what="device=gpu sums on the GPU (gpuscan_stats path '$want_path')"
		tally_device "$DEVICE"
		if [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | head -n 1)" = 3 ] &&
				tail -n 1 <<<"$out" | tr "," "\n" | grep -xF "$want_path" >/dev/null; then
			tally_ok "$what"
		else
			printf '    rc=%s output: %s\n' "$rc" "$out"; show_tail "$LOGDIR/gpu.err" 5
			tally_fail "$what"
		fi
		tally_device none
	fi

	# the call profile (src/pg/call_profile.h) at DEBUG1: one line per array call
	# with its path, size and stages, on each path this machine has
	for path in cpu $([ "$HAVE_GPU" = 1 ] && echo gpu); do
		out=$(q 2>&1 >/dev/null <<-SQL
			SET gpuscan.device = $path;
			SET gpuscan.gpu_min_elements = 0;
			SET client_min_messages = debug1;
			SELECT cardinality(gpu_prefix_sum_array(ARRAY[1.0, 2.0, 3.0]::float8[], false));
			SQL
		)
		what="profile line at DEBUG1 ($path)"
		[ "$path" = gpu ] && tally_device "$DEVICE"
		if grep -Eq "gpuscan profile: gpu_prefix_sum_array $path 3 elements [0-9.]+ ms:.* other -?[0-9.]+\$" <<<"$out"; then
			tally_ok "$what"
		else
			printf '    output: %s\n' "$out"
			tally_fail "$what"
		fi
		tally_device none
	done
	if [ "$HAVE_GPU" = 0 ]; then
		tally_skip 1 "profile line at DEBUG1 (gpu): no usable GPU"
	fi
	# auto chooses each path by the cost model, and says so at DEBUG1: a
	# small call on the CPU; a large one on the GPU where the GPU service
	# has one, else on the CPU as no GPU is usable
	out=$(q 2>&1 >/dev/null <<-SQL
		SET gpuscan.gpu_min_elements = -1;
		SET gpuscan.device = auto;
		SET client_min_messages = debug1;
		SELECT gpu_sum(array_fill(1::float8, ARRAY[1000]));
		SELECT gpu_sum(array_fill(1::float8, ARRAY[20000000]));
		SQL
	)
	if [ "$HAVE_GPU" = 1 ]; then
		want_large="gpu_sum: 20000000 elements on the GPU \(cost model, sum: [0-9.]+ ms on the CPU, [0-9.]+ ms on the GPU, in the GPU service\)"
	else
		want_large="gpu_sum: 20000000 elements on the CPU \(no usable GPU: .+\)"
	fi
	what="auto chooses by the cost model at DEBUG1"
	tally_device "$DEVICE"
	if grep -Eq "gpu_sum: 1000 elements on the CPU \(cost model, sum: " <<<"$out" &&
			grep -Eq "$want_large" <<<"$out"; then
		printf '%s\n' "$out" | grep -E "elements on the" | sed 's/^/    /'
		tally_ok "$what"
	else
		printf '    output: %s\n' "$out"
		tally_fail "$what"
	fi
	tally_device none
	"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $CHECK_DB" >/dev/null 2>&1
else
	tally_fail "CREATE EXTENSION gpuscan"
	"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $CHECK_DB" >/dev/null 2>&1
fi

# ---- 7. the GPU service ----
# run_service_script LABEL SCRIPT -- one of the service's test scripts,
# counted by its totals and devices lines (the checks it skips without a
# GPU in the service included)
run_service_script() {
	local label=$1 log=$LOGDIR/$1.log rc
	msg "the GPU service: $2 ($label)"
	bash "$2" >"$log" 2>&1
	rc=$?
	grep -E '^(ok|FAILED|skipped:|figure:|    )' "$log"
	if tally_read "$log" "$rc"; then
		tally_add_read "$label"
	else
		show_tail "$log"
		tally_fail "$label (no tally line)"
	fi
}
run_service_check() { run_service_script "${1:-service_check}" test/service_check.sh; }
# the faults test restarts the temporary server for one check: it needs its directory
run_service_faults() {
	export GPUSCAN_TMP TEMP_PGBIN
	run_service_script "${1:-service_faults}" test/service_faults.sh
}
preloaded=$("$PSQL" -XAtq -c "SELECT current_setting('shared_preload_libraries') ~ '(^|[ ,])gpuscan([ ,]|\$)'")
if [ "$preloaded" = t ]; then
	# without a GPU in the service, each script skips (and counts) what needs one
	run_service_check service_check
	run_service_faults
	if [ "$DEVICE" = standin ] && [ "$RUNNING" != 1 ]; then
		# the same checks over two stand-in GPUs
		msg "the GPU service over two stand-in GPUs"
		GPUSCAN_STANDIN_GPUS=2 restart_temp_server
		run_service_check "service_check (2 GPUs)"
		run_service_faults "service_faults (2 GPUs)"
		restart_temp_server
	fi
else
	tally_skip 2 "the GPU service's scripts (test/service_check.sh, test/service_faults.sh): gpuscan is not in the running server's shared_preload_libraries"
fi
if [ "$RUNNING" != 1 ]; then
	# without the preload: no service, gpuscan_info() says how to start it,
	# the functions work on the CPU under auto, and gpuscan.device = gpu is
	# an ERROR at the first call whose hint names shared_preload_libraries
	msg "the server without gpuscan in shared_preload_libraries"
	restart_temp_server "shared_preload_libraries="
	check_without_preload /dev/null
	restart_temp_server
else
	tally_skip 2 "the server without gpuscan in shared_preload_libraries (2 checks): not on a running server"
fi

# ---- 8. load test ----
# run_load LABEL PGOPTIONS [FLAG] -- test/load/run.sh (pgbench, 16 clients for
# 20 s, every answer checked; FLAG e.g. --gpu-memory): one test, passed on "load: ok"
run_load() {
	local label=$1 opts=$2 log=$LOGDIR/load-$1.log rc last
	msg "load test ($label): 16 clients, 20 s, PGOPTIONS='$opts'"
	bash test/load/run.sh ${3:+"$3"} 16 20 "$opts" >"$log" 2>&1
	rc=$?
	grep -E '^(tps = |number of transactions actually|load: (before|during|after|transactions per script): )' "$log" | sed 's/^/    /'
	last=$(tail -n 1 "$log")
	if [ "$rc" -eq 0 ] && [[ "$last" == "load: ok "* ]]; then
		echo "    $last"
		tally_ok "load test ($label)"
	else
		show_tail "$log" 30
		tally_fail "load test ($label)"
	fi
}
run_load cpu "-c gpuscan.device=cpu"
if [ "$HAVE_GPU" = 1 ]; then
	tally_device "$DEVICE"
	run_load gpu "-c gpuscan.device=gpu -c gpuscan.gpu_min_elements=0" --gpu-memory
	tally_device none
else
	tally_skip 1 "load test (gpu): no usable GPU"
fi

finish
