/* The aggregation phases on the GPU (semantics in agg_backend.h; the host
 * twins are in aggregate_host.c and give identical labels).
 *
 * Phase 1 and 2 label disjoint stars (roots are >= 3 apart in the graph the
 * MIS-2 ran on), so plain parallel writes never collide. Phase 3 reads a
 * frozen copy of the labels, so its choices do not depend on order. Root
 * numbering in increasing id comes from CUB's stable select. */
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <stdint.h>

#include "agg_backend.h"
#include "csr_build.h"
#include "cuda_util.cuh"

namespace {

constexpr int kBlock = 256;

/* Labels root k (k < *count, list[k]) and its neighbours with
 * `*first + k` (first NULL: k); with only_free, only neighbours that were
 * unaggregated (agg < 0) are taken; root_out (if not NULL) gets the root at
 * its id. The counts are read on the device: no host round trip before. */
__global__ void label_stars(const int64_t *rowptr, const int32_t *colidx, const int32_t *list,
                            const int64_t *count, const int64_t *first, bool only_free,
                            int32_t *agg, int32_t *root_out) {
  const int lane = threadIdx.x & 31;
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  const int64_t nroots = *count, base = first ? *first : 0;
  for (int64_t k = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; k < nroots; k += nwarps) {
    int32_t r = list[k];
    int32_t id = (int32_t)(base + k);
    for (int64_t p = rowptr[r] + lane; p < rowptr[r + 1]; p += 32) {
      int32_t u = colidx[p];
      if (u != r && (!only_free || agg[u] < 0)) agg[u] = id;
    }
    if (lane == 0) {
      agg[r] = id;
      if (root_out) root_out[id] = r;
    }
  }
}

/* flag[v] = member of the phase-2 MIS-2 with >= min_free unaggregated
 * neighbours. */
__global__ void phase2_candidates(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                                  const uint8_t *in_set, const int32_t *agg, int min_free,
                                  uint8_t *flag) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    int free_nbrs = 0;
    if (in_set[v])
      for (int64_t p = rowptr[v]; p < rowptr[v + 1] && free_nbrs < min_free; ++p)
        free_nbrs += colidx[p] != v && agg[colidx[p]] < 0;
    flag[v] = free_nbrs >= min_free;
  }
}

/* mask[v] = agg[v] < 0 (mask NULL: not written), their number added to
 * *count; after the last phase that labels roots, also phase 3's inputs:
 * tent[v] = agg[v] and size[v] = 0 (tent NULL: not written). One pass
 * instead of a copy and a memset more. */
__global__ void unaggregated(int64_t n, const int32_t *agg, uint8_t *mask,
                             unsigned long long *count, int32_t *tent, int32_t *size) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    const int32_t a = agg[v];
    const uint8_t m = a < 0;
    if (mask) mask[v] = m;
    if (tent) {
      tent[v] = a;
      size[v] = 0;
    }
    mine += m;
  }
  mispc_block_add<kBlock>(mine, count);
}

__global__ void aggregate_sizes(int64_t n, const int32_t *tent, int32_t *size) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x)
    if (tent[v] >= 0) atomicAdd(&size[tent[v]], 1);
}

/* Phase 3: each unaggregated v joins, among the tentative aggregates of its
 * neighbours, the one with most neighbours in it, then the smaller, then the
 * lower id (basic: that of its smallest-id aggregated neighbour). */
constexpr int64_t kPairwiseDegree = 32; /* above: labels counted in a hash table */
constexpr int64_t kHashRow = 2048; /* above: sorted labels (phase3_sorted; tuning agg_hash_row) */

/* Phase 3's order of candidate labels (Kokkos Kernels Alg. 3, phase 3, with
 * ties broken for determinism): label a with c neighbours in an aggregate of
 * sz vertices comes before label b (bc, bsz) if it has more neighbours, then
 * if its aggregate is smaller, then if its id is lower. One comparison for
 * the three paths (phase3, phase3_hashed, phase3_sorted). */
__device__ __forceinline__ bool pick_before(int64_t c, int64_t sz, int32_t a, int64_t bc,
                                            int64_t bsz, int32_t b) {
  return c > bc || (c == bc && (sz < bsz || (sz == bsz && a < b)));
}

