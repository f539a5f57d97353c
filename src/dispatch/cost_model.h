/*-------------------------------------------------------------------------
 *
 * cost_model.h
 *	  The time a call is expected to take on each path, from which
 *	  gpuscan.device = auto chooses (dispatch.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_COST_MODEL_H
#define GPUSCAN_COST_MODEL_H

#include "postgres.h"

/* The kinds of work a call does */
typedef enum GsWork
{
	GS_WORK_SUM,				/* an exact sum: n values in */
	GS_WORK_PREFIX_SUM,			/* prefix sums: n values in, n doubles out */
	GS_WORK_COMPACT,			/* compaction: n values (or none) and flags in */
	GS_WORK_SPMV,				/* y = A x over n non-zeros */
	GS_WORK_PAGERANK			/* PageRank over n edges */
} GsWork;


/* Predicted in-function milliseconds of one call on each path */
typedef struct GsCost
{
	double		cpu_ms;
	double		gpu_ms;			/* a request to the GPU service */
} GsCost;

/*
 * The cost of `work` over n elements of elemsize bytes (4 or 8; positions
 * count as 4) on the CPU and through the GPU service: the fitted model's
 * figures, times this session's corrections for the work, the element size
 * and n's power of ten (gs_cost_observe); *corrected says whether a
 * correction other than 1 applied.
 */
extern GsCost gs_predict(GsWork work, int64 n, int elemsize, bool *corrected);

/*
 * A call of `work` over n elements of elemsize bytes took `ms` on a path
 * (the GPU service's where gpu): move that path's correction for its size
 * towards what it measured against the fitted model, so that a machine
 * unlike the one the model was fitted on soon gets the faster path at the
 * sizes it calls.
 */
extern void gs_cost_observe(GsWork work, int64 n, int elemsize, bool gpu, double ms);

/* The name of a kind of work, for messages ("sum", "prefix sum", ...) */
extern const char *gs_work_name(GsWork work);

#endif							/* GPUSCAN_COST_MODEL_H */
