/*-------------------------------------------------------------------------
 *
 * bench_scan.cuh
 *	  The "scan" section of kernel_bench: inclusive prefix sums of 2^20 ..
 *	  2^28 floats and doubles by every version of the scan progression,
 *	  the production exact scan (gsd_prefix_sum_*), CUB's
 *	  DeviceScan::InclusiveSum (for floats also over a transform iterator
 *	  that widens them to double: the exact scan's traffic, 4 bytes read and
 *	  8 written per element) and a device-to-device copy.  Included by
 *	  kernel_bench.cu only, after bench_common.cuh.
 *
 * Every kernel is validated at every size before it is timed, on the
 * first copy of the input, into a poisoned output with a poisoned guard
 * after it, against the exact prefix sums computed on the host:
 *  - integral data (every prefix exact in any order): every output of
 *	  every kernel equal to the exact prefix;
 *  - uniform [0, 1) data: the production scan bit for bit (each output the
 *	  exact prefix rounded once to double), the copy bit for bit, the
 *	  progression within its proven bound, CUB within a loose one;
 *  - the guard after the output untouched.
 *
 * The host reference: every bench value is a multiple of 2^-53 below 2^11
 * (checked), so the exact prefix sums are integers in units of 2^-53 that
 * a 128-bit running sum holds exactly; each is rounded once to double,
 * ties to even.  That reference is itself checked bit for bit against an
 * incremental gs_exact_acc pass (cpu_sum_exact_*, gs_acc_round) at a
 * sample of positions and at the last element of every size.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_BENCH_SCAN_CUH
#define GPUSCAN_BENCH_SCAN_CUH

#include <math.h>
#include <thread>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "bench_common.cuh"
#include "gpuscan_exact.h"
#include "gpuscan_course.h"

extern "C"
{
#include "cpu/cpu_sum.h"
}

static const int scan_log2_sizes[] = {20, 22, 24, 26, 28};
#define SCAN_NSIZES		((int) (sizeof(scan_log2_sizes) / sizeof(scan_log2_sizes[0])))
#define SCAN_MAX_N		((size_t) 1 << 28)
#define SCAN_GUARD		64		/* output elements after n that must stay poisoned */
#define SCAN_SAMPLE_STEP ((size_t) 1 << 16)	/* reference cross-check: one position per */
#define SCAN_MAX_THREADS 16		/* host threads for the references and the checks */

/* what differs between float and double */
template <typename T> struct scan_type;

template <> struct scan_type<float>
{
	static const int is_double = 0;
	static const char *name() { return "float"; }
	static const char *exact_name() { return "gsd_prefix_sum_f32"; }
	static double unit_roundoff() { return 0x1p-24; }
	static void cpu_exact(const float *x, size_t n, gs_exact_acc *acc) { cpu_sum_exact_f32(x, n, acc); }
	static gsd_status gpu_exact(const float *d, size_t n, double *out, gs_exact_acc *carry)
	{
		return gsd_prefix_sum_f32(d, n, out, 0, carry);
	}
};

template <> struct scan_type<double>
{
	static const int is_double = 1;
	static const char *name() { return "double"; }
	static const char *exact_name() { return "gsd_prefix_sum_f64"; }
	static double unit_roundoff() { return 0x1p-53; }
	static void cpu_exact(const double *x, size_t n, gs_exact_acc *acc) { cpu_sum_exact_f64(x, n, acc); }
	static gsd_status gpu_exact(const double *d, size_t n, double *out, gs_exact_acc *carry)
	{
		return gsd_prefix_sum_f64(d, n, out, 0, carry);
	}
};

/* device and host buffers of the section, sized for the largest input */
typedef struct scan_bufs
{
	void	   *pool;			/* inputs: SCAN_MAX_N doubles' bytes, rotated copies */
	size_t		pool_bytes;
	void	   *outs;			/* outputs: SCAN_MAX_N doubles + guard, rotated copies */
	size_t		outs_bytes;
	void	   *scratch;		/* of the progression (it resets what it needs) */
	gs_exact_acc *carry;		/* of the production scan; zeroed before every run */
	void	   *cub_temp;
	size_t		cub_temp_bytes;
	void	   *host_in;		/* host copy of the first SCAN_MAX_N inputs */
	double	   *ref;			/* their exact prefix sums, rounded to double */
	unsigned char *host_out;	/* pinned: one output and its guard */
} scan_bufs;

