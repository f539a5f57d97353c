/*-------------------------------------------------------------------------
 *
 * exact_atomic.cuh
 *	  gs_acc_add (common/gpuscan_exact.h) into an accumulator that other
 *	  threads add into at the same time.
 *
 * The limbs are integers, so atomic additions give the same limbs in any
 * order: the sum stays exact and the same on every run.  A limb takes
 * 2^31 additions before it could overflow (gpuscan_exact.h); the caller
 * keeps within that and normalizes afterwards (gs_acc_merge does).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_EXACT_ATOMIC_CUH
#define GPUSCAN_EXACT_ATOMIC_CUH

#include "../common/gpuscan_exact.h"

/* atomic_limb_add -- limb += delta, atomically (two's complement) */
__device__ __forceinline__ void
atomic_limb_add(int64_t *limb, int64_t delta)
{
	atomicAdd((unsigned long long *) limb, (unsigned long long) delta);
}

/* gs_acc_add_atomic -- gs_acc_add(acc, x) with atomic additions */
__device__ __forceinline__ void
gs_acc_add_atomic(gs_exact_acc *acc, double x)
{
	uint64_t	bits = gs_double_bits(x);
	uint64_t	m;
	int			pos,
				i,
				s;
	int64_t		lo,
				mid,
				hi;

	if (bits == UINT64_C(0x8000000000000000))
	{
		if (!*(volatile uint64_t *) &acc->has_negzero)
			atomicOr((unsigned long long *) &acc->has_negzero, 1ULL);
	}
	else if (!*(volatile uint64_t *) &acc->has_nonnegzero)
		atomicOr((unsigned long long *) &acc->has_nonnegzero, 1ULL);
	if (((bits >> 52) & 0x7ff) == 0x7ff)
	{
		if (bits & ((UINT64_C(1) << 52) - 1))
			atomicAdd((unsigned long long *) &acc->n_nan, 1ULL);
		else if (bits >> 63)
			atomicAdd((unsigned long long *) &acc->n_neg_inf, 1ULL);
		else
			atomicAdd((unsigned long long *) &acc->n_pos_inf, 1ULL);
		return;
	}
	if (!gs_split_double(bits, &m, &pos))
		return;
	i = pos >> 5;
	s = pos & 31;
	lo = (int64_t) ((m << s) & 0xffffffffu);
	mid = (int64_t) ((m << s) >> 32);
	hi = s == 0 ? 0 : (int64_t) (m >> (64 - s));
	if (bits >> 63)
	{
		lo = -lo;
		mid = -mid;
		hi = -hi;
	}
	atomic_limb_add(&acc->limb[i], lo);
	atomic_limb_add(&acc->limb[i + 1], mid);
	if (hi)
		atomic_limb_add(&acc->limb[i + 2], hi);
}

#endif							/* GPUSCAN_EXACT_ATOMIC_CUH */
