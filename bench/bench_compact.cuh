/*-------------------------------------------------------------------------
 *
 * bench_compact.cuh
 *	  The "compact" section of kernel_bench: stream compaction of 2^20 ..
 *	  2^28 floats and doubles by flag bytes, keeping 1 in 17, a random
 *	  half, or 30 in 31, by every version of the compaction progression,
 *	  the production gsd_compact_*, CUB's DeviceSelect::Flagged and a
 *	  device-to-device copy; and the course's analysis: the time of each
 *	  phase of the three-step pipeline against the fused kernel, keeping
 *	  few or many.  Included by kernel_bench.cu only.
 *
 * Every kernel is validated at every size and ratio before it is timed,
 * on the first copy of the input, into a poisoned output: the count and
 * every kept value bit for bit against the CPU compaction, nothing written
 * past the count.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_BENCH_COMPACT_CUH
#define GPUSCAN_BENCH_COMPACT_CUH

#include <cub/device/device_select.cuh>

#include "bench_common.cuh"
#include "gpuscan_course.h"

extern "C"
{
#include "cpu/cpu_compact.h"
}

static const int compact_log2_sizes[] = {20, 22, 24, 26, 28};
#define COMPACT_NSIZES	((int) (sizeof(compact_log2_sizes) / sizeof(compact_log2_sizes[0])))
#define COMPACT_MAX_N	((size_t) 1 << 28)
#define COMPACT_GUARD	64

/* the keep ratios: the course's keep-few and keep-many, and a random half */
#define COMPACT_NRATIOS 3
static const char *const compact_ratio_names[COMPACT_NRATIOS] = {
	"1/17 (every 17th)", "1/2 (random)", "30/31 (all but every 31st)"
};

/* compact_flags_kernel -- keep[i] by ratio r (see compact_ratio_names) */
__global__ void
compact_flags_kernel(uint8_t *keep, size_t n, int r)
{
	for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
		keep[i] = r == 0 ? (i + 1) % 17 == 0
			: r == 1 ? (bench_hash(BENCH_SEED ^ 7, i) >> 63) != 0
			: (i + 1) % 31 != 0;
}

/* the rows of the tables */
enum compact_kind
{
	COMPACT_VERSION,			/* gsd_compact_progression(version) */
	COMPACT_PRODUCTION,			/* gsd_compact_f32 / _f64 */
	COMPACT_CUB,				/* cub::DeviceSelect::Flagged */
	COMPACT_COPY				/* cudaMemcpyAsync of the values */
};

typedef struct compact_kernel
{
	std::string name;
	compact_kind kind;
	int			version;
} compact_kernel;

/* the buffers of the section */
typedef struct compact_bufs
{
	void	   *vals;			/* COMPACT_MAX_N doubles (or twice as many floats) */
	uint8_t    *keep;			/* COMPACT_MAX_N flags */
	void	   *outs;			/* COMPACT_MAX_N + COMPACT_GUARD doubles */
	uint64_t   *count;
	int		   *cub_count;
	void	   *scratch;
	void	   *cub_temp;
	size_t		cub_temp_bytes;
	char	   *host_vals;
	uint8_t    *host_keep;
	char	   *host_want;
	char	   *host_got;
} compact_bufs;

/* compact_kernels -- the kernels of one type */
template <typename T>
static std::vector<compact_kernel>
compact_kernels()
{
	std::vector<compact_kernel> ks;

	for (int v = 1; v <= gsd_compact_progression_count(); v++)
		ks.push_back({gsd_compact_progression_name(v), COMPACT_VERSION, v});
	ks.push_back({sizeof(T) == 8 ? "gsd_compact_f64" : "gsd_compact_f32", COMPACT_PRODUCTION, 0});
	ks.push_back({"cub::DeviceSelect::Flagged", COMPACT_CUB, 0});
	ks.push_back({"D2D copy of the values", COMPACT_COPY, 0});
	return ks;
}

