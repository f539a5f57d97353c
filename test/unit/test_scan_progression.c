/*-------------------------------------------------------------------------
 *
 * test_scan_progression.c
 *	  Every version of the scan progression, float and double, against the
 *	  exact prefix sums of the same inputs.
 *
 * The versions round in the input's precision, so on uniform [0, 1) data
 * (no cancellation) every output must lie within the version's proven
 * error bound (gsd_scan_progression_error_bound) of the exact prefix sum;
 * on integer-valued data, whose partial sums are all exact in any order,
 * every output must equal the sequential CPU scan exactly.  Sizes around
 * the warp, block and section boundaries, 0 and 2^20 + 7; input and
 * output at the start of an allocation or one element past it (not
 * 16-byte aligned), in all four combinations.  The output and guard zones
 * before and after it are poisoned (all bits set: NaN) before every run:
 * every output must be written, and nothing around it.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"
#include "gpuscan_exact.h"
#include "gpuscan_course.h"

#define SPT_MAX_N		(((size_t) 1 << 20) + 7)
#define SPT_OFFSETS		2		/* input at element 0 and at element 1 */
#define SPT_GUARD		8		/* poisoned elements before and after the output */
#define SPT_OUT_ELEMS	(SPT_GUARD + 1 + SPT_MAX_N + SPT_GUARD)

static const size_t spt_sizes[] = {0, 1, 31, 32, 33, 1023, 1024, 1025, 2048, 2049, SPT_MAX_N};
#define SPT_NSIZES	((int) (sizeof(spt_sizes) / sizeof(spt_sizes[0])))

/* input offset, output offset (elements) */
static const int spt_layouts[][2] = {{0, 0}, {1, 1}, {1, 0}, {0, 1}};
#define SPT_NLAYOUTS ((int) (sizeof(spt_layouts) / sizeof(spt_layouts[0])))

/* spt_value -- element i of a host array of float or double, as a double */
static double
spt_value(const void *x, int is_double, size_t i)
{
	return is_double ? ((const double *) x)[i] : (double) ((const float *) x)[i];
}

/*
 * spt_exact -- ref[i] = the exact sum of x[first .. first + i], rounded
 * once to double, for i < n (gs_acc_add and gs_acc_round per element).
 */
static void
spt_exact(const void *x, int is_double, size_t first, size_t n, double *ref)
{
	gs_exact_acc acc;

	gs_acc_zero(&acc);
	for (size_t i = 0; i < n; i++)
	{
		gs_acc_add(&acc, spt_value(x, is_double, first + i));
		ref[i] = gs_acc_round(&acc);
	}
}

/*
 * spt_sequential -- whether the plain sequential scan of x[first ..
 * first + n) in the input's precision gives ref[] exactly (it must, on
 * integral data: the data's own check).
 */
static int
spt_sequential_is_exact(const void *x, int is_double, size_t first, size_t n, const double *ref)
{
	double		d = 0;
	float		f = 0;

	for (size_t i = 0; i < n; i++)
	{
		double		s;

		if (is_double)
			s = d += ((const double *) x)[first + i];
		else
			s = f += ((const float *) x)[first + i];
		if (s != ref[i])
			return 0;
	}
	return 1;
}

/*
 * spt_fill -- count values: uniform in [0, 1), or integers whose prefix
 * sums stay exact in every order (float 0..15: below 2^24 in total;
 * double 0..2^20 - 1: below 2^53).
 */
static void
spt_fill(void *x, int is_double, int integral, size_t count)
{
	for (size_t i = 0; i < count; i++)
	{
		uint64_t	r = unit_rand64();

		if (is_double)
			((double *) x)[i] = integral ? (double) (r >> 44) : (double) (r >> 11) * 0x1p-53;
		else
			((float *) x)[i] = integral ? (float) (r >> 60) : (float) (r >> 40) * 0x1p-24f;
	}
}

/*
 * spt_run -- one run of a version: poison the output zone of d_zone
 * (SPT_GUARD elements, out_off more, n outputs, SPT_GUARD more), scan
 * d_in[0..n) into the outputs, and download the zone to host_zone.
 * Returns 0 (with a failed check) if a call fails.
 */
