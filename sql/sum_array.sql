-- gpu_sum over arrays: exact sums rounded once, on both paths.
SELECT setseed(0.25);

-- empty, single, small
SELECT gpu_sum('{}'::float8[]) AS empty, gpu_sum('{}'::real[]) AS empty_real;
SELECT gpu_sum(ARRAY[42.5]::float8[]), gpu_sum(ARRAY[1.5, 2.25, -0.125]::float8[]);
SELECT gpu_sum(ARRAY[1.5, 2.25, -0.125]::real[]);
SELECT gpu_sum(NULL::float8[]) IS NULL AS strict_null;
-- any lower bound
SELECT gpu_sum('[5:7]={1,2,3}'::float8[]);

-- the same as PostgreSQL's sum() where that is exact: integer values,
-- lengths around warp, block and chunk sizes
CREATE TABLE int_arrays AS
  SELECT n, array_agg(floor(random() * 2000001 - 1000000)::float8) AS a
  FROM unnest(ARRAY[1, 31, 32, 33, 1023, 1024, 1025, 4097, 65537, 1048583]) n,
       generate_series(1, n) g
  GROUP BY n;
SELECT n, gpu_sum(a) = (SELECT sum(x) FROM unnest(a) x) AS matches_sum
FROM int_arrays ORDER BY n;
SELECT n, gpu_sum(a::real[]) = (SELECT sum(x::float8) FROM unnest(a::real[]) x) AS matches_sum_real
FROM int_arrays ORDER BY n;

-- cancellation: naive left-to-right float8 addition loses the 1 here
SELECT gpu_sum(ARRAY[1e16, 1, -1e16]::float8[]) AS one,
       (SELECT sum(x) FROM unnest(ARRAY[1e16, 1, -1e16]::float8[]) x) AS naive;
SELECT gpu_sum(ARRAY[1e308, 1e308, -1e308]::float8[]) AS no_intermediate_overflow;
SELECT gpu_sum(ARRAY[1.7976931348623157e308, 9e291]::float8[]) AS rounds_down_to_max,
       gpu_sum(ARRAY[1.7976931348623157e308, 1e308]::float8[]) AS overflows;
SELECT gpu_sum(array_fill(0.1::float8, ARRAY[10])) AS ten_tenths;

-- signed zeros, subnormals, Inf and NaN follow IEEE addition
SELECT float8send(gpu_sum(ARRAY['-0', '-0']::float8[])) AS neg_zero,
       float8send(gpu_sum(ARRAY['-0', '0']::float8[])) AS pos_zero,
       float8send(gpu_sum(ARRAY[1, -1]::float8[])) AS cancel_zero;
SELECT gpu_sum(ARRAY[5e-324, 5e-324, 1e-310]::float8[]) AS subnormals,
       gpu_sum(ARRAY[2.2250738585072014e-308, -5e-324]::float8[]) AS below_normal;
SELECT gpu_sum(ARRAY[1, 'Infinity']::float8[]) AS inf,
       gpu_sum(ARRAY['-Infinity', 1e308]::float8[]) AS neg_inf,
       gpu_sum(ARRAY['Infinity', '-Infinity']::float8[]) AS inf_minus_inf,
       gpu_sum(ARRAY[1, 'NaN']::float8[]) AS nan;
SELECT gpu_sum(ARRAY['Infinity', 'NaN']::real[]) AS real_nan,
       gpu_sum(ARRAY[3.4028235e38, 3.4028235e38]::real[]) AS real_beyond_float_max,
       gpu_sum(ARRAY[1e-45, 1e-45]::real[]) AS real_subnormals;

-- random data of every magnitude against the exact reference
CREATE TABLE wide_arrays AS
  SELECT k, array_agg((random() - 0.5) * 2 ^ (floor(random() * 2000) - 1000)::int ORDER BY g) AS a
  FROM generate_series(1, 8) k, generate_series(1, 150) g
  GROUP BY k;
SELECT k, same_float8(gpu_sum(a), exact_sum_reference(a)) AS exact
FROM wide_arrays ORDER BY k;
CREATE TABLE mixed_arrays AS
  SELECT k, array_agg(CASE g % 5
                        WHEN 0 THEN (random() - 0.5) * 1e16
                        WHEN 1 THEN (random() - 0.5)
                        WHEN 2 THEN (random() - 0.5) * 1e-300
                        WHEN 3 THEN (random() - 0.5) * 1e-310
                        ELSE -(random() - 0.5) * 1e16 END ORDER BY g) AS a
  FROM generate_series(1, 6) k, generate_series(1, 200) g
  GROUP BY k;
SELECT k, same_float8(gpu_sum(a), exact_sum_reference(a)) AS exact
FROM mixed_arrays ORDER BY k;
CREATE TABLE mixed_real_arrays AS
  SELECT k, array_agg(CASE g % 4
                        WHEN 0 THEN (random() - 0.5) * 1e7
                        WHEN 1 THEN (random() - 0.5)
                        WHEN 2 THEN (random() - 0.5) * 1e-30
                        ELSE (random() - 0.5) * 1e-40 END::real ORDER BY g) AS a
  FROM generate_series(1, 6) k, generate_series(1, 200) g
  GROUP BY k;
SELECT k, same_float8(gpu_sum(a), exact_sum_reference(a::float8[])) AS exact_real
FROM mixed_real_arrays ORDER BY k;

