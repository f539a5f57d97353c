/*-------------------------------------------------------------------------
 *
 * test_gpu_scan.c
 *	  Unit tests of the correctly rounded device prefix sums,
 *	  gsd_prefix_sum_f64/_f32.
 *
 * Every output is compared bit for bit with the host reference, one
 * gs_acc_add() and one gs_acc_round() per element from the same carry
 * (above FULL_REF_MAX elements: at sampled positions, the reference
 * accumulator advanced in one pass and rounded only there).  The carry the
 * device leaves is compared with the reference accumulator: limbs,
 * counters, flags and its rounding.  d_out is poisoned before each run, with
 * a guard element on each side, so that an output left unwritten or a write
 * out of range shows.  Data kinds aim at the kernel's paths: the fast
 * rounding check, the careful one (exact zeros, ties), the exact per-element
 * fallback, the third level, the exact per-tile path (wide ranges, huge
 * values, huge carries), Inf/NaN, the sign of zero, unaligned input and
 * output, tile boundaries, chunked calls with one device carry.  Runs only
 * where a GPU is usable.
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"

void		suite_gpu_scan(void);

#define SCAN_TILE		4096	/* elements per tile in kernels/scan_exact.cu */
#define FULL_REF_MAX	((size_t) 1 << 21)	/* above: sampled reference */
#define POISON			UINT64_C(0x7ff4dead0000beef)	/* a signalling NaN */
#define MAX_SHOWN		5		/* mismatches printed per run */

typedef enum elem_type
{
	T_F64,
	T_F32
} elem_type;

typedef enum data_kind
{
	K_UNIFORM,					/* [0, 1) */
	K_SIGNED,					/* both signs, 17 binades */
	K_WIDE,						/* random bits over ~2000 binades: exact per-tile path */
	K_CANCEL,					/* 1e16, 1, -1e16, ...: ties and cancellation */
	K_NEARTIE,					/* 2^53 then small odd/even integers: many exact ties */
	K_POW2,						/* 1 then +-2^-54.. : prefixes next to a power of two */
	K_SUBNORMAL,				/* subnormals of both signs */
	K_NEGZERO,					/* all -0.0 */
	K_ZEROMIX,					/* -0.0, then +0.0, then +-1: the sign of exact zeros */
	K_NEARMAX,					/* +-near DBL_MAX, + + - -: overflow and back */
	K_ALLMAX,					/* all DBL_MAX: +Inf from the second prefix on */
	K_POSINF,					/* uniform with +Inf */
	K_BOTHINF,					/* uniform with +Inf and -Inf: NaN */
	K_NAN,						/* uniform with NaNs */
	K_ZEROSUM,					/* x, -x pairs: exact zeros */
	K_INTEGERS,					/* integers in [-3, 3]: exact prefixes, often zero */
	K_RAMP,						/* magnitudes rising along the array */
	K_LEVELS,					/* 4 groups 20 binades apart: third level */
	K_DYNRANGE,					/* +-10^[-2, 7]: money-like, third level */
	K_TINYBIG,					/* 1e-300 with rare 1e300: exact per-tile path */
	K_NKINDS
} data_kind;

static const char *const kind_names[K_NKINDS] = {
	"uniform", "signed", "wide", "cancel", "neartie", "pow2", "subnormal", "negzero",
	"zeromix", "nearmax", "allmax", "posinf", "bothinf", "nan", "zerosum", "integers",
	"ramp", "levels", "dynrange", "tinybig"
};

/* ---- bits ---- */

/* ---- data ---- */

