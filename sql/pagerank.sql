-- gpu_pagerank: row i of the CSR lists the targets of node i's out-links.
-- Against an independent PL/pgSQL power iteration, within tolerance; against
-- the CPU path bit for bit, in as many iterations.

-- the textbook iteration, written independently: push each node's rank
-- along its out-links, spread the dangling nodes' rank over all nodes
CREATE FUNCTION pagerank_reference(rp int[], ci int[], d float8, iterations int)
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  n int := cardinality(rp) - 1;
  r float8[] := array_fill(1.0::float8 / n, ARRAY[n]);
  nr float8[];
  dangling float8;
  deg int;
BEGIN
  FOR it IN 1 .. iterations LOOP
    nr := array_fill(0::float8, ARRAY[n]);
    dangling := 0;
    FOR i IN 1 .. n LOOP
      deg := rp[i + 1] - rp[i];
      IF deg = 0 THEN
        dangling := dangling + r[i];
      ELSE
        FOR k IN rp[i] + 1 .. rp[i + 1] LOOP
          nr[ci[k] + 1] := nr[ci[k] + 1] + r[i] / deg;
        END LOOP;
      END IF;
    END LOOP;
    FOR j IN 1 .. n LOOP
      nr[j] := (1 - d) / n + d * (nr[j] + dangling / n);
    END LOOP;
    r := nr;
  END LOOP;
  RETURN r;
END
$$;

-- max_abs_diff -- the largest |a[i] - b[i]|
CREATE FUNCTION max_abs_diff(a float8[], b float8[]) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT max(abs(x - y)) FROM unnest(a, b) u(x, y)
$$;

-- 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 0, 3 -> 2; node 4 is dangling
SELECT round(x::numeric, 6) AS rank, i - 1 AS node
FROM unnest(gpu_pagerank('{0,2,3,4,5,5}', '{1,2,2,0,2}')) WITH ORDINALITY u(x, i);
SELECT max_abs_diff(gpu_pagerank('{0,2,3,4,5,5}', '{1,2,2,0,2}', tolerance => 1e-14, max_iterations => 500),
                    pagerank_reference('{0,2,3,4,5,5}', '{1,2,2,0,2}', 0.85, 300)) < 1e-12 AS matches_reference,
       abs(gpu_sum(gpu_pagerank('{0,2,3,4,5,5}', '{1,2,2,0,2}')) - 1) < 1e-12 AS sums_to_one;

-- a 2-cycle; one node; one node with a self-loop; no nodes
SELECT round(x::numeric, 12) AS two_cycle FROM unnest(gpu_pagerank('{0,1,2}', '{1,0}')) x;
SELECT gpu_pagerank('{0,0}', '{}') AS lone_node, gpu_pagerank('{0,1}', '{0}') AS self_loop;
SELECT gpu_pagerank('{0}', '{}') AS no_nodes;
-- damping 0: every node gets 1/n, exactly
SELECT gpu_pagerank('{0,1,1,3,3}', '{2,0,3}', damping => 0) AS uniform;
-- all nodes dangling: uniform too
SELECT gpu_pagerank('{0,0,0,0,0}', '{}') AS all_dangling;
-- one iteration only, against the reference's first iteration
SELECT max_abs_diff(gpu_pagerank('{0,2,3,4,5,5}', '{1,2,2,0,2}', max_iterations => 1),
                    pagerank_reference('{0,2,3,4,5,5}', '{1,2,2,0,2}', 0.85, 1)) < 1e-15 AS one_iteration;

-- random graphs with duplicate edges, self-loops and dangling nodes
SELECT setseed(0.75);
CREATE TABLE pr_graphs AS
WITH params(id, n, maxdeg) AS (VALUES (1, 10, 3), (2, 200, 12), (3, 400, 20), (4, 50, 1)),
degs AS (
  SELECT id, i, CASE WHEN random() < 0.2 THEN 0 ELSE floor(random() * (maxdeg + 1))::int END AS deg
  FROM params, generate_series(0, n - 1) i),
edges AS (
  SELECT d.id, d.i, g, floor(random() * p.n)::int AS target
  FROM degs d JOIN params p USING (id), generate_series(1, d.deg) g)
SELECT p.id, p.n,
  (SELECT '{0}'::int[] || array_agg(c::int ORDER BY i)
     FROM (SELECT i, sum(deg) OVER (ORDER BY i) c FROM degs d WHERE d.id = p.id) s) AS rp,
  (SELECT coalesce(array_agg(target ORDER BY i, g), '{}') FROM edges e WHERE e.id = p.id) AS ci
FROM params p;
CREATE TABLE pr_refs AS SELECT id, pagerank_reference(rp, ci, 0.85, 200) AS ref FROM pr_graphs;
SELECT id, n, cardinality(ci) AS edges,
       max_abs_diff(gpu_pagerank(rp, ci, 0.85, 1e-15, 1000), ref) < 1e-12 AS matches_reference,
       abs(gpu_sum(gpu_pagerank(rp, ci)) - 1) < 1e-12 AS sums_to_one,
       max_abs_diff(gpu_pagerank(rp, ci, 0.5, 0, 7), pagerank_reference(rp, ci, 0.5, 7)) < 1e-14
         AS seven_iterations
