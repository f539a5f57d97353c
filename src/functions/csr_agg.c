/*-------------------------------------------------------------------------
 *
 * csr_agg.c
 *	  gpu_csr_agg(row_index, col_index, value [, nrows, ncols]): a sparse
 *	  matrix in CSR (the composite type gpu_csr) built from triples; and
 *	  the fields of a gpu_csr for the functions that take one.
 *
 * The transition function appends each triple to an array in the
 * aggregate's memory, its (row, column) packed in one key that sorts as the
 * pair, checking it at once: no NULL, no negative index, no index beyond
 * integer, and, where the sizes are given, every index below them.  The
 * final function sorts the state's entries by key (sort_state, csr_sort.h)
 * and adds duplicates exactly (csr_assemble.h, common/gpuscan_exact.h,
 * rounded once), both on the helper threads of copy_workers.h too outside
 * parallel workers, so the matrix does not depend on the order of the rows:
 * duplicates added as SciPy's COO to CSR conversion does, but correctly
 * rounded.  Columns are sorted within
 * each row.  No rows: NULL.
 *
 * In a parallel plan each worker hands its triples to the leader as they
 * came (serialize); the leader appends them (combine) and its final
 * function sorts them all at once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "pg/array_input.h"
#include "cpu/csr_assemble.h"
#include "functions/csr_matrix.h"
#include "cpu/csr_sort.h"
#include "functions/csr_state.h"
#include "dispatch/dispatch.h"
#include "pg/chunks.h"
#include "dispatch/stats.h"

struct CsrAggState
{
	int64		n;				/* triples so far */
	int64		capacity;
	CsrEntry   *entries;
	int64		max_row;		/* largest indexes so far, -1 if none */
	int64		max_col;
	int32		nrows;			/* given sizes, -1 where not given */
	int32		ncols;
	bool		sorted;			/* entries in order of key: sorted, nothing added since */
	MemoryContext cxt;
};

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

/*
 * index_error -- the ERROR for an index not in 0 .. limit - 1 (limit -1:
 * below INT32_MAX); out of line, so that the transition function's check is
 * one comparison
 */
pg_noinline static void
index_error(int64 index, int32 limit, const char *what, int64 triple)
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
}

/* index_limit -- one past the largest index allowed: the size given, else INT32_MAX */
static inline uint64
index_limit(int32 size)
{
	return size >= 0 ? (uint64) size : (uint64) PG_INT32_MAX;
}

