/*-------------------------------------------------------------------------
 *
 * make_seeds.c
 *	  Writes the hand-made part of the seed corpus of each harness into
 *	  test/fuzz/corpus/NAME/seed-LABEL: the cases worth starting from
 *	  (ties, overflow, the special values, canonical and broken states,
 *	  valid and broken matrices, inputs long enough for the vector paths).
 *	  Run by "bash test/fuzz/run.sh seeds"; the fuzzing adds the rest.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_values.h"
#include "gpuscan_exact.h"
#include "cpu/sum_state.h"

#define CORPUS	"test/fuzz/corpus"

/* fuzz_csr.c's input modes */
#define CSR_MODE_DELTAS		0x01
#define CSR_MODE_FIX_NNZ	0x02

/* an input being built */
typedef struct seed
{
	uint8_t		b[8192];
	size_t		n;
} seed;

/* put -- append n bytes */
static void
put(seed *s, const void *p, size_t n)
{
	if (s->n + n > sizeof(s->b))
	{
		fprintf(stderr, "make_seeds: seed too long\n");
		exit(1);
	}
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

/* put_le -- append the low `bytes` bytes of v, little-endian */
static void
put_le(seed *s, uint64_t v, int bytes)
{
	int			i;

	for (i = 0; i < bytes; i++)
	{
		uint8_t		c = (uint8_t) (v >> (8 * i));

		put(s, &c, 1);
	}
}

/* save -- write the seed as CORPUS/harness/seed-label */
static void
save(const char *harness, const char *label, const seed *s)
{
	char		path[256];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s/seed-%s", CORPUS, harness, label);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(s->b, 1, s->n, f) != s->n || fclose(f) != 0)
	{
		perror(path);
		exit(1);
	}
}

/* bits -- the IEEE bits of a double */
static uint64_t
bits(double x)
{
	uint64_t	u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

/* values -- a fuzz_values input: header fields, then doubles (reps: byte 1) */
static void
values(const char *label, uint8_t flags, uint8_t reps, uint8_t vary, int8_t window,
	   uint32_t split, const double *x, size_t n)
{
	seed		s = {.n = 0};
	size_t		i;

	put_le(&s, flags, 1);
	put_le(&s, reps, 1);
	put_le(&s, vary, 1);
	put_le(&s, (uint8_t) window, 1);
	put_le(&s, split, 4);
	for (i = 0; i < n; i++)
		put_le(&s, bits(x[i]), 8);
	save("fuzz_exact_sum", label, &s);
	save("fuzz_prefix_sum", label, &s);
}

/* value_seeds -- sums and prefix sums */
static void
value_seeds(void)
{
	double		x[512];
	int			i;

	values("empty", 0, 0, 0, 0, 0, x, 0);
	x[0] = -0.0;
	x[1] = -0.0;
	values("negzero", FV_AVX2, 0, 0, 0, 0, x, 2);
	x[0] = 1e308;
	x[1] = 1e308;
	x[2] = -1e308;
	values("overflow", FV_AVX2, 0, 0, 0, 1, x, 3);
	x[0] = 0x1.fffffffffffffp1023;
	x[1] = 0x1p970;
	values("dblmax-tie", 0, 0, 0, 0, 0, x, 2);
	x[0] = 1.0;
	x[1] = 0x1p-53;
	x[2] = 0x1p-1074;
	values("tie-sticky", FV_AVX2, 0, 0, 0, 0, x, 3);
	x[0] = 0.1;
	x[1] = 0.2;
	x[2] = 1e16;
	x[3] = 1.0;
	x[4] = -1e16;
	values("cancel", FV_AVX2, 0, 0, 0, 0, x, 5);
	x[0] = 0x1p-1074;
	x[1] = 0x1.ffffffffffffep-1023;
	x[2] = -0x1p-1022;
	values("subnormal", 0, 3, 0, 0, 7, x, 3);
	x[0] = 1.0 / 0.0;
	x[1] = -1.0 / 0.0;
	x[2] = 0.0 / 0.0;
	x[3] = 5.0;
	values("specials", FV_AVX2, 1, 0, 0, 3, x, 4);
	for (i = 0; i < 64; i++)
		x[i] = (double) (i + 1) * 0x1.0000000000001p-3 * (i % 3 == 0 ? -1 : 1);
	values("narrow-long", FV_AVX2 | FV_NARROW, 0xc3, 20, 0, 0, x, 64);
	values("narrow-long-portable", FV_NARROW, 0xc2, 52, 0, 11, x, 64);
	values("alternate-merge", FV_AVX2 | FV_ALTERNATE | FV_MERGE, 0xc3, 0, 0, 99, x, 64);
	values("near-overflow", FV_AVX2 | FV_NARROW, 0xc1, 10, 126, 5, x, 64);
	values("near-subnormal", FV_NARROW, 0xc1, 10, -124, 0, x, 64);
	for (i = 0; i < 512; i++)
		x[i] = (double) ((i * 7919) % 1000) * 0x1p-52;	/* many exact ties */
	values("ties-long", FV_AVX2, 0xc0, 0, 0, 0, x, 256);
	values("ties-long-split", FV_AVX2 | FV_MERGE, 0xc0, 0, 0, 1234, x, 256);
}

/* state -- a gpu_sum state: header fields and digits */
static void
state(const char *label, uint32_t magic, uint8_t flags, uint8_t lo, uint8_t nd,
	  uint8_t reserved, const uint32_t *digits, size_t ndigits)
{
	seed		s = {.n = 0};
	size_t		i;

	put_le(&s, magic, 4);
	put_le(&s, flags, 1);
	put_le(&s, lo, 1);
	put_le(&s, nd, 1);
	put_le(&s, reserved, 1);
	for (i = 0; i < ndigits; i++)
		put_le(&s, digits[i], 4);
	save("fuzz_sum_state", label, &s);
}

/* encoded -- the state gs_sum_state_encode writes for these doubles */
static void
encoded(const char *label, const double *x, int n)
{
	gs_exact_acc acc;
	seed		s = {.n = 0};
	int			i;

	gs_acc_zero(&acc);
	for (i = 0; i < n; i++)
		gs_acc_add(&acc, x[i]);
	s.n = gs_sum_state_encode(&acc, s.b);
	save("fuzz_sum_state", label, &s);
}

/* state_seeds -- canonical states and states that break one rule each */
static void
state_seeds(void)
{
	uint32_t	d[GS_ACC_LIMBS];
	double		x[4];
	int			i;

	encoded("empty", x, 0);
	x[0] = -0.0;
	encoded("negzero", x, 1);
	x[0] = 1.0;
	x[1] = -3.5;
	encoded("negative", x, 2);
	x[0] = 0x1p-1074;
	encoded("tiny", x, 1);
	x[0] = 0x1.fffffffffffffp1023;
	x[1] = 0x1.fffffffffffffp1023;
	encoded("beyond-dblmax", x, 2);
	x[0] = 1.0 / 0.0;
	x[1] = -1.0 / 0.0;
	x[2] = 0.0 / 0.0;
	encoded("specials", x, 3);
	for (i = 0; i < GS_ACC_LIMBS; i++)
		d[i] = 0xffffffffu;
	state("all-digits", GS_SUM_STATE_MAGIC, GS_SUM_FLAG_NONNEGZERO, 0, GS_ACC_LIMBS, 0, d, GS_ACC_LIMBS);
	state("top-digit-negative", GS_SUM_STATE_MAGIC, GS_SUM_FLAG_NONNEGZERO | GS_SUM_FLAG_NEGATIVE,
		  GS_ACC_LIMBS - 1, 1, 0, d, 1);
	state("bad-magic", 0x31535347, 0, 0, 0, 0, d, 0);
	state("bad-flags", GS_SUM_STATE_MAGIC, 0x40, 0, 0, 0, d, 0);
	state("bad-reserved", GS_SUM_STATE_MAGIC, 0, 0, 0, 1, d, 0);
	state("negative-zero-sum", GS_SUM_STATE_MAGIC, GS_SUM_FLAG_NEGATIVE, 0, 0, 0, d, 0);
	state("past-the-top", GS_SUM_STATE_MAGIC, 0, GS_ACC_LIMBS - 1, 2, 0, d, 2);
	d[0] = 0;
	state("low-zero-digit", GS_SUM_STATE_MAGIC, 0, 3, 2, 0, d, 2);
	state("size-mismatch", GS_SUM_STATE_MAGIC, 0, 3, 3, 0, d + 1, 2);
}

/* csr -- a fuzz_csr input: mode, row_ptr entries, ncols, words */
static void
csr(const char *label, uint8_t mode, uint16_t nrp, uint16_t ncols,
	const uint32_t *w, size_t nw)
{
	seed		s = {.n = 0};
	size_t		i;

	put_le(&s, mode, 1);
	put_le(&s, nrp, 2);
	put_le(&s, ncols, 2);
	for (i = 0; i < nw; i++)
		put_le(&s, w[i], 4);
	save("fuzz_csr", label, &s);
}

/* csr_seeds -- valid matrices, one broken rule each, large rows */
static void
csr_seeds(void)
{
	static const uint32_t square[] = {0, 2, 3, 5, 1, 0, 2, 2, 0};	/* 3 x 3 */
	static const uint32_t first[] = {1, 2, 0, 1};
	static const uint32_t down[] = {0, 2, 1, 2, 0, 1};
	static const uint32_t last[] = {0, 1, 3, 0, 0};
	static const uint32_t negcol[] = {0, 2, 0, 0xffffffffu};
	uint32_t	w[64];
	int			i;

	csr("no-row-ptr", 0, 0, 3, w, 0);
	w[0] = 0;
	csr("zero-by-zero", 0, 1, 0, w, 1);
	csr("square", 0, 4, 3, square, 9);
	csr("rectangular", 0, 4, 7, square, 9);
	csr("first-not-zero", 0, 3, 3, first, 4);
	csr("decreasing", 0, 4, 3, down, 6);
	csr("last-not-nnz", 0, 3, 4, last, 5);
	csr("column-negative", 0, 2, 3, negcol, 4);
	csr("column-past-end", 0, 4, 2, square, 9);
	csr("ncols-int32-max", 0, 4, 0xfffa, square, 9);
	for (i = 0; i < 64; i++)
		w[i] = (uint32_t) (i * 2654435761u) & 0x0fffffffu;
	csr("deltas", CSR_MODE_DELTAS, 20, 19, w, 64);
	csr("deltas-fixed", CSR_MODE_DELTAS | CSR_MODE_FIX_NNZ, 33, 32, w, 64);
	for (i = 0; i < 8; i++)
		w[i] = 0xe0001fffu;		/* rows of 8191: two segments each */
	csr("long-rows", CSR_MODE_DELTAS | CSR_MODE_FIX_NNZ, 8, 7, w, 64);
}

/* main -- all harnesses' seeds */
int
main(void)
{
	value_seeds();
	state_seeds();
	csr_seeds();
	return 0;
}
