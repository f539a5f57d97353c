/*-------------------------------------------------------------------------
 *
 * bench_common.cuh
 *	  What every section of kernel_bench shares: error checks, the device
 *	  header, event timing with rotating inputs, random device data, and
 *	  markdown tables.  Included by kernel_bench.cu only (one translation
 *	  unit), so everything here is static.
 *
 * Timing method: every measured operation is enqueued on the process's
 * stream (gsd_stream()), as the extension runs it.  A few warm-up runs
 * come first; then many runs back to back, each between two events, and
 * the median is reported.  Where the inputs would fit in L2, runs rotate
 * over several copies of the input, together at least 4x the L2 size, so
 * that each run reads from device memory as a cold call would.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_BENCH_COMMON_CUH
#define GPUSCAN_BENCH_COMMON_CUH

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "gpuscan_device.h"
#include "device_internal.cuh"

/* ---- error checks: a broken benchmark stops (exit 2) ---- */

#define BENCH_CK(call) \
	do { cudaError_t e_ = (call); \
		 if (e_ != cudaSuccess) { \
			 fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, \
					 cudaGetErrorString(e_), cudaGetErrorName(e_)); \
			 exit(2); } } while (0)

#define BENCH_GSD(call) \
	do { gsd_status s_ = (call); \
		 if (s_ != GSD_OK) { \
			 fprintf(stderr, "%s:%d: %s: status %d: %s\n", __FILE__, __LINE__, #call, \
					 (int) s_, gsd_last_error()); \
			 exit(2); } } while (0)

#define BENCH_CK_LAUNCH() BENCH_CK(cudaGetLastError())

/* ---- timing parameters ---- */

#define BENCH_WARMUP		3		/* untimed runs first */
#define BENCH_MIN_REPS		20		/* timed runs: at least */
#define BENCH_MAX_REPS		1000	/* ... at most */
#define BENCH_TARGET_MS		100.0	/* ... about this much device time per cell */
#define BENCH_MAX_BUFS		64		/* most rotating copies of an input */
#define BENCH_L2_FACTOR		4		/* rotate over at least this many L2 sizes */

/* ---- the environment of a run ---- */

typedef struct bench_env
{
	cudaStream_t stream;		/* gsd_stream(): all measured work goes here */
	cudaDeviceProp prop;
	size_t		l2_bytes;
	int			failures;		/* validation failures: exit status 1 */
	cudaEvent_t events[BENCH_MAX_REPS + 1];
} bench_env;

/* bench_fmt -- printf into a std::string */
static std::string
bench_fmt(const char *fmt,...)
{
	char		buf[512];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return std::string(buf);
}

/* bench_version -- 13000 as "13.0" */
static std::string
bench_version(int v)
{
	return bench_fmt("%d.%d", v / 1000, (v % 1000) / 10);
}

/* bench_init -- open device 0 through the extension's device layer */
static void
bench_init(bench_env *env)
{
	int			count = 0;

	memset(env, 0, sizeof(*env));
	BENCH_GSD(gsd_device_count(&count));
	if (count < 1)
	{
		fprintf(stderr, "kernel_bench: no CUDA device\n");
		exit(2);
	}
	BENCH_GSD(gsd_open(0));
	env->stream = gsd_stream();
	BENCH_CK(cudaGetDeviceProperties(&env->prop, 0));
	env->l2_bytes = (size_t) env->prop.l2CacheSize;
	for (int i = 0; i <= BENCH_MAX_REPS; i++)
		BENCH_CK(cudaEventCreate(&env->events[i]));
}

