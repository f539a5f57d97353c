/*-------------------------------------------------------------------------
 *
 * csr_sort.c
 *	  The sort of gpu_csr_agg's triples by (row, column) (csr_sort.h).
 *
 * The keys are packed, the row moved down next to the column's bits, so
 * that they have as few bits as the sizes need.  One pass moves the entries
 * by the top digit of their packed keys into buckets of the sorted array;
 * each bucket, most of them small enough to stay in the caches, is then
 * sorted by the other bits (least significant digit first, through the
 * bucket's room in the source array).  So only one pass runs over the
 * whole state in memory.
 *
 * With threads, the entries are cut into blocks: each thread counts the
 * top digits of the blocks it takes, the counts give every block its place
 * in every bucket, each thread moves the blocks it takes there, and then
 * sorts the buckets it takes.  Which thread takes a block or bucket does not
 * change the result.  Not stable, and need not be: duplicates are added
 * exactly, in any order.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/copy_workers.h"
#include "cpu/csr_sort.h"

/* the digit of the pass over all entries: 2^12 buckets */
#define TOP_BITS		12

/* entries counted or moved as one piece of work, at least */
#define BLOCK_ENTRIES	((int64_t) 1 << 18)

/* blocks at most, so that their places (per block and bucket) stay small */
#define MAX_BLOCKS		256

/* entries a step covers, at most, in counting, moving or sorting buckets */
#define STEP_ENTRIES	((int64_t) 1 << 24)

/* the widest digit of a bucket's sort: 2^14 counts per digit fit in L2 */
#define RADIX_MAX_BITS	14

/*
 * room for the counts of all digits of a bucket's sort: at most 62 bits in
 * digits of equal width up to 14 make at most 4 << 14 counts (4 digits of
 * 14 bits for 53 to 56 bits)
 */
#define RADIX_COUNTS	(4 << RADIX_MAX_BITS)

/* buckets this small are sorted by insertion */
#define INSERTION_MAX	32

typedef enum SortPhase
{
	PHASE_COUNT,				/* count the top digits of each block */
	PHASE_MOVE,					/* move each block's entries to its buckets */
	PHASE_BUCKETS,				/* sort each bucket by the other bits */
	PHASE_DONE
} SortPhase;

struct CsrSort
{
	CsrEntry   *src;
	CsrEntry   *dst;
	int64_t		n;
	int			col_bits;
	int			low;			/* bits below the top digit */
	int64_t		nbuckets;
	int64_t		block;			/* entries per block */
	int64_t		nblocks;
	int64_t    *places;			/* per block and bucket: its count, then its place */
	int64_t    *bucket_start;	/* nbuckets + 1 */
	int64_t    *counts;			/* RADIX_COUNTS per thread */
	int			nthreads;
	int			threads;
	SortPhase	phase;
	int64_t		first;			/* this step's blocks or buckets: first .. last - 1 */
	int64_t		last;
	int64_t		next;			/* the next block or bucket to take (atomic) */
	int			next_thread;	/* the next thread's index (atomic) */
};

/* packed -- a key with its row moved down next to the column's col_bits bits */
static inline uint64_t
packed(uint64_t key, int col_bits)
{
	return ((key >> 32) << col_bits) | (uint32_t) key;
}

/* gs_csr_bits_for -- see csr_sort.h */
int
gs_csr_bits_for(int64_t size)
{
	int			b = 0;

	while (b < 62 && ((int64_t) 1 << b) < size)
		b++;
	return b;
}

