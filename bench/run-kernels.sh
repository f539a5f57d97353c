#!/usr/bin/env bash
#
# run-kernels.sh -- build and run the device-resident kernel benchmarks and
# keep their markdown output in bench/results/kernels-<device>-<date>.md,
# headed by the device and driver (nvidia-smi), the date and the command.
#
#   bench/run-kernels.sh [SECTION ...]     arguments go to kernel_bench
#
# The build goes through make (PG_CONFIG, CUDA_ARCHS, ... from the
# environment); KERNEL_BENCH_BUILD=0 runs an existing bench/kernel_bench.
# The exit status is kernel_bench's: 1 if a kernel failed validation.
#
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${KERNEL_BENCH_BUILD:-1}" != 0 ]; then
	make -s bench/kernel_bench ${PG_CONFIG:+PG_CONFIG="$PG_CONFIG"} \
		${CUDA_ARCHS:+CUDA_ARCHS="$CUDA_ARCHS"}
fi

# the device kernel_bench opens: device 0 of CUDA_VISIBLE_DEVICES, if set
smi_args=("--query-gpu=name,driver_version" "--format=csv,noheader")
visible=${CUDA_VISIBLE_DEVICES:-}
if [ -n "$visible" ]; then
	smi_args+=(-i "${visible%%,*}")
fi
gpu=$(nvidia-smi "${smi_args[@]}" 2>/dev/null | head -n 1 || true)
[ -n "$gpu" ] || gpu="unknown device, unknown driver"

slug=$(printf '%s' "${gpu%%,*}" | tr '[:upper:]' '[:lower:]' |
	sed -e 's/[^a-z0-9][^a-z0-9]*/-/g' -e 's/^-//' -e 's/-$//')
out="bench/results/kernels-${slug:-unknown}-$(date -u +%Y-%m-%d-%H%M%S).md"
cmd=$(printf '%q ' ./bench/kernel_bench "$@")
mkdir -p bench/results

{
	printf -- '- nvidia-smi: %s\n' "$gpu"
	printf -- '- date: %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	printf -- '- command: %s\n\n' "\`${cmd% }\`"
} >"$out"

set +e
./bench/kernel_bench "$@" | tee -a "$out"
rc=${PIPESTATUS[0]}
set -e
echo "run-kernels.sh: results in $out" >&2
exit "$rc"
