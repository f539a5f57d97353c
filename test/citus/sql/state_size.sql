-- Citus tests of gpuscan: the size of a shipped gpu_sum partial state.
-- Checks what a worker sends the coordinator for a split gpu_sum: the text
-- output (hex) of the flat state that worker_partial_agg returns (computed
-- by the GpuscanSum scan for a whole table, by the aggregate per group),
-- measured by running each shard's query through run_command_on_shards: at most
-- 1 kB, for the whole table, per group, and for a state with every digit
-- from 2^-1074 to 2^1024 in use (values from the smallest to the largest
-- double, and every special-value flag).
-- (a shard without rows gives NULL, which run_command_on_shards shows as '')
SELECT count(*) AS shards, count(*) FILTER (WHERE result <> '') AS states,
       max(length(result)) <= 1024 AS at_most_1kb,
       min(length(result)) FILTER (WHERE result <> '') AS min_chars, max(length(result)) AS max_chars
FROM run_command_on_shards('t_s32',
  $$SELECT worker_partial_agg('gpu_sum(double precision)'::regprocedure, x)::text FROM %s$$);
SELECT count(*) FILTER (WHERE result <> '') AS states, max(length(result)) AS max_chars
FROM run_command_on_shards('t_s32',
  $$SELECT worker_partial_agg('gpu_sum(real)'::regprocedure, y)::text FROM %s$$);
-- per group (GROUP BY g, the split plan): the longest state over all shards
SELECT count(*) AS shards, max(result::int) <= 1024 AS at_most_1kb, max(result::int) AS max_chars
FROM run_command_on_shards('t_s32',
  $$SELECT coalesce(max(length(s)), 0) FROM (SELECT g, worker_partial_agg('gpu_sum(double precision)'::regprocedure, x)::text s
                                 FROM %s GROUP BY g) q$$);
-- a state that looks like what the coordinator gets: '\x' and hex digits
SELECT result ~ '^\\x[0-9a-f]+$' AS hex_bytea
FROM run_command_on_shards('t_s32',
  $$SELECT worker_partial_agg('gpu_sum(double precision)'::regprocedure, x)::text FROM %s$$)
WHERE result <> '' ORDER BY shardid LIMIT 1;

-- a state near the largest: the digits from 2^-1074 up to 2^1024 in use (66
-- of at most 67), every flag
CREATE TABLE wide (id int, x float8);
SELECT create_distributed_table('wide', 'id', shard_count := 1);
INSERT INTO wide VALUES (1, 5e-324), (2, 1.7976931348623157e308), (3, 'NaN'), (4, 'Infinity'),
  (5, '-Infinity'), (6, '-0'), (7, -1e-300), (8, 1e-200);
SELECT length(result) AS chars, length(result) <= 1024 AS at_most_1kb,
       (length(result) - 2) / 2 AS bytes
FROM run_command_on_shards('wide',
  $$SELECT worker_partial_agg('gpu_sum(double precision)'::regprocedure, x)::text FROM %s$$);
-- and the coordinator combines it (NaN: NaN was among the values)
SELECT gpu_sum(x) FROM wide;
SELECT gpu_sum(x) FROM wide WHERE x NOT IN ('NaN', 'Infinity', '-Infinity');
