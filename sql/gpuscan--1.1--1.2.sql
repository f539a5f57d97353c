/* gpuscan--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION gpuscan UPDATE TO '1.2'" to load this file. \quit

-- 1.2: gpuscan_stats() gains a column, last_reason: why the last call of
-- each function took its path (the cost model's prediction, a setting).
-- A function's result columns cannot change in place: drop and create it.

DROP FUNCTION gpuscan_stats();
CREATE FUNCTION gpuscan_stats(OUT function text, OUT path text, OUT device integer,
                              OUT calls bigint,
                              OUT elements bigint, OUT bytes_moved bigint,
                              OUT time_ms double precision, OUT last_reason text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuscan_stats'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuscan_stats() IS
'calls, elements, bytes moved to and from the GPU, time, and why the last call took its path, per function, path (cpu, or gpu service with how a stored array got there) and GPU, in this session';

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

-- 1.2: sparse matrices built from (row, column, value) rows.

CREATE TYPE gpu_csr AS (nrows integer, ncols integer, row_ptr integer[],
                        col_idx integer[], vals double precision[]);

COMMENT ON TYPE gpu_csr IS
'a sparse matrix in CSR, 0-based, as gpu_csr_agg builds it: nrows + 1 row_ptr entries, columns sorted within each row, one entry per (row, column)';

CREATE FUNCTION gpu_csr_agg_trans(internal, bigint, bigint, double precision)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_csr_agg_trans'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpu_csr_agg_trans(internal, bigint, bigint, double precision, integer, integer)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_csr_agg_trans'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpu_csr_agg_final(internal)
RETURNS gpu_csr
AS 'MODULE_PATHNAME', 'gpu_csr_agg_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpu_csr_agg_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_csr_agg_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION gpu_csr_agg_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'gpu_csr_agg_serialize'
LANGUAGE C STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_csr_agg_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_csr_agg_deserialize'
LANGUAGE C STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_csr_agg_trans(internal, bigint, bigint, double precision) IS
'transition function of gpu_csr_agg: checks and keeps one triple';
COMMENT ON FUNCTION gpu_csr_agg_trans(internal, bigint, bigint, double precision, integer, integer) IS
'transition function of gpu_csr_agg with the sizes given: checks and keeps one triple';
COMMENT ON FUNCTION gpu_csr_agg_final(internal) IS
'final function of gpu_csr_agg: sorts the triples by (row, column) and adds duplicates exactly';
COMMENT ON FUNCTION gpu_csr_agg_combine(internal, internal) IS
'combine function of gpu_csr_agg: appends a parallel worker''s triples to the leader''s';
COMMENT ON FUNCTION gpu_csr_agg_serialize(internal) IS
'serial function of gpu_csr_agg: a parallel worker''s triples as bytea';
COMMENT ON FUNCTION gpu_csr_agg_deserialize(bytea, internal) IS
'deserial function of gpu_csr_agg: checks and reads what gpu_csr_agg_serialize wrote';

CREATE AGGREGATE gpu_csr_agg(row_index bigint, col_index bigint, value double precision) (
    SFUNC = gpu_csr_agg_trans,
    STYPE = internal,
    FINALFUNC = gpu_csr_agg_final,
    COMBINEFUNC = gpu_csr_agg_combine,
    SERIALFUNC = gpu_csr_agg_serialize,
    DESERIALFUNC = gpu_csr_agg_deserialize,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_csr_agg(bigint, bigint, double precision) IS
'the sparse matrix (gpu_csr) of (row, column, value) triples, 0-based: nrows and ncols one past the largest indexes; duplicates added exactly (rounded once), whatever their order; NULL for no rows';

CREATE AGGREGATE gpu_csr_agg(row_index bigint, col_index bigint, value double precision,
                             nrows integer, ncols integer) (
    SFUNC = gpu_csr_agg_trans,
    STYPE = internal,
    FINALFUNC = gpu_csr_agg_final,
    COMBINEFUNC = gpu_csr_agg_combine,
    SERIALFUNC = gpu_csr_agg_serialize,
    DESERIALFUNC = gpu_csr_agg_deserialize,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_csr_agg(bigint, bigint, double precision, integer, integer) IS
'the sparse matrix (gpu_csr) of (row, column, value) triples, 0-based, of the sizes given (the same on every row; each index below them); duplicates added exactly; NULL for no rows';

CREATE FUNCTION gpu_csr_spmv(matrix gpu_csr, x double precision[])
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'gpu_csr_spmv_matrix'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_csr_spmv(gpu_csr, double precision[]) IS
'y = A x for a matrix built by gpu_csr_agg; x must have ncols elements; as gpu_csr_spmv over the arrays';

-- The GPU service's device cache of stored arrays

CREATE FUNCTION gpuscan_cache_entries(OUT database_oid oid, OUT toast_relation oid,
                                      OUT value_id oid, OUT kind text, OUT element_type regtype,
                                      OUT elements bigint, OUT bytes bigint, OUT device integer,
                                      OUT hits bigint, OUT loaded_at timestamp with time zone,
                                      OUT last_use timestamp with time zone)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuscan_cache_entries'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuscan_cache_entries() IS
'the entries of the GPU service''s device cache, in every database (the gpuscan_cache view names them)';

CREATE VIEW gpuscan_cache AS
SELECT d.datname AS database,
       c.oid::regclass AS relation,
       e.value_id, e.kind, e.element_type, e.elements, e.bytes, e.device, e.hits, e.loaded_at, e.last_use
FROM gpuscan_cache_entries() e
LEFT JOIN pg_database d ON d.oid = e.database_oid
LEFT JOIN pg_class c ON c.reltoastrelid = e.toast_relation
                    AND e.database_oid = (SELECT oid FROM pg_database WHERE datname = current_database());

COMMENT ON VIEW gpuscan_cache IS
'what the GPU service keeps on the GPU: stored arrays (kind array) and what it derived from them (kinds spmv plan, pagerank graph), with their database, table (in the current database), size, hits and times';

REVOKE ALL ON FUNCTION gpuscan_cache_entries() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION gpuscan_cache_entries() TO pg_monitor;
REVOKE ALL ON gpuscan_cache FROM PUBLIC;
GRANT SELECT ON gpuscan_cache TO pg_monitor;

CREATE FUNCTION gpuscan_cache_reset()
RETURNS bigint
AS 'MODULE_PATHNAME', 'gpuscan_cache_reset'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuscan_cache_reset() IS
'empty the GPU service''s device cache, in every database; returns the number of entries freed';

REVOKE ALL ON FUNCTION gpuscan_cache_reset() FROM PUBLIC;

-- 1.2: all GPU work runs in the GPU service (gpuscan in
-- shared_preload_libraries); a session never opens a GPU of its own, so it
-- holds no device memory, and gpuscan_device_memory() goes.  The GPU
-- service's device memory is in gpuscan_info() (the rows
-- 'gpu_service_device N memory').

DROP FUNCTION gpuscan_device_memory();

COMMENT ON FUNCTION gpuscan_info() IS
'the build, the GPU service and its GPUs, the CUDA driver and the devices, and whether this session''s calls can run on a GPU (and why not)';