/* bench_print_header -- device, versions, date and command line */
static void
bench_print_header(bench_env *env, int argc, char **argv)
{
	int			runtime = 0,
				driver = 0,
				sm_khz = 0,
				mem_khz = 0,
				bus_bits = 0;
	char		date[64];
	time_t		now = time(NULL);
	std::string cmd;

	BENCH_CK(cudaRuntimeGetVersion(&runtime));
	BENCH_CK(cudaDriverGetVersion(&driver));
	/* clocks are informational: some drivers report 0 or refuse */
	if (cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0) != cudaSuccess)
		sm_khz = 0;
	if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0) != cudaSuccess)
		mem_khz = 0;
	if (cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) != cudaSuccess)
		bus_bits = 0;
	(void) cudaGetLastError();
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	for (int i = 0; i < argc; i++)
	{
		if (i > 0)
			cmd += " ";
		cmd += argv[i];
	}

	printf("# gpuscan kernel benchmarks\n\n");
	printf("- device: %s, compute capability %d.%d, %d SMs, L2 %.0f MiB, %.1f GiB\n",
		   env->prop.name, env->prop.major, env->prop.minor, env->prop.multiProcessorCount,
		   env->l2_bytes / 1048576.0, env->prop.totalGlobalMem / 1073741824.0);
	if (sm_khz > 0 || mem_khz > 0)
		printf("- clocks: SM %d MHz, memory %d MHz, bus %d bit%s\n",
			   sm_khz / 1000, mem_khz / 1000, bus_bits,
			   (mem_khz > 0 && bus_bits > 0) ?
			   bench_fmt(" (peak %.0f GB/s)", 2.0 * mem_khz * 1e3 * (bus_bits / 8) / 1e9).c_str() : "");
	printf("- CUDA runtime %s, driver supports CUDA %s\n",
		   bench_version(runtime).c_str(), bench_version(driver).c_str());
	printf("- date: %s\n", date);
	printf("- command: `%s`\n", cmd.c_str());
	printf("- timing: median of %d..%d runs (about %.0f ms each cell) after %d warm-up runs, "
		   "each between two events on the extension's stream; inputs rotate over copies "
		   "totalling >= %dx L2 where one would fit\n\n",
		   BENCH_MIN_REPS, BENCH_MAX_REPS, BENCH_TARGET_MS, BENCH_WARMUP, BENCH_L2_FACTOR);
	fflush(stdout);
}

/* ---- rotating inputs ---- */

/*
 * bench_rotation -- how many copies of an input of `bytes` to rotate over:
 * enough to span BENCH_L2_FACTOR x L2 (plus one), at most max_copies
 * (what the caller has room for) and BENCH_MAX_BUFS; 1 for big inputs.
 */
static int
bench_rotation(const bench_env *env, size_t bytes, size_t max_copies)
{
	size_t		want;

	if (bytes == 0 || bytes >= BENCH_L2_FACTOR * env->l2_bytes)
		return 1;
	want = (BENCH_L2_FACTOR * env->l2_bytes + bytes - 1) / bytes + 1;
	want = std::min(want, (size_t) BENCH_MAX_BUFS);
	want = std::min(want, max_copies);
	return want > 0 ? (int) want : 1;
}

/* ---- timing ---- */

typedef struct bench_timing
{
	double		median_us;
	double		min_us;
	double		max_us;
	int			reps;
	int			copies;			/* inputs rotated over */
} bench_timing;

/*
 * bench_time -- time run(copy), which enqueues one complete operation on
 * env->stream reading input copy `copy` (0 .. copies-1).  Warm-up, an
 * estimate to choose the number of runs, then runs back to back with an
 * event between consecutive runs; median, min and max in microseconds.
 */
template <typename F>
static bench_timing
bench_time(bench_env *env, int copies, F run)
{
	bench_timing t;
	std::vector<float> ms;
	float		est_ms = 0;
	int			reps;
	int			next = 0;

	for (int i = 0; i < BENCH_WARMUP; i++)
		run(next++ % copies);
	BENCH_CK(cudaStreamSynchronize(env->stream));
	BENCH_CK(cudaGetLastError());

	/* estimate from a few runs between one pair of events */
	BENCH_CK(cudaEventRecord(env->events[0], env->stream));
	for (int i = 0; i < 5; i++)
		run(next++ % copies);
	BENCH_CK(cudaEventRecord(env->events[1], env->stream));
	BENCH_CK(cudaEventSynchronize(env->events[1]));
	BENCH_CK(cudaEventElapsedTime(&est_ms, env->events[0], env->events[1]));
	est_ms /= 5;
	reps = est_ms > 0 ? (int) (BENCH_TARGET_MS / est_ms) : BENCH_MAX_REPS;
	reps = std::max(BENCH_MIN_REPS, std::min(BENCH_MAX_REPS, reps));

	BENCH_CK(cudaEventRecord(env->events[0], env->stream));
	for (int i = 0; i < reps; i++)
	{
		run(next++ % copies);
		BENCH_CK(cudaEventRecord(env->events[i + 1], env->stream));
	}
	BENCH_CK(cudaEventSynchronize(env->events[reps]));
	BENCH_CK(cudaGetLastError());
	for (int i = 0; i < reps; i++)
	{
		float		e;

		BENCH_CK(cudaEventElapsedTime(&e, env->events[i], env->events[i + 1]));
		ms.push_back(e);
	}
	std::sort(ms.begin(), ms.end());
	t.median_us = 1e3 * (reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]));
	t.min_us = 1e3 * ms.front();
	t.max_us = 1e3 * ms.back();
	t.reps = reps;
	t.copies = copies;
	return t;
}

