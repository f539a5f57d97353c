/*-------------------------------------------------------------------------
 *
 * sum_agg.c
 *	  The gpu_sum aggregates over double precision and real rows.
 *
 * The state type is bytea (a concrete type, so that parallel query and
 * Citus can ship partial states), but while the aggregate runs the state
 * is an expanded object (utils/expandeddatum.h) in its own memory context
 * under the aggregate's: an exact accumulator and a buffer of values not
 * yet added.  Over a whole table (one group) the transition step only
 * appends to the buffer, which grows geometrically up to chunk_limit(); a
 * full buffer is reduced into the accumulator by gs_sum_into(), which takes
 * the GPU when the dispatch rules say so.  With GROUP BY there may be many
 * groups, each with its own state, and the rows come to them in any order:
 * there the buffer is small and part of the state, right after its header,
 * so that a row touches two cache lines of its group's state, and a full
 * buffer is added into the accumulator on the CPU at once.  The executor
 * passes the object back by its read-write pointer, so nothing is copied
 * from row to row.
 *
 * Where a state leaves the aggregate (a parallel worker's partial state, a
 * Citus worker's, a tuple, a text output) PostgreSQL flattens the object:
 * the buffer is added into the accumulator and the accumulator written in
 * the compact, byte-order-free form of sum_state.h, at most a few hundred
 * bytes.  Every flat state that comes in (a partial state to combine, an
 * INITCOND, a value a user built) is untrusted: gs_sum_state_decode checks
 * it completely before anything uses it, and a bad one is an ERROR with
 * SQLSTATE XX001 (data_corrupted).
 *
 * The combine step merges accumulators (exact integer addition); the final
 * step adds what is left in the buffer and rounds once.  The result is the
 * correctly rounded sum whatever the plan: serial, parallel, or split
 * across shards.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#include "cpu_sum.h"
#include "gpuscan.h"
#include "sum_state.h"

#define AGG_FIRST_ELEMS		64

/*
 * A full buffer is reduced every AGG_CHUNK_ELEMS values (32 kB): the
 * reduction's fixed cost per call is then well under a nanosecond per row,
 * while the buffer stays in the CPU's first-level cache and below malloc's
 * mmap threshold (larger states cost page faults on every query).
 */
#define AGG_CHUNK_ELEMS		(1 << 12)

/*
 * With gpuscan.device = gpu every flush is a GPU call, which costs tens of
 * microseconds whatever its size: the buffer then grows to 512 kB, except
 * in a parallel worker, which ships its state after few rows.
 */
#define AGG_GPU_CHUNK_ELEMS	(1 << 16)

/* the buffer of a group's state (GROUP BY): two cache lines */
#define GROUP_BUFFER_ELEMS	16

/*
 * Values a group's state adds by the scalar path between normalizations:
 * each limb takes 2^31 such additions before it could overflow
 * (gpuscan_exact.h)
 */
#define GROUP_ADDS_LIMIT	(1 << 30)

/*
 * The running state: an expanded object living in its own memory context,
 * the fields a row touches first
 */
typedef struct SumAggState
{
	ExpandedObjectHeader hdr;
	uint32		nbuffered;		/* values in the buffer */
	uint32		capacity;		/* values the buffer holds */
	bool		grouped;		/* a group's state: the buffer is `small` */
	uint32		group_adds;		/* (grouped) values added since normalizing */
	double	   *buffer;
	double		small[GROUP_BUFFER_ELEMS];
	gs_exact_acc acc;
} SumAggState;

static Size sum_state_flat_size(ExpandedObjectHeader *eohptr);
static void sum_state_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods sum_state_methods = {
	sum_state_flat_size,
	sum_state_flatten
};

/* as_our_state -- the SumAggState a datum points to, or NULL if it is flat */
static inline SumAggState *
as_our_state(Datum d)
{
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &sum_state_methods)
			return (SumAggState *) eoh;
	}
	return NULL;
}

/*
 * add_buffer -- the buffered values of st into acc (st's accumulator or a
 * copy of it): a group's few values on the CPU at once, a whole table's
 * chunk on the path the dispatch rules choose
 */
static void
add_buffer(SumAggState *st, gs_exact_acc *acc)
{
	if (!st->grouped)
	{
		gs_sum_into(acc, st->buffer, st->nbuffered, FLOAT8OID, NULL, "gpu_sum aggregate");
		return;
	}
	cpu_sum_exact_f64(st->buffer, st->nbuffered, acc);
	st->group_adds += st->nbuffered;
	if (st->group_adds >= GROUP_ADDS_LIMIT)
	{
		gs_acc_normalize(&st->acc);
		st->group_adds = 0;
	}
}

/* flush_buffer -- add the buffered values into the accumulator */
static void
flush_buffer(SumAggState *st)
{
	if (st->nbuffered == 0)
		return;
	add_buffer(st, &st->acc);
	st->nbuffered = 0;
}

/*
 * sum_state_flat_size -- bytes of the flat form.  The buffer is added into
 * the accumulator first: that changes how the state holds its value, not
 * the value, and PostgreSQL asks for the size before every flatten_into.
 */
