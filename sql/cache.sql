-- The GPU service's device cache of stored arrays: every call answers for
-- the value it was given, whatever happened to the stored value between
-- calls.  With the service and a GPU (the GPU pass with gpuscan preloaded)
-- these calls go through the cache: the first loads a value, the next
-- hit it, and a changed value is a new key.  Elsewhere they run on the CPU;
-- the answers are the same.  cache_calls() below checks the loads and hits
-- with the cache's own counters, on both passes wherever the service has a
-- GPU.

-- The cache's counters, over every GPU and session (gpuscan_info()'s
-- gpu_service_cache row)
CREATE FUNCTION pg_temp.cache_counts(OUT hits bigint, OUT loads bigint) LANGUAGE sql AS $$
  SELECT substring(value FROM '(\d+) hits')::bigint, substring(value FROM '(\d+) loads')::bigint
  FROM gpuscan_info() WHERE item = 'gpu_service_cache'
$$;
-- whether the GPU service runs with a GPU, whatever this session's gpuscan.device
CREATE FUNCTION pg_temp.service_has_gpu() RETURNS boolean LANGUAGE sql AS $$
  SELECT coalesce(bool_or(value ~ '^running .*: [0-9]+ GPUs? found$'), false)
  FROM gpuscan_info() WHERE item = 'gpu_service'
$$;
-- the one value query q returns, as text, with gpuscan.device = gpu, cpu
CREATE FUNCTION pg_temp.value_on_gpu(q text) RETURNS text LANGUAGE plpgsql
  SET gpuscan.device = gpu AS $$
DECLARE v text;
BEGIN
  EXECUTE q INTO v;
  RETURN v;
END $$;
CREATE FUNCTION pg_temp.value_on_cpu(q text) RETURNS text LANGUAGE plpgsql
  SET gpuscan.device = cpu AS $$
DECLARE v text;
BEGIN
  EXECUTE q INTO v;
  RETURN v;
