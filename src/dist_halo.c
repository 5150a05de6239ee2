/* The halo plan of a row-partitioned graph and its exchange over MPI
 * neighbourhood collectives (docs/DISTRIBUTED.md, "Halo plan"). Built once
 * per graph: each rank learns which of its owned vertices every neighbour
 * needs (one all-to-all of counts, then point-to-point lists of global ids). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"
#include "mispc/timer.h"

mispc_status mispc_dist_agree(mispc_context *ctx, MPI_Comm comm, mispc_status s) {
  return mispc_dist_agree_max(ctx, comm, s, NULL, 0);
}

mispc_status mispc_dist_agree_max(mispc_context *ctx, MPI_Comm comm, mispc_status s, int *vals,
                                  int n) {
  enum { kMaxInts = 8 };
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (n < 0 || n > kMaxInts)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_agree_max: %d values", n);
  /* the failing rank with the smallest id as -rank, the largest of the MAX */
  int buf[1 + kMaxInts];
  buf[0] = s ? -rank : INT_MIN;
  for (int i = 0; i < n; ++i) buf[1 + i] = vals[i];
  if (MPI_Allreduce(MPI_IN_PLACE, buf, 1 + n, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed in a status check");
  for (int i = 0; i < n; ++i) vals[i] = buf[1 + i];
  if (buf[0] == INT_MIN) return MISPC_SUCCESS;
  const int first = -buf[0];
  struct {
    int status;
    char msg[sizeof ctx->err];
  } v;
  memset(&v, 0, sizeof v);
  if (rank == first) {
    v.status = (int)s;
    snprintf(v.msg, sizeof v.msg, "%s", ctx && ctx->err[0] ? ctx->err : mispc_strerror(s));
  }
  MPI_Bcast(&v, (int)sizeof v, MPI_BYTE, first, comm);
  /* Messages already agreed on by an inner call keep their rank prefix. */
  if (strncmp(v.msg, "rank ", 5) == 0)
    mispc_seterr(ctx, (mispc_status)v.status, "%s", v.msg);
  else
    mispc_seterr(ctx, (mispc_status)v.status, "rank %d: %s", first, v.msg);
  return (mispc_status)v.status;
}

void mispc_halo_destroy(mispc_halo *h) {
  if (!h) return;
  mispc_halo_free_device(h);
  if (h->nbr != MPI_COMM_NULL) MPI_Comm_free(&h->nbr);
  free(h->src);
  free(h->dst);
  free(h->rcount);
  free(h->rdispl);
  free(h->scount);
  free(h->sdispl);
  free(h->sidx);
  free(h->sbuf);
  free(h->mcount);
  free(h->mdispl);
  free(h);
}

/* Owner rank of every ghost (ghosts sorted, ranges increasing): counts per rank. */
static mispc_status count_by_owner(mispc_context *ctx, int P, const int64_t *ranges, int rank,
                                   int64_t nghost, const int64_t *garray, int64_t *rc) {
  int p = 0;
  for (int64_t j = 0; j < nghost; ++j) {
    int64_t g = garray[j];
    if (g < 0 || g >= ranges[P])
      return mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE,
                          "ghost %lld has global id %lld outside [0, %lld)", (long long)j,
                          (long long)g, (long long)ranges[P]);
    if (j > 0 && g <= garray[j - 1])
      return mispc_seterr(ctx, MISPC_ERR_UNSORTED,
                          "ghost ids not strictly increasing at ghost %lld (%lld after %lld)",
                          (long long)j, (long long)g, (long long)garray[j - 1]);
    while (g >= ranges[p + 1]) ++p;
    if (p == rank)
      return mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE,
                          "ghost %lld (global id %lld) is an owned vertex of this rank",
                          (long long)j, (long long)g);
    ++rc[p];
  }
  return MISPC_SUCCESS;
}

