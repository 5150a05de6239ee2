/* Experiment: a host emulation of the GPU
 * coloring's polled pass with wide rows (gauss_seidel/coloring_cuda.cu:
 * mask_body / wide_start, poll_visit, wide_visit), statement for statement
 * where the kernel's index arithmetic lives (the regions of `bits`, the
 * compaction of `early`, the removals of the highest colors, set_end), the
 * warp's 32 lanes run one after another between its ballots. Vertices are
 * visited in a random order each sweep (several seeds); the colors must be
 * the host's (mispc_color, hash priority) on every graph. Written for the
 * kernel's first form (a wide row's count of masked neighbours in pred[v],
 * every graph in one kernel); the landed kernel keeps that count in
 * wkept[i] of a list of the wide rows (so that the warps share the hubs)
 * and runs only after a hub or long row is found: the same rule and
 * arithmetic.
 *
 * From the repository root:
 * Build: gcc -O2 -std=c11 -Iinclude -Ibuild/include -Imis \
 *   bench/experiments/color_wide_emul.c -Lbuild -lmispc -Wl,-rpath,$PWD/build -o color_wide_emul
 * Run:   ./color_wide_emul SPEC...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mis_common.h" /* the library's keys and order */
#include "mispc/mispc.h"

#define POLL_ROW  31
#define POLLED    0xFFFFFFFFu
#define WIDE_DONE (-1)
#define CHUNK     4

static int ffs32(uint32_t x) {
  return x ? __builtin_ctz(x) + 1 : 0;
}
static int clz32(uint32_t x) {
  return x ? __builtin_clz(x) : 32;
}

typedef struct {
  const int64_t *rowptr;
  const int32_t *colidx;
  uint32_t *key, *poss, *bits;
  int32_t *color, *pred, *early;
  unsigned long long *span;
  int64_t n;
} Plan;

static void wide_start(const Plan *p, int32_t v, int64_t b, int64_t e) {
  const uint32_t kv = p->key[v];
  int32_t k = 0;
  for (int64_t q0 = b; q0 < e; q0 += 32) {
    int earlier[32];
    int32_t u[32];
    unsigned bal = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const int64_t q = q0 + lane;
      u[lane] = q < e ? p->colidx[q] : v;
      earlier[lane] = u[lane] != v && mis1_before(p->key[u[lane]], u[lane], kv, v);
      bal |= (unsigned)earlier[lane] << lane;
    }
    for (int lane = 0; lane < 32; ++lane)
      if (earlier[lane]) p->early[b + k + __builtin_popcount(bal & ((1u << lane) - 1u))] = u[lane];
    k += __builtin_popcount(bal);
  }
  const int64_t w0 = b / 32 + v, nw = e / 32 + v + 1 - w0;
  for (int64_t w = 0; w < nw; ++w) {
    const int64_t nb = k + 1 - 32 * w;
    p->bits[w0 + w] = nb >= 32 ? 0xFFFFFFFFu : nb > 0 ? (1u << nb) - 1u : 0u;
  }
  p->pred[v] = k;
  p->poss[v] = 0;
  p->span[v] = (unsigned long long)k << 32;
}

static void mask_all(const Plan *p) {
  for (int64_t v = 0; v < p->n; ++v) {
    const int64_t b = p->rowptr[v], e = p->rowptr[v + 1];
    if (e - b > POLL_ROW) {
      wide_start(p, (int32_t)v, b, e);
      continue;
    }
    const uint32_t kv = p->key[v];
    uint32_t m = 0;
    for (int64_t q = b; q < e; ++q) {
      const int32_t u = p->colidx[q];
      if (u != v && mis1_before(p->key[u], u, kv, v)) m |= 1u << (q - b);
    }
    p->pred[v] = (int32_t)m;
    p->poss[v] = 0xFFFFFFFFu >> (31 - __builtin_popcount(m));
  }
}

enum { WAS = 0, COLORED = 1, WAITS = 2 };

