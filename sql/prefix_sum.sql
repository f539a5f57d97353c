-- Prefix sums: gpu_prefix_sum (rows), gpu_prefix_sum_array and the window
-- function gpu_running_sum.  Every output is the exact prefix sum rounded
-- once, so the results are printed as booleans or exact values: the same on
-- the CPU and the GPU path.
SELECT setseed(0.75);

-- The reference: the exact running sum in numeric (float8_exact), rounded
-- once per prefix with the IEEE rules of exact_sum_reference (setup.sql).
CREATE FUNCTION exact_prefix_reference(a float8[], exclusive boolean DEFAULT false)
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  s numeric := 0;
  x float8;
  nan bool := false;
  pos_inf bool := false;
  neg_inf bool := false;
  only_negzero bool := false;   -- the empty sum is +0
  overflow numeric := float8_exact('1.7976931348623157e308') + 2::numeric ^ 970;
  result float8[] := '{}';
  r float8;
  i int := 0;
BEGIN
  FOREACH x IN ARRAY a LOOP
    i := i + 1;
    IF NOT exclusive THEN
      IF x = 'NaN'::float8 THEN nan := true;
      ELSIF x = 'Infinity'::float8 THEN pos_inf := true;
      ELSIF x = '-Infinity'::float8 THEN neg_inf := true;
      ELSE
        only_negzero := (i = 1 OR only_negzero) AND float8send(x) = float8send('-0'::float8);
        s := s + float8_exact(x);
      END IF;
    END IF;
    r := CASE WHEN nan OR (pos_inf AND neg_inf) THEN 'NaN'::float8
              WHEN pos_inf THEN 'Infinity'::float8
              WHEN neg_inf THEN '-Infinity'::float8
              WHEN s = 0 THEN CASE WHEN only_negzero THEN '-0'::float8 ELSE 0 END
              WHEN s >= overflow THEN 'Infinity'::float8
              WHEN s <= -overflow THEN '-Infinity'::float8
              ELSE s::float8 END;
    result[i] := r;
    IF exclusive THEN
      IF x = 'NaN'::float8 THEN nan := true;
      ELSIF x = 'Infinity'::float8 THEN pos_inf := true;
      ELSIF x = '-Infinity'::float8 THEN neg_inf := true;
      ELSE
        only_negzero := (i = 1 OR only_negzero) AND float8send(x) = float8send('-0'::float8);
        s := s + float8_exact(x);
      END IF;
    END IF;
  END LOOP;
  RETURN result;
END
$$;

-- Element by element the same bits (NaN equals NaN), and the same length.
CREATE FUNCTION same_float8_arrays(a float8[], b float8[]) RETURNS bool
LANGUAGE sql IMMUTABLE AS $$
  SELECT cardinality(a) = cardinality(b) AND
         coalesce(bool_and(same_float8(x, y)), true)
  FROM unnest(a, b) u(x, y)
$$;

-- ---------------------------------------------------------------------------
-- small cases, one row per element and as arrays
-- ---------------------------------------------------------------------------
SELECT * FROM gpu_prefix_sum(ARRAY[1, 2, 3, 4.5]::float8[]) WITH ORDINALITY AS t(s, i);
SELECT * FROM gpu_prefix_sum(ARRAY[1, 2, 3, 4.5]::float8[], exclusive => true) WITH ORDINALITY AS t(s, i);
SELECT gpu_prefix_sum(ARRAY[1.5, 2.25, -0.125]::real[]) AS in_select_list;
SELECT count(*) AS empty_rows FROM gpu_prefix_sum('{}'::float8[]);
SELECT count(*) AS empty_rows_real FROM gpu_prefix_sum('{}'::real[], true);
SELECT count(*) AS strict_null FROM gpu_prefix_sum(NULL::float8[]);
SELECT count(*) AS strict_null_exclusive FROM gpu_prefix_sum(ARRAY[1]::float8[], NULL);
SELECT gpu_prefix_sum_array('{}'::float8[]) AS empty, gpu_prefix_sum_array('{}'::real[]) AS empty_real,
       gpu_prefix_sum_array(NULL::float8[]) IS NULL AS strict_null;
