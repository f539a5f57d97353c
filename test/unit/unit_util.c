/*-------------------------------------------------------------------------
 *
 * unit_util.c
 *	  Helpers shared by the unit-test suites: bit casts, random numbers of
 *	  a given shape, random splits, accumulator comparison, random sparse
 *	  matrices and device copies.
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"

/* unit_double_bits -- the IEEE bits of a double */
uint64_t
unit_double_bits(double x)
{
	uint64_t	u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

/* unit_bits_double -- the double with these bits */
double
unit_bits_double(uint64_t u)
{
	double		x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

/* unit_bits_float -- the float with these bits */
float
unit_bits_float(uint32_t u)
{
	float		x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

/* unit_rand_below -- uniform integer in [0, n) */
uint64_t
unit_rand_below(uint64_t n)
{
	return unit_rand64() % n;
}

/* unit_rand_sign -- +1.0 or -1.0 */
double
unit_rand_sign(void)
{
	return (unit_rand64() & 1) ? -1.0 : 1.0;
}

/* unit_rand_with_exponent -- random 53-bit significand times 2^e, random sign */
double
unit_rand_with_exponent(int e)
{
	return unit_rand_sign() * ldexp(1.0 + unit_rand_uniform(), e);
}

/*
 * unit_random_piece -- the length of the next piece of a random split: a
 * small piece, a block-sized one, one of up to `large`, or any, at most left
 */
size_t
unit_random_piece(size_t left, size_t large)
{
	size_t		len;

	switch (unit_rand_below(4))
	{
		case 0:
			len = (size_t) unit_rand_below(70);
			break;
		case 1:
			len = (size_t) unit_rand_below(3000);
			break;
		case 2:
			len = (size_t) unit_rand_below(large);
			break;
		default:
			len = (size_t) unit_rand_below(left + 1);
			break;
	}
	return len < left ? len : left;
}

/*
 * unit_random_cuts -- k+1 cut points 0 = c[0] <= ... <= c[k] = n, sorted,
 * with chunk 1 empty and chunk 2 a single element where possible; returns
 * the number of cut points.
 */
int
unit_random_cuts(size_t n, size_t *cuts, int k)
{
	int			i,
				j;

	cuts[0] = 0;
	for (i = 1; i < k; i++)
		cuts[i] = n > 0 ? (size_t) (unit_rand64() % (n + 1)) : 0;
	cuts[k] = n;
	for (i = 1; i < k; i++)
		for (j = i; j > 0 && cuts[j - 1] > cuts[j]; j--)
		{
			size_t		tmp = cuts[j];

			cuts[j] = cuts[j - 1];
			cuts[j - 1] = tmp;
		}
	if (k >= 4 && n >= 3)
	{
		cuts[2] = cuts[1];
		if (cuts[3] <= cuts[2])
			cuts[3] = cuts[2] + 1;
		for (i = 4; i < k; i++)
			if (cuts[i] < cuts[i - 1])
				cuts[i] = cuts[i - 1];
	}
	return k + 1;
}

/*
 * unit_check_acc -- `got` must equal `want` limb for limb, with the same
 * special counts and zero flags; reports the first differences, naming the
 * accumulator `what`.
 */
void
unit_check_acc(const char *what, const gs_exact_acc *want, const gs_exact_acc *got)
{
	int			i,
				shown = 0;

	for (i = 0; i < GS_ACC_LIMBS && shown < 2; i++)
		if (want->limb[i] != got->limb[i])
		{
			UNIT_CHECK(0, "%s limb %d (weight 2^%d) is %" PRId64 " (0x%" PRIx64 "), expected %" PRId64
					   " (0x%" PRIx64 ")%s",
					   what, i, 32 * i - GS_ACC_BIAS, got->limb[i], (uint64_t) got->limb[i],
					   want->limb[i], (uint64_t) want->limb[i],
					   (i < GS_ACC_LIMBS - 1 && (got->limb[i] < 0 || got->limb[i] > 0xffffffff)) ?
					   " (not normalized)" : "");
			shown++;
		}
	UNIT_CHECK(got->n_nan == want->n_nan && got->n_pos_inf == want->n_pos_inf &&
			   got->n_neg_inf == want->n_neg_inf,
			   "%s counts NaN/+Inf/-Inf %" PRIu64 "/%" PRIu64 "/%" PRIu64 ", expected %" PRIu64 "/%" PRIu64 "/%" PRIu64,
			   what, got->n_nan, got->n_pos_inf, got->n_neg_inf,
			   want->n_nan, want->n_pos_inf, want->n_neg_inf);
	UNIT_CHECK((got->has_negzero != 0) == (want->has_negzero != 0) &&
			   (got->has_nonnegzero != 0) == (want->has_nonnegzero != 0),
			   "%s flags has_negzero/has_nonnegzero %" PRIu64 "/%" PRIu64 ", expected %" PRIu64 "/%" PRIu64,
			   what, got->has_negzero, got->has_nonnegzero, want->has_negzero, want->has_nonnegzero);
}

/* random_row_length -- the length of one row of a shape */
static int32_t
random_row_length(unit_csr_shape shape, int mean)
{
	switch (shape)
	{
		case CSR_EMPTY_ROWS:
			return unit_rand_below(8) == 0 ? mean : 0;
		case CSR_SKEWED:
			{
				/* Pareto-like: mean / u^1.5, capped at ~3 segments */
				double		u = unit_rand_uniform() + 1e-3;
				double		len = 0.3 * mean / pow(u, 1.5);

				return (int32_t) (len < 12000 ? len : 12000);
			}
		case CSR_UNIFORM:
		case CSR_ONE_HUGE_ROW:
		default:
			return (int32_t) unit_rand_below(2 * (uint64_t) mean + 1);
	}
}

/* unit_random_value -- uniform [-1, 1) or an integer in [-4, 4] */
static double
unit_random_value(int integral)
{
	return integral ? (double) unit_rand_below(9) - 4.0 : 2.0 * unit_rand_uniform() - 1.0;
}

/* unit_random_csr -- see unit.h */
void
unit_random_csr(unit_csr *m, unit_csr_shape shape, int32_t nrows, int32_t ncols,
				int mean, int integral)
{
	int32_t		huge = shape == CSR_ONE_HUGE_ROW && nrows > 0 ?
		(int32_t) unit_rand_below((uint64_t) nrows) : -1;
	int64_t		nnz = 0;
	int32_t		i;

	m->nrows = nrows;
	m->ncols = ncols;
	m->row_ptr = malloc(sizeof(int32_t) * ((size_t) nrows + 1));
	m->row_ptr[0] = 0;
	for (i = 0; i < nrows; i++)
	{
		nnz += i == huge ? 5 * 4096 + 77 : random_row_length(shape, mean);
		m->row_ptr[i + 1] = (int32_t) nnz;
	}
	m->nnz = (int32_t) nnz;
	m->col_idx = malloc(sizeof(int32_t) * (size_t) (nnz > 0 ? nnz : 1));
	m->vals = malloc(sizeof(double) * (size_t) (nnz > 0 ? nnz : 1));
	m->x = malloc(sizeof(double) * (size_t) (ncols > 0 ? ncols : 1));
	for (i = 0; i < m->nnz; i++)
	{
		m->col_idx[i] = (int32_t) unit_rand_below((uint64_t) ncols);
		m->vals[i] = unit_random_value(integral);
	}
	for (i = 0; i < ncols; i++)
		m->x[i] = unit_random_value(integral);
}

/* unit_free_csr -- free a unit_random_csr matrix */
void
unit_free_csr(unit_csr *m)
{
	free(m->row_ptr);
	free(m->col_idx);
	free(m->vals);
	free(m->x);
}

const unit_csr_shape unit_csr_shapes[UNIT_CSR_SHAPES] = {
	CSR_UNIFORM, CSR_EMPTY_ROWS, CSR_SKEWED, CSR_ONE_HUGE_ROW
};
const char *const unit_csr_shape_names[UNIT_CSR_SHAPES] = {
	"uniform", "empty rows", "skewed", "one huge row"
};
const int	unit_csr_means[UNIT_CSR_MEANS] = {1, 4, 9, 17, 33, 70, 300};
const int32_t unit_csr_rows[UNIT_CSR_ROWS] = {1, 31, 255, 256, 257, 1023, 1025, 20000};

/* unit_csr_sweep -- see unit.h */
void
unit_csr_sweep(const char *what, const char *claim, void (*check) (const unit_csr *m))
{
	unit_csr	m;

	for (int s = 0; s < UNIT_CSR_SHAPES; s++)
		for (int mi = 0; mi < UNIT_CSR_MEANS; mi++)
			for (int ri = 0; ri < UNIT_CSR_ROWS; ri++)
			{
				if (unit_csr_rows[ri] * (int64_t) unit_csr_means[mi] > 2000000)
					continue;
				unit_random_csr(&m, unit_csr_shapes[s], unit_csr_rows[ri], 5000,
								unit_csr_means[mi], ri & 1);
				unit_case("%s: %s, mean %d, %d rows, %s", what, unit_csr_shape_names[s],
						  unit_csr_means[mi], unit_csr_rows[ri], claim);
				check(&m);
				unit_free_csr(&m);
			}
	unit_random_csr(&m, CSR_UNIFORM, 0, 1, 3, 0);
	unit_case("%s: no rows", what);
	check(&m);
	unit_free_csr(&m);
}

/* unit_device_copy -- see unit.h */
void *
unit_device_copy(const void *host, size_t bytes)
{
	void	   *d = NULL;

	if (gsd_alloc(bytes, &d) != GSD_OK)
		return NULL;
	if (bytes > 0 && gsd_upload(d, host, bytes) != GSD_OK)
	{
		gsd_free(d);
		return NULL;
	}
	return d;
}
