/* Records to their owner ranks: one all-to-all of counts, then
 * MPI_Alltoallv of the records grouped by destination (stable within a
 * destination). For data whose owner is not a halo neighbour: the
 * transposed half of a strength graph, coarse-graph edges, aggregate
 * blocks of the prolongator. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

/* Counts of records to each rank (sc, P entries) from their destinations,
 * checked, and the counts each rank receives (rc) by one MPI_Alltoall; the
 * verdict is agreed over comm. `what` ends the failure messages. */
static mispc_status route_counts(mispc_context *ctx, MPI_Comm comm, int P, int64_t n,
                                 const int *dest, int64_t *sc, int64_t *rc, mispc_status s,
                                 const char *what) {
  for (int64_t i = 0; !s && i < n; ++i) {
    if (dest[i] < 0 || dest[i] >= P) {
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "record %lld routed to rank %d of %d",
                       (long long)i, dest[i], P);
      break;
    }
    sc[dest[i]]++;
  }
  s = mispc_dist_agree(ctx, comm, s);
  if (!s && MPI_Alltoall(sc, 1, MPI_INT64_T, rc, 1, MPI_INT64_T, comm) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Alltoall failed %s", what);
  return mispc_dist_agree(ctx, comm, s);
}

mispc_status mispc_dist_route(mispc_context *ctx, MPI_Comm comm, int width, int64_t n,
                              const int64_t *rec, const int *dest, int64_t **out, int64_t *nout) {
  int P = 0;
  MPI_Comm_size(comm, &P);
  *out = NULL;
  *nout = 0;
  int64_t *sc = (int64_t *)calloc((size_t)P, sizeof(int64_t));
  int64_t *rc = (int64_t *)calloc((size_t)P, sizeof(int64_t));
  int *scnt = (int *)malloc(sizeof(int) * (size_t)P),
      *sdsp = (int *)malloc(sizeof(int) * (size_t)P);
  int *rcnt = (int *)malloc(sizeof(int) * (size_t)P),
      *rdsp = (int *)malloc(sizeof(int) * (size_t)P);
  int64_t *pos = (int64_t *)malloc(sizeof(int64_t) * ((size_t)P + 1));
  int64_t *sbuf = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n * width + 1));
  mispc_status s = sc && rc && scnt && sdsp && rcnt && rdsp && pos && sbuf
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory routing records");
  s = route_counts(ctx, comm, P, n, dest, sc, rc, s, "routing records");
  int64_t stot = 0, rtot = 0;
  for (int p = 0; !s && p < P; ++p) {
    if (stot > INT_MAX / width - sc[p] || rtot > INT_MAX / width - rc[p]) {
      s = mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "more than %d words routed by one rank", INT_MAX);
      break;
    }
    pos[p] = stot;
    scnt[p] = (int)(sc[p] * width), sdsp[p] = (int)(stot * width);
    rcnt[p] = (int)(rc[p] * width), rdsp[p] = (int)(rtot * width);
    stot += sc[p];
    rtot += rc[p];
  }
  s = mispc_dist_agree(ctx, comm, s);
  int64_t *rbuf = s ? NULL : (int64_t *)malloc(sizeof(int64_t) * (size_t)(rtot * width + 1));
  if (!s && !rbuf) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory routing records");
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) {
    for (int64_t i = 0; i < n; ++i)
      memcpy(sbuf + width * pos[dest[i]]++, rec + width * i, sizeof(int64_t) * (size_t)width);
    if (MPI_Alltoallv(sbuf, scnt, sdsp, MPI_INT64_T, rbuf, rcnt, rdsp, MPI_INT64_T, comm) !=
        MPI_SUCCESS)
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Alltoallv failed routing records");
  }
  free(sc), free(rc), free(scnt), free(sdsp), free(rcnt), free(rdsp), free(pos), free(sbuf);
  if (s) {
    free(rbuf);
    return s;
  }
  *out = rbuf;
  *nout = rtot;
  return MISPC_SUCCESS;
}

int mispc_dist_owner(const int64_t *ranges, int P, int64_t v) {
  int lo = 0, hi = P - 1;
  while (lo < hi) { /* the last p with ranges[p] <= v */
    const int mid = (lo + hi + 1) / 2;
    if (ranges[mid] <= v)
      lo = mid;
    else
      hi = mid - 1;
  }
  while (lo > 0 && ranges[lo] == ranges[lo + 1]) --lo; /* not an empty rank */
  return lo;
}

