/* Distributed cluster multicolor Gauss-Seidel on the host (docs/DISTRIBUTED.md,
 * "Cluster Gauss-Seidel"; the one-process method of gs.c after
 * papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt §III-C).
 *
 * The clusters, the cluster graph and its colors are the one-process ones
 * (mispc_dist_aggregate, _coarse_graph, _color give them for any partition).
 * A cluster's rows are updated one after another, so a cluster that spans
 * ranks cannot be swept by its owners together without a message per row.
 * Instead every cluster is swept whole by the rank of its smallest row (its
 * head): the rows of other ranks move there once (pattern at the symbolic
 * setup, values at the numeric one, b and x at each apply; MIS-2 aggregates
 * are compact, so few rows move: those near a rank boundary). The swept rows
 * get a second global numbering with contiguous rank ranges (rank by rank,
 * row id order inside a rank, so a cluster's rows keep their order), and the
 * ordinary halo plan over it sends each color's boundary values after the
 * color is swept, as the point kind does. Each row sums its entries in
 * global column order and a cluster's rows in the one-process order
 * (gs_sweep_color_host on the one-process host copy), so x equals the one-process result bit for
 * bit. */
#include <stdlib.h>
#include <string.h>

#include "gs_dist_internal.h"

/* records of three int64 words, lexicographic */
static int cmp_triple(const void *a, const void *b) {
  const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
  for (int k = 0; k < 3; ++k)
    if (x[k] != y[k]) return (x[k] > y[k]) - (x[k] < y[k]);
  return 0;
}

/* index of v in the sorted a[0..n), -1 if absent */
static int64_t find_i64(const int64_t *a, int64_t n, int64_t v) {
  const int64_t at = mispc_lower_bound_i64(a, 0, n, v);
  return at < n && a[at] == v ? at : -1;
}

void gs_dist_cluster_free(mispc_context *ctx, gs_dist_cluster *cl) {
  if (!cl) return;
  mispc_csr_free(ctx, &cl->W);
  mispc_halo_destroy(cl->halo);
  free(cl->wsrc), free(cl->row_cluster), free(cl->cl_ptr), free(cl->cl_rows);
  free(cl->cl_order), free(cl->color_ptr), free(cl->scolor), free(cl->gcolor), free(cl->gkey);
  free(cl->bs), free(cl->xs), free(cl->kept), free(cl->move_row);
  free(cl->move_dest), free(cl->recv_row), free(cl->recv_src), free(cl->back_row);
  mispc_route_plan_destroy(cl->fwd);
  mispc_route_plan_destroy(cl->bwd);
  free(cl->mbuf);
  free(cl->garray);
  free(cl);
}

