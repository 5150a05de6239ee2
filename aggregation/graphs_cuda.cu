/* Strength graph and coarse (quotient) graph on the GPU. The strength graph
 * of a matrix with sorted rows is filtered per node row and symmetrized by
 * merging in only the entries its transpose adds (strength_by_filter), with
 * no global sort; otherwise, and for the coarse graph, the rows emit (row,
 * col) keys, a row's repeats dropped and the keys packed, and
 * mispc_csr_from_keys_cuda sorts and deduplicates them. Either way the output
 * is the same sorted pattern the host builds. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cub/device/device_scan.cuh>
#include <cub/warp/warp_scan.cuh>
#include <type_traits>

#include "agg_backend.h"
#include "csr_build.h"
#include "cuda_util.cuh"

namespace {

constexpr int kBlock = 256;
constexpr int32_t kNone = INT32_MAX; /* no next entry */

/* (row, col) as row << cb | col, cb = bits_for(number of columns): the sort
 * then covers bits_for(rows) + cb bits, not 32 + bits_for(rows) (Laplace3D_100's
 * cluster graph: 5 radix passes instead of 7). */
__device__ __forceinline__ uint64_t key(int64_t r, int64_t c, int cb) {
  return ((uint64_t)r << cb) | (uint64_t)c;
}

/* Whether a row's offsets are usable (the fused index check, below). */
__device__ __forceinline__ bool row_ok(int64_t b, int64_t e, int64_t nnz) {
  return b >= 0 && b <= e && e <= nnz;
}

__global__ void diagonal(int64_t n, int64_t nnz, const int64_t *rowptr, const int32_t *colidx,
                         const double *val, double *diag) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    double d = 0;
    const int64_t b = rowptr[i], e = rowptr[i + 1];
    if (row_ok(b, e, nnz)) /* else the first pass below reports the matrix */
      for (int64_t p = b; p < e; ++p)
        if (colidx[p] == i) d += val[p]; /* duplicates summed, as the host does */
    diag[i] = d;
  }
}

/* mispc_csr_check's index check (MISPC_CHECK_INDICES on a square A: row
 * offsets monotone inside [0, nnz] from 0 to nnz, columns in [0, n)) done by
 * the first pass over A of the strength graph's fast paths instead of a
 * pass of its own (that pass re-read every column: about 0.1 ms of
 * Elasticity3D_60's 0.55, H100). Rows and entries that fail are not used;
 * *flags gets `bit`, and the caller asks mispc_csr_check for the message. */
struct IndexCheck {
  int64_t n, nnz;
  unsigned long long *flags, bit;
  __device__ __forceinline__ bool row(int64_t b, int64_t e) const {
    return row_ok(b, e, nnz);
  }
  __device__ __forceinline__ bool col(int32_t j) const {
    return j >= 0 && j < n;
  }
  /* the ends of the offsets (one thread of the grid), then any failure seen */
  __device__ __forceinline__ void ends(const int64_t *rowptr) const {
    if (blockIdx.x == 0 && threadIdx.x == 0 && (rowptr[0] != 0 || rowptr[n] != nnz)) fail();
  }
  __device__ __forceinline__ void fail() const {
    atomicOr(flags, bit);
  }
};

int bits_for(int64_t x) {
  int b = 1;
  while (b < 32 && (1ll << b) <= x) ++b;
  return b;
}

/* The last kRecent distinct values one thread met in a row. A row's keys
 * repeat (each neighbouring node or aggregate comes once per entry), and
 * dropping the repeats before the sort shortens it several times over;
 * the sort still removes the repeats this window misses, so the graph does
 * not depend on kRecent. Values are >= 0; -1 marks an empty slot. */
constexpr int kRecent = 8;
struct Recent {
  int32_t v[kRecent];
  __device__ Recent() {
#pragma unroll
    for (int k = 0; k < kRecent; ++k) v[k] = -1;
  }
  __device__ bool fresh(int32_t x) {
    bool seen = false;
#pragma unroll
    for (int k = 0; k < kRecent; ++k) seen |= v[k] == x;
    if (!seen) {
#pragma unroll
      for (int k = kRecent - 1; k > 0; --k) v[k] = v[k - 1];
      v[0] = x;
    }
    return !seen;
  }
};

/* Strength graph keys: row i belongs to node I = i / bs (its owner); a
 * strong off-node entry (i, j) targets node J = j / bs and gives the keys
 * (I, J) and (J, I). */
struct StrengthRow {
  const int64_t *rowptr;
  const int32_t *colidx;
  const double *val, *diag;
  double theta;
  int bs;
  int cb; /* bits of a column in a key */
  __device__ int32_t owner(int64_t i) const {
    return (int32_t)(i / bs);
  }
  /* Without values (or theta = 0) a row is strong to every other node it
   * reaches, so a row whose entries name the nodes of its node's first row,
   * entry for entry, adds no key (same_nodes_as_first; block matrices: bs
   * times fewer keys to sort, which the sort would remove anyway). */
  const uint8_t *skip_row; /* NULL: every row gives its keys */
  __device__ bool skip(int64_t i) const {
    return skip_row && skip_row[i];
  }
  __device__ int32_t target(int64_t i, int32_t I, int64_t p) const {
    const int64_t j = colidx[p];
    const int32_t J = (int32_t)(j / bs);
    bool strong = I != J;
    if (strong && val && theta > 0) strong = fabs(val[p]) > theta * sqrt(fabs(diag[i] * diag[j]));
    return strong ? J : -1;
  }
  template <typename Out> __device__ void emit(int32_t I, int32_t J, Out &out) const {
    out(key(I, J, cb));
    out(key(J, I, cb));
  }
};

/* skip[i] = 1 where row i (not the first of its node of bs rows) has as many
 * entries as the node's first row f and col / bs equal entry for entry (a
 * group of W lanes a row, coalesced). */
