-- test/load/scripts/srf.sql -- pgbench script of the gpuscan load test: the
-- set-returning forms on one random stored array: gpu_prefix_sum (in FROM,
-- WITH ORDINALITY), gpu_compact (in FROM and in the select list),
-- gpu_compact_indices, over double precision[] and real[]; each output
-- gathered in its order and compared with load_array_expected.
\set aid random(1, 12)
SELECT load_check('gpu_prefix_sum(double precision[]) rows, array ' || :aid,
  (SELECT coalesce((SELECT array_agg(s ORDER BY i)
                    FROM gpu_prefix_sum(a.xs) WITH ORDINALITY p(s, i)), '{}') = e.prefix_x
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_prefix_sum(real[], exclusive) rows, array ' || :aid,
  (SELECT coalesce((SELECT array_agg(s ORDER BY i)
                    FROM gpu_prefix_sum(a.rs, exclusive => true) WITH ORDINALITY p(s, i)), '{}')
          = e.prefix_r_excl
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_compact(double precision[]) rows, array ' || :aid,
  (SELECT coalesce((SELECT array_agg(v ORDER BY i)
                    FROM gpu_compact(a.xs, a.keep) WITH ORDINALITY c(v, i)), '{}') = e.compact_x
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check('gpu_compact(real[]) in the select list, array ' || :aid,
  (SELECT coalesce(array_agg(v), '{}') = (SELECT compact_r FROM load_array_expected WHERE aid = :aid)
   FROM (SELECT gpu_compact(a.rs, a.keep) AS v FROM load_arrays a WHERE aid = :aid) s));
SELECT load_check('gpu_compact_indices rows, array ' || :aid,
  (SELECT coalesce((SELECT array_agg(p ORDER BY i)
                    FROM gpu_compact_indices(a.keep) WITH ORDINALITY c(p, i)), '{}') = e.kept
   FROM load_arrays a JOIN load_array_expected e USING (aid) WHERE aid = :aid));
SELECT load_check_paths();
