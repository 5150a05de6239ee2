/* GPU Gauss-Seidel symbolic setup: the matrix pattern in sweep order
 * (colors, clusters, rows), the push chains and where each value lies in A,
 * so the numeric setup only gathers; the cluster statistics and the node to
 * row expansion it starts from (gs_cuda.cuh). */
#include <stdlib.h>

#include <limits>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "gs_cuda.cuh"

namespace {

/* size[q] = rows of cluster order[q] for q < nc, and size[nc] = 0 where
 * m = nc + 1 (pcl, scanned afterwards into the clusters' positions in sweep
 * order); m = nc gives the sort keys of the largest-first order. */
template <typename T>
__global__ void cluster_sizes(int64_t nc, int64_t m, const int32_t *order, const int64_t *cl_ptr,
                              T *size) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < m;
       q += (int64_t)gridDim.x * blockDim.x)
    size[q] = q < nc ? (T)min(cl_ptr[order[q] + 1] - cl_ptr[order[q]],
                              (int64_t)std::numeric_limits<T>::max())
                     : 0;
}

/* rows[c] = pcl[cptr[c]], c = 0 .. ncolors */
__global__ void color_row_offsets(int32_t ncolors, const int64_t *cptr, const int64_t *pcl,
                                  int64_t *rows) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c <= ncolors;
       c += (int64_t)gridDim.x * blockDim.x)
    rows[c] = pcl[cptr[c]];
}

__global__ void cluster_perm(int64_t nc, const int32_t *order, const int64_t *cl_ptr,
                             const int32_t *cl_rows, const int64_t *pcl, int32_t *perm) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nc;
       q += (int64_t)gridDim.x * blockDim.x) {
    const int64_t src = cl_ptr[order[q]], dst = pcl[q], len = pcl[q + 1] - dst;
    for (int64_t r = 0; r < len; ++r) perm[dst + r] = cl_rows[src + r];
  }
}

/* Which part of row i of the copy an entry (column j) goes to: cluster GS
 * 0 lower (earlier row of the cluster), 1 outside the cluster or the
 * diagonal, 2 upper (later row of the cluster); point GS all 1. Rows of a
 * cluster are in increasing order, so "earlier" is j < i. (copy_rows puts
 * the outside ones of earlier colors apart: part 3.) */
__device__ __forceinline__ int row_part(const int32_t *row_cluster, int32_t c, int32_t i,
                                        int32_t j) {
  return !row_cluster || j == i || row_cluster[j] != c ? 1 : j < i ? 0 : 2;
}

/* A group per row q of the copy (row perm[q] of A): iperm[perm[q]] = q, the
 * row's length into prow[q] and, for cluster GS (row_cluster given), the
 * number of its lower entries into bptr[q] (its backward push chain) and
 * of its upper ones into fptr[q] (forward) (all three scanned afterwards;
 * their entry n is 0). */
template <int W>
__global__ void invert_and_lengths(int64_t n, const int32_t *perm, const int64_t *rowptr,
                                   const int32_t *colidx, const int32_t *row_cluster,
                                   int32_t *iperm, int64_t *prow, int64_t *bptr, int64_t *fptr) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    prow[n] = 0;
    if (row_cluster) bptr[n] = fptr[n] = 0;
  }
  mispc_for_each_row<W>(n, [&](int64_t q, int g, unsigned gm) {
    const int32_t i = perm[q];
    const int64_t src = rowptr[i], len = rowptr[i + 1] - src;
    if (g == 0) iperm[i] = (int32_t)q, prow[q] = len;
    if (!row_cluster) return;
    const int32_t c = row_cluster[i];
    int64_t lower = 0, upper = 0;
    for (int64_t k0 = 0; k0 < len; k0 += W) {
      const int64_t k = k0 + g;
      const int part = k < len ? row_part(row_cluster, c, i, colidx[src + k]) : 1;
      lower += __popc(__ballot_sync(gm, part == 0) & gm);
      upper += __popc(__ballot_sync(gm, part == 2) & gm);
    }
    if (g == 0) bptr[q] = lower, fptr[q] = upper;
  });
}

/* Point GS: the sweep position of column j as the lower parts compare it
 * (gs_internal.h, ghost_key): a row's own, a ghost's key past the n rows. */
