/*-------------------------------------------------------------------------
 *
 * pagerank.c
 *	  gpu_pagerank: PageRank by power iteration over a graph given as CSR
 *	  arrays, on the CPU or the GPU, with the same bits on both.
 *
 * The graph: n = length(row_ptr) - 1 nodes; row i of the CSR lists the
 * targets of node i's out-links (edge i -> col_idx[k]), like an adjacency
 * list; every column index lies in [0, n).  Duplicate edges count as
 * several links, self-loops are allowed.  A node with no out-links is
 * dangling: its rank is spread over all nodes.
 *
 * The iteration pulls ranks along the in-links, so the transpose is built
 * once per call: the in-links of a node in increasing source order, on the
 * host by a stable counting sort, on the device by a stable radix sort
 * (gsd_csr_transpose_pattern), the same arrays either way.  Each iteration
 * is the formulas of common/gpuscan_spmv.h; the exact sums (dangling mass,
 * L1 residual) are correctly rounded on both paths, and the in-link sums
 * follow the canonical SpMV order, so the GPU's ranks are the CPU's bit
 * for bit.  On the GPU (a request to the GPU service, service_call.h) the
 * graph goes up once and is transposed there, the ranks stay on the
 * device, and only the final ranks come back.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"

#include "pg/array_input.h"
#include "pg/array_stream.h"
#include "client/cached_call.h"
#include "cpu/cpu_spmv.h"
#include "dispatch/dispatch.h"
#include "functions/pagerank.h"
#include "client/service_call.h"
#include "functions/spmv.h"
#include "dispatch/stats.h"

/* the graph on the host: in-link CSR and out-degrees */
typedef struct PagerankGraph
{
	GsCsr		in;				/* in-links: row j lists the sources i of i -> j */
	int32	   *outdeg;
} PagerankGraph;

/* gs_pagerank_check_parameters -- see pagerank.h */
void
gs_pagerank_check_parameters(double damping, double tolerance, int32 max_iterations,
							 const char *fn)
{
	if (!(damping >= 0.0 && damping < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: damping must be at least 0 and less than 1", fn),
				 errdetail("The damping given is %g.", damping)));
	if (!(tolerance >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: tolerance must not be negative", fn),
				 errdetail("The tolerance given is %g.", tolerance)));
	if (max_iterations < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: max_iterations must be at least 1", fn),
				 errdetail("The max_iterations given is %d.", max_iterations)));
}

/* out_degrees -- the out-degree of each node */
static int32 *
out_degrees(const GsCsr *out)
{
	int32	   *outdeg = palloc(sizeof(int32) * (Size) out->nrows);
	int32		i;

	for (i = 0; i < out->nrows; i++)
		outdeg[i] = out->row_ptr[i + 1] - out->row_ptr[i];
	return outdeg;
}

/* build_graph -- the in-link CSR and the out-degrees of a checked graph, on the host */
static void
build_graph(PagerankGraph *g, const GsCsr *out)
{
	int32	   *in_ptr = palloc(sizeof(int32) * ((Size) out->nrows + 1));
	int32	   *in_idx = palloc(sizeof(int32) * (Size) Max(out->nnz, 1));

	cpu_csr_transpose_pattern(out->row_ptr, out->col_idx, out->nrows, in_ptr, in_idx);
	g->outdeg = out_degrees(out);
	g->in.nrows = out->nrows;
	g->in.nnz = out->nnz;
	g->in.row_ptr = in_ptr;
	g->in.col_idx = in_idx;
}

/* pagerank_on_cpu -- iterate on the host; rank holds r0 and ends with the result */
static int
pagerank_on_cpu(const PagerankGraph *g, double damping, double tolerance,
				int32 max_iterations, double *rank, double *residual)
{
	int32		n = g->in.nrows;
	double	   *next = palloc(sizeof(double) * n);
	double	   *share = palloc(sizeof(double) * n);
	double	   *diff = palloc(sizeof(double) * n);
	int			it;

	for (it = 1; it <= max_iterations; it++)
	{
		*residual = cpu_pagerank_iteration(g->in.row_ptr, g->in.col_idx, g->outdeg, n,
										   damping, rank, next, share, diff);
		memcpy(rank, next, sizeof(double) * n);
		CHECK_FOR_INTERRUPTS();
		if (*residual <= tolerance)
			break;
	}
	pfree(diff);
	pfree(share);
	pfree(next);
	return Min(it, max_iterations);
}

