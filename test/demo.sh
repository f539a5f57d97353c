#!/usr/bin/env bash
#
# test/demo.sh -- `make demo`: build gpuscan, start a throw-away server that
# sees it and preloads it (test/lib.sh's bench_server_up: its GPU service
# runs the GPU work), and walk through a psql session that puts every
# gpuscan function next to its plain-SQL equivalent: both timed on the same
# data, the path that ran (from gpuscan_stats()) and how far the two
# answers differ.  The server is stopped and its directory removed at the
# end, also on failure or Ctrl-C.  About 15 seconds on a 2-core machine
# with the default size.
#
# Environment: PG_CONFIG, GPUSCAN_CPU_ONLY=1, DEMO_N (elements of the test
# arrays and rows of the test table, default 1000000; the matrix has DEMO_N
# non-zeros, the graph DEMO_N / 100 nodes), GPUSCAN_USE_RUNNING_SERVER=1
# (use PGHOST/PGPORT/PGUSER's server, in a database gpuscan_demo that is
# dropped at the end).

set -euo pipefail
# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$GPUSCAN_ROOT"

N=${DEMO_N:-1000000}
[[ "$N" =~ ^[0-9]+$ ]] && [ "$N" -ge 200 ] || die "DEMO_N must be a number of at least 200"
RUNNING=${GPUSCAN_USE_RUNNING_SERVER:-0}

BENCH_SHARED_BUFFERS=${BENCH_SHARED_BUFFERS:-128MB} bench_server_up
DB=postgres
if [ "$RUNNING" = 1 ]; then
	DB=gpuscan_demo
	"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
fi

msg "psql session (database $DB)"
echo
"$PSQL" -X -q -v ON_ERROR_STOP=1 -v n="$N" -d "$DB" <<'SQL'
\pset footer off
\echo '-- 1. Load the extension and see what it found: the build, the GPU service and its GPUs.'
CREATE EXTENSION gpuscan;
SELECT * FROM gpuscan_info();
SELECT value = 'true' AS gpu FROM gpuscan_info() WHERE item = 'gpu_usable' \gset

\echo
\echo '-- 2. Exact sums.  Plain float addition rounds after every step, gpu_sum once:'
\set ECHO queries
SELECT sum(x) AS "sum()", gpu_sum(x) AS "gpu_sum()" FROM unnest(ARRAY[1e16, 1, -1e16]::float8[]) x;
\set ECHO none

\echo
\echo '-- 3. Test data, not timed:' :n 'random numbers as one float8[] (arr.a) with a boolean[]'
\echo '--    (arr.k, half true), and as rows of a table (r.x); a sparse matrix of' :n 'non-zeros,'
\echo '--    10 a row, as CSR arrays (csr) and as rows (m_entries, m_x); a graph as CSR (g) and'
\echo '--    as rows (nodes, edges), with 1 node in 20 dangling (no out-links).'
SET client_min_messages = warning;
CREATE TABLE arr AS
  SELECT array_agg(random() ORDER BY i) AS a, array_agg(random() < 0.5 ORDER BY i) AS k
  FROM generate_series(1, :n) i;
CREATE TABLE r AS SELECT i AS id, random() AS x FROM generate_series(1, :n) i;
SELECT :n / 10 AS mrows, :n / 100 AS gnodes \gset
CREATE TABLE m_entries AS
  SELECT e / 10 AS row, (random() * (:mrows - 1))::int AS col, random() AS val, e
  FROM generate_series(0, :mrows * 10 - 1) e;
CREATE TABLE m_x AS SELECT i, random() AS xi FROM generate_series(0, :mrows - 1) i;
CREATE TABLE csr AS
  SELECT (SELECT array_agg(p) FROM generate_series(0, :mrows * 10, 10) p) AS row_ptr,
         array_agg(col ORDER BY e) AS col_idx, array_agg(val ORDER BY e) AS vals,
         (SELECT array_agg(xi ORDER BY i) FROM m_x) AS x
  FROM m_entries;
CREATE TABLE nodes AS SELECT node FROM generate_series(0, :gnodes - 1) node;
CREATE TABLE edges AS
  SELECT s AS src, floor(:gnodes * random() ^ 2)::int AS dst
  FROM (SELECT floor(random() * :gnodes)::int AS s FROM generate_series(1, :gnodes * 10)) q
  WHERE s % 20 <> 0;
CREATE TABLE g AS
  SELECT array_prepend(0, array_agg(c::int ORDER BY node)) AS row_ptr,
         (SELECT array_agg(dst ORDER BY src, dst) FROM edges) AS col_idx
  FROM (SELECT n.node, sum(count(e.src)) OVER (ORDER BY n.node) AS c
        FROM nodes n LEFT JOIN edges e ON e.src = n.node GROUP BY n.node) q;
VACUUM ANALYZE arr, r, m_entries, m_x, csr, nodes, edges, g;

