# shellcheck shell=bash
#
# test/citus/lib.sh -- a throw-away Citus cluster on this machine: one
# coordinator and two workers, each a server of its own seeing this build
# of gpuscan.  Used by test/citus/check.sh and bench/citus_bench.sh.
# Source test/lib.sh first; this file sets no shell options of its own.
#
#   citus_start_cluster DIR DB [NAME=VALUE...]
#                          coordinator (test/lib.sh start_temp_server) and
#                          two workers from the same relocatable copy, each
#                          with shared_preload_libraries = 'citus,gpuscan'
#                          (gpuscan's planner hook must exist before a worker
#                          plans its first shard query), its own
#                          port, listening on 127.0.0.1 with trust for
#                          127.0.0.1 only; database DB with the citus
#                          extension on every node, the workers added with
#                          citus_add_node.  Exports PGHOST PGPORT PGUSER
#                          PGDATABASE (the coordinator) and CITUS_WORKER_PORTS.
#   citus_stop_cluster     stop the workers, then the coordinator, and remove
#                          DIR (also on EXIT/INT/TERM)
#
# Every node keeps its data and log in DIR/<node>/ (coordinator: DIR/data
# and DIR/server.log, as start_temp_server lays them out).

CITUS_NODE_DIRS=()
CITUS_WORKER_PORTS=()

# citus_node_settings -- the postgresql.conf lines every node gets
citus_node_settings() {
	printf '%s\n' shared_preload_libraries=citus,gpuscan listen_addresses=127.0.0.1 \
		max_connections=200 citus.max_cached_conns_per_worker=2
}

# citus_hba DATADIR -- trust for the Unix socket and for 127.0.0.1 only
citus_hba() {
	printf '%s\n' '# throw-away Citus test node: local socket and 127.0.0.1 only' \
		'local all all trust' \
		'host  all all 127.0.0.1/32 trust' >"$1/pg_hba.conf"
}

# citus_start_worker NAME [NAME=VALUE...] -- initdb and start a worker in
# $GPUSCAN_TMP/NAME from the copy start_temp_server made; its port is added
# to CITUS_WORKER_PORTS
citus_start_worker() {
	local name=$1 dir try port setting
	shift
	dir=$GPUSCAN_TMP/$name
	mkdir -p "$dir"
	is_root && chown "$GPUSCAN_SERVER_USER" "$dir"
	if ! as_server "$TEMP_PGBIN/initdb" -D "$dir/data" -U "$PGUSER" -A trust \
			-E UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		die "initdb of the Citus worker $name failed"
	fi
	{
		echo "# throw-away Citus worker"
		echo "unix_socket_directories = '$dir'"
		echo "fsync = off"
		echo "synchronous_commit = off"
		echo "full_page_writes = off"
		echo "max_prepared_transactions = 0"
		for setting in $(citus_node_settings) "$@"; do
			echo "${setting%%=*} = '${setting#*=}'"
		done
	} >>"$dir/data/postgresql.conf"
	citus_hba "$dir/data"
	CITUS_NODE_DIRS+=("$dir")
	for try in 1 2 3; do
		port=$(free_port)
		if as_server "$TEMP_PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
				-o "-p $port" start >/dev/null 2>&1; then
			CITUS_WORKER_PORTS+=("$port")
			return 0
		fi
		msg "Citus worker $name did not start on port $port (try $try); log:"
		tail -n 20 "$dir/server.log" >&2
	done
	die "cannot start the Citus worker $name"
}

# citus_psql PORT SQL... -- psql -c for each SQL on node PORT (database
# $CITUS_DB), over 127.0.0.1; stop at the first error
citus_psql() {
	local port=$1 args=() s
	shift
	for s in "$@"; do args+=(-c "$s"); done
	"$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -d "$CITUS_DB" "${args[@]}"
}

# citus_start_cluster DIR DB [NAME=VALUE...] -- see the top of this file
citus_start_cluster() {
	local dir=$1 port
	CITUS_DB=$2
	shift 2
	# shellcheck disable=SC2046
	start_temp_server "$dir" $(citus_node_settings) "$@"
	install_citus_exit_traps
	citus_hba "$GPUSCAN_TMP/data"
	"$PSQL" -XAtq -c 'SELECT pg_reload_conf()' >/dev/null || die "cannot reload the coordinator"
	citus_start_worker worker1 "$@"
	citus_start_worker worker2 "$@"
	export CITUS_WORKER_PORTS
	for port in "$PGPORT" "${CITUS_WORKER_PORTS[@]}"; do
		"$PSQL" -XAtq -h 127.0.0.1 -p "$port" -d postgres -v ON_ERROR_STOP=1 \
			-c "CREATE DATABASE $CITUS_DB" >/dev/null ||
			die "cannot create database $CITUS_DB on the node at port $port"
		citus_psql "$port" "CREATE EXTENSION citus" >/dev/null ||
			die "CREATE EXTENSION citus failed on the node at port $port"
	done
	citus_psql "$PGPORT" "SELECT citus_set_coordinator_host('localhost', $PGPORT)" >/dev/null ||
		die "citus_set_coordinator_host failed"
	for port in "${CITUS_WORKER_PORTS[@]}"; do
		citus_psql "$PGPORT" "SELECT citus_add_node('localhost', $port)" >/dev/null ||
			die "citus_add_node('localhost', $port) failed"
	done
	export PGDATABASE=$CITUS_DB
}

# citus_stop_cluster -- stop the workers, then the coordinator (removing
# its directory, which holds the workers' too).  Idempotent.
citus_stop_cluster() {
	local dir pid
	for dir in "${CITUS_NODE_DIRS[@]}"; do
		[ -f "$dir/data/postmaster.pid" ] || continue
		as_server "$TEMP_PGBIN/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
			as_server "$TEMP_PGBIN/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1
		if [ -f "$dir/data/postmaster.pid" ]; then
			pid=$(head -n 1 "$dir/data/postmaster.pid")
			[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
		fi
	done
	CITUS_NODE_DIRS=()
	gpuscan_cleanup
}

# install_citus_exit_traps -- citus_stop_cluster on EXIT, INT and TERM (in
# place of test/lib.sh's traps, which know only one server)
install_citus_exit_traps() {
	trap 'citus_stop_cluster' EXIT
	trap 'citus_stop_cluster; trap - INT; kill -INT $$' INT
	trap 'citus_stop_cluster; exit 143' TERM
}
