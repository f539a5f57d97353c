/*-------------------------------------------------------------------------
 *
 * bench_spmv.cuh
 *	  The spmv section of kernel_bench: y = A x on device-resident CSR
 *	  matrices of 2^26 non-zeros (banded, uniform random, R-MAT power law),
 *	  float and double: the production kernel (gsd_spmv_*), the course's
 *	  segmented-scan reference (gsd_spmv_reference) and cusparseSpMV
 *	  (CSR_ALG1); then PageRank on an R-MAT graph of 2^24 edges, device
 *	  against the CPU code.
 *
 * The matrices are generated on the device from bench_hash: banded and
 * uniform rows of 16 entries (KERNEL_BENCH_SPMV_ROW_LEN=L: of L entries, a
 * power of two from 1 to 256, with 2^26 / L rows); R-MAT edges (a, b, c = 0.57, 0.19, 0.19) as
 * 64-bit (row, column) keys sorted by cub::DeviceRadixSort, then row_ptr
 * from a row histogram and an exclusive scan.  Before timing, the
 * production result is checked against the CPU (bit for bit) and
 * cuSPARSE's and the reference's against the CPU within their error bound.
 * GB/s counts the compulsory traffic: per non-zero its column index and
 * value, per row its row pointer and y, and x once.
 *
 *-------------------------------------------------------------------------
 */
#include <cusparse.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gpuscan_course.h"

extern "C"
{
#include "cpu/cpu_spmv.h"
}

#define SPMV_BENCH_LOG2_ROWS	22	/* 4M rows */
#define SPMV_BENCH_ROW_LEN		16	/* banded and uniform: 2^26 non-zeros */
#define SPMV_BENCH_MAX_ROW_LEN	256
#define SPMV_BENCH_LOG2_NNZ		26
#define PR_BENCH_LOG2_NODES		20	/* PageRank: 1M nodes */
#define PR_BENCH_LOG2_EDGES		24	/* 16.8M edges */

#define BENCH_CUSPARSE(call) \
	do { cusparseStatus_t s_ = (call); \
		 if (s_ != CUSPARSE_STATUS_SUCCESS) { \
			 fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
					 cusparseGetErrorString(s_)); exit(2); } } while (0)

/* a CSR matrix on the device, values in double and float */
typedef struct spmv_matrix
{
	const char *name;
	int32_t		nrows;
	int32_t		nnz;
	int32_t    *d_rp;
	int32_t    *d_ci;
	double	   *d_v64;
	float	   *d_v32;
} spmv_matrix;

/* spmv_gen_regular -- rows of len entries: a band around the diagonal or random columns */
__global__ void
spmv_gen_regular(int32_t nrows, int32_t len, int banded, int32_t *rp, int32_t *ci, uint64_t seed)
{
	for (int64_t k = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
		 k < (int64_t) nrows * len; k += (int64_t) gridDim.x * blockDim.x)
	{
		int64_t		row = k / len;
		int			j = (int) (k % len);

		if (banded)
			ci[k] = (int32_t) ((row + j - len / 2 + nrows) % nrows);
		else
			ci[k] = (int32_t) (bench_hash(seed, (uint64_t) k) % (uint64_t) nrows);
		if (j == 0)
			rp[row] = (int32_t) k;
		if (k == 0)
			rp[nrows] = (int32_t) ((int64_t) nrows * len);
	}
}

/* spmv_row_len -- the regular matrices' row length: KERNEL_BENCH_SPMV_ROW_LEN or 16 */
static int32_t
spmv_row_len(void)
{
	const char *e = getenv("KERNEL_BENCH_SPMV_ROW_LEN");
	int32_t		len = e ? atoi(e) : SPMV_BENCH_ROW_LEN;

	if (len < 1 || len > SPMV_BENCH_MAX_ROW_LEN || (len & (len - 1)) != 0)
	{
		fprintf(stderr, "KERNEL_BENCH_SPMV_ROW_LEN must be a power of two from 1 to %d\n",
				SPMV_BENCH_MAX_ROW_LEN);
		exit(2);
	}
	return len;
}