-- PageRank in plain SQL: the rule of gpu_pagerank (damping 0.85, the rank of
-- dangling nodes spread evenly, stop when the L1 change is at most 1e-10)
-- as one recursive query, one step of the recursion per iteration.
CREATE FUNCTION plain_pagerank(d float8 DEFAULT 0.85, tol float8 DEFAULT 1e-10,
                               max_iterations int DEFAULT 100)
RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
  n int := (SELECT count(*) FROM nodes);
BEGIN
  RETURN (
    WITH RECURSIVE outdeg AS (
      SELECT v.node, count(e.src) AS deg FROM nodes v LEFT JOIN edges e ON e.src = v.node
      GROUP BY v.node),
    it(k, r, delta) AS (
      SELECT 0, array_fill(1.0::float8 / n, ARRAY[n]), 'Infinity'::float8
      UNION ALL
      SELECT it.k + 1, nxt.r, nxt.delta
      FROM it, LATERAL (
        SELECT array_agg(v ORDER BY j) AS r, sum(abs(v - it.r[j + 1])) AS delta
        FROM (SELECT j.node AS j, (1 - d) / n + d * (coalesce(s.inflow, 0) + dm.mass / n) AS v
              FROM nodes j
              CROSS JOIN (SELECT coalesce(sum(it.r[node + 1]), 0) AS mass
                          FROM outdeg WHERE deg = 0) dm
              LEFT JOIN (SELECT e.dst, sum(it.r[e.src + 1] / o.deg) AS inflow
                         FROM edges e JOIN outdeg o ON o.node = e.src GROUP BY e.dst) s
                ON s.dst = j.node) q) nxt
      WHERE it.delta > tol AND it.k < max_iterations)
    SELECT r FROM it ORDER BY k DESC LIMIT 1);
END $$;

-- run_query: run q twice (the first run warms up) and keep the faster time,
-- server-side, planning included; the answer, row by row, as one array; the
-- gpuscan paths that ran, from gpuscan_stats(); gpuscan.device = device
-- while it runs, if given
CREATE FUNCTION run_query(q text, device text DEFAULT NULL,
                          OUT ms float8, OUT answer float8[], OUT paths text)
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  before jsonb;
  saved text := current_setting('gpuscan.device');
BEGIN
  ms := 'Infinity';
  IF device IS NOT NULL THEN
    PERFORM set_config('gpuscan.device', device, true);
  END IF;
  FOR run IN 1..2 LOOP
    SELECT jsonb_object_agg(function || ' ' || path, calls) INTO before FROM gpuscan_stats();
    t0 := clock_timestamp();
    EXECUTE format('SELECT array_agg(c) FROM (%s) q(c)', q) INTO answer;
    ms := least(ms, extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
  PERFORM set_config('gpuscan.device', saved, true);
  SELECT string_agg(DISTINCT path, '+') INTO paths FROM gpuscan_stats()
  WHERE calls > coalesce((before ->> (function || ' ' || path))::bigint, 0);
END $$;

-- max_rel_diff: the largest relative difference between two answers
CREATE FUNCTION max_rel_diff(a float8[], b float8[]) RETURNS float8
LANGUAGE sql AS $$
  SELECT CASE WHEN cardinality(a) IS DISTINCT FROM cardinality(b) THEN 'NaN'
    ELSE coalesce(max(CASE WHEN x = y THEN 0 ELSE abs(x - y) / greatest(abs(x), abs(y)) END), 0) END
  FROM unnest(a, b) u(x, y)
$$;
RESET client_min_messages;

\echo
\echo '-- 4. Every gpuscan function next to its plain-SQL equivalent (plain_pagerank() is'
\echo '--    PageRank as one recursive query: see test/demo.sh).'
\set ECHO queries
CREATE TABLE cases (id serial, function text, plain_sql text, gpuscan_sql text);
INSERT INTO cases (function, plain_sql, gpuscan_sql) VALUES
 ('gpu_sum(a)',
  $$SELECT sum(x) FROM arr, unnest(a) x$$,
  $$SELECT gpu_sum(a) FROM arr$$),
 ('gpu_sum(x) aggregate',
  $$SELECT sum(x) FROM r$$,
  $$SELECT gpu_sum(x) FROM r$$),
 ('gpu_sum(x) GROUP BY',
  $$SELECT sum(x) FROM r GROUP BY id % 1000 ORDER BY id % 1000$$,
  $$SELECT gpu_sum(x) FROM r GROUP BY id % 1000 ORDER BY id % 1000$$),
 ('gpu_prefix_sum_array(a)',
  $$SELECT array_agg(s ORDER BY i) FROM (SELECT i, sum(x) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) s
                                         FROM arr, unnest(a) WITH ORDINALITY u(x, i)) q$$,
  $$SELECT gpu_prefix_sum_array(a) FROM arr$$),
 ('gpu_prefix_sum(a)',
  $$SELECT sum(x) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) FROM arr, unnest(a) WITH ORDINALITY u(x, i)$$,
  $$SELECT s FROM arr, gpu_prefix_sum(a) s$$),
 ('gpu_running_sum(x)',
  $$SELECT sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) FROM r$$,
  $$SELECT gpu_running_sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) FROM r$$),
 ('gpu_compact_array(a, k)',
  $$SELECT array_agg(x ORDER BY i) FROM arr, unnest(a, k) WITH ORDINALITY u(x, kk, i) WHERE kk$$,
  $$SELECT gpu_compact_array(a, k) FROM arr$$),
 ('gpu_compact(a, k)',
  $$SELECT x FROM arr, unnest(a, k) u(x, kk) WHERE kk$$,
  $$SELECT x FROM arr, gpu_compact(a, k) x$$),
 ('gpu_compact_indices_array(k)',
  $$SELECT array_agg(i ORDER BY i) FROM arr, unnest(k) WITH ORDINALITY u(kk, i) WHERE kk$$,
  $$SELECT gpu_compact_indices_array(k) FROM arr$$),
 ('gpu_compact_indices(k)',
  $$SELECT i FROM arr, unnest(k) WITH ORDINALITY u(kk, i) WHERE kk$$,
  $$SELECT i FROM arr, gpu_compact_indices(k) i$$),
 ('gpu_csr_spmv(...)',
  $$SELECT array_agg(y ORDER BY row) FROM (SELECT e.row, sum(e.val * m.xi) y
                                           FROM m_entries e JOIN m_x m ON m.i = e.col GROUP BY e.row) q$$,
  $$SELECT gpu_csr_spmv(row_ptr, col_idx, vals, x) FROM csr$$),
 ('gpu_csr_spmv_rows(...)',
  $$SELECT sum(e.val * m.xi) FROM m_entries e JOIN m_x m ON m.i = e.col GROUP BY e.row ORDER BY e.row$$,
  $$SELECT value FROM csr, gpu_csr_spmv_rows(row_ptr, col_idx, vals, x)$$),
 ('gpu_pagerank(...)',
  $$SELECT plain_pagerank()$$,
  $$SELECT gpu_pagerank(row_ptr, col_idx) FROM g$$);
