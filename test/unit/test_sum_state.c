/*-------------------------------------------------------------------------
 *
 * test_sum_state.c
 *	  The shipped form of gpu_sum states (src/cpu/sum_state.c): every
 *	  accumulator survives encoding and decoding with its value, the
 *	  encoding is canonical and small, and every byte string that is not a
 *	  canonical state is refused.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "cpu/cpu_sum.h"
#include "cpu/sum_state.h"

/* same_double -- the same bits (NaN equals NaN) */
static int
same_double(double a, double b)
{
	return (a != a && b != b) || unit_double_bits(a) == unit_double_bits(b);
}

/*
 * check_round_trip -- acc encoded, decoded and encoded again: the same
 * bytes, the same rounded sum, the size gs_sum_state_size promised
 */
static void
check_round_trip(const char *what, const gs_exact_acc *acc)
{
	uint8_t		bytes[GS_SUM_STATE_MAX_BYTES],
				again[GS_SUM_STATE_MAX_BYTES];
	size_t		size = gs_sum_state_encode(acc, bytes),
				size2;
	gs_exact_acc back;
	gs_sum_state_problem p;

	UNIT_CHECK(size == gs_sum_state_size(acc) && size <= GS_SUM_STATE_MAX_BYTES,
			   "%s: encoded %zu bytes, size says %zu", what, size, gs_sum_state_size(acc));
	p = gs_sum_state_decode(bytes, size, &back);
	UNIT_CHECK(p == GS_SUM_STATE_OK, "%s: own encoding refused (%d)", what, (int) p);
	if (p != GS_SUM_STATE_OK)
		return;
	UNIT_CHECK(same_double(gs_acc_round(acc), gs_acc_round(&back)),
			   "%s: rounds to %a after the round trip, %a before",
			   what, gs_acc_round(&back), gs_acc_round(acc));
	size2 = gs_sum_state_encode(&back, again);
	UNIT_CHECK(size2 == size && memcmp(bytes, again, size) == 0,
			   "%s: a second encoding differs", what);
	/* any byte missing or added is refused */
	UNIT_CHECK(gs_sum_state_decode(bytes, size - 1, &back) != GS_SUM_STATE_OK,
			   "%s: accepted with its last byte missing", what);
	bytes[size] = 0;
	UNIT_CHECK(gs_sum_state_decode(bytes, size + 1, &back) != GS_SUM_STATE_OK || size + 1 > sizeof(bytes),
			   "%s: accepted with a byte added", what);
}

/* random_value -- a double over the whole range, sometimes special */
static double
random_value(void)
{
	switch (unit_rand_below(16))
	{
		case 0:
			return unit_bits_double(unit_rand64());	/* any bits: NaN, Inf, subnormal */
		case 1:
			return unit_rand_sign() * 1.7976931348623157e308;
		case 2:
			return -0.0;
		default:
			return unit_rand_with_exponent((int) unit_rand_below(2098) - 1074);
	}
}

