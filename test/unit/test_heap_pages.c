/*-------------------------------------------------------------------------
 *
 * test_heap_pages.c
 *	  The heap page walker (common/gpuscan_heap.h) and the CPU's exact sum
 *	  over raw pages (src/cpu/heap_sum.c), on pages built here the way
 *	  PostgreSQL's heap_fill_tuple() and PageAddItem() lay them out: every
 *	  kind of column before the one summed, NULLs, tuples written before a
 *	  column was added, line pointers that are not normal, and pages that
 *	  are not as the format says.  On the device (suite gpu_heap): the
 *	  values gsd_heap_values lays out, summed by gsd_sum_exact_f64, give
 *	  the CPU's sum, count and refused pages, bit for bit.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "cpu/heap_sum.h"
#include "gpuscan_device.h"

#define MAXALIGN(x)		(((x) + 7u) & ~7u)

/* a table's columns: the summed one last */
typedef struct table
{
	int			ncols;
	gs_heap_col col[GS_HEAP_MAX_COLS];
	int			type;			/* gs_heap_type of the last column */
	/* columns before it holding small integers (-2 .. 2): grouping keys */
	unsigned char small_int[GS_HEAP_MAX_COLS];
} table;

/* a page being built */
typedef struct page
{
	unsigned char *b;			/* GS_HEAP_PAGE_SIZE bytes, next to the other pages */
	uint32_t	lower,
				upper;
} page;

/* the pages of a test, one after the other as the walker takes them */
static unsigned char page_bytes[8][GS_HEAP_PAGE_SIZE];

