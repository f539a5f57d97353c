#!/usr/bin/env bash
#
# bench/graph_bench.sh -- graphs and matrices as users store them: PageRank
# over an edge table (gpu_pagerank_edges) end to end from SQL, on each
# path, against the edge query alone and a PL/pgSQL power iteration; the
# CSR aggregate (gpu_csr_agg) against count(*) over the same triples.
#
#   bench/graph_bench.sh [--save]
#
# The graph: an R-MAT graph (bench/rmat_edges.c, Graph500's probabilities)
# of 2^GRAPH_SCALE nodes and GRAPH_EDGES edges, stored as graph.edges(src
# bigint, dst bigint) with sparse ids.  Reported, each the median of
# GRAPH_RUNS runs (client-side statement time by graph.ms()):
#   - the edge query alone, SELECT count(*) FROM (SELECT src, dst FROM
#     graph.edges), serial (the function reads it through a cursor, which
#     runs serially too): the floor;
#   - gpu_pagerank_edges over it, on the CPU path and, where a GPU is
#     usable, the GPU path: the whole call (default tolerance), its
#     iterations, and its phases as the function times them (DEBUG1,
#     medians of GRAPH_RUNS calls after a warm-up): the query and its ids,
#     the CSR, PageRank (its upload and transposes on the GPU path, and
#     the iterations), the rows; everything outside the iterations (the
#     query, the ids, the CSR, the rows) against the floor;
#   - graph.plpgsql_pagerank (bench/sql/graph.sql) for 1 and
#     PLPGSQL_ITERATIONS iterations (one run each, no warm-up), its time
#     per iteration, and its time
#     extrapolated to the iterations gpu_pagerank_edges needed;
#   - on a graph of 2^GRAPH_CHECK_SCALE nodes, the largest difference
#     between the ranks of the PL/pgSQL iteration and gpu_pagerank_edges on
#     each path after 30 iterations;
#   - gpu_csr_agg over GRAPH_TRIPLES (row, column, value) rows of an R-MAT
#     matrix (generated in 8 parts, loaded by 8 COPYs at once), in parallel
#     where the planner chooses it and serial, with the GpuscanCsr scan where
#     the planner takes it and as a plain aggregate, against SELECT count(*)
#     over them (serial and parallel).
#
# Environment: GRAPH_SCALE=20, GRAPH_EDGES=16777216, GRAPH_TRIPLES=67108864,
# GRAPH_RUNS=3, PLPGSQL_ITERATIONS=2, GRAPH_CHECK_SCALE=12, GRAPH_PARTS
# ("pagerank csr": the parts to run, PageRank with its rank check and the
# CSR aggregate; one of them alone where a run must be short), PG_CONFIG,
# GPUSCAN_CPU_ONLY, GPUSCAN_USE_RUNNING_SERVER (as for bench/sql_bench.sh;
# the GPU path is the GPU service's, so a running server must preload
# gpuscan for it, and the throw-away server is restarted with the preload).
# Prints markdown; with --save writes bench/results/graph-<device or
# host>-<date>.md.

set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../test/lib.sh"
CMD=$(bench_command bench/graph_bench.sh "GRAPH_SCALE GRAPH_EDGES GRAPH_TRIPLES GRAPH_RUNS PLPGSQL_ITERATIONS GRAPH_CHECK_SCALE GRAPH_PARTS GPUSCAN_CPU_ONLY GPUSCAN_USE_RUNNING_SERVER" "$@")
cd "$GPUSCAN_ROOT"

bench_args "$@"
SCALE=${GRAPH_SCALE:-20}
EDGES=${GRAPH_EDGES:-16777216}
TRIPLES=${GRAPH_TRIPLES:-67108864}
RUNS=${GRAPH_RUNS:-3}
PLIT=${PLPGSQL_ITERATIONS:-2}
CHECK_SCALE=${GRAPH_CHECK_SCALE:-12}
PARTS=${GRAPH_PARTS:-pagerank csr}
LOAD_PARTS=8
DB=gpuscan_graph
[ "$PLIT" -ge 2 ] || die "PLPGSQL_ITERATIONS must be at least 2"
for part in $PARTS; do
	case $part in
		pagerank|csr) ;;
		*) die "GRAPH_PARTS: unknown part $part (pagerank, csr)" ;;
	esac
done
# part NAME -- true if GRAPH_PARTS names NAME
part() { [[ " $PARTS " == *" $1 "* ]]; }

