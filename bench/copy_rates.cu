/*-------------------------------------------------------------------------
 *
 * copy_rates.cu
 *	  The host side of a GPU call, measured apart from PostgreSQL: the
 *	  copy rates of this machine over PCIe (pinned and pageable), the rate
 *	  of host copies into pinned memory by the helper threads of
 *	  src/cpu/copy_workers.c, the cost of first-touching fresh memory, and the
 *	  staged pipelines that gpuscan's GPU path runs (host copy into a
 *	  pinned slot overlapped with the DMA of the slot before), through
 *	  pinned slots and through registered shared memory as the GPU
 *	  service's staging area is; and the round trip of a streamed prefix
 *	  sum through the service (round_trip), its answers copied out when
 *	  their slot is needed again or as soon as they are back.
 *
 *	  bench/copy_rates [MB] [WORKERS ...]
 *
 * MB (default 480: a 60M-element double precision[]) is the size moved;
 * WORKERS the helper-thread counts to try (default 0 1 3 7).  Each figure
 * is the median of 5 runs, in GB/s of the bytes moved.  Prints a markdown
 * table.  Built by `make bench/copy_rates`.  COPY_RATES_SCHEDULE=block
 * makes CUDA's waits block instead of spin (cudaDeviceScheduleBlockingSync;
 * default: CUDA's own choice, which spins where there are more cores than
 * contexts), for all of the run.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include <unistd.h>

#include <cuda_runtime.h>

#include "cpu/copy_workers.h"

#define CK(call) \
	do { cudaError_t e_ = (call); \
		 if (e_ != cudaSuccess) { \
			 fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			 exit(2); } } while (0)

#define RUNS	5
#define SLOTS	4

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/* fresh_memory -- untouched pageable memory, huge pages advised or not */
static char *
fresh_memory(size_t bytes, bool huge)
{
	void	   *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
	{
		perror("mmap");
		exit(2);
	}
	if (huge)
		(void) madvise(p, bytes, MADV_HUGEPAGE);
	return (char *) p;
}

static void
row(const char *what, size_t bytes, double ms)
{
	printf("| %s | %.2f | %.1f |\n", what, ms, bytes / ms / 1e6);
}

/* staged_upload -- host copy into a pinned slot, then its DMA, slot by slot */
static double
staged_upload(char *d_dst, const char *src, size_t bytes, char **slots, size_t slot_bytes,
			  cudaEvent_t *ev, cudaStream_t stream)
{
	double		t0 = now_ms();
	size_t		off;
	int			k;

	for (off = 0, k = 0; off < bytes; off += slot_bytes, k++)
	{
		size_t		len = std::min(slot_bytes, bytes - off);
		int			s = k % SLOTS;

		CK(cudaEventSynchronize(ev[s]));
		gs_copy(slots[s], src + off, len);
		CK(cudaMemcpyAsync(d_dst + off, slots[s], len, cudaMemcpyHostToDevice, stream));
		CK(cudaEventRecord(ev[s], stream));
	}
	CK(cudaStreamSynchronize(stream));
	return now_ms() - t0;
}

/*
 * staged_download -- the DMA of each slot queued SLOTS - 1 ahead of the
 * host copy out of it
 */
static double
staged_download(char *dst, const char *d_src, size_t bytes, char **slots, size_t slot_bytes,
				cudaEvent_t *ev, cudaStream_t stream)
{
	size_t		nchunks = (bytes + slot_bytes - 1) / slot_bytes;
	double		t0 = now_ms();
	size_t		issued = 0,
				done;

	for (done = 0; done < nchunks; done++)
	{
		while (issued < nchunks && issued < done + SLOTS)
		{
			size_t		off = issued * slot_bytes;
			size_t		len = std::min(slot_bytes, bytes - off);

			CK(cudaMemcpyAsync(slots[issued % SLOTS], d_src + off, len, cudaMemcpyDeviceToHost,
							   stream));
			CK(cudaEventRecord(ev[issued % SLOTS], stream));
			issued++;
		}
		CK(cudaEventSynchronize(ev[done % SLOTS]));
		gs_copy(dst + done * slot_bytes, slots[done % SLOTS],
				std::min(slot_bytes, bytes - done * slot_bytes));
	}
	return now_ms() - t0;
}

/*
 * The two sides of a round trip: the session fills chunk k's slot and
 * counts it in; the service uploads it, downloads it back after it into
 * the slot's answer half (synchronous copies, as the service's are) and
 * counts it out; the session copies the answer out.
 */
typedef struct RoundTrip
{
	char	  **ring;			/* SLOTS slots: values, then the answer */
	size_t		slot_bytes;		/* of each half */
	size_t		nchunks;
	char	   *d_buf;
	cudaStream_t stream;
	std::atomic<long> in;
	std::atomic<long> out;
} RoundTrip;

