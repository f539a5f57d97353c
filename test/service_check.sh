#!/usr/bin/env bash
#
# test/service_check.sh -- the GPU service on a server that preloads gpuscan
# (shared_preload_libraries), from sessions as a user sees them:
#
#   bash test/service_check.sh
#
# On the server named by PGHOST/PGPORT/PGUSER (a superuser; gpuscan
# installed and preloaded), in a fresh database:
#   - gpuscan_info() shows the service running, its GPUs (or why none is
#     usable) as the service answers them through the session's channel,
#     and the channels in use;
#   - a session waiting for the service answers a statement timeout, not the
#     service's answer (gpuscan.debug_service_delay_ms holds its request in
#     the service for 10 s; the time the statement took, measured in the
#     server, is a "figure:" line), and its next request is answered;
#   - a session terminated while it waits for the service (seen waiting in
#     pg_stat_activity first) leaves no channel behind, and the service runs
#     on;
#   - a fault in the service (gpuscan.debug_service_fault) ends the waiting
#     request in an ERROR (SQLSTATE 55000), the service starts again without
#     a restart of the server, and the next request is answered;
#   - where the service has a GPU (else these are skipped, and counted), the
#     device cache of stored arrays: a
#     first call loads an array, a call from another session hits the same
#     entry (gpuscan_cache, gpuscan_stats()), every answer is the CPU path's
#     bits, for gpu_sum, gpu_compact_array, gpu_compact_indices_array and
#     gpu_csr_spmv; a timeout while waiting leaves the cache as it was, the
#     abandoned request stops, and the next call is answered at once (the
#     service runs several at once); eight sessions at once get the CPU
#     path's bits; data and answers go through the staging area (or a
#     segment of their own) with the same bits, and the area is free after
#     the calls; values in memory (every function, the aggregate) go to the
#     service as well, in chunks where large, with the CPU path's bits; a
#     smaller gpuscan.cache_size evicts the least recently used entries; a
#     fault in the service during a cached call runs it on the CPU (auto) or
#     ends in an ERROR (gpu), and the restarted service starts with an empty
#     cache and loads again;
#   - placement over the service's GPUs (gpuscan.placement = affinity): the
#     first arrays loaded spread over them, later calls hit on the GPU that
#     holds each array, gpuscan_stats() and gpuscan_info() say which GPU
#     ran what; a gpu_sum split over the GPUs (gpuscan.split_min_size) gives
#     the CPU path's bits from a part cached on each.
# Nothing waits a fixed time: each check polls for the state it needs,
# within a generous deadline.  Prints "ok WHAT", "FAILED WHAT" or "skipped:
# WHAT" per check and ends with the devices line (test/lib.sh) and "N
# passed, N failed, N skipped"; exit status 0 only if nothing failed.

set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/lib.sh"
pg_setup_paths

DB=gpuscan_service_check
# shellcheck source=test/service_lib.sh
source "$HERE/service_lib.sh"
fresh_database

# ---- what gpuscan_info() shows ----
# the server may have just started: wait for the service to be past its start
service_started
check "gpuscan_info(): the service runs" "$(info gpu_service)" \
	'^running \(pid [0-9]+, since [0-9-]+ [0-9:.+]+\): ([0-9]+ GPUs? found|no GPU usable: .+)$'
devices=$(q -c "SELECT item || '=' || value FROM gpuscan_info() WHERE item LIKE 'gpu_service_device%' ORDER BY item")
if gpu_usable; then
	check "gpuscan_info(): the service's GPUs, from the service" "$devices" \
		'gpu_service_device 0=.+, [0-9.]+ GiB, [0-9]+ SMs, compute capability [0-9]+\.[0-9]+'
else
	check "gpuscan_info(): no GPU in the service, and why" "$devices" \
		'^gpu_service_device_count=0 \(.+\)$'
fi
base=$(channels_in_use)
check "gpuscan_info(): the channels in use" "$base" '^[0-9]+$'
pid=$(service_pid)

# ---- a statement timeout while waiting ----
# the service holds the request 10 s; the statement's time is measured in
# the server, from before it to after its error (psql's start not included)
out=$(q <<-'SQL'
	SET gpuscan.debug_service_delay_ms = 10000;
	SET statement_timeout = '300ms';
	SELECT clock_timestamp() AS started \gset
	SELECT count(*) FROM gpuscan_info();
	SELECT 'took ' || round(1000 * extract(epoch FROM clock_timestamp() - :'started'::timestamptz)) || ' ms';
	SQL
)
check "a statement timeout ends the wait (57014)" "$out" '^ERROR:  57014: canceling statement due to statement timeout'
ms=$(sed -nE 's/^took ([0-9]+) ms$/\1/p' <<<"$out")
printf 'figure: statement_timeout = 300ms while the service holds the request 10 s: the statement ended after %s ms (in the server)\n' "${ms:-?}"
# what must hold: the timeout ended the wait, not the service's answer
if [ -n "$ms" ] && [ "$ms" -lt 5000 ]; then
	tally_ok "the timeout, not the service's answer 10 s later, ended the statement (${ms} ms)"
