/* GPU Gauss-Seidel sweeps: the kernels (point and cluster) and the launches
 * of one apply, one per color per pass (gs_cuda.cuh). */
#include <string.h>

#include <algorithm>

#include "gs_cuda.cuh"

namespace {

/* point rows of at most this many entries are summed one by one, longer
 * ones part by part in chunks of 32 as trees (the host's rule,
 * gs_row_update.h gs_update_row) */
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
 * gs_chunk_tree) by a group of W lanes: lane l holds slots l + W m, prod(t)
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

/* What one pass (a sweep in one direction) reads and writes besides the
 * sweep-ordered copy. first_b: the first pass from x = 0 reads b through
 * perm instead of a gathered copy (and keeps it in bp for later passes when
 * keep_b), and x of the rows it has not reached is 0: only columns in
 * [klo, khi) are read, and of a point row only its lower part (forward) or
 * the others (backward). x_out: the last pass also writes x in the
 * caller's order, so no gather and no scatter launch is needed around the
 * sweeps. Point GS: store_t, the first pass keeps each row's sum in tp;
 * from_t, the backward pass after it goes on from there with the entries
 * after the lower part. */
struct PassIO {
  const int32_t *perm;
  ApplyIO io;
  bool first_b, keep_b, x_out;
  int32_t klo, khi; /* sweep positions (perm is 32-bit) */
  bool backward, store_t, from_t;
};

/* s minus a long point row's entries b .. e-1 (one part of it) in chunks
 * of 32 as trees, zeros past e (gs_row_update.h, gs_sub_chunks); only
 * columns in [klo, khi) are read. */
template <int W>
__device__ __forceinline__ double part_chunks(double s, int64_t b, int64_t e, const int32_t *pcol,
                                              const double *pval, const double *xp, int lane,
                                              unsigned mask, int32_t klo, int32_t khi) {
  for (int64_t c0 = b; c0 < e; c0 += 32)
    s = __dsub_rn(s, chunk_sum<W>(lane, mask, [&](int t) {
                    const int64_t p = c0 + t;
                    const int32_t c = p < e ? pcol[p] : -1;
                    return c >= klo && c < khi ? __dmul_rn(pval[p], xp[c]) : 0.0;
                  }));
  return s;
}

/* Point GS over rows lo .. hi-1 of the sweep-ordered copy (one color), a
 * group of W lanes per row: its lower part (prow .. pout-1), then the
 * others (pout .. prow+1 - 1). A first pass from x = 0 reads one part (the
 * other's x are 0) and an empty [klo, khi) (its first color) no entries:
 * the same x bit for bit (x_i = 0 + s w_i absorbs the sign of a zero sum).
 * At most 40 registers (6 blocks an SM; 32 spill and were slower on an
 * H100). */