/* suite_sum_state -- see the file header */
void
suite_sum_state(void)
{
	gs_exact_acc acc;
	int			trial;

	unit_seed(20261125);

	unit_case("sum_state: empty, -0 only, specials");
	gs_acc_zero(&acc);
	check_round_trip("empty", &acc);
	gs_acc_add(&acc, -0.0);
	check_round_trip("-0", &acc);
	UNIT_CHECK(gs_sum_state_size(&acc) == GS_SUM_STATE_HEADER, "-0 takes digits");
	gs_acc_add(&acc, 1.0 / 0.0);
	gs_acc_add(&acc, -1.0 / 0.0);
	check_round_trip("+Inf and -Inf", &acc);

	unit_case("sum_state: random sums round trip, canonically");
	for (trial = 0; trial < 3000; trial++)
	{
		int			n = (int) unit_rand_below(40),
					i;

		gs_acc_zero(&acc);
		for (i = 0; i < n; i++)
			gs_acc_add(&acc, random_value());
		check_round_trip("random sum", &acc);
	}

	unit_case("sum_state: a sum of a million values in [0, 1) ships in a few digits");
	{
		double	   *x = malloc(sizeof(double) * 1000000);
		int			i;

		for (i = 0; i < 1000000; i++)
			x[i] = unit_rand_uniform();
		gs_acc_zero(&acc);
		cpu_sum_exact_f64(x, 1000000, &acc);
		check_round_trip("uniform", &acc);
		UNIT_CHECK(gs_sum_state_size(&acc) <= GS_SUM_STATE_HEADER + 4 * 8,
				   "a sum of values in [0, 1) takes %zu bytes", gs_sum_state_size(&acc));
		free(x);
	}

	unit_case("sum_state: beyond 2^1070 the magnitude saturates, still infinite");
	gs_acc_zero(&acc);
	acc.limb[GS_ACC_LIMBS - 1] = INT64_C(1) << 40;
	{
		uint8_t		bytes[GS_SUM_STATE_MAX_BYTES];
		size_t		size = gs_sum_state_encode(&acc, bytes);
		gs_exact_acc back;

		UNIT_CHECK(gs_sum_state_decode(bytes, size, &back) == GS_SUM_STATE_OK &&
				   gs_acc_round(&back) == 1.0 / 0.0, "saturated state is not +Inf");
		acc.limb[GS_ACC_LIMBS - 1] = -(INT64_C(1) << 40);
		size = gs_sum_state_encode(&acc, bytes);
		UNIT_CHECK(gs_sum_state_decode(bytes, size, &back) == GS_SUM_STATE_OK &&
				   gs_acc_round(&back) == -1.0 / 0.0, "saturated state is not -Inf");
	}

	unit_case("sum_state: bad states are refused, each for its reason");
	{
		/* 1.0: magic, flags 0x10, digit 33, one digit, 2^18 */
		static const uint8_t one[12] = {0x47, 0x53, 0x53, 0x32, 0x10, 33, 1, 0, 0, 0, 4, 0};

		/* one byte of the state of 1.0 changed, the size given, the reason */
		static const struct
		{
			const char *what;
			int			offset;
			uint8_t		value;
			size_t		size;
			gs_sum_state_problem want;
		}			bad[] = {
			{"7 bytes", 0, 0x47, 7, GS_SUM_STATE_SHORT},
			{"0 bytes", 0, 0x47, 0, GS_SUM_STATE_SHORT},
			{"magic", 3, 0x31, 12, GS_SUM_STATE_BAD_MAGIC},
			{"unknown flag", 4, 0x40, 12, GS_SUM_STATE_BAD_FLAGS},
			{"reserved byte", 7, 1, 12, GS_SUM_STATE_BAD_FLAGS},
			{"lowest digit 67", 5, 67, 12, GS_SUM_STATE_BAD_DIGITS},
			{"two digits in 12 bytes", 6, 2, 12, GS_SUM_STATE_SIZE},
			{"zero digit", 10, 0, 12, GS_SUM_STATE_BAD_DIGITS},
			{"no digits, negative", 4, 0x30, 8, GS_SUM_STATE_SIZE},
		};
		uint8_t		b[12];
		gs_exact_acc out;
		size_t		i;

		UNIT_CHECK(gs_sum_state_decode(one, 12, &out) == GS_SUM_STATE_OK &&
				   gs_acc_round(&out) == 1.0, "the state of 1.0 is refused");
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		{
			gs_sum_state_problem got;

			memcpy(b, one, sizeof(b));
			b[bad[i].offset] = bad[i].value;
			got = gs_sum_state_decode(b, bad[i].size, &out);
			UNIT_CHECK(got == bad[i].want, "%s: problem %d, expected %d",
					   bad[i].what, (int) got, (int) bad[i].want);
		}
		/* zero digits, a sign: the header of 1.0 with no digits and 0x30 */
		memcpy(b, one, sizeof(b));
		b[4] = 0x30;
		b[5] = 0;
		b[6] = 0;
		UNIT_CHECK(gs_sum_state_decode(b, 8, &out) == GS_SUM_STATE_BAD_DIGITS, "negative zero");
		UNIT_CHECK(strlen(gs_sum_state_problem_text(GS_SUM_STATE_BAD_DIGITS)) > 0, "no text");
	}

	unit_case("sum_state: gs_acc_bound keeps the rounded sum and the headroom");
	for (trial = 0; trial < 200; trial++)
	{
		gs_exact_acc a,
					b;
		double		before;
		int			i;

		gs_acc_zero(&a);
		for (i = 0; i < 5; i++)
			gs_acc_add(&a, random_value());
		a.limb[GS_ACC_LIMBS - 1] += (int64_t) (unit_rand64() >> 2) * (unit_rand_below(2) ? 1 : -1);
		before = gs_acc_round(&a);
		b = a;
		gs_acc_bound(&b);
		UNIT_CHECK(same_double(before, gs_acc_round(&b)), "bound changed %a into %a",
				   before, gs_acc_round(&b));
		UNIT_CHECK(b.limb[GS_ACC_LIMBS - 1] <= (INT64_C(1) << 40) &&
				   b.limb[GS_ACC_LIMBS - 1] >= -(INT64_C(1) << 40), "top limb out of bounds");
	}
}