FROM pr_graphs JOIN pr_refs USING (id) ORDER BY id;

-- a stricter tolerance takes at least as many iterations, and lands closer
SELECT id, max_abs_diff(gpu_pagerank(rp, ci, tolerance => 1e-4), ref)
         >= max_abs_diff(gpu_pagerank(rp, ci, tolerance => 1e-12), ref) AS tighter_is_closer
FROM pr_graphs JOIN pr_refs USING (id) WHERE id = 3;

-- invalid parameters and graphs
\set VERBOSITY default
SELECT gpu_pagerank('{0,1}', '{0}', damping => 1);
SELECT gpu_pagerank('{0,1}', '{0}', damping => -0.1);
SELECT gpu_pagerank('{0,1}', '{0}', damping => 'NaN');
SELECT gpu_pagerank('{0,1}', '{0}', tolerance => -1e-9);
SELECT gpu_pagerank('{0,1}', '{0}', max_iterations => 0);
SELECT gpu_pagerank('{0,1}', '{1}');
SELECT gpu_pagerank('{0,2,1}', '{0,1}');
SELECT gpu_pagerank('{0,1,NULL}', '{0}');
SELECT gpu_pagerank('{}', '{}');
SELECT gpu_pagerank('{0,1,2}', '{0}');

-- The same bits as the CPU path's, in as many iterations, whatever path
-- this run takes.  A graph whose in-link sums are not exact in any order:
-- out-degrees 0 to 11 (nodes 0 and i % 13 = 5 dangling), node 0 with
-- 7389 in-links and node 1 with 5541 (each past a 4096-entry segment),
-- duplicate edges and self-loops.
CREATE TABLE pr_hub_links AS
SELECT i, 0 AS j, 0 AS target FROM generate_series(0, 11999) i WHERE i % 13 <> 5 AND i % 3 <> 0
UNION ALL
SELECT i, 1, 1 FROM generate_series(0, 11999) i WHERE i % 13 <> 5 AND i % 2 = 1
UNION ALL
SELECT i, 1 + j, ((i::bigint * 7919 + j * 104729) % 12000)::int
FROM generate_series(0, 11999) i, generate_series(1, i % 9) j WHERE i % 13 <> 5;
INSERT INTO pr_graphs
SELECT 5, 12000,
  (SELECT '{0}'::int[] || array_agg(c::int ORDER BY i)
     FROM (SELECT i, sum(count(l.i)) OVER (ORDER BY i) c
           FROM generate_series(0, 11999) i LEFT JOIN pr_hub_links l USING (i) GROUP BY i) s),
  (SELECT array_agg(target ORDER BY i, j) FROM pr_hub_links);
SELECT (SELECT count(*) FROM pr_hub_links WHERE target = 0) AS node_0_in_links,
       (SELECT count(*) FROM pr_hub_links WHERE target = 1) AS node_1_in_links,
       (SELECT count(*) FROM pr_hub_links) AS edges;

-- the iterations a call takes: the fewest max_iterations that give the
-- call's bits (each iteration's ranks are a function of the last ones, so
-- those after the last iteration are never the same; only a last
-- iteration that changed nothing would not count)
CREATE FUNCTION pagerank_iterations(rp int[], ci int[], d float8, t float8, m int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  result bytea := array_send(gpu_pagerank(rp, ci, d, t, m));
  lo int := 1;
  hi int := m;
  mid int;
BEGIN
  WHILE lo < hi LOOP
    mid := (lo + hi) / 2;
    IF array_send(gpu_pagerank(rp, ci, d, t, mid)) = result THEN
      hi := mid;
    ELSE
      lo := mid + 1;
    END IF;
  END LOOP;
  RETURN lo;
END
$$;

-- this run's ranks and iterations, before anything runs on the CPU path
CREATE TABLE pr_results AS
SELECT id, d, t, m, gpu_pagerank(rp, ci, d, t, m) AS ranks,
       pagerank_iterations(rp, ci, d, t, m) AS iterations
FROM pr_graphs,
     (VALUES (0.85::float8, 1e-10::float8, 100), (0.5, 0, 7), (0.95, 1e-13, 1000)) p(d, t, m);
SELECT took_expected_path('gpu_pagerank') AS pagerank_path;

CREATE FUNCTION pagerank_cpu(rp int[], ci int[], d float8, t float8, m int) RETURNS float8[]
LANGUAGE plpgsql SET gpuscan.device = cpu AS $$
BEGIN
  RETURN gpu_pagerank(rp, ci, d, t, m);
END
$$;
CREATE FUNCTION pagerank_iterations_cpu(rp int[], ci int[], d float8, t float8, m int) RETURNS int
LANGUAGE plpgsql SET gpuscan.device = cpu AS $$
BEGIN
  RETURN pagerank_iterations(rp, ci, d, t, m);
END
$$;
SELECT id, d AS damping, t AS tolerance, m AS max_iterations, iterations,
       array_send(ranks) = array_send(pagerank_cpu(rp, ci, d, t, m)) AS same_as_cpu,
       iterations = pagerank_iterations_cpu(rp, ci, d, t, m) AS same_iterations_as_cpu
FROM pr_results JOIN pr_graphs USING (id) ORDER BY id, d DESC;
