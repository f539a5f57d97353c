-- The GpuscanSum scan reading a heap table by pages: a page every snapshot
-- sees whole (all-visible, after VACUUM) is read by the heap page walker,
-- another tuple by tuple under the snapshot.  Every sum is checked against
-- the exact sum of the same values in numeric, and EXPLAIN ANALYZE shows
-- how the pages were read, on every kind of column before the summed ones,
-- NULLs, dropped and added columns, TOASTed values, changes the
-- transaction made itself, and a table in shared buffers read by a
-- parallel plan.  The layouts are tested on a temporary table, whose
-- pages VACUUM always makes all-visible (no other session's snapshot
-- holds them back), so that the page counts are exact.
SET max_parallel_workers_per_gather = 0;
-- value i of a column: an integer times a power of two, exactly a double
-- (a real for the real column), so that the numeric sum is exact
CREATE FUNCTION rows_x(i int) RETURNS numeric IMMUTABLE LANGUAGE sql AS $$
  SELECT CASE WHEN i % 13 = 0 THEN NULL
         ELSE (((i * 7919) % 4194301) - 2097150)::numeric * (2::numeric ^ (i % 31))
              * (ARRAY[1, 0.5, 0.25, 0.125, 0.0625])[i % 5 + 1] END
$$;
CREATE FUNCTION rows_r(i int) RETURNS numeric IMMUTABLE LANGUAGE sql AS $$
  SELECT CASE WHEN i % 11 = 0 THEN NULL
         ELSE (((i * 104729) % 8191) - 4095)::numeric * (2::numeric ^ (i % 9))
              * (ARRAY[1, 0.5, 0.25])[i % 3 + 1] END
$$;
-- every kind of column before the summed ones, NULL one time in 7 or so
CREATE TEMP TABLE rows_mixed (
  id int, b bool, i2 int2, t text, c "char", i8 int8, nm name, n numeric, d date,
  u uuid, x float8, ts timestamptz, r real, tail text
) WITH (autovacuum_enabled = off);
ALTER TABLE rows_mixed ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO rows_mixed
SELECT i,
       CASE WHEN i % 7 = 1 THEN NULL ELSE i % 2 = 0 END,
       CASE WHEN i % 7 = 2 THEN NULL ELSE (i % 30000)::int2 END,
       CASE WHEN i % 7 = 3 THEN NULL
            WHEN i % 97 = 0 THEN repeat(md5(i::text), 200)   -- out of line (TOAST)
            WHEN i % 5 = 0 THEN repeat('t', i % 300)         -- a 4-byte header
            ELSE repeat('s', i % 100) END,                    -- a 1-byte header
       CASE WHEN i % 7 = 4 THEN NULL ELSE chr(65 + i % 26)::"char" END,
       CASE WHEN i % 7 = 5 THEN NULL ELSE i::int8 * 1000003 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE ('name' || i)::name END,
       CASE WHEN i % 7 = 6 THEN NULL ELSE i::numeric / 7 END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE date '2000-01-01' + i END,
       CASE WHEN i % 23 = 0 THEN NULL ELSE md5(i::text)::uuid END,
       rows_x(i)::float8,
       CASE WHEN i % 29 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00+00' + i * interval '1 min' END,
       rows_r(i)::real,
       repeat('z', i % 50)
FROM generate_series(1, 6000) i;
-- the sums of a table and the exact ones, and how its pages were read
CREATE FUNCTION rows_check(tab regclass, xcol text, rcol text, xref text, rref text)
RETURNS TABLE (x_same bool, r_same bool, pages_whole int, pages_by_row int, pages int)
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
  node json;
  gx float8; gr float8; ex float8; er float8; gx1 float8; gr1 float8;
BEGIN
  EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) '
                 'SELECT gpu_sum(%I), gpu_sum(%I) FROM %s', xcol, rcol, tab) INTO plan;
  node := plan -> 0 -> 'Plan';
  WHILE node ->> 'Custom Plan Provider' IS DISTINCT FROM 'GpuscanSum' AND node -> 'Plans' IS NOT NULL LOOP
    node := node -> 'Plans' -> 0;
  END LOOP;
  EXECUTE format('SELECT gpu_sum(%I), gpu_sum(%I) FROM %s', xcol, rcol, tab) INTO gx, gr;
  -- one column alone too: where the GPU reads the pages, it reads them for one
  EXECUTE format('SELECT gpu_sum(%I) FROM %s', xcol, tab) INTO gx1;
  EXECUTE format('SELECT gpu_sum(%I) FROM %s', rcol, tab) INTO gr1;
  EXECUTE format('SELECT sum(%s)::float8, sum(%s)::float8 FROM %s', xref, rref, tab) INTO ex, er;
  x_same := float8send(gx) IS NOT DISTINCT FROM float8send(ex) AND
            float8send(gx1) IS NOT DISTINCT FROM float8send(ex);
  r_same := float8send(gr) IS NOT DISTINCT FROM float8send(er) AND
            float8send(gr1) IS NOT DISTINCT FROM float8send(er);
  pages_whole := (node ->> 'Pages Read Whole')::int;
  pages_by_row := (node ->> 'Pages Read by Row')::int;
  pages := pg_relation_size(tab) / current_setting('block_size')::int;
  RETURN NEXT;
