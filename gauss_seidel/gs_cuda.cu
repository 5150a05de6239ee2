/* GPU steps of multicolor Gauss-Seidel: one launch per color per sweep.
 * Products and sums use __dmul_rn / __dsub_rn / __ddiv_rn (no fused
 * multiply-add), the same arithmetic as gs_host.c, so x is bit-identical. */
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda_util.cuh"
#include "gs_internal.h"

namespace {

constexpr int kBlock = 256;

/* s minus the entries b .. e-1 of a row of the sweep-ordered copy, in storage
 * order, by a group of W lanes (1 .. 32, a power of two): the lanes load W
 * entries at a time and form the rounded products in parallel, then every
 * lane subtracts them in order (shuffles inside the group), so the sum is the
 * host's bit for bit. x is read at pcol[p] - xoff. Groups of one warp may
 * diverge (row lengths, cluster sizes): shuffles use the group's own mask. */
template <int W>
__device__ __forceinline__ double row_chain(double s, int64_t b, int64_t e, const int32_t *pcol,
                                            const double *pval, const double *xp, const double *xl,
                                            int64_t r0, int64_t nr, int lane, unsigned mask) {
  for (int64_t base = b; base < e; base += W) {
    const int64_t p = base + lane;
    double prod = 0.0;
    if (p < e) {
      const int64_t c = pcol[p];
      /* columns r0 .. r0+nr-1 (the group's cluster) from its local copy of x */
      prod = __dmul_rn(pval[p], (uint64_t)(c - r0) < (uint64_t)nr ? xl[c - r0] : xp[c]);
    }
    if (e - base >= W) {
      /* unrolled: the shuffles do not depend on s and issue ahead of the chain */
#pragma unroll
      for (int j = 0; j < W; ++j) s = __dsub_rn(s, __shfl_sync(mask, prod, j, W));
    } else {
      const int m = (int)(e - base);
      for (int j = 0; j < m; ++j) s = __dsub_rn(s, __shfl_sync(mask, prod, j, W));
    }
  }
  return s;
}

template <int W> __device__ __forceinline__ unsigned group_mask() {
  return W == 32 ? 0xffffffffu : (((1u << (W & 31)) - 1u) << ((threadIdx.x & 31) & ~(W - 1)));
}

/* Point GS over rows lo .. hi-1 of the sweep-ordered copy (one color), a
 * group of W lanes per row. zero_x: every x is still 0 (the first color of a
 * sweep from x = 0), so the row's products are 0 and are not read: the same
 * x bit for bit (x_i = 0 + t / a_ii absorbs the sign of a zero sum). */
template <int W>
__global__ void sweep_points(int64_t lo, int64_t hi, const int64_t *prow, const int32_t *pcol,
                             const double *pval, const double *pdiag, double omega,
                             const double *bp, double *xp, bool zero_x) {
  const int lane = threadIdx.x & (W - 1);
  const unsigned mask = group_mask<W>();
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / W;
  for (int64_t i = lo + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / W; i < hi;
       i += ngroups) {
    const double s =
        zero_x ? bp[i]
               : row_chain<W>(bp[i], prow[i], prow[i + 1], pcol, pval, xp, NULL, 0, 0, lane, mask);
    if (lane == 0) xp[i] = __dadd_rn(xp[i], __ddiv_rn(__dmul_rn(omega, s), pdiag[i]));
  }
}

/* Cluster GS, first step for one color: tp_i = b_i minus the entries of row i
 * outside its cluster (prow[i] .. pmid[i]-1), for rows lo .. hi-1 at once:
 * those x belong to other colors and do not change during this color. */
template <int W>
__global__ void outer_sums(int64_t lo, int64_t hi, const int64_t *prow, const int64_t *pmid,
                           const int32_t *pcol, const double *pval, const double *bp,
                           const double *xp, double *tp) {
  const int lane = threadIdx.x & (W - 1);
  const unsigned mask = group_mask<W>();
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / W;
  for (int64_t i = lo + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / W; i < hi;
       i += ngroups) {
    const double s = row_chain<W>(bp[i], prow[i], pmid[i], pcol, pval, xp, NULL, 0, 0, lane, mask);
    if (lane == 0) tp[i] = s;
  }
}

/* Cluster GS: a group of W lanes per cluster q (rows pcl[q] .. pcl[q+1]-1,
 * one after another, reversed on a backward sweep) subtracts entries
 * pstart[i] .. prow[i+1]-1 of row i from s0[i] and updates x_i. With the outer
 * sums split off (long rows), s0 = tp and pstart = pmid: only entries inside
 * the cluster remain. Otherwise s0 = b, pstart = prow: the whole row, columns
 * outside the cluster read from global x. With smem_rows > 0 the cluster's x
 * lives in shared memory during the sweep (clusters of at most smem_rows
 * rows); lane 0 writes x_i and __syncwarp on the group's mask orders that
 * write before the next row's loads. */
template <int W>
__global__ void sweep_clusters(int64_t lo, int64_t hi, const int64_t *pcl, bool backward,
                               const int64_t *prow, const int64_t *pstart, const int32_t *pcol,
                               const double *pval, const double *pdiag, double omega,
                               const double *s0, double *xp, int smem_rows) {
  extern __shared__ double smem[];
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
      const int64_t i = backward ? r0 + nr - 1 - r : r0 + r;
      const double s =
          row_chain<W>(s0[i], pstart[i], prow[i + 1], pcol, pval, xp, x, r0, nr, lane, mask);
      if (lane == 0) x[i - r0] = __dadd_rn(x[i - r0], __ddiv_rn(__dmul_rn(omega, s), pdiag[i]));
      __syncwarp(mask);
    }
    if (smem_rows) {
      for (int64_t k = lane; k < nr; k += W) xp[r0 + k] = xs[k];
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

/* Cluster GS with the outer sums in the same launch (split_outer == 2), for
 * clusters of a color lo .. hi-1, a group of W lanes per cluster and 32 / W
 * clusters per warp. The warp moves in lockstep: every loop runs to the
 * warp's largest trip count, with the finished groups idle, so the groups of
 * a warp overlap their sequential chains instead of taking turns (groups
 * with their own loops and partial-mask shuffles diverge, and a diverged
 * warp runs one group at a time).
 * Phase 1: tp_i = b_i minus the entries of row i outside its cluster, a lane
 * per row in storage order (those x belong to other colors). Phase 2: the
 * rows one after another with the entries inside the cluster, x from shared
 * memory when smem_rows > 0; the next row's first W entries are loaded while
 * the current row's chain runs. Same arithmetic as outer_sums +
 * sweep_clusters. zero_x: all x are 0 (the first color from x = 0). */
template <int W>
__global__ void sweep_clusters_fused(int64_t lo, int64_t hi, const int64_t *pcl, bool backward,
                                     const int64_t *prow, const int64_t *pmid, const int32_t *pcol,
                                     const double *pval, const double *pdiag, double omega,
                                     const double *bp, double *xp, double *tp, int smem_rows,
                                     bool zero_x) {
  extern __shared__ double smem[];
  const int lane = threadIdx.x & (W - 1);
  double *xs = smem + (size_t)(threadIdx.x / W) * smem_rows;
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / W;
  const int64_t warp_groups = 32 / W, group = (threadIdx.x & 31) / W;
  /* the warp's first cluster decides whether the warp goes on: uniform */
  for (int64_t q0 = lo + ((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32) * warp_groups;
       q0 < hi; q0 += ngroups) {
    const int64_t q = q0 + group;
    const bool valid = q < hi;
    const int64_t r0 = valid ? pcl[q] : 0;
    const int nr = valid ? (int)(pcl[q + 1] - r0) : 0;
    const int nr_max = warp_max(nr);
    double *x = smem_rows ? xs : xp + r0;
    for (int k0 = 0; k0 < nr_max; k0 += W) {
      const int k = k0 + lane;
      if (k < nr) {
        const int64_t i = r0 + k;
        double s = bp[i];
        if (!zero_x) {
          const int64_t e = pmid[i];
          for (int64_t p = prow[i]; p < e; ++p) s = __dsub_rn(s, __dmul_rn(pval[p], xp[pcol[p]]));
        }
        tp[i] = s;
        if (smem_rows) xs[k] = xp[i];
      }
    }
    __syncwarp();
    /* the row at step r: its inner entries b .. e-1, the first W in registers */
    int64_t nb = 0, ne = 0;
    int32_t nc = 0;
    double nv = 0.0, ns = 0.0, nd = 1.0;
    auto fetch = [&](int r) {
      if (r >= nr) {
        nb = ne = 0;
        return;
      }
      const int64_t i = backward ? r0 + nr - 1 - r : r0 + r;
      nb = pmid[i];
      ne = prow[i + 1];
      ns = tp[i];
      nd = pdiag[i];
      const int64_t p = nb + lane;
      nc = p < ne ? pcol[p] : (int32_t)r0;
      nv = p < ne ? pval[p] : 0.0;
    };
    fetch(0);
    for (int r = 0; r < nr_max; ++r) {
      const bool active = r < nr;
      const int64_t i = backward ? r0 + nr - 1 - r : r0 + r;
      const int64_t b = nb, e = ne;
      const int32_t c = nc;
      const double v = nv, d = nd;
      double s = ns;
      fetch(r + 1);
      const int len = (int)(e - b), len_max = warp_max(len);
      double prod = active && lane < len ? __dmul_rn(v, x[c - r0]) : 0.0;
      for (int base = 0; base < len_max; base += W) {
        if (base > 0) { /* rows longer than W: the next W entries */
          const int64_t p = b + base + lane;
          prod = p < e ? __dmul_rn(pval[p], x[pcol[p] - r0]) : 0.0;
        }
        const int m = min(W, max(len - base, 0)), m_max = min(W, len_max - base);
        for (int j = 0; j < m_max; ++j) {
          const double t = __shfl_sync(~0u, prod, j, W);
          if (j < m) s = __dsub_rn(s, t);
        }
      }
      if (active && lane == 0) x[i - r0] = __dadd_rn(x[i - r0], __ddiv_rn(__dmul_rn(omega, s), d));
      __syncwarp();
    }
    if (smem_rows) {
      for (int k0 = 0; k0 < nr_max; k0 += W)
        if (k0 + lane < nr) xp[r0 + k0 + lane] = xs[k0 + lane];
      __syncwarp();
    }
  }
}

/* Shared memory of one group of sweep_clusters_staged, for clusters of at
 * most R rows and Z entries. */
__host__ __device__ inline size_t staged_bytes(int R, int Z) {
  return ((8 * (3 * (size_t)R + Z) + 4 * (2 * (size_t)R + 2 + Z)) + 7) / 8 * 8;
}

/* Cluster GS for small clusters (split_outer == 3, every cluster's rows and
 * entries fit in shared memory): the group first copies its cluster's
 * entries (contiguous in the sweep-ordered copy), row offsets, b, x and
 * diagonal into shared memory with coalesced loads, then forms the outer sums
 * (a lane per row, storage order, x of other colors from global memory),
 * then updates the rows one after another from shared memory only. A row
 * then costs its arithmetic chain, not two or three dependent memory round
 * trips. Warp lockstep as in sweep_clusters_fused; same arithmetic. */
template <int W>
__global__ void sweep_clusters_staged(int64_t lo, int64_t hi, const int64_t *pcl, bool backward,
                                      const int64_t *prow, const int64_t *pmid, const int32_t *pcol,
                                      const double *pval, const double *pdiag, double omega,
                                      const double *bp, double *xp, int R, int Z, bool zero_x) {
  extern __shared__ double smem[];
  const int lane = threadIdx.x & (W - 1);
  char *base = (char *)smem + (size_t)(threadIdx.x / W) * staged_bytes(R, Z);
  double *xs = (double *)base, *ts = xs + R, *ds = ts + R, *vs = ds + R;
  int *rp = (int *)(vs + Z), *mp = rp + R + 1, *cs = mp + R + 1;
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / W;
  const int64_t warp_groups = 32 / W, group = (threadIdx.x & 31) / W;
  for (int64_t q0 = lo + ((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32) * warp_groups;
       q0 < hi; q0 += ngroups) {
    const int64_t q = q0 + group;
    const bool valid = q < hi;
    const int64_t r0 = valid ? pcl[q] : 0;
    const int nr = valid ? (int)(pcl[q + 1] - r0) : 0;
    const int64_t e0 = valid ? prow[r0] : 0;
    const int ne = valid ? (int)(prow[r0 + nr] - e0) : 0;
    const int nr_max = warp_max(nr), ne_max = warp_max(ne);
    for (int k0 = 0; k0 < nr_max; k0 += W) {
      const int k = k0 + lane;
      if (k < nr) {
        const int64_t i = r0 + k;
        rp[k] = (int)(prow[i] - e0);
        mp[k] = (int)(pmid[i] - e0);
        xs[k] = xp[i];
        ts[k] = bp[i];
        ds[k] = pdiag[i];
      }
    }
    if (lane == 0) rp[nr] = ne;
    for (int t0 = 0; t0 < ne_max; t0 += W) {
      const int t = t0 + lane;
      if (t < ne) {
        cs[t] = pcol[e0 + t] - (int32_t)r0; /* inner columns: 0 .. nr-1 */
        vs[t] = pval[e0 + t];
      }
    }
    __syncwarp();
    if (!zero_x)
      for (int k0 = 0; k0 < nr_max; k0 += W) {
        const int k = k0 + lane;
        if (k < nr) {
          double s = ts[k];
          const int e = mp[k];
#pragma unroll 4
          for (int t = rp[k]; t < e; ++t) s = __dsub_rn(s, __dmul_rn(vs[t], xp[cs[t] + r0]));
          ts[k] = s;
        }
      }
    __syncwarp();
    for (int r = 0; r < nr_max; ++r) {
      const bool active = r < nr;
      const int k = active ? (backward ? nr - 1 - r : r) : 0;
      const int b = active ? mp[k] : 0, len = active ? rp[k + 1] - b : 0;
      const int len_max = warp_max(len);
      double s = active ? ts[k] : 0.0;
      for (int c0 = 0; c0 < len_max; c0 += W) {
        const int t = c0 + lane;
        const double prod = t < len ? __dmul_rn(vs[b + t], xs[cs[b + t]]) : 0.0;
        const int m = min(W, max(len - c0, 0)), m_max = min(W, len_max - c0);
        for (int j = 0; j < m_max; ++j) {
          const double u = __shfl_sync(~0u, prod, j, W);
          if (j < m) s = __dsub_rn(s, u);
        }
      }
      if (active && lane == 0) xs[k] = __dadd_rn(xs[k], __ddiv_rn(__dmul_rn(omega, s), ds[k]));
      __syncwarp();
    }
    for (int k0 = 0; k0 < nr_max; k0 += W)
      if (k0 + lane < nr) xp[r0 + k0 + lane] = xs[k0 + lane];
    __syncwarp();
  }
}

/* *r = the most entries of one cluster (prow scanned) */
__global__ void cluster_nnz_max(int64_t nc, const int64_t *pcl, const int64_t *prow,
                                unsigned long long *r) {
  unsigned long long m = 0;
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nc;
       q += (int64_t)gridDim.x * blockDim.x) {
    const unsigned long long z = (unsigned long long)(prow[pcl[q + 1]] - prow[pcl[q]]);
    m = z > m ? z : m;
  }
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long m2 = __shfl_down_sync(~0u, m, o);
    m = m2 > m ? m2 : m;
  }
  if ((threadIdx.x & 31) == 0 && m) atomicMax(r, m);
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
 * the row's length into prow[q] and, for cluster GS (row_cluster given), the
 * number of its entries outside its cluster into pmid[q] (both scanned /
 * offset afterwards). */
__global__ void invert_and_lengths(int64_t n, const int32_t *perm, const int64_t *rowptr,
                                   const int32_t *colidx, const int32_t *row_cluster,
                                   int32_t *iperm, int64_t *prow, int64_t *pmid) {
  const int lane = threadIdx.x & 31;
  for (int64_t q = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; q <= n;
       q += ((int64_t)gridDim.x * blockDim.x) >> 5) {
    if (q == n) {
      if (lane == 0) prow[n] = 0;
      continue;
    }
    const int32_t i = perm[q];
    const int64_t src = rowptr[i], len = rowptr[i + 1] - src;
    if (lane == 0) iperm[i] = (int32_t)q, prow[q] = len;
    if (!row_cluster) continue;
    const int32_t c = row_cluster[i];
    int64_t outer = 0;
    for (int64_t k0 = 0; k0 < len; k0 += 32) {
      const int64_t k = k0 + lane;
      outer += __popc(__ballot_sync(~0u, k < len && row_cluster[colidx[src + k]] != c));
    }
    if (lane == 0) pmid[q] = outer;
  }
}

__global__ void add_offsets(int64_t n, const int64_t *prow, int64_t *pmid) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x)
    pmid[q] += prow[q];
}

/* A warp per row q: row perm[q] of A into row q of the copy, renumbered
 * columns (pattern) or values and diagonal (numeric). Cluster GS (row_cluster
 * given) puts the entries outside the row's cluster first, then those inside
 * (from pmid[q]), each part in storage order: a stable partition by ballots. */
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

/* bp = b and xp = x (or 0) in sweep order; scatter_back: x = xp */
__global__ void gather_vectors(int64_t n, const int32_t *perm, const double *b, const double *x,
                               int zero_guess, double *bp, double *xp) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x) {
    const int32_t i = perm[q];
    bp[q] = b[i];
    xp[q] = zero_guess ? 0.0 : x[i];
  }
}