template <int W>
__global__ void same_nodes_as_first(int64_t n, int bs, MispcFastDiv div, const int64_t *rowptr,
                                    const int32_t *colidx, uint8_t *skip) {
  mispc_for_each_row<W>(n, [&](int64_t i, int sl, unsigned gm) {
    const int64_t f = i - i % bs, b = rowptr[i], len = rowptr[i + 1] - b, r = rowptr[f];
    bool same = i != f && len == rowptr[f + 1] - r;
    for (int64_t k = sl; same && k < len; k += W) same = div(colidx[b + k]) == div(colidx[r + k]);
    same = (__ballot_sync(gm, !same) & gm) == 0;
    if (sl == 0) skip[i] = same;
  });
}

/* The strength graph without a sort, where it is the nodes of the first rows:
 * without values (or theta = 0) and with every other row of each node naming
 * the same nodes (as same_nodes_as_first asks, checked here in the counting
 * pass), node I is joined to the nodes J != I of row I * bs, which a sorted
 * row gives in order with repeats adjacent.
 * Counts (Write = false; *uneven set where a node's other row differs), then
 * the columns at ptr[I] (Write = true), a group of W lanes a node, a ballot
 * placing each kept entry. Whether the result is the symmetric graph the
 * definition asks for (rows sorted, A's pattern symmetric) is checked
 * afterwards; where not, the keys and the sort build it. */
template <int W, bool Write>
__global__ void node_rows(int64_t nnodes, int bs, MispcFastDiv div, const int64_t *rowptr,
                          const int32_t *colidx, int64_t *count_or_ptr, int32_t *out,
                          IndexCheck chk) {
  const unsigned below = (1u << (threadIdx.x & 31)) - 1u;
  if (!Write) chk.ends(rowptr);
  mispc_for_each_row<W>(nnodes, [&](int64_t I, int sl, unsigned gm) {
    const int64_t f = I * bs;
    int64_t b = rowptr[f], e = rowptr[f + 1];
    if (!Write) { /* rows f + 1 .. f + bs - 1 name the nodes of row f, entry for entry */
      bool ok = chk.row(b, e), same = true;
      for (int r = 1; r < bs && same && ok; ++r) {
        const int64_t rb = rowptr[f + r], rl = rowptr[f + r + 1] - rb;
        ok = chk.row(rb, rb + rl);
        same = ok && rl == e - b;
        for (int64_t k = sl; same && k < rl; k += W) {
          const int32_t j = colidx[rb + k];
          ok = ok && chk.col(j);
          same = ok && div(j) == div(colidx[b + k]);
        }
        ok = (__ballot_sync(gm, !ok) & gm) == 0;
        same = (__ballot_sync(gm, !same) & gm) == 0; /* the same in every lane */
      }
      if (!ok) {
        if (sl == 0) chk.fail();
        b = e = 0; /* nothing read (the caller stops) */
      } else if (!same && sl == 0) {
        atomicOr(chk.flags, 1ull); /* uneven */
      }
    }
    int64_t at = Write ? count_or_ptr[I] : 0;
    bool bad = false;
    for (int64_t p0 = b; p0 < e; p0 += W) {
      const int64_t p = p0 + sl;
      int32_t J = -1;
      bool keep = false;
      if (p < e) {
        const int32_t j = colidx[p];
        bad = bad || (!Write && !chk.col(j));
        J = div(j);
        keep = J != I && (p == b || div(colidx[p - 1]) != J);
      }
      const unsigned m = __ballot_sync(gm, keep) & gm;
      if (Write && keep) out[at + __popc(m & below)] = J;
      at += __popc(m);
    }
    if (!Write && (__ballot_sync(gm, bad) & gm) && sl == 0) chk.fail();
    if (!Write && sl == 0) count_or_ptr[I] = at;
  });
}

/* The fast path above; *built = 0 where it does not apply (S untouched). */
mispc_status strength_by_first_rows(mispc_context *ctx, cudaStream_t s, const mispc_csr *A, int bs,
                                    mispc_csr *S, int *built, int *invalid) {
  *built = 0;
  const int64_t nn = A->nrows / bs;
  double t = mispc_wtime();
  int64_t *count = NULL;
  void *temp = NULL;
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(NULL, bytes, count, count, nn + 1, s);
  MISPC_TRY(mispc_scratch_alloc(ctx, sizeof(int64_t) * ((size_t)nn + 2) + bytes + 16,
                                (void **)&count, "node row counts"));
  /* flags: 1 a node's rows differ, 2 the index check failed */
  const IndexCheck chk = {A->nrows, A->nnz, (unsigned long long *)(count + nn + 1), 2};
  temp = (void *)(count + nn + 2);
  cudaMemsetAsync(count + nn, 0, 16, s); /* the last count and the flags */
  const int lanes = mispc_lanes_for_rows(A);
  const unsigned grid = mispc_device_grid(ctx, (long long)nn * lanes, kBlock);
  mispc_with_lanes(lanes, [&](auto w) {
    node_rows<decltype(w)::value, false>
        <<<grid, kBlock, 0, s>>>(nn, bs, MispcFastDiv(bs), A->rowptr, A->colidx, count, NULL, chk);
    return 0;
  });
  cub::DeviceScan::ExclusiveSum(temp, bytes, count, count, nn + 1, s);
  int64_t head[2] = {0, 0}; /* nnz, then the flag word */
  cudaMemcpyAsync(head, count + nn, 16, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "strength graph (node rows)");
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "strength: node rows counted");
  mispc_csr G;
  *invalid = !st && (head[1] & 2);
  const bool use = !st && !head[1];
  if (use) st = mispc_csr_alloc(ctx, MISPC_MEM_DEVICE, nn, nn, head[0], 0, &G);
  if (use && !st) {
    cudaMemcpyAsync(G.rowptr, count, sizeof(int64_t) * ((size_t)nn + 1), cudaMemcpyDeviceToDevice,
                    s);
    mispc_with_lanes(lanes, [&](auto w) {
      node_rows<decltype(w)::value, true><<<grid, kBlock, 0, s>>>(
          nn, bs, MispcFastDiv(bs), A->rowptr, A->colidx, count, G.colidx, chk);
      return 0;
    });
    st = mispc_sync(ctx, s, "strength graph (node rows)");
    mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "strength: node rows written");
    /* sorted, no repeats, symmetric, no self loops: the graph the keys give */
    const mispc_status chk =
        st ? st : mispc_csr_check(ctx, &G, MISPC_CHECK_GRAPH | MISPC_CHECK_NO_SELF_LOOPS);
    mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "strength: graph checked");
    if (!st && chk == 0) {
      *S = G;
      *built = 1;
    } else if (!st) {
      mispc_csr_free(ctx, &G);
    }
  }
  mispc_scratch_free(ctx, count);
  return st;
}