/* gen_value -- element i of n of a kind, as a double (f32: the float's value) */
static double
gen_value(elem_type t, data_kind kind, size_t i, size_t n)
{
	double		u = unit_rand_uniform();
	uint64_t	r = unit_rand64();
	int			f32 = t == T_F32;

	switch (kind)
	{
		case K_UNIFORM:
			return u;
		case K_SIGNED:
			return (2.0 * u - 1.0) * ldexp(1.0, (int) (r % 17) - 8);
		case K_WIDE:
			if (f32)
				return unit_bits_float((uint32_t) ((r & 0x807fffffu) | ((uint32_t) ((r >> 32) % 255) << 23)));
			/* exponent fields 0..2016: below 2^994, a sum of 2^25 stays finite */
			return unit_bits_double((r & UINT64_C(0x800fffffffffffff)) |
						 ((uint64_t) ((r >> 52) % 2017) << 52));
		case K_CANCEL:
			return (i % 3 == 0) ? 1e16 : (i % 3 == 1) ? 1.0 : -1e16;
		case K_NEARTIE:
			/* f32: 2^60 and multiples of 2^7, half an ulp of 2^60 in double */
			if (i == 0)
				return f32 ? 0x1p60 : 0x1p53;
			return unit_rand_sign() * (double) (1 + (r % 3)) * (f32 ? 0x1p7 : 1.0);
		case K_POW2:
			if (i == 0)
				return 1.0;
			return unit_rand_sign() * ldexp(1.0, -54 - (int) (r % 3));
		case K_SUBNORMAL:
			if (f32)
				return unit_bits_float((uint32_t) (r & 0x807fffffu));
			return unit_bits_double(r & UINT64_C(0x800fffffffffffff));
		case K_NEGZERO:
			return -0.0;
		case K_ZEROMIX:
			if (i < n / 2)
				return -0.0;
			if (i == n / 2)
				return 0.0;
			return (i % 4 == 0) ? 1.0 : (i % 4 == 2) ? -1.0 : -0.0;
		case K_NEARMAX:
			if (f32)
				return (((i >> 1) & 1) ? -1.0 : 1.0) * (double) unit_bits_float(0x7f7fffffu - (uint32_t) (r % 1024));
			return (((i >> 1) & 1) ? -1.0 : 1.0) * unit_bits_double(UINT64_C(0x7fefffffffffffff) - (r % 1024));
		case K_ALLMAX:
			return f32 ? (double) FLT_MAX : DBL_MAX;
		case K_POSINF:
		case K_BOTHINF:
		case K_NAN:
			if (kind == K_BOTHINF && n >= 2 && i == n / 2 + 1)
				return -INFINITY;
			if (i % 97 == 13 || i == n / 2)
			{
				if (kind == K_POSINF)
					return INFINITY;
				if (kind == K_BOTHINF)
					return ((i / 97) & 1) ? -INFINITY : INFINITY;
				return NAN;
			}
			return u;
		case K_ZEROSUM:
			/* the generator keeps the previous value in static state */
			{
				static double prev;

				if (i & 1)
					return -prev;
				prev = unit_rand_sign() * u * ldexp(1.0, (int) (r % 40) - 20);
				return prev;
			}
		case K_INTEGERS:
			return (double) ((int) (r % 7) - 3);
		case K_RAMP:
			return unit_rand_sign() * (1.0 + u) *
				ldexp(1.0, (int) ((double) i / (double) (n ? n : 1) * (f32 ? 250.0 : 600.0)) - (f32 ? 125 : 300));
		case K_LEVELS:
			return unit_rand_sign() * (0.5 + u) * ldexp(1.0, -20 * (int) (r % 4));
		case K_DYNRANGE:
			return unit_rand_sign() * pow(10.0, -2.0 + 9.0 * u);
		case K_TINYBIG:
			if (i % 1000 == 500)
				return unit_rand_sign() * (f32 ? 1e30 : 1e300);
			return unit_rand_sign() * u * (f32 ? 1e-30 : 1e-300);
		case K_NKINDS:
			break;
	}
	return 0.0;
}

/* gen -- fill x[0..n) (doubles or floats) with data of a kind */
static void
gen(elem_type t, data_kind kind, void *x, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		double		v = gen_value(t, kind, i, n);

		if (t == T_F64)
			((double *) x)[i] = v;
		else
			((float *) x)[i] = (float) v;
	}
}

static double
elem(elem_type t, const void *x, size_t i)
{
	return t == T_F64 ? ((const double *) x)[i] : (double) ((const float *) x)[i];
}

/* ---- the host reference ---- */

