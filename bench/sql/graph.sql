-- bench/sql/graph.sql -- the tables and helpers of bench/graph_bench.sh,
-- in a schema of their own.

CREATE SCHEMA graph;
CREATE TABLE graph.edges (src bigint, dst bigint);
CREATE TABLE graph.triples (r integer, c integer, v double precision);

-- graph.ms(query) -- the milliseconds the query takes, its result dropped
CREATE FUNCTION graph.ms(q text) RETURNS double precision
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE q;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$$;

-- graph.plpgsql_pagerank(iterations, damping) -- PageRank over graph.edges
-- as a user would write it without gpuscan: the same formula as
-- gpu_pagerank (r' = (1 - d)/n + d (in-flow + dangling/n)), each iteration
-- a join of the edges with the ranks and the out-degrees into a new table
CREATE FUNCTION graph.plpgsql_pagerank(iterations integer, damping double precision DEFAULT 0.85)
RETURNS TABLE (node bigint, rank double precision)
LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  dangling double precision;
BEGIN
  DROP TABLE IF EXISTS pr_nodes, pr_rank, pr_next;
  CREATE TEMP TABLE pr_nodes AS
    SELECT u.id AS node, coalesce(d.c, 0) AS outdeg
    FROM (SELECT src AS id FROM graph.edges UNION SELECT dst FROM graph.edges) u
    LEFT JOIN (SELECT src, count(*) AS c FROM graph.edges GROUP BY src) d ON d.src = u.id;
  SELECT count(*) INTO n FROM pr_nodes;
  CREATE TEMP TABLE pr_rank AS SELECT p.node, 1.0::double precision / n AS rank FROM pr_nodes p;
  ANALYZE pr_nodes;
  FOR it IN 1 .. iterations LOOP
    SELECT coalesce(sum(r.rank), 0) INTO dangling
    FROM pr_rank r JOIN pr_nodes p ON p.node = r.node WHERE p.outdeg = 0;
    CREATE TEMP TABLE pr_next AS
      SELECT p.node, (1 - damping) / n + damping * (coalesce(s.inflow, 0) + dangling / n) AS rank
      FROM pr_nodes p
      LEFT JOIN (SELECT e.dst, sum(r.rank / q.outdeg) AS inflow
                 FROM graph.edges e
                 JOIN pr_rank r ON r.node = e.src
                 JOIN pr_nodes q ON q.node = e.src
                 GROUP BY e.dst) s ON s.dst = p.node;
    DROP TABLE pr_rank;
    ALTER TABLE pr_next RENAME TO pr_rank;
    ANALYZE pr_rank;
  END LOOP;
  RETURN QUERY SELECT r.node, r.rank FROM pr_rank r ORDER BY r.node;
END
$$;
