/* The aggregation phases on the GPU (semantics in agg_backend.h; the host
 * twins are in aggregate_host.c and give identical labels).
 *
 * Phase 1 and 2 label disjoint stars (roots are >= 3 apart in the graph the
 * MIS-2 ran on), so plain parallel writes never collide. Phase 3 reads a
 * frozen copy of the labels, so its choices do not depend on order. Root
 * numbering in increasing id comes from CUB's stable select. */
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <stdint.h>

#include "agg_backend.h"
#include "csr_build.h"
#include "cuda_util.cuh"
#include "mis_backend.h"

namespace {

constexpr int kBlock = 256;

/* Labels root k and its neighbours with `first + k`; with only_free, only
 * neighbours that were unaggregated (agg < 0) are taken. */
__global__ void label_stars(const int64_t *rowptr, const int32_t *colidx, const int32_t *root,
                            int64_t nroots, int64_t first, bool only_free, int32_t *agg) {
  const int lane = threadIdx.x & 31;
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t k = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; k < nroots; k += nwarps) {
    int32_t r = root[first + k];
    int32_t id = (int32_t)(first + k);
    for (int64_t p = rowptr[r] + lane; p < rowptr[r + 1]; p += 32) {
      int32_t u = colidx[p];
      if (u != r && (!only_free || agg[u] < 0)) agg[u] = id;
    }
    if (lane == 0) agg[r] = id;
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

__global__ void unaggregated(int64_t n, const int32_t *agg, uint8_t *mask,
                             unsigned long long *count) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    uint8_t m = agg[v] < 0;
    mask[v] = m;
    mine += m;
  }
  mine = mispc_block_sum<kBlock>(mine);
  if (threadIdx.x == 0 && mine) atomicAdd(count, mine);
}

__global__ void aggregate_sizes(int64_t n, const int32_t *tent, int32_t *size) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x)
    if (tent[v] >= 0) atomicAdd(&size[tent[v]], 1);
}

/* Phase 3: each unaggregated v joins, among the tentative aggregates of its
 * neighbours, the one with most neighbours in it, then the smaller, then the
 * lower id (basic: that of its smallest-id aggregated neighbour). */
constexpr int64_t kPairwiseDegree = 32; /* above: sorted labels (phase3_sorted) */

/* deferred counts the vertices left to phase3_sorted (one atomic per block). */
__global__ void phase3(int64_t n, const int64_t *rowptr, const int32_t *colidx, const int32_t *tent,
                       const int32_t *size, bool basic, int32_t *agg,
                       unsigned long long *deferred) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    if (tent[v] >= 0) continue;
    if (!basic && rowptr[v + 1] - rowptr[v] > kPairwiseDegree) { /* phase3_sorted */
      ++mine;
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
      if (best < 0 || c > best_count ||
          (c == best_count && (sz < best_size || (sz == best_size && a < best)))) {
        best = a;
        best_count = c;
        best_size = sz;
      }
    }
    agg[v] = best;
  }
  mine = mispc_block_sum<kBlock>(mine);
  if (threadIdx.x == 0 && mine) atomicAdd(deferred, mine);
}

/* High-degree leftovers: flag them, then gather their neighbours' labels into
 * one segment each (unaggregated neighbours as INT32_MAX, sorted last). */
__global__ void high_leftovers(int64_t n, const int64_t *rowptr, const int32_t *tent,
                               uint8_t *flag) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x)
    flag[v] = tent[v] < 0 && rowptr[v + 1] - rowptr[v] > kPairwiseDegree;
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
      /* labels ascend, so on a tie of (count, size) the first (smaller id) stays */
      if (best < 0 || c > best_count || (c == best_count && sz < best_size)) {
        best = labels[i];
        best_count = c;
        best_size = sz;
      }
      i = j;
    }
    agg[list[k]] = best;
  }
}

/* MISPC_ISOLATED_COLLECT, step 1: keep[c] = 0 where aggregate c's root has
 * no neighbour but itself (then c is that vertex alone), else 1;
 * first[0] = the least such c. keep[na] = 0 for the scan's total. */
