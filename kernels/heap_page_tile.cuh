/*-------------------------------------------------------------------------
 *
 * heap_page_tile.cuh
 *	  The heap page a warp walks, copied into shared memory first, for the
 *	  kernels over heap pages (heap_values.cu, heap_groups.cu).
 *
 * A page in host memory (shared buffers mapped for the GPU) is read over
 * the bus once, in 16-byte pieces the warp's lanes take in turn, and the
 * walker's byte-by-byte reads then hit shared memory.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_HEAP_PAGE_TILE_CUH
#define GPUSCAN_HEAP_PAGE_TILE_CUH

#include "../common/gpuscan_heap.h"

/* a page's room in shared memory */
typedef uint4 heap_page_tile[GS_HEAP_PAGE_SIZE / sizeof(uint4)];

/*
 * heap_page_load -- the warp copies the page at src (if not NULL) into its
 * tile; every lane of the warp calls it, after the last walk of the tile
 */
__device__ __forceinline__ void
heap_page_load(heap_page_tile tile, const unsigned char *src, unsigned lane)
{
	__syncwarp();				/* the last page's walk is over */
	if (src != NULL)
		for (int k = (int) lane; k < (int) (GS_HEAP_PAGE_SIZE / sizeof(uint4)); k += 32)
			tile[k] = ((const uint4 *) src)[k];
	__syncwarp();
}

#endif							/* GPUSCAN_HEAP_PAGE_TILE_CUH */
