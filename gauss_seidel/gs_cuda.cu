/* GPU steps of multicolor Gauss-Seidel: one launch per color per sweep.
 * Products and sums use __dmul_rn / __dsub_rn / __dadd_rn (no fused
 * multiply-add), the same arithmetic as gs_host.c, so x is bit-identical. */
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <limits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

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
 * (x_i = 0 + s w_i absorbs the sign of a zero sum). At most 40 registers
 * (6 blocks an SM; 32 spill and were slower on an H100). */
template <int W>
__global__ void __launch_bounds__(kBlock, 6)
    sweep_points(int64_t lo, int64_t hi, const int64_t *prow, const int32_t *pcol,
                 const double *pval, const double *pwdiag, double *bp, double *xp, PassIO pio) {
  pio.io.store();
  const int lane = threadIdx.x & (W - 1);
  const unsigned mask = mispc_group_mask<W>();
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
      const double xi = __dadd_rn(b ? 0.0 : xp[i], __dmul_rn(s, pwdiag[i]));
      xp[i] = xi;
      if (x) x[row] = xi;
      if (b && pio.keep_b) bp[i] = bi;
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

/* How cluster GS runs a color (gs->cluster_mode). */
enum {
  GS_CHAIN_STAGED = 0, /* each block's clusters staged in shared memory */
  GS_CHAIN_GLOBAL = 1, /* read from global memory (a cluster too large to stage) */
};

/* Shared bytes of a block of sweep_clusters staging `rows` rows and
 * `entries` chain entries: per row the sum, old x, omega / a_ii and a
 * 16-bit chain offset (one more offset), per entry a 16-bit row and the
 * value. 16 bits suffice: a block that fits in shared memory (227 KiB at
 * most) has fewer than 2^16 rows and entries. They take Elasticity3D_60's
 * largest block from 41.3 to 34.8 KB, so 6 blocks fit an SM instead of 5. */
__host__ __device__ inline size_t cluster_block_bytes(int64_t rows, int64_t entries) {
  return ((size_t)rows * 26 + 2 + (size_t)entries * 10 + 7) / 8 * 8;
}

/* What a cluster pass reads and writes besides PassIO. */
struct ClusterArrays {
  const int64_t *pcl, *prow, *pout, *pup;
  const int32_t *pcol;
  const double *pval, *bp, *pwdiag;
  const int64_t *cptr; /* the pass's chains: fptr / fcol / fval or bptr / ... */
  const int32_t *ccol;
  const double *cval;
  double *tp, *xp;
};

/* The rows of a block's clusters as its chains see them: Staged, copies in
 * shared memory (the block's first row and chain entry at 0, chain rows
 * named the same way); otherwise the global arrays (tp, xp, pwdiag, the
 * chain), rows and entries by their sweep positions. */
template <bool Staged> struct ChainView {
  using Off = typename std::conditional<Staged, uint16_t, int64_t>::type;
  using Row = typename std::conditional<Staged, uint16_t, int32_t>::type;
  double *s, *x;
  const double *d, *v;
  const Off *p;
  const Row *c;
};

/* Cluster GS for one color (clusters lo .. hi-1), one launch: a block takes
 * cb consecutive clusters, whose rows and chain entries are contiguous in
 * sweep order (rows r0 .. r1-1), in three steps with a barrier between.
 * 1. The fixed part of each row's sum (gs_host.c, update_cluster_row): b_i
 *    minus the entries whose x stays fixed during the cluster's pass, in
 *    storage order (forward pout[i] .. prow[i+1]-1, backward prow[i] ..
 *    pup[i]-1), columns in [klo, khi) only; SW lanes a row over all the
 *    block's rows, SpMV-like. Staged, the sums go to shared memory, with
 *    the rows' old x, omega / a_ii and the chains, copied by the whole block.
 * 2. The push chains (for each row j the later rows k of its cluster with
 *    a_kj forward, the earlier ones backward): a group of W lanes a
 *    cluster, 32 / W clusters a warp in lockstep (loops to the warp's
 *    largest cluster: groups with loops of their own would diverge, and a
 *    diverged warp runs one group at a time). The group updates its rows one
 *    after another (reversed backward): x_j = x_j + s_j (omega / a_jj), and
 *    x_j goes at once into the sums of the rows after it, s_k -= a_kj x_j, a
 *    lane per k (right-looking, as a supernodal triangular solve does): two
 *    multiplies and two adds a row on the critical path. Subtractions reach
 *    each s_k in the host's order (rows before k increasing forward, after k
 *    decreasing backward), so x is the host's bit for bit.
 * 3. x to xp (staged) and to the caller's vector (last pass), coalesced.
 * Before 2026-11-24 (afternoon) steps 1 and 2 were two launches a color
 * (cluster_sums, cluster_push): the sums went through tp, the chains
 * waited for the last row of the color, and each staged its cluster with a
 * warp alone (docs/GAUSS_SEIDEL.md, "One launch a color"). */
template <int W, int SW, bool Staged>
__global__ void __launch_bounds__(kBlock)
    sweep_clusters(int64_t lo, int64_t hi, int cb, bool backward, ClusterArrays a, PassIO pio) {
  constexpr int G = 32 / W, E = 2; /* E: entries a lane takes of a pivot before the loop */
  const int64_t q0 = lo + (int64_t)blockIdx.x * cb, q1 = min(q0 + cb, hi);
  const int64_t r0 = a.pcl[q0], r1 = a.pcl[q1], c0 = a.cptr[r0];
  const int nrows = (int)(r1 - r0), nent = Staged ? (int)(a.cptr[r1] - c0) : 0;
  const int64_t base = Staged ? r0 : 0; /* the view's row 0 */
  extern __shared__ double smem[];
  ChainView<Staged> v;
  double *d = NULL;
  uint16_t *p = NULL;
  if (Staged) {
    v.s = smem, v.x = v.s + nrows, d = v.x + nrows;
    double *cv = d + nrows;
    uint16_t *c = (uint16_t *)(cv + nent);
    p = c + nent;
    v.d = d, v.v = cv, v.p = (const typename ChainView<Staged>::Off *)p;
    v.c = (const typename ChainView<Staged>::Row *)c;
#pragma unroll 4
    for (int t = threadIdx.x; t < nent; t += kBlock) {
      c[t] = (uint16_t)(a.ccol[c0 + t] - (int32_t)r0);
      cv[t] = a.cval[c0 + t];
    }
    if (threadIdx.x == 0) p[nrows] = (uint16_t)nent;
  } else {
    v.s = a.tp, v.x = a.xp, v.d = a.pwdiag, v.v = a.cval;
    v.p = (const typename ChainView<Staged>::Off *)a.cptr;
    v.c = (const typename ChainView<Staged>::Row *)a.ccol;
  }
  { /* 1: the fixed sums, and (staged) each row's old x, omega / a_ii and
     * chain offset, loaded beside the row's bounds */
    const int lane = threadIdx.x & (SW - 1);
    const unsigned mask = mispc_group_mask<SW>();
    for (int64_t i = r0 + threadIdx.x / SW; i < r1; i += kBlock / SW) {
      const int64_t b = backward ? a.prow[i] : a.pout[i], e = backward ? a.pup[i] : a.prow[i + 1];
      if (Staged && lane == SW - 1) {
        d[i - r0] = a.pwdiag[i];
        v.x[i - r0] = a.xp[i];
        p[i - r0] = (uint16_t)(a.cptr[i] - c0);
      }
      const double s =
          row_chain<SW>(a.bp[i], b, e, a.pcol, a.pval, a.xp, lane, mask, pio.klo, pio.khi);
      if (lane == 0) v.s[i - base] = s;
    }
  }
  __syncthreads();
  const int wl = threadIdx.x & 31, lane = wl & (W - 1);
  /* 2: the chains, whole warps, G clusters a warp (cb is at most the
   * block's groups; a loop over more cost Elasticity3D_60 5 %: registers) */
  const int64_t qw = q0 + (int64_t)(threadIdx.x / 32) * G;
  if (qw < q1) {
    const int64_t q = qw + wl / W;
    const int k0 = q < q1 ? (int)(a.pcl[q] - base) : 0;
    const int nr = q < q1 ? (int)(a.pcl[q + 1] - a.pcl[q]) : 0;
    const int nr_max = warp_max(nr);
    for (int r = 0; r < nr_max; ++r) {
      const bool on = r < nr;
      const int k = k0 + (backward ? nr - 1 - r : r);
      typename ChainView<Staged>::Off b = 0;
      int len = 0;
      if (on) b = v.p[k], len = (int)(v.p[k + 1] - b);
      /* the lane's entries and their sums, ahead of x_j */
      int kk[E];
      double av[E], sk[E];
#pragma unroll
      for (int e = 0; e < E; ++e) {
        const int t = lane + W * e;
        kk[e] = t < len ? v.c[b + t] : -1;
        av[e] = t < len ? v.v[b + t] : 0.0;
        sk[e] = kk[e] >= 0 ? v.s[kk[e]] : 0.0;
      }
      if (on) {
        const double xj = __dadd_rn(v.x[k], __dmul_rn(v.s[k], v.d[k]));
#pragma unroll
        for (int e = 0; e < E; ++e)
          if (kk[e] >= 0) v.s[kk[e]] = __dsub_rn(sk[e], __dmul_rn(av[e], xj));
        for (int t = E * W + lane; t < len; t += W) { /* rows with more entries */
          const int k2 = v.c[b + t];
          v.s[k2] = __dsub_rn(v.s[k2], __dmul_rn(v.v[b + t], xj));
        }
        if (lane == 0) v.x[k] = xj;
      }
      __syncwarp();
    }
  }
  double *x_out = pio.x_out ? pio.io.get_x() : NULL;
  if (!Staged && !x_out) return;
  __syncthreads();
  for (int k = threadIdx.x; k < nrows; k += kBlock) { /* 3: x out */
    const double xv = v.x[r0 + k - base];
    if (Staged) a.xp[r0 + k] = xv;
    if (x_out) x_out[pio.perm[r0 + k]] = xv;
  }
}

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
 * cluster are in increasing order, so "earlier" is j < i. */
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

/* pout[q] and pup[q]: where row q's middle and upper parts start (lptr,
 * uptr: the scanned numbers of lower and upper entries). */
__global__ void part_offsets(int64_t n, const int64_t *prow, const int64_t *lptr,
                             const int64_t *uptr, int64_t *pout, int64_t *pup) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n;
       q += (int64_t)gridDim.x * blockDim.x) {
    pout[q] = prow[q] + (lptr[q + 1] - lptr[q]);
    pup[q] = prow[q + 1] - (uptr[q + 1] - uptr[q]);
  }
}

