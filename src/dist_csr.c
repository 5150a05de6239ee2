/* Row-partitioned graphs in the MATMPIAIJ layout: construction from rows
 * with global column ids, wrapping PETSc's blocks, and release. */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

/* Every rank's range, checked to tile [0, nglobal) in rank order with the
 * same nglobal everywhere. Collective; ranges gets P + 1 offsets. */
static mispc_status gather_ranges(mispc_context *ctx, MPI_Comm comm, int64_t nglobal,
                                  int64_t rstart, int64_t rend, int64_t **ranges_out) {
  int P = 0, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  *ranges_out = NULL;
  int64_t mine[3] = {nglobal, rstart, rend};
  int64_t *all = (int64_t *)malloc(sizeof(int64_t) * 3 * (size_t)P);
  int64_t *ranges = (int64_t *)malloc(sizeof(int64_t) * ((size_t)P + 1));
  mispc_status s = (all && ranges) ? MISPC_SUCCESS
                                   : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for ranges");
  s = mispc_dist_agree(ctx, comm, s);
  if (!s && MPI_Allgather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, comm) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allgather of row ranges failed");
  /* Every rank sees the same table, so every rank finds the same problem. */
  for (int p = 0; !s && p < P; ++p) {
    const int64_t *a = all + 3 * p;
    if (a[0] != all[0])
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                       "inconsistent global sizes: rank 0 has %lld, rank %d has %lld",
                       (long long)all[0], p, (long long)a[0]);
    else if (a[0] < 0 || a[2] < a[1] || a[1] != (p ? all[3 * p - 1] : 0))
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                       "row ranges must tile [0, %lld) in rank order: rank %d has [%lld, %lld)",
                       (long long)all[0], p, (long long)a[1], (long long)a[2]);
    else
      ranges[p] = a[1];
  }
  if (!s && all[3 * P - 1] != all[0])
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "row ranges end at %lld, not at the global size %lld",
                     (long long)all[3 * P - 1], (long long)all[0]);
  if (!s && all[0] > INT32_MAX)
    s = mispc_seterr(ctx, MISPC_ERR_OVERFLOW,
                     "%lld global vertices: MIS tuples and local ids need fewer than 2^31",
                     (long long)all[0]);
  if (!s) ranges[P] = all[0];
  free(all);
  if (s) {
    free(ranges);
    return s;
  }
  *ranges_out = ranges;
  return MISPC_SUCCESS;
}

/* Everything but the blocks: ranges, halo. */
/* The halo plan; for a device graph also its device mirror (send list,
 * packing and staging buffers), made here where a failure is agreed, so
 * that no exchange allocates: one that did could fail on one rank while its
 * neighbours wait in the exchange. */
static mispc_status finish(mispc_context *ctx, mispc_dist_csr *g) {
  MISPC_TRY(mispc_halo_create(ctx, g->comm, g->ranges, g->rstart, g->nghost, g->garray, &g->halo));
  if (g->diag.mem != MISPC_MEM_DEVICE) return MISPC_SUCCESS;
  const int32_t *d_sidx = NULL;
  MISPC_TRY(mispc_dist_agree(ctx, g->comm, mispc_halo_device_send_list(ctx, g->halo, &d_sidx)));
  /* every device graph (copied or wrapped) starts on AUTO: NCCL where each
   * rank has a GPU of its own, else MPI staged through the host */
  return mispc_halo_set_transport(ctx, g->halo, g->comm, MISPC_TRANSPORT_AUTO);
}

void mispc_dist_csr_free(mispc_context *ctx, mispc_dist_csr *g) {
  if (!g) return;
  mispc_csr_free(ctx, &g->diag);
  mispc_csr_free(ctx, &g->offd);
  if (g->owns_garray) free(g->garray);
  free(g->ranges);
  mispc_halo_destroy(g->halo);
  memset(g, 0, sizeof *g);
}