/*
 * bench_time_d2d_copy -- the memory-bandwidth baseline: cudaMemcpyAsync
 * device to device of `bytes` from copy k of the input (src + k * stride)
 * into dst.  Report 2 * bytes / time (read plus write).
 */
static bench_timing
bench_time_d2d_copy(bench_env *env, void *dst, const void *src, size_t bytes,
					size_t stride, int copies)
{
	return bench_time(env, copies, [&](int k) {
		BENCH_CK(cudaMemcpyAsync(dst, (const char *) src + (size_t) k * stride, bytes,
								 cudaMemcpyDeviceToDevice, env->stream));
	});
}

/* bench_gbs -- GB/s (1e9 bytes per second) of `bytes` in `us` microseconds */
static double
bench_gbs(double bytes, double us)
{
	return us > 0 ? bytes / us / 1e3 : 0.0;
}

/* ---- transfers ---- */

/* bench_download -- device to host on the stream, and wait */
static void
bench_download(bench_env *env, void *host, const void *dev, size_t bytes)
{
	BENCH_CK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, env->stream));
	BENCH_CK(cudaStreamSynchronize(env->stream));
}

/* bench_poison -- fill device bytes with 0xff (a NaN in float and double) */
static void
bench_poison(bench_env *env, void *dev, size_t bytes)
{
	BENCH_CK(cudaMemsetAsync(dev, 0xff, bytes, env->stream));
}

/* ---- random device data: a counter-based hash, the same on any device ---- */

#define BENCH_SEED	UINT64_C(0x5eed00006a7e5ca1)

/* bench_hash -- splitmix64 of element i of the sequence `seed` */
__host__ __device__ __forceinline__ uint64_t
bench_hash(uint64_t seed, uint64_t i)
{
	uint64_t	z = seed + (i + 1) * UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* uniform in [0, 1), every value a multiple of 2^-24 (float) or 2^-53 (double) */
__device__ __forceinline__ void
bench_uniform(uint64_t h, float *x)
{
	*x = (float) (h >> 40) * 0x1p-24f;
}

__device__ __forceinline__ void
bench_uniform(uint64_t h, double *x)
{
	*x = (double) (h >> 11) * 0x1p-53;
}

/*
 * Integer-valued data whose sum is exact in every order: float 1 with
 * probability 1/32, else 0 (every partial sum an integer below 2^24 for
 * up to 2^28 elements); double an integer 0..255 (sums below 2^53).
 */
__device__ __forceinline__ void
bench_integral(uint64_t h, float *x)
{
	*x = (h >> 59) == 0 ? 1.0f : 0.0f;
}

__device__ __forceinline__ void
bench_integral(uint64_t h, double *x)
{
	*x = (double) (h >> 56);
}

template <typename T>
__global__ void
bench_fill_kernel(T *d, size_t n, uint64_t seed, int integral)
{
	for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		uint64_t	h = bench_hash(seed, i);

		if (integral)
			bench_integral(h, &d[i]);
		else
			bench_uniform(h, &d[i]);
	}
}

/* bench_fill -- n values of the sequence `seed`: uniform [0,1) or integral */
template <typename T>
static void
bench_fill(bench_env *env, T *d, size_t n, uint64_t seed, int integral)
{
	bench_fill_kernel<T><<<1024, 256, 0, env->stream>>>(d, n, seed, integral);
	BENCH_CK_LAUNCH();
	BENCH_CK(cudaStreamSynchronize(env->stream));
}

/* ---- sizes: KERNEL_BENCH_LOG2 ---- */

