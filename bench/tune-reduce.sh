#!/usr/bin/env bash
# tune-reduce.sh -- time the exact sum (kernels/reduce_exact.cu) built with
# different tuning knobs against CUB, on the GPU of this machine.
#
#   bench/tune-reduce.sh                  default build and the variants below
#   bench/tune-reduce.sh default pf1      only the variants named
#   KERNEL_BENCH_LOG2="24 28" bench/tune-reduce.sh    other sizes (default "26 28")
#
# Builds one bench/kernel_bench per variant under $TUNE_DIR (default
# /tmp/tune-reduce), with the Makefile's nvcc flags for the architecture of
# GPU 0 only: kernel_bench.cu and the other kernels once, reduce_exact.cu
# once per variant.  Runs each as `kernel_bench reduce` (which also checks
# the exact sum bit for bit; a variant that fails shows FAIL) and prints,
# per variant and size, the exact sum's and CUB's median µs and their
# ratio.  Full outputs stay in $TUNE_DIR/<variant>.md and .log.
# Needs nvcc, no PostgreSQL.
set -euo pipefail

cd "$(dirname "$0")/.."
DIR=${TUNE_DIR:-/tmp/tune-reduce}
export KERNEL_BENCH_LOG2=${KERNEL_BENCH_LOG2:-"26 28"}

# variant name and its -D flags ("" = the default build)
VARIANTS=(
	"default|"
	"pf1|-DGSX_PREFETCH_TILES=1"
	"pf2|-DGSX_PREFETCH_TILES=2"
	"block256|-DGSX_BLOCK=256"
	"unroll2|-DGSX_UNROLL=2"
	"unroll8|-DGSX_UNROLL=8"
	"chunk8|-DGSX_CHUNK=8"
)
TUNE_NAME=tune-reduce
# shellcheck source=bench/tune-common.sh
source bench/tune-common.sh

mkdir -p "$DIR"
echo "tune-reduce: sm_${ARCH}, sizes 2^{${KERNEL_BENCH_LOG2}}, building in $DIR" >&2

tune_build reduce_exact

# registers (float kernel, double kernel) and spills per variant, from ptxas
regs() {
	grep -A3 "entry function '_Z14gsx_sum_kernelI$2" "$DIR/ptxas-$1.txt" |
		awk '/spill stores/ { s = $5 + $9 } /registers/ { r = $5 } END { printf "%s%s", r, (s > 0 ? "+spill" : "") }'
}

# one row per variant and size from the progress lines on stderr:
#   reduce double 2^28 gsd_sum_exact_f64 (exact; with memset)   537.8 us ...
printf '\n%-10s %-6s %-14s | %9s %9s %6s | %9s %9s %6s\n' \
	variant size "regs f/d" "f64 µs" "CUB µs" ratio "f32 µs" "CUB µs" ratio
for v in "${VARIANTS[@]}"; do
	name=${v%%|*}
	rc=0
	env -u LD_LIBRARY_PATH "$DIR/kernel_bench-$name" reduce \
		> "$DIR/$name.md" 2> "$DIR/$name.log" || rc=$?
	status=""
	[ $rc = 0 ] || status="  FAIL (exit $rc; see $DIR/$name.md)"
	for lg in $KERNEL_BENCH_LOG2; do
		awk -v lg="2^$lg" -v name="$name" -v regs="$(regs "$name" f)/$(regs "$name" d)" -v status="$status" '
			$1 == "reduce" && $3 == lg && /gsd_sum_exact/ { ex[$2] = $(NF - 7) }
			$1 == "reduce" && $3 == lg && /cub::DeviceReduce/ { cub[$2] = $(NF - 7) }
			function r(t) { return (ex[t] > 0 && cub[t] > 0) ? sprintf("%.3f", ex[t] / cub[t]) : "-" }
			END {
				printf "%-10s %-6s %-14s | %9s %9s %6s | %9s %9s %6s%s\n", name, lg, regs,
					ex["double"], cub["double"], r("double"), ex["float"], cub["float"], r("float"), status
			}' "$DIR/$name.log"
	done
done
echo
echo "ratio: exact sum time / CUB time (target <= 1.053, i.e. >= 0.95x CUB throughput)"
