/* Entry points of the distributed MIS: collective argument checks, backend
 * choice, and the distributed verify (docs/DISTRIBUTED.md). */
#include <stdlib.h>
#include <string.h>

#include "mis_common.h"
#include "mis_dist_backend.h"

static mispc_status check_dist(mispc_context *ctx, const mispc_dist_csr *g,
                               const mispc_mis_options *user, mispc_mis_options *o, const void *out,
                               int k, const char *name) {
  if (user)
    *o = *user;
  else
    mispc_mis_options_default(o);
  mispc_status s = MISPC_SUCCESS;
  if (!out && g->rend > g->rstart)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: membership output is NULL", name);
  else if (o->max_rounds < 0 || o->max_rounds > MIS1_MAX_ROUNDS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: max_rounds must be in [0, %d], got %d", name,
                     MIS1_MAX_ROUNDS, o->max_rounds);
  else if (o->priority < MISPC_PRIORITY_DEFAULT || o->priority > MISPC_PRIORITY_COVER)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: unknown priority %d", name, (int)o->priority);
  else if (k == 1 && o->priority == MISPC_PRIORITY_COVER)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: the cover priority is an MIS-2 option", name);
  else if (k == 1 && o->priority == MISPC_PRIORITY_HASH_PER_ROUND)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "%s: per-round priorities are an MIS-2 option; use DEGREE or HASH", name);
  else if (k == 2 &&
           (o->priority == MISPC_PRIORITY_DEGREE || o->priority == MISPC_PRIORITY_LARGEST_DEGREE))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "%s: degree priorities are MIS-1 options; use HASH_PER_ROUND or HASH", name);
  else if (g->diag.mem != g->offd.mem)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "%s: the diagonal and off-diagonal blocks live in different memory spaces",
                     name);
  /* one priority on every rank (the cover rounds exchange more than the
   * others): the largest and minus the least, in the verdict's reduction */
  int p[2] = {(int)o->priority, -(int)o->priority};
  s = mispc_dist_agree_max(ctx, g->comm, s, p, 2);
  if (s) return s;
  if (p[0] != -p[1])
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "%s: the priority differs between ranks (%d to %d)", name, -p[1], p[0]);
  return MISPC_SUCCESS;
}

static mispc_status check_graph(mispc_context *ctx, const mispc_dist_csr *g) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!g || !g->halo || !g->ranges)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "distributed graph is NULL or was not built by a mispc_dist_csr_* call");
  return MISPC_SUCCESS;
}

/* One rank holds the whole graph in its diagonal block with global ids as
 * local ids: the one-process kernels give the same set and rounds (their
 * contract), without the halo machinery. MIS-1 asks for rounds so that the
 * GPU reports them too (its sync-free pass gives the same set, no count). */
static int one_rank(const mispc_context *ctx, const mispc_dist_csr *g) {
  int P = 0;
  MPI_Comm_size(g->comm, &P);
  return P == 1 && !ctx->tuning.dist_rounds_on_one_rank;
}

/* MIS-k (k = 1, 2) of a distributed graph: the one-process kernels on one
 * rank, else the rounds of the graph's memory space. */
