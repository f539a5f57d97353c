/*-------------------------------------------------------------------------
 *
 * group_sum.h
 *	  One group's exact sum, added to one value at a time: what a gpu_sum
 *	  state keeps per group (sum_agg.c) and what the GpuscanGroupSum scan
 *	  keeps per group and sum (group_sum_table_scan.c).
 *
 * The sum lives in a window of a few accumulator limbs (sum_window.h) while
 * its digits fit there, and in a full accumulator, allocated on first need,
 * once a value falls outside.  Either way its value is exactly that of
 * adding every value to a full accumulator.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_GROUP_SUM_H
#define GPUSCAN_GROUP_SUM_H

#include "utils/memutils.h"

#include "cpu/sum_window.h"

/*
 * Values a full accumulator takes one by one between normalizations: each
 * limb takes 2^31 such additions before it could overflow (gpuscan_exact.h)
 */
#define GROUP_SUM_ADDS_LIMIT	(1 << 30)

typedef struct GroupSum
{
	gs_window_acc window;		/* the sum while acc is NULL */
	gs_exact_acc *acc;			/* the full accumulator, or NULL */
	uint32		acc_adds;		/* values added to acc since normalizing */
} GroupSum;

/* group_sum_init -- an empty sum: +0, no value added */
static inline void
group_sum_init(GroupSum *g)
{
	gs_window_zero(&g->window);
	g->acc = NULL;
	g->acc_adds = 0;
}

/*
 * group_sum_full -- the sum's full accumulator, in cxt, moved there from
 * the window the first time
 */
static inline gs_exact_acc *
group_sum_full(GroupSum *g, MemoryContext cxt)
{
	if (g->acc == NULL)
	{
		g->acc = MemoryContextAlloc(cxt, sizeof(gs_exact_acc));
		gs_window_to_acc(&g->window, g->acc);
		g->acc_adds = 0;
	}
	return g->acc;
}

/* group_sum_add -- add x exactly: into the window, or the full accumulator */
static inline void
group_sum_add(GroupSum *g, double x, MemoryContext cxt)
{
	if (g->acc == NULL && gs_window_add(&g->window, x))
		return;
	gs_acc_add(group_sum_full(g, cxt), x);
	if (++g->acc_adds == GROUP_SUM_ADDS_LIMIT)
	{
		gs_acc_normalize(g->acc);
		g->acc_adds = 0;
	}
}

/* group_sum_merge -- add an exact sum of values found elsewhere (the GPU's) */
static inline void
group_sum_merge(GroupSum *g, const gs_exact_acc *acc, MemoryContext cxt)
{
	gs_acc_merge(group_sum_full(g, cxt), acc);
	g->acc_adds = 0;			/* gs_acc_merge leaves it normalized */
}

/*
 * group_sum_is_empty -- whether no value was added: every addition to the
 * window marks a zero's sign or a nonzero value, and the full accumulator
 * exists only after one
 */
static inline bool
group_sum_is_empty(const GroupSum *g)
{
	return g->acc == NULL && !g->window.negzero && !g->window.nonnegzero;
}

/* group_sum_value -- the exact sum, into *acc */
static inline void
group_sum_value(const GroupSum *g, gs_exact_acc *acc)
{
	if (g->acc == NULL)
		gs_window_to_acc(&g->window, acc);
	else
		*acc = *g->acc;
}

#endif							/* GPUSCAN_GROUP_SUM_H */
