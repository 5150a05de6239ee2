/* Experiment: MIS-1 vertex priorities ("keys") for the synchronous round
 * algorithm of mispc (mis/mis1_host.c). For every graph x candidate key it
 * computes the set (greedy in (key, id) order), the exact number of rounds
 * the round algorithm needs, checks independence and maximality, and prints
 * size % and rounds.
 *
 * Rounds without simulating round by round: with dec(u) the round in which u
 * is decided, an IN vertex v joins in round max(dec(u) + 1) over neighbours u
 * before it (0 if none), an OUT vertex leaves in round min(dec(w)) over IN
 * neighbours w before it; rounds = max dec + 1. --sim also runs the rounds
 * literally and checks both agree; the default key is also run through
 * mispc_mis1 (host) and compared bit for bit.
 *
 * From the repository root (the real graphs are read from ../shared/data).
 * Build: gcc -O2 -std=c11 -Iinclude -Ibuild/include \
 *   bench/experiments/mis1_keys.c -Lbuild -lmispc -Wl,-rpath,$PWD/build -o mis1_keys
 * Run:   ./mis1_keys [--sim] [--only NAME,...] [graph ...]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mispc/mispc.h"
#include "mispc/hash.h"

/* ---- the library's key, copied from mis/mis_common.h --------------------- */
#define MIS1_DECIDED_LIMIT 0x10000u
#define MIS1_DEGREE_CAP    4093u
static uint32_t lib_key(int mode, uint64_t seed, int64_t v, int64_t deg) {
  uint64_t h = mispc_hash3(seed, 0, (uint64_t)v);
  if (mode == 0) return MIS1_DECIDED_LIMIT + (uint32_t)(h >> 33);
  uint32_t dq = deg > (int64_t)MIS1_DEGREE_CAP ? MIS1_DEGREE_CAP : (uint32_t)deg;
  return MIS1_DECIDED_LIMIT + ((dq << 20) | (uint32_t)(h >> 44));
}

/* ---- helpers -------------------------------------------------------------- */
static uint32_t brev32(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
  return (x >> 16) | (x << 16);
}
static uint32_t brevb(uint32_t x, int b) {
  return b ? brev32(x) >> (32 - b) : 0;
} /* b low bits */
static int tz32(uint32_t x) {
  return x ? __builtin_ctz(x) : 32;
}
static uint32_t H(uint64_t seed, uint64_t x) {
  return (uint32_t)(mispc_hash3(seed, 0, x) >> 32);
}
static uint32_t degq(int64_t d) {
  return d > 4093 ? 4093u : (uint32_t)d;
}

/* ---- graph ---------------------------------------------------------------- */
typedef struct {
  int64_t n;
  int64_t *rp; /* neighbours without self loops, sorted */
  int32_t *ci;
  int64_t *deg; /* row length as the library sees it (self loops included) */
} graph;
static const graph *g_graph; /* for keys that look at the row (cost: reading it once) */
static int has_nbr(int64_t v, int64_t u) {
  if (u < 0 || u >= g_graph->n) return 0;
  int64_t lo = g_graph->rp[v], hi = g_graph->rp[v + 1];
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (g_graph->ci[mid] < u)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < g_graph->rp[v + 1] && g_graph->ci[lo] == u;
}
/* 1 if the sorted neighbour ids of v form runs of consecutive ids of odd length only
 * ({u} or {u-1, u, u+1}: a Cartesian or strong product with the id-line, as in lexicographic
 * stencils; runs of 2 are skewed rows, e.g. triangle meshes, where alternating hurts). */
static int odd_runs_ex(int64_t v, int even_centres) {
  int64_t b = g_graph->rp[v], e = g_graph->rp[v + 1], len = 0;
  for (int64_t p = b; p < e; ++p) {
    ++len;
    if (p + 1 == e || g_graph->ci[p + 1] != g_graph->ci[p] + 1) {
      if (!(len & 1)) return 0;
      /* a run of 3 or more (strong product with the line): its centre must be an even
       * offset from v, so that the rows' classes line up (else a checkerboard results) */
      if (even_centres && len >= 3 && ((g_graph->ci[p] - (len - 1) / 2 - v) & 1)) return 0;
      len = 0;
    }
  }
  return 1;
}
/* Parity class of v along an id-line: 0 or 1 = v & 1 where v has the neighbours v - 1 and
 * v + 1 (mode 0: both, 1: either); otherwise 0 (mode 0/1) or "between" (mode 2: 0 even, 1 not
 * on a line, 2 odd). */
