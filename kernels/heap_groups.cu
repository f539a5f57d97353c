/*-------------------------------------------------------------------------
 *
 * heap_groups.cu
 *	  Exact group sums over raw heap pages on the device:
 *	  gsd_heap_group_sums.
 *
 * One warp per page, as heap_values.cu: the page copied into shared
 * memory, then lane l walks line pointers l, l + 32, ... and reads each
 * tuple's keys and value with the CPU's walker (common/gpuscan_heap.h).
 * Only once the warp knows every tuple of the page is as the format says
 * does it walk the page again and add them: each tuple's keys find or
 * claim their slot of the open-addressing table (linear probing; a slot
 * is claimed by a compare-and-swap of its state, then its keys written,
 * then the state set to ready), and the value goes into the slot's exact
 * accumulator by integer atomics (exact_atomic.cuh).  The second walk
 * reads the page from shared memory again rather than keeping up to
 * GS_HEAP_MAX_KEYS keys of ten tuples a lane in registers.
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

/* the grouping columns' layouts, passed by value to the kernel */
typedef struct group_keys
{
	gs_heap_layout col[GS_HEAP_MAX_KEYS];
} group_keys;

/* group_hash -- where a group's keys (and NULL bits) start probing */
__device__ static uint32_t
group_hash(const int64_t *key, int nkeys, uint32_t nulls)
{
	uint64_t	h = 0x9e3779b97f4a7c15ull * (nulls + 1);
	int			j;

	for (j = 0; j < nkeys; j++)
	{
		h = (h ^ (uint64_t) key[j]) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return (uint32_t) (h >> 32);
}

/* slot_holds -- whether ready slot h holds the group of these keys */
__device__ static bool
slot_holds(gsd_group_table t, uint32_t h, const int64_t *key, uint32_t nulls)
{
	int			j;

	if (*(volatile uint32_t *) &t.nulls[h] != nulls)
		return false;
	for (j = 0; j < t.nkeys; j++)
		if (*(volatile int64_t *) &t.keys[(size_t) h * t.nkeys + j] != key[j])
			return false;
	return true;
}

/* group_slot -- the group's slot in the table, claimed if it has none; -1 where the table is full */
__device__ static int64_t
group_slot(gsd_group_table t, const int64_t *key, uint32_t nulls)
{
	uint32_t	mask = t.capacity - 1;
	uint32_t	h = group_hash(key, t.nkeys, nulls) & mask;
	uint32_t	probe;
	int			j;

	for (probe = 0; probe < t.capacity; probe++, h = (h + 1) & mask)
	{
		uint32_t	st = atomicCAS(&t.state[h], SLOT_FREE, SLOT_CLAIMED);

		if (st == SLOT_FREE)
		{
			for (j = 0; j < t.nkeys; j++)
				t.keys[(size_t) h * t.nkeys + j] = key[j];
			t.nulls[h] = nulls;
			__threadfence();
			atomicExch(&t.state[h], SLOT_READY);
			return h;
		}
		/* another thread is claiming it: its keys are there once it is ready */
		while (st != SLOT_READY)
			st = *(volatile uint32_t *) &t.state[h];
		__threadfence();
		if (slot_holds(t, h, key, nulls))
			return h;
	}
	return -1;
}

/* heap_groups_kernel -- gsd_heap_group_sums: a warp per page */
__global__ void
heap_groups_kernel(const unsigned char *shared, size_t nshared, const unsigned char *copies,
				   size_t ncopies, const gs_heap_page_ref *refs, size_t npages,
				   group_keys keys, gs_heap_layout value_layout, gsd_group_table table,
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
		int64_t		key[GS_HEAP_MAX_KEYS];
		uint32_t	nulls;
		double		value;
		int			k;

		__syncwarp();			/* the last page's walk is over */
		if (!refused)
			for (k = lane; k < (int) (GS_HEAP_PAGE_SIZE / sizeof(uint4)); k += 32)
				tile[warp][k] = ((const uint4 *) src)[k];
		__syncwarp();
		/* the first walk: is every tuple of the page as the format says? */
		for (k = 0; k < GROUP_PER_LANE && !refused; k++)
		{
			int			i = (int) lane + 32 * k;
			uint32_t	off,
						len;
			int			item;

			if (i >= ref.nitems)
				break;
			item = gs_heap_item(page, i, &off, &len);
			if (item < 0 ||
				(item > 0 && gs_heap_read_group(page + off, len, keys.col, table.nkeys,
												&value_layout, key, &nulls,
												&value) == GS_HEAP_BAD))
				refused = 1;
		}
		refused = __any_sync(0xffffffffu, refused);
		if (lane == 0)
			bad[p] = (unsigned char) refused;
		if (refused)
			continue;
		/* the second: each tuple into its group */
		for (k = 0; k < GROUP_PER_LANE; k++)
		{
			int			i = (int) lane + 32 * k;
			uint32_t	off,
						len;
			int64_t		s;
			int			st;

			if (i >= ref.nitems)
				break;
			if (gs_heap_item(page, i, &off, &len) <= 0)
				continue;
			st = gs_heap_read_group(page + off, len, keys.col, table.nkeys, &value_layout, key,
									&nulls, &value);
			s = group_slot(table, key, nulls);
			if (s < 0)
			{
				atomicExch(full, 1u);
				continue;
			}
			if (st == GS_HEAP_VALUE)
			{
				gs_acc_add_atomic(&table.accs[s], value);
				atomicAdd(&table.counts[s], 1ull);
			}
		}
	}
}

