-- Citus tests of gpuscan, setup (run against the coordinator of a cluster
-- of three nodes that test/citus/check.sh starts; the database already has
-- the citus extension on every node and the two workers added).
-- Checks that CREATE EXTENSION gpuscan on the coordinator reaches the
-- workers, and makes the helpers and the tables the later tests use.
SELECT count(*) AS workers FROM pg_dist_node WHERE noderole = 'primary' AND groupid <> 0;

CREATE EXTENSION gpuscan;
SELECT extversion FROM pg_extension WHERE extname = 'gpuscan';
-- propagated by Citus: the same version on each worker
SELECT success, result FROM run_command_on_workers(
  $$SELECT extversion FROM pg_extension WHERE extname = 'gpuscan'$$) ORDER BY nodeport;

-- The exact value of a double as numeric, from its bits (a float8 ->
-- numeric cast rounds to 15 digits in PostgreSQL 15); numeric -> float8
-- rounds correctly, so sum(float8_exact(x))::float8 is the exact sum
-- rounded once.  Finite values only.
CREATE FUNCTION float8_exact(x float8) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  WITH b AS (SELECT ('x' || encode(float8send(x), 'hex'))::bit(64)::bigint AS bits),
       f AS (SELECT bits < 0 AS neg, (bits >> 52) & 2047 AS e,
                    bits & 4503599627370495 AS m FROM b),
       v AS (SELECT neg,
                    (CASE WHEN e = 0 THEN m ELSE m + 4503599627370496 END)::numeric AS mant,
                    (CASE WHEN e = 0 THEN 1 ELSE e END - 1075)::int AS p FROM f)
  SELECT (CASE WHEN neg THEN -1 ELSE 1 END) *
         CASE WHEN p >= 0 THEN mant * (2::numeric ^ p)
              ELSE mant * (5::numeric ^ (-p)) * ('1e' || p)::numeric END
  FROM v
$$;

-- Same double, bit for bit (so 0 and -0 differ); NULL only for two NULLs.
CREATE FUNCTION same_float8(a float8, b float8) RETURNS bool
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN a IS NULL OR b IS NULL THEN a IS NULL AND b IS NULL
              ELSE float8send(a) = float8send(b) END
$$;

-- The plan of a query, EXPLAIN (COSTS OFF, VERBOSE), with what changes from
-- run to run replaced by N: ports, shard numbers, the aggregate's oid.
CREATE FUNCTION plan_of(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || q LOOP
    line := regexp_replace(line, 'port=[0-9]+', 'port=N', 'g');
    line := regexp_replace(line, '_[0-9]{6,}\M', '_N', 'g');
    line := regexp_replace(line, '''[0-9]+''::oid', '''N''::oid', 'g');
    RETURN NEXT line;
  END LOOP;
END
$$;

-- The SQLSTATE and message of the error a statement raises, or 'ok'.
CREATE FUNCTION error_of(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE stmt;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- 20000 rows: k the distribution column (61 values), g a grouping column
-- that is not (100 groups, one of only NULLs), x double precision over 24
-- decades with cancelling pairs (so that float8 addition rounds, often),
-- y real; about 1% NULLs.
SELECT setseed(0.25);
CREATE TABLE t_local (k int, id bigint, g int, x float8, y real);
INSERT INTO t_local
SELECT i % 61, i, i % 100,
       CASE WHEN i % 100 = 99 OR i % 97 = 0 THEN NULL
            WHEN i % 500 = 1 THEN 1e15 * (i % 7 + 1)
            WHEN i % 500 = 2 THEN -1e15 * ((i - 1) % 7 + 1)
            ELSE (random() - 0.5) * power(10, floor(random() * 24) - 12) END,
       CASE WHEN i % 100 = 99 OR i % 89 = 0 THEN NULL
            ELSE ((random() - 0.5) * power(10, floor(random() * 12) - 6))::real END
FROM generate_series(1, 20000) i;

-- the same rows in distributed tables of 1, 4, 7 and 32 shards
CREATE TABLE t_s1 (LIKE t_local);
CREATE TABLE t_s4 (LIKE t_local);
CREATE TABLE t_s7 (LIKE t_local);
CREATE TABLE t_s32 (LIKE t_local);
SELECT create_distributed_table('t_s1', 'k', shard_count := 1);
SELECT create_distributed_table('t_s4', 'k', shard_count := 4);
SELECT create_distributed_table('t_s7', 'k', shard_count := 7);
SELECT create_distributed_table('t_s32', 'k', shard_count := 32);
INSERT INTO t_s1 SELECT * FROM t_local;
INSERT INTO t_s4 SELECT * FROM t_local;
INSERT INTO t_s7 SELECT * FROM t_local;
INSERT INTO t_s32 SELECT * FROM t_local;
SELECT logicalrelid::text AS tab, count(*) AS shards, count(DISTINCT nodeport) AS nodes
FROM pg_dist_shard JOIN pg_dist_shard_placement USING (shardid)
GROUP BY 1 ORDER BY 1;
-- the rows of the 32-shard table are spread over both workers
SELECT count(*) AS rows, count(x) AS xs, count(y) AS ys FROM t_s32;
SELECT sum(r.result::bigint) AS rows_in_shards, count(DISTINCT p.nodeport) AS nodes_with_rows
FROM run_command_on_shards('t_s32', $$SELECT count(*) FROM %s$$) r
JOIN pg_dist_shard_placement p USING (shardid) WHERE r.result::bigint > 0;