END
$$;
-- just written: no page is all-visible yet, every page read tuple by tuple
SELECT * FROM rows_check('rows_mixed', 'x', 'r', 'rows_x(id)', 'rows_r(id)');
-- after VACUUM (FREEZE: all-visible whatever else runs) every page is read whole
VACUUM (FREEZE) rows_mixed;
SELECT * FROM rows_check('rows_mixed', 'x', 'r', 'rows_x(id)', 'rows_r(id)');
-- a dropped column before the summed ones stays in the old rows
ALTER TABLE rows_mixed DROP COLUMN i8, DROP COLUMN t;
SELECT * FROM rows_check('rows_mixed', 'x', 'r', 'rows_x(id)', 'rows_r(id)');
-- columns added later: the old rows have their default (or NULL) without
-- storing it; the new rows store theirs
ALTER TABLE rows_mixed ADD COLUMN y float8 DEFAULT 2.5, ADD COLUMN z real;
INSERT INTO rows_mixed (id, x, r, y, z)
SELECT i, rows_x(i)::float8, rows_r(i)::real, rows_x(i + 1)::float8, rows_r(i + 1)::real
FROM generate_series(6001, 6500) i;
VACUUM (FREEZE) rows_mixed;
SELECT * FROM rows_check('rows_mixed', 'y', 'z',
  'CASE WHEN id <= 6000 THEN 2.5 ELSE rows_x(id + 1) END',
  'CASE WHEN id <= 6000 THEN NULL ELSE rows_r(id + 1) END');
-- changes of the transaction itself: updated, deleted and inserted rows
-- counted as it sees them, on pages no longer all-visible; a savepoint
-- rolled back takes its changes with it
BEGIN;
UPDATE rows_mixed SET x = rows_x(id + 7)::float8 WHERE id % 10 = 0;
DELETE FROM rows_mixed WHERE id % 10 = 1;
INSERT INTO rows_mixed (id, x, r) SELECT i, rows_x(i)::float8, rows_r(i)::real FROM generate_series(7001, 7100) i;
SELECT x_same, r_same, pages_by_row > 0 AS some_by_row
FROM rows_check('rows_mixed', 'x', 'r',
  'CASE WHEN id % 10 = 0 AND id <= 6500 THEN rows_x(id + 7) ELSE rows_x(id) END', 'rows_r(id)');
SAVEPOINT s;
DELETE FROM rows_mixed WHERE id % 10 = 2;
ROLLBACK TO SAVEPOINT s;
SELECT x_same, r_same
FROM rows_check('rows_mixed', 'x', 'r',
  'CASE WHEN id % 10 = 0 AND id <= 6500 THEN rows_x(id + 7) ELSE rows_x(id) END', 'rows_r(id)');
ROLLBACK;
-- after the rollback: the rows as before it
SELECT x_same, r_same FROM rows_check('rows_mixed', 'x', 'r', 'rows_x(id)', 'rows_r(id)');
-- a table whose summed column comes after the walker's 64 columns is read
-- row by row through the table AM (no page counts)
DO $$ BEGIN
  EXECUTE 'CREATE TEMP TABLE rows_wide (' ||
          (SELECT string_agg('c' || g || ' int', ', ') FROM generate_series(1, 70) g) ||
          ', id int, x float8, r real)';
