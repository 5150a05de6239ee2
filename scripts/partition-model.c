/* Communication volume of the distributed MIS-2 round under 1D row blocks
 * (what mispc does) and under a 2D sqrt(P) x sqrt(P) edge partition, counted
 * exactly on a graph spec (docs/PARTITIONING.md).
 *
 * Build (after building libmispc in BUILD, e.g. build-part):
 *   cc -O2 -std=c11 -Iinclude -IBUILD/include scripts/partition-model.c \
 *      -LBUILD -lmispc -Wl,-rpath,$PWD/BUILD -lm -o /tmp/partition-model
 * Run:
 *   /tmp/partition-model SPEC [P ...]        (default P: 2 4 8 16 64 256 1024)
 *
 * For each P (row ranges n*p/P, as mispc_dist_load), one line:
 *   B1     exact boundary pairs sum_v |{ranks q != owner(v) with a neighbour of v}|:
 *          the CLI's "boundary vertices" (sum over ranks of the halo plan's nsend)
 *   Bind   the same under independent uniform placement of neighbours:
 *          sum_v (P-1) (1 - (1 - 1/P)^deg(v))  (a model for randomly labelled graphs)
 *   beta   B1 / n
 *   nbr    mean and max number of neighbour ranks (messages an exchange)
 *   v1     1D bytes a rank a MIS-2 round: 9 B1 / P (8-byte column minimum + 1-byte state)
 *   and, when P is a square s^2:
 *   v2d    2D bytes a rank a round, dense vectors: 18 n (s - 1) / P
 *          (expand state 1 B, fold column minimum 8 B, expand minimum 8 B, fold flags 1 B)
 *   v2s    2D bytes a rank a round, sparse-aware (only entries a block's edges touch,
 *          lists built once like the 1D plan): 18 E / P, E = sum_v |{row blocks i with a
 *          neighbour of v, other than the block of v's vector owner}|
 *   msgs   messages a rank a round: 1D 2 x nbr (mean), 2D 4 (s - 1)
 * Degrees exclude self loops. The graph must be symmetric (mispc's generators are). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mispc/context.h>
#include <mispc/csr.h>
#include <mispc/io.h>

static int64_t block_of(int64_t v, int64_t n, int64_t nb) {
  /* blocks [n k / nb, n (k+1) / nb): first k with n (k+1) / nb > v */
  int64_t k = (v * nb) / n;
  while (k > 0 && n * k / nb > v) --k;
  while (n * (k + 1) / nb <= v) ++k;
  return k;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SPEC [P ...]\n", argv[0]);
    return 2;
  }
  mispc_context *ctx = NULL;
  mispc_csr A;
  if (mispc_context_create(&ctx) || mispc_load(ctx, argv[1], &A)) {
    fprintf(stderr, "cannot load %s\n", argv[1]);
    return 1;
  }
  const int64_t n = A.nrows;
  int64_t m2 = 0, iso = 0, dmax = 0;
  int32_t *deg = malloc(sizeof(int32_t) * (size_t)n);
  for (int64_t v = 0; v < n; ++v) {
    int32_t d = 0;
    for (int64_t p = A.rowptr[v]; p < A.rowptr[v + 1]; ++p) d += A.colidx[p] != v;
    deg[v] = d;
    m2 += d;
    iso += d == 0;
    if (d > dmax) dmax = d;
  }
  printf("%s: n %lld, m %lld undirected edges, mean degree %.2f, max %lld, isolated %lld\n",
         argv[1], (long long)n, (long long)(m2 / 2), (double)m2 / (double)n, (long long)dmax,
         (long long)iso);
  int defP[] = {2, 4, 8, 16, 64, 256, 1024};
  int np = argc > 2 ? argc - 2 : (int)(sizeof defP / sizeof *defP);
  printf("%6s %12s %12s %7s %7s %5s %12s %12s %12s %8s %8s\n", "P", "B1", "Bind", "beta",
         "nbr", "max", "v1 B/rank", "v2d B/rank", "v2s B/rank", "msgs1D", "msgs2D");
  for (int a = 0; a < np; ++a) {
    const int64_t P = argc > 2 ? atoll(argv[2 + a]) : defP[a];
    if (P < 1 || P > n) continue;
    int64_t s = (int64_t)llround(sqrt((double)P));
    const int square = s * s == P;
    /* stamp[q] = v + 1 when rank q already counted for v */
    int64_t *stamp = calloc((size_t)P, sizeof(int64_t));
    unsigned char *pair = calloc((size_t)P * (size_t)P, 1); /* rank p talks to q */
    int64_t B1 = 0, E = 0;
    double Bind = 0;
    int64_t *sstamp = square ? calloc((size_t)s, sizeof(int64_t)) : NULL;
    for (int64_t v = 0; v < n; ++v) {
      const int64_t own = block_of(v, n, P);
      for (int64_t p = A.rowptr[v]; p < A.rowptr[v + 1]; ++p) {
        int64_t u = A.colidx[p];
        if (u == v) continue;
        int64_t q = block_of(u, n, P);
        if (q != own && stamp[q] != v + 1) {
          stamp[q] = v + 1;
          ++B1;
          pair[own * P + q] = 1;
        }
      }
      if (deg[v]) Bind += (double)(P - 1) * (1.0 - pow(1.0 - 1.0 / (double)P, deg[v]));
      if (square) {
        /* v lies in column block C_j; its vector entry is owned by rank (k, j), k the
         * piece of C_j that holds v: row block k is local for it. */
        const int64_t j = block_of(v, n, s);
        const int64_t lo = n * j / s, hi = n * (j + 1) / s;
        const int64_t k = block_of(v - lo, hi - lo, s);
        for (int64_t p = A.rowptr[v]; p < A.rowptr[v + 1]; ++p) {
          int64_t u = A.colidx[p];
          if (u == v) continue;
          int64_t i = block_of(u, n, s);
          if (i != k && sstamp[i] != v + 1) {
            sstamp[i] = v + 1;
            ++E;
          }
        }
      }
    }
    int64_t nbsum = 0, nbmax = 0;
    for (int64_t p = 0; p < P; ++p) {
      int64_t c = 0;
      for (int64_t q = 0; q < P; ++q) c += pair[p * P + q];
      nbsum += c;
      if (c > nbmax) nbmax = c;
    }
    const double v1 = 9.0 * (double)B1 / (double)P;
    char d2[32] = "-", s2[32] = "-", m2d[32] = "-";
    if (square && P > 1) {
      snprintf(d2, sizeof d2, "%.0f", 18.0 * (double)n * (double)(s - 1) / (double)P);
      snprintf(s2, sizeof s2, "%.0f", 18.0 * (double)E / (double)P);
      snprintf(m2d, sizeof m2d, "%lld", (long long)(4 * (s - 1)));
    }
    printf("%6lld %12lld %12.0f %7.3f %7.2f %5lld %12.0f %12s %12s %8.1f %8s\n", (long long)P,
           (long long)B1, Bind, (double)B1 / (double)n, (double)nbsum / (double)P,
           (long long)nbmax, v1, d2, s2, 2.0 * (double)nbsum / (double)P, m2d);
    free(stamp);
    free(pair);
    free(sstamp);
  }
  free(deg);
  mispc_csr_free(ctx, &A);
  mispc_context_destroy(ctx);
  return 0;
}
