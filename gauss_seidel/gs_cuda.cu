/* GPU steps of multicolor Gauss-Seidel: one launch per color per sweep.
 * Products and sums use __dmul_rn / __dsub_rn / __ddiv_rn (no fused
 * multiply-add), the same arithmetic as gs_host.c, so x is bit-identical. */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda_util.cuh"
#include "gs_internal.h"

namespace {

constexpr int kBlock = 256;
/* point rows of at most this many entries are summed one by one, longer
 * ones in chunks of 32 as trees (the host's rule, gs_host.c update_row) */
constexpr int kChainedRow = 32;

/* s minus the products held by lanes 0 .. m_max-1 of each group of W lanes,
 * in lane order (shuffles on `mask`, the groups taking part). Lanes past a
 * row's end hold +0.0, and s - (+0.0) == s for every s (-0 included), so
 * the chain runs unpredicated, unrolled in steps of 8 (all W when W <= 8):
 * the shuffles issue ahead of the dependent subtractions. */
template <int W>
__device__ __forceinline__ double ordered_sub(double s, double prod, int m_max, unsigned mask) {
  constexpr int step = W < 8 ? W : 8;
  const int m = W <= 8 ? W : m_max;
  for (int j0 = 0; j0 < m; j0 += step) {
#pragma unroll
    for (int j = 0; j < step; ++j) s = __dsub_rn(s, __shfl_sync(mask, prod, j0 + j, W));
  }
  return s;
}

/* s minus the entries b .. e-1 of a row of the sweep-ordered copy, in storage
 * order, by a group of W lanes (1 .. 32, a power of two): the lanes load U
 * steps of W entries at once (U * W loads in flight, not one step's
 * latency after another), form the rounded products, then every lane
 * subtracts them in order (ordered_sub), so the sum is the host's bit for
 * bit. Only columns in [klo, khi) are read: the others hold x = 0 (rows a
 * first pass from x = 0 has not reached) and give +0.0 (gs_apply_cuda says
 * why that is the host's x). Groups of one warp may diverge (row lengths):
 * shuffles use the group's own mask. */
template <int W>
__device__ __forceinline__ double row_chain(double s, int64_t b, int64_t e, const int32_t *pcol,
                                            const double *pval, const double *xp, int lane,
                                            unsigned mask, int32_t klo, int32_t khi) {
  constexpr int U = W <= 8 ? 4 : 2;
  for (int64_t base = b; base < e; base += (int64_t)W * U) {
    double prod[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t p = base + u * W + lane;
      const int32_t c = p < e ? pcol[p] : -1;
      prod[u] = c >= klo && c < khi ? __dmul_rn(pval[p], xp[c]) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      s = ordered_sub<W>(s, prod[u], (int)min((int64_t)W, e - base - u * W), mask);
  }
  return s;
}

/* The tree sum of one chunk of 32 inner entries of a row (gs_host.c,
 * chunk_tree) by a group of W lanes: lane l holds slots l + W m, prod(t)
 * gives the rounded product of entry t of the chunk (+0.0 past the row's
 * end, as on the host). Partners 16 .. W slots apart are added inside a
 * lane, closer ones by xor shuffles on `mask`; every lane gets the sum. */
template <int W, typename Prod>
__device__ __forceinline__ double chunk_sum(int lane, unsigned mask, Prod prod) {
  constexpr int S = 32 / W;
  double v[S];
#pragma unroll
  for (int m = 0; m < S; ++m) v[m] = prod(lane + W * m);
#pragma unroll
  for (int h = S / 2; h >= 1; h /= 2)
#pragma unroll
    for (int m = 0; m < h; ++m) v[m] = __dadd_rn(v[m], v[m + h]);
  double a = v[0];
#pragma unroll
  for (int h = W / 2; h >= 1; h /= 2) a = __dadd_rn(a, __shfl_xor_sync(mask, a, h, W));
  return a;
}

template <int W> __device__ __forceinline__ unsigned group_mask() {
  return W == 32 ? 0xffffffffu : (((1u << (W & 31)) - 1u) << ((threadIdx.x & 31) & ~(W - 1)));
}

/* The caller's b and x of an apply: by value, or (launches inside the
 * apply's CUDA graph, built once) from a device slot that the apply's first
 * launch fills, so one graph serves every b and x. */
struct ApplyIO {
  const double *b;
  double *x;
  double *const *slot; /* non-NULL: slot[0] = b, slot[1] = x */
  double **publish;    /* non-NULL: block 0 stores b and x there */
  __device__ const double *get_b() const {
    return slot ? slot[0] : b;
  }
  __device__ double *get_x() const {
    return slot ? slot[1] : x;
  }
  __device__ void store() const {
    if (publish && blockIdx.x == 0 && threadIdx.x == 0) publish[0] = (double *)b, publish[1] = x;
  }
};

/* What one pass (a sweep in one direction) reads and writes besides the
 * sweep-ordered copy. first_b: the first pass from x = 0 reads b through
 * perm instead of a gathered copy (and keeps it in bp for later passes when
 * keep_b), and x of the rows it has not reached is 0: only columns in
 * [klo, khi) are read. x_out: the last pass also writes x in the caller's
 * order, so no gather and no scatter launch is needed around the sweeps. */
struct PassIO {
  const int32_t *perm;
  ApplyIO io;
  bool first_b, keep_b, x_out;
  int32_t klo, khi; /* sweep positions (perm is 32-bit) */
};

/* Point GS over rows lo .. hi-1 of the sweep-ordered copy (one color), a
 * group of W lanes per row. An empty [klo, khi) (the first color of a
 * sweep from x = 0) reads no matrix entries: the same x bit for bit
 * (x_i = 0 + t / a_ii absorbs the sign of a zero sum). At most 40 registers
 * (6 blocks an SM; 32 spill and were slower on an H100). */
template <int W>
__global__ void __launch_bounds__(kBlock, 6)
    sweep_points(int64_t lo, int64_t hi, const int64_t *prow, const int32_t *pcol,
                 const double *pval, const double *pdiag, double omega, double *bp, double *xp,
                 PassIO pio) {
  pio.io.store();
  const int lane = threadIdx.x & (W - 1);
  const unsigned mask = group_mask<W>();
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / W;
  const double *b = pio.first_b ? pio.io.get_b() : NULL;
  double *x = pio.x_out ? pio.io.get_x() : NULL;
  for (int64_t i = lo + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / W; i < hi;
       i += ngroups) {
    const int32_t row = b || x ? pio.perm[i] : 0;
    const double bi = b ? b[row] : bp[i];
    const int64_t rb = pio.klo < pio.khi ? prow[i] : 0, re = pio.klo < pio.khi ? prow[i + 1] : 0;
    double s = bi;
    if (re - rb <= kChainedRow) {
      s = row_chain<W>(bi, rb, re, pcol, pval, xp, lane, mask, pio.klo, pio.khi);
    } else { /* long rows: chunks of 32 as trees (gs_host.c update_row) */
      for (int64_t c0 = rb; c0 < re; c0 += 32)
        s = __dsub_rn(s, chunk_sum<W>(lane, mask, [&](int t) {
                        const int64_t p = c0 + t;
                        const int32_t c = p < re ? pcol[p] : -1;
                        return c >= pio.klo && c < pio.khi ? __dmul_rn(pval[p], xp[c]) : 0.0;
                      }));
    }
    if (lane == 0) {
      const double xi = __dadd_rn(b ? 0.0 : xp[i], __ddiv_rn(__dmul_rn(omega, s), pdiag[i]));
      xp[i] = xi;
      if (x) x[row] = xi;
      if (b && pio.keep_b) bp[i] = bi;
    }
  }
}

/* Cluster GS, first step for one color when the outer entries are not
 * staged: tp_i = b_i minus the entries of row i outside its cluster (prow[i]
 * .. prow[i+1]-1), for rows lo .. hi-1 at once: those x belong to other
 * colors and do not change during this color. */
template <int W>
__global__ void outer_sums(int64_t lo, int64_t hi, const int64_t *prow, const int32_t *pcol,
                           const double *pval, const double *bp, const double *xp, double *tp) {
  const int lane = threadIdx.x & (W - 1);
  const unsigned mask = group_mask<W>();
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / W;
  for (int64_t i = lo + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / W; i < hi;
       i += ngroups) {
    const double s =
        row_chain<W>(bp[i], prow[i], prow[i + 1], pcol, pval, xp, lane, mask, 0, INT32_MAX);
    if (lane == 0) tp[i] = s;
  }
}

/* Cluster GS for clusters too large to stage (sweep_clusters_staged), after
 * outer_sums: a group of W lanes per cluster q (rows pcl[q] .. pcl[q+1]-1,
 * one after another, reversed on a backward sweep) subtracts the inner
 * entries pmid[i] .. pmid[i+1]-1 of row i from s0[i] and updates x_i, entries
 * read from global memory. With smem_rows > 0 the cluster's x lives in
 * shared memory during the sweep (clusters of at most smem_rows rows); lane 0
 * writes x_i and __syncwarp on the group's mask orders that write before the
 * next row's loads. */
template <int W>
__global__ void sweep_clusters(int64_t lo, int64_t hi, const int64_t *pcl, bool backward,
                               const int64_t *pmid, const int32_t *pcol, const double *pval,
                               const double *pdiag, double omega, const double *s0, double *xp,
                               int smem_rows, PassIO pio) {
  extern __shared__ double smem[];
  const int32_t *perm = pio.perm;
  double *x_out = pio.x_out ? pio.io.get_x() : NULL;
  const int lane = threadIdx.x & (W - 1);
  const unsigned mask = group_mask<W>();
  double *xs = smem + (size_t)(threadIdx.x / W) * smem_rows;
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / W;
  for (int64_t q = lo + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / W; q < hi;
       q += ngroups) {
    const int64_t r0 = pcl[q], nr = pcl[q + 1] - r0;
    double *x = xp + r0;
    if (smem_rows) {
      for (int64_t k = lane; k < nr; k += W) xs[k] = xp[r0 + k];
      __syncwarp(mask);
      x = xs;
    }
    for (int64_t r = 0; r < nr; ++r) {
      const int64_t i = backward ? r0 + nr - 1 - r : r0 + r, b = pmid[i];
      const int len = (int)(pmid[i + 1] - b);
      double s = s0[i];
      for (int c0 = 0; c0 < len; c0 += 32)
        s = __dsub_rn(s, chunk_sum<W>(lane, mask, [&](int t) {
                        t += c0;
                        return t < len ? __dmul_rn(pval[b + t], x[pcol[b + t] - r0]) : 0.0;
                      }));
      if (lane == 0) {
        x[i - r0] = __dadd_rn(x[i - r0], __ddiv_rn(__dmul_rn(omega, s), pdiag[i]));
        if (x_out && !smem_rows) x_out[perm[i]] = x[i - r0];
      }
      __syncwarp(mask);
    }
    if (smem_rows) {
      for (int64_t k = lane; k < nr; k += W) {
        xp[r0 + k] = xs[k];
        if (x_out) x_out[perm[r0 + k]] = xs[k];
      }
      __syncwarp(mask);
    }
  }
}

__device__ __forceinline__ int warp_max(int v) {
#if __CUDA_ARCH__ >= 800
  return (int)__reduce_max_sync(~0u, (unsigned)v);
#else
  for (int o = 16; o > 0; o /= 2) v = max(v, __shfl_xor_sync(~0u, v, o));
  return v;
#endif
}

/* Shared memory of one warp of sweep_clusters_staged: a batch of at most R
 * rows, Zi inner and Zo outer entries (Zo = 0: outer sums from outer_sums). */
__host__ __device__ inline size_t staged_bytes(int64_t R, int64_t Zi, int64_t Zo) {
  return (8 * (3 * R + Zi + Zo) + 4 * (2 * (R + 1) + Zo) + 2 * Zi + 7) / 8 * 8;
}

/* Copies n entries from pcol/pval + src into shared memory, a warp with
 * eight loads in flight per lane (the latency of one load, not of n / 32).
 * Columns are stored minus `shift`, as T. */
template <typename T>
__device__ __forceinline__ void stage_entries(int n, int64_t src, const int32_t *pcol,
                                              const double *pval, int32_t shift, T *cs, double *vs,
                                              int wl) {
  constexpr int U = 8;
  for (int t0 = wl; t0 < n; t0 += 32 * U) {
    int32_t c[U];
    double v[U];
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const int t = t0 + 32 * j;
      if (t < n) {
        c[j] = pcol[src + t];
        v[j] = pval[src + t];
      }
    }
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const int t = t0 + 32 * j;
      if (t < n) {
        cs[t] = (T)(c[j] - shift);
        vs[t] = v[j];
      }
    }
  }
}

