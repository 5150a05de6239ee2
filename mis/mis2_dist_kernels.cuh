/* The two passes of a distributed MIS-2 round on the GPU (not installed),
 * shared by the host-driven rounds (mis2_dist_cuda.cu) and the rounds in
 * one kernel a rank (mis2_dist_lsa.cu): column (M from the T words of the
 * closed neighbourhood, ghosts included) and decide (OUT, IN or the next
 * tuple from the M words), over worklists they compact while they run.
 * Every pass reads only words written before it starts, so the set and the
 * rounds equal the host's (and one process's) bit for bit. */
#ifndef MISPC_MIS2_DIST_KERNELS_CUH
#define MISPC_MIS2_DIST_KERNELS_CUH

#include "dist_cuda.cuh"
#include "mis_common.h"
#include "mis_cuda.cuh"

namespace mis2_dist {

using namespace mis_cuda; /* kWarps, List, ListSmem, Steps, w_in, w_out, row_min */
typedef ListSmem Smem;
static_assert(DIST_BLOCK == mis_cuda::kBlock, "the warp steps assume the MIS block size");

enum { kBoundary = 0, kInterior = 1 };

/* A run's arrays (kernel parameter: constant memory). Worklists by class c
 * (kBoundary, kInterior) and round parity: col[c][r & 1], dec[c][r & 1];
 * len[4 r + c] / len[4 r + 2 + c] their lengths in round r. Round 0's
 * lists are the class's vertices of the subset, in col[c][0] for both
 * kernels. */
template <typename W> struct Plan {
  dev_graph g;
  W *T, *M, *gT, *gM;
  const uint8_t *subset, *gsub;
  const uint8_t *cls; /* rounds in one kernel: each vertex's class (all in the boundary
                         lists), else NULL (the class of the list) */
  int per_round, idbits;
  int all0; /* round 0 runs every owned vertex of the subset from its id, no list (the
               rounds in one kernel) */
  uint64_t seed;
  int32_t *col[2][2], *dec[2][2];
  unsigned *len;
  const int *round;         /* the round in device memory (a replayed graph), else NULL */
  mis_cuda::Heavy<W> heavy; /* hub rows in chunks, tagged with their class (the
                               host-driven rounds); chunk NULL: none */
};

/* Called by the lane that writes a vertex's new M (column) or T (decide)
 * word; the host-driven rounds need nothing there. */
struct NoHook {
  template <typename W> __device__ void operator()(int32_t, W) const {}
};

/* Whether v, on a list of class c, has a ghost row or ghost copies: a vertex
 * of the interior class (not sent, no ghost column) has neither. */
template <typename W>
__device__ __forceinline__ bool has_ghosts(const Plan<W> &p, int c, int32_t v) {
  return c == kBoundary && (!p.cls || p.cls[v] == kBoundary);
}

/* min over entries [lo, hi) of v's row, the owned ones (T) first, then the
 * ghost ones (gT), from lane's share (Warp: 32 lanes split it). */
template <typename W, bool Warp>
__device__ __forceinline__ W part_min(const Plan<W> &p, int64_t ab, int64_t ae, int64_t bb,
                                      int64_t lo, int64_t hi, int lane, W m) {
  const int64_t la = ae - ab;
  m = row_min<W, Warp>(p.g.acol, ab + lo, ab + (hi < la ? hi : la), p.T, lane, m);
  for (int64_t q = bb + (lo > la ? lo : la) - la + (Warp ? lane : 0); q < bb + hi - la;
       q += Warp ? 32 : 1) {
    const W t = p.gT[p.g.bcol[q]];
    m = t < m ? t : m;
  }
  return m;
}

/* The column passes' hub chunks of class c (mis_cuda.cuh heavy_column): M
 * and, where v has ghost copies, the hook as the list's lanes do. */
template <typename W, typename Hook>
__device__ __forceinline__ void heavy_columns(const Plan<W> &p, int c, Hook hook) {
  mis_cuda::heavy_column(
      p.heavy,
      [&](int32_t v, int tag) {
        return tag == c && (!p.subset || p.subset[v]) && p.M[v] != w_out<W>();
      },
      [&](int32_t v, int k, int lane, W m) {
        const int64_t ab = p.g.arp[v], ae = p.g.arp[v + 1], bb = p.g.brp[v];
        const int64_t lo = k * p.heavy.size;
        const int64_t len = ae - ab + (has_ghosts(p, c, v) ? p.g.brp[v + 1] - bb : 0);
        const int64_t hi = lo + p.heavy.size < len ? lo + p.heavy.size : len;
        return part_min<W, true>(p, ab, ae, bb, lo, hi, lane, k || lane ? m : p.T[v]);
      },
      [&](int32_t v, W m) {
        m = m == w_in<W>() ? w_out<W>() : m;
        p.M[v] = m;
        if (has_ghosts(p, c, v)) hook(v, m);
      });
}

/* Column over class c's list: M[v] = min T over N[v] (ghosts included); an
 * IN minimum makes it OUT for good. Hub rows first, in chunks over the grid;
 * they are passed over in the list and never kept on it. */
template <typename W, bool Warp, typename Hook = NoHook>
__device__ __forceinline__ void column_pass(const Plan<W> &p, int r, int c, Smem &sm,
                                            Hook hook = Hook()) {
  heavy_columns(p, c, hook);
  const int32_t *in = p.col[c][r & 1];
  List out(sm.slots[threadIdx.x >> 5], p.col[c][(r + 1) & 1], p.len + 4 * (r + 1) + c);
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const bool all = r == 0 && p.all0; /* every vertex */
  const int64_t n = all ? p.g.nloc : (int64_t)p.len[4 * r + c];
  for (int64_t step = Steps<Warp>::first(); step < n; step += Steps<Warp>::stride()) {
    const int64_t i = step + Steps<Warp>::slot();
    bool keep = false;
    const int32_t v = i < n ? (all ? (int32_t)i : in[i]) : -1;
    /* A vertex on the list has M not OUT (kept by the column before, or
     * round 0 of the subset): no test, so that its row's loads need not
     * wait for M[v]'s. */
    if (v >= 0 && (!all || !p.subset || p.subset[v])) {
      const bool ghosts = has_ghosts(p, c, v); /* interior: no ghost row */
      const int64_t ab = p.g.arp[v], ae = p.g.arp[v + 1];
      const int64_t bb = ghosts ? p.g.brp[v] : 0, be = ghosts ? p.g.brp[v + 1] : 0;
      if (!mis_cuda::heavy_row(p.heavy, ae - ab + be - bb)) { /* a hub's chunks did it */
        W m = part_min<W, Warp>(p, ab, ae, bb, 0, ae - ab + be - bb, lane,
                                lane ? w_out<W>() : p.T[v]);
        if (Warp) m = mis_cuda::warp_min(m);
        m = m == w_in<W>() ? w_out<W>() : m;
        keep = m != w_out<W>();
        if (lane == 0) {
          p.M[v] = m;
          if (ghosts) hook(v, m);
        }
      }
    }
    out.push(lane == 0 && keep, v);
  }
  out.finish<kWarps>(sm.counts);
}

/* Decide over class c's list: OUT when an M over N[v] (in the subset) is
 * OUT, IN when all are T[v], else v's tuple of round r + 1
 * (mis2_dist_decide). Round 0 has no IN vertex yet, so the first mismatch
 * settles "undecided". */
template <typename W, bool Warp, typename Hook = NoHook>
__device__ __forceinline__ void decide_pass(const Plan<W> &p, int r, int c, Smem &sm,
                                            Hook hook = Hook()) {
  const bool first_round = r == 0;
  const bool all = first_round && p.all0; /* every vertex */
  const int32_t *in = first_round ? p.col[c][0] : p.dec[c][r & 1];
  List out(sm.slots[threadIdx.x >> 5], p.dec[c][(r + 1) & 1], p.len + 4 * (r + 1) + 2 + c);
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const int64_t n = all ? p.g.nloc : (int64_t)p.len[first_round ? c : 4 * r + 2 + c];
  for (int64_t step = Steps<Warp>::first(); step < n; step += Steps<Warp>::stride()) {
    const int64_t i = step + Steps<Warp>::slot();
    bool undecided = false;
    const int32_t v = i < n ? (all ? (int32_t)i : in[i]) : -1;
    /* A vertex on the list is undecided (T neither IN nor OUT): its words'
     * and its row's loads go out together. */
    if (v >= 0 && (!all || !p.subset || p.subset[v])) {
      const W t = p.T[v], mv = p.M[v];
      bool out_ = mv == w_out<W>(), all_min = mv == t;
      row_decide<W, Warp>(p.g.acol, p.g.arp[v], p.g.arp[v + 1], p.M, p.subset, t, first_round, lane,
                          &out_, &all_min);
      const bool ghosts = has_ghosts(p, c, v); /* interior: no ghost row */
      const int64_t qb = ghosts ? p.g.brp[v] : 0, qe = ghosts ? p.g.brp[v + 1] : 0;
      for (int64_t q = qb + (Warp ? lane : 0); q < qe && !out_ && (all_min || !first_round);
           q += Warp ? 32 : 1) {
        /* the flag and the word loaded side by side: each step of this
         * early-exit loop waits for its loads, and a word loaded only after
         * its flag made that two loads after the column's */
        const int32_t j = p.g.bcol[q];
        const uint8_t in_subset = p.gsub[j];
        const W m = p.gM[j];
        if (!in_subset) continue;
        out_ = m == w_out<W>();
        all_min = all_min && m == t;
      }
      if (Warp) {
        out_ = __any_sync(0xffffffffu, out_);
        all_min = __all_sync(0xffffffffu, all_min);
      }
      undecided = !out_ && !all_min;
      if (lane == 0) {
        const W nt = out_      ? w_out<W>()
                     : all_min ? w_in<W>()
                               : (W)mis2_tuple(p.per_round, p.seed, r + 1, p.g.rstart + v, p.idbits,
                                               8 * (int)sizeof(W));
        p.T[v] = nt;
        if (ghosts) hook(v, nt);
      }
    }
    out.push(lane == 0 && undecided, v);
  }
  out.finish<kWarps>(sm.counts);
}

/* All rounds in one cooperative kernel a rank (mis2_dist_lsa.cu), after
 * init (round 0 runs every vertex of the subset, p.all0, and later rounds
 * the kBoundary lists; p.cls tells the interior vertices, whose passes read
 * no ghost row and store no copies): the ghosts' subset flags and T words, then each round's M
 * and T words, are stored by the lanes that write them straight into the
 * other ranks' LSA windows (l), with the counts beside them; the members
 * go to in_set. lsa_grid first (collective, cached in l): the grid every
 * rank runs (0: none, use the host-driven rounds). Then lsa_rounds queues
 * the kernel on st; d_out[0] gets the global set size, d_out[1] the rounds
 * (-1: max_rounds ran out); scratch: 2 zeroed device words. */
/* trace (-vv, else NULL): kTraceSlots zeroed words; slot 0 the start, 1 / 2
 * the arrival at and exit from the first exchange, 3 + 4 r .. 6 + 4 r round
 * r's column and decide exchanges (arrival, exit) for r < kTraceRounds, the
 * last two the end's: each the latest block's %globaltimer, ns. */
enum { kTraceRounds = 60, kTraceSlots = 3 + 4 * kTraceRounds + 2 };
template <typename W>
mispc_status lsa_grid(mispc_context *ctx, MPI_Comm comm, mispc_halo_lsa *l, int *blocks);
template <typename W>
mispc_status lsa_rounds(mispc_context *ctx, const Plan<W> &p, const mispc_halo_lsa *l, int blocks,
                        bool warp, const uint8_t *own, const unsigned *subset_count,
                        uint8_t *in_set, int max_rounds, unsigned long long *scratch,
                        unsigned long long *d_out, unsigned long long *trace, cudaStream_t st);

} // namespace mis2_dist

#endif