/* The strength graph by a filter per node row, without a global sort:
 *  1. D, the directed node pattern (node I -> the distinct J != I with a
 *     strong entry in block (I, J)), written sorted into a buffer laid out
 *     as A (node I's row at A->rowptr[I * bs], no wider than its entries):
 *     sorted rows give each row's strong columns in order, repeats adjacent;
 *     nodes of bs > 1 rows merge their rows' lists. The same pass flags an
 *     unsorted row (the caller then builds the graph from sorted keys).
 *  2. Orphans: entries (I, J) of D whose (J, I) is not in D (a binary search
 *     each). A symmetric matrix has none, and then S = D.
 *  3. Otherwise the orphans, ordered by (J, I) (a stable sort of only those),
 *     are the rows E of D^T - D, and S = D + E, disjoint sorted lists merged
 *     per row (each entry placed by a binary search in the other list).
 * The strong test is the host's expression, so the graph is the host's. */
struct Strong {
  const double *val, *diag; /* val NULL: every entry is strong */
  double theta;
  __device__ __forceinline__ bool operator()(int64_t i, int64_t p, int32_t j) const {
    return !val || fabs(val[p]) > theta * sqrt(fabs(diag[i] * diag[j]));
  }
};

/* D for bs = 1: a group of W lanes a row, coalesced; an entry is kept when
 * strong, off the diagonal and not the column of the row's previous strong
 * entry (in this chunk of W, else `last` carried over). */
template <int W>
__global__ void point_rows(int64_t n, const int64_t *rowptr, const int32_t *colidx, Strong strong,
                           int32_t *buf, int64_t *cnt, unsigned long long *unsorted,
                           IndexCheck chk) {
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1u;
  chk.ends(rowptr);
  mispc_for_each_row<W>(n, [&](int64_t i, int sl, unsigned gm) {
    int64_t b = rowptr[i], e = rowptr[i + 1];
    bool invalid = !chk.row(b, e);
    if (invalid) b = e = 0;
    int32_t last = -1, k = 0;
    bool bad = false;
    for (int64_t p0 = b; p0 < e; p0 += W) {
      const int64_t p = p0 + sl;
      int32_t j = -1;
      bool s = false;
      if (p < e) {
        j = colidx[p];
        bad = bad || (p > b && colidx[p - 1] > j);
        const bool in = chk.col(j);
        invalid = invalid || !in;
        s = in && j != i && strong(i, p, j);
      }
      const unsigned m = __ballot_sync(gm, s) & gm, lower = m & below;
      const int32_t pj = __shfl_sync(gm, j, lower ? 31 - __clz(lower) : lane);
      const bool keep = s && (lower ? pj : last) != j;
      const unsigned km = __ballot_sync(gm, keep) & gm;
      if (keep) buf[b + k + __popc(km & below)] = j;
      k += __popc(km);
      if (m) last = __shfl_sync(gm, j, 31 - __clz(m));
    }
    bad = (__ballot_sync(gm, bad) & gm) != 0;
    invalid = (__ballot_sync(gm, invalid) & gm) != 0;
    if (sl == 0) {
      cnt[i] = k;
      if (bad) atomicOr(unsorted, 1ull);
      if (invalid) chk.fail();
    }
  });
}

/* D for 1 < bs <= G: a group of G lanes a node, lane r walking row I*bs + r
 * with its next kept node (head, above the last one given out); the group's
 * smallest head is the node row's next entry (a bs-way merge), and the lanes
 * holding it move on. Every entry is visited once, in order. */
template <int G>
__global__ void node_merge(int64_t nn, int bs, MispcFastDiv div, const int64_t *rowptr,
                           const int32_t *colidx, Strong strong, int32_t *buf, int64_t *cnt,
                           unsigned long long *unsorted, IndexCheck chk) {
  chk.ends(rowptr);
  mispc_for_each_row<G>(nn, [&](int64_t I, int sl, unsigned gm) {
    const bool mine = sl < bs;
    const int64_t i = I * bs + (mine ? sl : 0);
    int64_t e = mine ? rowptr[i + 1] : 0, p = mine ? rowptr[i] : 0;
    /* a node with a row that fails is not read at all (its D row lies in
     * the node's rows' span of A) */
    bool invalid = (__ballot_sync(gm, mine && !chk.row(p, e)) & gm) != 0;
    if (invalid) p = e = 0;
    int32_t prev = -1;
    bool bad = false;
    auto next = [&](int32_t after) {
      for (; p < e; ++p) {
        const int32_t j = colidx[p];
        if (!chk.col(j)) {
          invalid = true;
          continue;
        }
        const int32_t J = div(j);
        bad = bad || j < prev;
        prev = j;
        if (J > after && J != I && strong(i, p, j)) return J;
      }
      return kNone;
    };
    int32_t head = next(-1), k = 0;
    int32_t *out = buf + rowptr[I * bs];
    for (;;) {
      int32_t m = head;
#pragma unroll
      for (int o = G / 2; o; o >>= 1) m = min(m, __shfl_xor_sync(gm, m, o));
      if (m == kNone) break;
      if (sl == 0) out[k] = m;
      ++k;
      if (head == m) head = next(m);
    }
    bad = (__ballot_sync(gm, bad) & gm) != 0;
    invalid = (__ballot_sync(gm, invalid) & gm) != 0;
    if (sl == 0) {
      cnt[I] = k;
      if (bad) atomicOr(unsorted, 1ull);
      if (invalid) chk.fail();
    }
  });
}

