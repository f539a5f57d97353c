-- gpu_sum as an aggregate: exact, NULL-skipping, and bit-identical for
-- every plan (serial, parallel, the GpuscanSum and GpuscanGroupSum scans)
-- and every order.  Every sum over the table is checked against an exact
-- reference computed in numeric, not against gpu_sum itself, and where the
-- sum runs on the GPU on the GPU pass, gpu_ran() checks with the GPU
-- service's own request counter that it did (and, on the CPU pass, that
-- nothing went to the GPU).
SELECT setseed(0.5);

-- The values in numeric first: each is a * 2^s, a an integer of at most
-- 53 bits (24 for the reals), s from -30 to 30 (-20 to 20), either sign, so
-- that it is exactly a double (a real) and the numeric sum of a column is
-- its exact sum, which numeric to float8 rounds correctly: the reference.
-- The magnitudes span 2^-30 to 2^83, so the order of a float8 summation
-- changes its result (checked below).
-- 2^e for e from -30 to 30, by halving (exact in numeric)
CREATE TABLE pow2 (e int, v numeric);
INSERT INTO pow2
  WITH RECURSIVE p(e, v) AS (SELECT 30, 1073741824::numeric
                             UNION ALL SELECT e - 1, v * 0.5 FROM p WHERE e > -30)
  SELECT e, v FROM p;
CREATE TABLE agg_exact (id int, grp int, x_num numeric, r_num numeric);
INSERT INTO agg_exact
  WITH d AS MATERIALIZED (
    SELECT g, random() < 0.5 AS neg, floor(random() * 2 ^ 26) AS hi, floor(random() * 2 ^ 27) AS lo,
           floor(random() * 61)::int - 30 AS s,
           random() < 0.5 AS rneg, floor(random() * 2 ^ 24) AS rm, floor(random() * 41)::int - 20 AS rs
    FROM generate_series(1, 200000) g)
  SELECT g, g % 7,
         CASE WHEN g % 101 = 0 THEN NULL
              ELSE (CASE WHEN neg THEN -1 ELSE 1 END) * (hi::numeric * 134217728 + lo::numeric) * px.v END,
         CASE WHEN g % 103 = 0 THEN NULL
              ELSE (CASE WHEN rneg THEN -1 ELSE 1 END) * rm::numeric * pr.v END
  FROM d JOIN pow2 px ON px.e = d.s JOIN pow2 pr ON pr.e = d.rs
  ORDER BY g;
CREATE TABLE agg_rows (id int, grp int, x float8, r real);
INSERT INTO agg_rows SELECT id, grp, x_num::float8, r_num::real FROM agg_exact ORDER BY id;
ANALYZE agg_rows;
-- the doubles and reals are the numerics exactly (their exact values from
-- their bits, on a slice: float8_exact is slow)
SELECT count(*) AS checked,
       count(*) FILTER (WHERE float8_exact(a.x) IS DISTINCT FROM e.x_num OR
                              float8_exact(a.r) IS DISTINCT FROM e.r_num) AS inexact
FROM agg_rows a JOIN agg_exact e USING (id) WHERE id <= 3000;
-- the exact references of the whole table and of each group
CREATE TEMP TABLE exact_ref AS
  SELECT sum(x_num)::float8 AS s, sum(r_num)::float8 AS sr FROM agg_exact;
CREATE TEMP TABLE exact_groups AS
  SELECT grp, sum(x_num)::float8 AS s, sum(r_num)::float8 AS sr FROM agg_exact GROUP BY grp;
-- which a float8 summation misses: the test has teeth
SELECT NOT same_float8(a.s, e.s) AS naive_sum_differs, NOT same_float8(a.sr, e.sr) AS naive_sum_real_differs
FROM (SELECT sum(x) AS s, sum(r::float8) AS sr FROM agg_rows) a, exact_ref e;
SELECT count(*) FILTER (WHERE NOT same_float8(a.s, e.s)) > 0 AS naive_group_sums_differ
FROM (SELECT grp, sum(x) AS s FROM agg_rows GROUP BY grp) a JOIN exact_groups e USING (grp);

