/*-------------------------------------------------------------------------
 *
 * csr_agg.c
 *	  gpu_csr_agg(row_index, col_index, value [, nrows, ncols]): a sparse
 *	  matrix in CSR (the composite type gpu_csr) built from triples; and
 *	  the fields of a gpu_csr for the functions that take one.
 *
 * The transition function appends each triple to arrays in the
 * aggregate's memory, checking it at once: no NULL, no negative index, no
 * index beyond integer, and, where the sizes are given, every index below
 * them.  The final function sorts the triples by (row, column), a radix
 * sort of their packed (row, column) keys, and adds duplicates
 * exactly (common/gpuscan_exact.h, rounded once), so the matrix does not
 * depend on the order of the rows: duplicates added as SciPy's COO to CSR
 * conversion does, but correctly rounded.  Columns are sorted within each
 * row.  No rows: NULL.
 *
 * In a parallel plan each worker hands its triples to the leader sorted
 * (serialize), so that the sorting is shared; the leader merges the sorted
 * parts (combine) and its final function only adds the duplicates.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "csr_matrix.h"
#include "gpuscan.h"

typedef struct CsrAggState
{
	int64		n;				/* triples so far */
	int64		capacity;
	int32	   *rows;
	int32	   *cols;
	double	   *vals;
	int64		max_row;		/* largest indexes so far, -1 if none */
	int64		max_col;
	int32		nrows;			/* given sizes, -1 where not given */
	int32		ncols;
	bool		sorted;			/* in order of (row, column): parallel parts combined */
	MemoryContext cxt;
} CsrAggState;

static const char *const fn = "gpu_csr_agg";

/* new_state -- an empty state in the aggregate's context */
static CsrAggState *
new_state(MemoryContext cxt)
{
	CsrAggState *s = MemoryContextAllocZero(cxt, sizeof(CsrAggState));

	s->max_row = -1;
	s->max_col = -1;
	s->nrows = -1;
	s->ncols = -1;
	s->cxt = cxt;
	return s;
}

/* check_index -- ERROR unless 0 <= index < limit (limit -1: below INT32_MAX) */
static int32
check_index(int64 index, int32 limit, const char *what, int64 triple)
{
	if (index < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s: negative %s index " INT64_FORMAT, fn, what, index),
				 errdetail("Triple " INT64_FORMAT " of the aggregate's input; indexes are 0-based.",
						   triple)));
	if (limit < 0 && index >= PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: %s index " INT64_FORMAT " is too large", fn, what, index),
				 errdetail("Triple " INT64_FORMAT " of the aggregate's input; indexes must be below %d, as the sizes are integers.",
						   triple, PG_INT32_MAX)));
	if (limit >= 0 && index >= limit)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s: %s index " INT64_FORMAT " out of range for %d %ss", fn, what, index,
						limit, what),
				 errdetail("Triple " INT64_FORMAT " of the aggregate's input.", triple)));
	return (int32) index;
}

/* given_size -- a size argument: not NULL, 0 or more, the same on every row */
static int32
given_size(FunctionCallInfo fcinfo, int argno, int32 before, const char *what)
{
	int32		size;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: %s must not be NULL", fn, what)));
	size = PG_GETARG_INT32(argno);
	if (size < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s must not be negative", fn, what),
				 errdetail("The %s given is %d.", what, size)));
	if (before >= 0 && size != before)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s must be the same on every row", fn, what),
				 errdetail("It was %d, then %d.", before, size)));
	return size;
}

/* check_count -- ERROR unless n triples are within what the aggregate keeps */
static void
check_count(int64 n)
{
	if (n > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: too many triples", fn),
				 errdetail("At most %d are supported.", PG_INT32_MAX)));
}

/* reserve -- room in s for `want` triples in all */
static void
reserve(CsrAggState *s, int64 want)
{
	if (want <= s->capacity)
		return;
	check_count(want);
	s->capacity = Min(Max(Max(s->capacity * 2, want), 1024), PG_INT32_MAX);
	if (s->rows == NULL)
	{
		s->rows = MemoryContextAllocHuge(s->cxt, sizeof(int32) * (Size) s->capacity);
		s->cols = MemoryContextAllocHuge(s->cxt, sizeof(int32) * (Size) s->capacity);
		s->vals = MemoryContextAllocHuge(s->cxt, sizeof(double) * (Size) s->capacity);
	}
	else
	{
		s->rows = repalloc_huge(s->rows, sizeof(int32) * (Size) s->capacity);
		s->cols = repalloc_huge(s->cols, sizeof(int32) * (Size) s->capacity);
		s->vals = repalloc_huge(s->vals, sizeof(double) * (Size) s->capacity);
	}
}

