/*-------------------------------------------------------------------------
 *
 * cost_model.c
 *	  Predicted in-function time of a call on each path (cost_model.h).
 *
 * A call of n elements costs fixed + n x per-element on a path.  The
 * figures are fitted to the in-function times that bench/sql_bench.sh's
 * dispatch mode measured on an H100 host, arrays already in backend memory
 * (bench/results/dispatch-*.md; docs/performance.md says how): the CPU
 * path's, and the GPU path's with its context open and its staging
 * allocated.  Where the session has not opened the GPU, opening it (the
 * CUDA context and the staging) is added on the GPU's side, so that auto
 * opens a GPU only for a call that pays for the opening too; with
 * gpuscan.gpu_prewarm the session opens it ahead.
 *
 * SpMV counts non-zeros and PageRank edges; a PageRank's CPU figure is per
 * edge for the whole call at the iterations a typical graph needs.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "cost_model.h"

/* one kind of work on one path: milliseconds per call and nanoseconds per element */
typedef struct PathCost
{
	double		fixed_ms;
	double		ns_4;			/* per element of 4 bytes */
	double		ns_8;			/* per element of 8 bytes */
} PathCost;

typedef struct WorkCost
{
	const char *name;
	PathCost	cpu;
	PathCost	gpu;
} WorkCost;

static const WorkCost work_costs[] = {
	[GS_WORK_SUM] = {"sum", {0.002, 0.55, 1.12}, {0.030, 0.12, 0.22}},
	[GS_WORK_SCAN] = {"prefix sum", {0.002, 3.30, 3.60}, {0.060, 0.50, 0.65}},
	[GS_WORK_COMPACT] = {"compaction", {0.002, 1.50, 1.90}, {0.060, 0.30, 0.55}},
	[GS_WORK_SPMV] = {"SpMV", {0.002, 12.0, 14.0}, {0.400, 1.60, 2.40}},
	[GS_WORK_PAGERANK] = {"PageRank", {0.010, 146.0, 146.0}, {1.000, 1.20, 1.20}},
};

/* opening the GPU: the CUDA context and the staging, on the same host */
#define GPU_OPEN_MS		250.0

/* path_ms -- the cost of n elements of elemsize bytes on one path */
static double
path_ms(const PathCost *c, int64 n, int elemsize)
{
	return c->fixed_ms + (double) n * (elemsize == 8 ? c->ns_8 : c->ns_4) / 1e6;
}

/* gs_predict -- see cost_model.h */
GsCost
gs_predict(GsWork work, int64 n, int elemsize, bool gpu_open)
{
	const WorkCost *w = &work_costs[work];
	GsCost		c;

	c.cpu_ms = path_ms(&w->cpu, n, elemsize);
	c.gpu_ms = path_ms(&w->gpu, n, elemsize);
	c.open_ms = gpu_open ? 0.0 : GPU_OPEN_MS;
	return c;
}

/* gs_work_name -- see cost_model.h */
const char *
gs_work_name(GsWork work)
{
	return work_costs[work].name;
}