/* compact_enqueue -- one run of kernel k on n elements at vals/keep into out */
template <typename T>
static void
compact_enqueue(bench_env *env, compact_bufs *b, const compact_kernel &k, const T *vals,
				const uint8_t *keep, T *out, size_t n)
{
	const int	is_double = sizeof(T) == 8;

	switch (k.kind)
	{
		case COMPACT_VERSION:
			BENCH_GSD(gsd_compact_progression(k.version, is_double, vals, keep, n, out,
											  b->count, b->scratch));
			break;
		case COMPACT_PRODUCTION:
			if (is_double)
				BENCH_GSD(gsd_compact_f64((const double *) vals, keep, n, (double *) out, b->count));
			else
				BENCH_GSD(gsd_compact_f32((const float *) vals, keep, n, (float *) out, b->count));
			break;
		case COMPACT_CUB:
			{
				size_t		bytes = b->cub_temp_bytes;

				BENCH_CK(cub::DeviceSelect::Flagged(b->cub_temp, bytes, vals, keep, out,
													b->cub_count, (int) n, env->stream));
			}
			break;
		case COMPACT_COPY:
			BENCH_CK(cudaMemcpyAsync(out, vals, n * sizeof(T), cudaMemcpyDeviceToDevice,
									 env->stream));
			break;
	}
}

/* compact_check -- run k once on the first copy and compare with the CPU */
template <typename T>
static bool
compact_check(bench_env *env, compact_bufs *b, const compact_kernel &k, size_t n,
			  size_t want_count)
{
	const size_t bytes = (n + COMPACT_GUARD) * sizeof(T);
	uint64_t	count = 0;

	bench_poison(env, b->outs, bytes);
	compact_enqueue<T>(env, b, k, (const T *) b->vals, b->keep, (T *) b->outs, n);
	if (k.kind == COMPACT_CUB)
	{
		int			c = 0;

		bench_download(env, &c, b->cub_count, sizeof(c));
		count = (uint64_t) c;
	}
	else if (k.kind == COMPACT_COPY)
		count = n;
	else
		bench_download(env, &count, b->count, sizeof(count));
	bench_download(env, b->host_got, b->outs, bytes);
	if (k.kind == COMPACT_COPY)
		return memcmp(b->host_got, b->host_vals, n * sizeof(T)) == 0;
	if (count != want_count ||
		memcmp(b->host_got, b->host_want, want_count * sizeof(T)) != 0)
	{
		fprintf(stderr, "compact: %s on %zu elements: count %llu (want %zu) or values differ\n",
				k.name.c_str(), n, (unsigned long long) count, want_count);
		return false;
	}
	for (size_t j = want_count * sizeof(T); j < bytes; j++)
		if ((unsigned char) b->host_got[j] != 0xff)
		{
			fprintf(stderr, "compact: %s on %zu elements wrote past the count\n",
					k.name.c_str(), n);
			return false;
		}
	return true;
}

/* compact_cpu -- the CPU's result for the first n elements */
template <typename T>
static size_t
compact_cpu(compact_bufs *b, size_t n)
{
	if (sizeof(T) == 8)
		return cpu_compact_f64((const double *) b->host_vals, b->host_keep, n,
							   (double *) b->host_want);
	return cpu_compact_f32((const float *) b->host_vals, b->host_keep, n,
						   (float *) b->host_want);
}

/*
 * compact_phases -- the course's analysis at n elements: each phase of the
 * three-step pipeline timed alone, its total, and the fused kernel
 */
template <typename T>
static void
compact_phases(bench_env *env, compact_bufs *b, bench_table *tab, const std::string &row, size_t n)
{
	const int	is_double = sizeof(T) == 8;
	const T    *vals = (const T *) b->vals;
	T		   *out = (T *) b->outs;
	double		total = 0;

	for (int phase = 1; phase <= 3; phase++)
	{
		bench_timing t;

		/* the earlier phases once, so that this one reads what they left */
		for (int p = 1; p < phase; p++)
			BENCH_GSD(gsd_compact_three_step_phase(p, is_double, vals, b->keep, n, out,
												   b->count, b->scratch));
		t = bench_time(env, 1, [&](int c) {
			BENCH_GSD(gsd_compact_three_step_phase(phase, is_double, vals, b->keep, n, out,
												   b->count, b->scratch));
		});
		total += t.median_us;
		tab->set(row, phase - 1, bench_fmt("%.1f", t.median_us));
	}
	tab->set(row, 3, bench_fmt("%.1f", total));
	{
		bench_timing t = bench_time(env, 1, [&](int c) {
			if (is_double)
				BENCH_GSD(gsd_compact_f64((const double *) vals, b->keep, n, (double *) out, b->count));
			else
				BENCH_GSD(gsd_compact_f32((const float *) vals, b->keep, n, (float *) out, b->count));
		});

		tab->set(row, 4, bench_fmt("%.1f", t.median_us));
		tab->set(row, 5, bench_fmt("%.2f×", total / t.median_us));
	}
}