/* Where a_ij lies in row i of A, from the row's start (sorted rows; the
 * pattern is symmetric, so it exists): a binary search in 32-bit offsets */
__device__ __forceinline__ int32_t entry_at(const int64_t *rowptr, const int32_t *colidx, int32_t i,
                                            int32_t j) {
  const int64_t b = rowptr[i];
  return mispc_lower_bound32(colidx + b, (int)(rowptr[i + 1] - b), j);
}

/* Where a chain value a_ji lies in A: its entry (abs: nnz below 2^31), so
 * the numeric setup loads it with no lookups, or its offset in row j. */
__device__ __forceinline__ int32_t chain_source(const int64_t *rowptr, const int32_t *colidx,
                                                int32_t j, int32_t i, bool abs) {
  const int32_t at = entry_at(rowptr, colidx, j, i);
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

/* Blocks an SM that copy_rows and copy_values are compiled for: 5 (48
 * registers) instead of the 4 that 52-56 registers allowed; both are
 * latency-bound (ncu, H100, Elasticity3D_60 on nodes: copy_rows 66 % of
 * stalls on L1TEX loads at 50 % occupancy). H100, two runs, ms, 4 / 5 / 6
 * blocks: Elasticity3D_60 copy 1.07 / 1.00 / 1.10, numeric 0.66 / 0.61 /
 * 0.72 (on nodes 0.66 / 0.61 / 0.71); Laplace3D_100 unchanged. */
constexpr int kCopyBlocks = 5;

/* Where copy_rows writes the sweep-ordered pattern and where each of its
 * values lies in A, so that the numeric setup (copy_values) only gathers. */
struct CopyOut {
  const int64_t *prow, *pout, *pup, *fptr, *bptr; /* pout .. bptr: cluster only */
  int32_t *pcol, *fcol, *bcol;
  int32_t *psrc;        /* cluster only: offset of each entry in its row of A */
  int32_t *pdiag_at;    /* offset of a_ii in row i of A, -1 if missing */
  int32_t *fsrc, *bsrc; /* where each chain value lies in A: its entry (abs),
                         * else its offset in the row the chain entry names,
                         * whose a_jq it holds */
  bool abs;
};

/* A group per row q: row perm[q] of A into row q of the copy, renumbered
 * columns, in parts (row_part) each in storage order: a stable partition by
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
    int64_t at0 = o.prow[q], at1 = row_cluster ? o.pout[q] : o.prow[q],
            at2 = row_cluster ? o.pup[q] : o.prow[q + 1];
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
        parts[t] = js[t] >= 0 ? row_part(row_cluster, c, i, js[t]) : -1;
#pragma unroll
      for (int t = 0; t < kCopySteps<W>; ++t) ijs[t] = js[t] >= 0 ? iperm[js[t]] : 0;
#pragma unroll
      for (int t = 0; t < kCopySteps<W>; ++t) {
        if (k00 + t * W >= len) break; /* group-uniform */
        const int64_t k = k00 + t * W + g;
        const bool valid = k < len;
        const int32_t j = js[t];
        const int part = parts[t];
        const unsigned b0 = __ballot_sync(gm, part == 0) & gm,
                       b1 = __ballot_sync(gm, part == 1) & gm,
                       b2 = __ballot_sync(gm, part == 2) & gm;
        if (valid) {
          const unsigned mine = part == 0 ? b0 : part == 1 ? b1 : b2;
          const int rank = __popc(mine & below);
          const int64_t d = (part == 0 ? at0 : part == 1 ? at1 : at2) + rank;
          o.pcol[d] = ijs[t];
          if (o.psrc) o.psrc[d] = (int32_t)k;
          if (j == i) o.pdiag_at[q] = (int32_t)k, has_diag = true;
          if (part != 1) {
            const int64_t dc = (part == 0 ? cb : cf) + rank;
            (part == 0 ? o.bcol : o.fcol)[dc] = ijs[t];
            (part == 0 ? o.bsrc : o.fsrc)[dc] =
                kSearchAfter<W> ? j : chain_source(rowptr, colidx, j, i, o.abs);
          }
        }
        at0 += __popc(b0), at1 += __popc(b1), at2 += __popc(b2);
        cb += __popc(b0), cf += __popc(b2);
      }
    }
    if (!(__ballot_sync(gm, has_diag) & gm) && g == 0) o.pdiag_at[q] = -1;
    if (kSearchAfter<W> && row_cluster) {
      __syncwarp(gm); /* the group's columns in bsrc / fsrc, read by other lanes */
      const int64_t nb = cb - cb0, nt = nb + (cf - cf0);
      for (int64_t t = g; t < nt; t += W) {
        int32_t *at = t < nb ? o.bsrc + cb0 + t : o.fsrc + cf0 + (t - nb);
        *at = chain_source(rowptr, colidx, *at, i, o.abs);
      }
    }
  });
}

