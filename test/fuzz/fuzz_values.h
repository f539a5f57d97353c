/*-------------------------------------------------------------------------
 *
 * fuzz_values.h
 *	  The input format of the differential harnesses fuzz_exact_sum and
 *	  fuzz_prefix_sum: a short header, then raw IEEE bit patterns (so that
 *	  NaN, Inf, subnormals and -0 all occur), optionally repeated with
 *	  variations into a long array, and a random split into calls.
 *
 *   byte 0     flags: FV_*
 *   byte 1     repetitions: the data appear 1 + (byte 1 mod 8) times, or from
 *              0xc0 up, 1 + 64 (byte 1 - 0xbf) times (65 .. 4097)
 *   byte 2     low fraction bits varied in each repetition (mod 53; floats mod 24)
 *   byte 3     exponent window (FV_NARROW): its centre, signed, in steps of 8
 *   byte 4..7  seed of the split into calls (0: one call for everything)
 *   byte 8..   the elements: 8 bytes each as doubles, 4 bytes each as floats
 *
 * Repetitions make arrays of thousands of elements from small inputs, so
 * that the blocked and vectorized paths run; the narrow exponent window
 * makes elements of similar magnitude, as real data are, where the fast
 * paths and their near-ties live.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_FUZZ_VALUES_H
#define GPUSCAN_FUZZ_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_util.h"

#define FV_HEADER		8

#define FV_AVX2			0x01	/* allow the AVX2 build (else the portable one) */
#define FV_ALTERNATE	0x02	/* negate every other repetition */
#define FV_NARROW		0x04	/* map exponents into a window of 64 (floats: 32) */
#define FV_MERGE		0x08	/* harness-specific: merge partial accumulators */

typedef struct fuzz_values
{
	uint8_t		flags;
	uint32_t	split_seed;
	size_t		n64;			/* doubles in x64 */
	size_t		n32;			/* floats in x32 */
	double	   *x64;			/* exactly n64 elements (malloc) */
	float	   *x32;			/* exactly n32 elements (malloc) */
} fuzz_values;

/* Decode an input into at most max_n doubles and max_n floats */
void		fuzz_values_decode(const uint8_t *data, size_t size, size_t max_n,
							   fuzz_values *v);
void		fuzz_values_free(fuzz_values *v);

/*
 * The split into calls: fuzz_split_start, then the length of each next
 * call from fuzz_split_next (0-length calls included) until nothing is left
 */
typedef struct fuzz_split
{
	fuzz_rng	rng;
	int			whole;			/* one call for everything */
} fuzz_split;

void		fuzz_split_start(fuzz_split *s, uint32_t seed);
size_t		fuzz_split_next(fuzz_split *s, size_t left);

#endif							/* GPUSCAN_FUZZ_VALUES_H */
