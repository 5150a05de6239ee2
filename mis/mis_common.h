/* Priority words shared by the host and CUDA MIS kernels. Both backends use
 * exactly these functions, so their results are bit-identical. */
#ifndef MISPC_MIS_COMMON_H
#define MISPC_MIS_COMMON_H

#include <stdint.h>

#include "mispc/hash.h"
#include "mispc/mis.h"

/* ---- MIS-1: random-permutation algorithm (Blelloch et al.) ------------------
 * A vertex's 32-bit status word is either its key (undecided) or a decision
 * stamp below MIS1_DECIDED_LIMIT: stamp = 2*(round+1) + (1 if OUT, 0 if IN).
 * Keys order vertices (smaller wins, ties to the smaller id). With the
 * degree-aware priority the key is (min(deg, 4093), hash) in that order, which
 * is the ordering of ECL-MIS's f = d_avg / (d_avg + deg - rand) (papers/
 * ECL-MIS-2018.txt §3) without its 8-bit quantisation: lower degree first,
 * random among equal degrees. The stamp lets a reader tell "decided in an
 * earlier round" (always OUT, see mis1 round rules) from "decided in this
 * round" (then it looks at the neighbour's key), so each round is computed
 * from the state at its start regardless of thread timing. */
#define MIS1_DECIDED_LIMIT 0x10000u
#define MIS1_MAX_ROUNDS    32767
#define MIS1_DEGREE_CAP    4093u /* keeps every key below MIS1_KEY_NONE */

/* Host passes whose words other threads write meanwhile (MIS-1 rounds, the
 * coloring rounds) read and write them with relaxed atomics. */
#define MIS_LOAD_RELAXED(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
#define MIS_STORE_RELAXED(p, x) __atomic_store_n((p), (x), __ATOMIC_RELAXED)

/* Key modes: hash only, lower degree first (default), higher degree first;
 * and one key for all, so the order is the vertex order (the one-pass
 * coloring then computes greedy coloring in vertex order). */
enum {
  MIS1_KEY_HASH = 0,
  MIS1_KEY_LOW_DEGREE = 1,
  MIS1_KEY_HIGH_DEGREE = 2,
  MIS1_KEY_INDEX = 3,
  MIS1_KEY_LINES = 4 /* the default: lower degree first, then the line class, then hash */
};
/* Degree above which a vertex is a hub: 8x the mean + 32. Without hubs the
 * sync-free passes (MIS-1, one-pass coloring) beat rounds; with them, rounds
 * (docs/results/benchmarks-log.md). */
MISPC_HD int64_t mis1_hub_degree(int64_t nnz, int64_t n) {
  return 8 * (n ? nnz / n : 0) + 32;
}

/* The key mode of an MIS-1 priority (HASH_PER_ROUND is rejected before). */
MISPC_HD int mis1_key_mode(mispc_priority pr) {
  return pr == MISPC_PRIORITY_HASH             ? MIS1_KEY_HASH
         : pr == MISPC_PRIORITY_LARGEST_DEGREE ? MIS1_KEY_HIGH_DEGREE
         : pr == MISPC_PRIORITY_DEFAULT        ? MIS1_KEY_LINES
                                               : MIS1_KEY_LOW_DEGREE;
}
/* The colorings keep ECL-MIS's order for their default (no line class). */
MISPC_HD int mis1_coloring_key_mode(mispc_priority pr) {
  return pr == MISPC_PRIORITY_DEFAULT ? MIS1_KEY_LOW_DEGREE : mis1_key_mode(pr);
}
/* Key of a vertex outside the subset: never before anybody. */
#define MIS1_KEY_NONE 0xFFFFFFFFu

MISPC_HD uint32_t mis1_key(int mode, uint64_t seed, int64_t v, int64_t deg) {
  uint64_t h = mispc_hash3(seed, 0, (uint64_t)v);
  if (mode == MIS1_KEY_HASH) return MIS1_DECIDED_LIMIT + (uint32_t)(h >> 33); /* 31 hash bits */
  if (mode == MIS1_KEY_INDEX) return MIS1_DECIDED_LIMIT;
  uint32_t dq = deg > (int64_t)MIS1_DEGREE_CAP ? MIS1_DEGREE_CAP : (uint32_t)deg;
  if (mode == MIS1_KEY_HIGH_DEGREE) dq = MIS1_DEGREE_CAP - dq;
  return MIS1_DECIDED_LIMIT + ((dq << 20) | (uint32_t)(h >> 44)); /* 12 + 20 bits */
}

