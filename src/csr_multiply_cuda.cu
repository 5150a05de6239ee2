/* Sparse transpose and product on the GPU (see mispc_csr_multiply in
 * include/mispc/csr.h for the result's definition).
 *
 * Product: a row of C at a time with a hash table of the row's columns
 * (Nagasaka et al., "High-performance and memory-saving sparse general
 * matrix-matrix multiplication for NVIDIA Pascal GPU", ICPP 2017, hash
 * SpGEMM): a symbolic pass counts each row's distinct columns, a scan gives
 * C's row offsets, a numeric pass sums the values. Tiers by row size: a warp
 * with a shared table (SLOTS a warp), a block with a larger shared table
 * (rows that overflow the first), a warp with a table in global scratch
 * (the rest; sized from the row's count, or for counting from its product
 * count bounded by B's columns). Counting sends rows of more than
 * COUNT_WARP_WORK products to a block at once; summing sends rows of the
 * warp's size whose rows of B average more than 64 entries to WIDE threads
 * (numeric_tier). Warp and wide rows leave sorted: the table is compacted in
 * place and each key goes to its rank among the row's keys (nsparse's way);
 * this replaced a CUB segmented sort of every row that took 12 ms of a 23 ms
 * product on Elasticity3D_40 (H100). Block and global rows go through CUB's
 * segmented sort (unique keys: deterministic). The numeric pass walks row i
 * of A in order and the threads take the entries of one row of B at a time (distinct
 * columns, so no two threads add to the same slot in a step; a barrier
 * between steps), so each c_ij is summed in the order of A's entries: the
 * host's order, and --fmad=false with __dmul_rn / __dadd_rn keeps every
 * product rounded. */
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "csr_build.h"
#include "cuda_util.cuh"

namespace {

constexpr int WARPS = 4;            /* warps a block, warp tier */
constexpr int SLOTS = 1024;         /* shared hash slots a warp (keys 4 B, values 8 B) */
constexpr int SHARED_MAX = 512;     /* warp tier: rows of at most this many columns */
constexpr int BLOCK = 256;          /* threads a row, block tier */
constexpr int BSLOTS_COUNT = 16384; /* block tier, counting: keys only (64 KB, dynamic) */
constexpr int BSLOTS = 8192;        /* block tier, values: keys and values (96 KB, dynamic) */
constexpr int BLOCK_MAX = 4096;     /* block tier: rows of at most this many columns */
constexpr int WIDE = 128;           /* threads a row, wide tier (a warp tier row whose rows of
                                       B hold more than 64 entries on average) */
constexpr int64_t COUNT_WARP_WORK = 32768; /* counting: rows of more products go to a block */
constexpr size_t BCOUNT_SMEM = sizeof(int32_t) * BSLOTS_COUNT;
constexpr size_t BVALS_SMEM = (sizeof(int32_t) + sizeof(double)) * BSLOTS;
constexpr int32_t EMPTY = -1;

__device__ __forceinline__ uint32_t slot_of(int32_t key, uint32_t mask) {
  return ((uint32_t)key * 2654435761u) & mask;
}

/* Finds key's slot, inserting it if absent; returns -1 when the table is full.
 * *fresh = 1 when this call inserted it. */
__device__ __forceinline__ int64_t find_or_insert(int32_t *keys, uint32_t mask, int32_t key,
                                                  int *fresh) {
  uint32_t s = slot_of(key, mask);
  for (uint32_t probe = 0; probe <= mask; ++probe, s = (s + 1) & mask) {
    int32_t k = keys[s];
    if (k == key) return s;
    if (k == EMPTY) {
      k = atomicCAS(&keys[s], EMPTY, key);
      if (k == EMPTY) {
        *fresh = 1;
        return s;
      }
      if (k == key) return s;
    }
  }
  return -1;
}

/* ub[i] = number of products of row i (sum of B's row lengths). */
__global__ void product_counts(int64_t m, const int64_t *ap, const int32_t *aj, const int64_t *bp,
                               int64_t *ub) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t s = 0;
    for (int64_t e = ap[i]; e < ap[i + 1]; ++e) s += bp[aj[e] + 1] - bp[aj[e]];
    ub[i] = s;
  }
}

/* Table size for a global-table row: a power of two >= 2 * bound. */
__device__ __host__ __forceinline__ int64_t table_size(int64_t bound) {
  int64_t t = 64;
  while (t < 2 * bound) t <<= 1;
  return t;
}

struct Csr {
  const int64_t *p;
  const int32_t *j;
  const double *v;
};

/* --- symbolic: cnt[i] = distinct columns of row i, or -1 when the row does
 * not fit the tier (the next tier counts it again). Counting needs no order:
 * the threads take A's entries. --- */

