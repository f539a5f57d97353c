-- test/load/scripts/pagerank.sql -- pgbench script of the gpuscan load test:
-- gpu_pagerank of a random stored graph, converged (tolerance 1e-14):
-- within 1e-12 of the SQL power iteration of load_pagerank_expected, summing
-- to 1, and the same bits as the CPU path gave in setup; with the default
-- tolerance (1e-10), within 1e-8.
\set gid random(1, 4)
SELECT load_check('gpu_pagerank, graph ' || :gid,
  (SELECT cardinality(p.r) = g.n
          AND (SELECT max(abs(a - b)) < 1e-12 FROM unnest(p.r, e.ranks) u(a, b))
          AND (SELECT abs(sum(a) - 1) < 1e-12 FROM unnest(p.r) a)
   FROM load_graphs g JOIN load_pagerank_expected e USING (gid),
        LATERAL (SELECT gpu_pagerank(g.rp, g.ci, 0.85, 1e-14, 1000) AS r) p
   WHERE gid = :gid));
SELECT load_check('gpu_pagerank: the same bits as the CPU path, graph ' || :gid,
  (SELECT gpu_pagerank(g.rp, g.ci, 0.85, 1e-14, 1000) = e.cpu_ranks
   FROM load_graphs g JOIN load_pagerank_expected e USING (gid) WHERE gid = :gid));
SELECT load_check('gpu_pagerank (default tolerance), graph ' || :gid,
  (SELECT (SELECT max(abs(a - b)) < 1e-8 FROM unnest(gpu_pagerank(g.rp, g.ci), e.ranks) u(a, b))
   FROM load_graphs g JOIN load_pagerank_expected e USING (gid) WHERE gid = :gid));
SELECT load_check_paths();