static Size
sum_state_flat_size(ExpandedObjectHeader *eohptr)
{
	SumAggState *st = (SumAggState *) eohptr;

	flush_buffer(st);
	return VARHDRSZ + gs_sum_state_size(&st->acc);
}

/* sum_state_flatten -- write the flat form (see sum_state.h) */
static void
sum_state_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	SumAggState *st = (SumAggState *) eohptr;
	Size		size;

	Assert(st->nbuffered == 0);
	size = VARHDRSZ + gs_sum_state_encode(&st->acc, (uint8 *) VARDATA(result));
	if (size != allocated_size)
		elog(ERROR, "gpu_sum: state of %zu bytes flattened into %zu", size, allocated_size);
	SET_VARSIZE(result, size);
}

/*
 * new_state -- an empty running state, a group's (grouped) or a whole
 * table's, in a new memory context under `parent` (the aggregate's context:
 * the executor then keeps the object as it is rather than copying it)
 */
static SumAggState *
new_state(MemoryContext parent, bool grouped)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "gpu_sum state", ALLOCSET_SMALL_SIZES);
	SumAggState *st = MemoryContextAllocZero(cxt, sizeof(SumAggState));

	EOH_init_header(&st->hdr, &sum_state_methods, cxt);
	gs_acc_zero(&st->acc);
	st->grouped = grouped;
	if (grouped)
	{
		st->capacity = GROUP_BUFFER_ELEMS;
		st->buffer = st->small;
	}
	else
	{
		st->capacity = AGG_FIRST_ELEMS;
		st->buffer = MemoryContextAlloc(cxt, AGG_FIRST_ELEMS * sizeof(double));
	}
	return st;
}

/*
 * decode_flat -- the accumulator of a flat state from outside, checked
 * completely first; ERROR (data_corrupted) if it is not a valid state
 */
static void
decode_flat(Datum d, gs_exact_acc *acc)
{
	bytea	   *flat = DatumGetByteaPP(d);
	gs_sum_state_problem problem;

	problem = gs_sum_state_decode((const uint8 *) VARDATA_ANY(flat), VARSIZE_ANY_EXHDR(flat), acc);
	if (problem != GS_SUM_STATE_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("gpu_sum: invalid aggregate state of %zu bytes",
						(Size) VARSIZE_ANY_EXHDR(flat)),
				 errdetail("%s", gs_sum_state_problem_text(problem)),
				 errhint("States of the gpu_sum aggregates come only from its own transition and combine functions.")));
	if ((Pointer) flat != DatumGetPointer(d))
		pfree(flat);
}

/*
 * read_state -- the value of a state argument into *acc, for reading only:
 * our running state's accumulator with its buffer added, or a flat state
 * decoded.  A running state that is not ours to change (a read-only
 * pointer) is added up in *acc, leaving the object as it was.
 */
static void
read_state(Datum d, gs_exact_acc *acc)
{
	SumAggState *st = as_our_state(d);

	if (st == NULL)
	{
		decode_flat(d, acc);
		return;
	}
	*acc = st->acc;
	if (st->nbuffered > 0)
		add_buffer(st, acc);
}

/*
 * own_state -- a running state we may change, in the aggregate's context
 * aggctx: the argument itself if it is a read-write pointer to our state
 * in that context, else a new state (a group's if `grouped`) holding the
 * argument's value.
 */
static SumAggState *
own_state(Datum d, MemoryContext aggctx, bool grouped)
{
	SumAggState *st;

	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		st = as_our_state(d);
		if (st != NULL && MemoryContextGetParent(st->hdr.eoh_context) == aggctx)
			return st;
	}
	st = new_state(aggctx, grouped);
	read_state(d, &st->acc);
	gs_acc_bound(&st->acc);
	return st;
}

/* chunk_limit -- the buffer size after which a full buffer is flushed */
static uint32
chunk_limit(void)
{
	if (gpuscan_device_mode == GPUSCAN_DEVICE_GPU && !IsParallelWorker())
		return AGG_GPU_CHUNK_ELEMS;
	return AGG_CHUNK_ELEMS;
}

/*
 * make_room -- room in a full buffer: a whole table's grows until
 * chunk_limit(), then it is flushed; a group's is flushed
 */
static void
make_room(SumAggState *st)
{
	uint32		limit = chunk_limit();

	if (!st->grouped && st->capacity < limit)
	{
		st->capacity = Min(st->capacity * 2, limit);
		st->buffer = repalloc(st->buffer, st->capacity * sizeof(double));
	}
	else
		flush_buffer(st);
}

/* add_value -- append one value to the state's buffer */
static inline void
add_value(SumAggState *st, double x)
{
	if (unlikely(st->nbuffered == st->capacity))
		make_room(st);
	st->buffer[st->nbuffered++] = x;
}

/*
 * aggregate_context -- the aggregate's context; ERROR (feature not
 * supported, as for a set-returning function called where no set is
 * accepted) when called as a plain function
 */
static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as a support function of the gpu_sum aggregates", fn)));
	return aggctx;
}

