-- Device memory is never leaked: an ERROR or a cancel in the middle of a
-- call leaves this session's device memory where it was before the call.
-- a first call opens the GPU, where this run uses one
SELECT gpu_sum(ARRAY[1, 2]::float8[]);
CREATE TEMP TABLE mem_before AS SELECT * FROM gpuscan_device_memory();
SELECT tracked_bytes = 0 AS nothing_tracked_between_statements FROM mem_before;

-- a NULL at the very end: found only after the earlier chunks were
-- processed (on the GPU path: uploaded to device memory)
CREATE TEMP TABLE late_null AS
  SELECT array_fill(1::float8, ARRAY[16777218]) AS a;
UPDATE late_null SET a[16777218] = NULL;
SELECT gpu_sum(a) FROM late_null;
SELECT m.tracked_bytes = b.tracked_bytes AS tracked_unchanged,
       m.pool_bytes IS NOT DISTINCT FROM b.pool_bytes AS pool_unchanged
FROM gpuscan_device_memory() m, mem_before b;

-- a cancel (statement_timeout) in the middle of a long aggregate
SET statement_timeout = '300ms';
SELECT gpu_sum(x::float8) FROM (SELECT generate_series(1, 400000000) AS x) s;
RESET statement_timeout;
SELECT m.tracked_bytes = b.tracked_bytes AS tracked_unchanged,
       m.pool_bytes IS NOT DISTINCT FROM b.pool_bytes AS pool_unchanged
FROM gpuscan_device_memory() m, mem_before b;

-- an error inside a subtransaction, caught by PL/pgSQL
DO $$
BEGIN
  PERFORM gpu_sum(a) FROM late_null;
EXCEPTION WHEN null_value_not_allowed THEN
  RAISE NOTICE 'caught: %', SQLERRM;
END
$$;
SELECT m.tracked_bytes = b.tracked_bytes AS tracked_unchanged,
       m.pool_bytes IS NOT DISTINCT FROM b.pool_bytes AS pool_unchanged
FROM gpuscan_device_memory() m, mem_before b;
DROP TABLE late_null;