mispc_status mispc_halo_create(mispc_context *ctx, MPI_Comm comm, const int64_t *ranges,
                               int64_t rstart, int64_t nghost, const int64_t *garray,
                               mispc_halo **out) {
  int P = 0, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  *out = NULL;
  mispc_halo *h = (mispc_halo *)calloc(1, sizeof *h);
  int64_t *rc = (int64_t *)calloc((size_t)P, sizeof *rc);
  int64_t *sc = (int64_t *)calloc((size_t)P, sizeof *sc);
  mispc_status s = (h && rc && sc)
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in halo plan");
  if (h) h->nbr = MPI_COMM_NULL;
  if (h) h->transport = MISPC_TRANSPORT_MPI;
  if (!s) s = count_by_owner(ctx, P, ranges, rank, nghost, garray, rc);
  /* Displacements of the exchanges are MPI ints in bytes of 8-byte words. */
  if (!s && nghost > INT_MAX / 8)
    s = mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "%lld ghosts exceed the halo limit of %d a rank",
                     (long long)nghost, INT_MAX / 8);
  s = mispc_dist_agree(ctx, comm, s);
  if (!s && MPI_Alltoall(rc, 1, MPI_INT64_T, sc, 1, MPI_INT64_T, comm) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Alltoall failed in the halo plan");
  if (!s) {
    int64_t nsend = 0;
    for (int p = 0; p < P; ++p) {
      h->nsrc += rc[p] > 0;
      h->ndst += sc[p] > 0;
      nsend += sc[p];
    }
    h->nsend = nsend;
    h->nghost = nghost;
    if (nsend > INT_MAX / 8)
      s = mispc_seterr(ctx, MISPC_ERR_OVERFLOW,
                       "%lld boundary sends exceed the halo limit of %d a rank", (long long)nsend,
                       INT_MAX / 8);
  }
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) {
    h->src = (int *)malloc(sizeof(int) * (size_t)(h->nsrc + 1));
    h->dst = (int *)malloc(sizeof(int) * (size_t)(h->ndst + 1));
    h->rcount = (int64_t *)malloc(sizeof(int64_t) * (size_t)(h->nsrc + 1));
    h->rdispl = (int64_t *)malloc(sizeof(int64_t) * (size_t)(h->nsrc + 1));
    h->scount = (int64_t *)malloc(sizeof(int64_t) * (size_t)(h->ndst + 1));
    h->sdispl = (int64_t *)malloc(sizeof(int64_t) * (size_t)(h->ndst + 1));
    h->sidx = (int32_t *)malloc(sizeof(int32_t) * (size_t)(h->nsend + 1));
    h->mcount = (int *)malloc(sizeof(int) * (size_t)(h->nsrc + h->ndst + 1));
    h->mdispl = (int *)malloc(sizeof(int) * (size_t)(h->nsrc + h->ndst + 1));
    /* the packing buffer of every host exchange of up to 8-byte elements,
     * here where a failure is agreed: an exchange that allocated could fail
     * on one rank and leave its neighbours in the collective */
    h->sbuf_bytes = 8 * (size_t)(h->nsend + h->nghost) + 1;
    h->sbuf = malloc(h->sbuf_bytes);
    if (!h->sbuf) h->sbuf_bytes = 0;
    if (!h->src || !h->dst || !h->rcount || !h->rdispl || !h->scount || !h->sdispl || !h->sidx ||
        !h->mcount || !h->mdispl || !h->sbuf)
      s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in halo plan");
  }
  s = mispc_dist_agree(ctx, comm, s);
  int64_t *req = NULL;
  if (!s) {
    int a = 0, b = 0;
    h->rdispl[0] = h->sdispl[0] = 0;
    for (int p = 0; p < P; ++p) {
      if (rc[p]) {
        h->src[a] = p;
        h->rcount[a] = rc[p];
        h->rdispl[a + 1] = h->rdispl[a] + rc[p];
        ++a;
      }
      if (sc[p]) {
        h->dst[b] = p;
        h->scount[b] = sc[p];
        h->sdispl[b + 1] = h->sdispl[b] + sc[p];
        ++b;
      }
    }
    req = (int64_t *)malloc(sizeof(int64_t) * (size_t)(h->nsend + 1));
    MPI_Request *rq = (MPI_Request *)malloc(sizeof(MPI_Request) * (size_t)(h->nsrc + h->ndst + 1));
    if (!req || !rq) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in halo plan");
    /* Every rank tells each owner which of its vertices it needs. */
    if (!s) {
      int nr = 0;
      for (int k = 0; k < h->ndst; ++k)
        MPI_Irecv(req + h->sdispl[k], (int)h->scount[k], MPI_INT64_T, h->dst[k], 7301, comm,
                  &rq[nr++]);
      for (int k = 0; k < h->nsrc; ++k)
        MPI_Isend(garray + h->rdispl[k], (int)h->rcount[k], MPI_INT64_T, h->src[k], 7301, comm,
                  &rq[nr++]);
      if (MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI exchange of ghost lists failed");
    }
    free(rq);
    int64_t nloc = ranges[rank + 1] - ranges[rank];
    for (int64_t k = 0; !s && k < h->nsend; ++k) {
      int64_t l = req[k] - rstart;
      if (l < 0 || l >= nloc)
        s = mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE, "a neighbour asked for vertex %lld, not owned",
                         (long long)req[k]);
      else
        h->sidx[k] = (int32_t)l;
    }
  }
  free(req);
  s = mispc_dist_agree(ctx, comm, s);
  /* Unit weights rather than MPI_UNWEIGHTED, a sentinel pointer that GCC
   * reads as a zero-size array (-Wstringop-overread). */
  int *ones = s ? NULL : (int *)malloc(sizeof(int) * (size_t)(h->nsrc + h->ndst + 1));
  if (!s && !ones) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in halo plan");
  for (int k = 0; !s && k < h->nsrc + h->ndst + 1; ++k) ones[k] = 1;
  s = mispc_dist_agree(ctx, comm, s);
  if (!s && MPI_Dist_graph_create_adjacent(comm, h->nsrc, h->src, ones, h->ndst, h->dst, ones,
                                           MPI_INFO_NULL, 0, &h->nbr) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Dist_graph_create_adjacent failed");
  free(ones);
  s = mispc_dist_agree(ctx, comm, s);
  free(rc);
  free(sc);
  if (s) {
    mispc_halo_destroy(h);
    return s;
  }
  h->stats.neighbours = h->nsrc > h->ndst ? h->nsrc : h->ndst;
  h->stats.boundary = h->nsend;
  *out = h;
  return MISPC_SUCCESS;
}

