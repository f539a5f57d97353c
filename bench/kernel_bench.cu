/*-------------------------------------------------------------------------
 *
 * kernel_bench.cu
 *	  Benchmarks of the kernels on device-resident data, beside CUB and a
 *	  device-to-device copy.  Every kernel is validated against the CPU
 *	  before it is timed; a kernel that fails is reported and not timed,
 *	  and the exit status is 1.
 *
 *	  kernel_bench              every section
 *	  kernel_bench reduce scan  the sections named
 *	  KERNEL_BENCH_LOG2="26 28" kernel_bench ...  only sizes 2^26 and 2^28
 *	  KERNEL_BENCH_SPMV_TUNE=1 kernel_bench spmv  also every SpMV group size
 *	  KERNEL_BENCH_SPMV_ROW_LEN=4 kernel_bench spmv  banded and uniform rows of 4
 *
 * Output is markdown on stdout (bench/run-kernels.sh keeps it under
 * bench/results/); progress goes to stderr.
 *
 * To add a section: write `static void section_NAME(bench_env *env)` (here
 * or in a bench/bench_NAME.cuh included below) and list it in `sections`
 * at the bottom of this file.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include <cub/device/device_reduce.cuh>

#include "bench_common.cuh"
#include "gpuscan_exact.h"
#include "gpuscan_course.h"

/* src/cpu/cpu_sum.c is compiled as C */
extern "C"
{
#include "cpu/cpu_sum.h"
}

/* ======================================================================
 * reduce: sums of float and double
 * ====================================================================== */

static const int reduce_log2_sizes[] = {20, 22, 24, 26, 28};
#define REDUCE_NSIZES	((int) (sizeof(reduce_log2_sizes) / sizeof(reduce_log2_sizes[0])))
#define REDUCE_MAX_N	((size_t) 1 << 28)
#define REDUCE_OUT_AT	0			/* offsets in the small output buffer */
#define REDUCE_RESULT_AT 64
#define REDUCE_SMALL	128

/* what differs between float and double */
template <typename T> struct reduce_type;

template <> struct reduce_type<float>
{
	static const int is_double = 0;
	static const char *name() { return "float"; }
	static const char *exact_name() { return "gsd_sum_exact_f32"; }
	static double unit_roundoff() { return 0x1p-24; }
	static void cpu_exact(const float *x, size_t n, gs_exact_acc *acc) { cpu_sum_exact_f32(x, n, acc); }
	static gsd_status gpu_exact(const float *d, size_t n, gs_exact_acc *acc, double *result)
	{
		return gsd_sum_exact_f32(d, n, acc, result);
	}
};

template <> struct reduce_type<double>
{
	static const int is_double = 1;
	static const char *name() { return "double"; }
	static const char *exact_name() { return "gsd_sum_exact_f64"; }
	static double unit_roundoff() { return 0x1p-53; }
	static void cpu_exact(const double *x, size_t n, gs_exact_acc *acc) { cpu_sum_exact_f64(x, n, acc); }
	static gsd_status gpu_exact(const double *d, size_t n, gs_exact_acc *acc, double *result)
	{
		return gsd_sum_exact_f64(d, n, acc, result);
	}
};

/* device and host buffers of the section, sized for the largest input */
typedef struct reduce_bufs
{
	void	   *pool;			/* inputs: REDUCE_MAX_N doubles, rotated copies */
	size_t		pool_bytes;
	void	   *copy_dst;		/* destination of the D2D copy */
	void	   *scratch;		/* of the progression; zeroed once */
	void	   *small;			/* T out[2] at REDUCE_OUT_AT, double at REDUCE_RESULT_AT */
	gs_exact_acc *acc;
	void	   *cub_temp;
	size_t		cub_temp_bytes;
	void	   *host;			/* host copy of the first REDUCE_MAX_N inputs */
} reduce_bufs;