/* Cluster GS for one color (clusters lo .. hi-1), a warp per batch of 32 / W
 * consecutive clusters and a group of W lanes per cluster. The whole warp
 * first copies the batch into shared memory with coalesced loads: x, the
 * diagonal, s0 (the outer sums, or b when they are formed here), row offsets
 * and the batch's inner entries (contiguous in the copy; columns local to the
 * batch, 16 bits) and, with Zo > 0, its outer entries. With Zo > 0 it then
 * forms the outer sums, a lane per row in storage order (x of other colors
 * from global memory); zero_x (every x is 0: the first color from x = 0)
 * skips them. Then each group updates its rows one after another from
 * shared memory only, reversed on a backward sweep: a row costs its
 * arithmetic chain, not dependent memory round trips. The groups of a warp
 * move in lockstep (loops to the warp's largest trip count, finished groups
 * idle): groups with their own loops and partial-mask shuffles diverge, and
 * a diverged warp runs one group at a time. Same arithmetic as gs_host.c:
 * outer entries in storage order, then inner ones in storage order. */
template <int W>
__global__ void sweep_clusters_staged(int64_t lo, int64_t hi, const int64_t *pcl, bool backward,
                                      const int64_t *prow, const int64_t *pmid, const int32_t *pcol,
                                      const double *pval, const double *pdiag, double omega,
                                      const double *s0, double *xp, int R, int Zi, int Zo,
                                      bool zero_x, PassIO pio) {
  extern __shared__ double smem[];
  const int32_t *perm = pio.perm;
  double *x_out = pio.x_out ? pio.io.get_x() : NULL;
  constexpr int G = 32 / W;
  const int wl = threadIdx.x & 31, lane = wl & (W - 1), group = wl / W;
  char *base = (char *)smem + (size_t)(threadIdx.x / 32) * staged_bytes(R, Zi, Zo);
  double *xs = (double *)base, *ts = xs + R, *ds = ts + R, *vi = ds + R, *vo = vi + Zi;
  int *ip = (int *)(vo + Zo), *op = ip + R + 1, *co = op + R + 1;
  uint16_t *ci = (uint16_t *)(co + Zo);
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) / 32;
  for (int64_t q0 = lo + ((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32) * G; q0 < hi;
       q0 += nwarps * G) {
    const int64_t qe = min(q0 + (int64_t)G, hi), r0 = pcl[q0];
    const int nrb = (int)(pcl[qe] - r0);
    const int64_t i0 = pmid[r0], o0 = prow[r0];
    const int nib = (int)(pmid[r0 + nrb] - i0), nob = Zo ? (int)(prow[r0 + nrb] - o0) : 0;
    for (int k = wl; k < nrb; k += 32) {
      const int64_t i = r0 + k;
      xs[k] = xp[i];
      ts[k] = s0[i];
      ds[k] = pdiag[i];
      ip[k] = (int)(pmid[i] - i0);
      if (Zo) op[k] = (int)(prow[i] - o0);
    }
    if (wl == 0) ip[nrb] = nib, op[nrb] = nob;
    stage_entries<uint16_t>(nib, i0, pcol, pval, (int32_t)r0, ci, vi, wl);
    if (Zo && !zero_x) stage_entries<int>(nob, o0, pcol, pval, 0, co, vo, wl);
    __syncwarp();
    const int64_t q = q0 + group;
    const int k0 = q < qe ? (int)(pcl[q] - r0) : 0, nr = q < qe ? (int)(pcl[q + 1] - pcl[q]) : 0;
    const int nr_max = warp_max(nr);
    if (Zo && !zero_x) {
      for (int k = k0 + lane; k < k0 + nr; k += W) {
        double s = ts[k];
        const int e = op[k + 1];
#pragma unroll 4
        for (int t = op[k]; t < e; ++t) s = __dsub_rn(s, __dmul_rn(vo[t], xp[co[t]]));
        ts[k] = s;
      }
      __syncwarp();
    }
    /* the group's rows one after another (batch-local index k) */
    for (int r = 0; r < nr_max; ++r) {
      const int k = r < nr ? k0 + (backward ? nr - 1 - r : r) : -1;
      const int b = k >= 0 ? ip[k] : 0, len = k >= 0 ? ip[k + 1] - b : 0;
      const int len_max = warp_max(len);
      double s = k >= 0 ? ts[k] : 0.0;
      for (int c0 = 0; c0 < len_max; c0 += 32) /* shorter rows subtract +0.0: exact */
        s = __dsub_rn(s, chunk_sum<W>(lane, ~0u, [&](int t) {
                        t += c0;
                        return t < len ? __dmul_rn(vi[b + t], xs[ci[b + t]]) : 0.0;
                      }));
      if (k >= 0 && lane == 0) xs[k] = __dadd_rn(xs[k], __ddiv_rn(__dmul_rn(omega, s), ds[k]));
      __syncwarp();
    }
    for (int t = wl; t < nrb; t += 32) {
      xp[r0 + t] = xs[t];
      if (x_out) x_out[perm[r0 + t]] = xs[t];
    }
    __syncwarp();
  }
}