static mispc_status dist_mis(mispc_context *ctx, const mispc_dist_csr *g,
                             const mispc_mis_options *opt, const uint8_t *subset, uint8_t *in_set,
                             mispc_mis_result *res, int k, mispc_dist_mis2_extra *x) {
  MISPC_TRY(check_graph(ctx, g));
  mispc_mis_options o;
  MISPC_TRY(check_dist(ctx, g, opt, &o, in_set, k, k == 1 ? "mispc_dist_mis1" : "mispc_dist_mis2"));
  mispc_mis_result r = {0, 0};
  const int dev = g->diag.mem == MISPC_MEM_DEVICE;
  mispc_status s;
  if (one_rank(ctx, g)) {
    o.skip_validation = 1; /* the distributed path does not validate either */
    if (k == 1 && !o.max_rounds) o.max_rounds = MIS1_MAX_ROUNDS;
    s = k == 1 ? mispc_mis1_subset(ctx, &g->diag, &o, subset, in_set, &r)
               : mispc_mis2_subset(ctx, &g->diag, &o, subset, in_set, &r);
  } else {
    static mis_dist_backend_fn *const backend[2][2] = {
        {mispc_dist_mis1_host, mispc_dist_mis1_cuda}, {mispc_dist_mis2_host, mispc_dist_mis2_cuda}};
    const int key = k == 1 ? mis1_key_mode(o.priority) : o.priority != MISPC_PRIORITY_HASH;
    if (k == 2 && o.priority == MISPC_PRIORITY_COVER)
      s = dev ? mispc_dist_mis2_cover_cuda(ctx, g, &o, subset, in_set, &r,
                                           x ? x->ghost_subset : NULL)
              : mispc_dist_mis2_cover_host(ctx, g, &o, subset, in_set, &r);
    else if (k == 2 && dev && x)
      s = mispc_dist_mis2_cuda_ex(ctx, g, &o, key, subset, in_set, &r, x);
    else
      s = backend[k - 1][dev](ctx, g, &o, key, subset, in_set, &r);
  }
  if (res) *res = r;
  return s;
}

mispc_status mispc_dist_mis1(mispc_context *ctx, const mispc_dist_csr *g,
                             const mispc_mis_options *opt, const uint8_t *subset, uint8_t *in_set,
                             mispc_mis_result *res) {
  return dist_mis(ctx, g, opt, subset, in_set, res, 1, NULL);
}

mispc_status mispc_dist_mis2(mispc_context *ctx, const mispc_dist_csr *g,
                             const mispc_mis_options *opt, const uint8_t *subset, uint8_t *in_set,
                             mispc_mis_result *res) {
  return dist_mis(ctx, g, opt, subset, in_set, res, 2, NULL);
}

mispc_status mispc_dist_mis2_ex(mispc_context *ctx, const mispc_dist_csr *g,
                                const mispc_mis_options *opt, const uint8_t *subset,
                                uint8_t *in_set, mispc_mis_result *res, mispc_dist_mis2_extra *x) {
  if (x) x->queued = 0;
  return dist_mis(ctx, g, opt, subset, in_set, res, 2, x);
}

mispc_status mis_dist_result(mispc_context *ctx, const mispc_dist_csr *g, mispc_status s,
                             const uint8_t *in_set, int rounds, mispc_mis_result *res) {
  s = mispc_dist_agree(ctx, g->comm, s);
  if (s) return s;
  int64_t size = 0;
  for (int64_t v = 0; v < g->rend - g->rstart; ++v) size += in_set[v];
  MISPC_TRY(mispc_dist_sum(ctx, g->halo, g->comm, &size));
  res->set_size = size;
  res->rounds = rounds;
  return MISPC_SUCCESS;
}

/* c[v] = members in N[v] (self loops counted once), capped at 2. */
static void count_members(const mispc_dist_csr *g, const uint8_t *set, const uint8_t *gset,
                          uint8_t *c) {
  const int64_t nloc = g->rend - g->rstart;
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < nloc; ++v) {
    int n = set[v];
    for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1] && n < 2; ++p)
      if (g->diag.colidx[p] != v) n += set[g->diag.colidx[p]];
    for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1] && n < 2; ++p)
      n += gset[g->offd.colidx[p]];
    c[v] = (uint8_t)(n < 2 ? n : 2);
  }
}

/* Independence and maximality from member counts: at distance 1, a member
 * with count 2 has a member neighbour and a non-member with count 0 could
 * join; at distance 2, two members are within distance 2 iff they share a
 * closed neighbourhood N[w] (count 2 at w), and a non-member v is covered iff
 * some w in N[v] has count >= 1. */
