#!/usr/bin/env bash
#
# test/service_faults.sh -- the GPU service under faults and pressure, from
# several sessions at once:
#
#   bash test/service_faults.sh
#
# On the server named by PGHOST/PGPORT/PGUSER (a superuser; gpuscan
# installed and preloaded, its service with a GPU: a real one, or the
# stand-in device of a GPUSCAN_DEVICE=standin build), in a fresh database:
#   - the service's processes have rows in pg_stat_activity (backend_type
#     "gpuscan gpu service"), one per GPU;
#   - a lowered gpuscan.cache_size evicts at once (no request needed), and
#     0 keeps nothing;
#   - after gpuscan_cache_reset() and a short idle time the service's memory
#     pool is given back (gpuscan_info()'s memory rows; nvidia-smi's figure
#     per process where there is one);
#   - four leak sequences: a session terminated, or timed out and gone,
#     while the service fails under it (gpuscan.debug_service_fault), with
#     values in memory in the staging area, a table's pages pinned for the
#     GPU to read in place, or none: afterwards no channel, no staging and
#     no waiting request is left;
#   - cancelled work stops: statements cancelled while their requests run in
#     the service (held by gpuscan.debug_service_delay_ms, or a PageRank of
#     many iterations) free the service's threads, and a session's next call
#     does not wait for its abandoned request;
#   - a restart under load: the service stopped twice (pg_terminate_backend,
#     SIGTERM) under pgbench clients with gpuscan.device = gpu (sums and
#     compactions of many chunks, and a table's sum and GROUP BY read by
#     the GPU in place, each checked against the CPU path's),
#     which wait for it instead of failing, while gpuscan_info() says
#     "starting" (from the moment the stopped process takes no more
#     requests) and answers at once, without waiting for the next start;
#   - where the server is the temporary one of test/check.sh and this runs as
#     root: a request whose data finds no shared memory (the staging area
#     bypassed, pg_dynshmem on a 1 MB tmpfs) runs on the CPU under auto and
#     fails with SQLSTATE 53200 under gpu.
# Lines "figure: ..." give the measurements (the cache's bound after each
# load, the pool's size, how long a cancelled request and a restart take,
# the calls failed during restarts); a check that cannot run here prints
# "skipped: ..." and is counted as skipped (without a GPU in the service:
# all of them).  Ends with the devices line (test/lib.sh) and "N passed, N
# failed, N skipped"; exit status 0 only if nothing failed.

set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/lib.sh"
pg_setup_paths

DB=gpuscan_service_faults
# shellcheck source=test/service_lib.sh
source "$HERE/service_lib.sh"
# the checks up to the one without shared memory (which needs root), and
# those of that one: all need a GPU in the service
GPU_CHECKS=36
DSM_CHECKS=2
figure() { printf 'figure: %s\n' "$*"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# pool_mb [GPU] -- the MB of GPU's service process's memory pool (gpuscan_info)
pool_mb() { info "gpu_service_device ${1:-0} memory" | sed -nE 's/^pool ([0-9.]+) MB,.*/\1/p'; }
# trims [GPU] -- how often that process gave its pool's unused memory back
trims() { info "gpu_service_device ${1:-0} memory" | sed -nE 's/.*pool trimmed ([0-9]+) times$/\1/p'; }
# cache_mb -- the MB the device cache holds on all GPUs
cache_mb() { info gpu_service_cache | sed -nE 's/^[0-9]+ entries, ([0-9.]+) MB.*/\1/p'; }
# smi_mb PID -- the GPU memory nvidia-smi counts for process PID, where there is nvidia-smi
smi_mb() {
	command -v nvidia-smi >/dev/null 2>&1 || return 0
	nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
		awk -F', *' -v p="$1" '$1 == p { print $2 }'
}
# idle_state -- channels in use, staging in use and requests waiting, as one line
idle_state() { echo "$(channels_in_use) $(staging_in_use) $(requests_busy)"; }
# back_to_idle WANT -- wait up to 30 s for idle_state to be WANT
back_to_idle() { poll 30 shows idle_state "$1"; }

fresh_database
# one GPU's cache and pool are followed: all calls on GPU 0
q -c "ALTER DATABASE $DB SET gpuscan.placement = fixed" >/dev/null
service_started
service_gpus=$(info gpu_service_device_count | sed -nE 's/^([0-9]+)$/\1/p')
if [ -z "$service_gpus" ] || [ "$service_gpus" -eq 0 ]; then
	tally_skip_service $((GPU_CHECKS + DSM_CHECKS)) "$((GPU_CHECKS + DSM_CHECKS)) checks of the service under faults and pressure: the service has no GPU: $(no_gpu_why)"
	tally_exit
fi
figure "service: $(info gpu_service); build: $(info build)"
gpu_part "$GPU_CHECKS"

# ---- the service in pg_stat_activity ----
pid=$(service_pid)
check_eq "pg_stat_activity: one 'gpuscan gpu service' row per GPU" \
	"$(q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpuscan gpu service'")" "$service_gpus"
