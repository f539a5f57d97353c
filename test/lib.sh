# shellcheck shell=bash
#
# test/lib.sh -- shell functions shared by test/check.sh, test/demo.sh and
# bench/sql_bench.sh.  Source it; it sets no shell options of its own.
#
#   ensure_build_tools       make and a C compiler (apt-get as root)
#   ensure_fuzz_tools        clang with libFuzzer (apt-get as root)
#   ensure_postgres          server, client and PGXS of $PG_CONFIG (apt-get as root)
#   make_temp_dir            a fresh directory under /tmp, printed
#   start_temp_server DIR [--no-install] [NAME=VALUE...]
#                            throw-away server seeing this build of gpuscan;
#                            exports PGHOST PGPORT PGUSER PGDATABASE
#   restart_temp_server [NAME=VALUE...]
#                            restart it, with settings for this start only
#   stop_temp_server         stop it and remove DIR (also run on EXIT/INT/TERM)
#   remove_on_exit PATH      remove PATH on EXIT/INT/TERM too
#   use_running_server       check the server named by PGHOST/PGPORT/PGUSER
#   gpu_usable               true if gpuscan_info() says gpu_usable = true
#   tally_add P F [NAME]     add to the pass/fail totals (tally_skip: skipped);
#                            tally_line prints them, tally_exit prints them and exits
#   tally_read LOG RC        the totals another test run printed, to add
#   device_kind              gpu or standin: what serves gpuscan's GPU paths
#   show_tail FILE [N]       the last lines of a log, indented
#   bench_args ARG...        --save / --help of the bench scripts
#
# The temporary server never touches system directories: the server's bin,
# lib and share trees are copied below DIR/inst under their own absolute
# paths (PostgreSQL finds lib and share relative to its executable, so the
# copy is relocatable) and gpuscan goes in with `make install DESTDIR=DIR/inst`.
# As root the server runs as the system user "gpuscan" (PostgreSQL refuses
# to run as root); otherwise as the calling user.

GPUSCAN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${PG_CONFIG:=pg_config}"
export PG_CONFIG
GPUSCAN_SERVER_USER=gpuscan

# msg TEXT -- a progress line, on stderr so that stdout stays clean
msg() { printf '%s\n' "== $*" >&2; }

