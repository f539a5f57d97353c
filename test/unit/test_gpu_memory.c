/*-------------------------------------------------------------------------
 *
 * test_gpu_memory.c
 *	  The device layer beside the kernels: the stream-ordered pool's
 *	  figures (gsd_memory_in_use, gsd_memory_reserved) and its trim, an
 *	  allocation larger than the device, gsd_open's rules, and several
 *	  threads working on the device at once, each with its own last error.
 *	  The same checks hold on a GPU and on the stand-in device
 *	  (kernels/standin_device.c); the stand-in's settings are checked where
 *	  it is the device.
 *
 *-------------------------------------------------------------------------
 */
#include <pthread.h>
#include <string.h>

#include "unit.h"
#include "gpuscan_device.h"

#define MB				((size_t) 1 << 20)
#define GMT_THREADS		4
#define GMT_ROUNDS		100
#define GMT_MAX_BYTES	((size_t) 256 << 10)

/* the pool keeps up to this much between calls (kernels/device.cu) */
#define GMT_RELEASE_THRESHOLD ((size_t) 256 << 20)

/* figures -- the pool's in-use and reserved bytes; 0 if a call failed */
static int
figures(size_t *in_use, size_t *reserved)
{
	gsd_status	st;

	*in_use = *reserved = 0;
	st = gsd_memory_in_use(in_use);
	if (st == GSD_OK)
		st = gsd_memory_reserved(reserved);
	UNIT_CHECK(st == GSD_OK, "memory figures: status %d: %s", (int) st, gsd_last_error());
	return st == GSD_OK;
}

/* alloc_free -- allocate `bytes', check the figures with it, free it */
static int
alloc_free(size_t bytes, size_t in_use0)
{
	void	   *d = NULL;
	size_t		in_use,
				reserved;

	if (gsd_alloc(bytes, &d) != GSD_OK)
	{
		UNIT_CHECK(0, "gsd_alloc(%zu): %s", bytes, gsd_last_error());
		return 0;
	}
	if (figures(&in_use, &reserved))
	{
		UNIT_CHECK(in_use >= in_use0 + bytes, "in use %zu with %zu allocated, %zu before",
				   in_use, bytes, in_use0);
		UNIT_CHECK(reserved >= in_use, "reserved %zu < in use %zu", reserved, in_use);
	}
	UNIT_CHECK(gsd_free(d) == GSD_OK, "gsd_free: %s", gsd_last_error());
	UNIT_CHECK(gsd_synchronize() == GSD_OK, "gsd_synchronize: %s", gsd_last_error());
	return 1;
}

/* test_pool -- a free keeps the memory in the pool up to the threshold; a trim gives it back */
static void
test_pool(void)
{
	size_t		in_use0,
				reserved0,
				in_use,
				reserved,
				kept;

	unit_case("gpu memory: the pool keeps a free's memory, a trim gives it back");
	UNIT_CHECK(gsd_synchronize() == GSD_OK && gsd_memory_trim() == GSD_OK,
			   "trim: %s", gsd_last_error());
	if (!figures(&in_use0, &reserved0))
		return;
	UNIT_CHECK(reserved0 >= in_use0, "reserved %zu < in use %zu", reserved0, in_use0);
	if (!alloc_free(64 * MB, in_use0) || !figures(&in_use, &kept))
		return;
	UNIT_CHECK(in_use == in_use0, "in use %zu after the free, %zu before", in_use, in_use0);
	UNIT_CHECK(kept >= in_use0 + 64 * MB, "reserved %zu after freeing 64 MB (in use %zu)",
			   kept, in_use0);
	UNIT_CHECK(gsd_memory_trim() == GSD_OK, "trim: %s", gsd_last_error());
	if (figures(&in_use, &reserved))
		UNIT_CHECK(reserved >= in_use0 && reserved + 64 * MB <= kept,
				   "reserved %zu after the trim, %zu before it (in use %zu)",
				   reserved, kept, in_use0);

	unit_case("gpu memory: above the release threshold a wait gives memory back");
	if (!alloc_free(GMT_RELEASE_THRESHOLD + 64 * MB, in_use0) || !figures(&in_use, &reserved))
		return;
	UNIT_CHECK(in_use == in_use0, "in use %zu after the free, %zu before", in_use, in_use0);
	UNIT_CHECK(reserved <= in_use0 + GMT_RELEASE_THRESHOLD,
			   "reserved %zu after freeing %zu bytes and a wait (in use %zu)",
			   reserved, GMT_RELEASE_THRESHOLD + 64 * MB, in_use0);
}

/* test_too_large -- more than the device has fails as out of memory, and nothing changes */
static void
test_too_large(void)
{
	gsd_device_props props;
	size_t		in_use0,
				reserved0,
				in_use,
				reserved;
	void	   *d = (void *) &props;
	gsd_status	st;

	unit_case("gpu memory: an allocation larger than the device is out of memory");
	if (!figures(&in_use0, &reserved0))
		return;
	if (gsd_get_device_props(0, &props) != GSD_OK)
	{
		UNIT_CHECK(0, "gsd_get_device_props: %s", gsd_last_error());
		return;
	}
	st = gsd_alloc(props.total_memory + 1, &d);
	UNIT_CHECK(st == GSD_OUT_OF_MEMORY && d == NULL, "status %d, pointer %p", (int) st, d);
	UNIT_CHECK(strstr(gsd_last_error(), "cudaMallocAsync") != NULL, "message: %s",
			   gsd_last_error());
	if (alloc_free(MB, in_use0) && figures(&in_use, &reserved))
		UNIT_CHECK(in_use == in_use0, "in use %zu, %zu before", in_use, in_use0);
}

