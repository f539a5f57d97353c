-- test/load/scripts/window.sql -- pgbench script of the gpuscan load test:
-- the window function gpu_running_sum, over two random partitions (default
-- frame, which it ignores) against load_running, and over a random id range
-- (ROWS UNBOUNDED PRECEDING) against exact differences of load_cum.
\set g1 random(0, 15)
\set g2 random(0, 15)
\set lo random(1, 100000)
\set len random(0, 8000)
\set hi least(:lo + :len, 100000)
SELECT load_check('window: PARTITION BY grp, grp in (' || :g1 || ', ' || :g2 || ')',
  (SELECT count(*) = (SELECT count(*) FROM load_rows WHERE grp IN (:g1, :g2))
          AND bool_and(w.rx IS NOT DISTINCT FROM e.run_x AND w.rr IS NOT DISTINCT FROM e.run_r)
   FROM (SELECT id, gpu_running_sum(x) OVER w AS rx, gpu_running_sum(r) OVER w AS rr
         FROM load_rows WHERE grp IN (:g1, :g2)
         WINDOW w AS (PARTITION BY grp ORDER BY id)) w
   JOIN load_running e USING (id)));
SELECT load_check('window: ORDER BY id over ids ' || :lo || '..' || :hi,
  (SELECT count(*) = :hi - :lo + 1
          AND bool_and(w.rx IS NOT DISTINCT FROM
                         CASE WHEN c.nx = b.nx THEN NULL ELSE (c.cx - b.cx)::float8 END
                       AND w.rr IS NOT DISTINCT FROM
                         CASE WHEN c.nr = b.nr THEN NULL ELSE (c.cr - b.cr)::float8 END)
   FROM (SELECT id, gpu_running_sum(x) OVER w AS rx, gpu_running_sum(r) OVER w AS rr
         FROM load_rows WHERE id BETWEEN :lo AND :hi
         WINDOW w AS (ORDER BY id ROWS UNBOUNDED PRECEDING)) w
   JOIN load_cum c USING (id), load_cum b
   WHERE b.id = :lo - 1));
SELECT load_check_paths();