static int
spt_run(int version, int is_double, const void *d_in, size_t n, void *d_zone, int out_off,
		void *d_scratch, const unsigned char *poison, unsigned char *host_zone)
{
	size_t		esize = is_double ? sizeof(double) : sizeof(float);
	size_t		zone = (SPT_GUARD + out_off + n + SPT_GUARD) * esize;
	gsd_status	st;

	if (gsd_upload(d_zone, poison, zone) != GSD_OK)
	{
		UNIT_CHECK(0, "poisoning the output: %s", gsd_last_error());
		return 0;
	}
	st = gsd_scan_progression(version, is_double, d_in, n,
							  (char *) d_zone + (SPT_GUARD + out_off) * esize, d_scratch);
	if (st != GSD_OK)
	{
		UNIT_CHECK(0, "n=%zu: status %d: %s", n, (int) st, gsd_last_error());
		return 0;
	}
	if (gsd_download(host_zone, d_zone, zone) != GSD_OK)
	{
		UNIT_CHECK(0, "n=%zu: download: %s", n, gsd_last_error());
		return 0;
	}
	return 1;
}

/* spt_api -- names, count, bounds, argument checks */
static void
spt_api(void *d_in, void *d_out, void *d_scratch)
{
	int			count = gsd_scan_progression_count();

	unit_case("scan_progression: API");
	UNIT_CHECK(count >= 7, "count %d", count);
	UNIT_CHECK(gsd_scan_progression_name(0) == NULL, "name of version 0");
	UNIT_CHECK(gsd_scan_progression_name(count + 1) == NULL, "name past the count");
	UNIT_CHECK(gsd_scan_progression_deterministic(0) == -1, "determinism of version 0");
	for (int v = 1; v <= count; v++)
	{
		const char *name = gsd_scan_progression_name(v);
		int			det = gsd_scan_progression_deterministic(v);

		UNIT_CHECK(name != NULL && strncmp(name, "scan_", 5) == 0, "name of version %d", v);
		UNIT_CHECK(det == 0 || det == 1, "determinism of version %d: %d", v, det);
		for (int d = 0; d <= 1; d++)
		{
			double		b = gsd_scan_progression_error_bound(v, d, SPT_MAX_N);
			double		b1 = gsd_scan_progression_error_bound(v, d, 1);

			UNIT_CHECK(b > 0 && b < (d ? 1e-12 : 1e-3), "version %d %s: error bound %g",
					   v, d ? "double" : "float", b);
			UNIT_CHECK(b1 > 0 && b1 <= b, "version %d %s: error bound at n=1 %g",
					   v, d ? "double" : "float", b1);
		}
	}
	UNIT_CHECK(gsd_scan_progression_error_bound(0, 0, 10) < 0, "bound of version 0");
	UNIT_CHECK(gsd_scan_progression_error_bound(count + 1, 1, 10) < 0, "bound past the count");
	UNIT_CHECK(gsd_scan_progression(0, 0, d_in, 10, d_out, d_scratch) == GSD_INVALID,
			   "version 0 accepted");
	UNIT_CHECK(gsd_scan_progression(count + 1, 1, d_in, 10, d_out, d_scratch) == GSD_INVALID,
			   "version past the count accepted");
	UNIT_CHECK(gsd_scan_progression(1, 0, d_in, 10, NULL, d_scratch) == GSD_INVALID,
			   "NULL output accepted");
	UNIT_CHECK(gsd_scan_progression(1, 0, NULL, 10, d_out, d_scratch) == GSD_INVALID,
			   "NULL input accepted");
	UNIT_CHECK(gsd_scan_progression(7, 0, d_in, 10, d_out, NULL) == GSD_INVALID,
			   "NULL scratch accepted");
	UNIT_CHECK(gsd_scan_progression(7, 0, (char *) d_in + 2, 10, d_out, d_scratch) == GSD_INVALID,
			   "float input at a 2-byte offset accepted");
	UNIT_CHECK(gsd_scan_progression(7, 1, (char *) d_in + 4, 10, d_out, d_scratch) == GSD_INVALID,
			   "double input at a 4-byte offset accepted");
	UNIT_CHECK(gsd_scan_progression(7, 1, d_in, 10, (char *) d_out + 4, d_scratch) == GSD_INVALID,
			   "double output at a 4-byte offset accepted");
	UNIT_CHECK(gsd_scan_progression(4, 0, d_in, 10, d_in, d_scratch) == GSD_INVALID,
			   "output on the input accepted");
	UNIT_CHECK(gsd_scan_progression(4, 1, d_in, 10, (double *) d_in + 9, d_scratch) == GSD_INVALID,
			   "output overlapping the input's end accepted");
	UNIT_CHECK(gsd_scan_progression(4, 1, (double *) d_in + 9, 10, d_in, d_scratch) == GSD_INVALID,
			   "input overlapping the output's end accepted");
	UNIT_CHECK(gsd_scan_progression(4, 1, (double *) d_in + 10, 10, d_in, d_scratch) == GSD_OK,
			   "adjacent input and output refused: %s", gsd_last_error());
	for (int v = 1; v <= count; v++)
		UNIT_CHECK(gsd_scan_progression(v, 1, NULL, 0, NULL, NULL) == GSD_OK,
				   "version %d: n=0 with NULL pointers refused: %s", v, gsd_last_error());
	UNIT_CHECK(gsd_synchronize() == GSD_OK, "synchronize: %s", gsd_last_error());
	UNIT_CHECK(gsd_scan_progression_scratch_bytes(1, SPT_MAX_N) >=
			   gsd_scan_progression_scratch_bytes(0, SPT_MAX_N), "scratch of double < float");
	UNIT_CHECK(gsd_scan_progression_scratch_bytes(0, 0) > 0, "scratch for n=0");
}

