/*-------------------------------------------------------------------------
 *
 * fuzz_heap_page.c
 *	  Fuzzing the heap page walker (common/gpuscan_heap.h) and the CPU's
 *	  sum over raw pages (src/cpu/heap_sum.c): the input is a page's bytes,
 *	  as shared buffers could hold them, and the layout of the columns.
 *
 * Whatever the bytes, the walker must not read outside the page (the page
 * is an exactly sized block, for ASan) and must either report the page
 * or read it: a reported page adds nothing, a read one adds no more
 * values than it has line pointers, and reading it twice gives the same
 * sum.  Half the inputs get a plausible header (pd_lower, pd_upper and
 * pd_special in order) so that the line pointers and tuples are reached.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gpuscan_exact.h"
#include "cpu/heap_sum.h"

/* the kinds of columns before the summed one */
static const gs_heap_col kinds[] = {
	{1, 1}, {2, 2}, {4, 4}, {8, 8}, {6, 1}, {16, 1}, {12, 4},
	{-1, 4}, {-1, 8}, {-1, 1}, {-2, 1}, {0, 1}	/* the last: a length the walker refuses */
};

/* LLVMFuzzerTestOneInput -- the layout, then the page */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader r;
	gs_heap_layout layout;
	unsigned char *page = fuzz_alloc(GS_HEAP_PAGE_SIZE);
	gs_exact_acc acc,
				again,
				zero;
	int64_t		n = 0,
				n_again = 0;
	unsigned char bad,
				bad_again;
	uint8_t		flags;
	int			a,
				i,
				width,
				nitems;

	fuzz_reader_init(&r, data, size);
	flags = fuzz_u8(&r);
	memset(&layout, 0, sizeof(layout));
	layout.ncols = 1 + fuzz_u8(&r) % 16;
	for (a = 0; a < layout.ncols - 1; a++)
		layout.col[a] = kinds[fuzz_u8(&r) % (sizeof(kinds) / sizeof(kinds[0]))];
	layout.type = (flags & 2) ? GS_HEAP_FLOAT4 : GS_HEAP_FLOAT8;
	layout.col[layout.ncols - 1].len = (flags & 2) ? 4 : 8;
	layout.col[layout.ncols - 1].align = (flags & 2) ? 4 : 8;
	layout.has_missing = (flags & 4) != 0;
	layout.missing = 1.5;
	memset(page, 0, GS_HEAP_PAGE_SIZE);
	memcpy(page, r.p, r.left < GS_HEAP_PAGE_SIZE ? r.left : GS_HEAP_PAGE_SIZE);
	if (flags & 1)
	{
		/* a plausible header: n line pointers, the tuples above them */
		uint32_t	lower = GS_HEAP_HEADER_SIZE + 4 * (page[GS_HEAP_PD_LOWER] % 200);
		uint32_t	upper = lower + (page[GS_HEAP_PD_UPPER] * 32) % (GS_HEAP_PAGE_SIZE - lower);

		page[GS_HEAP_PD_LOWER] = lower & 0xff;
		page[GS_HEAP_PD_LOWER + 1] = lower >> 8;
		page[GS_HEAP_PD_UPPER] = upper & 0xff;
		page[GS_HEAP_PD_UPPER + 1] = upper >> 8;
		page[GS_HEAP_PD_SPECIAL] = GS_HEAP_PAGE_SIZE & 0xff;
		page[GS_HEAP_PD_SPECIAL + 1] = GS_HEAP_PAGE_SIZE >> 8;
	}
	nitems = gs_heap_page_items(page);

	gs_acc_zero(&acc);
	gs_acc_zero(&again);
	gs_acc_zero(&zero);
	gs_heap_pages_sum(page, 1, &layout, &acc, &n, &bad);
	gs_heap_pages_sum(page, 1, &layout, &again, &n_again, &bad_again);
	if (bad != bad_again || n != n_again || memcmp(&acc, &again, sizeof(acc)) != 0)
		fuzz_fail("the same page read twice gave different answers");
	if (bad && (n != 0 || memcmp(&acc, &zero, sizeof(acc)) != 0))
		fuzz_fail("a reported page added %lld values", (long long) n);
	if (!bad && (nitems < 0 || n > nitems))
		fuzz_fail("%lld values from a page of %d line pointers", (long long) n, nitems);

	/* the same page's grouping keys: an integer column where the float one was */
	width = ((const int[]) {2, 4, 8})[(flags >> 3) % 3];
	layout.type = width == 2 ? GS_HEAP_INT2 : width == 4 ? GS_HEAP_INT4 : GS_HEAP_INT8;
	layout.col[layout.ncols - 1].len = (int16_t) width;
	layout.col[layout.ncols - 1].align = (uint8_t) width;
	layout.missing_int = -7;
	for (i = 0; i < nitems && i < GS_HEAP_MAX_TUPLES; i++)
	{
		uint32_t	off = 0,
					len = 0;
		int64_t		k = 0;

		if (gs_heap_item(page, i, &off, &len) != 1)
			continue;
		/* an int2 or int4 key within its type's range */
		if (gs_heap_read_int(page + off, len, &layout, &k) == GS_HEAP_VALUE && width < 8 &&
			(k < -((int64_t) 1 << (8 * width - 1)) || k >= ((int64_t) 1 << (8 * width - 1))))
			fuzz_fail("an int%d key out of its range: %lld", width, (long long) k);
	}
	free(page);
	return 0;
}
