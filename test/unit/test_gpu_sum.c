/*-------------------------------------------------------------------------
 *
 * test_gpu_sum.c
 *	  Unit tests of the exact device sum, gsd_sum_exact_f64/_f32.
 *
 * Every case compares bits: the device accumulator (all limbs, counters
 * and zero flags) with gs_acc_add() over the same data on the host, the
 * device's rounded result with gs_acc_round() of that reference, and with
 * gs_acc_round() of the accumulator the device returned.  Data kinds aim
 * at the kernel's paths: the window, each extraction level, the exact slow
 * path for residuals and for Inf/NaN and huge values, the signed zero
 * rules, the unaligned head and the tail, several calls into one
 * accumulator.  Runs only where a GPU is usable.
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"

typedef enum elem_type
{
	T_F64,
	T_F32
} elem_type;

typedef enum data_kind
{
	K_UNIFORM,					/* [0, 1) */
	K_SIGNED,					/* both signs, 17 binades */
	K_WIDE,						/* random bits over (nearly) all exponents */
	K_CANCEL,					/* 1e16, 1, -1e16, ... */
	K_SUBNORMAL,				/* subnormals of both signs */
	K_NEGZERO,					/* all -0.0 */
	K_NEARMAX,					/* +-near the largest finite value: a naive sum overflows */
	K_ALLMAX,					/* all the largest finite value */
	K_POSINF,					/* uniform with +Inf */
	K_BOTHINF,					/* uniform with +Inf and -Inf: NaN */
	K_NAN,						/* uniform with NaNs of several payloads */
	K_ZEROSUM,					/* x, -x pairs: exact zero */
	K_RAMP,						/* magnitudes rising along the array */
	K_LEVELS,					/* 5 groups 30 binades apart: deep levels */
	K_FULLWINDOW,				/* just below 1.0 and small ones with low bits: level sums
								 * at their bound */
	K_NKINDS
} data_kind;

static const char *const kind_names[K_NKINDS] = {
	"uniform", "signed", "wide", "cancel", "subnormal", "negzero", "nearmax",
	"allmax", "posinf", "bothinf", "nan", "zerosum", "ramp", "levels", "fullwindow"
};

#define RESULT_SENTINEL UINT64_C(0x7ff4dead0000beef)	/* a signalling NaN */

/* gen_f64 -- fill x[0..n) with data of the given kind */
static void
gen_f64(data_kind kind, double *x, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		double		u = unit_rand_uniform();
		uint64_t	r = unit_rand64();

		switch (kind)
		{
			case K_UNIFORM:
				x[i] = u;
				break;
			case K_SIGNED:
				x[i] = (2.0 * u - 1.0) * ldexp(1.0, (int) (r % 17) - 8);
				break;
			case K_WIDE:
				/* exponent fields 0..2016: a sum of 2^25 stays finite */
				x[i] = unit_bits_double((r & UINT64_C(0x800fffffffffffff)) |
							 ((uint64_t) ((r >> 52) % 2017) << 52));
				break;
			case K_CANCEL:
				x[i] = (i % 3 == 0) ? 1e16 : (i % 3 == 1) ? 1.0 : -1e16;
				break;
			case K_SUBNORMAL:
				x[i] = unit_bits_double(r & UINT64_C(0x800fffffffffffff));
				break;
			case K_NEGZERO:
				x[i] = -0.0;
				break;
			case K_NEARMAX:
				x[i] = (((i >> 1) & 1) ? -1.0 : 1.0) *
					unit_bits_double(UINT64_C(0x7fefffffffffffff) - (r % 1024));
				break;
			case K_ALLMAX:
				x[i] = DBL_MAX;
				break;
			case K_POSINF:
			case K_BOTHINF:
			case K_NAN:
				x[i] = u;
				if (i % 97 == 13 || i == n / 2)
				{
					if (kind == K_POSINF)
						x[i] = INFINITY;
					else if (kind == K_BOTHINF)
						x[i] = ((i / 97) & 1) ? -INFINITY : INFINITY;
					else
						x[i] = unit_bits_double((r & UINT64_C(0x8000000000000000)) |
									 UINT64_C(0x7ff0000000000000) | ((r >> 12) | 1));
				}
				if (kind == K_BOTHINF && n >= 2 && i == n / 2 + 1)
					x[i] = -INFINITY;
				break;
			case K_ZEROSUM:
				if (i + 1 == n && (n & 1))
					x[i] = -0.0;
				else if (i & 1)
					x[i] = -x[i - 1];
				else
					x[i] = unit_rand_sign() * u * ldexp(1.0, (int) (r % 200) - 100);
				break;
			case K_RAMP:
				x[i] = unit_rand_sign() * (1.0 + u) * ldexp(1.0, (int) ((double) i / (double) n * 600.0) - 300);
				break;
			case K_LEVELS:
				x[i] = unit_rand_sign() * u * ldexp(1.0, -30 * (int) (r % 5));
				break;
			case K_FULLWINDOW:
				x[i] = (i & 1) ? (1.0 + u) * 0x1p-17 : 0x1.fffffffffffffp-1;
				break;
			case K_NKINDS:
				break;
		}
	}
}

