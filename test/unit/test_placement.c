/*-------------------------------------------------------------------------
 *
 * test_placement.c
 *	  Which GPU the service's placement chooses (src/cpu/placement_policy.c):
 *	  each policy on hand-made states of 1, 2 and 8 GPUs, and on random
 *	  states against what the policy promises.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "cpu/placement_policy.h"

/* dev -- a GPU's state for the decision */
static GsPlacementDevice
dev(bool ready, int busy, int64_t cache_bytes, int64_t holds_bytes)
{
	GsPlacementDevice d;

	d.ready = ready;
	d.busy = busy;
	d.cache_bytes = cache_bytes;
	d.holds_bytes = holds_bytes;
	return d;
}

/* expect -- the policy chooses `want` for `why` */
static void
expect(const char *what, GsPlacementPolicy policy, int fixed, const GsPlacementDevice *devices,
	   int n, int want, GsPlacedBy want_by)
{
	GsPlacedBy	by;
	int			got = gs_placement_choose(policy, fixed, devices, n, &by);

	UNIT_CHECK(got == want && by == want_by, "%s: GPU %d (by %d), want GPU %d (by %d)",
			   what, got, (int) by, want, (int) want_by);
}

/* one GPU: every policy degenerates to it, or to nothing where it is not ready */
static void
one_gpu(void)
{
	GsPlacementDevice d[1];

	unit_case("placement: one GPU");
	d[0] = dev(true, 5, 100, 0);
	expect("affinity, not cached", GS_PLACE_AFFINITY, 0, d, 1, 0, GS_PLACED_LEAST_BUSY);
	d[0].holds_bytes = 50;
	expect("affinity, cached", GS_PLACE_AFFINITY, 0, d, 1, 0, GS_PLACED_CACHE);
	expect("least_busy", GS_PLACE_LEAST_BUSY, 0, d, 1, 0, GS_PLACED_LEAST_BUSY);
	expect("fixed 0", GS_PLACE_FIXED, 0, d, 1, 0, GS_PLACED_FIXED);
	expect("fixed 1 of 1 GPU", GS_PLACE_FIXED, 1, d, 1, -1, GS_PLACED_NONE);
	d[0].ready = false;
	expect("affinity, not ready", GS_PLACE_AFFINITY, 0, d, 1, -1, GS_PLACED_NONE);
	expect("least_busy, not ready", GS_PLACE_LEAST_BUSY, 0, d, 1, -1, GS_PLACED_NONE);
	expect("fixed, not ready", GS_PLACE_FIXED, 0, d, 1, -1, GS_PLACED_NONE);
	expect("no GPU at all", GS_PLACE_AFFINITY, 0, d, 0, -1, GS_PLACED_NONE);
}

/* two GPUs: the cases the README describes */
static void
two_gpus(void)
{
	GsPlacementDevice d[2];

	unit_case("placement: two GPUs");
	/* the first two arrays loaded, one after the other, land on different GPUs */
	d[0] = dev(true, 0, 0, 0);
	d[1] = dev(true, 0, 0, 0);
	expect("empty caches: GPU 0", GS_PLACE_AFFINITY, 0, d, 2, 0, GS_PLACED_LEAST_BUSY);
	d[0].cache_bytes = 1000;
	expect("GPU 0 holds another array: GPU 1", GS_PLACE_AFFINITY, 0, d, 2, 1,
		   GS_PLACED_LEAST_BUSY);
	/* affinity stays with the data, however busy its GPU */
	d[0] = dev(true, 7, 1000, 1000);
	d[1] = dev(true, 0, 0, 0);
	expect("affinity: busy holder", GS_PLACE_AFFINITY, 0, d, 2, 0, GS_PLACED_CACHE);
	expect("least_busy: the idle GPU", GS_PLACE_LEAST_BUSY, 0, d, 2, 1, GS_PLACED_LEAST_BUSY);
	/* least_busy prefers a holder among the equally busy */
	d[0] = dev(true, 1, 5000, 0);
	d[1] = dev(true, 1, 9000, 10);
	expect("least_busy: equal load, GPU 1 holds", GS_PLACE_LEAST_BUSY, 0, d, 2, 1,
		   GS_PLACED_LEAST_BUSY);
	/* the holder of the most bytes wins; a holder that is not ready does not count */
	d[0] = dev(true, 0, 5000, 100);
	d[1] = dev(true, 3, 9000, 300);
	expect("affinity: most bytes", GS_PLACE_AFFINITY, 0, d, 2, 1, GS_PLACED_CACHE);
	d[1].ready = false;
	expect("affinity: holder not ready", GS_PLACE_AFFINITY, 0, d, 2, 0, GS_PLACED_CACHE);
	d[0].holds_bytes = 0;
	expect("affinity: only a stopped holder", GS_PLACE_AFFINITY, 0, d, 2, 0,
		   GS_PLACED_LEAST_BUSY);
	/* equal holdings: the less busy holder */
	d[0] = dev(true, 4, 100, 100);
	d[1] = dev(true, 2, 100, 100);
	expect("affinity: equal holders", GS_PLACE_AFFINITY, 0, d, 2, 1, GS_PLACED_CACHE);
	expect("fixed 1", GS_PLACE_FIXED, 1, d, 2, 1, GS_PLACED_FIXED);
	expect("fixed -1", GS_PLACE_FIXED, -1, d, 2, -1, GS_PLACED_NONE);
}

/* random states of 8 GPUs against what each policy promises */
static void
random_states(void)
{
	int			round;

	unit_case("placement: random states of 8 GPUs");
	unit_seed(23);
	for (round = 0; round < 20000; round++)
	{
		GsPlacementDevice d[8];
		GsPlacedBy	by;
		int			n = 1 + (int) unit_rand_below(8);
		int			any_ready = 0;
		int			any_holder = 0;
		int			min_busy = 1 << 30;
		int64_t		most_held = 0;
		int			i;
		int			got;

		for (i = 0; i < n; i++)
		{
			d[i] = dev(unit_rand_below(5) != 0, (int) unit_rand_below(4),
					   (int64_t) unit_rand_below(4) * 1000,
					   unit_rand_below(3) == 0 ? (int64_t) unit_rand_below(3) * 100 : 0);
			if (!d[i].ready)
				continue;
			any_ready = 1;
			any_holder |= d[i].holds_bytes > 0;
			if (d[i].busy < min_busy)
				min_busy = d[i].busy;
			if (d[i].holds_bytes > most_held)
				most_held = d[i].holds_bytes;
		}

		got = gs_placement_choose(GS_PLACE_LEAST_BUSY, 0, d, n, &by);
		UNIT_CHECK(any_ready ? (got >= 0 && got < n && d[got].ready && d[got].busy == min_busy) :
				   got == -1, "least_busy, round %d: GPU %d", round, got);

		got = gs_placement_choose(GS_PLACE_AFFINITY, 0, d, n, &by);
		if (any_holder)
			UNIT_CHECK(got >= 0 && d[got].ready && d[got].holds_bytes == most_held &&
					   by == GS_PLACED_CACHE, "affinity, round %d: GPU %d", round, got);
		else
			UNIT_CHECK(any_ready ? (got >= 0 && d[got].busy == min_busy &&
									by == GS_PLACED_LEAST_BUSY) : got == -1,
					   "affinity without a holder, round %d: GPU %d", round, got);
	}
}

/* suite_placement -- every case above */
void
suite_placement(void)
{
	one_gpu();
	two_gpus();
	random_states();
}
