/*-------------------------------------------------------------------------
 *
 * gpuscan_heap.h
 *	  Reading the values of one column from a raw 8 kB heap page, shared by
 *	  the CPU code (src/) and the CUDA code (kernels/): the walk over the
 *	  line pointers and the deforming of a tuple up to one column.
 *
 * PostgreSQL's heap page format (page layout version 4, unchanged since
 * PostgreSQL 8.3) restated in plain C, for code that may not include
 * PostgreSQL's headers.  The session side checks these figures against
 * PostgreSQL's own (offsetof, the flag values, the line pointer's bit
 * layout) when it is built, so that a server whose format differed would
 * not compile rather than read wrong values.
 *
 * A page is read only where every tuple on it is visible to every
 * snapshot: the caller checks PD_ALL_VISIBLE (gs_heap_page_all_visible)
 * under the rules of heapgetpage().  The walker then reads every normal
 * line pointer's tuple; it checks each offset and length against the page
 * and reports a page it cannot read (GS_HEAP_BAD) instead of reading past
 * it, since the bytes come from shared buffers another process writes.
 *
 * The columns before the one read are stepped over: fixed width
 * (attlen > 0) at their alignment, varlena (attlen -1) by their header
 * (short, 4-byte or a TOAST pointer; the pad bytes before a 4-byte one),
 * cstrings (attlen -2) to their terminator, and NULLs by the null bitmap.
 * A tuple with fewer attributes than the column (the column added after
 * it was written) takes the column's missing value: NULL, or the
 * default the catalog holds (attmissingval), which the caller passes.
 *
 * Plain C99 for gcc and nvcc; under nvcc the functions are __host__
 * __device__.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_HEAP_H
#define GPUSCAN_HEAP_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GS_HEAP_HD __host__ __device__ __forceinline__
#else
#define GS_HEAP_HD static inline
#endif

/* the page: BLCKSZ 8192 (the session refuses another block size) */
#define GS_HEAP_PAGE_SIZE		8192
#define GS_HEAP_HEADER_SIZE		24	/* SizeOfPageHeaderData: line pointers start here */
#define GS_HEAP_PD_FLAGS		10	/* offsetof(PageHeaderData, pd_flags) */
#define GS_HEAP_PD_LOWER		12	/* offsetof(PageHeaderData, pd_lower) */
#define GS_HEAP_PD_UPPER		14	/* offsetof(PageHeaderData, pd_upper) */
#define GS_HEAP_PD_SPECIAL		16	/* offsetof(PageHeaderData, pd_special) */
#define GS_HEAP_ALL_VISIBLE		0x0004	/* PD_ALL_VISIBLE */

/* a line pointer (ItemIdData): lp_off 15 bits, lp_flags 2, lp_len 15 */
#define GS_HEAP_LP_SIZE			4
#define GS_HEAP_LP_NORMAL		1	/* LP_NORMAL */

/* the tuple header (HeapTupleHeaderData) */
#define GS_HEAP_T_INFOMASK2		18	/* offsetof(HeapTupleHeaderData, t_infomask2) */
#define GS_HEAP_T_INFOMASK		20	/* offsetof(HeapTupleHeaderData, t_infomask) */
#define GS_HEAP_T_HOFF			22	/* offsetof(HeapTupleHeaderData, t_hoff) */
#define GS_HEAP_T_BITS			23	/* offsetof(HeapTupleHeaderData, t_bits) */
#define GS_HEAP_HASNULL			0x0001	/* HEAP_HASNULL */
#define GS_HEAP_NATTS_MASK		0x07FF	/* HEAP_NATTS_MASK */

/* a varlena's headers: see postgres.h (varatt.h from PostgreSQL 16) */
#define GS_HEAP_VARHDRSZ_EXTERNAL	2	/* offsetof(varattrib_1b_e, va_data) */
#define GS_HEAP_VARTAG_ONDISK		18	/* VARTAG_ONDISK */
#define GS_HEAP_TOAST_POINTER_SIZE	16	/* sizeof(varatt_external) */

/* the most tuples an 8 kB heap page holds (MaxHeapTuplesPerPage) */
#define GS_HEAP_MAX_TUPLES		291

/* the most columns the walker steps over before the one it reads */
#define GS_HEAP_MAX_COLS		64

/* the most grouping columns of a GROUP BY whose sums the GPU takes */
#define GS_HEAP_MAX_KEYS		4

/* what a column's values are, for the column read */
typedef enum gs_heap_type
{
	GS_HEAP_FLOAT8 = 1,
	GS_HEAP_FLOAT4 = 2,
	GS_HEAP_INT2 = 3,			/* integer columns: grouping keys */
	GS_HEAP_INT4 = 4,
	GS_HEAP_INT8 = 5
} gs_heap_type;

