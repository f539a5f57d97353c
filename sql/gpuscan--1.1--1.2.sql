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
