/*-------------------------------------------------------------------------
 *
 * exact_reference.c
 *	  Exact sums rounded once, the slow and simple way (see
 *	  exact_reference.h).  Independent of common/gpuscan_exact.h.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact_reference.h"

#define SIGN_BIT		UINT64_C(0x8000000000000000)
#define INF_BITS		UINT64_C(0x7ff0000000000000)
#define FRAC_MASK		((UINT64_C(1) << 52) - 1)
#define HIDDEN_BIT		(UINT64_C(1) << 52)

/* ref_init -- the empty sum */
void
ref_init(ref_sum *s)
{
	memset(s, 0, sizeof(*s));
}

/*
 * add_magnitude -- s += m * 2^unit, or s -= m * 2^unit if negative: the
 * two words m << unit spans, then the carry or borrow up to the top
 */
static void
add_magnitude(ref_sum *s, uint64_t m, unsigned unit, int negative)
{
	unsigned	k = unit / 64,
				b = unit % 64,
				i;
	uint64_t	part[2],
				carry = 0;

	if (k + 2 > REF_WORDS)
	{
		fprintf(stderr, "exact_reference: 2^%u is beyond its width\n", unit);
		abort();
	}
	part[0] = m << b;
	part[1] = b == 0 ? 0 : m >> (64 - b);
	for (i = k; i < REF_WORDS; i++)
	{
		uint64_t	d = i < k + 2 ? part[i - k] : 0;
		uint64_t	old = s->w[i];

		if (!negative)
		{
			s->w[i] = old + d + carry;
			carry = (s->w[i] < old || (carry && s->w[i] == old)) ? 1 : 0;
		}
		else
		{
			s->w[i] = old - d - carry;
			carry = (s->w[i] > old || (carry && s->w[i] == old)) ? 1 : 0;
		}
		if (i >= k + 1 && carry == 0)
			break;
	}
}

/* ref_add_f64_bits -- (2^52 + f) * 2^(e - 1075), or f * 2^-1074 if e = 0 */
void
ref_add_f64_bits(ref_sum *s, uint64_t bits)
{
	unsigned	e = (unsigned) (bits >> 52) & 0x7ff;
	uint64_t	f = bits & FRAC_MASK;
	int			negative = (bits & SIGN_BIT) != 0;

	if (bits == SIGN_BIT)
		s->negzero = 1;
	else
		s->other = 1;
	if (e == 0x7ff)
	{
		if (f != 0)
			s->nan = 1;
		else if (negative)
			s->neg_inf = 1;
		else
			s->pos_inf = 1;
		return;
	}
	if (e == 0)
		add_magnitude(s, f, 0, negative);
	else
		add_magnitude(s, f | HIDDEN_BIT, e - 1, negative);
}

/* ref_add_f32_bits -- (2^23 + f) * 2^(e - 150), or f * 2^-149 if e = 0 */
void
ref_add_f32_bits(ref_sum *s, uint32_t bits)
{
	unsigned	e = (bits >> 23) & 0xff;
	uint64_t	f = bits & 0x7fffff;
	int			negative = (bits & 0x80000000u) != 0;

	if (bits == 0x80000000u)
		s->negzero = 1;
	else
		s->other = 1;
	if (e == 0xff)
	{
		if (f != 0)
			s->nan = 1;
		else if (negative)
			s->neg_inf = 1;
		else
			s->pos_inf = 1;
		return;
	}
	/* 2^-149 is 2^925 units of 2^-1074 */
	if (e == 0)
		add_magnitude(s, f, 925, negative);
	else
		add_magnitude(s, f | (UINT64_C(1) << 23), e + 924, negative);
}

/* ref_add_scaled -- v * 2^unit units, exactly */
void
ref_add_scaled(ref_sum *s, int64_t v, unsigned unit)
{
	if (v < 0)
		add_magnitude(s, UINT64_C(0) - (uint64_t) v, unit, 1);
	else
		add_magnitude(s, (uint64_t) v, unit, 0);
}

