/*-------------------------------------------------------------------------
 *
 * cpu_scan_bench.c
 *	  Times the CPU prefix sums of src/cpu/cpu_prefix_sum.c on 10M elements out of
 *	  cache: the plain sequential float8 running sum against the correctly
 *	  rounded scan (double inclusive and exclusive, float, and double data
 *	  of both signs).
 *
 * Build and run from the project root, with the flags PGXS uses:
 *
 *	 gcc -O2 -std=gnu99 -fno-strict-aliasing -fwrapv \
 *		 -fexcess-precision=standard -Icommon -Isrc \
 *		 bench/cpu_scan_bench.c src/cpu/cpu_prefix_sum.c src/cpu/cpu_sum.c -lm \
 *		 -o bench/cpu_scan_bench
 *	 ./bench/cpu_scan_bench [--portable] [n_elements]
 *
 * --portable times the portable build on an AVX2 machine.  Each timing is
 * the median of BENCH_RUNS runs; every run reads the next of BENCH_BUFFERS
 * arrays, so that no run finds its data in cache, and writes one output
 * array (first touched before timing).  Prints a markdown table.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/cpu_prefix_sum.h"
#include "cpu/cpu_sum.h"

#define BENCH_RUNS		15
#ifndef BENCH_BUFFERS
#define BENCH_BUFFERS	4
#endif
#define BENCH_DEFAULT_N 10000000

/* what one timed run does, over one buffer */
typedef enum bench_op
{
	OP_SEQUENTIAL_F64,
	OP_EXACT_F64,
	OP_EXACT_F64_EXCLUSIVE,
	OP_EXACT_F64_SIGNED,
	OP_EXACT_F32,
	OP_EXACT_SUM_F64,
	N_BENCH_OPS
} bench_op;

static double *buf_f64[BENCH_BUFFERS];
static double *buf_signed[BENCH_BUFFERS];
static float *buf_f32[BENCH_BUFFERS];
static double *out;
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

/* run_once -- one timed run of op over buffer b; returns nanoseconds */
static double
run_once(bench_op op, int b, size_t n)
{
	gs_exact_acc acc;
	double		start = now_ns();

	gs_acc_zero(&acc);
	switch (op)
	{
		case OP_SEQUENTIAL_F64:
			cpu_prefix_sum_sequential_f64(buf_f64[b], n, out);
			break;
		case OP_EXACT_F64:
			cpu_prefix_sum_f64(buf_f64[b], n, out, 0, &acc);
			break;
		case OP_EXACT_F64_EXCLUSIVE:
			cpu_prefix_sum_f64(buf_f64[b], n, out, 1, &acc);
			break;
		case OP_EXACT_F64_SIGNED:
			cpu_prefix_sum_f64(buf_signed[b], n, out, 0, &acc);
			break;
		case OP_EXACT_F32:
			cpu_prefix_sum_f32(buf_f32[b], n, out, 0, &acc);
			break;
		case OP_EXACT_SUM_F64:
			cpu_sum_exact_f64(buf_f64[b], n, &acc);
			out[n - 1] = gs_acc_round(&acc);
			break;
		case N_BENCH_OPS:
			break;
	}
	sink = out[n - 1];
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
 * time_all -- median times of every op over BENCH_RUNS rounds; the ops take
 * turns within each round, each reading another buffer than the last op.
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
			t[op][r] = run_once((bench_op) op, (r + op) % BENCH_BUFFERS, n);
	for (op = 0; op < N_BENCH_OPS; op++)
	{
		qsort(t[op], BENCH_RUNS, sizeof(double), compare_double);
		median[op] = t[op][BENCH_RUNS / 2];
	}
}

/* print_row -- one markdown row: time, time per element, ratio */
static void
print_row(const char *what, double ns, size_t n, double base_ns)
{
	printf("| %-40s | %8.3f | %7.2f | %5.2fx |\n", what, ns / 1e6,
		   ns / (double) n, ns / base_ns);
}

int
main(int argc, char **argv)
{
	size_t		n = BENCH_DEFAULT_N;
	uint64_t	state = 42;
	double		median[N_BENCH_OPS];
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
	if (n == 0)
		n = 1;

	out = malloc(n * sizeof(double));
	for (b = 0; b < BENCH_BUFFERS; b++)
	{
		buf_f64[b] = malloc(n * sizeof(double));
		buf_signed[b] = malloc(n * sizeof(double));
		buf_f32[b] = malloc(n * sizeof(float));
		if (out == NULL || buf_f64[b] == NULL || buf_signed[b] == NULL ||
			buf_f32[b] == NULL)
		{
			fprintf(stderr, "out of memory\n");
			return 1;
		}
		for (k = 0; k < n; k++)
		{
			buf_f64[b][k] = rand_uniform(&state);
			buf_signed[b][k] = rand_uniform(&state) - 0.5;
			buf_f32[b][k] = (float) rand_uniform(&state);
		}
	}
	memset(out, 0, n * sizeof(double));

	time_all(n, median);

	printf("%zu elements per run, %d buffers, median of %d runs; vector path: %s\n\n",
		   n, BENCH_BUFFERS, BENCH_RUNS, cpu_sum_exact_path());
	printf("| prefix sum                               |    ms    | ns/elem | ratio  |\n");
	printf("| ---------------------------------------- | -------- | ------- | ------ |\n");
	print_row("sequential float8 (not exact), [0,1)", median[OP_SEQUENTIAL_F64], n,
			  median[OP_SEQUENTIAL_F64]);
	print_row("correctly rounded float8, [0,1)", median[OP_EXACT_F64], n,
			  median[OP_SEQUENTIAL_F64]);
	print_row("correctly rounded float8, exclusive", median[OP_EXACT_F64_EXCLUSIVE], n,
			  median[OP_SEQUENTIAL_F64]);
	print_row("correctly rounded float8, [-0.5,0.5)", median[OP_EXACT_F64_SIGNED], n,
			  median[OP_SEQUENTIAL_F64]);
	print_row("correctly rounded float4, [0,1)", median[OP_EXACT_F32], n,
			  median[OP_SEQUENTIAL_F64]);
	print_row("(exact sum only, cpu_sum_exact_f64)", median[OP_EXACT_SUM_F64], n,
			  median[OP_SEQUENTIAL_F64]);
	printf("\nratio: time over the sequential float8 running sum.\n");

	for (b = 0; b < BENCH_BUFFERS; b++)
	{
		free(buf_f64[b]);
		free(buf_signed[b]);
		free(buf_f32[b]);
	}
	free(out);
	return 0;
}