/* r[0..2] = the most rows, inner and outer entries of any g consecutive
 * clusters among lo .. hi-1 (one color; a bound on every batch of
 * sweep_clusters_staged) */
__global__ void batch_sizes(int64_t lo, int64_t hi, int g, const int64_t *pcl, const int64_t *prow,
                            const int64_t *pmid, unsigned long long *r) {
  unsigned long long m[3] = {0, 0, 0};
  for (int64_t q = lo + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < hi;
       q += (int64_t)gridDim.x * blockDim.x) {
    const int64_t a = pcl[q], b = pcl[q + g < hi ? q + g : hi];
    const unsigned long long z[3] = {(unsigned long long)(b - a),
                                     (unsigned long long)(pmid[b] - pmid[a]),
                                     (unsigned long long)(prow[b] - prow[a])};
    for (int j = 0; j < 3; ++j) m[j] = z[j] > m[j] ? z[j] : m[j];
  }
  for (int j = 0; j < 3; ++j) {
    const unsigned long long b = mispc_block_max<kBlock>(m[j]);
    if (threadIdx.x == 0 && b) atomicMax(&r[j], b);
  }
}

/* pcl[q] = rows of the q-th cluster in sweep order (scanned afterwards) */
__global__ void cluster_sizes(int64_t nc, const int32_t *order, const int64_t *cl_ptr,
                              int64_t *pcl) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q <= nc;
       q += (int64_t)gridDim.x * blockDim.x)
    pcl[q] = q < nc ? cl_ptr[order[q] + 1] - cl_ptr[order[q]] : 0;
}