/* insertion_sort -- sort a few entries by key */
static void
insertion_sort(CsrEntry *a, int64_t n)
{
	int64_t		i,
				j;

	for (i = 1; i < n; i++)
	{
		CsrEntry	v = a[i];

		for (j = i; j > 0 && a[j - 1].key > v.key; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/*
 * radix_sort -- sort n entries by the low `bits` bits of their packed keys
 * through tmp (n entries), least significant digit first, the result left
 * in a.  The digits are as few as RADIX_MAX_BITS (and, for few entries, a
 * narrower width) allows, of equal width; every digit's counts come from
 * one pass, and a digit all entries share costs no pass.  count has room
 * for RADIX_COUNTS.
 */
static void
radix_sort(CsrEntry *a, CsrEntry *tmp, int64_t n, int col_bits, int bits, int64_t *count)
{
	int			max_width = gs_csr_bits_for(n);
	int			digits,
				width,
				d;
	uint64_t	mask;
	CsrEntry   *from = a,
			   *to = tmp;
	int64_t		k;

	if (n <= INSERTION_MAX)
	{
		insertion_sort(a, n);
		return;
	}
	max_width = max_width < 4 ? 4 : max_width > RADIX_MAX_BITS ? RADIX_MAX_BITS : max_width;
	digits = bits > max_width ? (bits + max_width - 1) / max_width : 1;
	width = bits > digits ? (bits + digits - 1) / digits : 1;
	mask = ((uint64_t) 1 << width) - 1;
	memset(count, 0, sizeof(int64_t) * ((size_t) digits << width));
	for (k = 0; k < n; k++)
	{
		uint64_t	p = packed(a[k].key, col_bits);

		for (d = 0; d < digits; d++)
			count[((int64_t) d << width) + ((p >> (d * width)) & mask)]++;
	}
	for (d = 0; d < digits; d++)
	{
		int64_t    *c = &count[(int64_t) d << width];
		int			shift = d * width;
		int64_t		sum = 0;
		int64_t		b;
		CsrEntry   *swap;

		if (c[(packed(from[0].key, col_bits) >> shift) & mask] == n)
			continue;			/* one digit for all: already in order by it */
		for (b = 0; b <= (int64_t) mask; b++)
		{
			int64_t		v = c[b];

			c[b] = sum;
			sum += v;
		}
		for (k = 0; k < n; k++)
			to[c[(packed(from[k].key, col_bits) >> shift) & mask]++] = from[k];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != a)
		memcpy(a, from, sizeof(CsrEntry) * (size_t) n);
}

/* count_block -- the top digits of block b, counted into its places */
static void
count_block(CsrSort *s, int64_t b)
{
	int64_t    *c = s->places + b * s->nbuckets;
	int64_t		k,
				end = (b + 1) * s->block < s->n ? (b + 1) * s->block : s->n;

	for (k = b * s->block; k < end; k++)
		c[packed(s->src[k].key, s->col_bits) >> s->low]++;
}

/* move_block -- the entries of block b moved to their places in dst */
static void
move_block(CsrSort *s, int64_t b)
{
	int64_t    *next = s->places + b * s->nbuckets;
	int64_t		k,
				end = (b + 1) * s->block < s->n ? (b + 1) * s->block : s->n;

	for (k = b * s->block; k < end; k++)
		s->dst[next[packed(s->src[k].key, s->col_bits) >> s->low]++] = s->src[k];
}

/* run_step -- one thread's share of the step: blocks or buckets until none are left */
static void
run_step(void *arg)
{
	CsrSort    *s = arg;
	int			thread = __atomic_fetch_add(&s->next_thread, 1, __ATOMIC_RELAXED);
	int64_t    *count = s->counts + (int64_t) thread * RADIX_COUNTS;

	for (;;)
	{
		int64_t		i = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED);

		if (i >= s->last)
			break;
		if (s->phase == PHASE_COUNT)
			count_block(s, i);
		else if (s->phase == PHASE_MOVE)
			move_block(s, i);
		else
		{
			int64_t		start = s->bucket_start[i];

			radix_sort(s->dst + start, s->src + start, s->bucket_start[i + 1] - start,
					   s->col_bits, s->low, count);
		}
	}
}

/* gs_csr_sort_begin -- see csr_sort.h */
CsrSort *
gs_csr_sort_begin(CsrEntry *entries, CsrEntry *sorted, int64_t n, int col_bits,
				  int row_bits, int threads)
{
	int			bits = col_bits + row_bits;
	int			top = bits < TOP_BITS ? bits : TOP_BITS;
	CsrSort    *s = calloc(1, sizeof(CsrSort));

	if (s == NULL)
		return NULL;
	s->src = entries;
	s->dst = sorted;
	s->n = n;
	s->col_bits = col_bits;
	s->low = bits - top;
	s->nbuckets = (int64_t) 1 << top;
	s->block = (n + MAX_BLOCKS - 1) / MAX_BLOCKS;
	if (s->block < BLOCK_ENTRIES)
		s->block = BLOCK_ENTRIES;
	s->nblocks = (n + s->block - 1) / s->block;
	s->threads = threads && gs_copy_workers() > 0;
	s->nthreads = s->threads ? gs_copy_workers() + 1 : 1;
	s->places = calloc((size_t) (s->nblocks > 0 ? s->nblocks : 1) * s->nbuckets, sizeof(int64_t));
	s->bucket_start = calloc((size_t) s->nbuckets + 1, sizeof(int64_t));
	s->counts = malloc(sizeof(int64_t) * RADIX_COUNTS * (size_t) s->nthreads);
	if (s->places == NULL || s->bucket_start == NULL || s->counts == NULL)
	{
		gs_csr_sort_end(s);
		return NULL;
	}
	s->phase = PHASE_COUNT;
	return s;
}

/* run -- the step's blocks or buckets s->first .. last - 1, on the threads or here */
static void
run(CsrSort *s, int64_t last)
{
	s->last = last;
	s->next = s->first;
	s->next_thread = 0;
	/* the pool as it was at the start: each thread has its counts */
	if (s->threads && gs_copy_workers() + 1 <= s->nthreads)
		gs_helpers_run(run_step, s);
	else
		run_step(s);
}

/* places_from_counts -- each block's place in each bucket, and the buckets' starts */
static void
places_from_counts(CsrSort *s)
{
	int64_t		sum = 0,
				b,
				d;

	for (d = 0; d < s->nbuckets; d++)
	{
		s->bucket_start[d] = sum;
		for (b = 0; b < s->nblocks; b++)
		{
			int64_t    *p = &s->places[b * s->nbuckets + d];
			int64_t		v = *p;

			*p = sum;
			sum += v;
		}
	}
	s->bucket_start[s->nbuckets] = sum;
}

/* gs_csr_sort_step -- see csr_sort.h */
int
gs_csr_sort_step(CsrSort *s)
{
	int64_t		blocks_per_step = STEP_ENTRIES / s->block > 0 ? STEP_ENTRIES / s->block : 1;
	int64_t		last;

	switch (s->phase)
	{
		case PHASE_COUNT:
		case PHASE_MOVE:
			last = s->first + blocks_per_step < s->nblocks ? s->first + blocks_per_step : s->nblocks;
			run(s, last);
			s->first = last;
			if (last == s->nblocks)
			{
				if (s->phase == PHASE_COUNT)
					places_from_counts(s);
				/* no bits below the top digit: the buckets are in order */
				s->phase = s->phase == PHASE_COUNT ? PHASE_MOVE :
					s->low > 0 ? PHASE_BUCKETS : PHASE_DONE;
				s->first = 0;
			}
			break;
		case PHASE_BUCKETS:
			/* buckets up to about STEP_ENTRIES entries, at least one */
			last = s->first + 1;
			while (last < s->nbuckets &&
				   s->bucket_start[last + 1] - s->bucket_start[s->first] <= STEP_ENTRIES)
				last++;
			run(s, last);
			s->first = last;
			if (last == s->nbuckets)
				s->phase = PHASE_DONE;
			break;
		case PHASE_DONE:
			break;
	}
	return s->phase != PHASE_DONE;
}

/* gs_csr_sort_end -- see csr_sort.h */
void
gs_csr_sort_end(CsrSort *s)
{
	if (s == NULL)
		return;
	free(s->places);
	free(s->bucket_start);
	free(s->counts);
	free(s);
}
