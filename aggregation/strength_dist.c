/* Distributed strength graph (host): the node graph of mispc_strength_graph
 * (strength_host.c) over a row-partitioned matrix, row for row the same.
 * Entry a_ij (i != j) is strong when |a_ij| > theta sqrt(|a_ii a_jj|),
 * decided on the rank of row i with a_jj from the halo.
 *
 * D (the directed node pattern) is built row by row in place: each node's
 * strong blocks, marked once, as ids of a column space that orders the
 * local nodes and the ghost nodes by global id, so a sorted row is sorted
 * by global column. S = D + D^T then needs only the transposes D lacks:
 * an entry (I, J) with J on this rank is looked up in row J (binary
 * search) and (J, I) kept as an extra when missing; an entry with J on
 * another rank sends (J, I) to J's rank (the only records that travel).
 * Every row merges its sorted D row with its extras, which come sorted:
 * received records arrive in rank order, each rank's in increasing I. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg_backend.h"
#include "dist_internal.h"
#include "parts_host.h"

/* Parts of the merge (no marker arrays): at most this many. */
#define MERGE_PARTS_MAX 256

/* Threads: a loop over node rows whose rows append entries runs in parts of
 * consecutive rows, one a thread, each part writing from where its rows'
 * bound (bnd[l], an upper bound of the entries before row l) puts it; the
 * parts are then moved down in row order. Every row is computed whole by
 * one thread, so the result does not depend on the thread count. */

/* The parts' entries (esz bytes each, part k's rows [r[k], r[k + 1]) at
 * bnd[r[k]], ptr[l + 1] its end) moved down to follow each other; ptr
 * shifted; returns the entries in all. */
static int64_t compact_parts(int np, const int64_t *r, const int64_t *bnd, int64_t *ptr, void *a,
                             size_t esz) {
  int64_t at = bnd[0];
  for (int k = 0; k < np; ++k) {
    if (r[k] == r[k + 1]) continue; /* no rows: ptr[r[k]] is not its own */
    const int64_t from = bnd[r[k]], n = ptr[r[k + 1]] - from;
    if (from != at) {
      memmove((char *)a + esz * (size_t)at, (char *)a + esz * (size_t)from, esz * (size_t)n);
      for (int64_t l = r[k]; l < r[k + 1]; ++l) ptr[l + 1] -= from - at;
    }
    at += n;
  }
  return at;
}

/* Working arrays of one call (freed together). */
typedef struct strength_work {
  double *d, *gd;  /* a_ii of the local dofs and of the ghosts */
  int32_t *gu;     /* column-space id of each ghost dof's node */
  int64_t *uglob;  /* global node id of each column-space id */
  int *gown;       /* rank of each ghost node */
  int64_t *drp;    /* D: row offsets (local nodes) */
  int32_t *dcol;   /* D: column-space ids, sorted in each row */
  uint8_t *miss;   /* per D entry: 1 transpose missing on this rank, 2 sent */
  int64_t *rec;    /* (J, I) records sent to the rank of J */
  int *dest;       /* their ranks */
  int64_t *got;    /* records received */
  int64_t *erp;    /* extras: row offsets */
  int64_t *epos;   /* fill positions */
  int64_t *ecol;   /* extras: global ids, sorted in each row */
  int64_t *rowptr; /* S: row offsets */
  int64_t *gcol;   /* S: global column ids */
} strength_work;

static void work_free(strength_work *w) {
  free(w->d), free(w->gd), free(w->gu), free(w->uglob), free(w->gown);
  free(w->drp), free(w->dcol), free(w->miss), free(w->rec), free(w->dest), free(w->got);
  free(w->erp), free(w->epos), free(w->ecol), free(w->rowptr), free(w->gcol);
}