enum reduce_kind
{
	REDUCE_VERSION,				/* gsd_reduce_progression(version) */
	REDUCE_EXACT,				/* memset of the accumulator + gsd_sum_exact_* */
	REDUCE_CUB,					/* cub::DeviceReduce::Sum */
	REDUCE_COPY					/* cudaMemcpyAsync device to device */
};

typedef struct reduce_kernel
{
	reduce_kind kind;
	int			version;
	std::string name;
} reduce_kernel;

/* reduce_kernels -- the rows of the tables */
template <typename T>
static std::vector<reduce_kernel>
reduce_kernels(void)
{
	std::vector<reduce_kernel> ks;

	for (int v = 1; v <= gsd_reduce_progression_count(); v++)
		ks.push_back({REDUCE_VERSION, v, bench_fmt("%d. %s", v, gsd_reduce_progression_name(v))});
	ks.push_back({REDUCE_EXACT, 0, bench_fmt("%s (exact; with memset)", reduce_type<T>::exact_name())});
	ks.push_back({REDUCE_CUB, 0, "cub::DeviceReduce::Sum"});
	ks.push_back({REDUCE_COPY, 0, "D2D copy (GB/s read + write)"});
	return ks;
}

/* reduce_enqueue -- one complete run of kernel k over in[0..n) */
template <typename T>
static void
reduce_enqueue(bench_env *env, const reduce_bufs *b, const reduce_kernel &k, const T *in, size_t n)
{
	T		   *out = (T *) ((char *) b->small + REDUCE_OUT_AT);
	double	   *result = (double *) ((char *) b->small + REDUCE_RESULT_AT);

	switch (k.kind)
	{
		case REDUCE_VERSION:
			BENCH_GSD(gsd_reduce_progression(k.version, reduce_type<T>::is_double, in, n,
											 out, b->scratch));
			break;
		case REDUCE_EXACT:
			BENCH_CK(cudaMemsetAsync(b->acc, 0, sizeof(gs_exact_acc), env->stream));
			BENCH_GSD(reduce_type<T>::gpu_exact(in, n, b->acc, result));
			break;
		case REDUCE_CUB:
			{
				size_t		temp_bytes = b->cub_temp_bytes;

				BENCH_CK(cub::DeviceReduce::Sum(b->cub_temp, temp_bytes, in, out, (int) n,
												env->stream));
				break;
			}
		case REDUCE_COPY:
			BENCH_CK(cudaMemcpyAsync(b->copy_dst, in, n * sizeof(T), cudaMemcpyDeviceToDevice,
									 env->stream));
			break;
	}
}

/*
 * reduce_result -- run kernel k once over in[0..n) into poisoned outputs
 * and return its sum as a double (for the copy: the exact sum of what
 * arrived).  *intact is cleared if anything wrote past the output scalar.
 */
template <typename T>
static double
reduce_result(bench_env *env, const reduce_bufs *b, const reduce_kernel &k, const T *in,
			  size_t n, int *intact)
{
	unsigned char h[REDUCE_SMALL];
	T			out[2];
	double		result;

	bench_poison(env, b->small, REDUCE_SMALL);
	if (k.kind == REDUCE_COPY)
		bench_poison(env, b->copy_dst, n * sizeof(T));
	reduce_enqueue<T>(env, b, k, in, n);
	if (k.kind == REDUCE_COPY)
	{
		BENCH_CK(cudaMemsetAsync(b->acc, 0, sizeof(gs_exact_acc), env->stream));
		BENCH_GSD(reduce_type<T>::gpu_exact((const T *) b->copy_dst, n, b->acc,
											(double *) ((char *) b->small + REDUCE_RESULT_AT)));
	}
	bench_download(env, h, b->small, REDUCE_SMALL);
	BENCH_CK(cudaGetLastError());
	memcpy(out, h + REDUCE_OUT_AT, sizeof(out));
	memcpy(&result, h + REDUCE_RESULT_AT, sizeof(result));

	/* the progression and CUB write out[0] and nothing else there */
	*intact = 1;
	for (size_t i = REDUCE_OUT_AT + sizeof(T); i < REDUCE_RESULT_AT; i++)
		if (h[i] != 0xff)
			*intact = 0;
	if (k.kind == REDUCE_EXACT || k.kind == REDUCE_COPY)
		return result;
	return (double) out[0];
}

