-- Stream compaction: gpu_compact (rows), gpu_compact_array, and the
-- positions, gpu_compact_indices and gpu_compact_indices_array, against
-- the SQL formulation over unnest(...) WITH ORDINALITY ... WHERE.  Values
-- are copied, never computed, so every comparison is exact: the same
-- output on the CPU and the GPU path.
SELECT setseed(0.25);

-- The reference: kept values in order, '{}' when none.
CREATE FUNCTION compact_reference(vals float8[], keep boolean[]) RETURNS float8[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(v ORDER BY i), '{}')
  FROM unnest(vals, keep) WITH ORDINALITY AS u(v, k, i) WHERE k
$$;
CREATE FUNCTION indices_reference(keep boolean[]) RETURNS int[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(i::int ORDER BY i), '{}')
  FROM unnest(keep) WITH ORDINALITY AS u(k, i) WHERE k
$$;

-- ---------------------------------------------------------------------------
-- small cases
-- ---------------------------------------------------------------------------
SELECT * FROM gpu_compact(ARRAY[1, 2, 3, 4, 5]::float8[], ARRAY[true, false, true, false, true])
  WITH ORDINALITY AS t(v, i);
SELECT gpu_compact(ARRAY[1.5, 2.5, 3.5]::real[], ARRAY[false, true, true]) AS in_select_list;
SELECT gpu_compact_array(ARRAY[1, 2, 3]::float8[], ARRAY[true, true, true]) AS all_kept,
       gpu_compact_array(ARRAY[1, 2, 3]::float8[], ARRAY[false, false, false]) AS none_kept,
       gpu_compact_array(ARRAY[1, 2, 3, 4]::real[], ARRAY[false, true, false, true]) AS alternating_real;
SELECT count(*) AS none_kept_rows FROM gpu_compact(ARRAY[1, 2]::float8[], ARRAY[false, false]);
-- NULL in keep counts as false
SELECT gpu_compact_array(ARRAY[1, 2, 3, 4]::float8[], ARRAY[NULL, true, NULL, true]) AS null_keep,
       gpu_compact_array(ARRAY[1, 2]::float8[], ARRAY[NULL, NULL]::boolean[]) AS all_null_keep,
       gpu_compact_indices_array(ARRAY[true, NULL, false, true]) AS null_keep_indices;
-- empty input, NULL arguments (STRICT)
SELECT gpu_compact_array('{}'::float8[], '{}') AS empty, gpu_compact_array('{}'::real[], '{}') AS empty_real,
       gpu_compact_indices_array('{}') AS empty_indices,
       gpu_compact_array(NULL::float8[], '{true}') IS NULL AS strict_vals,
       gpu_compact_array('{1}'::float8[], NULL) IS NULL AS strict_keep;
SELECT count(*) AS empty_rows FROM gpu_compact('{}'::float8[], '{}');
SELECT count(*) AS empty_index_rows FROM gpu_compact_indices('{}');
-- the results start at 1; positions count from 1 whatever the lower bound
SELECT gpu_compact_array('[0:3]={10,20,30,40}'::float8[], '[0:3]={f,t,f,t}') AS lower_bound,
       array_lower(gpu_compact_array('[5:6]={1,2}'::float8[], '{t,t}'), 1) AS result_lower_bound,
       gpu_compact_indices_array('[0:3]={f,t,f,t}') AS indices_lower_bound;
-- values are copied bit for bit: -0, NaN, infinities, denormals
SELECT array_agg(float8send(v) ORDER BY i) = ARRAY[float8send('-0'), float8send('NaN'),
         float8send('-Infinity'), float8send(4.9e-324)] AS bits_kept
FROM gpu_compact(ARRAY['-0', 1, 'NaN', '-Infinity', 2, 4.9e-324]::float8[],
                 ARRAY[true, false, true, true, false, true]) WITH ORDINALITY AS t(v, i);
SELECT float4send((gpu_compact_array(ARRAY['-0', 'Infinity']::real[], ARRAY[true, false]))[1])
       = float4send('-0'::real) AS real_negative_zero;
-- positions as rows
SELECT * FROM gpu_compact_indices(ARRAY[false, true, true, false, true]) AS t(position);
SELECT gpu_compact_indices(ARRAY[true, false, true]) AS in_select_list;
-- compacting two parallel arrays by one predicate
SELECT array_agg(names[p] ORDER BY p) AS names, array_agg(scores[p] ORDER BY p) AS scores
FROM (SELECT ARRAY['ann', 'bob', 'cy', 'dee'] AS names, ARRAY[90, 45, 72, 30] AS scores) t,
     gpu_compact_indices((SELECT array_agg(s >= 50 ORDER BY i)
                          FROM unnest(t.scores) WITH ORDINALITY AS u(s, i))) AS p;

