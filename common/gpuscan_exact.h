/*-------------------------------------------------------------------------
 *
 * gpuscan_exact.h
 *	  Exact fixed-point accumulator for sums of doubles, shared by the CPU
 *	  code (src/) and the CUDA code (kernels/).
 *
 * Every finite double is an integer multiple of 2^-1074, so the exact sum
 * of any number of doubles is an integer multiple of 2^-1074 too.  The
 * accumulator holds that integer in GS_ACC_LIMBS signed 64-bit limbs of
 * 32-bit "digits": limb i has weight 2^(32*i - GS_ACC_BIAS).  A limb takes
 * up to 2^31 additions of magnitude below 2^32 before it could overflow;
 * gs_acc_normalize() moves the carries up and restores that headroom.
 *
 * The value is   sum_i limb[i] * 2^(32*i - 1074)
 * plus the IEEE special cases, kept as counters: any NaN, or +Inf and -Inf
 * together, give NaN; otherwise an infinity wins.  has_negzero and
 * has_nonnegzero record whether any input was -0.0 or not, so that an exact zero
 * sum of only -0.0 inputs is -0.0 as IEEE addition gives.
 *
 * gs_acc_round() returns the exact sum rounded once to the nearest double
 * (ties to even), +-Infinity where it overflows.  The result depends only
 * on the multiset of inputs: not on their order, chunking or the device.
 *
 * This header is plain C99 so that both gcc and nvcc compile it; under
 * nvcc the functions are __host__ __device__.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_EXACT_H
#define GPUSCAN_EXACT_H

#include <stdint.h>
#include <string.h>
#include <math.h>

#ifdef __CUDACC__
#define GS_HD __host__ __device__ __forceinline__
#else
#define GS_HD static inline
#endif

#define GS_ACC_LIMBS	67		/* 67 * 32 = 2144 bits: 2^-1074 .. 2^1070 plus headroom */
#define GS_ACC_BIAS		1074	/* limb 0, bit 0 has weight 2^-1074 */
#define GS_ACC_DIGIT	32		/* bits of one digit */

typedef struct gs_exact_acc
{
	int64_t		limb[GS_ACC_LIMBS];
	uint64_t	n_nan;			/* NaN inputs */
	uint64_t	n_pos_inf;		/* +Infinity inputs */
	uint64_t	n_neg_inf;		/* -Infinity inputs */
	uint64_t	has_negzero;	/* nonzero if any input was -0.0 */
	uint64_t	has_nonnegzero; /* nonzero if any input was not -0.0 */
} gs_exact_acc;

/* gs_acc_zero -- empty accumulator (exact value +0, no inputs) */
GS_HD void
gs_acc_zero(gs_exact_acc *acc)
{
	memset(acc, 0, sizeof(*acc));
}

