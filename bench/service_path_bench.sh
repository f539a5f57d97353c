#!/usr/bin/env bash
#
# bench/service_path_bench.sh -- values in memory before and after the
# removal of the session's own GPU path, in one run on one GPU host: the
# old build's three paths (the CPU, the session's own GPU, the GPU service)
# against this tree's two (the CPU, the GPU service), each build preloaded:
# bench/dispatch_bench.sh's in-function medians at SERVICE_SIZES.
#
#   bench/service_path_bench.sh OLD_TREE OUTDIR
#   bench/service_path_bench.sh - OUTDIR
#
# OLD_TREE is a copy of the old build's sources, one that still has the
# session's own GPU path (gpuscan.debug_session_gpu; the device machine has
# no git: here, `mkdir .old && git archive REV | tar x -C .old`, with
# /.old/ in .git/info/exclude, and carry .old).  Each round: OLD_TREE
# installed, the server restarted with shared_preload_libraries = gpuscan
# and the old tree's own bench/dispatch_bench.sh run with
# DISPATCH_PATHS="cpu own gpu" (its three paths taking turns call by call
# in one session) into OUTDIR/before.md; then this tree installed, the
# server restarted the same way and this tree's bench/dispatch_bench.sh run
# with DISPATCH_PATHS="cpu gpu" into OUTDIR/after.md.  With
# SERVICE_ROUNDS=N (1), N such pairs: before-1.md, after-1.md .. before-N.md,
# after-N.md.  Then OUTDIR/two-trees.md (bench/two_trees.py): per function
# and size, CPU, own GPU and service ms before, CPU and service ms after,
# and service after / own before.
#
# With "-" for OLD_TREE: this tree only, preloaded, its two paths (the CPU,
# the GPU service) taking turns call by call in one session, into
# OUTDIR/paths.md; with SERVICE_ROUNDS=N (1), N rounds, each a server run of
# its own, into OUTDIR/paths-1.md .. paths-N.md, and OUTDIR/rounds.md: each
# row's service / CPU ratio in every round (bench/paths_rounds.py).
#
# Run after `source .gpu/pg-up.sh` (the server named by PGHOST/PGPORT/PGUSER
# and PG_CONFIG; pg_restart): each build is installed in turn into
# PG_CONFIG's directories.  OUTDIR also gets each report's stderr
# (REPORT.md.log) and the builds' logs (old-build.log, new-build.log); each
# report ends with its script's "exit N".
#
# Environment: SERVICE_SIZES ("1e7 6e7"), SERVICE_RUNS (5), SERVICE_ROUNDS (1).
set -uo pipefail
OLD=${1:?usage: bench/service_path_bench.sh OLD_TREE|- OUTDIR}
OUTDIR=${2:?usage: bench/service_path_bench.sh OLD_TREE|- OUTDIR}
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUTDIR"
[ "$OLD" = - ] || OLD=$(cd "$OLD" && pwd) || exit 1
OUTDIR=$(cd "$OUTDIR" && pwd)
command -v pg_restart >/dev/null 2>&1 || { echo "run after source .gpu/pg-up.sh" >&2; exit 2; }
ROUNDS=${SERVICE_ROUNDS:-1}

# bench_tree DIR PATHS OUT -- DIR's bench/dispatch_bench.sh on PATHS against
# the running server, its report in OUT and its stderr in OUT.log
bench_tree() {
	(cd "$1" && GPUSCAN_USE_RUNNING_SERVER=1 DISPATCH_SIZES="${SERVICE_SIZES:-1e7 6e7}" \
		DISPATCH_CSR_SIZES="" DISPATCH_PATHS="$2" DISPATCH_RUNS="${SERVICE_RUNS:-5}" \
		bash bench/dispatch_bench.sh) >"$3" 2>"$3.log"
	echo "exit $?" >>"$3"
}

# install_tree DIR NAME -- build and install DIR, its log in OUTDIR/NAME-build.log
install_tree() {
	make -C "$1" -j"$(nproc)" with_llvm=no PG_CONFIG="$PG_CONFIG" install >"$OUTDIR/$2-build.log" 2>&1
}

