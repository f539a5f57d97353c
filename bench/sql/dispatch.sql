-- bench/sql/dispatch.sql -- the timing function of bench/dispatch_bench.sh.

CREATE SCHEMA IF NOT EXISTS dispatch;

-- dispatch.call_times(tbl, fn, devices, runs): fn called on the arrays of
-- table tbl runs + 1 times under each gpuscan.device of devices, the devices
-- taking turns call by call in this one session, so that every path sees the
-- same session, memory and machine state; each path's first call warms up.
-- The device 'own' is for an old build only, one from before the session's
-- own GPU path was removed: gpuscan.device = gpu on the session's own GPU
-- (that build's gpuscan.debug_session_gpu), beside the GPU service's 'gpu'.
-- Builds without the setting have no such path (bench/dispatch_bench.sh
-- refuses it there); without 'own' in devices the setting is not touched.
-- gpu_sum, gpu_prefix_sum_array and gpu_compact_array take columns a
-- (double precision[] or real[]) and k (boolean[]); gpu_csr_spmv and
-- gpu_pagerank a CSR matrix, row_ptr, col_idx, vals and x.  The arrays are
-- fetched once into variables, so every call gets them already in memory.
-- Returns one row per timed call: the device asked, the in-function time
-- from gpuscan_stats() and the path taken.
CREATE FUNCTION dispatch.call_times(tbl regclass, fn text, devices text[], runs int,
                                    OUT device text, OUT ms double precision, OUT path text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  a8 float8[];
  a4 real[];
  k bool[];
  rp int[];
  ci int[];
  is_real bool := false;
  csr bool := fn IN ('gpu_csr_spmv', 'gpu_pagerank');
  q text := CASE fn
    WHEN 'gpu_sum' THEN 'SELECT gpu_sum($1)'
    WHEN 'gpu_prefix_sum_array' THEN 'SELECT cardinality(gpu_prefix_sum_array($1))'
    WHEN 'gpu_compact_array' THEN 'SELECT cardinality(gpu_compact_array($1, $2))'
    WHEN 'gpu_csr_spmv' THEN 'SELECT cardinality(gpu_csr_spmv($3, $4, $1, $5))'
    WHEN 'gpu_pagerank' THEN 'SELECT cardinality(gpu_pagerank($3, $4))'
  END;
  x float8[];
BEGIN
  IF q IS NULL THEN
    RAISE EXCEPTION 'unknown function %', fn;
  END IF;
  IF csr THEN
    EXECUTE format('SELECT row_ptr, col_idx, vals, x FROM %s', tbl) INTO rp, ci, a8, x;
  ELSE
    EXECUTE format('SELECT pg_typeof(a) = ''real[]''::regtype FROM %s', tbl) INTO is_real;
    IF is_real THEN
      EXECUTE format('SELECT a, k FROM %s', tbl) INTO a4, k;
    ELSE
      EXECUTE format('SELECT a, k FROM %s', tbl) INTO a8, k;
    END IF;
  END IF;
  FOR i IN 0 .. runs LOOP
    FOREACH device IN ARRAY devices LOOP
      PERFORM set_config('gpuscan.device', CASE device WHEN 'own' THEN 'gpu' ELSE device END, true);
      -- an old build's own GPU path (see above)
      IF 'own' = ANY (devices) THEN
        PERFORM set_config('gpuscan.debug_session_gpu', (device = 'own')::text, true);
      END IF;
      PERFORM gpuscan_stats_reset();
      IF csr THEN
        EXECUTE q USING a8, k, rp, ci, x;
      ELSIF is_real THEN
        EXECUTE q USING a4, k;
      ELSE
        EXECUTE q USING a8, k;
      END IF;
      IF i > 0 THEN
        RETURN QUERY SELECT call_times.device, s.time_ms, s.path FROM gpuscan_stats() s WHERE s.function = fn;
      END IF;
    END LOOP;
  END LOOP;
END
$$;

-- dispatch.random_pieces(n, expr): the SQL of an array of n > 0 values of
-- expr, as the concatenation of array_agg's of at most 20 million (an
-- array of 1e8 elements would pass array_agg's 1 GB of working memory)
CREATE FUNCTION dispatch.random_pieces(n bigint, expr text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  piece constant bigint := 20000000;
  done bigint := 0;
  parts text[] := '{}';
BEGIN
  WHILE done < n LOOP
    parts := parts || format('(SELECT array_agg(%s) FROM generate_series(1, %s))', expr,
                             least(piece, n - done));
    done := done + piece;
  END LOOP;
  RETURN array_to_string(parts, ' || ');
END
$$;
