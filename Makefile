# gpuscan -- GPU parallel primitives for PostgreSQL
#
#   make                 build (CUDA if nvcc is found, else CPU-only)
#   make install         install into the server of $(PG_CONFIG)
#   make installcheck    pg_regress against a running server
#   make check           everything from a fresh machine: test/check.sh
#   make check-citus     on a Citus cluster of three throw-away servers: test/citus/check.sh
#   make demo            a short demo on a throw-away server: test/demo.sh
#   make unit            C unit tests of the CPU code and the kernels (and, built
#                        with CUDA, of the course's kernels: kernels/course/)
#   make unit-asan       the unit tests under ASan and UBSan (ASAN_CUDA=1: with the kernels)
#   make fuzz            the libFuzzer harnesses, FUZZ_SECONDS each: test/fuzz/run.sh
#   make fuzz-merge      fuzz, and merge what is new into test/fuzz/corpus
#   make bench-kernels   device-resident kernel benchmarks (needs nvcc)
#
# Variables: PG_CONFIG, CUDA_HOME, NVCC, CUDA_ARCHS (e.g. "80 90"), and
# GPUSCAN_DEVICE, what serves the device API (kernels/gpuscan_device.h):
#   cuda      the CUDA kernels (the default where nvcc is found)
#   none      no device: CPU only (the default without nvcc);
#             GPUSCAN_CPU_ONLY=1 means the same
#   standin   stand-in GPUs in host memory (kernels/standin_device.c), so
#             that the GPU paths and the GPU service run without a GPU; no
#             nvcc needed.  GPUSCAN_STANDIN_GPUS and GPUSCAN_STANDIN_MEMORY_MB
#             in the environment of the processes set how many and how large.

EXTENSION = gpuscan
MODULE_big = gpuscan
DATA = sql/gpuscan--1.0.sql sql/gpuscan--1.1.sql sql/gpuscan--1.2.sql sql/gpuscan--1.0--1.1.sql \
	sql/gpuscan--1.1--1.2.sql
PGFILEDESC = "gpuscan - GPU parallel primitives (reduce, scan, compact, SpMV)"

REGRESS = setup sum_array sum_agg sum_rows agg_states prefix_sum compact staging settings errors limits device_memory spmv pagerank pagerank_edges csr_agg stored_key cache upgrade
# two sessions at once (pg_isolation_regress): specs/
ISOLATION = rows_snapshot

PG_CONFIG ?= pg_config

# C sources of the PostgreSQL side, by subsystem (docs/design.md, "The
# tree"); SRC_CPU are plain C (no PostgreSQL headers) so that the unit
# tests, the fuzzers and the stand-in device link them too.
SRC_FUNCTIONS = src/functions/sum.c src/functions/sum_agg.c src/functions/prefix_sum.c \
	src/functions/compact.c src/functions/spmv.c src/functions/pagerank.c \
	src/functions/pagerank_edges.c src/functions/csr_agg.c src/functions/info.c
SRC_PLANNER = src/planner/sum_table_scan.c src/planner/group_sum_table_scan.c \
	src/planner/csr_table_scan.c src/planner/heap_blocks.c src/planner/pages_to_gpu.c
SRC_DISPATCH = src/dispatch/dispatch.c src/dispatch/cost_model.c src/dispatch/placement.c \
	src/dispatch/stats.c
SRC_PGLIB = src/pg/call_profile.c src/pg/array_input.c src/pg/array_stream.c src/pg/result_rows.c src/pg/chunks.c src/pg/heap_layout.c
SRC_CLIENT = src/client/channel_client.c src/client/service_call.c src/client/cached_call.c
SRC_IPC = src/ipc/channel.c src/ipc/device_cache.c src/ipc/service_status.c src/ipc/staging_area.c src/ipc/stored_array.c
SRC_SERVICE = src/service/gpu_service.c src/service/channel_serve.c src/service/service_ops.c \
	src/service/service_workers.c
SRC_PG = src/gpuscan.c $(SRC_FUNCTIONS) $(SRC_PLANNER) $(SRC_DISPATCH) $(SRC_PGLIB) \
	$(SRC_CLIENT) $(SRC_IPC) $(SRC_SERVICE)
SRC_CPU = src/cpu/cpu_sum.c src/cpu/cpu_prefix_sum.c src/cpu/cpu_compact.c src/cpu/cpu_spmv.c \
	src/cpu/csr_check.c src/cpu/csr_sort.c src/cpu/csr_assemble.c src/cpu/sum_state.c \
	src/cpu/sum_window.c src/cpu/copy_workers.c src/cpu/placement_policy.c src/cpu/heap_sum.c