/* Splits local rows with global columns into the two blocks (host). */
static mispc_status split_rows(mispc_context *ctx, mispc_dist_csr *g, const int64_t *rowptr,
                               const int64_t *gcol, const double *values) {
  const int64_t nloc = g->rend - g->rstart, n = g->nglobal;
  const int64_t nnz = nloc ? rowptr[nloc] : 0;
  if (nloc && rowptr[0] != 0)
    return mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE, "row offsets must start at 0, got %lld",
                        (long long)rowptr[0]);
  int64_t nd = 0, no = 0;
  for (int64_t i = 0; i < nloc; ++i) {
    if (rowptr[i + 1] < rowptr[i])
      return mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE, "row offsets decrease at local row %lld",
                          (long long)i);
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p) {
      int64_t c = gcol[p];
      if (c < 0 || c >= n)
        return mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE, "row %lld: column %lld outside [0, %lld)",
                            (long long)(g->rstart + i), (long long)c, (long long)n);
      if (c >= g->rstart && c < g->rend)
        ++nd;
      else
        ++no;
    }
  }
  int64_t *gh = (int64_t *)mispc_host_alloc(ctx, sizeof(int64_t) * (size_t)(no + 1), "ghost ids");
  if (!gh) return MISPC_ERR_ALLOC;
  /* Each off-diagonal entry's ghost index: its (column, entry) keys sorted
   * give the ghosts in order and every entry's index in one scan, where
   * the columns fit 31 bits and the entries 33 (a binary search an entry
   * in the ghost ids had been a fifth of loading gen:kron:20 on 2 ranks);
   * else (and with tuning dist_ghost_search, which tests that path) the
   * ghost ids sorted and searched. */
  int32_t *gidx =
      n <= ((int64_t)1 << 31) && no < ((int64_t)1 << 33) && !ctx->tuning.dist_ghost_search
          ? (int32_t *)malloc(sizeof(int32_t) * (size_t)(no + 1))
          : NULL;
  int64_t ng = 0;
  if (gidx) {
    uint64_t *key = (uint64_t *)gh; /* the keys in the ids' array, the ids after them */
    int64_t k = 0;
    for (int64_t p = 0; p < nnz; ++p)
      if (gcol[p] < g->rstart || gcol[p] >= g->rend)
        key[k] = (uint64_t)gcol[p] << 33 | (uint64_t)k, ++k;
    uint64_t *tmp = NULL;
    const uint64_t *sorted = mispc_sorted_u64(key, no, &tmp);
    const uint64_t low = ((uint64_t)1 << 33) - 1;
    int64_t prev = -1;
    for (int64_t j = 0; j < no; ++j) { /* ng <= j: the ids overwrite keys already read */
      const uint64_t kj = sorted[j];   /* read before gh[ng] may overwrite it */
      const int64_t c = (int64_t)(kj >> 33);
      if (c != prev) gh[ng++] = c, prev = c;
      gidx[kj & low] = (int32_t)(ng - 1);
    }
    free(tmp);
  } else {
    int64_t k = 0;
    for (int64_t p = 0; p < nnz; ++p)
      if (gcol[p] < g->rstart || gcol[p] >= g->rend) gh[k++] = gcol[p];
    /* the ghost ids sorted (ids are >= 0): a radix sort where there are many
     * (a coarse graph's rows can have half their entries off the rank) */
    uint64_t *tmp = NULL;
    const uint64_t *sorted = mispc_sorted_u64((uint64_t *)gh, no, &tmp);
    if (sorted != (const uint64_t *)gh) memcpy(gh, sorted, sizeof(int64_t) * (size_t)no);
    free(tmp);
    for (int64_t j = 0; j < no; ++j)
      if (j == 0 || gh[j] != gh[j - 1]) gh[ng++] = gh[j];
  }
  g->garray = gh;
  g->owns_garray = 1;
  g->nghost = ng;
  mispc_status st = mispc_csr_alloc(ctx, MISPC_MEM_HOST, nloc, nloc, nd, values != NULL, &g->diag);
  if (!st) st = mispc_csr_alloc(ctx, MISPC_MEM_HOST, nloc, ng, no, values != NULL, &g->offd);
  if (st) {
    free(gidx);
    return st;
  }
  int64_t a = 0, b = 0;
  for (int64_t i = 0; i < nloc; ++i) {
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p) {
      int64_t c = gcol[p];
      if (c >= g->rstart && c < g->rend) {
        g->diag.colidx[a] = (int32_t)(c - g->rstart);
        if (values) g->diag.values[a] = values[p];
        ++a;
      } else {
        g->offd.colidx[b] = gidx ? gidx[b] : (int32_t)mispc_lower_bound_i64(gh, 0, ng, c);
        if (values) g->offd.values[b] = values[p];
        ++b;
      }
    }
    g->diag.rowptr[i + 1] = a;
    g->offd.rowptr[i + 1] = b;
  }
  free(gidx);
  return MISPC_SUCCESS;
}

