/*-------------------------------------------------------------------------
 *
 * pagerank_edges.c
 *	  gpu_pagerank_edges(edges_query text, ...): PageRank of the graph whose
 *	  edges a query returns, with the nodes' own ids.
 *
 * The query runs through SPI with the caller's privileges, read-only; its
 * rows go from the executor straight to a receiver of our own, which keeps
 * their two ids (no copy of each row, as a cursor would make).  It must
 * return two columns of integer types (smallint, integer or bigint): an
 * edge source -> target per row; duplicate edges count as several links
 * and self-loops are allowed, as in gpu_pagerank; a node that appears only
 * as a target is a node (dangling, its rank spread over all nodes).  The
 * ids map to 0 .. n - 1 in increasing order through a hash table filled as
 * the rows come (each endpoint is kept as its index of first appearance, 4
 * bytes), then a counting sort by source builds the out-link CSR, the edges
 * of a node in the order the query returned them.  The ranks come from gs_pagerank, on
 * the path the dispatch rules choose, as one row (node, rank) per node in
 * increasing order of node.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "portability/instr_time.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/plancache.h"

#include "functions/pagerank.h"
#include "functions/spmv.h"
#include "dispatch/stats.h"

/* the hash table from a node's id to its index of first appearance */
typedef struct NodeEntry
{
	int64		id;
	int32		first;
	char		status;
} NodeEntry;

/* id_hash -- murmur3's 64-bit finalizer (PostgreSQL 15 has no murmurhash64) */
static inline uint32
id_hash(int64 id)
{
	uint64		h = (uint64) id;

	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64CONST(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return (uint32) h;
}

#define SH_PREFIX		nodemap
#define SH_ELEMENT_TYPE NodeEntry
#define SH_KEY_TYPE		int64
#define SH_KEY			id
#define SH_HASH_KEY(tb, key) id_hash(key)
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* edges mapped to node indexes at a time */
#define EDGE_BATCH		10000

/* the edges as read: each endpoint as its node's index of first appearance */
typedef struct EdgeList
{
	int64		nedges;
	int64		capacity;
	int32	   *src;
	int32	   *dst;
	int32		nnodes;
	int32		node_capacity;
	int64	   *ids;			/* by index of first appearance */
	nodemap_hash *map;
	MemoryContext cxt;			/* where all of the above lives */
	const char *fn;
} EdgeList;

/* resize -- p (NULL or from cxt) with room for n elements of `size` bytes */
static void *
resize(void *p, int64 n, Size size, MemoryContext cxt)
{
	if (p == NULL)
		return MemoryContextAllocHuge(cxt, size * (Size) n);
	return repalloc_huge(p, size * (Size) n);
}

/* grown -- the capacity after growing from `have` to hold at least `want` */
static int64
grown(int64 have, int64 want)
{
	return Max(have * 2, Max(want, 1024));
}

/* node_index -- the index of first appearance of node `id`, adding it if new */
static int32
node_index(EdgeList *e, int64 id)
{
	bool		found;
	NodeEntry  *entry = nodemap_insert(e->map, id, &found);

	if (!found)
	{
		if (e->nnodes == PG_INT32_MAX - 1)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: the graph has too many nodes", e->fn),
					 errdetail("At most %d nodes are supported.", PG_INT32_MAX - 1)));
		if (e->nnodes == e->node_capacity)
		{
			e->node_capacity = (int32) Min(grown(e->node_capacity, e->nnodes + 1), PG_INT32_MAX);
			e->ids = resize(e->ids, e->node_capacity, sizeof(int64), e->cxt);
		}
		entry->first = e->nnodes;
		e->ids[e->nnodes++] = id;
	}
	return entry->first;
}

/* how many lookups ahead index_batch prefetches a bucket */
#define PREFETCH_AHEAD	16

/* ask the CPU to bring the cache line at p in (a hint; nothing where unsupported) */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p)		__builtin_prefetch(p)
#else
#define PREFETCH(p)		((void) (p))
#endif

/*
 * index_batch -- the indexes of n ids (source, target, source, ...) into
 * src[] and dst[] alternately.  The hash table is far larger than the
 * caches for a large graph, so that each lookup would wait for memory:
 * the bucket of the lookup PREFETCH_AHEAD later is fetched meanwhile.
 */