/* a warp a row, SLOTS shared keys, at most SHARED_MAX columns (the count is
 * shared, so the warp gives up as soon as the row has more: the table stays
 * at most about half full and its probe sequences short) */
__global__ void __launch_bounds__(WARPS * 32)
    symbolic_warp(int64_t m, Csr A, Csr B, const int64_t *ub, int64_t *cnt) {
  __shared__ int32_t table[WARPS][SLOTS];
  __shared__ int wcount[WARPS];
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int32_t *keys = table[w];
  for (int64_t i = (int64_t)blockIdx.x * WARPS + w; i < m; i += (int64_t)gridDim.x * WARPS) {
    if (ub[i] > COUNT_WARP_WORK) { /* a block counts it faster (few such rows: idle SMs) */
      if (lane == 0) cnt[i] = -1;
      continue;
    }
    for (int s = lane; s < SLOTS; s += 32) keys[s] = EMPTY;
    if (lane == 0) wcount[w] = 0;
    __syncwarp();
    int over = 0;
    for (int64_t e = A.p[i] + lane; e < A.p[i + 1] && !over; e += 32) {
      const int32_t k = A.j[e];
      for (int64_t q = B.p[k]; q < B.p[k + 1] && !over; ++q) {
        int fresh = 0;
        if (find_or_insert(keys, SLOTS - 1, B.j[q], &fresh) < 0) over = 1;
        if (fresh && atomicAdd(&wcount[w], 1) >= SHARED_MAX) over = 1;
      }
    }
    over = __any_sync(0xffffffffu, over);
    if (lane == 0) cnt[i] = over ? -1 : wcount[w];
    __syncwarp();
  }
}

/* a block a row of the list, BSLOTS_COUNT shared keys, at most half full */
__global__ void __launch_bounds__(BLOCK)
    symbolic_block(int64_t nrows, const int64_t *rows, Csr A, Csr B, int64_t *cnt) {
  extern __shared__ __align__(8) unsigned char smem[];
  int32_t *keys = (int32_t *)smem;
  __shared__ int tot, over;
  for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
    const int64_t i = rows[r];
    for (int s = threadIdx.x; s < BSLOTS_COUNT; s += BLOCK) keys[s] = EMPTY;
    if (threadIdx.x == 0) tot = over = 0;
    __syncthreads();
    int mine = 0;
    for (int64_t e = A.p[i] + threadIdx.x; e < A.p[i + 1] && !mine; e += BLOCK) {
      const int32_t k = A.j[e];
      for (int64_t q = B.p[k]; q < B.p[k + 1] && !mine; ++q) {
        int fresh = 0;
        if (find_or_insert(keys, BSLOTS_COUNT - 1, B.j[q], &fresh) < 0) mine = 1;
        if (fresh && atomicAdd(&tot, 1) >= BSLOTS_COUNT / 2) mine = 1;
      }
    }
    if (mine) over = 1;
    __syncthreads();
    if (threadIdx.x == 0) cnt[i] = over ? -1 : tot;
    __syncthreads();
  }
}

/* a warp a row of the list, its own table in global scratch at toff[r] */
__global__ void symbolic_global(int64_t nrows, const int64_t *rows, Csr A, Csr B,
                                const int64_t *toff, int32_t *gkeys, int64_t *cnt) {
  const int lane = threadIdx.x & 31;
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t r = warp; r < nrows; r += nwarps) {
    const int64_t i = rows[r], t = toff[r + 1] - toff[r];
    int32_t *keys = gkeys + toff[r];
    for (int64_t s = lane; s < t; s += 32) keys[s] = EMPTY;
    __syncwarp();
    int64_t n = 0;
    for (int64_t e = A.p[i] + lane; e < A.p[i + 1]; e += 32) {
      const int32_t k = A.j[e];
      for (int64_t q = B.p[k]; q < B.p[k + 1]; ++q) {
        int fresh = 0;
        find_or_insert(keys, (uint32_t)(t - 1), B.j[q], &fresh); /* t > 2 x bound */
        n += fresh;
      }
    }
    for (int o = 16; o > 0; o >>= 1) n += __shfl_xor_sync(0xffffffffu, n, o);
    if (lane == 0) cnt[i] = n;
    __syncwarp();
  }
}

/* --- numeric: row i's (column, value) pairs into cj/cv at cp[i] (unsorted),
 * summed in A's order; *dup: a row of B repeats a column. --- */

/* One step: the entries of B's row k times a, NT threads from thread t,
 * into the table (keys, vals of mask + 1 slots). */
