-- bench/sql/dispatch.sql -- the timing function of bench/dispatch_bench.sh.

CREATE SCHEMA IF NOT EXISTS dispatch;

-- dispatch.call_times(tbl, fn, device, runs): fn (gpu_sum,
-- gpu_prefix_sum_array or gpu_compact_array) called runs + 1 times on the
-- arrays of table tbl (columns a, double precision[] or real[], and k,
-- boolean[]) under gpuscan.device = device; the first call warms up.  The
-- arrays are fetched once into variables, so every call gets them already
-- in memory.  Returns one row per timed call: its in-function time from
-- gpuscan_stats() and the path it took.
CREATE FUNCTION dispatch.call_times(tbl regclass, fn text, device text, runs int,
                                    OUT ms double precision, OUT path text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  a8 float8[];
  a4 real[];
  k bool[];
  is_real bool;
  q text := CASE fn
    WHEN 'gpu_sum' THEN 'SELECT gpu_sum($1)'
    WHEN 'gpu_prefix_sum_array' THEN 'SELECT cardinality(gpu_prefix_sum_array($1))'
    WHEN 'gpu_compact_array' THEN 'SELECT cardinality(gpu_compact_array($1, $2))'
  END;
BEGIN
  IF q IS NULL THEN
    RAISE EXCEPTION 'unknown function %', fn;
  END IF;
  EXECUTE format('SELECT pg_typeof(a) = ''real[]''::regtype FROM %s', tbl) INTO is_real;
  IF is_real THEN
    EXECUTE format('SELECT a, k FROM %s', tbl) INTO a4, k;
  ELSE
    EXECUTE format('SELECT a, k FROM %s', tbl) INTO a8, k;
  END IF;
  PERFORM set_config('gpuscan.device', device, true);
  FOR i IN 0 .. runs LOOP
    PERFORM gpuscan_stats_reset();
    IF is_real THEN
      EXECUTE q USING a4, k;
    ELSE
      EXECUTE q USING a8, k;
    END IF;
    IF i > 0 THEN
      RETURN QUERY SELECT s.time_ms, s.path FROM gpuscan_stats() s WHERE s.function = fn;
    END IF;
  END LOOP;
END
$$;
