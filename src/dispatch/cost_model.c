/*-------------------------------------------------------------------------
 *
 * cost_model.c
 *	  Predicted in-function time of a call on each path (cost_model.h).
 *
 * The CPU path: a fixed cost per call and a cost per element.
 *
 * The GPU path is a request to the GPU service, its data streamed through
 * the staging area (channel.h): a fixed cost per call (the request's round
 * trip, about 0.16 ms), then the elements of the first chunk (chunks.h) at
 * the cost of a copy into the staging, its upload and its kernel one after
 * the other, and the elements after it at the cost of the slowest of
 * those, which then overlap.  SpMV and PageRank are not chunked: one cost
 * per element, the first as the rest.  A PageRank's figures are for the
 * whole call, at the iterations the benchmark's graphs needed.
 *
 * The CPU's figures, per kind of work and element size, are fitted to what
 * bench/dispatch_bench.sh measured on an H100 host, arrays already in
 * backend memory (the sum, the prefix sum and compaction:
 * bench/results/dispatch-nvidia-h100-80gb-hbm3-2026-11-27-run-f-interleaved.md;
 * SpMV and PageRank: dispatch-nvidia-h100-80gb-hbm3-2026-11-27.md; the fit
 * is each file's last table).  SpMV and PageRank grow faster than linearly
 * on the CPU once x and the ranks leave the caches: their per-element
 * figures are the slopes between the two smallest sizes, which favour the
 * CPU a little at small sizes.  The GPU service's figures are fitted to
 * bench/dispatch_bench.sh through the service on an H200 host, double
 * precision and real (bench/results/dispatch-service-nvidia-h200-2026-11-29-2.md,
 * the fit at its end).
 *
 * Crossovers differ from host to host by more than the paths differ there
 * (a prefix sum of 10^5 doubles: 0.296 / 0.269 ms on the CPU / GPU of one
 * H100 host, 0.287 / 0.633 ms on an H200 host), so each session corrects
 * the model by what its calls measure: a factor per kind of work, element
 * size, path and power of ten of n.  Each call sets its path's factor to
 * its measured / predicted time, moving it by at most a factor of 2 a call
 * (so that one outlier does not lock a path out) and keeping it within
 * [1/8, 8].  A call on the path predicted faster that turns out slower
 * raises that path's factor until the other path is predicted faster and
 * tried.  The factor of the path not taken loses 2% of its logarithm with
 * each call, so that a path that measured badly once is tried again now
 * and then (replaying four dispatch runs of bench/results with this rule
 * put auto within 10% of the faster path at every point, docs/design.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "dispatch/cost_model.h"
#include "pg/chunks.h"

/* nanoseconds per element of 4 and of 8 bytes */
typedef struct PerElement
{
	double		ns_4;
	double		ns_8;
} PerElement;

typedef struct WorkCost
{
	const char *name;
	int			staged_bytes;	/* bytes of an element in a slot beyond its own: 0, or 1 for a flag */
	bool		chunked;		/* whether the GPU path streams it in chunks */
	double		cpu_fixed_ms;
	PerElement	cpu;
	double		gpu_fixed_ms;
	PerElement	gpu_first;		/* the first chunk's elements */
	PerElement	gpu_steady;		/* the elements after it */
} WorkCost;

static const WorkCost work_costs[] = {
	[GS_WORK_SUM] = {"sum", 0, true,
		0.0009, {0.700, 0.924},
		0.1570, {0.684, 0.789}, {0.143, 0.260}},
	[GS_WORK_PREFIX_SUM] = {"prefix sum", 0, true,
		0.0050, {2.819, 3.698},
		0.1665, {1.357, 1.792}, {0.789, 0.896}},
	[GS_WORK_COMPACT] = {"compaction", 1, true,
		0.0010, {0.726, 1.393},
		0.1726, {1.118, 1.869}, {0.455, 0.675}},
	[GS_WORK_SPMV] = {"SpMV", 0, false,
		0.0, {7.35, 7.35},
		0.71, {0.962, 0.962}, {0.962, 0.962}},
	[GS_WORK_PAGERANK] = {"PageRank", 0, false,
		0.01, {146.0, 146.0},
		1.61, {1.205, 1.205}, {1.205, 1.205}},
};