__global__ void cluster_perm(int64_t nc, const int32_t *order, const int64_t *cl_ptr,
                             const int32_t *cl_rows, const int64_t *pcl, int32_t *perm) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nc;
       q += (int64_t)gridDim.x * blockDim.x) {
    const int64_t src = cl_ptr[order[q]], dst = pcl[q], len = pcl[q + 1] - dst;
    for (int64_t r = 0; r < len; ++r) perm[dst + r] = cl_rows[src + r];
  }
}

/* A warp per row q of the copy (row perm[q] of A): iperm[perm[q]] = q, and
 * the row's length into prow[q] or, for cluster GS (row_cluster given), the
 * number of its entries outside its cluster into prow[q] and inside into
 * pmid[q] (both scanned and pmid offset afterwards). */
__global__ void invert_and_lengths(int64_t n, const int32_t *perm, const int64_t *rowptr,
                                   const int32_t *colidx, const int32_t *row_cluster,
                                   int32_t *iperm, int64_t *prow, int64_t *pmid) {
  const int lane = threadIdx.x & 31;
  for (int64_t q = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; q <= n;
       q += ((int64_t)gridDim.x * blockDim.x) >> 5) {
    if (q == n) {
      if (lane == 0) prow[n] = 0;
      if (lane == 0 && row_cluster) pmid[n] = 0;
      continue;
    }
    const int32_t i = perm[q];
    const int64_t src = rowptr[i], len = rowptr[i + 1] - src;
    if (lane == 0) iperm[i] = (int32_t)q;
    if (!row_cluster) {
      if (lane == 0) prow[q] = len;
      continue;
    }
    const int32_t c = row_cluster[i];
    int64_t outer = 0;
    for (int64_t k0 = 0; k0 < len; k0 += 32) {
      const int64_t k = k0 + lane;
      outer += __popc(__ballot_sync(~0u, k < len && row_cluster[colidx[src + k]] != c));
    }
    if (lane == 0) prow[q] = outer, pmid[q] = len - outer;
  }
}

/* The inner part follows all outer entries: pmid[q] += prow[n], q <= n. */
__global__ void add_offsets(int64_t n, const int64_t *prow, int64_t *pmid) {
  const int64_t outer = prow[n];
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q <= n;
       q += (int64_t)gridDim.x * blockDim.x)
    pmid[q] += outer;
}

/* A warp per row q: row perm[q] of A into row q of the copy, renumbered
 * columns (pattern) or values and diagonal (numeric). Cluster GS (row_cluster
 * given) puts the entries outside the row's cluster at prow[q] and those
 * inside at pmid[q], each part in storage order: a stable partition by
 * ballots. */
__global__ void copy_rows(int64_t n, const int32_t *perm, const int32_t *iperm,
                          const int64_t *rowptr, const int32_t *colidx, const double *val,
                          const double *diag, const int32_t *row_cluster, const int64_t *prow,
                          const int64_t *pmid, int32_t *pcol, double *pval, double *pdiag) {
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1u;
  for (int64_t q = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; q < n;
       q += ((int64_t)gridDim.x * blockDim.x) >> 5) {
    const int32_t i = perm[q];
    const int32_t c = row_cluster ? row_cluster[i] : 0;
    const int64_t src = rowptr[i], len = rowptr[i + 1] - src;
    int64_t out = prow[q], in = row_cluster ? pmid[q] : prow[q + 1];
    for (int64_t k0 = 0; k0 < len; k0 += 32) {
      const int64_t k = k0 + lane;
      const bool valid = k < len;
      const int32_t j = valid ? colidx[src + k] : 0;
      const bool inner = valid && row_cluster && row_cluster[j] == c;
      const unsigned bo = __ballot_sync(~0u, valid && !inner), bi = __ballot_sync(~0u, inner);
      const int64_t d = inner ? in + __popc(bi & below) : out + __popc(bo & below);
      if (valid && pcol) pcol[d] = iperm[j];
      if (valid && pval) pval[d] = val[src + k];
      out += __popc(bo);
      in += __popc(bi);
    }
    if (pdiag && lane == 0) pdiag[q] = diag[i];
  }
}

/* bp = b and xp = x (or 0) in sweep order */
__global__ void gather_vectors(int64_t n, const int32_t *perm, ApplyIO io, int zero_guess,
                               double *bp, double *xp) {
  io.store();
  const double *b = io.b, *x = io.x;
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x) {
    const int32_t i = perm[q];
    bp[q] = b[i];
    xp[q] = zero_guess ? 0.0 : x[i];
  }
}

__global__ void iota(int64_t n, int32_t *v) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    v[i] = (int32_t)i;
}

/* ptr[k] = first position of key k in the sorted keys (binary search). */
__global__ void key_offsets(int64_t n, const int32_t *sorted, int32_t nkeys, int64_t *ptr) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k <= nkeys;
       k += (int64_t)gridDim.x * blockDim.x) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (sorted[mid] < k)
        lo = mid + 1;
      else
        hi = mid;
    }
    ptr[k] = lo;
  }
}

__global__ void diagonal(int64_t n, const int64_t *rowptr, const int32_t *colidx, const double *val,
                         int require_positive, double *diag, unsigned long long *first_bad) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int kind = 1;
    double d = 0;
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p)
      if (colidx[p] == i) {
        d = val[p];
        kind = d == 0 ? 2 : !isfinite(d) ? 3 : require_positive && d < 0 ? 4 : 0;
        break;
      }
    diag[i] = d;
    if (kind) atomicMin(first_bad, ((unsigned long long)i << 3) | (unsigned long long)kind);
  }
}

} // namespace

extern "C" mispc_status gs_order_cuda(mispc_context *ctx, int64_t n, const int32_t *key,
                                      int32_t nkeys, int32_t *order, int64_t *ptr) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int32_t *buf = NULL; /* ids in, sorted keys out */
  void *temp = NULL;
  size_t bytes = 0;
  int bits = 1;
  while (bits < 31 && (1ll << bits) <= nkeys) ++bits;
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n * 8 + 8, (void **)&buf, "sort buffers");
  if (!st && n > 0) {
    int32_t *ids = buf, *keys_out = buf + n;
    iota<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, ids);
    cub::DeviceRadixSort::SortPairs(NULL, bytes, key, keys_out, ids, order, n, 0, bits, s);
    st = mispc_scratch_alloc(ctx, bytes + 16, &temp, "sort scratch");
    /* stable radix sort: ids stay increasing inside each key */
    if (!st) cub::DeviceRadixSort::SortPairs(temp, bytes, key, keys_out, ids, order, n, 0, bits, s);
    if (!st)
      key_offsets<<<mispc_device_grid(ctx, nkeys + 1, kBlock), kBlock, 0, s>>>(n, keys_out, nkeys,
                                                                               ptr);
  } else if (!st) {
    cudaMemsetAsync(ptr, 0, sizeof(int64_t) * (size_t)(nkeys + 1), s);
  }
  if (!st) st = mispc_sync(ctx, s, "Gauss-Seidel ordering");
  mispc_scratch_free(ctx, temp);
  mispc_scratch_free(ctx, buf);
  return st;
}

