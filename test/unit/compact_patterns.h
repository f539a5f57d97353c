/*-------------------------------------------------------------------------
 *
 * compact_patterns.h
 *	  Flag patterns of the compaction tests: the course's keep-few (1 in
 *	  17) and keep-many (30 in 31), random halves, runs, all, none, and
 *	  flag bytes other than 0 and 1 (any non-zero byte keeps).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_COMPACT_PATTERNS_H
#define GPUSCAN_COMPACT_PATTERNS_H

#include <stddef.h>
#include <stdint.h>

#include "unit.h"

#define COMPACT_NPATTERNS 8

/* compact_pattern_name -- what pattern p is */
static inline const char *
compact_pattern_name(int p)
{
	static const char *const names[COMPACT_NPATTERNS] = {
		"random half", "one in 17", "thirty in 31", "all", "none",
		"runs", "single last", "bytes 0..255"
	};

	return names[p];
}

/* compact_pattern_fill -- keep[0 .. n) in pattern p */
static inline void
compact_pattern_fill(int p, uint8_t *keep, size_t n)
{
	size_t		run = 1 + unit_rand_below(3000);
	int			on = (int) unit_rand_below(2);

	for (size_t i = 0; i < n; i++)
	{
		switch (p)
		{
			case 0:
				keep[i] = (uint8_t) unit_rand_below(2);
				break;
			case 1:
				keep[i] = (i + 1) % 17 == 0;
				break;
			case 2:
				keep[i] = (i + 1) % 31 != 0;
				break;
			case 3:
				keep[i] = 1;
				break;
			case 4:
				keep[i] = 0;
				break;
			case 5:
				if (--run == 0)
				{
					on = !on;
					run = 1 + unit_rand_below(3000);
				}
				keep[i] = (uint8_t) on;
				break;
			case 6:
				keep[i] = i == n - 1;
				break;
			default:
				keep[i] = (uint8_t) unit_rand_below(256);
				break;
		}
	}
}

#endif							/* GPUSCAN_COMPACT_PATTERNS_H */