/* reduce_references -- exact sums of host[0..ns[s]), rounded to double */
template <typename T>
static void
reduce_references(const T *host, const size_t *ns, int count, double *refs)
{
	gs_exact_acc acc;
	size_t		done = 0;

	gs_acc_zero(&acc);
	for (int s = 0; s < count; s++)
	{
		reduce_type<T>::cpu_exact(host + done, ns[s] - done, &acc);
		done = ns[s];
		refs[s] = gs_acc_round(&acc);
	}
}

/* reduce_same_bits -- a and b are the same double, bit for bit */
static int
reduce_same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

/*
 * reduce_cub_bound -- tolerance for CUB: gamma_h with h = 64 + 2 log2 n +
 * n / 16384, more roundings than CUB's tiles (16 items per thread, a few
 * thousand threads at least) and two block trees can put on one input.
 * Not a proof about CUB's internals; loose on purpose.
 */
static double
reduce_cub_bound(size_t n, double u)
{
	double		h = 64 + 2 * ceil(log2((double) n + 1)) + (double) n / 16384;

	return h * u / (1 - h * u);
}

/*
 * reduce_check -- validate kernel k on in[0..n) against ref (the exact
 * sum, rounded to double).  Integral data: every kernel exactly.  Uniform
 * data: the exact sum and the copy bit for bit; the progression within
 * its proven bound (gsd_reduce_progression_error_bound), CUB within
 * reduce_cub_bound.  Returns 1 if it passes; *rel_err gets the error.
 */
template <typename T>
static int
reduce_check(bench_env *env, const reduce_bufs *b, const reduce_kernel &k, const T *in,
			 size_t n, double ref, int integral, double *rel_err)
{
	int			intact;
	double		got = reduce_result<T>(env, b, k, in, n, &intact);
	double		err = fabs(got - ref);
	double		bound = 0;
	int			ok;
	const char *what;

	*rel_err = ref != 0 ? err / fabs(ref) : err;
	if (k.kind == REDUCE_EXACT || k.kind == REDUCE_COPY)
	{
		ok = reduce_same_bits(got, ref);
		what = "bit-exact";
	}
	else if (integral)
	{
		ok = got == ref;
		what = "exact (integral data)";
	}
	else
	{
		bound = k.kind == REDUCE_VERSION ?
			gsd_reduce_progression_error_bound(k.version, reduce_type<T>::is_double, n) :
			reduce_cub_bound(n, reduce_type<T>::unit_roundoff());
		/* the reference itself is rounded to double: half an ulp */
		ok = bound >= 0 && err <= (bound + 0x1p-53) * fabs(ref);
		what = "within bound";
	}
	if (!intact)
		ok = 0;
	if (!ok)
	{
		env->failures++;
		printf("- FAIL: sum of %s, n = %zu, %s: got %.17g, expected %.17g (%s; "
			   "relative error %.3g, bound %.3g)%s\n",
			   reduce_type<T>::name(), n, k.name.c_str(), got, ref, what, *rel_err, bound,
			   intact ? "" : "; wrote past the output scalar");
		fflush(stdout);
	}
	return ok;
}