/* What copy_values writes and reads besides A. */
struct ValuesOut {
  const int64_t *prow, *fptr, *bptr;
  const int32_t *psrc, *pdiag_at, *fsrc, *bsrc, *fcol, *bcol;
  double *pval, *pwdiag, *fval, *bval;
  double omega;
  bool abs; /* fsrc / bsrc hold entries of A (CopyOut) */
};

/* Entries a lane of copy_values gathers at once (its loads of one level
 * issued together, not one entry's chain of loads after another). */
constexpr int kGatherBatch = 4;

/* The chain values of one row of the copy, forward (fptr ..) and backward
 * (bptr ..) together, kGatherBatch entries of each direction at once: from
 * their entries of A (v.abs; two dependent loads an entry), else from the
 * rows of A that the entries name (perm of their sweep positions, rowptr,
 * the offset: four dependent loads an entry). */
__device__ __forceinline__ void chain_values(int64_t q, int g, int W, const ValuesOut &v,
                                             const int32_t *perm, const int64_t *rowptr,
                                             const double *val) {
  constexpr int B = kGatherBatch;
  const int64_t fb = v.fptr[q], fe = v.fptr[q + 1], bb = v.bptr[q], be = v.bptr[q + 1];
  for (int64_t o = g; o < fe - fb || o < be - bb; o += (int64_t)W * B) {
    /* entry u: forward (u < B) or backward, its position, and whether it
     * is in the row's chain */
    const auto pos = [&](int u) { return (u < B ? fb : bb) + o + (int64_t)(u % B) * W; };
    const auto in = [&](int u) { return pos(u) < (u < B ? fe : be); };
    int64_t src[2 * B];
    if (v.abs) {
#pragma unroll
      for (int u = 0; u < 2 * B; ++u) src[u] = in(u) ? (u < B ? v.fsrc : v.bsrc)[pos(u)] : -1;
    } else {
#pragma unroll
      for (int u = 0; u < 2 * B; ++u) /* the rows, then perm, then rowptr */
        src[u] = in(u) ? (u < B ? v.fcol : v.bcol)[pos(u)] : -1;
#pragma unroll
      for (int u = 0; u < 2 * B; ++u) src[u] = src[u] >= 0 ? perm[src[u]] : -1;
#pragma unroll
      for (int u = 0; u < 2 * B; ++u)
        src[u] = src[u] >= 0 ? rowptr[src[u]] + (u < B ? v.fsrc : v.bsrc)[pos(u)] : -1;
    }
#pragma unroll
    for (int u = 0; u < 2 * B; ++u)
      if (src[u] >= 0) (u < B ? v.fval : v.bval)[pos(u)] = val[src[u]];
  }
}

