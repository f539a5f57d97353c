-- gpu_csr_spmv and gpu_csr_spmv_rows: y = A x over 0-based CSR arrays.
-- Small integer-valued matrices, whose products and sums are exact in any
-- order, against the plain SQL formulation; the same output on both paths.
-- Non-integer matrices with long rows against the CPU path, bit for bit.
SELECT setseed(0.5);

-- the plain SQL formulation: the matrix's entries joined with x, GROUP BY row
-- (arrays with lower bound 1; empty rows give 0); unnest, not subscripts,
-- which would detoast a stored array for each element
CREATE FUNCTION csr_spmv_sql(rp int[], ci int[], v float8[], x float8[]) RETURNS float8[]
LANGUAGE sql IMMUTABLE AS $$
  WITH row_bounds AS (
    SELECT r - 1 AS row_index, lo, hi
    FROM unnest(rp[1:cardinality(rp) - 1], rp[2:cardinality(rp)]) WITH ORDINALITY u(lo, hi, r)),
  entries AS (
    SELECT b.row_index, k FROM row_bounds b, generate_series(b.lo + 1, b.hi) k),
  products AS (
    SELECT e.row_index, m.val * xs.xj AS p
    FROM entries e
    JOIN unnest(ci, v) WITH ORDINALITY m(col, val, k) USING (k)
    JOIN unnest(x) WITH ORDINALITY xs(xj, j) ON xs.j = m.col + 1),
  sums AS (
    SELECT b.row_index, coalesce(sum(p.p), 0) AS y
    FROM row_bounds b LEFT JOIN products p USING (row_index)
    GROUP BY b.row_index)
  SELECT coalesce(array_agg(y ORDER BY row_index), '{}') FROM sums
$$;

-- A = [[1 0 2] [0 0 0] [0 3 4]], x = (1, 2, 3): y = (7, 0, 18)
SELECT gpu_csr_spmv('{0,2,2,4}', '{0,2,1,2}', '{1,2,3,4}'::float8[], '{1,2,3}'::float8[]);
SELECT gpu_csr_spmv('{0,2,2,4}', '{0,2,1,2}', '{1,2,3,4}'::real[], '{1,2,3}'::real[]);
SELECT * FROM gpu_csr_spmv_rows('{0,2,2,4}', '{0,2,1,2}', '{1,2,3,4}'::float8[], '{1,2,3}'::float8[]);
SELECT * FROM gpu_csr_spmv_rows('{0,2,2,4}', '{0,2,1,2}', '{0.5,2,3,4}'::real[], '{1,2,3}'::real[]);
SELECT pg_typeof(value) FROM gpu_csr_spmv_rows('{0,1}', '{0}', '{1}'::real[], '{1}'::real[]);

-- no rows; rows that are all empty; the arrays' lower bounds do not matter
SELECT gpu_csr_spmv('{0}', '{}', '{}'::float8[], '{}'::float8[]) AS no_rows,
       gpu_csr_spmv('{0}', '{}', '{}'::real[], '{1}'::real[]) AS no_rows_real;
SELECT count(*) AS no_rows FROM gpu_csr_spmv_rows('{0}', '{}', '{}'::float8[], '{}'::float8[]);
SELECT gpu_csr_spmv('{0,0,0,0}', '{}', '{}'::float8[], '{1,2}'::float8[]) AS all_empty;
SELECT gpu_csr_spmv('[0:2]={0,1,2}', '[3:4]={1,0}', '[7:8]={2,3}'::float8[],
                    '[5:6]={10,20}'::float8[]) AS any_bounds;