__device__ __forceinline__ void add_row(Csr B, int32_t k, double a, int t, int nt, int32_t *keys,
                                        double *vals, uint32_t mask, int *dup, int64_t q0) {
  const int64_t qb = B.p[k], qe = B.p[k + 1], q = q0 + t;
  if (q < qe) {
    const int32_t c = B.j[q];
    if (q > qb && B.j[q - 1] == c) *dup = 1;
    int fresh = 0;
    const int64_t s = find_or_insert(keys, mask, c, &fresh);
    if (s >= 0) vals[s] = __dadd_rn(vals[s], __dmul_rn(a, B.v[q]));
  }
}

/* the occupied slots, in slot order, to out (t of nt threads; count known) */
template <int NT>
__device__ __forceinline__ void compact(const int32_t *keys, const double *vals, int64_t nslots,
                                        int32_t *cj, double *cv, int *base) {
  const int lane = threadIdx.x & 31;
  for (int64_t s0 = 0; s0 < nslots; s0 += NT) {
    const int64_t s = s0 + threadIdx.x % NT;
    const int occ = s < nslots && keys[s] != EMPTY;
    const unsigned bal = __ballot_sync(0xffffffffu, occ);
    int at = 0;
    if (lane == 0 && bal) at = atomicAdd(base, __popc(bal));
    at = __shfl_sync(0xffffffffu, at, 0);
    if (occ) {
      at += __popc(bal & ((1u << lane) - 1u));
      cj[at] = keys[s];
      cv[at] = vals[s];
    }
  }
}

/* Numeric tiers of a row of cnt columns whose ub products come from alen
 * entries of A: 0 warp, 1 wide, 2 block, 3 global table. Warp and wide rows
 * are written sorted; block and global rows unsorted (CUB sorts them). */
__device__ __host__ __forceinline__ int numeric_tier(int64_t cnt, int64_t ub, int64_t alen) {
  if (cnt > BLOCK_MAX) return 3;
  if (cnt > SHARED_MAX) return 2;
  return ub > 64 * alen ? 1 : 0;
}

/* the n distinct keys[0..n) with their values, sorted by key, to cj/cv: each
 * key's place is the number of smaller keys (n <= SHARED_MAX; t of nt threads) */
__device__ __forceinline__ void rank_sorted(const int32_t *keys, const double *vals, int64_t n,
                                            int t, int nt, int32_t *cj, double *cv) {
  for (int64_t e = t; e < n; e += nt) {
    const int32_t key = keys[e];
    int64_t rank = 0;
    for (int64_t f = 0; f < n; ++f) rank += keys[f] < key;
    cj[rank] = key;
    cv[rank] = vals[e];
  }
}

/* row i summed into a table of t slots (keys, vals) by NT threads: a warp
 * (NT = 32, lane t of it) or the whole block (the caller sets its shared
 * counters before: the first barrier covers them) */
template <int NT>
__device__ __forceinline__ void sum_row(Csr A, Csr B, int64_t i, int32_t *keys, double *vals,
                                        int64_t t, int *dup) {
  const int me = NT == 32 ? (int)(threadIdx.x & 31) : (int)threadIdx.x;
  auto barrier = [] {
    if (NT == 32)
      __syncwarp();
    else
      __syncthreads();
  };
  for (int64_t s = me; s < t; s += NT) {
    keys[s] = EMPTY;
    vals[s] = 0.0;
  }
  barrier();
  for (int64_t e = A.p[i]; e < A.p[i + 1]; ++e) {
    const int32_t k = A.j[e];
    const double a = A.v[e];
    for (int64_t q0 = B.p[k]; q0 < B.p[k + 1]; q0 += NT) {
      add_row(B, k, a, me, NT, keys, vals, (uint32_t)(t - 1), dup, q0);
      barrier();
    }
  }
}

/* row i by one warp in a table of t slots (keys, vals). SORTED: the pairs
 * sorted to cj/cv at cp[i] (the table compacted in place, then ranked);
 * else in slot order (CUB's segmented sort orders the row later). */
template <bool SORTED>
__device__ __forceinline__ void numeric_row_warp(Csr A, Csr B, int64_t i, int32_t *keys,
                                                 double *vals, int64_t t, const int64_t *cp,
                                                 int32_t *cj, double *cv, int *dup) {
  const int lane = threadIdx.x & 31;
  sum_row<32>(A, B, i, keys, vals, t, dup);
  int64_t base = 0;
  for (int64_t s0 = 0; s0 < t; s0 += 32) {
    const int64_t s = s0 + lane;
    const int32_t key = s < t ? keys[s] : EMPTY;
    const double val = s < t ? vals[s] : 0.0;
    const unsigned bal = __ballot_sync(0xffffffffu, key != EMPTY);
    const int64_t at = base + __popc(bal & ((1u << lane) - 1u));
    if (SORTED) { /* in place: at <= s, and every slot up to s0 + 31 is read */
      __syncwarp();
      if (key != EMPTY) {
        keys[at] = key;
        vals[at] = val;
      }
    } else if (key != EMPTY) {
      cj[cp[i] + at] = key;
      cv[cp[i] + at] = val;
    }
    base += __popc(bal);
  }
  __syncwarp();
  if (SORTED) {
    rank_sorted(keys, vals, base, lane, 32, cj + cp[i], cv + cp[i]);
    __syncwarp();
  }
}