__global__ void isolated_aggregates(int64_t na, const int32_t *root, const int64_t *rowptr,
                                    const int32_t *colidx, int32_t *keep, unsigned *first) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c <= na;
       c += (int64_t)gridDim.x * blockDim.x) {
    if (c == na) {
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

extern "C" mispc_status agg_phase1_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const uint8_t *in_set, int32_t *agg, int32_t *root,
                                        int64_t *naggs) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(agg, 0xff, (size_t)g->nrows * 4, s)); /* all -1 */
  MISPC_TRY(mispc_mis_to_list_cuda(ctx, g->nrows, in_set, root, naggs));    /* increasing id */
  if (*naggs > 0)
    label_stars<<<mispc_device_grid(ctx, 32 * *naggs, kBlock), kBlock, 0, s>>>(
        g->rowptr, g->colidx, root, *naggs, 0, false, agg);
  return mispc_sync(ctx, s, "aggregation phase 1");
}

extern "C" mispc_status agg_unaggregated_cuda(mispc_context *ctx, int64_t n, const int32_t *agg,
                                              uint8_t *mask, int64_t *count) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  unsigned long long *d = NULL, h = 0;
  MISPC_TRY(mispc_scratch_alloc(ctx, 8, (void **)&d, "counter"));
  cudaMemsetAsync(d, 0, 8, s);
  if (n > 0) unaggregated<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, agg, mask, d);
  cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "unaggregated count");
  mispc_scratch_free(ctx, d);
  *count = (int64_t)h;
  return st;
}

extern "C" mispc_status agg_phase2_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const uint8_t *in_set, int min_free, int32_t *agg,
                                        int32_t *root, int64_t *naggs) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = g->nrows;
  uint8_t *flag = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, (size_t)n + 1, (void **)&flag, "phase-2 candidates"));
  phase2_candidates<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(
      n, g->rowptr, g->colidx, in_set, agg, min_free, flag);
  int64_t added = 0;
  mispc_status st = mispc_mis_to_list_cuda(ctx, n, flag, root + *naggs, &added);
  if (!st && added > 0)
    label_stars<<<mispc_device_grid(ctx, 32 * added, kBlock), kBlock, 0, s>>>(
        g->rowptr, g->colidx, root, added, *naggs, true, agg);
  if (!st) st = mispc_sync(ctx, s, "aggregation phase 2");
  mispc_scratch_free(ctx, flag);
  if (!st) *naggs += added;
  return st;
}

/* Phase 3 for leftovers of degree > kPairwiseDegree: CUB segmented sort of
 * their neighbours' labels, then one pass per segment (O(deg log deg)). */
static mispc_status phase3_high_degree(mispc_context *ctx, cudaStream_t s, const mispc_csr *g,
                                       const int32_t *tent, const int32_t *size, int32_t *agg) {
  const int64_t n = g->nrows;
  uint8_t *flag = NULL;
  int32_t *list = NULL, *labels = NULL, *sorted = NULL;
  int64_t h = 0, *off = NULL, total = 0;
  void *temp = NULL;
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n + 1, (void **)&flag, "phase-3 flags");
  if (!st) st = mispc_scratch_alloc(ctx, (size_t)n * 4 + 4, (void **)&list, "phase-3 list");
  if (!st) {
    high_leftovers<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, g->rowptr, tent, flag);
    st = mispc_mis_to_list_cuda(ctx, n, flag, list, &h);
  }
  if (!st && h > 0) st = mispc_scratch_alloc(ctx, (size_t)(h + 1) * 8, (void **)&off, "segments");
  if (!st && h > 0) {
    size_t scan_bytes = 0;
    segment_sizes<<<mispc_device_grid(ctx, h, kBlock), kBlock, 0, s>>>(h, list, g->rowptr, off);
    cudaMemsetAsync(off + h, 0, 8, s); /* the exclusive scan then ends with the total */
    cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, off, off, h + 1, s);
    st = mispc_scratch_alloc(ctx, scan_bytes + 16, &temp, "scan scratch");
    if (!st) {
      cub::DeviceScan::ExclusiveSum(temp, scan_bytes, off, off, h + 1, s);
      cudaMemcpyAsync(&total, off + h, 8, cudaMemcpyDeviceToHost, s);
      st = mispc_sync(ctx, s, "phase-3 segments");
    }
    mispc_scratch_free(ctx, temp);
    temp = NULL;
  }
  if (!st && h > 0)
    st = mispc_scratch_alloc(ctx, (size_t)total * 8 + 8, (void **)&labels, "phase-3 labels");
  if (!st && h > 0) {
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
  mispc_scratch_free(ctx, list);
  mispc_scratch_free(ctx, flag);
  return st;
}