typedef struct scan_ref
{
	size_t		n;
	int			full;			/* every position; else the samples */
	double	   *incl;			/* full: incl[i] */
	double		excl0;			/* full: the exclusive output at 0 */
	size_t		nsamp;
	size_t	   *sidx;			/* sampled: positions, increasing */
	double	   *sincl;
	double	   *sexcl;
	gs_exact_acc total;			/* carry plus everything, normalized */
} scan_ref;

/* is_sample -- positions checked above FULL_REF_MAX: ends, tile edges, a stride */
static int
is_sample(size_t i, size_t n)
{
	size_t		k = i % SCAN_TILE;

	return i < 64 || i + 64 >= n || i % 997 == 0 || k < 2 || k + 2 >= SCAN_TILE;
}

static void
ref_free(scan_ref *r)
{
	free(r->incl);
	free(r->sidx);
	free(r->sincl);
	free(r->sexcl);
	memset(r, 0, sizeof(*r));
}

/* ref_build -- the reference outputs of x[0..n) from carry0; 0 if out of memory */
static int
ref_build(elem_type t, const void *x, size_t n, const gs_exact_acc *carry0, scan_ref *r)
{
	gs_exact_acc acc = *carry0;
	size_t		i,
				k = 0;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->full = n <= FULL_REF_MAX;
	if (r->full)
	{
		r->incl = malloc((n ? n : 1) * sizeof(double));
		if (!r->incl)
			return 0;
	}
	else
	{
		for (i = 0; i < n; i++)
			r->nsamp += is_sample(i, n);
		r->sidx = malloc(r->nsamp * sizeof(size_t));
		r->sincl = malloc(r->nsamp * sizeof(double));
		r->sexcl = malloc(r->nsamp * sizeof(double));
		if (!r->sidx || !r->sincl || !r->sexcl)
		{
			ref_free(r);
			return 0;
		}
	}
	gs_acc_normalize(&acc);
	r->excl0 = gs_acc_round(&acc);
	for (i = 0; i < n; i++)
	{
		int			sample = !r->full && is_sample(i, n);

		if (sample)
		{
			r->sidx[k] = i;
			r->sexcl[k] = gs_acc_round(&acc);
		}
		gs_acc_add(&acc, elem(t, x, i));
		if ((i & 0xffff) == 0xffff)
			gs_acc_normalize(&acc);
		if (r->full)
			r->incl[i] = gs_acc_round(&acc);
		else if (sample)
			r->sincl[k++] = gs_acc_round(&acc);
	}
	gs_acc_normalize(&acc);
	r->total = acc;
	return 1;
}

/* ---- device runs ---- */

/* check_status -- one step of a device run; 0 (and a failed check) if not GSD_OK */
static int
check_status(gsd_status st, const char *step)
{
	UNIT_CHECK(st == GSD_OK, "%s returned status %d: %s", step, (int) st, gsd_last_error());
	return st == GSD_OK;
}

typedef struct scan_run
{
	elem_type	t;
	size_t		in_off;			/* elements before the input in its buffer */
	size_t		out_off;		/* doubles before the output in its buffer */
	int			exclusive;
	const size_t *cuts;			/* chunk bounds, ncuts of them (0: one call) */
	int			ncuts;
} scan_run;

/*
 * gpu_scan -- upload x[0..n), scan it into a poisoned output from carry0
 * (in the chunks of run->cuts), download the outputs into out[0..n) and the
 * carry.  Checks the guard elements around the output.  Frees what it
 * allocated; 0 if a device step failed (reported).
 */