bench_server_up
if [ "${GPUSCAN_USE_RUNNING_SERVER:-0}" != 1 ]; then
	# the throw-away server, with the GPU service (the only GPU path)
	msg "restarting the throw-away server with shared_preload_libraries = gpuscan"
	restart_temp_server shared_preload_libraries=gpuscan
	# a service that is still starting is waited for, up to 60 s
	for _ in $(seq 600); do [[ "$(info_value gpu_service)" == starting* ]] || break; sleep 0.1; done
fi
sql() { "$PSQL" -X -A -t -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
RMAT_DIR=$(make_temp_dir)
remove_on_exit "$RMAT_DIR"
RMAT=$RMAT_DIR/rmat_edges
cc -O2 -o "$RMAT" "$HERE/rmat_edges.c" || die "cannot build bench/rmat_edges.c"

"$PSQL" -XAtq -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
sql -c "CREATE EXTENSION gpuscan" -f "$HERE/sql/graph.sql"
PATHS=(cpu)
if gpu_usable; then PATHS+=(gpu); fi

# load_edges SCALE EDGES -- graph.edges := an R-MAT graph with sparse ids
load_edges() {
	sql -c "TRUNCATE graph.edges"
	"$RMAT" "$1" "$2" 1 ids | sql -c "COPY graph.edges FROM STDIN"
	sql -c "VACUUM ANALYZE graph.edges"
}

# ms SETTINGS QUERY -- the median time of RUNS runs of QUERY, after SETTINGS
# and one warm-up run (none with WARMUP=0), in one session
ms() {
	local i args=(-c "SET jit = off; $1")
	for ((i = ${WARMUP:-1} ? 0 : 1; i <= RUNS; i++)); do
		args+=(-c "SELECT graph.ms(\$q\$$2\$q\$)")
	done
	sql "${args[@]}" | tail -n "$RUNS" | median
}

# phases SETTINGS QUERY FN -- the medians of the phases that function FN
# logs at DEBUG1 ("FN: phases: <what> N ms, <what> N ms, ..."), over RUNS
# runs of QUERY after SETTINGS and a warm-up, in one session: the times in
# the order logged, separated by spaces
phases() {
	local i col out ncols args=(-c "SET jit = off; $1" -c "SET client_min_messages = debug1")
	for ((i = 0; i <= RUNS; i++)); do
		args+=(-c "$2")
	done
	out=$(sql "${args[@]}" 2>&1 >/dev/null | grep -F "$3: phases:" |
		sed -E 's/[^0-9.]*([0-9.]+) ms/\1 /g; s/ +$//' | tail -n "$RUNS")
	ncols=$(head -n 1 <<<"$out" | wc -w)
	for ((col = 1; col <= ncols; col++)); do
		awk -v c="$col" '{ print $c }' <<<"$out" | median
	done | paste -sd' '
}

# iterations PATH -- the iterations gpu_pagerank_edges took on PATH (DEBUG1)
iterations() {
	sql -c "SET gpuscan.device = $1" -c "SET client_min_messages = debug1" \
		-c "SELECT count(*) FROM gpu_pagerank_edges('SELECT src, dst FROM graph.edges')" 2>&1 >/dev/null |
		sed -nE 's/.*gpu_pagerank_edges: [0-9]+ nodes, [0-9]+ edges, ([0-9]+) iterations?.*/\1/p' | tail -n 1
}

fmt() { awk -v x="$1" 'BEGIN { printf (x >= 100 ? "%.0f" : "%.2f"), x }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
SERIAL="SET max_parallel_workers_per_gather = 0"

# ---- PageRank over the edge table ----
if part pagerank; then
	msg "loading an R-MAT graph: 2^$SCALE nodes, $EDGES edges"
	load_edges "$SCALE" "$EDGES"
	NODES=$(sql -c "SELECT count(*) FROM (SELECT src FROM graph.edges UNION SELECT dst FROM graph.edges) u")
	FLOOR=$(ms "$SERIAL" "SELECT count(*) FROM (SELECT src, dst FROM graph.edges) s")
	msg "edge query alone: $FLOOR ms"

	PR_ROWS=""
	K_GPU=""
	T_GPU=""
	for path in "${PATHS[@]}"; do
		set_path="SET gpuscan.device = $path; SET gpuscan.gpu_min_elements = 0"
		k=$(iterations "$path")
		t=$(ms "$set_path" "SELECT count(*) FROM gpu_pagerank_edges('SELECT src, dst FROM graph.edges')")
		read -r p_query p_csr p_pr p_rows <<<"$(phases "$set_path" \
			"SELECT count(*) FROM gpu_pagerank_edges('SELECT src, dst FROM graph.edges')" gpu_pagerank_edges)"
		outside=$(awk -v a="$p_query" -v b="$p_csr" -v c="$p_rows" 'BEGIN { print a + b + c }')
		msg "gpu_pagerank_edges on the $path: $t ms, $k iterations, outside the iterations $outside ms"
		PR_ROWS+="| $path | $(fmt "$t") | $k | $(fmt "$p_query") | $(fmt "$p_csr") | $(fmt "$p_pr") | $(fmt "$p_rows") | $(fmt "$outside") | $(ratio "$outside" "$FLOOR") |"$'\n'
		if [ "$path" = gpu ] || [ -z "$K_GPU" ]; then
			K_GPU=$k
			T_GPU=$t
			BEST=$path
		fi
	done

	# once each, without a warm-up: each takes minutes at the default size
	PL1=$(WARMUP=0 RUNS=1 ms "" "SELECT count(*) FROM graph.plpgsql_pagerank(1)")
	PLN=$(WARMUP=0 RUNS=1 ms "" "SELECT count(*) FROM graph.plpgsql_pagerank($PLIT)")
	PL_IT=$(awk -v a="$PL1" -v b="$PLN" -v n="$PLIT" 'BEGIN { print (b - a) / (n - 1) }')
	PL_K=$(awk -v a="$PL1" -v i="$PL_IT" -v k="$K_GPU" 'BEGIN { print a + (k - 1) * i }')
	msg "PL/pgSQL: 1 iteration $PL1 ms, $PLIT iterations $PLN ms; at $K_GPU iterations about $PL_K ms"

	# ---- the same ranks, on a small graph ----
	msg "the ranks against PL/pgSQL on a graph of 2^$CHECK_SCALE nodes"
	load_edges "$CHECK_SCALE" $((16 << CHECK_SCALE))
	CHECK_ROWS=""
	for path in "${PATHS[@]}"; do
		d=$(sql -c "SET gpuscan.device = $path; SET gpuscan.gpu_min_elements = 0" \
			-c "SELECT max(abs(g.rank - p.rank)) FROM gpu_pagerank_edges('SELECT src, dst FROM graph.edges', 0.85, 0, 30) g
			    JOIN graph.plpgsql_pagerank(30) p ON p.node = g.node")
		CHECK_ROWS+="| $path | $d |"$'\n'
	done
	sql -c "TRUNCATE graph.edges"
fi

# ---- the CSR aggregate ----
if part csr; then
	msg "loading $TRIPLES triples of an R-MAT matrix"
	# in LOAD_PARTS parts, each by a COPY of its own, all at once
	pids=()
	for ((k = 0; k < LOAD_PARTS; k++)); do
		"$RMAT" "$SCALE" "$TRIPLES" 2 indexes "$k" "$LOAD_PARTS" |
			sql -c "COPY graph.triples FROM STDIN" &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid" || die "loading the triples failed"; done
	sql -c "VACUUM ANALYZE graph.triples"
	COUNT_SERIAL=$(ms "$SERIAL" "SELECT count(*) FROM graph.triples")
	COUNT_PARALLEL=$(ms "" "SELECT count(*) FROM graph.triples")
	AGG_QUERY="SELECT (gpu_csr_agg(r, c, v)).nrows FROM graph.triples"
	AGG=$(ms "" "$AGG_QUERY")
	AGG_SERIAL=$(ms "$SERIAL" "$AGG_QUERY")
	NOSCAN="SET gpuscan.enable_sum_scan = off"
	AGG_NOSCAN=$(ms "$NOSCAN" "$AGG_QUERY")
	AGG_NOSCAN_SERIAL=$(ms "$SERIAL; $NOSCAN" "$AGG_QUERY")
	# plan_node SETTINGS -- the node under the query's Result or Aggregate
	plan_node() {
		sql -c "$1" -c "EXPLAIN (COSTS OFF) $AGG_QUERY" |
			grep -oE 'Custom Scan \(GpuscanCsr\)|Parallel Seq Scan|Seq Scan' | head -n 1
	}
	PLAN=$(plan_node "SET jit = off")
	PLAN_SERIAL=$(plan_node "$SERIAL")
	read -r c_sort c_result <<<"$(phases "" "$AGG_QUERY" gpu_csr_agg)"
	read -r s_sort s_result <<<"$(phases "$SERIAL" "$AGG_QUERY" gpu_csr_agg)"
	C_TRANS=$(awk -v a="$AGG" -v b="$c_sort" -v c="$c_result" 'BEGIN { print a - b - c }')
	S_TRANS=$(awk -v a="$AGG_SERIAL" -v b="$s_sort" -v c="$s_result" 'BEGIN { print a - b - c }')
	msg "gpu_csr_agg: $AGG_SERIAL ms serial, $AGG ms parallel; count(*) $COUNT_SERIAL ms serial, $COUNT_PARALLEL ms parallel"
	msg "gpu_csr_agg's final function: $s_sort + $s_result ms serial, $c_sort + $c_result ms parallel"
	sql -c "TRUNCATE graph.triples"
fi

GITREV=$(git -C "$GPUSCAN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
REPORT="# Graphs and matrices from tables

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(machine_line)
- $("$PSQL" -XAtq -c "SELECT version()" | cut -d, -f1)
- gpuscan: commit $GITREV
- command: \`$CMD\`"
if part pagerank; then
	REPORT+="
- graph: R-MAT (bench/rmat_edges.c, seed 1), 2^$SCALE possible nodes, $NODES of them with an
  edge, $EDGES edges, sparse bigint ids, in graph.edges(src bigint, dst bigint)"
fi
REPORT+="
- method: client-side statement times (graph.ms), median of $RUNS runs after a warm-up in one
  session"
if part pagerank; then
	REPORT+="; PL/pgSQL once each, without a warm-up; gpu_pagerank_edges' phases as it times them
  (DEBUG1), medians of as many calls; outside the iterations = the query and its ids + the CSR + the rows

## PageRank over the edge table

| what | ms |
| --- | ---: |
| the edge query alone (\`SELECT count(*)\` over it, serial) | $(fmt "$FLOOR") |
| PL/pgSQL power iteration, 1 iteration | $(fmt "$PL1") |
| PL/pgSQL power iteration, $PLIT iterations | $(fmt "$PLN") |
| PL/pgSQL, per iteration | $(fmt "$PL_IT") |
| PL/pgSQL extrapolated to $K_GPU iterations | $(fmt "$PL_K") |

| gpu_pagerank_edges path | ms, whole call | iterations | the query and its ids | the CSR | PageRank (upload, transposes, iterations) | the rows | ms outside the iterations | outside / edge query |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${PR_ROWS}
PL/pgSQL (extrapolated) / gpu_pagerank_edges on the $BEST path: $(ratio "$PL_K" "$T_GPU")×.

## The same ranks

Largest |rank difference| against the PL/pgSQL iteration, 30 iterations each, R-MAT graph of
2^$CHECK_SCALE nodes and $((16 << CHECK_SCALE)) edges:

| path | max abs difference |
| --- | ---: |
${CHECK_ROWS%$'\n'}"
fi
if part csr; then
	REPORT+="

## The CSR aggregate

$TRIPLES (row, column, value) rows of an R-MAT matrix (2^$SCALE rows and columns) in
graph.triples(r integer, c integer, v double precision):

| what, ms | serial (\`max_parallel_workers_per_gather = 0\`) | parallel (default settings) |
| --- | ---: | ---: |
| \`SELECT count(*)\` | $(fmt "$COUNT_SERIAL") | $(fmt "$COUNT_PARALLEL") |
| \`SELECT gpu_csr_agg(r, c, v)\` | $(fmt "$AGG_SERIAL") | $(fmt "$AGG") |
| the plan's scan | $PLAN_SERIAL | $PLAN |
| gpu_csr_agg / count(*) | $(ratio "$AGG_SERIAL" "$COUNT_SERIAL")× | $(ratio "$AGG" "$COUNT_PARALLEL")× |
| \`SELECT gpu_csr_agg(r, c, v)\` as an aggregate (\`gpuscan.enable_sum_scan = off\`) | $(fmt "$AGG_NOSCAN_SERIAL") | $(fmt "$AGG_NOSCAN") |
| the aggregate / count(*) | $(ratio "$AGG_NOSCAN_SERIAL" "$COUNT_SERIAL")× | $(ratio "$AGG_NOSCAN" "$COUNT_PARALLEL")× |
| of gpu_csr_agg, the final function: the triples sorted by (row, column) | $(fmt "$s_sort") | $(fmt "$c_sort") |
| of gpu_csr_agg, the final function: the duplicates added, the result | $(fmt "$s_result") | $(fmt "$c_result") |
| of gpu_csr_agg, the rest: the scan and each row added to the state (by the GpuscanCsr scan, or by the transition function; in parallel also the parts handed on and appended) | $(fmt "$S_TRANS") | $(fmt "$C_TRANS") |
"
fi
"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
printf '%s\n' "$REPORT"
bench_save "$REPORT" graph
