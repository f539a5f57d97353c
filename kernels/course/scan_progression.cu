/*-------------------------------------------------------------------------
 *
 * scan_progression.cu
 *	  The parallel-scan progression of the course (Kirk & Hwu ch. 8, GPU
 *	  Gems 3 ch. 39, Merrill & Garland's decoupled look-back), one version
 *	  per step, for float and double, each a complete inclusive scan of n
 *	  device values into n device values.  A comment over every version
 *	  says what it changes against the one before and why.
 *
 * Versions 1-4 are block-level algorithms, each scanning one section of
 * the input in shared memory.  They make a complete scan of any length in
 * three launches (section scans that keep each section's total, one block
 * that walks the totals with a running carry, a launch that adds each
 * section's carry-in).  Version 5 scans the totals recursively with the
 * whole grid; versions 6 and 7 take a single launch in which blocks pass
 * prefixes to each other through flags in global memory.
 *
 * These scans round in the input's precision at every addition: they are
 * for teaching and benchmarking.  The SQL functions use the correctly
 * rounded prefix sum of scan_exact.cu.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <limits.h>

#include <cuda_runtime.h>
#include <cuda/atomic>

#include "device_internal.cuh"
#include "gpuscan_course.h"

#define SP_VERSIONS		7
#define SP_HEADER		256		/* scratch bytes ahead of the arrays: block counter */
#define SP_ALIGN		256		/* each scratch array starts at this alignment */
#define SP_FULL_MASK	0xffffffffu

/* versions 1 (one element per thread) and 2-3 (two per thread) */
#define SP_NET_THREADS	1024
#define SP_NET_LOG2_THREADS 10
/* versions 4-6: three-phase block scan, SP_TP_ITEMS consecutive elements per thread */
#define SP_TP_THREADS	512
#define SP_TP_LOG2_THREADS 9
#define SP_TP_ITEMS		8
/* version 7: SP_LB_VECS 16-byte vectors per thread (16 floats or 8 doubles) */
#define SP_LB_THREADS	256
#define SP_LB_LOG2_WARPS 3
#define SP_LB_VECS		4
/* the carry-in launch of versions 1-5 */
#define SP_ADD_THREADS	256

/* tile status of versions 6 and 7 (flags are zeroed before each launch) */
#define SP_INVALID		0u		/* nothing published yet */
#define SP_AGGREGATE	1u		/* the tile's own total is published (version 7) */
#define SP_INCLUSIVE	2u		/* the prefix through this tile is published */

static_assert((1 << SP_NET_LOG2_THREADS) == SP_NET_THREADS, "SP_NET_LOG2_THREADS");
static_assert((1 << SP_TP_LOG2_THREADS) == SP_TP_THREADS, "SP_TP_LOG2_THREADS");
static_assert((32 << SP_LB_LOG2_WARPS) == SP_LB_THREADS, "SP_LB_LOG2_WARPS");

static const char *const sp_names[SP_VERSIONS] = {
	"scan_kogge_stone",
	"scan_brent_kung",
	"scan_blelloch_padded",
	"scan_three_phase",
	"scan_hierarchical",
	"scan_stream_chained",
	"scan_decoupled_lookback",
};

/* ---- what differs between float and double ---- */

template <typename T> struct sp_type;

/*
 * pad_shift: shared memory has 32 banks of 4 bytes, so a row of banks is
 * 128 bytes: 32 floats or 16 doubles.  One padding element per row
 * (CONFLICT_FREE_OFFSET) moves accesses that are a multiple of a row apart
 * onto different banks.  For doubles a warp's 8-byte accesses are served
 * a half-warp at a time, so one element per 16 is the same padding.
 */
template <> struct sp_type<float>
{
	typedef float4 vec;
	static const unsigned int width = 4;
	static const unsigned int pad_shift = 5;
};

template <> struct sp_type<double>
{
	typedef double2 vec;
	static const unsigned int width = 2;
	static const unsigned int pad_shift = 4;
};

/* 32-bit unsigned integers: exact sums modulo 2^32 (stream compaction's counts) */
template <> struct sp_type<unsigned int>
{
	typedef uint4 vec;
	static const unsigned int width = 4;
	static const unsigned int pad_shift = 5;
};

/* GPU Gems 3's CONFLICT_FREE_OFFSET, for elements of T */
#define SP_CONFLICT_FREE_OFFSET(T, i) ((i) >> sp_type<T>::pad_shift)
/* index i in a padded shared array, and the size of a padded array of n */
#define SP_PAD(T, i)	((i) + SP_CONFLICT_FREE_OFFSET(T, (i)))
#define SP_PADDED(T, n) ((n) + SP_CONFLICT_FREE_OFFSET(T, (n)))

__device__ __forceinline__ void
sp_split(float4 v, float *e)
{
	e[0] = v.x;
	e[1] = v.y;
	e[2] = v.z;
	e[3] = v.w;
}

__device__ __forceinline__ void
sp_split(double2 v, double *e)
{
	e[0] = v.x;
	e[1] = v.y;
}

__device__ __forceinline__ void
sp_split(uint4 v, unsigned int *e)
{
	e[0] = v.x;
	e[1] = v.y;
	e[2] = v.z;
	e[3] = v.w;
}

__device__ __forceinline__ float4
sp_join(const float *e)
{
	return make_float4(e[0], e[1], e[2], e[3]);
}

__device__ __forceinline__ double2
sp_join(const double *e)
{
	return make_double2(e[0], e[1]);
}

__device__ __forceinline__ uint4
sp_join(const unsigned int *e)
{
	return make_uint4(e[0], e[1], e[2], e[3]);
}

/* ---- block scans of versions 1-4 ----
 *
 * Each is a struct with the block size, the section it scans, its shared
 * storage, and
 *	  T scan(storage &s, const T *src, unsigned count, T *dst, T carry)
 * which every thread of the block calls: it scans src[0 .. count)
 * (count <= SECTION; elements past count count as zero), writes
 * dst[j] = carry + (src[0] + ... + src[j]) for j < count, and returns
 * dst[count - 1] to every thread.  src and dst may be the same memory
 * (all of src is read before anything is written).  The three-phase scan
 * also offers the two halves separately (scan_local, store) for the
 * single-pass version 6.
 */

