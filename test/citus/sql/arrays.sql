-- Citus tests of gpuscan: the array functions on a distributed table.
-- Checks that gpu_sum over array columns, gpu_prefix_sum_array,
-- gpu_compact_array and gpu_csr_spmv are pushed down to the shards (the
-- task queries call them) and return the same arrays, bit for bit, as over
-- the same rows in a local table.
SELECT setseed(0.5);
-- 40 rows of 1 to 2000 elements; keep flags; a CSR matrix of n x n with n
-- the row's size and up to 4 entries per row, and a vector x
CREATE TABLE arr_local (k int, a float8[], b real[], keep bool[],
                        row_ptr int[], col_idx int[], vals float8[], xv float8[]);
INSERT INTO arr_local (k, a, b, keep)
SELECT i,
       array(SELECT (random() - 0.5) * power(10, floor(random() * 20) - 10) FROM generate_series(1, n)),
       array(SELECT ((random() - 0.5) * 1000)::real FROM generate_series(1, n)),
       array(SELECT random() < 0.4 FROM generate_series(1, n))
FROM (SELECT i, 1 + (i * 677) % 2000 AS n FROM generate_series(1, 40) i) s;
-- CSR: row r has (r % 5) entries at columns (r * 7 + j * 13) % n
UPDATE arr_local SET
  row_ptr = (SELECT array_agg(p ORDER BY r) FROM (
               SELECT r, coalesce(sum(r2 % 5) FILTER (WHERE r2 < r), 0)::int AS p
               FROM generate_series(0, cardinality(a)) r, generate_series(0, cardinality(a) - 1) r2
               WHERE cardinality(a) <= 300 GROUP BY r) q),
  xv = a;
UPDATE arr_local SET
  col_idx = (SELECT coalesce(array_agg((r * 7 + j * 13) % cardinality(a) ORDER BY r, j), '{}')
             FROM generate_series(0, cardinality(a) - 1) r, generate_series(0, r % 5 - 1) j),
  vals = (SELECT coalesce(array_agg(((r + 1) * (j + 2)) / 7.0 ORDER BY r, j), '{}')
          FROM generate_series(0, cardinality(a) - 1) r, generate_series(0, r % 5 - 1) j)
WHERE row_ptr IS NOT NULL;
SELECT count(*) AS rows, sum(cardinality(a)) AS elements, count(row_ptr) AS matrices FROM arr_local;

CREATE TABLE arr (LIKE arr_local);
SELECT create_distributed_table('arr', 'k', shard_count := 6);
INSERT INTO arr SELECT * FROM arr_local;

-- pushed down: the functions are in the queries the shards run
SELECT plan_of('SELECT k, gpu_sum(a), gpu_sum(b) FROM arr');
SELECT plan_of('SELECT k, gpu_prefix_sum_array(a), gpu_compact_array(a, keep) FROM arr');
SELECT plan_of('SELECT k, gpu_csr_spmv(row_ptr, col_idx, vals, xv) FROM arr WHERE row_ptr IS NOT NULL');

-- the same bits as locally (an array's text output is the shortest exact
-- form of each element, so equal text is equal bits)
CREATE FUNCTION arrays_differ(q text) RETURNS TABLE (rows bigint, differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($f$
    SELECT count(*), count(*) FILTER (WHERE d.v IS DISTINCT FROM l.v)
    FROM (%s) d FULL JOIN (%s) l USING (k)$f$,
    replace(q, '@', 'arr'), replace(q, '@', 'arr_local'));
END
$$;
SELECT * FROM arrays_differ('SELECT k, float8send(gpu_sum(a))::text AS v FROM @');
SELECT * FROM arrays_differ('SELECT k, float8send(gpu_sum(b))::text AS v FROM @');
SELECT * FROM arrays_differ('SELECT k, gpu_prefix_sum_array(a)::text AS v FROM @');
SELECT * FROM arrays_differ('SELECT k, gpu_prefix_sum_array(b, exclusive => true)::text AS v FROM @');
SELECT * FROM arrays_differ('SELECT k, gpu_compact_array(a, keep)::text AS v FROM @');
SELECT * FROM arrays_differ('SELECT k, gpu_compact_array(b, keep)::text AS v FROM @');
SELECT * FROM arrays_differ('SELECT k, gpu_csr_spmv(row_ptr, col_idx, vals, xv)::text AS v FROM @ WHERE row_ptr IS NOT NULL');
-- gpu_sum(array) agrees with the aggregate over the elements
SELECT count(*) FILTER (WHERE NOT same_float8(s, (SELECT gpu_sum(e) FROM unnest(a) e))) AS differ
FROM (SELECT a, gpu_sum(a) s FROM arr) q;
