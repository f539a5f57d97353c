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
 *	  service's staging area is.
 *
 *	  bench/copy_rates [MB] [WORKERS ...]
 *
 * MB (default 480: a 60M-element double precision[]) is the size moved;
 * WORKERS the helper-thread counts to try (default 0 1 3 7).  Each figure
 * is the median of 5 runs, in GB/s of the bytes moved.  Prints a markdown
 * table.  Built by `make bench/copy_rates`.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <vector>

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

	printf("%s, %zu MB moved per figure, median of %d runs\n\n", prop.name, mb, RUNS);
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
	}
	gs_copy_workers_set(0);
	return 0;
}
