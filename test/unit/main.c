/*-------------------------------------------------------------------------
 *
 * main.c
 *	  Runs every unit-test suite and prints the tally last.
 *
 * GPU suites run only where a device is usable; where one is not, each
 * suite prints "# skipped: unit suite NAME: why" and counts as one skipped
 * (a suite's cases are not known without running it).  GPUSCAN_REQUIRE_GPU=1
 * turns a missing GPU into a failure, so that a run meant for the GPU
 * cannot pass on the CPU alone.  The stand-in device
 * (kernels/standin_device.c) serves the GPU suites, counted apart from a
 * GPU's.  The suites of the course's kernels (kernels/course/) are built
 * only with them, where the kernels are built with CUDA (the Makefile
 * defines GPUSCAN_COURSE); elsewhere each prints as skipped.
 *
 * Prints last "unit: checks on a GPU: N, on the stand-in device: N; service
 * checks skipped without a GPU: 0" (the cases of the GPU suites) and
 * "unit: N passed, N failed, N skipped".
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"

static int	n_passed;
static int	n_failed;
static int	n_skipped;
static int	case_open;
static int	case_failed;
static char case_name[256];
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* close_case -- tally the current case */
static void
close_case(void)
{
	if (!case_open)
		return;
	if (case_failed)
	{
		n_failed++;
		printf("not ok - %s\n", case_name);
	}
	else
		n_passed++;
	case_open = 0;
}

void
unit_case(const char *fmt,...)
{
	va_list		ap;

	close_case();
	va_start(ap, fmt);
	vsnprintf(case_name, sizeof(case_name), fmt, ap);
	va_end(ap);
	case_open = 1;
	case_failed = 0;
}

void
unit_fail(const char *file, int line, const char *fmt,...)
{
	va_list		ap;

	if (case_failed < 5)
	{
		fprintf(stdout, "  %s:%d: [%s] ", file, line, case_name);
		va_start(ap, fmt);
		vfprintf(stdout, fmt, ap);
		va_end(ap);
		fputc('\n', stdout);
	}
	case_failed++;
}

int
unit_gpu_available(void)
{
	static int	known = -1;

	if (known < 0)
	{
		int			count = 0;

		known = gsd_device_count(&count) == GSD_OK && count > 0 &&
			gsd_open(0) == GSD_OK;
		if (!known)
			printf("# no usable GPU: %s\n", gsd_last_error());
	}
	return known;
}

void
unit_seed(uint64_t seed)
{
	rng_state = seed;
}

uint64_t
unit_rand64(void)
{
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

double
unit_rand_uniform(void)
{
	return (double) (unit_rand64() >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * wanted -- whether to run the suite: GPUSCAN_UNIT_SUITES, if set, is a
 * comma-separated list of suite names (e.g. "cpu_scan,gpu_scan")
 */
static int
wanted(const char *suite)
{
	const char *list = getenv("GPUSCAN_UNIT_SUITES");
	size_t		len = strlen(suite);

	if (list == NULL || *list == '\0')
		return 1;
	for (const char *p = list; p != NULL; p = strchr(p, ','))
	{
		if (*p == ',')
			p++;
		if (strncmp(p, suite, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return 1;
	}
	return 0;
}

#define RUN_SUITE(name) do { if (wanted(#name)) suite_##name(); } while (0)

/* skip_suite -- a wanted suite that cannot run here: one skipped, and why */
static void
skip_suite(const char *suite, const char *why)
{
	if (!wanted(suite))
		return;
	n_skipped++;
	printf("# skipped: unit suite %s: %s\n", suite, why);
}

/*
 * RUN_COURSE_SUITE -- a suite of the course's kernels: run where they are
 * built, else one skipped
 */
#ifdef GPUSCAN_COURSE
#define RUN_COURSE_SUITE(name) RUN_SUITE(name)
#else
#define RUN_COURSE_SUITE(name) \
	skip_suite(#name, "the course's kernels are built only with CUDA (kernels/course/)")
#endif

/* the GPU suites, in the order they run */
static const char *const gpu_suites[] = {
	"gpu_sum", "reduce_progression", "gpu_scan", "scan_progression",
	"gpu_compact", "compact_progression", "gpu_spmv", "spmv_reference",
	"gpu_heap", "gpu_memory"
};

/* standin_device -- whether the device API is the stand-in's (no GPU) */
static int
standin_device(void)
{
	gsd_build_info build;

	return gsd_get_build_info(&build) == GSD_OK &&
		strcmp(build.arch_list, GSD_STANDIN_ARCH) == 0;
}

int
main(void)
{
	int			gpu;
	int			on_device = 0;
	const char *req = getenv("GPUSCAN_REQUIRE_GPU");

	RUN_SUITE(cpu_sum);
	RUN_SUITE(cpu_scan);
	RUN_SUITE(cpu_compact);
	RUN_SUITE(cpu_spmv);
	RUN_SUITE(sum_state);
	RUN_SUITE(sum_window);
	RUN_SUITE(heap_pages);
	RUN_SUITE(copy_workers);
	RUN_SUITE(placement);
	RUN_SUITE(csr_build);
	close_case();

	gpu = unit_gpu_available();
	if (gpu)
	{
		int			before = n_passed + n_failed;

		RUN_SUITE(gpu_sum);
		RUN_COURSE_SUITE(reduce_progression);
		RUN_SUITE(gpu_scan);
		RUN_COURSE_SUITE(scan_progression);
		RUN_SUITE(gpu_compact);
		RUN_COURSE_SUITE(compact_progression);
		RUN_SUITE(gpu_spmv);
		RUN_COURSE_SUITE(spmv_reference);
		RUN_SUITE(gpu_heap);
		RUN_SUITE(gpu_memory);
		close_case();
		on_device = n_passed + n_failed - before;
	}
	else
	{
		size_t		i;

		if (req && strcmp(req, "1") == 0)
		{
			unit_case("GPU required (GPUSCAN_REQUIRE_GPU=1) but none usable");
			unit_fail(__FILE__, __LINE__, "%s", gsd_last_error());
			close_case();
		}
		printf("# GPU suites skipped: no usable GPU\n");
		for (i = 0; i < sizeof(gpu_suites) / sizeof(gpu_suites[0]); i++)
			skip_suite(gpu_suites[i], "no usable GPU");
	}

	printf("unit: checks on a GPU: %d, on the stand-in device: %d; service checks skipped without a GPU: 0\n",
		   gpu && !standin_device() ? on_device : 0, gpu && standin_device() ? on_device : 0);
	printf("unit: %d passed, %d failed, %d skipped\n", n_passed, n_failed, n_skipped);
	return n_failed ? 1 : 0;
}
