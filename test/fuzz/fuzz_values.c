/*-------------------------------------------------------------------------
 *
 * fuzz_values.c
 *	  The input format of the differential harnesses (see fuzz_values.h).
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>

#include "fuzz_values.h"

/* header -- the fields of the first FV_HEADER bytes */
typedef struct header
{
	uint8_t		flags;
	unsigned	reps;
	unsigned	vary_bits;
	int			window;
} header;

/* variation -- a hash of (repetition, element) for the varied low bits */
static uint64_t
variation(size_t rep, size_t j)
{
	fuzz_rng	g;

	fuzz_rng_seed(&g, ((uint64_t) rep << 32) ^ (uint64_t) j);
	return fuzz_rng_next(&g);
}

/*
 * narrow64 -- move the exponent field into the window of 64 biased
 * exponents around 1023 + 8 * window (clamped to [0, 2047]: subnormals,
 * Inf and NaN stay reachable)
 */
static uint64_t
narrow64(uint64_t bits, int window)
{
	int			e = (int) ((bits >> 52) & 0x7ff);

	e = 1023 - 32 + 8 * window + e % 64;
	e = e < 0 ? 0 : (e > 2047 ? 2047 : e);
	return (bits & UINT64_C(0x800fffffffffffff)) | ((uint64_t) e << 52);
}

/* narrow32 -- the same for floats: 32 exponents around 127 + window */
static uint32_t
narrow32(uint32_t bits, int window)
{
	int			e = (int) ((bits >> 23) & 0xff);

	e = 127 - 16 + window + e % 32;
	e = e < 0 ? 0 : (e > 255 ? 255 : e);
	return (bits & 0x807fffffu) | ((uint32_t) e << 23);
}

/* element64 -- element j of repetition rep, from the raw bits */
static uint64_t
element64(const header *h, uint64_t raw, size_t rep, size_t j)
{
	uint64_t	bits = (h->flags & FV_NARROW) ? narrow64(raw, h->window) : raw;
	unsigned	vb = h->vary_bits % 53;

	if (rep > 0 && vb > 0)
		bits ^= variation(rep, j) & ((UINT64_C(1) << vb) - 1);
	if ((h->flags & FV_ALTERNATE) && (rep & 1))
		bits ^= UINT64_C(0x8000000000000000);
	return bits;
}

/* element32 -- the same for floats */
static uint32_t
element32(const header *h, uint32_t raw, size_t rep, size_t j)
{
	uint32_t	bits = (h->flags & FV_NARROW) ? narrow32(raw, h->window) : raw;
	unsigned	vb = h->vary_bits % 24;

	if (rep > 0 && vb > 0)
		bits ^= (uint32_t) variation(rep, j) & ((UINT32_C(1) << vb) - 1);
	if ((h->flags & FV_ALTERNATE) && (rep & 1))
		bits ^= 0x80000000u;
	return bits;
}

/* fuzz_values_decode -- see fuzz_values.h */
void
fuzz_values_decode(const uint8_t *data, size_t size, size_t max_n, fuzz_values *v)
{
	fuzz_reader r;
	header		h;
	size_t		raw64,
				raw32,
				i;

	fuzz_reader_init(&r, data, size);
	h.flags = fuzz_u8(&r);
	h.reps = fuzz_u8(&r);
	h.reps = h.reps < 0xc0 ? 1 + h.reps % 8 : 1 + 64 * (h.reps - 0xbf);
	h.vary_bits = fuzz_u8(&r);
	h.window = (int8_t) fuzz_u8(&r);
	v->flags = h.flags;
	v->split_seed = fuzz_u32(&r);

	raw64 = r.left / 8;
	raw32 = r.left / 4;
	v->n64 = raw64 * h.reps < max_n ? raw64 * h.reps : max_n;
	v->n32 = raw32 * h.reps < max_n ? raw32 * h.reps : max_n;
	v->x64 = fuzz_alloc(sizeof(double) * v->n64);
	v->x32 = fuzz_alloc(sizeof(float) * v->n32);
	for (i = 0; i < v->n64; i++)
	{
		fuzz_reader e;

		fuzz_reader_init(&e, r.p + 8 * (i % raw64), 8);
		v->x64[i] = fuzz_bits_double(element64(&h, fuzz_u64(&e), i / raw64, i % raw64));
	}
	for (i = 0; i < v->n32; i++)
	{
		fuzz_reader e;

		fuzz_reader_init(&e, r.p + 4 * (i % raw32), 4);
		v->x32[i] = fuzz_bits_float(element32(&h, fuzz_u32(&e), i / raw32, i % raw32));
	}
}

/* fuzz_values_free -- free the arrays */
void
fuzz_values_free(fuzz_values *v)
{
	free(v->x64);
	free(v->x32);
}

/* fuzz_split_start -- seed 0 means a single call */
void
fuzz_split_start(fuzz_split *s, uint32_t seed)
{
	fuzz_rng_seed(&s->rng, seed);
	s->whole = seed == 0;
}

/*
 * fuzz_split_next -- the next call's length, at most left: empty, tiny,
 * around the sizes where the code changes paths (64: vector paths; 1024,
 * 4096, 8192: blocks, normalization, scan groups), or all the rest
 */
size_t
fuzz_split_next(fuzz_split *s, size_t left)
{
	static const size_t edges[] = {63, 64, 65, 255, 256, 1023, 1024, 1025, 4095, 4096, 8191, 8192, 8193};
	size_t		len;

	if (s->whole)
		return left;
	switch (fuzz_rng_below(&s->rng, 8))
	{
		case 0:
			len = 0;
			break;
		case 1:
			len = 1 + fuzz_rng_below(&s->rng, 3);
			break;
		case 2:
			len = fuzz_rng_below(&s->rng, 64);
			break;
		case 3:
			len = edges[fuzz_rng_below(&s->rng, sizeof(edges) / sizeof(edges[0]))];
			break;
		case 4:
			len = fuzz_rng_below(&s->rng, 3000);
			break;
		case 5:
			len = fuzz_rng_below(&s->rng, 20000);
			break;
		default:
			len = left;
			break;
	}
	return len < left ? len : left;
}
