/*-------------------------------------------------------------------------
 *
 * gpuscan_spmv.h
 *	  The canonical summation order of a CSR row, shared by the CPU code
 *	  (src/cpu/cpu_spmv.c) and the production SpMV kernel (kernels/spmv.cu), so
 *	  that both give the same bits for every input.
 *
 * Row i of y = A x is the sum of the products a_k * x[col_k] for k in
 * [row_ptr[i], row_ptr[i+1]).  The order of that sum is fixed:
 *
 *	 1. Products are rounded on their own: double a * double x rounded to
 *		double (no fused multiply-add: the GPU code uses __dmul_rn and
 *		__dadd_rn, the CPU file is compiled with -ffp-contract=off).  For
 *		real inputs a and x are widened to double, where their product is
 *		exact, and everything below runs in double; the row's result is
 *		rounded to real once at the end.
 *	 2. The row is cut into segments of GS_SPMV_SEGMENT consecutive
 *		non-zeros (the last one shorter).
 *	 3. Within a segment, GS_SPMV_LANES (32) "virtual lanes": the t-th
 *		product of the segment goes to lane t mod 32, and each lane adds its
 *		products in order to a partial sum that starts at +0.0.
 *	 4. The 32 partials are combined by an xor butterfly: for o = 16, 8, 4,
 *		2, 1, every lane l takes p[l] + p[l ^ o] (IEEE addition is
 *		commutative, so both lanes of a pair get the same value); after the
 *		last step every lane holds the segment's sum.  Only the lanes below
 *		o matter for lane 0's result: 31 additions per segment.
 *	 5. The row's sum is ((+0.0 + seg_0) + seg_1) + ... in segment order;
 *		an empty row gives +0.0.
 *
 * Starting every sum at +0.0 means a -0.0 never arises (in round to
 * nearest, x + y is -0.0 only when both are -0.0), so adding +0.0 for a
 * lane that got no product is an exact no-op: a GPU group of G lanes can
 * skip whatever the order has no element for.
 *
 * NaN results are NaN on both paths, but the payload (and sign) of a NaN
 * may differ between CPU and GPU: IEEE leaves it open.  Everything else is
 * bit for bit the same.
 *
 * Plain C99 for gcc and nvcc; under nvcc the helpers are __host__
 * __device__.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_SPMV_H
#define GPUSCAN_SPMV_H

#include <stdint.h>

#ifdef __CUDACC__
#define GS_SPMV_HD __host__ __device__ __forceinline__
#else
#define GS_SPMV_HD static inline
#endif

/* virtual lanes of a segment (a warp) */
#define GS_SPMV_LANES		32
#define GS_SPMV_LOG2_LANES	5

/* non-zeros per segment of a row */
#define GS_SPMV_SEGMENT		4096

/*
 * Rounded double operations that the compiler may not fuse: on the device
 * the _rn intrinsics (nvcc would otherwise contract a * b + c into an
 * FMA); on the host plain operators in files built with -ffp-contract=off.
 */
#ifdef __CUDA_ARCH__
#define GS_DADD(a, b)	__dadd_rn((a), (b))
#define GS_DMUL(a, b)	__dmul_rn((a), (b))
#define GS_DDIV(a, b)	__ddiv_rn((a), (b))
#else
#define GS_DADD(a, b)	((a) + (b))
#define GS_DMUL(a, b)	((a) * (b))
#define GS_DDIV(a, b)	((a) / (b))
#endif

/* gs_spmv_segments -- number of segments of a row of `len` non-zeros */
GS_SPMV_HD int64_t
gs_spmv_segments(int64_t len)
{
	return (len + GS_SPMV_SEGMENT - 1) / GS_SPMV_SEGMENT;
}

/*
 * gs_spmv_butterfly -- step 4 of the order on 32 partials: lane 0's value
 * after the xor butterfly (p is overwritten).  p[l] + p[l ^ o] for l < o
 * is the same addition as the butterfly's, operands in the same order.
 */
GS_SPMV_HD double
gs_spmv_butterfly(double p[GS_SPMV_LANES])
{
	int			o,
				l;

	for (o = GS_SPMV_LANES / 2; o > 0; o >>= 1)
		for (l = 0; l < o; l++)
			p[l] = GS_DADD(p[l], p[l + o]);
	return p[0];
}

/*
 * PageRank's power iteration (src/cpu/cpu_spmv.c, kernels/spmv.cu) in the same
 * operations on both paths.  With d the damping factor, n the nodes, r the
 * ranks and outdeg the out-degrees:
 *	 share[i]	= r[i] / outdeg[i] (0 for a dangling node, outdeg 0)
 *	 dangling	= exact sum of r[i] over the dangling nodes, rounded once
 *	 s[j]		= sum of share[i] over the in-links i -> j, in the canonical
 *				  order above over the in-links sorted by source
 *	 r'[j]		= (1 - d) / n + d * (s[j] + dangling / n)
 *	 residual	= exact sum of |r'[j] - r[j]|, rounded once
 */

/* gs_pagerank_share -- what node i passes along each of its out-links */
GS_SPMV_HD double
gs_pagerank_share(double rank, int32_t outdeg)
{
	return outdeg > 0 ? GS_DDIV(rank, (double) outdeg) : 0.0;
}

/* gs_pagerank_rank -- r'[j] from s[j]; spread = dangling / n, teleport = (1 - d) / n */
GS_SPMV_HD double
gs_pagerank_rank(double s, double spread, double damping, double teleport)
{
	return GS_DADD(teleport, GS_DMUL(damping, GS_DADD(s, spread)));
}

#endif							/* GPUSCAN_SPMV_H */
