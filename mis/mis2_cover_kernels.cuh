/* The kernels of MIS-2 with the coverage priority (MISPC_PRIORITY_COVER),
 * shared by the one-process rounds (mis2_cover_cuda.cu) and the distributed
 * ones (mis2_cover_dist_cuda.cu, and all rounds in one kernel a rank,
 * mis2_cover_dist_lsa.cu): the steps of mis2_cover_host.c, a group of L lanes a
 * vertex, a launch (or a grid barrier) a step. A vertex's row is its
 * diagonal block (local ids) and, on several ranks, its off-diagonal block
 * (ghost ids, whose words the distributed driver refreshes between the
 * steps); on one process the off-diagonal block is absent (brp NULL). Each
 * step reads only words written before it began, and writes other arrays
 * than it reads, so the set and the rounds are the host's on any number of
 * ranks. */
#ifndef MISPC_MIS2_COVER_KERNELS_CUH
#define MISPC_MIS2_COVER_KERNELS_CUH

#include <stdint.h>

#include <type_traits>

#include "cuda_util.cuh"
#include "internal.h"
#include "mis_common.h"

namespace mis2_cover {

constexpr int kBlock = 256;

struct Cover {
  const int64_t *rp, *brp; /* diagonal and off-diagonal row offsets (brp NULL: none) */
  const int32_t *ci, *bci;
  const uint8_t *subset, *gsub; /* NULL: every vertex; gsub: the ghosts' subset flags */
  uint64_t *T, *M, *gT, *gM;    /* the owned words and the ghosts' copies */
  uint32_t *C, *gC;
  int64_t n, rstart; /* owned vertices, global id of the first */
  uint64_t seed;
  int idbits; /* of the global vertex count */
};

__device__ __forceinline__ bool inside(const Cover &c, int32_t u) {
  return !c.subset || c.subset[u];
}

/* A group of L lanes a vertex (L = 1: a thread): the group's first vertex,
 * its stride over the grid, this lane's place in it, and the group's mask
 * for the shuffles that combine the lanes' shares of a row. */
template <int L> struct Group {
  __device__ static int64_t first() {
    return (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / L;
  }
  __device__ static int64_t stride() {
    return (int64_t)gridDim.x * blockDim.x / L;
  }
  __device__ static int lane() {
    return (int)(threadIdx.x & (L - 1));
  }
  __device__ static unsigned mask() {
    return mispc_group_mask<L>();
  }
  template <typename T> __device__ static T sum(T x) {
#pragma unroll
    for (int o = L / 2; o; o >>= 1) x += __shfl_xor_sync(mask(), x, o);
    return x;
  }
  template <typename T> __device__ static T min(T x) {
#pragma unroll
    for (int o = L / 2; o; o >>= 1) {
      const T y = __shfl_xor_sync(mask(), x, o);
      x = y < x ? y : x;
    }
    return x;
  }
  __device__ static bool any(bool x) {
    return L == 1 ? x : __any_sync(mask(), x);
  }
  __device__ static bool all(bool x) {
    return L == 1 ? x : __all_sync(mask(), x);
  }
};

/* What a step does with a word it wrote for vertex v (lane 0 of the group):
 * nothing on one process and in the host-driven distributed rounds (their
 * exchanges follow the launch); the one-kernel rounds (mis2_cover_dist_lsa.cu)
 * store its ghost copies into the other ranks' windows. */
struct NoPut {
  template <typename W> __device__ void operator()(int64_t, W) const {}
};

/* every owned vertex, a group each (all lanes of a group see the same v) */
#define COVER_FOR_V(c) for (int64_t v = Group<L>::first(); v < (c).n; v += Group<L>::stride())
/* this lane's share of v's diagonal row, and of its off-diagonal row */
#define COVER_FOR_ROW(c, v, p)                                                                     \
  for (int64_t p = (c).rp[v] + Group<L>::lane(); p < (c).rp[(v) + 1]; p += L)
#define COVER_FOR_GHOSTS(c, v, p)                                                                  \
  if ((c).brp)                                                                                     \
    for (int64_t p = (c).brp[v] + Group<L>::lane(); p < (c).brp[(v) + 1]; p += L)

/* The steps, as device functions of every thread of the grid (a kernel each
 * below, or one kernel for all rounds); P stores the copies of the words a
 * step writes (NoPut: none). */
template <int L, typename P>
__device__ __forceinline__ void init_step(const Cover &c, unsigned long long *left, P put) {
  unsigned long long mine = 0;
  COVER_FOR_V(c) {
    if (Group<L>::lane()) continue;
    const bool in = inside(c, (int32_t)v);
    c.T[v] = in ? (uint64_t)(c.rstart + v + 1) : MIS2_OUT;
    c.M[v] = in ? MIS2_IN : MIS2_OUT;
    put(v, c.T[v]);
    mine += in;
  }
  mispc_block_add<kBlock>(mine, left);
}

/* OUT within distance 2 of the set, first C[v] = "an IN vertex in N[v]" */
template <int L, typename P> __device__ __forceinline__ void near_set_step(const Cover &c, P put) {
  COVER_FOR_V(c) {
    /* a column OUT of an earlier round saw an IN vertex, and IN stays
     * (outside the subset C is never read) */
    bool in = c.M[v] == MIS2_OUT;
    if (!in) COVER_FOR_ROW(c, v, p) {
        if (c.T[c.ci[p]] == MIS2_IN) {
          in = true;
          break;
        }
      }
    if (!in) COVER_FOR_GHOSTS(c, v, p) {
        if (c.gT[c.bci[p]] == MIS2_IN) {
          in = true;
          break;
        }
      }
    in = Group<L>::any(in);
    if (!Group<L>::lane()) {
      c.C[v] = in;
      put(v, (uint32_t)in);
    }
  }
}

template <int L, typename P> __device__ __forceinline__ void mark_out_step(const Cover &c, P put) {
  COVER_FOR_V(c) {
    if (!mis2_undecided(c.T[v])) continue;
    bool out = c.C[v];
    if (!out) COVER_FOR_ROW(c, v, p) {
        const int32_t u = c.ci[p];
        if (inside(c, u) && c.C[u]) {
          out = true;
          break;
        }
      }
    if (!out) COVER_FOR_GHOSTS(c, v, p) {
        const int32_t j = c.bci[p];
        if (c.gsub[j] && c.gC[j]) {
          out = true;
          break;
        }
      }
    out = Group<L>::any(out);
    if (out && !Group<L>::lane()) {
      c.T[v] = MIS2_OUT;
      put(v, MIS2_OUT);
    }
  }
}

template <int L, typename P>
__device__ __forceinline__ void count1_step(const Cover &c, int iter, P put) {
  COVER_FOR_V(c) {
    /* near the set: all of N[v] has just turned OUT; the lanes read the
     * flag before the sum, lane 0 writes after it */
    const bool near = iter > 0 && c.C[v];
    uint32_t k = 0;
    if (!near) {
      COVER_FOR_ROW(c, v, p) k += c.ci[p] != v && mis2_undecided(c.T[c.ci[p]]);
      COVER_FOR_GHOSTS(c, v, p) k += (uint32_t)mis2_undecided(c.gT[c.bci[p]]);
    }
    k = Group<L>::sum(k);
    if (!Group<L>::lane()) {
      const uint32_t w = near ? 0 : k + mis2_undecided(c.T[v]);
      c.C[v] = w;
      put(v, w);
    }
  }
}

template <int L, typename P>
__device__ __forceinline__ void tuples_step(const Cover &c, int iter, P put) {
  COVER_FOR_V(c) {
    if (!mis2_undecided(c.T[v])) continue;
    uint64_t k = 0;
    COVER_FOR_ROW(c, v, p) {
      const int32_t u = c.ci[p];
      if (u != v && inside(c, u)) k += c.C[u];
    }
    COVER_FOR_GHOSTS(c, v, p) {
      const int32_t j = c.bci[p];
      if (c.gsub[j]) k += c.gC[j];
    }
    k = Group<L>::sum(k);
    if (!Group<L>::lane()) {
      const uint64_t t = mis2_cover_tuple(c.seed, iter, c.rstart + v, k + c.C[v], c.idbits);
      c.T[v] = t;
      put(v, t);
    }
  }
}

template <int L, typename P> __device__ __forceinline__ void column_step(const Cover &c, P put) {
  COVER_FOR_V(c) {
    if (c.M[v] == MIS2_OUT) continue;
    uint64_t m = c.T[v];
    COVER_FOR_ROW(c, v, p) m = ::min(m, c.T[c.ci[p]]);
    COVER_FOR_GHOSTS(c, v, p) m = ::min(m, c.gT[c.bci[p]]);
    m = Group<L>::min(m);
    if (!Group<L>::lane()) {
      m = m == MIS2_IN ? MIS2_OUT : m;
      c.M[v] = m;
      put(v, m);
    }
  }
}

template <int L, typename P>
__device__ __forceinline__ void decide_step(const Cover &c, int iter, unsigned long long *left,
                                            P put) {
  unsigned long long mine = 0;
  COVER_FOR_V(c) {
    const uint64_t t = c.T[v];
    if (!mis2_undecided(t)) continue;
    /* round 0 has no IN vertex, so no column is OUT: only "all minima are
     * t" can decide, and the first other minimum settles "undecided" */
    bool out = c.M[v] == MIS2_OUT, all = c.M[v] == t;
    if (!out && (all || iter > 0)) COVER_FOR_ROW(c, v, p) {
        const int32_t u = c.ci[p];
        if (!inside(c, u)) continue;
        out = c.M[u] == MIS2_OUT;
        all = all && c.M[u] == t;
        if (out || (!all && iter == 0)) break;
      }
    if (!out && (all || iter > 0)) COVER_FOR_GHOSTS(c, v, p) {
        const int32_t j = c.bci[p];
        if (!c.gsub[j]) continue;
        out = c.gM[j] == MIS2_OUT;
        all = all && c.gM[j] == t;
        if (out || (!all && iter == 0)) break;
      }
    out = Group<L>::any(out);
    all = Group<L>::all(all);
    if (Group<L>::lane()) continue;
    if (out || all) {
      const uint64_t w = out ? MIS2_OUT : MIS2_IN;
      c.T[v] = w;
      put(v, w);
    } else
      ++mine;
  }
  mispc_block_add<kBlock>(mine, left);
}

/* The steps a launch each (one process, host-driven distributed rounds). */
template <int L> __global__ void __launch_bounds__(kBlock) init(Cover c, unsigned long long *left) {
  init_step<L>(c, left, NoPut());
}
template <int L> __global__ void __launch_bounds__(kBlock) near_set(Cover c) {
  near_set_step<L>(c, NoPut());
}
template <int L> __global__ void __launch_bounds__(kBlock) mark_out(Cover c) {
  mark_out_step<L>(c, NoPut());
}
template <int L> __global__ void __launch_bounds__(kBlock) count1(Cover c, int iter) {
  count1_step<L>(c, iter, NoPut());
}
template <int L> __global__ void __launch_bounds__(kBlock) tuples(Cover c, int iter) {
  tuples_step<L>(c, iter, NoPut());
}
template <int L> __global__ void __launch_bounds__(kBlock) column(Cover c) {
  column_step<L>(c, NoPut());
}
template <int L>
__global__ void __launch_bounds__(kBlock) decide(Cover c, int iter, unsigned long long *left) {
  decide_step<L>(c, iter, left, NoPut());
}

static __device__ __forceinline__ void members_step(const Cover &c, uint8_t *in_set,
                                                    unsigned long long *size) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < c.n;
       v += (int64_t)gridDim.x * blockDim.x) {
    const bool in = c.T[v] == MIS2_IN;
    in_set[v] = in;
    mine += in;
  }
  mispc_block_add<kBlock>(mine, size);
}

