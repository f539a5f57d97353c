-- Size limits: PostgreSQL's values are at most 1 GB (MaxAllocSize,
-- 1073741823 bytes) and arrays at most 134217727 elements.  Each function
-- is taken to its largest input or result and one past it: the largest
-- works, one more is an ERROR with SQLSTATE 54000 (program_limit_exceeded).
-- A double precision[] of n elements takes 24 + 8 n bytes, so 134217724
-- elements is the largest; real[] and boolean[] reach 134217727.
-- These need several GB of memory: with less than 8 GB available the test
-- says so and is skipped (expected output limits_1.out).
SELECT (regexp_match(pg_read_file('/proc/meminfo'), 'MemAvailable:\s+(\d+) kB'))[1]::bigint
       >= 8 * 1024 * 1024 AS enough_memory \gset
\if :enough_memory

-- gpu_sum of the largest arrays
SELECT gpu_sum(array_fill(1.5::float8, ARRAY[134217724]));
SELECT gpu_sum(array_fill(0.5::real, ARRAY[134217727]));

-- compaction keeping every element of the largest double precision[]: the
-- result is as large as the input (it has room for a scratch element past
-- its end, which is not part of the value)
SELECT cardinality(gpu_compact_array(array_fill(1.5::float8, ARRAY[134217724]),
                                     array_fill(true, ARRAY[134217724])));
SELECT cardinality(gpu_compact_array(array_fill(2::real, ARRAY[134217727]),
                                     array_fill(true, ARRAY[134217727])));
SELECT cardinality(gpu_compact_indices_array(array_fill(true, ARRAY[134217727])));

-- prefix sums of a real[] are double precision: twice the input's size, so
-- 134217724 elements is the largest result and 134217725 one too many
SELECT r[134217724] FROM (SELECT gpu_prefix_sum_array(array_fill(1::real, ARRAY[134217724])) r) s;
SELECT error_of('SELECT gpu_prefix_sum_array(array_fill(1::real, ARRAY[134217725]))');
-- as rows there is no such limit
SELECT count(*), max(p) FROM (SELECT gpu_prefix_sum(array_fill(1::real, ARRAY[134217727])) p) s;
SELECT r[134217724] FROM (SELECT gpu_prefix_sum_array(array_fill(1.5::float8, ARRAY[134217724])) r) s;

-- y = A x with as many rows as a double precision[] can hold (its last
-- element), and one more (no non-zeros: every y[i] is 0); a real y has
-- room for all of them
SELECT (gpu_csr_spmv(array_fill(0, ARRAY[134217725]), '{}'::int[],
                     '{}'::float8[], '{}'::float8[]))[134217724] AS last_y;
SELECT error_of($$SELECT gpu_csr_spmv(array_fill(0, ARRAY[134217726]), '{}'::int[],
                                      '{}'::float8[], '{}'::float8[])$$);
SELECT cardinality(gpu_csr_spmv(array_fill(0, ARRAY[134217727]), '{}'::int[],
                                '{}'::real[], '{}'::real[]));

-- PageRank of as many nodes as the rank vector can hold (no edges: every
-- node dangling, every rank 1/n; the last one shown), and one more
SELECT (gpu_pagerank(array_fill(0, ARRAY[134217725]), '{}'::int[]))[134217724]
       = 1.0 / 134217724 AS last_rank_uniform;
SELECT error_of($$SELECT gpu_pagerank(array_fill(0, ARRAY[134217726]), '{}'::int[])$$);

\else
\echo limits: skipped, less than 8 GB of memory available
\endif