__global__ void scatter_back(int64_t n, const int32_t *perm, const double *xp, double *x) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x)
    x[perm[q]] = xp[q];
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
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long l2 = __shfl_down_sync(~0u, lo, o), h2 = __shfl_down_sync(~0u, hi, o);
    lo = l2 < lo ? l2 : lo;
    hi = h2 > hi ? h2 : hi;
    one += __shfl_down_sync(~0u, one, o);
  }
  if ((threadIdx.x & 31) == 0) {
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

extern "C" mispc_status gs_permute_pattern_cuda(mispc_context *ctx, mispc_gs *gs,
                                                const mispc_csr *A) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = gs->n, nnz = gs->nnz;
  const bool cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  const mispc_memspace d = MISPC_MEM_DEVICE;
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 4 + 4, (void **)&gs->perm, "sweep order"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 4 + 4, (void **)&gs->iperm, "sweep order"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)(n + 1) * 8, (void **)&gs->prow, "sorted rows"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)nnz * 4 + 4, (void **)&gs->pcol, "sorted columns"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)nnz * 8 + 8, (void **)&gs->pval, "sorted values"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->pdiag, "sorted diagonal"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->bp, "sorted b"));
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->xp, "sorted x"));
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
  } else if (n > 0) {
    MISPC_CUDA_TRY(
        ctx, cudaMemcpyAsync(gs->perm, gs->order, (size_t)n * 4, cudaMemcpyDeviceToDevice, s));
  }
  const int32_t *rc = cluster && gs->split_outer ? gs->row_cluster : NULL;
  if (rc) {
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->pmid, "cluster entries"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->tp, "outer sums"));
  }
  invert_and_lengths<<<mispc_device_grid(ctx, 32 * (n + 1), kBlock), kBlock, 0, s>>>(
      n, gs->perm, A->rowptr, A->colidx, rc, gs->iperm, gs->prow, gs->pmid);
  MISPC_TRY(exclusive_sum(ctx, s, gs->prow, n + 1));
  if (rc && n > 0)
    add_offsets<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, gs->prow, gs->pmid);
  if (n > 0)
    copy_rows<<<mispc_device_grid(ctx, 32 * n, kBlock), kBlock, 0, s>>>(
        n, gs->perm, gs->iperm, A->rowptr, A->colidx, NULL, NULL, rc, gs->prow, gs->pmid, gs->pcol,
        NULL, NULL);
  gs->max_cluster_nnz = 0;
  if (cluster && gs->nclusters > 0) {
    unsigned long long *dm = NULL, hm = 0;
    MISPC_TRY(mispc_scratch_alloc(ctx, 8, (void **)&dm, "cluster entries"));
    cudaMemsetAsync(dm, 0, 8, s);
    cluster_nnz_max<<<mispc_device_grid(ctx, gs->nclusters, kBlock), kBlock, 0, s>>>(
        gs->nclusters, gs->pcl, gs->prow, dm);
    cudaMemcpyAsync(&hm, dm, 8, cudaMemcpyDeviceToHost, s);
    mispc_status st = mispc_sync(ctx, s, "Gauss-Seidel sweep order");
    mispc_scratch_free(ctx, dm);
    gs->max_cluster_nnz = (int64_t)hm;
    return st;
  }
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return mispc_sync(ctx, s, "Gauss-Seidel sweep order");
}