/* Leftovers of more than kPairwiseDegree entries are left to the passes
 * after the phases' wait and counted in *deferred (one atomic per block):
 * those of at most hash_row entries in its low 32 bits (phase3_hashed), the
 * others in its high bits (phase3_sorted). Appending them to a list here
 * made this kernel 10-15 us slower on 27-point graphs of 8,000 vertices
 * (H200, 2026-11-30), where none are left. */
__global__ void phase3(int64_t n, const int64_t *rowptr, const int32_t *colidx, const int32_t *tent,
                       const int32_t *size, bool basic, int64_t hash_row, int32_t *agg,
                       unsigned long long *deferred) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    if (tent[v] >= 0) continue;
    const int64_t deg = rowptr[v + 1] - rowptr[v];
    if (!basic && deg > kPairwiseDegree) {
      mine += deg > hash_row ? 1ull << 32 : 1ull;
      continue;
    }
    int32_t best = -1;
    int best_count = 0, best_size = 0;
    const int64_t b = rowptr[v], e = rowptr[v + 1];
    for (int64_t p = b; p < e; ++p) {
      int32_t a = tent[colidx[p]];
      if (a < 0) continue;
      if (basic) {
        best = a;
        break;
      }
      int c = 0;
      for (int64_t q = b; q < e; ++q) c += tent[colidx[q]] == a;
      int sz = size[a];
      if (best < 0 || pick_before(c, sz, a, best_count, best_size, best)) {
        best = a;
        best_count = c;
        best_size = sz;
      }
    }
    agg[v] = best;
  }
  mispc_block_add<kBlock>(mine, deferred);
}

/* Phase 3 for the listed leftovers (kPairwiseDegree < degree <= kHashRow):
 * a block a vertex counts its neighbours' labels in a shared-memory hash
 * table (exact counts, whatever the order of the atomics), then the block
 * picks the label of most neighbours, then the smaller aggregate, then the
 * lower id: phase3's choice. No scan, allocations or CUB segmented sort,
 * as the sorted path has, and no wait where longer rows follow. */
constexpr int kHashBits = 12;
constexpr int kHashSlots = 1 << kHashBits; /* at least 2 kHashRow: short probes */
struct Pick {
  int32_t label, count, size; /* label -1: none */
};
struct PickBetter {
  __device__ Pick operator()(const Pick &x, const Pick &y) const {
    if (x.label < 0) return y;
    if (y.label < 0) return x;
    return pick_before(x.count, x.size, x.label, y.count, y.size, y.label) ? x : y;
  }
};
__global__ void __launch_bounds__(kBlock)
    phase3_hashed(const int32_t *list, const int64_t *count, const int64_t *rowptr,
                  const int32_t *colidx, const int32_t *tent, const int32_t *size, int32_t *agg) {
  __shared__ int32_t key[kHashSlots], cnt[kHashSlots];
  using Reduce = cub::BlockReduce<Pick, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  const int64_t h = *count;
  for (int64_t k = blockIdx.x; k < h; k += gridDim.x) {
    const int32_t v = list[k];
    const int64_t b = rowptr[v], e = rowptr[v + 1];
    /* a table of at least twice the row (resetting and scanning 4096 slots
     * for rows of 81 entries made Elasticity3D_20's aggregation 9 % slower) */
    int bits = 6;
    while ((1ll << bits) < 2 * (e - b)) ++bits;
    const int slots = 1 << bits;
    for (int i = threadIdx.x; i < slots; i += kBlock) key[i] = -1, cnt[i] = 0;
    __syncthreads();
    for (int64_t p = b + threadIdx.x; p < e; p += kBlock) {
      const int32_t a = tent[colidx[p]];
      if (a < 0) continue;
      for (uint32_t slot = ((uint32_t)a * 2654435761u) >> (32 - bits);;
           slot = (slot + 1) & (slots - 1)) {
        const int32_t was = atomicCAS(&key[slot], -1, a);
        if (was == -1 || was == a) {
          atomicAdd(&cnt[slot], 1);
          break;
        }
      }
    }
    __syncthreads();
    Pick best = {-1, 0, 0};
    for (int i = threadIdx.x; i < slots; i += kBlock)
      if (key[i] >= 0) best = PickBetter()(best, Pick{key[i], cnt[i], size[key[i]]});
    best = Reduce(temp).Reduce(best, PickBetter());
    if (threadIdx.x == 0) agg[v] = best.label;
    __syncthreads(); /* the table and temp are reused for the next vertex */
  }
}

