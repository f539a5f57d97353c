#!/usr/bin/env bash
#
# bench/service_path_bench.sh -- values in memory on the GPU service's path
# of another build (OLD, e.g. before a data-path change) and of this tree,
# and on the session's own GPU path (OLD's, on a server without the
# preload), in one run on one GPU host, each next to the CPU path:
# bench/dispatch_bench.sh's in-function medians at SERVICE_SIZES.
#
#   bench/service_path_bench.sh OLD_TREE OUTDIR
#   bench/service_path_bench.sh - OUTDIR
#
# With "-" for OLD_TREE: this tree only, preloaded, its three paths (CPU,
# the session's own GPU, the GPU service) taking turns call by call in one
# session (bench/dispatch_bench.sh's path "own"), into OUTDIR/paths.md:
# the fairest comparison of the two GPU paths, free of the drift between
# server runs.
#
# OLD_TREE is a copy of the other build's sources (the device machine has
# no git: here, `mkdir .old && git archive REV | tar x -C .old`, with
# /.old/ in .git/info/exclude, and carry .old).  Run after
# `source .gpu/pg-up.sh` (the server named by PGHOST/PGPORT/PGUSER and
# PG_CONFIG): each build is installed in turn into PG_CONFIG's directories
# and the server restarted with or without the preload (pg_restart).
# OUTDIR gets old-service.md, own.md, new-service.md and the builds' logs.
#
# With "-" and SERVICE_ROUNDS=N (1), N rounds, each a server run of its
# own, into OUTDIR/paths-1.md .. paths-N.md, and OUTDIR/rounds.md: each
# row's service / own ratio in every round (bench/paths_rounds.py).
#
# Environment: SERVICE_SIZES ("1e7 6e7"), SERVICE_RUNS (5), SERVICE_ROUNDS (1).
set -uo pipefail
OLD=${1:?usage: bench/service_path_bench.sh OLD_TREE OUTDIR}
OUTDIR=${2:?usage: bench/service_path_bench.sh OLD_TREE OUTDIR}
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$OUTDIR"
[ "$OLD" = - ] || OLD=$(cd "$OLD" && pwd)
OUTDIR=$(cd "$OUTDIR" && pwd)
command -v pg_restart >/dev/null 2>&1 || { echo "run after source .gpu/pg-up.sh" >&2; exit 2; }

# bench_tree DIR OUT -- bench/dispatch_bench.sh of DIR against the running server
bench_tree() {
	(cd "$1" && GPUSCAN_USE_RUNNING_SERVER=1 DISPATCH_SIZES="${SERVICE_SIZES:-1e7 6e7}" \
		DISPATCH_CSR_SIZES="" DISPATCH_PATHS="cpu gpu" DISPATCH_RUNS="${SERVICE_RUNS:-5}" \
		bash bench/dispatch_bench.sh) >"$2" 2>"$2.log"
	echo "exit $?" >>"$2"
}

# install DIR NAME -- build and install DIR, its log in OUTDIR/NAME-build.log
install() {
	make -C "$1" -j"$(nproc)" with_llvm=no PG_CONFIG="$PG_CONFIG" install >"$OUTDIR/$2-build.log" 2>&1
}

if [ "$OLD" = - ]; then
	install . new || { echo "this tree does not build" >&2; exit 1; }
	rounds=${SERVICE_ROUNDS:-1}
	for r in $(seq "$rounds"); do
		out=$OUTDIR/paths.md
		[ "$rounds" = 1 ] || out=$OUTDIR/paths-$r.md
		# each round a server run of its own
		pg_restart -c shared_preload_libraries=gpuscan >/dev/null 2>&1
		for _ in $(seq 300); do psql -XAtq -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.1; done
		(GPUSCAN_USE_RUNNING_SERVER=1 DISPATCH_SIZES="${SERVICE_SIZES:-1e7 6e7}" DISPATCH_CSR_SIZES="" \
			DISPATCH_PATHS="cpu own gpu" DISPATCH_RUNS="${SERVICE_RUNS:-5}" \
			bash bench/dispatch_bench.sh) >"$out" 2>"$out.log"
		echo "exit $?" >>"$out"
		grep -E '^\| (elements|[0-9]+) ' "$out" | head -n 12
	done
	if [ "$rounds" != 1 ]; then
		python3 bench/paths_rounds.py "$OUTDIR"/paths-*.md | tee "$OUTDIR/rounds.md"
	fi
	exit 0
fi
install "$OLD" old || { echo "the old tree does not build" >&2; exit 1; }
pg_restart -c shared_preload_libraries=gpuscan >/dev/null 2>&1
bench_tree "$OLD" "$OUTDIR/old-service.md"
pg_restart -c shared_preload_libraries= >/dev/null 2>&1
bench_tree "$OLD" "$OUTDIR/own.md"
install . new || { echo "this tree does not build" >&2; exit 1; }
pg_restart -c shared_preload_libraries=gpuscan >/dev/null 2>&1
bench_tree . "$OUTDIR/new-service.md"
for f in old-service own new-service; do
	echo "== $f"
	grep -E '^\| (gpu_sum|gpu_prefix_sum_array|gpu_compact_array) ' "$OUTDIR/$f.md" | head -n 12
done