static int
gpu_scan(const scan_run *run, const void *x, size_t n, const gs_exact_acc *carry0,
		 double *out, gs_exact_acc *carry)
{
	size_t		es = run->t == T_F64 ? sizeof(double) : sizeof(float);
	size_t		nout = n + run->out_off + 1;
	void	   *d_in = NULL;
	double	   *d_out = NULL;
	gs_exact_acc *d_carry = NULL;
	double	   *host = NULL;
	int			ok = 0;
	int			c;
	size_t		i;

	memset(carry, 0xa5, sizeof(*carry));
	host = malloc(nout * sizeof(double));
	if (!host)
	{
		UNIT_CHECK(0, "out of host memory");
		return 0;
	}
	for (i = 0; i < nout; i++)
		host[i] = unit_bits_double(POISON);
	if (!check_status(gsd_alloc((n + run->in_off) * es, &d_in), "gsd_alloc(input)") ||
		!check_status(gsd_alloc(nout * sizeof(double), (void **) &d_out), "gsd_alloc(output)") ||
		!check_status(gsd_alloc(sizeof(gs_exact_acc), (void **) &d_carry), "gsd_alloc(carry)"))
		goto done;
	if (n > 0 && !check_status(gsd_upload((char *) d_in + run->in_off * es, x, n * es), "gsd_upload(input)"))
		goto done;
	if (!check_status(gsd_upload(d_out, host, nout * sizeof(double)), "gsd_upload(poison)") ||
		!check_status(gsd_upload(d_carry, carry0, sizeof(gs_exact_acc)), "gsd_upload(carry)"))
		goto done;

	for (c = 0; c < (run->ncuts > 0 ? run->ncuts - 1 : 1); c++)
	{
		size_t		lo = run->ncuts > 0 ? run->cuts[c] : 0;
		size_t		hi = run->ncuts > 0 ? run->cuts[c + 1] : n;
		gsd_status	st;

		if (run->t == T_F64)
			st = gsd_prefix_sum_f64((const double *) d_in + run->in_off + lo, hi - lo,
									d_out + run->out_off + lo, run->exclusive, d_carry);
		else
			st = gsd_prefix_sum_f32((const float *) d_in + run->in_off + lo, hi - lo,
									d_out + run->out_off + lo, run->exclusive, d_carry);
		if (!check_status(st, run->t == T_F64 ? "gsd_prefix_sum_f64" : "gsd_prefix_sum_f32"))
			goto done;
	}
	if (!check_status(gsd_download(host, d_out, nout * sizeof(double)), "gsd_download(output)") ||
		!check_status(gsd_download(carry, d_carry, sizeof(gs_exact_acc)), "gsd_download(carry)"))
		goto done;
	for (i = 0; i < run->out_off; i++)
		UNIT_CHECK(unit_double_bits(host[i]) == POISON, "guard element %zu before the output was overwritten: %a",
				   run->out_off - i, host[i]);
	UNIT_CHECK(unit_double_bits(host[run->out_off + n]) == POISON,
			   "guard element after the output was overwritten: %a", host[run->out_off + n]);
	if (n > 0)
		memcpy(out, host + run->out_off, n * sizeof(double));
	ok = 1;

done:
	free(host);
	if (d_in)
		gsd_free(d_in);
	if (d_out)
		gsd_free(d_out);
	if (d_carry)
		gsd_free(d_carry);
	return ok;
}

/* report_mismatch -- one output that differs from the reference */
static void
report_mismatch(const scan_run *run, const void *x, size_t n, size_t i, double got, double want)
{
	size_t		vec = run->t == T_F64 ? 2 : 4;
	size_t		v = i + run->in_off % vec;	/* the kernel's tiles start at 16-byte boundaries */

	if (unit_double_bits(got) == POISON)
		UNIT_CHECK(0, "output %zu of %zu (tile %zu, position %zu) was not written (poison left); expected %a",
				   i, n, v / SCAN_TILE, v % SCAN_TILE, want);
	else
		UNIT_CHECK(0, "output %zu of %zu (tile %zu, position %zu, input %a): got %a (%016" PRIx64
				   "), expected %a (%016" PRIx64 ")",
				   i, n, v / SCAN_TILE, v % SCAN_TILE, elem(run->t, x, i),
				   got, unit_double_bits(got), want, unit_double_bits(want));
}