/*
 * 1. scan_kogge_stone -- the starting point (PMPP 8.2, Hillis-Steele).
 * One element per thread; at stride s = 1, 2, 4, ... every thread i >= s
 * adds the element s to its left, so after log2(SECTION) steps element i
 * holds the sum of elements 0..i.  Few steps, but N log N additions
 * against the sequential N.  The course's in-place XY[i] += XY[i - s] is
 * a race: thread i - s may overwrite XY[i - s] in the same step before
 * thread i has read it, and no barrier lies between a step's reads and
 * its writes.  Two buffers fix that: each step reads one and writes the
 * other, so one barrier per step suffices.
 */
template <typename T>
struct sp_kogge_stone
{
	static const unsigned int THREADS = SP_NET_THREADS;
	static const unsigned int SECTION = SP_NET_THREADS;

	struct storage
	{
		T			buf[2][SECTION];
	};

	static __device__ __forceinline__ T
	scan(storage &s, const T *src, unsigned int count, T *dst, T carry)
	{
		const unsigned int tid = threadIdx.x;
		int			r = 0;
		T			total;

		s.buf[0][tid] = tid < count ? src[tid] : T(0);
		for (unsigned int stride = 1; stride < SECTION; stride *= 2)
		{
			T			v;

			__syncthreads();
			v = s.buf[r][tid];
			if (tid >= stride)
				v = s.buf[r][tid - stride] + v;
			s.buf[r ^ 1][tid] = v;
			r ^= 1;
		}
		__syncthreads();
		if (tid < count)
			dst[tid] = carry + s.buf[r][tid];
		total = carry + s.buf[r][count - 1];
		__syncthreads();		/* every thread has read buf before it is reused */
		return total;
	}
};

/*
 * 2. scan_brent_kung -- work-efficient (PMPP 8.4).  Two elements per
 * thread, so a section is twice the block.  An up-sweep builds a
 * reduction tree in place (at stride s, element (k+1)*2s - 1 adds the one
 * s before it), then a reverse tree distributes the partial sums down
 * (element (k+1)*2s - 1 + s adds element (k+1)*2s - 1).  About 2N
 * additions instead of N log N, and no second buffer: within a step no
 * element is both read and written.  The index (tid + 1)*2*stride - 1
 * keeps the working threads packed into the first warps.  The costs:
 * twice the steps, and the lanes of a warp touch words 2 * stride apart,
 * so their shared-memory accesses collide in the banks: 2-way at stride
 * 1, doubling at every level up to 32-way.
 */
template <typename T>
struct sp_brent_kung
{
	static const unsigned int THREADS = SP_NET_THREADS;
	static const unsigned int SECTION = 2 * SP_NET_THREADS;

	struct storage
	{
		T			xy[SECTION];
	};

	static __device__ __forceinline__ T
	scan(storage &s, const T *src, unsigned int count, T *dst, T carry)
	{
		const unsigned int tid = threadIdx.x;
		T			total;

		s.xy[tid] = tid < count ? src[tid] : T(0);
		s.xy[tid + THREADS] = tid + THREADS < count ? src[tid + THREADS] : T(0);
		for (unsigned int stride = 1; stride <= THREADS; stride *= 2)
		{
			unsigned int index = (tid + 1) * 2 * stride - 1;

			__syncthreads();
			if (index < SECTION)
				s.xy[index] += s.xy[index - stride];
		}
		for (unsigned int stride = SECTION / 4; stride > 0; stride /= 2)
		{
			unsigned int index = (tid + 1) * 2 * stride - 1;

			__syncthreads();
			if (index + stride < SECTION)
				s.xy[index + stride] += s.xy[index];
		}
		__syncthreads();
		if (tid < count)
			dst[tid] = carry + s.xy[tid];
		if (tid + THREADS < count)
			dst[tid + THREADS] = carry + s.xy[tid + THREADS];
		total = carry + s.xy[count - 1];
		__syncthreads();
		return total;
	}
};

/*
 * 3. scan_blelloch_padded -- Blelloch's up-sweep/down-sweep (GPU Gems 3
 * ch. 39) with its bank-conflict padding.  Same tree as version 2, but:
 *  - every shared index i is stored at i + CONFLICT_FREE_OFFSET(i), one
 *    padding element per 128-byte row of banks, so that the tree's
 *    power-of-two strides no longer pile a warp's lanes onto a few banks
 *    (up to 32-way conflicts in version 2);
 *  - the down-sweep is Blelloch's: clear the root, then at each level the
 *    left child takes the parent's value and the right child the parent
 *    plus the old left child.  That gives the EXCLUSIVE scan; the
 *    inclusive one is that shifted left by one place, with the section
 *    total (saved before the root was cleared) last: no extra addition,
 *    so no extra rounding.
 */
template <typename T>
struct sp_blelloch_padded
{
	static const unsigned int THREADS = SP_NET_THREADS;
	static const unsigned int SECTION = 2 * SP_NET_THREADS;

	struct storage
	{
		T			temp[SP_PADDED(T, SECTION)];
		T			total;
	};