__global__ void __launch_bounds__(WARPS * 32)
    numeric_warp(int64_t m, Csr A, Csr B, const int64_t *ub, const int64_t *cp, int32_t *cj,
                 double *cv, int *dup) {
  __shared__ int32_t tkeys[WARPS][SLOTS];
  __shared__ double tvals[WARPS][SLOTS];
  const int w = threadIdx.x >> 5;
  for (int64_t i = (int64_t)blockIdx.x * WARPS + w; i < m; i += (int64_t)gridDim.x * WARPS) {
    if (numeric_tier(cp[i + 1] - cp[i], ub[i], A.p[i + 1] - A.p[i]) != 0) continue;
    numeric_row_warp<true>(A, B, i, tkeys[w], tvals[w], SLOTS, cp, cj, cv, dup);
  }
}

/* a block of WIDE threads a listed row, SLOTS shared slots, sorted output */
__global__ void __launch_bounds__(WIDE)
    numeric_wide(int64_t nrows, const int64_t *rows, Csr A, Csr B, const int64_t *cp, int32_t *cj,
                 double *cv, int *dup) {
  __shared__ int32_t keys[SLOTS];
  __shared__ double vals[SLOTS];
  __shared__ int count;
  constexpr int PER = SLOTS / WIDE;
  for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
    const int64_t i = rows[r];
    if (threadIdx.x == 0) count = 0;
    sum_row<WIDE>(A, B, i, keys, vals, SLOTS, dup);
    /* compaction in any order (the ranks order the row) */
    int32_t kk[PER];
    double vv[PER];
    for (int r2 = 0; r2 < PER; ++r2) {
      kk[r2] = keys[threadIdx.x + r2 * WIDE];
      vv[r2] = vals[threadIdx.x + r2 * WIDE];
    }
    __syncthreads();
    for (int r2 = 0; r2 < PER; ++r2)
      if (kk[r2] != EMPTY) {
        const int at = atomicAdd(&count, 1);
        keys[at] = kk[r2];
        vals[at] = vv[r2];
      }
    __syncthreads();
    rank_sorted(keys, vals, count, threadIdx.x, WIDE, cj + cp[i], cv + cp[i]);
    __syncthreads();
  }
}

__global__ void __launch_bounds__(BLOCK)
    numeric_block(int64_t nrows, const int64_t *rows, Csr A, Csr B, const int64_t *cp, int32_t *cj,
                  double *cv, int *dup) {
  extern __shared__ __align__(8) unsigned char smem[];
  double *vals = (double *)smem;
  int32_t *keys = (int32_t *)(vals + BSLOTS);
  __shared__ int base;
  for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
    const int64_t i = rows[r];
    if (threadIdx.x == 0) base = 0;
    sum_row<BLOCK>(A, B, i, keys, vals, BSLOTS, dup);
    compact<BLOCK>(keys, vals, BSLOTS, cj + cp[i], cv + cp[i], &base);
    __syncthreads();
  }
}

__global__ void numeric_global(int64_t nrows, const int64_t *rows, Csr A, Csr B, const int64_t *cp,
                               const int64_t *toff, int32_t *gkeys, double *gvals, int32_t *cj,
                               double *cv, int *dup) {
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t r = warp; r < nrows; r += nwarps)
    numeric_row_warp<false>(A, B, rows[r], gkeys + toff[r], gvals + toff[r], toff[r + 1] - toff[r],
                            cp, cj, cv, dup);
}

/* flag[i] = 1 for the rows of a tier */
__global__ void flag_uncounted(int64_t m, const int64_t *cnt, int32_t *flag) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m;
       i += (int64_t)gridDim.x * blockDim.x)
    flag[i] = cnt[i] < 0;
}

/* flag[i] = 1 for the rows of numeric tier lo .. hi */
__global__ void flag_tiers(int64_t m, const int64_t *cp, const int64_t *ub, const int64_t *ap,
                           int lo, int hi, int32_t *flag) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int t = numeric_tier(cp[i + 1] - cp[i], ub[i], ap[i + 1] - ap[i]);
    flag[i] = t >= lo && t <= hi;
  }
}
/* the listed rows' segments of C, for the sort */
__global__ void segment_bounds(int64_t n, const int64_t *rows, const int64_t *cp, int64_t *beg,
                               int64_t *end) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < n;
       r += (int64_t)gridDim.x * blockDim.x) {
    beg[r] = cp[rows[r]];
    end[r] = cp[rows[r] + 1];
  }
}

