-- Bad input gets a clear error, never a crash or a wrong answer.
\set VERBOSITY default
SELECT gpu_sum(ARRAY[1, NULL, 3]::float8[]);
SELECT gpu_sum('[0:2]={1,2,NULL}'::real[]);
SELECT gpu_sum(ARRAY[[1, 2], [3, 4]]::float8[]);
SELECT gpu_sum(ARRAY[[[1.5]]]::real[]);

-- the support functions refuse to run outside an aggregate (feature_not_supported)
SELECT error_of('SELECT gpu_sum_float8_accum(NULL, 1)');
SELECT error_of('SELECT gpu_sum_float4_accum(NULL, 1)');
SELECT error_of($$SELECT gpu_sum_final('\x00'::bytea)$$);
SELECT error_of($$SELECT gpu_sum_combine('\x00'::bytea, '\x00'::bytea)$$);
