-- test/load/scripts/aggregate.sql -- pgbench script of the gpuscan load test:
-- the gpu_sum aggregates (serial: a WHERE clause keeps the GpuscanSum scan
-- out) over a random id range, against exact differences of load_cum's
-- running sums (NULL where the range has no value); then GROUP BY grp over
-- the first m groups against load_group_totals.
\set lo random(1, 100000)
\set len random(0, 25000)
\set hi least(:lo + :len, 100000)
\set m random(1, 16)
SELECT load_check('aggregate: gpu_sum(x), gpu_sum(r) over ids ' || :lo || '..' || :hi,
  (SELECT s.x IS NOT DISTINCT FROM CASE WHEN h.nx = l.nx THEN NULL ELSE (h.cx - l.cx)::float8 END
      AND s.r IS NOT DISTINCT FROM CASE WHEN h.nr = l.nr THEN NULL ELSE (h.cr - l.cr)::float8 END
   FROM (SELECT gpu_sum(x) AS x, gpu_sum(r) AS r FROM load_rows WHERE id BETWEEN :lo AND :hi) s,
        load_cum h, load_cum l
   WHERE h.id = :hi AND l.id = :lo - 1));
SELECT load_check('aggregate: GROUP BY grp, grp < ' || :m,
  (SELECT count(*) = :m AND bool_and(g.x = e.sum_x AND g.r = e.sum_r)
   FROM (SELECT grp, gpu_sum(x) AS x, gpu_sum(r) AS r FROM load_rows WHERE grp < :m GROUP BY grp) g
   JOIN load_group_totals e USING (grp)));
SELECT load_check_paths();