/* ---- The line class of MIS-1's default key (docs/BENCHMARKS.md, "Set size on
 * meshes"). On a mesh numbered lexicographically (x fastest), greedy in id
 * order takes every other vertex of each x line and aligns the lines, the
 * densest set (12.5 % of a 27-point grid), but its dependency chains are
 * long; a hash is short but takes 8.7 %. Between degree and hash the key
 * puts class 0 for even ids on an "id line", 2 for odd ones, 1 for the rest:
 * v is on a line when v - 1 or v + 1 is a neighbour, v - 2 and v + 2 are
 * not, and its other neighbours form runs of consecutive ids of odd length,
 * each of 3 or more centred an even distance from v (what 5/7/9/27-point
 * stencils give). Graphs without id locality have no line vertices and keep
 * the degree-then-hash order. A function of the set of neighbour ids only
 * (any storage order, any partition), so every backend and rank count sees
 * the same class. Rows of more than MIS1_LINE_MAX_DEG + 1 entries (a stored
 * self loop counted, as every backend counts a row) are class 1. */
#define MIS1_LINE_MAX_DEG 64

/* The run scan of the class: sorted ids u != v one at a time
 * (mis1_runs_step), then mis1_runs_end; either returns 1 when a run breaks
 * the rule (even length, or 3 or more centred an odd distance from v). */
typedef struct {
  int64_t run, last;
} mis1_runs;
MISPC_HD int mis1_runs_end(const mis1_runs *r, int64_t v) {
  return r->run && (!(r->run & 1) || (r->run >= 3 && ((r->last - (r->run - 1) / 2 - v) & 1)));
}
MISPC_HD int mis1_runs_step(mis1_runs *r, int64_t u, int64_t v) {
  if (u == r->last + 1) { /* the run goes on */
    ++r->run;
    r->last = u;
    return 0;
  }
  if (mis1_runs_end(r, v)) return 1;
  r->run = 1;
  r->last = u;
  return 0;
}

/* The class from the sorted distinct neighbour ids ids[0..m) (v excluded). */
MISPC_HD uint32_t mis1_line_class_sorted(const int64_t *ids, int m, int64_t v) {
  int near1 = 0;
  mis1_runs r = {0, -3};
  for (int p = 0; p < m; ++p) {
    const int64_t u = ids[p];
    if (mis1_runs_step(&r, u, v) || u == v - 2 || u == v + 2) return 1u;
    near1 |= u == v - 1 || u == v + 1;
  }
  return !near1 || mis1_runs_end(&r, v) ? 1u : 2u * (uint32_t)(v & 1);
}

/* The class of v from its row cols[0..m) sorted by id (one process: the
 * graph's own row, self loop allowed), in one pass and without copies: rows
 * without v - 1 or v + 1, or with v - 2 or v + 2 (most rows of graphs
 * without id locality), are settled by a binary search and a look at the
 * few entries in [v - 2, v + 2]; the others are scanned once. */
MISPC_HD uint32_t mis1_line_class_row(const int32_t *cols, int64_t m, int64_t v) {
  if (m > MIS1_LINE_MAX_DEG + 1) return 1u;
  int64_t lo = 0, hi = m;
  while (lo < hi) { /* first entry >= v - 2 */
    const int64_t mid = (lo + hi) >> 1;
    if (cols[mid] < v - 2)
      lo = mid + 1;
    else
      hi = mid;
  }
  int near1 = 0;
  for (int64_t p = lo; p < m && cols[p] <= v + 2; ++p) {
    if (cols[p] == v - 2 || cols[p] == v + 2) return 1u;
    near1 |= cols[p] == v - 1 || cols[p] == v + 1;
  }
  if (!near1) return 1u;
  mis1_runs r = {0, -3};
  for (int64_t p = 0; p < m; ++p)
    if (cols[p] != v && mis1_runs_step(&r, cols[p], v)) return 1u; /* the self loop skipped */
  return mis1_runs_end(&r, v) ? 1u : 2u * (uint32_t)(v & 1);
}

/* Appends the ids of cols[0..m) (+ base, or garray[c] when garray is not
 * NULL), v excluded, to ids (room for MIS1_LINE_MAX_DEG + 1) keeping it
 * sorted; returns the new count, or -1 when it would not fit. */
MISPC_HD int mis1_line_gather(int64_t *ids, int have, const int32_t *cols, int64_t m, int64_t base,
                              const int64_t *garray, int64_t v) {
  for (int64_t p = 0; p < m; ++p) {
    const int64_t u = garray ? garray[cols[p]] : base + cols[p];
    if (u == v) continue;
    if (have == MIS1_LINE_MAX_DEG + 1) return -1;
    int q = have++;
    for (; q > 0 && ids[q - 1] > u; --q) ids[q] = ids[q - 1];
    ids[q] = u;
  }
  return have;
}