/* transpose: T's column of entry p is the row of A's entry order[p] */
__global__ void entry_rows(int64_t m, const int64_t *ap, int32_t *rowof) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m;
       i += (int64_t)gridDim.x * blockDim.x)
    for (int64_t e = ap[i]; e < ap[i + 1]; ++e) rowof[e] = (int32_t)i;
}
__global__ void gather_transpose(int64_t nnz, const int32_t *order, const int32_t *rowof,
                                 const double *av, int32_t *tj, double *tv) {
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < nnz;
       p += (int64_t)gridDim.x * blockDim.x) {
    tj[p] = rowof[order[p]];
    tv[p] = av[order[p]];
  }
}

/* Scratch of the product, freed together. */
struct Work {
  int64_t *ub = nullptr, *cnt = nullptr, *rows = nullptr, *toff = nullptr, *tsz = nullptr,
          *nrows = nullptr, *sbeg = nullptr, *send = nullptr;
  int32_t *flag = nullptr, *gkeys = nullptr, *dup = nullptr;
  double *gvals = nullptr;
  int32_t *cj = nullptr;
  double *cv = nullptr;
  char *temp = nullptr;
  void release(mispc_context *ctx) {
    void *all[] = {ub,   cnt,   rows, toff,  tsz, nrows, sbeg, send,
                   flag, gkeys, dup,  gvals, cj,  cv,    temp};
    for (void *p : all) mispc_scratch_free(ctx, p);
  }
};

/* Table slots of the r-th listed row: 2 x its product count bounded by B's
 * columns (counting, ub), or 2 x its column count (values, rowptr). */
__global__ void table_sizes(int64_t nrows, const int64_t *rows, const int64_t *ub, int64_t ncols,
                            const int64_t *rowptr, int64_t *tsz) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r <= nrows;
       r += (int64_t)gridDim.x * blockDim.x) {
    if (r == nrows) {
      tsz[r] = 0;
    } else {
      const int64_t i = rows[r];
      const int64_t bound = ub ? (ub[i] < ncols ? ub[i] : ncols) : rowptr[i + 1] - rowptr[i];
      tsz[r] = table_size(bound);
    }
  }
}

/* The rows with w.flag set, increasing, into w.rows; returns their number. */
mispc_status list_rows(mispc_context *ctx, cudaStream_t s, int64_t m, Work &w, int64_t *n_out) {
  size_t bytes = 0;
  thrust::counting_iterator<int64_t> ids(0);
  MISPC_CUDA_TRY(ctx,
                 cub::DeviceSelect::Flagged(nullptr, bytes, ids, w.flag, w.rows, w.nrows, m, s));
  void *tmp = nullptr;
  MISPC_TRY(mispc_scratch_alloc(ctx, bytes + 16, &tmp, "sparse product scratch"));
  mispc_status st = MISPC_SUCCESS;
  int64_t n = 0;
  if (cudaSuccess != cub::DeviceSelect::Flagged(tmp, bytes, ids, w.flag, w.rows, w.nrows, m, s) ||
      cudaSuccess != cudaMemcpyAsync(&n, w.nrows, sizeof n, cudaMemcpyDeviceToHost, s))
    st = mispc_cuda_failed(ctx, "listing long rows");
  if (!st) st = mispc_sync(ctx, s, "listing long rows");
  mispc_scratch_free(ctx, tmp);
  *n_out = n;
  return st;
}

/* Offsets of the listed rows' global tables into w.toff (n + 1 entries);
 * returns the total slots. */
mispc_status table_offsets(mispc_context *ctx, cudaStream_t s, int64_t n, Work &w,
                           const int64_t *ub, int64_t ncols, const int64_t *rowptr,
                           int64_t *slots_out) {
  table_sizes<<<mispc_device_grid(ctx, n + 1, 256), 256, 0, s>>>(n, w.rows, ub, ncols, rowptr,
                                                                 w.tsz);
  size_t bytes = 0;
  MISPC_CUDA_TRY(ctx, cub::DeviceScan::ExclusiveSum(nullptr, bytes, w.tsz, w.toff, n + 1, s));
  void *tmp = nullptr;
  MISPC_TRY(mispc_scratch_alloc(ctx, bytes + 16, &tmp, "sparse product scratch"));
  mispc_status st = MISPC_SUCCESS;
  int64_t slots = 0;
  if (cudaSuccess != cub::DeviceScan::ExclusiveSum(tmp, bytes, w.tsz, w.toff, n + 1, s) ||
      cudaSuccess != cudaMemcpyAsync(&slots, w.toff + n, sizeof slots, cudaMemcpyDeviceToHost, s))
    st = mispc_cuda_failed(ctx, "table offsets");
  if (!st) st = mispc_sync(ctx, s, "table offsets");
  mispc_scratch_free(ctx, tmp);
  *slots_out = slots;
  return st;
}

