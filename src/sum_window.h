/*-------------------------------------------------------------------------
 *
 * sum_window.h
 *	  An exact sum held in a window of a few limbs of the accumulator of
 *	  common/gpuscan_exact.h: what a group's state of the gpu_sum aggregate
 *	  keeps, so that thousands of groups fit in memory (plain C, no
 *	  PostgreSQL headers).
 *
 * The full accumulator has GS_ACC_LIMBS limbs (536 bytes) to cover every
 * double; the values of one group usually span a few binades, whose digits
 * fit GS_WINDOW_LIMBS consecutive limbs.  The window is placed by the first
 * finite nonzero value, with room above it for growth; a value whose digits
 * fall outside is refused, and the caller moves the sum to a full
 * accumulator (gs_window_to_acc) and goes on there.  Either way the value
 * is exactly that of adding every value to a full accumulator.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SUM_WINDOW_H
#define GPUSCAN_SUM_WINDOW_H

#include <stdint.h>

#include "gpuscan_exact.h"

#ifdef __cplusplus
extern "C"
{
#endif

#define GS_WINDOW_LIMBS		8	/* limbs of the window: 256 bits, the top one for carries */

typedef struct gs_window_acc
{
	int32_t		lo;				/* limb index of limb[0]; -1 before the first finite nonzero value */
	uint32_t	adds;			/* additions since the last normalization */
	uint8_t		nan;			/* a NaN was added */
	uint8_t		pos_inf;		/* +Infinity was added */
	uint8_t		neg_inf;		/* -Infinity was added */
	uint8_t		negzero;		/* -0 was added */
	uint8_t		nonnegzero;		/* a value other than -0 was added */
	int64_t		limb[GS_WINDOW_LIMBS];
} gs_window_acc;

/* An empty window: the exact value +0, no value added */
void		gs_window_zero(gs_window_acc *w);

/*
 * Add x exactly and return 1, or return 0 without changing w if x's digits
 * fall outside the window (then add x to the full accumulator instead).
 */
int			gs_window_add(gs_window_acc *w, double x);

/*
 * Add the exact value of acc (normalized or not, as gs_acc_merge takes it)
 * to w and return 1, or return 0 without changing w if its digits do not
 * fit the window.
 */
int			gs_window_add_acc(gs_window_acc *w, const gs_exact_acc *acc);

/* *acc = the window's value, as a full accumulator (normalized) */
void		gs_window_to_acc(const gs_window_acc *w, gs_exact_acc *acc);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_SUM_WINDOW_H */
