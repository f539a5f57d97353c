/*
 * bench/host_copy_bench.c -- what this host's memory gives the copies of
 * the session's side of the GPU service's data path: a large array copied
 * by T threads into memory already touched ("warm") or fresh from mmap
 * (its page faults and zeroing taken in the copy), with memcpy or with
 * non-temporal stores, whole or chunk by chunk as a streamed request
 * copies it (each chunk cut among the threads); and the page faults
 * alone (MADV_POPULATE_WRITE).  Medians of RUNS.
 *
 *   cc -O2 -mavx2 -pthread bench/host_copy_bench.c -o host_copy_bench
 *   ./host_copy_bench [MB=480] [CHUNK_MB=16] [RUNS=5]
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MAXT 32

typedef enum Kind
{
	MEMCPY,
	STREAM,
	POPULATE
} Kind;

typedef struct Part
{
	Kind		kind;
	char	   *dst;
	const char *src;
	size_t		bytes;
	pthread_barrier_t *go;
	pthread_barrier_t *done;
	int			rounds;
	size_t		round_stride;
	size_t		round_bytes;
	int			index;
	int			nthreads;
} Part;

/* stream_copy -- 32-byte non-temporal stores (dst 32-byte aligned) */
static void
stream_copy(char *dst, const char *src, size_t bytes)
{
	size_t		i = 0;

	for (; i + 128 <= bytes; i += 128)
	{
		__m256i		a = _mm256_loadu_si256((const __m256i *) (src + i));
		__m256i		b = _mm256_loadu_si256((const __m256i *) (src + i + 32));
		__m256i		c = _mm256_loadu_si256((const __m256i *) (src + i + 64));
		__m256i		d = _mm256_loadu_si256((const __m256i *) (src + i + 96));

		_mm256_stream_si256((__m256i *) (dst + i), a);
		_mm256_stream_si256((__m256i *) (dst + i + 32), b);
		_mm256_stream_si256((__m256i *) (dst + i + 64), c);
		_mm256_stream_si256((__m256i *) (dst + i + 96), d);
	}
	memcpy(dst + i, src + i, bytes - i);
	_mm_sfence();
}

static void
do_piece(Kind kind, char *dst, const char *src, size_t bytes)
{
	if (kind == MEMCPY)
		memcpy(dst, src, bytes);
	else if (kind == STREAM)
		stream_copy(dst, src, bytes);
	else
		madvise(dst, bytes, MADV_POPULATE_WRITE);
}

/* worker -- in each round (a chunk), this thread's piece of it */
static void *
worker(void *arg)
{
	Part	   *p = arg;

	for (int r = 0; r < p->rounds; r++)
	{
		size_t		off = (size_t) r * p->round_stride;
		size_t		len = p->round_bytes;
		size_t		piece;
		size_t		begin;

		if (off + len > p->bytes)
			len = p->bytes > off ? p->bytes - off : 0;
		piece = ((len + p->nthreads - 1) / p->nthreads + 4095) & ~(size_t) 4095;
		begin = (size_t) p->index * piece;
		pthread_barrier_wait(p->go);
		if (begin < len)
			do_piece(p->kind, p->dst + off + begin, p->src ? p->src + off + begin : NULL,
					 len - begin < piece ? len - begin : piece);
		pthread_barrier_wait(p->done);
	}
	return NULL;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *
fresh(size_t bytes)
{
	char	   *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
	{
		perror("mmap");
		exit(1);
	}
	madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

/* one_run -- ms for `kind` over bytes by nthreads, in chunks of chunk bytes (0: whole) */
static double
one_run(Kind kind, char *dst, const char *src, size_t bytes, size_t chunk, int nthreads)
{
	pthread_t	th[MAXT];
	Part		parts[MAXT];
	pthread_barrier_t go,
				done;
	int			rounds = chunk ? (int) ((bytes + chunk - 1) / chunk) : 1;
	double		t0,
				t1;

	pthread_barrier_init(&go, NULL, nthreads + 1);
	pthread_barrier_init(&done, NULL, nthreads + 1);
	for (int i = 0; i < nthreads; i++)
	{
		parts[i] = (Part) {
			kind, dst, src, bytes, &go, &done, rounds, chunk ? chunk : bytes,
			chunk ? chunk : bytes, i, nthreads
		};
		pthread_create(&th[i], NULL, worker, &parts[i]);
	}
	t0 = now_ms();
	for (int r = 0; r < rounds; r++)
	{
		pthread_barrier_wait(&go);
		pthread_barrier_wait(&done);
	}
	t1 = now_ms();
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	pthread_barrier_destroy(&done);
	return t1 - t0;
}

static int
cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	size_t		mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 480;
	size_t		chunk_mb = argc > 2 ? strtoul(argv[2], NULL, 10) : 16;
	int			runs = argc > 3 ? atoi(argv[3]) : 5;
	size_t		bytes = mb << 20;
	int			threads[] = {1, 4, 8, 12, 16};
	const char *kinds[] = {"memcpy", "stream", "populate"};
	char	   *src = fresh(bytes);
	char	   *warm = fresh(bytes);

	memset(src, 1, bytes);
	memset(warm, 2, bytes);
	printf("# %zu MB, chunks of %zu MB, median of %d; GB/s of the array\n", mb, chunk_mb, runs);
	printf("| what | dst | chunked | threads | ms | GB/s |\n| --- | --- | --- | ---: | ---: | ---: |\n");
	for (int k = 0; k < 3; k++)
		for (int w = 0; w < 2; w++)
			for (int c = 0; c < 2; c++)
				for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
				{
					double		ms[64];

					if (k == POPULATE && w == 0)
						continue;	/* populating warm memory does nothing */
					for (int r = 0; r < runs; r++)
					{
						char	   *dst = w ? fresh(bytes) : warm;

						ms[r] = one_run((Kind) k, dst, k == POPULATE ? NULL : src, bytes,
										c ? chunk_mb << 20 : 0, threads[t]);
						if (w)
							munmap(dst, bytes);
					}
					qsort(ms, runs, sizeof(double), cmp);
					printf("| %s | %s | %s | %d | %.2f | %.1f |\n", kinds[k], w ? "fresh" : "warm",
						   c ? "yes" : "no", threads[t], ms[runs / 2],
						   bytes / ms[runs / 2] / 1e6);
				}
	return 0;
}