#define ALLOC(p, n, what)                                                                          \
  do {                                                                                             \
    if (!s) {                                                                                      \
      (p) = calloc((size_t)(n) + 1, sizeof *(p));                                                  \
      if (!(p)) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for %s", what);              \
    }                                                                                              \
  } while (0)

/* The clusters (one-process aggregates, of the strength graph on nodes of
 * block_size rows when asked, expanded to rows) and the colors of the
 * cluster graph: row label ragg and, for each own row, its cluster's head
 * (smallest row) and color. */
static mispc_status clusters_heads_colors(mispc_context *ctx, mispc_dist_gs *gs,
                                          const mispc_dist_csr *A, const mispc_dist_csr *D,
                                          int32_t *ragg, int64_t *head, int32_t *color,
                                          int64_t *naggs_out) {
  const MPI_Comm comm = A->comm;
  int P = 0, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  const int64_t nloc = gs->nloc;
  const int bs = gs->opt.block_size;
  const double theta = gs->opt.strength_threshold;
  const int use_strength = bs > 1 || theta > 0;
  mispc_coloring_options co = gs->opt.coloring;
  co.recolor = mispc_gs_recolor_passes(&gs->opt);
  co.mis.skip_validation = 1;
  mispc_agg_options ao; /* as mispc_gs_symbolic */
  mispc_agg_options_default(&ao);
  ao.algo = gs->opt.clusters;
  ao.mis = co.mis;
  ao.mis.priority = MISPC_PRIORITY_DEFAULT;
  mispc_dist_csr S = {0}, coarse = {0};
  mispc_dist_agg_info ai = {0};
  int32_t *nagg = NULL, *ccolor = NULL;
  int64_t *pairs = NULL, *rec = NULL, *got = NULL, *back = NULL, *chead = NULL;
  int *dest = NULL;
  int64_t ngot = 0, nback = 0;
  mispc_status s = MISPC_SUCCESS;
  double tlog = mispc_wtime(); /* -vv: each step's time */
  if (use_strength && A->nglobal % bs)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "Gauss-Seidel block size %d does not divide the %lld rows", bs,
                     (long long)A->nglobal);
  s = mispc_dist_agree(ctx, comm, s);
  if (!s && use_strength) s = mispc_dist_strength_graph(ctx, A, theta, bs, &S);
  const mispc_dist_csr *G = use_strength ? &S : A;
  ALLOC(nagg, G->rend - G->rstart, "node clusters");
  s = mispc_dist_agree(ctx, comm, s);
  /* on the GPU for device matrices: A's device twin, else a copy of S */
  if (!s) s = gs_dist_aggregate(ctx, G, use_strength ? NULL : D, D != NULL, &ao, nagg, &ai);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: strength graph, aggregation");
  int64_t naggs = ai.naggs;
  if (!s && gs->opt.line_clusters) s = gs_grow_line_clusters_dist(ctx, G, &ao, nagg, &naggs);
  for (int64_t i = 0; !s && i < nloc; ++i) ragg[i] = use_strength ? nagg[i / bs] : nagg[i];
  /* With threshold 0 the cluster graph from S and the node labels is the
   * one from A and the row labels (gs.c). */
  const int from_nodes = use_strength && theta == 0;
  if (!s)
    s = mispc_dist_coarse_graph(ctx, from_nodes ? &S : A, from_nodes ? nagg : ragg, naggs, &coarse);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: lines, cluster graph");
  const int64_t cstart = coarse.rstart, nc = coarse.rend - coarse.rstart;
  ALLOC(ccolor, nc, "cluster colors");
  ALLOC(chead, nc, "cluster heads");
  ALLOC(pairs, 2 * nloc, "row labels");
  ALLOC(rec, 3 * nloc, "head records");
  ALLOC(dest, nloc, "head records");
  s = mispc_dist_agree(ctx, comm, s);
  /* on the host: the cluster graph is small and its coloring takes many
   * rounds (Laplace3D_60's on 2 ranks sharing an H200, the host-staged
   * transport: 53 ms on the GPU, 18 on the host) */
  if (!s) s = mispc_dist_color(ctx, &coarse, &co, ccolor, &gs->ncolors);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: coloring");
  /* Heads: each rank's smallest row of every label it holds goes to the
   * label's coarse row, which takes the minimum and answers with the head
   * and the color. */
  int64_t npieces = 0;
  if (!s) {
    for (int64_t i = 0; i < nloc; ++i) pairs[2 * i] = ragg[i], pairs[2 * i + 1] = A->rstart + i;
    const int64_t m = mispc_sort_unique_pairs(pairs, nloc);
    for (int64_t k = 0; k < m; ++k)
      if (!k || pairs[2 * k] != pairs[2 * k - 2]) {
        rec[3 * npieces] = pairs[2 * k], rec[3 * npieces + 1] = pairs[2 * k + 1];
        rec[3 * npieces + 2] = rank;
        dest[npieces++] = mispc_dist_even_owner(pairs[2 * k], naggs, P);
      }
    s = mispc_dist_route(ctx, comm, 3, npieces, rec, dest, &got, &ngot);
  }
  if (!s) {
    for (int64_t c = 0; c < nc; ++c) chead[c] = INT64_MAX;
    for (int64_t k = 0; k < ngot; ++k) {
      const int64_t c = got[3 * k] - cstart;
      if (got[3 * k + 1] < chead[c]) chead[c] = got[3 * k + 1];
    }
    int *rdest = (int *)malloc(sizeof(int) * (size_t)(ngot + 1));
    if (!rdest) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for cluster heads");
    for (int64_t k = 0; !s && k < ngot; ++k) {
      const int64_t c = got[3 * k] - cstart;
      rdest[k] = (int)got[3 * k + 2];
      got[3 * k + 1] = chead[c];
      got[3 * k + 2] = ccolor[c];
    }
    s = mispc_dist_agree(ctx, comm, s);
    if (!s) s = mispc_dist_route(ctx, comm, 3, ngot, got, rdest, &back, &nback);
    free(rdest);
  }
  if (!s) { /* one answer per piece: sorted by label, they line up with the pieces */
    /* They arrive sorted: the pieces went out in label order to owners of
     * increasing label ranges, and come back by owner rank, each owner's
     * in the order it received them. qsort should they not. */
    int sorted = 1;
    for (int64_t k = 1; k < nback && sorted; ++k) sorted = back[3 * k] > back[3 * k - 3];
    if (!sorted) qsort(back, (size_t)nback, 3 * sizeof(int64_t), cmp_triple);
    for (int64_t i = 0; i < nloc; ++i) {
      int64_t lo = 0, hi = nback; /* the answer for label ragg[i] */
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (back[3 * mid] < ragg[i])
          lo = mid + 1;
        else
          hi = mid;
      }
      head[i] = back[3 * lo + 1];
      color[i] = (int32_t)back[3 * lo + 2];
    }
    *naggs_out = naggs;
  }
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: heads and colors of the rows");
  mispc_dist_csr_free(ctx, &S);
  mispc_dist_csr_free(ctx, &coarse);
  free(nagg), free(ccolor), free(pairs), free(rec), free(got), free(back), free(chead), free(dest);
  return mispc_dist_agree(ctx, comm, s);
}