/*
 * The session's corrections, as natural logarithms of the factors (0, a
 * factor of 1, until observed): [work][element of 8 bytes][gpu][power of
 * ten of n]
 */
#define N_WORKS			(GS_WORK_PAGERANK + 1)
#define N_DECADES		10
#define LOG_STEP_MAX	0.6931471805599453	/* ln 2: the most a call moves its factor */
#define LOG_FACTOR_MAX	2.0794415416798357	/* ln 8: the factor stays within [1/8, 8] */
#define OTHER_DRIFT		0.02	/* share of its log a factor loses per call on the other path */
static double log_corrections[N_WORKS][2][2][N_DECADES];

/* log_correction -- the log of the factor for (work, elemsize, path, n) */
static double *
log_correction(GsWork work, int elemsize, bool gpu, int64 n)
{
	int			decade = 0;

	for (; n >= 10 && decade < N_DECADES - 1; n /= 10)
		decade++;
	return &log_corrections[work][elemsize == 8][gpu][decade];
}

/* per_element -- the figure for elements of elemsize bytes */
static double
per_element(const PerElement *p, int elemsize)
{
	return elemsize == 8 ? p->ns_8 : p->ns_4;
}

/* fitted -- the fitted model's figures, without the session's corrections */
static GsCost
fitted(GsWork work, int64 n, int elemsize)
{
	const WorkCost *w = &work_costs[work];
	int64		first = n;
	GsCost		c;

	if (w->chunked)
		first = Min(n, gs_chunk_elems(Max(elemsize + w->staged_bytes,
										   work == GS_WORK_PREFIX_SUM ? 8 : 0)));
	c.cpu_ms = w->cpu_fixed_ms + (double) n * per_element(&w->cpu, elemsize) / 1e6;
	c.gpu_ms = w->gpu_fixed_ms +
		((double) first * per_element(&w->gpu_first, elemsize) +
		 (double) (n - first) * per_element(&w->gpu_steady, elemsize)) / 1e6;
	return c;
}

/* gs_predict -- see cost_model.h */
GsCost
gs_predict(GsWork work, int64 n, int elemsize, bool *corrected)
{
	GsCost		c = fitted(work, n, elemsize);
	double		log_cpu = *log_correction(work, elemsize, false, n);
	double		log_gpu = *log_correction(work, elemsize, true, n);

	c.cpu_ms *= exp(log_cpu);
	c.gpu_ms *= exp(log_gpu);
	*corrected = (log_cpu != 0.0 || log_gpu != 0.0);
	return c;
}

/* gs_cost_observe -- see cost_model.h */
void
gs_cost_observe(GsWork work, int64 n, int elemsize, bool gpu, double ms)
{
	GsCost		c = fitted(work, n, elemsize);
	double		predicted = gpu ? c.gpu_ms : c.cpu_ms;
	double	   *log_factor = log_correction(work, elemsize, gpu, n);
	double	   *log_other = log_correction(work, elemsize, !gpu, n);
	double		step;

	if (predicted <= 0.0 || ms <= 0.0)
		return;
	/* to what was measured, by at most a factor of 2 a call */
	step = log(ms / predicted) - *log_factor;
	step = Max(-LOG_STEP_MAX, Min(LOG_STEP_MAX, step));
	*log_factor = Max(-LOG_FACTOR_MAX, Min(LOG_FACTOR_MAX, *log_factor + step));
	/* the path not taken drifts back to the fitted figure, to be tried again */
	*log_other *= 1.0 - OTHER_DRIFT;
}

/* gs_work_name -- see cost_model.h */
const char *
gs_work_name(GsWork work)
{
	return work_costs[work].name;
}