/* compare_outputs -- every (or every sampled) output against the reference */
static void
compare_outputs(const scan_run *run, const void *x, const scan_ref *ref, const double *got)
{
	size_t		bad = 0;
	size_t		i,
				k;

	if (ref->full)
	{
		for (i = 0; i < ref->n; i++)
		{
			double		want = run->exclusive ? (i ? ref->incl[i - 1] : ref->excl0) : ref->incl[i];

			if (unit_double_bits(got[i]) != unit_double_bits(want) && bad++ < MAX_SHOWN)
				report_mismatch(run, x, ref->n, i, got[i], want);
		}
	}
	else
	{
		for (k = 0; k < ref->nsamp; k++)
		{
			double		want = run->exclusive ? ref->sexcl[k] : ref->sincl[k];

			i = ref->sidx[k];
			if (unit_double_bits(got[i]) != unit_double_bits(want) && bad++ < MAX_SHOWN)
				report_mismatch(run, x, ref->n, i, got[i], want);
		}
	}
	UNIT_CHECK(bad == 0, "%zu of %zu %soutputs differ from the reference", bad,
			   ref->full ? ref->n : ref->nsamp, ref->full ? "" : "sampled ");
}

/* compare_carry -- the device's carry against the reference accumulator */
static void
compare_carry(const gs_exact_acc *want, const gs_exact_acc *got)
{
	double		rw = gs_acc_round(want);
	double		rg = gs_acc_round(got);

	UNIT_CHECK(unit_double_bits(rw) == unit_double_bits(rg), "carry rounds to %a, expected %a", rg, rw);
	unit_check_acc("carry", want, got);
}

/*
 * run_case -- one named case: scan x on the device and compare everything.
 * If again is not NULL, a second identical run must give the same bits.
 */
static void
run_case(const scan_run *run, const char *what, const void *x, size_t n,
		 const gs_exact_acc *carry0, const scan_ref *ref, double *got, double *again)
{
	gs_exact_acc carry,
				carry2;

	unit_case("gpu scan %s %s %s n=%zu in+%zu out+%zu%s%s",
			  run->t == T_F64 ? "f64" : "f32", run->exclusive ? "exclusive" : "inclusive",
			  what, n, run->in_off, run->out_off, run->ncuts > 0 ? " chunked" : "",
			  again ? " twice" : "");
	if (!gpu_scan(run, x, n, carry0, got, &carry))
		return;
	compare_outputs(run, x, ref, got);
	compare_carry(&ref->total, &carry);
	if (again && gpu_scan(run, x, n, carry0, again, &carry2))
	{
		size_t		i,
					bad = 0;

		for (i = 0; i < n; i++)
			if (unit_double_bits(got[i]) != unit_double_bits(again[i]) && bad++ < MAX_SHOWN)
				UNIT_CHECK(0, "run to run: output %zu was %a, then %a", i, got[i], again[i]);
		UNIT_CHECK(bad == 0, "%zu outputs differ between two identical runs", bad);
		UNIT_CHECK(memcmp(&carry, &carry2, sizeof(carry)) == 0,
				   "the carry differs between two identical runs");
	}
}

/* ---- the cases ---- */