/* gen_f32 -- fill x[0..n) with float data of the given kind */
static void
gen_f32(data_kind kind, float *x, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		double		u = unit_rand_uniform();
		uint64_t	r = unit_rand64();

		switch (kind)
		{
			case K_UNIFORM:
				x[i] = (float) u;
				break;
			case K_SIGNED:
				x[i] = (float) ((2.0 * u - 1.0) * ldexp(1.0, (int) (r % 17) - 8));
				break;
			case K_WIDE:
				x[i] = unit_bits_float((uint32_t) ((r & 0x807fffffu) | ((uint32_t) ((r >> 32) % 255) << 23)));
				break;
			case K_CANCEL:
				x[i] = (i % 3 == 0) ? 1e16f : (i % 3 == 1) ? 1.0f : -1e16f;
				break;
			case K_SUBNORMAL:
				x[i] = unit_bits_float((uint32_t) (r & 0x807fffffu));
				break;
			case K_NEGZERO:
				x[i] = -0.0f;
				break;
			case K_NEARMAX:
				x[i] = (((i >> 1) & 1) ? -1.0f : 1.0f) * unit_bits_float(0x7f7fffffu - (uint32_t) (r % 1024));
				break;
			case K_ALLMAX:
				x[i] = FLT_MAX;
				break;
			case K_POSINF:
			case K_BOTHINF:
			case K_NAN:
				x[i] = (float) u;
				if (i % 97 == 13 || i == n / 2)
				{
					if (kind == K_POSINF)
						x[i] = INFINITY;
					else if (kind == K_BOTHINF)
						x[i] = ((i / 97) & 1) ? -INFINITY : INFINITY;
					else
						x[i] = unit_bits_float((uint32_t) ((r & 0x80000000u) | 0x7f800000u | ((r >> 41) | 1)));
				}
				if (kind == K_BOTHINF && n >= 2 && i == n / 2 + 1)
					x[i] = -INFINITY;
				break;
			case K_ZEROSUM:
				if (i + 1 == n && (n & 1))
					x[i] = -0.0f;
				else if (i & 1)
					x[i] = -x[i - 1];
				else
					x[i] = (float) (unit_rand_sign() * u * ldexp(1.0, (int) (r % 200) - 100));
				break;
			case K_RAMP:
				x[i] = (float) (unit_rand_sign() * (1.0 + u) *
								ldexp(1.0, (int) ((double) i / (double) n * 250.0) - 125));
				break;
			case K_LEVELS:
				x[i] = (float) (unit_rand_sign() * u * ldexp(1.0, -30 * (int) (r % 5)));
				break;
			case K_FULLWINDOW:
				x[i] = (i & 1) ? (float) ((1.0 + u) * 0x1p-17) : 0x1.fffffep-1f;
				break;
			case K_NKINDS:
				break;
		}
	}
}

