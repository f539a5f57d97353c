/*-------------------------------------------------------------------------
 *
 * sum_state.c
 *	  Encoding and checking the shipped form of gpu_sum aggregate states
 *	  (see sum_state.h).  Plain C, no PostgreSQL headers.
 *
 * A state from outside is untrusted bytes: gs_sum_state_decode reads each
 * field with explicit bounds and byte order and checks every rule of the
 * format before it writes anything, and the accumulator it returns has
 * every limb at most 2^32 in magnitude, where all the accumulator's
 * arithmetic (gpuscan_exact.h) is safe.
 *
 *-------------------------------------------------------------------------
 */
#include "cpu/sum_state.h"

/* the largest top limb and counter gs_acc_bound leaves */
#define ACC_TOP_LIMIT		(INT64_C(1) << 40)
#define ACC_COUNT_LIMIT		(UINT64_C(1) << 62)

/* load_le32 / store_le32 -- a little-endian 32-bit word at p */
static uint32_t
load_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static void
store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

/* gs_acc_digits -- see sum_state.h */
int
gs_acc_digits(const gs_exact_acc *acc, uint32_t digits[GS_ACC_LIMBS])
{
	gs_exact_acc a = *acc;
	int			negative = 0;
	int			i;

	gs_acc_normalize(&a);
	if (a.limb[GS_ACC_LIMBS - 1] < 0)
	{
		negative = 1;
		for (i = 0; i < GS_ACC_LIMBS; i++)
			a.limb[i] = -a.limb[i];
		gs_acc_normalize(&a);
	}
	for (i = 0; i < GS_ACC_LIMBS - 1; i++)
		digits[i] = (uint32_t) a.limb[i];
	digits[GS_ACC_LIMBS - 1] = a.limb[GS_ACC_LIMBS - 1] > (int64_t) UINT32_MAX ?
		UINT32_MAX : (uint32_t) a.limb[GS_ACC_LIMBS - 1];
	return negative;
}

/*
 * magnitude -- the digits of |acc| (gs_acc_digits) and its flags: what the
 * encoding stores
 */
static uint8_t
magnitude(const gs_exact_acc *acc, uint32_t digits[GS_ACC_LIMBS])
{
	uint8_t		flags = gs_acc_digits(acc, digits) ? GS_SUM_FLAG_NEGATIVE : 0;

	if (acc->n_nan)
		flags |= GS_SUM_FLAG_NAN;
	if (acc->n_pos_inf)
		flags |= GS_SUM_FLAG_POS_INF;
	if (acc->n_neg_inf)
		flags |= GS_SUM_FLAG_NEG_INF;
	if (acc->has_negzero)
		flags |= GS_SUM_FLAG_NEGZERO;
	if (acc->has_nonnegzero)
		flags |= GS_SUM_FLAG_NONNEGZERO;
	return flags;
}

/* digit_range -- the lowest and one past the highest nonzero digit (0, 0 if none) */
static void
digit_range(const uint32_t digits[GS_ACC_LIMBS], int *lo, int *hi)
{
	int			l = 0,
				h = GS_ACC_LIMBS;

	while (h > 0 && digits[h - 1] == 0)
		h--;
	while (l < h && digits[l] == 0)
		l++;
	*lo = (h == 0) ? 0 : l;
	*hi = h;
}

/* gs_sum_state_size -- see sum_state.h */
size_t
gs_sum_state_size(const gs_exact_acc *acc)
{
	uint32_t	digits[GS_ACC_LIMBS];
	int			lo,
				hi;

	(void) magnitude(acc, digits);
	digit_range(digits, &lo, &hi);
	return GS_SUM_STATE_HEADER + 4 * (size_t) (hi - lo);
}

/* gs_sum_state_encode -- see sum_state.h */
size_t
gs_sum_state_encode(const gs_exact_acc *acc, uint8_t *out)
{
	uint32_t	digits[GS_ACC_LIMBS];
	uint8_t		flags = magnitude(acc, digits);
	int			lo,
				hi,
				i;

	digit_range(digits, &lo, &hi);
	if (hi == 0)
		flags &= (uint8_t) ~GS_SUM_FLAG_NEGATIVE;	/* zero has no sign */
	store_le32(out, GS_SUM_STATE_MAGIC);
	out[4] = flags;
	out[5] = (uint8_t) lo;
	out[6] = (uint8_t) (hi - lo);
	out[7] = 0;
	for (i = lo; i < hi; i++)
		store_le32(out + GS_SUM_STATE_HEADER + 4 * (i - lo), digits[i]);
	return GS_SUM_STATE_HEADER + 4 * (size_t) (hi - lo);
}

