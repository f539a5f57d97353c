# tune-common.sh -- sourced by the bench/tune-*.sh scripts: picks the
# variants named on the command line and sets the nvcc flags.
#
# Before sourcing: VARIANTS=("name|-D flags" ...) and TUNE_NAME (for
# messages); "$@" are the variant names asked for (none: all).  After:
# VARIANTS holds the ones picked, NVCC the compiler, ARCH the architecture
# of GPU 0 (or TUNE_ARCH, else 90) and FLAGS the Makefile's NVCCFLAGS for
# that architecture alone; tune_build KERNEL builds the variants.

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

if [ $# -gt 0 ]; then
	picked=()
	for want in "$@"; do
		found=0
		for v in "${VARIANTS[@]}"; do
			if [ "${v%%|*}" = "$want" ]; then picked+=("$v"); found=1; fi
		done
		[ $found = 1 ] || { echo "$TUNE_NAME: no variant \"$want\"" >&2; exit 2; }
	done
	VARIANTS=("${picked[@]}")
fi

cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .' || true)
ARCH=${TUNE_ARCH:-${cap:-90}}
# as the Makefile's NVCCFLAGS, for one architecture
FLAGS=(-O3 -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden
	"-gencode=arch=compute_${ARCH},code=sm_${ARCH}"
	-Icommon -Ikernels "-DGPUSCAN_ARCHS=\"${ARCH}\"")

# tune_build KERNEL -- $DIR/kernel_bench-NAME for every variant, built as
# the Makefile builds bench/kernel_bench, but with kernels/KERNEL.cu
# compiled with the variant's -D flags (ptxas's report in
# $DIR/ptxas-NAME.txt); the other kernels, the course's and kernel_bench.cu
# once, all compilations in parallel
tune_build() {
	local vary=$1 k v name defs p others=() pids=()

	for src in kernels/*.cu kernels/course/*.cu; do
		k=$(basename "$src" .cu)
		[ "$src" = "kernels/$vary.cu" ] && continue
		others+=("$DIR/$k.o")
		"$NVCC" "${FLAGS[@]}" -c "$src" -o "$DIR/$k.o" & pids+=($!)
	done
	"$NVCC" "${FLAGS[@]}" -Xcompiler -ffp-contract=off -Isrc -Ikernels/course -c bench/kernel_bench.cu \
		-o "$DIR/kernel_bench.o" & pids+=($!)
	for v in "${VARIANTS[@]}"; do
		name=${v%%|*}
		defs=${v#*|}
		# shellcheck disable=SC2086
		"$NVCC" "${FLAGS[@]}" $defs -Xptxas -v -c "kernels/$vary.cu" \
			-o "$DIR/$vary-$name.o" 2> "$DIR/ptxas-$name.txt" & pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done

	for v in "${VARIANTS[@]}"; do
		name=${v%%|*}
		"$NVCC" "${FLAGS[@]}" -Xcompiler -ffp-contract=off "$DIR/kernel_bench.o" \
			"$DIR/$vary-$name.o" "${others[@]}" -Isrc src/cpu/*.c -lcusparse \
			-o "$DIR/kernel_bench-$name"
	done
}