PG_FUNCTION_INFO_V1(gpu_csr_agg_trans);

/*
 * gpu_csr_agg_trans(state internal, row_index bigint, col_index bigint,
 * value double precision [, nrows integer, ncols integer]) -- add a triple
 */
Datum
gpu_csr_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	CsrAggState *s;
	int64		triple;
	int32		row,
				col;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "gpu_csr_agg_trans called in non-aggregate context");
	s = PG_ARGISNULL(0) ? new_state(aggcxt) : (CsrAggState *) PG_GETARG_POINTER(0);
	triple = s->n + 1;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: NULL %s", fn,
						PG_ARGISNULL(1) ? "row index" : PG_ARGISNULL(2) ? "column index" : "value"),
				 errdetail("Triple " INT64_FORMAT " of the aggregate's input.", triple)));
	if (PG_NARGS() == 6)
	{
		s->nrows = given_size(fcinfo, 4, s->nrows, "nrows");
		s->ncols = given_size(fcinfo, 5, s->ncols, "ncols");
	}
	row = check_index(PG_GETARG_INT64(1), s->nrows, "row", triple);
	col = check_index(PG_GETARG_INT64(2), s->ncols, "column", triple);

	if (s->n == s->capacity)
		reserve(s, s->n + 1);
	s->sorted = false;
	s->rows[s->n] = row;
	s->cols[s->n] = col;
	s->vals[s->n] = PG_GETARG_FLOAT8(3);
	s->n++;
	s->max_row = Max(s->max_row, row);
	s->max_col = Max(s->max_col, col);
	PG_RETURN_POINTER(s);
}

/* an entry: (row, column) packed in a key that sorts as the pair, and its value */
typedef struct CsrEntry
{
	uint64		key;
	double		val;
} CsrEntry;

#define RADIX_BITS	11
#define RADIX		(1 << RADIX_BITS)

/*
 * radix_sort -- sort n entries by their low `bits` key bits, least
 * significant digit first, through `tmp` (n entries); returns the array
 * that holds the result (a or tmp).  Every digit's counts come from one
 * pass over the entries, and a digit all entries share costs no pass.
 * Not needed to be stable: duplicates are added exactly, in any order.
 */