/* reduce_section_type -- validate and time every kernel for one type */
template <typename T>
static void
reduce_section_type(bench_env *env, reduce_bufs *b)
{
	const char *tname = reduce_type<T>::name();
	std::vector<reduce_kernel> ks = reduce_kernels<T>();
	T		   *pool = (T *) b->pool;
	T		   *host = (T *) b->host;
	const size_t pool_elems = b->pool_bytes / sizeof(T);
	size_t		ns[REDUCE_NSIZES];
	double		refs[REDUCE_NSIZES];
	std::vector<std::vector<int>> bad(ks.size(), std::vector<int>(REDUCE_NSIZES, 0));
	std::vector<std::vector<double>> med(ks.size(), std::vector<double>(REDUCE_NSIZES, -1));
	bench_table gbs,
				times,
				errs;
	int			checks = 0,
				failed_before = env->failures;

	for (int s = 0; s < REDUCE_NSIZES; s++)
	{
		ns[s] = (size_t) 1 << reduce_log2_sizes[s];
		gbs.cols.push_back(bench_fmt("2^%d", reduce_log2_sizes[s]));
	}
	times.cols = errs.cols = gbs.cols;
	gbs.corner = times.corner = errs.corner = "kernel";
	gbs.title = bench_fmt("### sum of %s: GB/s of input read (median; µs at 2^%d)",
						  tname, reduce_log2_sizes[REDUCE_NSIZES - 1]);
	times.title = bench_fmt("### sum of %s: µs, median [min, max] of the timed runs", tname);
	errs.title = bench_fmt("### sum of %s: relative error against the exact sum (uniform data)",
						   tname);
	for (size_t i = 0; i < ks.size(); i++)
	{
		gbs.row(ks[i].name);
		times.row(ks[i].name);
		if (ks[i].kind != REDUCE_COPY)
			errs.row(ks[i].name);
	}

	/* 1. integral data, whose sum every order gets exactly: all kernels */
	fprintf(stderr, "reduce %s: exact check on integral data\n", tname);
	bench_fill<T>(env, pool, REDUCE_MAX_N, BENCH_SEED ^ 1, 1);
	bench_download(env, host, pool, REDUCE_MAX_N * sizeof(T));
	reduce_references<T>(host, ns, REDUCE_NSIZES, refs);
	for (int s = 0; s < REDUCE_NSIZES; s++)
	{
		if (!bench_size_wanted(reduce_log2_sizes[s]))
			continue;
		if (!reduce_type<T>::is_double && refs[s] >= 0x1p24)
		{
			printf("- note: integral float data sums to %.0f >= 2^24 at n = %zu; exact check skipped\n",
				   refs[s], ns[s]);
			continue;
		}
		for (size_t i = 0; i < ks.size(); i++)
		{
			double		rel;

			checks++;
			if (!reduce_check<T>(env, b, ks[i], pool, ns[s], refs[s], 1, &rel))
				bad[i][s] = 1;
		}
	}

	/* 2. uniform [0, 1) data: validate, then time */
	bench_fill<T>(env, pool, pool_elems, BENCH_SEED, 0);
	bench_download(env, host, pool, REDUCE_MAX_N * sizeof(T));
	fprintf(stderr, "reduce %s: CPU references\n", tname);
	reduce_references<T>(host, ns, REDUCE_NSIZES, refs);
	for (int s = 0; s < REDUCE_NSIZES; s++)
	{
		const size_t n = ns[s];
		const size_t bytes = n * sizeof(T);
		const int	copies = bench_rotation(env, bytes, pool_elems / n);
		const bool	last = s == REDUCE_NSIZES - 1;

		if (!bench_size_wanted(reduce_log2_sizes[s]))
			continue;
		for (size_t i = 0; i < ks.size(); i++)
		{
			const reduce_kernel &k = ks[i];
			double		rel;
			bench_timing t;
			double		rate;

			if (!bad[i][s])
			{
				checks++;
				if (!reduce_check<T>(env, b, k, pool, n, refs[s], 0, &rel))
					bad[i][s] = 1;
				if (k.kind != REDUCE_COPY)
					errs.set(k.name, s, bench_fmt("%.1e", rel));
			}
			if (bad[i][s])
			{
				gbs.set(k.name, s, "FAIL");
				times.set(k.name, s, "FAIL");
				if (k.kind != REDUCE_COPY)
					errs.set(k.name, s, "FAIL");
				continue;
			}
			if (k.kind == REDUCE_COPY)
				t = bench_time_d2d_copy(env, b->copy_dst, pool, bytes, bytes, copies);
			else
				t = bench_time(env, copies, [&](int c) {
					reduce_enqueue<T>(env, b, k, pool + (size_t) c * n, n);
				});
			med[i][s] = t.median_us;
			rate = bench_gbs(k.kind == REDUCE_COPY ? 2.0 * bytes : (double) bytes, t.median_us);
			gbs.set(k.name, s, last ? bench_fmt("%.0f (%.0f µs)", rate, t.median_us)
					: bench_fmt("%.0f", rate));
			times.set(k.name, s, bench_fmt("%.1f [%.1f, %.1f]", t.median_us, t.min_us, t.max_us));
			fprintf(stderr, "reduce %s 2^%d %-40s %10.1f us %7.0f GB/s  (%d runs, %d copies)\n",
					tname, reduce_log2_sizes[s], k.name.c_str(), t.median_us, rate, t.reps,
					t.copies);
		}
	}

	/* the production sum against CUB, per size */
	{
		size_t		ie = 0,
					ic = 0;
		std::string row = bench_fmt("time %s / CUB", reduce_type<T>::exact_name());

		for (size_t i = 0; i < ks.size(); i++)
		{
			if (ks[i].kind == REDUCE_EXACT)
				ie = i;
			if (ks[i].kind == REDUCE_CUB)
				ic = i;
		}
		for (int s = 0; s < REDUCE_NSIZES; s++)
			if (bench_size_wanted(reduce_log2_sizes[s]))
				gbs.set(row, s, (med[ie][s] > 0 && med[ic][s] > 0) ?
						bench_fmt("%.2f×", med[ie][s] / med[ic][s]) : std::string("—"));
	}

	gbs.print(stdout);
	times.print(stdout);
	errs.print(stdout);
	printf("Validation, %s: %d checks, %d failed (integral data: every kernel exact; "
		   "uniform data: exact sum and copy bit for bit, progression within its error bound, "
		   "CUB within a loose bound).\n\n",
		   tname, checks, env->failures - failed_before);
	fflush(stdout);
}

