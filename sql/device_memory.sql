-- Nothing is left behind: after an ERROR or a cancel in the middle of a
-- call the GPU service's staging area is as it was before the call again,
-- once the service has stopped working on it (the service's device memory:
-- test/service_faults.sh).
-- a first call takes this session's channel to the service, where this run uses it
SELECT gpu_sum(ARRAY[1, 2]::float8[]);
SELECT gpu_service_staging_in_use() AS staging_before \gset

-- a NULL at the very end: found only after the earlier chunks were
-- processed (on the GPU path: streamed to the GPU service)
CREATE TEMP TABLE late_null AS
  SELECT array_fill(1::float8, ARRAY[16777218]) AS a;
UPDATE late_null SET a[16777218] = NULL;
SELECT gpu_sum(a) FROM late_null;
SELECT gpu_service_staging_back(:'staging_before') AS staging_back;

-- a cancel (statement_timeout) in the middle of a long aggregate
SET statement_timeout = '300ms';
SELECT gpu_sum(x::float8) FROM (SELECT generate_series(1, 400000000) AS x) s;
RESET statement_timeout;
SELECT gpu_service_staging_back(:'staging_before') AS staging_back;

-- an error inside a subtransaction, caught by PL/pgSQL
DO $$
BEGIN
  PERFORM gpu_sum(a) FROM late_null;
EXCEPTION WHEN null_value_not_allowed THEN
  RAISE NOTICE 'caught: %', SQLERRM;
END
$$;
SELECT gpu_service_staging_back(:'staging_before') AS staging_back;
DROP TABLE late_null;