/* spmv_gen_rmat -- R-MAT edges as (row << 32 | col) keys */
__global__ void
spmv_gen_rmat(int64_t nedges, int log2_nodes, uint64_t *keys, uint64_t seed)
{
	for (int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; e < nedges;
		 e += (int64_t) gridDim.x * blockDim.x)
	{
		uint64_t	row = 0,
					col = 0;

		for (int l = 0; l < log2_nodes; l++)
		{
			double		u = (double) (bench_hash(seed + l, (uint64_t) e) >> 11) * 0x1p-53;
			int			q = u < 0.57 ? 0 : (u < 0.76 ? 1 : (u < 0.95 ? 2 : 3));

			row = row * 2 + (q >> 1);
			col = col * 2 + (q & 1);
		}
		keys[e] = row << 32 | col;
	}
}

/* spmv_split_keys -- col_idx from the sorted keys, and the row histogram */
__global__ void
spmv_split_keys(const uint64_t *keys, int64_t nedges, int32_t *ci, int32_t *row_count)
{
	for (int64_t e = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; e < nedges;
		 e += (int64_t) gridDim.x * blockDim.x)
	{
		ci[e] = (int32_t) (keys[e] & 0xffffffffu);
		atomicAdd(&row_count[keys[e] >> 32], 1);
	}
}

/* spmv_gen_values -- values in [-1, 1) as double and their float rounding */
__global__ void
spmv_gen_values(int64_t n, double *v64, float *v32, uint64_t seed)
{
	for (int64_t k = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; k < n;
		 k += (int64_t) gridDim.x * blockDim.x)
	{
		double		v = (double) (bench_hash(seed, (uint64_t) k) >> 11) * 0x1p-52 - 1.0;

		v64[k] = v;
		v32[k] = (float) v;
	}
}

/* spmv_make_rmat -- an R-MAT pattern of 2^log2_nodes rows and nedges entries */
static void
spmv_make_rmat(bench_env *env, int log2_nodes, int64_t nedges, int32_t **d_rp, int32_t **d_ci)
{
	int32_t		n = 1 << log2_nodes;
	uint64_t   *keys,
			   *keys_alt;
	int32_t    *count;
	void	   *tmp = NULL;
	size_t		tmp_bytes = 0,
				scan_bytes = 0;

	BENCH_CK(cudaMalloc(&keys, sizeof(uint64_t) * nedges));
	BENCH_CK(cudaMalloc(&keys_alt, sizeof(uint64_t) * nedges));
	BENCH_CK(cudaMalloc(&count, sizeof(int32_t) * ((size_t) n + 1)));
	BENCH_CK(cudaMalloc(d_rp, sizeof(int32_t) * ((size_t) n + 1)));
	BENCH_CK(cudaMalloc(d_ci, sizeof(int32_t) * nedges));
	spmv_gen_rmat<<<1024, 256, 0, env->stream>>>(nedges, log2_nodes, keys, BENCH_SEED + 7);
	BENCH_CK_LAUNCH();
	BENCH_CK(cub::DeviceRadixSort::SortKeys(NULL, tmp_bytes, keys, keys_alt, nedges, 0,
											32 + log2_nodes, env->stream));
	BENCH_CK(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, count, *d_rp, n + 1, env->stream));
	tmp_bytes = std::max(tmp_bytes, scan_bytes);
	BENCH_CK(cudaMalloc(&tmp, tmp_bytes));
	BENCH_CK(cub::DeviceRadixSort::SortKeys(tmp, tmp_bytes, keys, keys_alt, nedges, 0,
											32 + log2_nodes, env->stream));
	BENCH_CK(cudaMemsetAsync(count, 0, sizeof(int32_t) * ((size_t) n + 1), env->stream));
	spmv_split_keys<<<1024, 256, 0, env->stream>>>(keys_alt, nedges, *d_ci, count);
	BENCH_CK_LAUNCH();
	BENCH_CK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, count, *d_rp, n + 1, env->stream));
	BENCH_CK(cudaStreamSynchronize(env->stream));
	BENCH_CK(cudaFree(tmp));
	BENCH_CK(cudaFree(count));
	BENCH_CK(cudaFree(keys_alt));
	BENCH_CK(cudaFree(keys));
}