-- the session's first gpuscan query already gets the GpuscanSum scan:
-- planning it loads the library (the transition functions' support function)
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x) FROM agg_rows;
RESET max_parallel_workers_per_gather;

-- no rows and all-NULL rows give NULL, as sum() does
SELECT gpu_sum(x) AS no_rows FROM agg_rows WHERE false;
SELECT gpu_sum(x) AS all_null FROM agg_rows WHERE x IS NULL;
SELECT gpu_sum(x::real) AS no_rows_real FROM agg_rows WHERE false;

-- integer-valued data: the same as sum()
SELECT gpu_sum(id::float8) = sum(id::float8) AS matches_sum,
       gpu_sum(id::real) = sum(id::float8) AS matches_sum_real
FROM agg_rows;

-- the aggregate's own plans (the GpuscanSum scan, tested further down, is
-- off here), serial then parallel: exact over the whole table and in each
-- group; the array function over the same values agrees
SET gpuscan.enable_sum_scan = off;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x) FROM agg_rows;
SELECT gpu_service_requests() AS requests \gset
SELECT same_float8(a.s, e.s) AS exact, same_float8(a.sr, e.sr) AS exact_real
FROM (SELECT gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_rows) a, exact_ref e;
SELECT gpu_ran(:requests) AS gpu_ran;
SELECT bool_and(same_float8(a.s, e.s) AND same_float8(a.sr, e.sr)) AS groups_exact, count(*) AS groups
FROM (SELECT grp, gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_rows GROUP BY grp) a
JOIN exact_groups e USING (grp);
SELECT same_float8(a.s, e.s) AS same_as_array, same_float8(a.sr, e.sr) AS same_as_array_real
FROM (SELECT gpu_sum(array_agg(x) FILTER (WHERE x IS NOT NULL)) AS s,
             gpu_sum(array_agg(r) FILTER (WHERE r IS NOT NULL)) AS sr FROM agg_rows) a, exact_ref e;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x) FROM agg_rows;
SELECT gpu_service_requests() AS requests \gset
SELECT same_float8(p.s, e.s) AS parallel_exact, same_float8(p.sr, e.sr) AS parallel_exact_real
FROM (SELECT gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_rows) p, exact_ref e;
SELECT gpu_ran(:requests) AS gpu_ran;
SELECT bool_and(same_float8(p.s, e.s) AND same_float8(p.sr, e.sr)) AS parallel_groups_exact, count(*) AS groups
FROM (SELECT grp, gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_rows GROUP BY grp) p
JOIN exact_groups e USING (grp);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET gpuscan.enable_sum_scan;

-- any order of the rows gives the same bits, the exact ones
SELECT same_float8((SELECT gpu_sum(x ORDER BY x DESC) FROM agg_rows), s) AND
       same_float8((SELECT gpu_sum(x ORDER BY id) FROM agg_rows), s) AS order_independent
FROM exact_ref;

-- GROUP BY; a group with only NULLs gives NULL
SELECT grp, gpu_sum(x) IS NULL AS is_null, same_float8(gpu_sum(x), e.s) AS exact
FROM agg_rows JOIN exact_groups e USING (grp) GROUP BY grp, e.s ORDER BY grp;
SELECT g, gpu_sum(v) FROM (VALUES (1, 1.5::float8), (1, NULL), (2, NULL), (3, 2.5), (3, -2.5))
  AS t(g, v) GROUP BY g ORDER BY g;

-- more rows than one buffered chunk (2^16 values) and cancellation
SELECT gpu_sum(CASE g % 3 WHEN 0 THEN 1e16 WHEN 1 THEN -1e16 ELSE 1 END::float8) AS exact,
       sum(CASE g % 3 WHEN 0 THEN 1e16 WHEN 1 THEN -1e16 ELSE 1 END::float8) = 700000 AS naive_exact
FROM generate_series(1, 2100000) g;