mispc_status mispc_dist_csr_from_global(mispc_context *ctx, MPI_Comm comm, int64_t nglobal,
                                        int64_t rstart, int64_t rend, const int64_t *rowptr,
                                        const int64_t *gcol, const double *values,
                                        mispc_dist_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!out) /* the other ranks wait in the first agreement below: fail there */
    return mispc_dist_agree(
        ctx, comm,
        mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_csr_from_global: output is NULL"));
  memset(out, 0, sizeof *out);
  out->comm = comm;
  out->nglobal = nglobal;
  out->rstart = rstart;
  out->rend = rend;
  mispc_status s = MISPC_SUCCESS;
  if (rend > rstart && (!rowptr || (!gcol && rowptr[rend - rstart] > 0)))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_csr_from_global: NULL row arrays");
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) s = gather_ranges(ctx, comm, nglobal, rstart, rend, &out->ranges);
  if (!s) s = mispc_dist_agree(ctx, comm, split_rows(ctx, out, rowptr, gcol, values));
  if (!s) s = finish(ctx, out);
  if (s) mispc_dist_csr_free(ctx, out);
  return s;
}

mispc_status mispc_dist_csr_wrap(mispc_context *ctx, MPI_Comm comm, int64_t nglobal, int64_t rstart,
                                 const mispc_csr *diag, const mispc_csr *offd, int64_t nghost,
                                 const int64_t *garray, mispc_dist_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!out) /* the other ranks wait in the first agreement below: fail there */
    return mispc_dist_agree(
        ctx, comm, mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_csr_wrap: output is NULL"));
  memset(out, 0, sizeof *out);
  mispc_status s = MISPC_SUCCESS;
  if (!diag || !offd || (nghost > 0 && !garray) || nghost < 0)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_csr_wrap: NULL block or garray");
  if (!s) s = mispc_csr_check_desc(ctx, diag, "diagonal block");
  if (!s) s = mispc_csr_check_desc(ctx, offd, "off-diagonal block");
  if (!s && (diag->ncols != diag->nrows || offd->nrows != diag->nrows || offd->ncols != nghost))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "mispc_dist_csr_wrap: blocks %lld x %lld and %lld x %lld do not fit %lld rows "
                     "and %lld ghosts",
                     (long long)diag->nrows, (long long)diag->ncols, (long long)offd->nrows,
                     (long long)offd->ncols, (long long)diag->nrows, (long long)nghost);
  s = mispc_dist_agree(ctx, comm, s);
  if (s) return s;
  out->comm = comm;
  out->nglobal = nglobal;
  out->rstart = rstart;
  out->rend = rstart + diag->nrows;
  out->diag = *diag;
  out->diag.owned = 0;
  out->offd = *offd;
  out->offd.owned = 0;
  out->nghost = nghost;
  out->garray = (int64_t *)garray;
  out->owns_garray = 0;
  s = gather_ranges(ctx, comm, nglobal, out->rstart, out->rend, &out->ranges);
  if (!s) s = finish(ctx, out);
  if (s) mispc_dist_csr_free(ctx, out);
  return s;
}

