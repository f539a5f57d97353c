#!/usr/bin/env bash
#
# probe-scan.sh -- build bench/scan_probe.cu against variants of
# kernels/scan_exact.cu (in a temporary directory), time them, print the
# SCX_PROFILE counters, check that every variant computes the same bits,
# and run Nsight Compute on one launch where ncu is available.
#
#   bench/probe-scan.sh            everything (a few minutes at most)
#   PROBE_NCU=0 bench/probe-scan.sh   without ncu
#   PROBE_OLD=1 bench/probe-scan.sh   also the variants atomic-prof and orig
#   PROBE_UNIT=0 bench/probe-scan.sh  without the unit tests of the knobs
#
# With PROBE_UNIT (default 1) the GPU unit tests (ties, exact fallbacks,
# Inf/NaN, signed zeros, unaligned and partial tiles) are also built and run
# against -DSCX_FAST=0 -DSCX_SPLIT_OUT=1 -DSCX_LB_PREFETCH=1, in a copy of the tree under the build directory:
# the probe's data sets never reach most of those paths.
#
# Variants (all but new and new-prof turn knobs of the exact kernel, which
# the default build runs only where the fast kernel asks for it, so they
# are built with -DSCX_FAST=0: the exact kernel alone):
#   new          the default build of the working tree (timing, no profile)
#   new-prof     the same with -DSCX_PROFILE (counters; timing perturbed)
#   mb4          -DSCX_MIN_BLOCKS=4 (64 registers, 32 warps per SM)
#   split        -DSCX_SPLIT_OUT=1: warps 1..7 compute all outputs, warp 0
#                only the exact carry and the prefix (timing)
#   split-prof   the same with -DSCX_PROFILE (OUT0 ~0; OUT1 = warp 1's 20
#                outputs per lane; STORE_BARRIER should fall by ~OUT0)
#   split-mb4    -DSCX_SPLIT_OUT=1 -DSCX_MIN_BLOCKS=4
#   pf           -DSCX_LB_PREFETCH=1: the next look-back window's statuses
#                acquired while this window's aggregates load
#   split-pf     -DSCX_SPLIT_OUT=1 -DSCX_LB_PREFETCH=1 (timing)
#   split-pf-prof  the same with -DSCX_PROFILE (LB per window should fall)
#   atomic-prof  (PROBE_OLD=1) -DSCX_LBX_ATOMIC=1 -DSCX_PROFILE: the exact
#                look-back sum by shared atomics, as before
#   orig         (PROBE_OLD=1) kernels/scan_exact.cu of commit 68a2040
#
set -uo pipefail
cd "$(dirname "$0")/.."
unset LD_LIBRARY_PATH

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || NVCC=/usr/local/cuda/bin/nvcc
ARCH=${PROBE_ARCH:-90}
FLAGS=(-O3 -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden
	"-gencode=arch=compute_${ARCH},code=sm_${ARCH}"
	-Icommon -Ikernels "-DGPUSCAN_ARCHS=\"${ARCH}\"")
W=$(mktemp -d /tmp/gpuscan-probe.XXXXXX)
echo "== build in $W ($NVCC, sm_${ARCH})"

"$NVCC" "${FLAGS[@]}" -c kernels/device.cu -o "$W/device.o" || exit 1

build() {	# name source extra-flags...
	local name=$1 src=$2
	shift 2
	"$NVCC" "${FLAGS[@]}" "$@" -c "$src" -o "$W/scan-$name.o" &&
		"$NVCC" "${FLAGS[@]}" "$@" bench/scan_probe.cu "$W/scan-$name.o" "$W/device.o" \
			-o "$W/probe-$name" >"$W/build-$name.log" 2>&1 ||
		{ echo "build of $name failed:"; cat "$W/build-$name.log"; return 1; }
}