/* test_data -- every kind and size, both types, aligned or not, both modes, some chunked */
static void
test_data(void)
{
	static const size_t sizes[] = {0, 1, 2, 31, 32, 33, 1023, 1024, 1025,
		SCAN_TILE - 1, SCAN_TILE, SCAN_TILE + 1, 3 * SCAN_TILE + 5,
	(1u << 20) + 7, (1u << 24) + 3};
	const int	nsizes = (int) (sizeof(sizes) / sizeof(sizes[0]));
	size_t		maxn = sizes[nsizes - 1];
	void	   *x = malloc(maxn * sizeof(double));
	double	   *got = malloc(maxn * sizeof(double));
	double	   *again = malloc(maxn * sizeof(double));
	gs_exact_acc zero;
	int			ti,
				k,
				s;

	gs_acc_zero(&zero);
	if (!x || !got || !again)
	{
		unit_case("gpu scan test data");
		UNIT_CHECK(0, "out of host memory");
		free(x);
		free(got);
		free(again);
		return;
	}
	for (ti = 0; ti < 2; ti++)
		for (k = 0; k < K_NKINDS; k++)
			for (s = 0; s < nsizes; s++)
			{
				elem_type	t = ti == 0 ? T_F64 : T_F32;
				size_t		n = sizes[s];
				int			big = n > FULL_REF_MAX;
				size_t		odd = t == T_F64 ? 1 : 3;
				scan_ref	ref;
				scan_run	run;

				unit_seed(UINT64_C(0x5ca9) + (uint64_t) (ti * 10000 + k * 100 + s));
				gen(t, (data_kind) k, x, n);
				if (!ref_build(t, x, n, &zero, &ref))
				{
					unit_case("gpu scan reference");
					UNIT_CHECK(0, "out of host memory");
					continue;
				}

				/* aligned, inclusive, twice: vector loads and stores, determinism */
				run = (scan_run) {t, 0, 0, 0, NULL, 0};
				run_case(&run, kind_names[k], x, n, &zero, &ref, got, again);
				/* unaligned input, exclusive: the output's pairs misaligned too */
				run = (scan_run) {t, 1, 0, 1, NULL, 0};
				run_case(&run, kind_names[k], x, n, &zero, &ref, got, NULL);
				if (!big)
				{
					/* input and output shifted alike: vector stores again */
					run = (scan_run) {t, odd, odd & 1, 0, NULL, 0};
					run_case(&run, kind_names[k], x, n, &zero, &ref, got, NULL);
					run = (scan_run) {t, t == T_F64 ? 0 : 2, 1, 1, NULL, 0};
					run_case(&run, kind_names[k], x, n, &zero, &ref, got, NULL);
				}
				/* the same data in several calls with one device carry */
				if (n == 1025 || n == 3 * SCAN_TILE + 5 || n == (1u << 20) + 7)
				{
					size_t		cuts[10];
					int			ncuts = unit_random_cuts(n, cuts, 9);

					run = (scan_run) {t, 1, 0, k & 1, cuts, ncuts};
					run_case(&run, kind_names[k], x, n, &zero, &ref, got, NULL);
				}
				ref_free(&ref);
			}
	free(x);
	free(got);
	free(again);
}

/* test_carry_in -- scans that start from a nonzero carry built on the host */
static void
test_carry_in(void)
{
	static const struct
	{
		const char *name;
		int			nc;
		double		c[3];		/* values in the carry */
		data_kind	kind;
	}			cases[] = {
		{"carry 2^53, integers: ties", 1, {0x1p53}, K_INTEGERS},
		{"carry 2^53 + 2^-60 + 2^-200 (beyond a double-double)", 3, {0x1p53, 0x1p-60, 0x1p-200}, K_INTEGERS},
		{"carry 1 + 2^-80 + 2^-160", 3, {1.0, 0x1p-80, 0x1p-160}, K_SIGNED},
		{"carry -0.0, all -0.0", 1, {-0.0}, K_NEGZERO},
		{"carry -0.0, zeromix", 1, {-0.0}, K_ZEROMIX},
		{"carry +0.0, all -0.0", 1, {0.0}, K_NEGZERO},
		{"carry NaN", 1, {NAN}, K_UNIFORM},
		{"carry +Inf, then -Inf too", 1, {INFINITY}, K_BOTHINF},
		{"carry -Inf", 1, {-INFINITY}, K_SIGNED},
		{"carry 2 DBL_MAX: beyond the doubles", 2, {DBL_MAX, DBL_MAX}, K_NEARMAX},
		{"carry 2^1001: huge but finite", 1, {0x1p1001}, K_SIGNED},
		{"carry -DBL_MAX", 1, {-DBL_MAX}, K_ALLMAX},
		{"carry -1e16, cancel", 1, {-1e16}, K_CANCEL},
		{"carry 1e-310 subnormal", 1, {1e-310}, K_SUBNORMAL},
	};
	static const size_t sizes[] = {1, 2, 33, SCAN_TILE + 1, 5 * SCAN_TILE + 3};
	size_t		maxn = 5 * SCAN_TILE + 3;
	double	   *x = malloc(maxn * sizeof(double));
	double	   *got = malloc(maxn * sizeof(double));
	int			ci,
				s,
				ti,
				ex;

	if (!x || !got)
	{
		unit_case("gpu scan carry in");
		UNIT_CHECK(0, "out of host memory");
		free(x);
		free(got);
		return;
	}
	for (ci = 0; ci < (int) (sizeof(cases) / sizeof(cases[0])); ci++)
		for (s = 0; s < (int) (sizeof(sizes) / sizeof(sizes[0])); s++)
			for (ti = 0; ti < 2; ti++)
				for (ex = 0; ex < 2; ex++)
				{
					elem_type	t = ti == 0 ? T_F64 : T_F32;
					size_t		n = sizes[s];
					gs_exact_acc carry0;
					scan_ref	ref;
					scan_run	run = {t, (size_t) ex, 0, ex, NULL, 0};
					int			j;

					gs_acc_zero(&carry0);
					for (j = 0; j < cases[ci].nc; j++)
						gs_acc_add(&carry0, cases[ci].c[j]);
					gs_acc_normalize(&carry0);
					unit_seed(UINT64_C(0xca77) + (uint64_t) (ci * 100 + s));
					gen(t, cases[ci].kind, x, n);
					if (!ref_build(t, x, n, &carry0, &ref))
						continue;
					run_case(&run, cases[ci].name, x, n, &carry0, &ref, got, NULL);
					ref_free(&ref);
				}
	free(x);
	free(got);
}

