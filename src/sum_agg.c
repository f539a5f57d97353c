/*-------------------------------------------------------------------------
 *
 * sum_agg.c
 *	  The gpu_sum aggregates over double precision and real rows.
 *
 * The transition state is a bytea (a concrete type, so that parallel query
 * and Citus can ship partial states) holding an exact accumulator and a
 * buffer of values not yet added.  The transition step only appends to the
 * buffer, which grows geometrically up to chunk_limit(); a full buffer is
 * reduced into the accumulator by gs_sum_into(), which takes the GPU when
 * the dispatch rules say so.  The combine step merges accumulators (exact
 * integer addition) and reduces the other state's buffer; the final step
 * reduces what is left and rounds once.  The result is the correctly
 * rounded sum whatever the plan: serial, parallel, or split across shards.
 *
 * The state's layout is fixed: a magic word written in native byte order
 * tells a state from a machine of the other byte order, which is then
 * swapped before use.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "port/pg_bswap.h"
#include "utils/memutils.h"

#include "gpuscan.h"

#define SUM_STATE_MAGIC		0x47535331	/* "GSS1" */
#define AGG_FIRST_ELEMS		64

/*
 * A full buffer is reduced every AGG_CHUNK_ELEMS values (32 kB): the
 * reduction's fixed cost per call is then well under a nanosecond per row,
 * while the buffer stays in the CPU's first-level cache, below malloc's
 * mmap threshold (larger states cost page faults on every query) and cheap
 * to ship from a parallel worker to the leader (a bytea partial state
 * travels as it is).
 */
#define AGG_CHUNK_ELEMS		(1 << 12)

/*
 * With gpuscan.device = gpu every flush is a GPU call, which costs tens of
 * microseconds whatever its size: the buffer then grows to 512 kB, except
 * in a parallel worker, whose state still has to travel.
 */
#define AGG_GPU_CHUNK_ELEMS	(1 << 16)

typedef struct SumState
{
	int32		vl_len_;		/* varlena header */
	uint32		magic;
	uint32		capacity;		/* buffer slots allocated */
	uint32		nbuffered;		/* buffer slots used */
	gs_exact_acc acc;
	double		buffer[FLEXIBLE_ARRAY_MEMBER];
} SumState;

#define SUM_STATE_SIZE(cap)	(offsetof(SumState, buffer) + (Size) (cap) * sizeof(double))

/*
 * new_state -- an empty state, in the per-call context: the executor copies
 * a transition value that is not its input into the aggregate's context
 * (and frees the old one), so a state we return anew must not live there.
 */
static SumState *
new_state(uint32 capacity)
{
	SumState   *s = palloc0(SUM_STATE_SIZE(capacity));

	SET_VARSIZE(s, SUM_STATE_SIZE(capacity));
	s->magic = SUM_STATE_MAGIC;
	s->capacity = capacity;
	gs_acc_zero(&s->acc);
	return s;
}

/* swap_state -- convert a state written on a machine of the other byte order */
static void
swap_state(SumState *s)
{
	uint64	   *words = (uint64 *) &s->acc;
	uint32		i;

	s->capacity = pg_bswap32(s->capacity);
	s->nbuffered = pg_bswap32(s->nbuffered);
	for (i = 0; i < sizeof(gs_exact_acc) / sizeof(uint64); i++)
		words[i] = pg_bswap64(words[i]);
	for (i = 0; i < s->nbuffered; i++)
	{
		uint64		u;

		memcpy(&u, &s->buffer[i], sizeof(u));
		u = pg_bswap64(u);
		memcpy(&s->buffer[i], &u, sizeof(u));
	}
	s->magic = SUM_STATE_MAGIC;
}

/*
 * get_state -- argument `argno` as a checked state.  With `aggctx` set, one
 * we may modify: the argument itself when it is a transition value living
 * in that context, else a copy in the per-call context, which the executor
 * then adopts.  With `aggctx` NULL (a partial state from another process,
 * which need not be a palloc'd chunk) it is only read, and copied only if
 * it comes from a machine of the other byte order.
 */
static SumState *
get_state(FunctionCallInfo fcinfo, int argno, MemoryContext aggctx)
{
	Datum		d = PG_GETARG_DATUM(argno);
	SumState   *s = (SumState *) PG_DETOAST_DATUM(d);

	if (VARSIZE(s) < offsetof(SumState, buffer))
		elog(ERROR, "gpu_sum: invalid aggregate state of %zu bytes", (Size) VARSIZE(s));
	if ((Pointer) s == DatumGetPointer(d) &&
		(s->magic != SUM_STATE_MAGIC ||
		 (aggctx != NULL && GetMemoryChunkContext(s) != aggctx)))
		s = (SumState *) PG_DETOAST_DATUM_COPY(d);
	if (s->magic == pg_bswap32(SUM_STATE_MAGIC))
		swap_state(s);
	if (s->magic != SUM_STATE_MAGIC ||
		VARSIZE(s) < SUM_STATE_SIZE(s->capacity) || s->nbuffered > s->capacity)
		elog(ERROR, "gpu_sum: invalid aggregate state");
	return s;
}