/* Flags the leftovers of lo < degree <= hi entries (for phase3_hashed, or
 * for phase3_sorted, which gathers their neighbours' labels into one
 * segment each: unaggregated neighbours as INT32_MAX, sorted last). */
__global__ void high_leftovers(int64_t n, const int64_t *rowptr, const int32_t *tent, int64_t lo,
                               int64_t hi, uint8_t *flag) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    const int64_t deg = rowptr[v + 1] - rowptr[v];
    flag[v] = tent[v] < 0 && deg > lo && deg <= hi;
  }
}

/* Rows of at most this many entries take phase3_hashed (tuning agg_hash_row;
 * the table holds kHashSlots labels, so at most kHashSlots / 2). */
static int64_t hash_row(const mispc_context *ctx) {
  const int64_t t = ctx->tuning.agg_hash_row;
  if (t == 0) return kHashRow;
  return t < kPairwiseDegree ? kPairwiseDegree : t > kHashSlots / 2 ? kHashSlots / 2 : t;
}

__global__ void segment_sizes(int64_t h, const int32_t *list, const int64_t *rowptr, int64_t *len) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < h;
       k += (int64_t)gridDim.x * blockDim.x)
    len[k] = rowptr[list[k] + 1] - rowptr[list[k]];
}

__global__ void gather_labels(int64_t h, const int32_t *list, const int64_t *rowptr,
                              const int32_t *colidx, const int32_t *tent, const int64_t *off,
                              int32_t *labels) {
  const int lane = threadIdx.x & 31;
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t k = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; k < h; k += nwarps) {
    const int64_t b = rowptr[list[k]], e = rowptr[list[k] + 1];
    for (int64_t p = b + lane; p < e; p += 32) {
      int32_t a = tent[colidx[p]];
      labels[off[k] + (p - b)] = a < 0 ? INT32_MAX : a;
    }
  }
}

/* One pass over a sorted segment: runs of equal labels are the counts. */
__global__ void phase3_sorted(int64_t h, const int32_t *list, const int64_t *off,
                              const int32_t *labels, const int32_t *size, int32_t *agg) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < h;
       k += (int64_t)gridDim.x * blockDim.x) {
    int32_t best = -1;
    int64_t best_count = 0, best_size = 0;
    for (int64_t i = off[k]; i < off[k + 1] && labels[i] != INT32_MAX;) {
      int64_t j = i;
      while (j < off[k + 1] && labels[j] == labels[i]) ++j;
      const int64_t c = j - i, sz = size[labels[i]];
      if (best < 0 || pick_before(c, sz, labels[i], best_count, best_size, best)) {
        best = labels[i];
        best_count = c;
        best_size = sz;
      }
      i = j;
    }
    agg[list[k]] = best;
  }
}

/* MISPC_ISOLATED_COLLECT, step 1, over c <= bound (>= na, the aggregates,
 * *na1 + *na2 on the device): keep[c] = 0 where aggregate c's root has no
 * neighbour but itself (then c is that vertex alone) and for c >= na, else
 * 1 (so keep's exclusive scan ends with the kept ones at bound); *first =
 * the least isolated c. */
__global__ void isolated_aggregates(int64_t bound, const int64_t *na1, const int64_t *na2,
                                    const int32_t *root, const int64_t *rowptr,
                                    const int32_t *colidx, int32_t *keep, unsigned *first) {
  const int64_t na = *na1 + *na2;
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c <= bound;
       c += (int64_t)gridDim.x * blockDim.x) {
    if (c >= na) {
      keep[c] = 0;
      continue;
    }
    const int32_t r = root[c];
    bool iso = true;
    for (int64_t p = rowptr[r]; iso && p < rowptr[r + 1]; ++p) iso = colidx[p] == r;
    keep[c] = !iso;
    if (iso) atomicMin(first, (unsigned)c);
  }
}

/* Step 2: the new labels (newid: exclusive scan of keep; `last` for the
 * isolated ones) and the roots of the kept aggregates in their new places. */
