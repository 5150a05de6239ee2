/* Internal: the halo plan and collective helpers of the distributed layer
 * (not installed). Everything here is collective over the plan's
 * communicator unless it says otherwise. */
#ifndef MISPC_DIST_INTERNAL_H
#define MISPC_DIST_INTERNAL_H

#include "internal.h"
#include "mispc/dist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Neighbour ranks and the lists exchanged with them. Ghosts are received in
 * garray order (garray is sorted and rank ranges are contiguous, so each
 * source rank's ghosts are one contiguous piece): the receive buffer of an
 * exchange is the ghost array itself. */
struct mispc_halo {
  MPI_Comm nbr;    /* distributed-graph communicator (MPI_Dist_graph_create_adjacent) */
  int nsrc, ndst;  /* ranks we receive from / send to */
  int *src, *dst;  /* their ranks in the graph's communicator */
  int64_t *rcount; /* ghosts from each source (nsrc) */
  int64_t *rdispl; /* first ghost of each source (nsrc + 1) */
  int64_t *scount; /* owned vertices sent to each destination (ndst) */
  int64_t *sdispl; /* (ndst + 1) */
  int32_t *sidx;   /* local ids of the owned vertices sent, by destination */
  int64_t nsend;   /* sdispl[ndst] */
  int64_t nghost;  /* rdispl[nsrc] */
  void *sbuf;      /* packing buffer: 8 (nsend + nghost) + 1 bytes from mispc_halo_create */
  size_t sbuf_bytes;
  int *mcount, *mdispl; /* MPI int counts and displacements: ndst sends, then nsrc receives */
  mispc_dist_stats stats;
  /* Device mirror for graphs in device memory (dist_halo_cuda.cu), made on
   * first use: the send list and garray on the device, a device packing
   * buffer, and pinned host buffers of the host-staged MPI transport. */
  int32_t *d_sidx;
  int64_t *d_garray;
  void *d_sbuf;
  void *h_sbuf, *h_rbuf; /* pinned, 8 bytes a send / a ghost */
  int transport;         /* mispc_dist_transport of device exchanges, resolved (not AUTO) */
  void *nccl;            /* ncclComm_t when transport is NCCL */
  void *lsa;             /* mispc_halo_lsa (made on first use; NULL: none) */
  int lsa_tried;         /* 1 once mispc_halo_lsa_get found none for this plan */
  int lsa_rule;          /* one-kernel MIS-2 rounds by default: 1 yes, -1 no, 0 not yet asked
                            (dist_lsa.cuh, dist_lsa_wanted) */
  int64_t max_row1;      /* 1 + the longest owned row (diagonal + ghost entries) of the device
                            graph; 0 not yet measured (aggregate_dist_cuda.cu, phase 3) */
};

/* Entries of owned row v of g (diagonal and off-diagonal blocks, host). */
static inline int64_t mispc_dist_row_len(const mispc_dist_csr *g, int64_t v) {
  return g->diag.rowptr[v + 1] - g->diag.rowptr[v] + g->offd.rowptr[v + 1] - g->offd.rowptr[v];
}

/* The packing buffer of h grown to at least `bytes` (host). The plan is made
 * with room for any host exchange of elements up to 8 bytes (full, by key or
 * by flags), so those never allocate here and cannot fail on one rank while
 * its neighbours wait in the exchange. */
mispc_status mispc_halo_buffer(mispc_context *ctx, mispc_halo *h, size_t bytes);
/* MPI byte counts and displacements of a full exchange of `size`-byte
 * elements in h->mcount / h->mdispl: sends to dst, then receives from src. */
void mispc_halo_counts(mispc_halo *h, size_t size);

/* The collective verdict on a per-rank status: if any rank failed, every
 * rank returns the status of the lowest failing rank, with its message
 * prefixed by "rank R: ". Also fails (on every rank) if MPI itself fails. */
mispc_status mispc_dist_agree(mispc_context *ctx, MPI_Comm comm, mispc_status s);
/* The same verdict with, in the same MPI_Allreduce, v[0..n) (n <= 8)
 * replaced by their maxima over the ranks (on failure too). */
mispc_status mispc_dist_agree_max(mispc_context *ctx, MPI_Comm comm, mispc_status s, int *v, int n);

/* Builds the plan for ghosts garray[0..nghost) given every rank's row range
 * (ranges: P + 1 offsets). Collective. */
mispc_status mispc_halo_create(mispc_context *ctx, MPI_Comm comm, const int64_t *ranges,
                               int64_t rstart, int64_t nghost, const int64_t *garray,
                               mispc_halo **out);
void mispc_halo_destroy(mispc_halo *h);

/* ghost[j] = the owned value of ghost j on its owner, for elements of
 * `size` bytes (host memory). Every boundary vertex is sent (its value may be
 * unchanged): bytes a round = boundary vertices x size. */
mispc_status mispc_halo_exchange(mispc_context *ctx, mispc_halo *h, const void *owned, void *ghost,
                                 size_t size);

/* mispc_halo_exchange of the boundary vertices with key k only: send entry
 * e goes when skey[e] == k, ghost j is received when gkey[j] == k (the same
 * vertices seen from both sides: keys such as colors, exchanged once). */
mispc_status mispc_halo_exchange_where(mispc_context *ctx, mispc_halo *h, const void *owned,
                                       void *ghost, size_t size, const int32_t *skey,
                                       const int32_t *gkey, int32_t k);

/* One bit per boundary vertex still in play (MIS-1's 1 bit per undecided
 * boundary vertex and exchange, docs/DISTRIBUTED.md). active[k] (per send
 * entry, kept by the caller) marks the owned vertices whose ghost copies
 * are still `from`; a ghost j is in play while ghost[j] == from. Every
 * active owned vertex whose state is no longer `from` sends a set bit and
 * leaves play; every ghost in play with a set bit becomes `to`. Both sides
 * walk the same vertices in the same order, so no index is sent: each
 * neighbour gets ceil(active / 8) bytes. */
mispc_status mispc_halo_exchange_flags(mispc_context *ctx, mispc_halo *h, const uint8_t *owned,
                                       uint8_t *active, uint8_t from, uint8_t to, uint8_t *ghost);

/* A sparse exchange of 4-byte values: for each send entry ents[i] (an index
 * into the plan's send list, distinct, in any order) the owned value of its
 * vertex goes to the entry's destination, which writes it into its ghost
 * and lists that ghost's index in got (*ngot of them; room for nghost).
 * For rounds that change few boundary values (the host coloring's): a pair
 * of 4-byte words a changed entry instead of every boundary value, and no
 * pass over the unchanged ghosts. Collective over the plan's neighbours
 * (two neighbour collectives: the counts, then the pairs); never allocates
 * (the plan's buffer holds 8 bytes a send entry and a ghost). */
mispc_status mispc_halo_exchange_sparse(mispc_context *ctx, mispc_halo *h, const int64_t *ents,
                                        int64_t n, const int32_t *owned, int32_t *ghost,
                                        int32_t *got, int64_t *ngot);

/* mispc_halo_exchange for device arrays: packs on the device, stages through
 * pinned host memory and MPI (works with several ranks on one GPU, and with
 * an MPI that is not CUDA-aware), and leaves the ghost values in device
 * memory, queued on the context's stream. */
mispc_status mispc_halo_exchange_device(mispc_context *ctx, mispc_halo *h, const void *owned,
                                        void *ghost, size_t size);
/* The same on `stream` (a cudaStream_t; the host-staged path waits for it). */
mispc_status mispc_halo_exchange_device_on(mispc_context *ctx, mispc_halo *h, const void *owned,
                                           void *ghost, size_t size, void *stream);
/* mispc_halo_exchange_device_on, and in the same pass the count of
 * mispc_halo_count_start (n words at d_count summed into *d_wide, over the
 * ranks under NCCL, in the exchange's group: one launch; then *h_out);
 * mispc_halo_count_finish reads it. */
mispc_status mispc_halo_exchange_count_device(mispc_context *ctx, mispc_halo *h, const void *owned,
                                              void *ghost, size_t size, const unsigned *d_count,
                                              int n, unsigned long long *d_wide,
                                              unsigned long long *h_out, void *stream);
/* The send list (owned ids, in send order) in device memory, nsend entries;
 * the first call makes the plan's device mirror (the graph's construction
 * does, agreed, for device graphs: exchanges then never allocate). */
mispc_status mispc_halo_device_send_list(mispc_context *ctx, mispc_halo *h, const int32_t **d_sidx);
/* Per-key send and receive lists of a plan, for device exchanges of one key
 * at a time (the distributed Gauss-Seidel's colors: each color's boundary
 * values only), made once from skey / gkey as mispc_halo_exchange_where
 * reads them. NCCL when the plan has it (device to device, ordered on the
 * stream, no host wait), else staged through pinned host memory and MPI. */
typedef struct mispc_halo_keyed {
  int nkeys;
  int64_t *soff;   /* host, nkeys * ndst + 1: sends of key k to destination q */
  int64_t *roff;   /* host, nkeys * nsrc + 1: receives of key k from source q */
  int32_t *d_sidx; /* device: owned ids sent, by key, then destination */
  int32_t *d_gidx; /* device: ghost positions received, by key, then source */
  double *d_buf;   /* device: nsend + nghost packed values */
  double *h_buf;   /* pinned host: the same */
} mispc_halo_keyed;
mispc_status mispc_halo_keyed_create(mispc_context *ctx, const mispc_halo *h, const int32_t *skey,
                                     const int32_t *gkey, int nkeys, mispc_halo_keyed **out);
void mispc_halo_keyed_destroy(mispc_halo_keyed *kp);
/* ghost[j] = owned[v] for the boundary vertices of key k (doubles, device
 * memory), queued on the context's stream; h->stats counts it. */
mispc_status mispc_halo_exchange_where_device(mispc_context *ctx, mispc_halo *h,
                                              const mispc_halo_keyed *kp, const double *owned,
                                              double *ghost, int k);

/* Resolves and sets up the transport of device exchanges (collective):
 * AUTO is NCCL when mispc has NCCL and no two ranks share a GPU, else the
 * host-staged MPI path; NCCL asked for where ranks share a GPU or without
 * NCCL fails on every rank. */
mispc_status mispc_halo_set_transport(mispc_context *ctx, mispc_halo *h, MPI_Comm comm, int t);
void mispc_halo_nccl_free(mispc_halo *h);
/* For NCCL groups queued from a captured CUDA graph: follow makes `stream`
 * wait for the communicator's last group (outside a capture) so that groups
 * captured on it need no wait of their own; mark records the communicator's
 * "last group" event on `stream` now (after a graph launch: events recorded
 * inside a capture cannot be waited for outside it). */
mispc_status mispc_halo_nccl_follow(mispc_context *ctx, mispc_halo *h, void *stream);
mispc_status mispc_halo_nccl_mark(mispc_context *ctx, mispc_halo *h, void *stream);
/* NCCL grouped send/recv of the packed boundary values (d_sbuf) into the
 * ghost array, on stream `stream` (a cudaStream_t), and in the same group
 * the all-reduce (sum) of the device word *d_word (none when NULL). */
mispc_status mispc_halo_nccl_exchange_sum(mispc_context *ctx, mispc_halo *h, void *ghost,
                                          size_t size, unsigned long long *d_word, void *stream);
/* NCCL grouped send/recv of doubles with explicit per-neighbour offsets:
 * to destination q the sbuf entries [soff[q] - soff[0], soff[q + 1] -
 * soff[0]), from source q into rbuf likewise by roff (a key's lists of
 * mispc_halo_keyed), on stream `stream`. */
mispc_status mispc_halo_nccl_exchange_counts(mispc_context *ctx, mispc_halo *h, const double *sbuf,
                                             const int64_t *soff, double *rbuf, const int64_t *roff,
                                             void *stream);

/* A device count summed over the ranks without a host wait where NCCL
 * carries it (the termination count of device rounds, read a round late):
 * start queues on `stream` the sum of this rank's n counts d_count[0..n)
 * widened into *d_wide, the NCCL all-reduce of *d_wide (NCCL transport) and its copy to
 * the pinned word *h_out; finish, once the stream has passed that point,
 * gives the sum in *out (MPI transport: MPI_Allreduce of the word now). */
mispc_status mispc_halo_count_start(mispc_context *ctx, mispc_halo *h, const unsigned *d_count,
                                    int n, unsigned long long *d_wide, unsigned long long *h_out,
                                    void *stream);
mispc_status mispc_halo_count_finish(mispc_context *ctx, mispc_halo *h, MPI_Comm comm,
                                     const unsigned long long *h_out, int64_t *out);
/* Ghost arrays that the ranks' kernels write into directly, over NVLink
 * (the NCCL device API's load/store accessible (LSA) team and a symmetric
 * memory window): rounds of a distributed device pass run in one kernel a
 * rank, with the exchanges and the termination count inside it
 * (mis2_dist_lsa.cu, mis2_cover_dist_lsa.cu, coloring_dist_lsa.cu). The window holds three ghost
 * arrays of up to 8 bytes a ghost (at 0, ghost_bytes and 2 ghost_bytes; the
 * hash MIS-2 rounds use two), a ghost byte array (at sub_off) and four
 * rows of P 8-byte counts (at count_off). The send entries are kept by
 * owned vertex (vptr: nloc + 1 offsets), so the lane that writes a word
 * stores its ghost copies. */
typedef struct mispc_halo_lsa {
  void *win;          /* ncclWindow_t */
  char *base;         /* this rank's window memory */
  size_t ghost_bytes; /* bytes of each word ghost array (the same on every rank) */
  size_t sub_off, count_off;
  const void *devcomm; /* the communicator's ncclDevComm (host copy, passed to kernels) */
  int max_blocks;      /* LSA barriers: the most blocks a kernel may have (one barrier each) */
  int nranks, rank;
  int grid[2];       /* agreed grid of the 32- and 64-bit round kernels (0: not yet) */
  int cover_grid;    /* agreed grid of the cover rounds' kernels (0: not yet) */
  int color_grid[6]; /* agreed grid of the coloring kernels of 1, 8, 32 lanes, with a barrier a
                        pass and polled (0: not yet) */
  int color_lanes;   /* the coloring's lanes a vertex by the rows, agreed (0: not yet) */
  int32_t *d_vptr;   /* device, nloc + 1: send entries of each owned vertex */
  int32_t *d_speer;  /* device, by vertex: LSA rank of the entry's destination */
  int64_t *d_sslot;  /* device, by vertex: the entry's ghost position there */
} mispc_halo_lsa;
/* The plan's LSA ghost windows, made on first use (collective over comm,
 * the plan's communicator; nloc: the owned vertices); *out = NULL on every
 * rank where they cannot be had: no NCCL transport, a rank outside the LSA
 * team (several nodes), an NCCL runtime other than the one compiled against
 * (the device API is inlined), or a failure of NCCL's setup (logged at
 * verbosity 1). */
mispc_status mispc_halo_lsa_get(mispc_context *ctx, mispc_halo *h, MPI_Comm comm, int64_t nloc,
                                mispc_halo_lsa **out);

/* NCCL all-reduce (sum) of one device word in place, on `stream`. */
mispc_status mispc_halo_nccl_sum(mispc_context *ctx, mispc_halo *h, unsigned long long *d_word,
                                 void *stream);

/* garray on the device (copied once per plan); MISPC_ERR_NO_CUDA without CUDA. */
mispc_status mispc_halo_device_garray(mispc_context *ctx, mispc_halo *h, const int64_t *garray,
                                      const int64_t **d_garray);
/* Releases the device mirror (no-op without one). */
void mispc_halo_free_device(mispc_halo *h);

/* What the GPU aggregation asks of its MIS-2 calls besides mispc_dist_mis2's
 * work (device graphs on several ranks; mispc_dist_mis2_ex).
 *   ghost_subset: a device array of nghost bytes that gets the ghosts'
 *     subset flags (the bytes the rounds exchanged), or NULL; phase 2 reads
 *     them instead of exchanging its free flags again.
 *   d_rounds: a device word, or NULL. Where the rounds run in one kernel
 *     (and -vv is off), the call queues them on the context's stream and
 *     returns without waiting: the round count (-1: max_rounds ran out)
 *     arrives in *d_rounds in stream order, res holds -1s, and queued is
 *     set; the caller reads the word later, checks it and passes it to
 *     mispc_dist_mis2_account. Else the call waits as mispc_dist_mis2 does
 *     (queued 0). Failures before the kernel are still agreed by every
 *     rank before the call returns.
 * Queued calls need no host barrier between them: the next call's kernel
 * stores into a rank's windows only after an exchange with that rank (the
 * symmetric halo: the aggregation's root ids), which that rank joins after
 * its own kernel ended, and into every rank's only after its first barrier. */
typedef struct mispc_dist_mis2_extra {
  uint8_t *ghost_subset;
  unsigned long long *d_rounds;
  int queued;
} mispc_dist_mis2_extra;
mispc_status mispc_dist_mis2_ex(mispc_context *ctx, const mispc_dist_csr *g,
                                const mispc_mis_options *opt, const uint8_t *subset,
                                uint8_t *in_set, mispc_mis_result *res, mispc_dist_mis2_extra *x);
/* The halo statistics of a queued call, once its round count is known. */
void mispc_dist_mis2_account(const mispc_dist_csr *g, int rounds);

/* Sends records of `width` int64 words to their owner ranks (dest[i] for
 * record i) and returns the records this rank receives, in rank order and,
 * from each rank, in the order sent (so the result does not depend on
 * timing). *out is malloc'd (*nout records). Collective. */
mispc_status mispc_dist_route(mispc_context *ctx, MPI_Comm comm, int width, int64_t n,
                              const int64_t *rec, const int *dest, int64_t **out, int64_t *nout);

/* GPU backends of mispc_dist_color / mispc_dist_aggregate for device graphs
 * on several ranks (coloring_dist_cuda.cu, aggregate_dist_cuda.cu; the
 * entry points have validated the options). Outputs in device memory; the
 * status is agreed over the ranks. mode: MIS-1 key mode (mis_common.h). */
mispc_status mispc_dist_color_cuda(mispc_context *ctx, const mispc_dist_csr *g, int mode,
                                   uint64_t seed, int recolor, int32_t *color, int32_t *ncolors);
mispc_status mispc_dist_aggregate_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                       const mispc_agg_options *opt, int32_t *agg,
                                       mispc_dist_agg_info *info);