/*
 * bench_size_wanted -- whether a section should run its size 2^log2:
 * KERNEL_BENCH_LOG2 (e.g. "26 28") lists the sizes to run, unset or empty
 * all of them.  Sections skip the others, whose table columns then stay
 * empty and are not printed.
 */
static bool
bench_size_wanted(int log2)
{
	const char *list = getenv("KERNEL_BENCH_LOG2");
	const char *p = list;

	if (list == NULL || list[strspn(list, " ,")] == '\0')
		return true;
	while (*p != '\0')
	{
		char	   *end;
		long		v = strtol(p, &end, 10);

		if (end == p)
		{
			p++;				/* separators */
			continue;
		}
		if (v == log2)
			return true;
		p = end;
	}
	return false;
}

/* ---- markdown tables ---- */

typedef struct bench_table
{
	std::string title;
	std::string corner;			/* heading of the row-name column */
	std::vector<std::string> cols;
	std::vector<std::string> rows;
	std::vector<std::vector<std::string>> cells;

	/* row -- index of the row named `name`, added if new */
	int
	row(const std::string &name)
	{
		for (size_t i = 0; i < rows.size(); i++)
			if (rows[i] == name)
				return (int) i;
		rows.push_back(name);
		cells.push_back(std::vector<std::string>(cols.size()));
		return (int) rows.size() - 1;
	}

	void
	set(const std::string &rowname, int col, const std::string &text)
	{
		cells[row(rowname)][col] = text;
	}

	/* width -- characters of a UTF-8 string as displayed */
	static size_t
	width(const std::string &s)
	{
		size_t		n = 0;

		for (size_t i = 0; i < s.size(); i++)
			if (((unsigned char) s[i] & 0xc0) != 0x80)
				n++;
		return n;
	}

	/* pad -- s padded with spaces to w characters, right- or left-aligned */
	static std::string
	pad(const std::string &s, size_t w, bool right)
	{
		std::string fill(w > width(s) ? w - width(s) : 0, ' ');

		return right ? fill + s : s + fill;
	}

	/*
	 * print -- as a markdown table, columns padded; a column no row has a
	 * cell in (a size that bench_size_wanted skipped) is left out
	 */
	void
	print(FILE *f) const
	{
		std::vector<size_t> w(cols.size() + 1);
		std::vector<bool> used(cols.size(), false);

		w[0] = width(corner);
		for (size_t r = 0; r < rows.size(); r++)
			w[0] = std::max(w[0], width(rows[r]));
		for (size_t c = 0; c < cols.size(); c++)
		{
			w[c + 1] = std::max((size_t) 3, width(cols[c]));
			for (size_t r = 0; r < rows.size(); r++)
			{
				w[c + 1] = std::max(w[c + 1], width(cells[r][c]));
				used[c] = used[c] || !cells[r][c].empty();
			}
		}
		if (!title.empty())
			fprintf(f, "%s\n\n", title.c_str());
		fprintf(f, "| %s |", pad(corner, w[0], false).c_str());
		for (size_t c = 0; c < cols.size(); c++)
			if (used[c])
				fprintf(f, " %s |", pad(cols[c], w[c + 1], true).c_str());
		fprintf(f, "\n|%s|", std::string(w[0] + 2, '-').c_str());
		for (size_t c = 0; c < cols.size(); c++)
			if (used[c])
				fprintf(f, "%s:|", std::string(w[c + 1] + 1, '-').c_str());
		fprintf(f, "\n");
		for (size_t r = 0; r < rows.size(); r++)
		{
			fprintf(f, "| %s |", pad(rows[r], w[0], false).c_str());
			for (size_t c = 0; c < cols.size(); c++)
				if (used[c])
					fprintf(f, " %s |", pad(cells[r][c], w[c + 1], true).c_str());
			fprintf(f, "\n");
		}
		fprintf(f, "\n");
		fflush(f);
	}
} bench_table;

/* ---- sections: kernel_bench.cu lists them; argv picks ---- */

typedef struct bench_section
{
	const char *name;			/* argv word */
	const char *what;			/* one line for --help */
	void		(*run) (bench_env *env);
} bench_section;

#endif							/* GPUSCAN_BENCH_COMMON_CUH */
