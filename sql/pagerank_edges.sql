-- gpu_pagerank_edges: PageRank over a query that returns (source, target)
-- rows, with the nodes' own ids.  Its ranks are gpu_pagerank's over the
-- same graph written as CSR by hand (nodes numbered in increasing id
-- order), bit for bit; and the CPU path's, in as many iterations.

CREATE TABLE pr_edges (src bigint, dst bigint);
-- ids out of order, negative and huge; a duplicate edge (7 -> -3 twice), a
-- self-loop (1e12 -> 1e12), a node seen only as a target (42, dangling),
-- a node with no in-links (-9223372036854775808)
INSERT INTO pr_edges VALUES
  (7, -3), (-3, 1000000000000), (1000000000000, 7), (7, -3),
  (1000000000000, 1000000000000), (1000000000000, 42),
  (-9223372036854775808, 7), (9223372036854775807, -3);

-- nodes in id order: 0 = -9223372036854775808, 1 = -3, 2 = 7, 3 = 42,
-- 4 = 1e12, 5 = 9223372036854775807; out-links in the order the rows come
-- (the query orders them)
SELECT array_agg(node ORDER BY node) AS nodes,
       array_send(array_agg(rank ORDER BY node)) =
         array_send(gpu_pagerank('{0,1,2,4,4,7,8}', '{2,4,1,1,2,4,3,1}')) AS same_as_csr
FROM gpu_pagerank_edges('SELECT src, dst FROM pr_edges ORDER BY src, dst');

-- the rows: one per node, in increasing order of node, summing to 1
SELECT node, round(rank::numeric, 12) AS rank
FROM gpu_pagerank_edges('SELECT src, dst FROM pr_edges');
SELECT round(sum(rank)::numeric, 12) AS total
FROM gpu_pagerank_edges('SELECT src, dst FROM pr_edges');

-- any integer types; the parameters as for gpu_pagerank
SELECT array_send(array_agg(rank ORDER BY node)) =
         (SELECT array_send(array_agg(rank ORDER BY node))
          FROM gpu_pagerank_edges('VALUES (1::bigint, 2::bigint), (2, 3), (3, 1), (3, 4)', 0.5, 0, 7))
         AS same_for_smallint_and_integer
FROM gpu_pagerank_edges('VALUES (1::smallint, 2::integer), (2, 3), (3, 1), (3, 4)', 0.5, 0, 7);

-- a larger graph against gpu_pagerank over the CSR built in SQL
CREATE TABLE pr_big AS
SELECT (i * 7919) % 5003 * 1000000000 - 2500000000 AS src,
       (i * 104729 + i / 3) % 5003 * 1000000000 - 2500000000 AS dst
FROM generate_series(1::bigint, 40000) i;
WITH ids AS (
  SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS k
  FROM (SELECT src AS id FROM pr_big UNION SELECT dst FROM pr_big) u
), e AS (
  SELECT s.k AS si, d.k AS di FROM pr_big p JOIN ids s ON s.id = p.src JOIN ids d ON d.id = p.dst
), deg AS (
  SELECT ids.k, count(e.si)::int AS c FROM ids LEFT JOIN e ON e.si = ids.k GROUP BY ids.k
), csr AS (
  SELECT array_agg(s ORDER BY k) || (SELECT count(*)::int FROM e) AS row_ptr,
         (SELECT array_agg(di ORDER BY si, di) FROM e) AS col_idx
  FROM (SELECT k, (sum(c) OVER (ORDER BY k) - c)::int AS s FROM deg) x
)
SELECT (SELECT count(*) FROM ids) AS nodes,
       (SELECT array_send(array_agg(rank ORDER BY node))
        FROM gpu_pagerank_edges('SELECT src, dst FROM pr_big ORDER BY src, dst'))
       = array_send(gpu_pagerank(row_ptr, col_idx)) AS same_as_csr
FROM csr;

-- an empty query: no rows
SELECT count(*) FROM gpu_pagerank_edges('SELECT src, dst FROM pr_edges WHERE false');

-- errors: each the query's own, or a clear one of ours
SELECT * FROM gpu_pagerank_edges('SELECT src, NULL::bigint FROM pr_edges');
SELECT * FROM gpu_pagerank_edges('SELECT NULL::int, 1');
SELECT * FROM gpu_pagerank_edges('SELECT src FROM pr_edges');
SELECT * FROM gpu_pagerank_edges('SELECT src, dst, 1.0 FROM pr_edges');
SELECT * FROM gpu_pagerank_edges('SELECT src::numeric, dst FROM pr_edges');
SELECT * FROM gpu_pagerank_edges('SELECT src::text, dst::text FROM pr_edges');
SELECT * FROM gpu_pagerank_edges('SELECT 1 / 0, 1');
SELECT * FROM gpu_pagerank_edges('SELEC src, dst FROM pr_edges');
SELECT * FROM gpu_pagerank_edges('SELECT src, dst FROM no_such_table');
SELECT * FROM gpu_pagerank_edges('SELECT 1, 2; SELECT 3, 4');
SELECT * FROM gpu_pagerank_edges('CREATE TABLE pr_x (a int)');
SELECT * FROM gpu_pagerank_edges('DELETE FROM pr_edges RETURNING src, dst');
SELECT * FROM gpu_pagerank_edges('WITH d AS (DELETE FROM pr_edges RETURNING src, dst) SELECT * FROM d');
SELECT count(*) AS edges_left FROM pr_edges;
SELECT * FROM gpu_pagerank_edges('SELECT src, dst FROM pr_edges', 1.0);
SELECT * FROM gpu_pagerank_edges('SELECT src, dst FROM pr_edges', 0.85, -1);
SELECT * FROM gpu_pagerank_edges('SELECT src, dst FROM pr_edges', 0.85, 0, 0);