__device__ __forceinline__ int32_t point_key(int64_t n, const int32_t *iperm,
                                             const int32_t *ghost_key, int32_t j) {
  return j < n ? iperm[j] : ghost_key ? ghost_key[j - n] : INT32_MAX;
}

/* The entries of row perm[q] of A in columns of earlier colors (sweep
 * positions, or ghost keys, below q: point_key), a thread a row: point GS's
 * lower parts (row_cluster NULL: a row's neighbours have other colors), or
 * cluster GS's early entries (the cluster's own rows, the others below q,
 * left out). */
__global__ void early_lengths(int64_t n, const int32_t *perm, const int32_t *iperm,
                              const int64_t *rowptr, const int32_t *colidx,
                              const int32_t *row_cluster, const int32_t *ghost_key,
                              int64_t *early) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x) {
    const int32_t i = perm[q], c = row_cluster ? row_cluster[i] : -1;
    int64_t m = 0;
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p) {
      const int32_t j = colidx[p];
      m += (!row_cluster || row_cluster[j] != c) && point_key(n, iperm, ghost_key, j) < q;
    }
    early[q] = m;
  }
}

/* Point GS: pout[q] = prow[q] + lower[q] (in place: pout held lower). */
__global__ void point_part_offsets(int64_t n, const int64_t *prow, int64_t *pout) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x)
    pout[q] += prow[q];
}

/* pmid[q], pout[q] and pup[q]: where row q's parts after the lower one
 * start (gs_internal.h: lower, outside of earlier colors, the diagonal and
 * the rest outside, upper; pmid held the early entries' number; lptr,
 * uptr: the scanned numbers of lower and upper entries). */
__global__ void part_offsets(int64_t n, const int64_t *prow, const int64_t *lptr,
                             const int64_t *uptr, int64_t *pmid, int64_t *pout, int64_t *pup) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x) {
    const int64_t early = pmid[q];
    pmid[q] = prow[q] + (lptr[q + 1] - lptr[q]);
    pout[q] = pmid[q] + early;
    pup[q] = prow[q + 1] - (uptr[q + 1] - uptr[q]);
  }
}

/* Where a_ij lies in row i of A, from the row's start (the pattern is
 * symmetric, so it exists): a binary search in 32-bit offsets where the
 * rows are sorted; else a scan. The distributed sweep's matrix keeps its
 * rows in global column order, which puts ghosts (numbered after the rows)
 * before and after a row's own columns. */
__device__ __forceinline__ int32_t entry_at(const int64_t *rowptr, const int32_t *colidx, int32_t i,
                                            int32_t j, bool sorted) {
  const int64_t b = rowptr[i];
  const int len = (int)(rowptr[i + 1] - b);
  if (sorted) return mispc_lower_bound32(colidx + b, len, j);
  int at = 0;
  while (at < len && colidx[b + at] != j) ++at;
  return at;
}

/* Where a chain value a_ji lies in A: its entry (abs: nnz below 2^31), so
 * the numeric setup loads it with no lookups, or its offset in row j. */
__device__ __forceinline__ int32_t chain_source(const int64_t *rowptr, const int32_t *colidx,
                                                int32_t j, int32_t i, bool abs, bool sorted) {
  const int32_t at = entry_at(rowptr, colidx, j, i, sorted);
  return abs ? (int32_t)(rowptr[j] + at) : at;
}

/* Steps of a group whose loads copy_rows issues together: 3 for long rows
 * (Elasticity3D_60, 32 lanes: copy 1.39 -> 1.28 ms cluster, 0.47 -> 0.39
 * point under ncu), 1 for short ones, whose rows take one step and where
 * the registers cost occupancy (Laplace3D_100: 0.22 -> 0.23 ms with 3) */
template <int W> constexpr int kCopySteps = W >= 16 ? 3 : 1;

/* Whether copy_rows searches its push places after the row (spread over the
 * lanes) instead of where the entries fall: long rows, whose steps would
 * each run a divergent search (ncu, H100, Elasticity3D_60 32 lanes: 1.24 ->
 * 1.06 ms); short rows take one step, and the second loop cost
 * Laplace3D_100 221 -> 264 us. */
