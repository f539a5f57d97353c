#!/usr/bin/env bash
#
# test/fuzz/run.sh -- build and run the libFuzzer harnesses of test/fuzz
# (make fuzz, make fuzz-merge).  Needs clang with libFuzzer, not PostgreSQL.
#
#   bash test/fuzz/run.sh run     for each harness: replay its regressions
#                                 (test/fuzz/regressions/NAME), then fuzz for
#                                 FUZZ_SECONDS on a temporary copy of its
#                                 corpus; one line per harness, then
#                                 "N passed, N failed, 0 skipped" (one test per harness)
#   bash test/fuzz/run.sh merge   fuzz each for FUZZ_SECONDS and merge what
#                                 adds coverage into test/fuzz/corpus/NAME
#   bash test/fuzz/run.sh seeds   (re)write the hand-made seeds of the corpus
#                                 (test/fuzz/make_seeds.c)
#
# A crash or a wrong result saves the input under a temporary artifact
# directory, which is kept; its path and a hex dump are printed.  The
# committed corpus changes only with "merge".
#
# Environment: FUZZ_SECONDS (default 60) per harness, FUZZ_HARNESSES (a
# space-separated subset), CLANG (default clang).

set -euo pipefail
# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$GPUSCAN_ROOT"

MODE=${1:-run}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang}
export CLANG
HARNESSES=(${FUZZ_HARNESSES:-fuzz_sum_state fuzz_csr fuzz_exact_sum fuzz_prefix_sum fuzz_heap_page})
BUILD=test/fuzz/build
CFLAGS_FUZZ=(-g -O1 -std=gnu99 -Wall -fsanitize=fuzzer,address,undefined
	-fno-sanitize-recover=all -ffp-contract=off -Icommon -Ikernels -Isrc -Itest/fuzz)
# The reference and the helpers get the sanitizers without libFuzzer's
# coverage: their branches say nothing about the code under test, and
# tracing them would slow each run several times and bloat the corpus.
CFLAGS_HELPER=("${CFLAGS_FUZZ[@]/-fsanitize=fuzzer,address,undefined/-fsanitize=address,undefined}")

# sources -- the files a harness links besides its own
sources() {
	local ref="test/fuzz/exact_reference.c test/fuzz/exact_reference_test.c"
	local values="test/fuzz/fuzz_values.c"
	case $1 in
		fuzz_sum_state) echo "src/cpu/sum_state.c $ref" ;;
		fuzz_csr) echo "src/cpu/csr_check.c src/cpu/cpu_spmv.c src/cpu/cpu_sum.c" ;;
		fuzz_exact_sum) echo "src/cpu/cpu_sum.c $values $ref" ;;
		fuzz_prefix_sum) echo "src/cpu/cpu_prefix_sum.c src/cpu/cpu_sum.c $values $ref" ;;
		fuzz_heap_page) echo "src/cpu/heap_sum.c" ;;
		*) die "unknown harness $1" ;;
	esac
}

# max_len -- the longest input libFuzzer makes for a harness
max_len() {
	case $1 in
		fuzz_sum_state) echo 400 ;;	# a state is at most 276 bytes
		fuzz_heap_page) echo 8400 ;;	# the layout and a page
		*) echo 4096 ;;
	esac
}

# build_object SRC -- compile SRC into $BUILD/obj unless that is newer than
# SRC and every header; prints the object's path
build_object() {
	local src=$1 obj
	obj=$BUILD/obj/$(echo "${src%.c}" | tr / _).o
	if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ "$NEWEST_HEADER" -nt "$obj" ]; then
		case $src in
			test/fuzz/exact_reference*.c | test/fuzz/fuzz_util.c)
				"$CLANG" "${CFLAGS_HELPER[@]}" -c "$src" -o "$obj" >&2 ;;
			*)
				"$CLANG" "${CFLAGS_FUZZ[@]}" -c "$src" -o "$obj" >&2 ;;
		esac || die "cannot compile $src"
	fi
	echo "$obj"
}

# build NAME -- the harness binary $BUILD/NAME
build() {
	local name=$1 src objs=()
	for src in "test/fuzz/$name.c" test/fuzz/fuzz_util.c $(sources "$name"); do
		objs+=("$(build_object "$src")")
	done
	"$CLANG" "${CFLAGS_FUZZ[@]}" "${objs[@]}" -lm -o "$BUILD/$name" >&2 ||
		die "cannot link $BUILD/$name"
}

# count_files DIR -- regular files in DIR (0 if it does not exist)
count_files() {
	if [ -d "$1" ]; then
		find "$1" -maxdepth 1 -type f ! -name '.*' | wc -l
	else
		echo 0
	fi
}

# show_findings DIR LOG -- the report of each artifact, its path and hex dump
show_findings() {
	local dir=$1 log=$2 f
	grep -E 'FUZZ FAILURE|ERROR: |runtime error|SUMMARY|==ABORTING|Test unit written' "$log" |
		head -n 20 | sed 's/^/    /' || true
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		echo "    input saved as $f ($(wc -c <"$f") bytes):"
		od -A x -t x1z -v "$f" | head -n 32 | sed 's/^/      /'
	done
}

