-- Settings, dispatch and statistics.
LOAD 'gpuscan';
SELECT name, vartype, context, boot_val, min_val, max_val, enumvals
FROM pg_settings WHERE name LIKE 'gpuscan.%' ORDER BY name;
SELECT current_setting('gpuscan.device') IN ('auto', 'cpu', 'gpu') AS device_setting_valid;

SET gpuscan.device = 'sometimes';
SET gpuscan.gpu_min_elements = -2;
SET gpuscan.undefined_setting = 1;

-- auto chooses by its cost model (gpuscan.gpu_min_elements = -1, the
-- default): a small call runs on the CPU, with the prediction as the reason
-- (gpuscan_stats().last_reason, and at DEBUG1)
SET gpuscan.device = auto;
SET gpuscan.gpu_min_elements = -1;
SELECT gpuscan_stats_reset();
SELECT gpu_sum(array_fill(1::float8, ARRAY[999])), gpu_prefix_sum_array('{1,2}'::real[]);
SELECT function, path, calls,
       last_reason ~ '^cost model, (sum|prefix sum): [0-9.]+ ms on the CPU, [0-9.]+ ms on the GPU' AS cost_model
FROM gpuscan_stats() ORDER BY function;

-- the session's calls correct the model (cost_model.c): a second call of
-- the same kind and size says so
SELECT gpu_sum(array_fill(1::float8, ARRAY[999]));
SELECT last_reason ~ ', as corrected by this session''s calls$' AS corrected
FROM gpuscan_stats() WHERE function = 'gpu_sum';

-- auto takes the CPU below gpuscan.gpu_min_elements where that is set
SET gpuscan.gpu_min_elements = 1000;
SELECT gpuscan_stats_reset();
SELECT gpu_sum(array_fill(1::float8, ARRAY[999]));
SELECT function, path, calls, elements, last_reason FROM gpuscan_stats();

-- cpu never uses the GPU
SET gpuscan.device = cpu;
SELECT gpuscan_stats_reset();
SELECT gpu_sum(array_fill(2::float8, ARRAY[5000]));
SELECT function, path, calls, elements, bytes_moved, last_reason FROM gpuscan_stats();
SELECT value FROM gpuscan_info() WHERE item = 'gpu_reason';
RESET gpuscan.device;
RESET gpuscan.gpu_min_elements;

-- counters add up per function and path
SELECT gpuscan_stats_reset();
SELECT gpu_sum(ARRAY[1, 2]::float8[]), gpu_sum(ARRAY[3]::real[]);
SELECT gpu_sum(x) FROM generate_series(1, 10) x;
SELECT function, sum(calls) AS calls, sum(elements) AS elements, bool_and(time_ms >= 0) AS timed
FROM gpuscan_stats() GROUP BY function ORDER BY function;
SELECT took_expected_path('gpu_sum') AND took_expected_path('gpu_sum aggregate') AS expected_path;

-- Who may use the GPU.  gpuscan.device and gpuscan.gpu_min_elements are open
-- to every role; gpuscan.allow_gpu and gpuscan.device_index (shared
-- resources: a CUDA context per session, which device) are superuser
-- settings that an administrator hands out per role.
CREATE ROLE regress_gpuscan_plain;
SET ROLE regress_gpuscan_plain;
SELECT error_of('SET gpuscan.allow_gpu = on');
SELECT error_of('SET gpuscan.device_index = 0');
SET gpuscan.device = cpu;
SET gpuscan.device = auto;
RESET ROLE;

-- with the GPU not allowed, auto runs on the CPU without opening a device,
-- gpu is refused (insufficient_privilege), cpu works as ever
SET gpuscan.allow_gpu = off;
SET ROLE regress_gpuscan_plain;
SET gpuscan.device = auto;
SET gpuscan.gpu_min_elements = 0;
SELECT gpuscan_stats_reset();
SELECT gpu_csr_spmv('{0,1}', '{0}', '{2}'::float8[], '{3}'::float8[]);
SELECT function, path, last_reason FROM gpuscan_stats();
SELECT value FROM gpuscan_info() WHERE item = 'gpu_reason';
SET gpuscan.device = gpu;
SELECT error_of($$SELECT gpu_sum('{1,2}'::float8[])$$);
SET gpuscan.device = cpu;
SELECT gpu_sum('{1,2}'::float8[]);
RESET ROLE;

-- GRANT SET ON PARAMETER lets a role choose for itself
GRANT SET ON PARAMETER gpuscan.allow_gpu TO regress_gpuscan_plain;
SET ROLE regress_gpuscan_plain;
SET gpuscan.allow_gpu = on;
SHOW gpuscan.allow_gpu;
RESET ROLE;
REVOKE SET ON PARAMETER gpuscan.allow_gpu FROM regress_gpuscan_plain;
RESET gpuscan.allow_gpu;
RESET gpuscan.device;
RESET gpuscan.gpu_min_elements;
DROP ROLE regress_gpuscan_plain;
