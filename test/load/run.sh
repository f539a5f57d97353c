#!/usr/bin/env bash
#
# test/load/run.sh -- a pgbench load test of gpuscan in which every
# transaction checks its own answers:
#
#   bash test/load/run.sh [--gpu-memory] CLIENTS SECONDS [PGOPTIONS]
#
#   e.g.  bash test/load/run.sh 16 20 '-c gpuscan.device=cpu'
#         bash test/load/run.sh --gpu-memory 16 20 '-c gpuscan.device=gpu -c gpuscan.gpu_min_elements=0'
#
# On the server named by PGHOST/PGPORT/PGUSER (gpuscan installed there), it
# creates a fresh database, runs setup.sql in it (data and expected answers,
# computed without gpuscan), then
#   pgbench -n -c CLIENTS -j min(CLIENTS, nproc) -T SECONDS -f scripts/NAME.sql@WEIGHT ...
# with PGOPTIONS set for the clients.  Each script raises an error on a wrong
# answer (load_check), and pgbench aborts a client on any error.  The run
# passes when pgbench exits 0, no client aborted, no transaction failed, and
# every script ran at least one transaction.  The database is dropped at the
# end, however the script ends.
#
# --gpu-memory: print the GPUs' used memory (nvidia-smi) before, half-way
# through and after the run (once it is back to where it was before, or
# after 15 s), and the GPU service's memory, channels and staging area
# (gpuscan_info()) before and after, where it runs.  Sessions hold no GPU
# memory of their own: all GPU work runs in the service.
#
# Output: pgbench's tps, transactions and latency average, transactions per
# script, and a last line "load: ok tps=T xacts=N failed=0 aborted=0 ..." or
# "load: FAILED <why> ...".  Exit status 0 only for "load: ok".

set -uo pipefail
LOAD_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$LOAD_DIR/../lib.sh"

# the scripts (test/load/scripts/NAME.sql) and their pgbench weights
LOAD_SCRIPTS=(scan@3 scan_parallel@1 aggregate@3 window@2 arrays@3 srf@3 spmv@2 pagerank@1)

