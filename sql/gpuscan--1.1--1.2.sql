/* gpuscan--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION gpuscan UPDATE TO '1.2'" to load this file. \quit

-- 1.2: gpuscan_stats() gains a column, last_reason: why the last call of
-- each function took its path (the cost model's prediction, a setting).
-- A function's result columns cannot change in place: drop and create it.

DROP FUNCTION gpuscan_stats();
CREATE FUNCTION gpuscan_stats(OUT function text, OUT path text, OUT calls bigint,
                              OUT elements bigint, OUT bytes_moved bigint,
                              OUT time_ms double precision, OUT last_reason text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuscan_stats'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuscan_stats() IS
'calls, elements, bytes moved to and from the GPU, time, and why the last call took its path, per function and path (cpu or gpu), in this session';

-- 1.2: PageRank over a query that returns the edges, with the nodes' own ids.

CREATE FUNCTION gpu_pagerank_edges(edges_query text,
                                   damping double precision DEFAULT 0.85,
                                   tolerance double precision DEFAULT 1e-10,
                                   max_iterations integer DEFAULT 100)
RETURNS TABLE (node bigint, rank double precision)
AS 'MODULE_PATHNAME', 'gpu_pagerank_edges'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE ROWS 1000;

COMMENT ON FUNCTION gpu_pagerank_edges(text, double precision, double precision, integer) IS
'PageRank of the graph whose edges the query returns as (source, target) rows of integer types (any ids; run read-only with the caller''s privileges; duplicate edges count as several links, self-loops allowed, a node seen only as a target is a node, dangling nodes spread their rank uniformly): one row (node, rank) per node in increasing order of node; the iteration as in gpu_pagerank, on the CPU or the GPU with the same bits';