static uint32_t line_class(int64_t v, int mode) {
  int a = has_nbr(v, v - 1), b = has_nbr(v, v + 1);
  int on = mode == 1 ? (a || b) : (a && b);
  if (mode == 2) return on ? 2u * (uint32_t)(v & 1) : 1u;
  return on ? (uint32_t)(v & 1) : 0u;
}

/* ---- candidates --------------------------------------------------------------
 * key(v, deg, n, seed) -> 64-bit word, smaller first, ties to smaller id.
 * Unless noted the word is (dq << 32) | low, dq = min(deg, 4093) as today;
 * "low" is 32 bits and can be cut to the 20 bits the library has (see report). */
enum {
  K_DEF,
  K_HASH,
  K_ID,
  K_DEG_ID,
  K_BREV,
  K_DEG_BREV,
  K_DEG_ROT,
  K_DEG_LOW_HASH,
  K_DEG_RLOW_HASH,
  K_DEG_HBLK,
  K_DEG_TZ_HASH,
  K_DEG_HBLK_BREV,
  K_DEG_LOW_BREVHI,
  K_DEG_TZ_ROT,
  K_DEG_LOW_HBLK,
  K_DEG_LOW_TZ_HASH,
  K_DEG_LOW1_BIT_HASH,
  K_DEG_LOW_HASHXOR,
  K_DEG_LOW20,
  K_DEG_ODD_HASH,
  K_DEG_LOW_BLKBREV,
  K_NB_LOW1,
  K_NB_LOW1_LIB32,
  K_MOD
};
typedef struct {
  int kind, b, c;
  char name[32];
} cand;

