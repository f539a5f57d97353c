#!/usr/bin/env bash
#
# test/unit/run_asan.sh -- run the unit tests built with ASan and UBSan
# (make unit-asan builds test/unit/gpuscan_unit_asan first).
#
#   bash test/unit/run_asan.sh [cuda]
#
# Prints the unit tests' output, then their devices line and "N passed, N
# failed, N skipped" (test/lib.sh): the unit tally, with one more failure
# where the binary exits non-zero without a failed case (a sanitizer report
# ends the run), or "0 passed, 1 failed, 0 skipped" where it printed no
# tally.  With "cuda" (the kernels linked in), ASan leaves the
# shadow gap unprotected and leaks unchecked, as the CUDA driver needs.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=test/lib.sh
source test/lib.sh

bin=test/unit/gpuscan_unit_asan
if [ "${1:-}" = cuda ]; then
	export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=0}
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

log=$(mktemp /tmp/gpuscan-unit-asan.XXXXXX.log)
trap 'rm -f "$log"' EXIT
rc=0
"$bin" 2>&1 | tee "$log" || rc=$?

if ! tally_read "$log" "$rc" "unit: "; then
	echo "unit-asan: $bin printed no tally (exit $rc)"
elif [ "$rc" -ne 0 ]; then
	echo "unit-asan: $bin exited with $rc"
fi
tally_add_read unit-asan
tally_devices_line
tally_line
[ "$TALLY_FAILED" -eq 0 ] && [ "$rc" -eq 0 ]
