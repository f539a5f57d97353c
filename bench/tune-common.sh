# tune-common.sh -- sourced by the bench/tune-*.sh scripts: picks the
# variants named on the command line and sets the nvcc flags.
#
# Before sourcing: VARIANTS=("name|-D flags" ...) and TUNE_NAME (for
# messages); "$@" are the variant names asked for (none: all).  After:
# VARIANTS holds the ones picked, NVCC the compiler, ARCH the architecture
# of GPU 0 (or TUNE_ARCH, else 90) and FLAGS the Makefile's NVCCFLAGS for
# that architecture alone.

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