/* ref_sum -- the host reference: gs_acc_add over x[0..n), normalized */
static void
ref_sum(elem_type t, const void *x, size_t n, gs_exact_acc *acc)
{
	size_t		i;

	gs_acc_zero(acc);
	for (i = 0; i < n; i++)
	{
		gs_acc_add(acc, t == T_F64 ? ((const double *) x)[i] : (double) ((const float *) x)[i]);
		if ((i & ((1u << 24) - 1)) == (1u << 24) - 1)
			gs_acc_normalize(acc);
	}
	gs_acc_normalize(acc);
}

/* check_status -- one step of a device run; 0 (and a failed check) if not GSD_OK */
static int
check_status(gsd_status st, const char *step)
{
	UNIT_CHECK(st == GSD_OK, "%s returned status %d: %s", step, (int) st, gsd_last_error());
	return st == GSD_OK;
}

/*
 * gpu_sum -- upload x[0..n) at element offset `off` of a fresh device
 * buffer, sum it into a zeroed device accumulator in the chunks
 * [cuts[i], cuts[i+1]) (one call if ncuts == 0), download the accumulator
 * and the result of the last call.  Frees what it allocated.  Returns 0 if
 * a device step failed (reported).
 */
static int
gpu_sum(elem_type t, const void *x, size_t n, size_t off, const size_t *cuts, int ncuts,
		gs_exact_acc *acc, double *result)
{
	size_t		es = t == T_F64 ? sizeof(double) : sizeof(float);
	size_t		bytes = (n + off) * es;
	void	   *d_buf = NULL;
	void	   *d_acc = NULL;
	void	   *d_res = NULL;
	uint64_t	sentinel = RESULT_SENTINEL;
	int			ok = 0;
	int			c;

	memset(acc, 0xa5, sizeof(*acc));
	*result = unit_bits_double(sentinel);
	if (!check_status(gsd_alloc(bytes > 0 ? bytes : es, &d_buf), "gsd_alloc(input)") ||
		!check_status(gsd_alloc(sizeof(gs_exact_acc), &d_acc), "gsd_alloc(acc)") ||
		!check_status(gsd_alloc(sizeof(double), &d_res), "gsd_alloc(result)"))
		goto done;
	if (n > 0 && !check_status(gsd_upload((char *) d_buf + off * es, x, n * es), "gsd_upload(input)"))
		goto done;
	if (!check_status(gsd_memset_zero(d_acc, sizeof(gs_exact_acc)), "gsd_memset_zero(acc)") ||
		!check_status(gsd_upload(d_res, &sentinel, sizeof(sentinel)), "gsd_upload(result sentinel)"))
		goto done;

	for (c = 0; c < (ncuts > 0 ? ncuts - 1 : 1); c++)
	{
		size_t		lo = ncuts > 0 ? cuts[c] : 0;
		size_t		hi = ncuts > 0 ? cuts[c + 1] : n;
		int			last = ncuts > 0 ? c == ncuts - 2 : 1;
		/* earlier chunks alternate between writing a result and not */
		double	   *res = (last || (c & 1)) ? (double *) d_res : NULL;
		gsd_status	st;

		if (t == T_F64)
			st = gsd_sum_exact_f64((const double *) d_buf + off + lo, hi - lo,
								   (gs_exact_acc *) d_acc, res);
		else
			st = gsd_sum_exact_f32((const float *) d_buf + off + lo, hi - lo,
								   (gs_exact_acc *) d_acc, res);
		if (!check_status(st, t == T_F64 ? "gsd_sum_exact_f64" : "gsd_sum_exact_f32"))
			goto done;
	}
	if (!check_status(gsd_download(acc, d_acc, sizeof(gs_exact_acc)), "gsd_download(acc)") ||
		!check_status(gsd_download(result, d_res, sizeof(double)), "gsd_download(result)"))
		goto done;
	ok = 1;

done:
	if (d_buf)
		gsd_free(d_buf);
	if (d_acc)
		gsd_free(d_acc);
	if (d_res)
		gsd_free(d_res);
	return ok;
}

