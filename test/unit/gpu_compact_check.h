/*-------------------------------------------------------------------------
 *
 * gpu_compact_check.h
 *	  What the device compaction suites share (test_gpu_compact.c, the
 *	  production functions; test_compact_progression.c, the course's
 *	  versions): the sizes, the buffers, the inputs, and the check of a
 *	  device result against the CPU compaction.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_GPU_COMPACT_CHECK_H
#define GPUSCAN_GPU_COMPACT_CHECK_H

#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"
#include "cpu/cpu_compact.h"
#include "compact_patterns.h"

#define GCT_MAX_N	(((size_t) 3 << 20) + 5)
#define GCT_GUARD	64

/* around the tiles: 4096 elements (versions 2 .. 5), 12288 (version 6) */
static const size_t gct_sizes[] = {0, 1, 2, 3, 15, 16, 17, 31, 33, 4095, 4096, 4097,
	8193, 12287, 12288, 12289, 24577, 65537, ((size_t) 1 << 20) + 7, GCT_MAX_N};
#define GCT_NSIZES	((int) (sizeof(gct_sizes) / sizeof(gct_sizes[0])))

/* the device side of a suite */
typedef struct gct_dev
{
	void	   *vals;
	uint8_t    *keep;
	void	   *out;
	uint64_t   *count;
	void	   *scratch;		/* the course's scratch; NULL where none */
} gct_dev;

/* the host side: inputs, the CPU's result, the device's result */
typedef struct gct_host
{
	double	   *vals;
	float	   *vals_f;
	uint8_t    *keep;
	char	   *want;
	char	   *got;
} gct_host;

/*
 * gct_setup -- the buffers of a suite, for up to GCT_MAX_N elements, and
 * scratch_bytes of device scratch (0: none); 0 (after a failed check)
 * where the device memory could not be had.  gct_teardown frees them
 * either way.
 */
static inline int
gct_setup(gct_dev *d, gct_host *h, size_t scratch_bytes)
{
	size_t		out_bytes = (GCT_MAX_N + GCT_GUARD) * sizeof(double);

	memset(d, 0, sizeof(*d));
	h->vals = malloc(GCT_MAX_N * sizeof(double));
	h->vals_f = malloc(GCT_MAX_N * sizeof(float));
	h->keep = malloc(GCT_MAX_N);
	h->want = malloc(out_bytes + sizeof(double));
	h->got = malloc(out_bytes);
	if (gsd_alloc(GCT_MAX_N * sizeof(double), &d->vals) != GSD_OK ||
		gsd_alloc(GCT_MAX_N, (void **) &d->keep) != GSD_OK ||
		gsd_alloc(out_bytes, &d->out) != GSD_OK ||
		gsd_alloc(sizeof(uint64_t), (void **) &d->count) != GSD_OK ||
		(scratch_bytes > 0 && gsd_alloc(scratch_bytes, &d->scratch) != GSD_OK))
	{
		UNIT_CHECK(0, "gsd_alloc: %s", gsd_last_error());
		return 0;
	}
	return 1;
}

/* gct_teardown -- free what gct_setup allocated */
static inline void
gct_teardown(gct_dev *d, gct_host *h)
{
	gsd_free(d->vals);
	gsd_free(d->keep);
	gsd_free(d->out);
	gsd_free(d->count);
	gsd_free(d->scratch);
	free(h->vals);
	free(h->vals_f);
	free(h->keep);
	free(h->want);
	free(h->got);
}

/*
 * gct_inputs -- n flags in pattern `pattern` (uploaded) and n random
 * values, as doubles and as floats (on the host)
 */
static inline void
gct_inputs(const gct_dev *d, gct_host *h, size_t n, int pattern)
{
	compact_pattern_fill(pattern, h->keep, n);
	for (size_t i = 0; i < n; i++)
	{
		h->vals[i] = unit_rand_uniform() - 0.5;
		h->vals_f[i] = (float) h->vals[i];
	}
	if (n > 0)
		UNIT_CHECK(gsd_upload(d->keep, h->keep, n) == GSD_OK, "upload: %s", gsd_last_error());
}

/*
 * gct_values -- the CPU's compaction of the n values of one type into
 * h->want, and the values to the device; the count the CPU kept
 */
static inline size_t
gct_values(const gct_dev *d, gct_host *h, size_t n, int is_double)
{
	size_t		size = is_double ? sizeof(double) : sizeof(float);

	if (n > 0)
		UNIT_CHECK(gsd_upload(d->vals, is_double ? (void *) h->vals : (void *) h->vals_f,
							  n * size) == GSD_OK, "upload: %s", gsd_last_error());
	return is_double ? cpu_compact_f64(h->vals, h->keep, n, (double *) h->want)
		: cpu_compact_f32(h->vals_f, h->keep, n, (float *) h->want);
}

/* gct_poison -- every output byte and the guard after it set to 0xff */
static inline void
gct_poison(const gct_dev *d, gct_host *h, size_t n, size_t size)
{
	memset(h->got, 0xff, (n + GCT_GUARD) * size);
	UNIT_CHECK(gsd_upload(d->out, h->got, (n + GCT_GUARD) * size) == GSD_OK,
			   "upload: %s", gsd_last_error());
}

/*
 * gct_check -- the device's count and output (n + guard elements of
 * `size` bytes) against the CPU's result of want_count elements
 */
static inline void
gct_check(const char *what, const gct_dev *d, gct_host *h, size_t n, size_t size,
		  size_t want_count)
{
	uint64_t	count = UINT64_MAX;
	size_t		bytes = (n + GCT_GUARD) * size;

	if (gsd_download(&count, d->count, sizeof(count)) != GSD_OK ||
		gsd_download(h->got, d->out, bytes) != GSD_OK)
	{
		UNIT_CHECK(0, "%s: download failed: %s", what, gsd_last_error());
		return;
	}
	UNIT_CHECK(count == want_count, "%s: count %llu, want %zu", what,
			   (unsigned long long) count, want_count);
	if (count != want_count)
		return;
	for (size_t j = 0; j < want_count; j++)
		if (memcmp(h->got + j * size, h->want + j * size, size) != 0)
		{
			UNIT_CHECK(0, "%s: output %zu differs", what, j);
			break;
		}
	for (size_t j = want_count * size; j < bytes; j++)
		if ((unsigned char) h->got[j] != 0xff)
		{
			UNIT_CHECK(0, "%s: byte %zu past the count was written", what, j);
			break;
		}
}

#endif							/* GPUSCAN_GPU_COMPACT_CHECK_H */