static CsrEntry *
radix_sort(CsrEntry *a, CsrEntry *tmp, int64 n, int bits)
{
	int			digits = (bits + RADIX_BITS - 1) / RADIX_BITS;
	int64	   *count = palloc0(sizeof(int64) * RADIX * Max(digits, 1));
	int64		k;
	int			d;

	for (k = 0; k < n; k++)
		for (d = 0; d < digits; d++)
			count[d * RADIX + ((a[k].key >> (d * RADIX_BITS)) & (RADIX - 1))]++;
	for (d = 0; d < digits && n > 0; d++)
	{
		int64	   *c = &count[d * RADIX];
		int			shift = d * RADIX_BITS;
		int64		sum = 0;
		int			b;
		CsrEntry   *swap;

		if (c[(a[0].key >> shift) & (RADIX - 1)] == n)
			continue;			/* one digit for all: already in order by it */
		for (b = 0; b < RADIX; b++)
		{
			int64		v = c[b];

			c[b] = sum;
			sum += v;
		}
		for (k = 0; k < n; k++)
			tmp[c[(a[k].key >> shift) & (RADIX - 1)]++] = a[k];
		swap = a;
		a = tmp;
		tmp = swap;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(count);
	return a;
}

/* bits_for -- bits needed for the values 0 .. size - 1 */
static int
bits_for(int64 size)
{
	int			b = 0;

	while (b < 62 && ((int64) 1 << b) < size)
		b++;
	return b;
}

/* precedes -- whether triple i of a comes before triple j of b in (row, column) order */
static inline bool
precedes(const CsrAggState *a, int64 i, const CsrAggState *b, int64 j)
{
	return a->rows[i] < b->rows[j] || (a->rows[i] == b->rows[j] && a->cols[i] < b->cols[j]);
}

/*
 * The triples in (row, column) order: the state's own arrays where it is
 * in order already (a combined parallel state), else entries sorted by
 * their packed keys.
 */
typedef struct SortedTriples
{
	const CsrAggState *s;
	int			col_bits;		/* the column's bits in a packed key */
	CsrEntry   *entries;		/* NULL where s is in order */
	CsrEntry   *other;			/* the sort's other buffer, to free */
} SortedTriples;

/* key_at -- the packed (row, column) key of the k-th triple in order */
static inline uint64
key_at(const SortedTriples *t, int64 k)
{
	if (t->entries)
		return t->entries[k].key;
	return ((uint64) t->s->rows[k] << t->col_bits) | (uint64) t->s->cols[k];
}

/* val_at -- the value of the k-th triple in order */
static inline double
val_at(const SortedTriples *t, int64 k)
{
	return t->entries ? t->entries[k].val : t->s->vals[k];
}

/*
 * sort_triples -- s's triples in (row, column) order, their keys packed
 * with col_bits bits for the column (row_bits for the row); no copy where
 * s is in order already.  free_sorted gives the memory back.
 */
static void
sort_triples(const CsrAggState *s, int col_bits, int row_bits, SortedTriples *t)
{
	CsrEntry   *entries;
	CsrEntry   *tmp;
	int64		k;

	t->s = s;
	t->col_bits = col_bits;
	t->entries = t->other = NULL;
	if (s->sorted)
		return;
	entries = palloc_extended(sizeof(CsrEntry) * (Size) Max(s->n, 1), MCXT_ALLOC_HUGE);
	tmp = palloc_extended(sizeof(CsrEntry) * (Size) Max(s->n, 1), MCXT_ALLOC_HUGE);
	for (k = 0; k < s->n; k++)
	{
		entries[k].key = ((uint64) s->rows[k] << col_bits) | (uint64) s->cols[k];
		entries[k].val = s->vals[k];
	}
	t->entries = radix_sort(entries, tmp, s->n, row_bits + col_bits);
	t->other = (t->entries == entries) ? tmp : entries;
}

/* free_sorted -- the memory of sort_triples */
static void
free_sorted(SortedTriples *t)
{
	if (t->entries)
		pfree(t->entries);
	if (t->other)
		pfree(t->other);
}

/*
 * merge_into -- the triples of o, in order, merged with those of s, in
 * order: s stays in order (one pass, rather than a sort of all of them)
 */
static void
merge_into(CsrAggState *s, const CsrAggState *o)
{
	int64		n = s->n + o->n;
	int32	   *rows,
			   *cols;
	double	   *vals;
	int64		i = 0,
				j = 0,
				k;

	check_count(n);
	rows = MemoryContextAllocHuge(s->cxt, sizeof(int32) * (Size) Max(n, 1));
	cols = MemoryContextAllocHuge(s->cxt, sizeof(int32) * (Size) Max(n, 1));
	vals = MemoryContextAllocHuge(s->cxt, sizeof(double) * (Size) Max(n, 1));
	for (k = 0; k < n; k++)
	{
		const CsrAggState *from;
		int64	   *at;

		if (j == o->n || (i < s->n && !precedes(o, j, s, i)))
			from = s, at = &i;
		else
			from = o, at = &j;
		rows[k] = from->rows[*at];
		cols[k] = from->cols[*at];
		vals[k] = from->vals[*at];
		(*at)++;
	}
	if (s->rows != NULL)
	{
		pfree(s->rows);
		pfree(s->cols);
		pfree(s->vals);
	}
	s->rows = rows;
	s->cols = cols;
	s->vals = vals;
	s->n = s->capacity = n;
}

/*
 * The state between parallel workers and the leader (serialize,
 * deserialize): a header, then the rows, the columns and the values.
 */
typedef struct CsrAggWire
{
	uint32		magic;			/* CSR_AGG_MAGIC */
	int32		nrows;			/* given sizes, -1 where not given */
	int32		ncols;
	int32		n;				/* triples */
} CsrAggWire;

#define CSR_AGG_MAGIC	0x47434131	/* "GCA1" */

PG_FUNCTION_INFO_V1(gpu_csr_agg_combine);

/*
 * gpu_csr_agg_combine(state internal, other internal) -- other's triples
 * added to state (made in the aggregate's context where NULL): a parallel
 * worker's part joins the leader's.  The parts come sorted by the workers
 * (serialize), so that the leader merges them rather than sorting all.
 */
Datum
gpu_csr_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	CsrAggState *s;
	CsrAggState *o;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "gpu_csr_agg_combine called in non-aggregate context");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_POINTER(PG_GETARG_POINTER(0));
	}
	o = (CsrAggState *) PG_GETARG_POINTER(1);
	if (PG_ARGISNULL(0))
	{
		s = new_state(aggcxt);
		s->nrows = o->nrows;
		s->ncols = o->ncols;
	}
	else
		s = (CsrAggState *) PG_GETARG_POINTER(0);
	if (s->nrows != o->nrows || s->ncols != o->ncols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: nrows and ncols must be the same on every row", fn),
				 errdetail("The parts of a parallel scan saw %d x %d and %d x %d.",
						   s->nrows, s->ncols, o->nrows, o->ncols)));
	if (s->n == 0 || (s->sorted && o->sorted))
	{
		/* the parts of a parallel scan, each in order: merged in order */
		merge_into(s, o);
		s->sorted = o->sorted;
	}
	else
	{
		reserve(s, s->n + o->n);
		memcpy(s->rows + s->n, o->rows, sizeof(int32) * (Size) o->n);
		memcpy(s->cols + s->n, o->cols, sizeof(int32) * (Size) o->n);
		memcpy(s->vals + s->n, o->vals, sizeof(double) * (Size) o->n);
		s->n += o->n;
		s->sorted = false;
	}
	s->max_row = Max(s->max_row, o->max_row);
	s->max_col = Max(s->max_col, o->max_col);
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(gpu_csr_agg_serialize);

