#!/usr/bin/env bash
# One session on a machine with an NVIDIA GPU and a running PostgreSQL server
# (PGHOST/PGPORT/PGUSER and PG_CONFIG exported, e.g. by the relocatable bundle's
# pg-up.sh): the whole test suite with the GPU path forced, then benchmarks.
#
#   bash bench/gpu-session.sh [check] [kernels SECTION...] [sql]
#
# Logs and result tables go to $OUT (default /tmp/gpuscan-out); the tables
# are also saved under bench/results/.  A short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
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
			while [ $# -gt 0 ] && [ "$1" != check ] && [ "$1" != sql ]; do
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