static uint64_t key_of(const cand *c, int64_t v64, int64_t deg, int64_t n, uint64_t seed) {
  (void)n;
  uint32_t v = (uint32_t)v64, dq = degq(deg), b = (uint32_t)c->b, m = (1u << b) - 1u;
  uint64_t D = (uint64_t)dq << 32;
  switch (c->kind) {
  case K_DEF:
    return lib_key(1, seed, v64, deg);
  case K_HASH:
    return lib_key(0, seed, v64, deg);
  case K_ID:
    return 0;
  case K_DEG_ID:
    return D;
  case K_BREV:
    return brev32(v);
  case K_DEG_BREV:
    return D | brev32(v);
  case K_DEG_ROT: /* low b bits first (as they are), then v >> b in order */
    return D | ((uint64_t)(v & m) << (32 - b)) | (v >> b);
  case K_DEG_LOW_HASH: /* low b bits first (as they are), then hash */
    return D | ((uint64_t)(v & m) << (32 - b)) | (H(seed, v) >> b);
  case K_DEG_RLOW_HASH: /* low b bits bit-reversed first, then hash */
    return D | ((uint64_t)brevb(v & m, b) << (32 - b)) | (H(seed, v) >> b);
  case K_DEG_HBLK: /* hash of the block v >> b, then position in the block */
    return D | ((uint64_t)(H(seed, v >> b) >> b) << b) | (v & m);
  case K_DEG_TZ_HASH: { /* more trailing zeros first (capped at b), then hash */
    int t = tz32(v);
    if (t > c->b) t = c->b;
    return D | ((uint64_t)(31 - t) << 27) | (H(seed, v) >> 5);
  }
  case K_DEG_HBLK_BREV: /* hash of block v >> b, then bit-reversed position in the block */
    return D | ((uint64_t)(H(seed, v >> b) >> b) << b) | brevb(v & m, b);
  case K_DEG_LOW_BREVHI: /* bit-reversed low b bits, then bit-reversed v >> b */
    return D | ((uint64_t)brevb(v & m, b) << (32 - b)) | (brev32(v >> b) >> b);
  case K_DEG_TZ_ROT: { /* trailing zeros desc (cap b), then v >> (t+1) in order */
    int t = tz32(v);
    if (t > c->b) t = c->b;
    return D | ((uint64_t)(31 - t) << 27) | ((v >> (t + 1)) & 0x7FFFFFFu);
  }
  case K_DEG_LOW_HBLK: /* bit-reversed low b bits, then hash of v >> c, then (v>>b) & (2^(c-b)-1) */
  {
    uint32_t mc = (1u << (c->c - b)) - 1u;
    uint32_t pos = (v >> b) & mc;
    return D | ((uint64_t)brevb(v & m, b) << (32 - b)) |
           ((uint64_t)((H(seed, v >> c->c) >> (b + c->c - b)) << (c->c - b)) | pos);
  }
  case K_DEG_LOW_TZ_HASH: { /* bit-reversed low b bits, then tz of v >> b desc (cap c), then hash */
    int t = tz32(v >> b);
    if (t > c->c) t = c->c;
    return D | ((uint64_t)brevb(v & m, b) << (32 - b)) | ((uint64_t)(31 - t) << (27 - b)) |
           (H(seed, v) >> (5 + b));
  }
  case K_DEG_LOW1_BIT_HASH: /* v & 1 first, then bit c of v, then hash */
    return D | ((uint64_t)(v & 1u) << 31) | ((uint64_t)((v >> c->c) & 1u) << 30) |
           (H(seed, v) >> 2);
  case K_DEG_LOW_HASHXOR: /* low b bits (bit-reversed) first, then hash of v ^ (v>>c) */
    return D | ((uint64_t)brevb(v & m, b) << (32 - b)) | (H(seed, v >> c->c) >> b);
  case K_DEG_LOW20: /* library-sized: 12 degree bits + b low bits (bit-reversed) + (20-b) hash bits
                     */
    return (uint64_t)MIS1_DECIDED_LIMIT + ((dq << 20) | (brevb(v & m, b) << (20 - b)) |
                                           (uint32_t)(mispc_hash3(seed, 0, v64) >> (44 + b)));
  case K_DEG_ODD_HASH: /* v & 1 LAST: odd ids first, then hash */
    return D | ((uint64_t)((~v) & 1u) << 31) | (H(seed, v) >> 1);
  case K_DEG_LOW_BLKBREV: /* brev low b bits, then hash of block v>>c, then brev position in block
                           */
  {
    uint32_t w = (uint32_t)(c->c - b), pos = (v >> b) & ((1u << w) - 1u);
    return D | ((uint64_t)brevb(v & m, b) << (32 - b)) |
           ((uint64_t)(H(seed, v >> c->c) >> (b + w)) << w) | brevb(pos, (int)w);
  }
  case K_MOD: { /* (deg, class of v mod b, hash); c & 1: only where v-1 and v+1 are neighbours
                   (class 0 elsewhere); c & 2: classes of v mod 4 bit-reversed (0, 2, 1, 3) */
    uint32_t cl = (uint32_t)(v64 % c->b);
    if (c->c & 2) cl = brevb(cl, 2);
    int on = 1, lo = has_nbr(v64, v64 - 1), hi = has_nbr(v64, v64 + 1);
    if (c->c & 1) on = (c->c & 32) ? (lo || hi) : (lo && hi); /* c & 32: one of v +- 1 is enough */
    if ((c->c & 4) && (has_nbr(v64, v64 - 2) || has_nbr(v64, v64 + 2)))
      on = 0; /* c & 4: and not v +- 2 */
    if ((c->c & 8) && !odd_runs_ex(v64, (c->c & 16) != 0))
      on = 0; /* c & 8: and runs of consecutive neighbour ids odd */
    if (!on) cl = 0;
    if (c->c & 64) cl = on ? 2 * cl : 1; /* c & 64: vertices off the lines between the classes */
    if (c->c & 256) /* the library's 32-bit word: 12 degree bits, 2 class bits, top 18 hash bits */
      return (uint64_t)MIS1_DECIDED_LIMIT +
             ((dq << 20) | (cl << 18) | (uint32_t)(mispc_hash3(seed, 0, v64) >> 46));
    return D | ((uint64_t)cl << 29) | (H(seed, v) >> 3);
  }
  case K_NB_LOW1: /* (deg, line class, hash) */
    return D | ((uint64_t)line_class(v64, c->c) << 30) | (H(seed, v) >> 2);
  case K_NB_LOW1_LIB32: /* 32-bit library word: 11 degree bits (cap 2045), line bit, top 20 hash
                           bits */
  {
    uint32_t d11 = deg > 2045 ? 2045u : (uint32_t)deg;
    return (uint64_t)MIS1_DECIDED_LIMIT +
           ((d11 << 21) | (line_class(v64, 0) << 20) | (uint32_t)(mispc_hash3(seed, 0, v64) >> 44));
  }
  }
  return 0;
}

