/*-------------------------------------------------------------------------
 *
 * fuzz_sum_state.c
 *	  Fuzzing the decoder of shipped gpu_sum states (src/cpu/sum_state.c): the
 *	  input is the untrusted state bytes, exactly as a combine function or
 *	  an INITCOND hands them over.
 *
 * A refused input must leave the output accumulator untouched, and must
 * really break a rule of the format (an independent check of sum_state.h's
 * rules).  An accepted one must be canonical (encoding it again gives the
 * same bytes), normalized, and round to what the reference makes of its
 * digits (exact_reference.h).  It is then merged into an accumulator made
 * up from a hash of the input, up to 300 times with gs_acc_bound after
 * each merge, as the combine function does: bounding must not change the
 * rounded sum, the sum must stay the reference's, UBSan must see no signed
 * overflow, and the accumulator must keep within gs_acc_bound's limits
 * (normalized, top limb and counters clamped), which is what makes any
 * number of merges safe.  The merged accumulator must survive encoding and
 * decoding with its rounded sum.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "exact_reference.h"
#include "fuzz_util.h"
#include "gpuscan_exact.h"
#include "cpu/sum_state.h"

#define TOP_LIMIT	(INT64_C(1) << 40)	/* gs_acc_bound's clamp of the top limb */
#define COUNT_LIMIT (UINT64_C(1) << 62) /* and of the counters */