check_eq "the first is the pid gpuscan_info() names" \
	"$(q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpuscan gpu service' AND pid = $pid")" 1

# ---- data: four stored arrays of 2 MB (their CPU path's sums beside them), a stored graph ----
q -c "CREATE TABLE faults_t (id integer, a double precision[], want double precision, k boolean[], kept double precision[])" \
	-c "ALTER TABLE faults_t ALTER COLUMN a SET STORAGE EXTERNAL" \
	-c "INSERT INTO faults_t SELECT g, (SELECT array_agg(sin(g * 1000 + i)) FROM generate_series(1, 262144) i) FROM generate_series(1, 4) g" \
	-c "SET gpuscan.device = cpu" -c "UPDATE faults_t SET want = gpu_sum(a), k = (SELECT array_agg(x > 0) FROM unnest(a) x)" \
	-c "UPDATE faults_t SET kept = gpu_compact_array(a, k)" >/dev/null
# a graph whose PageRank never settles: 100,000 nodes, 800,000 edges, each
# of the first 25,000 nodes linking to 8 of the others and each of those to
# 8 of the first; the rank's mass swings between the two sides (1/4 and
# 3/4), by damping^k, so at damping 0.9999999 the L1 change stays near 1
# for millions of iterations
q -c "CREATE TABLE faults_g (row_ptr integer[], col_idx integer[])" \
	-c "ALTER TABLE faults_g ALTER COLUMN row_ptr SET STORAGE EXTERNAL" \
	-c "ALTER TABLE faults_g ALTER COLUMN col_idx SET STORAGE EXTERNAL" \
	-c "INSERT INTO faults_g SELECT (SELECT array_agg(i * 8) FROM generate_series(0, 100000) i),
	      (SELECT array_agg(CASE WHEN e / 8 < 25000 THEN 25000 + (e * 7919) % 75000 ELSE (e * 7919) % 25000 END::integer)
	       FROM generate_series(0::bigint, 799999) e)" >/dev/null
# a table whose whole-table gpu_sum the GPU reads page by page in place in
# shared buffers (the GpuscanSum scan), and its sum on the CPU path
q -c "CREATE TABLE faults_rows WITH (autovacuum_enabled = off) AS SELECT i AS id, (i % 100)::int AS g, sin(i) AS x FROM generate_series(1, 400000) i" \
	-c "VACUUM (FREEZE) faults_rows" >/dev/null
rows_want=$(q -c "SET gpuscan.device = cpu" -c "SELECT gpu_sum(x) FROM faults_rows")
# the same per group (GROUP BY g), as one hash of the groups' sums in order
groups_sql="SELECT md5(string_agg(s::text, ',' ORDER BY g)) FROM (SELECT g, gpu_sum(x) s FROM faults_rows GROUP BY g) q"
groups_want=$(q -c "SET gpuscan.device = cpu" -c "$groups_sql")
# sum_ok ID [SETTINGS] -- in a new session: whether gpu_sum of row ID gives the CPU path's bits
sum_ok() { q -c "SET client_min_messages = warning${2:+; $2}" -c "SELECT gpu_sum(a) = want FROM faults_t WHERE id = $1"; }
GPU="SET gpuscan.device = gpu; SET gpuscan.gpu_min_elements = 0"
q -c "SELECT gpuscan_cache_reset()" >/dev/null
base=$(idle_state)
check "at the start: channels, staging and requests at idle" "$base" '^[0-9]+ 0\.0 0$'