template <int W> constexpr bool kSearchAfter = W >= 16;

/* Where copy_rows writes the sweep-ordered pattern and where each of its
 * values lies in A, so that the numeric setup (copy_values) only gathers. */
struct CopyOut {
  const int64_t *prow, *pout, *pup, *fptr, *bptr; /* pup .. bptr: cluster only */
  const int64_t *pmid;                            /* cluster only */
  int32_t *pcol, *fcol, *bcol;
  int32_t *psrc;            /* offset of each entry in its row of A */
  const int32_t *ghost_key; /* point GS, the distributed sweep: gs_internal.h */
  int32_t *pdiag_at;        /* offset of a_ii in row i of A, -1 if missing */
  int32_t *fsrc, *bsrc;     /* where each chain value lies in A: its entry (abs),
                             * else its offset in the row the chain entry names,
                             * whose a_jq it holds */
  bool abs;
  bool sorted; /* rows sorted by column (not so where ghosts follow the rows) */
};

/* A group per row q: row perm[q] of A into row q of the copy, renumbered
 * columns (those past the n rows, the distributed sweep's ghosts, keep
 * their numbers), in parts (cluster GS: row_part; point GS: earlier
 * colors, then the others) each in storage order: a stable partition by
 * ballots. Cluster GS also puts row q's lower entries into its backward
 * push chain and the upper ones into its forward one, both in storage
 * order, naming the transposed values a_jq (binary searches in rows j;
 * kSearchAfter: the places are written as the columns j first, then
 * replaced by searches spread over the group's lanes). */
template <int W>
__global__ void __launch_bounds__(kBlock, kCopyBlocks)
    copy_rows(int64_t n, const int32_t *perm, const int32_t *iperm, const int64_t *rowptr,
              const int32_t *colidx, const int32_t *row_cluster, CopyOut o) {
  const unsigned below = (1u << (threadIdx.x & 31)) - 1u;
  mispc_for_each_row<W>(n, [&](int64_t q, int g, unsigned gm) {
    const int32_t i = perm[q];
    const int32_t c = row_cluster ? row_cluster[i] : 0;
    const int64_t src = rowptr[i], len = rowptr[i + 1] - src;
    /* where the next entry of each part goes (lower, middle, upper), and of
     * the backward (lower) and forward (upper) chains; scalars, not arrays
     * indexed by part, which would live in local memory */
    int64_t at0 = o.prow[q], at1 = o.pout[q], at2 = row_cluster ? o.pup[q] : o.prow[q + 1],
            at3 = row_cluster ? o.pmid[q] : 0;
    int64_t cf = row_cluster ? o.fptr[q] : 0, cb = row_cluster ? o.bptr[q] : 0;
    const int64_t cf0 = cf, cb0 = cb;
    bool has_diag = false;
    /* kCopySteps steps of W entries: their columns, then the columns'
     * clusters and sweep positions, are loaded before the steps place them
     * (one chain of dependent loads for the lot, not one a step) */
    for (int64_t k00 = 0; k00 < len; k00 += (int64_t)kCopySteps<W> * W) {
      int32_t js[kCopySteps<W>], parts[kCopySteps<W>], ijs[kCopySteps<W>];
#pragma unroll
      for (int t = 0; t < kCopySteps<W>; ++t) {
        const int64_t k = k00 + t * W + g;
        js[t] = k < len ? colidx[src + k] : -1;
      }
#pragma unroll
      for (int t = 0; t < kCopySteps<W>; ++t)
        ijs[t] = js[t] < 0 ? 0 : js[t] < n ? iperm[js[t]] : js[t];
#pragma unroll
      for (int t = 0; t < kCopySteps<W>; ++t)
        parts[t] = js[t] < 0 ? -1
                   : row_cluster
                       ? (row_cluster[js[t]] != c && point_key(n, iperm, o.ghost_key, js[t]) < q
                              ? 3 /* outside, of an earlier color */
                              : row_part(row_cluster, c, i, js[t]))
                       : (point_key(n, iperm, o.ghost_key, js[t]) < q ? 0 : 1);
#pragma unroll
      for (int t = 0; t < kCopySteps<W>; ++t) {
        if (k00 + t * W >= len) break; /* group-uniform */
        const int64_t k = k00 + t * W + g;
        const bool valid = k < len;
        const int32_t j = js[t];
        const int part = parts[t];
        const unsigned b0 = __ballot_sync(gm, part == 0) & gm,
                       b1 = __ballot_sync(gm, part == 1) & gm,
                       b2 = __ballot_sync(gm, part == 2) & gm,
                       b3 = __ballot_sync(gm, part == 3) & gm;
        if (valid) {
          const unsigned mine = part == 0 ? b0 : part == 1 ? b1 : part == 2 ? b2 : b3;
          const int rank = __popc(mine & below);
          const int64_t d = (part == 0 ? at0 : part == 1 ? at1 : part == 2 ? at2 : at3) + rank;
          o.pcol[d] = ijs[t];
          if (o.psrc) o.psrc[d] = (int32_t)k;
          if (j == i) o.pdiag_at[q] = (int32_t)k, has_diag = true;
          if (row_cluster && (part == 0 || part == 2)) {
            const int64_t dc = (part == 0 ? cb : cf) + rank;
            (part == 0 ? o.bcol : o.fcol)[dc] = ijs[t];
            (part == 0 ? o.bsrc : o.fsrc)[dc] =
                kSearchAfter<W> ? j : chain_source(rowptr, colidx, j, i, o.abs, o.sorted);
          }
        }
        at0 += __popc(b0), at1 += __popc(b1), at2 += __popc(b2), at3 += __popc(b3);
        cb += __popc(b0), cf += __popc(b2);
      }
    }
    if (!(__ballot_sync(gm, has_diag) & gm) && g == 0) o.pdiag_at[q] = -1;
    if (kSearchAfter<W> && row_cluster) {
      __syncwarp(gm); /* the group's columns in bsrc / fsrc, read by other lanes */
      const int64_t nb = cb - cb0, nt = nb + (cf - cf0);
      for (int64_t t = g; t < nt; t += W) {
        int32_t *at = t < nb ? o.bsrc + cb0 + t : o.fsrc + cf0 + (t - nb);
        *at = chain_source(rowptr, colidx, *at, i, o.abs, o.sorted);
      }
    }
  });
}

