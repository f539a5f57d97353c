/*-------------------------------------------------------------------------
 *
 * test_copy_workers.c
 *	  The copy workers (src/cpu/copy_workers.c).
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>
#include <sys/mman.h>

#include "unit.h"
#include "cpu/copy_workers.h"

/* fill_pattern -- bytes that differ at every offset (mod 251) */
static void
fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char) ((i + seed) % 251);
}

/* first_difference -- the first offset where a and b differ, or n */
static size_t
first_difference(const unsigned char *a, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return i;
	return n;
}

/*
 * pair_with -- two blocks, of n and m bytes, in one job, synchronous and
 * started: each as src says, nothing written around them
 */
static void
pair_with(const unsigned char *src, unsigned char *dst, size_t most, size_t n, size_t m)
{
	unsigned char *dst2 = malloc(m + 16);

	for (int started = 0; started <= 1; started++)
	{
		unit_case("copy workers: %d workers, %zu and %zu bytes in one job, %s", gs_copy_workers(),
				  n, m, started ? "started" : "synchronous");
		memset(dst, 0xAA, most);
		memset(dst2, 0x55, m + 16);
		if (started)
		{
			gs_copy_pair_start(dst + 7, src + 3, n, dst2 + 5, src + 1, m);
			gs_copy_wait();
		}
		else
			gs_copy_pair(dst + 7, src + 3, n, dst2 + 5, src + 1, m);
		UNIT_CHECK(first_difference(dst + 7, src + 3, n) == n, "the first block differs at %zu",
				   first_difference(dst + 7, src + 3, n));
		UNIT_CHECK(first_difference(dst2 + 5, src + 1, m) == m, "the second block differs at %zu",
				   first_difference(dst2 + 5, src + 1, m));
		UNIT_CHECK(dst[6] == 0xAA && dst[7 + n] == 0xAA && dst2[4] == 0x55 && dst2[5 + m] == 0x55,
				   "a pair's copy wrote outside its blocks");
	}
	free(dst2);
}

/* copies of sizes around the split and the parallel threshold, at odd offsets */
static void
copies_with(int workers)
{
	static const size_t sizes[] = {0, 1, 4095, 4097, (512 << 10) - 1, 512 << 10,
	(512 << 10) + 1, (3 << 20) + 12345, 16 << 20};
	size_t		most = (16 << 20) + 64;
	unsigned char *src = malloc(most),
			   *dst = malloc(most);

	UNIT_CHECK(gs_copy_workers_set(workers) == workers, "%d workers started", gs_copy_workers());
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		size_t		n = sizes[s];

		unit_case("copy workers: %d workers, %zu bytes, synchronous and started", workers, n);
		fill_pattern(src, most, (unsigned) s);	/* both blocks of a pair read it */
		memset(dst, 0xAA, most);
		gs_copy(dst + 7, src + 3, n);
		UNIT_CHECK(first_difference(dst + 7, src + 3, n) == n, "gs_copy differs at %zu",
				   first_difference(dst + 7, src + 3, n));
		UNIT_CHECK(dst[6] == 0xAA && dst[7 + n] == 0xAA, "gs_copy wrote outside its range");

		memset(dst, 0x55, most);
		gs_copy_start(dst + 1, src + 3, n);
		gs_copy_wait();
		UNIT_CHECK(!gs_copy_busy(), "busy after gs_copy_wait");
		UNIT_CHECK(first_difference(dst + 1, src + 3, n) == n, "gs_copy_start differs at %zu",
				   first_difference(dst + 1, src + 3, n));
		UNIT_CHECK(dst[0] == 0x55 && dst[1 + n] == 0x55, "gs_copy_start wrote outside its range");

		pair_with(src, dst, most, n, sizes[(s + 3) % (sizeof(sizes) / sizeof(sizes[0]))]);
	}
	free(src);
	free(dst);
}

/* pre-faulting fresh memory leaves it zero and writes nothing outside */
static void
prefault_with(int workers)
{
	size_t		n = 24 << 20;
	unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t		nonzero = 0;

	unit_case("copy workers: %d workers, pre-faulting %zu bytes of fresh memory", workers, n);
	UNIT_CHECK(p != MAP_FAILED, "mmap failed");
	if (p == MAP_FAILED)
		return;
	gs_copy_workers_set(workers);
	memset(p, 7, 4096);
	gs_prefault_start(p + 4096, n - 2 * 4096);
	gs_copy_wait();
	for (size_t i = 4096; i < n; i++)
		nonzero += p[i] != 0;
	UNIT_CHECK(nonzero == 0, "%zu bytes not zero after the pre-fault", nonzero);
	UNIT_CHECK(p[0] == 7 && p[4095] == 7, "the page before the range changed");
	munmap(p, n);
}

void
suite_copy_workers(void)
{
	int			counts[] = {0, 1, 3, 8, 2, 0};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
	{
		copies_with(counts[i]);
		prefault_with(counts[i]);
	}
	unit_case("copy workers: at most GS_COPY_MAX_WORKERS");
	UNIT_CHECK(gs_copy_workers_set(GS_COPY_MAX_WORKERS + 10) <= GS_COPY_MAX_WORKERS,
			   "%d workers", gs_copy_workers());
	gs_copy_workers_set(0);
	UNIT_CHECK(gs_copy_workers() == 0, "%d workers left", gs_copy_workers());
}