/*
 * gpu_csr_agg_serialize(state internal) -- a parallel worker's state as
 * bytea, its triples sorted by (row, column): the workers sort their parts
 * at the same time, and the leader merges them
 */
Datum
gpu_csr_agg_serialize(PG_FUNCTION_ARGS)
{
	CsrAggState *s;
	CsrAggWire	wire;
	Size		bytes;
	bytea	   *result;
	char	   *p;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "gpu_csr_agg_serialize called in non-aggregate context");
	s = (CsrAggState *) PG_GETARG_POINTER(0);
	bytes = VARHDRSZ + sizeof(CsrAggWire) + (Size) s->n * (2 * sizeof(int32) + sizeof(double));
	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: a parallel worker's " INT64_FORMAT " triples exceed what it can hand to the leader",
						fn, s->n),
				 errdetail("A worker hands at most %d triples on.",
						   (int) ((MaxAllocSize - VARHDRSZ - sizeof(CsrAggWire)) / 16)),
				 errhint("Run the aggregate without parallel workers: SET max_parallel_workers_per_gather = 0.")));
	result = palloc_extended(bytes, MCXT_ALLOC_HUGE);
	SET_VARSIZE(result, bytes);
	wire.magic = CSR_AGG_MAGIC;
	wire.nrows = s->nrows;
	wire.ncols = s->ncols;
	wire.n = (int32) s->n;
	p = VARDATA(result);
	memcpy(p, &wire, sizeof(wire));
	p += sizeof(wire);
	{
		int32	   *rows = (int32 *) p;
		int32	   *cols = rows + s->n;
		char	   *vals = (char *) (cols + s->n);	/* not always 8-byte aligned */
		int			col_bits = bits_for(s->max_col + 1);
		SortedTriples sorted;
		int64		k;

		sort_triples(s, col_bits, bits_for(s->max_row + 1), &sorted);
		for (k = 0; k < s->n; k++)
		{
			uint64		key = key_at(&sorted, k);
			double		val = val_at(&sorted, k);

			rows[k] = (int32) (key >> col_bits);
			cols[k] = (int32) (key & (((uint64) 1 << col_bits) - 1));
			memcpy(vals + k * sizeof(double), &val, sizeof(double));
		}
		free_sorted(&sorted);
	}
	PG_RETURN_BYTEA_P(result);
}

