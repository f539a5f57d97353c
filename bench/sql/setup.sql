-- bench/sql/setup.sql -- helpers of bench/sql_bench.sh, in schema "bench".
-- Run with psql -v ON_ERROR_STOP=1; safe to run again.

CREATE SCHEMA IF NOT EXISTS bench;

-- bench.time_query -- run q (warmup + runs) times in this backend; time each
-- run server-side with clock_timestamp() around EXECUTE (planning included,
-- no client round trip); return the first run, and the median and minimum
-- of the runs after the warm-up.  EXECUTE without INTO fetches all rows with
-- no row limit, so parallel plans stay allowed.
CREATE OR REPLACE FUNCTION bench.time_query(q text, runs int DEFAULT 5, warmup int DEFAULT 1,
	OUT first_ms float8, OUT median_ms float8, OUT min_ms float8)
LANGUAGE plpgsql AS $$
DECLARE
	t0		timestamptz;
	ms		float8;
	times	float8[] := '{}';
BEGIN
	FOR i IN 1 .. warmup + runs LOOP
		t0 := clock_timestamp();
		EXECUTE q;
		ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
		IF i = 1 THEN
			first_ms := ms;
		END IF;
		IF i > warmup THEN
			times := times || ms;
		END IF;
	END LOOP;
	SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), min(x)
		INTO median_ms, min_ms FROM unnest(times) x;
END
$$;

-- bench.make_array_table -- table tab with one row: a typ[] of n random
-- numbers.  Built from chunks of 10 million in a variable: array_agg stops
-- near 1.3e8 elements (its Datum buffer would pass the 1 GB allocation limit).
CREATE OR REPLACE FUNCTION bench.make_array_table(tab text, n bigint, typ text DEFAULT 'float8')
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	chunk	constant bigint := 10000000;
	done	bigint := 0;
	k		bigint;
	part	float8[];
	v		float8[] := '{}';
BEGIN
	WHILE done < n LOOP
		k := least(n - done, chunk);
		SELECT array_agg(random()) INTO part FROM generate_series(1, k);
		v := v || part;
		done := done + k;
	END LOOP;
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	EXECUTE format('CREATE TABLE %I (a %s[])', tab, typ);
	EXECUTE format('INSERT INTO %I VALUES ($1::%s[])', tab, typ) USING v;
END
$$;

-- bench.make_rows_table -- table tab(id, x typ) with n rows of random numbers
CREATE OR REPLACE FUNCTION bench.make_rows_table(tab text, n bigint, typ text DEFAULT 'float8')
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	EXECUTE format('CREATE TABLE %I AS SELECT g AS id, random()::%s AS x FROM generate_series(1, %s) g',
		tab, typ, n);
END
$$;

-- bench.make_flags_table -- table tab(a float8[], k boolean[]) with n random
-- values in a and n flags in k, each true with probability p
CREATE OR REPLACE FUNCTION bench.make_flags_table(tab text, n bigint, p float8)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	EXECUTE format('CREATE TABLE %I AS SELECT array_agg(random()) AS a, '
		'array_agg(random() < %s) AS k FROM generate_series(1, %s) g', tab, p, n);
END
$$;
