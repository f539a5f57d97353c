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

-- bench.make_csr_table -- table tab(row_ptr int[], col_idx int[], vals float8[], x float8[])
-- with one n x n matrix of about n * per_row entries, power-law rows (R-MAT
-- style: row and column drawn with a skew towards low indexes), sorted by
-- (row, column); and tab_entries(row_index, col, val) plus tab_x(i, xi), the
-- same matrix as rows for the plain SQL join + GROUP BY formulation.
CREATE OR REPLACE FUNCTION bench.make_csr_table(tab text, n int, per_row int)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I, %I, %I', tab, tab || '_entries', tab || '_x');
	EXECUTE format($q$CREATE TABLE %I AS
		SELECT DISTINCT ON (r, c) r AS row_index, c AS col, random() AS val
		FROM (SELECT least(floor(%s * power(random(), 3)), %s - 1)::int AS r,
		             least(floor(%s * power(random(), 2)), %s - 1)::int AS c
		      FROM generate_series(1, %s::bigint * %s)) e
		ORDER BY r, c$q$, tab || '_entries', n, n, n, n, n, per_row);
	EXECUTE format('CREATE TABLE %I AS SELECT i, random() AS xi FROM generate_series(0, %s - 1) i',
		tab || '_x', n);
	EXECUTE format($q$CREATE TABLE %I AS
		WITH deg AS (
			SELECT g AS r, count(e.row_index) AS d FROM generate_series(0, %s - 1) g
			LEFT JOIN %I e ON e.row_index = g GROUP BY g),
		ptr AS (SELECT r, (sum(d) OVER (ORDER BY r))::int AS p FROM deg)
		SELECT '{0}'::int[] || (SELECT array_agg(p ORDER BY r) FROM ptr) AS row_ptr,
		       (SELECT array_agg(col ORDER BY row_index, col) FROM %I) AS col_idx,
		       (SELECT array_agg(val ORDER BY row_index, col) FROM %I) AS vals,
		       (SELECT array_agg(xi ORDER BY i) FROM %I) AS x$q$,
		tab, n, tab || '_entries', tab || '_entries', tab || '_entries', tab || '_x');
END
$$;

-- bench.make_graph_table -- table tab(row_ptr int[], col_idx int[]): a directed
-- graph of n nodes and m power-law edges (out-links of node i in row i),
-- built in SQL with a counting pass so that it scales to 10+ million edges.
CREATE OR REPLACE FUNCTION bench.make_graph_table(tab text, n int, m bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	EXECUTE format($q$CREATE TABLE %I AS
		WITH e AS (
			SELECT least(floor(%s * power(random(), 3)), %s - 1)::int AS src,
			       least(floor(%s * power(random(), 2)), %s - 1)::int AS dst
			FROM generate_series(1, %s::bigint)),
		deg AS (
			SELECT g AS src, count(e.src) AS d FROM generate_series(0, %s - 1) g
			LEFT JOIN e ON e.src = g GROUP BY g),
		ptr AS (SELECT src, (sum(d) OVER (ORDER BY src))::int AS p FROM deg)
		SELECT '{0}'::int[] || (SELECT array_agg(p ORDER BY src) FROM ptr) AS row_ptr,
		       (SELECT array_agg(dst ORDER BY src, dst) FROM e) AS col_idx$q$,
		tab, n, n, n, n, m, n);
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