static int cmp_pair(const void *a, const void *b) {
  const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* (row, column) pairs of values in [0, 2^32) sorted as the 64-bit keys
 * row << 32 | column by a radix sort: the coarse and strength graphs sort
 * millions of pairs, and qsort's comparator calls were a fifth of a cluster
 * GS setup on several ranks. 0 (p untouched) when a value is out of range,
 * n is small or memory is short: the caller sorts with qsort. */
static int sort_pairs_radix(int64_t *p, int64_t n) {
  if (n < MISPC_RADIX_MIN) return 0;
  for (int64_t i = 0; i < 2 * n; ++i)
    if (p[i] < 0 || p[i] > 0xFFFFFFFFll) return 0;
  uint64_t *key = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)n), *tmp = NULL;
  for (int64_t i = 0; key && i < n; ++i) key[i] = (uint64_t)p[2 * i] << 32 | (uint64_t)p[2 * i + 1];
  const uint64_t *sorted = key ? mispc_radix_sorted(key, n, &tmp) : NULL;
  for (int64_t i = 0; sorted && i < n; ++i)
    p[2 * i] = (int64_t)(sorted[i] >> 32), p[2 * i + 1] = (int64_t)(sorted[i] & 0xFFFFFFFFu);
  free(tmp);
  free(key);
  return sorted != NULL;
}

int64_t mispc_sort_unique_pairs(int64_t *p, int64_t n) {
  if (!sort_pairs_radix(p, n)) qsort(p, (size_t)n, 2 * sizeof(int64_t), cmp_pair);
  int64_t m = 0;
  for (int64_t i = 0; i < n; ++i)
    if (m == 0 || p[2 * i] != p[2 * m - 2] || p[2 * i + 1] != p[2 * m - 1]) {
      p[2 * m] = p[2 * i];
      p[2 * m + 1] = p[2 * i + 1];
      ++m;
    }
  return m;
}

int mispc_dist_even_owner(int64_t c, int64_t n, int P) {
  int p = (int)((c * P) / (n ? n : 1));
  while (p + 1 < P && n * (p + 1) / P <= c) ++p;
  while (p > 0 && n * p / P > c) --p;
  return p;
}

mispc_status mispc_dist_csr_from_pairs(mispc_context *ctx, MPI_Comm comm, int64_t n, int64_t r0,
                                       int64_t r1, const int64_t *pairs, int64_t m, const int *dest,
                                       mispc_dist_csr *out) {
  int64_t *got = NULL, ngot = 0;
  MISPC_TRY(mispc_dist_route(ctx, comm, 2, m, pairs, dest, &got, &ngot));
  ngot = mispc_sort_unique_pairs(got, ngot);
  int64_t *rowptr = (int64_t *)calloc((size_t)(r1 - r0 + 1), sizeof(int64_t));
  int64_t *gcol = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ngot + 1));
  mispc_status s = rowptr && gcol
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for %lld graph entries",
                                      (long long)ngot);
  for (int64_t k = 0; !s && k < ngot; ++k) {
    rowptr[got[2 * k] - r0 + 1]++;
    gcol[k] = got[2 * k + 1];
  }
  for (int64_t r = 0; !s && r < r1 - r0; ++r) rowptr[r + 1] += rowptr[r];
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) s = mispc_dist_csr_from_global(ctx, comm, n, r0, r1, rowptr, gcol, NULL, out);
  free(got), free(rowptr), free(gcol);
  return s;
}

/* A fixed routing pattern (mispc_route_plan_create): the ranks records go
 * to and come from, neighbour communicators, counts and where each record
 * sits in the packed send buffer. */
struct mispc_route_plan {
  MPI_Comm nbr;         /* sources -> destinations (MPI_COMM_NULL: none made) */
  int nout, nin;        /* destination and source ranks */
  int *scount, *sdispl; /* nout each, in int64 words */
  int *rcount, *rdispl; /* nin each */
  int64_t n, nrecv;     /* records sent, received */
  int64_t *pos;         /* n: each record's place in the send buffer */
  int64_t *sbuf;        /* n words */
};

void mispc_route_plan_destroy(mispc_route_plan *p) {
  if (!p) return;
  if (p->nbr != MPI_COMM_NULL) MPI_Comm_free(&p->nbr);
  free(p->scount), free(p->sdispl), free(p->rcount), free(p->rdispl), free(p->pos), free(p->sbuf);
  free(p);
}