/* The numeric setup: a group per row q gathers the values of row perm[q]
 * of A into the copy (cluster GS: by psrc; point GS: the row unchanged),
 * omega over its diagonal into pwdiag and its chains' values, checking the
 * diagonal (gs_diag_kind): *first_bad = the least (row << 3 | kind) of the
 * rows whose a_ii is not usable. A lane's entries go kGatherBatch at a
 * time, their loads issued together. */
template <int W>
__global__ void __launch_bounds__(kBlock, kCopyBlocks)
    copy_values(int64_t n, const int32_t *perm, const int64_t *rowptr, const double *val,
                ValuesOut v, int require_positive, unsigned long long *first_bad) {
  constexpr int B = kGatherBatch;
  mispc_for_each_row<W>(n, [&](int64_t q, int g, unsigned) {
    const int32_t i = perm[q];
    const int64_t base = rowptr[i], b = v.prow[q], e = v.prow[q + 1];
    for (int64_t d0 = b + g; d0 < e; d0 += (int64_t)W * B) {
      int64_t src[B];
#pragma unroll
      for (int u = 0; u < B; ++u) {
        const int64_t d = d0 + (int64_t)u * W;
        src[u] = d < e ? base + (v.psrc ? v.psrc[d] : d - b) : -1;
      }
      double x[B];
#pragma unroll
      for (int u = 0; u < B; ++u) x[u] = src[u] >= 0 ? val[src[u]] : 0.0;
#pragma unroll
      for (int u = 0; u < B; ++u)
        if (src[u] >= 0) v.pval[d0 + (int64_t)u * W] = x[u];
    }
    if (v.fptr) chain_values(q, g, W, v, perm, rowptr, val);
    if (g == 0) {
      const int32_t at = v.pdiag_at[q];
      double w;
      const int kind =
          gs_diag_kind(at >= 0, at >= 0 ? val[base + at] : 0.0, require_positive, v.omega, &w);
      v.pwdiag[q] = w;
      if (kind) atomicMin(first_bad, ((unsigned long long)i << 3) | (unsigned long long)kind);
    }
  });
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

constexpr size_t kDefaultSmem = 48 * 1024;

/* Lanes per row of the SpMV-like kernels (point GS, sweep_clusters' sums): a lane
 * per 16 entries, at least 2, at most 8. Measured on an H100
 * (docs/GAUSS_SEIDEL.md): the rows of one color are many, and few lanes a
 * row keep the most rows in flight, but 2 beat 1 on short rows. SGS ms with
 * 1 / 2 / 4 / 8 lanes (2026-11-24): point Laplace3D_100 0.158 / 0.147 /
 * 0.185 / -, laplace2d:1000 0.131 / 0.129 / 0.175 / -; cluster sums
 * Laplace3D_100 0.302 / 0.306 / 0.314 / 0.418, laplace2d:1000 0.272 / 0.256
 * / 0.271 / 0.400, Elasticity3D_60 1.78 (1), 1.55 (4 and 8). */
static int lanes_for_row_sums(double mean) {
  int w = 2;
  while (w < 8 && 16 * w <= mean) w *= 2;
  return w;
}

/* f(integral_constant<int, w>) for the lanes lanes_for_row_sums gives
 * (2, 4 or 8): fewer instances of the cluster kernel than mispc_with_lanes. */
template <typename F> static auto with_sum_lanes(int w, F &&f) {
  return w <= 2   ? f(std::integral_constant<int, 2>{})
         : w == 4 ? f(std::integral_constant<int, 4>{})
                  : f(std::integral_constant<int, 8>{});
}

/* Lanes per row (point) or per cluster (1 .. 32, a power of two): point GS
 * lanes_for_row_sums of the mean row; cluster GS the power of two at or
 * above `mean`, twice the mean entries of a row's push chain (a lane one or
 * two of them), at least 4. The context's tuning.gs_lanes (1, 2, 4, 8, 16,
 * 32; tuning.h) overrides it. Same arithmetic for every choice. */
static int gs_lanes_per_row(const mispc_context *ctx, const mispc_gs *gs, double mean) {
  const int v = ctx->tuning.gs_lanes;
  if (v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 32) return v;
  /* cluster chains: at least 4 lanes (8 clusters a warp in lockstep); SGS
   * ms with 2 / 4 / 8 lanes, H100 2026-11-24: laplace2d:1000 0.256 / 0.224
   * / 0.236, Laplace3D_100 0.341 / 0.310 / 0.310 */
  if (gs->opt.kind == MISPC_GS_CLUSTER) return std::max(4, mispc_lanes_for_mean(mean));
  return lanes_for_row_sums(mean);
}

namespace {
/* Blocks of sweep_clusters hold at most 2^kMaxBlockClustersLog clusters
 * (8 warps of 32 one-lane groups). */
constexpr int kMaxBlockClustersLog = 8;

/* r[k] = the most shared bytes (cluster_block_bytes) of a block of 2^k
 * clusters, over the blocks as the apply forms them: each color's clusters
 * from its first (color_ptr, device), 2^k a block. */
__global__ void block_bytes(int64_t nc, int32_t ncolors, const int64_t *color_ptr,
                            const int64_t *pcl, const int64_t *fptr, const int64_t *bptr,
                            unsigned long long *r) {
  constexpr int K = kMaxBlockClustersLog + 1;
  unsigned long long m[K];
#pragma unroll
  for (int k = 0; k < K; ++k) m[k] = 0;
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nc;
       q += (int64_t)gridDim.x * blockDim.x) {
    /* q's color: the last one starting at or before q */
    const int64_t c = mispc_lower_bound(color_ptr, 0, (int64_t)ncolors + 1, q + 1) - 1;
    const int64_t lo = color_ptr[c], hi = color_ptr[c + 1];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (((q - lo) & (((int64_t)1 << k) - 1)) != 0) continue;
      const int64_t r0 = pcl[q], r1 = pcl[min(q + ((int64_t)1 << k), hi)];
      const int64_t ent = max(fptr[r1] - fptr[r0], bptr[r1] - bptr[r0]);
      const unsigned long long z = cluster_block_bytes(r1 - r0, ent);
      m[k] = z > m[k] ? z : m[k];
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const unsigned long long z = mispc_block_max<kBlock>(m[k]);
    if (threadIdx.x == 0 && z) atomicMax(r + k, z);
  }
}
} // namespace