/* gs_sum_state_decode -- see sum_state.h */
gs_sum_state_problem
gs_sum_state_decode(const uint8_t *in, size_t size, gs_exact_acc *acc)
{
	uint8_t		flags;
	size_t		lo,
				ndigits,
				i;
	uint32_t	first,
				last;

	if (size < GS_SUM_STATE_HEADER)
		return GS_SUM_STATE_SHORT;
	if (load_le32(in) != GS_SUM_STATE_MAGIC)
		return GS_SUM_STATE_BAD_MAGIC;
	flags = in[4];
	lo = in[5];
	ndigits = in[6];
	if ((flags & ~GS_SUM_FLAGS_ALL) != 0 || in[7] != 0)
		return GS_SUM_STATE_BAD_FLAGS;
	if (size != GS_SUM_STATE_HEADER + 4 * ndigits)
		return GS_SUM_STATE_SIZE;
	if (ndigits == 0)
	{
		if (lo != 0 || (flags & GS_SUM_FLAG_NEGATIVE) != 0)
			return GS_SUM_STATE_BAD_DIGITS;
	}
	else
	{
		if (lo + ndigits > GS_ACC_LIMBS)
			return GS_SUM_STATE_BAD_DIGITS;
		first = load_le32(in + GS_SUM_STATE_HEADER);
		last = load_le32(in + GS_SUM_STATE_HEADER + 4 * (ndigits - 1));
		if (first == 0 || last == 0)
			return GS_SUM_STATE_BAD_DIGITS;
	}

	gs_acc_zero(acc);
	for (i = 0; i < ndigits; i++)
	{
		int64_t		d = (int64_t) load_le32(in + GS_SUM_STATE_HEADER + 4 * i);

		acc->limb[lo + i] = (flags & GS_SUM_FLAG_NEGATIVE) ? -d : d;
	}
	gs_acc_normalize(acc);
	acc->n_nan = (flags & GS_SUM_FLAG_NAN) != 0;
	acc->n_pos_inf = (flags & GS_SUM_FLAG_POS_INF) != 0;
	acc->n_neg_inf = (flags & GS_SUM_FLAG_NEG_INF) != 0;
	acc->has_negzero = (flags & GS_SUM_FLAG_NEGZERO) != 0;
	acc->has_nonnegzero = (flags & GS_SUM_FLAG_NONNEGZERO) != 0;
	return GS_SUM_STATE_OK;
}

/* gs_sum_state_problem_text -- see sum_state.h */
const char *
gs_sum_state_problem_text(gs_sum_state_problem problem)
{
	switch (problem)
	{
		case GS_SUM_STATE_OK:
			return "The state is valid.";
		case GS_SUM_STATE_SHORT:
			return "It is shorter than the header of a gpu_sum state.";
		case GS_SUM_STATE_SIZE:
			return "Its size does not match its header.";
		case GS_SUM_STATE_BAD_MAGIC:
			return "It does not start with the mark of a gpu_sum state.";
		case GS_SUM_STATE_BAD_FLAGS:
			return "Its header has unknown flags.";
		case GS_SUM_STATE_BAD_DIGITS:
			return "Its digits are out of range or not in canonical form.";
	}
	return "It is not a gpu_sum state.";
}

/* gs_acc_bound -- see sum_state.h */
void
gs_acc_bound(gs_exact_acc *acc)
{
	int64_t    *top = &acc->limb[GS_ACC_LIMBS - 1];

	gs_acc_normalize(acc);
	if (*top > ACC_TOP_LIMIT)
		*top = ACC_TOP_LIMIT;
	else if (*top < -ACC_TOP_LIMIT)
		*top = -ACC_TOP_LIMIT;
	if (acc->n_nan > ACC_COUNT_LIMIT)
		acc->n_nan = ACC_COUNT_LIMIT;
	if (acc->n_pos_inf > ACC_COUNT_LIMIT)
		acc->n_pos_inf = ACC_COUNT_LIMIT;
	if (acc->n_neg_inf > ACC_COUNT_LIMIT)
		acc->n_neg_inf = ACC_COUNT_LIMIT;
}