/*
 * spt_check -- compare one run's zone with refs (the exact prefix sums of
 * the input): every output exactly (integral) or within the bound
 * (uniform), the guards untouched.
 */
static void
spt_check(int v, int is_double, int integral, size_t n, int in_off, int out_off,
		  const double *ref, const unsigned char *zone)
{
	size_t		esize = is_double ? sizeof(double) : sizeof(float);
	const unsigned char *outs = zone + (SPT_GUARD + out_off) * esize;
	double		bound = gsd_scan_progression_error_bound(v, is_double, n);
	size_t		bad = 0,
				first_bad = 0,
				guards_bad = 0;
	double		max_rel = 0;

	for (size_t i = 0; i < (SPT_GUARD + out_off) * esize; i++)
		guards_bad += zone[i] != 0xff;
	for (size_t i = 0; i < SPT_GUARD * esize; i++)
		guards_bad += outs[n * esize + i] != 0xff;
	UNIT_CHECK(guards_bad == 0, "n=%zu in+%d out+%d: %zu bytes written outside the output",
			   n, in_off, out_off, guards_bad);

	for (size_t i = 0; i < n; i++)
	{
		double		got = spt_value(outs, is_double, i);
		double		err = fabs(got - ref[i]);
		int			ok;

		if (integral)
			ok = got == ref[i];
		else
			/* the reference is rounded to double: allow its half ulp too */
			ok = err <= (bound + 0x1p-53) * ref[i];
		if (!ok && bad++ == 0)
			first_bad = i;
		if (ref[i] > 0 && err / ref[i] > max_rel)
			max_rel = err / ref[i];
	}
	if (bad > 0)
	{
		double		got = spt_value(outs, is_double, first_bad);

		UNIT_CHECK(0, "n=%zu in+%d out+%d: %zu of %zu outputs wrong, the first at %zu: "
				   "got %.17g, expected %.17g%s (bound %.3g, max relative error %.3g)",
				   n, in_off, out_off, bad, n, first_bad, got, ref[first_bad],
				   integral ? " exactly" : "", bound, max_rel);
	}
}

/*
 * spt_version -- one version on one data set (on the device at d_in; the
 * exact prefix sums from element `offset` on in refs[offset]).
 */