__global__ void relabel_isolated(int64_t n, int64_t na, const int32_t *keep, const int32_t *newid,
                                 int32_t last, int32_t *agg, const int32_t *root,
                                 int32_t *root_out) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n; v += stride) {
    const int32_t c = agg[v];
    agg[v] = keep[c] ? newid[c] : last;
  }
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < na; c += stride)
    if (keep[c]) root_out[newid[c]] = root[c];
}

/* max_size (agg_backend.h): extra[c] = the pieces beyond the first of
 * aggregate c (0 when it fits), extra[na] = 0 for the scan's total. */
__global__ void split_extra(int64_t na, const int64_t *ptr, int64_t B, int64_t *extra) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c <= na;
       c += (int64_t)gridDim.x * blockDim.x) {
    const int64_t m = c < na ? ptr[c + 1] - ptr[c] : 0;
    extra[c] = m > B ? (m + B - 1) / B - 1 : 0;
  }
}

/* rank[c] = the root's rank among aggregate c's members (order: members by
 * aggregate, increasing id; ptr: the aggregates' ranges); parent[c] = c. */
__global__ void split_root_ranks(int64_t n, int64_t na, const int32_t *order, const int64_t *ptr,
                                 const int32_t *agg, const int32_t *root, int64_t *rank,
                                 int32_t *parent) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) {
    const int32_t v = order[i], c = agg[v];
    if (root[c] == v) rank[c] = i - ptr[c];
  }
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < na; c += stride)
    parent[c] = (int32_t)c;
}

/* Member at position i: its piece j of p (rank r of m); the pieces other
 * than the root's get ids na + base[c] + (j, skipping the root's piece),
 * their first member as root. Each thread reads and writes only its own
 * vertex's label. */
__global__ void split_pieces(int64_t n, int64_t na, int64_t B, const int32_t *order,
                             const int64_t *ptr, const int64_t *base, const int64_t *rank,
                             int32_t *agg, int32_t *root, int32_t *parent) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int32_t v = order[i], c = agg[v];
    const int64_t m = ptr[c + 1] - ptr[c];
    if (m <= B) continue;
    const int64_t p = (m + B - 1) / B, r = i - ptr[c], j = ((r + 1) * p - 1) / m,
                  jr = ((rank[c] + 1) * p - 1) / m;
    if (j == jr) continue;
    const int64_t id = na + base[c] + (j < jr ? j : j - 1);
    agg[v] = (int32_t)id;
    if (r == j * m / p) {
      root[id] = v;
      parent[id] = c;
    }
  }
}

} // namespace

/* Flagged ids 0 .. n-1 in increasing order into list, their number into
 * *d_count on the device (CUB's stable select; temp from select_bytes). */
static cudaError_t select_flagged(void *temp, size_t &bytes, int64_t n, const uint8_t *flag,
                                  int32_t *list, int64_t *d_count, cudaStream_t s) {
  thrust::counting_iterator<int32_t> ids(0);
  return cub::DeviceSelect::Flagged(temp, bytes, ids, flag, list, d_count, n, s);
}

static size_t select_bytes(int64_t n, cudaStream_t s) {
  size_t bytes = 0;
  select_flagged(NULL, bytes, n, NULL, NULL, NULL, s);
  return bytes;
}

/* The counts of one device aggregation: written by the kernels, read by
 * later kernels through pointers and by the host once, at the end. */
struct AggCounts {
  int64_t roots1;            /* phase-1 roots */
  int64_t added2;            /* phase-2 roots */
  unsigned long long left1;  /* unaggregated after phase 1 */
  unsigned long long left2;  /* unaggregated after phase 2 */
  unsigned long long defer3; /* phase-3 leftovers past kPairwiseDegree (phase3's packing) */
  int64_t high;              /* the same, as selected */
  unsigned first;            /* MISPC_ISOLATED_COLLECT: the least isolated aggregate */
  int32_t kept;              /* and the others */
  int64_t hashed;            /* phase-3 leftovers listed for phase3_hashed */
};