/* The sweep index on this rank of global row c, or -1: an own row by its
 * local id (kept[] holds its sweep index, -1 if it moved), a received row
 * by a search among the received ones (the few rows of clusters that span
 * ranks; rgid increasing, rq their sweep indices). */
static int64_t swept_at(const gs_dist_cluster *cl, int64_t rstart, int64_t nloc,
                        const int64_t *rgid, const int64_t *rq, int64_t c) {
  if (c >= rstart && c < rstart + nloc) return cl->kept[c - rstart];
  const int64_t at = find_i64(rgid, cl->nrecv, c);
  return at >= 0 ? rq[at] : -1;
}

/* Global column of entry p of the owner's merged row storage M. */
static int64_t m_gcol(const mispc_dist_gs *gs, const mispc_dist_csr *A, int64_t p) {
  const int32_t c = gs->M.colidx[p];
  return c < gs->nloc ? A->rstart + c : A->garray[c - gs->nloc];
}

mispc_status gs_dist_cluster_symbolic(mispc_context *ctx, mispc_dist_gs *gs,
                                      const mispc_dist_csr *A, const mispc_dist_csr *D) {
  const MPI_Comm comm = A->comm;
  int P = 0, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  const int64_t nloc = gs->nloc, rstart = A->rstart;
  mispc_status s = MISPC_SUCCESS;
  gs_dist_cluster *cl = (gs_dist_cluster *)calloc(1, sizeof *cl);
  if (!cl) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
  gs->cl = cl;
  int32_t *ragg = NULL, *rcolor = NULL;
  int64_t *head = NULL, naggs = 0;
  ALLOC(ragg, nloc, "row clusters");
  ALLOC(rcolor, nloc, "row colors");
  ALLOC(head, nloc, "row heads");
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) s = clusters_heads_colors(ctx, gs, A, D, ragg, head, rcolor, &naggs);
  double tlog = mispc_wtime(); /* -vv: each step's time */
  if (s) {
    free(ragg), free(rcolor), free(head);
    return s;
  }
  /* 1. Rows whose head is elsewhere move to the head's rank: (row, label,
   * color, owner, entries) and their entries' global columns. */
  int64_t nmove = 0, nent = 0;
  for (int64_t i = 0; i < nloc; ++i)
    if (mispc_dist_owner(A->ranges, P, head[i]) != rank)
      ++nmove, nent += gs->M.rowptr[i + 1] - gs->M.rowptr[i];
  int64_t *meta = NULL, *ent = NULL, *rmeta = NULL, *rent = NULL, nrmeta = 0, nrent = 0;
  int *mdest = NULL, *edest = NULL;
  ALLOC(cl->kept, nloc, "kept rows");
  ALLOC(cl->move_row, nmove, "moved rows");
  ALLOC(cl->move_dest, nmove, "moved rows");
  ALLOC(meta, 5 * nmove, "moved rows");
  ALLOC(mdest, nmove, "moved rows");
  ALLOC(ent, nent, "moved entries");
  ALLOC(edest, nent, "moved entries");
  s = mispc_dist_agree(ctx, comm, s);
  if (s) goto done;
  {
    int64_t k = 0, e = 0, nkept = 0;
    for (int64_t i = 0; i < nloc; ++i) {
      const int d = mispc_dist_owner(A->ranges, P, head[i]);
      if (d == rank) {
        cl->kept[i] = (int32_t)nkept++;
        continue;
      }
      cl->kept[i] = -1;
      cl->move_row[k] = (int32_t)i, cl->move_dest[k] = d, mdest[k] = d;
      int64_t *r = meta + 5 * k++;
      r[0] = rstart + i, r[1] = ragg[i], r[2] = rcolor[i], r[3] = rank;
      r[4] = gs->M.rowptr[i + 1] - gs->M.rowptr[i];
      for (int64_t p = gs->M.rowptr[i]; p < gs->M.rowptr[i + 1]; ++p)
        ent[e] = m_gcol(gs, A, p), edest[e++] = d;
    }
    cl->nmove = nmove;
    s = mispc_dist_route(ctx, comm, 5, nmove, meta, mdest, &rmeta, &nrmeta);
    if (!s) s = mispc_dist_route(ctx, comm, 1, nent, ent, edest, &rent, &nrent);
    if (s) goto done;
    cl->nrecv = nrmeta;
    cl->nrecv_vals = nrent;
    cl->ns = nkept + nrmeta;
  }
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: moved rows and their entries");
  /* 2. The swept rows in row order: kept rows and received ones merged. */
  const int64_t ns = cl->ns;
  int64_t *sw = NULL;      /* (row, source) pairs: source >= 0 own row, < 0: -1 - received */
  int64_t *rgid = NULL;    /* received rows: global id (increasing) */
  int64_t *rq = NULL;      /* and sweep index */
  int64_t *rstartp = NULL; /* first entry of each received row in rent */
  ALLOC(sw, 2 * ns, "swept rows");
  ALLOC(rgid, cl->nrecv, "received rows");
  ALLOC(rq, cl->nrecv, "received rows");
  ALLOC(rstartp, cl->nrecv, "received rows");
  ALLOC(cl->recv_row, cl->nrecv, "received rows");
  ALLOC(cl->recv_src, cl->nrecv, "received rows");
  s = mispc_dist_agree(ctx, comm, s);
  if (s) goto done2;
  {
    int64_t q = 0, e = 0, in_order = 1;
    for (int64_t k = 0; k < cl->nrecv; ++k) {
      rstartp[k] = e;
      e += rmeta[5 * k + 4];
      cl->recv_src[k] = (int)rmeta[5 * k + 3];
      in_order &= k == 0 || rmeta[5 * k] > rmeta[5 * (k - 1)];
    }
    /* The kept rows are in row order, and so are the received ones: the
     * route delivers by source rank (ranks own increasing row ranges), each
     * source's rows in its sending order (increasing); so the two merge.
     * qsort where the received rows are out of order (rows are distinct). */
    for (int64_t i = 0, k = 0; i < nloc || k < cl->nrecv;) {
      while (i < nloc && cl->kept[i] < 0) ++i;
      const int take_own = i < nloc && (k >= cl->nrecv || rstart + i < rmeta[5 * k]);
      if (take_own)
        sw[2 * q] = rstart + i, sw[2 * q + 1] = i, ++q, ++i;
      else if (k < cl->nrecv)
        sw[2 * q] = rmeta[5 * k], sw[2 * q + 1] = -1 - k, ++q, ++k;
    }
    if (!in_order) qsort(sw, (size_t)ns, 2 * sizeof(int64_t), mispc_cmp_i64);
    for (q = 0, e = 0; q < ns; ++q) {
      if (sw[2 * q + 1] >= 0) {
        cl->kept[sw[2 * q + 1]] = (int32_t)q;
      } else {
        cl->recv_row[-1 - sw[2 * q + 1]] = (int32_t)q;
        rgid[e] = sw[2 * q], rq[e++] = q;
      }
    }
  }
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: the swept rows in row order");
  /* 3. The sweep numbering: rank ranges of swept rows; owners learn the new
   * id of their moved rows (in the order x will come back at each apply). */
  int64_t nstart = 0, *nranges = NULL, *newid = NULL, *idrec = NULL, *idgot = NULL, nidgot = 0;
  ALLOC(nranges, P + 1, "sweep ranges");
  ALLOC(newid, nloc, "sweep ids");
  ALLOC(idrec, 2 * cl->nrecv, "sweep ids");
  ALLOC(cl->back_row, cl->nmove, "moved rows");
  s = mispc_dist_agree(ctx, comm, s);
  if (!s &&
      (MPI_Exscan(&cl->ns, &nstart, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
       MPI_Allgather(&cl->ns, 1, MPI_INT64_T, nranges + 1, 1, MPI_INT64_T, comm) != MPI_SUCCESS))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI failed numbering the swept rows");
  s = mispc_dist_agree(ctx, comm, s);
  if (s) goto done3;
  if (rank == 0) nstart = 0; /* MPI_Exscan leaves rank 0's output undefined */
  nranges[0] = 0;
  for (int p = 0; p < P; ++p) nranges[p + 1] += nranges[p];
  for (int64_t k = 0; k < cl->nrecv; ++k)
    idrec[2 * k] = rmeta[5 * k], idrec[2 * k + 1] = nstart + cl->recv_row[k];
  s = mispc_dist_route(ctx, comm, 2, cl->nrecv, idrec, cl->recv_src, &idgot, &nidgot);
  if (!s && nidgot != cl->nmove)
    s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "cluster GS: %lld moved rows, %lld new ids",
                     (long long)cl->nmove, (long long)nidgot);
  s = mispc_dist_agree(ctx, comm, s);
  if (s) goto done3;
  for (int64_t i = 0; i < nloc; ++i)
    if (cl->kept[i] >= 0) newid[i] = nstart + cl->kept[i];
  for (int64_t j = 0; j < nidgot; ++j) {
    const int64_t i = idgot[2 * j] - rstart;
    newid[i] = idgot[2 * j + 1];
    cl->back_row[j] = (int32_t)i;
  }
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: the sweep numbering");
  /* 4. Ghosts of the sweep: columns of swept rows swept elsewhere; their
   * owners tell their new ids. */
  {
    int64_t nq = 0, *q = NULL, *qrec = NULL, *ans = NULL, nans = 0, *qans = NULL, nqans = 0;
    int *qdest = NULL, *adest = NULL;
    int64_t tot = 0;
    for (int64_t i = 0; i < nloc; ++i)
      if (cl->kept[i] >= 0) tot += gs->M.rowptr[i + 1] - gs->M.rowptr[i];
    tot += cl->nrecv_vals;
    ALLOC(q, tot, "sweep ghosts");
    s = mispc_dist_agree(ctx, comm, s);
    for (int64_t i = 0; !s && i < nloc; ++i)
      if (cl->kept[i] >= 0)
        for (int64_t p = gs->M.rowptr[i]; p < gs->M.rowptr[i + 1]; ++p) {
          const int64_t c = m_gcol(gs, A, p);
          if (swept_at(cl, rstart, nloc, rgid, rq, c) < 0) q[nq++] = c;
        }
    for (int64_t e = 0; !s && e < cl->nrecv_vals; ++e)
      if (swept_at(cl, rstart, nloc, rgid, rq, rent[e]) < 0) q[nq++] = rent[e];
    if (q) qsort(q, (size_t)nq, sizeof(int64_t), mispc_cmp_i64);
    int64_t u = 0;
    for (int64_t k = 0; k < nq; ++k)
      if (!u || q[k] != q[u - 1]) q[u++] = q[k];
    nq = u;
    ALLOC(qrec, 2 * nq, "sweep ghosts");
    ALLOC(qdest, nq, "sweep ghosts");
    s = mispc_dist_agree(ctx, comm, s);
    for (int64_t k = 0; !s && k < nq; ++k) {
      qrec[2 * k] = q[k], qrec[2 * k + 1] = rank;
      qdest[k] = mispc_dist_owner(A->ranges, P, q[k]);
    }
    if (!s) s = mispc_dist_route(ctx, comm, 2, nq, qrec, qdest, &ans, &nans);
    ALLOC(adest, nans, "sweep ghosts");
    s = mispc_dist_agree(ctx, comm, s);
    for (int64_t k = 0; !s && k < nans; ++k) {
      adest[k] = (int)ans[2 * k + 1];
      ans[2 * k + 1] = newid[ans[2 * k] - rstart];
    }
    if (!s) s = mispc_dist_route(ctx, comm, 2, nans, ans, adest, &qans, &nqans);
    if (!s && nqans != nq)
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "cluster GS: %lld ghost ids asked, %lld answered",
                       (long long)nq, (long long)nqans);
    s = mispc_dist_agree(ctx, comm, s);
    if (!s) {
      /* qans sorted by row lines up with q; ghost order is new-id order */
      qsort(qans, (size_t)nq, 2 * sizeof(int64_t), mispc_cmp_i64);
      int64_t *byid = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * nq + 1));
      int32_t *gpos = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nq + 1));
      cl->garray = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nq + 1));
      if (!byid || !gpos || !cl->garray)
        s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for sweep ghosts");
      if (!s) {
        for (int64_t k = 0; k < nq; ++k) byid[2 * k] = qans[2 * k + 1], byid[2 * k + 1] = k;
        qsort(byid, (size_t)nq, 2 * sizeof(int64_t), mispc_cmp_i64);
        for (int64_t j = 0; j < nq; ++j) {
          cl->garray[j] = byid[2 * j];
          gpos[byid[2 * j + 1]] = (int32_t)j;
        }
        cl->ng = nq;
        /* 5. W: the swept rows over [swept | ghosts], global column order. */
        int64_t wn = 0;
        for (int64_t r = 0; r < ns; ++r)
          wn += sw[2 * r + 1] >= 0 ? gs->M.rowptr[sw[2 * r + 1] + 1] - gs->M.rowptr[sw[2 * r + 1]]
                                   : rmeta[5 * (-1 - sw[2 * r + 1]) + 4];
        s = mispc_csr_alloc(ctx, MISPC_MEM_HOST, ns, ns + nq, wn, 1, &cl->W);
        ALLOC(cl->wsrc, wn, "sweep entries");
      }
      for (int64_t r = 0, w = 0; !s && r < ns; ++r) {
        const int64_t src = sw[2 * r + 1];
        const int64_t b0 = src >= 0 ? gs->M.rowptr[src] : rstartp[-1 - src];
        const int64_t len = src >= 0 ? gs->M.rowptr[src + 1] - b0 : rmeta[5 * (-1 - src) + 4];
        for (int64_t t = 0; t < len; ++t, ++w) {
          const int64_t c = src >= 0 ? m_gcol(gs, A, b0 + t) : rent[b0 + t];
          const int64_t at = swept_at(cl, rstart, nloc, rgid, rq, c);
          cl->W.colidx[w] = (int32_t)(at >= 0 ? at : ns + gpos[find_i64(q, nq, c)]);
          cl->wsrc[w] = src >= 0 ? b0 + t : -1 - (b0 + t);
        }
        cl->W.rowptr[r + 1] = w;
      }
      free(byid), free(gpos);
    }
    free(q), free(qrec), free(qdest), free(ans), free(adest), free(qans);
  }
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) s = mispc_halo_create(ctx, comm, nranges, nstart, cl->ng, cl->garray, &cl->halo);
  if (s) goto done3;
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: ghosts, halo and the sweep matrix");
  /* 6. Clusters by (color, label), rows increasing inside; colors of the
   * sent rows and of the ghosts for the per-color exchanges. */
  {
    int32_t *swcolor = NULL;
    int64_t *key = NULL, nlc = 0;
    ALLOC(swcolor, ns, "swept colors");
    ALLOC(key, 3 * ns, "swept clusters");
    ALLOC(cl->row_cluster, ns + cl->ng, "row clusters");
    ALLOC(cl->cl_rows, ns, "cluster rows");
    ALLOC(cl->cl_ptr, ns, "cluster offsets");
    ALLOC(cl->cl_order, ns, "cluster order");
    ALLOC(cl->color_ptr, gs->ncolors + 1, "color offsets");
    ALLOC(cl->scolor, cl->halo->nsend, "send colors");
    ALLOC(cl->gcolor, cl->ng, "ghost colors");
    ALLOC(cl->gkey, cl->ng, "ghost keys");
    ALLOC(cl->bs, ns, "swept right-hand side");
    ALLOC(cl->xs, ns + cl->ng, "swept solution");
    s = mispc_dist_agree(ctx, comm, s);
    if (!s) {
      for (int64_t r = 0; r < ns; ++r) {
        const int64_t src = sw[2 * r + 1];
        const int32_t lab = src >= 0 ? ragg[src] : (int32_t)rmeta[5 * (-1 - src) + 1];
        swcolor[r] = src >= 0 ? rcolor[src] : (int32_t)rmeta[5 * (-1 - src) + 2];
        cl->row_cluster[r] = lab;
      }
      for (int64_t j = 0; j < cl->ng; ++j) cl->row_cluster[ns + j] = -1;
      /* (color, label, row): rows by (label, row) in one radix sort, then a
       * stable counting sort by color (labels are >= 0) */
      uint64_t *by_label = mispc_key_order((const uint32_t *)cl->row_cluster, ns);
      int64_t *at = (int64_t *)calloc((size_t)gs->ncolors + 1, sizeof(int64_t));
      if (!by_label || !at) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for clusters");
      for (int64_t r = 0; !s && r < ns; ++r) at[swcolor[r] + 1]++;
      for (int32_t c = 0; !s && c < gs->ncolors; ++c) at[c + 1] += at[c];
      for (int64_t k = 0; !s && k < ns; ++k) {
        const int64_t r = (int64_t)(by_label[k] & 0xFFFFFFFFu), pos = at[swcolor[r]]++;
        key[3 * pos] = swcolor[r], key[3 * pos + 1] = cl->row_cluster[r], key[3 * pos + 2] = r;
      }
      free(by_label), free(at);
    }
    s = mispc_dist_agree(ctx, comm, s); /* a collective follows */
    if (!s) {
      int64_t lo = INT64_MAX, hi = 0, one = 0;
      for (int64_t r = 0; r < ns; ++r) {
        if (!r || key[3 * r + 1] != key[3 * r - 2]) {
          cl->cl_ptr[nlc] = r;
          cl->cl_order[nlc] = (int32_t)nlc;
          cl->color_ptr[key[3 * r] + 1]++;
          ++nlc;
        }
        cl->cl_rows[r] = (int32_t)key[3 * r + 2];
      }
      cl->cl_ptr[nlc] = ns;
      for (int32_t c = 0; c < gs->ncolors; ++c) cl->color_ptr[c + 1] += cl->color_ptr[c];
      for (int64_t k = 0; k < nlc; ++k) {
        const int64_t z = cl->cl_ptr[k + 1] - cl->cl_ptr[k];
        lo = z < lo ? z : lo, hi = z > hi ? z : hi, one += z == 1;
      }
      for (int64_t e = 0; e < cl->halo->nsend; ++e) cl->scolor[e] = swcolor[cl->halo->sidx[e]];
      s = mispc_halo_exchange(ctx, cl->halo, swcolor, cl->gcolor, sizeof(int32_t));
      /* the clusters lie by color: the rows of colors up to c end at
       * cl_ptr[color_ptr[c + 1]] */
      for (int64_t g = 0; !s && g < cl->ng; ++g)
        cl->gkey[g] = (int32_t)(cl->cl_ptr[cl->color_ptr[cl->gcolor[g] + 1]] - 1);
      if (!s && (MPI_Allreduce(&lo, &cl->min_cluster, 1, MPI_INT64_T, MPI_MIN, comm) ||
                 MPI_Allreduce(&hi, &cl->max_cluster, 1, MPI_INT64_T, MPI_MAX, comm) ||
                 MPI_Allreduce(&one, &cl->singletons, 1, MPI_INT64_T, MPI_SUM, comm)))
        s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI failed counting clusters");
      cl->nclusters = naggs;
    }
    free(swcolor), free(key);
  }
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: clusters by color");
  /* 7. The moves of every apply: neighbour plans both ways. */
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) s = mispc_route_plan_create(ctx, comm, cl->nmove, cl->move_dest, &cl->fwd);
  if (!s) s = mispc_route_plan_create(ctx, comm, cl->nrecv, cl->recv_src, &cl->bwd);
  ALLOC(cl->mbuf, cl->nmove + cl->nrecv, "moved values");
  mispc_log_phase(ctx, MISPC_MEM_HOST, &tlog, "dist cluster gs: route plans of the moves");