-- the query runs with the caller's privileges: a role that may not read
-- the table gets the permission error, and nothing of the table
CREATE ROLE regress_gpuscan_edges;
SET ROLE regress_gpuscan_edges;
SELECT * FROM gpu_pagerank_edges('SELECT src, dst FROM pr_edges');
RESET ROLE;
GRANT SELECT ON pr_edges TO regress_gpuscan_edges;
SET ROLE regress_gpuscan_edges;
SELECT count(*) FROM gpu_pagerank_edges('SELECT src, dst FROM pr_edges');
RESET ROLE;
REVOKE SELECT ON pr_edges FROM regress_gpuscan_edges;
DROP ROLE regress_gpuscan_edges;

-- The same bits as the CPU path's, in as many iterations, whatever path
-- this run takes.  pr_hub: pr_big and 5420 more links into one node
-- (4169 of the 5003 nodes link to it, 1251 of them twice), past a
-- 4096-entry segment of in-links.
CREATE TABLE pr_hub AS
SELECT src, dst FROM pr_big
UNION ALL
SELECT k * 1000000000 - 2500000000, 14500000000
FROM generate_series(0::bigint, 5002) k, generate_series(1, 2) c
WHERE k % 6 <> 0 AND (c = 1 OR k % 4 = 1);
SELECT count(*) AS hub_in_links FROM pr_hub WHERE dst = 14500000000;

-- a call's nodes and ranks as bytes; the iterations it takes: the fewest
-- max_iterations that give its bits (as pagerank_iterations in
-- sql/pagerank.sql)
CREATE FUNCTION pagerank_edges_bits(q text, d float8, t float8, m int) RETURNS bytea
LANGUAGE sql AS $$
  SELECT array_send(array_agg(node ORDER BY node)) || array_send(array_agg(rank ORDER BY node))
  FROM gpu_pagerank_edges(q, d, t, m)
$$;
CREATE FUNCTION pagerank_edges_iterations(q text, d float8, t float8, m int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  result bytea := pagerank_edges_bits(q, d, t, m);
  lo int := 1;
  hi int := m;
  mid int;
BEGIN
  WHILE lo < hi LOOP
    mid := (lo + hi) / 2;
    IF pagerank_edges_bits(q, d, t, mid) = result THEN
      hi := mid;
    ELSE
      lo := mid + 1;
    END IF;
  END LOOP;
  RETURN lo;
END
$$;

-- this run's results, before anything runs on the CPU path
CREATE TABLE pr_edge_results AS
SELECT q, d, t, m, pagerank_edges_bits(q, d, t, m) AS bits,
       pagerank_edges_iterations(q, d, t, m) AS iterations
FROM (VALUES ('SELECT src, dst FROM pr_edges'), ('SELECT src, dst FROM pr_hub')) g(q),
     (VALUES (0.85::float8, 1e-10::float8, 100), (0.5, 0, 7), (0.95, 1e-13, 1000)) p(d, t, m);
SELECT took_expected_path('gpu_pagerank_edges') AS pagerank_edges_path;

CREATE FUNCTION pagerank_edges_bits_cpu(q text, d float8, t float8, m int) RETURNS bytea
LANGUAGE plpgsql SET gpuscan.device = cpu AS $$
BEGIN
  RETURN pagerank_edges_bits(q, d, t, m);
END
$$;
CREATE FUNCTION pagerank_edges_iterations_cpu(q text, d float8, t float8, m int) RETURNS int
LANGUAGE plpgsql SET gpuscan.device = cpu AS $$
BEGIN
  RETURN pagerank_edges_iterations(q, d, t, m);
END
$$;
SELECT q AS query, d AS damping, t AS tolerance, m AS max_iterations, iterations,
       bits = pagerank_edges_bits_cpu(q, d, t, m) AS same_as_cpu,
       iterations = pagerank_edges_iterations_cpu(q, d, t, m) AS same_iterations_as_cpu
FROM pr_edge_results ORDER BY q, d DESC;

DROP TABLE pr_edge_results;
DROP TABLE pr_hub;
DROP TABLE pr_big;
DROP TABLE pr_edges;
