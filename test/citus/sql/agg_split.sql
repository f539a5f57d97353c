-- Citus tests of gpuscan: how Citus plans the gpu_sum aggregates.
-- Checks that a whole-table gpu_sum and a GROUP BY on a column other than
-- the distribution column are split into worker_partial_agg on the shards
-- and coord_combine_agg on the coordinator (gpu_sum has a combine function
-- and a bytea state); that the workers (gpuscan preloaded) compute a
-- whole-table shard query's worker_partial_agg with the GpuscanSum scan
-- and a GROUP BY shard query's with the GpuscanGroupSum scan, and with the
-- aggregate row by row where gpuscan.enable_sum_scan = off reaches them
-- (SET LOCAL, propagated); that GROUP BY the distribution column runs
-- gpu_sum whole on the workers (a Finalize step over GpuscanGroupSum);
-- that the same query on a local
-- table plans the GpuscanSum scan; and the known Citus 13 limitation:
-- EXPLAIN ANALYZE of a split custom aggregate fails (plain EXPLAIN works).
SELECT plan_of('SELECT gpu_sum(x) FROM t_s4');
SELECT plan_of('SELECT gpu_sum(y) FROM t_s4');
-- the workers' GpuscanSum scan off: worker_partial_agg row by row
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL gpuscan.enable_sum_scan = off;
SELECT plan_of('SELECT gpu_sum(x) FROM t_s4');
COMMIT;
SELECT plan_of('SELECT g, gpu_sum(x) FROM t_s4 GROUP BY g');
SELECT plan_of('SELECT k, gpu_sum(x) FROM t_s4 GROUP BY k');
-- on the local table, whole-table sums take the GpuscanSum scan
SELECT plan_of('SELECT gpu_sum(x), gpu_sum(y) FROM t_local');

-- EXPLAIN ANALYZE: fails where the aggregate is split (Citus issue 4043,
-- fixed in Citus 14), works where it runs whole on the workers
SELECT error_of('EXPLAIN (ANALYZE, COSTS OFF) SELECT gpu_sum(x) FROM t_s4');
SELECT error_of('EXPLAIN (ANALYZE, COSTS OFF) SELECT k, gpu_sum(x) FROM t_s4 GROUP BY k');
