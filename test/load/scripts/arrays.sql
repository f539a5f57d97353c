-- test/load/scripts/arrays.sql -- pgbench script of the gpuscan load test:
-- the array functions on one random stored array (0 to 100000 elements):
-- gpu_sum, gpu_prefix_sum_array (inclusive, exclusive), gpu_compact_array,
-- gpu_compact_indices_array, over double precision[] and real[], against
-- load_array_expected.
\set aid random(1, 12)
SELECT load_check('gpu_sum(double precision[]), array ' || :aid,
  (SELECT gpu_sum(a.xs) = e.sum_x
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_sum(real[]), array ' || :aid,
  (SELECT gpu_sum(a.rs) = e.sum_r
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_prefix_sum_array(double precision[]), array ' || :aid,
  (SELECT gpu_prefix_sum_array(a.xs) = e.prefix_x
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_prefix_sum_array(double precision[], exclusive), array ' || :aid,
  (SELECT gpu_prefix_sum_array(a.xs, exclusive => true) = e.prefix_x_excl
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_prefix_sum_array(real[]), array ' || :aid,
  (SELECT gpu_prefix_sum_array(a.rs) = e.prefix_r
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_prefix_sum_array(real[], exclusive), array ' || :aid,
  (SELECT gpu_prefix_sum_array(a.rs, true) = e.prefix_r_excl
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_compact_array(double precision[]), array ' || :aid,
  (SELECT gpu_compact_array(a.xs, a.keep) = e.compact_x
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_compact_array(real[]), array ' || :aid,
  (SELECT gpu_compact_array(a.rs, a.keep) = e.compact_r
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_compact_indices_array, array ' || :aid,
  (SELECT gpu_compact_indices_array(a.keep) = e.kept
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check_paths();
