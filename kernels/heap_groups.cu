/*-------------------------------------------------------------------------
 *
 * heap_groups.cu
 *	  Exact group sums over raw heap pages on the device:
 *	  gsd_heap_group_sums.
 *
 * One warp per page, as heap_values.cu: the page copied into shared
 * memory, then lane l walks line pointers l, l + 32, ... reading each
 * tuple's key and value with the CPU's walker (common/gpuscan_heap.h) into
 * registers.  Only once the warp knows every tuple of the page is as the
 * format says does it add them: each key finds or claims its slot of the
 * open-addressing table (linear probing; a slot is claimed by a
 * compare-and-swap of its state, then its key written, then the state set
 * to ready), and the value goes into the slot's exact accumulator by
 * integer atomics (exact_atomic.cuh).
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>

#include "device_internal.cuh"
#include "exact_atomic.cuh"

#define GROUP_BLOCK			128 /* threads: four pages at a time */
#define GROUP_PER_LANE		((GS_HEAP_MAX_TUPLES + 31) / 32)

#define SLOT_FREE			0u
#define SLOT_CLAIMED		1u
#define SLOT_READY			2u

/* group_slot -- key's slot in the table, claimed if it has none; -1 where the table is full */
__device__ static int64_t
group_slot(gsd_group_table t, int64_t key)
{
	uint32_t	mask = t.capacity - 1;
	uint32_t	h = (uint32_t) (((uint64_t) key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
	uint32_t	probe;

	for (probe = 0; probe < t.capacity; probe++, h = (h + 1) & mask)
	{
		uint32_t	st = atomicCAS(&t.state[h], SLOT_FREE, SLOT_CLAIMED);

		if (st == SLOT_FREE)
		{
			t.keys[h] = key;
			__threadfence();
			atomicExch(&t.state[h], SLOT_READY);
			return h;
		}
		/* another thread is claiming it: its key is there once it is ready */
		while (st != SLOT_READY)
			st = *(volatile uint32_t *) &t.state[h];
		__threadfence();
		if (*(volatile int64_t *) &t.keys[h] == key)
			return h;
	}
	return -1;
}

/* heap_groups_kernel -- gsd_heap_group_sums: a warp per page */
__global__ void
heap_groups_kernel(const unsigned char *shared, size_t nshared, const unsigned char *copies,
				   size_t ncopies, const gs_heap_page_ref *refs, size_t npages,
				   gs_heap_layout key_layout, gs_heap_layout value_layout, gsd_group_table table,
				   unsigned char *bad, uint32_t *full)
{
	__shared__ uint4 tile[GROUP_BLOCK / 32][GS_HEAP_PAGE_SIZE / sizeof(uint4)];
	const unsigned lane = threadIdx.x & 31;
	const unsigned warp = threadIdx.x / 32;
	const size_t warps = (size_t) gridDim.x * (GROUP_BLOCK / 32);
	const unsigned char *page = (const unsigned char *) tile[warp];
	size_t		p;

	for (p = ((size_t) blockIdx.x * GROUP_BLOCK + threadIdx.x) / 32; p < npages; p += warps)
	{
		gs_heap_page_ref ref = refs[p];
		const unsigned char *src = gs_heap_ref_page(ref, shared, nshared, copies, ncopies);
		int			refused = src == NULL;
		int64_t		key[GROUP_PER_LANE];
		double		value[GROUP_PER_LANE];
		/* per tuple: 0 none, 1 a group without a value, 2 with one; +4 a NULL key */
		unsigned char what[GROUP_PER_LANE];
		int			k;

		__syncwarp();			/* the last page's walk is over */
		if (!refused)
			for (k = lane; k < (int) (GS_HEAP_PAGE_SIZE / sizeof(uint4)); k += 32)
				tile[warp][k] = ((const uint4 *) src)[k];
		__syncwarp();
		for (k = 0; k < GROUP_PER_LANE; k++)
		{
			int			i = (int) lane + 32 * k;
			uint32_t	off,
						len;
			int			item,
						kst,
						vst;

			what[k] = 0;
			if (refused || i >= ref.nitems)
				continue;
			item = gs_heap_item(page, i, &off, &len);
			if (item < 0)
				refused = 1;
			if (item <= 0)
				continue;
			kst = gs_heap_read_int(page + off, len, &key_layout, &key[k]);
			vst = gs_heap_read(page + off, len, &value_layout, &value[k]);
			if (kst == GS_HEAP_BAD || vst == GS_HEAP_BAD)
				refused = 1;
			else
				what[k] = (unsigned char) ((vst == GS_HEAP_VALUE ? 2 : 1) + (kst == GS_HEAP_NULL ? 4 : 0));
		}
		refused = __any_sync(0xffffffffu, refused);
		if (lane == 0)
			bad[p] = (unsigned char) refused;
		if (refused)
			continue;
		for (k = 0; k < GROUP_PER_LANE; k++)
		{
			int64_t		s;

			if (what[k] == 0)
				continue;
			s = (what[k] & 4) ? (int64_t) table.capacity : group_slot(table, key[k]);
			if (s < 0)
			{
				atomicExch(full, 1u);
				continue;
			}
			if (what[k] & 4)
				atomicExch(&table.state[s], SLOT_READY);
			if ((what[k] & 3) == 2)
			{
				gs_acc_add_atomic(&table.accs[s], value[k]);
				atomicAdd(&table.counts[s], 1ull);
			}
		}
	}
}

gsd_status
gsd_heap_group_sums(const void *d_shared, size_t nshared, const void *d_copies, size_t ncopies,
					const gs_heap_page_ref *d_refs, size_t npages, const gs_heap_layout *key_layout,
					const gs_heap_layout *value_layout, gsd_group_table table,
					unsigned char *d_bad, uint32_t *d_full)
{
	const char *what = "summing groups of heap pages";
	gsd_status	st = gsd_require_open();
	size_t		blocks;

	if (st != GSD_OK)
		return st;
	if (key_layout == NULL || value_layout == NULL ||
		(npages > 0 && (d_refs == NULL || d_bad == NULL || d_full == NULL || table.state == NULL ||
						table.keys == NULL || table.accs == NULL || table.counts == NULL)))
		return gsd_fail(GSD_INVALID, "%s: a NULL pointer", what);
	if (table.capacity == 0 || (table.capacity & (table.capacity - 1)) != 0)
		return gsd_fail(GSD_INVALID, "%s: a table of %u slots (not a power of two)", what,
						table.capacity);
	if (key_layout->ncols < 1 || key_layout->ncols > GS_HEAP_MAX_COLS ||
		value_layout->ncols < 1 || value_layout->ncols > GS_HEAP_MAX_COLS)
		return gsd_fail(GSD_INVALID, "%s: a layout of %d or %d columns", what,
						key_layout->ncols, value_layout->ncols);
	if (npages == 0)
		return GSD_OK;
	blocks = (npages + GROUP_BLOCK / 32 - 1) / (GROUP_BLOCK / 32);
	if (blocks > (size_t) gsd_sm_count() * 16)
		blocks = (size_t) gsd_sm_count() * 16;
	heap_groups_kernel<<<(unsigned) blocks, GROUP_BLOCK, 0, gsd_stream()>>>(
		(const unsigned char *) d_shared, nshared, (const unsigned char *) d_copies, ncopies,
		d_refs, npages, *key_layout, *value_layout, table, d_bad, d_full);
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}
