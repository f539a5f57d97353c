/*-------------------------------------------------------------------------
 *
 * fuzz_csr.c
 *	  Fuzzing the CSR check (src/cpu/csr_check.c) and the CPU SpMV code that
 *	  trusts it (src/cpu/cpu_spmv.c).
 *
 * The input gives row_ptr, col_idx and ncols.  A matrix csr_check refuses
 * must really break the rule it names, at the position it names, and no
 * earlier rule.  A matrix it accepts goes through cpu_spmv_f64,
 * cpu_spmv_f32 and cpu_spmv_pattern_f64 over all rows (in random row
 * ranges) and, if square, cpu_csr_transpose_pattern: every array lives in
 * a heap block of exactly its size, so that ASan sees any read or write
 * out of bounds.  The values are small integers, so every row sum is exact
 * in any order and is checked against a plain loop; the transpose is
 * checked entry by entry.
 *
 * Input layout:
 *   byte 0      mode: CSR_DELTAS, CSR_FIX_NNZ
 *   byte 1..2   row_ptr entries: this mod (words + 1)
 *   byte 3..4   ncols: this mod 1025, or one of edge_ncols from 0xfff8
 *   byte 5..    32-bit words: row_ptr first, then col_idx
 *
 * Raw mode takes the words as they are.  CSR_DELTAS makes most matrices
 * valid or nearly so: row_ptr from small steps (sometimes large, sometimes
 * down), columns mostly in range; CSR_FIX_NNZ sets nnz to row_ptr's last
 * entry, reusing the column words cyclically.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_spmv.h"
#include "cpu/csr_check.h"
#include "fuzz_util.h"

#define CSR_DELTAS	0x01
#define CSR_FIX_NNZ 0x02

#define MAX_SPMV_NCOLS	65536	/* x is allocated: run SpMV up to this */
#define MAX_SPMV_NNZ	(1 << 18)	/* row sums of |v x| <= 16 stay exact */

static const int64_t edge_ncols[8] = {-1, 0, INT32_MAX, (int64_t) INT32_MAX + 1,
INT64_MAX, INT64_MIN, INT32_MIN, 1 << 20};

/* a decoded matrix, every array exactly sized */
typedef struct matrix
{
	int64_t		nrp;
	int64_t		nnz;
	int64_t		ncols;
	int32_t    *row_ptr;
	int32_t    *col_idx;
} matrix;

/* delta_step -- the step of row_ptr a word gives in CSR_DELTAS mode */
static int32_t
delta_step(uint32_t w)
{
	if ((w >> 28) == 0xf)
		return -(int32_t) (w & 3) - 1;
	if ((w >> 28) == 0xe)
		return (int32_t) (w & 0x1fff);
	return (int32_t) (w & 0xf);
}

/* delta_column -- a column a word gives in CSR_DELTAS mode: mostly in range */
static int32_t
delta_column(uint32_t w, int64_t ncols, int64_t k)
{
	int64_t		span = ncols > 0 && ncols < 65536 ? ncols : 65536;

	if ((w >> 24) == 0xff)
		return (int32_t) w;		/* negative */
	if ((w >> 28) == 0xf)		/* just past the end, where there is one */
		return ncols >= 0 && ncols <= INT32_MAX - 3 ? (int32_t) ncols + (int32_t) (w & 3) :
			INT32_MAX - (int32_t) (w & 3);
	return (int32_t) (((int64_t) (w & 0xffff) + k) % span);
}

/* decode -- the matrix of an input (see the file header) */
static void
decode(const uint8_t *data, size_t size, matrix *m)
{
	fuzz_reader r;
	uint8_t		mode;
	uint16_t	sel,
				nsel;
	size_t		nw,
				i,
				ncw;
	uint32_t   *w;

	fuzz_reader_init(&r, data, size);
	mode = fuzz_u8(&r);
	sel = fuzz_u16(&r);
	nsel = fuzz_u16(&r);
	m->ncols = nsel >= 0xfff8 ? edge_ncols[nsel - 0xfff8] : nsel % 1025;
	nw = r.left / 4;
	w = fuzz_alloc(sizeof(uint32_t) * nw);
	for (i = 0; i < nw; i++)
		w[i] = fuzz_u32(&r);
	m->nrp = (int64_t) (sel % (nw + 1));
	ncw = nw - (size_t) m->nrp;
	m->row_ptr = fuzz_alloc(sizeof(int32_t) * (size_t) m->nrp);
	if (!(mode & CSR_DELTAS))
	{
		memcpy(m->row_ptr, w, sizeof(int32_t) * (size_t) m->nrp);
		m->nnz = (int64_t) ncw;
		m->col_idx = fuzz_alloc(sizeof(int32_t) * ncw);
		memcpy(m->col_idx, w + m->nrp, sizeof(int32_t) * ncw);
		free(w);
		return;
	}
	for (i = 0; i < (size_t) m->nrp; i++)
		m->row_ptr[i] = i == 0 ? ((w[0] >> 28) == 0xf ? (int32_t) (w[0] & 0xf) - 8 : 0) :
			m->row_ptr[i - 1] + delta_step(w[i]);
	m->nnz = (int64_t) ncw;
	if ((mode & CSR_FIX_NNZ) && m->nrp > 0 && m->row_ptr[m->nrp - 1] >= 0 &&
		m->row_ptr[m->nrp - 1] <= MAX_SPMV_NNZ)
		m->nnz = m->row_ptr[m->nrp - 1];
	m->col_idx = fuzz_alloc(sizeof(int32_t) * (size_t) m->nnz);
	for (i = 0; i < (size_t) m->nnz; i++)
		m->col_idx[i] = delta_column(ncw > 0 ? w[m->nrp + i % ncw] : 0, m->ncols, (int64_t) i);
	free(w);
}