mispc_status mispc_dist_csr_from_rows(mispc_context *ctx, MPI_Comm comm, const mispc_csr *whole,
                                      int64_t rstart, int64_t rend, mispc_dist_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!out) /* the other ranks wait in the first agreement below: fail there */
    return mispc_dist_agree(
        ctx, comm,
        mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_csr_from_rows: output is NULL"));
  mispc_status s = mispc_csr_check_desc(ctx, whole, "whole graph");
  if (!s && whole->mem != MISPC_MEM_HOST)
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "mispc_dist_csr_from_rows: host graphs only");
  if (!s && (rstart < 0 || rend < rstart || rend > whole->nrows))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "rows [%lld, %lld) outside [0, %lld)",
                     (long long)rstart, (long long)rend, (long long)whole->nrows);
  int64_t nloc = s ? 0 : rend - rstart;
  int64_t base = s ? 0 : whole->rowptr[rstart], nnz = s ? 0 : whole->rowptr[rend] - base;
  int64_t *rp =
      s ? NULL : (int64_t *)mispc_host_alloc(ctx, sizeof(int64_t) * (size_t)(nloc + 1), "rows");
  int64_t *gc =
      s ? NULL : (int64_t *)mispc_host_alloc(ctx, sizeof(int64_t) * (size_t)(nnz + 1), "columns");
  if (!s && (!rp || !gc)) s = MISPC_ERR_ALLOC;
  if (!s) {
    for (int64_t i = 0; i <= nloc; ++i) rp[i] = whole->rowptr[rstart + i] - base;
    for (int64_t p = 0; p < nnz; ++p) gc[p] = whole->colidx[base + p];
  }
  s = mispc_dist_agree(ctx, comm, s);
  if (!s)
    s = mispc_dist_csr_from_global(ctx, comm, whole->nrows, rstart, rend, rp, gc,
                                   whole->values ? whole->values + base : NULL, out);
  free(rp);
  free(gc);
  return s;
}

mispc_status mispc_dist_csr_copy(mispc_context *ctx, const mispc_dist_csr *src, mispc_memspace mem,
                                 mispc_dist_csr *dst) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!dst) {
    mispc_status e =
        mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_csr_copy: output is NULL");
    return src && src->ranges ? mispc_dist_agree(ctx, src->comm, e) : e;
  }
  memset(dst, 0, sizeof *dst);
  if (!src || !src->ranges)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_csr_copy: source not built");
  int P = 0;
  MPI_Comm_size(src->comm, &P);
  *dst = *src;
  memset(&dst->diag, 0, sizeof dst->diag);
  memset(&dst->offd, 0, sizeof dst->offd);
  dst->halo = NULL;
  dst->garray = (int64_t *)malloc(sizeof(int64_t) * (size_t)(src->nghost + 1));
  dst->owns_garray = 1;
  dst->ranges = (int64_t *)malloc(sizeof(int64_t) * ((size_t)P + 1));
  mispc_status s = dst->garray && dst->ranges
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory copying a graph");
  if (!s) {
    memcpy(dst->garray, src->garray, sizeof(int64_t) * (size_t)src->nghost);
    memcpy(dst->ranges, src->ranges, sizeof(int64_t) * ((size_t)P + 1));
    s = mispc_csr_copy(ctx, &src->diag, mem, &dst->diag);
  }
  if (!s) s = mispc_csr_copy(ctx, &src->offd, mem, &dst->offd);
  s = mispc_dist_agree(ctx, src->comm, s);
  if (!s) s = finish(ctx, dst);
  if (s) mispc_dist_csr_free(ctx, dst);
  return s;
}

mispc_status mispc_dist_set_transport(mispc_context *ctx, mispc_dist_csr *g,
                                      mispc_dist_transport t) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!g || !g->halo)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_set_transport: graph not built");
  mispc_status s = MISPC_SUCCESS;
  if (t != MISPC_TRANSPORT_AUTO && t != MISPC_TRANSPORT_MPI && t != MISPC_TRANSPORT_NCCL)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_set_transport: unknown transport %d",
                     (int)t);
  else if (g->diag.mem != MISPC_MEM_DEVICE && t == MISPC_TRANSPORT_NCCL)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "mispc_dist_set_transport: NCCL carries device graphs only");
  s = mispc_dist_agree(ctx, g->comm, s);
  if (s || g->diag.mem != MISPC_MEM_DEVICE) return s;
  return mispc_halo_set_transport(ctx, g->halo, g->comm, (int)t);
}

const char *mispc_dist_transport_name(const mispc_dist_csr *g) {
  return g && g->halo && g->halo->transport == MISPC_TRANSPORT_NCCL ? "nccl" : "mpi";
}

mispc_status mispc_dist_get_stats(const mispc_dist_csr *g, mispc_dist_stats *st) {
  if (!g || !st || !g->halo) return MISPC_ERR_INVALID_ARG;
  *st = g->halo->stats;
  return MISPC_SUCCESS;
}
