-- test/load/scripts/scan.sql -- pgbench script of the gpuscan load test: the
-- GpuscanSum scan.  A whole-table gpu_sum of both columns (the plan is
-- checked to be the custom scan) against the exact sums of load_totals.
SELECT load_check('scan: the plan has no GpuscanSum',
  load_plan_has($q$SELECT s.x = e.sum_x AND s.r = e.sum_r
                   FROM (SELECT gpu_sum(x) AS x, gpu_sum(r) AS r FROM load_rows) s, load_totals e$q$,
                'Custom Scan (GpuscanSum)'));
SELECT load_check('scan: whole-table gpu_sum(x), gpu_sum(r)',
  (SELECT s.x = e.sum_x AND s.r = e.sum_r
   FROM (SELECT gpu_sum(x) AS x, gpu_sum(r) AS r FROM load_rows) s, load_totals e));
SELECT load_check_paths();