/* compact_section_type -- validate and time every kernel for one type */
template <typename T>
static void
compact_section_type(bench_env *env, compact_bufs *b)
{
	const char *tname = sizeof(T) == 8 ? "double" : "float";
	std::vector<compact_kernel> ks = compact_kernels<T>();
	bench_table phases;
	int			checks = 0,
				failed_before = env->failures;

	bench_fill<T>(env, (T *) b->vals, COMPACT_MAX_N, BENCH_SEED, 0);
	bench_download(env, b->host_vals, b->vals, COMPACT_MAX_N * sizeof(T));
	phases.title = bench_fmt("### compaction of 2^%d %ss, the course's analysis: µs per phase "
							 "of the three-step pipeline against the fused production kernel",
							 compact_log2_sizes[COMPACT_NSIZES - 1], tname);
	phases.corner = "kept";
	phases.cols = {"1 predicate", "2 scan", "3 scatter", "three steps", "fused", "fused speed-up"};

	for (int r = 0; r < COMPACT_NRATIOS; r++)
	{
		bench_table gbs;
		std::vector<double> prod(COMPACT_NSIZES, -1),
					cub(COMPACT_NSIZES, -1);

		compact_flags_kernel<<<1024, 256, 0, env->stream>>>(b->keep, COMPACT_MAX_N, r);
		BENCH_CK_LAUNCH();
		bench_download(env, b->host_keep, b->keep, COMPACT_MAX_N);
		gbs.title = bench_fmt("### compaction of %s, keeping %s: GB/s of values + flags read "
							  "and kept values written (median; µs at 2^%d)",
							  tname, compact_ratio_names[r],
							  compact_log2_sizes[COMPACT_NSIZES - 1]);
		gbs.corner = "kernel";
		for (int s = 0; s < COMPACT_NSIZES; s++)
			gbs.cols.push_back(bench_fmt("2^%d", compact_log2_sizes[s]));
		for (size_t i = 0; i < ks.size(); i++)
			gbs.row(ks[i].name);

		for (int s = 0; s < COMPACT_NSIZES; s++)
		{
			const size_t n = (size_t) 1 << compact_log2_sizes[s];
			const bool	last = s == COMPACT_NSIZES - 1;
			size_t		want;
			int			copies;

			if (!bench_size_wanted(compact_log2_sizes[s]))
				continue;
			want = compact_cpu<T>(b, n);
			copies = bench_rotation(env, n * (2 * sizeof(T) + 1), COMPACT_MAX_N / n);
			for (size_t i = 0; i < ks.size(); i++)
			{
				const compact_kernel &k = ks[i];
				const size_t kept_bytes = (k.kind == COMPACT_COPY ? n : want) * sizeof(T);
				const double bytes = (double) n * sizeof(T) +
					(k.kind == COMPACT_COPY ? 0 : n) + kept_bytes;
				bench_timing t;
				double		rate;

				checks++;
				if (!compact_check<T>(env, b, k, n, want))
				{
					env->failures++;
					gbs.set(k.name, s, "FAIL");
					continue;
				}
				t = bench_time(env, copies, [&](int c) {
					compact_enqueue<T>(env, b, k, (const T *) b->vals + (size_t) c * n,
									   b->keep + (size_t) c * n, (T *) b->outs + (size_t) c * n, n);
				});
				rate = bench_gbs(bytes, t.median_us);
				gbs.set(k.name, s, last ? bench_fmt("%.0f (%.0f µs)", rate, t.median_us)
						: bench_fmt("%.0f", rate));
				if (k.kind == COMPACT_PRODUCTION)
					prod[s] = t.median_us;
				if (k.kind == COMPACT_CUB)
					cub[s] = t.median_us;
				fprintf(stderr, "compact %s %s 2^%d %-28s %10.1f us %7.0f GB/s (%d runs, %d copies)\n",
						tname, compact_ratio_names[r], compact_log2_sizes[s], k.name.c_str(),
						t.median_us, rate, t.reps, t.copies);
			}
			gbs.set("speed of production / CUB", s,
					prod[s] > 0 && cub[s] > 0 ? bench_fmt("%.2f×", cub[s] / prod[s]) : "—");
			if (last)
				compact_phases<T>(env, b, &phases, compact_ratio_names[r], n);
		}
		gbs.print(stdout);
	}
	if (bench_size_wanted(compact_log2_sizes[COMPACT_NSIZES - 1]))
		phases.print(stdout);
	printf("Validation, %s: %d checks, %d failed (count and every kept value bit for bit "
		   "against the CPU; nothing written past the count).\n\n",
		   tname, checks, env->failures - failed_before);
	fflush(stdout);
}