# restart_preloaded -- restart the server with gpuscan preloaded (a server
# run of its own) and wait until it answers
restart_preloaded() {
	pg_restart -c shared_preload_libraries=gpuscan >/dev/null 2>&1
	for _ in $(seq 300); do psql -XAtq -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.1; done
	[ "$(psql -XAtq -c "SHOW shared_preload_libraries" 2>/dev/null)" = gpuscan ] ||
		{ echo "the server did not come back with shared_preload_libraries = gpuscan" >&2; exit 1; }
}

# show_rows FILE -- the per-function rows of a report, on stdout
show_rows() {
	grep -E '^\| (elements|[0-9]+) ' "$1" | head -n 12
	tail -n 1 "$1"
}

if [ "$OLD" = - ]; then
	install_tree . new || { echo "this tree does not build" >&2; exit 1; }
	for r in $(seq "$ROUNDS"); do
		out=$OUTDIR/paths.md
		[ "$ROUNDS" = 1 ] || out=$OUTDIR/paths-$r.md
		restart_preloaded
		bench_tree . "cpu gpu" "$out"
		show_rows "$out"
	done
	if [ "$ROUNDS" != 1 ]; then
		python3 bench/paths_rounds.py "$OUTDIR"/paths-*.md | tee "$OUTDIR/rounds.md"
	fi
	exit 0
fi

pairs=()
for r in $(seq "$ROUNDS"); do
	suffix=""
	[ "$ROUNDS" = 1 ] || suffix=-$r
	echo "== round $r of $ROUNDS: the old tree ($OLD), preloaded, paths cpu own gpu"
	install_tree "$OLD" old || { echo "the old tree does not build" >&2; exit 1; }
	restart_preloaded
	[ "$(psql -XAtq -c "SELECT current_setting('gpuscan.debug_session_gpu', true) IS NOT NULL")" = t ] ||
		{ echo "$OLD has no gpuscan.debug_session_gpu: not a build with the session's own GPU path" >&2; exit 1; }
	bench_tree "$OLD" "cpu own gpu" "$OUTDIR/before$suffix.md"
	show_rows "$OUTDIR/before$suffix.md"
	echo "== round $r of $ROUNDS: this tree, preloaded, paths cpu gpu"
	install_tree . new || { echo "this tree does not build" >&2; exit 1; }
	restart_preloaded
	bench_tree . "cpu gpu" "$OUTDIR/after$suffix.md"
	show_rows "$OUTDIR/after$suffix.md"
	pairs+=("$OUTDIR/before$suffix.md" "$OUTDIR/after$suffix.md")
done

machine=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
{
	echo "# Values in memory before and after the removal of the session's own GPU path"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- machine: ${machine:-$(hostname)}"
	echo "- before: $OLD ($(grep -m 1 '^- gpuscan: ' "${pairs[0]}" | sed 's/^- gpuscan: //')), paths cpu own gpu"
	echo "- after: this tree ($(grep -m 1 '^- gpuscan: ' "${pairs[1]}" | sed 's/^- gpuscan: //')), paths cpu gpu"
	echo "- command: \`SERVICE_SIZES=\"${SERVICE_SIZES:-1e7 6e7}\" SERVICE_RUNS=${SERVICE_RUNS:-5} SERVICE_ROUNDS=$ROUNDS bench/service_path_bench.sh $1 $2\`"
	echo "- method: $ROUNDS round(s), each the old tree then this tree on the same server, each"
	echo "  restarted with shared_preload_libraries = gpuscan; bench/dispatch_bench.sh's medians of"
	echo "  ${SERVICE_RUNS:-5} calls after a warm-up, the paths taking turns call by call in one session, the"
	echo "  arrays already in backend memory; each cell the median over the rounds."
	echo
	python3 bench/two_trees.py "${pairs[@]}"
} >"$OUTDIR/two-trees.md"
cat "$OUTDIR/two-trees.md"