enum scan_kind
{
	SCAN_VERSION,				/* gsd_scan_progression(version) */
	SCAN_EXACT,					/* memset of the carry + gsd_prefix_sum_* (double out) */
	SCAN_CUB,					/* cub::DeviceScan::InclusiveSum */
	SCAN_CUB_WIDE,				/* the same over inputs widened to double (floats) */
	SCAN_COPY					/* cudaMemcpyAsync device to device */
};

typedef struct scan_kernel
{
	scan_kind	kind;
	int			version;
	std::string name;
} scan_kernel;

/* scan_kernels -- the rows of the tables */
template <typename T>
static std::vector<scan_kernel>
scan_kernels(void)
{
	std::vector<scan_kernel> ks;

	for (int v = 1; v <= gsd_scan_progression_count(); v++)
		ks.push_back({SCAN_VERSION, v, bench_fmt("%d. %s", v, gsd_scan_progression_name(v))});
	ks.push_back({SCAN_EXACT, 0, bench_fmt("%s (exact, double out; with memset)",
										   scan_type<T>::exact_name())});
	ks.push_back({SCAN_CUB, 0, "cub::DeviceScan::InclusiveSum"});
	if (!scan_type<T>::is_double)
		ks.push_back({SCAN_CUB_WIDE, 0, "cub::DeviceScan::InclusiveSum, widened to double"});
	ks.push_back({SCAN_COPY, 0, "D2D copy"});
	return ks;
}

/* scan_out_size -- bytes of one output element of kernel k */
template <typename T>
static size_t
scan_out_size(const scan_kernel &k)
{
	return k.kind == SCAN_EXACT || k.kind == SCAN_CUB_WIDE ? sizeof(double) : sizeof(T);
}

/* scan_widen -- a float's (or double's) value as a double, for SCAN_CUB_WIDE */
struct scan_widen
{
	template <typename T>
	__host__ __device__ double operator()(T x) const { return (double) x; }
};

/* scan_enqueue -- one complete run of kernel k over in[0..n) into out */
template <typename T>
static void
scan_enqueue(bench_env *env, const scan_bufs *b, const scan_kernel &k, const T *in, void *out,
			 size_t n)
{
	switch (k.kind)
	{
		case SCAN_VERSION:
			BENCH_GSD(gsd_scan_progression(k.version, scan_type<T>::is_double, in, n, out,
										   b->scratch));
			break;
		case SCAN_EXACT:
			BENCH_CK(cudaMemsetAsync(b->carry, 0, sizeof(gs_exact_acc), env->stream));
			BENCH_GSD(scan_type<T>::gpu_exact(in, n, (double *) out, b->carry));
			break;
		case SCAN_CUB:
			{
				size_t		temp_bytes = b->cub_temp_bytes;

				BENCH_CK(cub::DeviceScan::InclusiveSum(b->cub_temp, temp_bytes, in, (T *) out,
													   (int) n, env->stream));
				break;
			}
		case SCAN_CUB_WIDE:
			{
				size_t		temp_bytes = b->cub_temp_bytes;

				BENCH_CK(cub::DeviceScan::InclusiveSum(b->cub_temp, temp_bytes,
													   thrust::make_transform_iterator(in, scan_widen()),
													   (double *) out, (int) n, env->stream));
				break;
			}
		case SCAN_COPY:
			BENCH_CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice,
									 env->stream));
			break;
	}
}

/* ---- host side: parallel loops, the reference ---- */