__global__ void gs_expand_kernel(int64_t n, int bs, const int32_t *node_agg, int32_t *dof_agg) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride)
    dof_agg[i] = node_agg[i / bs];
}
} // namespace

extern "C" mispc_status gs_expand_cuda(mispc_context *ctx, int64_t n, int bs,
                                       const int32_t *node_agg, int32_t *dof_agg) {
  if (n == 0) return MISPC_SUCCESS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  gs_expand_kernel<<<mispc_device_grid(ctx, n, 256), 256, 0, s>>>(n, bs, node_agg, dof_agg);
  MISPC_CUDA_TRY(ctx, cudaGetLastError());
  return MISPC_SUCCESS;
}

namespace {
/* r[0] = min, r[1] = max, r[2] = one-row clusters */
__global__ void cluster_size_stats(int64_t nc, const int64_t *cl_ptr, unsigned long long *r) {
  unsigned long long lo = ~0ull, hi = 0, one = 0;
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nc;
       q += (int64_t)gridDim.x * blockDim.x) {
    const unsigned long long z = (unsigned long long)(cl_ptr[q + 1] - cl_ptr[q]);
    lo = z < lo ? z : lo;
    hi = z > hi ? z : hi;
    one += z == 1;
  }
  lo = mispc_block_min<kBlock>(lo, ~0ull);
  hi = mispc_block_max<kBlock>(hi);
  one = mispc_block_sum<kBlock>(one);
  if (threadIdx.x == 0) {
    atomicMin(&r[0], lo);
    atomicMax(&r[1], hi);
    if (one) atomicAdd(&r[2], one);
  }
}
} // namespace