# replay NAME -- run the harness once over each file of its regressions;
# 0 if none fails
replay() {
	local name=$1 dir=test/fuzz/regressions/$1 files log bad
	mapfile -t files < <(find "$dir" -maxdepth 1 -type f ! -name '.*' 2>/dev/null | sort)
	[ ${#files[@]} -gt 0 ] || return 0
	log=$WORK/$name/regressions.log
	if "$BUILD/$name" -artifact_prefix="$WORK/$name/artifacts/" "${files[@]}" >"$log" 2>&1; then
		return 0
	fi
	bad=$(sed -n 's/^Running: //p' "$log" | tail -n 1)
	echo "    a regression input fails again:"
	grep -E 'FUZZ FAILURE|ERROR: |runtime error|SUMMARY|^    #[0-9] ' "$log" |
		head -n 20 | sed 's/^/    /' || true
	if [ -f "$bad" ]; then
		echo "    input $bad ($(wc -c <"$bad") bytes):"
		od -A x -t x1z -v "$bad" | head -n 32 | sed 's/^/      /'
	fi
	return 1
}

# fuzz NAME -- fuzz for FUZZ_SECONDS on a copy of the corpus; prints the
# harness's line; 0 if nothing was found
fuzz() {
	local name=$1 dir=$WORK/$1 log rc=0 start runs seconds committed corpus findings
	log=$dir/fuzz.log
	committed=$(count_files "test/fuzz/corpus/$name")
	if [ "$committed" -gt 0 ]; then
		cp test/fuzz/corpus/"$name"/* "$dir/corpus/"
	fi
	start=$SECONDS
	"$BUILD/$name" -max_total_time="$FUZZ_SECONDS" -timeout=30 -rss_limit_mb=2048 \
		-max_len="$(max_len "$name")" -print_final_stats=1 \
		-artifact_prefix="$dir/artifacts/" "$dir/corpus" >"$log" 2>&1 || rc=$?
	seconds=$((SECONDS - start))
	runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
	corpus=$(count_files "$dir/corpus")
	findings=$(find "$dir/artifacts" -maxdepth 1 -type f \
		\( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	printf '%-16s %s runs in %d s, corpus %d files (%d committed), %d findings\n' \
		"$name:" "${runs:-?}" "$seconds" "$corpus" "$committed" "$findings"
	if [ "$rc" -ne 0 ] || [ "$findings" -gt 0 ]; then
		[ "$findings" -gt 0 ] || tail -n 30 "$log" | sed 's/^/    /'
		show_findings "$dir/artifacts" "$log"
		FOUND=1
		return 1
	fi
	return 0
}

# merge NAME -- add to the corpus what the fuzzing found that reaches new
# edges (-use_counters=0: hit counts alone do not count, which keeps the
# committed corpus at a few dozen files)
merge() {
	local name=$1 before after
	mkdir -p "test/fuzz/corpus/$name"
	before=$(count_files "test/fuzz/corpus/$name")
	"$BUILD/$name" -merge=1 -use_counters=0 -max_len="$(max_len "$name")" "test/fuzz/corpus/$name" \
		"$WORK/$name/corpus" >"$WORK/$name/merge.log" 2>&1 ||
		{ tail -n 20 "$WORK/$name/merge.log"; die "merge of $name failed"; }
	after=$(count_files "test/fuzz/corpus/$name")
	echo "    merged into test/fuzz/corpus/$name: $before -> $after files"
}

# cleanup -- remove the work directory, but keep the artifacts of findings
cleanup() {
	if [ "${FOUND:-0}" = 1 ]; then
		find "$WORK" -mindepth 2 -maxdepth 2 -name corpus -exec rm -rf {} +
		echo "artifacts kept in $WORK"
	else
		rm -rf "$WORK"
	fi
}

# seeds -- build and run make_seeds.c (plain, no libFuzzer)
seeds() {
	local name
	for name in "${HARNESSES[@]}"; do
		mkdir -p "test/fuzz/corpus/$name"
	done
	"$CLANG" -g -O1 -std=gnu99 -Wall -fsanitize=address,undefined -Icommon -Isrc -Itest/fuzz \
		test/fuzz/make_seeds.c src/cpu/sum_state.c -o "$BUILD/make_seeds" || die "cannot build make_seeds"
	"$BUILD/make_seeds" || die "make_seeds failed"
	for name in "${HARNESSES[@]}"; do
		echo "test/fuzz/corpus/$name: $(count_files "test/fuzz/corpus/$name") files"
	done
}

case $MODE in
	run | merge | seeds) ;;
	*) die "usage: $0 [run|merge|seeds]" ;;
esac
ensure_fuzz_tools
mkdir -p "$BUILD/obj"
if [ "$MODE" = seeds ]; then
	seeds
	exit 0
fi
WORK=$(mktemp -d /tmp/gpuscan-fuzz.XXXXXX)
FOUND=0
trap cleanup EXIT

# a change of compiler or flags rebuilds everything
stamp="$("$CLANG" --version | head -n 1) ${CFLAGS_FUZZ[*]}"
if [ "$(cat "$BUILD/stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -f "$BUILD"/obj/*.o
	echo "$stamp" >"$BUILD/stamp"
fi
NEWEST_HEADER=$(ls -t common/*.h src/cpu/*.h kernels/gpuscan_device.h test/fuzz/*.h | head -n 1)
for name in "${HARNESSES[@]}"; do
	build "$name"
done

passed=0
failed=0
for name in "${HARNESSES[@]}"; do
	mkdir -p "$WORK/$name/corpus" "$WORK/$name/artifacts"
	if ! replay "$name"; then
		printf '%-16s regressions fail: not fuzzed\n' "$name:"
		FOUND=1
		failed=$((failed + 1))
		continue
	fi
	if fuzz "$name"; then
		passed=$((passed + 1))
		if [ "$MODE" = merge ]; then
			merge "$name"
		fi
	else
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