	static __device__ __forceinline__ T
	scan(storage &s, const T *src, unsigned int count, T *dst, T carry)
	{
		const unsigned int tid = threadIdx.x;
		const unsigned int ai = tid;
		const unsigned int bi = tid + SECTION / 2;
		unsigned int offset = 1;
		T			incl_a,
					incl_b,
					total;

		s.temp[SP_PAD(T, ai)] = ai < count ? src[ai] : T(0);
		s.temp[SP_PAD(T, bi)] = bi < count ? src[bi] : T(0);

		/* up-sweep: a reduction tree in place */
		for (unsigned int d = SECTION / 2; d > 0; d /= 2)
		{
			__syncthreads();
			if (tid < d)
			{
				unsigned int a = offset * (2 * tid + 1) - 1;
				unsigned int b = offset * (2 * tid + 2) - 1;

				s.temp[SP_PAD(T, b)] += s.temp[SP_PAD(T, a)];
			}
			offset *= 2;
		}
		__syncthreads();
		if (tid == 0)
		{
			s.total = s.temp[SP_PAD(T, SECTION - 1)];
			s.temp[SP_PAD(T, SECTION - 1)] = T(0);
		}

		/* down-sweep: exclusive prefixes */
		for (unsigned int d = 1; d < SECTION; d *= 2)
		{
			offset /= 2;
			__syncthreads();
			if (tid < d)
			{
				unsigned int a = offset * (2 * tid + 1) - 1;
				unsigned int b = offset * (2 * tid + 2) - 1;
				T			t = s.temp[SP_PAD(T, a)];

				s.temp[SP_PAD(T, a)] = s.temp[SP_PAD(T, b)];
				s.temp[SP_PAD(T, b)] += t;
			}
		}
		__syncthreads();

		/* inclusive[i] = exclusive[i + 1]; the last one is the total */
		incl_a = s.temp[SP_PAD(T, ai + 1)];
		incl_b = bi + 1 < SECTION ? s.temp[SP_PAD(T, bi + 1)] : s.total;
		if (ai < count)
			dst[ai] = carry + incl_a;
		if (bi < count)
			dst[bi] = carry + incl_b;
		total = carry + (count < SECTION ? s.temp[SP_PAD(T, count)] : s.total);
		__syncthreads();
		return total;
	}
};

/*
 * 4. scan_three_phase -- PMPP 8.5.  The tree versions spend a barrier on
 * every level for 2048 elements and use each thread for one or two
 * elements.  Here a section is SP_TP_ITEMS elements per thread (4096):
 *  - corner turning: the block loads the section coalesced (thread t
 *    reads elements t, t + 512, ...) into shared memory, then each thread
 *    reads its own SP_TP_ITEMS consecutive elements from there (padded as
 *    in version 3, so these stride-8 reads are conflict-free);
 *  - phase 1: each thread scans its subsection sequentially in registers:
 *    work-efficient and no barrier at all;
 *  - phase 2: a Kogge-Stone scan (double-buffered) over only the 512
 *    subsection totals;
 *  - phase 3: each thread adds the total of the subsections before its
 *    own, and the section goes back out through shared memory, coalesced.
 * Twice the section of versions 2-3, so half the section totals.
 */
template <typename T>
struct sp_three_phase
{
	static const unsigned int THREADS = SP_TP_THREADS;
	static const unsigned int ITEMS = SP_TP_ITEMS;
	static const unsigned int SECTION = SP_TP_THREADS * SP_TP_ITEMS;

	struct storage
	{
		T			xy[SP_PADDED(T, SECTION)];
		T			part[2][THREADS];
	};

	/* scan_local -- phases 1-3 into s.xy; returns the section total */
	static __device__ __forceinline__ T
	scan_local(storage &s, const T *src, unsigned int count)
	{
		const unsigned int tid = threadIdx.x;
		T			x[ITEMS];
		T			prefix;
		int			r = 0;

#pragma unroll
		for (unsigned int k = 0; k < ITEMS; k++)
		{
			unsigned int j = k * THREADS + tid;

			s.xy[SP_PAD(T, j)] = j < count ? src[j] : T(0);
		}
		__syncthreads();

		/* phase 1: sequential scan of this thread's subsection */
#pragma unroll
		for (unsigned int k = 0; k < ITEMS; k++)
			x[k] = s.xy[SP_PAD(T, tid * ITEMS + k)];
#pragma unroll
		for (unsigned int k = 1; k < ITEMS; k++)
			x[k] = x[k - 1] + x[k];
		s.part[0][tid] = x[ITEMS - 1];

		/* phase 2: Kogge-Stone over the subsection totals */
		for (unsigned int stride = 1; stride < THREADS; stride *= 2)
		{
			T			v;

			__syncthreads();
			v = s.part[r][tid];
			if (tid >= stride)
				v = s.part[r][tid - stride] + v;
			s.part[r ^ 1][tid] = v;
			r ^= 1;
		}
		__syncthreads();

		/* phase 3: add the subsections before this one */
		if (tid > 0)
		{
			prefix = s.part[r][tid - 1];
#pragma unroll
			for (unsigned int k = 0; k < ITEMS; k++)
				x[k] = prefix + x[k];
		}
#pragma unroll
		for (unsigned int k = 0; k < ITEMS; k++)
			s.xy[SP_PAD(T, tid * ITEMS + k)] = x[k];
		__syncthreads();
		return s.xy[SP_PAD(T, count - 1)];
	}

	/* store -- dst[j] = carry + scanned[j] for j < count, coalesced */
	static __device__ __forceinline__ void
	store(storage &s, T *dst, unsigned int count, T carry)
	{
		const unsigned int tid = threadIdx.x;

#pragma unroll
		for (unsigned int k = 0; k < ITEMS; k++)
		{
			unsigned int j = k * THREADS + tid;

			if (j < count)
				dst[j] = carry + s.xy[SP_PAD(T, j)];
		}
	}

	static __device__ __forceinline__ T
	scan(storage &s, const T *src, unsigned int count, T *dst, T carry)
	{
		T			total = carry + scan_local(s, src, count);

		store(s, dst, count, carry);
		__syncthreads();
		return total;
	}
};

/*
 * sp_sections -- the multi-block form of versions 1-5 around a block scan
 * NET.  walk == 0: block b scans section b of in into out and, if sums is
 * not NULL, stores the section's total in sums[b].  walk != 0 (a grid of
 * one block): the block scans all n elements, section after section,
 * adding the total so far as the carry of the next section.
 */
template <typename NET, typename T>
__device__ __forceinline__ void
sp_sections(typename NET::storage &s, const T *in, size_t n, T *out, T *sums, int walk)
{
	if (!walk)
	{
		const size_t base = (size_t) blockIdx.x * NET::SECTION;
		const unsigned int count = (unsigned int) min((size_t) NET::SECTION, n - base);
		T			total = NET::scan(s, in + base, count, out + base, T(0));

		if (sums != NULL && threadIdx.x == 0)
			sums[blockIdx.x] = total;
		return;
	}

	{
		T			carry = T(0);

		for (size_t base = 0; base < n; base += NET::SECTION)
			carry = NET::scan(s, in + base, (unsigned int) min((size_t) NET::SECTION, n - base),
							  out + base, carry);
	}
}