SELECT gpu_prefix_sum_array(ARRAY[42.5]::float8[]) AS single,
       gpu_prefix_sum_array(ARRAY[42.5]::float8[], true) AS single_exclusive;
-- the result keeps the input's lower bound
SELECT gpu_prefix_sum_array('[5:8]={1,2,3,4}'::float8[]) AS lower_bound,
       gpu_prefix_sum_array('[-2:0]={0.5,0.25,0.125}'::real[], true) AS lower_bound_exclusive;
-- chaining: the prefix sums of the prefix sums
SELECT gpu_prefix_sum_array(gpu_prefix_sum_array(ARRAY[1, 1, 1, 1, 1]::float8[])) AS chained;

-- cancellation: the sequential float8 running sum loses the 1
SELECT s AS exact, q.seq AS sequential
FROM gpu_prefix_sum(ARRAY[1e16, 1, -1e16]::float8[]) WITH ORDINALITY AS t(s, i)
JOIN (SELECT i, sum(x) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) AS seq
      FROM unnest(ARRAY[1e16, 1, -1e16]::float8[]) WITH ORDINALITY AS u(x, i)) q USING (i)
ORDER BY i;
-- ten times 0.1: exactly 1 once rounded
SELECT (gpu_prefix_sum_array(array_fill(0.1::float8, ARRAY[10])))[10] AS ten_tenths;

-- IEEE rules for every prefix: signed zeros, Inf, NaN, overflow and back
SELECT array_agg(float8send(s) ORDER BY i) AS signed_zeros
FROM gpu_prefix_sum(ARRAY['-0', '-0', '0', '-0']::float8[]) WITH ORDINALITY AS t(s, i);
SELECT float8send(s) AS exclusive_first_is_plus_zero
FROM gpu_prefix_sum(ARRAY['-0']::float8[], true) AS t(s);
SELECT gpu_prefix_sum_array(ARRAY[1, 'Infinity', 1, '-Infinity', 1]::float8[]) AS inf_then_nan,
       gpu_prefix_sum_array(ARRAY[1, 'NaN', 2]::float8[]) AS nan,
       gpu_prefix_sum_array(ARRAY['-Infinity', 1, 2]::float8[], true) AS exclusive_inf;
SELECT gpu_prefix_sum_array(ARRAY[1.7976931348623157e308, 1.7976931348623157e308,
                                  -1.7976931348623157e308]::float8[]) AS overflow_and_back;
SELECT gpu_prefix_sum_array(ARRAY[5e-324, 5e-324, 1e-310, -1e-310]::float8[]) AS subnormals;
SELECT gpu_prefix_sum_array(ARRAY[3.4028235e38, 3.4028235e38, 'NaN']::real[]) AS real_beyond_float;
-- ties: 2^53 + 1 + 1 + 1 rounds to even at every prefix
SELECT gpu_prefix_sum_array(ARRAY[9007199254740992, 1, 1, 1]::float8[]) AS ties_to_even;

-- ---------------------------------------------------------------------------
-- integer-valued data: exact on every path, so equal to sum() OVER;
-- lengths around warp, tile and chunk sizes
-- ---------------------------------------------------------------------------
CREATE TABLE int_arrays AS
  SELECT n, array_agg(floor(random() * 2000001 - 1000000)::float8 ORDER BY g) AS a
  FROM unnest(ARRAY[1, 2, 31, 32, 33, 1023, 1024, 1025, 4095, 4096, 4097, 65537, 1048583]) n,
       generate_series(1, n) g
  GROUP BY n;
SELECT n,
       gpu_prefix_sum_array(a) = (SELECT array_agg(s ORDER BY i) FROM
         (SELECT i, sum(x) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) AS s
          FROM unnest(a) WITH ORDINALITY u(x, i)) q) AS inclusive_matches,
       gpu_prefix_sum_array(a, true) = (SELECT array_agg(coalesce(s, 0) ORDER BY i) FROM
         (SELECT i, sum(x) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS s
          FROM unnest(a) WITH ORDINALITY u(x, i)) q) AS exclusive_matches,
       gpu_prefix_sum_array(a::real[]) = gpu_prefix_sum_array(a) AS real_matches,
       (SELECT bool_and(s = w) FROM
         (SELECT s, i FROM gpu_prefix_sum(a) WITH ORDINALITY t(s, i)) p JOIN
         (SELECT i, sum(x) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) AS w
          FROM unnest(a) WITH ORDINALITY u(x, i)) q USING (i)) AS rows_match