extern "C" mispc_status gs_cluster_sizes_cuda(mispc_context *ctx, int64_t nc, const int64_t *cl_ptr,
                                              int64_t *min_size, int64_t *max_size,
                                              int64_t *singletons) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  unsigned long long *d = NULL, h[3] = {~0ull, 0, 0};
  MISPC_TRY(mispc_scratch_alloc(ctx, sizeof h, (void **)&d, "cluster sizes"));
  cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, s);
  if (nc > 0)
    cluster_size_stats<<<mispc_device_grid(ctx, nc, kBlock), kBlock, 0, s>>>(nc, cl_ptr, d);
  cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "cluster sizes");
  mispc_scratch_free(ctx, d);
  *min_size = nc ? (int64_t)h[0] : 0;
  *max_size = (int64_t)h[1];
  *singletons = (int64_t)h[2];
  return st;
}

mispc_status gs_exclusive_sum(mispc_context *ctx, cudaStream_t s, int64_t *v, int64_t n) {
  size_t bytes = 0;
  void *temp = NULL;
  cub::DeviceScan::ExclusiveSum(NULL, bytes, v, v, n, s);
  MISPC_TRY(mispc_scratch_alloc(ctx, bytes + 16, &temp, "scan scratch"));
  cub::DeviceScan::ExclusiveSum(temp, bytes, v, v, n, s);
  mispc_scratch_free(ctx, temp);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return MISPC_SUCCESS;
}

/* What copy_rows writes and copy_values reads and writes. */
static CopyOut copy_out(const mispc_gs *gs) {
  CopyOut o = {gs->prow, gs->pout, gs->pup, gs->fptr, gs->bptr, gs->pmid};
  o.pcol = gs->pcol, o.fcol = gs->fcol, o.bcol = gs->bcol;
  o.psrc = gs->psrc, o.pdiag_at = gs->pdiag_at, o.fsrc = gs->fsrc, o.bsrc = gs->bsrc;
  o.abs = gs->chain_abs;
  o.sorted = gs->ncols == gs->n;
  o.ghost_key = gs->ghost_key;
  return o;
}

/* The clusters of each color largest first (a stable sort of the (color,
 * id) order by size, so ties keep id order): a color with more blocks than
 * the GPU holds at once then starts the longest chains first and leaves
 * the short ones for the second wave (longest processing time first).
 * Clusters of one color share no edge, so their order changes no value.
 * Done where clusters reach kSortClusterRows rows (long chains, a block of
 * few clusters): H100, Elasticity3D_60 on nodes SGS 1.443 -> 1.332 ms, for
 * about 0.1 ms of setup, which Laplace3D_100 (clusters of at most 15 rows,
 * every color in one wave) would pay for nothing. */
constexpr int64_t kSortClusterRows = 32;

static mispc_status order_clusters_by_size(mispc_context *ctx, mispc_gs *gs, cudaStream_t s) {
  const int64_t nc = gs->nclusters, ncol = gs->ncolors;
  /* each part 16-byte aligned (the offsets are 64-bit) */
  const size_t items = ((size_t)nc * 4 + 15) / 16 * 16;
  char *buf = NULL;
  void *temp = NULL;
  size_t bytes = 0;
  MISPC_TRY(mispc_scratch_alloc(ctx, 3 * items, (void **)&buf, "clusters by size"));
  int32_t *size = (int32_t *)buf, *size_out = (int32_t *)(buf + items);
  int32_t *order_out = (int32_t *)(buf + 2 * items);
  const int64_t *cptr = gs->dcolor_ptr;
  cluster_sizes<<<mispc_device_grid(ctx, nc, kBlock), kBlock, 0, s>>>(nc, nc, gs->order, gs->cl_ptr,
                                                                      size);
  cub::DeviceSegmentedSort::StableSortPairsDescending(NULL, bytes, size, size_out, gs->order,
                                                      order_out, nc, ncol, cptr, cptr + 1, s);
  mispc_status st = mispc_scratch_alloc(ctx, bytes + 16, &temp, "clusters by size");
  if (!st) {
    cub::DeviceSegmentedSort::StableSortPairsDescending(temp, bytes, size, size_out, gs->order,
                                                        order_out, nc, ncol, cptr, cptr + 1, s);
    cudaMemcpyAsync(gs->order, order_out, (size_t)nc * 4, cudaMemcpyDeviceToDevice, s);
    mispc_scratch_free(ctx, temp);
  }
  mispc_scratch_free(ctx, buf);
  MISPC_TRY(st);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return MISPC_SUCCESS;
}