/* How sweep_clusters runs: chain lanes (gs_lanes_per_row), sum lanes
 * (lanes_for_row_sums), and clusters a block: as many as half the block's
 * warps have groups (4 * 32 / lanes), halved until every block's staging fits in
 * the default 48 KiB of shared memory (several blocks an SM); a single
 * cluster may opt in to more. Staged in shared memory unless one cluster
 * does not fit, or the context's tuning.gs_chain_global is set (tests and
 * measurements; the arithmetic is the same). tuning.gs_block_clusters = 2^k
 * sets the clusters a block (at most 8 * 32 / lanes, the groups of
 * a block, and still halved to fit). chain: the
 * entries of the forward chains. */
static mispc_status choose_cluster_mode(mispc_context *ctx, mispc_gs *gs, cudaStream_t s,
                                        int64_t chain) {
  constexpr int K = kMaxBlockClustersLog + 1;
  const int64_t n = gs->n, nc = gs->nclusters;
  unsigned long long *dm = NULL, *hm = NULL; /* K maxima */
  MISPC_TRY(mispc_pinned_scratch(ctx, K * 8, (void **)&hm));
  mispc_status st = mispc_scratch_alloc(ctx, K * 8, (void **)&dm, "cluster blocks");
  if (!st) {
    cudaMemsetAsync(dm, 0, K * 8, s);
    block_bytes<<<mispc_device_grid(ctx, nc, kBlock), kBlock, 0, s>>>(
        nc, gs->ncolors, gs->dcolor_ptr, gs->pcl, gs->fptr, gs->bptr, dm);
    cudaMemcpyAsync(hm, dm, K * 8, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "cluster blocks");
  }
  mispc_scratch_free(ctx, dm);
  MISPC_TRY(st);
  const mispc_tuning *tu = &ctx->tuning; /* tuning.h */
  gs->lanes = gs_lanes_per_row(ctx, gs, 2.0 * (double)chain / (double)n);
  gs->sum_lanes = lanes_for_row_sums((double)gs->nnz / (double)n);
  if (tu->gs_sum_lanes == 2 || tu->gs_sum_lanes == 4 || tu->gs_sum_lanes == 8)
    gs->sum_lanes = tu->gs_sum_lanes;
  int dev = 0, optin = 0;
  MISPC_CUDA_TRY(ctx, cudaGetDevice(&dev));
  MISPC_CUDA_TRY(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  /* log2 of the clusters a block: as many as half the block's warps have
   * groups, so a color has twice the blocks and those of an SM overlap
   * their phases (H100, SGS ms with 16 / 32 / 64 clusters a block of 4
   * lanes, 2026-11-24: Laplace3D_100 0.293 / 0.288 / 0.401, laplace2d:1000
   * 0.233 / 0.217 / 0.230) */
  int k_default = 0;
  while ((kBlock / 64) * (32 / gs->lanes) > (1 << k_default)) ++k_default;
  int k = k_default;
  const int eb = tu->gs_block_clusters; /* at most the block's groups */
  if (eb > 0)
    for (k = 0; (2 << k) <= eb && (2 << k) <= (kBlock / 32) * (32 / gs->lanes);) ++k;
  while (k > 0 && hm[k] > kDefaultSmem) --k;
  gs->cluster_mode = tu->gs_chain_global ? GS_CHAIN_GLOBAL : GS_CHAIN_STAGED;
  if (hm[k] > (unsigned long long)optin) gs->cluster_mode = GS_CHAIN_GLOBAL;
  const bool staged = gs->cluster_mode != GS_CHAIN_GLOBAL;
  if (!staged) { /* no shared memory to fit; the sums go through tp */
    k = k_default;
    MISPC_TRY(
        mispc_pool_alloc(ctx, MISPC_MEM_DEVICE, (size_t)n * 8 + 8, (void **)&gs->tp, "fixed sums"));
  }
  gs->block_clusters = 1 << k;
  gs->smem_block = staged ? (int)hm[k] : 0;
  mispc_logf(ctx, 2,
             "gs cluster sweeps: %d lanes a cluster's chain, %d a row's sum, %d clusters a "
             "block, mode %d, %d shared bytes a block, clusters of up to %lld rows, %.2f chain "
             "entries a row",
             gs->lanes, gs->sum_lanes, gs->block_clusters, gs->cluster_mode, gs->smem_block,
             (long long)gs->max_cluster, (double)chain / (double)n);
  return MISPC_SUCCESS;
}

/* What copy_rows writes and copy_values reads and writes. */
static CopyOut copy_out(const mispc_gs *gs) {
  CopyOut o = {gs->prow, gs->pout, gs->pup, gs->fptr, gs->bptr};
  o.pcol = gs->pcol, o.fcol = gs->fcol, o.bcol = gs->bcol;
  o.psrc = gs->psrc, o.pdiag_at = gs->pdiag_at, o.fsrc = gs->fsrc, o.bsrc = gs->bsrc;
  o.abs = gs->chain_abs;
  return o;
}
static ValuesOut values_out(const mispc_gs *gs) {
  const bool cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  ValuesOut v = {gs->prow, cluster ? gs->fptr : NULL, gs->bptr};
  v.psrc = gs->psrc, v.pdiag_at = gs->pdiag_at, v.fsrc = gs->fsrc, v.bsrc = gs->bsrc;
  v.fcol = gs->fcol, v.bcol = gs->bcol;
  v.pval = gs->pval, v.pwdiag = gs->pwdiag, v.omega = gs->opt.omega, v.fval = gs->fval,
  v.bval = gs->bval, v.abs = gs->chain_abs;
  return v;
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
  MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)n * 8 + 8, (void **)&gs->xp, "sorted x"));
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
    MISPC_TRY(exclusive_sum(ctx, s, gs->pcl, nc + 1));
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
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)(n + 1) * 8, (void **)&gs->fptr, "chains"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)(n + 1) * 8, (void **)&gs->bptr, "chains"));
    MISPC_TRY(mispc_pool_alloc(ctx, d, (size_t)nnz * 4 + 4, (void **)&gs->psrc, "value places"));
  } else if (n > 0) {
    MISPC_CUDA_TRY(
        ctx, cudaMemcpyAsync(gs->perm, gs->order, (size_t)n * 4, cudaMemcpyDeviceToDevice, s));
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
  mispc_log_phase(ctx, d, &tp, "  pattern: sweep order and row lengths");
  MISPC_TRY(exclusive_sum(ctx, s, gs->prow, n + 1));
  if (rc) {
    MISPC_TRY(exclusive_sum(ctx, s, gs->bptr, n + 1));
    MISPC_TRY(exclusive_sum(ctx, s, gs->fptr, n + 1));
    if (n > 0)
      part_offsets<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(
          n, gs->prow, gs->bptr, gs->fptr, gs->pout, gs->pup);
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
  if (cluster && gs->nclusters > 0) MISPC_TRY(choose_cluster_mode(ctx, gs, s, chain));
  mispc_log_phase(ctx, d, &tp, "  pattern: chain lanes");
  return mispc_sync(ctx, s, "Gauss-Seidel sweep order");
}

extern "C" mispc_status gs_permute_values_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                               int64_t *bad_row, int *bad_kind) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  unsigned long long *d = NULL, *h = NULL;
  MISPC_TRY(mispc_pinned_scratch(ctx, sizeof *h, (void **)&h));
  MISPC_TRY(mispc_scratch_alloc(ctx, sizeof *d, (void **)&d, "diagonal check"));
  cudaMemsetAsync(d, 0xff, sizeof *d, s);
  if (gs->n > 0) {
    const ValuesOut v = values_out(gs);
    /* a lane per kGatherBatch entries of the mean row, at most 16 (H100,
     * numeric ms with 2 / 4 / 8 / 16 / 32 lanes after the batching,
     * 2026-11-24: Laplace3D_100 cluster 0.14 / 0.19 / 0.29 / 0.49 / 0.88,
     * point 0.10 / 0.12 / 0.16 / 0.26 / 0.45; Elasticity3D_60 cluster 2.58
     * / 1.45 / 0.77 / 0.72 / 0.84, point 1.59 / 1.02 / 0.40 / 0.39 / 0.43).
     * Before the batching: half the mean row (Laplace3D_100 point 0.15 ->
     * 0.13 ms, cluster 0.26 -> 0.19 with 4 lanes instead of 8;
     * Elasticity3D_60 cluster 1.00 -> 0.90 with 16 instead of 32) */
    const double mean = gs->n ? (double)A->nnz / (double)gs->n : 0.0;
    const int w = std::min(16, mispc_lanes_for_mean(mean / kGatherBatch));
    mispc_with_lanes(w, [&](auto lanes) {
      constexpr int W = decltype(lanes)::value;
      copy_values<W><<<mispc_device_grid(ctx, (long long)W * gs->n, kBlock), kBlock, 0, s>>>(
          gs->n, gs->perm, A->rowptr, A->values, v, gs->opt.require_positive_diagonal, d);
      return 0;
    });
  }
  cudaMemcpyAsync(h, d, sizeof *h, cudaMemcpyDeviceToHost, s);
  /* synchronous: a caller may change the context's stream before the first
   * apply (the PETSc plugin follows PETSc's current stream), and a copy left
   * in flight on the old stream would race with it */
  mispc_status st = mispc_sync(ctx, s, "Gauss-Seidel values");
  mispc_scratch_free(ctx, d);
  MISPC_TRY(st);
  *bad_row = *h == ~0ull ? -1 : (int64_t)(*h >> 3);
  *bad_kind = *h == ~0ull ? 0 : (int)(*h & 7);
  return MISPC_SUCCESS;
}