/* scan_parallel -- f(lo, hi, part) over `parts` slices of [0, n), on threads */
template <typename F>
static void
scan_parallel(size_t n, int parts, F f)
{
	std::vector<std::thread> ts;

	for (int p = 0; p < parts; p++)
	{
		size_t		lo = n / parts * p + std::min((size_t) p, n % parts);
		size_t		hi = lo + n / parts + ((size_t) p < n % parts ? 1 : 0);

		ts.emplace_back([=, &f]() { f(lo, hi, p); });
	}
	for (size_t i = 0; i < ts.size(); i++)
		ts[i].join();
}

/* scan_threads -- host threads to use */
static int
scan_threads(void)
{
	unsigned int hc = std::thread::hardware_concurrency();

	return (int) std::max(1u, std::min(hc, (unsigned int) SCAN_MAX_THREADS));
}

/* scan_units -- x as a count of 2^-53 (x must be such a multiple in [0, 2^11)) */
static inline int
scan_units(double x, uint64_t *units)
{
	double		m = x * 0x1p53;

	if (!(x >= 0 && m < 0x1p64 && m == floor(m)))
		return 0;
	*units = (uint64_t) m;
	return 1;
}

/* scan_round_units -- m * 2^-53 rounded once to double, ties to even */
static inline double
scan_round_units(unsigned __int128 m)
{
	uint64_t	hi = (uint64_t) (m >> 64);
	uint64_t	lo = (uint64_t) m;
	int			bits,
				shift;
	unsigned __int128 mant,
				rem,
				half;

	if (hi == 0 && lo < (UINT64_C(1) << 53))
		return (double) lo * 0x1p-53;	/* exact */
	bits = hi != 0 ? 128 - __builtin_clzll(hi) : 64 - __builtin_clzll(lo);
	shift = bits - 53;			/* 1 .. 75 */
	mant = m >> shift;
	rem = m - (mant << shift);
	half = (unsigned __int128) 1 << (shift - 1);
	if (rem > half || (rem == half && (mant & 1)))
		mant++;					/* may reach 2^53: still exact */
	return ldexp((double) (uint64_t) mant, shift - 53);
}

/*
 * scan_references -- ref[i] = x[0] + ... + x[i], exactly, rounded once to
 * double, for i < n.  Two parallel passes: the sum of every slice, then
 * every slice's running sum from the slices before it.  Exits (status 2)
 * if a value is not on the 2^-53 grid below 2^11.
 */
template <typename T>
static void
scan_references(const T *x, size_t n, double *ref)
{
	const int	parts = scan_threads();
	std::vector<unsigned __int128> slice(parts, 0);
	std::vector<int> off_grid(parts, 0);

	scan_parallel(n, parts, [&](size_t lo, size_t hi, int p) {
		unsigned __int128 s = 0;
		uint64_t	u;

		for (size_t i = lo; i < hi; i++)
		{
			if (!scan_units((double) x[i], &u))
			{
				off_grid[p] = 1;
				return;
			}
			s += u;
		}
		slice[p] = s;
	});
	for (int p = 0; p < parts; p++)
		if (off_grid[p])
		{
			fprintf(stderr, "kernel_bench: scan data is not a multiple of 2^-53 in [0, 2^11)\n");
			exit(2);
		}
	scan_parallel(n, parts, [&](size_t lo, size_t hi, int p) {
		unsigned __int128 s = 0;
		uint64_t	u = 0;

		for (int q = 0; q < p; q++)
			s += slice[q];
		for (size_t i = lo; i < hi; i++)
		{
			scan_units((double) x[i], &u);
			s += u;
			ref[i] = scan_round_units(s);
		}
	});
}

/*
 * scan_cross_check -- the reference against the project's exact
 * accumulator: one incremental pass of cpu_sum_exact_* over x[0..n), with
 * gs_acc_round at every SCAN_SAMPLE_STEP-th position (offset by an odd
 * amount) and at the last element of every size; every one must be the
 * same bits as ref.  Exits (status 2) if not: the benchmark is broken.
 */
