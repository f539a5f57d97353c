/*-------------------------------------------------------------------------
 *
 * test_csr_build.c
 *	  gpu_csr_agg's build of a matrix: the sort of the triples
 *	  (src/cpu/csr_sort.c), every entry kept, in order of key, for every width
 *	  of keys; and their assembly into CSR arrays (src/cpu/csr_assemble.c)
 *	  against a plain loop; with and without the helper threads.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "unit.h"
#include "cpu/copy_workers.h"
#include "cpu/csr_assemble.h"
#include "cpu/csr_sort.h"

/* by_key_and_value -- qsort order: key, then the value's bits */
static int
by_key_and_value(const void *pa, const void *pb)
{
	const CsrEntry *a = pa,
			   *b = pb;
	uint64_t	va = unit_double_bits(a->val),
				vb = unit_double_bits(b->val);

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return va < vb ? -1 : va > vb;
}

/*
 * random_key -- a key below 2^row_bits rows and 2^col_bits columns: skewed
 * like R-MAT (each bit zero three times in four) where skew, else uniform
 */
static uint64_t
random_key(int row_bits, int col_bits, int skew)
{
	uint64_t	row = 0,
				col = 0;

	for (int b = 0; b < row_bits; b++)
		row = (row << 1) | (skew ? unit_rand_below(4) == 0 : unit_rand_below(2));
	for (int b = 0; b < col_bits; b++)
		col = (col << 1) | (skew ? unit_rand_below(4) == 0 : unit_rand_below(2));
	return ENTRY_KEY(row, col);
}

/* sort_case -- n random entries sorted, against qsort */
static void
sort_case(int64_t n, int row_bits, int col_bits, int skew, int threads)
{
	CsrEntry   *in = malloc(sizeof(CsrEntry) * (size_t) (n + 1)),
			   *want = malloc(sizeof(CsrEntry) * (size_t) (n + 1)),
			   *got = malloc(sizeof(CsrEntry) * (size_t) (n + 2));
	CsrSort    *sort;
	int64_t		k,
				unordered = 0;
	int			steps = 0;

	unit_case("csr sort: %lld entries, %d row and %d column bits, %s keys, %d helper threads",
			  (long long) n, row_bits, col_bits, skew ? "skewed" : "uniform",
			  threads ? gs_copy_workers() : 0);
	for (k = 0; k < n; k++)
	{
		in[k].key = random_key(row_bits, col_bits, skew);
		in[k].val = (double) unit_rand_below(1000);
	}
	memcpy(want, in, sizeof(CsrEntry) * (size_t) n);
	qsort(want, (size_t) n, sizeof(CsrEntry), by_key_and_value);
	got[n].key = 0xDEADBEEF;
	sort = gs_csr_sort_begin(in, got, n, col_bits, row_bits, threads);
	UNIT_CHECK(sort != NULL, "no sort");
	if (sort == NULL)
		goto out;
	while (gs_csr_sort_step(sort))
		steps++;
	gs_csr_sort_end(sort);
	UNIT_CHECK(got[n].key == 0xDEADBEEF, "the sort wrote past its array");
	for (k = 1; k < n; k++)
		unordered += got[k - 1].key > got[k].key;
	UNIT_CHECK(unordered == 0, "%lld entries out of order", (long long) unordered);
	/* the same entries: equal keys may come in any order */
	qsort(got, (size_t) n, sizeof(CsrEntry), by_key_and_value);
	UNIT_CHECK(n == 0 || memcmp(got, want, sizeof(CsrEntry) * (size_t) n) == 0,
			   "not the entries given");
	UNIT_CHECK(steps < 1000, "%d steps", steps);
out:
	free(in);
	free(want);
	free(got);
}

/* a value for the assembly: duplicates that cancel, overflow, or are special */
static double
assembly_value(void)
{
	switch (unit_rand_below(12))
	{
		case 0:
			return 0.0;
		case 1:
			return -0.0;
		case 2:
			return 1e308 * unit_rand_sign();
		case 3:
			return unit_rand_below(50) == 0 ? (unit_rand_below(2) ? INFINITY : NAN) : 1e-310;
		case 4:
			return 1.0 + 0x1p-52 * (double) unit_rand_below(4);
		default:
			return unit_rand_with_exponent((int) unit_rand_below(120) - 60);
	}
}

/*
 * assembly_case -- n sorted entries with many duplicates over rows
 * 0 .. nrows - 1 (of a matrix of nrows_total rows) assembled in nchunks
 * chunks, calls of `per_call` chunks, against a plain loop with the exact
 * accumulator for every key
 */