extern "C" mispc_status gs_permute_values_cuda(mispc_context *ctx, mispc_gs *gs,
                                               const mispc_csr *A) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (gs->n > 0)
    copy_rows<<<mispc_device_grid(ctx, 32 * gs->n, kBlock), kBlock, 0, s>>>(
        gs->n, gs->perm, gs->iperm, A->rowptr, A->colidx, A->values, gs->diag,
        gs->opt.kind == MISPC_GS_CLUSTER && gs->split_outer ? gs->row_cluster : NULL, gs->prow,
        gs->pmid, NULL, gs->pval, gs->pdiag);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  /* synchronous: a caller may change the context's stream before the first
   * apply (the PETSc plugin follows PETSc's current stream), and a copy left
   * in flight on the old stream would race with it */
  return mispc_sync(ctx, s, "Gauss-Seidel values");
}

/* Lanes per row: the power of two at or above the mean row length (1 .. 32;
 * point GS at most 8), or MISPC_GS_LANES=1|2|4|8|16|32 from the environment
 * (tuning). Same arithmetic for every choice. */
static int gs_lanes_per_row(const mispc_gs *gs) {
  static int env = -1;
  if (env < 0) {
    const char *e = getenv("MISPC_GS_LANES");
    int v = e ? atoi(e) : 0;
    env = (v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 32) ? v : 0;
  }
  if (env) return env;
  /* measured on an H100 (docs/GAUSS_SEIDEL.md): point rows of one color are
   * many, and a lane per 8 entries (1 .. 8 lanes) keeps the most rows in
   * flight (Laplace3D_100: 1 lane 3.2 SpMV, 8 lanes 4.1); clusters want the
   * whole row at once, since the rows of a cluster are sequential */
  const double mean = gs->n ? (double)gs->nnz / (double)gs->n : 1.0;
  int w = 1;
  if (gs->opt.kind != MISPC_GS_CLUSTER)
    while (w < 8 && 16 * w <= mean) w *= 2;
  else
    while (w < 32 && w < mean) w *= 2;
  return w;
}

