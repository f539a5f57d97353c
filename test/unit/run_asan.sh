#!/usr/bin/env bash
#
# test/unit/run_asan.sh -- run the unit tests built with ASan and UBSan
# (make unit-asan builds test/unit/gpuscan_unit_asan first).
#
#   bash test/unit/run_asan.sh [cuda]
#
# Prints the unit tests' output, then "N passed, N failed": the unit tally,
# with one more failure where the binary exits non-zero without a failed
# case (a sanitizer report ends the run), or "0 passed, 1 failed" where it
# printed no tally.  With "cuda" (the kernels linked in), ASan leaves the
# shadow gap unprotected and leaks unchecked, as the CUDA driver needs.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

bin=test/unit/gpuscan_unit_asan
if [ "${1:-}" = cuda ]; then
	export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=0}
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

log=$(mktemp /tmp/gpuscan-unit-asan.XXXXXX.log)
trap 'rm -f "$log"' EXIT
rc=0
"$bin" 2>&1 | tee "$log" || rc=$?

tally=$(sed -nE 's/^unit: ([0-9]+ passed, [0-9]+ failed)$/\1/p' "$log" | tail -n 1)
if [ -z "$tally" ]; then
	echo "unit-asan: $bin printed no tally (exit $rc)"
	echo "0 passed, 1 failed"
	exit 1
fi
passed=${tally%% passed*}
failed=${tally##*, }
failed=${failed%% failed}
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "unit-asan: $bin exited with $rc"
	failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]
