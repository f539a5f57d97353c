/*-------------------------------------------------------------------------
 *
 * sum_agg.c
 *	  The gpu_sum aggregates over double precision and real rows.
 *
 * The state type is bytea (a concrete type, so that parallel query and
 * Citus can ship partial states), but while the aggregate runs the state
 * is an expanded object (utils/expandeddatum.h), and the executor passes it
 * back by its read-write pointer, so nothing is copied from row to row.
 * All the states of one aggregate context live in one child context of it
 * (states_context), so that thousands of groups cost no more than their
 * states' bytes: a memory context per state made PostgreSQL's hash
 * aggregation walk every state's context as it checked its memory.
 *
 * Two kinds of state:
 *
 *	- Over a whole table (one group), or as a window aggregate: an exact
 *	  accumulator and a buffer that the transition step only appends to,
 *	  growing geometrically up to chunk_limit(); a full buffer is reduced
 *	  into the accumulator by gs_sum_into(), which takes the GPU when the
 *	  dispatch rules say so.
 *	- Per group (GROUP BY, grouping sets): no buffer, and the sum is held in
 *	  a window of a few accumulator limbs (sum_window.h) next to the
 *	  object's header, a state of about 200 bytes that a row touches in two
 *	  or three adjacent cache lines; a value outside the window moves the
 *	  group's sum to a full accumulator.
 *
 * Where a state leaves the aggregate (a parallel worker's partial state, a
 * Citus worker's, a tuple, a text output) PostgreSQL flattens the object:
 * its value is written in the compact, byte-order-free form of
 * sum_state.h, at most a few hundred bytes.  Every flat state that comes in
 * (a partial state to combine, an INITCOND, a value a user built) is
 * untrusted: gs_sum_state_decode checks it completely before anything uses
 * it, and a bad one is an ERROR with SQLSTATE XX001 (data_corrupted).
 *
 * The combine step merges accumulators (exact integer addition); the final
 * step rounds the exact sum once.  The result is the correctly rounded sum
 * whatever the plan: serial, parallel, or split across shards.
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

#include "dispatch/dispatch.h"
#include "functions/group_sum.h"
#include "functions/sum.h"
#include "functions/sum_agg.h"
#include "cpu/sum_state.h"

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

/* the name of the context that holds an aggregate context's states */
#define STATES_CONTEXT_NAME	"gpu_sum states"

/*
 * The running state: an expanded object.  A whole table's has a full
 * accumulator (sum.acc, from the start) and a buffer; a group's has the
 * GroupSum alone (group_sum.h).
 */
typedef struct SumAggState
{
	ExpandedObjectHeader hdr;
	bool		grouped;		/* a group's state */
	uint32		nbuffered;		/* values in the buffer */
	uint32		capacity;		/* values the buffer holds (0 for a group's) */
	double	   *buffer;
	GroupSum	sum;			/* the sum, less the buffered values */
} SumAggState;

static Size sum_state_flat_size(ExpandedObjectHeader *eohptr);
static void sum_state_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods sum_state_methods = {
	sum_state_flat_size,
	sum_state_flatten
};

/*
 * as_our_state -- the SumAggState a datum points to, or NULL if it is flat
 * (DatumGetEOHP's work, inline: this runs once per row)
 */
static inline SumAggState *
as_our_state(Datum d)
{
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
	{
		varatt_expanded ptr;

		memcpy(&ptr, VARDATA_EXTERNAL(DatumGetPointer(d)), sizeof(ptr));
		if (ptr.eohptr->eoh_methods == &sum_state_methods)
			return (SumAggState *) ptr.eohptr;
	}
	return NULL;
}

/*
 * states_context -- the child of aggctx that holds its states, made on
 * first use.  The executor keeps a transition value that is an expanded
 * object whose context is a child of the aggregate's (rather than copying
 * it), and deletes the old value only when a transition step returns
 * another; ours return the state they were given, so no state is ever
 * deleted alone, and the states go with aggctx when it is reset.
 */
static MemoryContext
states_context(MemoryContext aggctx)
{
	MemoryContext child;

	for (child = aggctx->firstchild; child != NULL; child = child->nextchild)
		if (strcmp(child->name, STATES_CONTEXT_NAME) == 0)
			return child;
	return AllocSetContextCreate(aggctx, STATES_CONTEXT_NAME, ALLOCSET_DEFAULT_SIZES);
}

/* add_values -- n values into the accumulator of a whole table's state */
static void
add_values(gs_exact_acc *acc, const double *values, uint32 n)
{
	gs_sum_into(acc, values, n, FLOAT8OID, NULL, "gpu_sum aggregate");
}

/* flush_buffer -- add the buffered values into the accumulator */
static void
flush_buffer(SumAggState *st)
{
	if (st->nbuffered == 0)
		return;
	add_values(st->sum.acc, st->buffer, st->nbuffered);
	st->nbuffered = 0;
}

/* state_value -- the exact value of our running state, into *acc */
static void
state_value(SumAggState *st, gs_exact_acc *acc)
{
	group_sum_value(&st->sum, acc);
	if (st->nbuffered > 0)
		add_values(acc, st->buffer, st->nbuffered);
}

