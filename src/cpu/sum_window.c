/*-------------------------------------------------------------------------
 *
 * sum_window.c
 *	  An exact sum in a window of a few accumulator limbs (see
 *	  sum_window.h).  Plain C, no PostgreSQL headers.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "cpu/sum_state.h"
#include "cpu/sum_window.h"

/* gs_window_zero -- see sum_window.h */
void
gs_window_zero(gs_window_acc *w)
{
	memset(w, 0, sizeof(*w));
	w->lo = -1;
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
