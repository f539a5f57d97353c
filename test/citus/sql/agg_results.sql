-- Citus tests of gpuscan: results of the distributed gpu_sum aggregates.
-- Checks that gpu_sum over distributed tables of 1, 4, 7 and 32 shards
-- gives the same bits (float8send) as over the same rows in a local table
-- and as the exact sum rounded once (computed in numeric from the values'
-- bits), for the whole table, GROUP BY a column that is not the
-- distribution column (the aggregate split) and GROUP BY the distribution
-- column (run whole on the workers); the whole-table shard queries both
-- with the workers' GpuscanSum scan and, with gpuscan.enable_sum_scan = off
-- propagated to them, row by row; GROUP BY shard queries whose groups
-- outgrow the workers' hash_mem; double precision and real; NULL for no
-- values; IEEE special values and an intermediate overflow spread over
-- shards.

-- the exact value of every row's x and y, once
CREATE TEMP TABLE exact AS
SELECT id, k, g, float8_exact(x) AS x, float8_exact(y::float8) AS y FROM t_local;

-- whole table: one row per shard count, all true
WITH ref AS (SELECT (SELECT sum(x)::float8 FROM exact) AS x_exact,
                    (SELECT sum(y)::float8 FROM exact) AS y_exact,
                    gpu_sum(x) AS x_local, gpu_sum(y) AS y_local FROM t_local),
     d AS (SELECT 1 AS shards, gpu_sum(x) AS x, gpu_sum(y) AS y FROM t_s1
           UNION ALL SELECT 4, gpu_sum(x), gpu_sum(y) FROM t_s4
           UNION ALL SELECT 7, gpu_sum(x), gpu_sum(y) FROM t_s7
           UNION ALL SELECT 32, gpu_sum(x), gpu_sum(y) FROM t_s32)
SELECT d.shards,
       same_float8(d.x, ref.x_local) AS x_as_local, same_float8(d.x, ref.x_exact) AS x_exact,
       same_float8(d.y, ref.y_local) AS y_as_local, same_float8(d.y, ref.y_exact) AS y_exact
FROM d, ref ORDER BY d.shards;
-- the same with the workers' GpuscanSum scan off (SET LOCAL, propagated)
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL gpuscan.enable_sum_scan = off;
SELECT string_agg(DISTINCT s, ',') AS workers_enable_sum_scan
FROM (SELECT k, gpu_sum(x) AS gs, current_setting('gpuscan.enable_sum_scan') AS s
      FROM t_s4 GROUP BY k) q WHERE gs IS NOT NULL;
WITH ref AS (SELECT gpu_sum(x) AS x_local, gpu_sum(y) AS y_local FROM t_local),
     d AS (SELECT 1 AS shards, gpu_sum(x) AS x, gpu_sum(y) AS y FROM t_s1
           UNION ALL SELECT 4, gpu_sum(x), gpu_sum(y) FROM t_s4
           UNION ALL SELECT 7, gpu_sum(x), gpu_sum(y) FROM t_s7
           UNION ALL SELECT 32, gpu_sum(x), gpu_sum(y) FROM t_s32)
SELECT d.shards, same_float8(d.x, ref.x_local) AS x_as_local, same_float8(d.y, ref.y_local) AS y_as_local
FROM d, ref ORDER BY d.shards;
COMMIT;

-- the local result itself is the exact sum; plain float8 addition is not
-- (serially, in the table's order)
SELECT same_float8((SELECT gpu_sum(x) FROM t_local), sum(x)::float8) AS gpu_sum_exact,
       same_float8((SELECT s FROM (SELECT sum(x) OVER (ORDER BY id) s, id FROM t_local) q ORDER BY id DESC LIMIT 1),
                   sum(x)::float8) AS float8_addition_exact
FROM exact;

-- GROUP BY g (split into worker_partial_agg / coord_combine_agg): per shard
-- count, the groups whose sums differ from the local table's or from the
-- exact sums (0 expected), and the group of only NULLs
CREATE FUNCTION check_groups(tab text, grp text, OUT groups bigint, OUT x_differ bigint,
                             OUT y_differ bigint, OUT null_groups bigint)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    WITH d AS (SELECT %2$I AS grp, gpu_sum(x) AS x, gpu_sum(y) AS y FROM %1$I GROUP BY 1),
         l AS (SELECT %2$I AS grp, gpu_sum(x) AS x_local, gpu_sum(y) AS y_local
               FROM t_local GROUP BY 1),
         e AS (SELECT %2$I AS grp, sum(x)::float8 AS x_exact, sum(y)::float8 AS y_exact
               FROM exact GROUP BY 1)
    SELECT count(*),
           count(*) FILTER (WHERE NOT (same_float8(x, x_local) AND same_float8(x, x_exact))),
           count(*) FILTER (WHERE NOT (same_float8(y, y_local) AND same_float8(y, y_exact))),
           count(*) FILTER (WHERE x IS NULL AND y IS NULL)
    FROM d FULL JOIN l USING (grp) FULL JOIN e USING (grp)$q$, tab, grp)
  INTO groups, x_differ, y_differ, null_groups;