static int load(mispc_context *ctx, const char *spec, graph *g, mispc_csr *A) {
  if (mispc_load(ctx, spec, A)) {
    fprintf(stderr, "%s: %s\n", spec, mispc_context_error(ctx));
    return 1;
  }
  int64_t n = A->nrows;
  g->n = n;
  g->rp = malloc((n + 1) * sizeof *g->rp);
  g->ci = malloc((A->nnz + 1) * sizeof *g->ci);
  g->deg = malloc((n + 1) * sizeof *g->deg);
  int64_t k = 0;
  g->rp[0] = 0;
  for (int64_t v = 0; v < n; ++v) {
    g->deg[v] = A->rowptr[v + 1] - A->rowptr[v];
    for (int64_t p = A->rowptr[v]; p < A->rowptr[v + 1]; ++p)
      if (A->colidx[p] != v) g->ci[k++] = A->colidx[p];
    g->rp[v + 1] = k;
  }
  return 0;
}

/* ---- the winner, written as the library would use it (raw rows, self loops allowed,
 * sorted columns); checked against "nb8:lib32" on every graph ------------------------ */
/* Class of v: 0 or 2 (= 2 * (v & 1)) where v lies on an id-line of a lexicographic stencil,
 * else 1. On a line: v - 1 or v + 1 is a neighbour, v - 2 and v + 2 are not, and the sorted
 * neighbour ids (v itself skipped) form runs of consecutive ids of odd length, where every run
 * of 3 or more is centred an even distance from v. One pass over the row. */
static uint32_t mis1_line_class(const int64_t *rowptr, const int32_t *colidx, int64_t v) {
  int near1 = 0;
  int64_t run = 0, last = -3;
  for (int64_t p = rowptr[v];; ++p) {
    const int end = p == rowptr[v + 1];
    const int64_t u = end ? -3 : colidx[p];
    if (!end && u == v) continue;
    if (!end && u == last + 1) { /* the run goes on */
      ++run, last = u;
    } else {
      if (run && (!(run & 1) || (run >= 3 && ((last - (run - 1) / 2 - v) & 1)))) return 1;
      if (end) break;
      run = 1, last = u;
    }
    if (u == v - 2 || u == v + 2) return 1;
    near1 |= u == v - 1 || u == v + 1;
  }
  return near1 ? 2u * (uint32_t)(v & 1) : 1u;
}
static uint32_t mis1_key_lines(uint64_t seed, const int64_t *rowptr, const int32_t *colidx,
                               int64_t v) {
  const int64_t deg = rowptr[v + 1] - rowptr[v];
  const uint32_t dq = deg > 4093 ? 4093u : (uint32_t)deg;
  const uint32_t cls = mis1_line_class(rowptr, colidx, v);
  return MIS1_DECIDED_LIMIT +
         ((dq << 20) | (cls << 18) | (uint32_t)(mispc_hash3(seed, 0, (uint64_t)v) >> 46));
}

/* ---- greedy + rounds -------------------------------------------------------- */
static const uint64_t *g_key;
static int cmp_order(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  if (g_key[x] != g_key[y]) return g_key[x] < g_key[y] ? -1 : 1;
  return (x > y) - (x < y);
}
static int before(const uint64_t *key, int32_t u, int32_t v) {
  return key[u] < key[v] || (key[u] == key[v] && u < v);
}

