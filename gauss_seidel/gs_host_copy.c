/* Host Gauss-Seidel setup: the sweep-ordered copy the host sweeps read
 * (gs_internal.h, struct gs_host_copy). The symbolic setup lays out the
 * pattern and where each value lies in A, so a numeric refresh only
 * gathers. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_internal.h"

void gs_host_copy_free(mispc_context *ctx, mispc_gs *gs) {
  struct gs_host_copy *h = &gs->h;
  void *p[] = {h->perm,   h->rows,   h->cl,     h->ptr,    h->col[0], h->col[1],
               h->src[0], h->src[1], h->val[0], h->val[1], h->wdiag,  h->diag_at};
  for (size_t k = 0; k < sizeof p / sizeof *p; ++k) mispc_pool_free(ctx, MISPC_MEM_HOST, p[k]);
  memset(h, 0, sizeof *h);
}

static int nthreads_of(const mispc_context *ctx) {
  const int nt = mispc_context_num_threads(ctx);
  return nt ? nt : omp_get_max_threads();
}

/* Which part of row i an entry (column j) goes to, as update_cluster_row of
 * gs_host.c: 0 lower (earlier row of its cluster c), 1 outside the cluster
 * or the diagonal, 2 upper (later row of the cluster). */
static inline int row_part(const int32_t *row_cluster, int32_t c, int32_t i, int32_t j) {
  return row_cluster[j] != c || j == i ? 1 : j < i ? 0 : 2;
}

#define ALLOC(ptr, count, elem, what)                                                              \
  MISPC_TRY(mispc_pool_alloc_n(ctx, MISPC_MEM_HOST, (count), (elem), (void **)&(ptr), what))

mispc_status gs_host_pattern(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A) {
  struct gs_host_copy *h = &gs->h;
  const int64_t n = gs->n, ncol = gs->ncolors;
  const int cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  const int nt = nthreads_of(ctx);
  ALLOC(h->perm, n + 1, 4, "sweep order");
  ALLOC(h->rows, ncol + 1, 8, "color rows");
  ALLOC(h->ptr, n + 1, 8, "sorted rows");
  ALLOC(h->col[0], gs->nnz + 1, 4, "sorted columns");
  ALLOC(h->val[0], gs->nnz + 1, 8, "sorted values");
  ALLOC(h->wdiag, n + 1, 8, "omega over the sorted diagonal");
  ALLOC(h->diag_at, n + 1, 4, "diagonal places");
  if (cluster) {
    const int64_t nc = gs->nclusters;
    ALLOC(h->cl, nc + 1, 8, "cluster rows");
    for (int d = 0; d < 2; ++d) {
      if (d) ALLOC(h->col[d], gs->nnz + 1, 4, "sorted columns");
      if (d) ALLOC(h->val[d], gs->nnz + 1, 8, "sorted values");
      ALLOC(h->src[d], gs->nnz + 1, 4, "value places");
    }
    /* the clusters of `order` one after another, each its rows of cl_rows */
    h->cl[0] = 0;
    for (int64_t k = 0; k < nc; ++k)
      h->cl[k + 1] = h->cl[k] + (gs->cl_ptr[gs->order[k] + 1] - gs->cl_ptr[gs->order[k]]);
    for (int64_t c = 0; c <= ncol; ++c) h->rows[c] = h->cl[gs->color_ptr[c]];
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t k = 0; k < nc; ++k)
      memcpy(h->perm + h->cl[k], gs->cl_rows + gs->cl_ptr[gs->order[k]],
             sizeof(int32_t) * (size_t)(h->cl[k + 1] - h->cl[k]));
  } else {
    memcpy(h->perm, gs->order, sizeof(int32_t) * (size_t)n);
    memcpy(h->rows, gs->color_ptr, sizeof(int64_t) * (size_t)(ncol + 1));
  }
  /* row lengths, then their running sum (sequential: n additions) */
  h->ptr[0] = 0;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t q = 0; q < n; ++q) {
    const int32_t i = h->perm[q];
    h->ptr[q + 1] = A->rowptr[i + 1] - A->rowptr[i];
  }
  for (int64_t q = 0; q < n; ++q) h->ptr[q + 1] += h->ptr[q];
  const int32_t *rc = gs->row_cluster;
  /* each row of A into its place: a point row unchanged; a cluster row by
   * parts in the order of each direction (update_cluster_row) */
  static const int first[2][3] = {{1, 2, 0}, {0, 1, 2}}; /* parts in the copy's order */
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t q = 0; q < n; ++q) {
    const int32_t i = h->perm[q];
    const int64_t rb = A->rowptr[i], len = A->rowptr[i + 1] - rb, d0 = h->ptr[q];
    int32_t diag = -1;
    for (int64_t k = 0; k < len; ++k)
      if (A->colidx[rb + k] == i) {
        diag = (int32_t)k;
        break;
      }
    h->diag_at[q] = diag;
    if (!cluster) {
      memcpy(h->col[0] + d0, A->colidx + rb, sizeof(int32_t) * (size_t)len);
      continue;
    }
    const int32_t c = rc[i];
    int64_t count[3] = {0, 0, 0};
    for (int64_t k = 0; k < len; ++k) ++count[row_part(rc, c, i, A->colidx[rb + k])];
    for (int d = 0; d < 2; ++d) {
      int64_t at[3]; /* where the next entry of each part goes */
      at[first[d][0]] = d0;
      at[first[d][1]] = d0 + count[first[d][0]];
      at[first[d][2]] = d0 + count[first[d][0]] + count[first[d][1]];
      int64_t up_end = d0 + len; /* backward: the upper part from its end (rows decreasing) */
      for (int64_t k = 0; k < len; ++k) {
        const int32_t j = A->colidx[rb + k];
        const int part = row_part(rc, c, i, j);
        const int64_t dst = d && part == 2 ? --up_end : at[part]++;
        h->col[d][dst] = j;
        h->src[d][dst] = (int32_t)k;
      }
    }
  }
  return MISPC_SUCCESS;
}

mispc_status gs_host_values(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A, int64_t *bad_row,
                            int *bad_kind) {
  const struct gs_host_copy *h = &gs->h;
  const int64_t n = gs->n;
  const int nt = nthreads_of(ctx);
  const int rp = gs->opt.require_positive_diagonal;
  const double omega = gs->opt.omega;
  uint64_t first_bad = UINT64_MAX; /* the least (row << 3 | kind), as gs_diag_host's first row */
#pragma omp parallel for schedule(static) num_threads(nt) reduction(min : first_bad)
  for (int64_t q = 0; q < n; ++q) {
    const int32_t i = h->perm[q];
    const int64_t base = A->rowptr[i], b = h->ptr[q], e = h->ptr[q + 1];
    if (h->src[0])
      for (int dir = 0; dir < 2; ++dir)
        for (int64_t d = b; d < e; ++d) h->val[dir][d] = A->values[base + h->src[dir][d]];
    else
      memcpy(h->val[0] + b, A->values + base, sizeof(double) * (size_t)(e - b));
    const int32_t at = h->diag_at[q];
    const int kind =
        gs_diag_kind(at >= 0, at >= 0 ? A->values[base + at] : 0.0, rp, omega, &h->wdiag[q]);
    if (kind) {
      const uint64_t key = (uint64_t)i << 3 | (uint64_t)kind;
      first_bad = key < first_bad ? key : first_bad;
    }
  }
  *bad_row = first_bad == UINT64_MAX ? -1 : (int64_t)(first_bad >> 3);
  *bad_kind = first_bad == UINT64_MAX ? 0 : (int)(first_bad & 7);
  return MISPC_SUCCESS;
}
