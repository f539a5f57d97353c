/*-------------------------------------------------------------------------
 *
 * heap_sum.c
 *	  The exact sum of one column over raw heap pages, on the CPU.
 *
 * Each page's values are gathered first and added only once the whole
 * page has been read, so that a page that is not as the format says adds
 * nothing rather than part of its values.  PostgreSQL-free: the unit
 * tests build pages by hand, the session checks common/gpuscan_heap.h's
 * figures against PostgreSQL's own.
 *
 *-------------------------------------------------------------------------
 */
#include "cpu/heap_sum.h"

/* gs_heap_page_values -- see heap_sum.h */
int
gs_heap_page_values(const unsigned char *page, const gs_heap_layout *layouts, int ncols,
					double **vals, int *nvals)
{
	int			nitems = gs_heap_page_items(page);
	int			ntuples = 0;
	int			c,
				i;

	if (nitems < 0 || nitems > GS_HEAP_MAX_TUPLES)
		return -1;
	for (i = 0; i < nitems; i++)
	{
		uint32_t	off,
					len;
		int			item = gs_heap_item(page, i, &off, &len);

		if (item == 0)
			continue;
		if (item < 0)
			return -1;
		ntuples++;
		for (c = 0; c < ncols; c++)
		{
			double		v;
			int			st = gs_heap_read(page + off, len, &layouts[c], &v);

			if (st == GS_HEAP_BAD)
				return -1;
			if (st == GS_HEAP_VALUE)
				vals[c][nvals[c]++] = v;
		}
	}
	return ntuples;
}

/* gs_heap_pages_sum -- see heap_sum.h */
int
gs_heap_pages_sum(const unsigned char *pages, int npages, const gs_heap_layout *layout,
				  gs_exact_acc *acc, int64_t *nvalues, unsigned char *bad)
{
	double		buf[GS_HEAP_MAX_TUPLES];
	int			nbad = 0;
	int64_t		since_normalize = 0;
	int			p;

	for (p = 0; p < npages; p++)
	{
		double	   *v = buf;
		int			n = 0;

		bad[p] = gs_heap_page_values(pages + (size_t) p * GS_HEAP_PAGE_SIZE, layout, 1, &v, &n) < 0;
		if (bad[p])
		{
			nbad++;
			continue;
		}
		for (int k = 0; k < n; k++)
			gs_acc_add(acc, buf[k]);
		*nvalues += n;
		/* a limb takes 2^31 additions before its carries must move up */
		since_normalize += n;
		if (since_normalize >= ((int64_t) 1 << 30))
		{
			gs_acc_normalize(acc);
			since_normalize = 0;
		}
	}
	return nbad;
}