/* ---- the kernels ---- */

/* versions 1-5: scan sections (or walk them with one block), see sp_sections */

template <typename T>
__global__ void __launch_bounds__(SP_NET_THREADS)
scan_kogge_stone(const T *in, size_t n, T *out, T *sums, int walk)
{
	__shared__ typename sp_kogge_stone<T>::storage s;

	sp_sections<sp_kogge_stone<T> >(s, in, n, out, sums, walk);
}

template <typename T>
__global__ void __launch_bounds__(SP_NET_THREADS)
scan_brent_kung(const T *in, size_t n, T *out, T *sums, int walk)
{
	__shared__ typename sp_brent_kung<T>::storage s;

	sp_sections<sp_brent_kung<T> >(s, in, n, out, sums, walk);
}

template <typename T>
__global__ void __launch_bounds__(SP_NET_THREADS)
scan_blelloch_padded(const T *in, size_t n, T *out, T *sums, int walk)
{
	__shared__ typename sp_blelloch_padded<T>::storage s;

	sp_sections<sp_blelloch_padded<T> >(s, in, n, out, sums, walk);
}

template <typename T>
__global__ void __launch_bounds__(SP_TP_THREADS)
scan_three_phase(const T *in, size_t n, T *out, T *sums, int walk)
{
	__shared__ typename sp_three_phase<T>::storage s;

	sp_sections<sp_three_phase<T> >(s, in, n, out, sums, walk);
}

/*
 * scan_add_carry_in -- the last launch of versions 1-5 (PMPP 8.6): block
 * b adds sums[b], the scanned total of sections 0..b, to every element of
 * section b + 1.
 */
template <typename T>
__global__ void __launch_bounds__(SP_ADD_THREADS)
scan_add_carry_in(T *out, size_t n, const T *sums, unsigned int section)
{
	const size_t base = ((size_t) blockIdx.x + 1) * section;
	const size_t end = min(base + section, n);
	const T		carry = sums[blockIdx.x];

	for (size_t i = base + threadIdx.x; i < end; i += SP_ADD_THREADS)
		out[i] = carry + out[i];
}

/*
 * 5. scan_hierarchical -- PMPP 8.6 in full (no kernel of its own: the
 * host driver sp_hierarchical).  Versions 1-4 scan the section totals
 * with ONE block walking them section by section: at 2^28 elements that
 * is 65536 totals (version 4) to 262144 (version 1) on one multiprocessor
 * while the others idle, and its carry chain grows the rounding error
 * with every section.  Here the totals are scanned by the same
 * multi-block method, recursively (in place), until they fit one section:
 * every level uses the whole GPU and the error grows with the number of
 * levels only.  The block scan is version 4's.
 */

/*
 * 6. scan_stream_chained -- single pass (PMPP 8.7, StreamScan).  Version
 * 5 moves every element through memory four times (scan: read + write;
 * add: read + write) in at least three launches.  Here one launch reads
 * each element once and writes it once: a block scans its section
 * locally, waits until the block before it has published the prefix
 * through its own section, publishes its own (that prefix plus its
 * total), and adds the prefix as it stores.
 *  - Dynamic block ids: blocks are not started in blockIdx order, and a
 *    block spinning for a predecessor that was never scheduled would
 *    deadlock once the GPU is full.  Each block takes its id from an
 *    atomic counter, so its predecessor has already started.
 *  - Ordering (the course's sketch has gaps): the writer stores the value,
 *    then __threadfence(), then the flag, so that no block can see the
 *    flag without the value.  The reader spins on a volatile load of the
 *    flag (not an atomicAdd(flag, 0), which costs a read-modify-write per
 *    poll), then __threadfence(), so that the value is not read ahead of
 *    the flag, then reads the value through a volatile load, which goes
 *    to L2 and cannot hit a stale L1 line.  Block 0 waits for nobody.
 * The price: the chain is serial, one flag handoff (a few hundred ns of
 * L2 latency) per block, n / 4096 of them.
 */
template <typename T>
__global__ void __launch_bounds__(SP_TP_THREADS)
scan_stream_chained(const T *in, size_t n, T *out, unsigned int *counter,
					volatile unsigned int *flags, volatile T *values)
{
	typedef sp_three_phase<T> NET;
	__shared__ typename NET::storage s;
	__shared__ unsigned int block_id;
	__shared__ T prefix_sh;
	unsigned int bid;
	size_t		base;
	unsigned int count;
	T			local_total;

	if (threadIdx.x == 0)
		block_id = atomicAdd(counter, 1u);
	__syncthreads();
	bid = block_id;
	base = (size_t) bid * NET::SECTION;
	count = (unsigned int) min((size_t) NET::SECTION, n - base);

	local_total = NET::scan_local(s, in + base, count);

	if (threadIdx.x == 0)
	{
		T			prefix = T(0);

		if (bid > 0)
		{
			while (flags[bid - 1] == SP_INVALID)
				;
			__threadfence();	/* the value is read after the flag */
			prefix = values[bid - 1];
		}
		values[bid] = prefix + local_total;
		__threadfence();		/* the value is visible before the flag */
		flags[bid] = SP_INCLUSIVE;
		prefix_sh = prefix;
	}
	__syncthreads();
	NET::store(s, out + base, count, prefix_sh);
}

/* ---- version 7 ---- */

/* sp_publish -- make status visible after every earlier store of this thread */
__device__ __forceinline__ void
sp_publish(unsigned int *flag, unsigned int status)
{
	cuda::atomic_ref<unsigned int, cuda::thread_scope_device> f(*flag);

	f.store(status, cuda::memory_order_release);
}

/* sp_status -- read a status; later loads see what was stored before it */
__device__ __forceinline__ unsigned int
sp_status(unsigned int *flag)
{
	cuda::atomic_ref<unsigned int, cuda::thread_scope_device> f(*flag);

	return f.load(cuda::memory_order_acquire);
}