\set ECHO none

\echo
\echo '-- Timing each pair (each query twice, the faster run counts; a query''s rows are'
\echo '-- collected into one array to compare the answers) ...'
CREATE TABLE results AS
  SELECT c.id, c.function, p.ms AS plain_ms, g.ms AS gpuscan_ms, g.paths,
         max_rel_diff(p.answer, g.answer) AS diff, NULL::float8 AS gpu_ms
  FROM cases c, run_query(c.plain_sql) p, run_query(c.gpuscan_sql) g;
\if :gpu
\echo '-- ... and each gpuscan query again with gpuscan.device = gpu (forced).'
UPDATE results SET gpu_ms = (run_query(c.gpuscan_sql, 'gpu')).ms FROM cases c WHERE c.id = results.id;
\endif
\echo
\echo '-- "path": where gpuscan ran with gpuscan.device = auto (cpu, gpu service), from gpuscan_stats();'
\echo '-- "per row": GROUP BY states add each row at once, on the CPU.  "difference": the largest'
\echo '-- relative difference between the answers (plain SQL rounds after every addition).'
SELECT function, round(plain_ms::numeric, 1) AS "plain SQL ms",
       round(gpuscan_ms::numeric, 1) AS "gpuscan ms",
       to_char(plain_ms / gpuscan_ms, 'FM99990.0') || '×' AS faster,
       coalesce(paths, 'cpu, per row') AS path,
       CASE WHEN diff = 0 THEN 'identical' ELSE to_char(diff, '9.9EEEE') END AS difference
       \if :gpu
       , round(gpu_ms::numeric, 1) AS "forced GPU ms"
       \endif
FROM results ORDER BY id;
\echo
\echo '-- The whole-table gpu_sum above ran as a custom scan that adds the column in chunks:'
\set ECHO queries
EXPLAIN (COSTS OFF) SELECT gpu_sum(x) FROM r;
\set ECHO none

\echo
\echo '-- 5. What ran where in this session (parallel workers keep their own counters), and'
\echo '--    the GPU memory the GPU service holds now, per GPU (none: no GPU in the service).'
\set ECHO queries
SELECT function, path, calls, elements, bytes_moved, round(time_ms::numeric, 1) AS time_ms
FROM gpuscan_stats() ORDER BY function, path;
SELECT item, value FROM gpuscan_info() WHERE item ~ '^gpu_service_device [0-9]+ memory$';
SELECT gpuscan_stats_reset();
SELECT count(*) AS counters_left FROM gpuscan_stats();
\set ECHO none
SQL
echo
if [ "$RUNNING" = 1 ]; then
	"$PSQL" -XAtq -c "DROP DATABASE IF EXISTS $DB"
	msg "done; dropped database $DB"
else
	msg "done; stopping the server"
fi