/* section_compact -- stream compaction of 2^20 .. 2^28 floats and doubles */
static void
section_compact(bench_env *env)
{
	compact_bufs b;
	size_t		out_bytes = (COMPACT_MAX_N + COMPACT_GUARD) * sizeof(double);

	memset(&b, 0, sizeof(b));
	BENCH_CK(cudaMalloc(&b.vals, COMPACT_MAX_N * sizeof(double)));
	BENCH_CK(cudaMalloc((void **) &b.keep, COMPACT_MAX_N));
	BENCH_CK(cudaMalloc(&b.outs, out_bytes));
	BENCH_CK(cudaMalloc((void **) &b.count, sizeof(uint64_t)));
	BENCH_CK(cudaMalloc((void **) &b.cub_count, sizeof(int)));
	BENCH_CK(cudaMalloc(&b.scratch, gsd_compact_progression_scratch_bytes(COMPACT_MAX_N)));
	for (int s = 0; s < COMPACT_NSIZES; s++)
	{
		size_t		tf = 0,
					td = 0;
		int			n = 1 << compact_log2_sizes[s];

		BENCH_CK(cub::DeviceSelect::Flagged(NULL, tf, (const float *) NULL, (const uint8_t *) NULL,
											(float *) NULL, (int *) NULL, n, env->stream));
		BENCH_CK(cub::DeviceSelect::Flagged(NULL, td, (const double *) NULL, (const uint8_t *) NULL,
											(double *) NULL, (int *) NULL, n, env->stream));
		b.cub_temp_bytes = std::max(b.cub_temp_bytes, std::max(tf, td));
	}
	BENCH_CK(cudaMalloc(&b.cub_temp, std::max(b.cub_temp_bytes, (size_t) 1)));
	b.host_vals = (char *) malloc(COMPACT_MAX_N * sizeof(double));
	b.host_keep = (uint8_t *) malloc(COMPACT_MAX_N);
	b.host_want = (char *) malloc(out_bytes + sizeof(double));
	BENCH_CK(cudaMallocHost((void **) &b.host_got, out_bytes));
	if (b.host_vals == NULL || b.host_keep == NULL || b.host_want == NULL)
	{
		fprintf(stderr, "kernel_bench: out of host memory\n");
		exit(2);
	}

	printf("Data: uniform [0, 1) values from a counter-based hash (seed %#llx); flags are bytes "
		   "(0 or 1).  GB/s count the values and flags read once and the kept values written "
		   "once (the copy: the values read and written).  Inputs and outputs rotate over "
		   "copies where they would fit in L2.  Version 1's scratch is allocated once; the "
		   "fused versions reset their tile flags with a cudaMemsetAsync inside each timed "
		   "call; the production functions also take their scratch from the stream-ordered "
		   "pool in each call.\n\n", (unsigned long long) BENCH_SEED);

	compact_section_type<float>(env, &b);
	compact_section_type<double>(env, &b);

	free(b.host_vals);
	free(b.host_keep);
	free(b.host_want);
	BENCH_CK(cudaFreeHost(b.host_got));
	BENCH_CK(cudaFree(b.cub_temp));
	BENCH_CK(cudaFree(b.scratch));
	BENCH_CK(cudaFree(b.cub_count));
	BENCH_CK(cudaFree(b.count));
	BENCH_CK(cudaFree(b.outs));
	BENCH_CK(cudaFree(b.keep));
	BENCH_CK(cudaFree(b.vals));
}

#endif							/* GPUSCAN_BENCH_COMPACT_CUH */
