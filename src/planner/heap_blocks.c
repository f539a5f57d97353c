/*-------------------------------------------------------------------------
 *
 * heap_blocks.c
 *	  A heap table read block by block for the sum scans.
 *
 * Each block is read under a pin and a share lock, as heapgetpage() reads
 * it.  A page that says PD_ALL_VISIBLE holds only tuples that every
 * snapshot sees (heapgetpage() trusts it too, except for a snapshot taken
 * during recovery), so the heap page walker reads its normal tuples whole,
 * without a visibility check and without deforming into a slot.  Where
 * the walker finds the page not as the format says, or the page is not
 * all-visible, each tuple is checked under the snapshot
 * (HeapTupleSatisfiesVisibility, and the serializable checks a heap scan
 * makes) and its columns read with heap_getattr().
 *
 * The blocks are all of the table's in turn, or in a parallel plan the
 * process's share of the shared heap scan, handed out by the table AM's
 * block allocator (table_block_parallelscan_nextpage) as for a Parallel
 * Seq Scan.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/predicate.h"

#include "cpu/heap_sum.h"
#include "planner/heap_blocks.h"

/* gs_heap_blocks_begin -- see heap_blocks.h */
bool
gs_heap_blocks_begin(GsHeapBlocks *b, Relation rel, Snapshot snapshot, ParallelTableScanDesc pscan,
					 int ncols, const AttrNumber *attnos, const bool *is_float4)
{
	int			c;

	if ((rel->rd_rel->relkind != RELKIND_RELATION && rel->rd_rel->relkind != RELKIND_MATVIEW) ||
		rel->rd_tableam != GetHeapamTableAmRoutine() || ncols > GS_HEAP_BLOCKS_MAX_COLS)
		return false;
	memset(b, 0, sizeof(*b));
	for (c = 0; c < ncols; c++)
		if (!gs_heap_layout_for(RelationGetDescr(rel), attnos[c], &b->layouts[c]))
			return false;
	b->rel = rel;
	b->snapshot = snapshot;
	b->ncols = ncols;
	for (c = 0; c < ncols; c++)
	{
		b->attnos[c] = attnos[c];
		b->is_float4[c] = is_float4[c];
	}
	b->pbscan = (ParallelBlockTableScanDesc) pscan;
	b->nblocks = b->pbscan ? b->pbscan->phs_nblocks : RelationGetNumberOfBlocks(rel);
	/* as initscan(): a large table does not push the rest out of shared buffers */
	if (!RelationUsesLocalBuffers(rel) && b->nblocks > (BlockNumber) (NBuffers / 4))
		b->strategy = GetAccessStrategy(BAS_BULKREAD);
	/* as heap_beginscan() for a sequential scan */
	PredicateLockRelation(rel, snapshot);
	pgstat_count_heap_scan(rel);
	return true;
}

/* next_block -- the next block to read, or InvalidBlockNumber */
static BlockNumber
next_block(GsHeapBlocks *b)
{
	if (b->pbscan)
	{
		if (!b->started)
		{
			table_block_parallelscan_startblock_init(b->rel, &b->pbwork, b->pbscan);
			b->started = true;
		}
		return table_block_parallelscan_nextpage(b->rel, &b->pbwork, b->pbscan);
	}
	if (b->next >= b->nblocks)
		return InvalidBlockNumber;
	return b->next++;
}

/*
 * read_checked -- the values of the tuples of the page that the snapshot
 * sees, as a heap scan finds them (heapgetpage's checks), by heap_getattr
 */
static void
read_checked(GsHeapBlocks *b, Buffer buf, BlockNumber blk, Page page, double **vals,
			 int *nvals, int *ntuples)
{
	TupleDesc	desc = RelationGetDescr(b->rel);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off;
	int			c;

	/* the caller's buffers have room for this many: a heap page holds no more */
	if (maxoff > MaxHeapTuplesPerPage)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("block %u of relation \"%s\" has %d line pointers, more than a heap page holds",
						blk, RelationGetRelationName(b->rel), (int) maxoff)));
	for (off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;
		bool		visible;

		if (!ItemIdIsNormal(lp))
			continue;
		tup.t_data = (HeapTupleHeader) PageGetItem(page, lp);
		tup.t_len = ItemIdGetLength(lp);
		tup.t_tableOid = RelationGetRelid(b->rel);
		ItemPointerSet(&tup.t_self, blk, off);
		visible = HeapTupleSatisfiesVisibility(&tup, b->snapshot, buf);
		HeapCheckForSerializableConflictOut(visible, b->rel, &tup, buf, b->snapshot);
		if (!visible)
			continue;
		(*ntuples)++;
		if (b->tuple_fn)
		{
			b->tuple_fn(b->tuple_arg, &tup);
			continue;
		}
		for (c = 0; c < b->ncols; c++)
		{
			bool		isnull;
			Datum		d = heap_getattr(&tup, b->attnos[c], desc, &isnull);

			if (!isnull)
				vals[c][nvals[c]++] = b->is_float4[c] ?
					(double) DatumGetFloat4(d) : DatumGetFloat8(d);
		}
	}
}

/*
 * read_block -- block blk's values as gs_heap_blocks_next gives them: an
 * all-visible page by the walker, another (or one the walker refuses)
 * tuple by tuple under the snapshot
 */