/* Phase 3 for the h leftovers of degree > kHashRow: CUB segmented
 * sort of their neighbours' labels, then one pass per segment (O(deg log
 * deg)). Graphs with such leftovers pay a sync at the end, and those of
 * more than kBoundedLabels entries one more round trip before (the labels'
 * total sizes their buffer; below, nnz does, 8 bytes an entry). */
constexpr int64_t kBoundedLabels = 1 << 22;

static mispc_status phase3_high_degree(mispc_context *ctx, cudaStream_t s, const mispc_csr *g,
                                       const int32_t *tent, const int32_t *size, int32_t *agg,
                                       int64_t h, uint8_t *flag, int32_t *list, void *sel_temp,
                                       size_t sel_bytes, int64_t *d_h) {
  const int64_t n = g->nrows;
  /* graphs of at most kBoundedLabels entries size the labels by nnz, not by
   * their total read back: one host round trip less */
  const bool bounded = g->nnz <= kBoundedLabels;
  int32_t *labels = NULL, *sorted = NULL;
  int64_t *off = NULL, total = 0;
  void *temp = NULL;
  high_leftovers<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(
      n, g->rowptr, tent, hash_row(ctx), INT64_MAX, flag);
  mispc_status st =
      MISPC_CUDA_CALL(ctx, select_flagged(sel_temp, sel_bytes, n, flag, list, d_h, s));
  if (!st) st = mispc_scratch_alloc(ctx, (size_t)(h + 1) * 8, (void **)&off, "segments");
  if (!st) {
    size_t scan_bytes = 0;
    segment_sizes<<<mispc_device_grid(ctx, h, kBlock), kBlock, 0, s>>>(h, list, g->rowptr, off);
    cudaMemsetAsync(off + h, 0, 8, s); /* the exclusive scan then ends with the total */
    cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, off, off, h + 1, s);
    st = mispc_scratch_alloc(ctx, scan_bytes + 16, &temp, "scan scratch");
    if (!st) {
      cub::DeviceScan::ExclusiveSum(temp, scan_bytes, off, off, h + 1, s);
      if (bounded) {
        total = g->nnz; /* the segments cover only a part: CUB leaves the rest alone */
      } else {
        cudaMemcpyAsync(&total, off + h, 8, cudaMemcpyDeviceToHost, s);
        st = mispc_sync(ctx, s, "phase-3 segments");
      }
    }
    mispc_scratch_free(ctx, temp);
    temp = NULL;
  }
  if (!st) st = mispc_scratch_alloc(ctx, (size_t)total * 8 + 8, (void **)&labels, "phase-3 labels");
  if (!st) {
    sorted = labels + total;
    gather_labels<<<mispc_device_grid(ctx, 32 * h, kBlock), kBlock, 0, s>>>(
        h, list, g->rowptr, g->colidx, tent, off, labels);
    size_t sort_bytes = 0;
    cub::DeviceSegmentedSort::SortKeys(NULL, sort_bytes, labels, sorted, total, h, off, off + 1, s);
    st = mispc_scratch_alloc(ctx, sort_bytes + 16, &temp, "segmented sort scratch");
    if (!st) {
      cub::DeviceSegmentedSort::SortKeys(temp, sort_bytes, labels, sorted, total, h, off, off + 1,
                                         s);
      phase3_sorted<<<mispc_device_grid(ctx, h, kBlock), kBlock, 0, s>>>(h, list, off, sorted, size,
                                                                         agg);
      st = mispc_sync(ctx, s, "phase 3 (sorted labels)");
    }
  }
  mispc_scratch_free(ctx, temp);
  mispc_scratch_free(ctx, labels);
  mispc_scratch_free(ctx, off);
  return st;
}