else
	printf '    output: %s\n' "$out"
	tally_fail "the timeout, not the service's answer 10 s later, ended the statement (${ms:-no} ms)"
fi
# the abandoned request stops in the service; the next one is answered
check "the next request is answered" "$(channels_in_use)" '^[0-9]+$'

# ---- a session terminated while waiting ----
# its request held 60 s: it is terminated while it waits, seen waiting first
q -c "SET application_name = 'service_check_victim'" -c "SET gpuscan.debug_service_delay_ms = 60000" \
	-c "SELECT count(*) FROM gpuscan_info()" >/dev/null 2>&1 &
victim=$!
if poll 30 waiting_for_service service_check_victim; then
	tally_ok "the victim waits for the service (pg_stat_activity: active, wait event Extension)"
	out=$(q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'service_check_victim'")
	wait "$victim"
	check "pg_terminate_backend of a session waiting for the service" "$out" '^t$'
	# its exit abandons the request, which the service stops at its next step
	poll 30 shows channels_in_use "$base"
	check_eq "its channel is free again once the service is done with it" "$(channels_in_use)" "$base"
else
	tally_fail "the victim waits for the service (pg_stat_activity: active, wait event Extension)"
	q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'service_check_victim'" >/dev/null
	wait "$victim"
fi
check_eq "the service runs on" "$(service_pid)" "$pid"

# ---- the device cache of stored arrays (where the service has a GPU) ----
service_gpus=$(info gpu_service_device_count | sed -nE 's/^([0-9]+).*/\1/p')
# cpu_sum ID -- gpu_sum of row ID on the CPU path, the bits every path must give
cpu_sum() { q -c "SET gpuscan.device = cpu" -c "SELECT gpu_sum(a) FROM cache_t WHERE id = $1"; }
# cached_sum ID [SETTINGS] -- gpu_sum of row ID in a new session, auto unless SETTINGS say
cached_sum() { q -c "SET client_min_messages = warning${2:+; $2}" -c "SELECT gpu_sum(a) FROM cache_t WHERE id = $1"; }
# evictions_now -- the evictions that gpuscan_info() counts
evictions_now() { info gpu_service_cache | sed -nE 's/.* ([0-9]+) evictions$/\1/p'; }
# the checks of this part, run where the service has a GPU and skipped (and
# counted) where it has none
CACHE_CHECKS=66
if [ "${service_gpus:-0}" -gt 0 ]; then
	gpu_part "$CACHE_CHECKS"
	# the checks up to the placement's follow one GPU's process: GPU 0
	q -c "ALTER DATABASE $DB SET gpuscan.placement = fixed" >/dev/null
	# three rows of 800 kB each, stored out of line, uncompressed
	q -c "CREATE TABLE cache_t (id integer, a double precision[])" \
		-c "ALTER TABLE cache_t ALTER COLUMN a SET STORAGE EXTERNAL" \
		-c "INSERT INTO cache_t SELECT g, (SELECT array_agg(sin(g * 1000 + i)) FROM generate_series(1, 100000) i) FROM generate_series(1, 3) g" \
		-c "SELECT gpuscan_cache_reset()" >/dev/null
	want1=$(cpu_sum 1)
	check_eq "the cache: a first call loads the array, the CPU path's bits" "$(cached_sum 1)" "$want1"
	check_eq "one entry for it in gpuscan_cache" "$(q -c "SELECT count(*) FROM gpuscan_cache WHERE relation = 'cache_t'::regclass")" 1
	out=$(q -c "SELECT gpu_sum(a) FROM cache_t WHERE id = 1" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_sum'")
	check_eq "another session hits it (gpuscan_stats)" "$out" "$want1"$'\n'"gpu service, cached"
	check_eq "gpuscan_cache counts the hit" "$(q -c "SELECT hits FROM gpuscan_cache WHERE relation = 'cache_t'::regclass")" 1
	out=$(q -c "SET gpuscan.debug_service_delay_ms = 8000" -c "SET statement_timeout = '300ms'" \
		-c "SELECT gpu_sum(a) FROM cache_t WHERE id = 1")
	check "a timeout while a cached call waits (57014)" "$out" '^ERROR:  57014: canceling statement due to statement timeout'
	# the abandoned request stops where it is (here: in its delay, before it
	# looks at the cache), and the next call does not wait for it
	cache_hits() { q -c "SELECT hits FROM gpuscan_cache WHERE relation = 'cache_t'::regclass"; }
	check_eq "the next call answers, from the same entry" "$(cached_sum 1 "SET gpuscan.device = gpu")" "$want1"
	# the hits are counted once no request runs: had the abandoned one gone
	# on (its delay is 8 s, the deadline 30 s), it would have hit too
	poll 30 shows requests_busy 0
	check_eq "the abandoned request stopped without using the entry (no request left; one hit each for the two calls)" \
		"$(requests_busy) $(cache_hits)" "0 2"
	check_eq "gpuscan.cache = off: the CPU path, no hit" \
		"$(q -c "SET gpuscan.cache = off" -c "SELECT gpu_sum(a) FROM cache_t WHERE id = 1" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_sum'")" \
		"$want1"$'\n'"cpu"

	# a compaction: the flags sent with the call, the values those gpu_sum loaded
	comp="SELECT md5(gpu_compact_array(a, (SELECT array_agg(i % 3 = 0) FROM generate_series(1, 100000) i))::text) FROM cache_t WHERE id = 1"
	want=$(q -c "SET gpuscan.device = cpu" -c "$comp")
	check_eq "gpu_compact_array hits the array gpu_sum loaded, the CPU path's bits" \
		"$(q -c "$comp" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_compact_array'")" \
		"$want"$'\n'"gpu service, cached"

	# the positions of stored flags: the flags loaded by one session, hit by another
	q -c "CREATE TABLE cache_k (k boolean[])" -c "ALTER TABLE cache_k ALTER COLUMN k SET STORAGE EXTERNAL" \
		-c "INSERT INTO cache_k SELECT array_agg(CASE WHEN i % 11 = 0 THEN NULL ELSE i % 3 = 0 END) FROM generate_series(1, 400000) i" >/dev/null
	idx="SELECT md5(gpu_compact_indices_array(k)::text) FROM cache_k"
	want=$(q -c "SET gpuscan.device = cpu" -c "$idx")
	check_eq "gpu_compact_indices_array: a first call loads the flags, the CPU path's bits" \
		"$(q -c "$idx" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_compact_indices_array'")" \
		"$want"$'\n'"gpu service, loaded"
	check_eq "another session hits them" \
		"$(q -c "$idx" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_compact_indices_array'")" \
		"$want"$'\n'"gpu service, cached"

	# a stored matrix: loaded by one session, hit by another, the CPU path's bits
	q -c "CREATE TABLE cache_m (row_ptr integer[], col_idx integer[], vals double precision[], x double precision[])" \
		-c "INSERT INTO cache_m SELECT (SELECT array_agg(i * 8) FROM generate_series(0, 50000) i),
		      (SELECT array_agg(((i::bigint * 7919) % 50000)::integer) FROM generate_series(0, 399999) i),
		      (SELECT array_agg(sin(i)) FROM generate_series(0, 399999) i),
		      (SELECT array_agg(cos(i)) FROM generate_series(0, 49999) i)" >/dev/null
	spmv="SELECT md5(gpu_csr_spmv(row_ptr, col_idx, vals, x)::text) FROM cache_m"
	want=$(q -c "SET gpuscan.device = cpu" -c "$spmv")
	check_eq "gpu_csr_spmv: a first call loads the matrix, the CPU path's bits" \
		"$(q -c "$spmv" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_csr_spmv'")" \
		"$want"$'\n'"gpu service, loaded"
	check_eq "another session hits it" \
		"$(q -c "$spmv" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_csr_spmv'")" \
		"$want"$'\n'"gpu service, cached"
	check_eq "gpuscan_cache: its three arrays and its plan" \
		"$(q -c "SELECT string_agg(kind || ' ' || coalesce(element_type::text, '-') || ' ' || hits, ', ' ORDER BY kind, element_type, elements) FROM gpuscan_cache WHERE relation = 'cache_m'::regclass")" \
		"array integer 1, array integer 1, array double precision 1, spmv plan - 1"
	q -c "DROP TABLE cache_m" >/dev/null

	# stored arrays of 8 MB or more stream: from the cache, or on a miss from
	# their TOAST slices into it, the answers back chunk by chunk (chunks of
	# 1 MB, gpuscan.debug_chunk_size: a dozen of them)
	q -c "CREATE TABLE cache_big (id integer, a double precision[], k boolean[])" \
		-c "ALTER TABLE cache_big ALTER COLUMN a SET STORAGE EXTERNAL" \
		-c "ALTER TABLE cache_big ALTER COLUMN k SET STORAGE EXTERNAL" \
		-c "INSERT INTO cache_big SELECT 1, array_agg(sin(i) * 1e3), array_agg(i % 3 <> 0) FROM generate_series(1, 1500000) i" \
		-c "INSERT INTO cache_big SELECT 2, '[-5:-5]={0.5}'::float8[] || array_agg(cos(i)), array_agg(false) || false FROM generate_series(1, 1500000) i" \
		-c "SELECT gpuscan_cache_reset()" >/dev/null
	small="SET gpuscan.debug_chunk_size = '1MB'"
	# bits DEVICE QUERY [FUNCTION] -- QUERY's output under gpuscan.device = DEVICE (and FUNCTION's paths)
	bits() { q -c "$small; SET gpuscan.device = $1" -c "$2" ${3:+-c "SELECT string_agg(DISTINCT path, ', ') FROM gpuscan_stats() WHERE function = '$3'"}; }
	# prefix ID -- the prefix sums of row ID: their digest and lower bound, one call
	prefix() { echo "SELECT md5(array_send(p)), array_lower(p, 1) FROM (SELECT gpu_prefix_sum_array(a) p FROM cache_big WHERE id = $1 OFFSET 0) s"; }
	want=$(bits cpu "$(prefix 1)")
	check_eq "a stored array of 12 MB: gpu_prefix_sum_array's first call streams it into the cache, the CPU path's bits" \
		"$(bits gpu "$(prefix 1)" gpu_prefix_sum_array)" "$want"$'\n'"gpu service, loaded"
	check_eq "the next streams its sums from the cache" \
		"$(bits gpu "$(prefix 1)" gpu_prefix_sum_array)" "$want"$'\n'"gpu service, cached"
	want=$(bits cpu "$(prefix 2)")
	check_eq "lower bound -5: loaded and cached, the CPU path's bits and bound" \
		"$(bits gpu "$(prefix 2)"; bits gpu "$(prefix 2)")" "$want"$'\n'"$want"
	excl="SELECT md5(array_send(gpu_prefix_sum_array(a, true))) FROM cache_big"
	check_eq "exclusive prefix sums from the cache: the CPU path's bits" "$(bits gpu "$excl")" "$(bits cpu "$excl")"
	comp="SELECT md5(array_send(c)), cardinality(c) FROM (SELECT id, gpu_compact_array(a, k) c FROM cache_big OFFSET 0) s ORDER BY id"
	want=$(bits cpu "$comp")
	check_eq "gpu_compact_array from the cache, two thirds kept and none: the CPU path's bits" \
		"$(bits gpu "$comp" gpu_compact_array)" "$want"$'\n'"gpu service, cached"
	# a call from the cache says where its time went at DEBUG1, as every call does
	for f in "gpu_prefix_sum_array(a)" "gpu_compact_array(a, k)"; do
		out=$(q -c "$small; SET gpuscan.device = gpu; SET client_min_messages = debug1" \
			-c "SELECT cardinality($f) FROM cache_big WHERE id = 1")
		check_eq "${f%%(*} from the cache: its profile line at DEBUG1" \
			"$(grep -Ec "gpuscan profile: ${f%%(*} gpu 1500000 elements [0-9.]+ ms:.* other -?[0-9.]+\$" <<<"$out")" 1
	done
	rows="SELECT id, count(*), sum(x) FROM cache_big, gpu_prefix_sum(a) x GROUP BY id UNION ALL
	      SELECT id, count(*), sum(x) FROM cache_big, gpu_compact(a, k) x GROUP BY id ORDER BY 1, 2"
	check_eq "the row forms from the cache: the CPU path's rows" "$(bits gpu "$rows")" "$(bits cpu "$rows")"
	# row 2 cached, row 1 not: a cancel in the third chunk stops a load and a call from the cache
	q -c "SELECT gpuscan_cache_reset()" -c "$small; SET gpuscan.device = gpu" -c "$(prefix 2)" >/dev/null
	out=$(q -c "$small; SET gpuscan.device = gpu; SET gpuscan.debug_cancel_after_chunks = 3" \
		-c "$(prefix 1)" -c "$(prefix 2)")
	check_eq "a cancel in the third chunk of a load and of a call from the cache: 57014 for each" \
		"$(grep -c '^ERROR:  57014: canceling statement due to user request' <<<"$out")" 2
	poll 30 shows requests_busy 0
	check_eq "nothing left: no request, no staging; row 2 still cached, row 1 not half-loaded" \
		"$(requests_busy) $(staging_in_use) $(q -c "SELECT count(*) FROM gpuscan_cache WHERE relation = 'cache_big'::regclass")" "0 0.0 1"
	q -c "DROP TABLE cache_big" >/dev/null

	# flags of 8 MB or more stored out of line, without NULLs: read from their
	# TOAST slices into each chunk's slot, both when the values load into the
	# cache and when they come from it; with a NULL, read whole as before
	q -c "CREATE TABLE flags_big (id integer, a real[], k boolean[])" \
		-c "ALTER TABLE flags_big ALTER COLUMN a SET STORAGE EXTERNAL" \
		-c "ALTER TABLE flags_big ALTER COLUMN k SET STORAGE EXTERNAL" \
		-c "INSERT INTO flags_big SELECT 1, array_agg(sin(i)::real), array_agg(i % 7 < 3) FROM generate_series(1, 9000000) i" \
		-c "INSERT INTO flags_big SELECT 2, array_agg(cos(i)::real), array_agg(CASE WHEN i = 4321 THEN NULL ELSE i % 5 = 0 END) FROM generate_series(1, 9000000) i" \
		-c "SELECT gpuscan_cache_reset()" >/dev/null
	# flags_cached -- the arrays of flags_big the cache holds: type, elements and hits
	flags_cached() { q -c "SELECT string_agg(element_type::regtype || ' ' || elements || ' ' || hits, ', ' ORDER BY element_type::regtype::text) FROM gpuscan_cache WHERE relation = 'flags_big'::regclass"; }
	for id in 1 2; do
		comp="SELECT md5(array_send(c)), cardinality(c) FROM (SELECT gpu_compact_array(a, k) c FROM flags_big WHERE id = $id OFFSET 0) s"
		want=$(bits cpu "$comp")
		check_eq "stored flags of 9 MB$([ $id = 2 ] && echo ", one NULL"): gpu_compact_array loads its values, then takes them from the cache, the CPU path's bits" \
			"$(bits gpu "$comp" gpu_compact_array; bits gpu "$comp" gpu_compact_array)" \
			"$want"$'\n'"gpu service, loaded"$'\n'"$want"$'\n'"gpu service, cached"
		# stored without NULLs the flags are kept too, and the second call takes them from the cache
		check_eq "stored flags of 9 MB$([ $id = 2 ] && echo ", one NULL, not kept"): the arrays cached, and their hits" \
			"$(flags_cached)" "$([ $id = 1 ] && echo "boolean 9000000 1, real 9000000 1" || echo "real 9000000 1")"
		q -c "SELECT gpuscan_cache_reset()" >/dev/null
	done
	# one of the two cached: the other is loaded while the call runs
	comp="SELECT md5(array_send(c)), cardinality(c) FROM (SELECT gpu_compact_array(a, k) c FROM flags_big WHERE id = 1 OFFSET 0) s"
	want=$(bits cpu "$comp")
	for first in "gpu_sum(a)" "cardinality(gpu_compact_indices_array(k))"; do
		out=$(q -c "$small; SET gpuscan.device = gpu" -c "SELECT $first FROM flags_big WHERE id = 1")
		check_eq "the values or the flags cached by $first: gpu_compact_array loads the other, then takes both from the cache, the CPU path's bits" \
			"$(grep -c ERROR <<<"$out"; bits gpu "$comp" gpu_compact_array; bits gpu "$comp" gpu_compact_array; flags_cached)" \
			"0"$'\n'"$want"$'\n'"gpu service, loaded"$'\n'"$want"$'\n'"gpu service, cached"$'\n'"boolean 9000000 $([ "$first" = "gpu_sum(a)" ] && echo 1 || echo 2), real 9000000 $([ "$first" = "gpu_sum(a)" ] && echo 2 || echo 1)"
		q -c "SELECT gpuscan_cache_reset()" >/dev/null
	done
	rows="SELECT count(*), sum(x) FROM flags_big, gpu_compact(a, k) x WHERE id = 1"
	check_eq "the row form with stored flags: the CPU path's count and sum" "$(bits gpu "$rows"; bits gpu "$rows")" "$(bits cpu "$rows")"$'\n'"$(bits cpu "$rows")"
	q -c "DROP TABLE flags_big" >/dev/null

	# eviction: room for one of the three, once the service has the bound
	# (gpuscan_info() shows the bound the service last applied)
	cache_bound() { info gpu_service_cache | sed -nE 's/.* MB of ([0-9.]+) MB per GPU;.*/\1/p'; }
	q -c "ALTER SYSTEM SET gpuscan.cache_size = '1MB'" -c "SELECT pg_reload_conf()" >/dev/null
	poll 30 shows cache_bound 1.0
	check_eq "after pg_reload_conf() the service applies gpuscan.cache_size = 1MB (gpuscan_info)" "$(cache_bound)" 1.0
	want2=$(cpu_sum 2)
	want3=$(cpu_sum 3)
	q -c "SELECT gpuscan_cache_reset()" >/dev/null
	evictions=$(evictions_now)
	got="$(cached_sum 2) $(cached_sum 3) $(cached_sum 1)"
	check_eq "gpuscan.cache_size = 1MB: three arrays in turn, the CPU path's bits" "$got" "$want2 $want3 $want1"
	check_eq "one entry stays" "$(q -c "SELECT count(*) FROM gpuscan_cache WHERE relation = 'cache_t'::regclass")" 1
	check "at most 1 MB in the cache (gpuscan_info)" "$(info gpu_service_cache)" \
		'^1 entries, 0\.8 MB of 1\.0 MB per GPU; '
	check_eq "each load after the first evicted the entry before" "$(( $(evictions_now) - evictions ))" 2
	q -c "ALTER SYSTEM RESET gpuscan.cache_size" -c "SELECT pg_reload_conf()" >/dev/null
	# the default: a quarter of the GPU's memory
	poll 30 shows_other cache_bound 1.0
	bound=$(cache_bound)
	check_eq "and applies its reset (the default bound: ${bound:-none} MB)" \
		"$([ -n "$bound" ] && [ "$bound" != 1.0 ] && echo reset)" reset

	# eight sessions at once, three cached calls each (the service's threads
	# run them side by side): the CPU path's bits every time
	got=$(for s in 1 2 3 4 5 6 7 8; do
		(line=$(for id in 1 2 3; do cached_sum "$id" "SET gpuscan.device = gpu"; done | tr '\n' ' ')
		 printf '%s\n' "$line") &
	done; wait)
	check_eq "eight sessions at once: 8 x 3 calls, the CPU path's bits" \
		"$(sort <<<"$got" | uniq -c | sed 's/^ *//')" "8 $want1 $want2 $want3 "

	# the staging area: requests' data and answers go through it, and a
	# session gives its room back after each call
	staging() { info gpu_service_staging; }
	staged_count() { staging | sed -nE 's/.* ([0-9]+) requests through it, ([0-9]+) through segments.*/\1 \2/p'; }
	check "gpuscan_info(): the staging area" "$(staging)" '^[0-9.]+ MB of shared memory, '
	check "pinned by GPU 0's process" "$(info 'gpu_service_device 0 work')" '; staging pinned$'
	read -r staged0 segments0 <<<"$(staged_count)"
	prefix="SELECT md5(gpu_prefix_sum_array(a)::text) FROM cache_t WHERE id = 2"
	want=$(q -c "SET gpuscan.device = cpu" -c "$prefix")
	check_eq "gpu_prefix_sum_array through the staging area: the CPU path's bits" \
		"$(q -c "SET gpuscan.device = gpu" -c "$prefix")" "$want"
	check_eq "through a segment of its own (gpuscan.debug_service_segments): the same bits" \
		"$(q -c "SET gpuscan.device = gpu; SET gpuscan.debug_service_segments = on" -c "$prefix")" "$want"
	read -r staged1 segments1 <<<"$(staged_count)"
	check "requests went through each" "$((staged1 - staged0)) $((segments1 - segments0))" '^[1-9][0-9]* [1-9][0-9]*$'
	check "the staging area is all free again" "$(staging)" ', 0\.0 MB in use;'

	# values in memory (built in the query, not stored): the service runs them too
	mem="SELECT gpu_sum(v), md5(gpu_prefix_sum_array(v)::text), md5(gpu_compact_array(v, k)::text),
	        md5(gpu_compact_indices_array(k)::text), md5(gpu_csr_spmv(rp, ci, w, x)::text),
	        md5(gpu_pagerank(rp, ci)::text)
	     FROM (SELECT array_agg(sin(i)) v, array_agg(i % 3 = 0) k FROM generate_series(1, 300000) i) a,
	          (SELECT array_agg(i * 8) rp FROM generate_series(0, 5000) i) b,
	          (SELECT array_agg(((i::bigint * 7919) % 5000)::integer) ci, array_agg(cos(i)) w
	           FROM generate_series(0, 39999) i) c,
	          (SELECT array_agg(1.0 / i) x FROM generate_series(1, 5000) i) d"
	agg="SELECT gpu_sum(sin(i)) FROM generate_series(1, 300000) i"
	gpu_all="SET gpuscan.device = gpu; SET gpuscan.gpu_min_elements = 0"
	want=$(q -c "SET gpuscan.device = cpu" -c "$mem" -c "$agg")
	check_eq "values in memory, gpuscan.device = gpu: every function and the aggregate give the CPU path's bits" \
		"$(q -c "$gpu_all" -c "$mem" -c "$agg")" "$want"
	check_eq "all in the GPU service (gpuscan_stats)" \
		"$(q -c "$gpu_all" -c "$mem" -c "$agg" -c "SELECT string_agg(DISTINCT path, ', ') FROM gpuscan_stats()")" \
		"$want"$'\n'"gpu service"
	# SpMV and PageRank stream their arrays whole where they take more than a
	# chunk (gpuscan.debug_chunk_size = 1MB: about 20 chunks each way)
	whole="SELECT md5(array_send(gpu_csr_spmv(rp, ci, w, x))), md5(array_send(gpu_csr_spmv(rp, ci, w::real[], x::real[]))),
	        md5(array_send(gpu_pagerank(rp, ci)))
	     FROM (SELECT array_agg(i * 8) rp FROM generate_series(0, 125000) i) b,
	          (SELECT array_agg(((i::bigint * 7919) % 125000)::integer) ci, array_agg(sin(i)) w
	           FROM generate_series(0, 999999) i) c,
	          (SELECT array_agg(cos(i)) x FROM generate_series(1, 125000) i) d"
	check_eq "SpMV and PageRank of 10^6 non-zeros streamed in chunks of 1 MB: the CPU path's bits" \
		"$(q -c "$gpu_all; $small" -c "$whole")" "$(q -c "SET gpuscan.device = cpu" -c "$whole")"
	out=$(q -c "$gpu_all; $small; SET gpuscan.debug_cancel_after_chunks = 2" -c "$whole")
	poll 30 shows requests_busy 0
	check_eq "a cancel in their second chunk: 57014, and nothing left (no request, no staging)" \
		"$(grep -c '^ERROR:  57014: canceling statement due to user request' <<<"$out") $(requests_busy) $(staging_in_use)" "1 0 0.0"
	# gpuscan.device = auto takes the service too where the work is large
	arr="SELECT gpu_sum(array_agg(sin(i))) FROM generate_series(1, 300000) i"
	check_eq "auto (gpuscan.gpu_min_elements = 1000): the service, the same bits" \
		"$(q -c "SET gpuscan.gpu_min_elements = 1000" -c "$arr" -c "SELECT path FROM gpuscan_stats()")" \
		"$(tail -n 1 <<<"$want")"$'\n'"gpu service"
	# a value larger than the staging area's room for one request (a chunk
	# each) and through segments of their own: the same bits
	big="SELECT gpu_sum(v), md5(gpu_prefix_sum_array(v)::text) FROM (SELECT array_agg(sin(i)) v FROM generate_series(1, 5000000) i) a"
	want=$(q -c "SET gpuscan.device = cpu" -c "$big")
	check_eq "5,000,000 values in chunks, through the staging area: the CPU path's bits" \
		"$(q -c "$gpu_all" -c "$big")" "$want"
	check_eq "and through segments of their own" \
		"$(q -c "$gpu_all; SET gpuscan.debug_service_segments = on" -c "$big")" "$want"

	# a fault in the service during a cached call
	pid=$(service_pid)
	check_eq "a fault in the service during a cached call: auto answers on the CPU" \
		"$(cached_sum 1 "SET gpuscan.debug_service_fault = on")" "$want1"
	new_pid=$(new_service_pid "$pid")
	check "the service starts again (pid $pid, then ${new_pid:-none})" "${new_pid:-none}" "^[0-9]+\$"
	check_eq "with an empty cache" "$(q -c "SELECT count(*) FROM gpuscan_cache")" 0
	check_eq "the next call loads the array again" \
		"$(q -c "SELECT gpu_sum(a) FROM cache_t WHERE id = 1" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_sum'")" \
		"$want1"$'\n'"gpu service, loaded"
	pid=$(service_pid)
	out=$(cached_sum 1 "SET gpuscan.device = gpu; SET gpuscan.debug_service_fault = on")
	check "gpuscan.device = gpu: the fault is an ERROR (55000)" "$out" \
		'^ERROR:  55000: gpu_sum: the gpuscan GPU service could not run the call'
	new_pid=$(new_service_pid "$pid")
	check_eq "and the call after it answers" "$(cached_sum 1 "SET gpuscan.device = gpu")" "$want1"
	q -c "SELECT gpuscan_cache_reset()" >/dev/null

	# placement over the GPUs (affinity): each array's calls go to the GPU
	# that holds it; the first loads spread over the GPUs
	q -c "ALTER DATABASE $DB RESET gpuscan.placement" >/dev/null
	for id in 1 2 3; do cached_sum "$id" >/dev/null; done
	check_eq "gpuscan.placement = affinity: three arrays loaded, then hit, the CPU path's bits" \
		"$(cached_sum 1) $(cached_sum 2) $(cached_sum 3)" "$want1 $want2 $want3"
	check_eq "each array cached once and hit once, on the GPU that holds it" \
		"$(q -c "SELECT count(*) || ' ' || bool_and(hits = 1) FROM gpuscan_cache WHERE relation = 'cache_t'::regclass")" "3 true"
	check_eq "the loads spread over the GPUs (the service has $service_gpus)" \
		"$(q -c "SELECT count(DISTINCT device) FROM gpuscan_cache")" "$((service_gpus < 3 ? service_gpus : 3))"
	check "gpuscan_stats() names the GPU" \
		"$(q -c "SELECT gpu_sum(a) FROM cache_t WHERE id = 2" -c "SELECT path || ' on GPU ' || device FROM gpuscan_stats() WHERE function = 'gpu_sum'")" \
		'^gpu service, cached on GPU [0-9]+$'
	check "gpuscan_info(): each GPU's process and its counters" "$(info 'gpu_service_device 0 work')" \
		'^served by pid [0-9]+; [0-9]+ requests, [0-9.]+ ms each lately; placed [0-9]+ by cache, [0-9]+ least busy, [0-9]+ fixed, [0-9]+ split; [0-9]+ left to the session \(queue\); cache [0-9]+ entries, '
	# a stored array split over the GPUs (gpuscan.split_min_size = 0: any
	# size; one GPU: not split)
	q -c "SELECT gpuscan_cache_reset()" >/dev/null
	split="SET gpuscan.split_min_size = 0"
	paths="gpu service"
	parts="array on GPU 0"
	if [ "$service_gpus" -ge 2 ]; then
		paths="gpu service, split"
		parts=$(for ((g = 0; g < service_gpus; g++)); do printf 'array part %d of %d on GPU %d, ' $((g + 1)) "$service_gpus" "$g"; done)
		parts=${parts%, }
	fi
	check_eq "gpuscan.split_min_size = 0: a first call loads a part on each GPU, the CPU path's bits" \
		"$(q -c "$split" -c "SELECT gpu_sum(a) FROM cache_t WHERE id = 1" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_sum'")" \
		"$want1"$'\n'"$paths, loaded"
	check_eq "another session sums the cached parts, the same bits" \
		"$(q -c "$split" -c "SELECT gpu_sum(a) FROM cache_t WHERE id = 1" -c "SELECT path FROM gpuscan_stats() WHERE function = 'gpu_sum'")" \
		"$want1"$'\n'"$paths, cached"
	check_eq "gpuscan_cache: the parts, one on each GPU" \
		"$(q -c "SELECT string_agg(kind || ' on GPU ' || device, ', ' ORDER BY device) FROM gpuscan_cache")" "$parts"
	check_eq "gpuscan_cache_reset() empties every GPU's cache" \
		"$(q -c "SELECT gpuscan_cache_reset()" -c "SELECT count(*) FROM gpuscan_cache")" "$((service_gpus < 2 ? 1 : service_gpus))"$'\n'"0"
	gpu_part_end
else
	check_eq "no GPU in the service: no cache entries" "$(q -c "SELECT count(*) FROM gpuscan_cache")" 0
	tally_skip_service "$CACHE_CHECKS" "$CACHE_CHECKS checks of the device cache, the staging area, values in memory, faults during cached calls and placement: the service has no GPU: $(no_gpu_why)"
fi

# ---- a fault in the service ----
pid=$(service_pid)
pm_start=$(q -c "SELECT pg_postmaster_start_time()")
# a request that is waited for (gpuscan_info() only reports: it does not wait)
out=$(q -c "SET gpuscan.debug_service_fault = on" -c "SELECT gpuscan_cache_reset()")
check "a fault in the service: the waiting request fails (55000)" "$out" \
	'^ERROR:  55000: the gpuscan GPU service stopped before it answered'
new_pid=$(new_service_pid "$pid")
check "the service starts again (pid $pid, then ${new_pid:-none})" "${new_pid:-none}" "^[0-9]+\$"
check_eq "without a restart of the server" "$(q -c "SELECT pg_postmaster_start_time()")" "$pm_start"
check "the request after the fault is answered" "$(channels_in_use)" '^[0-9]+$'

tally_exit
