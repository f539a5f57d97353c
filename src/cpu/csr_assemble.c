/*-------------------------------------------------------------------------
 *
 * csr_assemble.c
 *	  gpu_csr_agg's sorted triples made into the arrays of a CSR matrix
 *	  (csr_assemble.h).
 *
 * Each chunk is counted and written by one thread; which thread does not
 * change a bit of the result: the duplicates of a key are all in one chunk
 * and are added as the serial loop adds them, and each entry of row_ptr is
 * written by the one chunk whose entries reach that row first.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdbool.h>

#include "cpu/copy_workers.h"
#include "cpu/csr_assemble.h"
#include "gpuscan_exact.h"

/* the work of one call on the threads */
typedef struct ChunkJob
{
	const CsrEntry *e;
	const int64_t *chunk_start;
	const int64_t *out_start;	/* writing only */
	int64_t    *unique;			/* counting only */
	const CsrArrays *m;			/* writing only */
	int			last;
	int			next;			/* the next chunk to take (atomic) */
} ChunkJob;

/* gs_csr_chunks -- see csr_assemble.h */
void
gs_csr_chunks(const CsrEntry *e, int64_t n, int64_t *chunk_start, int nchunks)
{
	int			c;

	chunk_start[0] = 0;
	for (c = 1; c < nchunks; c++)
	{
		int64_t		k = (int64_t) ((__int128) n * c / nchunks);

		if (k < chunk_start[c - 1])
			k = chunk_start[c - 1];
		while (k > 0 && k < n && e[k].key == e[k - 1].key)
			k++;
		chunk_start[c] = k;
	}
	chunk_start[nchunks] = n;
}

/* count_chunk -- the distinct keys of entries first .. last - 1 (sorted) */
static int64_t
count_chunk(const CsrEntry *e, int64_t first, int64_t last)
{
	int64_t		k,
				unique = 0;

	for (k = first; k < last; k++)
		unique += (k == first || e[k].key != e[k - 1].key);
	return unique;
}

/*
 * pair_sum -- a + b into *sum where one IEEE addition is their exact sum
 * rounded once, as the exact accumulator would give it: both finite and
 * the sum not zero (a zero's sign, Inf and NaN are left to the
 * accumulator's rules).  Most duplicates come in pairs; an accumulator
 * costs hundreds of bytes to clear and round for each.
 */
static inline bool
pair_sum(double a, double b, double *sum)
{
	double		s = a + b;

	if (!isfinite(a) || !isfinite(b) || s == 0.0)
		return false;
	*sum = s;
	return true;
}

/* write_chunk -- entries first .. last - 1 written from position j of m */
static void
write_chunk(const CsrEntry *e, int64_t first, int64_t last, int64_t j, const CsrArrays *m)
{
	int64_t		k = first;
	int64_t		prev_row = first > 0 ? ENTRY_ROW(e[first - 1].key) : -1;

	while (k < last)
	{
		uint64_t	key = e[k].key;
		int64_t		row = ENTRY_ROW(key);

		if (k + 1 == last || e[k + 1].key != key)
			m->vals[j] = e[k++].val;	/* the sum of one value is itself */
		else if ((k + 2 == last || e[k + 2].key != key) &&
				 pair_sum(e[k].val, e[k + 1].val, &m->vals[j]))
			k += 2;
		else
		{
			gs_exact_acc acc;

			gs_acc_zero(&acc);
			for (; k < last && e[k].key == key; k++)
				gs_acc_add(&acc, e[k].val);
			m->vals[j] = gs_acc_round(&acc);
		}
		m->col_idx[j] = ENTRY_COL(key);
		/* the rows up to this one start here, where the chunks before have not */
		for (; prev_row < row; prev_row++)
			m->row_ptr[prev_row + 1] = (int32_t) j;
		j++;
	}
}

/* count_chunks -- one thread's share of a count: chunks until none are left */
static void
count_chunks(void *arg)
{
	ChunkJob   *job = arg;
	int			c;

	while ((c = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED)) < job->last)
		job->unique[c] = count_chunk(job->e, job->chunk_start[c], job->chunk_start[c + 1]);
}

/* write_chunks -- one thread's share of a write: chunks until none are left */
static void
write_chunks(void *arg)
{
	ChunkJob   *job = arg;
	int			c;

	while ((c = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED)) < job->last)
		write_chunk(job->e, job->chunk_start[c], job->chunk_start[c + 1], job->out_start[c],
					job->m);
}

/* run -- fn over the job's chunks, on the helper threads too where asked */
static void
run(void (*fn) (void *arg), ChunkJob *job, int threads)
{
	if (threads && gs_copy_workers() > 0)
		gs_helpers_run(fn, job);
	else
		fn(job);
}

/* gs_csr_count_chunks -- see csr_assemble.h */
void
gs_csr_count_chunks(const CsrEntry *e, const int64_t *chunk_start, int first, int last,
					int64_t *unique, int threads)
{
	ChunkJob	job = {e, chunk_start, NULL, unique, NULL, last, first};

	run(count_chunks, &job, threads);
}

/* gs_csr_write_chunks -- see csr_assemble.h */
void
gs_csr_write_chunks(const CsrEntry *e, const int64_t *chunk_start, const int64_t *out_start,
					int first, int last, const CsrArrays *m, int threads)
{
	ChunkJob	job = {e, chunk_start, out_start, NULL, m, last, first};

	run(write_chunks, &job, threads);
}

/* gs_csr_finish_rows -- see csr_assemble.h */
void
gs_csr_finish_rows(const CsrEntry *e, int64_t n, int64_t nnz, const CsrArrays *m)
{
	int64_t		row = n > 0 ? ENTRY_ROW(e[n - 1].key) : -1;

	for (; row < m->nrows; row++)
		m->row_ptr[row + 1] = (int32_t) nnz;
}