/* check_run -- all checks of one device run against the reference */
static void
check_run(const gs_exact_acc *want, const gs_exact_acc *got, double result)
{
	double		want_r = gs_acc_round(want);
	double		acc_r = gs_acc_round(got);

	if (unit_double_bits(result) == RESULT_SENTINEL)
		UNIT_CHECK(0, "d_result was not written (the sentinel is still there)");
	else
	{
		UNIT_CHECK(unit_double_bits(result) == unit_double_bits(want_r),
				   "result %a (%.17g, bits %016" PRIx64 "), expected %a (%.17g, bits %016" PRIx64 ")",
				   result, result, unit_double_bits(result), want_r, want_r, unit_double_bits(want_r));
		UNIT_CHECK(unit_double_bits(result) == unit_double_bits(acc_r),
				   "result %a is not gs_acc_round() of the returned accumulator, %a",
				   result, acc_r);
	}
	unit_check_acc("acc", want, got);
}

/* run_case -- one named case: device sum of x vs the reference */
static void
run_case(elem_type t, const char *what, const void *x, size_t n, size_t off,
		 const size_t *cuts, int ncuts, const gs_exact_acc *want)
{
	gs_exact_acc got;
	double		result;

	unit_case("gpu sum %s %s n=%zu off=%zu%s", t == T_F64 ? "f64" : "f32", what, n, off,
			  ncuts > 0 ? " chunked" : "");
	if (gpu_sum(t, x, n, off, cuts, ncuts, &got, &result))
		check_run(want, &got, result);
}

/* test_data -- every kind and size, both types, aligned and unaligned, some chunked */
static void
test_data(void)
{
	static const size_t sizes[] = {0, 1, 31, 32, 33, 1023, 1024, 1025,
	(1u << 20) + 7, (1u << 24) + 3};
	const int	nsizes = (int) (sizeof(sizes) / sizeof(sizes[0]));
	size_t		maxn = 0;
	double	   *xd;
	float	   *xf;
	int			ti,
				k,
				s;

	for (s = 0; s < nsizes; s++)
		if (sizes[s] > maxn)
			maxn = sizes[s];
	xd = malloc(maxn * sizeof(double));
	xf = malloc(maxn * sizeof(float));
	if (!xd || !xf)
	{
		unit_case("gpu sum test data");
		UNIT_CHECK(0, "out of host memory");
		free(xd);
		free(xf);
		return;
	}
	for (ti = 0; ti < 2; ti++)
	{
		elem_type	t = ti == 0 ? T_F64 : T_F32;
		const void *x = t == T_F64 ? (const void *) xd : (const void *) xf;

		for (k = 0; k < K_NKINDS; k++)
			for (s = 0; s < nsizes; s++)
			{
				size_t		n = sizes[s];
				int			big = n > (1u << 21);
				size_t		noff = t == T_F64 || big ? 2 : 4;
				size_t		off;
				gs_exact_acc want;

				unit_seed(UINT64_C(0x5eed) + (uint64_t) (ti * 1000 + k * 20 + s));
				if (t == T_F64)
					gen_f64((data_kind) k, xd, n);
				else
					gen_f32((data_kind) k, xf, n);
				ref_sum(t, x, n, &want);

				for (off = 0; off < noff; off++)
					run_case(t, kind_names[k], x, n, off, NULL, 0, &want);

				/* the same data in several calls into one accumulator */
				if (n == 1025 || n == (1u << 20) + 7)
				{
					size_t		cuts[9];
					int			ncuts = unit_random_cuts(n, cuts, 8);

					run_case(t, kind_names[k], x, n, 1, cuts, ncuts, &want);
				}
			}
	}
	free(xd);
	free(xf);
}

/*
 * Long runs: enough elements per lane of a full grid (H100/H200: 132
 * multiprocessors) that each warp flushes on its element count and resets
 * its window several times.
 */
#ifndef GPU_SUM_LONG_N
#define GPU_SUM_LONG_N ((UINT64_C(1) << 26) + 5)
#endif

