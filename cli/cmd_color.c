/* mispc color: deterministic distance-1 coloring built on MIS-1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_dist.h"

static void color_usage(FILE *f) {
  fprintf(f, "usage: mispc color SPEC [options]\n"
             "  --greedy          greedy in vertex order instead of MIS-1 classes\n"
             "  --largest-first   higher degree first in every MIS-1 (default: hash order)\n"
             "  --recolor N       N passes of iterated greedy recoloring afterwards, each\n"
             "                    class by class from the last (default 0; never adds colors)\n"
             "  --seed S          hash seed (default 0)\n"
             "  --symmetrize      use the pattern of A + A^T (for unsymmetric input)\n"
             "  --host | --gpu    backend (default: GPU when one is visible)\n"
             "  --threads N       host threads (default: all)\n"
             "  -o FILE           write the color of every vertex, one per line\n"
             "  -v                progress output\n");
}

int cmd_color(int argc, char **argv) {
  const char *spec = NULL, *outfile = NULL;
  int use_gpu = -1, threads = 0, verbose = 0, symmetrize = 0;
  mispc_coloring_options o;
  mispc_coloring_options_default(&o);
  for (int a = 1; a < argc; ++a) {
    const char *s = argv[a];
    int more = a + 1 < argc;
    if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
      color_usage(stdout);
      return 0;
    } else if (!strcmp(s, "--greedy")) {
      o.algo = MISPC_COLORING_GREEDY;
    } else if (!strcmp(s, "--largest-first")) {
      o.mis.priority = MISPC_PRIORITY_LARGEST_DEGREE;
    } else if (!strcmp(s, "--recolor") && more) {
      if (!cli_parse_i("color", "--recolor", argv[++a], 0, MISPC_COLORING_MAX_RECOLOR, &o.recolor))
        return 2;
    } else if (!strcmp(s, "--seed") && more) {
      unsigned long long v;
      if (!cli_parse_u64("color", "--seed", argv[++a], &v)) return 2;
      o.mis.seed = v;
    } else if (!strcmp(s, "--symmetrize")) {
      symmetrize = 1;
    } else if (!strcmp(s, "--host")) {
      use_gpu = 0;
    } else if (!strcmp(s, "--gpu")) {
      use_gpu = 1;
    } else if (!strcmp(s, "--threads") && more) {
      if (!cli_parse_i("color", "--threads", argv[++a], 0, MISPC_MAX_THREADS, &threads)) return 2;
    } else if (!strcmp(s, "-o") && more) {
      outfile = argv[++a];
    } else if (!strcmp(s, "-v")) {
      verbose = 2;
    } else if (s[0] != '-' && !spec) {
      spec = s;
    } else {
      fprintf(stderr, "mispc color: unexpected argument '%s'\n", s);
      color_usage(stderr);
      return 2;
    }
  }
  if (!spec) {
    color_usage(stderr);
    return 2;
  }
  mispc_context *ctx;
  if (cli_context("color", verbose, threads, &use_gpu, &ctx)) return 1;
  mispc_csr A = {0}, G = {0};
  mispc_coloring c = {0, 0, NULL, MISPC_MEM_HOST};
  int rc = cli_load(ctx, spec, symmetrize, &A);
  int32_t *col = NULL;
  if (!rc) {
    mispc_status s = use_gpu ? mispc_csr_copy(ctx, &A, MISPC_MEM_DEVICE, &G) : MISPC_SUCCESS;
    if (!use_gpu) G = A, G.owned = 0;
    double t = mispc_wtime();
    if (!s) s = mispc_color(ctx, &G, &o, &c);
    t = mispc_wtime() - t;
    if (!s) s = mispc_verify_coloring(ctx, &G, &c);
    col = (int32_t *)malloc(sizeof(int32_t) * (size_t)(A.nrows + 1));
    if (!s && col)
      s = mispc_memcpy(ctx, col, MISPC_MEM_HOST, c.color, c.mem, sizeof(int32_t) * (size_t)A.nrows);
    if (s) {
      rc = cli_fail(ctx, "color", s);
      if (s == MISPC_ERR_UNSYMMETRIC)
        fprintf(stderr, "mispc color: --symmetrize colors the pattern of A + A^T instead\n");
    } else if (!col) {
      fprintf(stderr, "mispc color: out of memory for %lld colors\n", (long long)A.nrows);
      rc = 1;
    } else {
      int64_t *size = (int64_t *)calloc((size_t)c.ncolors + 1, sizeof(int64_t));
      for (int64_t v = 0; v < A.nrows; ++v) size[col[v]]++;
      printf("coloring of %s on %s: %d colors, %.3f ms (one call), verified proper\n", spec,
             use_gpu ? "GPU" : "host", c.ncolors, 1e3 * t);
      printf("color sizes:");
      for (int32_t k = 0; k < c.ncolors; ++k) printf(" %lld", (long long)size[k]);
      printf("\n");
      printf("checksum %016llx\n", (unsigned long long)cli_checksum_i32(0, A.nrows, col));
      free(size);
      if (outfile) {
        FILE *f = fopen(outfile, "w");
        if (!f) {
          fprintf(stderr, "mispc color: cannot open %s for writing: %s\n", outfile,
                  strerror(errno));
          rc = 1;
        } else {
          for (int64_t v = 0; v < A.nrows; ++v) fprintf(f, "%d\n", col[v]);
          rc = cli_close_output("color", f, outfile);
        }
      }
    }
  }
  free(col);
  mispc_coloring_free(ctx, &c);
  if (use_gpu) mispc_csr_free(ctx, &G);
  mispc_csr_free(ctx, &A);
  mispc_context_destroy(ctx);
  return rc;
}