# die TEXT -- print an error and exit 1 (after GPUSCAN_ON_DIE, a command
# given the text, if set: check.sh uses it to count the failure)
die() {
	printf '%s\n' "error: $*" >&2
	if [ -n "${GPUSCAN_ON_DIE:-}" ]; then
		"$GPUSCAN_ON_DIE" "$*"
	fi
	exit 1
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# apt_install PKG... -- quiet apt-get install as root, log shown on failure
apt_install() {
	local log
	log=$(mktemp /tmp/gpuscan-apt.XXXXXX.log)
	export DEBIAN_FRONTEND=noninteractive
	if [ -z "${GPUSCAN_APT_UPDATED:-}" ]; then
		if ! apt-get update -qq >"$log" 2>&1; then
			tail -n 30 "$log" >&2; rm -f "$log"; die "apt-get update failed"
		fi
		GPUSCAN_APT_UPDATED=1
	fi
	if ! apt-get install -y -qq --no-install-recommends "$@" >>"$log" 2>&1; then
		tail -n 30 "$log" >&2; rm -f "$log"; die "apt-get install $* failed"
	fi
	rm -f "$log"
}

# ensure_build_tools -- make and a C compiler, installed with apt-get as root
ensure_build_tools() {
	local missing=()
	command -v make >/dev/null 2>&1 || missing+=(make)
	command -v gcc >/dev/null 2>&1 || command -v cc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
	[ ${#missing[@]} -eq 0 ] && return 0
	if is_root && command -v apt-get >/dev/null 2>&1; then
		msg "installing build tools with apt-get: ${missing[*]}"
		apt_install "${missing[@]}"
	else
		die "missing build tools: ${missing[*]}; install them (Debian/Ubuntu: sudo apt-get install make gcc)"
	fi
}

# fuzz_link_ok -- whether ${CLANG:-clang} -fsanitize=fuzzer links a trivial harness
fuzz_link_ok() {
	local dir rc=0
	dir=$(mktemp -d /tmp/gpuscan-fuzz-check.XXXXXX)
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void) d; (void) n; return 0; }' \
		>"$dir/t.c"
	"${CLANG:-clang}" -fsanitize=fuzzer,address,undefined "$dir/t.c" -o "$dir/t" \
		>/dev/null 2>&1 || rc=1
	rm -rf "$dir"
	return "$rc"
}

# ensure_fuzz_tools -- clang and its libFuzzer runtime (Debian 12: clang 14,
# libclang-rt-14-dev), installed with apt-get as root where missing
ensure_fuzz_tools() {
	fuzz_link_ok && return 0
	if is_root && command -v apt-get >/dev/null 2>&1; then
		msg "installing clang and libclang-rt-14-dev with apt-get (libFuzzer)"
		apt_install clang libclang-rt-14-dev
		hash -r
		fuzz_link_ok || die "${CLANG:-clang} -fsanitize=fuzzer still cannot link a program after installing clang and libclang-rt-14-dev"
	else
		die "${CLANG:-clang} -fsanitize=fuzzer cannot link a program: clang with libFuzzer is needed.
  On Debian/Ubuntu: sudo apt-get install clang libclang-rt-14-dev
  (run this as root to have it installed for you), or set CLANG to a clang that has it."
	fi
}

# pg_missing -- print what of the PostgreSQL installation is missing, if anything
pg_missing() {
	local bindir inc pgxs b parts=()
	if ! command -v "$PG_CONFIG" >/dev/null 2>&1 || ! "$PG_CONFIG" --bindir >/dev/null 2>&1; then
		echo "pg_config ($PG_CONFIG)"
		return 0
	fi
	bindir=$("$PG_CONFIG" --bindir)
	for b in postgres initdb pg_ctl psql; do
		[ -x "$bindir/$b" ] || parts+=("$bindir/$b")
	done
	inc=$("$PG_CONFIG" --includedir-server 2>/dev/null)
	[ -f "$inc/postgres.h" ] || parts+=("server headers ($inc/postgres.h)")
	pgxs=$("$PG_CONFIG" --pgxs 2>/dev/null)
	[ -f "$pgxs" ] || parts+=("PGXS ($pgxs)")
	[ -x "$(dirname "$pgxs")/../test/regress/pg_regress" ] || parts+=("pg_regress")
	[ ${#parts[@]} -eq 0 ] || echo "${parts[*]}"
}

# ensure_postgres -- server, client, headers and PGXS for $PG_CONFIG.
# As root on Debian/Ubuntu, missing pieces are installed with apt-get
# (without the auto-created "main" cluster where postgresql-common is new:
# our tests run their own server).  Otherwise: fail, saying what to install.
ensure_postgres() {
	local missing conf=/etc/postgresql-common/createcluster.conf
	missing=$(pg_missing)
	[ -z "$missing" ] && return 0
	if [[ "$PG_CONFIG" == */* ]] && [ ! -x "$PG_CONFIG" ]; then
		die "PG_CONFIG=$PG_CONFIG does not exist"
	fi
	if is_root && command -v apt-get >/dev/null 2>&1; then
		msg "PostgreSQL is incomplete (missing: $missing)"
		msg "installing postgresql-15 and postgresql-server-dev-15 with apt-get (a few minutes)"
		if ! dpkg -s postgresql-common >/dev/null 2>&1; then
			apt_install postgresql-common
			if [ -f "$conf" ]; then
				sed -i 's/^[#[:space:]]*create_main_cluster.*/create_main_cluster = false/' "$conf"
			fi
		fi
		apt_install postgresql-15 postgresql-server-dev-15
		hash -r
		missing=$(pg_missing)
		[ -z "$missing" ] || die "still missing after apt-get install: $missing (PG_CONFIG=$PG_CONFIG)"
		msg "installed $("$PG_CONFIG" --version)"
	else
		die "PostgreSQL server and development files are needed (missing: $missing).
  On Debian/Ubuntu: sudo apt-get install postgresql-15 postgresql-server-dev-15
  (run this as root to have it installed for you), or point PG_CONFIG at
  the pg_config of an installation with server, psql and PGXS."
	fi
}

# pg_setup_paths -- PGBIN and PSQL from $PG_CONFIG
pg_setup_paths() {
	PGBIN=$("$PG_CONFIG" --bindir)
	PSQL=$PGBIN/psql
	export PGBIN PSQL
}

# make_var NAME -- value of a variable of the project's Makefile (PGXS included)
make_var() {
	# shellcheck disable=SC2016
	make -s --no-print-directory -C "$GPUSCAN_ROOT" \
		--eval 'gpuscan-print-%: ; @echo $($*)' \
		"gpuscan-print-$1" PG_CONFIG="$PG_CONFIG" 2>/dev/null
}

# gpuscan_make_args -- extra make arguments for this machine, set in
# GPUSCAN_MAKE_ARGS (an array): GPUSCAN_DEVICE where it is set (so that
# every make of a run builds the same device: cuda, none or standin), and
# with_llvm=no where PostgreSQL was built with LLVM but its clang is
# missing (no bitcode can be made then).
gpuscan_make_args() {
	GPUSCAN_MAKE_ARGS=(PG_CONFIG="$PG_CONFIG")
	if [ -n "${GPUSCAN_DEVICE:-}" ]; then
		GPUSCAN_MAKE_ARGS+=(GPUSCAN_DEVICE="$GPUSCAN_DEVICE")
	fi
	local clang
	if [ "$(make_var with_llvm)" = yes ]; then
		clang=$(make_var CLANG)
		if ! command -v "${clang%% *}" >/dev/null 2>&1; then
			GPUSCAN_MAKE_ARGS+=(with_llvm=no)
		fi
	fi
}

# build_gpuscan LOG -- build gpuscan for $PG_CONFIG with GPUSCAN_MAKE_ARGS
# (gpuscan_make_args first), make's output in LOG.  A build of another kind
# (another PostgreSQL, CPU-only or CUDA) is not reused: what was built
# against another server goes first (the CUDA objects in build/, kept per
# set of architectures, stay).
build_gpuscan() {
	local log=$1 stamp
	stamp="cpu_only=${GPUSCAN_CPU_ONLY:-} device=${GPUSCAN_DEVICE:-} pg=$("$PG_CONFIG" --version) pgxs=$("$PG_CONFIG" --pgxs) args=${GPUSCAN_MAKE_ARGS[*]} archs=${CUDA_ARCHS:-}"
	mkdir -p test/results
	if [ "$(cat test/results/build-stamp 2>/dev/null)" != "$stamp" ] && [ -e gpuscan.so ]; then
		msg "previous build was of another kind: make clean-pg"
		make --no-print-directory clean-pg "${GPUSCAN_MAKE_ARGS[@]}" >/dev/null 2>&1
	fi
	msg "build: make ${GPUSCAN_MAKE_ARGS[*]}${GPUSCAN_CPU_ONLY:+ (GPUSCAN_CPU_ONLY=$GPUSCAN_CPU_ONLY)}"
	make --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" "${GPUSCAN_MAKE_ARGS[@]}" >"$log" 2>&1 || return 1
	echo "$stamp" >test/results/build-stamp
}

# make_temp_dir -- a new private directory under /tmp, printed
make_temp_dir() {
	mktemp -d /tmp/gpuscan.XXXXXX
}

# as_server CMD... -- run CMD as the server's user, from DIR
as_server() {
	if is_root; then
		(cd "$GPUSCAN_TMP" && runuser -u "$GPUSCAN_SERVER_USER" -- \
			env ${LD_LIBRARY_PATH:+LD_LIBRARY_PATH="$LD_LIBRARY_PATH"} "$@")
	else
		(cd "$GPUSCAN_TMP" && "$@")
	fi
}

# ensure_server_user -- the unprivileged system user the server runs as (root only)
ensure_server_user() {
	id -u "$GPUSCAN_SERVER_USER" >/dev/null 2>&1 && return 0
	if command -v useradd >/dev/null 2>&1; then
		useradd --system --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin "$GPUSCAN_SERVER_USER"
	else
		adduser --system --no-create-home --disabled-login "$GPUSCAN_SERVER_USER" >/dev/null
	fi || die "cannot create the system user $GPUSCAN_SERVER_USER"
}

# free_port -- a random high TCP port nobody listens on (the server itself
# listens only on a Unix socket in its own directory, so this is belt and braces)
free_port() {
	local port _
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		port=$((40000 + (RANDOM % 20000)))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	echo "$port"
}

# start_temp_server DIR [--no-install] [NAME=VALUE...] -- initdb and start a
# throw-away server in DIR (which must exist and be empty, e.g. from
# make_temp_dir).  NAME=VALUE pairs go to postgresql.conf.  Without
# --no-install, gpuscan is installed into the copy (run make before).
start_temp_server() {
	local dir=$1 install=1 d port try srcdir setting
	shift
	[ -d "$dir" ] || die "start_temp_server: no directory $dir"
	if [ "${1:-}" = --no-install ]; then install=0; shift; fi
	dir=$(cd "$dir" && pwd)
	GPUSCAN_TMP=$dir
	install_exit_traps

	pg_setup_paths
	# relocatable copy of the installation: files, not links to them
	for d in bindir pkglibdir sharedir; do
		srcdir=$("$PG_CONFIG" --$d)
		mkdir -p "$dir/inst$srcdir"
		cp -RL "$srcdir/." "$dir/inst$srcdir/" || die "cannot copy $srcdir"
	done
	TEMP_PGBIN=$dir/inst$PGBIN
	if [ "$install" = 1 ]; then
		gpuscan_make_args
		if ! make -C "$GPUSCAN_ROOT" --no-print-directory install DESTDIR="$dir/inst" \
				"${GPUSCAN_MAKE_ARGS[@]}" >"$dir/install.log" 2>&1; then
			tail -n 30 "$dir/install.log" >&2
			die "make install DESTDIR=$dir/inst failed"
		fi
	fi

	if is_root; then
		ensure_server_user
		chown -R "$GPUSCAN_SERVER_USER" "$dir"
		runuser -u "$GPUSCAN_SERVER_USER" -- test -x "$dir/inst" ||
			die "$dir is not reachable for user $GPUSCAN_SERVER_USER"
		PGUSER=$GPUSCAN_SERVER_USER
	else
		PGUSER=$(id -un)
	fi

	if ! as_server "$TEMP_PGBIN/initdb" -D "$dir/data" -U "$PGUSER" -A trust \
			-E UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		die "initdb failed"
	fi
	{
		echo "# throw-away test server"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$dir'"
		echo "fsync = off"
		echo "synchronous_commit = off"
		echo "full_page_writes = off"
		echo "max_prepared_transactions = 0"
		for setting in "$@"; do
			echo "${setting%%=*} = '${setting#*=}'"
		done
	} >>"$dir/data/postgresql.conf"

	for try in 1 2 3; do
		port=$(free_port)
		if as_server "$TEMP_PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
				-o "-p $port" start >/dev/null 2>&1; then
			export PGHOST=$dir PGPORT=$port PGUSER PGDATABASE=postgres
			export TEMP_SERVER_LOG=$dir/server.log
			return 0
		fi
		msg "server did not start on port $port (try $try); log:"
		tail -n 20 "$dir/server.log" >&2
	done
	die "cannot start the temporary server"
}

# restart_temp_server [NAME=VALUE...] -- restart the temporary server on its
# port, with the settings given (on the command line: they override
# postgresql.conf until the next restart)
restart_temp_server() {
	local dir=${GPUSCAN_TMP:-} opts="-p $PGPORT" setting
	[ -n "$dir" ] || die "restart_temp_server: no temporary server"
	for setting in "$@"; do
		opts="$opts -c $setting"
	done
	as_server "$TEMP_PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -m fast \
		-o "$opts" restart >/dev/null 2>&1 || {
		tail -n 20 "$dir/server.log" >&2
		die "cannot restart the temporary server"
	}
}

# stop_temp_server -- stop the temporary server, remove its directory
# (kept with GPUSCAN_KEEP_TMP=1).  Silent and idempotent.
stop_temp_server() {
	local dir=${GPUSCAN_TMP:-} pid
	[ -n "$dir" ] || return 0
	GPUSCAN_TMP=$dir	# as_server needs it
	if [ -f "$dir/data/postmaster.pid" ]; then
		as_server "$TEMP_PGBIN/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
			as_server "$TEMP_PGBIN/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1
		if [ -f "$dir/data/postmaster.pid" ]; then
			pid=$(head -n 1 "$dir/data/postmaster.pid")
			[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
		fi
	fi
	if [ "${GPUSCAN_KEEP_TMP:-0}" = 1 ]; then
		msg "kept $dir"
	else
		rm -rf "$dir"
	fi
	GPUSCAN_TMP=
	return 0
}

# ---- clean-up on exit ----
GPUSCAN_REMOVE_ON_EXIT=()

# gpuscan_cleanup -- stop the temporary server, remove registered paths
gpuscan_cleanup() {
	local p
	stop_temp_server
	for p in "${GPUSCAN_REMOVE_ON_EXIT[@]}"; do
		[ -n "$p" ] && rm -rf "$p"
	done
	GPUSCAN_REMOVE_ON_EXIT=()
}

# install_exit_traps -- run gpuscan_cleanup on EXIT, INT and TERM
install_exit_traps() {
	trap 'gpuscan_cleanup' EXIT
	trap 'gpuscan_cleanup; trap - INT; kill -INT $$' INT
	trap 'gpuscan_cleanup; exit 143' TERM
}

# remove_on_exit PATH -- remove PATH when the script ends, however it ends
remove_on_exit() {
	GPUSCAN_REMOVE_ON_EXIT+=("$1")
	install_exit_traps
}

# use_running_server -- the server named by PGHOST/PGPORT/PGUSER (e.g. from
# .gpu/pg-up.sh) must answer
use_running_server() {
	pg_setup_paths
	if [ -z "${PGHOST:-}" ] || [ -z "${PGPORT:-}" ]; then
		die "GPUSCAN_USE_RUNNING_SERVER=1 needs PGHOST and PGPORT (and PGUSER) of a running server"
	fi
	: "${PGDATABASE:=postgres}"
	export PGDATABASE
	"$PSQL" -XAtq -c 'SELECT 1' >/dev/null ||
		die "cannot connect to the server at PGHOST=$PGHOST PGPORT=$PGPORT"
}

# info_value ITEM -- gpuscan_info()'s value for ITEM on the server of
# PGHOST/PGPORT.  Leaves nothing behind (the extension is created in a
# rolled-back transaction); fails where psql does.
info_value() {
	"$PSQL" -XAtq -v ON_ERROR_STOP=1 2>/dev/null <<SQL
BEGIN;
CREATE EXTENSION IF NOT EXISTS gpuscan;
SELECT value FROM gpuscan_info() WHERE item = '$1';
ROLLBACK;
SQL
}

# gpu_usable -- true if gpuscan_info() reports gpu_usable = true
gpu_usable() {
	local v
	v=$(info_value gpu_usable) || return 1
	[ "$v" = true ]
}

# device_kind -- what this build of gpuscan runs its GPU paths on, from
# gpuscan_info()'s build row: standin (the stand-in device of a
# GPUSCAN_DEVICE=standin build, which is no GPU) or gpu
device_kind() {
	case $(info_value build) in
		stand-in*) echo standin ;;
		*) echo gpu ;;
	esac
}

# ---- tally ----
# Every pass ends with "N passed, N failed, N skipped": a check that cannot
# run here is skipped (a line "skipped: WHAT, and why"), counted apart from
# the passed.  Before it, a devices line says how many checks ran on a GPU
# and on the stand-in device, and how many of the GPU service's checks were
# skipped for want of a GPU in it.
TALLY_PASSED=0
TALLY_FAILED=0
TALLY_SKIPPED=0
TALLY_ON_GPU=0
TALLY_ON_STANDIN=0
TALLY_SERVICE_SKIPPED=0
TALLY_DEVICE=none
TALLY_FAILED_NAMES=()

# tally_device KIND -- the checks counted from here on run on KIND: gpu (a
# GPU), standin (the stand-in device) or none (no device)
tally_device() { TALLY_DEVICE=$1; }

# tally_add P F [NAME] -- add P passed and F failed (NAME: what failed), run
# on the device of tally_device
tally_add() {
	TALLY_PASSED=$((TALLY_PASSED + $1))
	TALLY_FAILED=$((TALLY_FAILED + $2))
	if [ "$2" -gt 0 ] && [ -n "${3:-}" ]; then
		TALLY_FAILED_NAMES+=("$3")
	fi
	case $TALLY_DEVICE in
		gpu) TALLY_ON_GPU=$((TALLY_ON_GPU + $1 + $2)) ;;
		standin) TALLY_ON_STANDIN=$((TALLY_ON_STANDIN + $1 + $2)) ;;
	esac
}

# tally_ok NAME / tally_fail NAME -- one test each
tally_ok() { tally_add 1 0; printf 'ok     %s\n' "$1"; }
tally_fail() { tally_add 0 1 "$1"; printf 'FAILED %s\n' "$1"; }

# check_without_preload LOG ENV... -- the two checks of a server without
# gpuscan in shared_preload_libraries, through $PSQL with ENV (e.g.
# PGHOST=...): there is no GPU service, gpuscan_info() says how to start
# it and gpu_sum runs (on the CPU) under the default auto; and
# gpuscan.device = gpu is an ERROR at the call (55000) whose hint names
# shared_preload_libraries.  The extension is created in a transaction
# rolled back; psql's output also goes to LOG.
check_without_preload() {
	local log=$1 out what
	shift
	out=$(env "$@" PGOPTIONS= "$PSQL" -XAtq -v ON_ERROR_STOP=1 2>&1 <<-'SQL'
		BEGIN;
		CREATE EXTENSION IF NOT EXISTS gpuscan;
		SELECT value FROM gpuscan_info() WHERE item = 'gpu_service';
		SELECT current_setting('gpuscan.device') || ' ' || gpu_sum('{1,2}'::float8[]);
		ROLLBACK;
		SQL
	)
	printf '%s\n\n' "$out" >>"$log"
	what="without the preload: gpuscan_info() says how to start the service; gpu_sum works under auto"
	if [ "$out" = $'not running: add gpuscan to shared_preload_libraries and restart the server to start it\nauto 3' ]; then
		tally_ok "$what"
	else
		printf '    output: %s\n' "$out"
		tally_fail "$what"
	fi
	# each -c on its own: the error (with its SQLSTATE and hint) ends only
	# its statement, the ROLLBACK after it takes the extension away again
	out=$(env "$@" PGOPTIONS= "$PSQL" -X -At -q -v VERBOSITY=verbose -c "BEGIN" \
		-c "CREATE EXTENSION IF NOT EXISTS gpuscan" -c "SET gpuscan.device = gpu" \
		-c "SELECT gpu_sum(ARRAY[1,2]::float8[])" -c "ROLLBACK" 2>&1)
	printf '%s\n\n' "$out" >>"$log"
	what="without the preload: gpuscan.device = gpu is an ERROR at the call (55000), its hint names shared_preload_libraries"
	if grep -q '^ERROR:  55000: gpu_sum: no GPU is usable' <<<"$out" &&
			grep -q '^HINT: .*shared_preload_libraries' <<<"$out"; then
		tally_ok "$what"
	else
		printf '    output: %s\n' "$out"
		tally_fail "$what"
	fi
}

# tally_skip N WHAT -- N checks that cannot run here, not counted as passed;
# WHAT says which and why
tally_skip() {
	TALLY_SKIPPED=$((TALLY_SKIPPED + $1))
	printf 'skipped: %s\n' "$2"
}

# tally_skip_service N WHAT -- N checks of the GPU service that need a GPU
# in it, skipped where it has none
tally_skip_service() {
	tally_skip "$1" "$2"
	TALLY_SERVICE_SKIPPED=$((TALLY_SERVICE_SKIPPED + $1))
}

# tally_line -- "N passed, N failed, N skipped"
tally_line() {
	printf '%d passed, %d failed, %d skipped\n' "$TALLY_PASSED" "$TALLY_FAILED" "$TALLY_SKIPPED"
}

# tally_devices_line -- the checks run on a GPU and on the stand-in device,
# the service's checks skipped without a GPU
tally_devices_line() {
	printf 'checks on a GPU: %d, on the stand-in device: %d; service checks skipped without a GPU: %d\n' \
		"$TALLY_ON_GPU" "$TALLY_ON_STANDIN" "$TALLY_SERVICE_SKIPPED"
}

# tally_exit -- print what failed, the devices line and the totals (last);
# exit 0 only if nothing failed
tally_exit() {
	if [ ${#TALLY_FAILED_NAMES[@]} -gt 0 ]; then
		printf 'failed: %s\n' "${TALLY_FAILED_NAMES[*]}"
	fi
	tally_devices_line
	tally_line
	[ "$TALLY_FAILED" -eq 0 ]
	exit $?
}

# tally_read LOG RC [PREFIX] -- the tally of a test run from its output LOG
# and its exit status RC: the last "PREFIXN passed, N failed, N skipped"
# line and the last "PREFIXchecks on a GPU: ..." line (none: zeros), into
# READ_PASSED, READ_FAILED, READ_SKIPPED, READ_ON_GPU, READ_ON_STANDIN and
# READ_SERVICE_SKIPPED.  A non-zero RC with nothing failed counts one
# failure; without the totals line it is 0 passed, 1 failed, and status 1.
tally_read() {
	local log=$1 rc=$2 prefix=${3:-} line
	READ_PASSED=0 READ_FAILED=1 READ_SKIPPED=0
	READ_ON_GPU=0 READ_ON_STANDIN=0 READ_SERVICE_SKIPPED=0
	line=$(grep -E "^${prefix}[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped\$" "$log" | tail -n 1 || true)
	[[ "$line" =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]] || return 1
	READ_PASSED=${BASH_REMATCH[1]}
	READ_FAILED=${BASH_REMATCH[2]}
	READ_SKIPPED=${BASH_REMATCH[3]}
	if [ "$rc" -ne 0 ] && [ "$READ_FAILED" -eq 0 ]; then READ_FAILED=1; fi
	line=$(grep -E "^${prefix}checks on a GPU: " "$log" | tail -n 1 || true)
	if [[ "$line" =~ GPU:\ ([0-9]+),\ on\ the\ stand-in\ device:\ ([0-9]+)\;\ service\ checks\ skipped\ without\ a\ GPU:\ ([0-9]+)$ ]]; then
		READ_ON_GPU=${BASH_REMATCH[1]}
		READ_ON_STANDIN=${BASH_REMATCH[2]}
		READ_SERVICE_SKIPPED=${BASH_REMATCH[3]}
	fi
	return 0
}

# tally_add_read NAME -- add what tally_read read (NAME: what failed)
tally_add_read() {
	TALLY_PASSED=$((TALLY_PASSED + READ_PASSED))
	TALLY_FAILED=$((TALLY_FAILED + READ_FAILED))
	TALLY_SKIPPED=$((TALLY_SKIPPED + READ_SKIPPED))
	TALLY_ON_GPU=$((TALLY_ON_GPU + READ_ON_GPU))
	TALLY_ON_STANDIN=$((TALLY_ON_STANDIN + READ_ON_STANDIN))
	TALLY_SERVICE_SKIPPED=$((TALLY_SERVICE_SKIPPED + READ_SERVICE_SKIPPED))
	if [ "$READ_FAILED" -gt 0 ]; then
		TALLY_FAILED_NAMES+=("$1")
	fi
}

# tally_on_die TEXT -- a GPUSCAN_ON_DIE for scripts that count their tests:
# the set-up failure counts as one, then the script's own finish runs
# shellcheck disable=SC2317
tally_on_die() {
	GPUSCAN_ON_DIE=
	tally_fail "set-up: ${1%%$'\n'*}"
	finish
}

# bench_args ARG... -- the arguments of a bench script: --save sets SAVE=1,
# --help prints the script's header comment and exits
# shellcheck disable=SC2034
bench_args() {
	local arg
	SAVE=0
	for arg in "$@"; do
		case $arg in
			--save) SAVE=1 ;;
			-h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
			*) die "unknown argument: $arg (try --help)" ;;
		esac
	done
}

# show_tail FILE [N] -- the last N lines of a log, indented
show_tail() { tail -n "${2:-40}" "$1" | sed 's/^/    /'; }

# machine_line -- CPU model, cores, RAM, and the GPU if nvidia-smi sees one
machine_line() {
	printf '%s, %s cores, %s RAM' "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
		"$(nproc)" "$(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)"
	if command -v nvidia-smi >/dev/null 2>&1; then
		printf '; %s' "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
	fi
}

# bench_build -- build this gpuscan (for a bench or the demo) against the
# PostgreSQL found (installed first where missing), or against the running
# server's after use_running_server; BENCH_LOG keeps make's output
bench_build() {
	if [ "${GPUSCAN_USE_RUNNING_SERVER:-0}" != 1 ]; then
		ensure_build_tools
		ensure_postgres
	fi
	pg_setup_paths
	gpuscan_make_args
	BENCH_LOG=$(mktemp /tmp/gpuscan-bench.XXXXXX.log)
	remove_on_exit "$BENCH_LOG"
	msg "building gpuscan (make ${GPUSCAN_MAKE_ARGS[*]})"
	make --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" "${GPUSCAN_MAKE_ARGS[@]}" >"$BENCH_LOG" 2>&1 ||
		{ tail -n 40 "$BENCH_LOG" >&2; die "build failed"; }
}

# bench_server_up -- for a bench: a server with this build of gpuscan in it.
# With GPUSCAN_USE_RUNNING_SERVER=1 the server of PGHOST/PGPORT (make
# install into it), else a throw-away one (test/lib.sh) with gpuscan in
# shared_preload_libraries (its GPU service runs all GPU work: without it
# every call runs on the CPU) and shared_buffers BENCH_SHARED_BUFFERS
# (1GB).  Sets PSQL.
bench_server_up() {
	if [ "${GPUSCAN_USE_RUNNING_SERVER:-0}" = 1 ]; then
		use_running_server
		bench_build
		make --no-print-directory install "${GPUSCAN_MAKE_ARGS[@]}" >"$BENCH_LOG" 2>&1 ||
			{ tail -n 40 "$BENCH_LOG" >&2; die "make install failed"; }
	else
		bench_build
		BENCH_TMPD=$(make_temp_dir)
		msg "starting a throw-away server in $BENCH_TMPD"
		start_temp_server "$BENCH_TMPD" shared_preload_libraries=gpuscan \
			shared_buffers="${BENCH_SHARED_BUFFERS:-1GB}" max_worker_processes=16 max_parallel_workers=8
	fi
}

# bench_save REPORT PREFIX -- with --save (SAVE=1), write REPORT to
# bench/results/PREFIX-<GPU or host>-<date>.md (a time added if it exists)
bench_save() {
	local name slug out
	[ "${SAVE:-0}" = 1 ] || return 0
	name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
	[ -n "$name" ] || name=$(hostname 2>/dev/null || echo host)
	slug=$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g')
	mkdir -p "$GPUSCAN_ROOT/bench/results"
	out=$GPUSCAN_ROOT/bench/results/$2-${slug:-host}-$(date -u +%Y-%m-%d).md
	[ -e "$out" ] && out=${out%.md}-$(date -u +%H%M%S).md
	printf '%s\n' "$1" >"$out"
	msg "saved ${out#"$GPUSCAN_ROOT"/}"
}

# bench_command SCRIPT VARS ARGS... -- the command line of a bench as given,
# for its report: the variables of VARS (names) that are set, the script
# and its arguments
bench_command() {
	local cmd="$1${3:+ ${*:3}}" v
	for v in $2; do
		[ -n "${!v:-}" ] && cmd="$v='${!v}' $cmd"
	done
	printf '%s' "$cmd"
}

# median -- the median of the numbers on stdin, one per line
median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# paired_stats BASES MINES RATIOS -- over paired rounds (three arrays, by
# name: baseline ms, gpuscan ms, baseline / gpuscan): the medians of each
# into STAT_BASE, STAT_MINE and STAT_RATIO, the ratios' range into
# STAT_MIN and STAT_MAX, and how many are at least 1 into STAT_FAST
paired_stats() {
	local -n bases_=$1 mines_=$2 ratios_=$3
	# shellcheck disable=SC2034
	{
		STAT_BASE=$(printf '%s\n' "${bases_[@]}" | median)
		STAT_MINE=$(printf '%s\n' "${mines_[@]}" | median)
		STAT_RATIO=$(printf '%s\n' "${ratios_[@]}" | median)
		STAT_MIN=$(printf '%s\n' "${ratios_[@]}" | sort -g | head -n 1)
		STAT_MAX=$(printf '%s\n' "${ratios_[@]}" | sort -g | tail -n 1)
		STAT_FAST=$(printf '%s\n' "${ratios_[@]}" | awk '$1 >= 1 { n++ } END { print n + 0 }')
	}
}