/* Lets the staged sweep_clusters of this handle have its shared memory
 * (above the default 48 KiB only for single clusters that need it). */
template <int W> static mispc_status cluster_allow_smem(mispc_context *ctx, const mispc_gs *gs) {
  if (gs->smem_block <= (int)kDefaultSmem) return MISPC_SUCCESS;
  return with_sum_lanes(gs->sum_lanes, [&](auto lanes) {
    constexpr int SW = decltype(lanes)::value;
    MISPC_CUDA_TRY(ctx, cudaFuncSetAttribute(sweep_clusters<W, SW, true>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             gs->smem_block));
    return MISPC_SUCCESS;
  });
}

/* One color of a sweep, one launch. Point GS: a group per row. Cluster
 * GS: sweep_clusters, a block per block_clusters clusters (the sums formed
 * by the whole block, then the chains; forming the sums inside the chains'
 * groups, a lane per row, had been slower than a launch of their own:
 * Laplace3D_100 0.73 against 0.43 ms an SGS sweep, H100 2026-11-23).
 * A pass from x = 0 reads only columns it has updated (pio.klo .. khi). */
template <int W>
static void launch_color(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s, int32_t c,
                         bool backward, bool zero_x, PassIO pio) {
  const int64_t lo = gs->color_ptr[c], hi = gs->color_ptr[c + 1];
  if (gs->opt.kind != MISPC_GS_CLUSTER) {
    if (pio.first_b) { /* rows the pass has updated: earlier colors */
      pio.klo = (int32_t)(backward ? hi : 0);
      pio.khi = (int32_t)(backward ? gs->n : lo);
    }
    sweep_points<W><<<mispc_device_grid(ctx, (long long)W * (hi - lo), kBlock), kBlock, 0, s>>>(
        lo, hi, gs->prow, gs->pcol, gs->pval, gs->pwdiag, gs->bp, gs->xp, pio);
    return;
  }
  const int64_t rlo = gs->color_rows[c], rhi = gs->color_rows[c + 1];
  if (zero_x) { /* x = 0 but for the colors this pass has updated */
    pio.klo = (int32_t)(backward ? rhi : 0);
    pio.khi = (int32_t)(backward ? gs->n : rlo);
  }
  ClusterArrays a = {gs->pcl, gs->prow, gs->pout, gs->pup, gs->pcol, gs->pval, gs->bp, gs->pwdiag};
  a.cptr = backward ? gs->bptr : gs->fptr;
  a.ccol = backward ? gs->bcol : gs->fcol;
  a.cval = backward ? gs->bval : gs->fval;
  a.tp = gs->tp, a.xp = gs->xp;
  const int cb = gs->block_clusters;
  const unsigned grid = (unsigned)((hi - lo + cb - 1) / cb);
  const bool staged = gs->cluster_mode != GS_CHAIN_GLOBAL;
  with_sum_lanes(gs->sum_lanes, [&](auto lanes) {
    constexpr int SW = decltype(lanes)::value;
    const auto kernel = staged ? sweep_clusters<W, SW, true> : sweep_clusters<W, SW, false>;
    kernel<<<grid, kBlock, staged ? gs->smem_block : 0, s>>>(lo, hi, cb, backward, a, pio);
    return 0;
  });
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
 * caller's order as it goes (no scatter launch). A pass from x = 0
 * leaves the products of rows it has not reached out (+0.0 for the host's
 * ±0 of a_ij * 0): a zero-free running sum is the same either way, a zero
 * one only changes sign, and x_i = +0 + (ω s) / a_ii is then +0 on both. */
template <int W>
static mispc_status enqueue_apply(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s,
                                  const double *b, double *x, int zero_guess, Part part) {
  if (gs->opt.kind == MISPC_GS_CLUSTER) MISPC_TRY(cluster_allow_smem<W>(ctx, gs));
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
      pio.io = io_next();
      launch_color<W>(ctx, gs, s, c, backward, zero_guess && k == 0, pio);
    }
  }
  return MISPC_SUCCESS;
}