/* spmv_make_matrix -- one of the three matrices, values included */
static void
spmv_make_matrix(bench_env *env, spmv_matrix *m, int kind)
{
	static const char *const names[] = {"banded", "uniform random", "R-MAT power law"};
	static std::string regular_names[2];
	const int32_t len = spmv_row_len();

	m->name = names[kind];
	m->nrows = 1 << SPMV_BENCH_LOG2_ROWS;
	m->nnz = 1 << SPMV_BENCH_LOG2_NNZ;
	if (kind < 2)
	{
		if (len != SPMV_BENCH_ROW_LEN)
		{
			regular_names[kind] = bench_fmt("%s, rows of %d", names[kind], len);
			m->name = regular_names[kind].c_str();
			m->nrows = m->nnz / len;
		}
		BENCH_CK(cudaMalloc(&m->d_rp, sizeof(int32_t) * ((size_t) m->nrows + 1)));
		BENCH_CK(cudaMalloc(&m->d_ci, sizeof(int32_t) * (size_t) m->nnz));
		spmv_gen_regular<<<1024, 256, 0, env->stream>>>(m->nrows, len, kind == 0, m->d_rp,
														 m->d_ci, BENCH_SEED + 3);
		BENCH_CK_LAUNCH();
	}
	else
		spmv_make_rmat(env, SPMV_BENCH_LOG2_ROWS, m->nnz, &m->d_rp, &m->d_ci);
	BENCH_CK(cudaMalloc(&m->d_v64, sizeof(double) * (size_t) m->nnz));
	BENCH_CK(cudaMalloc(&m->d_v32, sizeof(float) * (size_t) m->nnz));
	spmv_gen_values<<<1024, 256, 0, env->stream>>>(m->nnz, m->d_v64, m->d_v32, BENCH_SEED + 5);
	BENCH_CK_LAUNCH();
	BENCH_CK(cudaStreamSynchronize(env->stream));
}

/* spmv_free_matrix -- give back a matrix's device memory */
static void
spmv_free_matrix(spmv_matrix *m)
{
	BENCH_CK(cudaFree(m->d_rp));
	BENCH_CK(cudaFree(m->d_ci));
	BENCH_CK(cudaFree(m->d_v64));
	BENCH_CK(cudaFree(m->d_v32));
}

/*
 * spmv_check -- got against the CPU's y: bit for bit (exact != 0) or
 * within (len + 64) u sum |a x| per row; returns whether it passed
 */
template <typename T>
static bool
spmv_check(const char *what, const T *got, const T *cpu, const double *abs_sum,
		   const int32_t *rp, int32_t nrows, bool exact)
{
	double		u = sizeof(T) == sizeof(double) ? 0x1p-53 : 0x1p-24;
	int64_t		bad = 0;

	for (int32_t i = 0; i < nrows; i++)
	{
		bool		ok = exact ? memcmp(&got[i], &cpu[i], sizeof(T)) == 0 :
			fabs((double) got[i] - (double) cpu[i]) <=
			(rp[i + 1] - rp[i] + 64) * u * abs_sum[i] * 1.01 + 1e-30;

		if (!ok && bad++ < 3)
			fprintf(stderr, "  %s: row %d: %.17g, cpu %.17g\n", what, i, (double) got[i],
					(double) cpu[i]);
	}
	if (bad > 0)
		fprintf(stderr, "  %s: %lld rows wrong\n", what, (long long) bad);
	return bad == 0;
}