/* flush_buffer -- reduce the buffered values into the accumulator */
static void
flush_buffer(SumState *s)
{
	if (s->nbuffered == 0)
		return;
	gs_sum_into(&s->acc, s->buffer, s->nbuffered, FLOAT8OID, NULL, "gpu_sum aggregate");
	s->nbuffered = 0;
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
 * add_value -- append one value; a full buffer grows (into a new state,
 * see new_state) until chunk_limit(), after which it is flushed
 */
static SumState *
add_value(SumState *s, double x)
{
	if (s->nbuffered == s->capacity)
	{
		uint32		limit = chunk_limit();

		if (s->capacity < limit)
		{
			SumState   *bigger = new_state(Min(s->capacity * 2, limit));

			bigger->nbuffered = s->nbuffered;
			bigger->acc = s->acc;
			memcpy(bigger->buffer, s->buffer, s->nbuffered * sizeof(double));
			s = bigger;
		}
		else
			flush_buffer(s);
	}
	s->buffer[s->nbuffered++] = x;
	return s;
}

/* aggregate_context -- the aggregate's context, or ERROR outside one */
static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggctx;
}

/*
 * transition -- the transition step.  The common case, a valid state with
 * room in its buffer called from plain aggregation, only appends: the
 * executor guarantees that the transition value lives in the aggregate's
 * context, so it may be changed in place.  Everything else (first row, a
 * full buffer, window aggregation, a state to check) takes the long way.
 */
static inline Datum
transition(FunctionCallInfo fcinfo, bool isnull, double x)
{
	MemoryContext aggctx;
	SumState   *s;

	if (likely(!PG_ARGISNULL(0) && fcinfo->context != NULL &&
			   IsA(fcinfo->context, AggState)))
	{
		s = (SumState *) DatumGetPointer(PG_GETARG_DATUM(0));
		/* room for one more, by the allocated size (== capacity in our states) */
		if (likely(VARATT_IS_4B_U(s) && s->magic == SUM_STATE_MAGIC &&
				   SUM_STATE_SIZE(s->nbuffered + (Size) 1) <= VARSIZE_4B(s)))
		{
			if (!isnull)
				s->buffer[s->nbuffered++] = x;
			PG_RETURN_POINTER(s);
		}
	}

	aggctx = aggregate_context(fcinfo, "gpu_sum transition");
	if (PG_ARGISNULL(0))
	{
		if (isnull)
			PG_RETURN_NULL();	/* no rows yet: the sum stays NULL */
		s = new_state(AGG_FIRST_ELEMS);
	}
	else
	{
		s = get_state(fcinfo, 0, aggctx);
		if (isnull)
			PG_RETURN_POINTER(s);
	}
	PG_RETURN_POINTER(add_value(s, x));
}

/*
 * gs_sum_state_from_acc -- a partial state holding acc and no buffered
 * values, as the GpuscanSum scan (sum_scan.c) hands it to the combine step
 */
Datum
gs_sum_state_from_acc(const gs_exact_acc *acc)
{
	SumState   *s = new_state(0);

	s->acc = *acc;
	return PointerGetDatum(s);
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
	return transition(fcinfo, PG_ARGISNULL(1),
					  PG_ARGISNULL(1) ? 0.0 : PG_GETARG_FLOAT8(1));
}

PG_FUNCTION_INFO_V1(gpu_sum_float4_accum);

/* gpu_sum_float4_accum -- transition step for real rows (exact widening) */
Datum
gpu_sum_float4_accum(PG_FUNCTION_ARGS)
{
	return transition(fcinfo, PG_ARGISNULL(1),
					  PG_ARGISNULL(1) ? 0.0 : (double) PG_GETARG_FLOAT4(1));
}

PG_FUNCTION_INFO_V1(gpu_sum_combine);

/* gpu_sum_combine -- merge two partial states (strict: both non-NULL) */
Datum
gpu_sum_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = aggregate_context(fcinfo, "gpu_sum_combine");
	SumState   *a = get_state(fcinfo, 0, aggctx);
	SumState   *b = get_state(fcinfo, 1, NULL);	/* read-only use, never ours */

	gs_acc_merge(&a->acc, &b->acc);
	if (b->nbuffered > 0)
		gs_sum_into(&a->acc, b->buffer, b->nbuffered, FLOAT8OID, NULL, "gpu_sum aggregate");
	PG_RETURN_POINTER(a);
}

PG_FUNCTION_INFO_V1(gpu_sum_final);

/*
 * gpu_sum_final -- the correctly rounded sum; NULL when no row had a value.
 * Folding the buffer into the accumulator changes the state's form but not
 * its value, so the state stays valid for further transitions (as in a
 * window aggregate) and later final calls are cheap.  A state that is not
 * ours to change is folded in a private copy.
 */
Datum
gpu_sum_final(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = aggregate_context(fcinfo, "gpu_sum_final");
	SumState   *s = get_state(fcinfo, 0, aggctx);

	flush_buffer(s);
	PG_RETURN_FLOAT8(gs_acc_round(&s->acc));
}