gsd_status
gsd_heap_group_sums(const void *d_shared, size_t nshared, const void *d_copies, size_t ncopies,
					const gs_heap_page_ref *d_refs, size_t npages, const gs_heap_layout *key_layouts,
					const gs_heap_layout *value_layout, gsd_group_table table,
					unsigned char *d_bad, uint32_t *d_full)
{
	const char *what = "summing groups of heap pages";
	gsd_status	st = gsd_require_open();
	group_keys	keys;
	size_t		blocks;
	int			j;

	if (st != GSD_OK)
		return st;
	if (key_layouts == NULL || value_layout == NULL ||
		(npages > 0 && (d_refs == NULL || d_bad == NULL || d_full == NULL || table.state == NULL ||
						table.keys == NULL || table.nulls == NULL || table.accs == NULL ||
						table.counts == NULL)))
		return gsd_fail(GSD_INVALID, "%s: a NULL pointer", what);
	if (table.capacity == 0 || (table.capacity & (table.capacity - 1)) != 0)
		return gsd_fail(GSD_INVALID, "%s: a table of %u slots (not a power of two)", what,
						table.capacity);
	if (table.nkeys < 1 || table.nkeys > GS_HEAP_MAX_KEYS)
		return gsd_fail(GSD_INVALID, "%s: %d grouping columns", what, table.nkeys);
	for (j = 0; j < table.nkeys; j++)
		if (key_layouts[j].ncols < 1 || key_layouts[j].ncols > GS_HEAP_MAX_COLS)
			return gsd_fail(GSD_INVALID, "%s: a key's layout of %d columns", what,
							key_layouts[j].ncols);
	if (value_layout->ncols < 1 || value_layout->ncols > GS_HEAP_MAX_COLS)
		return gsd_fail(GSD_INVALID, "%s: a layout of %d columns", what, value_layout->ncols);
	memset(&keys, 0, sizeof(keys));
	memcpy(keys.col, key_layouts, sizeof(gs_heap_layout) * table.nkeys);
	if (npages == 0)
		return GSD_OK;
	blocks = (npages + GROUP_BLOCK / 32 - 1) / (GROUP_BLOCK / 32);
	if (blocks > (size_t) gsd_sm_count() * 16)
		blocks = (size_t) gsd_sm_count() * 16;
	heap_groups_kernel<<<(unsigned) blocks, GROUP_BLOCK, 0, gsd_stream()>>>(
		(const unsigned char *) d_shared, nshared, (const unsigned char *) d_copies, ncopies,
		d_refs, npages, keys, *value_layout, table, d_bad, d_full);
	GSD_CHECK_LAUNCH(what);
	return GSD_OK;
}