/* digit -- digit i of a state's digits (little-endian) */
static uint32_t
digit(const uint8_t *data, size_t i)
{
	const uint8_t *p = data + GS_SUM_STATE_HEADER + 4 * i;

	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/* canonical -- sum_state.h's rules, checked here independently */
static int
canonical(const uint8_t *data, size_t size)
{
	size_t		lo,
				nd;

	if (size < GS_SUM_STATE_HEADER || memcmp(data, "GSS2", 4) != 0)
		return 0;
	if ((data[4] & ~GS_SUM_FLAGS_ALL) != 0 || data[7] != 0)
		return 0;
	lo = data[5];
	nd = data[6];
	if (size != GS_SUM_STATE_HEADER + 4 * nd)
		return 0;
	if (nd == 0)
		return lo == 0 && (data[4] & GS_SUM_FLAG_NEGATIVE) == 0;
	return lo + nd <= GS_ACC_LIMBS && digit(data, 0) != 0 && digit(data, nd - 1) != 0;
}

/* state_reference -- the value of a canonical state, read directly */
static void
state_reference(const uint8_t *data, ref_sum *r)
{
	uint8_t		flags = data[4];
	size_t		i;

	ref_init(r);
	for (i = 0; i < data[6]; i++)
	{
		int64_t		d = digit(data, i);

		ref_add_scaled(r, (flags & GS_SUM_FLAG_NEGATIVE) ? -d : d, 32 * (unsigned) (data[5] + i));
	}
	r->nan = (flags & GS_SUM_FLAG_NAN) != 0;
	r->pos_inf = (flags & GS_SUM_FLAG_POS_INF) != 0;
	r->neg_inf = (flags & GS_SUM_FLAG_NEG_INF) != 0;
	r->negzero = (flags & GS_SUM_FLAG_NEGZERO) != 0;
	r->other = (flags & GS_SUM_FLAG_NONNEGZERO) != 0;
}

/* check_normalized -- limbs below the top in [0, 2^32), the top within max_top */
static void
check_normalized(const char *what, const gs_exact_acc *acc, int64_t max_top)
{
	int			i;

	for (i = 0; i < GS_ACC_LIMBS - 1; i++)
		if (acc->limb[i] < 0 || acc->limb[i] > (int64_t) UINT32_MAX)
			fuzz_fail("%s: limb %d is %lld, not a normalized digit", what, i, (long long) acc->limb[i]);
	if (acc->limb[GS_ACC_LIMBS - 1] > max_top || acc->limb[GS_ACC_LIMBS - 1] < -max_top)
		fuzz_fail("%s: the top limb is %lld, beyond %lld", what,
				  (long long) acc->limb[GS_ACC_LIMBS - 1], (long long) max_top);
}

/* random_count -- a special-value counter: mostly 0, sometimes at the clamp */
static uint64_t
random_count(fuzz_rng *g)
{
	switch (fuzz_rng_below(g, 8))
	{
		case 0:
			return 1;
		case 1:
			return COUNT_LIMIT - fuzz_rng_below(g, 3);
		default:
			return 0;
	}
}

/*
 * random_acc -- a bounded accumulator, as the combine function may hold
 * one, and its value in the reference: random digits, a top limb up to the
 * clamp, counters, flags, and a few doubles added on top
 */
static void
random_acc(fuzz_rng *g, gs_exact_acc *b, ref_sum *rb)
{
	static const int64_t tops[] = {0, 1, -1, 4095, -4096, TOP_LIMIT, -TOP_LIMIT,
	TOP_LIMIT - 1, -TOP_LIMIT + 1};
	int			i,
				adds;

	gs_acc_zero(b);
	ref_init(rb);
	for (i = 0; i < GS_ACC_LIMBS - 1; i++)
		if (fuzz_rng_below(g, 4) == 0)
			b->limb[i] = (int64_t) (fuzz_rng_next(g) & UINT32_MAX);
	if (fuzz_rng_below(g, 2) == 0)
		b->limb[GS_ACC_LIMBS - 1] = tops[fuzz_rng_below(g, sizeof(tops) / sizeof(tops[0]))];
	else
		b->limb[GS_ACC_LIMBS - 1] = (int64_t) fuzz_rng_below(g, 2 * (uint64_t) TOP_LIMIT + 1) - TOP_LIMIT;
	for (i = 0; i < GS_ACC_LIMBS; i++)
		ref_add_scaled(rb, b->limb[i], 32 * (unsigned) i);
	b->n_nan = random_count(g);
	b->n_pos_inf = random_count(g);
	b->n_neg_inf = random_count(g);
	b->has_negzero = fuzz_rng_below(g, 2);
	b->has_nonnegzero = fuzz_rng_below(g, 2);
	rb->nan = b->n_nan != 0;
	rb->pos_inf = b->n_pos_inf != 0;
	rb->neg_inf = b->n_neg_inf != 0;
	rb->negzero = b->has_negzero != 0;
	rb->other = b->has_nonnegzero != 0;
	adds = (int) fuzz_rng_below(g, 6);
	for (i = 0; i < adds; i++)
	{
		uint64_t	bits = fuzz_rng_next(g);

		gs_acc_add(b, fuzz_bits_double(bits));
		ref_add_f64_bits(rb, bits);
	}
}

/* check_round -- the accumulator rounds to the reference's value */
static void
check_round(const char *what, const gs_exact_acc *acc, const ref_sum *r, int k)
{
	uint64_t	got = fuzz_double_bits(gs_acc_round(acc)),
				want = ref_round_bits(r);

	if (got != want)
		fuzz_fail("%s (merge %d): gs_acc_round gives 0x%016llx, the reference 0x%016llx",
				  what, k, (unsigned long long) got, (unsigned long long) want);
}

/* check_round_trip -- a bounded accumulator encoded and decoded rounds the same */
static void
check_round_trip(const gs_exact_acc *acc)
{
	uint8_t		bytes[GS_SUM_STATE_MAX_BYTES];
	size_t		size = gs_sum_state_size(acc);
	gs_exact_acc back;
	gs_sum_state_problem p;

	if (size > sizeof(bytes) || gs_sum_state_encode(acc, bytes) != size)
		fuzz_fail("gs_sum_state_size says %zu bytes, encode disagrees or exceeds %zu",
				  size, sizeof(bytes));
	p = gs_sum_state_decode(bytes, size, &back);
	if (p != GS_SUM_STATE_OK)
		fuzz_fail("the encoding of a merged accumulator is refused (%d)", (int) p);
	if (fuzz_double_bits(gs_acc_round(&back)) != fuzz_double_bits(gs_acc_round(acc)))
		fuzz_fail("a merged accumulator rounds to 0x%016llx after encoding and decoding, 0x%016llx before",
				  (unsigned long long) fuzz_double_bits(gs_acc_round(&back)),
				  (unsigned long long) fuzz_double_bits(gs_acc_round(acc)));
}

/* merge_many -- the accepted state merged into a made-up one, bounded each time */
static void
merge_many(const uint8_t *data, size_t size, const gs_exact_acc *a, const ref_sum *ra)
{
	fuzz_rng	g;
	gs_exact_acc b;
	ref_sum		rb;
	int			k,
				times;

	fuzz_rng_seed(&g, fuzz_hash(data, size));
	random_acc(&g, &b, &rb);
	times = fuzz_rng_below(&g, 4) == 0 ? 1 + (int) fuzz_rng_below(&g, 300) : 1 + (int) fuzz_rng_below(&g, 4);
	for (k = 1; k <= times; k++)
	{
		uint64_t	before,
					after;

		gs_acc_merge(&b, a);
		before = fuzz_double_bits(gs_acc_round(&b));
		gs_acc_bound(&b);
		after = fuzz_double_bits(gs_acc_round(&b));
		if (before != after)
			fuzz_fail("merge %d: gs_acc_bound changed the rounded sum from 0x%016llx to 0x%016llx",
					  k, (unsigned long long) before, (unsigned long long) after);
		check_normalized("bounded accumulator", &b, TOP_LIMIT);
		if (b.n_nan > COUNT_LIMIT || b.n_pos_inf > COUNT_LIMIT || b.n_neg_inf > COUNT_LIMIT)
			fuzz_fail("merge %d: a counter is beyond 2^62 after gs_acc_bound", k);
		ref_add_sum(&rb, ra);
		if (k <= 3 || k % 32 == 0 || k == times)
			check_round("merged accumulator", &b, &rb, k);
	}
	check_round_trip(&b);
}

/* LLVMFuzzerTestOneInput -- decode; check a refusal or the accepted state */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gs_exact_acc acc,
				untouched;
	gs_sum_state_problem p;
	uint8_t		again[GS_SUM_STATE_MAX_BYTES];
	ref_sum		r;

	memset(&acc, 0xa5, sizeof(acc));
	untouched = acc;
	p = gs_sum_state_decode(data, size, &acc);
	if (p != GS_SUM_STATE_OK)
	{
		if (memcmp(&acc, &untouched, sizeof(acc)) != 0)
			fuzz_fail("a refused state (problem %d) changed the output accumulator", (int) p);
		if (p < GS_SUM_STATE_SHORT || p > GS_SUM_STATE_BAD_DIGITS ||
			gs_sum_state_problem_text(p) == NULL)
			fuzz_fail("refused with an unknown problem %d", (int) p);
		if (canonical(data, size))
			fuzz_fail("a canonical state of %zu bytes was refused (problem %d)", size, (int) p);
		return 0;
	}

	if (!canonical(data, size))
		fuzz_fail("a state of %zu bytes that breaks the format's rules was accepted", size);
	if (gs_sum_state_size(&acc) != size ||
		gs_sum_state_encode(&acc, again) != size || memcmp(again, data, size) != 0)
		fuzz_fail("an accepted state of %zu bytes does not encode to the same bytes", size);
	/* a negative state of 67 digits can leave -2^32 in the top limb */
	check_normalized("decoded state", &acc, INT64_C(1) << 32);
	state_reference(data, &r);
	check_round("decoded state", &acc, &r, 0);
	merge_many(data, size, &acc, &r);
	return 0;
}