FROM int_arrays ORDER BY n;

-- the last inclusive prefix is gpu_sum; exclusive is inclusive shifted by one
SELECT n,
       same_float8((gpu_prefix_sum_array(a))[n], gpu_sum(a)) AS last_is_sum,
       (gpu_prefix_sum_array(a, true))[1] = 0 AND
         (gpu_prefix_sum_array(a, true))[2:n] = (gpu_prefix_sum_array(a))[1:n - 1] AS shifted
FROM int_arrays ORDER BY n;

-- ---------------------------------------------------------------------------
-- random data against the exact reference, lengths around tile sizes
-- ---------------------------------------------------------------------------
CREATE TABLE random_arrays AS
  SELECT n, kind,
         array_agg(CASE kind
                     WHEN 'uniform' THEN random() * 1000 - 500
                     WHEN 'magnitudes' THEN (random() - 0.5) * 2 ^ (floor(random() * 80) - 40)::int
                     ELSE CASE g % 4 WHEN 0 THEN (random() - 0.5) * 1e16
                                     WHEN 1 THEN random() - 0.5
                                     WHEN 2 THEN (random() - 0.5) * 1e-300
                                     ELSE -(random() - 0.5) * 1e16 END
                   END ORDER BY g) AS a
  FROM unnest(ARRAY[31, 32, 33, 1023, 1024, 1025, 4095, 4096, 4097]) n,
       unnest(ARRAY['uniform', 'magnitudes', 'cancelling']) kind,
       generate_series(1, n) g
  GROUP BY n, kind;
SELECT kind, bool_and(same_float8_arrays(gpu_prefix_sum_array(a), exact_prefix_reference(a))) AS inclusive_exact,
       bool_and(same_float8_arrays(gpu_prefix_sum_array(a, true), exact_prefix_reference(a, true))) AS exclusive_exact,
       bool_and(same_float8((gpu_prefix_sum_array(a))[n], gpu_sum(a))) AS last_is_sum,
       count(*) AS arrays
FROM random_arrays GROUP BY kind ORDER BY kind;
-- real[]: floats widen exactly
SELECT kind, bool_and(same_float8_arrays(gpu_prefix_sum_array(a::real[]),
                                         exact_prefix_reference(a::real[]::float8[]))) AS real_exact
FROM random_arrays WHERE n IN (33, 1025, 4097) AND kind <> 'cancelling'
GROUP BY kind ORDER BY kind;
-- one row per element from the select list (value per call) and from FROM
-- (materialized) give the same values
SELECT bool_and(same_float8_arrays(ARRAY(SELECT gpu_prefix_sum(a)), gpu_prefix_sum_array(a)) AND
                same_float8_arrays(ARRAY(SELECT gpu_prefix_sum(a::real[], true)),
                                   gpu_prefix_sum_array(a::real[], true))) AS select_list_same
FROM random_arrays WHERE kind <> 'cancelling';
-- the rows and the array agree
SELECT bool_and(same_float8_arrays(ARRAY(SELECT s FROM gpu_prefix_sum(a) WITH ORDINALITY t(s, i) ORDER BY i),
                                   gpu_prefix_sum_array(a))) AS rows_equal_array
FROM random_arrays;

-- specials mixed into random data
CREATE TABLE special_arrays AS
  SELECT k, array_agg(CASE WHEN g = k * 7 THEN (ARRAY['Infinity', '-Infinity', 'NaN', '-0', '1e308'])[k]::float8
                           WHEN g = k * 11 THEN (ARRAY['-Infinity', '1e308', '1', '-0', '1e308'])[k]::float8
                           WHEN k = 4 THEN '-0'::float8
                           ELSE random() - 0.5 END ORDER BY g) AS a
  FROM generate_series(1, 5) k, generate_series(1, 100) g
  GROUP BY k;