/*
 * sp_look_back -- the exclusive prefix of tile `tile` (> 0), by one warp.
 * Lane l looks at tile window - l, starting with the window just before
 * this tile.  The warp waits until every tile of the window has published
 * something, then takes the nearest tile with an inclusive prefix (the
 * lowest such lane) and the aggregates of the tiles after it, and adds
 * them with a butterfly (every lane ends with the same sum).  If the
 * window holds no inclusive prefix, its 32 aggregates are added and the
 * window moves 32 tiles back.  Every tile waited on has drawn its id
 * before this one, so it is running and publishes its aggregate without
 * waiting for anything: no deadlock.  Tiles before tile 0 count as an
 * inclusive prefix of zero; they are never reached, as tile 0 publishes
 * an inclusive prefix.
 */
template <typename T>
__device__ __forceinline__ T
sp_look_back(unsigned int tile, unsigned int *flags, const T *aggs, const T *incs)
{
	const int	lane = threadIdx.x & 31;
	long long	window = (long long) tile - 1;
	T			excl = T(0);
	bool		first = true;

	for (;;)
	{
		const long long p = window - lane;
		unsigned int st;
		unsigned int inclusive;
		T			v;

		do
		{
			st = p >= 0 ? sp_status(&flags[p]) : SP_INCLUSIVE;
		} while (__any_sync(SP_FULL_MASK, st == SP_INVALID));

		v = p < 0 ? T(0) : (st == SP_INCLUSIVE ? __ldcg(&incs[p]) : __ldcg(&aggs[p]));
		inclusive = __ballot_sync(SP_FULL_MASK, st == SP_INCLUSIVE);
		if (inclusive != 0 && lane > __ffs(inclusive) - 1)
			v = T(0);			/* beyond the nearest inclusive prefix */
#pragma unroll
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(SP_FULL_MASK, v, o);
		excl = first ? v : v + excl;
		first = false;
		if (inclusive != 0)
			return excl;
		window -= 32;
	}
}

/*
 * 7. scan_decoupled_lookback -- Merrill & Garland, "Single-pass Parallel
 * Prefix Scan with Decoupled Look-back" (the scheme of CUB's scan), as
 * the modern end of the progression.  Version 6 still waits for the whole
 * chain of predecessors, one handoff each.  Here:
 *  - Decoupled look-back: a tile publishes its local total (AGGREGATE) as
 *    soon as it has one, before it knows its prefix; then one warp adds up
 *    the predecessors' published values, 32 tiles per step, back to the
 *    nearest one that has published its INCLUSIVE prefix.  A tile thus
 *    waits only for its predecessors' local reductions, which all run in
 *    parallel, not for their look-backs: the serial chain is gone.
 *  - Status and values: a 32-bit status per tile, with the values in
 *    separate arrays written before the status; release stores and
 *    acquire loads (cuda::atomic_ref) order them, instead of version 6's
 *    fences and volatile reads.  The flags and the tile counter are reset
 *    by a cudaMemsetAsync before each launch.
 *  - More work per thread: 4 16-byte vector loads per thread (16 floats
 *    or 8 doubles), all issued before the first is used, coalesced, then
 *    transposed through padded shared memory so that each thread owns
 *    consecutive elements.  Tiles are aligned to 16 bytes of the input;
 *    the ragged first and last vectors are loaded element by element.
 *  - Block scan in registers: a sequential scan of the thread's items, a
 *    warp scan of the thread totals by __shfl_up_sync, a scan of the 8
 *    warp totals by warp 0: two barriers instead of one per level.
 *  - The outputs go back through shared memory and out as 16-byte vectors
 *    where the output has the input's 16-byte alignment (vec_out), else
 *    element by element (still coalesced).
 * The summation order of a tile's prefix depends on which predecessors
 * had published what at the time: results can differ between runs in
 * the last bits.
 */