/* spmv_section_type -- validate and time the three kernels on one matrix and type */
template <typename T>
static void
spmv_section_type(bench_env *env, const spmv_matrix *m, bench_table *tab, int col,
				  const std::vector<int32_t> &rp, const std::vector<int32_t> &ci,
				  const std::vector<double> &v64)
{
	const bool	dbl = sizeof(T) == sizeof(double);
	const int32_t n = m->nrows;
	const T    *d_v = dbl ? (const T *) m->d_v64 : (const T *) m->d_v32;
	cudaDataType dtype = dbl ? CUDA_R_64F : CUDA_R_32F;
	std::vector<T> x(n),
				v(m->nnz),
				cpu(n),
				got(n);
	std::vector<double> abs_sum(n);
	T		   *d_x,
			   *d_y;
	void	   *d_scratch,
			   *d_plan,
			   *d_ref,
			   *d_cs;
	gsd_spmv_plan plan;
	cusparseHandle_t h;
	cusparseSpMatDescr_t A;
	cusparseDnVecDescr_t X,
				Y;
	T			alpha = 1,
				beta = 0;
	size_t		cs_bytes = 0;
	double		bytes = (double) m->nnz * (4 + sizeof(T)) + (double) (n + 1) * 4 +
		2.0 * n * sizeof(T);
	bench_timing tp,
				tr,
				tc;
	bool		ok;

	for (int32_t j = 0; j < n; j++)
		x[j] = (T) ((double) (bench_hash(BENCH_SEED + 11, (uint64_t) j) >> 11) * 0x1p-52 - 1.0);
	for (int32_t k = 0; k < m->nnz; k++)
		v[k] = (T) v64[k];
	for (int32_t i = 0; i < n; i++)
	{
		double		s = 0;

		for (int32_t k = rp[i]; k < rp[i + 1]; k++)
			s += fabs((double) v[k] * (double) x[ci[k]]);
		abs_sum[i] = s;
	}
	if (dbl)
		cpu_spmv_f64(rp.data(), ci.data(), (const double *) v.data(), (const double *) x.data(),
					 (double *) cpu.data(), 0, n);
	else
		cpu_spmv_f32(rp.data(), ci.data(), (const float *) v.data(), (const float *) x.data(),
					 (float *) cpu.data(), 0, n);

	BENCH_CK(cudaMalloc(&d_x, sizeof(T) * n));
	BENCH_CK(cudaMalloc(&d_y, sizeof(T) * n));
	BENCH_CK(cudaMemcpy(d_x, x.data(), sizeof(T) * n, cudaMemcpyHostToDevice));

	/* production: the plan once, outside the timing */
	BENCH_CK(cudaMalloc(&d_scratch, gsd_spmv_plan_scratch_bytes(n)));
	BENCH_GSD(gsd_spmv_plan_analyze(&plan, m->d_rp, n, m->nnz, d_scratch));
	BENCH_CK(cudaMalloc(&d_plan, gsd_spmv_plan_bytes(&plan) + 1));
	BENCH_GSD(gsd_spmv_plan_build(&plan, m->d_rp, d_scratch, d_plan));
	auto		production = [&](int) {
		if (dbl)
			BENCH_GSD(gsd_spmv_f64(&plan, m->d_rp, m->d_ci, (const double *) d_v,
								   (const double *) d_x, (double *) d_y));
		else
			BENCH_GSD(gsd_spmv_f32(&plan, m->d_rp, m->d_ci, (const float *) d_v,
								   (const float *) d_x, (float *) d_y));
	};
	bench_poison(env, d_y, sizeof(T) * n);
	production(0);
	bench_download(env, got.data(), d_y, sizeof(T) * n);
	ok = spmv_check<T>("production", got.data(), cpu.data(), abs_sum.data(), rp.data(), n, true);
	if (ok)
	{
		tp = bench_time(env, 1, production);
		tab->set(bench_fmt("%s: gsd_spmv (G %d, staged rows %d, %d long-row segments)",
						   m->name, plan.group_lanes, plan.stage_rows, plan.nsegments), col,
				 bench_fmt("%.0f GFLOP/s, %.0f GB/s (%.0f us)", 2.0 * m->nnz / tp.median_us / 1e3,
						   bench_gbs(bytes, tp.median_us), tp.median_us));
	}
	else
	{
		env->failures++;
		tab->set(bench_fmt("%s: gsd_spmv", m->name), col, "FAILED");
	}

	/*
	 * KERNEL_BENCH_SPMV_TUNE=1: the production kernel again with every
	 * group size G from 1 to 16 (the plan's long-row threshold kept), each
	 * reading its rows directly (0) and staged 64 to 1024 rows a block, to
	 * choose the rules that pick G and the staged rows.  Any of them follows
	 * the same summation order, so each must give the same bits.
	 */
	if (getenv("KERNEL_BENCH_SPMV_TUNE") != NULL)
	{
		const gsd_spmv_plan chosen = plan;
		static const int32_t stage_tries[] = {0, 64, 128, 192, 256, 512, 1024};

		for (int32_t g = 1; g <= 16; g *= 2)
			for (int32_t r : stage_tries)
			{
				std::string name;

				plan.group_lanes = g;
				plan.stage_rows = r;
				name = bench_fmt("%s: tune: gsd_spmv with G %d, staged rows %d", m->name, g,
								 plan.stage_rows);
				bench_poison(env, d_y, sizeof(T) * n);
				production(0);
				bench_download(env, got.data(), d_y, sizeof(T) * n);
				if (spmv_check<T>("production, tuned", got.data(), cpu.data(), abs_sum.data(),
								  rp.data(), n, true))
				{
					bench_timing tg = bench_time(env, 1, production);

					tab->set(name, col, bench_fmt("%.0f us", tg.median_us));
				}
				else
				{
					env->failures++;
					tab->set(name, col, "FAILED");
				}
			}
		plan = chosen;
	}

	/* the course's reference */
	BENCH_CK(cudaMalloc(&d_ref, gsd_spmv_reference_scratch_bytes(m->nnz, dbl)));
	auto		reference = [&](int) {
		BENCH_GSD(gsd_spmv_reference(dbl, m->d_rp, n, m->d_ci, d_v, d_x, d_y, d_ref));
	};
	bench_poison(env, d_y, sizeof(T) * n);
	reference(0);
	bench_download(env, got.data(), d_y, sizeof(T) * n);
	if (spmv_check<T>("reference", got.data(), cpu.data(), abs_sum.data(), rp.data(), n, false))
	{
		tr = bench_time(env, 1, reference);
		tab->set(bench_fmt("%s: course reference (segmented scan)", m->name), col,
				 bench_fmt("%.0f GFLOP/s, %.0f GB/s (%.0f us)", 2.0 * m->nnz / tr.median_us / 1e3,
						   bench_gbs(bytes, tr.median_us), tr.median_us));
	}
	else
	{
		env->failures++;
		tab->set(bench_fmt("%s: course reference (segmented scan)", m->name), col, "FAILED");
	}

	/* cuSPARSE CSR_ALG1 */
	BENCH_CUSPARSE(cusparseCreate(&h));
	BENCH_CUSPARSE(cusparseSetStream(h, env->stream));
	BENCH_CUSPARSE(cusparseCreateCsr(&A, n, n, m->nnz, m->d_rp, m->d_ci, (void *) d_v,
									 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
									 CUSPARSE_INDEX_BASE_ZERO, dtype));
	BENCH_CUSPARSE(cusparseCreateDnVec(&X, n, d_x, dtype));
	BENCH_CUSPARSE(cusparseCreateDnVec(&Y, n, d_y, dtype));
	BENCH_CUSPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X,
										   &beta, Y, dtype, CUSPARSE_SPMV_CSR_ALG1, &cs_bytes));
	BENCH_CK(cudaMalloc(&d_cs, cs_bytes + 1));
	auto		cusparse = [&](int) {
		BENCH_CUSPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y,
									dtype, CUSPARSE_SPMV_CSR_ALG1, d_cs));
	};
	bench_poison(env, d_y, sizeof(T) * n);
	cusparse(0);
	bench_download(env, got.data(), d_y, sizeof(T) * n);
	if (spmv_check<T>("cusparse", got.data(), cpu.data(), abs_sum.data(), rp.data(), n, false))
	{
		tc = bench_time(env, 1, cusparse);
		tab->set(bench_fmt("%s: cusparseSpMV CSR_ALG1", m->name), col,
				 bench_fmt("%.0f GFLOP/s, %.0f GB/s (%.0f us)", 2.0 * m->nnz / tc.median_us / 1e3,
						   bench_gbs(bytes, tc.median_us), tc.median_us));
		if (ok)
			tab->set(bench_fmt("%s: ratio gsd_spmv / cuSPARSE (throughput)", m->name), col,
					 bench_fmt("%.2f×", tc.median_us / tp.median_us));
	}
	else
	{
		env->failures++;
		tab->set(bench_fmt("%s: cusparseSpMV CSR_ALG1", m->name), col, "FAILED");
	}
	BENCH_CUSPARSE(cusparseDestroyDnVec(X));
	BENCH_CUSPARSE(cusparseDestroyDnVec(Y));
	BENCH_CUSPARSE(cusparseDestroySpMat(A));
	BENCH_CUSPARSE(cusparseDestroy(h));
	BENCH_CK(cudaFree(d_cs));
	BENCH_CK(cudaFree(d_ref));
	BENCH_CK(cudaFree(d_plan));
	BENCH_CK(cudaFree(d_scratch));
	BENCH_CK(cudaFree(d_y));
	BENCH_CK(cudaFree(d_x));
}

