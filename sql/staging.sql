-- Chunked calls.  Long inputs go chunk by chunk: on the GPU path each chunk
-- through a slot of the GPU service's staging area (copied in by the copy
-- threads while the service works on the chunk before, its results copied
-- out as they come back), on the CPU path with the same number of elements
-- a chunk.  A chunk's room is gpuscan.debug_chunk_size less 256 bytes for a
-- count; a function that puts b bytes of each element into it takes
-- floor(room / b / 256) * 256 elements a chunk.  With 64 kB chunks: 7936 for sums and prefix sums of double precision and for every
-- prefix sum (double precision results), 16128 for sums of real and for
-- positions, 7168 for compaction of double precision (8 bytes and a flag),
-- 13056 for compaction of real.  (Stored arrays stay in the session here:
-- the GPU service's cache has tests of its own.)
SET gpuscan.cache = off;
SET gpuscan.debug_chunk_size = '64kB';
SET gpuscan.copy_threads = 2;
CREATE FUNCTION pg_temp.chunk(bytes int) RETURNS int
LANGUAGE sql AS $$ SELECT ((64 * 1024 - 256) / bytes) / 256 * 256 $$;
SELECT pg_temp.chunk(8) AS f8, pg_temp.chunk(4) AS f4, pg_temp.chunk(9) AS compact_f8,
       pg_temp.chunk(5) AS compact_f4;

-- Values every path adds exactly (multiples of 1/4, small), each different
-- from its neighbours, so that a chunk lost, repeated or out of place
-- changes the results; their running sums, exact in float8 too, are the
-- reference for the prefix sums; k keeps two elements in three.
CREATE TEMP TABLE vals AS
SELECT i, v8, v4, k, sum(v8) OVER w AS run8, sum(v4::float8) OVER w AS run4
FROM (SELECT i, ((i * 7919) % 10007) / 4.0::float8 - 1000 AS v8,
             (((i * 7919) % 1009) / 4.0 - 100)::real AS v4,
             (i * 7919) % 3 <> 0 AS k
      FROM generate_series(1, 3 * 16128 + 5) i) s
WINDOW w AS (ORDER BY i);

-- one element short of a chunk, a chunk, one over, and three chunks and a bit
CREATE TEMP TABLE lengths AS
SELECT DISTINCT c + d AS len
FROM unnest(ARRAY[pg_temp.chunk(8), pg_temp.chunk(4), pg_temp.chunk(9), pg_temp.chunk(5)]) c,
     unnest(ARRAY[-1, 0, 1]) d
UNION SELECT 3 * c + 5 FROM unnest(ARRAY[pg_temp.chunk(8), pg_temp.chunk(4), pg_temp.chunk(9), pg_temp.chunk(5)]) c;
CREATE TEMP TABLE arrays AS
SELECT len, array_agg(v8 ORDER BY i) AS a8, array_agg(v4 ORDER BY i) AS a4,
       array_agg(k ORDER BY i) AS k, sum(v8::numeric) AS s8, sum(v4::numeric) AS s4,
       array_agg(v8 ORDER BY i) FILTER (WHERE k) AS kept8,
       array_agg(v4 ORDER BY i) FILTER (WHERE k) AS kept4,
       array_agg(i ORDER BY i) FILTER (WHERE k) AS kept_at
FROM lengths, vals WHERE i <= len GROUP BY len;

-- sums
SELECT len, gpu_sum(a8) = s8 AS sum_f8, gpu_sum(a4) = s4 AS sum_f4
FROM arrays ORDER BY len;

-- prefix sums, inclusive and exclusive: every element against the reference
SELECT len,
       (SELECT count(*) FILTER (WHERE p.s IS DISTINCT FROM v.run8)
        FROM unnest(gpu_prefix_sum_array(a8)) WITH ORDINALITY p(s, i) JOIN vals v USING (i)) AS wrong_f8,
       (SELECT count(*) FILTER (WHERE p.s IS DISTINCT FROM v.run4)
        FROM unnest(gpu_prefix_sum_array(a4)) WITH ORDINALITY p(s, i) JOIN vals v USING (i)) AS wrong_f4,
       (SELECT count(*) FILTER (WHERE p.s IS DISTINCT FROM v.run8 - v.v8)
        FROM unnest(gpu_prefix_sum_array(a8, true)) WITH ORDINALITY p(s, i) JOIN vals v USING (i)) AS wrong_exclusive,
       cardinality(gpu_prefix_sum_array(a8)) = len AS length_ok
FROM arrays ORDER BY len;
SELECT len, (SELECT count(*) FROM gpu_prefix_sum(a8) WITH ORDINALITY p(s, i) JOIN vals v USING (i)
             WHERE p.s = v.run8) = len AS rows_ok
FROM arrays WHERE len = 3 * pg_temp.chunk(8) + 5;

-- compaction: values of both types, positions, and the set-returning forms
SELECT len, gpu_compact_array(a8, k) = kept8 AS compact_f8, gpu_compact_array(a4, k) = kept4 AS compact_f4,
       gpu_compact_indices_array(k) = kept_at AS positions
FROM arrays ORDER BY len;
SELECT len, array(SELECT gpu_compact(a8, k)) = kept8 AS rows_f8,
       array(SELECT gpu_compact_indices(k)) = kept_at AS rows_positions
FROM arrays WHERE len = 3 * pg_temp.chunk(9) + 5;
-- nothing kept, everything kept
SELECT gpu_compact_array(a8, array_fill(false, ARRAY[len])) AS none_kept,
       gpu_compact_array(a8, array_fill(true, ARRAY[len])) = a8 AS all_kept
FROM arrays WHERE len = 3 * pg_temp.chunk(9) + 5;

-- Arrays with a NULL bitmap but no NULL (a slice of an array that has a
-- NULL keeps its bitmap): checked chunk by chunk as they are copied, with
-- the same results as the same values without a bitmap.
CREATE TEMP TABLE with_bitmap AS
SELECT len, (array_append(a8, NULL))[1:len] AS a8, (array_append(a4, NULL))[1:len] AS a4,
       (array_append(k, NULL))[1:len] AS k
FROM arrays WHERE len = 3 * pg_temp.chunk(8) + 5;
SELECT pg_column_size(b.a8) > pg_column_size(a.a8) AS has_bitmap,
       gpu_sum(b.a8) = gpu_sum(a.a8) AND gpu_sum(b.a4) = gpu_sum(a.a4) AS sums_same,
       gpu_prefix_sum_array(b.a8) = gpu_prefix_sum_array(a.a8) AS prefix_sums_same,
       gpu_compact_array(b.a8, b.k) = gpu_compact_array(a.a8, a.k) AS compaction_same
FROM with_bitmap b JOIN arrays a USING (len);

-- After an ERROR and a cancel in the middle of a chunked call the GPU
-- service's staging area is as it was again, and the next call is right.
SELECT gpu_sum(ARRAY[1, 2]::float8[]);
SELECT gpu_service_staging_in_use() AS staging_before \gset
CREATE TEMP TABLE right_answer AS
SELECT len, gpu_prefix_sum_array(a8) AS p, gpu_compact_array(a8, k) AS c
FROM arrays WHERE len = 3 * pg_temp.chunk(8) + 5;
-- a cancel after two chunks (gpuscan.debug_cancel_after_chunks: the interrupt
-- of pg_cancel_backend at a known point)
SET gpuscan.debug_cancel_after_chunks = 2;
SELECT gpu_prefix_sum_array(a8) FROM arrays WHERE len = 3 * pg_temp.chunk(8) + 5;
SELECT gpu_compact_array(a8, k) FROM arrays WHERE len = 3 * pg_temp.chunk(8) + 5;
SELECT gpu_sum(a8) FROM arrays WHERE len = 3 * pg_temp.chunk(8) + 5;
RESET gpuscan.debug_cancel_after_chunks;
SELECT gpu_service_staging_back(:'staging_before') AS staging_back;
SELECT gpu_prefix_sum_array(a8) = p AS prefix_sums_right, gpu_compact_array(a8, k) = c AS compaction_right
FROM arrays JOIN right_answer USING (len);

-- a NULL in the second chunk: with chunks of 1 MB, which the copy threads
-- copy while the NULL check runs and raises the ERROR
SET gpuscan.debug_chunk_size = '1MB';
CREATE TEMP TABLE late_null AS
SELECT array_agg(CASE WHEN g = 200000 THEN NULL ELSE g / 4.0 END::float8 ORDER BY g) AS a
FROM generate_series(1, 400000) g;
SELECT error_of('SELECT gpu_sum(a) FROM late_null') AS sum_error,
       error_of('SELECT gpu_prefix_sum_array(a) FROM late_null') AS prefix_sum_error,
       error_of($$SELECT gpu_compact_array(a, array_fill(true, ARRAY[400000])) FROM late_null$$) AS compaction_error;
SELECT gpu_service_staging_back(:'staging_before') AS staging_back;
UPDATE late_null SET a[200000] = 50000;
SELECT gpu_sum(a) = 400000::bigint * 400001 / 8.0 AS sum_right,
       (gpu_prefix_sum_array(a))[400000] = 400000::bigint * 400001 / 8.0 AS prefix_sum_right
FROM late_null;
-- a smaller staging takes effect at the next call
SET gpuscan.debug_chunk_size = '64kB';
SELECT gpu_prefix_sum_array(a8) = p AS prefix_sums_right FROM arrays JOIN right_answer USING (len);

SELECT took_expected_path('gpu_sum') AND took_expected_path('gpu_prefix_sum_array')
       AND took_expected_path('gpu_compact_array') AS expected_path;
RESET gpuscan.debug_chunk_size;
RESET gpuscan.copy_threads;
DROP TABLE vals, lengths, arrays, with_bitmap, right_answer, late_null;