static mispc_status enqueue_any(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s,
                                const double *b, double *x, int zero_guess, Part part) {
  return mispc_with_lanes(gs->lanes, [&](auto w) {
    return enqueue_apply<decltype(w)::value>(ctx, gs, s, b, x, zero_guess, part);
  });
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

/* The number of parameters of a kernel (the graph node's argument array) */
template <typename... A> constexpr int kernel_arity(void (*)(A...)) {
  return sizeof...(A);
}

/* Points the graph's first launch (gather_vectors, or the first color of a
 * point sweep from x = 0) at b and x: its ApplyIO argument is replaced. */
static mispc_status set_root_vectors(mispc_context *ctx, mispc_gs *gs, int k, const double *b,
                                     double *x) {
  if (gs->graph_bx[k][0] == b && gs->graph_bx[k][1] == x) return MISPC_SUCCESS;
  cudaKernelNodeParams p;
  MISPC_CUDA_TRY(ctx, cudaGraphKernelNodeGetParams((cudaGraphNode_t)gs->graph_root[k], &p));
  constexpr int ngather = kernel_arity(gather_vectors), nsweep = kernel_arity(sweep_points<1>);
  void *args[ngather > nsweep ? ngather : nsweep];
  ApplyIO io;
  PassIO pio;
  if (gathers(gs, k)) { /* gather_vectors(n, perm, io, zero_guess, bp, xp) */
    memcpy(args, p.kernelParams, ngather * sizeof(void *));
    io = *(const ApplyIO *)args[2];
    io.b = b, io.x = x;
    args[2] = &io;
  } else { /* sweep_points(lo, hi, prow, pcol, pval, pwdiag, bp, xp, pio): pio last */
    memcpy(args, p.kernelParams, nsweep * sizeof(void *));
    pio = *(const PassIO *)args[nsweep - 1];
    pio.io.b = b, pio.io.x = x;
    args[nsweep - 1] = &pio;
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