static void
spt_version(int v, int is_double, int integral, const void *d_in, double *const refs[SPT_OFFSETS],
			void *d_zone, void *d_scratch, const unsigned char *poison, unsigned char *zone)
{
	size_t		esize = is_double ? sizeof(double) : sizeof(float);

	unit_case("scan_progression %d %s: %s, %s data", v, gsd_scan_progression_name(v),
			  is_double ? "double" : "float", integral ? "integral" : "uniform");
	for (int l = 0; l < SPT_NLAYOUTS; l++)
	{
		int			in_off = spt_layouts[l][0];
		int			out_off = spt_layouts[l][1];
		const void *in = (const char *) d_in + in_off * esize;

		for (int s = 0; s < SPT_NSIZES; s++)
		{
			size_t		n = spt_sizes[s];

			if (!spt_run(v, is_double, in, n, d_zone, out_off, d_scratch, poison, zone))
				return;
			spt_check(v, is_double, integral, n, in_off, out_off, refs[in_off], zone);
		}
	}

	/* a deterministic version gives the same bits again */
	if (gsd_scan_progression_deterministic(v) == 1)
	{
		size_t		bytes = SPT_MAX_N * esize;
		unsigned char *first = malloc(bytes);

		UNIT_CHECK(first != NULL, "out of host memory");
		if (first == NULL)
			return;
		if (spt_run(v, is_double, d_in, SPT_MAX_N, d_zone, 0, d_scratch, poison, zone))
		{
			memcpy(first, zone + SPT_GUARD * esize, bytes);
			if (spt_run(v, is_double, d_in, SPT_MAX_N, d_zone, 0, d_scratch, poison, zone))
				UNIT_CHECK(memcmp(first, zone + SPT_GUARD * esize, bytes) == 0,
						   "two runs on the same input differ");
		}
		free(first);
	}
}

void
suite_scan_progression(void)
{
	size_t		total = SPT_MAX_N + SPT_OFFSETS;
	size_t		scratch_bytes = gsd_scan_progression_scratch_bytes(1, total);
	size_t		zone_bytes = SPT_OUT_ELEMS * sizeof(double);
	void	   *x = malloc(total * sizeof(double));
	unsigned char *poison = malloc(zone_bytes);
	unsigned char *zone = malloc(zone_bytes);
	double	   *refs[SPT_OFFSETS] = {NULL, NULL};
	void	   *d_in = NULL,
			   *d_zone = NULL,
			   *d_scratch = NULL;

	unit_case("scan_progression: setup");
	for (int off = 0; off < SPT_OFFSETS; off++)
		refs[off] = malloc(SPT_MAX_N * sizeof(double));
	UNIT_CHECK(x != NULL && poison != NULL && zone != NULL && refs[0] != NULL &&
			   refs[SPT_OFFSETS - 1] != NULL, "out of host memory");
	if (x == NULL || poison == NULL || zone == NULL || refs[0] == NULL ||
		refs[SPT_OFFSETS - 1] == NULL)
		goto done;
	memset(poison, 0xff, zone_bytes);
	/* scratch is only allocated, never zeroed: the versions must not need it */
	if (gsd_alloc(total * sizeof(double), &d_in) != GSD_OK ||
		gsd_alloc(zone_bytes, &d_zone) != GSD_OK ||
		gsd_alloc(scratch_bytes, &d_scratch) != GSD_OK ||
		gsd_upload(d_scratch, poison, scratch_bytes < zone_bytes ? scratch_bytes : zone_bytes) != GSD_OK)
	{
		UNIT_CHECK(0, "device memory: %s", gsd_last_error());
		goto done;
	}

	spt_api(d_in, d_zone, d_scratch);

	unit_seed(0x7363616e00000001u);
	for (int is_double = 0; is_double <= 1; is_double++)
		for (int integral = 0; integral <= 1; integral++)
		{
			size_t		esize = is_double ? sizeof(double) : sizeof(float);

			unit_case("scan_progression: %s %s data and references",
					  is_double ? "double" : "float", integral ? "integral" : "uniform");
			spt_fill(x, is_double, integral, total);
			for (int off = 0; off < SPT_OFFSETS; off++)
			{
				spt_exact(x, is_double, off, SPT_MAX_N, refs[off]);
				if (integral)
					UNIT_CHECK(spt_sequential_is_exact(x, is_double, off, SPT_MAX_N, refs[off]),
							   "offset %d: the sequential scan of integral data is not exact", off);
			}
			if (gsd_upload(d_in, x, total * esize) != GSD_OK)
			{
				UNIT_CHECK(0, "upload: %s", gsd_last_error());
				goto done;
			}
			for (int v = 1; v <= gsd_scan_progression_count(); v++)
				spt_version(v, is_double, integral, d_in, refs, d_zone, d_scratch, poison, zone);
		}

done:
	gsd_free(d_in);
	gsd_free(d_zone);
	gsd_free(d_scratch);
	gsd_synchronize();
	for (int off = 0; off < SPT_OFFSETS; off++)
		free(refs[off]);
	free(zone);
	free(poison);
	free(x);
}