mispc_status mispc_halo_buffer(mispc_context *ctx, mispc_halo *h, size_t bytes) {
  if (bytes <= h->sbuf_bytes) return MISPC_SUCCESS;
  void *b = realloc(h->sbuf, bytes);
  if (!b)
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for a %zu-byte halo buffer", bytes);
  h->sbuf = b;
  h->sbuf_bytes = bytes;
  return MISPC_SUCCESS;
}

void mispc_halo_counts(mispc_halo *h, size_t size) {
  for (int k = 0; k < h->ndst; ++k) {
    h->mcount[k] = (int)(h->scount[k] * (int64_t)size);
    h->mdispl[k] = (int)(h->sdispl[k] * (int64_t)size);
  }
  for (int k = 0; k < h->nsrc; ++k) {
    h->mcount[h->ndst + k] = (int)(h->rcount[k] * (int64_t)size);
    h->mdispl[h->ndst + k] = (int)(h->rdispl[k] * (int64_t)size);
  }
}

mispc_status mispc_halo_exchange(mispc_context *ctx, mispc_halo *h, const void *owned, void *ghost,
                                 size_t size) {
  double t0 = mispc_wtime();
  size_t need = (size_t)h->nsend * size;
  MISPC_TRY(mispc_halo_buffer(ctx, h, need));
  const char *o = (const char *)owned;
  char *sb = (char *)h->sbuf;
  if (size == 1)
    for (int64_t k = 0; k < h->nsend; ++k) sb[k] = o[h->sidx[k]];
  else if (size == 8)
    for (int64_t k = 0; k < h->nsend; ++k) memcpy(sb + 8 * k, o + 8 * (size_t)h->sidx[k], 8);
  else
    for (int64_t k = 0; k < h->nsend; ++k)
      memcpy(sb + size * (size_t)k, o + size * (size_t)h->sidx[k], size);
  mispc_halo_counts(h, size);
  int *sc = h->mcount, *sd = h->mdispl, *rc = h->mcount + h->ndst, *rd = h->mdispl + h->ndst;
  if (MPI_Neighbor_alltoallv(sb, sc, sd, MPI_BYTE, ghost, rc, rd, MPI_BYTE, h->nbr) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Neighbor_alltoallv failed");
  h->stats.exchanges++;
  h->stats.bytes_sent += (int64_t)need;
  h->stats.comm_seconds += mispc_wtime() - t0;
  return MISPC_SUCCESS;
}

mispc_status mispc_halo_exchange_where(mispc_context *ctx, mispc_halo *h, const void *owned,
                                       void *ghost, size_t size, const int32_t *skey,
                                       const int32_t *gkey, int32_t k) {
  const double t0 = mispc_wtime();
  int *sc = h->mcount, *sd = h->mdispl, *rc = h->mcount + h->ndst, *rd = h->mdispl + h->ndst;
  int64_t ns = 0, nr = 0;
  for (int q = 0; q < h->ndst; ++q) {
    int64_t a = 0;
    for (int64_t e = h->sdispl[q]; e < h->sdispl[q + 1]; ++e) a += skey[e] == k;
    sd[q] = (int)(ns * (int64_t)size);
    sc[q] = (int)(a * (int64_t)size);
    ns += a;
  }
  for (int q = 0; q < h->nsrc; ++q) {
    int64_t a = 0;
    for (int64_t j = h->rdispl[q]; j < h->rdispl[q + 1]; ++j) a += gkey[j] == k;
    rd[q] = (int)(nr * (int64_t)size);
    rc[q] = (int)(a * (int64_t)size);
    nr += a;
  }
  const size_t need = (size_t)(ns + nr) * size + 1;
  MISPC_TRY(mispc_halo_buffer(ctx, h, need));
  char *sb = (char *)h->sbuf, *rb = sb + ns * (int64_t)size;
  const char *o = (const char *)owned;
  int64_t m = 0;
  for (int64_t e = 0; e < h->nsend; ++e)
    if (skey[e] == k) memcpy(sb + size * (size_t)m++, o + size * (size_t)h->sidx[e], size);
  if (MPI_Neighbor_alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, h->nbr) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Neighbor_alltoallv failed");
  char *g = (char *)ghost;
  m = 0;
  for (int64_t j = 0; j < h->nghost; ++j)
    if (gkey[j] == k) memcpy(g + size * (size_t)j, rb + size * (size_t)m++, size);
  h->stats.exchanges++;
  h->stats.bytes_sent += ns * (int64_t)size;
  h->stats.comm_seconds += mispc_wtime() - t0;
  return MISPC_SUCCESS;
}

mispc_status mispc_halo_exchange_flags(mispc_context *ctx, mispc_halo *h, const uint8_t *owned,
                                       uint8_t *active, uint8_t from, uint8_t to, uint8_t *ghost) {
  const double t0 = mispc_wtime();
  /* Send side: bytes a destination, from its active entries. */
  int *sc = h->mcount, *sd = h->mdispl, *rc = h->mcount + h->ndst, *rd = h->mdispl + h->ndst;
  int64_t sbytes = 0, rbytes = 0;
  for (int k = 0; k < h->ndst; ++k) {
    int64_t a = 0;
    for (int64_t e = h->sdispl[k]; e < h->sdispl[k + 1]; ++e) a += active[e] != 0;
    sd[k] = (int)sbytes;
    sc[k] = (int)((a + 7) / 8);
    sbytes += sc[k];
  }
  for (int k = 0; k < h->nsrc; ++k) {
    int64_t a = 0;
    for (int64_t j = h->rdispl[k]; j < h->rdispl[k + 1]; ++j) a += ghost[j] == from;
    rd[k] = (int)rbytes;
    rc[k] = (int)((a + 7) / 8);
    rbytes += rc[k];
  }
  const size_t need = (size_t)(sbytes + rbytes) + 1;
  MISPC_TRY(mispc_halo_buffer(ctx, h, need));
  uint8_t *sb = (uint8_t *)h->sbuf, *rb = sb + sbytes;
  memset(sb, 0, (size_t)sbytes);
  for (int k = 0; k < h->ndst; ++k) {
    int64_t bit = 0;
    for (int64_t e = h->sdispl[k]; e < h->sdispl[k + 1]; ++e) {
      if (!active[e]) continue;
      if (owned[h->sidx[e]] != from) {
        sb[sd[k] + bit / 8] |= (uint8_t)(1u << (bit % 8));
        active[e] = 0;
      }
      ++bit;
    }
  }
  if (MPI_Neighbor_alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, h->nbr) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Neighbor_alltoallv failed");
  for (int k = 0; k < h->nsrc; ++k) {
    int64_t bit = 0;
    for (int64_t j = h->rdispl[k]; j < h->rdispl[k + 1]; ++j) {
      if (ghost[j] != from) continue;
      if (rb[rd[k] + bit / 8] & (1u << (bit % 8))) ghost[j] = to;
      ++bit;
    }
  }
  h->stats.exchanges++;
  h->stats.bytes_sent += sbytes;
  h->stats.comm_seconds += mispc_wtime() - t0;
  return MISPC_SUCCESS;
}

/* The destination (index into h->dst) of send entry e: sdispl is increasing. */
static int dest_of(const mispc_halo *h, int64_t e) {
  int lo = 0, hi = h->ndst - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (h->sdispl[mid] <= e)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

mispc_status mispc_halo_exchange_sparse(mispc_context *ctx, mispc_halo *h, const int64_t *ents,
                                        int64_t n, const int32_t *owned, int32_t *ghost,
                                        int32_t *got, int64_t *ngot) {
  const double t0 = mispc_wtime();
  int *sc = h->mcount, *sd = h->mdispl, *rc = h->mcount + h->ndst, *rd = h->mdispl + h->ndst;
  *ngot = 0;
  for (int q = 0; q < h->ndst; ++q) sc[q] = 0;
  for (int64_t i = 0; i < n; ++i) sc[dest_of(h, ents[i])]++;
  if (MPI_Neighbor_alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, h->nbr) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Neighbor_alltoall failed");
  int64_t ns = 0, nr = 0; /* pairs */
  for (int q = 0; q < h->ndst; ++q) sd[q] = (int)(2 * ns), ns += sc[q];
  for (int q = 0; q < h->nsrc; ++q) rd[q] = (int)(2 * nr), nr += rc[q];
  MISPC_TRY(mispc_halo_buffer(ctx, h, (size_t)(8 * (ns + nr)) + 1));
  int32_t *sb = (int32_t *)h->sbuf, *rb = sb + 2 * ns;
  /* pairs (place in the destination's piece, value); sc counts down as the
   * cursor of each piece, then holds the words a piece again */
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = ents[i];
    const int q = dest_of(h, e);
    int32_t *pair = sb + sd[q] + 2 * (--sc[q]);
    pair[0] = (int32_t)(e - h->sdispl[q]);
    pair[1] = owned[h->sidx[e]];
  }
  for (int q = 0; q < h->ndst; ++q) sc[q] = (q + 1 < h->ndst ? sd[q + 1] : (int)(2 * ns)) - sd[q];
  for (int q = 0; q < h->nsrc; ++q) rc[q] *= 2;
  if (MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT32_T, rb, rc, rd, MPI_INT32_T, h->nbr) !=
      MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Neighbor_alltoallv failed");
  int64_t m = 0;
  for (int q = 0; q < h->nsrc; ++q)
    for (int w = rd[q]; w < rd[q] + rc[q]; w += 2) {
      const int64_t j = h->rdispl[q] + rb[w];
      ghost[j] = rb[w + 1];
      got[m++] = (int32_t)j;
    }
  *ngot = m;
  h->stats.exchanges++;
  h->stats.bytes_sent += 8 * ns + 4 * (int64_t)h->ndst;
  h->stats.comm_seconds += mispc_wtime() - t0;
  return MISPC_SUCCESS;
}

mispc_status mispc_dist_sum(mispc_context *ctx, mispc_halo *h, MPI_Comm comm, int64_t *value) {
  double t0 = mispc_wtime();
  int64_t in = *value;
  if (MPI_Allreduce(&in, value, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed");
  if (h) h->stats.comm_seconds += mispc_wtime() - t0;
  return MISPC_SUCCESS;
}

mispc_status mispc_dist_sum_start(mispc_context *ctx, MPI_Comm comm, const int64_t *in,
                                  int64_t *out, MPI_Request *req) {
  if (MPI_Iallreduce(in, out, 1, MPI_INT64_T, MPI_SUM, comm, req) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Iallreduce failed");
  return MISPC_SUCCESS;
}

mispc_status mispc_dist_sum_wait(mispc_context *ctx, mispc_halo *h, MPI_Request *req) {
  const double t0 = mispc_wtime();
  if (MPI_Wait(req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Wait on a termination count failed");
  if (h) h->stats.comm_seconds += mispc_wtime() - t0;
  return MISPC_SUCCESS;
}
