/*-------------------------------------------------------------------------
 *
 * sum_window.c
 *	  An exact sum in a window of a few accumulator limbs (see
 *	  sum_window.h).  Plain C, no PostgreSQL headers.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "sum_state.h"
#include "sum_window.h"

/* additions between normalizations: each takes less than 2^32 per limb */
#define WINDOW_ADDS_LIMIT	(UINT32_C(1) << 30)

/* limbs kept free below a window's first digits, for smaller values */
#define WINDOW_ROOM_BELOW	2

/* gs_window_zero -- see sum_window.h */
void
gs_window_zero(gs_window_acc *w)
{
	memset(w, 0, sizeof(*w));
	w->lo = -1;
}

/*
 * window_start -- where w starts, or where an empty window would start for
 * digits from `lowest` on (room below them for smaller values)
 */
static int
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
static int
fits(int start, int lowest, int highest)
{
	return lowest >= start && highest <= start + GS_WINDOW_LIMBS - 2;
}

/* normalize -- carries up to the window's top limb; the value is unchanged */
static void
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
static void
count_adds(gs_window_acc *w, uint32_t n)
{
	w->adds += n;
	if (w->adds >= WINDOW_ADDS_LIMIT)
		normalize(w);
}

/* gs_window_add -- see sum_window.h; the digits as gs_acc_add splits them */
int
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

/* gs_window_add_acc -- see sum_window.h */
int
gs_window_add_acc(gs_window_acc *w, const gs_exact_acc *acc)
{
	uint32_t	digits[GS_ACC_LIMBS];
	int			negative;
	int			lowest,
				highest,
				k;

	negative = gs_acc_digits(acc, digits);
	for (highest = GS_ACC_LIMBS - 1; highest >= 0 && digits[highest] == 0; highest--)
		;
	for (lowest = 0; lowest < highest && digits[lowest] == 0; lowest++)
		;
	if (highest >= 0)
	{
		int			start = window_start(w, lowest);

		if (!fits(start, lowest, highest))
			return 0;
		w->lo = start;
		for (k = lowest; k <= highest; k++)
			w->limb[k - start] += negative ? -(int64_t) digits[k] : (int64_t) digits[k];
		count_adds(w, 1);
	}
	w->nan |= acc->n_nan != 0;
	w->pos_inf |= acc->n_pos_inf != 0;
	w->neg_inf |= acc->n_neg_inf != 0;
	w->negzero |= acc->has_negzero != 0;
	w->nonnegzero |= acc->has_nonnegzero != 0;
	return 1;
}

/* gs_window_to_acc -- see sum_window.h */
void
gs_window_to_acc(const gs_window_acc *w, gs_exact_acc *acc)
{
	int			k;

	gs_acc_zero(acc);
	if (w->lo >= 0)
		for (k = 0; k < GS_WINDOW_LIMBS; k++)
			acc->limb[w->lo + k] = w->limb[k];
	gs_acc_normalize(acc);
	acc->n_nan = w->nan;
	acc->n_pos_inf = w->pos_inf;
	acc->n_neg_inf = w->neg_inf;
	acc->has_negzero = w->negzero;
	acc->has_nonnegzero = w->nonnegzero;
}