/* section_reduce -- sums of 2^20 .. 2^28 floats and doubles */
static void
section_reduce(bench_env *env)
{
	reduce_bufs b;

	memset(&b, 0, sizeof(b));
	b.pool_bytes = REDUCE_MAX_N * sizeof(double);
	BENCH_CK(cudaMalloc(&b.pool, b.pool_bytes));
	BENCH_CK(cudaMalloc(&b.copy_dst, REDUCE_MAX_N * sizeof(double)));
	{
		size_t		sb = std::max(gsd_reduce_progression_scratch_bytes(1, REDUCE_MAX_N),
								  gsd_reduce_progression_scratch_bytes(0, REDUCE_MAX_N));

		BENCH_CK(cudaMalloc(&b.scratch, sb));
		BENCH_CK(cudaMemsetAsync(b.scratch, 0, sb, env->stream));
	}
	BENCH_CK(cudaMalloc(&b.small, REDUCE_SMALL));
	BENCH_CK(cudaMalloc((void **) &b.acc, sizeof(gs_exact_acc)));
	for (int s = 0; s < REDUCE_NSIZES; s++)
	{
		size_t		n = (size_t) 1 << reduce_log2_sizes[s];
		size_t		tf = 0,
					td = 0;

		BENCH_CK(cub::DeviceReduce::Sum(NULL, tf, (const float *) NULL, (float *) NULL, (int) n,
										env->stream));
		BENCH_CK(cub::DeviceReduce::Sum(NULL, td, (const double *) NULL, (double *) NULL, (int) n,
										env->stream));
		b.cub_temp_bytes = std::max(b.cub_temp_bytes, std::max(tf, td));
	}
	BENCH_CK(cudaMalloc(&b.cub_temp, std::max(b.cub_temp_bytes, (size_t) 1)));
	b.host = malloc(REDUCE_MAX_N * sizeof(double));
	if (b.host == NULL)
	{
		fprintf(stderr, "kernel_bench: out of host memory\n");
		exit(2);
	}
	BENCH_CK(cudaStreamSynchronize(env->stream));

	printf("Data: uniform [0, 1) from a counter-based hash (seed %#llx), the same on every "
		   "device; sizes are elements, GB/s count the input bytes read (the copy: read + write). "
		   "Sums of float are computed in float (the progression, CUB) or exactly "
		   "(gsd_sum_exact_f32, rounded once to double).\n\n",
		   (unsigned long long) BENCH_SEED);

	reduce_section_type<float>(env, &b);
	reduce_section_type<double>(env, &b);

	free(b.host);
	BENCH_CK(cudaFree(b.cub_temp));
	BENCH_CK(cudaFree(b.acc));
	BENCH_CK(cudaFree(b.small));
	BENCH_CK(cudaFree(b.scratch));
	BENCH_CK(cudaFree(b.copy_dst));
	BENCH_CK(cudaFree(b.pool));
}