/* Seconds from event a to event b (0 where they were not recorded). */
static double event_seconds(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  if (!a || !b || cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return 1e-3 * ms;
}

/* MISPC_ISOLATED_COLLECT after the phases, its counts read with theirs:
 * the new labels and roots (agg_backend.h), then a wait. */
static mispc_status collect_isolated(mispc_context *ctx, cudaStream_t s, mispc_aggregates *a,
                                     const int32_t *keep, const int32_t *newid, int64_t kept,
                                     int64_t first, int64_t *removed) {
  const int64_t na = a->naggs, n = a->n;
  int32_t *root = NULL;
  if (kept == na) return MISPC_SUCCESS; /* none isolated */
  mispc_status st = mispc_pool_alloc_n(ctx, a->mem, n + 1, 4, (void **)&root, "aggregate roots");
  if (!st) {
    relabel_isolated<<<mispc_device_grid(ctx, n > na ? n : na, kBlock), kBlock, 0, s>>>(
        n, na, keep, newid, (int32_t)kept, a->agg, a->root, root);
    cudaMemcpyAsync(root + kept, a->root + first, 4, cudaMemcpyDeviceToDevice, s);
    st = mispc_sync(ctx, s, "isolated aggregates");
  }
  if (st) {
    mispc_pool_free(ctx, a->mem, root);
    return st;
  }
  mispc_pool_free(ctx, a->mem, a->root);
  a->root = root;
  a->naggs = kept + 1;
  *removed = na - kept;
  return MISPC_SUCCESS;
}

extern "C" mispc_status agg_phases_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const mispc_agg_options *o, mispc_aggregates *a,
                                        uint8_t *set, uint8_t *mask, int64_t *removed) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = g->nrows;
  const bool basic = o->algo == MISPC_AGG_MIS2BASIC,
             collect = o->isolated == MISPC_ISOLATED_COLLECT;
  *removed = 0;
  /* The phases' times from events on the stream: the host does not wait at
   * their ends (a failed event only loses the times). */
  cudaEvent_t ev[4] = {NULL, NULL, NULL, NULL};
  for (int k = 0; k < 4; ++k)
    if (cudaEventCreate(&ev[k]) != cudaSuccess) {
      (void)cudaGetLastError();
      ev[k] = NULL;
    }
  if (ev[0]) cudaEventRecord(ev[0], s);
  mispc_mis_result r1 = {0, 0}, r2 = {0, 0};
  mispc_status st = mispc_mis2(ctx, g, &o->mis, set, &r1);
  /* One scratch block: counts, CUB select (or scan) scratch, a list, the
   * tentative labels, the aggregate sizes (at most n: no count read back),
   * flags; to collect isolated vertices, keep and newid (n + 1 each). */
  auto up = [](size_t b) { return (b + 255) / 256 * 256; }; /* CUB's alignment */
  size_t sel = select_bytes(n, s), scan = 0;
  if (collect)
    cub::DeviceScan::ExclusiveSum(NULL, scan, (int32_t *)NULL, (int32_t *)NULL, n + 1, s);
  if (scan > sel) sel = scan;
  const size_t at_sel = 256, at_list = at_sel + up(sel), at_tent = at_list + up((size_t)n * 4 + 4),
               at_size = at_tent + up((size_t)n * 4 + 4), at_keep = at_size + up((size_t)n * 4 + 4),
               at_flag = at_keep + (collect ? 2 * up((size_t)n * 4 + 4) : 0),
               bytes = at_flag + (size_t)n + 16;
  char *scratch = NULL;
  if (!st) st = mispc_scratch_alloc(ctx, bytes, (void **)&scratch, "aggregation scratch");
  AggCounts *c = (AggCounts *)scratch, got = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  void *sel_temp = scratch + at_sel;
  int32_t *list = (int32_t *)(scratch + at_list), *tent = (int32_t *)(scratch + at_tent),
          *size = (int32_t *)(scratch + at_size);
  int32_t *keep = (int32_t *)(scratch + at_keep), *newid = keep + up((size_t)n * 4 + 4) / 4;
  uint8_t *flag = (uint8_t *)(scratch + at_flag);
  const unsigned grid = mispc_device_grid(ctx, n, kBlock);
  /* Phase 1: the members in increasing id are the roots; each takes its
   * neighbours. */
  if (!st && n > 0) {
    cudaMemsetAsync(c, 0, sizeof *c, s);
    cudaMemsetAsync(&c->first, 0xff, 4, s);
    cudaMemsetAsync(a->agg, 0xff, (size_t)n * 4, s); /* all -1 */
    st = MISPC_CUDA_CALL(ctx, select_flagged(sel_temp, sel, n, set, a->root, &c->roots1, s));
    if (!st) {
      /* r1.set_size (the members) bounds the grid only; the kernel reads the count */
      label_stars<<<mispc_device_grid(ctx, 32 * (r1.set_size > 0 ? r1.set_size : 1), kBlock),
                    kBlock, 0, s>>>(g->rowptr, g->colidx, a->root, &c->roots1, NULL, false, a->agg,
                                    NULL);
      /* mis2basic: the last labels before phase 3 */
      unaggregated<<<grid, kBlock, 0, s>>>(n, a->agg, mask, &c->left1, basic ? tent : NULL, size);
    }
  }
  if (ev[1]) cudaEventRecord(ev[1], s);
  /* Phase 2 (mis2agg): secondary roots from MIS-2 of the unaggregated
   * subgraph. It runs without knowing whether phase 1 left anything (that
   * count is read at the end): an empty subset gives an empty set, and its
   * rounds are reported as 0, as the host's skipped phase. */
  if (!st && n > 0 && !basic) {
    st = mispc_mis2_subset(ctx, g, &o->mis, mask, set, &r2);
    if (!st) {
      phase2_candidates<<<grid, kBlock, 0, s>>>(n, g->rowptr, g->colidx, set, a->agg,
                                                agg_phase2_min_free(o), flag);
      st = MISPC_CUDA_CALL(ctx, select_flagged(sel_temp, sel, n, flag, list, &c->added2, s));
    }
    if (!st) {
      label_stars<<<mispc_device_grid(ctx, 32 * (r2.set_size > 0 ? r2.set_size : 1), kBlock),
                    kBlock, 0, s>>>(g->rowptr, g->colidx, list, &c->added2, &c->roots1, true,
                                    a->agg, a->root);
      unaggregated<<<grid, kBlock, 0, s>>>(n, a->agg, NULL, &c->left2, tent, size);
    }
  }
  if (ev[2]) cudaEventRecord(ev[2], s);
  /* Phase 3: leftovers join a neighbouring aggregate (a pass that changes
   * nothing where none are left); tent and size were filled by the last
   * unaggregated pass. */
  if (!st && n > 0) {
    aggregate_sizes<<<grid, kBlock, 0, s>>>(n, tent, size);
    phase3<<<grid, kBlock, 0, s>>>(n, g->rowptr, g->colidx, tent, size, basic, hash_row(ctx),
                                   a->agg, &c->defer3);
  }
  /* Isolated aggregates to collect: found from the roots, before phase 3's
   * labels are final; relabelled after the read. */
  if (!st && n > 0 && collect) {
    isolated_aggregates<<<mispc_device_grid(ctx, n + 1, kBlock), kBlock, 0, s>>>(
        n, &c->roots1, &c->added2, a->root, g->rowptr, g->colidx, keep, &c->first);
    st = MISPC_CUDA_CALL(ctx, cub::DeviceScan::ExclusiveSum(sel_temp, sel, keep, newid, n + 1, s));
    cudaMemcpyAsync(&c->kept, newid + n, 4, cudaMemcpyDeviceToDevice, s);
  }
  if (ev[3]) cudaEventRecord(ev[3], s);
  /* The one wait of the phases (beside the two inside MIS-2): the counts. */
  if (!st && n > 0) {
    AggCounts *pinned = NULL;
    st = mispc_pinned_scratch(ctx, sizeof got, (void **)&pinned);
    if (!st) {
      cudaMemcpyAsync(pinned, c, sizeof got, cudaMemcpyDeviceToHost, s);
      st = mispc_sync(ctx, s, "aggregation phases");
    }
    if (!st) got = *pinned;
  }
  if (basic) got.left2 = got.left1;
  double extra = 0;
  /* Phase 3's long rows, where the count says there are any (no launch
   * with nothing to do); the sorted path waits at its end. */
  const int64_t hashed = (int64_t)(got.defer3 & 0xffffffffull),
                sorted = (int64_t)(got.defer3 >> 32);
  if (!st && hashed > 0) {
    const double t = mispc_wtime();
    high_leftovers<<<grid, kBlock, 0, s>>>(n, g->rowptr, tent, kPairwiseDegree, hash_row(ctx),
                                           flag);
    st = MISPC_CUDA_CALL(ctx, select_flagged(sel_temp, sel, n, flag, list, &c->hashed, s));
    if (!st) {
      phase3_hashed<<<mispc_device_grid(ctx, hashed * kBlock, kBlock), kBlock, 0, s>>>(
          list, &c->hashed, g->rowptr, g->colidx, tent, size, a->agg);
      st = sorted > 0 ? MISPC_CUDA_CALL(ctx, cudaGetLastError())
                      : mispc_sync(ctx, s, "phase 3 (hashed labels)");
    }
    extra = mispc_wtime() - t;
  }
  if (!st && sorted > 0) {
    const double t = mispc_wtime();
    st = phase3_high_degree(ctx, s, g, tent, size, a->agg, sorted, flag, list, sel_temp, sel,
                            &c->high);
    extra += mispc_wtime() - t;
  }
  if (!st) {
    a->naggs = got.roots1 + got.added2;
    a->phase_aggs[0] = got.roots1;
    a->phase_aggs[1] = a->phase_aggs[2] = a->naggs;
    a->phase_done[0] = n - (int64_t)got.left1;
    a->phase_done[1] = n - (int64_t)got.left2;
    a->phase_done[2] = n;
    a->mis_rounds[0] = r1.rounds;
    a->mis_rounds[1] = !basic && got.left1 > 0 ? r2.rounds : 0;
    for (int k = 0; k < 3; ++k) a->phase_seconds[k] = event_seconds(ev[k], ev[k + 1]);
  }
  if (!st && collect && n > 0) {
    const double t = mispc_wtime();
    st = collect_isolated(ctx, s, a, keep, newid, got.kept, got.first, removed);
    extra += mispc_wtime() - t;
  }
  if (!st) a->phase_seconds[2] += extra;
  mispc_scratch_free(ctx, scratch);
  for (int k = 0; k < 4; ++k)
    if (ev[k]) cudaEventDestroy(ev[k]);
  return st;
}