template <typename T>
__global__ void __launch_bounds__(SP_LB_THREADS)
scan_decoupled_lookback(const T *__restrict__ in, size_t n, unsigned int head,
						T *__restrict__ out, int vec_out, unsigned int *counter,
						unsigned int *flags, T *aggs, T *incs)
{
	typedef typename sp_type<T>::vec V;
	const unsigned int W = sp_type<T>::width;
	const unsigned int ITEMS = SP_LB_VECS * W;
	const unsigned int TILE = SP_LB_THREADS * ITEMS;
	const unsigned int WARPS = SP_LB_THREADS / 32;
	__shared__ T xs[SP_PADDED(T, SP_LB_THREADS * SP_LB_VECS * sp_type<T>::width)];
	__shared__ T warp_sums[SP_LB_THREADS / 32];
	__shared__ unsigned int tile_sh;
	__shared__ T tile_excl_sh;
	const unsigned int tid = threadIdx.x;
	const unsigned int lane = tid & 31;
	const unsigned int warp = tid >> 5;
	unsigned int tile;
	size_t		a0;
	const size_t a_end = (size_t) head + n;	/* positions a = i + head */
	T			x[SP_LB_VECS * sp_type<T>::width];
	T			incl,
				lane_excl,
				off;

	if (tid == 0)
		tile_sh = atomicAdd(counter, 1u);
	__syncthreads();
	tile = tile_sh;
	a0 = (size_t) tile * TILE;

	/* load: striped 16-byte vectors, into padded shared memory */
	{
		V			vx[SP_LB_VECS];
		bool		full[SP_LB_VECS];

#pragma unroll
		for (unsigned int k = 0; k < SP_LB_VECS; k++)
		{
			size_t		a = a0 + (size_t) (tid + k * SP_LB_THREADS) * W;

			full[k] = a >= head && a + W <= a_end;
			if (full[k])
				vx[k] = __ldg(reinterpret_cast<const V *>(in + (a - head)));
		}
#pragma unroll
		for (unsigned int k = 0; k < SP_LB_VECS; k++)
		{
			unsigned int v = tid + k * SP_LB_THREADS;
			size_t		a = a0 + (size_t) v * W;
			T			e[sp_type<T>::width];

			if (full[k])
				sp_split(vx[k], e);
			else
			{
#pragma unroll
				for (unsigned int c = 0; c < W; c++)
					e[c] = (a + c >= head && a + c < a_end) ? in[a + c - head] : T(0);
			}
#pragma unroll
			for (unsigned int c = 0; c < W; c++)
				xs[SP_PAD(T, v * W + c)] = e[c];
		}
	}
	__syncthreads();

	/* this thread's ITEMS consecutive elements, scanned in registers */
#pragma unroll
	for (unsigned int k = 0; k < ITEMS; k++)
		x[k] = xs[SP_PAD(T, tid * ITEMS + k)];
#pragma unroll
	for (unsigned int k = 1; k < ITEMS; k++)
		x[k] = x[k - 1] + x[k];

	/* warp scan of the thread totals */
	incl = x[ITEMS - 1];
#pragma unroll
	for (unsigned int o = 1; o < 32; o <<= 1)
	{
		T			u = __shfl_up_sync(SP_FULL_MASK, incl, o);

		if (lane >= o)
			incl = u + incl;
	}
	lane_excl = __shfl_up_sync(SP_FULL_MASK, incl, 1);
	if (lane == 0)
		lane_excl = T(0);
	if (lane == 31)
		warp_sums[warp] = incl;
	__syncthreads();

	/* warp 0: scan of the warp totals, then publish and look back */
	if (warp == 0)
	{
		T			w = lane < WARPS ? warp_sums[lane] : T(0);
		T			wex,
					agg,
					excl = T(0);

#pragma unroll
		for (unsigned int o = 1; o < WARPS; o <<= 1)
		{
			T			u = __shfl_up_sync(SP_FULL_MASK, w, o);

			if (lane >= o)
				w = u + w;
		}
		wex = __shfl_up_sync(SP_FULL_MASK, w, 1);
		agg = __shfl_sync(SP_FULL_MASK, w, WARPS - 1);
		if (lane < WARPS)
			warp_sums[lane] = lane == 0 ? T(0) : wex;	/* now exclusive */

		if (tile == 0)
		{
			if (lane == 0)
			{
				incs[0] = agg;
				sp_publish(&flags[0], SP_INCLUSIVE);
			}
		}
		else
		{
			if (lane == 0)
			{
				aggs[tile] = agg;
				sp_publish(&flags[tile], SP_AGGREGATE);
			}
			excl = sp_look_back<T>(tile, flags, aggs, incs);
			if (lane == 0)
			{
				incs[tile] = excl + agg;
				sp_publish(&flags[tile], SP_INCLUSIVE);
			}
		}
		if (lane == 0)
			tile_excl_sh = excl;
	}
	__syncthreads();

	/* add the prefixes and stage the outputs in shared memory */
	off = (tile_excl_sh + warp_sums[warp]) + lane_excl;
#pragma unroll
	for (unsigned int k = 0; k < ITEMS; k++)
		xs[SP_PAD(T, tid * ITEMS + k)] = off + x[k];
	__syncthreads();

	/* store */
	if (vec_out)
	{
#pragma unroll
		for (unsigned int k = 0; k < SP_LB_VECS; k++)
		{
			unsigned int v = tid + k * SP_LB_THREADS;
			size_t		a = a0 + (size_t) v * W;
			T			e[sp_type<T>::width];

#pragma unroll
			for (unsigned int c = 0; c < W; c++)
				e[c] = xs[SP_PAD(T, v * W + c)];
			if (a >= head && a + W <= a_end)
				__stwb(reinterpret_cast<V *>(out + (a - head)), sp_join(e));
			else
			{
#pragma unroll
				for (unsigned int c = 0; c < W; c++)
					if (a + c >= head && a + c < a_end)
						out[a + c - head] = e[c];
			}
		}
	}
	else
	{
#pragma unroll
		for (unsigned int k = 0; k < ITEMS; k++)
		{
			unsigned int j = k * SP_LB_THREADS + tid;
			size_t		a = a0 + j;

			if (a >= head && a < a_end)
				out[a - head] = xs[SP_PAD(T, j)];
		}
	}
}

/* ---- host side ---- */

/* sp_ceil_div -- ceil(a / b) */
static size_t
sp_ceil_div(size_t a, size_t b)
{
	return a / b + (a % b != 0);
}

/* sp_align_up -- a rounded up to SP_ALIGN */
static size_t
sp_align_up(size_t a)
{
	return (a + SP_ALIGN - 1) / SP_ALIGN * SP_ALIGN;
}

/* sp_section -- elements one block scans, versions 1-6; version 7's tile */
static size_t
sp_section(int version, int is_double)
{
	switch (version)
	{
		case 1:
			return sp_kogge_stone<float>::SECTION;
		case 2:
			return sp_brent_kung<float>::SECTION;
		case 3:
			return sp_blelloch_padded<float>::SECTION;
		case 7:
			return (size_t) SP_LB_THREADS * SP_LB_VECS * (is_double ? 2 : 4);
		default:
			return sp_three_phase<float>::SECTION;
	}
}

/* sp_tiles -- tiles of version 7 for n elements, the first `head` before them */
static size_t
sp_tiles(size_t n, size_t head, int is_double)
{
	return sp_ceil_div(n + head, sp_section(7, is_double));
}

/* sp_level_elems -- section totals of all levels of version 5 */
static size_t
sp_level_elems(size_t n)
{
	size_t		total = 0;
	const size_t s = sp_section(5, 0);

	while (n > s)
	{
		n = sp_ceil_div(n, s);
		total += n;
	}
	return total;
}

/* sp_launch_sections -- one launch of the section kernel of version 1-4 */
template <typename T>
static gsd_status
sp_launch_sections(int version, size_t blocks, const T *in, size_t n, T *out, T *sums, int walk)
{
	cudaStream_t stream = gsd_stream();
	unsigned int grid = (unsigned int) blocks;

	switch (version)
	{
		case 1:
			scan_kogge_stone<T><<<grid, SP_NET_THREADS, 0, stream>>>(in, n, out, sums, walk);
			break;
		case 2:
			scan_brent_kung<T><<<grid, SP_NET_THREADS, 0, stream>>>(in, n, out, sums, walk);
			break;
		case 3:
			scan_blelloch_padded<T><<<grid, SP_NET_THREADS, 0, stream>>>(in, n, out, sums, walk);
			break;
		default:
			scan_three_phase<T><<<grid, SP_TP_THREADS, 0, stream>>>(in, n, out, sums, walk);
			break;
	}
	GSD_CHECK_LAUNCH(sp_names[version - 1]);
	return GSD_OK;
}