static void
index_batch(EdgeList *e, const int64 *ids, int64 n, int32 *src, int32 *dst)
{
	int64		i;

	for (i = 0; i < n; i++)
	{
		int32		index;

		if (i + PREFETCH_AHEAD < n)
			PREFETCH(&e->map->data[id_hash(ids[i + PREFETCH_AHEAD]) & e->map->sizemask]);
		index = node_index(e, ids[i]);
		if (i % 2 == 0)
			src[i / 2] = index;
		else
			dst[i / 2] = index;
	}
}

/* check_columns -- two columns of integer types, or an ERROR saying what came */
static void
check_columns(TupleDesc desc, const char *fn)
{
	int			i;
	bool		ok = (desc->natts == 2);

	for (i = 0; ok && i < desc->natts; i++)
	{
		Oid			t = TupleDescAttr(desc, i)->atttypid;

		ok = (t == INT2OID || t == INT4OID || t == INT8OID);
	}
	if (!ok)
	{
		StringInfoData types;

		initStringInfo(&types);
		for (i = 0; i < desc->natts; i++)
			appendStringInfo(&types, "%s%s", i > 0 ? ", " : "",
							 format_type_be(TupleDescAttr(desc, i)->atttypid));
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the edge query must return two columns of integer types (source, target)",
						fn),
				 errdetail("It returns %d column%s%s%s.", desc->natts,
						   desc->natts == 1 ? "" : "s", desc->natts > 0 ? ": " : "",
						   types.data)));
	}
}

/*
 * is_plain_select -- whether a prepared query is one SELECT (or VALUES, or
 * TABLE) that changes nothing: no data-modifying WITH
 */
static bool
is_plain_select(SPIPlanPtr plan)
{
	List	   *sources = SPI_plan_get_plan_sources(plan);
	CachedPlanSource *source;
	ListCell   *lc;

	if (list_length(sources) != 1 || !SPI_is_cursor_plan(plan))
		return false;
	source = linitial(sources);
	if (source->commandTag != CMDTAG_SELECT)
		return false;
	foreach(lc, source->query_list)
	{
		Query	   *q = lfirst_node(Query, lc);

		if (q->commandType != CMD_SELECT || q->hasModifyingCTE || q->rowMarks != NIL)
			return false;
	}
	return true;
}

/*
 * EdgeReceiver -- where the executor sends the edge query's rows: each
 * row's two ids go straight from the executor's slot into a batch, which
 * is mapped to node indexes when full (no copy of the row, as a cursor's
 * fetch would make)
 */
typedef struct EdgeReceiver
{
	DestReceiver pub;
	EdgeList   *e;
	Oid			type[2];		/* the columns' types */
	int64		row;			/* rows received */
	int			nbatch;			/* edges in batch */
	int64	   *batch;			/* source, target, source, ... */
} EdgeReceiver;

/* flush_batch -- the batch's edges into the edge list, as node indexes */
static void
flush_batch(EdgeReceiver *r)
{
	EdgeList   *e = r->e;

	if (r->nbatch == 0)
		return;
	if (e->nedges + r->nbatch > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the graph has too many edges", e->fn),
				 errdetail("At most %d edges are supported.", PG_INT32_MAX)));
	if (e->nedges + r->nbatch > e->capacity)
	{
		e->capacity = grown(e->capacity, e->nedges + r->nbatch);
		e->src = resize(e->src, e->capacity, sizeof(int32), e->cxt);
		e->dst = resize(e->dst, e->capacity, sizeof(int32), e->cxt);
	}
	index_batch(e, r->batch, 2 * (int64) r->nbatch, e->src + e->nedges, e->dst + e->nedges);
	e->nedges += r->nbatch;
	r->nbatch = 0;
}

/* edge_startup -- the query's columns checked before its first row */
static void
edge_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	EdgeReceiver *r = (EdgeReceiver *) self;

	check_columns(desc, r->e->fn);
	r->type[0] = TupleDescAttr(desc, 0)->atttypid;
	r->type[1] = TupleDescAttr(desc, 1)->atttypid;
}

/* column_id -- a column's value as an id, by its type */
static inline int64
column_id(Datum d, Oid type)
{
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

/* edge_receive -- one row of the query into the batch; ERROR on a NULL */
static bool
edge_receive(TupleTableSlot *slot, DestReceiver *self)
{
	EdgeReceiver *r = (EdgeReceiver *) self;
	int			col;

	slot_getsomeattrs(slot, 2);
	r->row++;
	for (col = 0; col < 2; col++)
	{
		if (slot->tts_isnull[col])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: the edge query returned a NULL %s", r->e->fn,
							col == 0 ? "source" : "target"),
					 errdetail("Row " INT64_FORMAT " of the query's result.", r->row)));
		r->batch[2 * r->nbatch + col] = column_id(slot->tts_values[col], r->type[col]);
	}
	if (++r->nbatch == EDGE_BATCH)
		flush_batch(r);
	return true;
}

