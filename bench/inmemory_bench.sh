#!/usr/bin/env bash
#
# bench/inmemory_bench.sh -- calls on values in memory (PL/pgSQL variables,
# not stored in a table) on the CPU path and on the GPU path of the server
# named by PGHOST/PGPORT/PGUSER: the GPU service's, so the server must
# preload gpuscan (shared_preload_libraries); without the preload
# gpuscan.device = gpu is an error and the script stops at it.
#
#   bench/inmemory_bench.sh LABEL
#
# In one DO block: INMEM_ELEMENTS (10^7) random doubles and as many flags
# (30% true); a CSR matrix of 2^INMEM_ROWS_LOG2 (18) rows and columns with
# 16 non-zeros a row; each of gpu_sum, gpu_prefix_sum_array,
# gpu_compact_array, gpu_compact_indices_array, gpu_csr_spmv and
# gpu_pagerank once to warm up, then INMEM_RUNS (10) times, with
# gpuscan.device = cpu, then gpu.  Prints one markdown row per function:
# LABEL, the function, the mean milliseconds a call on the CPU and on the
# GPU, and their ratio.

set -euo pipefail
LABEL=${1:?usage: bench/inmemory_bench.sh LABEL}
N=${INMEM_ELEMENTS:-10000000}
ROWS_LOG2=${INMEM_ROWS_LOG2:-18}
RUNS=${INMEM_RUNS:-10}

psql -X -q -v ON_ERROR_STOP=1 -d "${PGDATABASE:-postgres}" 2>&1 <<SQL |
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS gpuscan;
DO \$\$
DECLARE
  v float8[];
  k boolean[];
  rp integer[];
  ci integer[];
  w float8[];
  x float8[];
  nrows integer := 1 << $ROWS_LOG2;
  mode text;
  t timestamptz;
  i integer;
BEGIN
  v := (SELECT array_agg(random()) FROM generate_series(1, $N));
  k := (SELECT array_agg(random() < 0.3) FROM generate_series(1, $N));
  rp := (SELECT array_agg(r * 16) FROM generate_series(0, nrows) r);
  ci := (SELECT array_agg(((j::bigint * 2654435761) % nrows)::integer) FROM generate_series(0, 16 * nrows - 1) j);
  w := (SELECT array_agg(random()) FROM generate_series(1, 16 * nrows));
  x := (SELECT array_agg(random()) FROM generate_series(1, nrows));
  FOREACH mode IN ARRAY ARRAY['cpu', 'gpu'] LOOP
    PERFORM set_config('gpuscan.device', mode, true);
    PERFORM gpu_sum(v);
    t := clock_timestamp();
    FOR i IN 1 .. $RUNS LOOP PERFORM gpu_sum(v); END LOOP;
    RAISE NOTICE 'row|gpu_sum|%|%', mode, extract(epoch FROM clock_timestamp() - t) * 1000 / $RUNS;
    PERFORM gpu_prefix_sum_array(v);
    t := clock_timestamp();
    FOR i IN 1 .. $RUNS LOOP PERFORM gpu_prefix_sum_array(v); END LOOP;
    RAISE NOTICE 'row|gpu_prefix_sum_array|%|%', mode, extract(epoch FROM clock_timestamp() - t) * 1000 / $RUNS;
    PERFORM gpu_compact_array(v, k);
    t := clock_timestamp();
    FOR i IN 1 .. $RUNS LOOP PERFORM gpu_compact_array(v, k); END LOOP;
    RAISE NOTICE 'row|gpu_compact_array|%|%', mode, extract(epoch FROM clock_timestamp() - t) * 1000 / $RUNS;
    PERFORM gpu_compact_indices_array(k);
    t := clock_timestamp();
    FOR i IN 1 .. $RUNS LOOP PERFORM gpu_compact_indices_array(k); END LOOP;
    RAISE NOTICE 'row|gpu_compact_indices_array|%|%', mode, extract(epoch FROM clock_timestamp() - t) * 1000 / $RUNS;
    PERFORM gpu_csr_spmv(rp, ci, w, x);
    t := clock_timestamp();
    FOR i IN 1 .. $RUNS LOOP PERFORM gpu_csr_spmv(rp, ci, w, x); END LOOP;
    RAISE NOTICE 'row|gpu_csr_spmv|%|%', mode, extract(epoch FROM clock_timestamp() - t) * 1000 / $RUNS;
    PERFORM gpu_pagerank(rp, ci);
    t := clock_timestamp();
    FOR i IN 1 .. $RUNS LOOP PERFORM gpu_pagerank(rp, ci); END LOOP;
    RAISE NOTICE 'row|gpu_pagerank|%|%', mode, extract(epoch FROM clock_timestamp() - t) * 1000 / $RUNS;
  END LOOP;
END
\$\$;
SQL
	awk -F'|' -v label="$LABEL" '
		/^NOTICE:  row[|]/ { ms[$2 "," $3] = $4; if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 } next }
		/ERROR/ { print; bad = 1 }
		END {
			for (i = 0; i < n; i++) {
				f = order[i]
				printf "| %s | %s | %.3f | %.3f | %.1fx |\n", label, f, ms[f ",cpu"], ms[f ",gpu"],
					(ms[f ",gpu"] > 0 ? ms[f ",cpu"] / ms[f ",gpu"] : 0)
			}
			exit bad
		}'