/* given_size -- a size argument: not NULL, 0 or more, the same on every row */
static int32
given_size(bool isnull, int32 size, int32 before, const char *what)
{
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: %s must not be NULL", fn, what)));
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

/* alloc_entries -- room for n entries in cxt, in huge pages where the system has them */
static CsrEntry *
alloc_entries(MemoryContext cxt, int64 n)
{
	Size		bytes = sizeof(CsrEntry) * (Size) Max(n, 1);
	CsrEntry   *entries = MemoryContextAllocHuge(cxt, bytes);

	gs_prefer_huge_pages(entries, bytes);
	return entries;
}

/* reserve -- room in s for `want` triples in all */
static void
reserve(CsrAggState *s, int64 want)
{
	if (want <= s->capacity)
		return;
	check_count(want);
	s->capacity = Min(Max(Max(s->capacity * 2, want), 1024), PG_INT32_MAX);
	if (s->entries == NULL)
		s->entries = alloc_entries(s->cxt, s->capacity);
	else
	{
		s->entries = repalloc_huge(s->entries, sizeof(CsrEntry) * (Size) s->capacity);
		gs_prefer_huge_pages(s->entries, sizeof(CsrEntry) * (Size) s->capacity);
	}
}

/* gs_csr_state_new -- see csr_state.h */
CsrAggState *
gs_csr_state_new(MemoryContext cxt)
{
	return new_state(cxt);
}

/* gs_csr_state_count -- see csr_state.h */
int64
gs_csr_state_count(const CsrAggState *s)
{
	return s->n;
}

/* gs_csr_state_add -- see csr_state.h */
void
gs_csr_state_add(CsrAggState *s, const CsrTriple *t)
{
	int64		triple = s->n + 1;

	if (t->null[0] || t->null[1] || t->null[2])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: NULL %s", fn,
						t->null[0] ? "row index" : t->null[1] ? "column index" : "value"),
				 errdetail("Triple " INT64_FORMAT " of the aggregate's input.", triple)));
	if (t->sized)
	{
		s->nrows = given_size(t->null[3], t->nrows, s->nrows, "nrows");
		s->ncols = given_size(t->null[4], t->ncols, s->ncols, "ncols");
	}
	if (unlikely((uint64) t->row >= index_limit(s->nrows)))
		index_error(t->row, s->nrows, "row", triple);
	if (unlikely((uint64) t->col >= index_limit(s->ncols)))
		index_error(t->col, s->ncols, "column", triple);

	if (s->n == s->capacity)
		reserve(s, s->n + 1);
	s->sorted = false;
	s->entries[s->n].key = ENTRY_KEY(t->row, t->col);
	s->entries[s->n].val = t->val;
	s->n++;
	s->max_row = Max(s->max_row, t->row);
	s->max_col = Max(s->max_col, t->col);
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
	CsrTriple	t;
	int			i;

	/* a state, never NULL after the first row, comes only from an aggregate */
	if (PG_ARGISNULL(0))
	{
		if (!AggCheckCallContext(fcinfo, &aggcxt))
			elog(ERROR, "gpu_csr_agg_trans called in non-aggregate context");
		/* the matrix is built on the CPU, but gpuscan.device = gpu needs a GPU */
		gs_require_forced_gpu(fn);
		s = new_state(aggcxt);
	}
	else
		s = (CsrAggState *) PG_GETARG_POINTER(0);

	t.sized = PG_NARGS() == 6;
	for (i = 0; i < (t.sized ? 5 : 3); i++)
		t.null[i] = PG_ARGISNULL(i + 1);
	t.row = t.null[0] ? 0 : PG_GETARG_INT64(1);
	t.col = t.null[1] ? 0 : PG_GETARG_INT64(2);
	t.val = t.null[2] ? 0 : PG_GETARG_FLOAT8(3);
	if (t.sized)
	{
		t.nrows = t.null[3] ? 0 : PG_GETARG_INT32(4);
		t.ncols = t.null[4] ? 0 : PG_GETARG_INT32(5);
	}
	gs_csr_state_add(s, &t);
	PG_RETURN_POINTER(s);
}

/*
 * sort_state -- s's entries in order of key, so that the state stays what
 * it was, in order: sorted into a new array (csr_sort.h), on the helper
 * threads too where `threads`.  Interrupts are answered between the sort's
 * steps.
 */
static void
sort_state(CsrAggState *s, bool threads)
{
	CsrEntry   *sorted;
	CsrSort    *sort;

	if (s->sorted || s->n <= 1)
	{
		s->sorted = true;
		return;
	}
	sorted = alloc_entries(s->cxt, s->n);
	sort = gs_csr_sort_begin(s->entries, sorted, s->n, gs_csr_bits_for(s->max_col + 1),
							 gs_csr_bits_for(s->max_row + 1), threads);
	if (sort == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("%s: no memory for the sort of %lld triples.", fn, (long long) s->n)));
	PG_TRY();
	{
		while (gs_csr_sort_step(sort))
			CHECK_FOR_INTERRUPTS();
	}
	PG_FINALLY();
	{
		gs_csr_sort_end(sort);
	}
	PG_END_TRY();
	pfree(s->entries);
	s->entries = sorted;
	s->capacity = s->n;
	s->sorted = true;
}

/*
 * The state between parallel workers and the leader (serialize,
 * deserialize): a header, then the entries (key, value) in the order they
 * came.
 */
typedef struct CsrAggWire
{
	uint32		magic;			/* CSR_AGG_MAGIC */
	int32		nrows;			/* given sizes, -1 where not given */
	int32		ncols;
	int32		n;				/* entries */
} CsrAggWire;

#define CSR_AGG_MAGIC	0x47434133	/* "GCA3" */

PG_FUNCTION_INFO_V1(gpu_csr_agg_combine);