/* gs_double_bits -- the IEEE bits of a double */
GS_HD uint64_t
gs_double_bits(double x)
{
	uint64_t	u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

/*
 * gs_split_double -- finite x as (sign, integer mantissa m, bit position b)
 * with |x| = m * 2^(b - 1074), m < 2^53, b >= 0.  Returns 0 for zeros.
 */
GS_HD int
gs_split_double(uint64_t bits, uint64_t *mant, int *pos)
{
	int			e = (int) ((bits >> 52) & 0x7ff);
	uint64_t	m = bits & ((UINT64_C(1) << 52) - 1);

	if (e == 0)
	{
		/* zero or subnormal: m * 2^-1074 */
		*mant = m;
		*pos = 0;
		return m != 0;
	}
	*mant = m | (UINT64_C(1) << 52);
	*pos = e - 1;
	return 1;
}

/*
 * gs_acc_add_special -- count an infinity or NaN; returns 1 if bits was one.
 */
GS_HD int
gs_acc_add_special(gs_exact_acc *acc, uint64_t bits)
{
	if (((bits >> 52) & 0x7ff) != 0x7ff)
		return 0;
	if (bits & ((UINT64_C(1) << 52) - 1))
		acc->n_nan++;
	else if (bits >> 63)
		acc->n_neg_inf++;
	else
		acc->n_pos_inf++;
	return 1;
}

/*
 * gs_acc_add -- add one double exactly (scalar path).  Touches at most
 * three limbs, each by less than 2^32.
 */
GS_HD void
gs_acc_add(gs_exact_acc *acc, double x)
{
	uint64_t	bits = gs_double_bits(x);
	uint64_t	m;
	int			pos,
				i,
				s;
	uint64_t	lo,
				mid,
				hi;

	if (bits == UINT64_C(0x8000000000000000))
		acc->has_negzero = 1;
	else
		acc->has_nonnegzero = 1;
	if (gs_acc_add_special(acc, bits))
		return;
	if (!gs_split_double(bits, &m, &pos))
		return;
	i = pos >> 5;
	s = pos & 31;
	/* m << s spans at most 85 bits: three 32-bit digits */
	lo = (m << s) & 0xffffffffu;
	mid = (m << s) >> 32;		/* bits 64.. of m << s are dropped here */
	hi = (s == 0) ? 0 : (m >> (64 - s));
	if (bits >> 63)
	{
		acc->limb[i] -= (int64_t) lo;
		acc->limb[i + 1] -= (int64_t) mid;
		if (hi)
			acc->limb[i + 2] -= (int64_t) hi;
	}
	else
	{
		acc->limb[i] += (int64_t) lo;
		acc->limb[i + 1] += (int64_t) mid;
		if (hi)
			acc->limb[i + 2] += (int64_t) hi;
	}
}

/*
 * gs_acc_normalize -- propagate carries so that limbs 0..L-2 lie in
 * [0, 2^32) and the top limb carries the sign.  The value is unchanged.
 */
GS_HD void
gs_acc_normalize(gs_exact_acc *acc)
{
	int			i;

	for (i = 0; i < GS_ACC_LIMBS - 1; i++)
	{
		int64_t		c = acc->limb[i] >> GS_ACC_DIGIT;	/* floor division */

		acc->limb[i] -= (int64_t) ((uint64_t) c << GS_ACC_DIGIT);
		acc->limb[i + 1] += c;
	}
}

/* gs_acc_merge -- acc += other, exactly; both are left normalized */
GS_HD void
gs_acc_merge(gs_exact_acc *acc, const gs_exact_acc *other)
{
	int			i;

	gs_acc_normalize(acc);
	for (i = 0; i < GS_ACC_LIMBS; i++)
	{
		int64_t		o = other->limb[i];

		/* other may be unnormalized: add its carry-free digits */
		acc->limb[i] += o;
	}
	acc->n_nan += other->n_nan;
	acc->n_pos_inf += other->n_pos_inf;
	acc->n_neg_inf += other->n_neg_inf;
	acc->has_negzero |= other->has_negzero;
	acc->has_nonnegzero |= other->has_nonnegzero;
	gs_acc_normalize(acc);
}

/*
 * gs_acc_round -- the exact sum rounded once to the nearest double, ties to
 * even; +-Infinity on overflow; IEEE rules for the special values.
 */
GS_HD double
gs_acc_round(const gs_exact_acc *in)
{
	gs_exact_acc a = *in;
	int			negative = 0;
	int			t,
				i,
				p,
				sticky;
	uint64_t	top,
				w,
				mant,
				rbits;
	uint32_t	lo;
	int			exp2;

	if (a.n_nan > 0 || (a.n_pos_inf > 0 && a.n_neg_inf > 0))
		return NAN;
	if (a.n_pos_inf > 0)
		return INFINITY;
	if (a.n_neg_inf > 0)
		return -INFINITY;

	gs_acc_normalize(&a);
	if (a.limb[GS_ACC_LIMBS - 1] < 0)
	{
		negative = 1;
		for (i = 0; i < GS_ACC_LIMBS; i++)
			a.limb[i] = -a.limb[i];
		gs_acc_normalize(&a);
	}

	/* most significant nonzero digit */
	for (t = GS_ACC_LIMBS - 1; t >= 0 && a.limb[t] == 0; t--)
		;
	if (t < 0)
		return (a.has_negzero && !a.has_nonnegzero) ? -0.0 : 0.0;
	if (t == GS_ACC_LIMBS - 1)
		return negative ? -INFINITY : INFINITY;	/* >= 2^1038 */

	if (t <= 1)
	{
		/* below 2^(64-1074): every such value is a double exactly */
		uint64_t	v = ((uint64_t) a.limb[1] << 32) | (uint64_t) a.limb[0];

		if (v < (UINT64_C(1) << 53))
			return negative ? -ldexp((double) v, -GS_ACC_BIAS) : ldexp((double) v, -GS_ACC_BIAS);
	}

	/* top 96 bits: digits t, t-1, t-2; sticky for the rest */
	top = ((uint64_t) a.limb[t] << 32) | (uint64_t) (t >= 1 ? a.limb[t - 1] : 0);
	lo = (uint32_t) (t >= 2 ? a.limb[t - 2] : 0);
	sticky = 0;
	for (i = t - 3; i >= 0; i--)
		if (a.limb[i] != 0)
		{
			sticky = 1;
			break;
		}

	/* shift so that the leading one sits at bit 63 of w */
	for (p = 63; !((top >> p) & 1); p--)
		;
	{
		int			shift = 63 - p; /* 0..31, since digit t is nonzero */

		if (shift == 0)
		{
			w = top;
			if (lo)
				sticky = 1;
		}
		else
		{
			w = (top << shift) | ((uint64_t) lo >> (32 - shift));
			if ((uint32_t) (lo << shift))
				sticky = 1;
		}
		/* w * 2^exp2 approximates the value, w in [2^63, 2^64) */
		exp2 = 32 * (t - 1) - GS_ACC_BIAS - shift;
	}

	/* round w to 53 bits, nearest, ties to even */
	mant = w >> 11;
	rbits = w & 0x7ff;
	if (rbits > 0x400 || (rbits == 0x400 && (sticky || (mant & 1))))
		mant++;
	/* mant may now be 2^53: still exact as a double */
	{
		double		r = ldexp((double) mant, exp2 + 11);

		return negative ? -r : r;
	}
}

#endif							/* GPUSCAN_EXACT_H */