static int poll_visit(const Plan *p, int32_t v) {
  const uint32_t m0 = (uint32_t)p->pred[v];
  if (m0 == POLLED) return WAS;
  const int64_t b = p->rowptr[v];
  uint32_t m = m0, pc = p->poss[v], left = m, all = 0;
  while (left) {
    int32_t u[CHUNK];
    uint32_t bit[CHUNK], np[CHUNK];
    for (int k = 0; k < CHUNK; ++k) {
      bit[k] = left & (0u - left);
      left &= left - 1;
      u[k] = bit[k] ? p->colidx[b + ffs32(bit[k]) - 1] : v;
    }
    for (int k = 0; k < CHUNK; ++k) np[k] = bit[k] ? p->poss[u[k]] : 0u;
    for (int k = 0; k < CHUNK; ++k)
      if (bit[k]) {
        int dec = __builtin_popcount(np[k]) == 1;
        if (!np[k]) {
          const unsigned long long sp = p->span[u[k]];
          const uint32_t lo = (uint32_t)sp, hi = (uint32_t)(sp >> 32);
          dec = lo == hi;
          np[k] = lo > 31 ? 0u : (hi >= 31 ? 0xFFFFFFFFu : (2u << hi) - 1u) & (0xFFFFFFFFu << lo);
        }
        all |= np[k];
        if (!(pc & np[k])) {
          pc &= ~(0x80000000u >> clz32(pc));
          m &= ~bit[k];
        } else if (dec) {
          pc &= ~np[k];
          m &= ~bit[k];
        }
      }
  }
  if (m && !(pc & (0u - pc) & all)) m = 0, pc &= 0u - pc;
  if (m) {
    if (m != m0) p->pred[v] = (int32_t)m, p->poss[v] = pc;
    return WAITS;
  }
  p->poss[v] = pc;
  p->color[v] = ffs32(pc) - 1;
  p->pred[v] = (int32_t)POLLED;
  return COLORED;
}

static int any_in(const Plan *p, int64_t w0, int64_t w1, uint32_t lo, uint32_t hi) {
  for (int64_t w = w0 + lo / 32; w < w1 && (w - w0) * 32 <= (int64_t)hi; ++w) {
    uint32_t x = p->bits[w];
    const int64_t c0 = (w - w0) * 32;
    if (c0 < (int64_t)lo) x &= 0xFFFFFFFFu << (lo - c0);
    if (c0 + 31 > (int64_t)hi) x &= 0xFFFFFFFFu >> (c0 + 31 - hi);
    if (x) return 1;
  }
  return 0;
}

static int32_t set_end(const Plan *p, int64_t w0, int64_t w1, int low) {
  const int64_t nw = w1 - w0;
  for (int64_t k0 = 0; k0 < nw; k0 += 32)
    for (int lane = 0; lane < 32; ++lane) { /* the lowest lane with a word wins */
      const int64_t k = low ? k0 + lane : nw - 1 - k0 - lane;
      const uint32_t x = k >= 0 && k < nw ? p->bits[w0 + k] : 0u;
      if (x) return (int32_t)(32 * k + (low ? ffs32(x) - 1 : 31 - clz32(x)));
    }
  return -1;
}

static int wide_visit(const Plan *p, int32_t v) {
  const int32_t kept = p->pred[v];
  if (kept == WIDE_DONE) return WAS;
  const int64_t b = p->rowptr[v], e = p->rowptr[v + 1];
  const int64_t w0 = b / 32 + v, w1 = e / 32 + v + 1;
  int32_t out = 0;
  for (int32_t i0 = 0; i0 < kept; i0 += 32) {
    int has[32], dec[32], meet[32], keep[32];
    int32_t u[32], dc[32];
    unsigned km = 0;
    int drops = 0;
    for (int lane = 0; lane < 32; ++lane) { /* every lane reads before any writes */
      const int32_t i = i0 + lane;
      has[lane] = i < kept;
      u[lane] = has[lane] ? p->early[b + i] : v;
      dec[lane] = meet[lane] = 0;
      dc[lane] = 0;
      if (has[lane]) {
        const uint32_t st = p->poss[u[lane]];
        if (st) {
          dec[lane] = __builtin_popcount(st) == 1;
          dc[lane] = ffs32(st) - 1;
          meet[lane] = (st & p->bits[w0]) != 0;
        } else {
          const unsigned long long sp = p->span[u[lane]];
          const uint32_t lo = (uint32_t)sp, hi = (uint32_t)(sp >> 32);
          dec[lane] = lo == hi;
          dc[lane] = (int32_t)lo;
          meet[lane] = any_in(p, w0, w1, lo, hi);
        }
      }
      keep[lane] = has[lane] && meet[lane] && !dec[lane];
      km |= (unsigned)keep[lane] << lane;
      drops += has[lane] && !meet[lane];
    }
    for (int lane = 0; lane < 32; ++lane)
      if (keep[lane]) p->early[b + out + __builtin_popcount(km & ((1u << lane) - 1u))] = u[lane];
    out += __builtin_popcount(km);
    for (int lane = 0; lane < 32; ++lane)
      if (has[lane] && meet[lane] && dec[lane])
        p->bits[w0 + dc[lane] / 32] &= ~(1u << (dc[lane] % 32));
    for (int64_t w = w1 - 1, d = drops; d > 0 && w >= w0; --w) {
      uint32_t x = p->bits[w];
      while (d > 0 && x) x &= ~(0x80000000u >> clz32(x)), --d;
      p->bits[w] = x;
    }
  }
  const int32_t lo = set_end(p, w0, w1, 1);
  int taken = 0;
  for (int32_t i = 0; i < out && !taken; ++i) {
    const int32_t u = p->early[b + i];
    const uint32_t st = p->poss[u];
    if (st)
      taken = lo < 32 && ((st >> lo) & 1u);
    else {
      const unsigned long long sp = p->span[u];
      taken = (uint32_t)sp <= (uint32_t)lo && (uint32_t)lo <= (uint32_t)(sp >> 32);
    }
  }
  if (out && taken) {
    const int32_t hi = set_end(p, w0, w1, 0);
    p->pred[v] = out;
    p->span[v] = ((unsigned long long)(uint32_t)hi << 32) | (uint32_t)lo;
    return WAITS;
  }
  p->span[v] = ((unsigned long long)(uint32_t)lo << 32) | (uint32_t)lo;
  p->color[v] = lo;
  p->pred[v] = WIDE_DONE;
  return COLORED;
}