END $$;
-- Whether query q, run once per word of `expect`, went through the cache
-- as each word says: 'load' (the cache's loads grew, its hits did not) or
-- 'hit' (the hits grew, the loads did not), each call answering as the CPU
-- does.  Where the service has a GPU the calls run with gpuscan.device =
-- gpu whatever this pass's setting, so that both passes of pg_regress
-- check the cache (on a machine with a GPU, or on the stand-in one);
-- elsewhere nothing is cached and only the answers are compared.  A call
-- that went otherwise is a WARNING that says how.
CREATE FUNCTION pg_temp.cache_calls(q text, expect text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  cpu text := pg_temp.value_on_cpu(q);
  gpu boolean := pg_temp.service_has_gpu();
  ok boolean := true;
  went boolean;
  word text;
  c0 record;
  c1 record;
  v text;
BEGIN
  FOREACH word IN ARRAY string_to_array(expect, ' ') LOOP
    IF NOT gpu THEN
      EXECUTE q INTO v;
    ELSE
      c0 := pg_temp.cache_counts();
      v := pg_temp.value_on_gpu(q);
      c1 := pg_temp.cache_counts();
      went := CASE word WHEN 'load' THEN c1.loads > c0.loads AND c1.hits = c0.hits
                        WHEN 'hit' THEN c1.hits > c0.hits AND c1.loads = c0.loads END;
      IF went IS NOT TRUE THEN
        RAISE WARNING 'expected a %: % loads and % hits, then % loads and % hits',
          word, c0.loads, c0.hits, c1.loads, c1.hits;
        ok := false;
      END IF;
    END IF;
    IF v IS DISTINCT FROM cpu THEN
      RAISE WARNING 'answered % where the CPU answers %', v, cpu;
      ok := false;
    END IF;
  END LOOP;
  RETURN ok;
END $$;

CREATE TABLE ct (id integer, a double precision[]);
ALTER TABLE ct ALTER COLUMN a SET STORAGE EXTERNAL;	-- out of line, not compressed
INSERT INTO ct SELECT 1, array_agg(i::float8) FROM generate_series(1, 50000) i;
INSERT INTO ct SELECT 2, array_agg(i * 0.5::float8) FROM generate_series(1, 50000) i;
SELECT pg_column_size(a) > 100000 AS out_of_line FROM ct ORDER BY id;

-- twice each: a load, then a hit
SELECT pg_temp.cache_calls('SELECT string_agg(gpu_sum(a)::text, '','' ORDER BY id) FROM ct',
                           'load hit') AS load_then_hit;
SELECT id, gpu_sum(a) FROM ct ORDER BY id;

-- the value updated: a new key
UPDATE ct SET a = a || 1000000::float8 WHERE id = 1;
SELECT pg_temp.cache_calls('SELECT gpu_sum(a) FROM ct WHERE id = 1', 'load hit') AS load_then_hit;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- another column updated: the same value, the same key
ALTER TABLE ct ADD COLUMN note text;
UPDATE ct SET note = 'x' WHERE id = 1;
SELECT pg_temp.cache_calls('SELECT gpu_sum(a) FROM ct WHERE id = 1', 'hit') AS hit;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- the cache emptied (where there is one): loaded again
SELECT CASE WHEN pg_temp.service_has_gpu() THEN gpuscan_cache_reset() > 0 ELSE true END AS reset;
SELECT pg_temp.cache_calls('SELECT gpu_sum(a) FROM ct WHERE id = 1', 'load hit') AS load_then_hit;

-- an update rolled back
BEGIN;
UPDATE ct SET a = a || 2000000::float8 WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
ROLLBACK;
SELECT pg_temp.cache_calls('SELECT gpu_sum(a) FROM ct WHERE id = 1', 'hit') AS hit;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- a subtransaction rolled back
BEGIN;
SAVEPOINT s;
UPDATE ct SET a = a || 3000000::float8 WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
ROLLBACK TO SAVEPOINT s;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
COMMIT;

-- deleted and inserted again: another value, then the same value again
DELETE FROM ct WHERE id = 1;
INSERT INTO ct (id, a) SELECT 1, array_agg(-i::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
DELETE FROM ct WHERE id = 1;
INSERT INTO ct (id, a) SELECT 1, array_agg(i::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- rewritten: VACUUM FULL, CLUSTER
VACUUM FULL ct;
SELECT id, gpu_sum(a) FROM ct ORDER BY id;
CREATE INDEX ct_id ON ct (id);
CLUSTER ct USING ct_id;
SELECT id, gpu_sum(a) FROM ct ORDER BY id;

-- emptied and filled again
TRUNCATE ct;
INSERT INTO ct (id, a) SELECT 1, array_agg(i * 2::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- the column's type changed: real[]
ALTER TABLE ct ALTER COLUMN a TYPE real[] USING array_append(a::real[], 0.5::real);
SELECT pg_temp.cache_calls('SELECT gpu_sum(a) FROM ct WHERE id = 1', 'load hit') AS load_then_hit;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- dropped and created again with other values
DROP TABLE ct;
CREATE TABLE ct (id integer, a double precision[]);
ALTER TABLE ct ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO ct SELECT 1, array_agg(i * 3::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;

-- stored compressed, out of line
CREATE TABLE ct_compressed (a double precision[]);
INSERT INTO ct_compressed SELECT array_agg(1::float8) FROM generate_series(1, 200000);
SELECT pg_column_size(a) < 200000 * 8 AS compressed FROM ct_compressed;
SELECT pg_temp.cache_calls('SELECT gpu_sum(a) FROM ct_compressed', 'load hit') AS load_then_hit;
SELECT gpu_sum(a) FROM ct_compressed;

-- a stored array with a NULL: the function's own error, every time
CREATE TABLE ct_null (a double precision[]);
ALTER TABLE ct_null ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO ct_null SELECT array_agg(CASE WHEN i = 40000 THEN NULL ELSE i::float8 END)
FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct_null;
SELECT gpu_sum(a) FROM ct_null;

-- another database with a table of the same name and other values
SELECT current_database() AS cache_test_db \gset
CREATE DATABASE gpuscan_cache_other;
\c gpuscan_cache_other
CREATE EXTENSION gpuscan;
CREATE TABLE ct (id integer, a double precision[]);
ALTER TABLE ct ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO ct SELECT 1, array_agg(i * 5::float8) FROM generate_series(1, 50000) i;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
SELECT gpu_sum(a) FROM ct WHERE id = 1;
\c :cache_test_db
SELECT gpu_sum(a) FROM ct WHERE id = 1;
DROP DATABASE gpuscan_cache_other;

-- prefix sums of stored arrays: the CPU path's bits, the input's lower
-- bound, inclusive and exclusive, as an array and as rows
CREATE TABLE cp (id integer, a double precision[], r real[]);
ALTER TABLE cp ALTER COLUMN a SET STORAGE EXTERNAL;
ALTER TABLE cp ALTER COLUMN r SET STORAGE EXTERNAL;
INSERT INTO cp SELECT 1, (SELECT array_agg(sin(i)) FROM generate_series(1, 60000) i),
  (SELECT array_agg(cos(i)::real) FROM generate_series(1, 90000) i);
INSERT INTO cp SELECT 2, ('[-3:59996]={' || (SELECT string_agg(sin(i)::text, ',') FROM generate_series(1, 60000) i) || '}')::float8[],
  NULL;
CREATE FUNCTION pg_temp.prefix_cpu(k integer, excl boolean) RETURNS text LANGUAGE plpgsql
  SET gpuscan.device = cpu AS $$
DECLARE h text;
BEGIN
  SELECT md5(gpu_prefix_sum_array(cp.a, excl)::text || coalesce(gpu_prefix_sum_array(cp.r, excl)::text, ''))
  INTO h FROM cp WHERE cp.id = k;
  RETURN h;
END $$;
SELECT id, array_lower(gpu_prefix_sum_array(a), 1) AS lower_bound,
       md5(gpu_prefix_sum_array(a, false)::text || coalesce(gpu_prefix_sum_array(r, false)::text, ''))
       = pg_temp.prefix_cpu(id, false) AS same,
       md5(gpu_prefix_sum_array(a, true)::text || coalesce(gpu_prefix_sum_array(r, true)::text, ''))
       = pg_temp.prefix_cpu(id, true) AS same_exclusive
FROM cp ORDER BY id;
SELECT id, array_lower(gpu_prefix_sum_array(a), 1) AS lower_bound,
       md5(gpu_prefix_sum_array(a, false)::text || coalesce(gpu_prefix_sum_array(r, false)::text, ''))
       = pg_temp.prefix_cpu(id, false) AS same
FROM cp ORDER BY id;
WITH p AS MATERIALIZED (SELECT gpu_prefix_sum_array(a) AS p FROM cp WHERE id = 1),
     s AS MATERIALIZED (SELECT s, i FROM cp, gpu_prefix_sum(a) WITH ORDINALITY g(s, i) WHERE id = 1)
SELECT (SELECT count(*) FROM s) AS rows,
       (SELECT bool_and(s.s = p.p[s.i]) FROM s, p) AS same;
DROP TABLE cp;

-- compactions of stored values by flags that change each call: the CPU
-- path's bits, as an array and as rows; NULL flags count as false; and the
-- function's own errors for flags of another length and for NULL values
CREATE TABLE cc (id integer, a double precision[], r real[]);
ALTER TABLE cc ALTER COLUMN a SET STORAGE EXTERNAL;
ALTER TABLE cc ALTER COLUMN r SET STORAGE EXTERNAL;
INSERT INTO cc SELECT 1, (SELECT array_agg(sin(i)) FROM generate_series(1, 60000) i),
  (SELECT array_agg(cos(i)::real) FROM generate_series(1, 70000) i);
INSERT INTO cc SELECT 2, (SELECT array_agg(CASE WHEN i = 50000 THEN NULL ELSE i END) FROM generate_series(1, 60000) i),
  NULL;
CREATE FUNCTION pg_temp.keep(n integer, m integer) RETURNS boolean[] LANGUAGE sql AS
  $$ SELECT array_agg(CASE WHEN i % 7 = 0 THEN NULL ELSE i % m = 0 END) FROM generate_series(1, n) i $$;
CREATE FUNCTION pg_temp.compact_cpu(m integer) RETURNS text LANGUAGE plpgsql
  SET gpuscan.device = cpu AS $$
DECLARE h text;
BEGIN
  SELECT md5(gpu_compact_array(cc.a, pg_temp.keep(60000, m))::text ||
             gpu_compact_array(cc.r, pg_temp.keep(70000, m))::text)
  INTO h FROM cc WHERE cc.id = 1;
  RETURN h;
END $$;
SELECT m, md5(gpu_compact_array(a, pg_temp.keep(60000, m))::text ||
              gpu_compact_array(r, pg_temp.keep(70000, m))::text) = pg_temp.compact_cpu(m) AS same,
       array_length(gpu_compact_array(a, pg_temp.keep(60000, m)), 1) AS kept
FROM cc, generate_series(2, 4) m WHERE id = 1 ORDER BY m;
WITH k AS MATERIALIZED (SELECT gpu_compact_array(a, pg_temp.keep(60000, 3)) AS k FROM cc WHERE id = 1),
     g AS MATERIALIZED (SELECT v, i FROM cc, gpu_compact(a, pg_temp.keep(60000, 3)) WITH ORDINALITY g(v, i)
                        WHERE id = 1)
SELECT (SELECT count(*) FROM g) AS rows, (SELECT bool_and(g.v = k.k[g.i]) FROM g, k) AS same;
SELECT gpu_compact_array(a, array_fill(false, ARRAY[60000])) AS none_kept FROM cc WHERE id = 1;
SELECT gpu_compact_array(a, pg_temp.keep(59999, 2)) FROM cc WHERE id = 1;
SELECT gpu_compact_array(a, pg_temp.keep(60000, 2)) FROM cc WHERE id = 2;
DROP TABLE cc;

-- the positions of the true elements of stored flags (the flags cached,
-- NULL as false): the CPU path's bits, twice each, as an array and as
-- rows; none true; all NULL; all true from index 0; more than 2^20 true;
-- after the flags changed
CREATE TABLE ck (id integer, k boolean[]);
ALTER TABLE ck ALTER COLUMN k SET STORAGE EXTERNAL;
INSERT INTO ck SELECT 1, pg_temp.keep(80000, 3);
INSERT INTO ck SELECT 2, array_fill(false, ARRAY[80000]);
INSERT INTO ck SELECT 3, array_fill(NULL::boolean, ARRAY[80000]);
INSERT INTO ck SELECT 4, array_fill(true, ARRAY[80000], ARRAY[0]);  -- positions from 1 whatever the lower bound
INSERT INTO ck SELECT 5, array_fill(true, ARRAY[1100000]);  -- more positions than a first request has room for
CREATE FUNCTION pg_temp.indices_cpu(i integer) RETURNS text LANGUAGE plpgsql
  SET gpuscan.device = cpu AS $$
DECLARE h text;
BEGIN
  SELECT md5(gpu_compact_indices_array(ck.k)::text) INTO h FROM ck WHERE ck.id = i;
  RETURN h;
END $$;
SELECT id, md5(gpu_compact_indices_array(k)::text) = pg_temp.indices_cpu(id) AS same,
       cardinality(gpu_compact_indices_array(k)) AS kept
FROM ck, generate_series(1, 2) ORDER BY id;
SELECT id, (SELECT array_agg(i) FROM gpu_compact_indices(k) i) = gpu_compact_indices_array(k) AS same_rows
FROM ck WHERE id IN (1, 4) ORDER BY id;
UPDATE ck SET k = pg_temp.keep(80000, 5) WHERE id = 1;
SELECT md5(gpu_compact_indices_array(k)::text) = pg_temp.indices_cpu(1) AS same,
       cardinality(gpu_compact_indices_array(k)) AS kept
FROM ck WHERE id = 1;
DROP TABLE ck;

-- SpMV of stored matrices: the CPU path's bits, for a new x, after vals
-- changed, and the function's own errors where the arrays do not make a
-- matrix for the x or for each other
CREATE TABLE cm (id integer, row_ptr integer[], col_idx integer[], vals double precision[]);
ALTER TABLE cm ALTER COLUMN row_ptr SET STORAGE EXTERNAL;
ALTER TABLE cm ALTER COLUMN col_idx SET STORAGE EXTERNAL;
ALTER TABLE cm ALTER COLUMN vals SET STORAGE EXTERNAL;
INSERT INTO cm SELECT 1, (SELECT array_agg(i * 4) FROM generate_series(0, 20000) i),
  (SELECT array_agg(((i::bigint * 7919) % 20000)::integer) FROM generate_series(0, 79999) i),
  (SELECT array_agg(sin(i)) FROM generate_series(0, 79999) i);
INSERT INTO cm SELECT 2, (SELECT array_agg(i * 5) FROM generate_series(0, 20000) i),
  (SELECT array_agg(((i::bigint * 104729) % 30000)::integer) FROM generate_series(0, 99999) i),
  (SELECT array_agg(cos(i)) FROM generate_series(0, 99999) i);
CREATE TABLE cx (id integer, x double precision[]);
INSERT INTO cx SELECT k, (SELECT array_agg(sqrt(i + k)) FROM generate_series(0, 29999) i)
FROM generate_series(1, 2) k;
CREATE FUNCTION pg_temp.spmv_cpu(m integer, v integer) RETURNS text LANGUAGE plpgsql
  SET gpuscan.device = cpu AS $$
DECLARE r text;
BEGIN
  SELECT md5(gpu_csr_spmv(row_ptr, col_idx, vals, x)::text) INTO r
  FROM cm, cx WHERE cm.id = m AND cx.id = v;
  RETURN r;
END $$;
SELECT cm.id, cx.id, md5(gpu_csr_spmv(row_ptr, col_idx, vals, x)::text) = pg_temp.spmv_cpu(cm.id, cx.id) AS same
FROM cm, cx ORDER BY 1, 2;
SELECT cm.id, cx.id, md5(gpu_csr_spmv(row_ptr, col_idx, vals, x)::text) = pg_temp.spmv_cpu(cm.id, cx.id) AS same
FROM cm, cx ORDER BY 1, 2;
SELECT (gpu_csr_spmv(row_ptr, col_idx, vals, x))[1:3] FROM cm, cx WHERE cm.id = 1 AND cx.id = 1;
-- vals, cached by the SpMV above, summed and prefix-summed: its own bounds
SELECT array_lower(gpu_prefix_sum_array(vals), 1) AS lower_bound, gpu_sum(vals)
FROM cm WHERE id = 1;
WITH y AS MATERIALIZED (SELECT gpu_csr_spmv(row_ptr, col_idx, vals, x) AS y
                        FROM cm, cx WHERE cm.id = 1 AND cx.id = 1),
     r AS MATERIALIZED (SELECT g.* FROM cm, cx, gpu_csr_spmv_rows(row_ptr, col_idx, vals, x) g
                        WHERE cm.id = 1 AND cx.id = 1)
SELECT (SELECT count(*) FROM r) AS rows,
       (SELECT md5(string_agg(value::text, ',' ORDER BY row_index)) FROM r)
       = (SELECT md5(array_to_string(y, ',')) FROM y) AS same;
UPDATE cm SET vals = (SELECT array_agg(-sin(i)) FROM generate_series(0, 79999) i) WHERE id = 1;
SELECT (gpu_csr_spmv(row_ptr, col_idx, vals, x))[1:3] FROM cm, cx WHERE cm.id = 1 AND cx.id = 1;
SELECT md5(gpu_csr_spmv(row_ptr, col_idx, vals, x)::text) = pg_temp.spmv_cpu(1, 2) AS same
FROM cm, cx WHERE cm.id = 1 AND cx.id = 2;
-- x too short for matrix 2's columns
SELECT gpu_csr_spmv(row_ptr, col_idx, vals, x[1:20000]) FROM cm, cx WHERE cm.id = 2 AND cx.id = 1;
-- matrix 1's row_ptr with matrix 2's col_idx and vals
SELECT gpu_csr_spmv(a.row_ptr, b.col_idx, b.vals, x) FROM cm a, cm b, cx
WHERE a.id = 1 AND b.id = 2 AND cx.id = 1;
-- matrix 1's pattern with matrix 2's vals
SELECT gpu_csr_spmv(a.row_ptr, a.col_idx, b.vals, x) FROM cm a, cm b, cx
WHERE a.id = 1 AND b.id = 2 AND cx.id = 1;
-- col_idx as a row_ptr
SELECT gpu_csr_spmv(a.col_idx, a.col_idx, a.vals, x) FROM cm a, cx WHERE a.id = 1 AND cx.id = 1;
DROP TABLE cm, cx;

-- PageRank of stored graphs: the CPU path's bits, twice, with other
-- parameters, and the function's own errors where the arrays do not make
-- a graph
CREATE TABLE cg (id integer, row_ptr integer[], col_idx integer[]);
ALTER TABLE cg ALTER COLUMN row_ptr SET STORAGE EXTERNAL;
ALTER TABLE cg ALTER COLUMN col_idx SET STORAGE EXTERNAL;
INSERT INTO cg SELECT k,
  (SELECT array_agg(c ORDER BY i) FROM
     (SELECT i, coalesce(sum((i * k) % 7) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING
                                                AND 1 PRECEDING), 0) AS c
      FROM generate_series(0, 30000) i) s),
  NULL
FROM generate_series(1, 2) k;
UPDATE cg SET col_idx = (SELECT array_agg(((j::bigint * (7919 + id)) % 30000)::integer)
                         FROM generate_series(0, row_ptr[30001] - 1) j);
CREATE FUNCTION pg_temp.pagerank_cpu(g integer, d float8, t float8, m integer) RETURNS text
LANGUAGE plpgsql SET gpuscan.device = cpu AS $$
DECLARE r text;
BEGIN
  SELECT md5(gpu_pagerank(row_ptr, col_idx, d, t, m)::text) INTO r FROM cg WHERE id = g;
  RETURN r;
END $$;
SELECT id, md5(gpu_pagerank(row_ptr, col_idx)::text) = pg_temp.pagerank_cpu(id, 0.85, 1e-10, 100) AS same
FROM cg ORDER BY id;
SELECT id, md5(gpu_pagerank(row_ptr, col_idx)::text) = pg_temp.pagerank_cpu(id, 0.85, 1e-10, 100) AS same
FROM cg ORDER BY id;
SELECT id, md5(gpu_pagerank(row_ptr, col_idx, 0.5, 0, 5)::text) = pg_temp.pagerank_cpu(id, 0.5, 0, 5) AS same
FROM cg ORDER BY id;
WITH p AS MATERIALIZED (SELECT gpu_pagerank(row_ptr, col_idx) AS r FROM cg WHERE id = 1)
SELECT round((SELECT sum(x) FROM unnest(r) x)::numeric, 12) AS total, cardinality(r) AS nodes FROM p;
-- graph 1's row_ptr with graph 2's col_idx
SELECT gpu_pagerank(a.row_ptr, b.col_idx) FROM cg a, cg b WHERE a.id = 1 AND b.id = 2;
-- col_idx as a row_ptr
SELECT gpu_pagerank(col_idx, col_idx) FROM cg WHERE id = 1;
DROP TABLE cg;

-- the view and the reset are for monitoring roles and superusers
CREATE ROLE gpuscan_cache_user;
SET ROLE gpuscan_cache_user;
SELECT count(*) FROM gpuscan_cache;
SELECT gpuscan_cache_reset();
RESET ROLE;
DROP ROLE gpuscan_cache_user;
SELECT count(*) >= 0 AS readable FROM gpuscan_cache;

DROP TABLE ct, ct_compressed, ct_null;