-- as a window aggregate
SELECT id, gpu_sum(x) OVER (ORDER BY id) AS running
FROM (VALUES (1, 0.5::float8), (2, 1e16), (3, 1), (4, -1e16)) AS t(id, x) ORDER BY id;

-- The GpuscanSum scan: whole-table sums without a transition call per row.
-- It gives the aggregate's bits, serial and parallel, and is planned only
-- where it computes exactly what the aggregate would.  Serial plans first.
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x), gpu_sum(r) FROM agg_rows;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x) * 2 AS twice, gpu_sum(x) FROM agg_rows;
SELECT gpu_service_requests() AS requests \gset
CREATE TEMP TABLE scan_result AS
  SELECT gpu_sum(x) AS s, gpu_sum(r) AS sr, gpu_sum(x) * 2 AS twice FROM agg_rows;
SELECT gpu_ran(:requests) AS gpu_ran;
SELECT same_float8(a.s, e.s) AS scan_exact, same_float8(a.sr, e.sr) AS scan_exact_real,
       same_float8(a.twice, 2 * e.s) AS scan_exact_expression
FROM scan_result a, exact_ref e;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x), gpu_sum(r) FROM agg_rows;
SELECT gpu_service_requests() AS requests \gset
SELECT same_float8(p.s, e.s) AS parallel_scan_exact, same_float8(p.sr, e.sr) AS parallel_scan_exact_real
FROM (SELECT gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_rows) p, exact_ref e;
SELECT gpu_ran(:requests) AS gpu_ran;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- not planned where the aggregate must run: a WHERE clause, FILTER, an
-- expression argument, another aggregate
EXPLAIN (COSTS OFF) SELECT gpu_sum(x) FROM agg_rows WHERE id > 10;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x) FILTER (WHERE id > 10) FROM agg_rows;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x + 1) FROM agg_rows;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x), count(*) FROM agg_rows;

-- the scan reads the table sequentially: with enable_seqscan = off an
-- index-only scan wins, as it would for sum()
CREATE INDEX agg_rows_x ON agg_rows (x);
VACUUM ANALYZE agg_rows;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x) FROM agg_rows;
RESET enable_seqscan;
DROP INDEX agg_rows_x;

-- rows deleted or added by this transaction count as the aggregate sees them
-- (the same rows deleted and added in numeric, for the reference);
-- an empty table and an all-NULL column give NULL
BEGIN;
DELETE FROM agg_rows WHERE id % 2 = 0;
DELETE FROM agg_exact WHERE id % 2 = 0;
INSERT INTO agg_rows VALUES (0, 0, 1e300, 1e30), (-1, 0, -1e300, -1e30);
INSERT INTO agg_exact SELECT id, grp, float8_exact(x), float8_exact(r) FROM agg_rows WHERE id <= 0;
SELECT gpu_service_requests() AS requests \gset
CREATE TEMP TABLE scan_in_tx AS SELECT gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_rows;
SELECT gpu_ran(:requests) AS gpu_ran;
CREATE TEMP TABLE exact_in_tx AS SELECT sum(x_num)::float8 AS s, sum(r_num)::float8 AS sr FROM agg_exact;
SET LOCAL gpuscan.enable_sum_scan = off;
SELECT same_float8(a.s, e.s) AS deleted_exact, same_float8(a.sr, e.sr) AS deleted_exact_real,
       same_float8(gpu_sum(x), e.s) AND same_float8(gpu_sum(r), e.sr) AS deleted_aggregate_exact
FROM agg_rows, scan_in_tx a, exact_in_tx e GROUP BY a.s, a.sr, e.s, e.sr;
ROLLBACK;
CREATE TABLE agg_empty (x float8, r real);
SELECT gpu_sum(x) AS empty_sum, gpu_sum(r) AS empty_sum_real FROM agg_empty;
INSERT INTO agg_empty SELECT NULL, 1 FROM generate_series(1, 10);
SELECT gpu_sum(x) AS null_sum, gpu_sum(r) AS real_sum FROM agg_empty;
EXPLAIN (COSTS OFF) SELECT gpu_sum(x), gpu_sum(r) FROM agg_empty;
DROP TABLE agg_empty;