/* column_ok -- col within [0, ncols) */
static int
column_ok(int32_t col, int64_t ncols)
{
	return col >= 0 && (int64_t) col < ncols;
}

/*
 * check_verdict -- csr_check's answer against the rules: a refused matrix
 * breaks the named rule at `at` and no earlier rule; an accepted one none
 */
static void
check_verdict(const matrix *m, csr_problem p, int64_t at)
{
	const int32_t *rp = m->row_ptr;
	int64_t		i,
				rp_end = p == CSR_DECREASING ? at : m->nrp,
				col_end = p == CSR_COLUMN_OUT_OF_RANGE ? at : m->nnz;

	if ((p == CSR_NO_ROW_PTR) != (m->nrp < 1))
		fuzz_fail("csr_check: problem %d with %lld row_ptr entries", (int) p, (long long) m->nrp);
	if (p == CSR_NO_ROW_PTR)
		return;
	switch (p)
	{
		case CSR_FIRST_NOT_ZERO:
			if (at != 0 || rp[0] == 0)
				fuzz_fail("csr_check: first entry not 0 at %lld, row_ptr[0] = %d", (long long) at, rp[0]);
			return;
		case CSR_DECREASING:
			if (at < 1 || at >= m->nrp || rp[at] >= rp[at - 1])
				fuzz_fail("csr_check: decreasing at %lld of %lld", (long long) at, (long long) m->nrp);
			break;
		case CSR_LAST_NOT_NNZ:
			if (at != m->nrp - 1 || rp[at] == m->nnz)
				fuzz_fail("csr_check: last not nnz at %lld (nrp %lld, nnz %lld)",
						  (long long) at, (long long) m->nrp, (long long) m->nnz);
			break;
		case CSR_COLUMN_OUT_OF_RANGE:
			if (at < 0 || at >= m->nnz || column_ok(m->col_idx[at], m->ncols))
				fuzz_fail("csr_check: column out of range at %lld (nnz %lld, ncols %lld)",
						  (long long) at, (long long) m->nnz, (long long) m->ncols);
			break;
		case CSR_OK:
			break;
		default:
			fuzz_fail("csr_check: unknown problem %d", (int) p);
	}
	/* no earlier rule broken */
	if (rp[0] != 0)
		fuzz_fail("csr_check: problem %d, but row_ptr[0] = %d comes first", (int) p, rp[0]);
	for (i = 1; i < rp_end; i++)
		if (rp[i] < rp[i - 1])
			fuzz_fail("csr_check: problem %d, but row_ptr decreases at %lld first", (int) p, (long long) i);
	if (p == CSR_DECREASING)
		return;
	if (p != CSR_LAST_NOT_NNZ && rp[m->nrp - 1] != m->nnz)
		fuzz_fail("csr_check: problem %d, but row_ptr ends at %d, not nnz %lld",
				  (int) p, rp[m->nrp - 1], (long long) m->nnz);
	if (p == CSR_LAST_NOT_NNZ)
		return;
	for (i = 0; i < col_end; i++)
		if (!column_ok(m->col_idx[i], m->ncols))
			fuzz_fail("csr_check: problem %d, but column %lld is out of range first", (int) p, (long long) i);
}

/* small_value -- an integer in [-4, 4] */
static int
small_value(fuzz_rng *g)
{
	return (int) fuzz_rng_below(g, 9) - 4;
}

