/*-------------------------------------------------------------------------
 *
 * cpu_compact.c
 *	  CPU stream compaction: a sequential pass, without branches on the
 *	  flags, which half-kept random data would mispredict every other time.
 *
 *-------------------------------------------------------------------------
 */
#include "cpu/cpu_compact.h"

/*
 * Each element is stored at the next free place, which moves on only when
 * the element is kept: the last store may land one past the kept values.
 */
#define COMPACT_LOOP(out, value_at) \
	do { \
		size_t		j_ = 0; \
		for (size_t i = 0; i < n; i++) \
		{ \
			(out)[j_] = (value_at); \
			j_ += keep[i] != 0; \
		} \
		return j_; \
	} while (0)

/* cpu_compact_f64 -- kept doubles, in order */
size_t
cpu_compact_f64(const double *vals, const uint8_t *keep, size_t n, double *out)
{
	COMPACT_LOOP(out, vals[i]);
}

/* cpu_compact_f32 -- kept floats, in order */
size_t
cpu_compact_f32(const float *vals, const uint8_t *keep, size_t n, float *out)
{
	COMPACT_LOOP(out, vals[i]);
}

/* cpu_compact_indices -- positions of the kept elements, from `first` */
size_t
cpu_compact_indices(const uint8_t *keep, size_t n, int32_t first, int32_t *out)
{
	COMPACT_LOOP(out, (int32_t) (first + (int64_t) i));
}
