-- test/load/scripts/scan_parallel.sql -- pgbench script of the gpuscan load
-- test: the GpuscanSum scan under Gather with up to 2 workers (however many
-- the server has free) against the exact sums of load_totals.
BEGIN;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
SELECT load_check('parallel scan: the plan has no Gather over GpuscanSum',
  load_plan_has('SELECT gpu_sum(x), gpu_sum(r) FROM load_rows', 'Gather')
  AND load_plan_has('SELECT gpu_sum(x), gpu_sum(r) FROM load_rows', 'Custom Scan (GpuscanSum)'));
SELECT load_check('parallel scan: whole-table gpu_sum(x), gpu_sum(r)',
  (SELECT s.x = e.sum_x AND s.r = e.sum_r
   FROM (SELECT gpu_sum(x) AS x, gpu_sum(r) AS r FROM load_rows) s, load_totals e));
COMMIT;
SELECT load_check_paths();