-- rescanned in a correlated subquery: the table is read again each time
EXPLAIN (COSTS OFF)
SELECT g, (SELECT CASE WHEN g > 0 THEN gpu_sum(x) END FROM agg_rows) FROM generate_series(1, 3) g;
SELECT g, same_float8((SELECT CASE WHEN g > 0 THEN gpu_sum(x) END FROM agg_rows), e.s) AS rescan_exact
FROM generate_series(1, 3) g, exact_ref e ORDER BY g;
RESET max_parallel_workers_per_gather;

-- The GpuscanGroupSum scan: GROUP BY without a transition call per row.
-- The scan returns each group's partial state and a Finalize HashAggregate
-- rounds it; the same bits as the aggregate's, serial and parallel.
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT grp, gpu_sum(x), gpu_sum(r) FROM agg_rows GROUP BY grp;
SELECT bool_and(same_float8(a.s, e.s) AND same_float8(a.sr, e.sr)) AS group_scan_exact, count(*) AS groups
FROM (SELECT grp, gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_rows GROUP BY grp) a JOIN exact_groups e USING (grp);
-- the group key in any position, an expression over a sum, ORDER BY and LIMIT
SELECT a.grp, same_float8(a.twice, 2 * e.s) AS expression_exact
FROM (SELECT gpu_sum(x) * 2 AS twice, grp FROM agg_rows GROUP BY grp ORDER BY grp DESC LIMIT 3) a
JOIN exact_groups e USING (grp) ORDER BY a.grp DESC;
-- a grouping column of another type, a NULL group, a group without values,
-- a group whose sums leave the window of a few limbs (1e300 and 1e-300)
CREATE TABLE agg_keyed (k text, j int, x float8, r real);
INSERT INTO agg_keyed VALUES ('a', 1, 1.5, 1), ('a', 1, 2.5, 2), ('b', 1, NULL, NULL),
  (NULL, 1, 0.25, 0.5), (NULL, NULL, 1e300, NULL), (NULL, NULL, -1e300, NULL),
  (NULL, NULL, 1e-300, NULL), ('a', 2, -0.0, -0.0), ('c', 1, 1e16, 1), ('c', 1, 1, 1),
  ('c', 1, -1e16, 1);
INSERT INTO agg_keyed SELECT 'a', 1, 0, 0 FROM generate_series(1, 20000);
ANALYZE agg_keyed;
EXPLAIN (COSTS OFF) SELECT k, j, gpu_sum(x), gpu_sum(r) FROM agg_keyed GROUP BY k, j;
SELECT k, j, gpu_sum(x), gpu_sum(r), float8send(gpu_sum(x)) AS bits
FROM agg_keyed GROUP BY k, j ORDER BY k, j;
-- HAVING over the sums and the keys is the Finalize step's
EXPLAIN (COSTS OFF) SELECT k, gpu_sum(x) FROM agg_keyed GROUP BY k HAVING gpu_sum(x) > 0;
SELECT k, gpu_sum(x) FROM agg_keyed GROUP BY k HAVING gpu_sum(x) > 0 ORDER BY k;
-- not planned: a GROUP BY expression, another aggregate, a WHERE clause
EXPLAIN (COSTS OFF) SELECT id % 3, gpu_sum(x) FROM agg_rows GROUP BY id % 3;
EXPLAIN (COSTS OFF) SELECT grp, gpu_sum(x), count(*) FROM agg_rows GROUP BY grp;
EXPLAIN (COSTS OFF) SELECT grp, gpu_sum(x) FROM agg_rows WHERE id > 10 GROUP BY grp;
DROP TABLE agg_keyed;