template <typename T>
static void
scan_cross_check(const T *x, size_t n, const double *ref, const size_t *ns, int nsizes)
{
	std::vector<size_t> at;
	gs_exact_acc acc;
	size_t		done = 0;

	for (size_t p = 12345; p < n; p += SCAN_SAMPLE_STEP)
		at.push_back(p);
	for (int s = 0; s < nsizes; s++)
		if (ns[s] > 0 && ns[s] <= n)
			at.push_back(ns[s] - 1);
	std::sort(at.begin(), at.end());
	gs_acc_zero(&acc);
	for (size_t j = 0; j < at.size(); j++)
	{
		double		r;

		scan_type<T>::cpu_exact(x + done, at[j] + 1 - done, &acc);
		done = at[j] + 1;
		r = gs_acc_round(&acc);
		if (memcmp(&r, &ref[at[j]], sizeof(double)) != 0)
		{
			fprintf(stderr, "kernel_bench: scan reference at %zu is %.17g, gs_acc_round gives %.17g\n",
					at[j], ref[at[j]], r);
			exit(2);
		}
	}
}

/* ---- validation ---- */

/* scan_cub_bound -- tolerance for CUB (see scan_check) */
static double
scan_cub_bound(size_t n, double u)
{
	double		h = 64 + 7 * ceil((double) n / 256);

	return h * u < 0.5 ? h * u / (1 - h * u) : 1.0;
}

/*
 * scan_check -- validate kernel k on the first copy of the input, n
 * elements, against b->ref (and b->host_in for the copy).  Integral data:
 * every output exactly.  Uniform data: the production scan and the copy
 * bit for bit; the progression within its proven bound
 * (gsd_scan_progression_error_bound); CUB within gamma_h for h = 64 +
 * 7 ceil(n / 256): a decoupled look-back scan over tiles of at least 256
 * elements, 7 levels of additions per tile as in the progression's
 * version 7, 64 inside a tile (not a proof about CUB's internals; loose on
 * purpose).  The SCAN_GUARD elements after the output must stay poisoned.
 * Returns 1 if it passes; *max_rel gets the largest relative error.
 */
template <typename T>
static int
scan_check(bench_env *env, const scan_bufs *b, const scan_kernel &k, size_t n, int integral,
		   double *max_rel)
{
	const T    *in = (const T *) b->pool;
	const size_t oes = scan_out_size<T>(k);
	const unsigned char *h = b->host_out;
	const T    *hin = (const T *) b->host_in;
	const double *ref = b->ref;
	const int	parts = scan_threads();
	double		bound = 0;
	const char *what;
	std::vector<size_t> bad(parts, 0),
				first(parts, SIZE_MAX);
	std::vector<double> rel(parts, 0);
	size_t		nbad = 0,
				first_bad = SIZE_MAX;
	int			intact = 1;

	bench_poison(env, b->outs, (n + SCAN_GUARD) * oes);
	scan_enqueue<T>(env, b, k, in, b->outs, n);
	BENCH_CK(cudaGetLastError());
	bench_download(env, b->host_out, b->outs, (n + SCAN_GUARD) * oes);
	for (size_t i = n * oes; i < (n + SCAN_GUARD) * oes; i++)
		if (h[i] != 0xff)
			intact = 0;

	if (k.kind == SCAN_EXACT || k.kind == SCAN_COPY)
		what = "bit-exact";
	else if (integral)
		what = "exact (integral data)";
	else
	{
		bound = k.kind == SCAN_VERSION ?
			gsd_scan_progression_error_bound(k.version, scan_type<T>::is_double, n) :
			scan_cub_bound(n, k.kind == SCAN_CUB_WIDE ? 0x1p-53 : scan_type<T>::unit_roundoff());
		what = "within bound";
	}

	scan_parallel(n, parts, [&](size_t lo, size_t hi, int p) {
		for (size_t i = lo; i < hi; i++)
		{
			double		got = oes == sizeof(double) ? ((const double *) h)[i] :
				(double) ((const float *) h)[i];
			double		err = fabs(got - ref[i]);
			int			ok;

			if (k.kind == SCAN_COPY)
				ok = memcmp(h + i * sizeof(T), &hin[i], sizeof(T)) == 0;
			else if (k.kind == SCAN_EXACT)
				ok = memcmp(&got, &ref[i], sizeof(double)) == 0;
			else if (integral)
				ok = got == ref[i];
			else
				/* the reference itself is rounded to double: half an ulp */
				ok = err <= (bound + 0x1p-53) * ref[i];
			if (!ok && bad[p]++ == 0)
				first[p] = i;
			if (k.kind != SCAN_COPY && ref[i] > 0 && err / ref[i] > rel[p])
				rel[p] = err / ref[i];
		}
	});
	*max_rel = 0;
	for (int p = 0; p < parts; p++)
	{
		nbad += bad[p];
		first_bad = std::min(first_bad, first[p]);
		*max_rel = std::max(*max_rel, rel[p]);
	}

	if (nbad == 0 && intact)
		return 1;
	env->failures++;
	if (nbad > 0)
	{
		double		got = oes == sizeof(double) ? ((const double *) h)[first_bad] :
			(double) ((const float *) h)[first_bad];
		double		want = k.kind == SCAN_COPY ? (double) hin[first_bad] : ref[first_bad];

		printf("- FAIL: scan of %s, n = %zu, %s: %zu of %zu outputs wrong (%s), the first at %zu: "
			   "got %.17g, expected %.17g (max relative error %.3g, bound %.3g)%s\n",
			   scan_type<T>::name(), n, k.name.c_str(), nbad, n, what, first_bad, got, want,
			   *max_rel, bound, intact ? "" : "; wrote past the output");
	}
	else
		printf("- FAIL: scan of %s, n = %zu, %s: wrote past the output\n",
			   scan_type<T>::name(), n, k.name.c_str());
	fflush(stdout);
	return 0;
}

