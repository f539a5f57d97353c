-- gpu_csr_agg: a CSR matrix (gpu_csr) from (row, column, value) triples,
-- against the arrays written by hand; gpu_csr_spmv on a built matrix
-- against the SQL join formulation.

-- A = [[1 0 2.5] [0 0 0] [0 3 4]]; (0, 2) given twice (2 + 0.5), rows out
-- of order
SELECT gpu_csr_agg(r, c, v) =
       ROW(3, 3, '{0,2,2,4}', '{0,2,1,2}', '{1,2.5,3,4}')::gpu_csr AS as_by_hand
FROM (VALUES (2, 2, 4.0), (0, 2, 2.0), (2, 1, 3.0), (0, 0, 1.0), (0, 2, 0.5)) t(r, c, v);
SELECT (m).nrows, (m).ncols, (m).row_ptr, (m).col_idx, (m).vals
FROM (SELECT gpu_csr_agg(r, c, v) AS m
      FROM (VALUES (2, 2, 4.0), (0, 2, 2.0), (2, 1, 3.0), (0, 0, 1.0), (0, 2, 0.5)) t(r, c, v)) s;

-- the sizes given: empty rows and columns past the largest index
SELECT gpu_csr_agg(r, c, v, 4, 5) =
       ROW(4, 5, '{0,1,1,1,2}', '{0,4}', '{1,2}')::gpu_csr AS as_by_hand
FROM (VALUES (3, 4, 2.0), (0, 0, 1.0)) t(r, c, v);

-- duplicates are added exactly, whatever their order: 1e16 + 1 - 1e16 is 1
SELECT (gpu_csr_agg(r, c, v ORDER BY o)).vals AS one_order,
       (gpu_csr_agg(r, c, v ORDER BY o DESC)).vals AS the_other
FROM (VALUES (0, 0, 1e16::float8, 1), (0, 0, 1, 2), (0, 0, -1e16, 3), (1, 1, 0.1, 4),
             (1, 1, 0.2, 5), (1, 1, 0.3, 6)) t(r, c, v, o);

-- a pair of duplicates (one addition where that is the exact sum rounded
-- once) and groups of three give the bits of gpu_sum over the same values:
-- rounding, overflow, cancellation to +0, -0 + -0, subnormals, Inf and NaN
SELECT g, same_float8((gpu_csr_agg(0, 0, v)).vals[1], gpu_sum(array_agg(v))) AS same_as_gpu_sum
FROM (VALUES (1, 0.1::float8), (1, 0.2), (2, 1e308), (2, 1e308), (3, -1e308), (3, -1.7e308),
             (4, 1.5), (4, -1.5), (5, '-0'), (5, '-0'), (6, '-0'), (6, 0),
             (7, 5e-324), (7, 5e-324), (8, 2.2250738585072014e-308), (8, -5e-324),
             (9, 'Infinity'), (9, 1), (10, 'Infinity'), (10, '-Infinity'), (11, 'NaN'), (11, 2),
             (12, 1e16), (12, 1), (12, 1), (13, 0.1), (13, 0.2), (13, 0.3),
             (14, 1.7976931348623157e308), (14, 9.979201547673598e291)) t(g, v)
GROUP BY g ORDER BY g;

-- the same matrix from the rows in any order
CREATE TABLE csr_triples AS
SELECT i % 97 AS r, (i * 31) % 89 AS c, ((i * 7) % 13 - 6)::float8 AS v
FROM generate_series(1, 3000) i;
SELECT count(DISTINCT m) AS distinct_matrices
FROM (SELECT gpu_csr_agg(r, c, v ORDER BY r, c) AS m FROM csr_triples
      UNION ALL SELECT gpu_csr_agg(r, c, v ORDER BY v, c DESC) FROM csr_triples
      UNION ALL SELECT gpu_csr_agg(r, c, v) FROM csr_triples) s;