SELECT k, same_float8_arrays(gpu_prefix_sum_array(a), exact_prefix_reference(a)) AS inclusive_exact,
       same_float8_arrays(gpu_prefix_sum_array(a, true), exact_prefix_reference(a, true)) AS exclusive_exact
FROM special_arrays ORDER BY k;

-- ---------------------------------------------------------------------------
-- accuracy: at least as close to the exact value as PostgreSQL's sequential
-- running sum, for every row (true by construction: it is the closest double)
-- ---------------------------------------------------------------------------
CREATE TABLE accuracy_rows AS
  SELECT g AS i, (random() - 0.5) * 10 ^ (floor(random() * 12) - 6) AS x
  FROM generate_series(1, 20000) g;
WITH ours AS (
  SELECT i, s FROM gpu_prefix_sum((SELECT array_agg(x ORDER BY i) FROM accuracy_rows))
               WITH ORDINALITY t(s, i)),
     seq AS (
  SELECT i, sum(x) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) AS s,
         sum(float8_exact(x)) OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) AS exact
  FROM accuracy_rows)
SELECT bool_and(abs(float8_exact(ours.s) - seq.exact) <= abs(float8_exact(seq.s) - seq.exact)) AS never_worse,
       bool_and(ours.s = seq.exact::float8) AS correctly_rounded,
       count(*) FILTER (WHERE seq.s <> seq.exact::float8) > 0 AS sequential_sometimes_off,
       count(*) AS rows
FROM ours JOIN seq USING (i);

-- ---------------------------------------------------------------------------
-- gpu_running_sum: the window function
-- ---------------------------------------------------------------------------
CREATE TABLE win_rows AS
  SELECT g AS id,
         CASE WHEN g <= 30000 THEN g % 13         -- partitions of about 2300 rows
              WHEN g <= 30100 THEN 100            -- 100 rows
              WHEN g <= 30101 THEN 101            -- one row
              WHEN g <= 30166 THEN 102            -- 65 rows: over the first chunk
              ELSE 103 END AS grp,                -- 20000 rows: over a full chunk
         g % 5 AS tie,
         CASE WHEN g % 17 = 0 OR g BETWEEN 30101 AND 30110 THEN NULL
              ELSE (random() - 0.5) * 10 ^ (floor(random() * 16) - 8) END AS x,
         floor(random() * 2001 - 1000)::float8 AS n
  FROM generate_series(1, 50166) g;

-- integer data: the same as sum() OVER, within partitions
SELECT bool_and(r = s) AS matches_sum, count(*) AS rows
FROM (SELECT gpu_running_sum(n) OVER w AS r,
             sum(n) OVER (w ROWS UNBOUNDED PRECEDING) AS s
      FROM win_rows WINDOW w AS (PARTITION BY grp ORDER BY id)) q;
SELECT bool_and(r = s) AS matches_sum_real
FROM (SELECT gpu_running_sum(n::real) OVER w AS r,
             sum(n::real::float8) OVER (w ROWS UNBOUNDED PRECEDING) AS s
      FROM win_rows WINDOW w AS (PARTITION BY grp ORDER BY id)) q;

-- random data with NULLs and ties in ORDER BY (broken by id): the exact
-- running sum of the non-NULL values rounded once, NULL before the first
SELECT grp, bool_and(coalesce(same_float8(r, e), (r IS NULL) = (e IS NULL))) AS exact,
       count(*) FILTER (WHERE r IS NULL) AS null_rows, count(*) AS rows
FROM (SELECT grp,
             gpu_running_sum(x) OVER w AS r,
             (sum(float8_exact(x)) OVER (w ROWS UNBOUNDED PRECEDING))::float8 AS e
      FROM win_rows WINDOW w AS (PARTITION BY grp ORDER BY tie, id)) q
GROUP BY grp ORDER BY grp;
SELECT bool_and(coalesce(same_float8(r, e), (r IS NULL) = (e IS NULL))) AS exact_real
FROM (SELECT gpu_running_sum(x::real) OVER w AS r,
             (sum(float8_exact(x::real)) OVER (w ROWS UNBOUNDED PRECEDING))::float8 AS e
      FROM win_rows WINDOW w AS (PARTITION BY grp ORDER BY id)) q;