# ---- a lowered bound evicts at once; 0 keeps nothing ----
# load_four BOUND -- gpu_sum of each stored array in turn, each the CPU
# path's bits (one check); the cache's MB after each in bound_line
load_four() {
	local sums=""
	bound_line=""
	for id in 1 2 3 4; do
		sums="$sums $(sum_ok "$id" "$GPU")"
		bound_line="$bound_line $(cache_mb)"
	done
	figure "cache MB after each of 4 loads of 2 MB ($1):$bound_line"
	check_eq "gpu_sum of the 4 stored arrays ($1): the CPU path's bits" "$sums" " t t t t"
}
load_four "default bound"
check "four arrays cached" "$(info gpu_service_cache)" '^4 entries, 8\.0 MB'
q -c "ALTER SYSTEM SET gpuscan.cache_size = '3MB'" -c "SELECT pg_reload_conf()" >/dev/null
t0=$(now_ms)
poll 30 shows cache_mb 2.0
figure "gpuscan.cache_size lowered to 3MB: the cache held $(cache_mb) MB after $(( $(now_ms) - t0 )) ms, no request made"
check "gpuscan.cache_size = 3MB, a reload and no request: the cache is within it" "$(info gpu_service_cache)" \
	'^1 entries, 2\.0 MB of 3\.0 MB per GPU;'
load_four "gpuscan.cache_size = 3MB"
check "every load under 3MB keeps the cache within it" "$bound_line" '^( 2\.0){4}$'
q -c "ALTER SYSTEM SET gpuscan.cache_size = 0" -c "SELECT pg_reload_conf()" >/dev/null
poll 30 shows cache_mb 0.0
load_four "gpuscan.cache_size = 0"
check "gpuscan.cache_size = 0: nothing is kept, the calls still answer" "$(info gpu_service_cache)$bound_line" \
	'^0 entries, 0\.0 MB;.*( 0\.0){4}$'
q -c "ALTER SYSTEM RESET gpuscan.cache_size" -c "SELECT pg_reload_conf()" >/dev/null
# until the service has applied it: a bound again (0 shows none)
cache_bounded() { grep -q ' MB per GPU;' <<<"$(info gpu_service_cache)"; }
poll 30 cache_bounded

# ---- the memory pool goes back after a reset and idle time ----
# mb_within A B -- whether A MB is at most B MB plus the pool's granularity (2 MB)
mb_within() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a <= b + 2.0) }'; }
# the pool as the service leaves it when idle (it trims 2 s after the last request)
trims0=$(trims)
# trimmed_since N -- whether GPU 0's process trimmed its pool more than N times
trimmed_since() { [ "$(trims)" -gt "$1" ] 2>/dev/null; }
poll 30 trimmed_since "$trims0"
pool0=$(pool_mb)
smi0=$(smi_mb "$pid")
for id in 1 2 3 4; do sum_ok "$id" "$GPU" >/dev/null; done
pool1=$(pool_mb)
smi1=$(smi_mb "$pid")
trims0=$(trims)
q -c "SELECT gpuscan_cache_reset()" >/dev/null
t0=$(now_ms)
# pool_within MB -- whether GPU 0's pool is within MB (mb_within)
pool_within() { mb_within "$(pool_mb)" "$1"; }
poll 30 pool_within "$pool0"
pool2=$(pool_mb)
smi2=$(smi_mb "$pid")
figure "GPU 0's pool: ${pool0} MB at the start, ${pool1} MB with 4 arrays cached, ${pool2} MB $(( $(now_ms) - t0 )) ms after gpuscan_cache_reset()${smi0:+; nvidia-smi: $smi0 / $smi1 / $smi2 MiB}"
check_eq "the pool held the cached arrays" "$(awk -v p="$pool1" 'BEGIN { print (p >= 8.0) }')" 1
if mb_within "$pool2" "$pool0"; then
	tally_ok "after gpuscan_cache_reset() the pool is back to its idle size"
