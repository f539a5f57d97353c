/*-------------------------------------------------------------------------
 *
 * heap_values.cu
 *	  The values of a column in raw heap pages on the device:
 *	  gsd_heap_values.
 *
 * One warp per page (a grid of warps striding over the pages), named by
 * a gs_heap_page_ref: a buffer of shared buffers mapped for the GPU (read
 * over the bus) or a copy in device memory.  The warp copies the page into
 * shared memory, then lane l takes line pointers l, l + 32, ... (at most GS_HEAP_MAX_TUPLES, so ten
 * each) and walks each one's tuple with common/gpuscan_heap.h, the walker
 * the CPU uses.  The lanes keep their values in registers until the warp
 * knows whether every tuple of the page was as the format says: a page
 * any lane refuses is written as -0.0 throughout and marked bad, so that
 * it adds nothing (the session reads it tuple by tuple instead).  The
 * values go out as a dense array for the exact sum (reduce_exact.cu).
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>

#include "device_internal.cuh"

#define HEAP_BLOCK			128 /* threads: four pages at a time */
#define HEAP_PER_LANE		((GS_HEAP_MAX_TUPLES + 31) / 32)

/*
 * heap_values_kernel -- gsd_heap_values: a warp per page, which it first
 * copies whole into shared memory in 16-byte pieces (a page in host
 * memory is read over the bus once, in full lines), then walks there
 */
__global__ void
heap_values_kernel(const unsigned char *shared, size_t nshared, const unsigned char *copies,
				   size_t ncopies, const gs_heap_page_ref *refs, size_t npages,
				   gs_heap_layout layout, double *values, unsigned char *bad,
				   unsigned long long *nvalues)
{
	__shared__ uint4 tile[HEAP_BLOCK / 32][GS_HEAP_PAGE_SIZE / sizeof(uint4)];
	const unsigned lane = threadIdx.x & 31;
	const unsigned warp = threadIdx.x / 32;
	const size_t warps = (size_t) gridDim.x * (HEAP_BLOCK / 32);
	const unsigned char *page = (const unsigned char *) tile[warp];
	size_t		p;

	for (p = ((size_t) blockIdx.x * HEAP_BLOCK + threadIdx.x) / 32; p < npages; p += warps)
	{
		gs_heap_page_ref ref = refs[p];
		const unsigned char *src = gs_heap_ref_page(ref, shared, nshared, copies, ncopies);
		int			nitems = ref.nitems;
		int			refused = src == NULL;
		double		v[HEAP_PER_LANE];
		unsigned	count = 0;
		int			k;

		__syncwarp();			/* the last page's walk is over */
		if (!refused)
			for (k = lane; k < (int) (GS_HEAP_PAGE_SIZE / sizeof(uint4)); k += 32)
				tile[warp][k] = ((const uint4 *) src)[k];
		__syncwarp();
		for (k = 0; k < HEAP_PER_LANE; k++)
		{
			int			i = (int) lane + 32 * k;
			uint32_t	off,
						len;
			int			item;

			v[k] = -0.0;
			if (refused || i >= nitems)
				continue;
			item = gs_heap_item(page, i, &off, &len);
			if (item < 0)
				refused = 1;
			else if (item > 0)
			{
				double		x;
				int			st = gs_heap_read(page + off, len, &layout, &x);

				if (st == GS_HEAP_BAD)
					refused = 1;
				else if (st == GS_HEAP_VALUE)
				{
					v[k] = x;
					count++;
				}
			}
		}
		refused = __any_sync(0xffffffffu, refused);
		for (k = 0; k < HEAP_PER_LANE; k++)
		{
			int			i = (int) lane + 32 * k;

			if (i < GS_HEAP_MAX_TUPLES)
				values[p * GS_HEAP_MAX_TUPLES + i] = refused ? -0.0 : v[k];
		}
		for (k = 16; k > 0; k >>= 1)
			count += __shfl_down_sync(0xffffffffu, count, k);
		if (lane == 0)
		{
			bad[p] = (unsigned char) refused;
			if (!refused && count > 0)
				atomicAdd(nvalues, (unsigned long long) count);
		}
	}
}

gsd_status
gsd_heap_values(const void *d_shared, size_t nshared, const void *d_copies, size_t ncopies,
				const gs_heap_page_ref *d_refs, size_t npages, const gs_heap_layout *layout,
				double *d_values, unsigned char *d_bad, unsigned long long *d_nvalues)
{
	const char *what = "reading heap pages";
	gsd_status	st = gsd_require_open();
	size_t		blocks;

	if (st != GSD_OK)
		return st;
	if (layout == NULL || (npages > 0 && (d_refs == NULL || d_values == NULL || d_bad == NULL ||
										  d_nvalues == NULL)))
		return gsd_fail(GSD_INVALID, "%s: a NULL pointer", what);
	if (layout->ncols < 1 || layout->ncols > GS_HEAP_MAX_COLS)
		return gsd_fail(GSD_INVALID, "%s: %d columns", what, layout->ncols);
	if (npages == 0)
		return GSD_OK;
	blocks = (npages + HEAP_BLOCK / 32 - 1) / (HEAP_BLOCK / 32);
	if (blocks > (size_t) gsd_sm_count() * 16)
		blocks = (size_t) gsd_sm_count() * 16;
	heap_values_kernel<<<(unsigned) blocks, HEAP_BLOCK, 0, gsd_stream()>>>(
		(const unsigned char *) d_shared, nshared, (const unsigned char *) d_copies, ncopies,
		d_refs, npages, *layout, d_values, d_bad, d_nvalues);
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}