-- one big partition: the last row is gpu_sum of the column
SELECT same_float8(last_r, total) AS last_is_sum
FROM (SELECT gpu_running_sum(x) OVER (ORDER BY id) AS last_r
      FROM win_rows ORDER BY id DESC LIMIT 1) a,
     (SELECT gpu_sum(x) AS total FROM win_rows) b;

-- the frame clause does not matter: always from the partition's start
-- through the current row
SELECT id, x, gpu_running_sum(x) OVER (ORDER BY id) AS default_frame,
       gpu_running_sum(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS other_frame,
       gpu_running_sum(x) OVER () AS no_order
FROM (VALUES (1, NULL::float8), (2, 1e16), (3, 1), (4, NULL), (5, -1e16), (6, 0.5)) v(id, x)
ORDER BY id;
-- no rows, all-NULL partitions, and a partition that starts with NULLs
SELECT gpu_running_sum(x) OVER () FROM win_rows WHERE false;
SELECT g, v, gpu_running_sum(v) OVER (PARTITION BY g ORDER BY i) AS r
FROM (VALUES (1, 1, NULL::float8), (1, 2, NULL), (2, 1, NULL), (2, 2, 2.5), (2, 3, NULL),
             (2, 4, -2.5), (3, 1, 0.25)) t(g, i, v)
ORDER BY g, i;
-- 70 NULL rows (more than the first chunk) before the first value, and
-- NULL rows between the values and after the last
SELECT count(*) FILTER (WHERE r IS NULL) AS null_rows, min(r) AS first, max(r) AS last,
       count(DISTINCT r) AS distinct_sums
FROM (SELECT gpu_running_sum(CASE WHEN i > 70 AND i % 3 <> 0 AND i < 150 THEN i::float8 END)
             OVER (ORDER BY i) AS r
      FROM generate_series(1, 200) i) q;
SELECT float8send(gpu_running_sum(v) OVER (ORDER BY i)) AS signed_zeros
FROM (VALUES (1, '-0'::float8), (2, NULL), (3, '-0'), (4, '0')) t(i, v) ORDER BY i;

-- ---------------------------------------------------------------------------
-- errors
-- ---------------------------------------------------------------------------
\set VERBOSITY default
SELECT * FROM gpu_prefix_sum(ARRAY[1, NULL, 3]::float8[]);
SELECT gpu_prefix_sum_array('[0:2]={1,2,NULL}'::real[]);
SELECT * FROM gpu_prefix_sum(ARRAY[[1, 2], [3, 4]]::float8[]);
SELECT gpu_prefix_sum_array(ARRAY[[1.5]]::real[], true);
\set VERBOSITY terse

-- a large stored array (over 8 MB, out of line, uncompressed) is fetched by
-- gpuscan itself (into huge pages): the same result as the same array in
-- memory, as an array and as rows
CREATE TABLE stored_scan (a float8[]);
ALTER TABLE stored_scan ALTER COLUMN a SET STORAGE EXTERNAL;
INSERT INTO stored_scan SELECT array_agg((random() - 0.5) * 10 ^ (g % 29 - 14) ORDER BY g)
  FROM generate_series(1, 1100003) g;
SELECT pg_column_size(a) > 8 * 1024 * 1024 AS large,
       gpu_prefix_sum_array(a, false) = gpu_prefix_sum_array(a[1:cardinality(a)], false) AS stored_same,
       gpu_prefix_sum_array(a, true) = gpu_prefix_sum_array(a[1:cardinality(a)], true) AS stored_same_exclusive,
       (SELECT count(*) FROM gpu_prefix_sum(a, false)) AS rows
FROM stored_scan;
DROP TABLE stored_scan;

SELECT took_expected_path('gpu_prefix_sum') AS expected_path_rows,
       took_expected_path('gpu_prefix_sum_array') AS expected_path_array,
       took_expected_path('gpu_running_sum') AS expected_path_window;
DROP TABLE int_arrays, random_arrays, special_arrays, accuracy_rows, win_rows;
DROP FUNCTION exact_prefix_reference(float8[], boolean), same_float8_arrays(float8[], float8[]);