extern "C" mispc_status agg_phase3_cuda(mispc_context *ctx, const mispc_csr *g, int32_t *agg,
                                        int64_t naggs, int basic) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t n = g->nrows;
  int32_t *tent = NULL, *size = NULL;
  unsigned long long *d_deferred = NULL, deferred = 0;
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n * 4 + 4, (void **)&tent, "tentative labels");
  if (!st) st = mispc_scratch_alloc(ctx, (size_t)naggs * 4 + 16, (void **)&size, "aggregate sizes");
  if (!st) {
    d_deferred = (unsigned long long *)(size + ((naggs + 1) & ~1ll)); /* 8-aligned tail */
    cudaMemcpyAsync(tent, agg, (size_t)n * 4, cudaMemcpyDeviceToDevice, s);
    cudaMemsetAsync(size, 0, (size_t)naggs * 4 + 16, s);
    aggregate_sizes<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, tent, size);
    phase3<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, g->rowptr, g->colidx, tent, size,
                                                                basic != 0, agg, d_deferred);
    cudaMemcpyAsync(&deferred, d_deferred, 8, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "aggregation phase 3");
    if (!st && deferred) st = phase3_high_degree(ctx, s, g, tent, size, agg);
  }
  mispc_scratch_free(ctx, tent);
  mispc_scratch_free(ctx, size);
  return st;
}

extern "C" mispc_status agg_collect_isolated_cuda(mispc_context *ctx, const mispc_csr *g,
                                                  mispc_aggregates *a, int64_t *removed) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  *removed = 0;
  const int64_t na = a->naggs, n = a->n;
  if (na == 0) return MISPC_SUCCESS;
  int32_t *keep = NULL, *newid = NULL, *root = NULL;
  void *temp = NULL;
  size_t scan_bytes = 0;
  cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, keep, newid, na + 1, s);
  mispc_status st =
      mispc_scratch_alloc(ctx, (size_t)(na + 1) * 8 + 16, (void **)&keep, "isolated aggregates");
  if (!st) st = mispc_scratch_alloc(ctx, scan_bytes + 16, &temp, "scan scratch");
  unsigned *first = NULL;
  if (!st) {
    newid = keep + na + 1;
    first = (unsigned *)(newid + na + 1);
    cudaMemsetAsync(first, 0xff, 4, s);
    isolated_aggregates<<<mispc_device_grid(ctx, na + 1, kBlock), kBlock, 0, s>>>(
        na, a->root, g->rowptr, g->colidx, keep, first);
    cub::DeviceScan::ExclusiveSum(temp, scan_bytes, keep, newid, na + 1, s);
  }
  int32_t head[2] = {0, 0}; /* kept aggregates, then the least isolated one */
  if (!st) {
    cudaMemcpyAsync(&head[0], newid + na, 4, cudaMemcpyDeviceToHost, s);
    cudaMemcpyAsync(&head[1], first, 4, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "isolated aggregates");
  }
  const int64_t kept = head[0];
  if (!st && kept < na) { /* some are isolated: relabel, new root array */
    st = mispc_pool_alloc_n(ctx, a->mem, n + 1, 4, (void **)&root, "aggregate roots");
    if (!st) {
      relabel_isolated<<<mispc_device_grid(ctx, n > na ? n : na, kBlock), kBlock, 0, s>>>(
          n, na, keep, newid, (int32_t)kept, a->agg, a->root, root);
      cudaMemcpyAsync(root + kept, a->root + head[1], 4, cudaMemcpyDeviceToDevice, s);
      st = mispc_sync(ctx, s, "isolated aggregates");
    }
    if (!st) {
      mispc_pool_free(ctx, a->mem, a->root);
      a->root = root;
      a->naggs = kept + 1;
      *removed = na - kept;
    } else {
      mispc_pool_free(ctx, a->mem, root);
    }
  }
  mispc_scratch_free(ctx, temp);
  mispc_scratch_free(ctx, keep);
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