/* gs_pagerank -- see pagerank.h */
int
gs_pagerank(const GsCsr *out, double damping, double tolerance, int32 max_iterations,
			double *rank, const char *fn)
{
	PagerankGraph g;
	GsTimer		timer;
	double		residual = 0.0;
	int64		moved = 0;
	int32		i;
	int			iterations;
	bool		on_gpu;

	for (i = 0; i < out->nrows; i++)
		rank[i] = 1.0 / (double) out->nrows;

	on_gpu = gs_use_gpu(fn, GS_WORK_PAGERANK, out->nnz, sizeof(double));
	gs_timer_start(&timer);
	if (on_gpu)
		on_gpu = (moved = gs_service_pagerank(out, damping, tolerance, max_iterations, rank,
											  &iterations, &residual, fn)) >= 0;
	if (!on_gpu)
	{
		moved = 0;
		build_graph(&g, out);
		iterations = pagerank_on_cpu(&g, damping, tolerance, max_iterations, rank,
									 &residual);
	}
	gs_stats_record(fn, on_gpu, out->nnz, moved, &timer);
	elog(DEBUG1, "%s: %d nodes, %d edges, %d iteration%s, final L1 residual %g%s",
		 fn, out->nrows, out->nnz, iterations, iterations == 1 ? "" : "s", residual,
		 residual <= tolerance ? "" : " (did not reach the tolerance)");
	return iterations;
}

/* ranks_array -- the rank vector of n nodes as the result array (lower bound 1) */
static ArrayType *
ranks_array(const double *rank, int32 n, const char *fn)
{
	ArrayType  *result = gs_new_array(FLOAT8OID, sizeof(double), n, 1, 0, fn);

	memcpy(ARR_DATA_PTR(result), rank, sizeof(double) * (Size) n);
	return result;
}

PG_FUNCTION_INFO_V1(gpu_pagerank);

/*
 * gpu_pagerank(row_ptr integer[], col_idx integer[], damping, tolerance,
 * max_iterations) -- the rank vector (lower bound 1: element i + 1 is node i)
 */
Datum
gpu_pagerank(PG_FUNCTION_ARGS)
{
	const char *fn = "gpu_pagerank";
	double		damping = PG_GETARG_FLOAT8(2);
	double		tolerance = PG_GETARG_FLOAT8(3);
	int32		max_iterations = PG_GETARG_INT32(4);
	GsCsr		out;
	ArrayType  *result;
	GsCachedMatrix cached;
	bool		use_cache;
	double	   *rank;
	int32		n;

	gs_pagerank_check_parameters(damping, tolerance, max_iterations, fn);

	/* a stored graph in the GPU service's cache is not read at all */
	use_cache = gs_cached_matrix(&cached, fcinfo, 2, FLOAT8OID);
	if (use_cache &&
		(rank = gs_cached_pagerank(&cached, damping, tolerance, max_iterations, &n, fn)) != NULL)
		PG_RETURN_ARRAYTYPE_P(ranks_array(rank, n, fn));

	{
		/* n from row_ptr's length, for the range of the column indexes */
		ArrayType  *rp = gs_getarg_array(fcinfo, 0);
		int64		nrp = ARR_NDIM(rp) == 1 ? ARR_DIMS(rp)[0] : 0;

		gs_csr_open(&out, rp, gs_getarg_array(fcinfo, 1), Max(nrp - 1, 0), fn);
	}
	if (out.nrows == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(FLOAT8OID));

	/* a miss: load what the service lacks, and ask again */
	if (use_cache && cached.missing && gs_cached_matrix_load(&cached, &out, NULL, fn) &&
		(rank = gs_cached_pagerank(&cached, damping, tolerance, max_iterations, &n, fn)) != NULL)
		PG_RETURN_ARRAYTYPE_P(ranks_array(rank, n, fn));

	result = gs_new_array(FLOAT8OID, sizeof(double), out.nrows, 1, 0, fn);
	gs_pagerank(&out, damping, tolerance, max_iterations, (double *) ARR_DATA_PTR(result), fn);
	PG_RETURN_ARRAYTYPE_P(result);
}