/* D's rows: node I's at buf + rowptr[I * bs], dptr[I + 1] - dptr[I] long. */
struct DRows {
  const int32_t *buf;
  const int64_t *rowptr, *dptr;
  int bs;
  __device__ __forceinline__ const int32_t *row(int64_t I) const {
    return buf + rowptr[I * bs];
  }
  __device__ __forceinline__ int len(int64_t I) const {
    return (int)(dptr[I + 1] - dptr[I]);
  }
  /* (I, J) in D without (J, I) */
  __device__ __forceinline__ bool orphan(int64_t I, int32_t J) const {
    const int32_t *r = row(J);
    const int l = len(J), q = mispc_lower_bound32(r, l, (int32_t)I);
    return q == l || r[q] != I;
  }
};

/* Rows of D longer than this (hubs) have their orphans counted by the
 * whole grid (count_orphans_long), not by a group of W lanes: each entry's
 * test is a binary search of dependent loads, and one group walked
 * gen:kron:21's rows of up to 102,877 entries in 22 of the strength graph's
 * 27 ms (H200, 2026-12-01). */
constexpr int kOrphanLongRow = 2048;

/* Whether entry (I, J) of D counts in the pass: Pairs, the first pass,
 * counts the entries above the diagonal whose mirror is in D (m of them:
 * D has nnz(D) - 2m orphans, none in a symmetric pattern, the common case,
 * which then costs half the searches); the second pass, run only where
 * there are orphans, counts them row by row. */
template <bool Pairs> __device__ __forceinline__ bool counts(const DRows &d, int64_t I, int32_t J) {
  if (Pairs) return J > I && !d.orphan(I, J);
  return d.orphan(I, J);
}

/* *total += the entries the pass counts (one atomic a block); the second
 * pass writes each row's, ocnt[I]. Rows over kOrphanLongRow entries are left
 * to count_orphans_long: the first pass lists them in long_rows (their
 * count at *nlong), the second sets their ocnt[I] = 0. */
template <int W, bool Pairs>
__global__ void __launch_bounds__(kBlock)
    count_orphans(int64_t nn, DRows d, int64_t *ocnt, unsigned long long *total, int64_t *long_rows,
                  unsigned long long *nlong) {
  unsigned long long all = 0;
  mispc_for_each_row<W>(nn, [&](int64_t I, int sl, unsigned gm) {
    const int32_t *r = d.row(I);
    const int len = d.len(I);
    if (len > kOrphanLongRow) { /* the same for the group's lanes */
      if (sl == 0 && Pairs) long_rows[atomicAdd(nlong, 1ull)] = I;
      if (sl == 0 && !Pairs) ocnt[I] = 0;
      return;
    }
    int o = 0;
    for (int k = sl; k < len; k += W) o += counts<Pairs>(d, I, r[k]);
    all += (unsigned long long)o;
    if constexpr (!Pairs) {
#pragma unroll
      for (int off = W / 2; off; off >>= 1) o += __shfl_xor_sync(gm, o, off);
      if (sl == 0) ocnt[I] = o;
    }
  });
  mispc_block_add<kBlock>(all, total);
}

/* Entries of a long row a block counts at once (count_orphans_long). */
constexpr int kOrphanChunk = 1024;

/* coff[t] = the chunks of listed long row t (0 past the list), for the
 * exclusive scan that numbers them. */
__global__ void long_row_chunks(int64_t nn, DRows d, const int64_t *long_rows,
                                const unsigned long long *nlong, int64_t *coff) {
  const int64_t nl = (int64_t)*nlong;
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t <= nn;
       t += (int64_t)gridDim.x * blockDim.x)
    coff[t] = t < nl ? (d.len(long_rows[t]) + kOrphanChunk - 1) / kOrphanChunk : 0;
}

/* count_orphans' pass over the listed long rows, chunk by chunk over the
 * grid (chunk c of row t: coff[t] <= c < coff[t + 1] after the scan); the
 * second pass adds each chunk's count to ocnt[I] (count_orphans zeroed it)
 * by a warp's atomic. */
template <bool Pairs>
__global__ void __launch_bounds__(kBlock)
    count_orphans_long(int64_t nn, DRows d, int64_t *ocnt, unsigned long long *total,
                       const int64_t *long_rows, const unsigned long long *nlong,
                       const int64_t *coff) {
  const int64_t nl = (int64_t)*nlong, chunks = coff[nn];
  const int lane = threadIdx.x & 31;
  unsigned long long all = 0;
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    int64_t lo = 0, hi = nl; /* the last t with coff[t] <= c */
    while (hi - lo > 1) {
      const int64_t mid = (lo + hi) >> 1;
      if (coff[mid] <= c)
        lo = mid;
      else
        hi = mid;
    }
    const int64_t I = long_rows[lo];
    const int32_t *r = d.row(I);
    const int len = d.len(I);
    const int k0 = (int)(c - coff[lo]) * kOrphanChunk;
    const int k1 = k0 + kOrphanChunk < len ? k0 + kOrphanChunk : len;
    unsigned long long o = 0;
    for (int k = k0 + (int)threadIdx.x; k < k1; k += kBlock) o += counts<Pairs>(d, I, r[k]);
#pragma unroll
    for (int off = 16; off; off >>= 1) o += __shfl_xor_sync(0xffffffffu, o, off);
    if (!Pairs && lane == 0 && o) atomicAdd((unsigned long long *)&ocnt[I], o);
    all += lane == 0 ? o : 0ull;
  }
  mispc_block_add<kBlock>(all, total);
}