-- a column may repeat within a row: the entries add up
SELECT gpu_csr_spmv('{0,3}', '{1,1,0}', '{1,2,4}'::float8[], '{1,10}'::float8[]) AS duplicates;
-- every sum starts at +0: a row of -0 products gives +0 on every path
SELECT float8send((gpu_csr_spmv('{0,2}', '{0,1}', '{-1,1}'::float8[], '{0,-0}'::float8[]))[1]) AS plus_zero;
-- IEEE: Inf - Inf is NaN, Inf stays Inf
SELECT gpu_csr_spmv('{0,2,3}', '{0,1,0}', '{1,1,2}'::float8[], '{Infinity,-Infinity}'::float8[]) AS ieee;
-- real: products and sums in double, rounded to real once
SELECT gpu_csr_spmv('{0,3}', '{0,1,2}', '{16777216,1,1}'::real[], '{1,1,1}'::real[]) AS once_rounded;

-- random integer matrices: short, long (past a 4096-entry segment), mixed
-- and empty rows, lengths around warp sizes
CREATE TABLE spmv_cases AS
WITH params(id, nrows, ncols, maxlen) AS (
  VALUES (1, 1, 1, 3), (2, 7, 5, 4), (3, 33, 40, 70), (4, 1000, 17, 10),
         (5, 6, 300, 9000), (6, 300, 64, 64), (7, 40, 3, 1)),
lens AS (
  SELECT id, r, floor(random() * (maxlen + 1))::int AS len
  FROM params, generate_series(0, nrows - 1) r),
entries AS (
  SELECT l.id, l.r, g, floor(random() * p.ncols)::int AS col,
         (floor(random() * 19) - 9)::float8 AS val
  FROM lens l JOIN params p USING (id), generate_series(1, l.len) g)
SELECT p.id,
  (SELECT '{0}'::int[] || array_agg(c::int ORDER BY r)
     FROM (SELECT r, sum(len) OVER (ORDER BY r) c FROM lens l WHERE l.id = p.id) s) AS rp,
  (SELECT coalesce(array_agg(col ORDER BY r, g), '{}') FROM entries e WHERE e.id = p.id) AS ci,
  (SELECT coalesce(array_agg(val ORDER BY r, g), '{}') FROM entries e WHERE e.id = p.id) AS v,
  (SELECT array_agg((floor(random() * 11) - 5)::float8) FROM generate_series(1, p.ncols)) AS x
FROM params p;
-- one dense row of 10000 entries
INSERT INTO spmv_cases
SELECT 8, ARRAY[0, 10000], array_agg(g - 1 ORDER BY g),
       array_agg((g % 7 - 3)::float8 ORDER BY g), array_agg((g % 5 - 2)::float8 ORDER BY g)
FROM generate_series(1, 10000) g;

SELECT id, cardinality(rp) - 1 AS nrows, cardinality(ci) AS nnz,
       gpu_csr_spmv(rp, ci, v, x) = csr_spmv_sql(rp, ci, v, x) AS matches_sql,
       gpu_csr_spmv(rp, ci, v::real[], x::real[]) = csr_spmv_sql(rp, ci, v, x)::real[] AS matches_sql_real
FROM spmv_cases ORDER BY id;
-- the set-returning form: one row per matrix row, 0-based, in order
CREATE TABLE spmv_refs AS SELECT id, csr_spmv_sql(rp, ci, v, x) AS ref FROM spmv_cases;
SELECT id, count(*) = cardinality(rp) - 1 AS all_rows,
       bool_and(value = ref[row_index + 1]) AS matches_sql,
       min(row_index) AS first_row
FROM spmv_cases JOIN spmv_refs USING (id), gpu_csr_spmv_rows(rp, ci, v, x)
GROUP BY id, rp ORDER BY id;
SELECT id, bool_and(value = ref[row_index + 1]) AS matches_sql_real
FROM spmv_cases JOIN spmv_refs USING (id), gpu_csr_spmv_rows(rp, ci, v::real[], x::real[])
GROUP BY id ORDER BY id;

-- non-integer values: the result depends only on the data, not the path
SELECT gpu_csr_spmv('{0,3,4}', '{0,1,2,0}', '{0.1,0.2,0.3,0.7}'::float8[], '{1,3,7}'::float8[]) AS tenths;

