#!/usr/bin/env bash
# One session on a machine with an NVIDIA GPU and a running PostgreSQL server
# (PGHOST/PGPORT/PGUSER and PG_CONFIG exported, e.g. by the relocatable bundle's
# pg-up.sh): the whole test suite with the GPU path forced, then benchmarks.
#
#   bash bench/gpu-session.sh [check] [unit] [regress] [faults] [stored] [paths]
#                             [load] [cancel] [asan] [kernels SECTION...] [sql]
#
#   check    test/check.sh against the running server: pg_regress on the CPU
#            path and with the GPU forced, unit tests with the GPU required,
#            shell checks, the load test on both paths
#   unit     the unit tests alone, with the GPU required (built on all cores)
#   regress  bench/gpu_regress.sh: pg_regress on the CPU path and with the
#            GPU forced through the service, test/service_check.sh, and on a
#            server without the preload gpuscan.device = gpu an error, auto
#            on the CPU
#   faults   test/service_faults.sh on the running server (preloaded)
#   stored   bench/stored_bench.sh on the running server: stored arrays on
#            the CPU path, a cache miss and cached
#   paths    bench/service_path_bench.sh -: the CPU path and the service
#            path taking turns in one session, SERVICE_ROUNDS (2) server
#            runs, into $OUT/paths/rounds.md; with PATHS_OLD_TREE (a copy of
#            an old build's sources, one that still has the session's own GPU
#            path) bench/service_path_bench.sh PATHS_OLD_TREE instead: that
#            build's three paths against this tree's two, SERVICE_ROUNDS
#            pairs, into $OUT/paths/two-trees.md.  It restarts the server
#            (pg_restart, exported: export -f pg_restart), so last
#   load     the pgbench load test with the GPU path forced, 16 clients for
#            60 s, device memory before, during and after
#   cancel   bench/cancel_latency.sh on both paths
#   asan     the unit tests under ASan and UBSan with the kernels' host side
#            instrumented (make unit-asan ASAN_CUDA=1)
#
# Logs and result tables go to $OUT (default /tmp/gpuscan-out); the tables
# are also saved under bench/results/.  A short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/gpuscan-out}
mkdir -p "$OUT"
summary=$OUT/summary.txt
: > "$summary"
touch "$OUT/.start"		# result tables newer than this are this session's

note() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader \
	> "$OUT/device.txt" 2>&1
note "device: $(head -1 "$OUT/device.txt")"
note "date: $(date -u +%Y-%m-%dT%H:%MZ)"

kernel_sections=()
steps=()
while [ $# -gt 0 ]; do
	case "$1" in
		kernels)
			steps+=(kernels)
			shift
			while [ $# -gt 0 ] && ! [[ "$1" =~ ^(check|unit|regress|faults|stored|paths|load|cancel|asan|sql)$ ]]; do
				kernel_sections+=("$1")
				shift
			done
			;;
		*) steps+=("$1"); shift ;;
	esac
done
[ ${#steps[@]} -gt 0 ] || steps=(check kernels sql)

for step in "${steps[@]}"; do
	case "$step" in
		check)
			# pg_regress on the CPU path and with the GPU forced, unit tests
			# with the GPU required, shell checks
			GPUSCAN_USE_RUNNING_SERVER=1 bash test/check.sh > "$OUT/check.log" 2>&1
			note "check: $(tail -1 "$OUT/check.log")"
			grep -E "^== pg_regress|unit:|^(ok|FAIL|not ok)" "$OUT/check.log" | tee -a "$summary"
			;;
		unit)
			make -s -j"$(nproc)" test/unit/gpuscan_unit > "$OUT/unit.log" 2>&1 &&
				GPUSCAN_REQUIRE_GPU=1 ./test/unit/gpuscan_unit >> "$OUT/unit.log" 2>&1
			note "unit: exit $? $(tail -1 "$OUT/unit.log")"
			;;
		regress)
			bash bench/gpu_regress.sh "$OUT/regress" > "$OUT/regress.log" 2>&1
			note "regress: exit $? $(tail -1 "$OUT/regress.log")"
			;;
		faults)
			bash test/service_faults.sh > "$OUT/faults.log" 2>&1
			note "faults: exit $? $(tail -1 "$OUT/faults.log")"
			;;
		stored)
			GPUSCAN_USE_RUNNING_SERVER=1 bash bench/stored_bench.sh > "$OUT/stored.md" 2>&1
			note "stored: exit $?"
			grep '^target:' "$OUT/stored.md" | tee -a "$summary" >/dev/null
			;;
		paths)
			SERVICE_ROUNDS=${SERVICE_ROUNDS:-2} SERVICE_RUNS=${SERVICE_RUNS:-7} \
				bash bench/service_path_bench.sh "${PATHS_OLD_TREE:--}" "$OUT/paths" > "$OUT/paths.log" 2>&1
			note "paths: exit $?"
			if [ -n "${PATHS_OLD_TREE:-}" ]; then
				cat "$OUT/paths/two-trees.md" >> "$summary" 2>/dev/null
			else
				tee -a "$summary" < "$OUT/paths/rounds.md" >/dev/null 2>&1 ||
					cat "$OUT/paths/paths.md" >> "$summary" 2>/dev/null
			fi
			;;
		kernels)
			make -s -j"$(nproc)" bench/kernel_bench > "$OUT/kernels-build.log" 2>&1 ||
				{ note "kernels: build failed"; tail -20 "$OUT/kernels-build.log"; continue; }
			# the PostgreSQL bundle's older libstdc++ must not shadow the system one
			env -u LD_LIBRARY_PATH KERNEL_BENCH_BUILD=0 bash bench/run-kernels.sh "${kernel_sections[@]}" \
				> "$OUT/kernels.log" 2>&1
			note "kernels: exit $?"
			find bench/results -name 'kernels-*.md' -newer "$OUT/.start" -exec cp {} "$OUT/" \;
			grep -E "ratio|FAIL" "$OUT/kernels.log" | head -40 | tee -a "$summary"
			;;
		load)
			bash test/load/run.sh --gpu-memory 16 60 \
				'-c gpuscan.device=gpu -c gpuscan.gpu_min_elements=0' > "$OUT/load-gpu-60s.log" 2>&1
			note "load (GPU forced, 16 clients, 60 s): $(tail -1 "$OUT/load-gpu-60s.log")"
			grep -E '^load: (before|during|after)' "$OUT/load-gpu-60s.log" | tee -a "$summary"
			;;
		cancel)
			for path in cpu gpu; do
				opts="-c gpuscan.device=$path"
				[ "$path" = gpu ] && opts="$opts -c gpuscan.gpu_min_elements=0"
				PGOPTIONS="$opts" bash bench/cancel_latency.sh > "$OUT/cancel-$path.txt" 2>&1
				note "cancel ($path path): $(tail -1 "$OUT/cancel-$path.txt")"
			done
			;;
		asan)
			make -s -j"$(nproc)" ASAN_CUDA=1 unit-asan > "$OUT/unit-asan-cuda.log" 2>&1
			note "unit-asan with the kernels: exit $? $(tail -1 "$OUT/unit-asan-cuda.log")"
			;;
		sql)
			GPUSCAN_USE_RUNNING_SERVER=1 bash bench/sql_bench.sh --save > "$OUT/sql.log" 2>&1
			note "sql: exit $?"
			find bench/results -name 'sql-*.md' -newer "$OUT/.start" -exec cp {} "$OUT/" \;
			tail -40 "$OUT/sql.log" | tee -a "$summary" >/dev/null
			;;
		*)
			note "unknown step: $step"
			;;
	esac
done
echo "==== summary"
cat "$summary"