-- more groups than hash_mem holds, where the statistics promised few: the
-- scan returns its groups in batches and the Finalize step combines a
-- group's partial states, to the same bits
CREATE TABLE agg_batches (g int, x float8, r real) WITH (autovacuum_enabled = off);
INSERT INTO agg_batches SELECT grp, x, r FROM agg_rows;
ANALYZE agg_batches;
INSERT INTO agg_batches SELECT id, x, r FROM agg_rows WHERE id % 10 = 0;
-- the GpuscanGroupSum node of a plan (EXPLAIN ANALYZE, FORMAT JSON)
CREATE FUNCTION group_scan_node(plan json) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  child json;
BEGIN
  IF plan ->> 'Custom Plan Provider' = 'GpuscanGroupSum' THEN
    RETURN plan;
  END IF;
  FOR child IN SELECT json_array_elements(plan -> 'Plans') LOOP
    IF group_scan_node(child) IS NOT NULL THEN
      RETURN group_scan_node(child);
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
CREATE FUNCTION group_scan_run(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  RETURN group_scan_node(plan -> 0 -> 'Plan');
END
$$;
SET work_mem = '64kB';
SELECT (n ->> 'Batches')::int > 1 AS returned_in_batches,
       (n ->> 'Actual Rows')::numeric::bigint AS rows_returned
FROM group_scan_run('SELECT g, gpu_sum(x), gpu_sum(r) FROM agg_batches GROUP BY g') n;
CREATE TEMP TABLE batch_result AS SELECT g, gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_batches GROUP BY g;
-- the exact references of agg_batches' groups, from the same rows in numeric
CREATE TEMP TABLE batch_ref AS
  SELECT g, sum(x_num)::float8 AS s, sum(r_num)::float8 AS sr
  FROM (SELECT grp AS g, x_num, r_num FROM agg_exact
        UNION ALL SELECT id, x_num, r_num FROM agg_exact WHERE id % 10 = 0) e
  GROUP BY g;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE float8send(a.s) IS DISTINCT FROM float8send(b.s) OR
                              float8send(a.sr) IS DISTINCT FROM float8send(b.sr)) AS differ,
       count(*) FILTER (WHERE a.s IS NULL OR a.sr IS NULL) AS with_null
FROM batch_result a FULL JOIN batch_ref b USING (g);
-- and the aggregate's own plan
SET gpuscan.enable_sum_scan = off;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE float8send(a.s) IS DISTINCT FROM float8send(b.s) OR
                              float8send(a.sr) IS DISTINCT FROM float8send(b.sr)) AS differ
FROM (SELECT g, gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_batches GROUP BY g) a FULL JOIN batch_ref b
  USING (g);
RESET gpuscan.enable_sum_scan;
-- rescanned (a correlated subquery over a Finalize step that spilled to
-- disk): the table is read again each time
SELECT (n ->> 'Actual Loops')::numeric::bigint AS loops
FROM group_scan_run($q$SELECT i, (SELECT count(*) FROM (SELECT g, gpu_sum(x) AS s FROM agg_batches
                                  GROUP BY g) a WHERE s IS NOT NULL AND i > 0)
                     FROM generate_series(1, 2) i$q$) n;
SELECT i, (SELECT count(*) FROM (SELECT g, gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_batches GROUP BY g) a
           JOIN batch_ref b USING (g)
           WHERE float8send(a.s) IS NOT DISTINCT FROM float8send(b.s) AND
                 float8send(a.sr) IS NOT DISTINCT FROM float8send(b.sr) AND i > 0) AS same_groups
FROM generate_series(1, 2) i;
RESET work_mem;
DROP FUNCTION group_scan_run(text);
DROP FUNCTION group_scan_node(json);
DROP TABLE agg_batches;

-- parallel: Finalize HashAggregate <- Gather <- the scan in each process
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
EXPLAIN (COSTS OFF) SELECT grp, gpu_sum(x), gpu_sum(r) FROM agg_rows GROUP BY grp;
SELECT bool_and(same_float8(a.s, e.s) AND same_float8(a.sr, e.sr)) AS parallel_group_scan_exact,
       count(*) AS groups
FROM (SELECT grp, gpu_sum(x) AS s, gpu_sum(r) AS sr FROM agg_rows GROUP BY grp) a JOIN exact_groups e USING (grp);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

SELECT took_expected_path('gpu_sum aggregate') AS expected_path;
DROP TABLE agg_rows, agg_exact, pow2;
