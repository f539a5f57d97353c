/*
 * bench/rmat_edges.c -- the edges of an R-MAT graph as COPY text, for
 * bench/graph_bench.sh:
 *
 *   rmat_edges SCALE EDGES SEED [ids|indexes [PART PARTS]]
 *
 * 2^SCALE nodes, EDGES edges, each drawn by the recursive R-MAT rule with
 * Graph500's probabilities (a = 0.57, b = c = 0.19, d = 0.05) from a
 * seeded xorshift generator, so a run is the same graph every time.  One
 * line "source<TAB>target" per edge.  With "ids" (the default) each node is
 * written as a sparse bigint id (a bijective scramble of its index over
 * 64 bits: distinct, spread over the whole range, negative ones too); with
 * "indexes" as its index 0 .. 2^SCALE - 1, and a third column, a value
 * (the edge's number modulo 1000, minus 500, over 8), for triples.
 *
 * With PART and PARTS, only the edges PART * EDGES / PARTS up to
 * (PART + 1) * EDGES / PARTS, each part from a generator of its own (seeded
 * from SEED and PART), so that the parts can be loaded at once by several
 * COPYs: the same PARTS give the same graph.  Part 0 of 1 is the whole
 * graph of the form without parts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* next -- xorshift64* */
static uint64_t
next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* scramble -- a bijection of 64-bit values (invertible multiply and shifts) */
static int64_t
scramble(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9E3779B97F4A7C15ULL;
	x ^= x >> 29;
	return (int64_t) x;
}

int
main(int argc, char **argv)
{
	int			scale;
	long long	edges,
				first,
				last,
				e;
	long long	part = 0,
				parts = 1;
	uint64_t	state;
	int			ids;

	if (argc != 4 && argc != 5 && argc != 7)
	{
		fprintf(stderr, "usage: rmat_edges SCALE EDGES SEED [ids|indexes [PART PARTS]]\n");
		return 2;
	}
	if (argc == 7)
	{
		part = atoll(argv[5]);
		parts = atoll(argv[6]);
	}
	scale = atoi(argv[1]);
	edges = atoll(argv[2]);
	state = (strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1) ^
		((uint64_t) part * 0xD1B54A32D192ED03ULL);
	ids = argc < 5 || strcmp(argv[4], "indexes") != 0;
	if (scale < 1 || scale > 31 || edges < 0 || parts < 1 || part < 0 || part >= parts)
	{
		fprintf(stderr, "rmat_edges: SCALE in 1..31, EDGES >= 0, PART in 0..PARTS-1\n");
		return 2;
	}
	first = (long long) ((__int128) edges * part / parts);
	last = (long long) ((__int128) edges * (part + 1) / parts);
	for (e = first; e < last; e++)
	{
		uint64_t	src = 0,
					dst = 0;
		int			level;

		for (level = 0; level < scale; level++)
		{
			/* a quadrant: (0,0) 57%, (0,1) 19%, (1,0) 19%, (1,1) 5% */
			double		p = (next(&state) >> 11) * (1.0 / 9007199254740992.0);
			int			down = p >= 0.57 + 0.19;
			int			right = (p >= 0.57 && p < 0.76) || p >= 0.95;

			src = (src << 1) | (uint64_t) down;
			dst = (dst << 1) | (uint64_t) right;
		}
		if (ids)
			printf("%lld\t%lld\n", (long long) scramble(src), (long long) scramble(dst));
		else
			printf("%llu\t%llu\t%g\n", (unsigned long long) src, (unsigned long long) dst,
				   (double) (e % 1000 - 500) / 8.0);
	}
	return 0;
}