/* grid for n rows of `threads` threads each (a warp: 32; the block tier:
 * BLOCK) in blocks of `block` threads */
unsigned rows_grid(mispc_context *ctx, int64_t n, int threads, unsigned block) {
  return mispc_device_grid(ctx, n * threads, block);
}

/* The block tier's kernel (BLOCK threads a row of the n listed, smem bytes
 * of dynamic shared memory, above the 48 KB default) on stream s. */
template <typename... Params, typename... Args>
mispc_status launch_block_tier(mispc_context *ctx, cudaStream_t s, int64_t n,
                               void (*kernel)(Params...), size_t smem, Args... args) {
  if (cudaSuccess !=
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem))
    return mispc_cuda_failed(ctx, "shared memory of the block tier");
  kernel<<<rows_grid(ctx, n, BLOCK, BLOCK), BLOCK, smem, s>>>(args...);
  return MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status mispc_csr_transpose_cuda(mispc_context *ctx, const mispc_csr *A,
                                                 mispc_csr *T) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  MISPC_TRY(mispc_csr_alloc(ctx, MISPC_MEM_DEVICE, A->ncols, A->nrows, A->nnz, 1, T));
  int32_t *buf = nullptr;
  mispc_status st =
      mispc_scratch_alloc(ctx, (size_t)A->nnz * 8 + 8, (void **)&buf, "transpose scratch");
  if (!st) {
    int32_t *rowof = buf, *order = buf + A->nnz;
    if (A->nrows > 0)
      entry_rows<<<mispc_device_grid(ctx, A->nrows, 256), 256, 0, s>>>(A->nrows, A->rowptr, rowof);
    /* stable by column: each column's rows stay increasing */
    st = mispc_order_by_key_cuda(ctx, A->nnz, A->colidx, (int32_t)A->ncols, order, T->rowptr);
    if (!st && A->nnz > 0)
      gather_transpose<<<mispc_device_grid(ctx, A->nnz, 256), 256, 0, s>>>(
          A->nnz, order, rowof, A->values, T->colidx, T->values);
    if (!st) st = mispc_sync(ctx, s, "transpose");
  }
  mispc_scratch_free(ctx, buf);
  if (st) mispc_csr_free(ctx, T);
  return st;
}

extern "C" mispc_status mispc_csr_multiply_cuda(mispc_context *ctx, const mispc_csr *Am,
                                                const mispc_csr *Bm, mispc_csr *C) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t m = Am->nrows;
  if (m == 0 || Am->nnz == 0 || Bm->nnz == 0) { /* C is empty: zero row offsets */
    MISPC_TRY(mispc_csr_alloc(ctx, MISPC_MEM_DEVICE, m, Bm->ncols, 0, 1, C));
    MISPC_CUDA_TRY(ctx, cudaMemsetAsync(C->rowptr, 0, sizeof(int64_t) * (size_t)(m + 1), s));
    return mispc_sync(ctx, s, "sparse product");
  }
  const Csr A = {Am->rowptr, Am->colidx, Am->values}, B = {Bm->rowptr, Bm->colidx, Bm->values};
  Work w;
  mispc_csr out = {};
  mispc_status st = MISPC_SUCCESS;
  const unsigned warp_grid = rows_grid(ctx, m, 32, WARPS * 32);
  const unsigned grid = mispc_device_grid(ctx, m, 256);
  int64_t n = 0, slots = 0;
#define STEP(call)                                                                                 \
  do {                                                                                             \
    if (!st) st = (call);                                                                          \
  } while (0)
#define ALLOC(ptr, count, what)                                                                    \
  STEP(mispc_scratch_alloc(ctx, sizeof(*(ptr)) * (size_t)(count) + 16, (void **)&(ptr), what))