/*
 * grouped -- whether the aggregate runs per group (GROUP BY, grouping
 * sets), with a state per group; a whole-table aggregate or a window
 * aggregate has one state at a time
 */
static bool
grouped(FunctionCallInfo fcinfo)
{
	return IsA(fcinfo->context, AggState) &&
		((AggState *) fcinfo->context)->aggstrategy != AGG_PLAIN;
}

/*
 * transition -- the transition step.  The common case, our running state
 * called from plain aggregation, only adds the value (add_value).
 * Everything else (first row, a flat state to adopt) takes the long way.
 */
static inline Datum
transition(FunctionCallInfo fcinfo, const char *fn, bool isnull, double x)
{
	MemoryContext aggctx;
	SumAggState *st;

	if (likely(!PG_ARGISNULL(0) && fcinfo->context != NULL &&
			   IsA(fcinfo->context, AggState) &&
			   VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(PG_GETARG_DATUM(0)))))
	{
		st = as_our_state(PG_GETARG_DATUM(0));
		if (likely(st != NULL))
		{
			if (!isnull)
				add_value(st, x);
			return PG_GETARG_DATUM(0);
		}
	}

	aggctx = aggregate_context(fcinfo, fn);
	if (PG_ARGISNULL(0))
	{
		if (isnull)
			PG_RETURN_NULL();	/* no rows yet: the sum stays NULL */
		st = new_state(aggctx, grouped(fcinfo));
	}
	else
		st = own_state(PG_GETARG_DATUM(0), aggctx, grouped(fcinfo));
	if (!isnull)
		add_value(st, x);
	return EOHPGetRWDatum(&st->hdr);
}

/*
 * gs_sum_state_from_acc -- a flat partial state holding acc, as the
 * GpuscanSum scan (sum_scan.c) hands it to the combine step
 */
Datum
gs_sum_state_from_acc(const gs_exact_acc *acc)
{
	bytea	   *flat = palloc(VARHDRSZ + GS_SUM_STATE_MAX_BYTES);

	SET_VARSIZE(flat, VARHDRSZ + gs_sum_state_encode(acc, (uint8 *) VARDATA(flat)));
	return PointerGetDatum(flat);
}

PG_FUNCTION_INFO_V1(gpu_sum_accum_support);

/*
 * gpu_sum_accum_support -- planner support function of the transition
 * functions.  It answers no request (the catalog's cost stands), but the
 * planner asks it for the transition cost while it plans an aggregate
 * query, which loads this library and so installs the GpuscanSum planner
 * hook (sum_scan.c) in time for that very query.
 */
Datum
gpu_sum_accum_support(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(NULL);
}

PG_FUNCTION_INFO_V1(gpu_sum_float8_accum);

/* gpu_sum_float8_accum -- transition step for double precision rows */
Datum
gpu_sum_float8_accum(PG_FUNCTION_ARGS)
{
	return transition(fcinfo, "gpu_sum_float8_accum", PG_ARGISNULL(1),
					  PG_ARGISNULL(1) ? 0.0 : PG_GETARG_FLOAT8(1));
}

PG_FUNCTION_INFO_V1(gpu_sum_float4_accum);

/* gpu_sum_float4_accum -- transition step for real rows (exact widening) */
Datum
gpu_sum_float4_accum(PG_FUNCTION_ARGS)
{
	return transition(fcinfo, "gpu_sum_float4_accum", PG_ARGISNULL(1),
					  PG_ARGISNULL(1) ? 0.0 : (double) PG_GETARG_FLOAT4(1));
}

PG_FUNCTION_INFO_V1(gpu_sum_combine);

/* gpu_sum_combine -- merge two partial states (strict: both non-NULL) */
Datum
gpu_sum_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = aggregate_context(fcinfo, "gpu_sum_combine");
	SumAggState *st = own_state(PG_GETARG_DATUM(0), aggctx, true);
	gs_exact_acc other;

	read_state(PG_GETARG_DATUM(1), &other);
	gs_acc_merge(&st->acc, &other);
	gs_acc_bound(&st->acc);
	return EOHPGetRWDatum(&st->hdr);
}

PG_FUNCTION_INFO_V1(gpu_sum_final);

/*
 * gpu_sum_final -- the correctly rounded sum; NULL when no row had a value.
 * The executor passes our running state read-only; adding its buffer into
 * its accumulator all the same changes the state's form, not its value,
 * and keeps later final calls cheap where more rows follow (a window
 * aggregate calls this once per row).
 */
Datum
gpu_sum_final(PG_FUNCTION_ARGS)
{
	SumAggState *st;
	gs_exact_acc acc;

	(void) aggregate_context(fcinfo, "gpu_sum_final");
	st = as_our_state(PG_GETARG_DATUM(0));
	if (st == NULL)
	{
		decode_flat(PG_GETARG_DATUM(0), &acc);
		PG_RETURN_FLOAT8(gs_acc_round(&acc));
	}
	flush_buffer(st);
	PG_RETURN_FLOAT8(gs_acc_round(&st->acc));
}