static void
assembly_case(int64_t n, int32_t nrows, int32_t nrows_total, int ncols, int nchunks,
			  int per_call, int threads)
{
	CsrEntry   *e = malloc(sizeof(CsrEntry) * (size_t) (n + 1)),
			   *tmp = malloc(sizeof(CsrEntry) * (size_t) (n + 1));
	int64_t    *chunk_start = malloc(sizeof(int64_t) * (size_t) (nchunks + 1)),
			   *unique = malloc(sizeof(int64_t) * (size_t) nchunks),
			   *out_start = malloc(sizeof(int64_t) * (size_t) nchunks);
	CsrArrays	m,
				want;
	int64_t		k,
				nnz = 0,
				j = 0,
				bad_vals = 0;
	CsrSort    *sort;

	unit_case("csr assembly: %lld entries, %d of %d rows, %d columns, %d chunks by %d, %d helper threads",
			  (long long) n, nrows, nrows_total, ncols, nchunks, per_call,
			  threads ? gs_copy_workers() : 0);
	for (k = 0; k < n; k++)
	{
		tmp[k].key = ENTRY_KEY(unit_rand_below((uint64_t) nrows), unit_rand_below((uint64_t) ncols));
		tmp[k].val = assembly_value();
	}
	sort = gs_csr_sort_begin(tmp, e, n, gs_csr_bits_for(ncols), gs_csr_bits_for(nrows), threads);
	while (gs_csr_sort_step(sort))
		;
	gs_csr_sort_end(sort);

	/* the plain loop */
	want.nrows = m.nrows = nrows_total;
	want.row_ptr = calloc((size_t) nrows_total + 1, sizeof(int32_t));
	want.col_idx = malloc(sizeof(int32_t) * (size_t) (n + 1));
	want.vals = malloc(sizeof(double) * (size_t) (n + 1));
	for (k = 0; k < n;)
	{
		uint64_t	key = e[k].key;
		gs_exact_acc acc;

		gs_acc_zero(&acc);
		for (; k < n && e[k].key == key; k++)
			gs_acc_add(&acc, e[k].val);
		want.vals[j] = gs_acc_round(&acc);
		want.col_idx[j] = ENTRY_COL(key);
		want.row_ptr[ENTRY_ROW(key) + 1]++;
		j++;
	}
	for (int32_t r = 0; r < nrows_total; r++)
		want.row_ptr[r + 1] += want.row_ptr[r];

	gs_csr_chunks(e, n, chunk_start, nchunks);
	for (int c = 0; c < nchunks; c += per_call)
		gs_csr_count_chunks(e, chunk_start, c, c + per_call < nchunks ? c + per_call : nchunks,
							unique, threads);
	for (int c = 0; c < nchunks; c++)
	{
		out_start[c] = nnz;
		nnz += unique[c];
	}
	UNIT_CHECK(nnz == j, "%lld unique entries counted, %lld there", (long long) nnz, (long long) j);
	m.row_ptr = malloc(sizeof(int32_t) * ((size_t) nrows_total + 1));
	m.col_idx = malloc(sizeof(int32_t) * (size_t) (n + 1));
	m.vals = malloc(sizeof(double) * (size_t) (n + 1));
	memset(m.row_ptr, 0xAB, sizeof(int32_t) * ((size_t) nrows_total + 1));
	if (nnz == j)
	{
		for (int c = 0; c < nchunks; c += per_call)
			gs_csr_write_chunks(e, chunk_start, out_start, c,
								c + per_call < nchunks ? c + per_call : nchunks, &m, threads);
		gs_csr_finish_rows(e, n, nnz, &m);
		for (k = 0; k < nnz; k++)
			bad_vals += unit_double_bits(m.vals[k]) != unit_double_bits(want.vals[k]);
		UNIT_CHECK(bad_vals == 0, "%lld sums differ from the accumulator's", (long long) bad_vals);
		UNIT_CHECK(nnz == 0 || memcmp(m.col_idx, want.col_idx, sizeof(int32_t) * (size_t) nnz) == 0,
				   "col_idx differs");
		UNIT_CHECK(memcmp(m.row_ptr, want.row_ptr, sizeof(int32_t) * ((size_t) nrows_total + 1)) == 0,
				   "row_ptr differs");
	}
	free(e);
	free(tmp);
	free(chunk_start);
	free(unique);
	free(out_start);
	free(m.row_ptr);
	free(m.col_idx);
	free(m.vals);
	free(want.row_ptr);
	free(want.col_idx);
	free(want.vals);
}

void
suite_csr_build(void)
{
	/* (row bits, column bits): none, few, one digit, and the widths whose bucket sorts take most digits */
	static const int widths[][2] = {{0, 0}, {1, 1}, {5, 7}, {11, 31}, {23, 31}, {25, 31}, {31, 31}};
	static const int64_t sizes[] = {0, 1, 2, 33, 1000, 70000, 600001};
	static const int workers[] = {0, 1, 3};

	unit_seed(42);
	for (size_t w = 0; w < sizeof(workers) / sizeof(workers[0]); w++)
	{
		gs_copy_workers_set(workers[w]);
		for (size_t b = 0; b < sizeof(widths) / sizeof(widths[0]); b++)
			for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
				sort_case(sizes[s], widths[b][0], widths[b][1], (int) (s % 2 == 0), workers[w] > 0);
	}
	for (size_t w = 0; w < sizeof(workers) / sizeof(workers[0]); w++)
	{
		gs_copy_workers_set(workers[w]);
		/* sparse rows, empty rows at the end, one key for all, chunks that split runs */
		assembly_case(0, 1, 5, 1, 4, 1, workers[w] > 0);
		assembly_case(1, 1, 3, 1, 4, 3, workers[w] > 0);
		assembly_case(5000, 1, 1, 1, 16, 5, workers[w] > 0);
		assembly_case(20000, 50, 80, 40, 1, 1, workers[w] > 0);
		assembly_case(20000, 50, 50, 40, 256, 32, workers[w] > 0);
		assembly_case(100000, 3000, 3500, 7, 7, 2, workers[w] > 0);
		assembly_case(300000, 100000, 100000, 100000, 256, 32, workers[w] > 0);
	}
	unit_case("csr sort: bits for a size");
	UNIT_CHECK(gs_csr_bits_for(0) == 0 && gs_csr_bits_for(1) == 0 && gs_csr_bits_for(2) == 1 &&
			   gs_csr_bits_for(3) == 2 && gs_csr_bits_for((int64_t) 1 << 31) == 31 &&
			   gs_csr_bits_for(((int64_t) 1 << 31) + 1) == 32, "wrong bits");
	gs_copy_workers_set(0);
}