variants=(new new-prof mb4 split split-prof split-mb4 pf split-pf split-pf-prof)
build new kernels/scan_exact.cu &
build new-prof kernels/scan_exact.cu -DSCX_PROFILE &
build mb4 kernels/scan_exact.cu -DSCX_FAST=0 -DSCX_MIN_BLOCKS=4 &
build split kernels/scan_exact.cu -DSCX_FAST=0 -DSCX_SPLIT_OUT=1 &
build split-prof kernels/scan_exact.cu -DSCX_FAST=0 -DSCX_SPLIT_OUT=1 -DSCX_PROFILE &
build split-mb4 kernels/scan_exact.cu -DSCX_FAST=0 -DSCX_SPLIT_OUT=1 -DSCX_MIN_BLOCKS=4 &
build pf kernels/scan_exact.cu -DSCX_FAST=0 -DSCX_LB_PREFETCH=1 &
build split-pf kernels/scan_exact.cu -DSCX_FAST=0 -DSCX_SPLIT_OUT=1 -DSCX_LB_PREFETCH=1 &
build split-pf-prof kernels/scan_exact.cu -DSCX_FAST=0 -DSCX_SPLIT_OUT=1 -DSCX_LB_PREFETCH=1 -DSCX_PROFILE &
if [ "${PROBE_OLD:-0}" != 0 ]; then
	build atomic-prof kernels/scan_exact.cu -DSCX_FAST=0 -DSCX_PROFILE -DSCX_LBX_ATOMIC=1 &
	variants+=(atomic-prof)
	if git show 68a2040:kernels/scan_exact.cu >"$W/scan_exact_orig.cu" 2>/dev/null; then
		cp kernels/*.cuh "$W/" 2>/dev/null
		build orig "$W/scan_exact_orig.cu" &
		variants+=(orig)
	else
		echo "(no git history here: variant orig skipped)"
	fi
fi
if [ "${PROBE_UNIT:-1}" != 0 ]; then
	(
		mkdir -p "$W/unit-split" &&
			if git rev-parse --git-dir >/dev/null 2>&1; then
				git ls-files -co --exclude-standard | tar cf - -T -
			else
				tar cf - --exclude=.git --exclude='*.o' .
			fi | tar xf - -C "$W/unit-split" &&
			rm -rf "$W"/unit-split/build "$W/unit-split/test/unit/gpuscan_unit" &&
			make -s -C "$W/unit-split" test/unit/gpuscan_unit CUDA_ARCHS="$ARCH" NVCC="$NVCC" \
				NVCCFLAGS="-O3 -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden -gencode=arch=compute_${ARCH},code=sm_${ARCH} -Icommon -Ikernels -DGPUSCAN_ARCHS='\"${ARCH}\"' -DSCX_FAST=0 -DSCX_SPLIT_OUT=1 -DSCX_LB_PREFETCH=1"
	) >"$W/build-unit-split.log" 2>&1 &
fi
wait
for v in "${variants[@]}"; do
	[ -x "$W/probe-$v" ] || { echo "missing $W/probe-$v"; exit 1; }
done

run() {	# variant args...
	local v=$1
	shift
	echo
	echo "== $v $*"
	timeout 120 "$W/probe-$v" "$@" 2>&1 | tee -a "$W/cases.txt" | sed 's/^case/case ['"$v"']/'
}

: >"$W/cases.txt"
for v in "${variants[@]}"; do
	case $v in
	new|new-prof|split|split-prof|split-pf|split-pf-prof)
		run "$v" -t d -t f
		run "$v" -t m -n 24 -r 3 ;;
	atomic-prof|orig)
		run "$v" -t d -n 24 -n 28 -r 5
		run "$v" -t f -n 28 -r 3
		run "$v" -t m -n 24 -r 3 ;;
	mb4|split-mb4|pf)
		run "$v" -t d -t f
		run "$v" -t m -n 24 -r 3 ;;
	esac
done

if [ "${PROBE_UNIT:-1}" != 0 ]; then
	echo
	echo "== unit tests with -DSCX_FAST=0 -DSCX_SPLIT_OUT=1 -DSCX_LB_PREFETCH=1"
	if [ -x "$W/unit-split/test/unit/gpuscan_unit" ]; then
		(cd "$W/unit-split" && timeout 300 ./test/unit/gpuscan_unit >"$W/unit-split.log" 2>&1)
		rc=$?
		tail -n 5 "$W/unit-split.log"
		grep -q 'GPU suites skipped' "$W/unit-split.log" && rc=skipped
		echo "unit tests (split, pf): $([ "$rc" = 0 ] && echo PASS || echo "FAIL or not run (rc $rc, $W/unit-split.log)")"
	else
		echo "build failed:"
		tail -n 20 "$W/build-unit-split.log"
	fi
fi

echo
echo "== output bits: one hash per case across all variants"
grep '^case' "$W/cases.txt" | sed -E 's/^case ([a-z]) (2\^[0-9]+):.*hash ([0-9a-f]+).*/\1 \2 \3/' |
	sort -u | awk '{k=$1" "$2; n[k]++; h[k]=h[k]" "$3}
		END {bad=0; c=0; for (k in n) {c++; print k ":" h[k]; if (n[k] > 1) bad=1}
			 print (c == 0 ? "no cases ran" : bad ? "HASH MISMATCH: some variant computes different bits" : "hashes agree")}'

if [ "${PROBE_NCU:-1}" != 0 ]; then
	NCU=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -n 1)
	if [ -n "$NCU" ] && [ -x "$NCU" ]; then
		echo
		echo "== ncu ($NCU): variant new, doubles 2^24, first scx_scan launch"
		timeout 150 "$NCU" --clock-control none --section SpeedOfLight --section Occupancy \
			--section WarpStateStats --section LaunchStats -k regex:scx_scan -c 1 \
			"$W/probe-new" -t d -n 24 -r 0 2>&1 |
			grep -v -E '^==PROF==|^ *-+ *-+|^ *$|^case|^device' |
			cut -c1-120
	else
		echo "(ncu not found)"
	fi
fi
echo
echo "== done ($W)"