/*
 * gpu_csr_agg_combine(state internal, other internal) -- other's triples
 * added to state (made in the aggregate's context where NULL): a parallel
 * worker's part joins the leader's, appended.  The final function sorts
 * them all at once, on the helper threads: cheaper than sorting each part
 * in its worker and merging the parts one by one in the leader.
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
	reserve(s, s->n + o->n);
	memcpy(s->entries + s->n, o->entries, sizeof(CsrEntry) * (Size) o->n);
	s->n += o->n;
	s->sorted = false;
	s->max_row = Max(s->max_row, o->max_row);
	s->max_col = Max(s->max_col, o->max_col);
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(gpu_csr_agg_serialize);

/*
 * gpu_csr_agg_serialize(state internal) -- a parallel worker's state as
 * bytea, its triples as they came
 */
Datum
gpu_csr_agg_serialize(PG_FUNCTION_ARGS)
{
	CsrAggState *s;
	CsrAggWire	wire;
	Size		bytes;
	bytea	   *result;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "gpu_csr_agg_serialize called in non-aggregate context");
	s = (CsrAggState *) PG_GETARG_POINTER(0);
	bytes = VARHDRSZ + sizeof(CsrAggWire) + (Size) s->n * sizeof(CsrEntry);
	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: a parallel worker's " INT64_FORMAT " triples exceed what it can hand to the leader",
						fn, s->n),
				 errdetail("A worker hands at most %d triples on.",
						   (int) ((MaxAllocSize - VARHDRSZ - sizeof(CsrAggWire)) / sizeof(CsrEntry))),
				 errhint("Run the aggregate without parallel workers: SET max_parallel_workers_per_gather = 0.")));
	result = palloc_extended(bytes, MCXT_ALLOC_HUGE);
	SET_VARSIZE(result, bytes);
	wire.magic = CSR_AGG_MAGIC;
	wire.nrows = s->nrows;
	wire.ncols = s->ncols;
	wire.n = (int32) s->n;
	memcpy(VARDATA(result), &wire, sizeof(wire));
	memcpy(VARDATA(result) + sizeof(wire), s->entries, sizeof(CsrEntry) * (Size) s->n);
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
 * triples: the header, the length, every index within its size
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
	if (VARSIZE_ANY_EXHDR(bytes) != sizeof(wire) + (Size) wire.n * sizeof(CsrEntry))
		corrupt("The state's length does not match its count of triples.");

	s = new_state(CurrentMemoryContext);
	s->nrows = wire.nrows;
	s->ncols = wire.ncols;
	s->entries = alloc_entries(s->cxt, wire.n);
	s->n = s->capacity = wire.n;
	memcpy(s->entries, p, sizeof(CsrEntry) * (Size) wire.n);
	for (k = 0; k < s->n; k++)
	{
		int32		row = ENTRY_ROW(s->entries[k].key);
		int32		col = ENTRY_COL(s->entries[k].key);

		if (row < 0 || row == PG_INT32_MAX || (s->nrows >= 0 && row >= s->nrows) ||
			col < 0 || col == PG_INT32_MAX || (s->ncols >= 0 && col >= s->ncols))
			corrupt("An index of the state is out of range.");
		s->max_row = Max(s->max_row, row);
		s->max_col = Max(s->max_col, col);
	}
	PG_RETURN_POINTER(s);
}

/*
 * check_matrix_size -- ERROR unless a gpu_csr of nrows rows and nnz entries
 * fits in one value (1 GB, its three arrays together); counts a few bytes
 * of alignment more than heap_form_tuple may need
 */
static void
check_matrix_size(int32 nrows, int64 nnz)
{
	Size		bytes = HEAPTUPLESIZE + MAXALIGN(SizeofHeapTupleHeader) + 2 * sizeof(int32) +
		3 * (ARR_OVERHEAD_NONULLS(1) + MAXIMUM_ALIGNOF) +
		sizeof(int32) * ((Size) nrows + 1) + (sizeof(int32) + sizeof(double)) * (Size) nnz;

	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the matrix exceeds the maximum size of a value (1 GB)", fn),
				 errdetail("Its " INT64_FORMAT " entries and %d rows need about %zu bytes.",
						   nnz, nrows, bytes),
				 errhint("Build it in parts, for example by ranges of rows.")));
}

/* the chunks of the result's assembly, and how many a call takes */
#define RESULT_CHUNKS	256
#define CHUNKS_PER_CALL	32