static __global__ void __launch_bounds__(kBlock)
    members(Cover c, uint8_t *in_set, unsigned long long *size) {
  members_step(c, in_set, size);
}

/* All rounds of a call in one kernel (the one-process persistent kernel of
 * mis2_cover_cuda.cu, the one kernel a rank of mis2_cover_dist_lsa.cu): the
 * steps in the order of the launch-a-step rounds, x.exchanged() where their
 * launches end (a grid barrier; on several ranks also the ranks' barrier,
 * after which the ghost copies the steps stored have arrived), then the
 * members. The undecided count after round r is read one step late, after
 * round r + 1's near-set step (which writes only C, read by no result):
 * x.publish(k, cnt) makes this rank's cnt[k] visible to the others,
 * x.total(k) is the sum over the ranks after the next exchange. cnt: [0],
 * [1] undecided after even / odd rounds, [2] the subset's size, [3]
 * members, zeroed by the caller. Returns the rounds (-1: not done after
 * max_rounds); *left the last undecided count, *size the members over the
 * ranks. */
template <int L, typename X>
__device__ __forceinline__ int all_rounds(const Cover &c, unsigned long long *cnt, int max_rounds,
                                          uint8_t *in_set, X &x, unsigned long long *left,
                                          unsigned long long *size) {
  init_step<L>(c, cnt + 2, x.put_t);
  x.sync();
  x.publish(2, cnt);
  x.exchanged();
  *left = x.total(2);
  int rounds = *left == 0 ? 0 : -1;
  for (int r = 0; rounds < 0; ++r) {
    if (r > 0) {
      near_set_step<L>(c, x.put_c);
      x.publish((r - 1) & 1, cnt);
      x.exchanged();
      *left = x.total((r - 1) & 1);
      if (*left == 0) {
        rounds = r;
        break;
      }
    }
    if (r == max_rounds) break;
    if (r > 0) {
      /* round r's decide adds to it; its last reader was round r - 1's near set */
      if (blockIdx.x == 0 && threadIdx.x == 0) cnt[r & 1] = 0;
      mark_out_step<L>(c, x.put_t);
      x.exchanged();
    }
    count1_step<L>(c, r, x.put_c);
    x.exchanged();
    tuples_step<L>(c, r, x.put_t);
    x.exchanged();
    column_step<L>(c, x.put_m);
    x.exchanged();
    decide_step<L>(c, r, cnt + (r & 1), x.put_t);
    x.exchanged();
  }
  members_step(c, in_set, cnt + 3);
  x.sync();
  x.publish(3, cnt);
  x.exchanged();
  *size = x.total(3);
  return rounds;
}

#undef COVER_FOR_GHOSTS
#undef COVER_FOR_ROW
#undef COVER_FOR_V

/* Lanes a vertex: the tuning's mis2_cover_lanes, else one thread while rows
 * average at most 12 entries, else 8 (docs/MIS.md, "The cover priority"). */
static inline int lanes(const mispc_context *ctx, int64_t nnz, int64_t nrows) {
  const int l = ctx->tuning.mis2_cover_lanes;
  if (l == 1 || l == 2 || l == 4 || l == 8 || l == 16 || l == 32) return l;
  return nnz <= 12 * nrows ? 1 : 8;
}

/* f(std::integral_constant<int, L>()) for the lane count L (1..32). */
template <typename F> mispc_status with_lanes(int l, F f) {
  switch (l) {
  case 1:
    return f(std::integral_constant<int, 1>());
  case 2:
    return f(std::integral_constant<int, 2>());
  case 4:
    return f(std::integral_constant<int, 4>());
  case 8:
    return f(std::integral_constant<int, 8>());
  case 16:
    return f(std::integral_constant<int, 16>());
  default:
    return f(std::integral_constant<int, 32>());
  }
}

} // namespace mis2_cover

#endif
