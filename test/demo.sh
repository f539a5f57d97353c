#!/usr/bin/env bash
#
# test/demo.sh -- `make demo`: build gpuscan, start a throw-away server that
# sees it (test/lib.sh), and walk through a short psql session: one
# 10-million-element float8[] summed by gpu_sum() next to plain SQL, and
# gpuscan_stats() showing which path ran.  The server is stopped and its
# directory removed at the end, also on failure or Ctrl-C.
#
# Environment: PG_CONFIG, GPUSCAN_CPU_ONLY=1, DEMO_N (array size, default
# 10000000), GPUSCAN_USE_RUNNING_SERVER=1 (use PGHOST/PGPORT/PGUSER's server).

set -euo pipefail
# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$GPUSCAN_ROOT"

N=${DEMO_N:-10000000}
[[ "$N" =~ ^[0-9]+$ ]] || die "DEMO_N must be a number"
RUNNING=${GPUSCAN_USE_RUNNING_SERVER:-0}

if [ "$RUNNING" = 1 ]; then
	use_running_server
else
	ensure_build_tools
	ensure_postgres
	pg_setup_paths
fi
gpuscan_make_args

msg "building gpuscan (make ${GPUSCAN_MAKE_ARGS[*]})"
LOG=$(mktemp /tmp/gpuscan-demo.XXXXXX.log)
remove_on_exit "$LOG"
if ! make --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" "${GPUSCAN_MAKE_ARGS[@]}" >"$LOG" 2>&1; then
	tail -n 40 "$LOG" >&2
	die "build failed"
fi

DB=postgres
if [ "$RUNNING" = 1 ]; then
	make --no-print-directory install "${GPUSCAN_MAKE_ARGS[@]}" >"$LOG" 2>&1 ||
		{ tail -n 40 "$LOG" >&2; die "make install failed"; }
	DB=gpuscan_demo
	"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
else
	TMPD=$(make_temp_dir)
	msg "starting a throw-away PostgreSQL server in $TMPD"
	start_temp_server "$TMPD"
fi

msg "psql session (database $DB)"
echo
"$PSQL" -X -q -v ON_ERROR_STOP=1 -v n="$N" -d "$DB" --echo-queries <<'SQL'
\echo '-- Load the extension and see what it found: build, driver, GPU.'
CREATE EXTENSION gpuscan;
SELECT * FROM gpuscan_info();

\echo '-- One row holding one float8[] of' :n 'random numbers, generated server-side.'
\echo '-- (About 8 bytes an element: 10 million make an 80 MB array, stored in TOAST.)'
CREATE TABLE t AS SELECT array_agg(random()) AS a FROM generate_series(1, :n);
SELECT array_length(a, 1) AS elements, pg_size_pretty(pg_column_size(a)::bigint) AS stored FROM t;

\echo '-- Sum it with gpu_sum() (gpuscan.device = auto: the GPU where usable and worth it,'
\echo '-- else the CPU).  The first call in a session may include one-time GPU set-up.'
\timing on
SELECT gpu_sum(a) FROM t;
SELECT gpu_sum(a) FROM t;

\echo '-- The same sum in plain SQL: one row per element through unnest().'
\echo '-- (The last digits may differ: plain SQL rounds after every one of the additions.)'
SELECT sum(x) FROM t, unnest(a) x;
\timing off

\echo '-- Which path ran, how often, how much data: gpuscan_stats() (this session).'
SELECT * FROM gpuscan_stats();
SQL
echo
if [ "$RUNNING" = 1 ]; then
	"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB"
	msg "done; dropped database $DB"
else
	msg "done; stopping the server"
fi