done3:
  free(nranges), free(newid), free(idrec), free(idgot);
done2:
  free(sw), free(rgid), free(rq), free(rstartp);
done:
  free(meta), free(ent), free(rmeta), free(rent), free(mdest), free(edest);
  free(ragg), free(rcolor), free(head);
  return mispc_dist_agree(ctx, comm, s);
}

/* Routes one double per item (bits as int64) to dest[k] and stores the
 * arrivals at out[at[j]] in arrival order; *bytes += 8 per item sent. */
static mispc_status send_values(mispc_context *ctx, MPI_Comm comm, int64_t n, const double *v,
                                const int *dest, int64_t nexp, const int32_t *at, double *out,
                                int64_t *bytes) {
  int64_t *got = NULL, ngot = 0;
  MISPC_TRY(mispc_dist_route(ctx, comm, 1, n, (const int64_t *)(const void *)v, dest, &got, &ngot));
  mispc_status s = MISPC_SUCCESS;
  if (ngot != nexp)
    s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "cluster GS: %lld values expected, %lld came",
                     (long long)nexp, (long long)ngot);
  for (int64_t j = 0; !s && j < ngot; ++j) memcpy(&out[at[j]], &got[j], sizeof(double));
  free(got);
  *bytes += 8 * n;
  return mispc_dist_agree(ctx, comm, s);
}