/* The class of vertex v whose neighbours are cols[0..m) (local ids of one
 * process, + base) and, for a distributed row, ghosts gcols[0..gm) given by
 * garray. */
MISPC_HD uint32_t mis1_line_class(const int32_t *cols, int64_t m, int64_t base,
                                  const int32_t *gcols, int64_t gm, const int64_t *garray,
                                  int64_t v) {
  /* 65 neighbours without a self loop fit, as in mis1_line_class_row (room
   * for 64 gave such rows class 1 on several ranks and their class on one) */
  if (m + gm > MIS1_LINE_MAX_DEG + 1) return 1u;
  int64_t ids[MIS1_LINE_MAX_DEG + 1];
  int n = mis1_line_gather(ids, 0, cols, m, base, (const int64_t *)0, v);
  if (n >= 0 && gm) n = mis1_line_gather(ids, n, gcols, gm, 0, garray, v);
  return n < 0 ? 1u : mis1_line_class_sorted(ids, n, v);
}

/* MIS1_KEY_LINES: 12 degree bits, 2 class bits, 18 hash bits. */
MISPC_HD uint32_t mis1_key_lines(uint64_t seed, int64_t v, int64_t deg, uint32_t cls) {
  uint32_t dq = deg > (int64_t)MIS1_DEGREE_CAP ? MIS1_DEGREE_CAP : (uint32_t)deg;
  uint64_t h = mispc_hash3(seed, 0, (uint64_t)v);
  return MIS1_DECIDED_LIMIT + ((dq << 20) | (cls << 18) | (uint32_t)(h >> 46));
}

/* The key of any mode; cls is read only by MIS1_KEY_LINES. */
MISPC_HD uint32_t mis1_key_of(int mode, uint64_t seed, int64_t v, int64_t deg, uint32_t cls) {
  return mode == MIS1_KEY_LINES ? mis1_key_lines(seed, v, deg, cls) : mis1_key(mode, seed, v, deg);
}

MISPC_HD int mis1_is_decided(uint32_t s) {
  return s < MIS1_DECIDED_LIMIT;
}
/* Stamps count rounds from 1 so that stamp 1 ("OUT in round -1") can mark the
 * vertices outside a subset as decided before everything. */
MISPC_HD uint32_t mis1_stamp(int round, int out) {
  return 2u * (uint32_t)(round + 1) + (out ? 1u : 0u);
}
MISPC_HD int mis1_stamp_round(uint32_t s) {
  return (int)(s >> 1) - 1;
}
#define MIS1_STAMP_EXCLUDED 1u
MISPC_HD int mis1_in_set(uint32_t s) {
  return s < MIS1_DECIDED_LIMIT && (s & 1u) == 0;
}
/* Does (ku, u) come before (kv, v)? */
MISPC_HD int mis1_before(uint32_t ku, int64_t u, uint32_t kv, int64_t v) {
  return ku < kv || (ku == kv && u < v);
}

/* ---- MIS-2: papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt Alg. 1 -----
 * Packed tuples (§V-C): IN = 0, OUT = all ones, undecided = (prio << b) | (v + 1)
 * with b = bits to hold n + 1. Words are 32-bit while that leaves at least 8
 * priority bits (n < 2^24, as in Kokkos Kernels), else 64-bit; both backends
 * follow this rule, and a 32-bit tuple has the same value in a 64-bit word. */
#define MIS2_IN  0ull
#define MIS2_OUT (~0ull)

/* A 64-bit MIS-2 word that is neither IN nor OUT (the cover rounds'). */
MISPC_HD int mis2_undecided(uint64_t t) {
  return t != MIS2_IN && t != MIS2_OUT;
}

MISPC_HD int mis2_id_bits(int64_t n) {
  int b = 1;
  while (b < 63 && ((1ll << b) - 1) <= n) ++b; /* 2^b - 1 > n (eq. 1) */
  return b;
}

MISPC_HD int mis2_word_bits(int idbits) {
  return idbits <= 24 ? 32 : 64;
}

/* The top (wordbits - idbits) hash bits, then the id. */
MISPC_HD uint64_t mis2_tuple(int per_round, uint64_t seed, int iter, int64_t v, int idbits,
                             int wordbits) {
  uint64_t h = mispc_hash3(seed, per_round ? (uint64_t)iter : 0u, (uint64_t)v);
  return ((h >> (64 - (wordbits - idbits))) << idbits) | (uint64_t)(v + 1);
}