END
$$;
SELECT shards, (check_groups('t_s' || shards, 'g')).* FROM unnest('{1,4,7,32}'::int[]) shards;
-- GROUP BY k, the distribution column (gpu_sum whole on the workers)
SELECT shards, (check_groups('t_s' || shards, 'k')).* FROM unnest('{1,4,7,32}'::int[]) shards;
-- with a WHERE clause and HAVING
SELECT count(*) AS groups,
       count(*) FILTER (WHERE NOT same_float8(d.s, l.s)) AS differ
FROM (SELECT g, gpu_sum(x) s FROM t_s32 WHERE id % 3 = 0 GROUP BY g HAVING count(*) > 10) d
FULL JOIN (SELECT g, gpu_sum(x) s FROM t_local WHERE id % 3 = 0 GROUP BY g HAVING count(*) > 10) l USING (g);

-- more groups than the workers' hash_mem holds, where the statistics
-- promised few (taken with 50 groups, autovacuum off, work_mem 64kB
-- propagated): the workers' GpuscanGroupSum scans return their groups in
-- batches, a group's partial state more than once, and the coordinator
-- combines them into the same bits as the local table's
CREATE TABLE t_batches (k int, id bigint, g bigint, x float8, y real) WITH (autovacuum_enabled = off);
SELECT create_distributed_table('t_batches', 'k', shard_count := 4);
INSERT INTO t_batches SELECT k, id, id % 50, x, y FROM t_local;
ANALYZE t_batches;
INSERT INTO t_batches SELECT k, id, 1000 + id / 2, x, y FROM t_local;
INSERT INTO t_batches SELECT k, id, id % 50, x, y FROM t_local;
-- on each shard, the shard query returns more rows than it has groups:
-- the 50 groups whose rows come first and last come back in a later batch
CREATE FUNCTION shard_batches(shard text, OUT rows bigint, OUT groups bigint)
LANGUAGE plpgsql AS $f$
BEGIN
  SET LOCAL work_mem = '64kB';
  EXECUTE format($q$SELECT count(state IS NULL), count(DISTINCT g) FROM
                    (SELECT g, worker_partial_agg('gpu_sum(double precision)'::regprocedure, x) AS state
                     FROM %s GROUP BY g) q$q$, shard) INTO rows, groups;
END
$f$;
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL work_mem = '64kB';
SELECT plan_of('SELECT g, gpu_sum(x), gpu_sum(y) FROM t_batches GROUP BY g');
SELECT count(*) AS shards, bool_and(split_part(trim(both '()' from result), ',', 1)::bigint >
                                    split_part(trim(both '()' from result), ',', 2)::bigint) AS batches
FROM run_command_on_shards('t_batches', $$SELECT shard_batches('%s')$$);
WITH d AS (SELECT g, gpu_sum(x) AS x, gpu_sum(y) AS y FROM t_batches GROUP BY g),
     l AS (SELECT g, gpu_sum(x) AS x, gpu_sum(y) AS y
           FROM (SELECT id % 50 AS g, x, y FROM t_local
                 UNION ALL SELECT 1000 + id / 2, x, y FROM t_local
                 UNION ALL SELECT id % 50, x, y FROM t_local) u GROUP BY g)
SELECT count(*) AS groups,
       count(*) FILTER (WHERE NOT (same_float8(d.x, l.x) AND same_float8(d.y, l.y))) AS differ
FROM d FULL JOIN l USING (g);
COMMIT;

-- no rows, only NULLs: NULL as sum() gives
SELECT gpu_sum(x) IS NULL AS no_rows FROM t_s32 WHERE id < 0;
SELECT gpu_sum(x) IS NULL AS only_nulls FROM t_s32 WHERE x IS NULL;

-- IEEE special values, an intermediate overflow that cancels, and sums that
-- plain float8 addition loses, the rows spread over the shards by id:
-- Infinity; Inf + -Inf = NaN; NaN; only -0 gives -0; -0 + 0 = 0;
-- 1e308 + 1e308 - 1e308 = 1e308; 1e300 + 5e-324 - 1e300 = 5e-324;
-- 1e16 + 1 - 1e16 + 1 = 2
CREATE TABLE specials (id int, g text, x float8);
SELECT create_distributed_table('specials', 'id', shard_count := 8);
INSERT INTO specials VALUES
  (1, 'inf', 'Infinity'), (2, 'inf', 1),
  (3, 'inf-inf', 'Infinity'), (4, 'inf-inf', '-Infinity'),
  (5, 'nan', 'NaN'), (6, 'nan', 2),
  (7, '-0', '-0'), (8, '-0', '-0'), (9, '-0', '-0'),
  (10, '0', '-0'), (11, '0', '0'),
  (12, 'overflow', 1e308), (13, 'overflow', 1e308), (14, 'overflow', -1e308),
  (15, 'big+tiny', 1e300), (16, 'big+tiny', 5e-324), (17, 'big+tiny', -1e300),
  (18, 'cancel', 1e16), (19, 'cancel', 1), (20, 'cancel', -1e16), (21, 'cancel', 1);
SELECT count(DISTINCT get_shard_id_for_distribution_column('specials', id)) AS shards_used FROM specials;
SELECT g, gpu_sum(x), float8send(gpu_sum(x)) AS bits FROM specials GROUP BY g ORDER BY g;
SELECT gpu_sum(x) FROM specials WHERE g NOT IN ('inf', 'inf-inf', 'nan');
