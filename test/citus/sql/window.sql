-- Citus tests of gpuscan: gpu_running_sum on a distributed table.
-- Checks that gpu_running_sum OVER (PARTITION BY the distribution column)
-- runs on the workers, and OVER the whole table on the coordinator (Citus
-- pulls the rows up), both giving the same bits for every row as over the
-- same rows in a local table; each partition's last running sum is its
-- gpu_sum.
SELECT plan_of('SELECT id, gpu_running_sum(x) OVER (PARTITION BY k ORDER BY id) FROM t_s7');
SELECT plan_of('SELECT id, gpu_running_sum(x) OVER (ORDER BY id) FROM t_s7');

-- per row: the running sums that differ from the local table's (0 expected)
SELECT count(*) AS rows, count(*) FILTER (WHERE NOT same_float8(d.s, l.s)) AS differ
FROM (SELECT id, gpu_running_sum(x) OVER (PARTITION BY k ORDER BY id) s FROM t_s7) d
FULL JOIN (SELECT id, gpu_running_sum(x) OVER (PARTITION BY k ORDER BY id) s FROM t_local) l USING (id);
SELECT count(*) AS rows, count(*) FILTER (WHERE NOT same_float8(d.s, l.s)) AS differ
FROM (SELECT id, gpu_running_sum(y) OVER (PARTITION BY k ORDER BY id ROWS UNBOUNDED PRECEDING) s FROM t_s32) d
FULL JOIN (SELECT id, gpu_running_sum(y) OVER (PARTITION BY k ORDER BY id ROWS UNBOUNDED PRECEDING) s FROM t_local) l USING (id);
SELECT count(*) AS rows, count(*) FILTER (WHERE NOT same_float8(d.s, l.s)) AS differ
FROM (SELECT id, gpu_running_sum(x) OVER (ORDER BY id) s FROM t_s32) d
FULL JOIN (SELECT id, gpu_running_sum(x) OVER (ORDER BY id) s FROM t_local) l USING (id);

-- the last running sum of each partition is the partition's gpu_sum, and
-- over the whole table the table's
SELECT count(*) AS partitions, count(*) FILTER (WHERE NOT same_float8(r.s, a.s)) AS differ
FROM (SELECT DISTINCT ON (k) k, gpu_running_sum(x) OVER (PARTITION BY k ORDER BY id) s
      FROM t_s7 ORDER BY k, id DESC) r
JOIN (SELECT k, gpu_sum(x) s FROM t_s7 GROUP BY k) a USING (k);
SELECT same_float8((SELECT s FROM (SELECT id, gpu_running_sum(x) OVER (ORDER BY id) s FROM t_s32) q
                    ORDER BY id DESC LIMIT 1),
                   (SELECT gpu_sum(x) FROM t_s32)) AS last_is_gpu_sum;
