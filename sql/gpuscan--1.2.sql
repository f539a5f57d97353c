/* gpuscan--1.2.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION gpuscan" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Information and statistics
-- ---------------------------------------------------------------------------

CREATE FUNCTION gpuscan_info(OUT item text, OUT value text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuscan_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuscan_info() IS
'the build, the GPU service and its GPUs, the CUDA driver and the devices, and whether this session''s calls can run on a GPU (and why not)';

CREATE FUNCTION gpuscan_stats(OUT function text, OUT path text, OUT device integer,
                              OUT calls bigint,
                              OUT elements bigint, OUT bytes_moved bigint,
                              OUT time_ms double precision, OUT last_reason text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuscan_stats'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuscan_stats() IS
'calls, elements, bytes moved to and from the GPU, time, and why the last call took its path, per function, path (cpu, or gpu service with how a stored array got there) and GPU, in this session';

CREATE FUNCTION gpuscan_stats_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'gpuscan_stats_reset'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuscan_stats_reset() IS
'forget the counters that gpuscan_stats() reports for this session';

-- ---------------------------------------------------------------------------
-- Reduction: gpu_sum
-- ---------------------------------------------------------------------------

CREATE FUNCTION gpu_sum(vals double precision[])
RETURNS double precision
AS 'MODULE_PATHNAME', 'gpu_sum_float8_array'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_sum(double precision[]) IS
'exact sum of the elements, rounded once to double precision; 0 for an empty array';

CREATE FUNCTION gpu_sum(vals real[])
RETURNS double precision
AS 'MODULE_PATHNAME', 'gpu_sum_float4_array'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_sum(real[]) IS
'exact sum of the elements, rounded once to double precision; 0 for an empty array';

-- The transition functions' planner support function answers nothing, but
-- the planner calling it loads the library in time for the query it plans,
-- so that whole-table gpu_sum queries can get the GpuscanSum scan even as
-- a session's first query (see src/planner/sum_table_scan.c).
CREATE FUNCTION gpu_sum_accum_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_sum_accum_support'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_sum_float8_accum(state bytea, value double precision)
RETURNS bytea
AS 'MODULE_PATHNAME', 'gpu_sum_float8_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE
SUPPORT gpu_sum_accum_support;

CREATE FUNCTION gpu_sum_float4_accum(state bytea, value real)
RETURNS bytea
AS 'MODULE_PATHNAME', 'gpu_sum_float4_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE
SUPPORT gpu_sum_accum_support;

CREATE FUNCTION gpu_sum_combine(state1 bytea, state2 bytea)
RETURNS bytea
AS 'MODULE_PATHNAME', 'gpu_sum_combine'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_sum_final(state bytea)
RETURNS double precision
AS 'MODULE_PATHNAME', 'gpu_sum_final'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

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

CREATE AGGREGATE gpu_sum(double precision) (
    SFUNC = gpu_sum_float8_accum,
    STYPE = bytea,
    FINALFUNC = gpu_sum_final,
    COMBINEFUNC = gpu_sum_combine,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_sum(double precision) IS
'exact sum of the non-NULL values, rounded once: the same bits for any plan, order or number of workers; NULL when there are none';

CREATE AGGREGATE gpu_sum(real) (
    SFUNC = gpu_sum_float4_accum,
    STYPE = bytea,
    FINALFUNC = gpu_sum_final,
    COMBINEFUNC = gpu_sum_combine,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_sum(real) IS
'exact sum of the non-NULL values as double precision, rounded once; NULL when there are none';

-- ---------------------------------------------------------------------------
-- Prefix sums
-- ---------------------------------------------------------------------------

CREATE FUNCTION gpu_prefix_sum(vals double precision[], exclusive boolean DEFAULT false)
RETURNS SETOF double precision
AS 'MODULE_PATHNAME', 'gpu_prefix_sum_float8'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_prefix_sum(double precision[], boolean) IS
'prefix sums of the elements, one row per element in order (use WITH ORDINALITY for the position): each the exact sum through that element (exclusive: before it) rounded once to double precision';

CREATE FUNCTION gpu_prefix_sum(vals real[], exclusive boolean DEFAULT false)
RETURNS SETOF double precision
AS 'MODULE_PATHNAME', 'gpu_prefix_sum_float4'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_prefix_sum(real[], boolean) IS
'prefix sums of the elements as double precision, one row per element in order: each the exact sum through that element (exclusive: before it) rounded once';

CREATE FUNCTION gpu_prefix_sum_array(vals double precision[], exclusive boolean DEFAULT false)
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'gpu_prefix_sum_array_float8'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_prefix_sum_array(double precision[], boolean) IS
'prefix sums as an array with the input''s bounds: element i is the exact sum through element i (exclusive: before it) rounded once to double precision';

CREATE FUNCTION gpu_prefix_sum_array(vals real[], exclusive boolean DEFAULT false)
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'gpu_prefix_sum_array_float4'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_prefix_sum_array(real[], boolean) IS
'prefix sums of real elements as a double precision array with the input''s bounds, each the exact sum rounded once';

CREATE FUNCTION gpu_running_sum(value double precision)
RETURNS double precision
AS 'MODULE_PATHNAME', 'gpu_running_sum_float8'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_running_sum(double precision) IS
'window function: the exact sum of the non-NULL values from the partition''s first row through the current row, rounded once (NULL before the first value); always ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, whatever the frame clause says';

CREATE FUNCTION gpu_running_sum(value real)
RETURNS double precision
AS 'MODULE_PATHNAME', 'gpu_running_sum_float4'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_running_sum(real) IS
'window function: the exact sum of the non-NULL real values from the partition''s first row through the current row, rounded once to double precision; always ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW';

-- ---------------------------------------------------------------------------
-- Stream compaction
-- ---------------------------------------------------------------------------

CREATE FUNCTION gpu_compact(vals double precision[], keep boolean[])
RETURNS SETOF double precision
AS 'MODULE_PATHNAME', 'gpu_compact_float8'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_compact(double precision[], boolean[]) IS
'the elements of vals whose keep is true, one row each, in their original order; a NULL in keep counts as false';

CREATE FUNCTION gpu_compact(vals real[], keep boolean[])
RETURNS SETOF real
AS 'MODULE_PATHNAME', 'gpu_compact_float4'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_compact(real[], boolean[]) IS
'the elements of vals whose keep is true, one row each, in their original order; a NULL in keep counts as false';

CREATE FUNCTION gpu_compact_array(vals double precision[], keep boolean[])
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'gpu_compact_array_float8'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_compact_array(double precision[], boolean[]) IS
'the elements of vals whose keep is true, in their original order, as an array starting at 1 (empty if none); a NULL in keep counts as false';

CREATE FUNCTION gpu_compact_array(vals real[], keep boolean[])
RETURNS real[]
AS 'MODULE_PATHNAME', 'gpu_compact_array_float4'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_compact_array(real[], boolean[]) IS
'the elements of vals whose keep is true, in their original order, as an array starting at 1 (empty if none); a NULL in keep counts as false';

CREATE FUNCTION gpu_compact_indices(keep boolean[])
RETURNS SETOF integer
AS 'MODULE_PATHNAME', 'gpu_compact_indices'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_compact_indices(boolean[]) IS
'the 1-based positions (as WITH ORDINALITY counts) of the true elements of keep, one row each, in increasing order';

CREATE FUNCTION gpu_compact_indices_array(keep boolean[])
RETURNS integer[]
AS 'MODULE_PATHNAME', 'gpu_compact_indices_array'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_compact_indices_array(boolean[]) IS
'the 1-based positions (as WITH ORDINALITY counts) of the true elements of keep, in increasing order, as an array (empty if none)';

-- ---------------------------------------------------------------------------
-- Sparse matrix x vector (CSR) and PageRank
-- ---------------------------------------------------------------------------

CREATE FUNCTION gpu_csr_spmv(row_ptr integer[], col_idx integer[],
                             vals double precision[], x double precision[])
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'gpu_csr_spmv_float8'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_csr_spmv(integer[], integer[], double precision[], double precision[]) IS
'y = A x for the CSR matrix A (0-based row_ptr of nrows + 1 entries starting at 0, 0-based col_idx, vals), as an array of nrows elements; each row summed in one fixed order, the same bits on the CPU and the GPU';

CREATE FUNCTION gpu_csr_spmv(row_ptr integer[], col_idx integer[], vals real[], x real[])
RETURNS real[]
AS 'MODULE_PATHNAME', 'gpu_csr_spmv_float4'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_csr_spmv(integer[], integer[], real[], real[]) IS
'y = A x for the CSR matrix A over real: products and sums in double precision, each row rounded to real once; 0-based row_ptr and col_idx';

CREATE FUNCTION gpu_csr_spmv_rows(row_ptr integer[], col_idx integer[],
                                  vals double precision[], x double precision[])
RETURNS TABLE(row_index integer, value double precision)
AS 'MODULE_PATHNAME', 'gpu_csr_spmv_rows_float8'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION gpu_csr_spmv_rows(integer[], integer[], double precision[], double precision[]) IS
'y = A x as one row per matrix row, in order: row_index is 0-based like row_ptr and col_idx, value is y[row_index]';

CREATE FUNCTION gpu_csr_spmv_rows(row_ptr integer[], col_idx integer[], vals real[], x real[])
RETURNS TABLE(row_index integer, value real)
AS 'MODULE_PATHNAME', 'gpu_csr_spmv_rows_float4'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION gpu_csr_spmv_rows(integer[], integer[], real[], real[]) IS
'y = A x over real as one row per matrix row, in order: row_index is 0-based, value is y[row_index]';

CREATE FUNCTION gpu_pagerank(row_ptr integer[], col_idx integer[],
                             damping double precision DEFAULT 0.85,
                             tolerance double precision DEFAULT 1e-10,
                             max_iterations integer DEFAULT 100)
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'gpu_pagerank'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_pagerank(integer[], integer[], double precision, double precision, integer) IS
'PageRank of the graph whose CSR row i lists the targets of node i''s out-links (0-based; n = length(row_ptr) - 1 nodes; duplicate edges count as several links, self-loops allowed; dangling nodes spread their rank uniformly): power iteration until the L1 change is at most tolerance or max_iterations; element i + 1 of the result is node i; the same bits on the CPU and the GPU';


CREATE FUNCTION gpu_pagerank_edges(edges_query text,
                                   damping double precision DEFAULT 0.85,
                                   tolerance double precision DEFAULT 1e-10,
                                   max_iterations integer DEFAULT 100)
RETURNS TABLE (node bigint, rank double precision)
AS 'MODULE_PATHNAME', 'gpu_pagerank_edges'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE ROWS 1000;

COMMENT ON FUNCTION gpu_pagerank_edges(text, double precision, double precision, integer) IS
'PageRank of the graph whose edges the query returns as (source, target) rows of integer types (any ids; run read-only with the caller''s privileges; duplicate edges count as several links, self-loops allowed, a node seen only as a target is a node, dangling nodes spread their rank uniformly): one row (node, rank) per node in increasing order of node; the iteration as in gpu_pagerank, on the CPU or the GPU with the same bits';


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