-- in parallel (each worker's triples handed to the leader and combined):
-- the same matrix as the serial aggregate, with and without the sizes
CREATE TEMP TABLE csr_serial AS
SELECT gpu_csr_agg(r, c, v) AS m, gpu_csr_agg(r, c, v, 100, 90) AS sized FROM csr_triples;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gpu_csr_agg(r, c, v) FROM csr_triples;
SELECT p.m = s.m AS same_matrix, p.sized = s.sized AS same_with_sizes
FROM (SELECT gpu_csr_agg(r, c, v) AS m, gpu_csr_agg(r, c, v, 100, 90) AS sized FROM csr_triples) p,
     csr_serial s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- the GpuscanCsr scan (a whole-table gpu_csr_agg read without a transition
-- call per row): its plan, and the aggregate's result or error, detail
-- included (gpuscan.enable_sum_scan = off), over every column type it reads
CREATE FUNCTION pg_temp.scan_vs_aggregate(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text;
  got text[];
  detail text;
BEGIN
  EXECUTE 'EXPLAIN (COSTS OFF) ' || q INTO plan;
  FOREACH detail IN ARRAY ARRAY['on', 'off'] LOOP
    PERFORM set_config('gpuscan.enable_sum_scan', detail, true);
    BEGIN
      EXECUTE q INTO plan;
      got := got || coalesce(plan, 'NULL');
    EXCEPTION WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
      got := got || (SQLSTATE || ': ' || SQLERRM || ' (' || detail || ')');
    END;
  END LOOP;
  PERFORM set_config('gpuscan.enable_sum_scan', 'on', true);
  EXECUTE 'EXPLAIN (COSTS OFF) ' || q INTO plan;
  RETURN plan || ': ' || CASE WHEN got[1] = got[2] THEN 'the same, ' || got[1]
                              ELSE 'differ: ' || got[1] || ' / ' || got[2] END;
END
$$;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE csr_types AS
SELECT r::bigint AS r8, r::smallint AS r2, c AS c4, c::bigint AS c8, v AS v8, v::real AS v4
FROM csr_triples;
CREATE TEMP TABLE csr_bad (r integer, c integer, v double precision);
INSERT INTO csr_bad VALUES (0, 0, 1), (1, 1, 2), (NULL, 1, 3);
CREATE TEMP TABLE csr_wide (r integer, c integer, v double precision);
INSERT INTO csr_wide VALUES (0, 0, 1), (1, 1, 2), (1, 5, 3), (-1, 0, 4);
CREATE TEMP TABLE csr_empty (r integer, c integer, v double precision);
SELECT pg_temp.scan_vs_aggregate(q) AS scan_vs_aggregate
FROM unnest(ARRAY[
  'SELECT md5(gpu_csr_agg(r8, c4, v8)::text) FROM csr_types',
  'SELECT md5(gpu_csr_agg(r2, c8, v4)::text) FROM csr_types',
  'SELECT (gpu_csr_agg(r8, c4, v8, 97, 89)).nrows || '' '' || md5((gpu_csr_agg(r8, c4, v8, 97, 89)).vals::text) FROM csr_types',
  'SELECT gpu_csr_agg(r, c, v)::text FROM csr_bad',
  'SELECT gpu_csr_agg(r, c, v, 2, 2)::text FROM csr_wide',
  'SELECT gpu_csr_agg(r, c, v, 2, NULL)::text FROM csr_wide',
  'SELECT gpu_csr_agg(r, c, v)::text FROM csr_wide',
  'SELECT gpu_csr_agg(r, c, v)::text FROM csr_empty']) q;
RESET max_parallel_workers_per_gather;

-- y = A x against the join formulation (integer values: every sum exact)
WITH m AS (SELECT gpu_csr_agg(r, c, v, 97, 89) AS a FROM csr_triples),
     x AS (SELECT array_agg((j % 5 - 2)::float8 ORDER BY j) AS x FROM generate_series(0, 88) j),
     joined AS (
       SELECT array_agg(coalesce(y, 0) ORDER BY i) AS y
       FROM generate_series(0, 96) i
       LEFT JOIN (SELECT t.r, sum(t.v * x.x[t.c + 1]) AS y FROM csr_triples t, x GROUP BY t.r) s
         ON s.r = i)
SELECT gpu_csr_spmv(m.a, x.x) = joined.y AS same_as_join, cardinality(joined.y) AS rows
FROM m, x, joined;

-- the pattern of a square built matrix is a graph for gpu_pagerank; its
-- ranks are gpu_pagerank_edges's over the same edges
SELECT gpu_pagerank((m).row_ptr, (m).col_idx) =
       (SELECT array_agg(rank ORDER BY node)
        FROM gpu_pagerank_edges('SELECT s, d FROM (VALUES (0, 1), (1, 2), (2, 0), (2, 3), (3, 3)) t(s, d) ORDER BY s, d'))
       AS same_ranks
FROM (SELECT gpu_csr_agg(s, d, 1) AS m
      FROM (VALUES (0, 1), (1, 2), (2, 0), (2, 3), (3, 3)) t(s, d)) g;

-- as a window aggregate: each row's matrix of the triples so far (the final
-- function runs between transitions)
SELECT i, (m).row_ptr, (m).col_idx, (m).vals
FROM (SELECT i, gpu_csr_agg(r, c, v) OVER (ORDER BY i) AS m
      FROM (VALUES (1, 2, 0, 1.0), (2, 0, 1, 2.0), (3, 2, 0, 0.5), (4, 1, 1, 1.0)) t(i, r, c, v)) s;

-- no rows: NULL
SELECT gpu_csr_agg(r, c, v) IS NULL AS no_matrix FROM csr_triples WHERE false;

-- errors
SELECT gpu_csr_agg(r, c, v) FROM (VALUES (0, -1, 1.0)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v) FROM (VALUES (-5, 0, 1.0)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v) FROM (VALUES (1, 1, 1.0), (2147483647, 0, 1.0)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v) FROM (VALUES (0, 9000000000, 1.0)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v) FROM (VALUES (0, 0, 1.0), (NULL, 1, 1.0)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v) FROM (VALUES (0, NULL::int, 1.0)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v) FROM (VALUES (0, 1, NULL::float8)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v, 2, 2) FROM (VALUES (0, 2, 1.0)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v, 2, 2) FROM (VALUES (2, 0, 1.0)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v, n, 2) FROM (VALUES (0, 0, 1.0, 2), (1, 1, 1.0, 3)) t(r, c, v, n);
SELECT gpu_csr_agg(r, c, v, -1, 2) FROM (VALUES (0, 0, 1.0)) t(r, c, v);
SELECT gpu_csr_agg(r, c, v, NULL, 2) FROM (VALUES (0, 0, 1.0)) t(r, c, v);
SELECT gpu_csr_spmv(gpu_csr_agg(r, c, v), '{1,2}') FROM (VALUES (0, 0, 1.0), (0, 2, 2.0)) t(r, c, v);
SELECT gpu_csr_spmv(ROW(1, 1, NULL, '{0}', '{1}')::gpu_csr, '{1}');
SELECT gpu_csr_spmv(ROW(-1, 1, '{0}', '{}', '{}')::gpu_csr, '{1}');
SELECT gpu_csr_spmv(ROW(2, 1, '{0,1}', '{0}', '{1}')::gpu_csr, '{1}');
SELECT gpu_csr_spmv(ROW(1, 1, '{0,5}', '{0}', '{1}')::gpu_csr, '{1}');
SELECT gpu_csr_spmv(ROW(1, 1, '{0,1}', '{0}', '{1}')::gpu_csr, '{1}');

DROP TABLE csr_triples;