/* v[0 .. n) along plan p; the nexp arrivals land at out[at[j]]; *bytes +=
 * 8 per value sent. buf holds nexp values. */
static mispc_status move_values_host(mispc_context *ctx, mispc_route_plan *p, int64_t n,
                                     const double *v, int64_t nexp, const int32_t *at, double *buf,
                                     double *out, int64_t *bytes) {
  MISPC_TRY(mispc_route_plan_run(ctx, p, (const int64_t *)(const void *)v, (int64_t *)(void *)buf));
  for (int64_t j = 0; j < nexp; ++j) out[at[j]] = buf[j];
  *bytes += 8 * n;
  return MISPC_SUCCESS;
}

mispc_status gs_dist_cluster_numeric(mispc_context *ctx, mispc_dist_gs *gs, MPI_Comm comm) {
  gs_dist_cluster *cl = gs->cl;
  mispc_status s = MISPC_SUCCESS;
  /* moved rows: their values, row after row (the sweeps' omega / a_ii come
   * from W's own diagonal: the host copy, gs_host_values, and the device
   * copy, gs_permute_values_cuda) */
  int64_t n = 0;
  for (int64_t k = 0; k < cl->nmove; ++k)
    n += gs->M.rowptr[cl->move_row[k] + 1] - gs->M.rowptr[cl->move_row[k]];
  double *v = (double *)malloc(sizeof(double) * (size_t)(n + 1));
  int *dest = (int *)malloc(sizeof(int) * (size_t)(n + 1));
  const int64_t nexp = cl->nrecv_vals;
  double *got = (double *)malloc(sizeof(double) * (size_t)(nexp + 1));
  int32_t *at = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nexp + 1));
  if (!v || !dest || !got || !at)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for moved rows' values");
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) {
    int64_t q = 0;
    for (int64_t k = 0; k < cl->nmove; ++k) {
      const int32_t i = cl->move_row[k];
      for (int64_t p = gs->M.rowptr[i]; p < gs->M.rowptr[i + 1]; ++p)
        v[q] = gs->M.values[p], dest[q++] = cl->move_dest[k];
    }
    for (int64_t j = 0; j < nexp; ++j) at[j] = (int32_t)j;
    int64_t sent = 0;
    s = send_values(ctx, comm, n, v, dest, nexp, at, got, &sent);
  }
  /* received: the rows' entries, in receiving order (wsrc < 0 names them) */
  for (int64_t w = 0; !s && w < cl->W.nnz; ++w)
    cl->W.values[w] = cl->wsrc[w] >= 0 ? gs->M.values[cl->wsrc[w]] : got[-1 - cl->wsrc[w]];
  free(v), free(dest), free(got), free(at);
  return mispc_dist_agree(ctx, comm, s);
}