/* scan_prepare -- fill the pool, copy the first SCAN_MAX_N to the host, references */
template <typename T>
static void
scan_prepare(bench_env *env, scan_bufs *b, uint64_t seed, int integral, const size_t *ns)
{
	const size_t pool_elems = b->pool_bytes / sizeof(T);

	bench_fill<T>(env, (T *) b->pool, pool_elems, seed, integral);
	bench_download(env, b->host_in, b->pool, SCAN_MAX_N * sizeof(T));
	fprintf(stderr, "scan %s: CPU references (%s data)\n", scan_type<T>::name(),
			integral ? "integral" : "uniform");
	scan_references<T>((const T *) b->host_in, SCAN_MAX_N, b->ref);
	scan_cross_check<T>((const T *) b->host_in, SCAN_MAX_N, b->ref, ns, SCAN_NSIZES);
}

/* scan_section_type -- validate and time every kernel for one type */
template <typename T>
static void
scan_section_type(bench_env *env, scan_bufs *b)
{
	const char *tname = scan_type<T>::name();
	std::vector<scan_kernel> ks = scan_kernels<T>();
	T		   *pool = (T *) b->pool;
	const size_t pool_elems = b->pool_bytes / sizeof(T);
	size_t		ns[SCAN_NSIZES];
	std::vector<std::vector<int>> bad(ks.size(), std::vector<int>(SCAN_NSIZES, 0));
	std::vector<std::vector<double>> med(ks.size(), std::vector<double>(SCAN_NSIZES, -1));
	bench_table gbs,
				times,
				errs;
	int			checks = 0,
				failed_before = env->failures;

	for (int s = 0; s < SCAN_NSIZES; s++)
	{
		ns[s] = (size_t) 1 << scan_log2_sizes[s];
		gbs.cols.push_back(bench_fmt("2^%d", scan_log2_sizes[s]));
	}
	times.cols = errs.cols = gbs.cols;
	gbs.corner = times.corner = errs.corner = "kernel";
	gbs.title = bench_fmt("### inclusive scan of %s: GB/s of input read + output written "
						  "(median; µs at 2^%d)", tname, scan_log2_sizes[SCAN_NSIZES - 1]);
	times.title = bench_fmt("### inclusive scan of %s: µs, median [min, max] of the timed runs",
							tname);
	errs.title = bench_fmt("### inclusive scan of %s: largest relative error of any output "
						   "against the exact prefix sum (uniform data)", tname);
	for (size_t i = 0; i < ks.size(); i++)
	{
		gbs.row(ks[i].name);
		times.row(ks[i].name);
		if (ks[i].kind != SCAN_COPY)
			errs.row(ks[i].name);
	}

	/* 1. integral data, whose prefix sums every order gets exactly: all kernels */
	fprintf(stderr, "scan %s: exact check on integral data\n", tname);
	scan_prepare<T>(env, b, BENCH_SEED ^ 1, 1, ns);
	if (!scan_type<T>::is_double && b->ref[SCAN_MAX_N - 1] >= 0x1p24)
		printf("- note: integral float data sums to %.0f >= 2^24; exact check skipped\n",
			   b->ref[SCAN_MAX_N - 1]);
	else
		for (int s = 0; s < SCAN_NSIZES; s++)
			for (size_t i = 0; i < ks.size(); i++)
			{
				double		rel;

				checks++;
				if (!scan_check<T>(env, b, ks[i], ns[s], 1, &rel))
					bad[i][s] = 1;
			}

	/* 2. uniform [0, 1) data: validate, then time */
	scan_prepare<T>(env, b, BENCH_SEED, 0, ns);
	for (int s = 0; s < SCAN_NSIZES; s++)
	{
		const size_t n = ns[s];
		const bool	last = s == SCAN_NSIZES - 1;

		for (size_t i = 0; i < ks.size(); i++)
		{
			const scan_kernel &k = ks[i];
			const size_t oes = scan_out_size<T>(k);
			const size_t in_bytes = n * sizeof(T);
			const size_t out_bytes = n * oes;
			const size_t room = std::min(pool_elems / n, b->outs_bytes / out_bytes);
			const int	copies = bench_rotation(env, in_bytes + out_bytes, room);
			double		rel;
			bench_timing t;
			double		rate;

			if (!bad[i][s])
			{
				checks++;
				if (!scan_check<T>(env, b, k, n, 0, &rel))
					bad[i][s] = 1;
				if (k.kind != SCAN_COPY)
					errs.set(k.name, s, bench_fmt("%.1e", rel));
			}
			if (bad[i][s])
			{
				gbs.set(k.name, s, "FAIL");
				times.set(k.name, s, "FAIL");
				if (k.kind != SCAN_COPY)
					errs.set(k.name, s, "FAIL");
				continue;
			}
			t = bench_time(env, copies, [&](int c) {
				scan_enqueue<T>(env, b, k, pool + (size_t) c * n,
								(char *) b->outs + (size_t) c * out_bytes, n);
			});
			med[i][s] = t.median_us;
			rate = bench_gbs((double) (in_bytes + out_bytes), t.median_us);
			gbs.set(k.name, s, last ? bench_fmt("%.0f (%.0f µs)", rate, t.median_us)
					: bench_fmt("%.0f", rate));
			times.set(k.name, s, bench_fmt("%.1f [%.1f, %.1f]", t.median_us, t.min_us, t.max_us));
			fprintf(stderr, "scan %s 2^%d %-52s %10.1f us %7.0f GB/s  (%d runs, %d copies)\n",
					tname, scan_log2_sizes[s], k.name.c_str(), t.median_us, rate, t.reps,
					t.copies);
		}
	}

	/* the production scan against CUB (and CUB widened), per size */
	{
		size_t		ie = 0;

		for (size_t i = 0; i < ks.size(); i++)
			if (ks[i].kind == SCAN_EXACT)
				ie = i;
		for (size_t ic = 0; ic < ks.size(); ic++)
		{
			std::string row;

			if (ks[ic].kind != SCAN_CUB && ks[ic].kind != SCAN_CUB_WIDE)
				continue;
			row = bench_fmt("time %s / CUB%s", scan_type<T>::exact_name(),
							ks[ic].kind == SCAN_CUB_WIDE ? " widened" : "");
			for (int s = 0; s < SCAN_NSIZES; s++)
				gbs.set(row, s, (med[ie][s] > 0 && med[ic][s] > 0) ?
						bench_fmt("%.2f×", med[ie][s] / med[ic][s]) : std::string("—"));
		}
	}

	gbs.print(stdout);
	times.print(stdout);
	errs.print(stdout);
	printf("Validation, %s: %d checks, %d failed (integral data: every output of every kernel "
		   "exact; uniform data: the exact scan and the copy bit for bit, the progression within "
		   "its error bound, CUB within a loose bound; nothing written past the output).\n\n",
		   tname, checks, env->failures - failed_before);
	fflush(stdout);
}