#define LAUNCHED(what)                                                                             \
  do {                                                                                             \
    if (!st && cudaGetLastError() != cudaSuccess) st = mispc_cuda_failed(ctx, what);               \
  } while (0)
  ALLOC(w.ub, m, "product counts");
  ALLOC(w.cnt, m + 1, "row counts");
  ALLOC(w.flag, m, "row flags");
  ALLOC(w.rows, m, "long rows");
  ALLOC(w.toff, m + 1, "table offsets");
  ALLOC(w.tsz, m + 1, "table sizes");
  ALLOC(w.nrows, 1, "long rows");
  ALLOC(w.dup, 1, "duplicate flag");
  double t = mispc_wtime();
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "sparse product: scratch");
  /* symbolic: the warp tier, then the rows it could not count by blocks,
   * then what is left with global tables */
  if (!st) {
    product_counts<<<grid, 256, 0, s>>>(m, A.p, A.j, B.p, w.ub);
    symbolic_warp<<<warp_grid, WARPS * 32, 0, s>>>(m, A, B, w.ub, w.cnt);
    flag_uncounted<<<grid, 256, 0, s>>>(m, w.cnt, w.flag);
    LAUNCHED("sparse product (counting)");
  }
  STEP(list_rows(ctx, s, m, w, &n));
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "sparse product: counting, warp tier");
  if (!st && n > 0) {
    mispc_logf(ctx, 2, "  sparse product: %lld of %lld rows counted by blocks", (long long)n,
               (long long)m);
    st = launch_block_tier(ctx, s, n, symbolic_block, BCOUNT_SMEM, n, w.rows, A, B, w.cnt);
    flag_uncounted<<<grid, 256, 0, s>>>(m, w.cnt, w.flag);
    LAUNCHED("sparse product (counting long rows)");
    STEP(list_rows(ctx, s, m, w, &n));
    if (!st && n > 0) {
      STEP(table_offsets(ctx, s, n, w, w.ub, Bm->ncols, nullptr, &slots));
      ALLOC(w.gkeys, slots, "hash tables of long rows");
      if (!st)
        symbolic_global<<<rows_grid(ctx, n, 32, 256), 256, 0, s>>>(n, w.rows, A, B, w.toff, w.gkeys,
                                                                   w.cnt);
      LAUNCHED("sparse product (counting long rows)");
      STEP(mispc_sync(ctx, s, "sparse product (counting long rows)"));
      mispc_scratch_free(ctx, w.gkeys);
      w.gkeys = nullptr;
    }
  }
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "sparse product: counting, long rows");
  /* row offsets: exclusive scan of the counts (cnt[m] = 0 first) */
  int64_t nnz = 0;
  if (!st) {
    size_t bytes = 0;
    if (cudaSuccess != cudaMemsetAsync(w.cnt + m, 0, sizeof(int64_t), s))
      st = mispc_cuda_failed(ctx, "row offsets");
    STEP(mispc_mem_alloc_n(ctx, MISPC_MEM_DEVICE, m + 1, sizeof(int64_t), (void **)&out.rowptr,
                           "CSR row offsets"));
    out.nrows = m;
    out.ncols = Bm->ncols;
    out.mem = MISPC_MEM_DEVICE;
    out.owned = 1;
    if (!st &&
        cudaSuccess != cub::DeviceScan::ExclusiveSum(nullptr, bytes, w.cnt, out.rowptr, m + 1, s))
      st = mispc_cuda_failed(ctx, "row offsets");
    ALLOC(w.temp, bytes, "scan scratch");
    if (!st &&
        cudaSuccess != cub::DeviceScan::ExclusiveSum(w.temp, bytes, w.cnt, out.rowptr, m + 1, s))
      st = mispc_cuda_failed(ctx, "row offsets");
    if (!st &&
        cudaSuccess != cudaMemcpyAsync(&nnz, out.rowptr + m, sizeof nnz, cudaMemcpyDeviceToHost, s))
      st = mispc_cuda_failed(ctx, "row offsets");
    STEP(mispc_sync(ctx, s, "sparse product (counting)"));
    mispc_scratch_free(ctx, w.temp);
    w.temp = nullptr;
  }
  if (!st && nnz > INT32_MAX)
    st = mispc_seterr(ctx, MISPC_ERR_OVERFLOW,
                      "sparse product: %lld entries in C (the GPU product allows 2^31 - 1)",
                      (long long)nnz);
  if (!st) { /* C's columns and values */
    out.nnz = nnz;
    STEP(mispc_mem_alloc_n(ctx, MISPC_MEM_DEVICE, nnz, sizeof(int32_t), (void **)&out.colidx,
                           "CSR column indices"));
    STEP(mispc_mem_alloc_n(ctx, MISPC_MEM_DEVICE, nnz, sizeof(double), (void **)&out.values,
                           "CSR values"));
  }
  ALLOC(w.cj, nnz, "unsorted columns");
  ALLOC(w.cv, nnz, "unsorted values");
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "sparse product: offsets and allocation");
  /* numeric: each row in the tier its column and product counts pick
   * (numeric_tier); warp and wide rows go sorted into C, the others into
   * cj/cv and then through CUB's segmented sort. list_tiers(lo, hi): the
   * rows whose tier lies in [lo, hi] into w.rows, n of them. */
  auto list_tiers = [&](int lo, int hi, const char *what) {
    if (!st) {
      flag_tiers<<<grid, 256, 0, s>>>(m, out.rowptr, w.ub, A.p, lo, hi, w.flag);
      LAUNCHED(what);
    }
    STEP(list_rows(ctx, s, m, w, &n));
  };
  if (!st) {
    if (cudaSuccess != cudaMemsetAsync(w.dup, 0, sizeof(int32_t), s))
      st = mispc_cuda_failed(ctx, "sparse product (values)");
    numeric_warp<<<warp_grid, WARPS * 32, 0, s>>>(m, A, B, w.ub, out.rowptr, out.colidx, out.values,
                                                  w.dup);
    LAUNCHED("sparse product (values)");
  }
  list_tiers(1, 1, "sparse product (values)");
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "sparse product: values, warp tier");
  if (!st && n > 0) {
    mispc_logf(ctx, 2, "  sparse product: %lld of %lld rows summed by %d threads", (long long)n,
               (long long)m, WIDE);
    numeric_wide<<<rows_grid(ctx, n, WIDE, WIDE), WIDE, 0, s>>>(n, w.rows, A, B, out.rowptr,
                                                                out.colidx, out.values, w.dup);
    LAUNCHED("sparse product (values, wide tier)");
  }
  list_tiers(2, 2, "sparse product (values of long rows)");
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "sparse product: values, wide tier");
  if (!st && n > 0) {
    mispc_logf(ctx, 2, "  sparse product: %lld of %lld rows summed by blocks", (long long)n,
               (long long)m);
    st = launch_block_tier(ctx, s, n, numeric_block, BVALS_SMEM, n, w.rows, A, B, out.rowptr, w.cj,
                           w.cv, w.dup);
    LAUNCHED("sparse product (values of long rows)");
  }
  list_tiers(3, 3, "sparse product (values of long rows)");
  if (!st && n > 0) {
    STEP(table_offsets(ctx, s, n, w, nullptr, 0, out.rowptr, &slots));
    ALLOC(w.gkeys, slots, "hash tables of long rows");
    ALLOC(w.gvals, slots, "hash tables of long rows");
    if (!st)
      numeric_global<<<rows_grid(ctx, n, 32, 256), 256, 0, s>>>(
          n, w.rows, A, B, out.rowptr, w.toff, w.gkeys, w.gvals, w.cj, w.cv, w.dup);
    LAUNCHED("sparse product (values of long rows)");
  }
  list_tiers(2, 3, "sparse product (values of long rows)");
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "sparse product: values, long rows");
  if (!st && n > 0) { /* the long rows by column, from cj/cv into C */
    size_t bytes = 0;
    const int nn = (int)nnz;
    ALLOC(w.sbeg, n, "row segments");
    ALLOC(w.send, n, "row segments");
    if (!st)
      segment_bounds<<<mispc_device_grid(ctx, n, 256), 256, 0, s>>>(n, w.rows, out.rowptr, w.sbeg,
                                                                    w.send);
    if (!st &&
        cudaSuccess != cub::DeviceSegmentedSort::SortPairs(nullptr, bytes, w.cj, out.colidx, w.cv,
                                                           out.values, nn, n, w.sbeg, w.send, s))
      st = mispc_cuda_failed(ctx, "sorting rows");
    ALLOC(w.temp, bytes, "sort scratch");
    if (!st &&
        cudaSuccess != cub::DeviceSegmentedSort::SortPairs(w.temp, bytes, w.cj, out.colidx, w.cv,
                                                           out.values, nn, n, w.sbeg, w.send, s))
      st = mispc_cuda_failed(ctx, "sorting rows");
  }
  int dup = 0;
  if (!st && cudaSuccess != cudaMemcpyAsync(&dup, w.dup, sizeof dup, cudaMemcpyDeviceToHost, s))
    st = mispc_cuda_failed(ctx, "sparse product");
  STEP(mispc_sync(ctx, s, "sparse product"));
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "sparse product: sorting long rows");
  mispc_logf(ctx, 2, "  sparse product: %lld x %lld times %lld x %lld: %lld entries", (long long)m,
             (long long)Am->ncols, (long long)Bm->nrows, (long long)Bm->ncols, (long long)nnz);
  if (!st && dup)
    st = mispc_seterr(ctx, MISPC_ERR_DUPLICATE,
                      "sparse product: a row of B repeats a column (merge duplicates first, "
                      "mispc_csr_sort_rows)");
#undef LAUNCHED
#undef ALLOC
#undef STEP
  w.release(ctx);
  if (st) {
    mispc_csr_free(ctx, &out);
    return st;
  }
  *C = out;
  return MISPC_SUCCESS;
}