mispc_status mispc_dist_strength_graph(mispc_context *ctx, const mispc_dist_csr *A, double theta,
                                       int block_size, mispc_dist_csr *S) {
  if (!ctx || !A || !S) return MISPC_ERR_INVALID_ARG;
  memset(S, 0, sizeof *S);
  const int bs = block_size;
  mispc_status s = MISPC_SUCCESS;
  if (!A->halo || !A->ranges)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_strength_graph: matrix not built");
  else if (A->diag.mem != MISPC_MEM_HOST)
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "mispc_dist_strength_graph: host matrices only");
  else if (bs < 1 || A->nglobal % bs || A->rstart % bs || A->rend % bs)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "block size %d must be >= 1 and divide the %lld rows and this rank's range "
                     "[%lld, %lld)",
                     bs, (long long)A->nglobal, (long long)A->rstart, (long long)A->rend);
  else if (!(theta >= 0))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "strength threshold must be >= 0, got %g", theta);
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) return s;
  int P = 0;
  MPI_Comm_size(A->comm, &P);
  const int64_t nloc = A->rend - A->rstart, nn = nloc / bs, n0 = A->rstart / bs;
  const int64_t ne = A->diag.nnz + A->offd.nnz, ngh = A->nghost;
  /* A pattern on any rank (entries without values) makes theta 0 on all,
   * as a pattern does on one process; every rank takes the same path. */
  int novals = (A->diag.nnz && !A->diag.values) || (A->offd.nnz && !A->offd.values);
  if (MPI_Allreduce(MPI_IN_PLACE, &novals, 1, MPI_INT, MPI_MAX, A->comm) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed in the strength graph");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) return s;
  const int keep_all = theta == 0 || novals;
  double t0 = mispc_wtime();

  /* Column space: ghost nodes below this rank's nodes, the local nodes,
   * then ghost nodes above, so ids compare as global ids do. */
  int64_t ngn = 0, gl = 0;
  for (int64_t c = 0; c < ngh; ++c)
    if (c == 0 || A->garray[c] / bs != A->garray[c - 1] / bs) {
      ++ngn;
      if (A->garray[c] / bs < n0) ++gl;
    }
  strength_work w;
  memset(&w, 0, sizeof w);
  w.d = (double *)calloc((size_t)nloc + 1, sizeof(double));
  w.gd = (double *)calloc((size_t)ngh + 1, sizeof(double));
  w.gu = (int32_t *)malloc(sizeof(int32_t) * (size_t)(ngh + 1));
  w.uglob = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nn + ngn + 1));
  w.gown = (int *)malloc(sizeof(int) * (size_t)(ngn + 1));
  w.drp = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nn + 1));
  w.dcol = (int32_t *)malloc(sizeof(int32_t) * (size_t)(ne + 1));
  w.miss = (uint8_t *)malloc((size_t)ne + 1);
  w.erp = (int64_t *)calloc((size_t)nn + 1, sizeof(int64_t));
  w.epos = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nn + 1));
  w.rowptr = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nn + 1));
  if (!w.d || !w.gd || !w.gu || !w.uglob || !w.gown || !w.drp || !w.dcol || !w.miss || !w.erp ||
      !w.epos || !w.rowptr)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in the strength graph");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s && !keep_all) {
    /* a_ii: stored diagonal entries summed; 0 when the row stores none */
    for (int64_t i = 0; i < nloc; ++i) w.d[i] = agg_diag_sum(&A->diag, i);
    s = mispc_dist_agree(ctx, A->comm,
                         mispc_halo_exchange(ctx, A->halo, w.d, w.gd, sizeof(double)));
  }
  if (s) {
    work_free(&w);
    return s;
  }
  for (int64_t l = 0; l < nn; ++l) w.uglob[gl + l] = n0 + l;
  for (int64_t c = 0, g = -1; c < ngh; ++c) {
    const int64_t J = A->garray[c] / bs;
    if (c == 0 || J != A->garray[c - 1] / bs) {
      ++g;
      const int64_t u = g < gl ? g : g + nn;
      w.uglob[u] = J;
      w.gown[g] = mispc_dist_owner(A->ranges, P, A->garray[c]);
    }
    w.gu[c] = (int32_t)(g < gl ? g : g + nn);
  }

  /* D, one node row at a time: the distinct strong blocks, sorted; in
   * parts of rows (their A entries the bound), a marker array each */
  int64_t *bnd = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nn + 1));
  const int np = count_parts(ctx, nn, nn + ngn, 4);
  int64_t *pr = (int64_t *)malloc(sizeof(int64_t) * (size_t)(np + 1));
  int failed = !bnd || !pr;
  for (int64_t l = 0; !failed && l <= nn; ++l)
    bnd[l] = A->diag.rowptr[l * bs] + A->offd.rowptr[l * bs];
  for (int k = 0; !failed && k <= np; ++k) pr[k] = part_first_row(bnd, NULL, nn, k, np);
  if (!failed) {
    w.drp[0] = 0;
#pragma omp parallel for schedule(static, 1) num_threads(np) reduction(| : failed)
    for (int k = 0; k < np; ++k) {
      int32_t *mark = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nn + ngn + 1));
      if (!mark) {
        failed = 1;
        continue;
      }
      for (int64_t u = 0; u < nn + ngn; ++u) mark[u] = -1;
      int64_t m = bnd[pr[k]];
      for (int64_t l = pr[k]; l < pr[k + 1]; ++l) {
        const int32_t uI = (int32_t)(gl + l);
        const int64_t start = m;
        for (int64_t i = l * bs; i < (l + 1) * bs; ++i) {
          for (int64_t p = A->diag.rowptr[i]; p < A->diag.rowptr[i + 1]; ++p) {
            const int32_t c = A->diag.colidx[p], u = (int32_t)(gl + c / bs);
            if (u == uI || mark[u] == (int32_t)l) continue;
            if (!keep_all && !(fabs(A->diag.values[p]) > theta * sqrt(fabs(w.d[i] * w.d[c]))))
              continue;
            mark[u] = (int32_t)l;
            w.dcol[m++] = u;
          }
          for (int64_t p = A->offd.rowptr[i]; p < A->offd.rowptr[i + 1]; ++p) {
            const int32_t c = A->offd.colidx[p], u = w.gu[c];
            if (mark[u] == (int32_t)l) continue;
            if (!keep_all && !(fabs(A->offd.values[p]) > theta * sqrt(fabs(w.d[i] * w.gd[c]))))
              continue;
            mark[u] = (int32_t)l;
            w.dcol[m++] = u;
          }
        }
        mispc_sort_i32(w.dcol + start, m - start);
        w.drp[l + 1] = m;
      }
      free(mark);
    }
  }
  const int64_t m = failed ? 0 : compact_parts(np, pr, bnd, w.drp, w.dcol, sizeof(int32_t));
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist strength graph: diagonals, D rows");
  free(bnd), free(pr);
  if (failed) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in the strength graph");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) {
    work_free(&w);
    return s;
  }

  /* The transposes D lacks: looked up here, or sent to the rank of J. */
  int64_t nsend = 0;
  /* counts only: the same for any order of the rows */