/* mispc_dist_route (width 1) for records whose destinations stay the same
 * from call to call (the cluster GS's moved rows, at every apply): the
 * counts are exchanged once, and each run is one neighbour collective
 * among the ranks that exchange records, with the arrival order of
 * mispc_dist_route (source rank order, sending order inside). create is
 * collective over comm; run over the plan's neighbours (every rank of
 * comm calls it); out holds mispc_route_plan_received() words. */
typedef struct mispc_route_plan mispc_route_plan;
mispc_status mispc_route_plan_create(mispc_context *ctx, MPI_Comm comm, int64_t n, const int *dest,
                                     mispc_route_plan **out);
mispc_status mispc_route_plan_run(mispc_context *ctx, mispc_route_plan *p, const int64_t *rec,
                                  int64_t *out);
int64_t mispc_route_plan_received(const mispc_route_plan *p);
void mispc_route_plan_destroy(mispc_route_plan *p);

/* A pattern from (row, column) pairs of global ids, pair k sent to rank
 * dest[k] (the rank of its row): this rank gets rows [r0, r1) of an
 * n-vertex graph, sorted, repeats dropped (the strength and coarse graphs).
 * Collective. */
mispc_status mispc_dist_csr_from_pairs(mispc_context *ctx, MPI_Comm comm, int64_t n, int64_t r0,
                                       int64_t r1, const int64_t *pairs, int64_t m, const int *dest,
                                       mispc_dist_csr *out);

/* The rank owning global row v, from the P + 1 range offsets. */
int mispc_dist_owner(const int64_t *ranges, int P, int64_t v);

/* The rank of item c of n split into even ranges [n p / P, n (p + 1) / P)
 * (coarse rows, aggregates). */
int mispc_dist_even_owner(int64_t c, int64_t n, int P);

/* Sorts n (row, column) pairs of int64 and drops repeats; returns the count left. */
int64_t mispc_sort_unique_pairs(int64_t *p, int64_t n);

/* The same sum started now and waited for later (the termination count of
 * a round, overlapped with the next round's local work: docs/DISTRIBUTED.md).
 * *in must stay untouched until the wait. */
mispc_status mispc_dist_sum_start(mispc_context *ctx, MPI_Comm comm, const int64_t *in,
                                  int64_t *out, MPI_Request *req);
mispc_status mispc_dist_sum_wait(mispc_context *ctx, mispc_halo *h, MPI_Request *req);

/* Sum of a 64-bit count over the communicator (timed as communication). */
mispc_status mispc_dist_sum(mispc_context *ctx, mispc_halo *h, MPI_Comm comm, int64_t *value);

#ifdef __cplusplus
}
#endif
#endif