static void
read_block(GsHeapBlocks *b, BlockNumber blk, double **vals, int *nvals)
{
	Buffer		buf = ReadBufferExtended(b->rel, MAIN_FORKNUM, blk, RBM_NORMAL, b->strategy);
	Page		page;
	int			ntuples = 0;
	int			c;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	for (c = 0; c < b->ncols; c++)
		nvals[c] = 0;
	if (PageIsAllVisible(page) && !b->snapshot->takenDuringRecovery && !b->tuple_fn &&
		(ntuples = gs_heap_page_values((const unsigned char *) page, b->layouts, b->ncols,
									   vals, nvals)) >= 0)
		b->pages_whole++;
	else
	{
		for (c = 0; c < b->ncols; c++)
			nvals[c] = 0;
		ntuples = 0;
		read_checked(b, buf, blk, page, vals, nvals, &ntuples);
		b->pages_checked++;
	}
	UnlockReleaseBuffer(buf);
	/* the statistics' tuples read, as a sequential scan counts them */
	while (ntuples-- > 0)
		pgstat_count_heap_getnext(b->rel);
}

/* gs_heap_blocks_next -- see heap_blocks.h */
bool
gs_heap_blocks_next(GsHeapBlocks *b, double **vals, int *nvals)
{
	BlockNumber blk = next_block(b);

	if (blk == InvalidBlockNumber)
		return false;
	read_block(b, blk, vals, nvals);
	return true;
}

/* gs_heap_blocks_left -- see heap_blocks.h */
int64
gs_heap_blocks_left(const GsHeapBlocks *b)
{
	if (b->pbscan)
	{
		uint64		given = pg_atomic_read_u64(&b->pbscan->phs_nallocated);
		int64		left = given < b->nblocks ? (int64) (b->nblocks - given) : 0;

		/* and what is left of the range this process took last */
		return left + (b->started ? b->pbwork.phsw_chunk_remaining + 1 : 0);
	}
	return b->next < b->nblocks ? (int64) (b->nblocks - b->next) : 0;
}

/* count_normal -- the normal line pointers of a page, for the statistics */
static int
count_normal(const unsigned char *page)
{
	int			nitems = gs_heap_page_items(page);
	int			n = 0;
	int			i;

	for (i = 0; i < nitems; i++)
	{
		uint32_t	off,
					len;

		n += gs_heap_item(page, i, &off, &len) == 1;
	}
	return n;
}

/* count_tuples -- a whole page's normal tuples counted for the statistics, as a scan counts them */
static void
count_tuples(GsHeapBlocks *b, Page page)
{
	for (int n = count_normal((const unsigned char *) page); n > 0; n--)
		pgstat_count_heap_getnext(b->rel);
}

/* gs_heap_blocks_next_for_gpu -- see heap_blocks.h */
GsBlockResult
gs_heap_blocks_next_for_gpu(GsHeapBlocks *b, bool pin_ok, char *page_copy, Buffer *pinned,
							int *nitems, BlockNumber *blk, double **vals, int *nvals)
{
	BlockNumber next = next_block(b);
	Buffer		buf;
	Page		page;
	int			ntuples = 0;
	int			c;

	if (next == InvalidBlockNumber)
		return GS_BLOCK_END;
	for (c = 0; c < b->ncols; c++)
		nvals[c] = 0;
	buf = ReadBufferExtended(b->rel, MAIN_FORKNUM, next, RBM_NORMAL, b->strategy);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	*blk = next;
	if (PageIsAllVisible(page) && !b->snapshot->takenDuringRecovery)
	{
		*nitems = PageGetMaxOffsetNumber(page);
		/*
		 * While it stays pinned, no tuple moves and only pruning (which
		 * waits for the pin to go) frees a line pointer; a tuple added
		 * meanwhile gets one after nitems, unless the page has free ones.
		 * A temporary table's buffers are the session's own, out of the
		 * GPU's reach.
		 */
		if (pin_ok && !RelationUsesLocalBuffers(b->rel) && !PageHasFreeLinePointers(page))
		{
			count_tuples(b, page);
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			*pinned = buf;
			b->pages_whole++;
			return GS_BLOCK_PINNED;
		}
		if (page_copy != NULL)
		{
			memcpy(page_copy, page, GS_HEAP_PAGE_SIZE);
			count_tuples(b, page);
			UnlockReleaseBuffer(buf);
			b->pages_whole++;
			return GS_BLOCK_COPIED;
		}
		/* no room to send it: read it here, by the walker */
		if (!b->tuple_fn &&
			(ntuples = gs_heap_page_values((const unsigned char *) page, b->layouts, b->ncols,
										   vals, nvals)) >= 0)
		{
			UnlockReleaseBuffer(buf);
			b->pages_whole++;
			while (ntuples-- > 0)
				pgstat_count_heap_getnext(b->rel);
			return GS_BLOCK_READ;
		}
		ntuples = 0;
	}
	for (c = 0; c < b->ncols; c++)
		nvals[c] = 0;
	read_checked(b, buf, next, page, vals, nvals, &ntuples);
	b->pages_checked++;
	UnlockReleaseBuffer(buf);
	while (ntuples-- > 0)
		pgstat_count_heap_getnext(b->rel);
	return GS_BLOCK_READ;
}

/* gs_heap_blocks_read_again -- see heap_blocks.h */
void
gs_heap_blocks_read_again(GsHeapBlocks *b, BlockNumber blk, double **vals, int *nvals)
{
	/* counted once: as read here, not as copied */
	b->pages_whole--;
	read_block(b, blk, vals, nvals);
}

/* gs_heap_blocks_by_tuple -- see heap_blocks.h */
void
gs_heap_blocks_by_tuple(GsHeapBlocks *b, void (*fn) (void *arg, HeapTuple tuple), void *arg)
{
	b->tuple_fn = fn;
	b->tuple_arg = arg;
}

/* gs_heap_blocks_end -- see heap_blocks.h */
void
gs_heap_blocks_end(GsHeapBlocks *b)
{
	if (b->strategy)
		FreeAccessStrategy(b->strategy);
	b->strategy = NULL;
}
