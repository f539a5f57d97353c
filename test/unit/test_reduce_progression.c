/*-------------------------------------------------------------------------
 *
 * test_reduce_progression.c
 *	  Every version of the reduction progression, float and double, against
 *	  the exact sum of the same inputs.
 *
 * The versions round in the input's precision, so on uniform [0, 1) data
 * (no cancellation) each must land within its own proven error bound
 * (gsd_reduce_progression_error_bound); on integer-valued data, whose
 * partial sums are all exact in any order, each must give the exact sum.
 * Sizes around the warp and block boundaries, 0 and 2^20 + 7; inputs at
 * the start of an allocation and one element past it (not 16-byte
 * aligned).  The output is poisoned (NaN) before every run, and the bytes
 * after the output scalar must stay poisoned.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"
#include "gpuscan_exact.h"
#include "gpuscan_course.h"

#define RPT_MAX_N		(((size_t) 1 << 20) + 7)
#define RPT_OFFSETS		2		/* input at element 0 and at element 1 */
#define RPT_OUT_BYTES	16

static const size_t rpt_sizes[] = {0, 1, 31, 32, 33, 1023, 1024, 1025, RPT_MAX_N};
#define RPT_NSIZES	((int) (sizeof(rpt_sizes) / sizeof(rpt_sizes[0])))

/* rpt_value -- element i of a host array of float or double, as a double */
static double
rpt_value(const void *x, int is_double, size_t i)
{
	return is_double ? ((const double *) x)[i] : (double) ((const float *) x)[i];
}

/* rpt_exact -- the exact sum of x[first .. first + n), rounded to double */
static double
rpt_exact(const void *x, int is_double, size_t first, size_t n)
{
	gs_exact_acc acc;

	gs_acc_zero(&acc);
	for (size_t i = first; i < first + n; i++)
		gs_acc_add(&acc, rpt_value(x, is_double, i));
	return gs_acc_round(&acc);
}

/*
 * rpt_fill -- RPT_MAX_N + RPT_OFFSETS values: uniform in [0, 1), or
 * integers whose sums stay exact (float 0..15: below 2^24 in total;
 * double 0..2^20: below 2^53).
 */
static void
rpt_fill(void *x, int is_double, int integral, size_t count)
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
 * rpt_run -- one run of a version into a poisoned output; returns 0 (with
 * a failed check) if the call fails.  *got is the sum as a double;
 * *intact is 0 if a byte after the output scalar changed.
 */
static int
rpt_run(int version, int is_double, const void *d_in, size_t n, void *d_out,
		void *d_scratch, double *got, int *intact)
{
	unsigned char buf[RPT_OUT_BYTES];
	size_t		esize = is_double ? sizeof(double) : sizeof(float);
	gsd_status	st;

	memset(buf, 0xff, sizeof(buf));
	if (gsd_upload(d_out, buf, sizeof(buf)) != GSD_OK)
	{
		UNIT_CHECK(0, "poisoning the output: %s", gsd_last_error());
		return 0;
	}
	st = gsd_reduce_progression(version, is_double, d_in, n, d_out, d_scratch);
	if (st != GSD_OK)
	{
		UNIT_CHECK(0, "n=%zu: status %d: %s", n, (int) st, gsd_last_error());
		return 0;
	}
	if (gsd_download(buf, d_out, sizeof(buf)) != GSD_OK)
	{
		UNIT_CHECK(0, "n=%zu: download: %s", n, gsd_last_error());
		return 0;
	}
	*intact = 1;
	for (size_t i = esize; i < sizeof(buf); i++)
		if (buf[i] != 0xff)
			*intact = 0;
	if (is_double)
		memcpy(got, buf, sizeof(double));
	else
	{
		float		f;

		memcpy(&f, buf, sizeof(float));
		*got = f;
	}
	return 1;
}

/* rpt_api -- names, count, argument checks */
static void
rpt_api(void *d_in, void *d_out, void *d_scratch)
{
	int			count = gsd_reduce_progression_count();

	unit_case("reduce_progression: API");
	UNIT_CHECK(count >= 8, "count %d", count);
	UNIT_CHECK(gsd_reduce_progression_name(0) == NULL, "name of version 0");
	UNIT_CHECK(gsd_reduce_progression_name(count + 1) == NULL, "name past the count");
	for (int v = 1; v <= count; v++)
	{
		const char *name = gsd_reduce_progression_name(v);

		UNIT_CHECK(name != NULL && strncmp(name, "reduce_", 7) == 0, "name of version %d", v);
		for (int d = 0; d <= 1; d++)
		{
			double		b = gsd_reduce_progression_error_bound(v, d, RPT_MAX_N);

			UNIT_CHECK(b > 0 && b < (d ? 1e-12 : 1e-4), "version %d %s: error bound %g",
					   v, d ? "double" : "float", b);
		}
	}
	UNIT_CHECK(gsd_reduce_progression_error_bound(0, 0, 10) < 0, "bound of version 0");
	UNIT_CHECK(gsd_reduce_progression(0, 0, d_in, 10, d_out, d_scratch) == GSD_INVALID,
			   "version 0 accepted");
	UNIT_CHECK(gsd_reduce_progression(count + 1, 1, d_in, 10, d_out, d_scratch) == GSD_INVALID,
			   "version past the count accepted");
	UNIT_CHECK(gsd_reduce_progression(1, 0, d_in, 10, NULL, d_scratch) == GSD_INVALID,
			   "NULL output accepted");
	UNIT_CHECK(gsd_reduce_progression(1, 0, NULL, 10, d_out, d_scratch) == GSD_INVALID,
			   "NULL input accepted");
	UNIT_CHECK(gsd_reduce_progression(8, 0, (char *) d_in + 2, 10, d_out, d_scratch) == GSD_INVALID,
			   "float input at a 2-byte offset accepted");
	UNIT_CHECK(gsd_reduce_progression(8, 1, (char *) d_in + 4, 10, d_out, d_scratch) == GSD_INVALID,
			   "double input at a 4-byte offset accepted");
	UNIT_CHECK(gsd_reduce_progression_scratch_bytes(1, RPT_MAX_N) >=
			   gsd_reduce_progression_scratch_bytes(0, RPT_MAX_N), "scratch of double < float");
}