/* sp_launch_add -- add the carry-in of every section but the first */
template <typename T>
static gsd_status
sp_launch_add(int version, T *out, size_t n, const T *sums, size_t section)
{
	size_t		blocks = sp_ceil_div(n, section) - 1;

	scan_add_carry_in<T><<<(unsigned int) blocks, SP_ADD_THREADS, 0, gsd_stream()>>>(
		out, n, sums, (unsigned int) section);
	GSD_CHECK_LAUNCH(sp_names[version - 1]);
	return GSD_OK;
}

/*
 * sp_walked -- versions 1-4: scan the sections, let one block walk their
 * totals (in sums, in place), add the carry-ins.
 */
template <typename T>
static gsd_status
sp_walked(int version, const T *in, size_t n, T *out, T *sums)
{
	const size_t section = sp_section(version, 0);
	const size_t blocks = sp_ceil_div(n, section);
	gsd_status	st;

	if (blocks == 1)
		return sp_launch_sections<T>(version, 1, in, n, out, (T *) NULL, 0);
	if ((st = sp_launch_sections<T>(version, blocks, in, n, out, sums, 0)) != GSD_OK)
		return st;
	if ((st = sp_launch_sections<T>(version, 1, sums, blocks, sums, (T *) NULL, 1)) != GSD_OK)
		return st;
	return sp_launch_add<T>(version, out, n, sums, section);
}

/*
 * sp_hierarchical -- version 5: scan the sections of in into out with
 * their totals in sums[0 .. blocks); scan those the same way, in place,
 * with the next level's totals after them; add the carry-ins.
 */
template <typename T>
static gsd_status
sp_hierarchical(const T *in, size_t n, T *out, T *sums)
{
	const size_t section = sp_section(5, 0);
	const size_t blocks = sp_ceil_div(n, section);
	gsd_status	st;

	if (blocks == 1)
		return sp_launch_sections<T>(5, 1, in, n, out, (T *) NULL, 0);
	if ((st = sp_launch_sections<T>(5, blocks, in, n, out, sums, 0)) != GSD_OK)
		return st;
	if ((st = sp_hierarchical<T>(sums, blocks, sums, sums + blocks)) != GSD_OK)
		return st;
	return sp_launch_add<T>(5, out, n, sums, section);
}

/* sp_reset -- zero the block counter and `flags` status words (versions 6, 7) */
static gsd_status
sp_reset(void *scratch, size_t flags)
{
	return gsd_cuda_status(cudaMemsetAsync(scratch, 0, SP_HEADER + flags * sizeof(unsigned int),
										   gsd_stream()),
						   "cudaMemsetAsync");
}

/* sp_run -- one version on one type; n > 0 */
template <typename T>
static gsd_status
sp_run(int version, const T *in, size_t n, T *out, void *scratch)
{
	const int	is_double = sizeof(T) == sizeof(double);
	unsigned int *counter = (unsigned int *) scratch;
	unsigned int *flags = (unsigned int *) ((char *) scratch + SP_HEADER);
	T		   *sums = (T *) ((char *) scratch + SP_HEADER);
	cudaStream_t stream = gsd_stream();
	gsd_status	st;

	if (version <= 4)
		return sp_walked<T>(version, in, n, out, sums);
	if (version == 5)
		return sp_hierarchical<T>(in, n, out, sums);
	if (version == 6)
	{
		size_t		blocks = sp_ceil_div(n, sp_section(6, is_double));
		T		   *values = (T *) ((char *) flags + sp_align_up(blocks * sizeof(unsigned int)));

		if ((st = sp_reset(scratch, blocks)) != GSD_OK)
			return st;
		scan_stream_chained<T><<<(unsigned int) blocks, SP_TP_THREADS, 0, stream>>>(
			in, n, out, counter, flags, values);
		GSD_CHECK_LAUNCH(sp_names[5]);
		return GSD_OK;
	}

	{
		const size_t head = ((uintptr_t) in % 16) / sizeof(T);
		const size_t tiles = sp_tiles(n, head, is_double);
		T		   *aggs = (T *) ((char *) flags + sp_align_up(tiles * sizeof(unsigned int)));
		T		   *incs = (T *) ((char *) aggs + sp_align_up(tiles * sizeof(T)));
		int			vec_out = ((uintptr_t) out - head * sizeof(T)) % 16 == 0;

		if ((st = sp_reset(scratch, tiles)) != GSD_OK)
			return st;
		scan_decoupled_lookback<T><<<(unsigned int) tiles, SP_LB_THREADS, 0, stream>>>(
			in, n, (unsigned int) head, out, vec_out, counter, flags, aggs, incs);
		GSD_CHECK_LAUNCH(sp_names[6]);
		return GSD_OK;
	}
}

/*
 * sp_block_depth -- the most additions on any path from an input to an
 * output of one block scan of versions 1-4 (carry not included).
 *	  Kogge-Stone: one per step, log2 S.
 *	  Brent-Kung, Blelloch: up the tree and down again, at most 2 log2 S.
 *	  Three-phase: ITEMS - 1 in phase 1, log2 THREADS in phase 2, 1 in 3.
 */
static size_t
sp_block_depth(int version)
{
	switch (version)
	{
		case 1:
			return SP_NET_LOG2_THREADS;
		case 2:
		case 3:
			return 2 * (SP_NET_LOG2_THREADS + 1);
		default:
			return (SP_TP_ITEMS - 1) + SP_TP_LOG2_THREADS + 1;
	}
}