-- order does not matter: the same bits for any permutation
CREATE TABLE big_random AS
  SELECT array_agg(random() * 1e6 - 5e5 ORDER BY g) AS a
  FROM generate_series(1, 300000) g;
SELECT same_float8(gpu_sum(a), gpu_sum(ARRAY(SELECT x FROM unnest(a) x ORDER BY x))) AS sorted_same,
       same_float8(gpu_sum(a), gpu_sum(ARRAY(SELECT x FROM unnest(a) WITH ORDINALITY u(x, i) ORDER BY i DESC))) AS reversed_same
FROM big_random;
-- and it is the exact sum (checked through numeric on a slice)
SELECT same_float8(gpu_sum(a[1:5000]), exact_sum_reference(a[1:5000])) AS slice_exact
FROM big_random;

-- large stored arrays (over 8 MB, out of line, uncompressed) are read in
-- TOAST slices and summed slice by slice: the same bits as the same array
-- in memory (a[1:n] is a fetched copy), double precision and real, with
-- lengths that are not a multiple of a slice; rows of other shapes are
-- fetched whole as before: compressed, with a NULL, two-dimensional
CREATE TABLE stored_arrays (k text, a float8[], r real[]);
ALTER TABLE stored_arrays ALTER COLUMN a SET STORAGE EXTERNAL,
                          ALTER COLUMN r SET STORAGE EXTERNAL;
INSERT INTO stored_arrays
  SELECT 'random', array_agg((random() - 0.5) * 10 ^ (g % 37 - 18) ORDER BY g),
         array_agg(((random() - 0.5) * 10 ^ (g % 23 - 11))::real ORDER BY g)
  FROM generate_series(1, 2200007) g;
INSERT INTO stored_arrays
  SELECT 'cancelling', array_agg(CASE g % 3 WHEN 0 THEN 1e300 WHEN 1 THEN -1e300 ELSE 0.5 END ORDER BY g),
         array_agg((CASE g % 2 WHEN 0 THEN 1e30 ELSE -1e30 END)::real ORDER BY g)
  FROM generate_series(1, 2097153) g;
SELECT k, pg_column_size(a) > 8 * 1024 * 1024 AS large, pg_column_size(r) > 8 * 1024 * 1024 AS large_real,
       same_float8(gpu_sum(a), gpu_sum(a[1:cardinality(a)])) AS streamed_same,
       same_float8(gpu_sum(r), gpu_sum(r[1:cardinality(r)])) AS streamed_same_real
FROM stored_arrays ORDER BY k;
CREATE TEMP TABLE streamed_sums AS SELECT k, gpu_sum(a) AS s, gpu_sum(r) AS sr FROM stored_arrays;
SET gpuscan.fetch_stored_arrays = off;
SELECT k, same_float8(gpu_sum(a), s) AND same_float8(gpu_sum(r), sr) AS fetched_whole_same
FROM stored_arrays JOIN streamed_sums USING (k) ORDER BY k;
RESET gpuscan.fetch_stored_arrays;
SELECT gpu_sum(a) AS cancelling_sum, gpu_sum(r) AS cancelling_sum_real
FROM stored_arrays WHERE k = 'cancelling';
UPDATE stored_arrays SET a = a || NULL::float8 WHERE k = 'random';
SELECT error_of($$SELECT gpu_sum(a) FROM stored_arrays WHERE k = 'random'$$) AS with_null;
DELETE FROM stored_arrays WHERE k = 'random';
INSERT INTO stored_arrays
  SELECT 'two dimensions', array_fill(1.0::float8, ARRAY[1100, 1100]), NULL;
SELECT error_of($$SELECT gpu_sum(a) FROM stored_arrays WHERE k = 'two dimensions'$$) AS two_dimensions;
ALTER TABLE stored_arrays ALTER COLUMN a SET STORAGE EXTENDED;
INSERT INTO stored_arrays SELECT 'compressed', array_fill(0.25::float8, ARRAY[2200000]), NULL;
SELECT pg_column_size(a) < 8 * 1024 * 1024 AS compressed, gpu_sum(a) AS compressed_sum
FROM stored_arrays WHERE k = 'compressed';

-- lengths around the slices: a slice is a chunk (chunks.h), with chunks of
-- 1 MB 130816 doubles on both paths; nine slices and one element either
-- way, each stored array read in slices giving the bits of the same array
-- in memory
SET gpuscan.debug_chunk_size = '1MB';
CREATE TABLE stored_lengths (n int, a float8[]);
ALTER TABLE stored_lengths ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO stored_lengths
  SELECT n, (SELECT array_agg(((g * 2654435761::bigint) % 1000003)::float8 * 10 ^ (g % 9 - 4) ORDER BY g)
             FROM generate_series(1, n) g)
  FROM unnest('{1177343, 1177344, 1177345}'::int[]) n;
SELECT n, pg_column_size(a) >= 8 * 1024 * 1024 AS read_in_slices,
       same_float8(gpu_sum(a), gpu_sum(a[1:n])) AS same_as_in_memory
FROM stored_lengths ORDER BY n;
RESET gpuscan.debug_chunk_size;

SELECT took_expected_path('gpu_sum') AS expected_path;
DROP TABLE int_arrays, wide_arrays, mixed_arrays, mixed_real_arrays, big_random, stored_arrays,
  stored_lengths;