/* one column as pg_attribute describes it */
typedef struct gs_heap_col
{
	int16_t		len;			/* attlen: > 0 fixed width, -1 varlena, -2 cstring */
	uint8_t		align;			/* attalign as bytes: 1, 2, 4 or 8 */
	uint8_t		pad;
} gs_heap_col;

/*
 * the layout of the columns up to the one read (col[ncols - 1]), and that
 * column's value where a tuple lacks it (has_missing 0: NULL): missing
 * for a float column, missing_int for an integer one
 */
typedef struct gs_heap_layout
{
	int32_t		ncols;
	int32_t		type;			/* gs_heap_type of col[ncols - 1] */
	int32_t		has_missing;
	int32_t		pad;
	double		missing;
	int64_t		missing_int;
	gs_heap_col col[GS_HEAP_MAX_COLS];
} gs_heap_layout;

/*
 * A page of a batch the GPU reads (GS_OP_HEAP_SUM): a buffer of shared
 * buffers the session keeps pinned while the GPU reads it (buffer >= 0,
 * its index from 0), or a copy the session made under the page's lock
 * (buffer < 0: copy -1 - buffer of the batch's copies).  nitems is the
 * count of line pointers the page had under the session's lock: the only
 * ones read (a tuple added since is not in the session's snapshot; a pin
 * keeps the others where they are, as heapgetpage relies on).
 */
typedef struct gs_heap_page_ref
{
	int32_t		buffer;
	int32_t		nitems;
} gs_heap_page_ref;

/*
 * gs_heap_ref_page -- the page ref names, among nshared shared buffers at
 * shared and ncopies copies at copies; NULL where it names none or its
 * nitems is out of range (the ref comes from another process)
 */
GS_HEAP_HD const unsigned char *
gs_heap_ref_page(gs_heap_page_ref ref, const unsigned char *shared, size_t nshared,
				 const unsigned char *copies, size_t ncopies)
{
	if (ref.nitems < 0 || ref.nitems > GS_HEAP_MAX_TUPLES)
		return NULL;
	if (ref.buffer >= 0)
		return shared != NULL && (size_t) ref.buffer < nshared ?
			shared + (size_t) ref.buffer * GS_HEAP_PAGE_SIZE : NULL;
	return copies != NULL && (size_t) (-1 - (int64_t) ref.buffer) < ncopies ?
		copies + (size_t) (-1 - (int64_t) ref.buffer) * GS_HEAP_PAGE_SIZE : NULL;
}

/* what reading a tuple's column gave */
typedef enum gs_heap_status
{
	GS_HEAP_VALUE = 0,			/* *value holds it */
	GS_HEAP_NULL = 1,			/* NULL: counts for nothing */
	GS_HEAP_MISSING = 2,		/* gs_heap_locate: the tuple predates the column,
								 * whose default stands for it */
	GS_HEAP_BAD = -1			/* the tuple or the page is not as the format says */
} gs_heap_status;

/* gs_heap_u16 -- the 16-bit little-endian field at p */
GS_HEAP_HD uint32_t
gs_heap_u16(const unsigned char *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8);
}

/* gs_heap_u32 -- the 32-bit little-endian field at p */
GS_HEAP_HD uint32_t
gs_heap_u32(const unsigned char *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) |
		((uint32_t) p[3] << 24);
}

/* gs_heap_page_all_visible -- whether the page says all its tuples are visible to all */
GS_HEAP_HD int
gs_heap_page_all_visible(const unsigned char *page)
{
	return (gs_heap_u16(page + GS_HEAP_PD_FLAGS) & GS_HEAP_ALL_VISIBLE) != 0;
}

/*
 * gs_heap_page_items -- the page's number of line pointers, or -1 where
 * its header is not a heap page's (pd_lower, pd_upper, pd_special out of
 * order or out of the page)
 */
GS_HEAP_HD int
gs_heap_page_items(const unsigned char *page)
{
	uint32_t	lower = gs_heap_u16(page + GS_HEAP_PD_LOWER);
	uint32_t	upper = gs_heap_u16(page + GS_HEAP_PD_UPPER);
	uint32_t	special = gs_heap_u16(page + GS_HEAP_PD_SPECIAL);

	if (lower < GS_HEAP_HEADER_SIZE || lower > upper || upper > special ||
		special > GS_HEAP_PAGE_SIZE)
		return -1;
	return (int) ((lower - GS_HEAP_HEADER_SIZE) / GS_HEAP_LP_SIZE);
}