/* test_long_runs -- many elements per lane, both types */
static void
test_long_runs(void)
{
	static const data_kind kinds[] = {K_FULLWINDOW, K_UNIFORM, K_LEVELS, K_RAMP};
	const size_t n = (size_t) GPU_SUM_LONG_N;
	double	   *x = malloc(n * sizeof(double));
	int			ti,
				k;

	if (!x)
	{
		unit_case("gpu sum long runs");
		UNIT_CHECK(0, "out of host memory");
		return;
	}
	for (ti = 0; ti < 2; ti++)
		for (k = 0; k < (int) (sizeof(kinds) / sizeof(kinds[0])); k++)
		{
			elem_type	t = ti == 0 ? T_F64 : T_F32;
			gs_exact_acc want;

			unit_seed(UINT64_C(0x10c) + (uint64_t) (ti * 100 + k));
			if (t == T_F64)
				gen_f64(kinds[k], x, n);
			else
				gen_f32(kinds[k], (float *) x, n);
			ref_sum(t, x, n, &want);
			run_case(t, kind_names[kinds[k]], x, n, 1, NULL, 0, &want);
		}
	free(x);
}

/* test_many_calls -- a thousand small calls into one accumulator */
static void
test_many_calls(void)
{
	const size_t n = 1000 * 1013;
	double	   *x = malloc(n * sizeof(double));
	size_t	   *cuts = malloc(1001 * sizeof(size_t));
	gs_exact_acc want;
	int			i;

	unit_case("gpu sum f64 1000 calls into one accumulator");
	if (!x || !cuts)
	{
		UNIT_CHECK(0, "out of host memory");
		free(x);
		free(cuts);
		return;
	}
	unit_seed(77);
	gen_f64(K_SIGNED, x, n);
	for (i = 0; i <= 1000; i++)
		cuts[i] = (size_t) i * 1013;
	ref_sum(T_F64, x, n, &want);
	run_case(T_F64, "signed", x, n, 0, cuts, 1001, &want);
	free(x);
	free(cuts);
}

/* test_rounding -- exact sums at the rounding boundaries of gs_acc_round */
static void
test_rounding(void)
{
	static const struct
	{
		const char *name;
		int			n;
		double		x[4];
	}			cases[] = {
		{"tie to even, down", 2, {1.0, 0x1p-53}},
		{"tie broken by sticky", 3, {1.0, 0x1p-53, 0x1p-1074}},
		{"tie to even, up", 2, {0x1.0000000000001p0, 0x1p-53}},
		{"negative tie to even", 2, {-1.0, -0x1p-53}},
		{"negative tie, sticky", 3, {-1.0, -0x1p-53, -0x1p-1000}},
		{"just below a tie", 3, {1.0, 0x1p-53, -0x1p-1074}},
		{"subnormal sum", 2, {0x1p-1074, 0x1p-1074}},
		{"subnormal to normal", 2, {0x0.fffffffffffffp-1022, 0x1p-1074}},
		{"two lowest digits, above 2^53 units", 2, {0x1.fffffffffffffp-1021, 0x1p-1073}},
		{"two lowest digits, tie to even", 2, {0x1.fffffffffffffp-1021, 0x1p-1074}},
		{"DBL_MAX plus half an ulp: overflow", 2, {DBL_MAX, 0x1p970}},
		{"DBL_MAX plus less than half an ulp", 2, {DBL_MAX, 0x1p969}},
		{"-DBL_MAX minus half an ulp", 2, {-DBL_MAX, -0x1p970}},
		{"exact zero from +1 and -1", 2, {1.0, -1.0}},
		{"-0.0 and -0.0", 2, {-0.0, -0.0}},
		{"-0.0 and +0.0", 2, {-0.0, 0.0}},
		{"-0.0 and cancelling pair", 3, {-0.0, 1e300, -1e300}},
		{"huge cancelling pair and a small one", 3, {0x1.8p1023, 1.5, -0x1.8p1023}},
		{"digit boundary carry", 3, {0x1p32, -0x1p-1074, 0x1p-40}},
		{"negative across digits", 3, {-0x1p64, 0x1p-60, 0x1p10}},
		{"+Inf", 2, {INFINITY, 1.0}},
		{"-Inf", 2, {-INFINITY, 1.0}},
		{"+Inf and -Inf", 2, {INFINITY, -INFINITY}},
		{"NaN", 2, {NAN, 1.0}},
	};
	int			i;

	for (i = 0; i < (int) (sizeof(cases) / sizeof(cases[0])); i++)
	{
		gs_exact_acc want;

		ref_sum(T_F64, cases[i].x, (size_t) cases[i].n, &want);
		run_case(T_F64, cases[i].name, cases[i].x, (size_t) cases[i].n, 1, NULL, 0, &want);
	}
	{
		static const float fx[] = {1.0f, 0x1p-53f, 0x1p-149f, FLT_MAX, -FLT_MAX};
		gs_exact_acc want;

		ref_sum(T_F32, fx, 5, &want);
		run_case(T_F32, "rounding floats", fx, 5, 3, NULL, 0, &want);
	}
}