static void
put16(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void
put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

/* natts_of -- the attribute count a tuple header says */
static int
natts_of(const unsigned char *tup)
{
	return (int) (gs_heap_u16(tup + GS_HEAP_T_INFOMASK2) & GS_HEAP_NATTS_MASK);
}

/* page_init -- an empty page, all-visible, no special space */
static void
page_init(page *pg, unsigned char *bytes)
{
	pg->b = bytes;
	memset(pg->b, 0, GS_HEAP_PAGE_SIZE);
	pg->lower = GS_HEAP_HEADER_SIZE;
	pg->upper = GS_HEAP_PAGE_SIZE;
	put16(pg->b + GS_HEAP_PD_FLAGS, GS_HEAP_ALL_VISIBLE);
	put16(pg->b + GS_HEAP_PD_LOWER, pg->lower);
	put16(pg->b + GS_HEAP_PD_UPPER, pg->upper);
	put16(pg->b + GS_HEAP_PD_SPECIAL, GS_HEAP_PAGE_SIZE);
}

/* page_add_lp -- a line pointer (flags, offset, length); whether it fitted */
static int
page_add_lp(page *pg, uint32_t flags, uint32_t off, uint32_t len)
{
	if (pg->lower + GS_HEAP_LP_SIZE > pg->upper)
		return 0;
	put32(pg->b + pg->lower, off | (flags << 15) | (len << 17));
	pg->lower += GS_HEAP_LP_SIZE;
	put16(pg->b + GS_HEAP_PD_LOWER, pg->lower);
	return 1;
}

/* page_add_tuple -- the tuple of len bytes placed as PageAddItem does; whether it fitted */
static int
page_add_tuple(page *pg, const unsigned char *tup, uint32_t len)
{
	uint32_t	at = pg->upper - MAXALIGN(len);

	if (pg->upper < MAXALIGN(len) || at < pg->lower + GS_HEAP_LP_SIZE)
		return 0;
	memcpy(pg->b + at, tup, len);
	pg->upper = at;
	put16(pg->b + GS_HEAP_PD_UPPER, at);
	return page_add_lp(pg, GS_HEAP_LP_NORMAL, at, len);
}

/* random_layout -- up to 12 columns of every kind, then the summed one */
static void
random_layout(table *t)
{
	static const gs_heap_col kinds[] = {
		{1, 1}, {2, 2}, {4, 4}, {8, 8},	/* bool/"char", int2, int4, int8/float8 */
		{6, 1}, {16, 1}, {12, 4},	/* macaddr, uuid, a 12-byte 4-aligned type */
		{-1, 4}, {-1, 8}, {-1, 1},	/* text, a double-aligned varlena, a 'c' one */
		{-2, 1}						/* cstring (name-like storage) */
	};
	int			n = (int) unit_rand_below(13);
	int			i;

	memset(t->small_int, 0, sizeof(t->small_int));
	for (i = 0; i < n; i++)
		t->col[i] = kinds[unit_rand_below(sizeof(kinds) / sizeof(kinds[0]))];
	t->type = unit_rand_below(2) ? GS_HEAP_FLOAT8 : GS_HEAP_FLOAT4;
	t->col[n].len = t->type == GS_HEAP_FLOAT8 ? 8 : 4;
	t->col[n].align = (uint8_t) t->col[n].len;
	t->ncols = n + 1;
}

/* random_value -- a double as the column stores it (a float's for real) */
static double
random_value(int type)
{
	double		v;

	switch (unit_rand_below(30))
	{
		case 0:
			v = -0.0;
			break;
		case 1:
			v = unit_bits_double(unit_rand64());	/* anything, NaN and Inf too */
			break;
		default:
			v = unit_rand_with_exponent((int) unit_rand_below(80) - 40);
	}
	return type == GS_HEAP_FLOAT4 ? (double) (float) v : v;
}

/*
 * random_table -- random_layout, and the walker's layout of it: the last
 * column's missing value random or NULL where it was added later
 */
static void
random_table(table *t, gs_heap_layout *layout, int added_later)
{
	random_layout(t);
	memset(layout, 0, sizeof(*layout));
	layout->ncols = t->ncols;
	layout->type = t->type;
	memcpy(layout->col, t->col, sizeof(t->col));
	layout->has_missing = added_later && unit_rand_below(2);
	layout->missing = layout->has_missing ? random_value(t->type) : 0;
}

/*
 * build_tuple -- a tuple of t's first natts columns as heap_fill_tuple
 * writes it, the last one (if natts reaches it) holding v (k for an
 * integer column) or, if v_null, NULL; other columns random, NULL one time
 * in four where nulls.  Returns its length.
 */
static uint32_t
build_tuple(unsigned char *tup, const table *t, int natts, int nulls, double v, int64_t k,
			int v_null)
{
	unsigned char isnull[GS_HEAP_MAX_COLS];
	int			hasnull = 0;
	uint32_t	hoff,
				off;
	int			a;

	for (a = 0; a < natts; a++)
	{
		isnull[a] = a == t->ncols - 1 ? v_null : (nulls && unit_rand_below(4) == 0);
		hasnull |= isnull[a];
	}
	memset(tup, 0, 4096);
	put16(tup + GS_HEAP_T_INFOMASK2, (uint32_t) natts);
	put16(tup + GS_HEAP_T_INFOMASK, hasnull ? GS_HEAP_HASNULL : 0);
	hoff = MAXALIGN(GS_HEAP_T_BITS + (hasnull ? (natts + 7) / 8 : 0));
	tup[GS_HEAP_T_HOFF] = (unsigned char) hoff;
	for (a = 0; a < natts && hasnull; a++)
		if (!isnull[a])
			tup[GS_HEAP_T_BITS + a / 8] |= (unsigned char) (1 << (a % 8));
	off = hoff;
	for (a = 0; a < natts; a++)
	{
		const gs_heap_col *c = &t->col[a];

		if (isnull[a])
			continue;
		if (a == t->ncols - 1)
		{
			off = (off + c->align - 1) & ~(uint32_t) (c->align - 1);
			if (t->type == GS_HEAP_FLOAT8)
				memcpy(tup + off, &v, 8);
			else if (t->type == GS_HEAP_FLOAT4)
			{
				float		f = (float) v;

				memcpy(tup + off, &f, 4);
			}
			else
			{
				/* little-endian: the low c->len bytes of k */
				for (int b = 0; b < c->len; b++)
					tup[off + b] = (unsigned char) ((uint64_t) k >> (8 * b));
			}
			off += (uint32_t) c->len;
		}
		else if (c->len > 0)
		{
			int64_t		small = (int64_t) unit_rand_below(5) - 2;

			off = (off + c->align - 1) & ~(uint32_t) (c->align - 1);
			for (int k = 0; k < c->len; k++)
				tup[off + k] = t->small_int[a] ? (unsigned char) ((uint64_t) small >> (8 * k)) :
					(unsigned char) unit_rand64();
			off += (uint32_t) c->len;
		}
		else if (c->len == -1)
		{
			uint32_t	kind = (uint32_t) unit_rand_below(3);
			uint32_t	data = (uint32_t) unit_rand_below(kind == 1 ? 300 : 126);

			if (kind == 0)
			{
				/* a short header, never aligned */
				tup[off] = (unsigned char) (((data + 1) << 1) | 1);
				memset(tup + off + 1, 'x', data);
				off += data + 1;
			}
			else if (kind == 1)
			{
				/* a 4-byte header, aligned; the pad bytes before it zero */
				off = (off + c->align - 1) & ~(uint32_t) (c->align - 1);
				put32(tup + off, (data + 4) << 2);
				memset(tup + off + 4, 'y', data);
				off += data + 4;
			}
			else
			{
				/* a TOAST pointer, never aligned */
				tup[off] = 0x01;
				tup[off + 1] = GS_HEAP_VARTAG_ONDISK;
				memset(tup + off + 2, 0x5a, GS_HEAP_TOAST_POINTER_SIZE);
				off += GS_HEAP_VARHDRSZ_EXTERNAL + GS_HEAP_TOAST_POINTER_SIZE;
			}
		}
		else
		{
			uint32_t	n = (uint32_t) unit_rand_below(40);

			memset(tup + off, 'c', n);
			tup[off + n] = 0;
			off += n + 1;
		}
	}
	return off;
}

/*
 * check_pages -- random pages of random tables summed by the walker
 * against the sum of the values put in
 */
static void
check_pages(int round)
{
	page		pages[8];
	unsigned char tup[4096];
	unsigned char bad[8];
	table		t;
	gs_heap_layout layout;
	gs_exact_acc want,
				got;
	int64_t		want_n = 0,
				got_n = 0;
	int			added_later = unit_rand_below(4) == 0;
	int			nulls = unit_rand_below(2);
	int			p,
				nbad;

	random_table(&t, &layout, added_later);
	unit_case("heap pages: round %d, %d columns before a %s, %s%s", round, t.ncols - 1,
			  t.type == GS_HEAP_FLOAT8 ? "float8" : "float4", nulls ? "NULLs" : "no NULLs",
			  added_later ? (layout.has_missing ? ", added with a default" : ", added later") : "");
	gs_acc_zero(&want);
	gs_acc_zero(&got);
	for (p = 0; p < 8; p++)
	{
		page_init(&pages[p], page_bytes[p]);
		for (;;)
		{
			int			natts = added_later && unit_rand_below(3) == 0 ? t.ncols - 1 : t.ncols;
			int			v_null = nulls && unit_rand_below(5) == 0;
			double		v = random_value(t.type);
			uint32_t	len;

			/* line pointers without storage among the tuples: unused, redirect, dead */
			if (unit_rand_below(10) == 0 &&
				!page_add_lp(&pages[p], (uint32_t) ((uint64_t[]) {0, 2, 3})[unit_rand_below(3)], 0, 0))
				break;
			len = build_tuple(tup, &t, natts, nulls, v, 0, v_null);
			if (!page_add_tuple(&pages[p], tup, len))
				break;
			if (natts < t.ncols)
			{
				if (layout.has_missing)
				{
					gs_acc_add(&want, layout.missing);
					want_n++;
				}
			}
			else if (!v_null)
			{
				gs_acc_add(&want, v);
				want_n++;
			}
		}
	}
	nbad = gs_heap_pages_sum(pages[0].b, 8, &layout, &got, &got_n, bad);
	UNIT_CHECK(nbad == 0, "%d pages not read", nbad);
	UNIT_CHECK(got_n == want_n, "%lld values, want %lld", (long long) got_n, (long long) want_n);
	unit_check_acc("the sum", &want, &got);
}

/*
 * check_bad_pages -- a page whose header, line pointer or tuple is not as
 * the format says is reported and adds nothing; the other pages still count
 */
static void
check_bad_pages(void)
{
	page		pages[2];
	unsigned char tup[4096];
	unsigned char bad[2];
	table		t = {0};
	gs_heap_layout layout;
	gs_exact_acc want,
				got;
	int64_t		n;
	uint32_t	len;
	int			how;

	t.ncols = 2;
	t.col[0].len = -1;
	t.col[0].align = 4;
	t.col[1].len = 8;
	t.col[1].align = 8;
	t.type = GS_HEAP_FLOAT8;
	memset(&layout, 0, sizeof(layout));
	layout.ncols = 2;
	layout.type = GS_HEAP_FLOAT8;
	memcpy(layout.col, t.col, sizeof(t.col));
	for (how = 0; how < 6; how++)
	{
		unit_case("heap pages: a page not as the format says (%d) adds nothing", how);
		gs_acc_zero(&want);
		gs_acc_zero(&got);
		n = 0;
		for (int p = 0; p < 2; p++)
		{
			page_init(&pages[p], page_bytes[p]);
			for (int k = 0; k < 20; k++)
			{
				len = build_tuple(tup, &t, 2, 0, 1.5 + k, 0, 0);
				page_add_tuple(&pages[p], tup, len);
			}
		}
		for (int k = 0; k < 20; k++)
			gs_acc_add(&want, 1.5 + k);
		/* spoil page 0 */
		switch (how)
		{
			case 0:				/* pd_lower past pd_upper */
				put16(pages[0].b + GS_HEAP_PD_LOWER, pages[0].upper + 8);
				break;
			case 1:				/* a line pointer past the page */
				put32(pages[0].b + GS_HEAP_HEADER_SIZE,
					  (GS_HEAP_PAGE_SIZE - 16) | (GS_HEAP_LP_NORMAL << 15) | (64u << 17));
				break;
			case 2:				/* a tuple shorter than its header */
				put32(pages[0].b + GS_HEAP_HEADER_SIZE,
					  pages[0].upper | (GS_HEAP_LP_NORMAL << 15) | (12u << 17));
				break;
			case 3:				/* t_hoff inside the fixed header */
				pages[0].b[pages[0].upper + GS_HEAP_T_HOFF] = 21;
				break;
			case 4:				/* a varlena longer than its tuple */
				put32(pages[0].b + pages[0].upper + 24, 4000u << 2);
				break;
			case 5:				/* an external varlena that is not a TOAST pointer */
				{
					unsigned char *d = pages[0].b + pages[0].upper + 24;

					d[0] = 0x01;
					d[1] = 1;	/* VARTAG_INDIRECT: never on disk */
				}
				break;
		}
		UNIT_CHECK(gs_heap_pages_sum(pages[0].b, 2, &layout, &got, &n, bad) == 1,
				   "one page reported");
		UNIT_CHECK(bad[0] == 1 && bad[1] == 0, "page 0 reported, page 1 read");
		UNIT_CHECK(n == 20, "%lld values, want 20", (long long) n);
		unit_check_acc("the sum of page 1", &want, &got);
	}
}

/* check_all_visible -- the page's PD_ALL_VISIBLE as the walker sees it */
static void
check_all_visible(void)
{
	page		pg;

	unit_case("heap pages: PD_ALL_VISIBLE");
	page_init(&pg, page_bytes[0]);
	UNIT_CHECK(gs_heap_page_all_visible(pg.b), "set");
	put16(pg.b + GS_HEAP_PD_FLAGS, 0x0001 | 0x0002);	/* PD_HAS_FREE_LINES, PD_PAGE_FULL */
	UNIT_CHECK(!gs_heap_page_all_visible(pg.b), "not set");
}

/*
 * check_int_keys -- a page of random tuples whose last column is an int2,
 * int4 or int8 (a grouping key), NULL, or missing (added later, with or
 * without a default): gs_heap_read_int gives back each key as written
 */
static void
check_int_keys(int round)
{
	static const int types[] = {GS_HEAP_INT2, GS_HEAP_INT4, GS_HEAP_INT8};
	unsigned char tup[4096];
	int64_t		want[GS_HEAP_MAX_TUPLES];
	int			want_st[GS_HEAP_MAX_TUPLES];
	table		t;
	gs_heap_layout layout;
	page		pg;
	int			added_later = unit_rand_below(3) == 0;
	int			nulls = unit_rand_below(2);
	int			width,
				n = 0,
				i;

	random_table(&t, &layout, added_later);
	t.type = types[unit_rand_below(3)];
	width = t.type == GS_HEAP_INT2 ? 2 : t.type == GS_HEAP_INT4 ? 4 : 8;
	t.col[t.ncols - 1].len = (int16_t) width;
	t.col[t.ncols - 1].align = (uint8_t) width;
	layout.type = t.type;
	layout.col[t.ncols - 1] = t.col[t.ncols - 1];
	layout.missing_int = layout.has_missing ? (int64_t) unit_rand64() >> (64 - 8 * width) : 0;
	unit_case("heap pages: int keys, round %d, %d columns before an int%d%s", round, t.ncols - 1,
			  width, added_later ? (layout.has_missing ? ", added with a default" : ", added later") : "");
	page_init(&pg, page_bytes[0]);
	for (;;)
	{
		int			natts = added_later && unit_rand_below(3) == 0 ? t.ncols - 1 : t.ncols;
		int			v_null = nulls && unit_rand_below(5) == 0;
		/* any value of the type, its extremes among them */
		int64_t		k = (int64_t) unit_rand64() >> (64 - 8 * width);
		uint32_t	len = build_tuple(tup, &t, natts, nulls, 0, k, v_null);

		if (!page_add_tuple(&pg, tup, len))
			break;
		if (natts < t.ncols)
		{
			want_st[n] = layout.has_missing ? GS_HEAP_VALUE : GS_HEAP_NULL;
			want[n] = layout.missing_int;
		}
		else
		{
			want_st[n] = v_null ? GS_HEAP_NULL : GS_HEAP_VALUE;
			want[n] = k;
		}
		n++;
	}
	UNIT_CHECK(gs_heap_page_items(pg.b) == n, "%d line pointers, want %d", gs_heap_page_items(pg.b), n);
	for (i = 0; i < n; i++)
	{
		uint32_t	off = 0,
					len = 0;
		int64_t		got = 0;
		int			st;

		UNIT_CHECK(gs_heap_item(pg.b, i, &off, &len) == 1, "line pointer %d", i);
		st = gs_heap_read_int(pg.b + off, len, &layout, &got);
		UNIT_CHECK(st == want_st[i] && (st != GS_HEAP_VALUE || got == want[i]),
				   "tuple %d: status %d key %lld, want %d %lld", i, st, (long long) got,
				   want_st[i], (long long) want[i]);
		/* the float reader refuses an integer column */
		if (st == GS_HEAP_VALUE && natts_of(pg.b + off) == t.ncols)
		{
			double		v;

			UNIT_CHECK(gs_heap_read(pg.b + off, len, &layout, &v) == GS_HEAP_BAD,
					   "tuple %d: gs_heap_read took an int%d column", i, width);
		}
	}
}

void
suite_heap_pages(void)
{
	unit_seed(0x6865617070616765ULL);
	for (int round = 0; round < 200; round++)
		check_pages(round);
	check_bad_pages();
	check_all_visible();
	for (int round = 0; round < 100; round++)
		check_int_keys(round);
}

/*
 * fill_random_pages -- npages pages of random tuples of t (nulls, tuples
 * written before the last column was added where added_later), each value
 * of the summed column also added into want; page k is spoiled (a varlena
 * longer than its tuple, or a line pointer past the page) where spoil[k]
 */
static void
fill_random_pages(page *pages, unsigned char (*bytes)[GS_HEAP_PAGE_SIZE], int npages, const table *t,
				  int nulls, int added_later, const int *spoil)
{
	unsigned char tup[4096];

	for (int p = 0; p < npages; p++)
	{
		page_init(&pages[p], bytes[p]);
		for (;;)
		{
			int			natts = added_later && unit_rand_below(3) == 0 ? t->ncols - 1 : t->ncols;
			uint32_t	len = build_tuple(tup, t, natts, nulls, random_value(t->type), 0,
										  nulls && unit_rand_below(5) == 0);

			if (!page_add_tuple(&pages[p], tup, len))
				break;
		}
		if (spoil[p] == 1)
			put32(pages[p].b + GS_HEAP_HEADER_SIZE,
				  (GS_HEAP_PAGE_SIZE - 16) | (GS_HEAP_LP_NORMAL << 15) | (64u << 17));
		else if (spoil[p] == 2)
			pages[p].b[pages[p].upper + GS_HEAP_T_HOFF] = 21;
	}
}

/*
 * check_device_pages -- one round of random pages on the device against
 * the CPU: each page read either in place from host memory mapped for the
 * device (bytes, at d_host there; as shared buffers are) or from a copy in
 * device memory, at random
 */
static void
check_device_pages(int round, int npages, unsigned char (*bytes)[GS_HEAP_PAGE_SIZE],
				   const void *d_host)
{
	page		pages[64];
	gs_heap_page_ref refs[64];
	gs_heap_page_ref *d_refs = NULL;
	int			spoil[64];
	table		t;
	gs_heap_layout layout;
	gs_exact_acc want,
				got;
	unsigned char want_bad[64],
				got_bad[64];
	int64_t		want_n = 0;
	unsigned long long got_n = 0;
	int			nulls = unit_rand_below(2);
	int			added_later = unit_rand_below(3) == 0;
	size_t		nvals = (size_t) npages * GS_HEAP_MAX_TUPLES;
	void	   *d_pages = NULL;
	double	   *d_values = NULL;
	unsigned char *d_bad = NULL;
	unsigned long long *d_n = NULL;
	gs_exact_acc *d_acc = NULL;

	random_table(&t, &layout, added_later);
	for (int p = 0; p < npages; p++)
		spoil[p] = unit_rand_below(8) == 0 ? 1 + (int) unit_rand_below(2) : 0;
	unit_case("gpu heap pages: round %d, %d pages, %d columns before a %s", round, npages,
			  t.ncols - 1, t.type == GS_HEAP_FLOAT8 ? "float8" : "float4");
	fill_random_pages(pages, bytes, npages, &t, nulls, added_later, spoil);
	gs_acc_zero(&want);
	gs_heap_pages_sum(bytes[0], npages, &layout, &want, &want_n, want_bad);

	for (int p = 0; p < npages; p++)
	{
		refs[p].buffer = d_host != NULL && unit_rand_below(2) == 0 ? p : -1 - p;
		refs[p].nitems = gs_heap_page_items(bytes[p]);
	}
	d_pages = unit_device_copy(bytes[0], (size_t) npages * GS_HEAP_PAGE_SIZE);
	d_refs = unit_device_copy(refs, sizeof(gs_heap_page_ref) * npages);
	UNIT_CHECK(d_pages != NULL && d_refs != NULL, "upload: %s", gsd_last_error());
	UNIT_CHECK(gsd_alloc(nvals * sizeof(double), (void **) &d_values) == GSD_OK &&
			   gsd_alloc(64, (void **) &d_bad) == GSD_OK &&
			   gsd_alloc(sizeof(*d_n), (void **) &d_n) == GSD_OK &&
			   gsd_alloc(sizeof(gs_exact_acc), (void **) &d_acc) == GSD_OK,
			   "alloc: %s", gsd_last_error());
	if (d_pages && d_refs && d_values && d_bad && d_n && d_acc)
	{
		UNIT_CHECK(gsd_memset_zero(d_n, sizeof(*d_n)) == GSD_OK &&
				   gsd_memset_zero(d_acc, sizeof(gs_exact_acc)) == GSD_OK, "zero");
		UNIT_CHECK(gsd_heap_values(d_host, d_host ? 64 : 0, d_pages, (size_t) npages, d_refs,
								   (size_t) npages, &layout, d_values, d_bad, d_n) == GSD_OK,
				   "gsd_heap_values: %s", gsd_last_error());
		UNIT_CHECK(gsd_sum_exact_f64(d_values, nvals, d_acc, NULL) == GSD_OK,
				   "gsd_sum_exact_f64: %s", gsd_last_error());
		UNIT_CHECK(gsd_download(&got, d_acc, sizeof(got)) == GSD_OK &&
				   gsd_download(got_bad, d_bad, (size_t) npages) == GSD_OK &&
				   gsd_download(&got_n, d_n, sizeof(got_n)) == GSD_OK,
				   "download: %s", gsd_last_error());
		UNIT_CHECK(got_n == (unsigned long long) want_n, "%llu values, want %lld", got_n,
				   (long long) want_n);
		UNIT_CHECK(memcmp(got_bad, want_bad, (size_t) npages) == 0, "the refused pages differ");
		gs_acc_normalize(&want);
		unit_check_acc("the sum", &want, &got);
	}
	gsd_free(d_pages);
	gsd_free(d_refs);
	gsd_free(d_values);
	gsd_free(d_bad);
	gsd_free(d_n);
	gsd_free(d_acc);
}

/* a group of the reference: its keys (a NULL one 0, its bit in nulls), sum and count */
typedef struct ref_group
{
	int64_t		key[GS_HEAP_MAX_KEYS];
	uint32_t	nulls;
	gs_exact_acc acc;
	unsigned long long count;
} ref_group;

/* ref_group_of -- the reference's group of nkeys keys, added if new */
static ref_group *
ref_group_of(ref_group *groups, int *ngroups, int nkeys, const int64_t *key, uint32_t nulls)
{
	for (int g = 0; g < *ngroups; g++)
		if (groups[g].nulls == nulls && memcmp(groups[g].key, key, sizeof(int64_t) * nkeys) == 0)
			return &groups[g];
	memset(&groups[*ngroups], 0, sizeof(ref_group));
	memcpy(groups[*ngroups].key, key, sizeof(int64_t) * nkeys);
	groups[*ngroups].nulls = nulls;
	return &groups[(*ngroups)++];
}

/*
 * check_device_groups -- one round of GROUP BY one to GS_HEAP_MAX_KEYS
 * integer keys over random pages on the device (gsd_heap_group_sums,
 * pages in place and copies as check_device_pages) against the same walk
 * on the CPU: the same groups, counts and exact sums; a table too small
 * for the groups says so
 */
static void
check_device_groups(int round, int npages, unsigned char (*bytes)[GS_HEAP_PAGE_SIZE],
					const void *d_host)
{
	static const int types[] = {GS_HEAP_INT2, GS_HEAP_INT4, GS_HEAP_INT8};
	static ref_group want[64 * GS_HEAP_MAX_TUPLES];
	static int64_t keys_host[4096 * GS_HEAP_MAX_KEYS];
	static uint32_t state_host[4096],
				nulls_host[4096];
	static unsigned long long counts_host[4096];
	static gs_exact_acc accs_host[4096];
	unsigned char tup[4096];
	gs_heap_page_ref refs[64];
	unsigned char want_bad[64],
				got_bad[64];
	table		t;
	gs_heap_layout key_layouts[GS_HEAP_MAX_KEYS],
				value_layout;
	int			ngroups_drawn = ((const int[]) {1, 7, 100, 1000})[unit_rand_below(4)];
	int			nulls = unit_rand_below(2);
	int			nkeys = 1 + (int) unit_rand_below(GS_HEAP_MAX_KEYS);
	int			width,
				vcol,
				nwant = 0;
	uint32_t	capacity,
				full = 0;
	void	   *d_pages = NULL;
	gs_heap_page_ref *d_refs = NULL;
	unsigned char *d_bad = NULL;
	uint32_t   *d_full = NULL;
	gsd_group_table tab = {0};

	/*
	 * the table: random columns, then the float8 summed and nkeys - 1 small
	 * integer keys among them (placed at random), the key of many values
	 * last
	 */
	random_layout(&t);
	while (t.ncols < nkeys + 1)
		t.col[t.ncols++] = (gs_heap_col) {8, 8};
	vcol = (int) unit_rand_below(t.ncols - 1);
	t.col[vcol] = (gs_heap_col) {8, 8};
	t.type = types[unit_rand_below(3)];
	width = t.type == GS_HEAP_INT2 ? 2 : t.type == GS_HEAP_INT4 ? 4 : 8;
	t.col[t.ncols - 1].len = (int16_t) width;
	t.col[t.ncols - 1].align = (uint8_t) width;
	memset(key_layouts, 0, sizeof(key_layouts));
	for (int j = 0; j < nkeys; j++)
	{
		int			c = t.ncols - 1;
		int			type = t.type;

		if (j < nkeys - 1)
		{
			/* a column before the last, not the summed one nor a key already */
			do
				c = (int) unit_rand_below(t.ncols - 1);
			while (c == vcol || t.small_int[c]);
			type = types[unit_rand_below(3)];
			t.col[c].len = (int16_t) (type == GS_HEAP_INT2 ? 2 : type == GS_HEAP_INT4 ? 4 : 8);
			t.col[c].align = (uint8_t) t.col[c].len;
			t.small_int[c] = 1;
		}
		key_layouts[j].ncols = c + 1;
		key_layouts[j].type = type;
	}
	/* the last key first or last among the keys */
	if (nkeys > 1 && unit_rand_below(2))
	{
		gs_heap_layout last = key_layouts[nkeys - 1];

		memmove(&key_layouts[1], &key_layouts[0], sizeof(gs_heap_layout) * (nkeys - 1));
		key_layouts[0] = last;
	}
	for (int j = 0; j < nkeys; j++)
		memcpy(key_layouts[j].col, t.col, sizeof(t.col));
	memset(&value_layout, 0, sizeof(value_layout));
	value_layout.ncols = vcol + 1;
	value_layout.type = GS_HEAP_FLOAT8;
	memcpy(value_layout.col, t.col, sizeof(t.col));
	capacity = unit_rand_below(6) == 0 ? 8 : 4096;
	unit_case("gpu heap groups: round %d, %d pages, %d keys (%d values drawn for the int%d), %u slots",
			  round, npages, nkeys, ngroups_drawn, width, capacity);

	/* the pages, and the reference's groups by the walker on the CPU */
	for (int p = 0; p < npages; p++)
	{
		page		pg;
		int			n = 0;

		page_init(&pg, bytes[p]);
		for (;;)
		{
			int64_t		k = ((int64_t) unit_rand_below((uint64_t) ngroups_drawn) - ngroups_drawn / 2) *
				(width == 8 ? INT64_C(0x100000007) : 1);
			uint32_t	len = build_tuple(tup, &t, t.ncols, nulls, 0, k,
										  nulls && unit_rand_below(8) == 0);

			if (!page_add_tuple(&pg, tup, len))
				break;
			n++;
		}
		refs[p].buffer = d_host != NULL && unit_rand_below(2) == 0 ? p : -1 - p;
		refs[p].nitems = n;
		want_bad[p] = 0;
		for (int i = 0; i < n; i++)
		{
			uint32_t	off = 0,
						len = 0;
			int64_t		key[GS_HEAP_MAX_KEYS];
			uint32_t	key_nulls = 0;
			double		v = 0;
			ref_group  *g;

			(void) gs_heap_item(pg.b, i, &off, &len);
			for (int j = 0; j < nkeys; j++)
			{
				key[j] = 0;
				if (gs_heap_read_int(pg.b + off, len, &key_layouts[j], &key[j]) == GS_HEAP_NULL)
				{
					key[j] = 0;
					key_nulls |= 1u << j;
				}
			}
			g = ref_group_of(want, &nwant, nkeys, key, key_nulls);
			if (gs_heap_read(pg.b + off, len, &value_layout, &v) == GS_HEAP_VALUE)
			{
				gs_acc_add(&g->acc, v);
				g->count++;
			}
		}
	}

	d_pages = unit_device_copy(bytes[0], (size_t) npages * GS_HEAP_PAGE_SIZE);
	d_refs = unit_device_copy(refs, sizeof(gs_heap_page_ref) * npages);
	tab.capacity = capacity;
	tab.nkeys = nkeys;
	UNIT_CHECK(d_pages && d_refs && gsd_alloc(64, (void **) &d_bad) == GSD_OK &&
			   gsd_alloc(sizeof(uint32_t), (void **) &d_full) == GSD_OK &&
			   gsd_alloc(capacity * sizeof(uint32_t), (void **) &tab.state) == GSD_OK &&
			   gsd_alloc(capacity * nkeys * sizeof(int64_t), (void **) &tab.keys) == GSD_OK &&
			   gsd_alloc(capacity * sizeof(uint32_t), (void **) &tab.nulls) == GSD_OK &&
			   gsd_alloc(capacity * sizeof(gs_exact_acc), (void **) &tab.accs) == GSD_OK &&
			   gsd_alloc(capacity * sizeof(unsigned long long), (void **) &tab.counts) == GSD_OK,
			   "alloc: %s", gsd_last_error());
	if (d_pages && d_refs && d_bad && d_full && tab.state && tab.keys && tab.nulls && tab.accs &&
		tab.counts)
	{
		UNIT_CHECK(gsd_memset_zero(d_full, sizeof(uint32_t)) == GSD_OK &&
				   gsd_memset_zero(tab.state, capacity * sizeof(uint32_t)) == GSD_OK &&
				   gsd_memset_zero(tab.accs, capacity * sizeof(gs_exact_acc)) == GSD_OK &&
				   gsd_memset_zero(tab.counts, capacity * sizeof(unsigned long long)) == GSD_OK,
				   "zero");
		UNIT_CHECK(gsd_heap_group_sums(d_host, d_host ? 64 : 0, d_pages, (size_t) npages, d_refs,
									   (size_t) npages, key_layouts, &value_layout, tab, d_bad,
									   d_full) == GSD_OK,
				   "gsd_heap_group_sums: %s", gsd_last_error());
		UNIT_CHECK(gsd_download(&full, d_full, sizeof(full)) == GSD_OK &&
				   gsd_download(got_bad, d_bad, (size_t) npages) == GSD_OK &&
				   gsd_download(state_host, tab.state, capacity * sizeof(uint32_t)) == GSD_OK &&
				   gsd_download(keys_host, tab.keys, capacity * nkeys * sizeof(int64_t)) == GSD_OK &&
				   gsd_download(nulls_host, tab.nulls, capacity * sizeof(uint32_t)) == GSD_OK &&
				   gsd_download(accs_host, tab.accs, capacity * sizeof(gs_exact_acc)) == GSD_OK &&
				   gsd_download(counts_host, tab.counts,
								capacity * sizeof(unsigned long long)) == GSD_OK,
				   "download: %s", gsd_last_error());
		UNIT_CHECK(memcmp(got_bad, want_bad, (size_t) npages) == 0, "the refused pages differ");
		UNIT_CHECK(full == (nwant > (int) capacity), "full %u with %d groups in %u slots", full,
				   nwant, capacity);
		if (!full)
		{
			int			ready = 0;

			for (uint32_t s = 0; s < capacity; s++)
				ready += state_host[s] == 2;
			UNIT_CHECK(ready == nwant, "%d groups, want %d", ready, nwant);
			for (int g = 0; g < nwant; g++)
			{
				uint32_t	s;

				for (s = 0; s < capacity; s++)
					if (state_host[s] == 2 && nulls_host[s] == want[g].nulls &&
						memcmp(&keys_host[(size_t) s * nkeys], want[g].key,
							   sizeof(int64_t) * nkeys) == 0)
						break;
				UNIT_CHECK(s < capacity, "group %d (first key %lld, NULLs %x) missing", g,
						   (long long) want[g].key[0], want[g].nulls);
				if (s == capacity)
					continue;
				UNIT_CHECK(counts_host[s] == want[g].count, "group %d: %llu values, want %llu",
						   g, counts_host[s], want[g].count);
				gs_acc_normalize(&want[g].acc);
				gs_acc_normalize(&accs_host[s]);
				unit_check_acc("a group's sum", &want[g].acc, &accs_host[s]);
			}
		}
	}
	gsd_free(d_pages);
	gsd_free(d_refs);
	gsd_free(d_bad);
	gsd_free(d_full);
	gsd_free(tab.state);
	gsd_free(tab.keys);
	gsd_free(tab.nulls);
	gsd_free(tab.accs);
	gsd_free(tab.counts);
}

void
suite_gpu_heap(void)
{
	/*
	 * 64 pages of host memory mapped for the device, once and for the life
	 * of the process, as the service maps shared buffers
	 */
	static unsigned char (*bytes)[GS_HEAP_PAGE_SIZE] = NULL;
	static const void *d_host = NULL;

	unit_seed(0x6770756865617021ULL);
	unit_case("gpu heap pages: host memory mapped for the device");
	if (bytes == NULL)
	{
		void	   *host = NULL;

		if (posix_memalign(&host, GS_HEAP_PAGE_SIZE, 64 * GS_HEAP_PAGE_SIZE) == 0)
			bytes = host;
		UNIT_CHECK(bytes != NULL && gsd_host_map(bytes, 64 * GS_HEAP_PAGE_SIZE, &d_host) == GSD_OK &&
				   d_host != NULL, "gsd_host_map: %s", gsd_last_error());
	}
	for (int round = 0; bytes != NULL && round < 40; round++)
		check_device_pages(round, 1 + (int) unit_rand_below(64), bytes, d_host);
	for (int round = 0; bytes != NULL && round < 40; round++)
		check_device_groups(round, 1 + (int) unit_rand_below(64), bytes, d_host);
}