/* service_side -- the service's thread of a round trip (it polls as the service does) */
static void
service_side(RoundTrip *rt)
{
	for (size_t k = 0; k < rt->nchunks; k++)
	{
		char	   *slot = rt->ring[k % SLOTS];

		while (rt->in.load(std::memory_order_acquire) <= (long) k)
			usleep(20);
		CK(cudaMemcpyAsync(rt->d_buf, slot, rt->slot_bytes, cudaMemcpyHostToDevice, rt->stream));
		CK(cudaStreamSynchronize(rt->stream));
		CK(cudaMemcpyAsync(slot + rt->slot_bytes, rt->d_buf, rt->slot_bytes,
						   cudaMemcpyDeviceToHost, rt->stream));
		CK(cudaStreamSynchronize(rt->stream));
		rt->out.store((long) k + 1, std::memory_order_release);
	}
}

/*
 * round_trip -- bytes from src through the ring to the GPU and back into
 * dst, chunks of slot_bytes, the session's copies on the helper threads;
 * the answers copied out as soon as they are back (eager), or only when
 * their slot is needed again
 */
static double
round_trip(char *dst, const char *src, size_t bytes, char **ring, size_t slot_bytes,
		   char *d_buf, cudaStream_t stream, bool eager)
{
	RoundTrip	rt;
	long		drained = 0;
	double		t0;

	rt.ring = ring;
	rt.slot_bytes = slot_bytes;
	rt.nchunks = bytes / slot_bytes;	/* whole chunks only */
	rt.d_buf = d_buf;
	rt.stream = stream;
	rt.in = 0;
	rt.out = 0;
	t0 = now_ms();
	std::thread service(service_side, &rt);

	for (long k = 0; k <= (long) rt.nchunks; k++)
	{
		long		upto = k < (long) rt.nchunks ? k - SLOTS + 1 : (long) rt.nchunks;

		while (drained < (long) rt.nchunks &&
			   (drained < upto || (eager && rt.out.load(std::memory_order_acquire) > drained)))
		{
			while (rt.out.load(std::memory_order_acquire) <= drained)
				std::this_thread::yield();
			gs_copy(dst + drained * slot_bytes, ring[drained % SLOTS] + slot_bytes, slot_bytes);
			drained++;
		}
		if (k < (long) rt.nchunks)
		{
			gs_copy(ring[k % SLOTS], src + k * slot_bytes, slot_bytes);
			rt.in.store(k + 1, std::memory_order_release);
		}
	}
	service.join();
	return now_ms() - t0;
}