/*
 * sum_state_flat_size -- bytes of the flat form.  A whole table's buffer is
 * added into its accumulator first: that changes how the state holds its
 * value, not the value, and PostgreSQL asks for the size before every
 * flatten_into.
 */
static Size
sum_state_flat_size(ExpandedObjectHeader *eohptr)
{
	SumAggState *st = (SumAggState *) eohptr;
	gs_exact_acc acc;

	flush_buffer(st);
	state_value(st, &acc);
	return VARHDRSZ + gs_sum_state_size(&acc);
}

/* sum_state_flatten -- write the flat form (see sum_state.h) */
static void
sum_state_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	SumAggState *st = (SumAggState *) eohptr;
	gs_exact_acc acc;
	Size		size;

	state_value(st, &acc);
	size = VARHDRSZ + gs_sum_state_encode(&acc, (uint8 *) VARDATA(result));
	if (size != allocated_size)
		elog(ERROR, "gpu_sum: state of %zu bytes flattened into %zu", size, allocated_size);
	SET_VARSIZE(result, size);
}

/*
 * new_state -- an empty running state, a group's (grouped) or a whole
 * table's, in the states' context of aggctx
 */
static SumAggState *
new_state(MemoryContext aggctx, bool grouped)
{
	MemoryContext cxt = states_context(aggctx);
	SumAggState *st = MemoryContextAllocZero(cxt, sizeof(SumAggState));

	EOH_init_header(&st->hdr, &sum_state_methods, cxt);
	st->grouped = grouped;
	group_sum_init(&st->sum);
	if (!grouped)
	{
		(void) group_sum_full(&st->sum, cxt);
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
 * our running state's (left as it was), or a flat state decoded
 */
static void
read_state(Datum d, gs_exact_acc *acc)
{
	SumAggState *st = as_our_state(d);

	if (st == NULL)
		decode_flat(d, acc);
	else
		state_value(st, acc);
}

/*
 * merge_into -- add the exact value `other` into our state st, keeping it
 * in range (gs_acc_bound): into its window where the digits fit
 */
static void
merge_into(SumAggState *st, const gs_exact_acc *other)
{
	gs_exact_acc *acc;

	if (st->sum.acc == NULL && gs_window_add_acc(&st->sum.window, other))
		return;
	acc = group_sum_full(&st->sum, st->hdr.eoh_context);
	flush_buffer(st);
	gs_acc_merge(acc, other);
	gs_acc_bound(acc);
	st->sum.acc_adds = 0;
}

/*
 * own_state -- a running state we may change: the argument itself if it is
 * a read-write pointer to our state, else a new state (a group's if
 * `grouped`) in aggctx holding the argument's value
 */
static SumAggState *
own_state(Datum d, MemoryContext aggctx, bool grouped)
{
	SumAggState *st;
	gs_exact_acc value;

	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		st = as_our_state(d);
		if (st != NULL)
			return st;
	}
	read_state(d, &value);
	gs_acc_bound(&value);
	st = new_state(aggctx, grouped);
	merge_into(st, &value);
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
 * make_room -- room in a whole table's full buffer: it grows until
 * chunk_limit(), then it is flushed
 */
static void
make_room(SumAggState *st)
{
	uint32		limit = chunk_limit();

	if (st->capacity < limit)
	{
		st->capacity = Min(st->capacity * 2, limit);
		st->buffer = repalloc(st->buffer, st->capacity * sizeof(double));
	}
	else
		flush_buffer(st);
}

/* add_value -- one value into the state */
static inline void
add_value(SumAggState *st, double x)
{
	if (st->grouped)
	{
		group_sum_add(&st->sum, x, st->hdr.eoh_context);
		return;
	}
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
		/* per-group sums run on the CPU, but gpuscan.device = gpu needs a GPU */
		if (st->grouped)
			gs_require_forced_gpu("gpu_sum aggregate");
	}
	else
		st = own_state(PG_GETARG_DATUM(0), aggctx, grouped(fcinfo));
	if (!isnull)
		add_value(st, x);
	return EOHPGetRWDatum(&st->hdr);
}

/*
 * gs_sum_state_from_acc -- a flat partial state holding acc, as the
 * GpuscanSum scan (sum_table_scan.c) hands it to the combine step
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
 * hook (sum_table_scan.c) in time for that very query.
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
	gs_acc_bound(&other);
	merge_into(st, &other);
	return EOHPGetRWDatum(&st->hdr);
}

PG_FUNCTION_INFO_V1(gpu_sum_final);

/*
 * gpu_sum_final -- the correctly rounded sum; NULL when no row had a value.
 * The executor passes our running state read-only; adding a whole table's
 * buffer into its accumulator all the same changes the state's form, not
 * its value, and keeps later final calls cheap where more rows follow (a
 * window aggregate calls this once per row).
 */
Datum
gpu_sum_final(PG_FUNCTION_ARGS)
{
	SumAggState *st;
	gs_exact_acc acc;

	(void) aggregate_context(fcinfo, "gpu_sum_final");
	st = as_our_state(PG_GETARG_DATUM(0));
	if (st == NULL)
		decode_flat(PG_GETARG_DATUM(0), &acc);
	else
	{
		flush_buffer(st);
		state_value(st, &acc);
	}
	PG_RETURN_FLOAT8(gs_acc_round(&acc));
}
