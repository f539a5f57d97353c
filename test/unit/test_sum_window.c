/*-------------------------------------------------------------------------
 *
 * test_sum_window.c
 *	  A sum in a window of limbs (src/cpu/sum_window.c) against the full
 *	  accumulator: the same value for any values, whether they stay in the
 *	  window or it overflows into a full accumulator part way.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "cpu/sum_window.h"

/* same_double -- the same bits (NaN equals NaN) */
static int
same_double(double a, double b)
{
	return (a != a && b != b) || unit_double_bits(a) == unit_double_bits(b);
}

/*
 * value -- a random double: mostly within `spread` binades of 2^center,
 * sometimes anywhere, sometimes special
 */
static double
value(int center, int spread)
{
	switch (unit_rand_below(40))
	{
		case 0:
			return unit_bits_double(unit_rand64());
		case 1:
			return -0.0;
		case 2:
			return 0.0;
		default:
			return unit_rand_with_exponent(center + (int) unit_rand_below(spread + 1) - spread / 2);
	}
}

/*
 * run -- n values into a window (moving to a full accumulator when one is
 * refused, as the aggregate does) and into a full accumulator; compare.
 * Returns whether the window held all of them.
 */
static int
run(int n, int center, int spread)
{
	gs_window_acc w;
	gs_exact_acc full,
				moved;
	int			in_window = 1,
				i;

	gs_window_zero(&w);
	gs_acc_zero(&full);
	for (i = 0; i < n; i++)
	{
		double		x = value(center, spread);

		gs_acc_add(&full, x);
		if (in_window && gs_window_add(&w, x))
			continue;
		if (in_window)
		{
			gs_window_to_acc(&w, &moved);
			in_window = 0;
		}
		gs_acc_add(&moved, x);
	}
	if (in_window)
		gs_window_to_acc(&w, &moved);
	UNIT_CHECK(same_double(gs_acc_round(&full), gs_acc_round(&moved)),
			   "n %d center %d spread %d: %a, the full accumulator %a",
			   n, center, spread, gs_acc_round(&moved), gs_acc_round(&full));
	return in_window;
}

/* suite_sum_window -- see the file header */
void
suite_sum_window(void)
{
	int			trial,
				stayed = 0;

	unit_seed(4242);
	unit_case("sum_window: random sums equal the full accumulator's");
	for (trial = 0; trial < 4000; trial++)
	{
		int			center = (int) unit_rand_below(2098) - 1074;
		int			spread = (int) unit_rand_below(trial % 2 ? 40 : 400);

		stayed += run(1 + (int) unit_rand_below(200), center, spread);
	}
	UNIT_CHECK(stayed > 500, "only %d of 4000 sums stayed in their window", stayed);

	unit_case("sum_window: values of one magnitude stay in the window");
	{
		gs_window_acc w;
		int			i;

		gs_window_zero(&w);
		for (i = 0; i < 100000; i++)
			UNIT_CHECK(gs_window_add(&w, unit_rand_uniform() * 1000.0), "refused value %d", i);
	}

	unit_case("sum_window: accumulators add in when their digits fit");
	for (trial = 0; trial < 2000; trial++)
	{
		gs_window_acc w,
					before;
		gs_exact_acc a,
					b,
					want,
					got;
		int			i,
					center = (int) unit_rand_below(2098) - 1074,
					spread = (int) unit_rand_below(trial % 3 ? 30 : 300);

		gs_window_zero(&w);
		gs_acc_zero(&a);
		gs_acc_zero(&b);
		for (i = 0; i < 20; i++)
		{
			double		x = value(center, spread);

			gs_acc_add(&a, x);
			if (!gs_window_add(&w, x))
				break;
		}
		if (i < 20)
			continue;			/* the values did not fit: covered above */
		for (i = 0; i < 20; i++)
			gs_acc_add(&b, value(center, spread));
		want = a;
		gs_acc_merge(&want, &b);
		before = w;
		if (!gs_window_add_acc(&w, &b))
		{
			UNIT_CHECK(memcmp(&before, &w, sizeof(w)) == 0, "refused, but changed the window");
			continue;
		}
		gs_window_to_acc(&w, &got);
		UNIT_CHECK(same_double(gs_acc_round(&want), gs_acc_round(&got)),
				   "merged %a, expected %a", gs_acc_round(&got), gs_acc_round(&want));
	}
}