/* The orphans (I, J) in row order from optr[I]: okey = J, orow = I. */
template <int W>
__global__ void write_orphans(int64_t nn, DRows d, const int64_t *optr, int32_t *okey,
                              int32_t *orow) {
  const unsigned below = (1u << (threadIdx.x & 31)) - 1u;
  mispc_for_each_row<W>(nn, [&](int64_t I, int sl, unsigned gm) {
    const int32_t *r = d.row(I);
    const int len = d.len(I);
    int64_t at = optr[I];
    for (int k0 = 0; k0 < len; k0 += W) {
      const int k = k0 + sl;
      const bool o = k < len && d.orphan(I, r[k]);
      const unsigned m = __ballot_sync(gm, o) & gm;
      if (o) {
        const int64_t q = at + __popc(m & below);
        okey[q] = r[k];
        orow[q] = (int32_t)I;
      }
      at += __popc(m);
    }
  });
}

/* S's row J = D's row J + E's row J (eptr NULL: no E), two disjoint sorted
 * lists: an entry's place is its index plus the other list's entries below
 * it. E's row J: orow[order[eptr[J] ..  eptr[J + 1])], increasing. */
template <int W>
__global__ void merge_rows(int64_t nn, DRows d, const int64_t *eptr, const int32_t *order,
                           const int32_t *orow, int64_t *rowptr, int32_t *col) {
  mispc_for_each_row<W>(nn, [&](int64_t J, int sl, unsigned) {
    const int32_t *dr = d.row(J);
    const int dl = d.len(J);
    const int64_t e0 = eptr ? eptr[J] : 0;
    const int el = eptr ? (int)(eptr[J + 1] - e0) : 0;
    const int64_t start = d.dptr[J] + e0;
    if (sl == 0) {
      rowptr[J] = start;
      if (J == nn - 1) rowptr[nn] = start + dl + el;
    }
    int32_t *out = col + start;
    for (int k = sl; k < dl; k += W) {
      const int32_t x = dr[k];
      int lo = 0, hi = el;
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (orow[order[e0 + mid]] < x)
          lo = mid + 1;
        else
          hi = mid;
      }
      out[k + lo] = x;
    }
    for (int k = sl; k < el; k += W) {
      const int32_t x = orow[order[e0 + k]];
      out[k + mispc_lower_bound32(dr, dl, x)] = x;
    }
  });
}

/* Steps 1-3 above; *built = 0 (S untouched) where A has an unsorted row.
 * Step 1 reads every entry and checks A's indices (IndexCheck): *invalid
 * where they fail (S untouched), else *checked. Needs nrows > 0 and
 * bs <= 32. */