/* ======================================================================
 * scan: inclusive prefix sums of float and double (bench_scan.cuh)
 * ====================================================================== */

#include "bench_scan.cuh"

/* ======================================================================
 * compact: stream compaction of float and double (bench_compact.cuh)
 * ====================================================================== */

#include "bench_compact.cuh"

/* ======================================================================
 * spmv: sparse matrix x vector and PageRank (bench_spmv.cuh)
 * ====================================================================== */

#include <chrono>

#include "bench_spmv.cuh"

/* ======================================================================
 * sections and main
 * ====================================================================== */

static const bench_section sections[] = {
	{"reduce", "sums of float and double: the reduction progression, the exact sum, CUB, D2D copy",
	section_reduce},
	{"scan", "inclusive prefix sums of float and double: the scan progression, the exact scan, "
	 "CUB, D2D copy", section_scan},
	{"compact", "stream compaction of float and double, keeping 1/17, 1/2, 30/31: the "
	 "three-step pipeline by phase, the fused kernels, CUB, D2D copy", section_compact},
	{"spmv", "y = A x on banded, uniform and R-MAT matrices of 2^26 non-zeros, float and double: "
	 "the production kernel, the course reference, cuSPARSE; PageRank GPU vs CPU", section_spmv},
};

#define NSECTIONS ((int) (sizeof(sections) / sizeof(sections[0])))

static void
usage(FILE *f)
{
	fprintf(f, "usage: kernel_bench [SECTION ...]   (no SECTION: all of them)\n");
	fprintf(f, "  (KERNEL_BENCH_LOG2=\"26 28\": only those sizes, as log2 of the elements)\n");
	fprintf(f, "  (KERNEL_BENCH_SPMV_TUNE=1: spmv also times every group size G)\n");
	fprintf(f, "  (KERNEL_BENCH_SPMV_ROW_LEN=L: banded and uniform rows of L entries, 1 to 256)\n");
	for (int i = 0; i < NSECTIONS; i++)
		fprintf(f, "  %-10s %s\n", sections[i].name, sections[i].what);
}

int
main(int argc, char **argv)
{
	static bench_env env;
	std::vector<const bench_section *> todo;

	for (int a = 1; a < argc; a++)
	{
		const bench_section *found = NULL;

		if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0)
		{
			usage(stdout);
			return 0;
		}
		for (int i = 0; i < NSECTIONS; i++)
			if (strcmp(argv[a], sections[i].name) == 0)
				found = &sections[i];
		if (found == NULL)
		{
			fprintf(stderr, "kernel_bench: no section \"%s\"\n", argv[a]);
			usage(stderr);
			return 2;
		}
		todo.push_back(found);
	}
	if (todo.empty())
		for (int i = 0; i < NSECTIONS; i++)
			todo.push_back(&sections[i]);

	bench_init(&env);
	bench_print_header(&env, argc, argv);
	for (size_t i = 0; i < todo.size(); i++)
	{
		printf("## %s\n\n", todo[i]->name);
		fflush(stdout);
		todo[i]->run(&env);
	}
	printf("%s: %d validation failure%s\n", env.failures ? "FAILED" : "ok", env.failures,
		   env.failures == 1 ? "" : "s");
	return env.failures ? 1 : 0;
}
