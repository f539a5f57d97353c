/*-------------------------------------------------------------------------
 *
 * heap_sum.c
 *	  The exact sum of one column over raw heap pages, on the CPU.
 *
 * Each page is read twice: once to check every tuple (so that a page
 * that is not as the format says adds nothing, rather than part of its
 * values), then to add its values.  PostgreSQL-free: the unit tests build
 * pages by hand, the session checks common/gpuscan_heap.h's figures
 * against PostgreSQL's own.
 *
 *-------------------------------------------------------------------------
 */
#include "cpu/heap_sum.h"

/*
 * page_walk -- each normal tuple's value of the page, added into acc where
 * acc is not NULL; the count of values, or -1 where the page cannot be read
 */
static int64_t
page_walk(const unsigned char *page, const gs_heap_layout *layout, gs_exact_acc *acc)
{
	int			nitems = gs_heap_page_items(page);
	int64_t		nvalues = 0;
	int			i;

	if (nitems < 0)
		return -1;
	for (i = 0; i < nitems; i++)
	{
		uint32_t	off,
					len;
		int			item = gs_heap_item(page, i, &off, &len);
		double		value;
		int			st;

		if (item == 0)
			continue;
		if (item < 0)
			return -1;
		st = gs_heap_read(page + off, len, layout, &value);
		if (st == GS_HEAP_BAD)
			return -1;
		if (st == GS_HEAP_VALUE)
		{
			nvalues++;
			if (acc)
				gs_acc_add(acc, value);
		}
	}
	return nvalues;
}

/* gs_heap_pages_sum -- see heap_sum.h */
int
gs_heap_pages_sum(const unsigned char *pages, int npages, const gs_heap_layout *layout,
				  gs_exact_acc *acc, int64_t *nvalues, unsigned char *bad)
{
	int			nbad = 0;
	int64_t		since_normalize = 0;
	int			p;

	for (p = 0; p < npages; p++)
	{
		const unsigned char *page = pages + (size_t) p * GS_HEAP_PAGE_SIZE;

		bad[p] = page_walk(page, layout, NULL) < 0;
		if (bad[p])
			nbad++;
		else
		{
			int64_t		n = page_walk(page, layout, acc);

			*nvalues += n;
			/* a limb takes 2^31 additions before its carries must move up */
			since_normalize += n;
			if (since_normalize >= ((int64_t) 1 << 30))
			{
				gs_acc_normalize(acc);
				since_normalize = 0;
			}
		}
	}
	return nbad;
}