/* check_spmv -- the three SpMV variants in random row ranges, against a plain loop */
static void
check_spmv(const matrix *m, fuzz_rng *g)
{
	int64_t		nrows = m->nrp - 1,
				nnz = m->nnz,
				ncols = m->ncols,
				i,
				k,
				begin;
	double	   *vals = fuzz_alloc(sizeof(double) * (size_t) nnz),
			   *x = fuzz_alloc(sizeof(double) * (size_t) ncols),
			   *y = fuzz_alloc(sizeof(double) * (size_t) nrows),
			   *yp = fuzz_alloc(sizeof(double) * (size_t) nrows);
	float	   *vals32 = fuzz_alloc(sizeof(float) * (size_t) nnz),
			   *x32 = fuzz_alloc(sizeof(float) * (size_t) ncols),
			   *y32 = fuzz_alloc(sizeof(float) * (size_t) nrows);

	for (k = 0; k < nnz; k++)
		vals32[k] = (float) (vals[k] = small_value(g));
	for (i = 0; i < ncols; i++)
		x32[i] = (float) (x[i] = small_value(g));
	for (begin = 0; begin < nrows;)
	{
		int64_t		end = begin + 1 + (int64_t) fuzz_rng_below(g, (uint64_t) (nrows - begin));

		cpu_spmv_f64(m->row_ptr, m->col_idx, vals, x, y, begin, end);
		cpu_spmv_f32(m->row_ptr, m->col_idx, vals32, x32, y32, begin, end);
		cpu_spmv_pattern_f64(m->row_ptr, m->col_idx, x, yp, begin, end);
		begin = end;
	}
	for (i = 0; i < nrows; i++)
	{
		int64_t		s = 0,
					sp = 0;

		for (k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
		{
			s += (int64_t) vals[k] * (int64_t) x[m->col_idx[k]];
			sp += (int64_t) x[m->col_idx[k]];
		}
		if (y[i] != (double) s || y32[i] != (float) s || yp[i] != (double) sp)
			fuzz_fail("SpMV row %lld: f64 %g, f32 %g, pattern %g; expected %lld and %lld",
					  (long long) i, y[i], (double) y32[i], yp[i], (long long) s, (long long) sp);
	}
	free(vals);
	free(x);
	free(y);
	free(yp);
	free(vals32);
	free(x32);
	free(y32);
}

/*
 * check_transpose -- the stable transpose: row j of the transpose lists
 * the rows i with an entry in column j, in increasing order of i (and of
 * position within row i)
 */
static void
check_transpose(const matrix *m)
{
	int32_t		n = (int32_t) m->ncols;
	int32_t    *t_ptr = fuzz_alloc(sizeof(int32_t) * ((size_t) n + 1)),
			   *t_idx = fuzz_alloc(sizeof(int32_t) * (size_t) m->nnz),
			   *next = fuzz_alloc(sizeof(int32_t) * ((size_t) n + 1));
	int64_t		k;
	int32_t		i;

	cpu_csr_transpose_pattern(m->row_ptr, m->col_idx, n, t_ptr, t_idx);
	if (t_ptr[0] != 0 || t_ptr[n] != m->nnz)
		fuzz_fail("transpose: row_ptr runs from %d to %d, nnz is %lld", t_ptr[0], t_ptr[n], (long long) m->nnz);
	for (i = 0; i < n; i++)
		if (t_ptr[i + 1] < t_ptr[i])
			fuzz_fail("transpose: row_ptr decreases at %d", i + 1);
	memcpy(next, t_ptr, sizeof(int32_t) * ((size_t) n + 1));
	for (i = 0; i < n; i++)
		for (k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
		{
			int32_t		j = m->col_idx[k];

			if (next[j] >= t_ptr[j + 1] || t_idx[next[j]] != i)
				fuzz_fail("transpose: entry (%d, %d) missing or out of order", i, j);
			next[j]++;
		}
	free(t_ptr);
	free(t_idx);
	free(next);
}

/* LLVMFuzzerTestOneInput -- decode, check, and use the matrix if valid */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	matrix		m;
	csr_problem p;
	int64_t		at = -12345;
	fuzz_rng	g;

	decode(data, size, &m);
	p = csr_check(m.row_ptr, m.nrp, m.col_idx, m.nnz, m.ncols, &at);
	check_verdict(&m, p, at);
	if (p == CSR_OK && m.ncols >= 0 && m.ncols <= MAX_SPMV_NCOLS && m.nnz <= MAX_SPMV_NNZ)
	{
		fuzz_rng_seed(&g, fuzz_hash(data, size));
		check_spmv(&m, &g);
		if (m.ncols == m.nrp - 1)
			check_transpose(&m);
	}
	free(m.row_ptr);
	free(m.col_idx);
	return 0;
}