/*
 * gs_heap_item -- line pointer i (0-based) of the page: whether it is a
 * normal one (1), with its tuple's offset and length; 0 for an unused,
 * redirect or dead one; -1 where a normal one points out of the page or
 * is too short for a tuple header
 */
GS_HEAP_HD int
gs_heap_item(const unsigned char *page, int i, uint32_t *off, uint32_t *len)
{
	uint32_t	lp = gs_heap_u32(page + GS_HEAP_HEADER_SIZE + (uint32_t) i * GS_HEAP_LP_SIZE);
	uint32_t	flags = (lp >> 15) & 3;

	if (flags != GS_HEAP_LP_NORMAL)
		return 0;
	*off = lp & 0x7FFF;
	*len = lp >> 17;
	if (*len <= GS_HEAP_T_BITS || *off + *len > GS_HEAP_PAGE_SIZE)
		return -1;
	return 1;
}

/* gs_heap_align -- off rounded up to a multiple of align (1, 2, 4 or 8) */
GS_HEAP_HD uint32_t
gs_heap_align(uint32_t off, uint32_t align)
{
	return (off + align - 1) & ~(align - 1);
}

/*
 * gs_heap_varlena_size -- the bytes of the varlena whose first byte is at
 * p (at most room readable), or 0 where it cannot be one: a 1-byte header
 * (short value or, 0x01, a TOAST pointer) or a 4-byte one, little-endian
 * as on every platform the kernels run on
 */
GS_HEAP_HD uint32_t
gs_heap_varlena_size(const unsigned char *p, uint32_t room)
{
	uint32_t	size;

	if (room < 1)
		return 0;
	if (p[0] == 0x01)
	{
		/* VARATT_IS_1B_E: only TOAST pointers are stored on disk */
		if (room < 2 || p[1] != GS_HEAP_VARTAG_ONDISK)
			return 0;
		size = GS_HEAP_VARHDRSZ_EXTERNAL + GS_HEAP_TOAST_POINTER_SIZE;
	}
	else if (p[0] & 0x01)
		size = (p[0] >> 1) & 0x7F;	/* VARATT_IS_1B: the header byte counts */
	else
	{
		if (room < 4)
			return 0;
		size = (gs_heap_u32(p) >> 2) & 0x3FFFFFFF;
		if (size < 4)
			return 0;
	}
	return size <= room ? size : 0;
}

/*
 * gs_heap_locate -- where layout's column is in the tuple of len bytes at
 * tup: the columns before it stepped over as heap_deform_tuple() does
 * (att_align_nominal, att_align_pointer for varlena,
 * att_addlength_pointer).  GS_HEAP_VALUE with *at at its aligned bytes
 * (checked to lie within the tuple for its width), GS_HEAP_NULL, or
 * GS_HEAP_MISSING where the tuple predates the column and the column has
 * a default (layout->missing, missing_int); GS_HEAP_BAD where the tuple is
 * not as the format says.
 */
GS_HEAP_HD int
gs_heap_locate(const unsigned char *tup, uint32_t len, const gs_heap_layout *layout,
			   const unsigned char **at)
{
	uint32_t	infomask = gs_heap_u16(tup + GS_HEAP_T_INFOMASK);
	uint32_t	natts = gs_heap_u16(tup + GS_HEAP_T_INFOMASK2) & GS_HEAP_NATTS_MASK;
	uint32_t	hoff = tup[GS_HEAP_T_HOFF];
	int			hasnull = (infomask & GS_HEAP_HASNULL) != 0;
	int			target = layout->ncols - 1;
	const unsigned char *data;
	uint32_t	room;
	uint32_t	off = 0;
	int			a;

	if (target < 0 || target >= GS_HEAP_MAX_COLS || hoff < GS_HEAP_T_BITS || hoff > len ||
		(hasnull && GS_HEAP_T_BITS + (natts + 7) / 8 > hoff))
		return GS_HEAP_BAD;
	if ((uint32_t) target >= natts)
		return layout->has_missing ? GS_HEAP_MISSING : GS_HEAP_NULL;
	if (hasnull && !(tup[GS_HEAP_T_BITS + (target >> 3)] & (1 << (target & 7))))
		return GS_HEAP_NULL;
	data = tup + hoff;
	room = len - hoff;
	for (a = 0; a < target; a++)
	{
		const gs_heap_col *c = &layout->col[a];

		if (hasnull && !(tup[GS_HEAP_T_BITS + (a >> 3)] & (1 << (a & 7))))
			continue;
		if (c->len > 0)
			off = gs_heap_align(off, c->align) + (uint32_t) c->len;
		else if (c->len == -1)
		{
			uint32_t	size;

			/* att_align_pointer: a nonzero byte here starts a short header, not a pad */
			if (off >= room)
				return GS_HEAP_BAD;
			if (data[off] == 0)
				off = gs_heap_align(off, c->align);
			if (off >= room || (size = gs_heap_varlena_size(data + off, room - off)) == 0)
				return GS_HEAP_BAD;
			off += size;
		}
		else if (c->len == -2)
		{
			while (off < room && data[off] != 0)
				off++;
			off++;				/* the terminator */
		}
		else
			return GS_HEAP_BAD;
		if (off > room)
			return GS_HEAP_BAD;
	}
	off = gs_heap_align(off, layout->col[target].align);
	if (layout->col[target].len <= 0 || off + (uint32_t) layout->col[target].len > room)
		return GS_HEAP_BAD;
	*at = data + off;
	return GS_HEAP_VALUE;
}