/* test_invalid -- bad arguments are refused, and the device stays usable */
static void
test_invalid(void)
{
	void	   *d_buf = NULL;
	double		one = 1.0;
	double		result = 0.0;
	gsd_status	st;

	unit_case("gpu sum refuses bad arguments");
	if (!check_status(gsd_alloc(64 + sizeof(gs_exact_acc), &d_buf), "gsd_alloc"))
		return;
	st = gsd_sum_exact_f64((const double *) d_buf, 1, NULL, NULL);
	UNIT_CHECK(st == GSD_INVALID, "NULL accumulator: status %d, expected GSD_INVALID", (int) st);
	st = gsd_sum_exact_f64((const double *) ((char *) d_buf + 4), 1,
						   (gs_exact_acc *) ((char *) d_buf + 64), NULL);
	UNIT_CHECK(st == GSD_INVALID, "input not aligned to a double: status %d, expected GSD_INVALID", (int) st);
	st = gsd_sum_exact_f32((const float *) ((char *) d_buf + 2), 1,
						   (gs_exact_acc *) ((char *) d_buf + 64), NULL);
	UNIT_CHECK(st == GSD_INVALID, "input not aligned to a float: status %d, expected GSD_INVALID", (int) st);
	st = gsd_sum_exact_f64(NULL, 1, (gs_exact_acc *) ((char *) d_buf + 64), NULL);
	UNIT_CHECK(st == GSD_INVALID, "NULL input with n > 0: status %d, expected GSD_INVALID", (int) st);

	/* still usable: n == 0 with a NULL input is fine */
	if (check_status(gsd_upload(d_buf, &one, sizeof(one)), "gsd_upload") &&
		check_status(gsd_memset_zero((char *) d_buf + 64, sizeof(gs_exact_acc)), "gsd_memset_zero") &&
		check_status(gsd_sum_exact_f64(NULL, 0, (gs_exact_acc *) ((char *) d_buf + 64), NULL),
					 "gsd_sum_exact_f64(n = 0)") &&
		check_status(gsd_sum_exact_f64((const double *) d_buf, 1, (gs_exact_acc *) ((char *) d_buf + 64),
									   (double *) ((char *) d_buf + 8)),
					 "gsd_sum_exact_f64(n = 1)") &&
		check_status(gsd_download(&result, (char *) d_buf + 8, sizeof(result)), "gsd_download"))
		UNIT_CHECK(result == 1.0, "sum of {1.0} after refused calls is %a", result);
	gsd_free(d_buf);
}

void
suite_gpu_sum(void)
{
	size_t		before = 0,
				after = 0;
	int			have_before;

	unit_case("gpu sum memory in use before");
	have_before = check_status(gsd_synchronize(), "gsd_synchronize") &&
		check_status(gsd_memory_in_use(&before), "gsd_memory_in_use");

	test_rounding();
	test_invalid();
	test_data();
	test_long_runs();
	test_many_calls();

	unit_case("gpu sum frees all device memory");
	if (have_before &&
		check_status(gsd_synchronize(), "gsd_synchronize") &&
		check_status(gsd_memory_in_use(&after), "gsd_memory_in_use"))
		UNIT_CHECK(after == before, "device memory in use %zu bytes after the suite, %zu before",
				   after, before);
}