extern "C" mispc_status gs_diag_cuda(mispc_context *ctx, const mispc_csr *A, int require_positive,
                                     double *diag, int64_t *bad_row, int *bad_kind) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  unsigned long long *d = NULL, h = ~0ull;
  MISPC_TRY(mispc_scratch_alloc(ctx, 8, (void **)&d, "diagonal check"));
  cudaMemcpyAsync(d, &h, 8, cudaMemcpyHostToDevice, s);
  if (A->nrows > 0)
    diagonal<<<mispc_device_grid(ctx, A->nrows, kBlock), kBlock, 0, s>>>(
        A->nrows, A->rowptr, A->colidx, A->values, require_positive, diag, d);
  cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "Gauss-Seidel diagonal");
  mispc_scratch_free(ctx, d);
  *bad_row = h == ~0ull ? -1 : (int64_t)(h >> 3);
  *bad_kind = h == ~0ull ? 0 : (int)(h & 7);
  return st;
}

namespace {
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

/* In-place exclusive sum of v[0..n) (CUB). */
static mispc_status exclusive_sum(mispc_context *ctx, cudaStream_t s, int64_t *v, int64_t n) {
  size_t bytes = 0;
  void *temp = NULL;
  cub::DeviceScan::ExclusiveSum(NULL, bytes, v, v, n, s);
  MISPC_TRY(mispc_scratch_alloc(ctx, bytes + 16, &temp, "scan scratch"));
  cub::DeviceScan::ExclusiveSum(temp, bytes, v, v, n, s);
  mispc_scratch_free(ctx, temp);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return MISPC_SUCCESS;
}

/* How cluster GS runs a color (gs->cluster_mode). */
enum {
  GS_CLUSTERS_STAGED_OUTER = 0, /* sweep_clusters_staged forms the outer sums too */
  GS_CLUSTERS_STAGED = 1,       /* outer_sums, then sweep_clusters_staged */
  GS_CLUSTERS_GLOBAL = 2        /* outer_sums, then sweep_clusters (batches too large) */
};
/* Batches with their outer entries up to this many bytes a warp form their
 * outer sums in the cluster kernel (one launch a color); larger ones use an
 * outer_sums launch, SpMV-like over all rows of the color. */
constexpr size_t kStagedOuterBytes = 24 * 1024;
constexpr size_t kDefaultSmem = 48 * 1024;

/* Lanes per row (point) or per cluster: the power of two at or above the
 * mean length of what a group reads at once (1 .. 32): point GS a lane per
 * 16 entries of a row, at most 8; cluster GS the mean number of inner
 * entries a row, since the rows of a cluster are sequential and each wants
 * its inner entries at once. MISPC_GS_LANES=1|2|4|8|16|32 from the
 * environment overrides it (tuning). Same arithmetic for every choice. */
static int gs_lanes_per_row(const mispc_gs *gs, double mean) {
  const char *e = getenv("MISPC_GS_LANES");
  const int v = e ? atoi(e) : 0;
  if (v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 32) return v;
  /* measured on an H100 (docs/GAUSS_SEIDEL.md): point rows of one color are
   * many, and few lanes a row keep the most rows in flight (Laplace3D_100:
   * 1 lane 3.2 SpMV, 8 lanes 4.1) */
  int w = 1;
  if (gs->opt.kind != MISPC_GS_CLUSTER)
    while (w < 8 && 16 * w <= mean) w *= 2;
  else
    while (w < 32 && w < mean) w *= 2;
  return w;
}

/* Batch sizes of sweep_clusters_staged and the cluster mode; MISPC_GS_OUTER=
 * staged|split|global from the environment forces a mode where it fits
 * (tuning; the arithmetic is the same in every mode). */
static mispc_status choose_cluster_mode(mispc_context *ctx, mispc_gs *gs, cudaStream_t s) {
  const int32_t nco = gs->ncolors;
  int64_t outer = 0;
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&outer, gs->prow + gs->n, 8, cudaMemcpyDeviceToHost, s));
  MISPC_TRY(mispc_sync(ctx, s, "cluster entries"));
  gs->lanes = gs_lanes_per_row(gs, gs->n ? (double)(gs->nnz - outer) / (double)gs->n : 1.0);
  gs->color_batch = (int64_t *)mispc_host_alloc(ctx, sizeof(int64_t) * 3 * (size_t)nco, "batches");
  if (!gs->color_batch) return MISPC_ERR_ALLOC;
  unsigned long long *dm = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, 24 * (size_t)nco, (void **)&dm, "cluster batch sizes"));
  cudaMemsetAsync(dm, 0, 24 * (size_t)nco, s);
  for (int32_t c = 0; c < nco; ++c) {
    const int64_t lo = gs->color_ptr[c], hi = gs->color_ptr[c + 1];
    if (hi > lo)
      batch_sizes<<<mispc_device_grid(ctx, hi - lo, kBlock), kBlock, 0, s>>>(
          lo, hi, 32 / gs->lanes, gs->pcl, gs->prow, gs->pmid, dm + 3 * c);
  }
  cudaMemcpyAsync(gs->color_batch, dm, 24 * (size_t)nco, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "cluster batch sizes");
  mispc_scratch_free(ctx, dm);
  MISPC_TRY(st);
  gs->batch_rows = gs->batch_inner = gs->batch_outer = 0;
  for (int32_t c = 0; c < nco; ++c) {
    const int64_t *m = gs->color_batch + 3 * c;
    gs->batch_rows = m[0] > gs->batch_rows ? m[0] : gs->batch_rows;
    gs->batch_inner = m[1] > gs->batch_inner ? m[1] : gs->batch_inner;
    gs->batch_outer = m[2] > gs->batch_outer ? m[2] : gs->batch_outer;
  }
  int dev = 0, optin = 0;
  MISPC_CUDA_TRY(ctx, cudaGetDevice(&dev));
  MISPC_CUDA_TRY(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  const size_t with_outer = staged_bytes(gs->batch_rows, gs->batch_inner, gs->batch_outer);
  const size_t inner_only = staged_bytes(gs->batch_rows, gs->batch_inner, 0);
  const bool fits = gs->batch_rows < 65536 && gs->batch_inner + gs->batch_outer < INT32_MAX;
  const char *e = getenv("MISPC_GS_OUTER");
  if (fits && with_outer <= (e && !strcmp(e, "staged") ? (size_t)optin : kStagedOuterBytes) &&
      !(e && (!strcmp(e, "split") || !strcmp(e, "global"))))
    gs->cluster_mode = GS_CLUSTERS_STAGED_OUTER;
  else if (fits && inner_only <= (size_t)optin && !(e && !strcmp(e, "global")))
    gs->cluster_mode = GS_CLUSTERS_STAGED;
  else
    gs->cluster_mode = GS_CLUSTERS_GLOBAL;
  mispc_logf(ctx, 2,
             "gs cluster batches of %d: at most %lld rows, %lld inner and %lld outer entries; "
             "mode %d",
             32 / gs->lanes, (long long)gs->batch_rows, (long long)gs->batch_inner,
             (long long)gs->batch_outer, gs->cluster_mode);
  return MISPC_SUCCESS;
}