-- ---------------------------------------------------------------------------
-- errors
-- ---------------------------------------------------------------------------
SELECT gpu_compact_array(ARRAY[1, 2, 3]::float8[], ARRAY[true, false]);
SELECT * FROM gpu_compact(ARRAY[1]::real[], '{}');
SELECT gpu_compact_array(ARRAY[1, NULL, 3]::float8[], ARRAY[true, false, true]);
SELECT gpu_compact_array(ARRAY[1, NULL]::float8[], ARRAY[true, false]);
SELECT gpu_compact_array('{{1,2},{3,4}}'::float8[], '{t,t,t,t}');
SELECT gpu_compact_indices_array('{{t,f},{f,t}}');

-- ---------------------------------------------------------------------------
-- random data and patterns, lengths around warp, tile and block sizes
-- ---------------------------------------------------------------------------
CREATE TABLE compact_inputs AS
  SELECT n, pattern,
         array_agg(random() * 1000 - 500 ORDER BY g) AS a,
         array_agg(CASE pattern
                     WHEN 'random half' THEN random() < 0.5
                     WHEN 'one in 17' THEN g % 17 = 0
                     WHEN 'thirty in 31' THEN g % 31 <> 0
                     WHEN 'long runs' THEN (g / 5000) % 2 = 0
                     WHEN 'nulls' THEN CASE WHEN g % 3 = 0 THEN NULL ELSE g % 2 = 0 END
                     WHEN 'all' THEN true
                     ELSE false END ORDER BY g) AS k
  FROM unnest(ARRAY[1, 2, 31, 32, 33, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8193,
                    12287, 12288, 12289, 24577, 65537]) n,
       unnest(ARRAY['random half', 'one in 17', 'thirty in 31', 'long runs', 'nulls',
                    'all', 'none']) pattern,
       generate_series(1, n) g
  GROUP BY n, pattern;
SELECT pattern,
       bool_and(gpu_compact_array(a, k) = compact_reference(a, k)) AS array_matches,
       bool_and((SELECT coalesce(array_agg(v ORDER BY i), '{}') FROM gpu_compact(a, k)
                 WITH ORDINALITY AS t(v, i)) = compact_reference(a, k)) AS rows_match,
       bool_and(gpu_compact_array(a::real[], k) = compact_reference(a::real[]::float8[], k)::real[])
         AS real_matches,
       bool_and(gpu_compact_indices_array(k) = indices_reference(k)) AS indices_match,
       bool_and((SELECT coalesce(array_agg(p ORDER BY p), '{}') FROM gpu_compact_indices(k) p)
                = indices_reference(k)) AS index_rows_match,
       count(*) AS arrays
FROM compact_inputs GROUP BY pattern ORDER BY pattern;

-- ---------------------------------------------------------------------------
-- across the GPU path's chunks (16M elements): every third value of 1..n
-- ---------------------------------------------------------------------------
CREATE TABLE long_input AS
  SELECT gpu_prefix_sum_array(array_fill(1::float8, ARRAY[16777221])) AS a,
         (SELECT array_agg(g % 3 = 0 ORDER BY g) FROM generate_series(1, 16777221) g) AS k;
SELECT cardinality(c) AS kept,
       c = (SELECT array_agg(g::float8 ORDER BY g) FROM generate_series(3, 16777221, 3) g) AS values_match,
       gpu_compact_indices_array(k) = c::int[] AS indices_match,
       gpu_compact_array(a::real[], k) = c::real[] AS real_matches
FROM (SELECT gpu_compact_array(a, k) AS c, k, a FROM long_input) t;
DROP TABLE long_input;

-- a large stored argument (over 8 MB, out of line, uncompressed) is fetched
-- by gpuscan itself (into huge pages): the same results as in memory
CREATE TABLE stored_compact (a float8[], k boolean[]);
ALTER TABLE stored_compact ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO stored_compact SELECT array_agg(g::float8 ORDER BY g), array_agg(random() < 0.5 ORDER BY g)
  FROM generate_series(1, 1100003) g;
SELECT pg_column_size(a) > 8 * 1024 * 1024 AS large,
       gpu_compact_array(a, k) = gpu_compact_array(a[1:cardinality(a)], k) AS stored_same,
       cardinality(gpu_compact_array(a, k)) = (SELECT count(*) FROM unnest(k) f WHERE f) AS kept_count,
       (SELECT count(*) FROM gpu_compact(a, k)) = (SELECT count(*) FROM unnest(k) f WHERE f) AS kept_rows
FROM stored_compact;
DROP TABLE stored_compact;

SELECT took_expected_path('gpu_compact') AS expected_path_rows,
       took_expected_path('gpu_compact_array') AS expected_path_array,
       took_expected_path('gpu_compact_indices') AS expected_path_index_rows,
       took_expected_path('gpu_compact_indices_array') AS expected_path_indices;