/* in[v] = 1 member; dec[v] = round decided. Returns rounds. */
static int greedy_rounds(const graph *g, const uint64_t *key, int32_t *order, uint8_t *in,
                         int32_t *dec) {
  int64_t n = g->n;
  for (int64_t v = 0; v < n; ++v) order[v] = (int32_t)v;
  g_key = key;
  qsort(order, n, sizeof *order, cmp_order);
  int rounds = 0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t v = order[i];
    int isin = 1, rin = 0, rout = 1 << 30;
    for (int64_t p = g->rp[v]; p < g->rp[v + 1]; ++p) {
      int32_t u = g->ci[p];
      if (!before(key, u, v)) continue;
      if (in[u]) {
        isin = 0;
        if (dec[u] < rout) rout = dec[u];
      }
      if (dec[u] + 1 > rin) rin = dec[u] + 1;
    }
    in[v] = (uint8_t)isin;
    dec[v] = isin ? rin : rout;
    if (dec[v] + 1 > rounds) rounds = dec[v] + 1;
  }
  return rounds;
}

/* The round algorithm literally (state at the start of each round). */
static int simulate(const graph *g, const uint64_t *key, uint8_t *in, int32_t *dec) {
  int64_t n = g->n, nl = n;
  int32_t *list = malloc((n + 1) * sizeof *list), *joined = malloc((n + 1) * sizeof *joined);
  for (int64_t v = 0; v < n; ++v) list[v] = (int32_t)v, dec[v] = -1, in[v] = 0;
  int r = 0;
  while (nl > 0) {
    int64_t nj = 0;
    for (int64_t i = 0; i < nl; ++i) {
      int32_t v = list[i];
      int blocked = 0;
      for (int64_t p = g->rp[v]; p < g->rp[v + 1] && !blocked; ++p) {
        int32_t u = g->ci[p];
        if (dec[u] < 0 && before(key, u, v)) blocked = 1;
      }
      if (!blocked) joined[nj++] = v;
    }
    for (int64_t i = 0; i < nj; ++i) in[joined[i]] = 1, dec[joined[i]] = r;
    for (int64_t i = 0; i < nj; ++i)
      for (int64_t p = g->rp[joined[i]]; p < g->rp[joined[i] + 1]; ++p)
        if (dec[g->ci[p]] < 0) dec[g->ci[p]] = r;
    int64_t k = 0;
    for (int64_t i = 0; i < nl; ++i)
      if (dec[list[i]] < 0) list[k++] = list[i];
    nl = k;
    ++r;
  }
  free(list);
  free(joined);
  return r;
}

static int check_mis(const graph *g, const uint8_t *in) {
  for (int64_t v = 0; v < g->n; ++v) {
    int hit = 0;
    for (int64_t p = g->rp[v]; p < g->rp[v + 1]; ++p) {
      if (in[v] && in[g->ci[p]]) return 1; /* not independent */
      hit |= in[g->ci[p]];
    }
    if (!in[v] && !hit) return 2; /* not maximal */
  }
  return 0;
}

static int inlist(const char *list, const char *name) { /* exact match in a ';'-separated list */
  size_t l = strlen(name);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ';');
    size_t k = e ? (size_t)(e - p) : strlen(p);
    if (k == l && !strncmp(p, name, l)) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

/* ---- main ----------------------------------------------------------------- */
static int ncand;
static cand cands[128];
static void add(int kind, int b, int c, const char *name) {
  cand *x = &cands[ncand++];
  x->kind = kind, x->b = b, x->c = c;
  snprintf(x->name, sizeof x->name, "%s", name);
}