extern "C" mispc_status gs_permute_pattern_cuda(mispc_context *ctx, mispc_gs *gs,
                                                const mispc_csr *A) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = gs->n, nnz = gs->nnz;
  const bool cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  const mispc_memspace d = MISPC_MEM_DEVICE;
  /* cluster GS: from the inner entries, once they are counted (choose_cluster_mode) */
  gs->lanes = cluster ? 0 : gs_lanes_per_row(gs, n ? (double)nnz / (double)n : 1.0);
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 4 + 4, (void **)&gs->perm, "sweep order"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 4 + 4, (void **)&gs->iperm, "sweep order"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)(n + 1) * 8, (void **)&gs->prow, "sorted rows"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)nnz * 4 + 4, (void **)&gs->pcol, "sorted columns"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)nnz * 8 + 8, (void **)&gs->pval, "sorted values"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->pdiag, "sorted diagonal"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->bp, "sorted b"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->xp, "sorted x"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, 2 * sizeof(double *), (void **)&gs->io_slot, "apply vectors"));
  const char *ge = getenv("MISPC_GS_GRAPH"); /* 0: launch per color (measurements) */
  gs->no_graph = ge && !strcmp(ge, "0");
  if (cluster) {
    const int64_t nc = gs->nclusters;
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)(nc + 1) * 8, (void **)&gs->pcl, "cluster rows"));
    cluster_sizes<<<mispc_device_grid(ctx, nc + 1, kBlock), kBlock, 0, s>>>(nc, gs->order,
                                                                            gs->cl_ptr, gs->pcl);
    MISPC_TRY(exclusive_sum(ctx, s, gs->pcl, nc + 1));
    gs->color_rows =
        (int64_t *)mispc_host_alloc(ctx, sizeof(int64_t) * (size_t)(gs->ncolors + 1), "color rows");
    if (!gs->color_rows) return MISPC_ERR_ALLOC;
    for (int32_t c = 0; c <= gs->ncolors; ++c)
      MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&gs->color_rows[c], gs->pcl + gs->color_ptr[c], 8,
                                          cudaMemcpyDeviceToHost, s));
    if (nc > 0)
      cluster_perm<<<mispc_device_grid(ctx, nc, kBlock), kBlock, 0, s>>>(
          nc, gs->order, gs->cl_ptr, gs->cl_rows, gs->pcl, gs->perm);
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->pmid, "inner entries"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->tp, "outer sums"));
  } else if (n > 0) {
    MISPC_CUDA_TRY(
        ctx, cudaMemcpyAsync(gs->perm, gs->order, (size_t)n * 4, cudaMemcpyDeviceToDevice, s));
  }
  const int32_t *rc = cluster ? gs->row_cluster : NULL;
  invert_and_lengths<<<mispc_device_grid(ctx, 32 * (n + 1), kBlock), kBlock, 0, s>>>(
      n, gs->perm, A->rowptr, A->colidx, rc, gs->iperm, gs->prow, gs->pmid);
  MISPC_TRY(exclusive_sum(ctx, s, gs->prow, n + 1));
  if (rc) {
    MISPC_TRY(exclusive_sum(ctx, s, gs->pmid, n + 1));
    add_offsets<<<mispc_device_grid(ctx, n + 1, kBlock), kBlock, 0, s>>>(n, gs->prow, gs->pmid);
  }
  if (n > 0)
    copy_rows<<<mispc_device_grid(ctx, 32 * n, kBlock), kBlock, 0, s>>>(
        n, gs->perm, gs->iperm, A->rowptr, A->colidx, NULL, NULL, rc, gs->prow, gs->pmid, gs->pcol,
        NULL, NULL);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  if (cluster && gs->nclusters > 0) MISPC_TRY(choose_cluster_mode(ctx, gs, s));
  return mispc_sync(ctx, s, "Gauss-Seidel sweep order");
}

extern "C" mispc_status gs_permute_values_cuda(mispc_context *ctx, mispc_gs *gs,
                                               const mispc_csr *A) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (gs->n > 0)
    copy_rows<<<mispc_device_grid(ctx, 32 * gs->n, kBlock), kBlock, 0, s>>>(
        gs->n, gs->perm, gs->iperm, A->rowptr, A->colidx, A->values, gs->diag,
        gs->opt.kind == MISPC_GS_CLUSTER ? gs->row_cluster : NULL, gs->prow, gs->pmid, NULL,
        gs->pval, gs->pdiag);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  /* synchronous: a caller may change the context's stream before the first
   * apply (the PETSc plugin follows PETSc's current stream), and a copy left
   * in flight on the old stream would race with it */
  return mispc_sync(ctx, s, "Gauss-Seidel values");
}

/* Shared bytes a warp of sweep_clusters_staged needs for color c (all
 * colors: c < 0) */
static size_t staged_color_bytes(const mispc_gs *gs, int32_t c) {
  const bool outer = gs->cluster_mode == GS_CLUSTERS_STAGED_OUTER;
  const int64_t *m = gs->color_batch + 3 * c;
  return c < 0 ? staged_bytes(gs->batch_rows, gs->batch_inner, outer ? gs->batch_outer : 0)
               : staged_bytes(m[0], m[1], outer ? m[2] : 0);
}