/* ref_add_sum -- s += t, word by word with carry */
void
ref_add_sum(ref_sum *s, const ref_sum *t)
{
	uint64_t	carry = 0;
	int			i;

	for (i = 0; i < REF_WORDS; i++)
	{
		uint64_t	old = s->w[i];

		s->w[i] = old + t->w[i] + carry;
		carry = (s->w[i] < old || (carry && s->w[i] == old)) ? 1 : 0;
	}
	s->nan |= t->nan;
	s->pos_inf |= t->pos_inf;
	s->neg_inf |= t->neg_inf;
	s->negzero |= t->negzero;
	s->other |= t->other;
}

/* bit -- bit i of the magnitude */
static int
bit(const uint64_t *mag, unsigned i)
{
	return (int) ((mag[i / 64] >> (i % 64)) & 1);
}

/* bits_from -- the 64 bits of the magnitude from bit i up */
static uint64_t
bits_from(const uint64_t *mag, unsigned i)
{
	unsigned	k = i / 64,
				b = i % 64;
	uint64_t	hi = (b != 0 && k + 1 < REF_WORDS) ? mag[k + 1] << (64 - b) : 0;

	return (mag[k] >> b) | hi;
}

/* any_below -- whether any of bits 0 .. n-1 of the magnitude is set */
static int
any_below(const uint64_t *mag, unsigned n)
{
	unsigned	i;

	for (i = 0; i < n / 64; i++)
		if (mag[i] != 0)
			return 1;
	if (n % 64 != 0 && (mag[n / 64] & ((UINT64_C(1) << (n % 64)) - 1)) != 0)
		return 1;
	return 0;
}

/*
 * ref_round_bits -- the special cases, then the magnitude's top 53 bits
 * rounded to nearest even by the next bit (guard) and the rest (sticky).
 * With h the top bit's position, the biased exponent is h - 51 (h = 52 is
 * the smallest normal); below that the magnitude is the subnormal's bits.
 */
uint64_t
ref_round_bits(const ref_sum *s)
{
	uint64_t	mag[REF_WORDS],
				sign,
				m,
				bits;
	int			i;
	unsigned	h,
				j,
				shift;

	if (s->nan || (s->pos_inf && s->neg_inf))
		return REF_QNAN_BITS;
	if (s->pos_inf)
		return INF_BITS;
	if (s->neg_inf)
		return SIGN_BIT | INF_BITS;

	memcpy(mag, s->w, sizeof(mag));
	if (mag[REF_WORDS - 1] != 0 && mag[REF_WORDS - 1] != ~UINT64_C(0))
	{
		fprintf(stderr, "exact_reference: the sum overflowed the reference's width\n");
		abort();
	}
	sign = mag[REF_WORDS - 1] & SIGN_BIT;
	if (sign)
	{
		/* two's complement: invert and add one */
		int			carry = 1;

		for (i = 0; i < REF_WORDS; i++)
		{
			mag[i] = ~mag[i] + (uint64_t) carry;
			carry = carry && mag[i] == 0;
		}
	}

	for (i = REF_WORDS - 1; i >= 0 && mag[i] == 0; i--)
		;
	if (i < 0)
		return (s->negzero && !s->other) ? SIGN_BIT : 0;
	for (j = 63; ((mag[i] >> j) & 1) == 0; j--)
		;
	h = 64 * (unsigned) i + j;
	if (h <= 52)
		return sign | mag[0];	/* subnormal, or the smallest binade: exact */
	if (h - 51 >= 2047)
		return sign | INF_BITS;

	shift = h - 52;
	m = bits_from(mag, shift) & ((HIDDEN_BIT << 1) - 1);	/* bits h-52 .. h */
	bits = ((uint64_t) (h - 51) << 52) + (m - HIDDEN_BIT);
	if (bit(mag, shift - 1) && (any_below(mag, shift - 1) || (m & 1)))
		bits++;					/* a carry out of the fraction bumps the exponent */
	if (bits >= INF_BITS)
		bits = INF_BITS;
	return sign | bits;
}
