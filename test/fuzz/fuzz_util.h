/*-------------------------------------------------------------------------
 *
 * fuzz_util.h
 *	  Small helpers shared by the libFuzzer harnesses of test/fuzz: reading
 *	  fields from the input, a deterministic random generator, bit casts,
 *	  and the failure report.
 *
 * A harness that finds a wrong result calls fuzz_fail(), which prints
 * what differed and aborts: libFuzzer then saves the input as a crash
 * artifact, exactly as for a sanitizer report.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSCAN_FUZZ_UTIL_H
#define GPUSCAN_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry points every harness defines */
int			LLVMFuzzerInitialize(int *argc, char ***argv);
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_reader -- the input, consumed from the front */
typedef struct fuzz_reader
{
	const uint8_t *p;
	size_t		left;
} fuzz_reader;

void		fuzz_reader_init(fuzz_reader *r, const uint8_t *data, size_t size);

/* The next field, little-endian; 0 (or the bytes there are) past the end */
uint8_t		fuzz_u8(fuzz_reader *r);
uint16_t	fuzz_u16(fuzz_reader *r);
uint32_t	fuzz_u32(fuzz_reader *r);
uint64_t	fuzz_u64(fuzz_reader *r);

/* splitmix64: deterministic, seeded from the input */
typedef struct fuzz_rng
{
	uint64_t	state;
} fuzz_rng;

void		fuzz_rng_seed(fuzz_rng *g, uint64_t seed);
uint64_t	fuzz_rng_next(fuzz_rng *g);
uint64_t	fuzz_rng_below(fuzz_rng *g, uint64_t n);	/* [0, n), 0 if n == 0 */

/* FNV-1a of the input: a seed for what the input does not spell out */
uint64_t	fuzz_hash(const uint8_t *data, size_t size);

/* IEEE bit casts */
uint64_t	fuzz_double_bits(double x);
double		fuzz_bits_double(uint64_t u);
uint32_t	fuzz_float_bits(float x);
float		fuzz_bits_float(uint32_t u);

/* malloc that never returns NULL (an exactly sized block, for ASan) */
void	   *fuzz_alloc(size_t bytes);

/* Report a wrong result and abort (libFuzzer saves the input) */
void		fuzz_fail(const char *fmt,...) __attribute__((format(printf, 1, 2), noreturn));

#endif							/* GPUSCAN_FUZZ_UTIL_H */