/*
 * rpt_version -- one version on one data set (on the device at d_in; its
 * exact sums in refs[offset][size]).
 */
static void
rpt_version(int v, int is_double, int integral, const void *d_in,
			double refs[RPT_OFFSETS][RPT_NSIZES], void *d_out, void *d_scratch)
{
	const char *tname = is_double ? "double" : "float";
	size_t		esize = is_double ? sizeof(double) : sizeof(float);

	unit_case("reduce_progression %d %s: %s, %s data", v, gsd_reduce_progression_name(v),
			  tname, integral ? "integral" : "uniform");
	for (int off = 0; off < RPT_OFFSETS; off++)
	{
		const void *in = (const char *) d_in + off * esize;

		for (int s = 0; s < RPT_NSIZES; s++)
		{
			size_t		n = rpt_sizes[s];
			double		ref = refs[off][s];
			double		got,
						bound;
			int			intact;

			if (!rpt_run(v, is_double, in, n, d_out, d_scratch, &got, &intact))
				return;
			UNIT_CHECK(intact, "n=%zu offset %d: wrote past the output scalar", n, off);
			if (n == 0)
			{
				UNIT_CHECK(got == 0 && !signbit(got), "n=0: got %.17g, expected +0", got);
				continue;
			}
			if (integral)
			{
				UNIT_CHECK(got == ref, "n=%zu offset %d: got %.17g, expected exactly %.17g",
						   n, off, got, ref);
				continue;
			}
			bound = gsd_reduce_progression_error_bound(v, is_double, n);
			/* the reference is rounded to double: allow its half ulp too */
			UNIT_CHECK(bound > 0 && fabs(got - ref) <= (bound + 0x1p-53) * ref,
					   "n=%zu offset %d: got %.17g, expected %.17g: relative error %.3g > bound %.3g",
					   n, off, got, ref, fabs(got - ref) / ref, bound);
		}
	}

	/* the same inputs give the same bits again */
	{
		double		a,
					b;
		int			intact;

		if (rpt_run(v, is_double, d_in, RPT_MAX_N, d_out, d_scratch, &a, &intact) &&
			rpt_run(v, is_double, d_in, RPT_MAX_N, d_out, d_scratch, &b, &intact))
			UNIT_CHECK(memcmp(&a, &b, sizeof(double)) == 0,
					   "two runs differ: %.17g and %.17g", a, b);
	}
}

void
suite_reduce_progression(void)
{
	size_t		total = RPT_MAX_N + RPT_OFFSETS;
	size_t		scratch_bytes = gsd_reduce_progression_scratch_bytes(1, total);
	void	   *x = malloc(total * sizeof(double));
	void	   *d_in = NULL,
			   *d_out = NULL,
			   *d_scratch = NULL;
	static double refs[RPT_OFFSETS][RPT_NSIZES];

	unit_case("reduce_progression: setup");
	UNIT_CHECK(x != NULL, "out of host memory");
	if (x == NULL)
		return;
	if (gsd_alloc(total * sizeof(double), &d_in) != GSD_OK ||
		gsd_alloc(RPT_OUT_BYTES, &d_out) != GSD_OK ||
		gsd_alloc(scratch_bytes, &d_scratch) != GSD_OK ||
		gsd_memset_zero(d_scratch, scratch_bytes) != GSD_OK)
	{
		UNIT_CHECK(0, "device memory: %s", gsd_last_error());
		goto done;
	}

	rpt_api(d_in, d_out, d_scratch);

	unit_seed(0x7265647563650001u);
	for (int is_double = 0; is_double <= 1; is_double++)
		for (int integral = 0; integral <= 1; integral++)
		{
			size_t		esize = is_double ? sizeof(double) : sizeof(float);

			rpt_fill(x, is_double, integral, total);
			for (int off = 0; off < RPT_OFFSETS; off++)
				for (int s = 0; s < RPT_NSIZES; s++)
					refs[off][s] = rpt_exact(x, is_double, off, rpt_sizes[s]);
			unit_case("reduce_progression: upload %s data", is_double ? "double" : "float");
			if (gsd_upload(d_in, x, total * esize) != GSD_OK)
			{
				UNIT_CHECK(0, "upload: %s", gsd_last_error());
				goto done;
			}
			for (int v = 1; v <= gsd_reduce_progression_count(); v++)
				rpt_version(v, is_double, integral, d_in, refs, d_out, d_scratch);
		}

done:
	gsd_free(d_in);
	gsd_free(d_out);
	gsd_free(d_scratch);
	gsd_synchronize();
	free(x);
}