else
	printf '    pool %s MB, at the start %s MB\n' "$pool2" "$pool0"
	tally_fail "after gpuscan_cache_reset() the pool is back to its idle size"
fi
check "the service says it trimmed its pool" "$(( $(trims) - trims0 ))" '^[1-9][0-9]*$'
if [ -n "$smi0" ]; then
	check_eq "nvidia-smi: the service holds within 256 MiB of what it held at the start" \
		"$(( smi2 - smi0 <= 256 ))" 1
else
	tally_skip_service 1 "nvidia-smi: the service's GPU memory: no figure of nvidia-smi for it (no GPU: $(info build))"
fi

# ---- four leak sequences: a session gone while the service fails under it ----
# fault_sequence NAME HOW SQL -- one session holds a service thread for 3 s
# (debug delay), a second sends SQL with the injected fault (the service
# fails once the first is answered) and is then ended by HOW (terminate: by
# pg_terminate_backend 0.4 s later; timeout: its statement_timeout, then it
# disconnects): once the service is back, nothing of theirs is left
fault_sequence() {
	local name=$1 how=$2 sql=$3 pid_before pid_after holder victim opts=""
	pid_before=$(service_pid)
	[ "$how" = timeout ] && opts="SET statement_timeout = '400ms';"
	q -c "SET gpuscan.debug_service_delay_ms = 3000" -c "SELECT count(*) FROM gpuscan_info()" >/dev/null &
	holder=$!
	sleep 0.4
	q -c "SET application_name = 'faults_victim'; $opts SET gpuscan.debug_service_fault = on; $GPU" \
		-c "$sql" >/dev/null &
	victim=$!
	if [ "$how" = terminate ]; then
		poll 30 waiting_for_service faults_victim ||
			tally_fail "$name: the victim was seen waiting for the service (pg_stat_activity)"
		sleep 0.4
		q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'faults_victim'" >/dev/null
	fi
	wait "$holder" "$victim"
	pid_after=$(new_service_pid "$pid_before")
	check "$name: the service failed and started again (pid $pid_before, then ${pid_after:-none})" \
		"${pid_after:-none}" '^[0-9]+$'
	back_to_idle "$base"
	check_eq "$name: channels, staging and waiting requests back to idle" "$(idle_state)" "$base"
}
fault_sequence "terminated while the service fails" terminate "SELECT count(*) FROM gpuscan_info()"
fault_sequence "timed out and gone while the service fails" timeout "SELECT count(*) FROM gpuscan_info()"
fault_sequence "terminated with its values in the staging area while the service fails" terminate \
	"SELECT gpu_sum(array_agg(sin(i))) FROM generate_series(1, 300000) i"
fault_sequence "terminated with a table's pages pinned for the GPU while the service fails" terminate \
	"SET max_parallel_workers_per_gather = 0; SELECT gpu_sum(x) FROM faults_rows"
check_eq "after it, a table scan's gpu_sum on the GPU gives the CPU path's bits" \
	"$(q -c "$GPU" -c "SELECT gpu_sum(x) = '$rows_want'::float8 FROM faults_rows")" t

# ---- cancelled work stops ----
streams=$(q -c "SHOW gpuscan.service_streams")
# as many delayed requests as the service has threads, all cancelled after 0.5 s
for _ in $(seq "$streams"); do
	q -c "SET statement_timeout = '500ms'; SET gpuscan.debug_service_delay_ms = 60000" \
		-c "SELECT count(*) FROM gpuscan_info()" >/dev/null &