/* section_scan -- inclusive prefix sums of 2^20 .. 2^28 floats and doubles */
static void
section_scan(bench_env *env)
{
	scan_bufs	b;

	memset(&b, 0, sizeof(b));
	b.pool_bytes = SCAN_MAX_N * sizeof(double);
	b.outs_bytes = (SCAN_MAX_N + SCAN_GUARD) * sizeof(double);
	BENCH_CK(cudaMalloc(&b.pool, b.pool_bytes));
	BENCH_CK(cudaMalloc(&b.outs, b.outs_bytes));
	{
		size_t		sb = std::max(gsd_scan_progression_scratch_bytes(1, SCAN_MAX_N),
								  gsd_scan_progression_scratch_bytes(0, SCAN_MAX_N));

		BENCH_CK(cudaMalloc(&b.scratch, sb));
	}
	BENCH_CK(cudaMalloc((void **) &b.carry, sizeof(gs_exact_acc)));
	for (int s = 0; s < SCAN_NSIZES; s++)
	{
		size_t		n = (size_t) 1 << scan_log2_sizes[s];
		size_t		tf = 0,
					td = 0,
					tw = 0;

		BENCH_CK(cub::DeviceScan::InclusiveSum(NULL, tf, (const float *) NULL, (float *) NULL,
											   (int) n, env->stream));
		BENCH_CK(cub::DeviceScan::InclusiveSum(NULL, td, (const double *) NULL, (double *) NULL,
											   (int) n, env->stream));
		BENCH_CK(cub::DeviceScan::InclusiveSum(NULL, tw,
											   thrust::make_transform_iterator((const float *) NULL,
																			   scan_widen()),
											   (double *) NULL, (int) n, env->stream));
		b.cub_temp_bytes = std::max(b.cub_temp_bytes, std::max(tf, std::max(td, tw)));
	}
	BENCH_CK(cudaMalloc(&b.cub_temp, std::max(b.cub_temp_bytes, (size_t) 1)));
	BENCH_CK(cudaMallocHost((void **) &b.host_out, b.outs_bytes));
	b.host_in = malloc(SCAN_MAX_N * sizeof(double));
	b.ref = (double *) malloc(SCAN_MAX_N * sizeof(double));
	if (b.host_in == NULL || b.ref == NULL)
	{
		fprintf(stderr, "kernel_bench: out of host memory\n");
		exit(2);
	}
	BENCH_CK(cudaStreamSynchronize(env->stream));

	printf("Data: uniform [0, 1) from a counter-based hash (seed %#llx), the same on every "
		   "device; sizes are elements; GB/s count the input read plus the output written, once "
		   "each.  The progression and CUB write the input's type (CUB widened: floats read as "
		   "doubles, double sums and outputs); the exact scan writes doubles "
		   "(for float input: 4 bytes read + 8 written per element), each the exact prefix sum "
		   "rounded once, and its timing includes the cudaMemsetAsync of its carry.  The "
		   "progression's scratch is allocated once; versions 6 and 7 reset their flags with a "
		   "cudaMemsetAsync inside each timed call.\n\n",
		   (unsigned long long) BENCH_SEED);

	scan_section_type<float>(env, &b);
	scan_section_type<double>(env, &b);

	free(b.ref);
	free(b.host_in);
	BENCH_CK(cudaFreeHost(b.host_out));
	BENCH_CK(cudaFree(b.cub_temp));
	BENCH_CK(cudaFree(b.carry));
	BENCH_CK(cudaFree(b.scratch));
	BENCH_CK(cudaFree(b.outs));
	BENCH_CK(cudaFree(b.pool));
}

#endif							/* GPUSCAN_BENCH_SCAN_CUH */
