/*-------------------------------------------------------------------------
 *
 * cpu_sum_bench.c
 *	  Times the CPU sums of src/cpu/cpu_sum.c on 10M elements out of cache:
 *	  the plain float8 loop against the exact sum (double and float).
 *
 * Build and run from the project root, with the flags PGXS uses:
 *
 *	 gcc -O2 -std=gnu99 -fno-strict-aliasing -fwrapv \
 *		 -fexcess-precision=standard -Icommon -Isrc \
 *		 bench/cpu_sum_bench.c src/cpu/cpu_sum.c -lm -o bench/cpu_sum_bench
 *	 ./bench/cpu_sum_bench [--portable] [n_elements]
 *
 * --portable times the portable build of the exact sum on an AVX2
 * machine.  Each timing is the median of BENCH_RUNS runs, the sums taking
 * turns; BENCH_BUFFERS arrays of each type (320 MB of doubles in all) keep
 * every run out of cache.  Prints a markdown table.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/cpu_sum.h"

#define BENCH_RUNS		15
#define BENCH_BUFFERS	4
#define BENCH_DEFAULT_N 10000000

/* what one timed run does, over one buffer */
typedef enum bench_op
{
	OP_PLAIN_F64,
	OP_EXACT_F64,
	OP_PLAIN_F32,
	OP_EXACT_F32,
	N_BENCH_OPS
} bench_op;

static double *buf_f64[BENCH_BUFFERS];
static float *buf_f32[BENCH_BUFFERS];
static volatile double sink;

/* now_ns -- monotonic clock in nanoseconds */
static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* rand_uniform -- [0, 1) from a splitmix64 stream */
static double
rand_uniform(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	z ^= z >> 31;
	return (double) (z >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * plain_sum_f32 -- the float4 counterpart of cpu_sum_plain_f64: floats
 * into eight double accumulators.  The baseline of the float row.
 */
static double
plain_sum_f32(const float *x, size_t n)
{
	double		s[8] = {0};
	size_t		i;
	int			j;

	for (i = 0; i + 8 <= n; i += 8)
		for (j = 0; j < 8; j++)
			s[j] += x[i + j];
	for (; i < n; i++)
		s[0] += x[i];
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* run_once -- one timed run of op over buffer b; returns nanoseconds */
static double
run_once(bench_op op, int b, size_t n)
{
	gs_exact_acc acc;
	double		start = now_ns();
	double		result = 0.0;

	switch (op)
	{
		case OP_PLAIN_F64:
			result = cpu_sum_plain_f64(buf_f64[b], n);
			break;
		case OP_EXACT_F64:
			gs_acc_zero(&acc);
			cpu_sum_exact_f64(buf_f64[b], n, &acc);
			result = gs_acc_round(&acc);
			break;
		case OP_PLAIN_F32:
			result = plain_sum_f32(buf_f32[b], n);
			break;
		case OP_EXACT_F32:
			gs_acc_zero(&acc);
			cpu_sum_exact_f32(buf_f32[b], n, &acc);
			result = gs_acc_round(&acc);
			break;
		case N_BENCH_OPS:
			break;
	}
	sink = result;
	return now_ns() - start;
}

/* compare_double -- qsort order */
static int
compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/*
 * time_all -- median times of every op over BENCH_RUNS rounds.  The ops
 * take turns within each round, so that a noisy machine slows them alike;
 * each reads a different buffer from the one read just before it.
 */
static void
time_all(size_t n, double median[N_BENCH_OPS])
{
	double		t[N_BENCH_OPS][BENCH_RUNS];
	int			op,
				r;

	for (op = 0; op < N_BENCH_OPS; op++)
		run_once((bench_op) op, 0, n);	/* warm-up: page tables, code */
	for (r = 0; r < BENCH_RUNS; r++)
		for (op = 0; op < N_BENCH_OPS; op++)
			t[op][r] = run_once((bench_op) op, (r + 2 * (op % 2)) % BENCH_BUFFERS, n);
	for (op = 0; op < N_BENCH_OPS; op++)
	{
		qsort(t[op], BENCH_RUNS, sizeof(double), compare_double);
		median[op] = t[op][BENCH_RUNS / 2];
	}
}

/* print_row -- one markdown row: time per element, bandwidth, ratio */
static void
print_row(const char *what, double ns, size_t n, size_t elem_size, double base_ns)
{
	printf("| %-28s | %8.3f | %7.2f | %8.3f | %5.2fx |\n", what, ns / 1e6,
		   ns / (double) n, (double) n * (double) elem_size / ns, ns / base_ns);
}

int
main(int argc, char **argv)
{
	size_t		n = BENCH_DEFAULT_N;
	uint64_t	state = 42;
	double		median[N_BENCH_OPS];
	gs_exact_acc acc;
	int			i,
				b;
	size_t		k;

	for (i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--portable") == 0)
			cpu_sum_exact_allow_avx2(0);
		else
			n = (size_t) strtoull(argv[i], NULL, 10);
	}

	for (b = 0; b < BENCH_BUFFERS; b++)
	{
		buf_f64[b] = malloc(n * sizeof(double));
		buf_f32[b] = malloc(n * sizeof(float));
		if (buf_f64[b] == NULL || buf_f32[b] == NULL)
		{
			fprintf(stderr, "out of memory\n");
			return 1;
		}
		for (k = 0; k < n; k++)
		{
			buf_f64[b][k] = rand_uniform(&state);
			buf_f32[b][k] = (float) rand_uniform(&state);
		}
	}

	time_all(n, median);

	printf("%zu uniform [0,1) elements per run, %d buffers, median of %d runs; "
		   "exact sum path: %s\n\n", n, BENCH_BUFFERS, BENCH_RUNS,
		   cpu_sum_exact_path());
	printf("| sum                          |    ms    | ns/elem |  GB/s    | ratio  |\n");
	printf("| ---------------------------- | -------- | ------- | -------- | ------ |\n");
	print_row("plain float8, 8 accumulators", median[OP_PLAIN_F64], n,
			  sizeof(double), median[OP_PLAIN_F64]);
	print_row("exact float8", median[OP_EXACT_F64], n,
			  sizeof(double), median[OP_PLAIN_F64]);
	print_row("plain float4, 8 accumulators", median[OP_PLAIN_F32], n,
			  sizeof(float), median[OP_PLAIN_F32]);
	print_row("exact float4", median[OP_EXACT_F32], n,
			  sizeof(float), median[OP_PLAIN_F32]);
	printf("\nratio: time over the plain loop of the same type.\n");

	gs_acc_zero(&acc);
	cpu_sum_exact_f64(buf_f64[0], n, &acc);
	printf("buffer 0: plain %.17g, exact %.17g\n",
		   cpu_sum_plain_f64(buf_f64[0], n), gs_acc_round(&acc));

	for (b = 0; b < BENCH_BUFFERS; b++)
	{
		free(buf_f64[b]);
		free(buf_f32[b]);
	}
	return 0;
}