int
main(int argc, char **argv)
{
	size_t		mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 480;
	size_t		bytes = mb << 20;
	std::vector<int> workers;
	char	   *pinned,
			   *pageable,
			   *d_buf,
			   *slots[SLOTS],
			   *shared,
			   *shared_slots[SLOTS];
	cudaEvent_t ev[SLOTS];
	cudaStream_t stream;
	cudaDeviceProp prop;
	char		what[160];

	for (int i = 2; i < argc; i++)
		workers.push_back(atoi(argv[i]));
	if (workers.empty())
		workers = {0, 1, 3, 7};
	if (getenv("COPY_RATES_SCHEDULE") && strcmp(getenv("COPY_RATES_SCHEDULE"), "block") == 0)
		CK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));

	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CK(cudaMallocHost(&pinned, bytes));
	CK(cudaMalloc(&d_buf, bytes));
	pageable = fresh_memory(bytes, false);
	memset(pageable, 1, bytes);
	memset(pinned, 1, bytes);
	for (int s = 0; s < SLOTS; s++)
	{
		CK(cudaMallocHost(&slots[s], (size_t) 64 << 20));
		CK(cudaEventCreateWithFlags(&ev[s], cudaEventDisableTiming));
		CK(cudaEventRecord(ev[s], stream));
	}
	/*
	 * slots as the GPU service has them: shared memory (4 kB pages, as
	 * PostgreSQL's shared memory without huge pages) registered with CUDA
	 */
	shared = (char *) mmap(NULL, (size_t) SLOTS * (64 << 20), PROT_READ | PROT_WRITE,
						   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
	{
		perror("mmap");
		exit(2);
	}
	memset(shared, 1, (size_t) SLOTS * (64 << 20));
	CK(cudaHostRegister(shared, (size_t) SLOTS * (64 << 20), cudaHostRegisterDefault));
	for (int s = 0; s < SLOTS; s++)
		shared_slots[s] = shared + (size_t) s * (64 << 20);

	printf("%s, %zu MB moved per figure, median of %d runs, CUDA's waits: %s\n\n", prop.name, mb,
		   RUNS, getenv("COPY_RATES_SCHEDULE") ? getenv("COPY_RATES_SCHEDULE") : "auto");
	printf("| what | ms | GB/s |\n| --- | ---: | ---: |\n");

	/* PCIe, one cudaMemcpy each */
	{
		struct
		{
			const char *name;
			void	   *dst;
			const void *src;
			cudaMemcpyKind kind;
		}			c[] = {
			{"host to device, pinned", d_buf, pinned, cudaMemcpyHostToDevice},
			{"device to host, pinned", pinned, d_buf, cudaMemcpyDeviceToHost},
			{"host to device, pageable", d_buf, pageable, cudaMemcpyHostToDevice},
			{"device to host, pageable", pageable, d_buf, cudaMemcpyDeviceToHost},
		};

		for (auto &x : c)
		{
			std::vector<double> t;

			CK(cudaMemcpy(x.dst, x.src, bytes, x.kind));
			for (int r = 0; r < RUNS; r++)
			{
				double		t0 = now_ms();

				CK(cudaMemcpy(x.dst, x.src, bytes, x.kind));
				t.push_back(now_ms() - t0);
			}
			row(x.name, bytes, median(t));
		}
	}

	for (int w : workers)
	{
		std::vector<double> t;

		gs_copy_workers_set(w);
		/* host copies into pinned memory */
		for (int r = 0; r < RUNS; r++)
		{
			double		t0 = now_ms();

			gs_copy(pinned, pageable, bytes);
			t.push_back(now_ms() - t0);
		}
		snprintf(what, sizeof(what), "host copy into pinned memory, %d helper threads + caller",
				 gs_copy_workers());
		row(what, bytes, median(t));

		/* first touch of fresh memory, 4 kB pages and huge pages advised */
		for (int huge = 0; huge <= 1; huge++)
		{
			t.clear();
			for (int r = 0; r < RUNS; r++)
			{
				char	   *p = fresh_memory(bytes, huge);
				double		t0 = now_ms();

				gs_prefault_start(p, bytes);
				gs_copy_wait();
				t.push_back(now_ms() - t0);
				munmap(p, bytes);
			}
			snprintf(what, sizeof(what), "first touch of fresh memory, %s, %d helper threads",
					 huge ? "huge pages advised" : "4 kB pages", gs_copy_workers());
			row(what, bytes, median(t));
		}

		/* the staged pipelines, by slot size: through pinned slots, and as the service's staging area */
		for (size_t slot_mb : {4, 16, 64})
		{
			size_t		slot_bytes = slot_mb << 20;

			for (int via_shared = 0; via_shared <= 1; via_shared++)
			{
				char	  **ring = via_shared ? shared_slots : slots;
				const char *through = via_shared ? " through shared memory" : "";

				t.clear();
				for (int r = 0; r < RUNS; r++)
					t.push_back(staged_upload(d_buf, pageable, bytes, ring, slot_bytes, ev, stream));
				snprintf(what, sizeof(what), "staged upload%s, %d slots of %zu MB, %d helper threads",
						 through, SLOTS, slot_mb, gs_copy_workers());
				row(what, bytes, median(t));

				for (int fresh = 0; fresh <= 1; fresh++)
				{
					t.clear();
					for (int r = 0; r < RUNS; r++)
					{
						char	   *dst = fresh ? fresh_memory(bytes, true) : pageable;

						t.push_back(staged_download(dst, d_buf, bytes, ring, slot_bytes, ev, stream));
						if (fresh)
							munmap(dst, bytes);
					}
					snprintf(what, sizeof(what), "staged download%s into %s, %d slots of %zu MB, %d helper threads",
							 through, fresh ? "fresh memory (huge pages advised)" : "warm memory",
							 SLOTS, slot_mb, gs_copy_workers());
					row(what, bytes, median(t));
				}
			}

			/* the copy out alone, no DMA beside it: what the transfers beside it cost */
			t.clear();
			for (int r = 0; r < RUNS; r++)
			{
				double		t0 = now_ms();

				for (size_t off = 0; off < bytes; off += slot_bytes)
					gs_copy(pageable + off, shared_slots[(off / slot_bytes) % SLOTS],
							std::min(slot_bytes, bytes - off));
				t.push_back(now_ms() - t0);
			}
			snprintf(what, sizeof(what), "host copy out of the shared slots alone (no DMA beside it), into warm memory, %zu MB at a time, %d helper threads",
					 slot_mb, gs_copy_workers());
			row(what, bytes, median(t));
		}

		/*
		 * a prefix sum's round trip through the service, 16 MB chunks (as
		 * the product's): in and back, into fresh memory as a result is
		 */
		for (int via_shared = 0; via_shared <= 1; via_shared++)
			for (int eager = 0; eager <= 1; eager++)
			{
				size_t		slot_bytes = (size_t) 16 << 20;

				t.clear();
				for (int r = 0; r < RUNS; r++)
				{
					char	   *dst = fresh_memory(bytes, true);

					t.push_back(round_trip(dst, pageable, bytes, via_shared ? shared_slots : slots,
										   slot_bytes, d_buf, stream, eager));
					munmap(dst, bytes);
				}
				snprintf(what, sizeof(what), "round trip through %s, answers copied out %s, %zu MB chunks, %d helper threads",
						 via_shared ? "shared memory" : "pinned slots",
						 eager ? "as soon as back" : "when their slot is needed",
						 slot_bytes >> 20, gs_copy_workers());
				row(what, bytes / slot_bytes * slot_bytes, median(t));
			}
	}
	gs_copy_workers_set(0);
	return 0;
}