/* One color of a sweep. Point GS: a group per row. Cluster GS: the outer sums
 * of the color's rows, then a group per cluster. */
template <int W>
static void launch_color(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s, int32_t c,
                         bool backward, int smem_rows, bool zero_x) {
  const int64_t lo = gs->color_ptr[c], hi = gs->color_ptr[c + 1];
  if (hi <= lo) return;
  const unsigned grid = mispc_device_grid(ctx, (long long)W * (hi - lo), kBlock);
  if (gs->opt.kind != MISPC_GS_CLUSTER) {
    sweep_points<W><<<grid, kBlock, 0, s>>>(lo, hi, gs->prow, gs->pcol, gs->pval, gs->pdiag,
                                            gs->opt.omega, gs->bp, gs->xp, zero_x);
    return;
  }
  const size_t smem = smem_rows ? (size_t)(kBlock / W) * (size_t)smem_rows * 8 : 0;
  if (!gs->split_outer) {
    sweep_clusters<W><<<grid, kBlock, smem, s>>>(lo, hi, gs->pcl, backward, gs->prow, gs->prow,
                                                 gs->pcol, gs->pval, gs->pdiag, gs->opt.omega,
                                                 gs->bp, gs->xp, smem_rows);
    return;
  }
  if (gs->split_outer == 3 && gs->max_cluster_nnz < (1 << 20) && gs->max_cluster < (1 << 20)) {
    /* clusters staged in shared memory: as many groups a block as fit in the
     * default 48 KiB, at least a warp */
    const size_t per = staged_bytes((int)gs->max_cluster, (int)gs->max_cluster_nnz);
    int threads = (int)((48 * 1024 / per) * W);
    threads = (threads < kBlock ? threads : kBlock) / 32 * 32;
    if (threads >= 32) {
      sweep_clusters_staged<W><<<mispc_device_grid(ctx, (long long)W * (hi - lo), threads), threads,
                                 per *(size_t)(threads / W), s>>>(
          lo, hi, gs->pcl, backward, gs->prow, gs->pmid, gs->pcol, gs->pval, gs->pdiag,
          gs->opt.omega, gs->bp, gs->xp, (int)gs->max_cluster, (int)gs->max_cluster_nnz, zero_x);
      return;
    }
  }
  if (gs->split_outer >= 2) {
    sweep_clusters_fused<W><<<grid, kBlock, smem, s>>>(
        lo, hi, gs->pcl, backward, gs->prow, gs->pmid, gs->pcol, gs->pval, gs->pdiag, gs->opt.omega,
        gs->bp, gs->xp, gs->tp, smem_rows, zero_x);
    return;
  }
  const int64_t rlo = gs->color_rows[c], rhi = gs->color_rows[c + 1];
  /* outer sums are SpMV-like: at most 8 lanes a row keep more rows in flight */
  constexpr int WO = W < 8 ? W : 8;
  outer_sums<WO><<<mispc_device_grid(ctx, (long long)WO * (rhi - rlo), kBlock), kBlock, 0, s>>>(
      rlo, rhi, gs->prow, gs->pmid, gs->pcol, gs->pval, gs->bp, gs->xp, gs->tp);
  sweep_clusters<W><<<grid, kBlock, smem, s>>>(lo, hi, gs->pcl, backward, gs->prow, gs->pmid,
                                               gs->pcol, gs->pval, gs->pdiag, gs->opt.omega, gs->tp,
                                               gs->xp, smem_rows);
}