/* edge_shutdown -- the last rows' batch into the edge list */
static void
edge_shutdown(DestReceiver *self)
{
	flush_batch((EdgeReceiver *) self);
}

/* edge_destroy -- nothing: the receiver and its batch live in the call's context */
static void
edge_destroy(DestReceiver *self)
{
}

/* read_edges -- run the query, its rows into *e */
static void
read_edges(EdgeList *e, const char *query)
{
	SPIPlanPtr	plan;
	SPIExecuteOptions options;
	EdgeReceiver receiver;
	int			rc;

	memset(&receiver, 0, sizeof(receiver));
	receiver.pub.receiveSlot = edge_receive;
	receiver.pub.rStartup = edge_startup;
	receiver.pub.rShutdown = edge_shutdown;
	receiver.pub.rDestroy = edge_destroy;
	receiver.pub.mydest = DestNone;
	receiver.e = e;
	receiver.batch = MemoryContextAlloc(e->cxt, sizeof(int64) * 2 * EDGE_BATCH);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "%s: SPI_connect failed", e->fn);
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "%s: SPI_prepare failed: %s", e->fn, SPI_result_code_string(SPI_result));
	if (!is_plain_select(plan))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: the edge query must be a single SELECT, VALUES or TABLE query that changes nothing", e->fn)));

	memset(&options, 0, sizeof(options));
	options.read_only = true;
	options.dest = &receiver.pub;
	rc = SPI_execute_plan_extended(plan, &options);
	/* a SELECT whose rows go to a receiver of our own reports SPI_OK_UTILITY */
	if (rc != SPI_OK_UTILITY && rc != SPI_OK_SELECT)
		elog(ERROR, "%s: the edge query failed: %s", e->fn, SPI_result_code_string(rc));
	SPI_finish();
}

/* an id and its index of first appearance, to sort by id */
typedef struct IdFirst
{
	int64		id;
	int32		first;
} IdFirst;

/* sort_key -- an id as an unsigned key in the same order (negative ids first) */
static inline uint64
sort_key(int64 id)
{
	return (uint64) id ^ ((uint64) 1 << 63);
}

/*
 * sort_by_id -- a[0 .. n-1] sorted by id (the ids are distinct), through
 * tmp (n entries): a least significant digit radix sort of 8-bit digits,
 * every digit's counts from one pass, digits all entries share skipped.
 * Returns the array that holds the result (a or tmp).
 */