/*
 * gs_csr_state_result -- see csr_state.h.  It sorts the state where it
 * lies, which leaves it the same triples: the aggregate may go on or be
 * finished again (a window).
 */
Datum
gs_csr_state_result(CsrAggState *s, TupleDesc desc)
{
	int32		nrows,
				ncols;
	Datum		result;
	const CsrEntry *e;
	ArrayType  *row_ptr_array,
			   *col_idx_array,
			   *vals_array;
	CsrArrays	m;
	int64		chunk_start[RESULT_CHUNKS + 1],
				unique[RESULT_CHUNKS],
				out_start[RESULT_CHUNKS],
				nnz = 0;
	int			c;
	bool		threads = !IsParallelWorker();
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};
	instr_time	start,
				sorted_at,
				done;

	INSTR_TIME_SET_CURRENT(start);
	nrows = s->nrows >= 0 ? s->nrows : (int32) (s->max_row + 1);
	ncols = s->ncols >= 0 ? s->ncols : (int32) (s->max_col + 1);

	/*
	 * the helper threads, except in a parallel worker (whose siblings share
	 * the cores already)
	 */
	if (threads)
		gs_copy_workers_begin(fn);

	/* the entries in order of (row, column) */
	sort_state(s, threads);
	e = s->entries;
	INSTR_TIME_SET_CURRENT(sorted_at);

	/*
	 * one entry per (row, column), duplicates added exactly, written in
	 * place into the result's arrays: in chunks, on the helper threads too
	 * (csr_assemble.h), interrupts answered between calls
	 */
	gs_csr_chunks(e, s->n, chunk_start, RESULT_CHUNKS);
	for (c = 0; c < RESULT_CHUNKS; c += CHUNKS_PER_CALL)
	{
		gs_csr_count_chunks(e, chunk_start, c, Min(c + CHUNKS_PER_CALL, RESULT_CHUNKS), unique,
							threads);
		CHECK_FOR_INTERRUPTS();
	}
	for (c = 0; c < RESULT_CHUNKS; c++)
	{
		out_start[c] = nnz;
		nnz += unique[c];
	}
	check_matrix_size(nrows, nnz);
	row_ptr_array = gs_new_array(INT4OID, sizeof(int32), (int64) nrows + 1, 1, 0, fn);
	col_idx_array = gs_new_array(INT4OID, sizeof(int32), nnz, 1, 0, fn);
	vals_array = gs_new_array(FLOAT8OID, sizeof(double), nnz, 1, 0, fn);
	m.nrows = nrows;
	m.row_ptr = (int32 *) ARR_DATA_PTR(row_ptr_array);
	m.col_idx = (int32 *) ARR_DATA_PTR(col_idx_array);
	m.vals = (double *) ARR_DATA_PTR(vals_array);
	for (c = 0; c < RESULT_CHUNKS; c += CHUNKS_PER_CALL)
	{
		gs_csr_write_chunks(e, chunk_start, out_start, c, Min(c + CHUNKS_PER_CALL, RESULT_CHUNKS),
							&m, threads);
		CHECK_FOR_INTERRUPTS();
	}
	gs_csr_finish_rows(e, s->n, nnz, &m);

	values[0] = Int32GetDatum(nrows);
	values[1] = Int32GetDatum(ncols);
	values[2] = PointerGetDatum(row_ptr_array);
	values[3] = PointerGetDatum(col_idx_array);
	values[4] = PointerGetDatum(vals_array);
	result = HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
	INSTR_TIME_SET_CURRENT(done);
	elog(DEBUG1, "%s: phases: the sort %.3f ms, the duplicates added and the result %.3f ms",
		 fn, gs_ms_between(start, sorted_at), gs_ms_between(sorted_at, done));
	return result;
}

PG_FUNCTION_INFO_V1(gpu_csr_agg_final);

/* gpu_csr_agg_final(state internal) -- the gpu_csr of the triples, NULL for none */
Datum
gpu_csr_agg_final(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "gpu_csr_agg_final: return type must be a row type");
	PG_RETURN_DATUM(gs_csr_state_result((CsrAggState *) PG_GETARG_POINTER(0), desc));
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
