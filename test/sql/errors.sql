-- Bad input gets a clear error, never a crash or a wrong answer.
\set VERBOSITY default
SELECT gpu_sum(ARRAY[1, NULL, 3]::float8[]);
SELECT gpu_sum('[0:2]={1,2,NULL}'::real[]);
SELECT gpu_sum(ARRAY[[1, 2], [3, 4]]::float8[]);
SELECT gpu_sum(ARRAY[[[1.5]]]::real[]);

-- the support functions refuse to run outside an aggregate
SELECT gpu_sum_float8_accum(NULL, 1);
SELECT gpu_sum_final('\x00'::bytea);
SELECT gpu_sum_combine('\x00'::bytea, '\x00'::bytea);

-- a forged state inside an aggregate is rejected, not trusted
CREATE AGGREGATE forged_sum(float8) (
  SFUNC = gpu_sum_float8_accum, STYPE = bytea,
  FINALFUNC = gpu_sum_final, INITCOND = '\x0102030405');
SELECT forged_sum(x) FROM generate_series(1, 3) x;
DROP AGGREGATE forged_sum(float8);