static int run(mispc_context *ctx, const char *spec) {
  mispc_csr g;
  if (mispc_load(ctx, spec, &g)) {
    fprintf(stderr, "%s: %s\n", spec, mispc_context_error(ctx));
    return 1;
  }
  const int64_t n = g.nrows;
  Plan p = {g.rowptr, g.colidx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, n};
  p.key = malloc(4 * (size_t)n);
  p.poss = malloc(4 * (size_t)n);
  p.bits = malloc(4 * (size_t)(g.nnz / 32 + n + 2));
  memset(p.bits, 0xA5, 4 * (size_t)(g.nnz / 32 + n + 2)); /* as scratch: not zeroed */
  p.color = malloc(4 * (size_t)n);
  p.pred = malloc(4 * (size_t)n);
  p.early = malloc(4 * (size_t)(g.nnz + 1));
  p.span = malloc(8 * (size_t)n);
  int64_t *perm = malloc(8 * (size_t)(n + 1)), wide = 0;
  for (int64_t v = 0; v < n; ++v) {
    p.key[v] = mis1_key(MIS1_KEY_HASH, 0, v, g.rowptr[v + 1] - g.rowptr[v]);
    wide += g.rowptr[v + 1] - g.rowptr[v] > POLL_ROW;
  }
  mispc_coloring_options o;
  mispc_coloring_options_default(&o);
  o.mis.priority = MISPC_PRIORITY_HASH;
  mispc_coloring ref;
  if (mispc_color(ctx, &g, &o, &ref)) {
    fprintf(stderr, "%s: %s\n", spec, mispc_context_error(ctx));
    return 1;
  }
  int bad = 0, most = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    memset(p.color, 0xFF, 4 * (size_t)n);
    mask_all(&p);
    for (int64_t v = 0; v < n; ++v) perm[v] = v;
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull;
    int sweeps = 0;
    for (int left = 1; left && sweeps < 100000; ++sweeps) {
      for (int64_t i = n - 1; i > 0; --i) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        const int64_t j = (int64_t)((rng >> 33) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
      }
      left = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int32_t v = (int32_t)perm[i];
        const int r =
            g.rowptr[v + 1] - g.rowptr[v] > POLL_ROW ? wide_visit(&p, v) : poll_visit(&p, v);
        left |= r == WAITS;
      }
    }
    int64_t diff = 0;
    for (int64_t v = 0; v < n; ++v) diff += p.color[v] != ref.color[v];
    bad |= diff != 0;
    if (sweeps > most) most = sweeps;
    if (diff)
      printf("  %s seed %llu: %lld colors differ\n", spec, (unsigned long long)seed,
             (long long)diff);
  }
  printf("%-28s %9lld vertices %8lld wide %5d colors, at most %5d sweeps: %s\n", spec, (long long)n,
         (long long)wide, ref.ncolors, most, bad ? "DIFFERS" : "the host's colors");
  mispc_coloring_free(ctx, &ref);
  free(p.key);
  free(p.poss);
  free(p.bits);
  free(p.color);
  free(p.pred);
  free(p.early);
  free(p.span);
  free(perm);
  mispc_csr_free(ctx, &g);
  return bad;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: color_wide_emul SPEC...\n");
    return 2;
  }
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) return 1;
  int bad = 0;
  for (int i = 1; i < argc; ++i) bad |= run(ctx, argv[i]);
  mispc_context_destroy(ctx);
  return bad;
}
