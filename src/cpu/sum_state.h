/*-------------------------------------------------------------------------
 *
 * sum_state.h
 *	  The shipped form of a gpu_sum aggregate state: the bytes that travel
 *	  from a parallel worker to the leader, from a Citus worker to the
 *	  coordinator, or that a user writes as an INITCOND.  Plain C (no
 *	  PostgreSQL headers), so that the unit tests and the fuzzing harnesses
 *	  link it.
 *
 * A state is the exact accumulator alone, without the aggregate's buffer
 * of values not yet added, in a compact encoding: the sign and the 32-bit
 * digits of the sum's magnitude from the lowest nonzero digit to the
 * highest, and one flag per IEEE special case seen.  All fields are
 * little-endian on every machine, so a state reads the same wherever it
 * was written.  A state is at most GS_SUM_STATE_MAX_BYTES bytes.
 *
 *   byte 0..3   magic, GS_SUM_STATE_MAGIC
 *   byte 4      flags, GS_SUM_FLAG_*
 *   byte 5      index of the lowest digit stored (0 .. GS_ACC_LIMBS - 1)
 *   byte 6      number of digits stored (0 .. GS_ACC_LIMBS)
 *   byte 7      0
 *   byte 8..    the digits, 4 bytes each
 *
 * Every state that gs_sum_state_encode writes is canonical: no zero digit
 * at either end, no digits and no sign for a zero sum, no unknown flag.
 * gs_sum_state_decode accepts exactly those and nothing else.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SUM_STATE_H
#define GPUSCAN_SUM_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuscan_exact.h"

#ifdef __cplusplus
extern "C"
{
#endif

#define GS_SUM_STATE_MAGIC		UINT32_C(0x32535347)	/* "GSS2" */
#define GS_SUM_STATE_HEADER		8
#define GS_SUM_STATE_MAX_BYTES	(GS_SUM_STATE_HEADER + 4 * GS_ACC_LIMBS)

#define GS_SUM_FLAG_NAN			0x01	/* a NaN was added */
#define GS_SUM_FLAG_POS_INF		0x02	/* +Infinity was added */
#define GS_SUM_FLAG_NEG_INF		0x04	/* -Infinity was added */
#define GS_SUM_FLAG_NEGZERO		0x08	/* -0 was added */
#define GS_SUM_FLAG_NONNEGZERO	0x10	/* a value other than -0 was added */
#define GS_SUM_FLAG_NEGATIVE	0x20	/* the finite sum is below zero */
#define GS_SUM_FLAGS_ALL		0x3f

/* Why gs_sum_state_decode refused a state */
typedef enum gs_sum_state_problem
{
	GS_SUM_STATE_OK = 0,
	GS_SUM_STATE_SHORT,			/* shorter than the header */
	GS_SUM_STATE_SIZE,			/* not the size the header gives */
	GS_SUM_STATE_BAD_MAGIC,		/* not a gpu_sum state of this format */
	GS_SUM_STATE_BAD_FLAGS,		/* unknown flag bits, or a nonzero reserved byte */
	GS_SUM_STATE_BAD_DIGITS		/* digits out of range or not canonical */
} gs_sum_state_problem;

/*
 * Bytes of the encoding of acc (which is not changed): what
 * gs_sum_state_encode writes, at most GS_SUM_STATE_MAX_BYTES.
 */
size_t		gs_sum_state_size(const gs_exact_acc *acc);

/*
 * Write the encoding of acc into out, which has room for
 * gs_sum_state_size(acc) bytes; returns that size.  A magnitude of
 * 2^1070 or more (a sum of over 2^46 values near the largest double;
 * the rounded sum is infinite) is stored as the largest magnitude the
 * digits hold, which rounds to the same infinity.
 */
size_t		gs_sum_state_encode(const gs_exact_acc *acc, uint8_t *out);

/*
 * Check the `size` bytes at `in` completely and, if they are a canonical
 * state, set *acc to its value (normalized).  Nothing is read outside
 * in[0 .. size); *acc is written only if the result is GS_SUM_STATE_OK.
 */
gs_sum_state_problem gs_sum_state_decode(const uint8_t *in, size_t size, gs_exact_acc *acc);

/* A sentence saying what is wrong, for an error's detail */
const char *gs_sum_state_problem_text(gs_sum_state_problem problem);

/*
 * The sign and magnitude of acc: digits[i] is the 32-bit digit i of |acc|
 * (the top one saturated at UINT32_MAX from 2^1070 on, where the rounded
 * sum is infinite anyway); returns 1 if acc is below zero.
 */
int			gs_acc_digits(const gs_exact_acc *acc, uint32_t digits[GS_ACC_LIMBS]);

/*
 * Keep an accumulator that merges states from outside within the range
 * where further merges and additions cannot overflow: normalize it, then
 * clamp the top limb to +-2^40 and the special-value counters to 2^62.
 * Either clamp applies only where the sum is already infinite (beyond
 * 2^1070) or the counter already nonzero, so the rounded sum is unchanged.
 */
void		gs_acc_bound(gs_exact_acc *acc);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSCAN_SUM_STATE_H */