END $$;
INSERT INTO rows_wide (c1, id, x, r) SELECT id, id, x, r FROM rows_mixed;
VACUUM (FREEZE) rows_wide;
SELECT * FROM rows_check('rows_wide', 'x', 'r', 'rows_x(id)', 'rows_r(id)');
DROP TABLE rows_wide;
-- a table in shared buffers: whether VACUUM makes a page all-visible
-- depends on the other sessions' snapshots, so only that every page is
-- read once, whole or by row, and the sums are shown
CREATE TABLE rows_shared WITH (autovacuum_enabled = off) AS SELECT id, nm, x, r FROM rows_mixed;
VACUUM (FREEZE) rows_shared;
SELECT x_same, r_same, pages_whole + pages_by_row = pages AS every_page_once
FROM rows_check('rows_shared', 'x', 'r', 'rows_x(id)', 'rows_r(id)');
-- a materialized view is a heap table too
CREATE MATERIALIZED VIEW rows_mv AS SELECT id, nm, x, r FROM rows_shared;
VACUUM (FREEZE) rows_mv;
SELECT x_same, r_same, pages_whole + pages_by_row = pages AS every_page_once
FROM rows_check('rows_mv', 'x', 'r', 'rows_x(id)', 'rows_r(id)');
DROP MATERIALIZED VIEW rows_mv;
-- a parallel plan: the processes share the blocks, and the page counts
-- add up whatever the number of workers launched
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT x_same, r_same, pages_whole + pages_by_row = pages AS every_page_once
FROM rows_check('rows_shared', 'x', 'r', 'rows_x(id)', 'rows_r(id)');
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;
DROP TABLE rows_shared;
-- a partitioned table: not the scan's (an Append of its partitions), the
-- same exact sum
CREATE TABLE rows_part (id int, x float8) PARTITION BY RANGE (id);
CREATE TABLE rows_part_1 PARTITION OF rows_part FOR VALUES FROM (MINVALUE) TO (1000);
CREATE TABLE rows_part_2 PARTITION OF rows_part FOR VALUES FROM (1000) TO (MAXVALUE);
INSERT INTO rows_part SELECT id, x FROM rows_mixed;
SELECT float8send(gpu_sum(x)) = float8send(sum(rows_x(id))::float8) AS partitioned_same
FROM rows_part;
DROP TABLE rows_part;
-- GROUP BY up to four integer columns with one gpu_sum: read by pages (the
-- groups summed on the GPU where it reads them), every group's sum against
-- the exact one; a NULL key a value of its own, a group of only NULLs NULL
CREATE FUNCTION rows_groups_check(tab regclass, keys text) RETURNS TABLE (groups bigint, same bool)
LANGUAGE plpgsql AS $$
BEGIN
  -- each side's groups as one text: the keys and the sum's bits, in key order
  RETURN QUERY EXECUTE format(
    'WITH a AS (SELECT %1$s, gpu_sum(x) AS s FROM %2$s GROUP BY %1$s),
          e AS (SELECT %1$s, sum(rows_x(id))::float8 AS s FROM %2$s GROUP BY %1$s)
     SELECT (SELECT count(*) FROM a),
            (SELECT string_agg(ROW(%1$s)::text || '':'' || coalesce(float8send(s)::text, ''N''),
                               '','' ORDER BY ROW(%1$s)::text) FROM a) =
            (SELECT string_agg(ROW(%1$s)::text || '':'' || coalesce(float8send(s)::text, ''N''),
                               '','' ORDER BY ROW(%1$s)::text) FROM e)', keys, tab);
END
$$;
CREATE TEMP TABLE rows_groups AS
  SELECT id, (id % 7)::int2 AS k2, (CASE WHEN id % 11 = 0 THEN NULL ELSE id % 100 END)::int4 AS k4,
         (id % 5)::int8 * 4000000000 - 9000000000 AS k8,
         (CASE WHEN id % 3 = 0 THEN NULL ELSE id % 4 END)::int2 AS k2b, (id % 9)::text AS kt, x
  FROM rows_mixed;
VACUUM rows_groups;
SELECT * FROM rows_groups_check('rows_groups', 'k2');
SELECT * FROM rows_groups_check('rows_groups', 'k4');
SELECT * FROM rows_groups_check('rows_groups', 'k8');
-- several grouping columns, in any order, NULLs in two of them
SELECT * FROM rows_groups_check('rows_groups', 'k2, k4');
SELECT * FROM rows_groups_check('rows_groups', 'k8, k2b, k2');
SELECT * FROM rows_groups_check('rows_groups', 'k2b, k8, k4, k2');
-- five grouping columns, or a text one: not the GPU's, the same exact sums
SELECT * FROM rows_groups_check('rows_groups', 'k2, k4, k8, k2b, id');
SELECT * FROM rows_groups_check('rows_groups', 'k2, kt');
-- a group per row: more groups than the planner expects
SELECT * FROM rows_groups_check('rows_groups', 'id');
-- work_mem too small for the groups: returned in batches, the same sums
SET work_mem = '64kB';
SELECT * FROM rows_groups_check('rows_groups', 'id');
RESET work_mem;
-- a table in shared buffers (read in place where the GPU reads pages), and
-- a parallel plan
CREATE TABLE rows_groups_shared WITH (autovacuum_enabled = off) AS SELECT * FROM rows_groups;
VACUUM (FREEZE) rows_groups_shared;
SELECT * FROM rows_groups_check('rows_groups_shared', 'k4');
SELECT * FROM rows_groups_check('rows_groups_shared', 'k4, k2b');
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM rows_groups_check('rows_groups_shared', 'k4');
SELECT * FROM rows_groups_check('rows_groups_shared', 'k2b, k8');
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;
DROP TABLE rows_groups_shared;
DROP TABLE rows_groups;
DROP FUNCTION rows_groups_check(regclass, text);
-- a scan cancelled (here by statement_timeout) stops, and the next one runs
CREATE TABLE rows_big WITH (autovacuum_enabled = off) AS
  SELECT i AS id, (i % 1000)::float8 AS x FROM generate_series(1, 2000000) i;
VACUUM (FREEZE) rows_big;
SET statement_timeout = '1ms';
SELECT gpu_sum(x) FROM rows_big;
RESET statement_timeout;
SELECT gpu_sum(x) = 999000000 AS after_cancel FROM rows_big;
DROP TABLE rows_big;
DROP TABLE rows_mixed;
DROP FUNCTION rows_check(regclass, text, text, text, text);
DROP FUNCTION rows_r(int);
DROP FUNCTION rows_x(int);
RESET max_parallel_workers_per_gather;