-- Non-integer data, whose sums depend on the order: values of both signs
-- over twelve orders of magnitude; in matrix 1 rows empty, short, around
-- the 32 lanes, around and well past the 4096-entry segment (the GPU
-- splits such rows), in matrix 2 many short rows, a third of them empty.
CREATE TABLE spmv_flens AS
SELECT 1 AS id, (r - 1)::int AS r, len
FROM unnest('{0,1,2,31,32,33,0,4095,4096,4097,0,8192,8193,30000,100,0}'::int[])
     WITH ORDINALITY u(len, r)
UNION ALL
SELECT 2, r, (r * 37) % 41 * sign(r % 3)::int FROM generate_series(0, 2999) r;
CREATE TABLE spmv_fentries AS
SELECT id, r, k, ((k::bigint * 7919 + r * 104729) % 25000)::int AS col,
       sin(k + 1000 * r) * 10 ^ ((k * 7 + r) % 13 - 6) AS val
FROM spmv_flens, generate_series(1, len) k;
CREATE TABLE spmv_fcases AS
SELECT id,
  (SELECT '{0}'::int[] || array_agg(c::int ORDER BY r)
     FROM (SELECT r, sum(len) OVER (ORDER BY r) c FROM spmv_flens l WHERE l.id = m.id) s) AS rp,
  (SELECT array_agg(col ORDER BY r, k) FROM spmv_fentries e WHERE e.id = m.id) AS ci,
  (SELECT array_agg(val ORDER BY r, k) FROM spmv_fentries e WHERE e.id = m.id) AS v,
  (SELECT array_agg(cos(0.7 * j) * 2 ^ (j % 11 - 5) ORDER BY j)
     FROM generate_series(0, 24999) j) AS x
FROM (VALUES (1), (2)) m(id);

-- this run's results, every form, before anything runs on the CPU path
CREATE TABLE spmv_fresults AS
SELECT id, gpu_csr_spmv(rp, ci, v, x) AS y,
       gpu_csr_spmv(rp, ci, v::real[], x::real[]) AS y4,
       (SELECT array_agg(value ORDER BY row_index) FROM gpu_csr_spmv_rows(rp, ci, v, x)) AS y_rows,
       (SELECT array_agg(value ORDER BY row_index)
          FROM gpu_csr_spmv_rows(rp, ci, v::real[], x::real[])) AS y4_rows
FROM spmv_fcases;
SELECT took_expected_path('gpu_csr_spmv') AS spmv_path,
       took_expected_path('gpu_csr_spmv_rows') AS spmv_rows_path;

-- the same bits as the CPU path's, whatever path this run takes
CREATE FUNCTION spmv_cpu(rp int[], ci int[], v float8[], x float8[]) RETURNS float8[]
LANGUAGE plpgsql SET gpuscan.device = cpu AS $$
BEGIN
  RETURN gpu_csr_spmv(rp, ci, v, x);
END
$$;
CREATE FUNCTION spmv_cpu(rp int[], ci int[], v real[], x real[]) RETURNS real[]
LANGUAGE plpgsql SET gpuscan.device = cpu AS $$
BEGIN
  RETURN gpu_csr_spmv(rp, ci, v, x);
END
$$;
SELECT id, cardinality(y) AS nrows, cardinality(ci) AS nnz,
       array_send(y) = array_send(cpu) AS same_as_cpu,
       array_send(y_rows) = array_send(cpu) AS rows_same_as_cpu,
       array_send(y4) = array_send(cpu4) AS real_same_as_cpu,
       array_send(y4_rows) = array_send(cpu4) AS real_rows_same_as_cpu
FROM spmv_fcases JOIN spmv_fresults USING (id),
     LATERAL (SELECT spmv_cpu(rp, ci, v, x) AS cpu,
                     spmv_cpu(rp, ci, v::real[], x::real[]) AS cpu4) c
ORDER BY id;