/*
 * gs_heap_read -- the value of layout's column (float8 or float4) in the
 * tuple of len bytes at tup, as a double (gs_heap_locate)
 */
GS_HEAP_HD int
gs_heap_read(const unsigned char *tup, uint32_t len, const gs_heap_layout *layout,
			 double *value)
{
	const unsigned char *at = NULL;
	int			st = gs_heap_locate(tup, len, layout, &at);

	if (st == GS_HEAP_MISSING)
	{
		*value = layout->missing;
		return GS_HEAP_VALUE;
	}
	if (st != GS_HEAP_VALUE)
		return st;
	if (layout->type == GS_HEAP_FLOAT8 && layout->col[layout->ncols - 1].len == 8)
		memcpy(value, at, 8);
	else if (layout->type == GS_HEAP_FLOAT4 && layout->col[layout->ncols - 1].len == 4)
	{
		float		f;

		memcpy(&f, at, 4);
		*value = (double) f;
	}
	else
		return GS_HEAP_BAD;
	return GS_HEAP_VALUE;
}

/*
 * gs_heap_read_int -- the value of layout's integer column (int2, int4 or
 * int8: a grouping key) in the tuple of len bytes at tup (gs_heap_locate)
 */
GS_HEAP_HD int
gs_heap_read_int(const unsigned char *tup, uint32_t len, const gs_heap_layout *layout,
				 int64_t *value)
{
	const unsigned char *at = NULL;
	int			st = gs_heap_locate(tup, len, layout, &at);
	int			width = layout->col[layout->ncols - 1].len;

	if (st == GS_HEAP_MISSING)
	{
		*value = layout->missing_int;
		return GS_HEAP_VALUE;
	}
	if (st != GS_HEAP_VALUE)
		return st;
	if (layout->type == GS_HEAP_INT2 && width == 2)
	{
		int16_t		v;

		memcpy(&v, at, 2);
		*value = v;
	}
	else if (layout->type == GS_HEAP_INT4 && width == 4)
	{
		int32_t		v;

		memcpy(&v, at, 4);
		*value = v;
	}
	else if (layout->type == GS_HEAP_INT8 && width == 8)
		memcpy(value, at, 8);
	else
		return GS_HEAP_BAD;
	return GS_HEAP_VALUE;
}

/*
 * gs_heap_read_group -- a tuple's grouping keys and summed value for GROUP
 * BY: keys[j] read by key_layouts[j] (gs_heap_read_int) for the nkeys
 * keys, a NULL key as 0 with bit j of *nulls set; then the value
 * (gs_heap_read).  GS_HEAP_VALUE where the value is there, GS_HEAP_NULL
 * where it is NULL (the tuple's group exists, its sum unchanged),
 * GS_HEAP_BAD where the tuple is not as the format says.
 */
GS_HEAP_HD int
gs_heap_read_group(const unsigned char *tup, uint32_t len, const gs_heap_layout *key_layouts,
				   int nkeys, const gs_heap_layout *value_layout, int64_t *keys,
				   uint32_t *nulls, double *value)
{
	int			j;

	*nulls = 0;
	for (j = 0; j < nkeys; j++)
	{
		int			st = gs_heap_read_int(tup, len, &key_layouts[j], &keys[j]);

		if (st == GS_HEAP_BAD)
			return GS_HEAP_BAD;
		if (st == GS_HEAP_NULL)
		{
			keys[j] = 0;
			*nulls |= 1u << j;
		}
	}
	return gs_heap_read(tup, len, value_layout, value);
}

#endif							/* GPUSCAN_HEAP_H */
