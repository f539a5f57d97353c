/*-------------------------------------------------------------------------
 *
 * pages_to_gpu.c
 *	  A table's pages named to the GPU service, call by call: see
 *	  pages_to_gpu.h.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "planner/pages_to_gpu.h"

/* gs_pages_to_gpu_begin -- see pages_to_gpu.h */
GsPagesToGpu *
gs_pages_to_gpu_begin(GsHeapBlocks *blocks, void (*values_at) (void *arg, double **vals),
					  void (*values_read) (void *arg, const int *nvals), void *arg)
{
	GsPagesToGpu *p = palloc0(sizeof(GsPagesToGpu));

	Assert((values_at == NULL) == (values_read == NULL));
	Assert(values_at != NULL || blocks->tuple_fn != NULL);
	p->blocks = blocks;
	p->values_at = values_at;
	p->values_read = values_read;
	p->arg = arg;
	return p;
}

/* gs_pages_to_gpu_start_call -- see pages_to_gpu.h */
int64
gs_pages_to_gpu_start_call(GsPagesToGpu *p)
{
	p->nsent = p->nchunks = p->not_read = 0;
	return Max(Min(gs_heap_blocks_left(p->blocks), GS_PAGES_CALL_MAX), 1);
}

/*
 * values_at -- where a page read here puts its values: the caller's
 * buffers, or (the blocks handing tuples to their tuple_fn, no value
 * written) none
 */
static void
values_at(GsPagesToGpu *p, double **vals)
{
	if (p->values_at)
		p->values_at(p->arg, vals);
	else
		memset(vals, 0, sizeof(double *) * GS_HEAP_BLOCKS_MAX_COLS);
}

/* values_read -- a page read here: its values to the caller */
static void
values_read(GsPagesToGpu *p, const int *nvals)
{
	if (p->values_read)
		p->values_read(p->arg, nvals);
}

/* unpin -- release the buffers pinned for the chunk in slot s */
static void
unpin(GsPagesToGpu *p, int s)
{
	while (p->npinned[s] > 0)
		ReleaseBuffer(p->pinned[s][--p->npinned[s]]);
}

/* gs_pages_to_gpu_fill -- see pages_to_gpu.h */
int
gs_pages_to_gpu_fill(int64 k, int max, gs_heap_page_ref *refs, char *copies, bool in_place,
					 int *ncopies, void *arg)
{
	GsPagesToGpu *p = (GsPagesToGpu *) arg;
	int			s = (int) (k % GS_STREAM_MAX_SLOTS);
	double	   *vals[GS_HEAP_BLOCKS_MAX_COLS];
	int			nvals[GS_HEAP_BLOCKS_MAX_COLS];
	int			n = 0;

	/* chunk k - GS_STREAM_MAX_SLOTS is answered by now */
	unpin(p, s);
	*ncopies = 0;
	if (k < p->nchunks)
	{
		/* asked for again: every page named so far is read here after the call */
		p->not_read = p->nsent;
		return 0;
	}
	p->nchunks = k + 1;
	while (n < max && !p->ended && p->nsent < GS_PAGES_CALL_MAX)
	{
		Buffer		buf = InvalidBuffer;
		GsBlockResult r;

		values_at(p, vals);
		r = gs_heap_blocks_next_for_gpu(p->blocks, in_place,
										*ncopies < GS_HEAP_CHUNK_COPIES ?
										copies + (Size) *ncopies * GS_HEAP_PAGE_SIZE : NULL,
										&buf, &refs[n].nitems, &p->sent[p->nsent], vals, nvals);
		if (r == GS_BLOCK_END)
			p->ended = true;
		else if (r == GS_BLOCK_READ)
			values_read(p, nvals);
		else
		{
			if (r == GS_BLOCK_PINNED)
			{
				p->pinned[s][p->npinned[s]++] = buf;
				refs[n].buffer = buf - 1;
			}
			else
				refs[n].buffer = -1 - (*ncopies)++;
			n++;
			p->nsent++;
			/* the room for copies full: the next page goes in the next chunk */
			if (*ncopies == GS_HEAP_CHUNK_COPIES)
				break;
		}
		CHECK_FOR_INTERRUPTS();
	}
	return n;
}

/* gs_pages_to_gpu_release -- see pages_to_gpu.h */
void
gs_pages_to_gpu_release(GsPagesToGpu *p)
{
	for (int s = 0; s < GS_STREAM_MAX_SLOTS; s++)
		unpin(p, s);
}

/* gs_pages_to_gpu_end_call -- see pages_to_gpu.h */
int64
gs_pages_to_gpu_end_call(GsPagesToGpu *p, bool answered)
{
	double	   *vals[GS_HEAP_BLOCKS_MAX_COLS];
	int			nvals[GS_HEAP_BLOCKS_MAX_COLS];
	int64		on_gpu;

	/* answered or abandoned: the GPU reads none of the pages any more */
	gs_pages_to_gpu_release(p);
	if (!answered)
		p->not_read = p->nsent;
	for (int64 i = 0; i < p->not_read; i++)
	{
		values_at(p, vals);
		gs_heap_blocks_read_again(p->blocks, p->sent[i], vals, nvals);
		values_read(p, nvals);
	}
	on_gpu = p->nsent - p->not_read;
	p->on_gpu += on_gpu;
	return on_gpu;
}

/* gs_pages_to_gpu_read_here -- see pages_to_gpu.h */
bool
gs_pages_to_gpu_read_here(GsPagesToGpu *p, int64 npages, bool (*stop) (void *arg))
{
	double	   *vals[GS_HEAP_BLOCKS_MAX_COLS];
	int			nvals[GS_HEAP_BLOCKS_MAX_COLS];

	for (int64 i = 0; i < npages && !p->ended; i++)
	{
		values_at(p, vals);
		if (!gs_heap_blocks_next(p->blocks, vals, nvals))
			p->ended = true;
		else
			values_read(p, nvals);
		CHECK_FOR_INTERRUPTS();
		if (stop && stop(p->arg))
			return false;
	}
	return true;
}