static IdFirst *
sort_by_id(IdFirst *a, IdFirst *tmp, int32 n)
{
	int64	   *count = palloc0(sizeof(int64) * 8 * 256);
	int32		i;
	int			d;

	for (i = 0; i < n; i++)
	{
		uint64		key = sort_key(a[i].id);

		for (d = 0; d < 8; d++)
			count[d * 256 + ((key >> (8 * d)) & 255)]++;
	}
	for (d = 0; d < 8 && n > 0; d++)
	{
		int64	   *c = &count[d * 256];
		int64		sum = 0;
		int			b;
		IdFirst    *swap;

		if (c[(sort_key(a[0].id) >> (8 * d)) & 255] == n)
			continue;			/* one digit for all: already in order by it */
		for (b = 0; b < 256; b++)
		{
			int64		k = c[b];

			c[b] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			tmp[c[(sort_key(a[i].id) >> (8 * d)) & 255]++] = a[i];
		swap = a;
		a = tmp;
		tmp = swap;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(count);
	return a;
}

/*
 * build_csr -- the out-link CSR of the edges over nodes numbered in
 * increasing order of id (e's endpoints renumbered so on the way);
 * sorted_ids gets the ids in that order
 */
static void
build_csr(EdgeList *e, GsCsr *csr, int64 **sorted_ids)
{
	int32		n = e->nnodes;
	IdFirst    *order = MemoryContextAllocHuge(e->cxt, sizeof(IdFirst) * (Size) n);
	IdFirst    *spare = MemoryContextAllocHuge(e->cxt, sizeof(IdFirst) * (Size) n);
	IdFirst    *sorted;
	int32	   *number = MemoryContextAllocHuge(e->cxt, sizeof(int32) * (Size) n);
	int32	   *row_ptr = MemoryContextAllocHuge(e->cxt, sizeof(int32) * ((Size) n + 1));
	int32	   *col_idx = MemoryContextAllocHuge(e->cxt, sizeof(int32) * (Size) Max(e->nedges, 1));
	int64	   *ids = MemoryContextAllocHuge(e->cxt, sizeof(int64) * (Size) n);
	int64		k;
	int32		i;

	for (i = 0; i < n; i++)
	{
		order[i].id = e->ids[i];
		order[i].first = i;
	}
	sorted = sort_by_id(order, spare, n);
	for (i = 0; i < n; i++)
	{
		number[sorted[i].first] = i;
		ids[i] = sorted[i].id;
	}

	/*
	 * a counting sort by source, stable: a node's edges in the query's order.
	 * The endpoints are renumbered in place as the sources are counted, so
	 * that the scatter reads no more than it writes.
	 */
	memset(row_ptr, 0, sizeof(int32) * ((Size) n + 1));
	for (k = 0; k < e->nedges; k++)
	{
		int32		source = number[e->src[k]];

		e->src[k] = source;
		e->dst[k] = number[e->dst[k]];
		row_ptr[source + 1]++;
	}
	for (i = 0; i < n; i++)
		row_ptr[i + 1] += row_ptr[i];
	{
		int32	   *next = MemoryContextAllocHuge(e->cxt, sizeof(int32) * (Size) n);

		memcpy(next, row_ptr, sizeof(int32) * (Size) n);
		for (k = 0; k < e->nedges; k++)
			col_idx[next[e->src[k]]++] = e->dst[k];
		pfree(next);
	}
	pfree(order);
	pfree(spare);
	pfree(number);

	csr->nrows = n;
	csr->nnz = (int32) e->nedges;
	csr->row_ptr = row_ptr;
	csr->col_idx = col_idx;
	*sorted_ids = ids;
}

PG_FUNCTION_INFO_V1(gpu_pagerank_edges);

/*
 * gpu_pagerank_edges(edges_query text, damping, tolerance, max_iterations)
 * -- (node bigint, rank double precision) per node, in increasing order
 */
Datum
gpu_pagerank_edges(PG_FUNCTION_ARGS)
{
	const char *fn = "gpu_pagerank_edges";
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	double		damping = PG_GETARG_FLOAT8(1);
	double		tolerance = PG_GETARG_FLOAT8(2);
	int32		max_iterations = PG_GETARG_INT32(3);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	EdgeList	e;
	GsCsr		csr;
	int64	   *ids;
	double	   *rank;
	int32		i;
	instr_time	start,
				queried,
				built,
				ranked,
				done;

	gs_pagerank_check_parameters(damping, tolerance, max_iterations, fn);
	INSTR_TIME_SET_CURRENT(start);
	InitMaterializedSRF(fcinfo, 0);

	memset(&e, 0, sizeof(e));
	e.fn = fn;
	e.cxt = AllocSetContextCreate(CurrentMemoryContext, "gpu_pagerank_edges",
								  ALLOCSET_DEFAULT_SIZES);
	e.map = nodemap_create(e.cxt, 1024, NULL);
	read_edges(&e, query);
	if (e.nnodes == 0)
	{
		MemoryContextDelete(e.cxt);
		return (Datum) 0;
	}
	nodemap_destroy(e.map);
	e.map = NULL;
	INSTR_TIME_SET_CURRENT(queried);

	build_csr(&e, &csr, &ids);
	pfree(e.src);
	pfree(e.dst);
	pfree(e.ids);
	INSTR_TIME_SET_CURRENT(built);
	rank = MemoryContextAllocHuge(e.cxt, sizeof(double) * (Size) csr.nrows);
	gs_pagerank(&csr, damping, tolerance, max_iterations, rank, fn);
	INSTR_TIME_SET_CURRENT(ranked);

	for (i = 0; i < csr.nrows; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int64GetDatum(ids[i]);
		values[1] = Float8GetDatum(rank[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	MemoryContextDelete(e.cxt);
	INSTR_TIME_SET_CURRENT(done);
	elog(DEBUG1, "%s: phases: the query and its ids %.3f ms, the CSR %.3f ms, PageRank %.3f ms, the rows %.3f ms",
		 fn, gs_ms_between(start, queried), gs_ms_between(queried, built),
		 gs_ms_between(built, ranked), gs_ms_between(ranked, done));
	return (Datum) 0;
}
