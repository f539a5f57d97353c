/* gpuscan--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION gpuscan UPDATE TO '1.1'" to load this file. \quit

-- 1.1 changes no function, aggregate or type of 1.0: the gpu_sum aggregates'
-- state has a new, compact form that the same functions read and write (a
-- state is never stored, only passed between the processes of one query),
-- and the aggregates' support functions get comments.

COMMENT ON FUNCTION gpu_sum_accum_support(internal) IS
'planner support function of the gpu_sum transition functions (loads the library while an aggregate query is planned); not for direct use';

COMMENT ON FUNCTION gpu_sum_float8_accum(bytea, double precision) IS
'transition function of the gpu_sum(double precision) aggregate; only callable as an aggregate support function';

COMMENT ON FUNCTION gpu_sum_float4_accum(bytea, real) IS
'transition function of the gpu_sum(real) aggregate; only callable as an aggregate support function';

COMMENT ON FUNCTION gpu_sum_combine(bytea, bytea) IS
'combine function of the gpu_sum aggregates: merges two partial states (checked first: a bad state is an error)';

COMMENT ON FUNCTION gpu_sum_final(bytea) IS
'final function of the gpu_sum aggregates: the exact sum of a state, rounded once';