int64_t mispc_route_plan_received(const mispc_route_plan *p) {
  return p ? p->nrecv : 0;
}

mispc_status mispc_route_plan_create(mispc_context *ctx, MPI_Comm comm, int64_t n, const int *dest,
                                     mispc_route_plan **out) {
  int P = 0;
  MPI_Comm_size(comm, &P);
  *out = NULL;
  mispc_route_plan *p = (mispc_route_plan *)calloc(1, sizeof *p);
  int64_t *sc = (int64_t *)calloc((size_t)P, sizeof(int64_t));
  int64_t *rc = (int64_t *)calloc((size_t)P, sizeof(int64_t));
  int *out_rank = (int *)malloc(sizeof(int) * ((size_t)P + 1));
  int *in_rank = (int *)malloc(sizeof(int) * ((size_t)P + 1));
  int64_t *at = (int64_t *)calloc((size_t)P + 1, sizeof(int64_t));
  mispc_status s = p && sc && rc && out_rank && in_rank && at
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for a routing plan");
  if (p) p->nbr = MPI_COMM_NULL;
  s = route_counts(ctx, comm, P, n, dest, sc, rc, s, "planning a route");
  if (!s) {
    int64_t stot = 0, rtot = 0;
    for (int q = 0; q < P; ++q) {
      if (sc[q]) out_rank[p->nout++] = q;
      if (rc[q]) in_rank[p->nin++] = q;
      at[q] = stot;
      stot += sc[q], rtot += rc[q];
    }
    if (stot > INT_MAX || rtot > INT_MAX)
      s = mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "more than %d records routed by one rank", INT_MAX);
    p->n = n, p->nrecv = rtot;
    p->scount = (int *)malloc(sizeof(int) * ((size_t)p->nout + 1));
    p->sdispl = (int *)malloc(sizeof(int) * ((size_t)p->nout + 1));
    p->rcount = (int *)malloc(sizeof(int) * ((size_t)p->nin + 1));
    p->rdispl = (int *)malloc(sizeof(int) * ((size_t)p->nin + 1));
    p->pos = (int64_t *)malloc(sizeof(int64_t) * ((size_t)n + 1));
    p->sbuf = (int64_t *)malloc(sizeof(int64_t) * ((size_t)n + 1));
    if (!s && (!p->scount || !p->sdispl || !p->rcount || !p->rdispl || !p->pos || !p->sbuf))
      s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for a routing plan");
    for (int k = 0; !s && k < p->nout; ++k)
      p->scount[k] = (int)sc[out_rank[k]], p->sdispl[k] = (int)at[out_rank[k]];
    for (int k = 0, d = 0; !s && k < p->nin; d += (int)rc[in_rank[k]], ++k)
      p->rcount[k] = (int)rc[in_rank[k]], p->rdispl[k] = d;
    for (int64_t i = 0; !s && i < n; ++i) p->pos[i] = at[dest[i]]++; /* stable by destination */
  }
  s = mispc_dist_agree(ctx, comm, s);
  /* sources and destinations in increasing rank: arrivals in rank order, as
   * mispc_dist_route's (unit weights, as the halo plan's) */
  int *ones = s ? NULL : (int *)malloc(sizeof(int) * ((size_t)P + 1));
  if (!s && !ones) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for a routing plan");
  for (int q = 0; !s && q <= P; ++q) ones[q] = 1;
  s = mispc_dist_agree(ctx, comm, s);
  if (!s && MPI_Dist_graph_create_adjacent(comm, p->nin, in_rank, ones, p->nout, out_rank, ones,
                                           MPI_INFO_NULL, 0, &p->nbr) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Dist_graph_create_adjacent failed");
  free(ones);
  s = mispc_dist_agree(ctx, comm, s);
  free(sc), free(rc), free(out_rank), free(in_rank), free(at);
  if (s) {
    mispc_route_plan_destroy(p);
    return s;
  }
  *out = p;
  return MISPC_SUCCESS;
}

mispc_status mispc_route_plan_run(mispc_context *ctx, mispc_route_plan *p, const int64_t *rec,
                                  int64_t *out) {
  for (int64_t i = 0; i < p->n; ++i) p->sbuf[p->pos[i]] = rec[i];
  if (MPI_Neighbor_alltoallv(p->sbuf, p->scount, p->sdispl, MPI_INT64_T, out, p->rcount, p->rdispl,
                             MPI_INT64_T, p->nbr) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "MPI_Neighbor_alltoallv failed routing records");
  return MISPC_SUCCESS;
}