-- the data make the order matter: of the rows past one segment, none is
-- the sum from left to right, all are close to the exact sum; empty rows
-- give +0
CREATE TABLE spmv_fx AS
SELECT id, j - 1 AS col, xj FROM spmv_fcases, unnest(x) WITH ORDINALITY u(xj, j);
WITH p AS (
  SELECT id, r, k, val * xj AS p FROM spmv_fentries JOIN spmv_fx USING (id, col)),
s AS (
  SELECT id, r, count(*) AS len, sum(p ORDER BY k) AS left_to_right,
         sum(p::numeric) AS exact, sum(abs(p)) AS magnitude
  FROM p GROUP BY id, r)
SELECT id, count(*) FILTER (WHERE len > 4096) AS long_rows,
       count(*) FILTER (WHERE len > 4096 AND float8send(y[r + 1]) <> float8send(left_to_right))
         AS long_rows_not_left_to_right,
       bool_and(abs(y[r + 1] - exact) <= 1e-13 * magnitude) AS close_to_exact
FROM s JOIN spmv_fresults USING (id) GROUP BY id ORDER BY id;
SELECT id, count(*) AS empty_rows, bool_and(float8send(y[r + 1]) = float8send(0)) AS plus_zero
FROM spmv_flens JOIN spmv_fresults USING (id) WHERE len = 0 GROUP BY id ORDER BY id;

-- the fixed order across segments: a row's sum is the sums of its
-- 4096-entry segments, each a row of its own here, added in order from +0
WITH segs AS (
  SELECT id, r, (k - 1) / 4096 AS seg, count(*) AS len
  FROM spmv_fentries GROUP BY id, r, (k - 1) / 4096),
split AS (
  SELECT id, '{0}'::int[] || array_agg(c::int ORDER BY r, seg) AS rp_seg,
         array_agg(r ORDER BY r, seg) AS seg_row
  FROM (SELECT id, r, seg, sum(len) OVER (PARTITION BY id ORDER BY r, seg) c FROM segs) s
  GROUP BY id),
seg_sums AS (
  SELECT id, u.r, u.o, u.y_seg
  FROM split JOIN spmv_fcases USING (id),
       unnest(seg_row, gpu_csr_spmv(rp_seg, ci, v, x)) WITH ORDINALITY u(r, y_seg, o))
SELECT id, count(*) FILTER (WHERE segments > 1) AS split_rows,
       bool_and(float8send(y[r + 1]) = float8send(0 + by_segments)) AS sums_of_segments
FROM (SELECT id, r, count(*) AS segments, sum(y_seg ORDER BY o) AS by_segments
      FROM seg_sums GROUP BY id, r) t
JOIN spmv_fresults USING (id) GROUP BY id ORDER BY id;

-- invalid input: clear errors, nothing reaches a kernel
\set VERBOSITY default
SELECT gpu_csr_spmv('{0,NULL}', '{0}', '{1}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{0,1}', '{NULL}', '{1}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{0,1}', '{0}', '{NULL}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{0,1}', '{0}', '{1}'::real[], '{1,NULL}'::real[]);
SELECT gpu_csr_spmv('{{0,1}}', '{0}', '{1}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{0,1}', '{0}', '{{1}}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{}', '{}', '{}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{1,2}', '{0}', '{1}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{0,3,2,4}', '{0,0,0,0}', '{1,1,1,1}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{0,1,3}', '{0,0}', '{1,1}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{0,1,2}', '{0,0}', '{1,1,1}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv('{0,2,3}', '{0,17,4}', '{1,1,1}'::float8[], array_fill(1::float8, ARRAY[10]));
SELECT gpu_csr_spmv('{0,1}', '{-1}', '{1}'::real[], '{1}'::real[]);
SELECT * FROM gpu_csr_spmv_rows('{0,1}', '{1}', '{1}'::float8[], '{1}'::float8[]);
SELECT gpu_csr_spmv(NULL, '{0}', '{1}'::float8[], '{1}'::float8[]) IS NULL AS strict_null;