/* Above the default 48 KiB a block (then one warp) opts in to more. */
template <int W> static mispc_status staged_allow_smem(mispc_context *ctx, const mispc_gs *gs) {
  const size_t most = staged_color_bytes(gs, -1);
  if (most > kDefaultSmem)
    MISPC_CUDA_TRY(ctx,
                   cudaFuncSetAttribute(sweep_clusters_staged<W>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most));
  return MISPC_SUCCESS;
}

/* One color of a sweep. Point GS: a group per row. Cluster GS: the outer
 * sums of the color's rows (unless staged or all x are 0), then a group per
 * cluster (it uses only x_out of PassIO: its vectors are gathered before
 * the first pass). */
template <int W>
static void launch_color(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s, int32_t c,
                         bool backward, int smem_rows, bool zero_x, PassIO pio) {
  const int64_t lo = gs->color_ptr[c], hi = gs->color_ptr[c + 1];
  if (gs->opt.kind != MISPC_GS_CLUSTER) {
    if (pio.first_b) { /* rows the pass has updated: earlier colors */
      pio.klo = (int32_t)(backward ? hi : 0);
      pio.khi = (int32_t)(backward ? gs->n : lo);
    }
    sweep_points<W><<<mispc_device_grid(ctx, (long long)W * (hi - lo), kBlock), kBlock, 0, s>>>(
        lo, hi, gs->prow, gs->pcol, gs->pval, gs->pdiag, gs->opt.omega, gs->bp, gs->xp, pio);
    return;
  }
  const bool staged_outer = gs->cluster_mode == GS_CLUSTERS_STAGED_OUTER;
  if (!staged_outer && !zero_x) {
    const int64_t rlo = gs->color_rows[c], rhi = gs->color_rows[c + 1];
    /* outer sums are SpMV-like: at most 8 lanes a row keep more rows in flight */
    constexpr int WO = W < 8 ? W : 8;
    outer_sums<WO><<<mispc_device_grid(ctx, (long long)WO * (rhi - rlo), kBlock), kBlock, 0, s>>>(
        rlo, rhi, gs->prow, gs->pcol, gs->pval, gs->bp, gs->xp, gs->tp);
  }
  const double *s0 = staged_outer || zero_x ? gs->bp : gs->tp;
  if (gs->cluster_mode == GS_CLUSTERS_GLOBAL) {
    const size_t smem = smem_rows ? (size_t)(kBlock / W) * (size_t)smem_rows * 8 : 0;
    sweep_clusters<W>
        <<<mispc_device_grid(ctx, (long long)W * (hi - lo), kBlock), kBlock, smem, s>>>(
            lo, hi, gs->pcl, backward, gs->pmid, gs->pcol, gs->pval, gs->pdiag, gs->opt.omega, s0,
            gs->xp, smem_rows, pio);
    return;
  }
  /* as many warps a block as fit in the default 48 KiB, sized for this color */
  const size_t per_warp = staged_color_bytes(gs, c), fit = kDefaultSmem / per_warp;
  const int warps = fit >= (size_t)(kBlock / 32) ? kBlock / 32 : fit > 0 ? (int)fit : 1;
  const int64_t *m = gs->color_batch + 3 * c;
  const int64_t batches = (hi - lo + 32 / W - 1) / (32 / W);
  sweep_clusters_staged<W><<<mispc_device_grid(ctx, 32 * batches, 32 * warps), 32 * warps,
                             per_warp *(size_t)warps, s>>>(
      lo, hi, gs->pcl, backward, gs->prow, gs->pmid, gs->pcol, gs->pval, gs->pdiag, gs->opt.omega,
      s0, gs->xp, (int)m[0], (int)m[1], staged_outer ? (int)m[2] : 0, zero_x, pio);
}

/* Point GS from x = 0 reads b through perm in its first pass, so nothing is
 * gathered; otherwise b and x are gathered into sweep order first. */
static bool gathers(const mispc_gs *gs, int zero_guess) {
  return !(zero_guess && gs->opt.kind != MISPC_GS_CLUSTER);
}

/* The launches of one apply, in order: the gather (if any), then one or two
 * per color per pass. kDirect: b and x by value in every launch. kGraph
 * (captured into the apply's CUDA graph): the first launch takes them by
 * value and publishes them in gs->io_slot, the others read them there, so
 * each apply only updates the first node's parameters (set_root_vectors). */
enum Part { kDirect, kGraph };

/* Every pass updates every row once, so the last one writes x in the
 * caller's order as it goes (no scatter launch). A point pass from x = 0
 * leaves the products of rows it has not reached out (+0.0 for the host's
 * ±0 of a_ij * 0): a zero-free running sum is the same either way, a zero
 * one only changes sign, and x_i = +0 + (ω s) / a_ii is then +0 on both. */
template <int W>
static mispc_status enqueue_apply(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s,
                                  const double *b, double *x, int zero_guess, Part part) {
  /* global mode: a cluster's x in shared memory when every group of a block
   * fits in the default 48 KiB */
  int smem_rows = 0;
  if (gs->opt.kind == MISPC_GS_CLUSTER && gs->cluster_mode == GS_CLUSTERS_GLOBAL &&
      gs->max_cluster > 0 && (size_t)(kBlock / W) * (size_t)gs->max_cluster * 8 <= kDefaultSmem)
    smem_rows = (int)gs->max_cluster;
  if (gs->opt.kind == MISPC_GS_CLUSTER && gs->cluster_mode != GS_CLUSTERS_GLOBAL)
    MISPC_TRY(staged_allow_smem<W>(ctx, gs));
  const ApplyIO first = {b, x, NULL, part == kGraph ? gs->io_slot : NULL};
  const ApplyIO rest = part == kGraph ? ApplyIO{NULL, NULL, gs->io_slot, NULL} : first;
  int step = 0;
  const auto io_next = [&]() { return step++ == 0 ? first : rest; };
  if (gathers(gs, zero_guess))
    gather_vectors<<<mispc_device_grid(ctx, gs->n, kBlock), kBlock, 0, s>>>(
        gs->n, gs->perm, io_next(), zero_guess, gs->bp, gs->xp);
  const int per_sweep = gs->opt.sweep == MISPC_GS_SYMMETRIC ? 2 : 1;
  const int passes = gs->opt.sweeps * per_sweep;
  for (int k = 0; k < passes; ++k) {
    const bool backward = gs->opt.sweep == MISPC_GS_BACKWARD || (per_sweep == 2 && k % 2 == 1);
    PassIO pio = {gs->perm, rest, false, passes > 1, k == passes - 1, 0, (int32_t)gs->n};
    pio.first_b = k == 0 && !gathers(gs, zero_guess);
    for (int32_t j = 0; j < gs->ncolors; ++j) {
      const int32_t c = backward ? gs->ncolors - 1 - j : j;
      if (gs->color_ptr[c + 1] <= gs->color_ptr[c]) continue;
      /* from x = 0, the first color of the first sweep reads no x */
      pio.io = io_next();
      launch_color<W>(ctx, gs, s, c, backward, smem_rows, zero_guess && k == 0 && j == 0, pio);
    }
  }
  return MISPC_SUCCESS;
}