static mispc_status verify_host(mispc_context *ctx, const mispc_dist_csr *g, int k,
                                const uint8_t *in_set) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  mispc_status s = MISPC_SUCCESS;
  if (k != 1 && k != 2)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_verify_mis: k must be 1 or 2, got %d",
                     k);
  else if (!in_set && nloc > 0)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_verify_mis: NULL set");
  for (int64_t v = 0; !s && v < nloc; ++v)
    if (in_set[v] > 1)
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "membership of vertex %lld is %d (not 0/1)",
                       (long long)(g->rstart + v), in_set[v]);
  s = mispc_dist_agree(ctx, g->comm, s);
  if (s) return s;
  uint8_t *gset = (uint8_t *)malloc((size_t)ng + 1), *c = (uint8_t *)malloc((size_t)nloc + 1);
  uint8_t *gc = (uint8_t *)malloc((size_t)ng + 1);
  if (!gset || !c || !gc) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in verify");
  s = mispc_dist_agree(ctx, g->comm, s);
  if (!s) s = mispc_halo_exchange(ctx, g->halo, in_set, gset, 1);
  if (!s) count_members(g, in_set, gset, c);
  if (!s && k == 2) s = mispc_halo_exchange(ctx, g->halo, c, gc, 1);
  int64_t bad = -1, bad2 = -1;
  for (int64_t v = 0; !s && v < nloc && bad < 0; ++v) {
    const int64_t gv = g->rstart + v;
    if (k == 1) {
      if (in_set[v] && c[v] > 1) bad = gv;
      if (!in_set[v] && c[v] == 0) bad2 = gv, bad = -2;
      continue;
    }
    if (c[v] > 1) bad = gv;
    int covered = c[v] > 0;
    for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1] && !covered; ++p)
      covered = c[g->diag.colidx[p]] > 0;
    for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1] && !covered; ++p)
      covered = gc[g->offd.colidx[p]] > 0;
    if (!covered && bad < 0) bad2 = gv, bad = -2;
  }
  if (!s && bad >= 0)
    s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                     k == 1 ? "not independent at distance 1: member %lld has a member neighbour"
                            : "not independent at distance 2: two members share the closed "
                              "neighbourhood of vertex %lld",
                     (long long)bad);
  else if (!s && bad == -2)
    s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                     "not maximal at distance %d: vertex %lld could join the set", k,
                     (long long)bad2);
  free(gset);
  free(c);
  free(gc);
  return mispc_dist_agree(ctx, g->comm, s);
}

/* Device graphs are checked on host copies of this rank's blocks (the
 * check's reference must not share the kernels it checks). */
mispc_status mispc_dist_verify_mis(mispc_context *ctx, const mispc_dist_csr *g, int k,
                                   const uint8_t *in_set) {
  MISPC_TRY(check_graph(ctx, g));
  if (g->diag.mem != MISPC_MEM_DEVICE) return verify_host(ctx, g, k, in_set);
  const int64_t nloc = g->rend - g->rstart;
  mispc_dist_csr h = *g;
  memset(&h.diag, 0, sizeof h.diag);
  memset(&h.offd, 0, sizeof h.offd);
  uint8_t *set = (uint8_t *)malloc((size_t)nloc + 1);
  mispc_status s = set ? MISPC_SUCCESS : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
  if (!s) s = mispc_csr_host_view(ctx, &g->diag, &h.diag);
  if (!s) s = mispc_csr_host_view(ctx, &g->offd, &h.offd);
  if (!s && in_set)
    s = mispc_mem_copy(ctx, set, MISPC_MEM_HOST, in_set, MISPC_MEM_DEVICE, (size_t)nloc);
  s = mispc_dist_agree(ctx, g->comm, s);
  if (!s) s = verify_host(ctx, &h, k, in_set ? set : NULL);
  mispc_csr_free(ctx, &h.diag);
  mispc_csr_free(ctx, &h.offd);
  free(set);
  return s;
}