/* test_many_calls -- a thousand small calls with one device carry */
static void
test_many_calls(void)
{
	const size_t n = 1000 * 1013;
	double	   *x = malloc(n * sizeof(double));
	double	   *got = malloc(n * sizeof(double));
	size_t	   *cuts = malloc(1001 * sizeof(size_t));
	gs_exact_acc zero;
	scan_ref	ref;
	int			i,
				ex;

	gs_acc_zero(&zero);
	if (!x || !got || !cuts)
	{
		unit_case("gpu scan 1000 calls");
		UNIT_CHECK(0, "out of host memory");
		free(x);
		free(got);
		free(cuts);
		return;
	}
	unit_seed(78);
	gen(T_F64, K_SIGNED, x, n);
	for (i = 0; i <= 1000; i++)
		cuts[i] = (size_t) i * 1013;
	if (ref_build(T_F64, x, n, &zero, &ref))
	{
		for (ex = 0; ex < 2; ex++)
		{
			scan_run	run = {T_F64, 0, 0, ex, cuts, 1001};

			run_case(&run, "signed, 1000 calls", x, n, &zero, &ref, got, NULL);
		}
		ref_free(&ref);
	}
	free(x);
	free(got);
	free(cuts);
}

/* test_invalid -- bad arguments are refused; n == 0 normalizes the carry */
static void
test_invalid(void)
{
	char	   *d_buf = NULL;
	gs_exact_acc *d_carry;
	gs_exact_acc carry;
	double		out = 0.0;
	gsd_status	st;

	unit_case("gpu scan refuses bad arguments");
	if (!check_status(gsd_alloc(256 + sizeof(gs_exact_acc), (void **) &d_buf), "gsd_alloc"))
		return;
	d_carry = (gs_exact_acc *) (d_buf + 256);
	st = gsd_prefix_sum_f64((const double *) d_buf, 1, (double *) (d_buf + 64), 0, NULL);
	UNIT_CHECK(st == GSD_INVALID, "NULL carry: status %d, expected GSD_INVALID", (int) st);
	st = gsd_prefix_sum_f64((const double *) d_buf, 1, (double *) (d_buf + 64), 0,
							(gs_exact_acc *) (d_buf + 260));
	UNIT_CHECK(st == GSD_INVALID, "misaligned carry: status %d, expected GSD_INVALID", (int) st);
	st = gsd_prefix_sum_f64((const double *) (d_buf + 4), 1, (double *) (d_buf + 64), 0, d_carry);
	UNIT_CHECK(st == GSD_INVALID, "input not aligned to a double: status %d, expected GSD_INVALID", (int) st);
	st = gsd_prefix_sum_f32((const float *) (d_buf + 2), 1, (double *) (d_buf + 64), 0, d_carry);
	UNIT_CHECK(st == GSD_INVALID, "input not aligned to a float: status %d, expected GSD_INVALID", (int) st);
	st = gsd_prefix_sum_f64((const double *) d_buf, 1, (double *) (d_buf + 68), 0, d_carry);
	UNIT_CHECK(st == GSD_INVALID, "output not aligned to a double: status %d, expected GSD_INVALID", (int) st);
	st = gsd_prefix_sum_f64(NULL, 1, (double *) (d_buf + 64), 0, d_carry);
	UNIT_CHECK(st == GSD_INVALID, "NULL input with n > 0: status %d, expected GSD_INVALID", (int) st);
	st = gsd_prefix_sum_f64((const double *) d_buf, 1, NULL, 0, d_carry);
	UNIT_CHECK(st == GSD_INVALID, "NULL output with n > 0: status %d, expected GSD_INVALID", (int) st);
	st = gsd_prefix_sum_f64((const double *) d_buf, 4, (double *) (d_buf + 16), 0, d_carry);
	UNIT_CHECK(st == GSD_INVALID, "output overlapping the input: status %d, expected GSD_INVALID", (int) st);

	/* n == 0 with NULL pointers is fine, and leaves the carry normalized */
	unit_case("gpu scan n = 0 normalizes the carry");
	gs_acc_zero(&carry);
	carry.limb[0] = INT64_C(5) << 32 | 7;	/* 5 * 2^32 + 7 units: digits 7 and 5 */
	carry.limb[1] = -1;
	if (check_status(gsd_upload(d_carry, &carry, sizeof(carry)), "gsd_upload(carry)") &&
		check_status(gsd_prefix_sum_f64(NULL, 0, NULL, 1, d_carry), "gsd_prefix_sum_f64(n = 0)") &&
		check_status(gsd_prefix_sum_f32(NULL, 0, NULL, 0, d_carry), "gsd_prefix_sum_f32(n = 0)") &&
		check_status(gsd_download(&carry, d_carry, sizeof(carry)), "gsd_download(carry)"))
		UNIT_CHECK(carry.limb[0] == 7 && carry.limb[1] == 4 && carry.limb[2] == 0,
				   "carry after n = 0: limbs %" PRId64 ", %" PRId64 ", %" PRId64 "; expected 7, 4, 0",
				   carry.limb[0], carry.limb[1], carry.limb[2]);

	/* still usable after the refusals */
	unit_case("gpu scan usable after refused calls");
	{
		double		one = 1.5;

		gs_acc_zero(&carry);
		if (check_status(gsd_upload(d_buf, &one, sizeof(one)), "gsd_upload") &&
			check_status(gsd_upload(d_carry, &carry, sizeof(carry)), "gsd_upload(carry)") &&
			check_status(gsd_prefix_sum_f64((const double *) d_buf, 1, (double *) (d_buf + 64), 0, d_carry),
						 "gsd_prefix_sum_f64(n = 1)") &&
			check_status(gsd_download(&out, d_buf + 64, sizeof(out)), "gsd_download"))
			UNIT_CHECK(out == 1.5, "prefix sum of {1.5} is %a", out);
	}
	gsd_free(d_buf);
}

void
suite_gpu_scan(void)
{
	size_t		before = 0,
				after = 0;
	int			have_before;

	unit_case("gpu scan memory in use before");
	have_before = check_status(gsd_synchronize(), "gsd_synchronize") &&
		check_status(gsd_memory_in_use(&before), "gsd_memory_in_use");

	test_invalid();
	test_carry_in();
	test_many_calls();
	test_data();

	unit_case("gpu scan frees all device memory");
	if (have_before &&
		check_status(gsd_synchronize(), "gsd_synchronize") &&
		check_status(gsd_memory_in_use(&after), "gsd_memory_in_use"))
		UNIT_CHECK(after == before, "device memory in use %zu bytes after the suite, %zu before",
				   after, before);
}