/* test_open -- the open device again is fine, another is refused */
static void
test_open(void)
{
	unit_case("gpu memory: gsd_open of the open device, and of another");
	UNIT_CHECK(gsd_is_open(), "no device open");
	UNIT_CHECK(gsd_open(0) == GSD_OK, "gsd_open(0) again: %s", gsd_last_error());
	UNIT_CHECK(gsd_open(1) == GSD_INVALID, "gsd_open(1) with device 0 open accepted");
	UNIT_CHECK(gsd_host_register(NULL, 4096) != GSD_OK, "registering NULL accepted");
}

/* what one thread did */
typedef struct gmt_thread
{
	int			index;
	int			failures;		/* calls that failed */
	int			mismatches;		/* round trips that came back different */
	int			own_error;		/* its last error was its own */
} gmt_thread;

/* gmt_thread_main -- round trips of random sizes, then an error of its own */
static void *
gmt_thread_main(void *arg)
{
	gmt_thread *t = arg;
	uint64_t	state = 0x9e3779b97f4a7c15u * (uint64_t) (t->index + 1);
	unsigned char *up = malloc(GMT_MAX_BYTES),
			   *down = malloc(GMT_MAX_BYTES);

	for (int r = 0; r < GMT_ROUNDS && up && down; r++)
	{
		size_t		bytes;
		void	   *d = NULL;

		state = state * 6364136223846793005u + 1442695040888963407u;
		bytes = 1 + (size_t) (state >> 33) % GMT_MAX_BYTES;
		for (size_t i = 0; i < bytes; i++)
			up[i] = (unsigned char) (i * 7 + (size_t) r + (size_t) t->index);
		if (gsd_alloc(bytes, &d) != GSD_OK || gsd_upload(d, up, bytes) != GSD_OK ||
			gsd_download(down, d, bytes) != GSD_OK)
			t->failures++;
		else if (memcmp(up, down, bytes) != 0)
			t->mismatches++;
		if (gsd_free(d) != GSD_OK)
			t->failures++;
	}
	if (up == NULL || down == NULL)
		t->failures++;
	t->own_error = gsd_sum_exact_f64(NULL, 0, NULL, NULL) == GSD_INVALID &&
		strstr(gsd_last_error(), "accumulator") != NULL;
	if (gsd_synchronize() != GSD_OK)
		t->failures++;
	free(up);
	free(down);
	return NULL;
}

/* test_threads -- several threads at once; the figures and each last error stay right */
static void
test_threads(void)
{
	pthread_t	threads[GMT_THREADS];
	gmt_thread	t[GMT_THREADS];
	size_t		in_use0,
				reserved0,
				in_use,
				reserved;
	int			started = 0;

	unit_case("gpu memory: %d threads at once, each with its own last error", GMT_THREADS);
	if (!figures(&in_use0, &reserved0))
		return;
	UNIT_CHECK(gsd_compact_f64(NULL, NULL, 0, NULL, NULL) == GSD_INVALID,
			   "compaction without a count accepted");
	for (int i = 0; i < GMT_THREADS; i++)
	{
		memset(&t[i], 0, sizeof(t[i]));
		t[i].index = i;
		if (pthread_create(&threads[i], NULL, gmt_thread_main, &t[i]) != 0)
			break;
		started++;
	}
	UNIT_CHECK(started == GMT_THREADS, "%d threads started", started);
	for (int i = 0; i < started; i++)
	{
		pthread_join(threads[i], NULL);
		UNIT_CHECK(t[i].failures == 0 && t[i].mismatches == 0,
				   "thread %d: %d calls failed, %d round trips differ", i, t[i].failures,
				   t[i].mismatches);
		UNIT_CHECK(t[i].own_error, "thread %d: its last error was not its own", i);
	}
	UNIT_CHECK(strstr(gsd_last_error(), "count pointer") != NULL,
			   "this thread's last error changed: %s", gsd_last_error());
	if (gsd_synchronize() == GSD_OK && figures(&in_use, &reserved))
		UNIT_CHECK(in_use == in_use0, "in use %zu after the threads, %zu before",
				   in_use, in_use0);
}

/* test_standin -- the stand-in's settings, where it is the device */
static void
test_standin(void)
{
	gsd_build_info build;
	gsd_device_props props;
	const char *gpus = getenv("GPUSCAN_STANDIN_GPUS");
	const char *mb = getenv("GPUSCAN_STANDIN_MEMORY_MB");
	int			count = -1;

	gsd_get_build_info(&build);
	if (strcmp(build.arch_list, GSD_STANDIN_ARCH) != 0)
		return;
	unit_case("gpu memory: the stand-in device's settings");
	UNIT_CHECK(build.runtime_version != 0, "runtime version 0");
	UNIT_CHECK(gsd_device_count(&count) == GSD_OK &&
			   count == (gpus && *gpus ? atoi(gpus) : 1),
			   "%d devices, GPUSCAN_STANDIN_GPUS %s", count, gpus ? gpus : "unset");
	UNIT_CHECK(gsd_get_device_props(0, &props) == GSD_OK &&
			   props.total_memory == (mb && *mb ? (size_t) atol(mb) : 1024) * MB &&
			   strcmp(props.name, "gpuscan stand-in GPU 0 (host memory)") == 0,
			   "device 0: %s, %zu bytes", props.name, props.total_memory);
	UNIT_CHECK(gsd_get_device_props(count, &props) == GSD_NO_DEVICE,
			   "device %d exists", count);
}

void
suite_gpu_memory(void)
{
	test_open();
	test_pool();
	test_too_large();
	test_threads();
	test_standin();
}