extern "C" mispc_status gs_permute_pattern_cuda(mispc_context *ctx, mispc_gs *gs,
                                                const mispc_csr *A) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = gs->n, nnz = gs->nnz;
  const bool cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  const mispc_memspace d = MISPC_MEM_DEVICE;
  double tp = mispc_wtime();
  /* cluster GS: from its chains (choose_cluster_mode) */
  gs->lanes = cluster ? 0 : gs_lanes_per_row(ctx, gs, n ? (double)nnz / (double)n : 1.0);
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 4 + 4, (void **)&gs->perm, "sweep order"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 4 + 4, (void **)&gs->iperm, "sweep order"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)(n + 1) * 8, (void **)&gs->prow, "sorted rows"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)nnz * 4 + 4, (void **)&gs->pcol, "sorted columns"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)nnz * 8 + 8, (void **)&gs->pval, "sorted values"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->pwdiag,
                             "omega over the sorted diagonal"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 4 + 4, (void **)&gs->pdiag_at, "diagonal places"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->bp, "sorted b"));
  gs->ncols = A->ncols; /* xp: the rows', then the ghosts' x (distributed sweep) */
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)gs->ncols * 8 + 8, (void **)&gs->xp, "sorted x"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, 2 * sizeof(double *), (void **)&gs->io_slot, "apply vectors"));
  const mispc_tuning *tu = &ctx->tuning; /* tuning.h */
  gs->no_graph = tu->gs_no_graph != 0;   /* launch per color (measurements) */
  /* chain values by their entries of A where those fit in 31 bits;
   * tuning.gs_chain_rows forces row offsets (tests, measurements) */
  gs->chain_abs = nnz <= INT32_MAX && !tu->gs_chain_rows;
  if (cluster) {
    const int64_t nc = gs->nclusters;
    const size_t cbytes = sizeof(int64_t) * (size_t)(gs->ncolors + 1);
    MISPC_TRY(mispc_pool_alloc(ctx, d, cbytes, (void **)&gs->dcolor_ptr, "color offsets"));
    MISPC_CUDA_TRY(
        ctx, cudaMemcpyAsync(gs->dcolor_ptr, gs->color_ptr, cbytes, cudaMemcpyHostToDevice, s));
    /* tuning.gs_cluster_order forces an order (tests, measurements) */
    const int eo = tu->gs_cluster_order;
    const bool by_size = eo == MISPC_TUNE_ORDER_ID     ? false
                         : eo == MISPC_TUNE_ORDER_SIZE ? true
                                                       : gs->max_cluster >= kSortClusterRows;
    if (nc > 0 && by_size) MISPC_TRY(order_clusters_by_size(ctx, gs, s));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)(nc + 1) * 8, (void **)&gs->pcl, "cluster rows"));
    cluster_sizes<<<mispc_device_grid(ctx, nc + 1, kBlock), kBlock, 0, s>>>(nc, nc + 1, gs->order,
                                                                            gs->cl_ptr, gs->pcl);
    MISPC_TRY(gs_exclusive_sum(ctx, s, gs->pcl, nc + 1));
    gs->color_rows =
        (int64_t *)mispc_host_alloc(ctx, sizeof(int64_t) * (size_t)(gs->ncolors + 1), "color rows");
    if (!gs->color_rows) return MISPC_ERR_ALLOC;
    { /* color_rows[c] = pcl[color_ptr[c]]: one copy back, not one per color */
      int64_t *t = NULL;
      MISPC_TRY(mispc_scratch_alloc(ctx, cbytes, (void **)&t, "color rows"));
      color_row_offsets<<<mispc_grid_for(gs->ncolors + 1, kBlock, 1024), kBlock, 0, s>>>(
          gs->ncolors, gs->dcolor_ptr, gs->pcl, t);
      cudaMemcpyAsync(gs->color_rows, t, cbytes, cudaMemcpyDeviceToHost, s);
      mispc_scratch_free(ctx, t);
      MISPC_CUDA_LAUNCH_CHECK(ctx);
    }
    if (nc > 0)
      cluster_perm<<<mispc_device_grid(ctx, nc, kBlock), kBlock, 0, s>>>(
          nc, gs->order, gs->cl_ptr, gs->cl_rows, gs->pcl, gs->perm);
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->pout, "row parts"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->pup, "row parts"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->pmid, "row parts"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)(n + 1) * 8, (void **)&gs->fptr, "chains"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)(n + 1) * 8, (void **)&gs->bptr, "chains"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)nnz * 4 + 4, (void **)&gs->psrc, "value places"));
  } else {
    if (n > 0)
      MISPC_CUDA_TRY(
          ctx, cudaMemcpyAsync(gs->perm, gs->order, (size_t)n * 4, cudaMemcpyDeviceToDevice, s));
    /* the lower parts (gs_internal.h) and the first pass's sums */
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->pout, "row parts"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)nnz * 4 + 4, (void **)&gs->psrc, "value places"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->tp, "first pass sums"));
  }
  mispc_log_phase(ctx, d, &tp, "  pattern: clusters in sweep order");
  const int32_t *rc = cluster ? gs->row_cluster : NULL;
  int64_t chain = 0; /* entries of the forward chains (upper entries) */
  const int w = mispc_lanes_for_rows(A);
  /* point rows only need their lengths: a thread a row */
  mispc_with_lanes(cluster ? w : 1, [&](auto lanes) {
    constexpr int W = decltype(lanes)::value;
    invert_and_lengths<W><<<mispc_device_grid(ctx, (long long)W * (n + 1), kBlock), kBlock, 0, s>>>(
        n, gs->perm, A->rowptr, A->colidx, rc, gs->iperm, gs->prow, gs->bptr, gs->fptr);
    return 0;
  });
  if (n > 0) /* point: the lower lengths into pout; cluster: the early ones into pmid */
    early_lengths<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(
        n, gs->perm, gs->iperm, A->rowptr, A->colidx, rc, gs->ghost_key, rc ? gs->pmid : gs->pout);
  mispc_log_phase(ctx, d, &tp, "  pattern: sweep order and row lengths");
  MISPC_TRY(gs_exclusive_sum(ctx, s, gs->prow, n + 1));
  if (!rc && n > 0)
    point_part_offsets<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, gs->prow, gs->pout);
  if (rc) {
    MISPC_TRY(gs_exclusive_sum(ctx, s, gs->bptr, n + 1));
    MISPC_TRY(gs_exclusive_sum(ctx, s, gs->fptr, n + 1));
    if (n > 0)
      part_offsets<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(
          n, gs->prow, gs->bptr, gs->fptr, gs->pmid, gs->pout, gs->pup);
    int64_t bchain = 0;
    MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&chain, gs->fptr + n, 8, cudaMemcpyDeviceToHost, s));
    MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&bchain, gs->bptr + n, 8, cudaMemcpyDeviceToHost, s));
    MISPC_TRY(mispc_sync(ctx, s, "cluster chains"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)chain * 4 + 4, (void **)&gs->fcol, "chains"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)bchain * 4 + 4, (void **)&gs->bcol, "chains"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)chain * 8 + 8, (void **)&gs->fval, "chains"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)bchain * 8 + 8, (void **)&gs->bval, "chains"));
    /* the values' places, so the numeric setup only gathers */
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)chain * 4 + 4, (void **)&gs->fsrc, "chains"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)bchain * 4 + 4, (void **)&gs->bsrc, "chains"));
  }
  mispc_log_phase(ctx, d, &tp, "  pattern: offsets and chains");
  if (n > 0) {
    const CopyOut o = copy_out(gs);
    mispc_with_lanes(w, [&](auto lanes) {
      constexpr int W = decltype(lanes)::value;
      copy_rows<W><<<mispc_device_grid(ctx, (long long)W * n, kBlock), kBlock, 0, s>>>(
          n, gs->perm, gs->iperm, A->rowptr, A->colidx, rc, o);
      return 0;
    });
  }
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  mispc_log_phase(ctx, d, &tp, "  pattern: copy");
  if (cluster && gs->nclusters > 0) MISPC_TRY(gs_choose_cluster_mode(ctx, gs, s, chain));
  mispc_log_phase(ctx, d, &tp, "  pattern: chain lanes");
  if (gs_exact(gs)) MISPC_TRY(gs_exact_pattern_cuda(ctx, gs, A));
  return mispc_sync(ctx, s, "Gauss-Seidel sweep order");
}