/* corrupt -- the ERROR for a state that is not one serialize made */
static void
corrupt(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("%s: invalid aggregate state", fn),
			 errdetail("%s", what)));
}

PG_FUNCTION_INFO_V1(gpu_csr_agg_deserialize);

/*
 * gpu_csr_agg_deserialize(bytes bytea, internal) -- the state serialize
 * wrote, checked as completely as the transition function checks its
 * triples: the header, the length, every index within its size, the
 * order of (row, column)
 */
Datum
gpu_csr_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *bytes;
	CsrAggWire	wire;
	CsrAggState *s;
	const char *p;
	int64		k;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "gpu_csr_agg_deserialize called in non-aggregate context");
	bytes = PG_GETARG_BYTEA_PP(0);
	if (VARSIZE_ANY_EXHDR(bytes) < sizeof(wire))
		corrupt("The state is shorter than its header.");
	p = VARDATA_ANY(bytes);
	memcpy(&wire, p, sizeof(wire));
	p += sizeof(wire);
	if (wire.magic != CSR_AGG_MAGIC)
		corrupt("The state does not start with the magic number of gpu_csr_agg.");
	if (wire.nrows < -1 || wire.ncols < -1 || wire.n < 0)
		corrupt("The state's sizes or count are negative.");
	if (VARSIZE_ANY_EXHDR(bytes) != sizeof(wire) + (Size) wire.n * (2 * sizeof(int32) + sizeof(double)))
		corrupt("The state's length does not match its count of triples.");

	s = new_state(CurrentMemoryContext);
	s->nrows = wire.nrows;
	s->ncols = wire.ncols;
	reserve(s, Max(wire.n, 1));
	memcpy(s->rows, p, sizeof(int32) * (Size) wire.n);
	p += sizeof(int32) * (Size) wire.n;
	memcpy(s->cols, p, sizeof(int32) * (Size) wire.n);
	p += sizeof(int32) * (Size) wire.n;
	memcpy(s->vals, p, sizeof(double) * (Size) wire.n);
	s->n = wire.n;
	for (k = 0; k < s->n; k++)
	{
		if (s->rows[k] < 0 || s->rows[k] == PG_INT32_MAX || (s->nrows >= 0 && s->rows[k] >= s->nrows) ||
			s->cols[k] < 0 || s->cols[k] == PG_INT32_MAX || (s->ncols >= 0 && s->cols[k] >= s->ncols))
			corrupt("An index of the state is out of range.");
		if (k > 0 && precedes(s, k, s, k - 1))
			corrupt("The state's triples are not in order of (row, column).");
		s->max_row = Max(s->max_row, s->rows[k]);
		s->max_col = Max(s->max_col, s->cols[k]);
	}
	s->sorted = true;
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(gpu_csr_agg_final);