extern "C" mispc_status agg_split_cuda(mispc_context *ctx, mispc_aggregates *a, int64_t B,
                                       int64_t *added) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  *added = 0;
  const int64_t na = a->naggs, n = a->n;
  if (na == 0) return MISPC_SUCCESS;
  int64_t *ptr = NULL; /* ptr (na + 1), base (na + 1), rank (na) */
  int32_t *order = NULL, *parent = NULL;
  void *temp = NULL;
  size_t scan_bytes = 0;
  cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, ptr, ptr, na + 1, s);
  mispc_status st =
      mispc_scratch_alloc(ctx, (size_t)(3 * na + 3) * 8, (void **)&ptr, "split offsets");
  if (!st) st = mispc_scratch_alloc(ctx, (size_t)n * 4 + 4, (void **)&order, "members");
  if (!st) st = mispc_scratch_alloc(ctx, scan_bytes + 16, &temp, "scan scratch");
  int64_t *base = ptr + na + 1, *rank = base + na + 1;
  if (!st) st = mispc_order_by_key_cuda(ctx, n, a->agg, (int32_t)na, order, ptr);
  int64_t total = 0;
  if (!st) {
    split_extra<<<mispc_device_grid(ctx, na + 1, kBlock), kBlock, 0, s>>>(na, ptr, B, base);
    cub::DeviceScan::ExclusiveSum(temp, scan_bytes, base, base, na + 1, s);
    cudaMemcpyAsync(&total, base + na, 8, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "aggregate sizes");
  }
  if (!st && total > 0) {
    st = mispc_pool_alloc_n(ctx, a->mem, n + 1, 4, (void **)&parent, "aggregate parents");
    if (!st) {
      const unsigned grid = mispc_device_grid(ctx, n, kBlock);
      split_root_ranks<<<grid, kBlock, 0, s>>>(n, na, order, ptr, a->agg, a->root, rank, parent);
      split_pieces<<<grid, kBlock, 0, s>>>(n, na, B, order, ptr, base, rank, a->agg, a->root,
                                           parent);
      st = mispc_sync(ctx, s, "splitting aggregates");
    }
    if (!st) {
      a->parent = parent;
      a->naggs = na + total;
      *added = total;
    } else {
      mispc_pool_free(ctx, a->mem, parent);
    }
  }
  mispc_scratch_free(ctx, temp);
  mispc_scratch_free(ctx, order);
  mispc_scratch_free(ctx, ptr);
  return st;
}