mispc_status gs_dist_cluster_apply(mispc_context *ctx, mispc_dist_gs *gs, MPI_Comm comm,
                                   const double *b, double *x, int zero_guess) {
  gs_dist_cluster *cl = gs->cl;
  const int64_t ns = cl->ns;
  int64_t bytes = 0;
  mispc_status s = MISPC_SUCCESS;
  double *v = (double *)malloc(sizeof(double) * (size_t)(cl->nmove + cl->nrecv + 1));
  if (!v) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in cluster GS apply");
  s = mispc_dist_agree(ctx, comm, s);
  if (s) return s;
  const int64_t before = cl->halo->stats.bytes_sent;
  for (int64_t i = 0; i < gs->nloc; ++i)
    if (cl->kept[i] >= 0) cl->bs[cl->kept[i]] = b[i];
  for (int64_t k = 0; k < cl->nmove; ++k) v[k] = b[cl->move_row[k]];
  s = move_values_host(ctx, cl->fwd, cl->nmove, v, cl->nrecv, cl->recv_row, cl->mbuf, cl->bs,
                       &bytes);
  if (!s && zero_guess) {
    memset(cl->xs, 0, sizeof(double) * (size_t)(ns + cl->ng));
  } else if (!s) {
    for (int64_t i = 0; i < gs->nloc; ++i)
      if (cl->kept[i] >= 0) cl->xs[cl->kept[i]] = x[i];
    for (int64_t k = 0; k < cl->nmove; ++k) v[k] = x[cl->move_row[k]];
    s = move_values_host(ctx, cl->fwd, cl->nmove, v, cl->nrecv, cl->recv_row, cl->mbuf, cl->xs,
                         &bytes);
    if (!s) s = mispc_halo_exchange(ctx, cl->halo, cl->xs, cl->xs + ns, sizeof(double));
  }
  /* from x = 0, symmetric: the backward pass of the first sweep goes on
   * from the forward pass's sums (gs_row_update.h; the same bits) */
  const int resume = zero_guess && gs->opt.sweep == MISPC_GS_SYMMETRIC;
  for (int k = 0; !s && k < gs->opt.sweeps; ++k)
    for (int pass = 0; !s && pass < 2; ++pass) {
      const int backward = pass;
      if ((backward && gs->opt.sweep == MISPC_GS_FORWARD) ||
          (!backward && gs->opt.sweep == MISPC_GS_BACKWARD))
        continue;
      const int start = !resume || k > 0 ? GS_PASS_FULL
                        : backward       ? GS_PASS_RESUME
                                         : GS_PASS_FROM_ZERO;
      /* the free clusters (one thread: gs_host_copy.c, cluster_block_order)
       * before a forward pass's colors and after a backward pass's */
      if (!backward) gs_sweep_free_host(&gs->host, cl->bs, cl->xs, 0, start);
      for (int32_t t = 0; !s && t < gs->ncolors; ++t) {
        const int32_t c = backward ? gs->ncolors - 1 - t : t;
        gs_sweep_color_host(ctx, &gs->host, cl->bs, cl->xs, c, backward, start);
        if (gs_dist_exchange_after(&gs->opt, k, t, gs->ncolors))
          s = mispc_halo_exchange_where(ctx, cl->halo, cl->xs, cl->xs + ns, sizeof(double),
                                        cl->scolor, cl->gcolor, c);
      }
      if (!s && backward) gs_sweep_free_host(&gs->host, cl->bs, cl->xs, 1, start);
    }
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) { /* x back: kept rows here, moved ones from their sweepers */
    for (int64_t i = 0; i < gs->nloc; ++i)
      if (cl->kept[i] >= 0) x[i] = cl->xs[cl->kept[i]];
    for (int64_t k = 0; k < cl->nrecv; ++k) v[k] = cl->xs[cl->recv_row[k]];
    s = move_values_host(ctx, cl->bwd, cl->nrecv, v, cl->nmove, cl->back_row, cl->mbuf, x, &bytes);
  }
  free(v);
  gs->apply_bytes = bytes + cl->halo->stats.bytes_sent - before;
  return s;
}
