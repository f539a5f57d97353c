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
 * Add the exact value of acc (normalized or not, as gs_acc_merge takes it)
 * to w and return 1, or return 0 without changing w if its digits do not
 * fit the window.
 */
int			gs_window_add_acc(gs_window_acc *w, const gs_exact_acc *acc);

/* *acc = the window's value, as a full accumulator (normalized) */
void		gs_window_to_acc(const gs_window_acc *w, gs_exact_acc *acc);

/* additions between normalizations: each takes less than 2^32 per limb */
#define WINDOW_ADDS_LIMIT	(UINT32_C(1) << 30)

/* limbs kept free below a window's first digits, for smaller values */
#define WINDOW_ROOM_BELOW	2

/*
 * window_start -- where w starts, or where an empty window would start for
 * digits from `lowest` on (room below them for smaller values)
 */
static inline int
window_start(const gs_window_acc *w, int lowest)
{
	int			lo = lowest - WINDOW_ROOM_BELOW;

	if (w->lo >= 0)
		return w->lo;
	if (lo > GS_ACC_LIMBS - GS_WINDOW_LIMBS)
		lo = GS_ACC_LIMBS - GS_WINDOW_LIMBS;
	return lo < 0 ? 0 : lo;
}

/* fits -- whether digits lowest..highest lie in the window at `start`, below its carry limb */
static inline int
fits(int start, int lowest, int highest)
{
	return lowest >= start && highest <= start + GS_WINDOW_LIMBS - 2;
}

/* normalize -- carries up to the window's top limb; the value is unchanged */
static inline void
normalize(gs_window_acc *w)
{
	int			k;

	for (k = 0; k < GS_WINDOW_LIMBS - 1; k++)
	{
		int64_t		c = w->limb[k] >> GS_ACC_DIGIT;

		w->limb[k] -= (int64_t) ((uint64_t) c << GS_ACC_DIGIT);
		w->limb[k + 1] += c;
	}
	w->adds = 0;
}

/* count_adds -- note n additions to every limb; normalize before the headroom runs out */
static inline void
count_adds(gs_window_acc *w, uint32_t n)
{
	w->adds += n;
	if (w->adds >= WINDOW_ADDS_LIMIT)
		normalize(w);
}

/*
 * gs_window_add -- add x exactly and return 1, or return 0 without
 * changing w if x's digits fall outside the window (then add x to the full
 * accumulator instead).  Inline: the aggregate calls it once per row.  The
 * digits are split as gs_acc_add splits them.
 */
static inline int
gs_window_add(gs_window_acc *w, double x)
{
	uint64_t	bits = gs_double_bits(x);
	uint64_t	m,
				lo,
				mid,
				hi;
	int			pos,
				i,
				s,
				k,
				start;

	if (((bits >> 52) & 0x7ff) == 0x7ff)
	{
		if (bits & ((UINT64_C(1) << 52) - 1))
			w->nan = 1;
		else if (bits >> 63)
			w->neg_inf = 1;
		else
			w->pos_inf = 1;
		w->nonnegzero = 1;
		return 1;
	}
	if (!gs_split_double(bits, &m, &pos))
	{
		if (bits >> 63)
			w->negzero = 1;
		else
			w->nonnegzero = 1;
		return 1;
	}
	i = pos >> 5;
	s = pos & 31;
	lo = (m << s) & 0xffffffffu;
	mid = (m << s) >> 32;
	hi = (s == 0) ? 0 : (m >> (64 - s));
	start = window_start(w, i);
	if (!fits(start, i, hi ? i + 2 : i + 1))
		return 0;
	w->lo = start;
	k = i - start;
	if (bits >> 63)
	{
		w->limb[k] -= (int64_t) lo;
		w->limb[k + 1] -= (int64_t) mid;
		if (hi)
			w->limb[k + 2] -= (int64_t) hi;
	}
	else
	{
		w->limb[k] += (int64_t) lo;
		w->limb[k + 1] += (int64_t) mid;
		if (hi)
			w->limb[k + 2] += (int64_t) hi;
	}
	w->nonnegzero = 1;
	count_adds(w, 1);
	return 1;
}

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_SUM_WINDOW_H */