mispc_status strength_by_filter(mispc_context *ctx, cudaStream_t s, const mispc_csr *A,
                                Strong strong, int bs, mispc_csr *S, int *built, int *invalid,
                                int *checked) {
  *built = *invalid = *checked = 0;
  const int64_t nn = A->nrows / bs;
  double t = mispc_wtime();
  int32_t *buf = NULL, *okey = NULL, *orow = NULL, *order = NULL;
  int64_t *cnt = NULL, *eptr = NULL;
  void *temp = NULL;
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(NULL, bytes, cnt, cnt, nn + 1, s);
  /* cnt, ocnt: nn + 1 each, then four counters (unsorted, orphans, the
   * index check, long rows), the long rows' list (nn) and their chunk
   * offsets (nn + 1) */
  mispc_status st = mispc_scratch_alloc(ctx, sizeof(int64_t) * (4 * (size_t)nn + 7), (void **)&cnt,
                                        "strength row counts");
  if (!st) st = mispc_scratch_alloc(ctx, bytes + 16, &temp, "strength scan");
  if (!st)
    st = mispc_scratch_alloc(ctx, sizeof(int32_t) * (size_t)A->nnz + 8, (void **)&buf,
                             "strength rows");
  int64_t *ocnt = cnt + nn + 1;
  unsigned long long *flags = (unsigned long long *)(ocnt + nn + 1), head[5] = {0, 0, 0, 0, 0};
  int64_t *long_rows = (int64_t *)(flags + 4), *coff = long_rows + nn;
  const IndexCheck chk = {A->nrows, A->nnz, flags + 2, 1};
  if (!st) {
    cudaMemsetAsync(cnt + nn, 0, sizeof(int64_t), s);
    cudaMemsetAsync(ocnt + nn, 0, 5 * sizeof(int64_t), s); /* and the counters */
    if (bs == 1)
      mispc_with_lanes(mispc_lanes_for_rows(A), [&](auto w) {
        constexpr int W = decltype(w)::value;
        point_rows<W><<<mispc_device_grid(ctx, (long long)W * nn, kBlock), kBlock, 0, s>>>(
            nn, A->rowptr, A->colidx, strong, buf, cnt, flags, chk);
        return 0;
      });
    else
      mispc_with_lanes(mispc_lanes_for_mean(bs), [&](auto w) {
        constexpr int G = decltype(w)::value;
        node_merge<G><<<mispc_device_grid(ctx, (long long)G * nn, kBlock), kBlock, 0, s>>>(
            nn, bs, MispcFastDiv(bs), A->rowptr, A->colidx, strong, buf, cnt, flags, chk);
        return 0;
      });
    cub::DeviceScan::ExclusiveSum(temp, bytes, cnt, cnt, nn + 1, s); /* cnt: D's row offsets */
  }
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "strength: scratch, filtered rows, offsets");
  const DRows d = {buf, A->rowptr, cnt, bs};
  /* lanes for D's rows: about an A row's entries over bs */
  const int lanes = mispc_lanes_for_mean((double)A->nnz / (double)A->nrows / bs);
  auto grid = [&](int w) { return mispc_device_grid(ctx, (long long)w * nn, kBlock); };
  /* count_orphans' passes: the mirrored pairs, then, where D has orphans,
   * the orphans a row; the hubs' entries in chunks over the whole device,
   * launched only where the first pass listed long rows (head[3]: a graph
   * without hubs pays no launch for them, about 20 us on bcsstk13) */
  auto long_rows_pass = [&](auto pairs) {
    constexpr bool P = decltype(pairs)::value;
    if (P) { /* the long rows' chunks */
      long_row_chunks<<<grid(1), kBlock, 0, s>>>(nn, d, long_rows, flags + 3, coff);
      cub::DeviceScan::ExclusiveSum(temp, bytes, coff, coff, nn + 1, s);
    }
    count_orphans_long<P><<<mispc_device_grid(ctx, 1ll << 40, kBlock), kBlock, 0, s>>>(
        nn, d, ocnt, flags + 1, long_rows, flags + 3, coff);
  };
  auto fetch_head = [&] {
    cudaMemcpyAsync(head, flags, 4 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s);
    cudaMemcpyAsync(head + 4, cnt + nn, sizeof(int64_t), cudaMemcpyDeviceToHost, s);
    return mispc_sync(ctx, s, "strength graph (node rows)");
  };
  auto count_pass = [&](auto pairs) {
    constexpr bool P = decltype(pairs)::value;
    mispc_with_lanes(lanes, [&](auto w) {
      constexpr int W = decltype(w)::value;
      count_orphans<W, P><<<grid(W), kBlock, 0, s>>>(nn, d, ocnt, flags + 1, long_rows, flags + 3);
      return 0;
    });
    if (!P && head[3]) long_rows_pass(pairs); /* listed by the first pass */
    mispc_status e = fetch_head();
    if (!e && P && head[3]) {
      long_rows_pass(pairs);
      e = fetch_head();
    }
    return e;
  };
  unsigned long long norph = 0;
  if (!st) st = count_pass(std::true_type());
  if (!st && !head[0] && !head[2]) {
    norph = (unsigned long long)head[4] - 2 * head[1]; /* nnz(D) - 2 mirrored pairs */
    if (norph) {
      cudaMemsetAsync(flags + 1, 0, sizeof(unsigned long long), s);
      st = count_pass(std::false_type());
      if (head[1] != norph) head[0] = 1; /* (cannot happen) the sorted keys' path instead */
    }
  }
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "strength: orphans counted");
  *invalid = !st && head[2];
  *checked = !st && !head[2];
  const bool use = !st && !head[0] && !head[2] && norph <= (unsigned long long)INT32_MAX;
  if (use && norph) { /* E: the orphans ordered by (J, I) */
    st = mispc_scratch_alloc(ctx, sizeof(int32_t) * 3 * (size_t)norph, (void **)&okey,
                             "strength orphans");
    if (!st)
      st = mispc_scratch_alloc(ctx, sizeof(int64_t) * ((size_t)nn + 1), (void **)&eptr,
                               "strength transposed rows");
    if (!st) {
      orow = okey + norph;
      order = orow + norph;
      cub::DeviceScan::ExclusiveSum(temp, bytes, ocnt, ocnt, nn + 1, s);
      mispc_with_lanes(lanes, [&](auto w) {
        constexpr int W = decltype(w)::value;
        write_orphans<W><<<grid(W), kBlock, 0, s>>>(nn, d, ocnt, okey, orow);
        return 0;
      });
      st = mispc_order_by_key_cuda(ctx, (int64_t)norph, okey, (int32_t)nn, order, eptr);
    }
  }
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "strength: orphans ordered");
  mispc_csr G;
  if (use && !st) st = mispc_csr_alloc(ctx, MISPC_MEM_DEVICE, nn, nn, head[4] + norph, 0, &G);
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "strength: graph allocated");
  if (use && !st) {
    mispc_with_lanes(lanes, [&](auto w) {
      constexpr int W = decltype(w)::value;
      merge_rows<W>
          <<<grid(W), kBlock, 0, s>>>(nn, d, norph ? eptr : NULL, order, orow, G.rowptr, G.colidx);
      return 0;
    });
    st = mispc_sync(ctx, s, "strength graph (node rows)");
    mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "strength: rows merged");
    if (!st) {
      *S = G;
      *built = 1;
    } else {
      mispc_csr_free(ctx, &G);
    }
  }
  mispc_scratch_free(ctx, okey);
  mispc_scratch_free(ctx, eptr);
  mispc_scratch_free(ctx, buf);
  mispc_scratch_free(ctx, temp);
  mispc_scratch_free(ctx, cnt);
  return st;
}

/* Coarse graph keys: row i belongs to its aggregate A (none if -1); an
 * entry targets the aggregate B of its column when B != A, key (A, B). */
struct CoarseRow {
  const int64_t *rowptr;
  const int32_t *colidx;
  const int32_t *agg;
  int cb; /* bits of a column in a key */
  __device__ int32_t owner(int64_t i) const {
    return agg[i];
  }
  __device__ int32_t target(int64_t, int32_t A, int64_t p) const {
    const int32_t B = agg[colidx[p]];
    return B != A && B >= 0 ? B : -1;
  }
  template <typename Out> __device__ void emit(int32_t A, int32_t B, Out &out) const {
    out(key(A, B, cb));
  }
  __device__ bool skip(int64_t) const {
    return false;
  }
};