/*
 * sp_depth -- the most additions any input goes through on its way to any
 * output of a version for n elements (see gsd_scan_progression_error_bound).
 * D is the block scan's depth, S its section, B = ceil(n / S).
 *	  one section: D, plus the carry (an addition of +0 is exact, but
 *	  counted).
 *	  versions 1-4: a section's total has D + 1; the walk adds D and one
 *	  carry per walked section (ceil(B / S) of them); the carry-in launch
 *	  one more: 2D + ceil(B / S) + 2.
 *	  version 5: each level adds D + 1 for its scan and 1 for its
 *	  carry-in: L levels give L (D + 2) - 1.
 *	  version 6: block b's prefix went through b additions of the chain:
 *	  D + B + 1.
 *	  version 7: a tile's aggregate has A = ITEMS - 1 + 5 + 3 (thread,
 *	  warp, warp-of-warps scans).  A look-back that covers d >= 1 tiles
 *	  back to an inclusive prefix adds 5 (butterfly) + ceil(d / 32) - 1
 *	  (windows) + 1 (its own aggregate) <= 7d levels, so a prefix of tile t
 *	  has at most A + 7t; the outputs add 3 (tile, warp and lane
 *	  prefixes): A + 7 T + 3 for T tiles.
 */
static size_t
sp_depth(int version, int is_double, size_t n)
{
	const size_t s = sp_section(version, is_double);
	const size_t d = sp_block_depth(version);
	const size_t blocks = sp_ceil_div(n, s);

	if (n == 0)
		return 0;
	switch (version)
	{
		case 1:
		case 2:
		case 3:
		case 4:
			if (blocks <= 1)
				return d + 1;
			return 2 * d + sp_ceil_div(blocks, s) + 2;
		case 5:
			{
				size_t		levels = 1;

				for (size_t m = blocks; m > 1; m = sp_ceil_div(m, s))
					levels++;
				return levels * (d + 2) - 1;
			}
		case 6:
			return d + blocks + 1;
		default:
			{
				const size_t w = is_double ? 2 : 4;
				const size_t items = SP_LB_VECS * w;
				const size_t agg = items - 1 + 5 + SP_LB_LOG2_WARPS;

				return agg + 7 * sp_tiles(n, w - 1, is_double) + 3;
			}
	}
}

/* ---- the C API ---- */

extern "C" int
gsd_scan_progression_count(void)
{
	return SP_VERSIONS;
}

extern "C" const char *
gsd_scan_progression_name(int version)
{
	if (version < 1 || version > SP_VERSIONS)
		return NULL;
	return sp_names[version - 1];
}

extern "C" int
gsd_scan_progression_deterministic(int version)
{
	if (version < 1 || version > SP_VERSIONS)
		return -1;
	return version != 7;
}

extern "C" size_t
gsd_scan_progression_scratch_bytes(int is_double, size_t n)
{
	size_t		esize = is_double ? sizeof(double) : sizeof(float);
	size_t		need = 0;
	size_t		m;

	/* versions 1-4: the section totals; the smallest section has the most */
	m = sp_ceil_div(n, sp_section(1, is_double)) * esize;
	need = m > need ? m : need;
	/* version 5: the totals of every level */
	m = sp_level_elems(n) * esize;
	need = m > need ? m : need;
	/* version 6: a status and a value per block */
	m = sp_ceil_div(n, sp_section(6, is_double));
	m = sp_align_up(m * sizeof(unsigned int)) + m * esize;
	need = m > need ? m : need;
	/* version 7: a status and two values per tile; any head */
	m = sp_tiles(n, is_double ? 1 : 3, is_double);
	m = sp_align_up(m * sizeof(unsigned int)) + sp_align_up(m * esize) + m * esize;
	need = m > need ? m : need;
	return SP_HEADER + sp_align_up(need);
}

/*
 * sp_checked_run -- validate the arguments of one scan of n elements of
 * esize bytes (4: float or unsigned int, 8: double), then run it as T
 */
template <typename T>
static gsd_status
sp_checked_run(int version, const void *d_in, size_t n, void *d_out, void *d_scratch)
{
	const size_t esize = sizeof(T);
	gsd_status	st;

	if ((st = gsd_require_open()) != GSD_OK)
		return st;
	if (version < 1 || version > SP_VERSIONS)
		return gsd_fail(GSD_INVALID, "scan progression version %d does not exist (1..%d)",
						version, SP_VERSIONS);
	if (n == 0)
		return GSD_OK;
	if (d_in == NULL || d_out == NULL || d_scratch == NULL)
		return gsd_fail(GSD_INVALID, "%s: NULL device pointer", sp_names[version - 1]);
	if ((uintptr_t) d_in % esize != 0 || (uintptr_t) d_out % esize != 0 ||
		(uintptr_t) d_scratch % 16 != 0)
		return gsd_fail(GSD_INVALID, "%s: misaligned device pointer", sp_names[version - 1]);
	if (n > SIZE_MAX / esize / 2)
		return gsd_fail(GSD_INVALID, "%zu elements are too many for %s",
						n, sp_names[version - 1]);
	if ((uintptr_t) d_in < (uintptr_t) d_out + n * esize &&
		(uintptr_t) d_out < (uintptr_t) d_in + n * esize)
		return gsd_fail(GSD_INVALID, "%s: input and output overlap", sp_names[version - 1]);
	if (sp_ceil_div(n + 3, sp_section(version, esize == sizeof(double))) > (size_t) INT_MAX)
		return gsd_fail(GSD_INVALID, "%zu elements are too many for %s",
						n, sp_names[version - 1]);
	return sp_run<T>(version, (const T *) d_in, n, (T *) d_out, d_scratch);
}

extern "C" gsd_status
gsd_scan_progression(int version, int is_double, const void *d_in, size_t n,
					 void *d_out, void *d_scratch)
{
	if (is_double)
		return sp_checked_run<double>(version, d_in, n, d_out, d_scratch);
	return sp_checked_run<float>(version, d_in, n, d_out, d_scratch);
}

extern "C" gsd_status
gsd_scan_progression_u32(int version, const uint32_t *d_in, size_t n, uint32_t *d_out,
						 void *d_scratch)
{
	return sp_checked_run<unsigned int>(version, d_in, n, d_out, d_scratch);
}

extern "C" double
gsd_scan_progression_error_bound(int version, int is_double, size_t n)
{
	double		u = is_double ? 0x1p-53 : 0x1p-24;
	double		hu;

	if (version < 1 || version > SP_VERSIONS)
		return -1.0;
	hu = (double) sp_depth(version, is_double, n) * u;
	return hu < 0.5 ? hu / (1.0 - hu) : 1.0;
}