# ---- the device: cuda, none or standin ----
ifdef GPUSCAN_CPU_ONLY
ifneq ($(filter-out none,$(GPUSCAN_DEVICE)),)
$(error GPUSCAN_CPU_ONLY means GPUSCAN_DEVICE=none, not GPUSCAN_DEVICE=$(GPUSCAN_DEVICE))
endif
override GPUSCAN_DEVICE := none
endif

# ---- CUDA toolkit (looked for unless the device is none or the stand-in) ----
ifeq ($(filter none standin,$(GPUSCAN_DEVICE)),)
CUDA_HOME ?= $(or $(wildcard /usr/local/cuda),$(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)))
NVCC ?= $(wildcard $(CUDA_HOME)/bin/nvcc)
endif
ifeq ($(GPUSCAN_DEVICE),)
override GPUSCAN_DEVICE := $(if $(NVCC),cuda,none)
endif
ifeq ($(filter cuda none standin,$(GPUSCAN_DEVICE)),)
$(error GPUSCAN_DEVICE must be cuda, none or standin, not "$(GPUSCAN_DEVICE)")
endif
ifeq ($(GPUSCAN_DEVICE)$(NVCC),cuda)
$(error GPUSCAN_DEVICE=cuda needs nvcc (set CUDA_HOME or NVCC))
endif
CUDA_ARCHS ?= 80 90
# SASS for every listed architecture, PTX of the newest for later GPUs
NVCC_GENCODE = $(foreach a,$(CUDA_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) \
	-gencode=arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
NVCCFLAGS = -O3 -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden $(NVCC_GENCODE) \
	-Icommon -Ikernels -DGPUSCAN_ARCHS='"$(CUDA_ARCHS)"'

CU_SRC = kernels/device.cu kernels/reduce_exact.cu kernels/scan_exact.cu kernels/heap_values.cu kernels/heap_groups.cu \
	kernels/compact.cu kernels/spmv.cu kernels/csr_transpose.cu
# The course's kernels (kernels/course/gpuscan_course.h): the teaching
# versions that the unit tests and the kernel benchmark set beside the
# production ones.  No SQL function calls them: they are built for those
# two alone, never linked into the library.
COURSE_SRC = kernels/course/reduce_progression.cu kernels/course/scan_progression.cu \
	kernels/course/compact_progression.cu kernels/course/spmv_reference.cu
# The CUDA objects of each set of architectures in a folder of their own:
# they depend on neither PostgreSQL nor the other build modes, so a build
# for another server or mode (test/check.sh, CI) does not compile them again.
empty :=
CUDA_ARCHS_NAME = $(subst $(empty) $(empty),-,$(strip $(CUDA_ARCHS)))
CUDA_BUILD = build/cuda-$(CUDA_ARCHS_NAME)
COURSE_BUILD = build/course-$(CUDA_ARCHS_NAME)
ifeq ($(GPUSCAN_DEVICE),cuda)
CU_OBJS = $(patsubst kernels/%.cu,$(CUDA_BUILD)/%.o,$(CU_SRC))
COURSE_OBJS = $(patsubst kernels/course/%.cu,$(COURSE_BUILD)/%.o,$(COURSE_SRC))
DEVICE_OBJS = $(CU_OBJS)
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -lpthread -ldl -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic -Wl,--exclude-libs,ALL
else ifeq ($(GPUSCAN_DEVICE),standin)
DEVICE_OBJS = kernels/standin_device.o
CUDA_LIBS =
else
DEVICE_OBJS = kernels/none_device.o
CUDA_LIBS =
endif

OBJS = $(SRC_PG:.c=.o) $(SRC_CPU:.c=.o)
# CUDA objects go in through SHLIB_LINK, not OBJS, so that PGXS on an
# LLVM-enabled server does not look for LLVM bitcode of them.
SHLIB_LINK += $(DEVICE_OBJS) $(CUDA_LIBS) -lpthread -lm
PG_CPPFLAGS = -Icommon -Ikernels -Isrc
PG_CFLAGS = -std=gnu99

EXTRA_CLEAN = build kernels/none_device.o kernels/standin_device.o test/unit/gpuscan_unit .build-mode \
	bench/kernel_bench bench/copy_rates test/results tmp_check test/unit/gpuscan_unit_asan test/unit/asan \
	test/fuzz/build

# 'make check' and 'make demo' install PostgreSQL first where it is missing,
# so they must work before pg_config exists; the unit tests and the kernel
# benchmarks need no PostgreSQL either.  PGXS only for the other goals.
NO_PGXS_GOALS = check check-citus demo unit bench-kernels test/unit/gpuscan_unit bench/kernel_bench bench/copy_rates \
	unit-asan test/unit/gpuscan_unit_asan fuzz fuzz-merge
ifneq ($(filter-out $(NO_PGXS_GOALS),$(or $(MAKECMDGOALS),all)),)
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifeq ($(PGXS),)
$(error $(PG_CONFIG) not found: install PostgreSQL's server development package, or run "make check")
endif
include $(PGXS)
else
.PHONY: check check-citus demo
check:
	@PG_CONFIG=$(PG_CONFIG) bash test/check.sh

check-citus:
	@PG_CONFIG=$(PG_CONFIG) bash test/citus/check.sh

demo:
	@PG_CONFIG=$(PG_CONFIG) bash test/demo.sh
endif

.PHONY: unit unit-asan fuzz fuzz-merge bench-kernels

$(shlib): $(DEVICE_OBJS)

# Rebuild everything when the build mode (CUDA and its architectures,
# CPU-only, or the stand-in) changes, so that objects of different modes
# are never mixed.
BUILD_MODE_cuda = cuda $(CUDA_ARCHS)
BUILD_MODE_none = cpu-only
BUILD_MODE_standin = standin
BUILD_MODE = $(BUILD_MODE_$(GPUSCAN_DEVICE))
.build-mode: FORCE
	@echo '$(BUILD_MODE)' | cmp -s - $@ || echo '$(BUILD_MODE)' > $@
$(OBJS) $(shlib) kernels/none_device.o kernels/standin_device.o: .build-mode
.PHONY: FORCE
FORCE:

$(CUDA_BUILD)/%.o: kernels/%.cu $(wildcard kernels/*.h kernels/*.cuh common/*.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(COURSE_BUILD)/%.o: kernels/course/%.cu $(wildcard kernels/*.h kernels/*.cuh kernels/course/*.h common/*.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# what a build against one PostgreSQL leaves (test/check.sh removes it
# before it builds against another); the CUDA objects in build/ stay
.PHONY: clean-pg
clean-pg:
	rm -f $(OBJS) $(OBJS:.o=.bc) $(MODULE_big).index.bc $(shlib) kernels/none_device.o kernels/standin_device.o \
		.build-mode test/unit/gpuscan_unit

kernels/none_device.o: kernels/none_device.c kernels/gpuscan_device.h
	$(CC) $(CFLAGS) $(CPPFLAGS) -fPIC -Icommon -Ikernels -c $< -o $@

# plain C with pthreads, calling the CPU code of src/ (SRC_CPU)
STANDIN_CFLAGS = -O2 -std=gnu99 -pthread -ffp-contract=off -Icommon -Ikernels -Isrc
kernels/standin_device.o: kernels/standin_device.c $(wildcard kernels/*.h src/cpu/*.h common/*.h)
	$(CC) $(CFLAGS) $(CPPFLAGS) -fPIC $(STANDIN_CFLAGS) -c $< -o $@

$(OBJS): $(wildcard common/*.h src/*/*.h) kernels/gpuscan_device.h

# the canonical SpMV order rounds every product and sum: no FMA contraction
src/cpu/cpu_spmv.o: CFLAGS += -ffp-contract=off

# ---- unit tests: plain C, linked with the CPU code and the kernels ----
UNIT_SRC = test/unit/main.c test/unit/unit_util.c test/unit/test_cpu_sum.c test/unit/test_gpu_sum.c \
	test/unit/test_cpu_scan.c test/unit/test_gpu_scan.c \
	test/unit/test_cpu_compact.c test/unit/test_gpu_compact.c \
	test/unit/test_cpu_spmv.c test/unit/test_gpu_spmv.c test/unit/test_sum_state.c test/unit/test_heap_pages.c \
	test/unit/test_sum_window.c test/unit/test_copy_workers.c test/unit/test_placement.c \
	test/unit/test_csr_build.c test/unit/test_gpu_memory.c
# the suites of the course's kernels, built where they are (CUDA) with
# GPUSCAN_COURSE defined; elsewhere main.c prints them as skipped
UNIT_COURSE_SRC = test/unit/test_reduce_progression.c test/unit/test_scan_progression.c \
	test/unit/test_compact_progression.c test/unit/test_spmv_reference.c
COURSE_CFLAGS = -DGPUSCAN_COURSE -Ikernels/course
# no floating-point contraction: src/cpu/cpu_spmv.c must round as the GPU does
UNIT_CFLAGS = -O2 -g -std=gnu99 -Wall -pthread -ffp-contract=off -Icommon -Ikernels -Isrc
ifeq ($(GPUSCAN_DEVICE),cuda)
UNIT_COURSE = $(UNIT_COURSE_SRC) $(COURSE_OBJS)
UNIT_COURSE_CFLAGS = $(COURSE_CFLAGS)
endif

test/unit/gpuscan_unit: $(UNIT_SRC) $(UNIT_COURSE) $(SRC_CPU) $(DEVICE_OBJS) .build-mode $(wildcard test/unit/*.h src/cpu/*.h common/*.h kernels/*.h kernels/course/*.h)
	$(CC) $(UNIT_CFLAGS) $(UNIT_COURSE_CFLAGS) $(UNIT_SRC) $(UNIT_COURSE) $(SRC_CPU) $(DEVICE_OBJS) $(CUDA_LIBS) -lm -o $@

unit: test/unit/gpuscan_unit
	./test/unit/gpuscan_unit

# ---- the unit tests under ASan and UBSan ----
# CPU-only (kernels/none_device.c), with the stand-in device where
# GPUSCAN_DEVICE=standin (built with the sanitizers too), or with
# ASAN_CUDA=1 (where a GPU is) the kernels and the course's kernels, their
# host code built with the sanitizers (nvcc splits -Xcompiler values at
# commas: one flag each) and the static CUDA runtime.
ASAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_NVCC_FLAGS = $(foreach f,-fsanitize=address -fsanitize=undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer,-Xcompiler $(f))
ifeq ($(ASAN_CUDA),1)
ifneq ($(GPUSCAN_DEVICE),cuda)
$(error ASAN_CUDA=1 needs nvcc (CUDA_HOME or NVCC), and GPUSCAN_DEVICE=cuda)
endif
ASAN_DEVICE = $(patsubst kernels/%.cu,test/unit/asan/%.o,$(CU_SRC))
ASAN_COURSE = $(UNIT_COURSE_SRC) $(patsubst kernels/course/%.cu,test/unit/asan/course/%.o,$(COURSE_SRC))
ASAN_COURSE_CFLAGS = $(COURSE_CFLAGS)
ASAN_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -lpthread -ldl -lstdc++
ASAN_MODE = cuda $(CUDA_ARCHS)
else ifeq ($(GPUSCAN_DEVICE),standin)
ASAN_DEVICE = kernels/standin_device.c
ASAN_LIBS = -lpthread
ASAN_MODE = standin
else
ASAN_DEVICE = kernels/none_device.c
ASAN_MODE = cpu-only
endif

test/unit/asan/mode: FORCE
	@mkdir -p test/unit/asan
	@echo '$(ASAN_MODE)' | cmp -s - $@ || echo '$(ASAN_MODE)' > $@

test/unit/asan/course/%.o: kernels/course/%.cu $(wildcard kernels/*.h kernels/*.cuh kernels/course/*.h common/*.h) test/unit/asan/mode
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(ASAN_NVCC_FLAGS) -c $< -o $@

test/unit/asan/%.o: kernels/%.cu $(wildcard kernels/*.h kernels/*.cuh common/*.h) test/unit/asan/mode
	$(NVCC) $(NVCCFLAGS) $(ASAN_NVCC_FLAGS) -c $< -o $@

test/unit/gpuscan_unit_asan: $(UNIT_SRC) $(ASAN_COURSE) $(SRC_CPU) $(ASAN_DEVICE) test/unit/asan/mode $(wildcard test/unit/*.h src/cpu/*.h common/*.h kernels/*.h kernels/course/*.h)
	$(CC) $(UNIT_CFLAGS) $(ASAN_COURSE_CFLAGS) $(ASAN_FLAGS) $(UNIT_SRC) $(ASAN_COURSE) $(SRC_CPU) $(ASAN_DEVICE) $(ASAN_LIBS) -lm -o $@

unit-asan: test/unit/gpuscan_unit_asan
	@bash test/unit/run_asan.sh $(if $(filter 1,$(ASAN_CUDA)),cuda)

# ---- fuzzing with libFuzzer (clang): test/fuzz/run.sh ----
FUZZ_SECONDS ?= 60

fuzz:
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash test/fuzz/run.sh run

fuzz-merge:
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash test/fuzz/run.sh merge

# ---- kernel benchmarks on device-resident data (CUB, cuSPARSE alongside) ----
# the production kernels and the course's
bench/kernel_bench: bench/kernel_bench.cu $(wildcard bench/*.cuh kernels/course/*.h) $(CU_OBJS) $(COURSE_OBJS) $(SRC_CPU)
	$(NVCC) $(NVCCFLAGS) -Xcompiler -ffp-contract=off -Isrc -Ikernels/course bench/kernel_bench.cu $(CU_OBJS) \
		$(COURSE_OBJS) $(SRC_CPU) -lcusparse -o $@

bench-kernels: bench/kernel_bench
	./bench/kernel_bench

# ---- the host side of a transfer: PCIe, helper-thread copies, staged pipelines ----
bench/copy_rates: bench/copy_rates.cu src/cpu/copy_workers.c src/cpu/copy_workers.h
	$(NVCC) $(NVCCFLAGS) -Isrc bench/copy_rates.cu src/cpu/copy_workers.c -lpthread -o $@
