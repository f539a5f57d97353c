#!/usr/bin/env bash
# tune-spmv.sh -- time the production SpMV (kernels/spmv.cu) built with
# different compile-time knobs against cuSPARSE, on the GPU of this machine.
#
#   bench/tune-spmv.sh                  default build and the variants below
#   bench/tune-spmv.sh default cap4096  only the variants named
#
# Builds one bench/kernel_bench per variant under $TUNE_DIR (default
# /tmp/tune-spmv), with the Makefile's nvcc flags for the architecture of
# GPU 0 only: kernel_bench.cu and the other kernels once, spmv.cu once per
# variant.  Runs each as `KERNEL_BENCH_SPMV_TUNE=1 kernel_bench spmv`
# (every row checked bit for bit against the CPU; a variant that fails
# shows FAILED) and prints its table's SpMV rows: the plan's choice, the
# run-time tries of G and staged rows, cuSPARSE.  Full outputs stay in
# $TUNE_DIR/<variant>.md and .log.  Needs nvcc and cuSPARSE, no PostgreSQL.
set -euo pipefail

cd "$(dirname "$0")/.."
DIR=${TUNE_DIR:-/tmp/tune-spmv}

# variant name and its -D flags ("" = the default build)
VARIANTS=(
	"default|"
	"cap3072|-DSPMV_STAGE_CAP=3072"
	"cap4096|-DSPMV_STAGE_CAP=4096 -DSPMV_STAGE_MIN_BLOCKS=6"
)
TUNE_NAME=tune-spmv
# shellcheck source=bench/tune-common.sh
source bench/tune-common.sh

mkdir -p "$DIR"
echo "tune-spmv: sm_${ARCH}, building in $DIR" >&2

tune_build spmv

for v in "${VARIANTS[@]}"; do
	name=${v%%|*}
	rc=0
	KERNEL_BENCH_SPMV_TUNE=1 env -u LD_LIBRARY_PATH "$DIR/kernel_bench-$name" spmv \
		> "$DIR/$name.md" 2> "$DIR/$name.log" || rc=$?
	echo "== $name ($(grep -c ' 0 bytes spill stores' "$DIR/ptxas-$name.txt") of" \
		"$(grep -c 'bytes spill stores' "$DIR/ptxas-$name.txt") kernels without spills; exit $rc)"
	grep -E '^\| .*(gsd_spmv|cusparse|ratio)' "$DIR/$name.md" | sed 's/  */ /g' || true
done