done
wait
t0=$(now_ms)
poll 30 shows requests_busy 0
figure "$streams requests held in the service, cancelled: the service was free again $(( $(now_ms) - t0 )) ms after the last cancel returned"
check_eq "requests cancelled while held in the service stop (no request left running)" "$(requests_busy)" 0
# PageRank of many iterations: cancelled, the next call of each session does not wait
pr="SELECT cardinality(gpu_pagerank(row_ptr, col_idx, 0.9999999, 0, 100000000)) FROM faults_g"
waits=""
for s in 1 2 3 4; do
	(
		out=$(q -c "\\timing on" -c "$GPU; SET statement_timeout = '2s'" -c "$pr" \
			-c "SET statement_timeout = 0" -c "SELECT gpu_sum(a) = want FROM faults_t WHERE id = 1")
		printf '%s\n' "$out" >"/tmp/gpuscan-faults-pr.$$.$s"
	) &
done
wait
for s in 1 2 3 4; do
	out=$(cat "/tmp/gpuscan-faults-pr.$$.$s")
	rm -f "/tmp/gpuscan-faults-pr.$$.$s"
	check "PageRank cancelled by statement_timeout (session $s): 57014, then the next call answers" \
		"$(printf '%s\n' "$out" | grep -vE '^Time: ' | tr '\n' ' ')" \
		'ERROR:  57014: canceling statement due to statement timeout.* t $'
	waits="$waits $(printf '%s\n' "$out" | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | tail -n 1)"
done
figure "the next call after a cancelled PageRank, ms (4 sessions at once):$waits"
t0=$(now_ms)
poll 30 shows requests_busy 0
check_eq "the cancelled PageRank requests stopped (none left running)" "$(requests_busy)" 0
back_to_idle "$base"
check_eq "channels, staging and waiting requests back to idle" "$(idle_state)" "$base"

# ---- a restart under load ----
script=$(mktemp /tmp/gpuscan-faults.XXXXXX.sql)
cat >"$script" <<-'SQL'
	\set id random(1, 4)
	SELECT CASE WHEN gpu_sum(a) = want THEN 1 ELSE 1 / (id - id) END FROM faults_t WHERE id = :id;
	SELECT CASE WHEN gpu_compact_array(a, k) = kept THEN 1 ELSE 1 / (id - id) END FROM faults_t WHERE id = :id;
	SELECT CASE WHEN gpu_sum(v) = gpu_sum(v) THEN 1 END FROM (SELECT array_agg(sin(i)) v FROM generate_series(1, 20000) i) s;
	SQL
# and a table's sum and its sums per group read by the GPU in place, checked
# against the CPU path's
echo "SELECT CASE WHEN gpu_sum(x) = '$rows_want'::float8 THEN 1 ELSE 1 / (gpu_sum(x) - gpu_sum(x))::int END FROM faults_rows;" >>"$script"
echo "SELECT CASE WHEN md5(string_agg(s::text, ',' ORDER BY g)) = '$groups_want' THEN 1 ELSE 1 / (count(*) - count(*))::int END FROM (SELECT g, gpu_sum(x) s FROM faults_rows GROUP BY g) q;" >>"$script"
chmod 644 "$script"
log=$(mktemp /tmp/gpuscan-faults.XXXXXX.log)
PGOPTIONS="-c gpuscan.device=gpu -c gpuscan.gpu_min_elements=0 -c gpuscan.debug_chunk_size=64kB" \
	"$PGBIN/pgbench" -n -c 4 -j 2 -T 20 -f "$script" "$DB" >"$log" 2>&1 &
bench=$!
sleep 3
restarts=""
saw_starting=0
# the longest gpuscan_info() while the service restarted, ms: it reports the
# state, it does not wait for the next start (which takes 5 s or more)
info_ms=0
for how in terminate sigterm; do
	pid=$(service_pid)
	t0=$(now_ms)
	if [ "$how" = terminate ]; then
		check_eq "pg_terminate_backend() stops the service" "$(q -c "SELECT pg_terminate_backend($pid)")" t
	else
		kill -TERM "$pid" 2>/dev/null || q -c "SELECT pg_terminate_backend($pid)" >/dev/null
	fi
	for _ in $(seq 300); do
		t1=$(now_ms)
		state=$(info gpu_service)
		t1=$(( $(now_ms) - t1 ))
		[ "$t1" -gt "$info_ms" ] && info_ms=$t1
		case $state in
			starting*) saw_starting=1 ;;
			"running (pid $pid,"*) ;;
			running*) break ;;
		esac
		sleep 0.05
	done
	restarts="$restarts $(( $(now_ms) - t0 ))"
	sleep 3