/* spmv_pagerank_row -- PageRank on an R-MAT graph: device vs CPU, end to end */
static void
spmv_pagerank_row(bench_env *env)
{
	const int32_t n = 1 << PR_BENCH_LOG2_NODES;
	const int64_t m = (int64_t) 1 << PR_BENCH_LOG2_EDGES;
	int32_t    *d_rp,
			   *d_ci;
	std::vector<int32_t> rp(n + 1),
				ci(m),
				ip(n + 1),
				ii(m),
				deg(n);
	std::vector<double> r(n, 1.0 / n),
				next(n),
				share(n),
				diff(n),
				gpu(n);
	double		res = 1.0,
				gres = 1.0;
	int			it_cpu = 0,
				it_gpu = 0;
	bench_table tab;

	spmv_make_rmat(env, PR_BENCH_LOG2_NODES, m, &d_rp, &d_ci);
	bench_download(env, rp.data(), d_rp, sizeof(int32_t) * (n + 1));
	bench_download(env, ci.data(), d_ci, sizeof(int32_t) * m);
	BENCH_CK(cudaFree(d_rp));
	BENCH_CK(cudaFree(d_ci));
	for (int32_t i = 0; i < n; i++)
		deg[i] = rp[i + 1] - rp[i];

	/* CPU: transpose, then iterate (as gpu_pagerank's CPU path) */
	auto		t0 = std::chrono::steady_clock::now();

	cpu_csr_transpose_pattern(rp.data(), ci.data(), n, ip.data(), ii.data());
	while (it_cpu < 100 && res > 1e-10)
	{
		res = cpu_pagerank_iteration(ip.data(), ii.data(), deg.data(), n, 0.85, r.data(),
									 next.data(), share.data(), diff.data());
		std::swap(r, next);
		it_cpu++;
	}
	double		cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

	/* GPU (as gpu_pagerank's GPU path): upload, transpose, plan, iterate, download */
	auto		t1 = std::chrono::steady_clock::now();
	int32_t    *d_op,
			   *d_oi,
			   *d_ip,
			   *d_ii,
			   *d_deg;
	double	   *d_r[2];
	void	   *d_scratch,
			   *d_tscratch,
			   *d_plan,
			   *d_work;
	gsd_spmv_plan plan;
	int			cur = 0;

	std::fill(gpu.begin(), gpu.end(), 1.0 / n);
	BENCH_CK(cudaMalloc(&d_op, sizeof(int32_t) * (n + 1)));
	BENCH_CK(cudaMalloc(&d_oi, sizeof(int32_t) * m));
	BENCH_CK(cudaMalloc(&d_ip, sizeof(int32_t) * (n + 1)));
	BENCH_CK(cudaMalloc(&d_ii, sizeof(int32_t) * m));
	BENCH_CK(cudaMalloc(&d_deg, sizeof(int32_t) * n));
	BENCH_CK(cudaMalloc(&d_r[0], sizeof(double) * n));
	BENCH_CK(cudaMalloc(&d_r[1], sizeof(double) * n));
	BENCH_CK(cudaMalloc(&d_work, gsd_pagerank_work_bytes(n)));
	BENCH_CK(cudaMalloc(&d_tscratch, gsd_csr_transpose_scratch_bytes(n, (int32_t) m)));
	BENCH_GSD(gsd_upload(d_op, rp.data(), sizeof(int32_t) * (n + 1)));
	BENCH_GSD(gsd_upload(d_oi, ci.data(), sizeof(int32_t) * m));
	BENCH_GSD(gsd_csr_transpose_pattern(d_op, d_oi, n, n, (int32_t) m, d_ip, d_ii, d_tscratch));
	BENCH_GSD(gsd_upload(d_deg, deg.data(), sizeof(int32_t) * n));
	BENCH_GSD(gsd_upload(d_r[0], gpu.data(), sizeof(double) * n));
	BENCH_CK(cudaMalloc(&d_scratch, gsd_spmv_plan_scratch_bytes(n)));
	BENCH_GSD(gsd_spmv_plan_analyze(&plan, d_ip, n, (int32_t) m, d_scratch));
	BENCH_CK(cudaMalloc(&d_plan, gsd_spmv_plan_bytes(&plan) + 1));
	BENCH_GSD(gsd_spmv_plan_build(&plan, d_ip, d_scratch, d_plan));
	while (it_gpu < 100 && gres > 1e-10)
	{
		BENCH_GSD(gsd_pagerank_iteration(&plan, d_ip, d_ii, d_deg, 0.85, d_r[cur], d_r[1 - cur],
										 d_work, &gres));
		cur = 1 - cur;
		it_gpu++;
	}
	BENCH_GSD(gsd_download(gpu.data(), d_r[cur], sizeof(double) * n));
	double		gpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
	bool		same = it_gpu == it_cpu && memcmp(gpu.data(), r.data(), sizeof(double) * n) == 0;

	if (!same)
	{
		env->failures++;
		fprintf(stderr, "  pagerank: GPU and CPU ranks differ (%d / %d iterations)\n", it_gpu, it_cpu);
	}
	tab.title = bench_fmt("PageRank, R-MAT graph of 2^%d nodes and 2^%d edges, damping 0.85, "
						  "tolerance 1e-10 (end to end: the GPU uploads the graph and transposes it "
						  "there, the CPU transposes it on the host; plan, iterations, download; "
						  "the CPU path one thread)", PR_BENCH_LOG2_NODES,
						  PR_BENCH_LOG2_EDGES);
	tab.corner = "path";
	tab.cols = {"time", "iterations", "final L1 residual", "ranks"};
	tab.set("GPU (gsd_pagerank_iteration)", 0, bench_fmt("%.1f ms", gpu_ms));
	tab.set("GPU (gsd_pagerank_iteration)", 1, bench_fmt("%d", it_gpu));
	tab.set("GPU (gsd_pagerank_iteration)", 2, bench_fmt("%.3g", gres));
	tab.set("GPU (gsd_pagerank_iteration)", 3, same ? "same bits as the CPU" : "DIFFER");
	tab.set("CPU (cpu_pagerank_iteration)", 0, bench_fmt("%.1f ms", cpu_ms));
	tab.set("CPU (cpu_pagerank_iteration)", 1, bench_fmt("%d", it_cpu));
	tab.set("CPU (cpu_pagerank_iteration)", 2, bench_fmt("%.3g", res));
	tab.set("CPU (cpu_pagerank_iteration)", 3, "");
	tab.set("speed-up", 0, bench_fmt("%.1f×", cpu_ms / gpu_ms));
	tab.print(stdout);
	BENCH_CK(cudaFree(d_plan));
	BENCH_CK(cudaFree(d_scratch));
	BENCH_CK(cudaFree(d_work));
	BENCH_CK(cudaFree(d_r[0]));
	BENCH_CK(cudaFree(d_r[1]));
	BENCH_CK(cudaFree(d_deg));
	BENCH_CK(cudaFree(d_ii));
	BENCH_CK(cudaFree(d_ip));
	BENCH_CK(cudaFree(d_tscratch));
	BENCH_CK(cudaFree(d_oi));
	BENCH_CK(cudaFree(d_op));
}