int main(int argc, char **argv) {
  int sim = 0;
  uint64_t seed = 0;
  const char *only = NULL;
  const char *graphs[64];
  int ng = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--sim"))
      sim = 1;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 0);
    else
      graphs[ng++] = argv[i];
  }
  if (!ng) {
    static const char *def[] = {"gen:grid3d27:60",
                                "gen:laplace3d:60",
                                "gen:grid2d:300",
                                "gen:elasticity3d:20",
                                "gen:aniso2d:300",
                                "gen:kron:16",
                                "gen:random:100000",
                                "gen:roadgrid:300",
                                "gen:path:10000",
                                "../shared/data/bcsstk13.mtx",
                                "../shared/data/delaunay_n14.mtx",
                                "../shared/data/fe_4elt2.metis.graph",
                                "../shared/data/PGPgiantcompo.metis.graph"};
    ng = (int)(sizeof def / sizeof *def);
    for (int i = 0; i < ng; ++i) graphs[i] = def[i];
  }
  char nm[32];
  add(K_DEF, 0, 0, "default");
  add(K_HASH, 0, 0, "hash");
  add(K_ID, 0, 0, "id");
  add(K_DEG_ID, 0, 0, "deg,id");
  add(K_BREV, 0, 0, "brev");
  add(K_DEG_BREV, 0, 0, "deg,brev");
  for (int b = 1; b <= 4; ++b) snprintf(nm, 32, "deg,rot%d", b), add(K_DEG_ROT, b, 0, nm);
  for (int b = 1; b <= 4; ++b) snprintf(nm, 32, "deg,low%d,h", b), add(K_DEG_LOW_HASH, b, 0, nm);
  for (int b = 2; b <= 6; ++b) snprintf(nm, 32, "deg,rlow%d,h", b), add(K_DEG_RLOW_HASH, b, 0, nm);
  for (int b = 1; b <= 4; ++b) snprintf(nm, 32, "deg,hblk%d", b), add(K_DEG_HBLK, b, 0, nm);
  for (int b = 4; b <= 12; b += 4)
    snprintf(nm, 32, "deg,hblk%d,brev", b), add(K_DEG_HBLK_BREV, b, 0, nm);
  for (int b = 1; b <= 3; ++b) snprintf(nm, 32, "deg,tz%d,h", b), add(K_DEG_TZ_HASH, b, 0, nm);
  add(K_DEG_TZ_HASH, 31, 0, "deg,tz,h");
  add(K_DEG_TZ_ROT, 31, 0, "deg,tz,rot");
  for (int b = 1; b <= 2; ++b)
    snprintf(nm, 32, "deg,rlow%d,brev", b), add(K_DEG_LOW_BREVHI, b, 0, nm);
  for (int b = 1; b <= 2; ++b)
    for (int c = 1; c <= 3; ++c)
      snprintf(nm, 32, "deg,rlow%d,tz%d,h", b, c), add(K_DEG_LOW_TZ_HASH, b, c, nm);
  for (int c = 1; c <= 4; ++c)
    snprintf(nm, 32, "deg,low1,bit%d,h", c), add(K_DEG_LOW1_BIT_HASH, 0, c, nm);
  for (int c = 2; c <= 6; c += 2)
    snprintf(nm, 32, "deg,low1,hblk%d", c), add(K_DEG_LOW_HBLK, 1, c, nm);
  for (int c = 4; c <= 8; c += 4)
    snprintf(nm, 32, "deg,low1,hblk%d,brev", c), add(K_DEG_LOW_BLKBREV, 1, c, nm);
  for (int b = 1; b <= 2; ++b) snprintf(nm, 32, "lib20,rlow%d", b), add(K_DEG_LOW20, b, 0, nm);
  add(K_DEG_ODD_HASH, 0, 0, "deg,odd1st,h");
  add(K_MOD, 3, 0, "deg,mod3,h");
  add(K_MOD, 5, 0, "deg,mod5,h");
  add(K_MOD, 6, 0, "deg,mod6,h");
  add(K_MOD, 2, 1, "nb:mod2,h");
  add(K_MOD, 3, 1, "nb:mod3,h");
  add(K_MOD, 4, 1, "nb:mod4,h");
  add(K_MOD, 4, 3, "nb:rmod4,h");
  add(K_MOD, 6, 1, "nb:mod6,h");
  add(K_MOD, 2, 5, "nb2:mod2,h");
  add(K_MOD, 4, 5, "nb2:mod4,h");
  add(K_MOD, 4, 7, "nb2:rmod4,h");
  add(K_MOD, 2, 13, "nb3:mod2,h");
  add(K_MOD, 2, 9, "nb4:mod2,h");
  add(K_MOD, 2, 29, "nb5:mod2,h");
  add(K_MOD, 2, 29 + 32, "nb6:mod2,h");
  add(K_MOD, 2, 29 + 64, "nb7:mod2,h");
  add(K_MOD, 2, 29 + 96, "nb8:mod2,h");
  add(K_MOD, 2, 29 + 96 + 256, "nb8:lib32");
  add(K_NB_LOW1, 0, 0, "nb:line2,h");
  add(K_NB_LOW1, 0, 1, "nb:line1,h");
  add(K_NB_LOW1, 0, 2, "nb:line2mid,h");
  add(K_NB_LOW1_LIB32, 0, 0, "nb:lib32");

  mispc_context *ctx;
  mispc_context_create(&ctx);
  mispc_context_set_num_threads(ctx, 2);
  printf("%-22s %-10s %9s %7s %6s %8s\n", "candidate", "graph", "n", "size%", "rounds", "size");
  for (int gi = 0; gi < ng; ++gi) {
    graph g;
    mispc_csr A = {0};
    if (load(ctx, graphs[gi], &g, &A)) continue;
    g_graph = &g;
    int64_t n = g.n;
    const char *gname = strrchr(graphs[gi], '/') ? strrchr(graphs[gi], '/') + 1 : graphs[gi];
    if (!strncmp(gname, "gen:", 4)) gname += 4;
    uint64_t *key = malloc(n * sizeof *key);
    int32_t *order = malloc(n * sizeof *order), *dec = malloc(n * sizeof *dec),
            *dec2 = malloc(n * 4);
    uint8_t *in = calloc(n + 1, 1), *in2 = calloc(n + 1, 1), *lib = calloc(n + 1, 1);
    for (int ci = 0; ci < ncand; ++ci) {
      const cand *c = &cands[ci];
      if (only && ci && !inlist(only, c->name)) continue;
      for (int64_t v = 0; v < n; ++v) key[v] = key_of(c, v, g.deg[v], n, seed);
      if (!strcmp(c->name, "nb8:lib32"))
        for (int64_t v = 0; v < n; ++v)
          if (key[v] != mis1_key_lines(seed, A.rowptr, A.colidx, v)) {
            printf("!! winner code differs from nb8:lib32 at %s v=%lld\n", gname, (long long)v);
            break;
          }
      memset(in, 0, n);
      int rounds = greedy_rounds(&g, key, order, in, dec);
      int64_t size = 0;
      for (int64_t v = 0; v < n; ++v) size += in[v];
      int bad = check_mis(&g, in);
      if (bad)
        printf("!! %s on %s: %s\n", c->name, gname, bad == 1 ? "NOT INDEPENDENT" : "NOT MAXIMAL");
      if (sim) {
        int r2 = simulate(&g, key, in2, dec2);
        if (r2 != rounds || memcmp(in, in2, n) || memcmp(dec, dec2, n * 4))
          printf("!! %s on %s: simulation differs (rounds %d vs %d)\n", c->name, gname, rounds, r2);
      }
      if (c->kind == K_DEF) { /* the library itself */
        mispc_mis_options o;
        mispc_mis_options_default(&o);
        mispc_mis_result res;
        if (mispc_mis1(ctx, &A, &o, lib, &res)) {
          printf("!! mispc_mis1: %s\n", mispc_context_error(ctx));
        } else if (res.set_size != size || res.rounds != rounds || memcmp(lib, in, n)) {
          printf("!! default on %s differs from mispc_mis1: %lld/%d vs %lld/%d\n", gname,
                 (long long)size, rounds, (long long)res.set_size, res.rounds);
        }
      }
      printf("%-22s %-10s %9lld %7.2f %6d %8lld\n", c->name, gname, (long long)n,
             100.0 * (double)size / (double)n, rounds, (long long)size);
      fflush(stdout);
    }
    free(key), free(order), free(dec), free(dec2), free(in), free(in2), free(lib);
    free(g.rp), free(g.ci), free(g.deg);
    mispc_csr_free(ctx, &A);
  }
  mispc_context_destroy(ctx);
  return 0;
}