GPU_MEMORY=0
if [ "${1:-}" = --gpu-memory ]; then GPU_MEMORY=1; shift; fi
if [ $# -lt 2 ] || [ $# -gt 3 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]] || ! [[ "$2" =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: $0 [--gpu-memory] CLIENTS SECONDS [PGOPTIONS]" >&2
	exit 2
fi
CLIENTS=$1
DURATION=$2
LOAD_PGOPTIONS=${3-${PGOPTIONS:-}}
LOAD_DB=gpuscan_load_$$
WORK=$(mktemp -d /tmp/gpuscan-load.XXXXXX)

pg_setup_paths
PGBENCH=$PGBIN/pgbench

# admin SQL... -- psql on the postgres database, without the load's PGOPTIONS
admin() { env -u PGOPTIONS "$PSQL" -X -At -q -v ON_ERROR_STOP=1 -d postgres "$@"; }

# cleanup -- drop the load database (its sessions too) and the work directory
cleanup() {
	admin -c "DROP DATABASE IF EXISTS $LOAD_DB WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'cleanup; trap - INT; kill -INT $$' INT
trap 'cleanup; exit 143' TERM

# fail WHY -- print the failure line and exit 1
fail() {
	echo "load: FAILED $* (clients=$CLIENTS seconds=$DURATION pgoptions='$LOAD_PGOPTIONS')"
	exit 1
}

# gpu_used -- nvidia-smi's memory.used of every GPU, comma-separated (empty
# where there is no nvidia-smi)
gpu_used() {
	command -v nvidia-smi >/dev/null 2>&1 || return 0
	nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>/dev/null | paste -sd, -
}

# service_memory -- the GPU service's rows of gpuscan_info(): each GPU's
# memory (its process's pool, what it has allocated, what its cache holds),
# the channels and the staging area in use; "no GPU service" where it does
# not run (gpuscan not preloaded)
service_memory() {
	env -u PGOPTIONS "$PSQL" -X -At -q -v ON_ERROR_STOP=1 -d "$LOAD_DB" 2>&1 <<-'SQL'
		SELECT coalesce(string_agg(item || ': ' || value, '; ' ORDER BY item), 'no GPU service')
		FROM gpuscan_info()
		WHERE item ~ '^gpu_service_device [0-9]+ memory$' OR item IN ('gpu_service_channels', 'gpu_service_staging');
		SQL
}

# wait_backends_gone -- wait up to 15 s for the clients' backends to exit
wait_backends_gone() {
	local _ n
	for _ in $(seq 1 30); do
		n=$(admin -c "SELECT count(*) FROM pg_stat_activity WHERE datname = '$LOAD_DB'" 2>/dev/null)
		[ "${n:-0}" = 0 ] && return 0
		sleep 0.5
	done
}

# wait_gpu_memory BEFORE -- wait up to 15 s for the GPUs' used memory to come
# back to BEFORE (the GPU service gives its pool's unused memory back a
# little after its last request; what its cache holds stays); print the
# seconds waited, or "15+"
wait_gpu_memory() {
	local i
	for i in $(seq 0 30); do
		[ "$(gpu_used)" = "$1" ] && { echo $((i / 2)); return 0; }
		sleep 0.5
	done
	echo 15+
}

# ---- database and setup ----
command -v "$PGBENCH" >/dev/null 2>&1 || PGBENCH=$(command -v pgbench) || fail "no pgbench"
admin -c "DROP DATABASE IF EXISTS $LOAD_DB WITH (FORCE)" >/dev/null 2>&1
admin -c "CREATE DATABASE $LOAD_DB" >"$WORK/create.log" 2>&1 ||
	{ cat "$WORK/create.log"; fail "CREATE DATABASE $LOAD_DB"; }
SECONDS=0
if ! env -u PGOPTIONS "$PSQL" -X -At -q -v ON_ERROR_STOP=1 -d "$LOAD_DB" \
		-f "$LOAD_DIR/setup.sql" >"$WORK/setup.log" 2>&1; then
	tail -n 20 "$WORK/setup.log"
	fail "setup.sql"
fi
echo "$(grep '^load setup:' "$WORK/setup.log" | tail -n 1) (${SECONDS}s)"

if [ "$GPU_MEMORY" = 1 ]; then
	smi_before=$(gpu_used)
	echo "load: before: nvidia-smi memory.used: ${smi_before:-unavailable}"
	echo "load: before: the GPU service: $(service_memory)"
fi

# ---- pgbench ----
nproc=$(nproc 2>/dev/null || echo 1)
threads=$((CLIENTS < nproc ? CLIENTS : nproc))
args=(-n -c "$CLIENTS" -j "$threads" -T "$DURATION")
for s in "${LOAD_SCRIPTS[@]}"; do
	args+=(-f "$LOAD_DIR/scripts/${s%@*}.sql@${s#*@}")
done
echo "load: pgbench -n -c $CLIENTS -j $threads -T $DURATION, scripts ${LOAD_SCRIPTS[*]}, PGOPTIONS='$LOAD_PGOPTIONS'"
PGOPTIONS=$LOAD_PGOPTIONS "$PGBENCH" "${args[@]}" "$LOAD_DB" >"$WORK/pgbench.log" 2>&1 &
pgbench_pid=$!
if [ "$GPU_MEMORY" = 1 ]; then
	sleep $(((DURATION + 1) / 2))
	smi_during=$(gpu_used)
fi
wait "$pgbench_pid"
rc=$?

grep -E '^(tps = |number of transactions actually processed|number of failed transactions|latency average)' \
	"$WORK/pgbench.log"
# transactions per script: "SQL script N: PATH" then " - K transactions (...)"
per_script=$(awk '/^SQL script [0-9]+:/ { name = $NF; sub(/.*\//, "", name); sub(/\.sql$/, "", name) }
	/^ - [0-9]+ transactions/ { printf "%s%s=%s", sep, name, $2; sep = " " }' "$WORK/pgbench.log")
echo "load: transactions per script: ${per_script:-none}"

tps=$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' "$WORK/pgbench.log" | head -n 1)
xacts=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$WORK/pgbench.log" | head -n 1)
failed=$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' "$WORK/pgbench.log" | head -n 1)
latency=$(sed -nE 's/^latency average = ([0-9.]+) ms.*/\1/p' "$WORK/pgbench.log" | head -n 1)
aborted=$(grep -cE 'client [0-9]+ .*aborted' "$WORK/pgbench.log")
: "${tps:=0}" "${xacts:=0}" "${failed:=unknown}" "${latency:=?}"

if [ "$GPU_MEMORY" = 1 ]; then
	echo "load: during: nvidia-smi memory.used: ${smi_during:-unavailable}"
	wait_backends_gone
	if [ -n "$smi_before" ]; then
		waited=$(wait_gpu_memory "$smi_before")
		echo "load: after: nvidia-smi memory.used: $(gpu_used) (${waited}s after the clients left)"
	else
		echo "load: after: nvidia-smi memory.used: unavailable"
	fi
	echo "load: after: the GPU service: $(service_memory)"
fi

figures="tps=$tps xacts=$xacts failed=$failed aborted=$aborted latency_ms=$latency"
if [ "$rc" -ne 0 ] || [ "$aborted" -ne 0 ] || [ "$failed" != 0 ] || [ "$xacts" -eq 0 ]; then
	# the clients' errors (load_check names the wrong answer), then the log's end
	grep -E 'error|ERROR|aborted|CONTEXT' "$WORK/pgbench.log" | head -n 20
	tail -n 5 "$WORK/pgbench.log"
	fail "pgbench exit $rc: $figures"
fi
idle=$(printf '%s\n' "$per_script" | tr ' ' '\n' | grep -E '=0$' | cut -d= -f1 | paste -sd, -)
if [ -n "$idle" ] || [ -z "$per_script" ]; then
	fail "scripts that ran no transaction: ${idle:-all}: $figures"
fi
echo "load: ok $figures clients=$CLIENTS seconds=$DURATION"