#pragma omp parallel for schedule(static) num_threads(count_parts(ctx, nn, 0, 0)) reduction(+ : nsend)
  for (int64_t l = 0; l < nn; ++l) {
    const int32_t uI = (int32_t)(gl + l);
    for (int64_t p = w.drp[l]; p < w.drp[l + 1]; ++p) {
      const int32_t u = w.dcol[p];
      w.miss[p] = 0;
      if (u >= gl && u < gl + nn) {
        const int64_t j = u - gl;
        /* branch-free search: 13 -> 4-7 ms a rank on level 1 of Laplace3D_60
         * (docs/AGGREGATION.md, "Host sparse products") */
        if (!mispc_sorted_has_i32(w.dcol + w.drp[j], w.drp[j + 1] - w.drp[j], uI)) {
          w.miss[p] = 1;
#pragma omp atomic
          w.erp[j + 1]++;
        }
      } else {
        w.miss[p] = 2;
        ++nsend;
      }
    }
  }
  w.rec = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * nsend + 2));
  w.dest = (int *)malloc(sizeof(int) * (size_t)(nsend + 1));
  if (!w.rec || !w.dest)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for %lld strength graph records",
                     (long long)nsend);
  for (int64_t l = 0, k = 0; !s && l < nn; ++l)
    for (int64_t p = w.drp[l]; p < w.drp[l + 1]; ++p)
      if (w.miss[p] == 2) {
        const int32_t u = w.dcol[p];
        w.rec[2 * k] = w.uglob[u];
        w.rec[2 * k + 1] = n0 + l;
        w.dest[k++] = w.gown[u < gl ? u : u - nn];
      }
  s = mispc_dist_agree(ctx, A->comm, s);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist strength graph: missing transposes");
  int64_t ngot = 0;
  if (!s) s = mispc_dist_route(ctx, A->comm, 2, nsend, w.rec, w.dest, &w.got, &ngot);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist strength graph: transposes routed");

  /* Extras of each row: from lower ranks, from this rank, from higher
   * ranks; each part in increasing I, so each row's extras are sorted. */
  if (!s) {
    for (int64_t k = 0; k < ngot; ++k) w.erp[w.got[2 * k] - n0 + 1]++;
    for (int64_t l = 0; l < nn; ++l) w.erp[l + 1] += w.erp[l];
    w.ecol = (int64_t *)malloc(sizeof(int64_t) * (size_t)(w.erp[nn] + 1));
    w.gcol = (int64_t *)malloc(sizeof(int64_t) * (size_t)(m + w.erp[nn] + 1));
    if (!w.ecol || !w.gcol)
      s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for %lld strength graph entries",
                       (long long)(m + w.erp[nn]));
  }
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s) {
    memcpy(w.epos, w.erp, sizeof(int64_t) * (size_t)nn);
    for (int64_t k = 0; k < ngot; ++k)
      if (w.got[2 * k + 1] < n0) w.ecol[w.epos[w.got[2 * k] - n0]++] = w.got[2 * k + 1];
    for (int64_t l = 0; l < nn; ++l)
      for (int64_t p = w.drp[l]; p < w.drp[l + 1]; ++p)
        if (w.miss[p] == 1) w.ecol[w.epos[w.dcol[p] - gl]++] = n0 + l;
    for (int64_t k = 0; k < ngot; ++k)
      if (w.got[2 * k + 1] >= n0) w.ecol[w.epos[w.got[2 * k] - n0]++] = w.got[2 * k + 1];
    /* S = D + D^T: each D row merged with its extras, in parts of rows
     * (their D entries and extras the bound, in epos) */
    for (int64_t l = 0; l <= nn; ++l) w.epos[l] = w.drp[l] + w.erp[l];
    int64_t pr2[MERGE_PARTS_MAX + 1];
    int np2 = count_parts(ctx, nn, 0, 0);
    if (np2 > MERGE_PARTS_MAX) np2 = MERGE_PARTS_MAX;
    for (int k = 0; k <= np2; ++k) pr2[k] = part_first_row(w.epos, NULL, nn, k, np2);
    w.rowptr[0] = 0;
#pragma omp parallel for schedule(static, 1) num_threads(np2)
    for (int k = 0; k < np2; ++k) {
      int64_t q = w.epos[pr2[k]];
      for (int64_t l = pr2[k]; l < pr2[k + 1]; ++l) {
        int64_t a = w.drp[l], b = w.erp[l];
        const int64_t ae = w.drp[l + 1], be = w.erp[l + 1];
        while (a < ae || b < be) {
          const int64_t x = a < ae ? w.uglob[w.dcol[a]] : INT64_MAX;
          const int64_t y = b < be ? w.ecol[b] : INT64_MAX;
          if (x <= y) ++a;
          if (y <= x) ++b;
          w.gcol[q++] = x < y ? x : y;
        }
        w.rowptr[l + 1] = q;
      }
    }
    compact_parts(np2, pr2, w.epos, w.rowptr, w.gcol, sizeof(int64_t));
    mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist strength graph: S = D + D^T rows");
    s = mispc_dist_csr_from_global(ctx, A->comm, A->nglobal / bs, n0, n0 + nn, w.rowptr, w.gcol,
                                   NULL, S);
    mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist strength graph: distributed CSR of S");
  }
  work_free(&w);
  return s;
}