/* The keys of entries b, b + step, ... < e of row i, a target met among
 * the last kRecent ones skipped: out(key) for each. */
template <typename Row, typename Out>
__device__ __forceinline__ void row_keys(const Row &row, int64_t i, int64_t b, int64_t e, int step,
                                         Out out) {
  const int32_t own = row.owner(i);
  if (own < 0 || row.skip(i)) return;
  Recent seen;
  for (int64_t p = b; p < e; p += step) {
    const int32_t t = row.target(i, own, p);
    if (t >= 0 && seen.fresh(t)) row.emit(own, t, out);
  }
}

/* Rows longer than this are walked by a whole warp (hubs of power-law
 * graphs would hold one thread for their whole length, twice). */
constexpr int64_t kLongRow = 256;

/* The keys of rows 0 .. n-1, packed: a thread a row (a warp for long rows)
 * walks it twice, to count its keys and to write them after one atomicAdd
 * per warp on *count. The order of the packed keys varies from run to run;
 * the sort that follows makes the graph deterministic. */
template <typename Row>
__global__ void __launch_bounds__(kBlock)
    packed_keys(int64_t n, Row row, uint64_t *keys, unsigned long long *count) {
  using Scan = cub::WarpScan<unsigned long long>;
  __shared__ typename Scan::TempStorage scan[kBlock / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  /* n_keys keys of this lane, at start + before, where before is the lane's
   * exclusive prefix in the warp */
  auto place = [&](unsigned long long mine) {
    unsigned long long before = 0, total = 0, base = 0;
    __syncwarp();
    Scan(scan[warp]).ExclusiveSum(mine, before, total);
    if (lane == 0 && total) base = atomicAdd(count, total);
    return keys + __shfl_sync(~0u, base, 0) + before;
  };
  for (int64_t i0 = blockIdx.x * (int64_t)blockDim.x + warp * 32; i0 < n;
       i0 += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = i0 + lane;
    const int64_t b = i < n ? row.rowptr[i] : 0, e = i < n ? row.rowptr[i + 1] : 0;
    const bool thread_row = i < n && e - b <= kLongRow;
    unsigned long long mine = 0;
    if (thread_row) row_keys(row, i, b, e, 1, [&](uint64_t) { ++mine; });
    uint64_t *out = place(mine);
    if (thread_row) row_keys(row, i, b, e, 1, [&](uint64_t k) { *out++ = k; });
    for (unsigned longs = __ballot_sync(~0u, i < n && !thread_row); longs; longs &= longs - 1) {
      const int r = __ffs(longs) - 1;
      const int64_t li = i0 + r, lb = __shfl_sync(~0u, b, r) + lane, le = __shfl_sync(~0u, e, r);
      mine = 0;
      row_keys(row, li, lb, le, 32, [&](uint64_t) { ++mine; });
      out = place(mine);
      row_keys(row, li, lb, le, 32, [&](uint64_t k) { *out++ = k; });
    }
  }
}

/* Packs the keys of rows 0 .. nrows_in-1 into keys (room for the most they can give
 * per entry) and builds the CSR from them. */
template <typename Row>
mispc_status csr_from_rows(mispc_context *ctx, cudaStream_t s, int64_t nrows_in, const Row &row,
                           uint64_t *keys, int64_t nout, const char *what, mispc_csr *out) {
  unsigned long long *d_count = NULL, count = 0;
  MISPC_TRY(mispc_scratch_alloc(ctx, 8, (void **)&d_count, "key count"));
  cudaMemsetAsync(d_count, 0, 8, s);
  packed_keys<<<mispc_device_grid(ctx, nrows_in, kBlock), kBlock, 0, s>>>(nrows_in, row, keys,
                                                                          d_count);
  cudaMemcpyAsync(&count, d_count, 8, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, what);
  mispc_scratch_free(ctx, d_count);
  if (!st)
    st = mispc_csr_from_keys_cuda(ctx, nout, nout, keys, (int64_t)count, bits_for(nout), out);
  return st;
}

/* r[i] = agg_strength_scale(a_ii), in place over the diagonal. */
__global__ void strength_scales(int64_t n, double *d) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    d[i] = agg_strength_scale(d[i]);
}

/* A pass of mispc_strength_auto (strength_auto.c has the host's), a group
 * of W lanes a row, on the bits of non-negative doubles (they order as their
 * bits do). min_bits NULL: each row's largest s_ij, their positive finite
 * minimum by atomicMin into *out (+inf where none). Else theta from
 * *min_bits as the host takes it, and the largest s_ij <= theta, its bits
 * + 1 by atomicMax into *out (0: none). */
template <int W>
__global__ void strength_extremes(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                                  const double *val, const double *r,
                                  const unsigned long long *min_bits, unsigned long long *out) {
  const double th =
      min_bits ? agg_strength_theta(__longlong_as_double((long long)*min_bits)) : -INFINITY;
  mispc_for_each_row<W>(n, [&](int64_t i, int sl, unsigned gm) {
    double m = 0, w = -1;
    agg_strength_row(colidx, val, rowptr[i] + sl, rowptr[i + 1], W, i, r, r[i], th, &m, &w);
    for (int o = W / 2; o; o >>= 1) {
      m = fmax(m, __shfl_xor_sync(gm, m, o));
      w = fmax(w, __shfl_xor_sync(gm, w, o));
    }
    if (sl != 0) return;
    if (!min_bits && m > 0 && m < INFINITY)
      atomicMin(out, (unsigned long long)__double_as_longlong(m));
    if (min_bits && w >= 0) atomicMax(out, (unsigned long long)__double_as_longlong(w) + 1ull);
  });
}

} // namespace