template <int W>
__global__ void __launch_bounds__(kBlock, 6)
    sweep_points(int64_t lo, int64_t hi, const int64_t *prow, const int64_t *pout,
                 const int32_t *pcol, const double *pval, const double *pwdiag, double *bp,
                 double *tp, double *xp, PassIO pio) {
  pio.io.store();
  const int lane = threadIdx.x & (W - 1);
  const unsigned mask = mispc_group_mask<W>();
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / W;
  const double *b = pio.first_b ? pio.io.get_b() : NULL;
  double *x = pio.x_out ? pio.io.get_x() : NULL;
  for (int64_t i = lo + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / W; i < hi;
       i += ngroups) {
    const int32_t row = b || x ? pio.perm[i] : 0;
    const double bi = pio.from_t ? tp[i] : b ? b[row] : bp[i];
    const int64_t rb = prow[i], rm = pout[i], re = prow[i + 1];
    int64_t p0 = rb, p1 = re; /* the entries this pass reads */
    if (pio.first_b) {
      if (pio.backward)
        p0 = rm;
      else
        p1 = rm;
      if (pio.klo >= pio.khi) p1 = p0;
    }
    if (pio.from_t) p0 = rm;
    double s;
    if (re - rb <= kChainedRow) {
      s = row_chain<W>(bi, p0, p1, pcol, pval, xp, lane, mask, pio.klo, pio.khi);
    } else { /* long rows: each part in chunks of 32 as trees (gs_row_update.h) */
      s = part_chunks<W>(bi, p0, min(p1, rm), pcol, pval, xp, lane, mask, pio.klo, pio.khi);
      s = part_chunks<W>(s, max(p0, rm), p1, pcol, pval, xp, lane, mask, pio.klo, pio.khi);
    }
    if (lane == 0) {
      const double xi = __dadd_rn(b ? 0.0 : xp[i], __dmul_rn(s, pwdiag[i]));
      xp[i] = xi;
      if (x) x[row] = xi;
      if (b && pio.keep_b) bp[i] = bi;
      if (pio.store_t) tp[i] = s;
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

/* What a cluster pass reads and writes besides PassIO. */
struct ClusterArrays {
  const int64_t *pcl, *prow, *pmid, *pout, *pup;
  const int32_t *pcol;
  const double *pval, *bp, *pwdiag;
  const int64_t *cptr; /* the pass's chains: fptr / fcol / fval or bptr / ... */
  const int32_t *ccol;
  const double *cval;
  double *tp, *xp;
  /* the pass's fixed sums (cluster_fixed_sum): row i's from s0[i] minus its
   * entries sb[i] .. se[i]-1 (chosen by the launch, so the kernels read one
   * run without selecting) */
  const double *s0;
  const int64_t *sb, *se;
};

/* The fixed part of cluster row i's sum (gs_row_update.h,
 * gs_update_cluster_row) by a group of SW lanes: s0[i] minus entries
 * sb[i] .. se[i]-1 of the copy (gs_internal.h; launch_color chooses the
 * arrays): forward, b_i minus the entries outside of earlier colors, the
 * diagonal and the rest outside and the later rows (pmid .. prow + 1; a
 * first pass from x = 0 only the first of these, pmid .. pout); backward
 * after a forward pass from x = 0, its sum tp[i] minus the diagonal and
 * the rest outside (pout .. pup); other backward passes, tp[i] as
 * cluster_fixed_sums left it (three runs: outside of earlier colors, the
 * earlier rows, the rest), no entries. One run, as the kernels had read
 * before the runs changed: selecting among them in the kernel took the
 * staged ones from 32 to 40 registers (ptxas), and the sweeps got slower.
 * Only columns in [klo, khi) are read. */
template <int SW>
__device__ __forceinline__ double cluster_fixed_sum(const ClusterArrays &a, const PassIO &pio,
                                                    int64_t i, int lane, unsigned mask) {
  return row_chain<SW>(a.s0[i], a.sb[i], a.se[i], a.pcol, a.pval, a.xp, lane, mask, pio.klo,
                       pio.khi);
}

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
 * 1. The fixed part of each row's sum (gs_row_update.h, gs_update_cluster_row): b_i
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
 * warp alone (docs/results/gauss-seidel-notebook.md, "One launch a color"). */
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
      if (Staged && lane == SW - 1) {
        d[i - r0] = a.pwdiag[i];
        v.x[i - r0] = a.xp[i];
        p[i - r0] = (uint16_t)(a.cptr[i] - c0);
      }
      const double s = cluster_fixed_sum<SW>(a, pio, i, lane, mask);
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
    /* Groups of 8 lanes and more (chains of more than 2 entries a row on
     * average: gs_lanes_per_row) load each row's chain a row early
     * (pipelined below); narrower ones one row at a time. H100, SGS ms, one
     * row at a time / every width pipelined, same run (2026-11-26 15:45
     * UTC): Elasticity3D_60 (32 lanes) 1.388 / 1.214 (on nodes 1.330 /
     * 1.154), Elasticity3D_40's finest AMG level 1.584 / 1.501, Laplace3D_100
     * (4 lanes) 0.288 / 0.276, but laplace2d:1000 (4 lanes) 0.219 / 0.237;
     * with this rule (15:47 UTC) the first three as pipelined, the 4-lane
     * ones as before (0.287, 0.217). */
    if constexpr (W < 8) {
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
          if (lane == 0) {
            v.x[k] = xj;
            /* the sum kept for from_t (global: v.s is tp); here, not in step 3,
             * where it took the W < 8 kernels from 32 to 40 registers */
            if (Staged && pio.store_t) a.tp[base + k] = v.s[k];
          }
        }
        __syncwarp();
      }
    } else {
      /* Row r runs from cur while row r + 1's entries load into nxt and row
       * r + 2's offsets into (kn, bn, ln): the loads that do not depend on the
       * sums issue a row early, so a row waits only on its sums (a warp
       * issues in order; as sweep_clusters_streamed). Rows past a group's
       * cluster have no entries. */
      using Off = typename ChainView<Staged>::Off;
      struct Row {
        int k, len;
        Off b;
        int kk[E];
        double av[E];
      };
      int kn = 0, ln = 0;
      Off bn = 0;
      const auto offsets = [&](int r) {
        kn = k0 + (backward ? nr - 1 - r : r), bn = 0, ln = 0;
        if (r < nr) bn = v.p[kn], ln = (int)(v.p[kn + 1] - bn);
      };
      const auto load = [&](Row &w) {
        w.k = kn, w.b = bn, w.len = ln;
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const int t = lane + W * e;
          w.kk[e] = t < ln ? v.c[bn + t] : -1;
          w.av[e] = t < ln ? v.v[bn + t] : 0.0;
        }
      };
      const auto step = [&](const Row &cur, Row &nxt, int r) {
        if (r + 1 < nr_max) load(nxt), offsets(r + 2);
        double sk[E]; /* the lane's sums, ahead of x_j */
#pragma unroll
        for (int e = 0; e < E; ++e) sk[e] = cur.kk[e] >= 0 ? v.s[cur.kk[e]] : 0.0;
        if (r < nr) {
          const int k = cur.k;
          const double xj = __dadd_rn(v.x[k], __dmul_rn(v.s[k], v.d[k]));
#pragma unroll
          for (int e = 0; e < E; ++e)
            if (cur.kk[e] >= 0) v.s[cur.kk[e]] = __dsub_rn(sk[e], __dmul_rn(cur.av[e], xj));
          for (int t = E * W + lane; t < cur.len; t += W) { /* rows with more entries */
            const int k2 = v.c[cur.b + t];
            v.s[k2] = __dsub_rn(v.s[k2], __dmul_rn(v.v[cur.b + t], xj));
          }
          if (lane == 0) {
            v.x[k] = xj;
            /* the sum kept for from_t (global: v.s is tp); here, not in step 3,
             * where it took the W < 8 kernels from 32 to 40 registers */
            if (Staged && pio.store_t) a.tp[base + k] = v.s[k];
          }
        }
        __syncwarp();
      };
      Row w0, w1;
      offsets(0);
      load(w0);
      offsets(1);
      for (int r = 0; r < nr_max; r += 2) {
        step(w0, w1, r);
        if (r + 1 < nr_max) step(w1, w0, r + 1);
      }
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

/* The end of the tile of a streamed cluster pass that starts at position ta
 * (positions in pass order: row k = ta forward, nr - 1 - ta backward): the
 * most rows whose chains, contiguous in either direction, hold at most
 * `tile` entries (at least one row: the setup makes a tile hold the longest
 * chain). p: the rows' chain offsets, nondecreasing. */
__device__ __forceinline__ int tile_end(const int32_t *p, int nr, int ta, int tile, bool backward) {
  int lo = ta + 1, hi = nr; /* the largest tb in [lo, hi] that fits */
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    const int32_t ent = backward ? p[nr - ta] - p[nr - mid] : p[mid] - p[ta];
    if (ent <= tile)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* The chain entries of positions [ta, tb) (tile_end), first and last + 1 */
__device__ __forceinline__ int2 tile_entries(const int32_t *p, int nr, int ta, int tb,
                                             bool backward) {
  return backward ? make_int2(p[nr - tb], p[nr - ta]) : make_int2(p[ta], p[tb]);
}

/* The fixed part of each row's sum (sweep_clusters' step 1) for rows
 * r0 .. r1-1 of a color into tp, SW lanes a row over the whole grid: the
 * streamed pass's first launch, since one block a cluster of hundreds of
 * rows of hundreds of entries would form them a few rows at a time; and,
 * three (the backward order's three runs, gs_row_update.h), before every
 * kind of cluster pass of a backward pass not after a forward one from
 * x = 0. */
template <int SW>
__global__ void __launch_bounds__(kBlock)
    cluster_fixed_sums(int64_t r0, int64_t r1, bool three, ClusterArrays a, PassIO pio) {
  const int lane = threadIdx.x & (SW - 1);
  const unsigned mask = mispc_group_mask<SW>();
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / SW;
  for (int64_t i = r0 + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / SW; i < r1;
       i += ngroups) {
    double sum;
    if (three) { /* a backward pass: outside of earlier colors, earlier rows, the rest */
      sum = row_chain<SW>(a.bp[i], a.pmid[i], a.pout[i], a.pcol, a.pval, a.xp, lane, mask, pio.klo,
                          pio.khi);
      sum = row_chain<SW>(sum, a.prow[i], a.pmid[i], a.pcol, a.pval, a.xp, lane, mask, pio.klo,
                          pio.khi);
      sum = row_chain<SW>(sum, a.pout[i], a.pup[i], a.pcol, a.pval, a.xp, lane, mask, pio.klo,
                          pio.khi);
    } else {
      sum = cluster_fixed_sum<SW>(a, pio, i, lane, mask);
    }
    if (lane == 0) a.tp[i] = sum;
  }
}

/* One row's chain as warp 0 of sweep_clusters_streamed holds it: up to
 * E entries a lane (lane + 32 e), their rows (-1 past the end) and
 * values, loaded from a tile before the row's turn. kStreamE: H100,
 * Elasticity3D_40's third level (chains of 57 entries a row on average),
 * SGS ms with E = 2 / 4 / 8: 1.54 / 1.55 / 1.65 (2026-11-26), so 4, for
 * longer chains than that level's. */
constexpr int kStreamE = 4;
template <int E> struct StreamRow {
  int k, b, len; /* the row, its chain's first entry in the tile, its length */
  int kk[E];
  double av[E];
};

/* Row k's chain entries into w, its first entry b and length len known
 * (read a row earlier: the entries' loads then wait on nothing). */
template <int E>
__device__ __forceinline__ void stream_row_load(StreamRow<E> &w, int k, int b, int len,
                                                const uint16_t *c, const double *v, int lane) {
  w.k = k, w.b = b, w.len = len;
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const int t = lane + 32 * e;
    w.kk[e] = t < w.len ? c[w.b + t] : -1;
    w.av[e] = t < w.len ? v[w.b + t] : 0.0;
  }
}

/* Cluster GS for one color whose clusters' chains do not fit in shared
 * memory (dense coarse levels of an AMG hierarchy: Elasticity3D_40's
 * third level has clusters of up to 450 rows of 232 entries, chains of
 * tens of thousands of entries), after cluster_fixed_sums. In
 * GS_CHAIN_GLOBAL every step of a chain waits on global memory (about
 * 1 us a row there); here a block takes one cluster and keeps its rows'
 * sums, x and omega / a_ii in shared memory, as sweep_clusters' staged
 * blocks do, while its chains stream through two tiles of `tile` entries:
 * warp 0 runs the chains of one tile (a row after another, the same pushes
 * in the same order as sweep_clusters, so x is the host's bit for bit)
 * while the other warps load the next tile, a barrier between tiles. Warp
 * 0 holds a row's chain in registers (StreamRow), loaded while the row
 * before it runs, so a row waits on shared memory only for the sums. */
template <int E>
__global__ void __launch_bounds__(kBlock)
    sweep_clusters_streamed(int64_t lo, int tile, bool backward, ClusterArrays a, PassIO pio) {
  const int64_t q = lo + blockIdx.x;
  const int64_t r0 = a.pcl[q], r1 = a.pcl[q + 1], c0 = a.cptr[r0];
  const int nr = (int)(r1 - r0);
  extern __shared__ double smem[];
  double *s = smem, *x = s + nr, *d = x + nr, *tv = d + nr;
  int32_t *p = (int32_t *)(tv + 2 * (int64_t)tile);
  uint16_t *tc = (uint16_t *)(p + nr + 1);
  for (int k = threadIdx.x; k < nr; k += kBlock) { /* the rows, staged */
    s[k] = a.tp[r0 + k];
    x[k] = a.xp[r0 + k];
    d[k] = a.pwdiag[r0 + k];
    p[k] = (int32_t)(a.cptr[r0 + k] - c0);
  }
  if (threadIdx.x == 0) p[nr] = (int32_t)(a.cptr[r1] - c0);
  __syncthreads();
  /* loads the entries of positions [ta, tb) into tile buffer `buf`, threads
   * t0, t0 + 1, ... of the block, 4 loads of each array in flight a thread */
  const auto load_tile = [&](int ta, int tb, int buf, int t0) {
    const int2 ent = tile_entries(p, nr, ta, tb, backward);
    uint16_t *c = tc + (int64_t)buf * tile;
    double *v = tv + (int64_t)buf * tile;
    const int step = kBlock - t0;
#pragma unroll 4
    for (int t = ent.x + (int)threadIdx.x - t0; t < ent.y; t += step) {
      c[t - ent.x] = (uint16_t)(a.ccol[c0 + t] - (int32_t)r0);
      v[t - ent.x] = a.cval[c0 + t];
    }
  };
  int ta = 0, tb = nr > 0 ? tile_end(p, nr, 0, tile, backward) : 0;
  if (nr > 0) load_tile(0, tb, 0, 0);
  __syncthreads();
  const int lane = threadIdx.x & 31;
  for (int buf = 0; ta < nr; buf ^= 1) {
    const int nb = tb < nr ? tile_end(p, nr, tb, tile, backward) : nr;
    if (threadIdx.x < 32) { /* the chains of this tile */
      const int e0 = tile_entries(p, nr, ta, tb, backward).x;
      const uint16_t *c = tc + (int64_t)buf * tile;
      const double *v = tv + (int64_t)buf * tile;
      /* row r from cur, while row r + 1's entries load into nxt and row
       * r + 2's offsets into (kn, bn, ln); two rows an iteration, the two
       * sets swapping roles (no copies, which would wait for the loads) */
      const auto row_at = [&](int r) { return backward ? nr - 1 - r : r; };
      int kn = 0, bn = 0, ln = 0; /* the offsets of the row after the next */
      const auto offsets = [&](int r) {
        if (r < tb) kn = row_at(r), bn = p[kn] - e0, ln = p[kn + 1] - p[kn];
      };
      const auto step = [&](const StreamRow<E> &cur, StreamRow<E> &nxt, int r) {
        if (r + 1 < tb) {
          stream_row_load(nxt, kn, bn, ln, c, v, lane);
          offsets(r + 2);
        }
        double sk[E];
#pragma unroll
        for (int e = 0; e < E; ++e) sk[e] = cur.kk[e] >= 0 ? s[cur.kk[e]] : 0.0;
        const double xj = __dadd_rn(x[cur.k], __dmul_rn(s[cur.k], d[cur.k]));
#pragma unroll
        for (int e = 0; e < E; ++e)
          if (cur.kk[e] >= 0) s[cur.kk[e]] = __dsub_rn(sk[e], __dmul_rn(cur.av[e], xj));
        for (int t = E * 32 + lane; t < cur.len; t += 32) { /* rows with more */
          const int k2 = c[cur.b + t];
          s[k2] = __dsub_rn(s[k2], __dmul_rn(v[cur.b + t], xj));
        }
        if (lane == 0) x[cur.k] = xj;
        __syncwarp();
      };
      StreamRow<E> w0, w1;
      offsets(ta);
      stream_row_load(w0, kn, bn, ln, c, v, lane);
      offsets(ta + 1);
      for (int r = ta; r < tb; r += 2) {
        step(w0, w1, r);
        if (r + 1 < tb) step(w1, w0, r + 1);
      }
    } else if (tb < nr) {
      load_tile(tb, nb, buf ^ 1, 32);
    }
    __syncthreads();
    ta = tb, tb = nb;
  }
  double *x_out = pio.x_out ? pio.io.get_x() : NULL;
  for (int k = threadIdx.x; k < nr; k += kBlock) { /* x out (and the sums kept) */
    a.xp[r0 + k] = x[k];
    if (pio.store_t) a.tp[r0 + k] = s[k];
    if (x_out) x_out[pio.perm[r0 + k]] = x[k];
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
} // namespace

/* f(integral_constant<int, w>) for the lanes lanes_for_row_sums gives
 * (2, 4 or 8): fewer instances of the cluster kernel than mispc_with_lanes. */
template <typename F> static auto with_sum_lanes(int w, F &&f) {
  return w <= 2   ? f(std::integral_constant<int, 2>{})
         : w == 4 ? f(std::integral_constant<int, 4>{})
                  : f(std::integral_constant<int, 8>{});
}

/* Lets the staged sweep_clusters (or sweep_clusters_streamed) of this handle have its shared memory
 * (above the default 48 KiB only for single clusters that need it). */
template <int W> static mispc_status cluster_allow_smem(mispc_context *ctx, const mispc_gs *gs) {
  if (gs->smem_block <= (int)kDefaultSmem) return MISPC_SUCCESS;
  const auto allow = [&](const void *kernel) {
    MISPC_CUDA_TRY(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             gs->smem_block));
    return MISPC_SUCCESS;
  };
  if (gs->cluster_mode == GS_CHAIN_STREAM)
    return allow((const void *)sweep_clusters_streamed<kStreamE>);
  return with_sum_lanes(gs->sum_lanes, [&](auto lanes) {
    return allow((const void *)sweep_clusters<W, decltype(lanes)::value, true>);
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
    pio.backward = backward;
    sweep_points<W><<<mispc_device_grid(ctx, (long long)W * (hi - lo), kBlock), kBlock, 0, s>>>(
        lo, hi, gs->prow, gs->pout, gs->pcol, gs->pval, gs->pwdiag, gs->bp, gs->tp, gs->xp, pio);
    return;
  }
  const int64_t rlo = gs->color_rows[c], rhi = gs->color_rows[c + 1];
  if (zero_x) { /* x = 0 but for the colors this pass has updated */
    pio.klo = (int32_t)(backward ? rhi : 0);
    pio.khi = (int32_t)(backward ? gs->n : rlo);
  }
  ClusterArrays a = {gs->pcl,  gs->prow, gs->pmid, gs->pout,  gs->pup,
                     gs->pcol, gs->pval, gs->bp,   gs->pwdiag};
  a.cptr = backward ? gs->bptr : gs->fptr;
  a.ccol = backward ? gs->bcol : gs->fcol;
  a.cval = backward ? gs->bval : gs->fval;
  a.tp = gs->tp, a.xp = gs->xp;
  /* the fixed sums' run (cluster_fixed_sum) */
  const bool three = backward && !pio.from_t; /* the backward order's three runs first */
  if (!backward)
    a.s0 = gs->bp, a.sb = gs->pmid, a.se = zero_x ? gs->pout : gs->prow + 1;
  else if (pio.from_t)
    a.s0 = gs->tp, a.sb = gs->pout, a.se = gs->pup;
  else
    a.s0 = gs->tp, a.sb = gs->pup, a.se = gs->pup;
  const int cb = gs->block_clusters;
  const unsigned grid = (unsigned)((hi - lo + cb - 1) / cb);
  const bool staged = gs->cluster_mode != GS_CHAIN_GLOBAL;
  /* streamed levels have long rows (hundreds of entries): a warp a row
   * keeps a row's loads in flight at once (8 lanes took 16 dependent
   * steps a row of 232 entries: 20 us a color, ncu, H100) */
  constexpr int LW = 32;
  if (gs->cluster_mode == GS_CHAIN_STREAM)
    cluster_fixed_sums<LW>
        <<<mispc_device_grid(ctx, (long long)LW * (rhi - rlo), kBlock), kBlock, 0, s>>>(
            rlo, rhi, three, a, pio);
  else if (three) /* the rows' sums lanes, as the sweep's own step would */
    with_sum_lanes(gs->sum_lanes, [&](auto lanes) {
      constexpr int SW = decltype(lanes)::value;
      cluster_fixed_sums<SW>
          <<<mispc_device_grid(ctx, (long long)SW * (rhi - rlo), kBlock), kBlock, 0, s>>>(
              rlo, rhi, true, a, pio);
      return 0;
    });
  if (gs->cluster_mode == GS_CHAIN_STREAM) { /* the sums, then a block a cluster */
    sweep_clusters_streamed<kStreamE>
        <<<(unsigned)(hi - lo), kBlock, gs->smem_block, s>>>(lo, gs->chain_tile, backward, a, pio);
    return;
  }
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
  if (gs_exact(gs)) { /* a launch a color and pass; the last pass writes x */
    for (int k = 0; k < passes; ++k) {
      const bool backward = gs->opt.sweep == MISPC_GS_BACKWARD || (per_sweep == 2 && k % 2 == 1);
      /* after a pass the other way, the first color's clusters would give
       * what they gave last (gs_exact_sweep_host): skipped, so the pass
       * before the last writes x too (the skipped clusters' values) */
      const bool x_out = k == passes - 1 || (per_sweep == 2 && k == passes - 2);
      for (int32_t j = per_sweep == 2 && k > 0 ? 1 : 0; j < gs->ncolors; ++j)
        gs_exact_launch_color(ctx, gs, s, backward ? gs->ncolors - 1 - j : j,
                              x_out ? rest : ApplyIO{NULL, NULL, NULL, NULL});
    }
    return MISPC_SUCCESS;
  }
  /* from x = 0, symmetric: the backward pass goes on from the forward
   * one's sums (gs_row_update.h: gs_update_row, point GS, which needs no
   * b then; gs_update_cluster_row) */
  const bool resume = zero_guess && per_sweep == 2;
  for (int k = 0; k < passes; ++k) {
    const bool backward = gs->opt.sweep == MISPC_GS_BACKWARD || (per_sweep == 2 && k % 2 == 1);
    PassIO pio = {gs->perm,
                  rest,
                  false,
                  passes > (resume && !gathers(gs, zero_guess) ? 2 : 1),
                  k == passes - 1,
                  0,
                  (int32_t)gs->ncols};
    pio.first_b = k == 0 && !gathers(gs, zero_guess);
    pio.store_t = resume && k == 0;
    pio.from_t = resume && k == 1;
    for (int32_t j = 0; j < gs->ncolors; ++j) {
      const int32_t c = backward ? gs->ncolors - 1 - j : j;
      if (gs->color_ptr[c + 1] <= gs->color_ptr[c]) continue;
      pio.io = io_next();
      launch_color<W>(ctx, gs, s, c, backward, zero_guess && k == 0, pio);
    }
  }
  return MISPC_SUCCESS;
}

mispc_status gs_enqueue_apply(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s,
                              const double *b, double *x, int zero_guess, Part part) {
  return mispc_with_lanes(gs->lanes, [&](auto w) {
    return enqueue_apply<decltype(w)::value>(ctx, gs, s, b, x, zero_guess, part);
  });
}

mispc_status gs_gather_cuda(mispc_context *ctx, const mispc_gs *gs, const double *b,
                            const double *x) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (gs->n == 0) return MISPC_SUCCESS;
  if (gs->opt.kind == MISPC_GS_CLUSTER)
    MISPC_TRY(mispc_with_lanes(
        gs->lanes, [&](auto w) { return cluster_allow_smem<decltype(w)::value>(ctx, gs); }));
  const ApplyIO io = {b, (double *)x, NULL, NULL};
  gather_vectors<<<mispc_device_grid(ctx, gs->n, kBlock), kBlock, 0, s>>>(
      gs->n, gs->perm, io, x == NULL, gs->bp, gs->xp);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return MISPC_SUCCESS;
}

mispc_status gs_sweep_color_cuda(mispc_context *ctx, const mispc_gs *gs, int32_t c, int backward,
                                 double *x_rows) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (gs->color_ptr[c + 1] <= gs->color_ptr[c]) return MISPC_SUCCESS;
  if (gs_exact(gs)) return gs_exact_sweep_color_cuda(ctx, gs, c, backward, x_rows);
  /* every column readable (the ghosts' too), x written in row order */
  const PassIO pio = {gs->perm, {NULL, x_rows, NULL, NULL}, false, false, true,
                      0,        (int32_t)gs->ncols};
  mispc_with_lanes(gs->lanes, [&](auto w) {
    launch_color<decltype(w)::value>(ctx, gs, s, c, backward != 0, false, pio);
    return 0;
  });
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return MISPC_SUCCESS;
}

/* The number of parameters of a kernel (the graph node's argument array) */
template <typename... A> constexpr int kernel_arity(void (*)(A...)) {
  return sizeof...(A);
}

/* Points the graph's first launch (gather_vectors, or the first color of a
 * point sweep from x = 0) at b and x: its ApplyIO argument is replaced. */
mispc_status gs_set_root_vectors(mispc_context *ctx, mispc_gs *gs, int k, const double *b,
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
  } else { /* sweep_points(lo, hi, prow, pout, pcol, pval, pwdiag, bp, tp, xp, pio): pio last */
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
