-- gpuscan regression tests: setup.
-- The suite runs once with gpuscan.device = cpu and, where a GPU is usable,
-- once more with gpuscan.device = gpu and gpuscan.gpu_min_elements = 0
-- (set through PGOPTIONS by test/check.sh); the expected output is the same.
CREATE EXTENSION gpuscan;

-- The exact value of a double as numeric, from its bits: an independent
-- reference that does not go through float8's 15-digit numeric cast.
CREATE FUNCTION float8_exact(x float8) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  WITH b AS (SELECT ('x' || encode(float8send(x), 'hex'))::bit(64)::bigint AS bits),
       f AS (SELECT bits < 0 AS neg, (bits >> 52) & 2047 AS e,
                    bits & 4503599627370495 AS m FROM b),
       v AS (SELECT neg,
                    (CASE WHEN e = 0 THEN m ELSE m + 4503599627370496 END)::numeric AS mant,
                    (CASE WHEN e = 0 THEN 1 ELSE e END - 1075)::int AS p FROM f)
  SELECT (CASE WHEN neg THEN -1 ELSE 1 END) *
         CASE WHEN p >= 0 THEN mant * (2::numeric ^ p)
              ELSE mant * (5::numeric ^ (-p)) * ('1e' || p)::numeric END
  FROM v
$$;

-- The exact sum of an array rounded once to the nearest double (numeric to
-- float8 conversion rounds correctly), with IEEE rules for Inf, NaN, -0.
CREATE FUNCTION exact_sum_reference(a float8[]) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  s numeric := 0;
  x float8;
  pos_inf bool := false;
  neg_inf bool := false;
  only_negzero bool := cardinality(a) > 0;
  -- halfway between the largest double and 2^1024: from here on, Infinity
  overflow numeric := float8_exact('1.7976931348623157e308') + 2::numeric ^ 970;
BEGIN
  FOREACH x IN ARRAY a LOOP
    IF x = 'NaN'::float8 THEN RETURN 'NaN'; END IF;
    IF x = 'Infinity'::float8 THEN pos_inf := true;
    ELSIF x = '-Infinity'::float8 THEN neg_inf := true;
    ELSE
      IF NOT (x = 0 AND float8send(x) = float8send('-0'::float8)) THEN
        only_negzero := false;
      END IF;
      s := s + float8_exact(x);
    END IF;
  END LOOP;
  IF pos_inf AND neg_inf THEN RETURN 'NaN'; END IF;
  IF pos_inf THEN RETURN 'Infinity'; END IF;
  IF neg_inf THEN RETURN '-Infinity'; END IF;
  IF s = 0 THEN RETURN CASE WHEN only_negzero THEN '-0'::float8 ELSE 0 END; END IF;
  IF s >= overflow THEN RETURN 'Infinity'; END IF;
  IF s <= -overflow THEN RETURN '-Infinity'; END IF;
  RETURN s::float8;
END
$$;

-- Same double, bit for bit (so 0 and -0 differ), NaN equal to NaN.
CREATE FUNCTION same_float8(a float8, b float8) RETURNS bool
LANGUAGE sql IMMUTABLE AS $$
  SELECT (a = 'NaN' AND b = 'NaN') OR float8send(a) = float8send(b)
$$;

-- Whether the calls counted in gpuscan_stats() for fn all took the path
-- this run asks for: the GPU service when gpuscan.device = gpu, else the
-- CPU (gpuscan.device = cpu, or auto on a machine with no usable GPU).
CREATE FUNCTION took_expected_path(fn text) RETURNS bool
LANGUAGE sql AS $$
  SELECT coalesce(bool_and(CASE current_setting('gpuscan.device')
                             WHEN 'gpu' THEN path LIKE 'gpu service%'
                             ELSE path = 'cpu' END), false)
  FROM gpuscan_stats() WHERE function = fn
$$;

-- The requests the GPU service's processes have answered, over all GPUs,
-- as the service counts them (gpuscan_info()'s 'gpu_service_device N work'
-- rows), not as a function labels its path; 0 where no service runs with a
-- GPU.  Each reading is itself one request (gpuscan_info() asks the service
-- for its GPUs), counted before the counters are read.
CREATE FUNCTION gpu_service_requests() RETURNS bigint
LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(sum(substring(value FROM '; (\d+) requests')::bigint), 0)
  FROM gpuscan_info() WHERE item ~ '^gpu_service_device \d+ work$'
$$;

-- Whether GPU work ran since `before` (gpu_service_requests() then) exactly
-- where this run asks for it: with gpuscan.device = gpu the service answered
-- more requests than the reading's own, with gpuscan.device = cpu none
-- (NULL under auto).
CREATE FUNCTION gpu_ran(before bigint) RETURNS bool
LANGUAGE sql VOLATILE AS $$
  SELECT CASE current_setting('gpuscan.device')
           WHEN 'gpu' THEN gpu_service_requests() - before > 1
           WHEN 'cpu' THEN gpu_service_requests() - before <= 1 END
$$;

-- What the GPU service's staging area holds now, in MB (gpuscan_info()'s
-- 'gpu_service_staging' row); 'none' where the service has no staging area.
-- An ERROR or a cancel in the middle of a call must leave it as it was.
CREATE FUNCTION gpu_service_staging_in_use() RETURNS text
LANGUAGE sql VOLATILE AS $$
  SELECT coalesce((SELECT substring(value FROM ', ([0-9.]+) MB in use')
                   FROM gpuscan_info() WHERE item = 'gpu_service_staging'), 'none')
$$;

-- Whether the staging area holds `before` again within 5 s: after an ERROR
-- or a cancel in the middle of a call, the service gives the call's room
-- back once it has stopped working on it, soon after the session has gone on.
CREATE FUNCTION gpu_service_staging_back(before text) RETURNS bool
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  FOR i IN 1 .. 100 LOOP
    IF gpu_service_staging_in_use() = before THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN false;
END
$$;

-- The SQLSTATE, message and detail of the error a statement raises, or
-- 'ok': what a client sees, without the server's source locations.
CREATE FUNCTION error_of(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  detail text;
BEGIN
  EXECUTE stmt;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || SQLERRM || coalesce(nullif(' (' || detail || ')', ' ()'), '');
END
$$;

SELECT extname, extversion FROM pg_extension WHERE extname = 'gpuscan';
SELECT item FROM gpuscan_info() WHERE item IN ('build', 'gpu_usable') ORDER BY item;

-- gpu_ran() sees a call that runs where this run asks, and sees no GPU
-- work where none ran
SELECT gpu_service_requests() AS requests \gset
SELECT gpu_sum(ARRAY[1, 2, 3]::float8[]) AS small_sum;
SELECT gpu_ran(:requests) AS gpu_ran;
SELECT gpu_service_requests() AS requests \gset
SELECT sum(x) AS plain_sum FROM (VALUES (1::float8), (2)) v(x);
SELECT :requests = 0 OR gpu_ran(:requests) = (current_setting('gpuscan.device') = 'cpu') AS nothing_ran;