extern "C" mispc_status gs_apply_cuda(mispc_context *ctx, const mispc_gs *gs, const double *b,
                                      double *x, int zero_guess) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = gs->n;
  if (n == 0) return MISPC_SUCCESS;
  gather_vectors<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, gs->perm, b, x, zero_guess,
                                                                      gs->bp, gs->xp);
  const int lanes = gs_lanes_per_row(gs);
  /* a cluster's x in shared memory when every group of a block fits in the
   * default 48 KiB */
  int smem_rows = 0;
  if (gs->opt.kind == MISPC_GS_CLUSTER && gs->max_cluster > 0 &&
      (kBlock / lanes) * gs->max_cluster * 8 <= 48 * 1024)
    smem_rows = (int)gs->max_cluster;
  bool started = false;
  for (int k = 0; k < gs->opt.sweeps; ++k)
    for (int dir = 0; dir < 2; ++dir) {
      if ((dir == 0 && gs->opt.sweep == MISPC_GS_BACKWARD) ||
          (dir == 1 && gs->opt.sweep == MISPC_GS_FORWARD))
        continue;
      for (int32_t j = 0; j < gs->ncolors; ++j) {
        const int32_t c = dir ? gs->ncolors - 1 - j : j;
        /* from x = 0, the first color of the first sweep reads no x */
        const bool zero_x = zero_guess && j == 0 && !started;
        started = true;
        switch (lanes) {
        case 1:
          launch_color<1>(ctx, gs, s, c, dir == 1, smem_rows, zero_x);
          break;
        case 2:
          launch_color<2>(ctx, gs, s, c, dir == 1, smem_rows, zero_x);
          break;
        case 4:
          launch_color<4>(ctx, gs, s, c, dir == 1, smem_rows, zero_x);
          break;
        case 8:
          launch_color<8>(ctx, gs, s, c, dir == 1, smem_rows, zero_x);
          break;
        case 16:
          launch_color<16>(ctx, gs, s, c, dir == 1, smem_rows, zero_x);
          break;
        default:
          launch_color<32>(ctx, gs, s, c, dir == 1, smem_rows, zero_x);
          break;
        }
      }
    }
  scatter_back<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, gs->perm, gs->xp, x);
  MISPC_CUDA_LAUNCH_CHECK(ctx); /* asynchronous: the caller's next sync reports faults */
  return MISPC_SUCCESS;
}
