/*-------------------------------------------------------------------------
 *
 * fuzz_util.c
 *	  Helpers shared by the harnesses (see fuzz_util.h).
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

/* fuzz_reader_init -- read data[0 .. size) from the front */
void
fuzz_reader_init(fuzz_reader *r, const uint8_t *data, size_t size)
{
	r->p = data;
	r->left = size;
}

/* fuzz_u8 -- the next byte, 0 past the end */
uint8_t
fuzz_u8(fuzz_reader *r)
{
	if (r->left == 0)
		return 0;
	r->left--;
	return *r->p++;
}

/* fuzz_u16 / fuzz_u32 / fuzz_u64 -- little-endian fields of fuzz_u8 bytes */
uint16_t
fuzz_u16(fuzz_reader *r)
{
	uint16_t	lo = fuzz_u8(r);

	return (uint16_t) (lo | (uint16_t) fuzz_u8(r) << 8);
}

uint32_t
fuzz_u32(fuzz_reader *r)
{
	uint32_t	lo = fuzz_u16(r);

	return lo | (uint32_t) fuzz_u16(r) << 16;
}

uint64_t
fuzz_u64(fuzz_reader *r)
{
	uint64_t	lo = fuzz_u32(r);

	return lo | (uint64_t) fuzz_u32(r) << 32;
}

/* fuzz_rng_seed -- start the generator */
void
fuzz_rng_seed(fuzz_rng *g, uint64_t seed)
{
	g->state = seed;
}

/* fuzz_rng_next -- splitmix64 */
uint64_t
fuzz_rng_next(fuzz_rng *g)
{
	uint64_t	z = (g->state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* fuzz_rng_below -- [0, n); the small bias of the modulo does not matter here */
uint64_t
fuzz_rng_below(fuzz_rng *g, uint64_t n)
{
	return n == 0 ? 0 : fuzz_rng_next(g) % n;
}

/* fuzz_hash -- FNV-1a, 64 bits */
uint64_t
fuzz_hash(const uint8_t *data, size_t size)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);
	size_t		i;

	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * UINT64_C(0x100000001b3);
	return h;
}

/* fuzz_double_bits and friends -- bit casts through memcpy */
uint64_t
fuzz_double_bits(double x)
{
	uint64_t	u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

double
fuzz_bits_double(uint64_t u)
{
	double		x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

uint32_t
fuzz_float_bits(float x)
{
	uint32_t	u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

float
fuzz_bits_float(uint32_t u)
{
	float		x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

/* fuzz_alloc -- malloc(bytes), aborting if there is no memory */
void *
fuzz_alloc(size_t bytes)
{
	void	   *p = malloc(bytes);

	if (p == NULL && bytes > 0)
	{
		fprintf(stderr, "fuzz: out of memory (%zu bytes)\n", bytes);
		abort();
	}
	return p;
}

/* fuzz_fail -- print "FUZZ FAILURE: ..." and abort */
void
fuzz_fail(const char *fmt,...)
{
	va_list		ap;

	fputs("FUZZ FAILURE: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