/* MIS-2 with MISPC_PRIORITY_COVER (mis2_cover_host.c, mis2_cover_cuda.cu):
 * before each round every undecided vertex within distance 2 of the set
 * turns OUT (the rounds would do it one round late, and counts that include
 * such vertices are stale: gen:grid3d27:30 563 roots in 14 rounds against
 * 506 in 9), then c1(v) = the undecided vertices of N[v], c2(v) = c1(v) +
 * the sum of c1 over v's neighbours in the subset, and the tuple prefers the
 * largest c2 (the vertex that covers the most undecided ones), then the
 * hash of (seed, round, v), then the id: fewer, larger distance-2
 * neighbourhoods, so fewer aggregates (docs/MIS.md). 64-bit words on every
 * backend; mis2_cover_key is the MIS-2 backends' key argument for it. */
#define MIS2_COVER_CAP   4095u /* c2 saturates here (12 bits) */
#define MIS2_COVER_SHIFT 51    /* the count's bits: [51, 63) */
enum { mis2_cover_key = 2 };
MISPC_HD uint64_t mis2_cover_tuple(uint64_t seed, int iter, int64_t v, uint64_t c2, int idbits) {
  const uint64_t c = c2 > MIS2_COVER_CAP ? MIS2_COVER_CAP : c2;
  const uint64_t h = mispc_hash3(seed, (uint64_t)iter, (uint64_t)v);
  return ((MIS2_COVER_CAP - c) << MIS2_COVER_SHIFT) |
         ((h >> (64 - MIS2_COVER_SHIFT + idbits)) << idbits) | (uint64_t)(v + 1);
}

/* The cover rounds' decide scan (mis2_cover_host.c, mis2_cover_dist.c) over
 * the column minima M[col[p]], p in [b, e), entries outside sub (when given)
 * passed over: *out set when one is OUT, *all_min cleared when one differs
 * from t; stops at an OUT, and in the first round (no OUT column yet) at the
 * first mismatch when first_round. */
static inline void mis2_cover_scan(const int32_t *col, int64_t b, int64_t e, const uint64_t *M,
                                   const uint8_t *sub, uint64_t t, int first_round, int *out,
                                   int *all_min) {
  for (int64_t p = b; p < e && !*out && (*all_min || !first_round); ++p) {
    const int32_t u = col[p];
    if (sub && !sub[u]) continue;
    *out = M[u] == MIS2_OUT;
    *all_min &= M[u] == t;
  }
}
/* The verdict of the scans on *t: OUT, IN, or left undecided (returns 1). */
static inline int mis2_cover_verdict(uint64_t *t, int out, int all_min) {
  if (out)
    *t = MIS2_OUT;
  else if (all_min)
    *t = MIS2_IN;
  return !out && !all_min;
}

/* Distributed MIS-2 on the host (mis2_dist.c; the device rounds of
 * mis2_dist_cuda.cu scan with mis_cuda::row_decide): the state after round
 * iter of the undecided local vertex v (global id gid, tuple t) from the
 * column minima M of itself and its owned neighbours (rows arp/acol; one
 * outside subset, when given, is passed over) and gM of its ghosts (rows
 * brp/bcol; ghost j counts where gsub[j]): OUT when one of them is OUT, IN
 * when all are t, else its tuple of round iter + 1 (neither IN nor OUT). */
MISPC_HD uint64_t mis2_dist_decide(int64_t v, uint64_t t, const uint64_t *M, const uint64_t *gM,
                                   const int64_t *arp, const int32_t *acol, const int64_t *brp,
                                   const int32_t *bcol, const uint8_t *subset, const uint8_t *gsub,
                                   int per_round, uint64_t seed, int iter, int64_t gid, int idbits,
                                   int wordbits) {
  int out = M[v] == MIS2_OUT, all_min = M[v] == t;
  /* Round 0 has no IN vertex, so no column is OUT: the first mismatch
   * settles "undecided" (as the one-process kernels). */
  const int first = iter == 0;
  for (int64_t p = arp[v]; p < arp[v + 1] && !out && (all_min || !first); ++p) {
    const int32_t u = acol[p];
    if (subset && !subset[u]) continue; /* not part of the subgraph */
    out = M[u] == MIS2_OUT;
    all_min &= M[u] == t;
  }
  for (int64_t p = brp[v]; p < brp[v + 1] && !out && (all_min || !first); ++p) {
    const int32_t j = bcol[p];
    if (!gsub[j]) continue;
    out = gM[j] == MIS2_OUT;
    all_min &= gM[j] == t;
  }
  return out       ? MIS2_OUT
         : all_min ? MIS2_IN
                   : mis2_tuple(per_round, seed, iter + 1, gid, idbits, wordbits);
}

#endif