done
wait "$bench"
rc=$?
failed=$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' "$log")
xacts=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$log")
figure "restart under load: the service back in${restarts} ms, gpuscan_info() meanwhile in at most $info_ms ms; pgbench (4 clients, gpuscan.device = gpu): ${xacts:-?} transactions, exit $rc, ${failed:-0} failed, $(grep -c 'aborted' "$log") aborted-client lines"
check_eq "gpuscan_info() said 'starting' while the service restarted" "$saw_starting" 1
check_eq "gpuscan_info() answered within 4 s each while the service restarted (it does not wait for the restart)" \
	"$([ "$info_ms" -lt 4000 ] && echo yes || echo "no: $info_ms ms")" yes
if [ "$rc" -eq 0 ] && ! grep -q aborted "$log"; then
	tally_ok "4 clients under gpuscan.device = gpu through two restarts: no call failed, every sum the CPU path's"
else
	sed 's/^/    /' "$log" | tail -n 15
	tally_fail "4 clients under gpuscan.device = gpu through two restarts: no call failed, every sum the CPU path's"
fi
rm -f "$script" "$log"
check_eq "the service in pg_stat_activity again" \
	"$(q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpuscan gpu service'")" "$service_gpus"
back_to_idle "$base"
check_eq "channels, staging and waiting requests back to idle" "$(idle_state)" "$base"
gpu_part_end

# ---- no shared memory for a request's data ----
tally_device "$(device_kind)"
if ! is_root || [ -z "${GPUSCAN_TMP:-}" ] || [ -z "${TEMP_PGBIN:-}" ] || ! command -v mount >/dev/null; then
	tally_skip "$DSM_CHECKS" "no shared memory for a request ($DSM_CHECKS checks): needs root and the temporary server of test/check.sh"
else
	dyn=$GPUSCAN_TMP/data/pg_dynshmem
	# dsm_restart [OPTIONS] -- restart the temporary server with OPTIONS (-c ...)
	dsm_restart() {
		as_server "$TEMP_PGBIN/pg_ctl" -D "$GPUSCAN_TMP/data" -l "$GPUSCAN_TMP/server.log" -w -t 60 \
			-m fast -o "-p $PGPORT $*" restart >/dev/null 2>&1
	}
	# 4 MB for the server's own segments, none for a request's 8 MB
	if mount -t tmpfs -o "size=4m,mode=0700,uid=$(id -u "$GPUSCAN_SERVER_USER")" tmpfs "$dyn" 2>/dev/null; then
		if dsm_restart -c dynamic_shared_memory_type=mmap; then
			service_started
			arr="SELECT gpu_sum(array_agg(sin(i))) FROM generate_series(1, 1000000) i"
			want=$(q -c "SET gpuscan.device = cpu" -c "$arr")
			seg="SET gpuscan.debug_service_segments = on; SET gpuscan.gpu_min_elements = 0"
			check_eq "no room for a segment (pg_dynshmem on a 4 MB tmpfs): auto runs the call on the CPU" \
				"$(q -c "$seg" -c "$arr" -c "SELECT path FROM gpuscan_stats()")" "$want"$'\n'"cpu"
			check "gpu: SQLSTATE 53200" "$(q -c "$seg; SET gpuscan.device = gpu" -c "$arr")" \
				'^ERROR:  53200: gpu_sum: no shared memory for the data of a request to the gpuscan GPU service'
		else
			tail -n 5 "$GPUSCAN_TMP/server.log" | sed 's/^/    /'
			tally_fail "restart with pg_dynshmem on a 4 MB tmpfs"
		fi
		dsm_restart || die "cannot restart the temporary server"
		umount "$dyn"
		service_started
	else
		tally_skip "$DSM_CHECKS" "no shared memory for a request ($DSM_CHECKS checks): cannot mount a tmpfs here"
	fi
fi
tally_device none

tally_exit
