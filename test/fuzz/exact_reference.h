/*-------------------------------------------------------------------------
 *
 * exact_reference.h
 *	  The reference of the differential fuzzing harnesses: exact sums of
 *	  doubles and floats, rounded once to double.  Written for the harnesses
 *	  alone, independently of common/gpuscan_exact.h (nothing here calls
 *	  gs_*), and as plainly as possible: slow and obviously right.
 *
 * Every finite double and float is an integer multiple of 2^-1074.  The
 * finite part of a sum is kept as that integer, in REF_WORDS 64-bit words
 * of two's complement (2304 bits): |x| < 2^2098 units for a double, so any
 * sum of up to 2^200 doubles fits, and so does the value of any bounded
 * gs_exact_acc (below 2^2153 units) plus many merges of it.
 *
 * The rounding is IEEE round to nearest, ties to even, with overflow to
 * +-Infinity; NaN if any input was NaN or both infinities were added, else
 * an infinity wins; an exact zero is -0 only if there was at least one
 * input and every input was -0.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_EXACT_REFERENCE_H
#define GPUSCAN_EXACT_REFERENCE_H

#include <stdint.h>

#define REF_WORDS		36
#define REF_QNAN_BITS	UINT64_C(0x7ff8000000000000)	/* the result for NaN */

typedef struct ref_sum
{
	uint64_t	w[REF_WORDS];	/* two's complement, little-endian words */
	int			nan;			/* a NaN was added */
	int			pos_inf;		/* +Infinity was added */
	int			neg_inf;		/* -Infinity was added */
	int			negzero;		/* -0 was added */
	int			other;			/* something other than -0 was added */
} ref_sum;

/* The empty sum (+0) */
void		ref_init(ref_sum *s);

/* Add one double or float, given by its IEEE bits */
void		ref_add_f64_bits(ref_sum *s, uint64_t bits);
void		ref_add_f32_bits(ref_sum *s, uint32_t bits);

/* Add v * 2^(unit - 1074) exactly (the finite part only; unit < 2200) */
void		ref_add_scaled(ref_sum *s, int64_t v, unsigned unit);

/* s += t: the finite parts exactly, the special flags or'ed */
void		ref_add_sum(ref_sum *s, const ref_sum *t);

/* The sum rounded once to double, as IEEE bits (NaN: REF_QNAN_BITS) */
uint64_t	ref_round_bits(const ref_sum *s);

/* Check the reference against known sums and the FPU; 0 if all hold */
int			ref_self_test(void);

#endif							/* GPUSCAN_EXACT_REFERENCE_H */