extern "C" mispc_status agg_strength_cuda(mispc_context *ctx, const mispc_csr *A, double theta,
                                          int bs, mispc_csr *S) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  uint64_t *keys = NULL;
  double *diag = NULL;
  mispc_status st = MISPC_SUCCESS;
  const bool use_values = A->values && theta > 0;
  uint8_t *skip = NULL;
  double t0 = mispc_wtime();
  if (!st && use_values)
    st = mispc_scratch_alloc(ctx, (size_t)A->nrows * 8 + 8, (void **)&diag, "diagonal");
  if (!st && use_values)
    diagonal<<<mispc_device_grid(ctx, A->nrows, kBlock), kBlock, 0, s>>>(
        A->nrows, A->nnz, A->rowptr, A->colidx, A->values, diag);
  /* A's indices are checked by the first pass of a fast path (IndexCheck),
   * else by mispc_csr_check before the keys; a failure is reported with
   * mispc_csr_check's message */
  int built = 0, invalid = 0, checked = 0;
  const bool nodes = !use_values && bs > 1 && A->nrows > 0;
  if (!st && nodes) st = strength_by_first_rows(ctx, s, A, bs, S, &built, &invalid);
  checked = built;
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t0, "strength: from the nodes' first rows");
  const Strong strong = {use_values ? A->values : NULL, diag, theta};
  if (!st && !built && !invalid && A->nrows > 0 && bs <= 32)
    st = strength_by_filter(ctx, s, A, strong, bs, S, &built, &invalid, &checked);
  if (!st && !built && (invalid || !checked)) {
    st = mispc_csr_check(ctx, A, MISPC_CHECK_SQUARE | MISPC_CHECK_INDICES);
    if (!st && invalid) /* the two checks disagree: not expected */
      st = mispc_seterr(ctx, MISPC_ERR_VERIFY, "strength graph: the matrix's indices are invalid");
  }
  if (!st && nodes && !built) { /* the key path below skips the rows like their node's first */
    st = mispc_scratch_alloc(ctx, (size_t)A->nrows + 8, (void **)&skip, "rows like their node's");
    if (!st)
      mispc_with_lanes(mispc_lanes_for_rows(A), [&](auto lanes) {
        constexpr int W = decltype(lanes)::value;
        same_nodes_as_first<W>
            <<<mispc_device_grid(ctx, (long long)W * A->nrows, kBlock), kBlock, 0, s>>>(
                A->nrows, bs, MispcFastDiv(bs), A->rowptr, A->colidx, skip);
        return 0;
      });
  }
  const StrengthRow row = {A->rowptr, A->colidx, use_values ? A->values : NULL, diag,
                           theta,     bs,        bits_for(A->nrows / bs),       skip};
  if (!st && !built)
    st = mispc_scratch_alloc(ctx, (size_t)A->nnz * 16 + 8, (void **)&keys, "strength keys");
  if (!st && !built)
    st = csr_from_rows(ctx, s, A->nrows, row, keys, A->nrows / bs, "strength graph", S);
  mispc_scratch_free(ctx, keys);
  mispc_scratch_free(ctx, diag);
  mispc_scratch_free(ctx, skip);
  return st;
}

extern "C" mispc_status agg_strength_auto_cuda(mispc_context *ctx, const mispc_csr *A,
                                               double *theta, double *weak_max) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = A->nrows;
  double *diag = NULL; /* a_ii, then their scales r_i */
  unsigned long long *d_res = NULL, res[2] = {0x7ff0000000000000ull, 0}; /* +inf, no weak entry */
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n * 8 + 8, (void **)&diag, "diagonal");
  if (!st) st = mispc_scratch_alloc(ctx, 16, (void **)&d_res, "strength extremes");
  if (!st) {
    cudaMemcpyAsync(d_res, res, 16, cudaMemcpyHostToDevice, s);
    const unsigned g1 = mispc_device_grid(ctx, n, kBlock);
    diagonal<<<g1, kBlock, 0, s>>>(n, A->nnz, A->rowptr, A->colidx, A->values, diag);
    strength_scales<<<g1, kBlock, 0, s>>>(n, diag);
    mispc_with_lanes(mispc_lanes_for_rows(A), [&](auto lanes) {
      constexpr int W = decltype(lanes)::value;
      const int grid = mispc_device_grid(ctx, (long long)W * n, kBlock);
      strength_extremes<W>
          <<<grid, kBlock, 0, s>>>(n, A->rowptr, A->colidx, A->values, diag, NULL, d_res);
      strength_extremes<W>
          <<<grid, kBlock, 0, s>>>(n, A->rowptr, A->colidx, A->values, diag, d_res, d_res + 1);
      return 0;
    });
    cudaMemcpyAsync(res, d_res, 16, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "automatic strength threshold");
  }
  mispc_scratch_free(ctx, d_res);
  mispc_scratch_free(ctx, diag);
  if (st) return st;
  double mn;
  memcpy(&mn, &res[0], 8);
  *theta = agg_strength_theta(mn);
  const unsigned long long wb = res[1] - 1;
  if (res[1])
    memcpy(weak_max, &wb, 8);
  else
    *weak_max = -1;
  return MISPC_SUCCESS;
}

extern "C" mispc_status agg_coarse_cuda(mispc_context *ctx, const mispc_csr *g, const int32_t *agg,
                                        int64_t naggs, mispc_csr *coarse) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  uint64_t *keys = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, (size_t)g->nnz * 8 + 8, (void **)&keys, "coarse keys"));
  const CoarseRow row = {g->rowptr, g->colidx, agg, bits_for(naggs)};
  mispc_status st = csr_from_rows(ctx, s, g->nrows, row, keys, naggs, "coarse graph", coarse);
  mispc_scratch_free(ctx, keys);
  return st;
}