/* gpu_csr_agg_final(state internal) -- the gpu_csr of the triples, NULL for none */
Datum
gpu_csr_agg_final(PG_FUNCTION_ARGS)
{
	CsrAggState *s;
	TupleDesc	desc;
	int32		nrows,
				ncols,
				r;
	ArrayType  *row_ptr_array,
			   *col_idx_array,
			   *vals_array;
	int32	   *row_ptr,
			   *col_idx;
	SortedTriples sorted;
	int			col_bits;
	double	   *vals;
	int64		k,
				nnz = 0;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};
	Datum		result;
	instr_time	start,
				sorted_at,
				merged_at,
				done;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (CsrAggState *) PG_GETARG_POINTER(0);
	INSTR_TIME_SET_CURRENT(start);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "gpu_csr_agg_final: return type must be a row type");

	nrows = s->nrows >= 0 ? s->nrows : (int32) (s->max_row + 1);
	ncols = s->ncols >= 0 ? s->ncols : (int32) (s->max_col + 1);

	/* the entries sorted by (row, column) */
	col_bits = bits_for(ncols);
	sort_triples(s, col_bits, bits_for(nrows), &sorted);
	INSTR_TIME_SET_CURRENT(sorted_at);

	/*
	 * one entry per (row, column), duplicates added exactly, written in
	 * place into the result's arrays, made at the largest size
	 */
	row_ptr_array = gs_new_array(INT4OID, sizeof(int32), (int64) nrows + 1, 1, 0, fn);
	col_idx_array = gs_new_array(INT4OID, sizeof(int32), s->n, 1, 0, fn);
	vals_array = gs_new_array(FLOAT8OID, sizeof(double), s->n, 1, 0, fn);
	row_ptr = (int32 *) ARR_DATA_PTR(row_ptr_array);
	col_idx = (int32 *) ARR_DATA_PTR(col_idx_array);
	vals = (double *) ARR_DATA_PTR(vals_array);
	memset(row_ptr, 0, sizeof(int32) * ((Size) nrows + 1));
	for (k = 0; k < s->n;)
	{
		uint64		key = key_at(&sorted, k);

		if (k + 1 == s->n || key_at(&sorted, k + 1) != key)
			vals[nnz] = val_at(&sorted, k++);	/* the sum of one value is itself */
		else
		{
			gs_exact_acc acc;

			gs_acc_zero(&acc);
			for (; k < s->n && key_at(&sorted, k) == key; k++)
				gs_acc_add(&acc, val_at(&sorted, k));
			vals[nnz] = gs_acc_round(&acc);
		}
		col_idx[nnz] = (int32) (key & (((uint64) 1 << col_bits) - 1));
		nnz++;
		row_ptr[(key >> col_bits) + 1]++;
	}
	for (r = 0; r < nrows; r++)
		row_ptr[r + 1] += row_ptr[r];
	free_sorted(&sorted);
	INSTR_TIME_SET_CURRENT(merged_at);

	values[0] = Int32GetDatum(nrows);
	values[1] = Int32GetDatum(ncols);
	values[2] = PointerGetDatum(row_ptr_array);
	/* a state holds one triple at least, so nnz >= 1 */
	values[3] = PointerGetDatum(gs_array_truncate(col_idx_array, nnz));
	values[4] = PointerGetDatum(gs_array_truncate(vals_array, nnz));
	result = HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
	INSTR_TIME_SET_CURRENT(done);
	elog(DEBUG1, "%s: phases: the sort %.3f ms, the duplicates added %.3f ms, the result %.3f ms",
		 fn, gs_ms_between(start, sorted_at), gs_ms_between(sorted_at, merged_at),
		 gs_ms_between(merged_at, done));
	PG_RETURN_DATUM(result);
}

/* gs_csr_matrix_fields -- see csr_matrix.h */
void
gs_csr_matrix_fields(HeapTupleHeader matrix, GsCsrMatrix *m, const char *caller)
{
	static const char *const field[5] = {"nrows", "ncols", "row_ptr", "col_idx", "vals"};
	Datum		d[5];
	int			i;

	for (i = 0; i < 5; i++)
	{
		bool		isnull;

		d[i] = GetAttributeByNum(matrix, i + 1, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: the matrix's %s is NULL", caller, field[i])));
	}
	m->nrows = DatumGetInt32(d[0]);
	m->ncols = DatumGetInt32(d[1]);
	m->row_ptr = d[2];
	m->col_idx = d[3];
	m->vals = d[4];
	if (m->nrows < 0 || m->ncols < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the matrix's sizes must not be negative", caller),
				 errdetail("nrows is %d, ncols is %d.", m->nrows, m->ncols)));
}

/* gs_csr_matrix_check -- see csr_matrix.h */
void
gs_csr_matrix_check(const GsCsrMatrix *m, int64 x_length, const char *caller)
{
	ArrayType  *rp = DatumGetArrayTypeP(m->row_ptr);
	int64		nrp = ArrayGetNItems(ARR_NDIM(rp), ARR_DIMS(rp));

	if (nrp != (int64) m->nrows + 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the matrix's row_ptr must have nrows + 1 entries", caller),
				 errdetail("row_ptr has " INT64_FORMAT " entries, nrows is %d.", nrp, m->nrows)));
	if (x_length != m->ncols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: x must have as many elements as the matrix has columns", caller),
				 errdetail("x has " INT64_FORMAT " elements, the matrix %d columns.", x_length,
						   m->ncols)));
}