static mispc_status enqueue_any(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s,
                                const double *b, double *x, int zero_guess, Part part) {
  switch (gs->lanes) {
  case 1:
    return enqueue_apply<1>(ctx, gs, s, b, x, zero_guess, part);
  case 2:
    return enqueue_apply<2>(ctx, gs, s, b, x, zero_guess, part);
  case 4:
    return enqueue_apply<4>(ctx, gs, s, b, x, zero_guess, part);
  case 8:
    return enqueue_apply<8>(ctx, gs, s, b, x, zero_guess, part);
  case 16:
    return enqueue_apply<16>(ctx, gs, s, b, x, zero_guess, part);
  default:
    return enqueue_apply<32>(ctx, gs, s, b, x, zero_guess, part);
  }
}

/* Captures an apply's launches into a CUDA graph (on a stream of its own:
 * the context's may be the legacy default stream, which cannot be
 * captured). On failure the applies launch per color from then on. */
static void build_graph(mispc_context *ctx, mispc_gs *gs, int zero_guess) {
  cudaStream_t cs = NULL;
  cudaGraph_t g = NULL;
  cudaGraphExec_t exec = NULL;
  cudaGraphNode_t root = NULL;
  size_t nroots = 1;
  const double t0 = mispc_wtime();
  cudaError_t e = cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaStreamBeginCapture(cs, cudaStreamCaptureModeRelaxed);
  if (e == cudaSuccess) {
    const mispc_status st = enqueue_any(ctx, gs, cs, NULL, NULL, zero_guess, kGraph);
    e = cudaStreamEndCapture(cs, &g);
    if (st != MISPC_SUCCESS && e == cudaSuccess) e = cudaErrorUnknown;
  }
  /* a chain of launches: one root, the launch that takes b and x */
  if (e == cudaSuccess) e = cudaGraphGetRootNodes(g, &root, &nroots);
  if (e == cudaSuccess && nroots != 1) e = cudaErrorInvalidValue;
  if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, g, 0);
  if (cs) cudaStreamDestroy(cs);
  if (e != cudaSuccess) {
    cudaGetLastError(); /* not sticky: clear it */
    if (g) cudaGraphDestroy(g);
    gs->no_graph = 1;
    mispc_logf(ctx, 1, "gs: no CUDA graph for the apply (%s); launching per color",
               cudaGetErrorString(e));
    return;
  }
  const int k = zero_guess ? 1 : 0;
  gs->graph[k] = exec;
  gs->graph_template[k] = g; /* owns the root's parameters */
  gs->graph_root[k] = root;
  gs->graph_bx[k][0] = gs->graph_bx[k][1] = NULL;
  mispc_logf(ctx, 2, "gs: apply graph (zero guess %d) built in %.3f ms", k,
             1e3 * (mispc_wtime() - t0));
}

/* Points the graph's first launch (gather_vectors, or the first color of a
 * point sweep from x = 0) at b and x: its ApplyIO argument is replaced. */
static mispc_status set_root_vectors(mispc_context *ctx, mispc_gs *gs, int k, const double *b,
                                     double *x) {
  if (gs->graph_bx[k][0] == b && gs->graph_bx[k][1] == x) return MISPC_SUCCESS;
  cudaKernelNodeParams p;
  MISPC_CUDA_TRY(ctx, cudaGraphKernelNodeGetParams((cudaGraphNode_t)gs->graph_root[k], &p));
  void *args[10];
  ApplyIO io;
  PassIO pio;
  if (gathers(gs, k)) { /* gather_vectors(n, perm, io, zero_guess, bp, xp) */
    memcpy(args, p.kernelParams, 6 * sizeof(void *));
    io = *(const ApplyIO *)args[2];
    io.b = b, io.x = x;
    args[2] = &io;
  } else { /* sweep_points(lo, hi, prow, pcol, pval, pdiag, omega, bp, xp, pio) */
    memcpy(args, p.kernelParams, 10 * sizeof(void *));
    pio = *(const PassIO *)args[9];
    pio.io.b = b, pio.io.x = x;
    args[9] = &pio;
  }
  p.kernelParams = args;
  MISPC_CUDA_TRY(ctx, cudaGraphExecKernelNodeSetParams((cudaGraphExec_t)gs->graph[k],
                                                       (cudaGraphNode_t)gs->graph_root[k], &p));
  gs->graph_bx[k][0] = b, gs->graph_bx[k][1] = x;
  return MISPC_SUCCESS;
}

extern "C" mispc_status gs_apply_cuda(mispc_context *ctx, mispc_gs *gs, const double *b, double *x,
                                      int zero_guess) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (gs->n == 0) return MISPC_SUCCESS;
  const int k = zero_guess ? 1 : 0;
  if (!gs->no_graph && !gs->graph[k]) build_graph(ctx, gs, k);
  if (!gs->no_graph && gs->graph[k]) {
    MISPC_TRY(set_root_vectors(ctx, gs, k, b, x));
    MISPC_CUDA_TRY(ctx, cudaGraphLaunch((cudaGraphExec_t)gs->graph[k], s));
  } else {
    MISPC_TRY(enqueue_any(ctx, gs, s, b, x, zero_guess, kDirect));
  }
  MISPC_CUDA_LAUNCH_CHECK(ctx); /* asynchronous: the caller's next sync reports faults */
  return MISPC_SUCCESS;
}

extern "C" void gs_release_cuda(mispc_gs *gs) {
  for (int k = 0; k < 2; ++k) {
    if (gs->graph[k]) cudaGraphExecDestroy((cudaGraphExec_t)gs->graph[k]);
    if (gs->graph_template[k]) cudaGraphDestroy((cudaGraph_t)gs->graph_template[k]);
    gs->graph[k] = gs->graph_template[k] = gs->graph_root[k] = NULL;
  }
  gs->no_graph = 0;
}
