-- test/load/setup.sql -- the data and the expected answers of the gpuscan
-- load test (test/load/run.sh), run once in a fresh database before pgbench.
--
-- Tables of known inputs, and beside each the answers the pgbench scripts
-- (test/load/scripts/*.sql) must get, computed here in plain SQL without
-- gpuscan:
--
--   load_rows        100000 rows (id, grp, x float8, r real, some NULLs) for
--                    the aggregate, the GpuscanSum scan and the window function
--   load_totals      their exact sums; load_group_totals per grp
--   load_cum         exact running sums over id (numeric), for the sums of
--                    any id range; load_running: per grp, rounded once
--   load_arrays      stored float8[] / real[] / boolean[] of 0 to 100000
--                    elements; load_array_expected: sums, inclusive and
--                    exclusive prefix sums, compaction, kept positions
--   load_matrices    CSR matrices of small integers, load_vectors x vectors,
--                    load_spmv_expected y = A x from a join + GROUP BY
--   load_graphs      graphs; load_pagerank_expected: ranks from a set-based
--                    power iteration in SQL
--
-- Exactness: every x and r is m * 2^e with small integers m and e, so it is
-- exactly a double (a real); its exact value comes from integer arithmetic
-- (load_exact: x * 2^30 is an integer, exactly; PostgreSQL 15's float8 ->
-- numeric cast would keep only 15 digits), sums are added in numeric
-- without error and rounded once by the numeric -> float8 cast, which
-- rounds correctly.  The values span 2^-20 .. 2^30, so the sums need the
-- single rounding: plain float8 addition gets them wrong (shown below).
-- SpMV uses small integers, whose products and sums are exact in any order.
-- PageRank compares within 1e-12 against the reference, and bit for bit
-- against the CPU path's own result computed here (determinism: both paths
-- and every run give the same bits).
--
-- load_check(label, ok) raises an error naming the label unless ok is true:
-- pgbench aborts the client on it.

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION gpuscan;

-- load_check -- an error with the label unless ok is true (NULL fails too)
CREATE FUNCTION load_check(label text, ok boolean) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION 'load check failed: % (got %)', label, coalesce(ok::text, 'NULL');
  END IF;
  RETURN true;
END
$$;

-- load_check_paths -- every gpuscan call of this session took the path that
-- gpuscan.device forces: 'cpu', or under gpu the GPU service, which runs all
-- GPU work ('gpu service', 'gpu service, cached' and the like); anything
-- goes with auto.
CREATE FUNCTION load_check_paths() RETURNS boolean
LANGUAGE sql VOLATILE AS $$
  SELECT load_check('path: gpuscan.device = ' || current_setting('gpuscan.device') ||
                    ' but gpuscan_stats() shows ' || coalesce(string_agg(DISTINCT path, ','), 'no calls'),
                    coalesce(bool_and(CASE current_setting('gpuscan.device')
                                        WHEN 'cpu' THEN path = 'cpu'
                                        WHEN 'gpu' THEN path LIKE 'gpu service%'
                                        ELSE true END), true))
  FROM gpuscan_stats()
$$;

-- load_plan_has -- whether EXPLAIN (COSTS OFF) of query mentions node
CREATE FUNCTION load_plan_has(query text, node text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF strpos(line, node) > 0 THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END
$$;

-- load_exact -- the exact value of a double that is a multiple of 2^-30 below
-- 2^33 in magnitude, as all inputs here are (load_exact_ok checks that):
-- x * 2^30 is then an integer, exactly, and x = that * 5^30 / 10^30
CREATE FUNCTION load_exact(x float8) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT (x * 1073741824)::bigint::numeric * 931322574615478515625 * 1e-30
$$;
CREATE FUNCTION load_exact_ok(x float8) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT abs(x) < 8589934592 AND x * 1073741824 = trunc(x * 1073741824)
$$;

-- load_wide -- m * 2^e as a double: m in [-1000, 1000], e in [-20, 20] (exact)
CREATE FUNCTION load_wide() RETURNS float8
LANGUAGE sql VOLATILE AS $$
  SELECT (floor(random() * 2001) - 1000) * power(2::float8, floor(random() * 41) - 20)
$$;

-- load_narrow -- m * 2^e as a real: m in [-2047, 2047], e in [-10, 10] (exact)
CREATE FUNCTION load_narrow() RETURNS real
LANGUAGE sql VOLATILE AS $$
  SELECT ((floor(random() * 4095) - 2047) * power(2::float8, floor(random() * 21) - 10))::real
$$;

SELECT setseed(0.125) \g /dev/null

-- ---------------------------------------------------------------------------
-- rows: the aggregate, the GpuscanSum scan, the window function
-- ---------------------------------------------------------------------------
CREATE TABLE load_rows (id int PRIMARY KEY, grp int NOT NULL, x float8, r real);
INSERT INTO load_rows
SELECT g, g % 16,
       CASE WHEN g % 997 = 0 THEN NULL ELSE load_wide() END,
       CASE WHEN g % 1009 = 0 THEN NULL ELSE load_narrow() END
FROM generate_series(1, 100000) g;
-- the first rows of group 3 have no x: the running sum starts NULL there
UPDATE load_rows SET x = NULL WHERE grp = 3 AND id < 100;
ANALYZE load_rows;

CREATE TABLE load_rows_exact AS
SELECT id, grp, load_exact(x) AS xe, load_exact(r::float8) AS re FROM load_rows;
SELECT load_check('setup: load_rows values are multiples of 2^-30 below 2^33',
                  bool_and(load_exact_ok(x)) AND bool_and(load_exact_ok(r)))
FROM load_rows \g /dev/null

CREATE TABLE load_totals AS
SELECT sum(xe)::float8 AS sum_x, sum(re)::float8 AS sum_r, count(*) AS n FROM load_rows_exact;
CREATE TABLE load_group_totals AS
SELECT grp, sum(xe)::float8 AS sum_x, sum(re)::float8 AS sum_r, count(*) AS n
FROM load_rows_exact GROUP BY grp;

-- exact running sums over id, and how many non-NULL values so far; id 0 is
-- the empty prefix.  The sum over ids lo..hi is cum(hi) - cum(lo - 1).
CREATE TABLE load_cum AS
SELECT id, sum(coalesce(xe, 0)) OVER w AS cx, count(xe) OVER w AS nx,
           sum(coalesce(re, 0)) OVER w AS cr, count(re) OVER w AS nr
FROM load_rows_exact WINDOW w AS (ORDER BY id ROWS UNBOUNDED PRECEDING);
INSERT INTO load_cum VALUES (0, 0, 0, 0, 0);
ALTER TABLE load_cum ADD PRIMARY KEY (id);

-- running sums per grp, rounded once (NULL before a group's first value)
CREATE TABLE load_running AS
SELECT id, grp, (sum(xe) OVER w)::float8 AS run_x, (sum(re) OVER w)::float8 AS run_r
FROM load_rows_exact WINDOW w AS (PARTITION BY grp ORDER BY id ROWS UNBOUNDED PRECEDING);
ALTER TABLE load_running ADD PRIMARY KEY (id);
ANALYZE load_totals, load_group_totals, load_cum, load_running;

-- ---------------------------------------------------------------------------
-- arrays: gpu_sum, prefix sums, compaction
-- ---------------------------------------------------------------------------
-- keep: 'all', 'none', 'null' (all NULL), or a fraction kept; NULLs sprinkled
-- in where the fraction is below 1/2 (the j = 0 case, never true, ties the
-- flags' array_agg to its own subquery)
CREATE TABLE load_arrays (aid int PRIMARY KEY, xs float8[], rs real[], keep boolean[]);
INSERT INTO load_arrays
SELECT aid,
       coalesce((SELECT array_agg(load_wide()) FROM generate_series(1, n)), '{}'),
       coalesce((SELECT array_agg(load_narrow()) FROM generate_series(1, n)), '{}'),
       coalesce((SELECT array_agg(CASE
                   WHEN j = 0 THEN NULL
                   WHEN kind = 'all' THEN true
                   WHEN kind = 'none' THEN false
                   WHEN kind = 'null' THEN NULL
                   WHEN kind::float8 < 0.5 AND random() < 0.1 THEN NULL
                   ELSE random() < kind::float8 END)
                 FROM generate_series(1, n) j), '{}')
FROM (VALUES (1, 0, 'all'), (2, 1, 'all'), (3, 5, '0.5'), (4, 100, '0.3'),
             (5, 4096, 'none'), (6, 4097, 'all'), (7, 12289, '0.0588'),
             (8, 65537, '0.968'), (9, 100000, '0.5'), (10, 30000, 'null'),
             (11, 2049, '0.5'), (12, 777, '0.9')) AS p(aid, n, kind);

-- element i: value, exact value, flag; then the expected answers per array
CREATE TABLE load_array_elems AS
SELECT a.aid, u.i, u.x, u.r, u.k, load_exact(u.x) AS xe, load_exact(u.r::float8) AS re
FROM load_arrays a, unnest(a.xs, a.rs, a.keep) WITH ORDINALITY AS u(x, r, k, i);
SELECT load_check('setup: array values are multiples of 2^-30 below 2^33',
                  bool_and(load_exact_ok(x)) AND bool_and(load_exact_ok(r)))
FROM load_array_elems \g /dev/null

CREATE TABLE load_array_expected AS
SELECT a.aid, cardinality(a.xs) AS n, e.*
FROM load_arrays a, LATERAL (
  SELECT coalesce(sum(xe), 0)::float8 AS sum_x,
         coalesce(sum(re), 0)::float8 AS sum_r,
         coalesce(array_agg(px ORDER BY i), '{}') AS prefix_x,
         coalesce(array_agg(pr ORDER BY i), '{}') AS prefix_r,
         coalesce(array_agg(ex ORDER BY i), '{}') AS prefix_x_excl,
         coalesce(array_agg(er ORDER BY i), '{}') AS prefix_r_excl,
         coalesce(array_agg(x ORDER BY i) FILTER (WHERE k), '{}') AS compact_x,
         coalesce(array_agg(r ORDER BY i) FILTER (WHERE k), '{}') AS compact_r,
         coalesce(array_agg(i::int ORDER BY i) FILTER (WHERE k), '{}') AS kept
  FROM (SELECT i, x, r, k, xe, re,
               (sum(xe) OVER w)::float8 AS px, (sum(re) OVER w)::float8 AS pr,
               coalesce(sum(xe) OVER wx, 0)::float8 AS ex,
               coalesce(sum(re) OVER wx, 0)::float8 AS er
        FROM load_array_elems el WHERE el.aid = a.aid
        WINDOW w AS (ORDER BY i ROWS UNBOUNDED PRECEDING),
               wx AS (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) s
) e;
ALTER TABLE load_array_expected ADD PRIMARY KEY (aid);
DROP TABLE load_array_elems;

-- ---------------------------------------------------------------------------
-- SpMV: CSR matrices of small integers, three x vectors each
-- ---------------------------------------------------------------------------
-- row lengths (0 to maxlen; matrix 4 has rows past a 4096-entry segment),
-- then the entries (row, position, column, value)
CREATE TABLE load_row_lens AS
WITH params(mid, nrows, ncols, maxlen) AS (
  VALUES (1, 1, 1, 3), (2, 50, 40, 8), (3, 1000, 300, 20), (4, 4, 500, 9000),
         (5, 2000, 64, 64), (6, 300, 300, 1))
SELECT mid, nrows, ncols, r, floor(random() * (maxlen + 1))::int AS len
FROM params, generate_series(0, nrows - 1) r;
CREATE TABLE load_entries AS
SELECT l.mid, l.r AS row_index, g AS pos, floor(random() * l.ncols)::int AS col,
       (floor(random() * 19) - 9)::float8 AS val
FROM load_row_lens l, generate_series(1, l.len) g;
CREATE TABLE load_matrices AS
SELECT mid, min(nrows) AS nrows, min(ncols) AS ncols,
       '{0}'::int[] || array_agg(c::int ORDER BY r) AS rp,
       (SELECT coalesce(array_agg(col ORDER BY row_index, pos), '{}')
        FROM load_entries e WHERE e.mid = s.mid) AS ci,
       (SELECT coalesce(array_agg(val ORDER BY row_index, pos), '{}')
        FROM load_entries e WHERE e.mid = s.mid) AS v
FROM (SELECT mid, nrows, ncols, r, sum(len) OVER (PARTITION BY mid ORDER BY r) AS c
      FROM load_row_lens) s
GROUP BY mid;
ALTER TABLE load_matrices ADD PRIMARY KEY (mid);

CREATE TABLE load_xvals AS
SELECT m.mid, xid, col, (floor(random() * 11) - 5)::float8 AS val
FROM load_matrices m, generate_series(1, 3) xid, generate_series(0, m.ncols - 1) col;
CREATE TABLE load_vectors AS
SELECT mid, xid, array_agg(val ORDER BY col) AS x FROM load_xvals GROUP BY mid, xid;
ALTER TABLE load_vectors ADD PRIMARY KEY (mid, xid);

-- y = A x as a join of the entries with x, summed per row (empty rows: 0)
ANALYZE load_row_lens, load_entries, load_xvals, load_vectors;
CREATE TABLE load_spmv_expected AS
WITH products AS (
  SELECT e.mid, xv.xid, e.row_index, sum(e.val * xv.val) AS y
  FROM load_entries e JOIN load_xvals xv ON xv.mid = e.mid AND xv.col = e.col
  GROUP BY e.mid, xv.xid, e.row_index)
SELECT l.mid, v.xid, array_agg(coalesce(p.y, 0) ORDER BY l.r) AS y
FROM load_row_lens l JOIN load_vectors v USING (mid)
LEFT JOIN products p ON p.mid = l.mid AND p.xid = v.xid AND p.row_index = l.r
GROUP BY l.mid, v.xid;
ALTER TABLE load_spmv_expected ADD PRIMARY KEY (mid, xid);

-- ---------------------------------------------------------------------------
-- PageRank: graphs, and ranks from a set-based power iteration
-- ---------------------------------------------------------------------------
-- edges src -> tgt; graph 1 is the README's, 2 a 7-cycle (every rank 1/7),
-- 3 and 4 random with duplicate edges, self-loops and dangling nodes
CREATE TABLE load_edges (gid int, src int, pos int, tgt int);
INSERT INTO load_edges VALUES
  (1, 0, 1, 1), (1, 0, 2, 2), (1, 1, 1, 2), (1, 2, 1, 0), (1, 3, 1, 2);
INSERT INTO load_edges SELECT 2, i, 1, (i + 1) % 7 FROM generate_series(0, 6) i;
INSERT INTO load_edges
WITH params(gid, n, maxdeg) AS (VALUES (3, 60, 4), (4, 400, 12)),
degs AS (
  SELECT gid, i, CASE WHEN random() < 0.15 THEN 0 ELSE floor(random() * (maxdeg + 1))::int END AS deg
  FROM params, generate_series(0, n - 1) i)
SELECT d.gid, d.i, g, floor(random() * p.n)::int
FROM degs d JOIN params p USING (gid), generate_series(1, d.deg) g;
CREATE TABLE load_graphs AS
WITH params(gid, n) AS (VALUES (1, 5), (2, 7), (3, 60), (4, 400)),
degs AS (
  SELECT p.gid, p.n, i, (SELECT count(*) FROM load_edges e WHERE e.gid = p.gid AND e.src = i) AS deg
  FROM params p, generate_series(0, p.n - 1) i)
SELECT gid, min(n) AS n,
       '{0}'::int[] || array_agg(c::int ORDER BY i) AS rp,
       (SELECT coalesce(array_agg(tgt ORDER BY src, pos), '{}')
        FROM load_edges e WHERE e.gid = s.gid) AS ci
FROM (SELECT gid, n, i, sum(deg) OVER (PARTITION BY gid ORDER BY i) AS c FROM degs) s
GROUP BY gid;
ALTER TABLE load_graphs ADD PRIMARY KEY (gid);

-- out-degrees per node (0: dangling)
CREATE TABLE load_outdeg AS
SELECT g.gid, i AS node, (SELECT count(*) FROM load_edges e WHERE e.gid = g.gid AND e.src = i) AS deg
FROM load_graphs g, generate_series(0, g.n - 1) i;
ANALYZE load_edges, load_outdeg;

-- load_pagerank_reference -- r' = (1 - d)/n + d (inflow + dangling/n),
-- iterated from 1/n: each step one query over the edge table
CREATE FUNCTION load_pagerank_reference(g int, d float8, iterations int) RETURNS float8[]
LANGUAGE plpgsql AS $$
DECLARE
  n int := (SELECT gr.n FROM load_graphs gr WHERE gr.gid = g);
  r float8[] := array_fill(1.0::float8 / n, ARRAY[n]);
BEGIN
  FOR it IN 1 .. iterations LOOP
    SELECT array_agg((1 - d) / n + d * (coalesce(inflow.s, 0) + dm.s / n) ORDER BY node)
    INTO r
    FROM generate_series(0, n - 1) node
    LEFT JOIN (SELECT e.tgt, sum(r[e.src + 1] / o.deg) AS s
               FROM load_edges e JOIN load_outdeg o ON o.gid = e.gid AND o.node = e.src
               WHERE e.gid = g GROUP BY e.tgt) inflow ON inflow.tgt = node
    CROSS JOIN (SELECT coalesce(sum(r[o.node + 1]), 0) AS s FROM load_outdeg o
                WHERE o.gid = g AND o.deg = 0) dm;
  END LOOP;
  RETURN r;
END
$$;

CREATE TABLE load_pagerank_expected AS
SELECT gid, load_pagerank_reference(gid, 0.85, 200) AS ranks FROM load_graphs;
ALTER TABLE load_pagerank_expected ADD PRIMARY KEY (gid);

-- the CPU path's own bits, for the determinism check (checked against the
-- reference here first)
SET gpuscan.device = cpu;
ALTER TABLE load_pagerank_expected ADD COLUMN cpu_ranks float8[];
UPDATE load_pagerank_expected e
SET cpu_ranks = gpu_pagerank(g.rp, g.ci, 0.85, 1e-14, 1000)
FROM load_graphs g WHERE g.gid = e.gid;
RESET gpuscan.device;
SELECT load_check('setup: CPU PageRank of graph ' || gid || ' within 1e-12 of the reference',
                  (SELECT max(abs(a - b)) < 1e-12 FROM unnest(cpu_ranks, ranks) u(a, b))
                  AND cardinality(cpu_ranks) = cardinality(ranks))
FROM load_pagerank_expected \g /dev/null
SELECT load_check('setup: 7-cycle ranks are 1/7',
                  (SELECT max(abs(a - 1.0 / 7)) < 1e-15 FROM unnest(ranks) a))
FROM load_pagerank_expected WHERE gid = 2 \g /dev/null

ANALYZE;

-- what was made (and that plain float8 addition is not exact on this data)
SELECT format('load setup: %s rows, %s arrays (%s elements), %s matrices (%s non-zeros), %s graphs (%s edges); '
              'sum(x) in float8 %s the exact sum',
              (SELECT count(*) FROM load_rows),
              (SELECT count(*) FROM load_arrays),
              (SELECT sum(cardinality(xs)) FROM load_arrays),
              (SELECT count(*) FROM load_matrices),
              (SELECT count(*) FROM load_entries),
              (SELECT count(*) FROM load_graphs),
              (SELECT count(*) FROM load_edges),
              CASE WHEN (SELECT sum(x) FROM load_rows) = (SELECT sum_x FROM load_totals)
                   THEN 'equals' ELSE 'differs from' END) AS summary;