/* section_spmv -- three matrices of 2^26 non-zeros, float and double; then PageRank */
static void
section_spmv(bench_env *env)
{
	bench_table tab;

	tab.title = bench_fmt("y = A x, 2^%d rows (banded and uniform: rows of %d), 2^%d non-zeros, "
						  "device-resident (GB/s: compulsory traffic; ratio above 1 = faster "
						  "than cuSPARSE)",
						  SPMV_BENCH_LOG2_ROWS, spmv_row_len(), SPMV_BENCH_LOG2_NNZ);
	tab.corner = "matrix: kernel";
	tab.cols = {"float", "double"};
	for (int kind = 0; kind < 3; kind++)
	{
		spmv_matrix m;

		fprintf(stderr, "spmv: %s\n", kind == 0 ? "banded" : (kind == 1 ? "uniform" : "R-MAT"));
		spmv_make_matrix(env, &m, kind);
		{
			std::vector<int32_t> rp(m.nrows + 1),
						ci(m.nnz);
			std::vector<double> v64(m.nnz);

			bench_download(env, rp.data(), m.d_rp, sizeof(int32_t) * (m.nrows + 1));
			bench_download(env, ci.data(), m.d_ci, sizeof(int32_t) * m.nnz);
			bench_download(env, v64.data(), m.d_v64, sizeof(double) * m.nnz);
			spmv_section_type<float>(env, &m, &tab, 0, rp, ci, v64);
			spmv_section_type<double>(env, &m, &tab, 1, rp, ci, v64);
		}
		spmv_free_matrix(&m);
	}
	tab.print(stdout);
	fprintf(stderr, "spmv: PageRank\n");
	spmv_pagerank_row(env);
}
