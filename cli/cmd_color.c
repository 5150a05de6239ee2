/* mispc color: deterministic distance-1 coloring built on MIS-1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_dist.h"

int cmd_color(int argc, char **argv) {
  const char *spec = NULL, *outfile = NULL;
  int use_gpu = -1, threads = 0, verbose = 0, symmetrize = 0, greedy = 0, largest = 0;
  mispc_coloring_options o;
  mispc_coloring_options_default(&o);
  const cli_opt opts[] = {
      CLI_OPT_FLAG("--greedy", "greedy in vertex order instead of MIS-1 classes", &greedy, 1),
      CLI_OPT_FLAG("--largest-first",
                   "higher degree first in every MIS-1 (default: hash order);\n"
                   "fewer colors on graphs with hubs, and there much faster on the GPU",
                   &largest, 1),
      CLI_OPT_INT("--recolor", "N",
                  "N passes of iterated greedy recoloring afterwards, each\n"
                  "class by class from the last (default 0; never adds colors)",
                  &o.recolor, 0, MISPC_COLORING_MAX_RECOLOR),
      CLI_OPT_SEED("--seed", "S", "hash seed (default 0)", &o.mis.seed),
      CLI_OPT_SYMMETRIZE(&symmetrize),
      CLI_OPTS_BACKEND(&use_gpu),
      CLI_OPT_THREADS(&threads),
      CLI_OPT_TEXT("-o", "FILE", "write the color of every vertex, one per line", &outfile),
      CLI_OPT_FLAG("-v", "progress output", &verbose, 2),
  };
  const cli_command cmd = {
      .name = "color",
      .synopsis = "SPEC [options]",
      .about = "Colors the graph of SPEC at distance 1, deterministically: each color is\n"
               "the MIS-1 of the vertices not colored yet (or greedy in vertex order);\n"
               "checks the coloring and prints the color sizes and a checksum.",
      CLI_SPEC_OPERANDS(opts, 1, "graph"),
      .notes = CLI_DIST_NOTE("color"),
      .example = "mispc color gen:laplace3d:100 --recolor 2 -o colors.txt",
  };
  int npos = 0, rc = cli_args_parse(&cmd, argc, argv, 1, &spec, &npos);
  if (rc) return rc == CLI_ARGS_HELP ? 0 : 2;
  if (greedy) o.algo = MISPC_COLORING_GREEDY;
  if (largest) o.mis.priority = MISPC_PRIORITY_LARGEST_DEGREE;
  mispc_context *ctx;
  if (cli_context("color", verbose, threads, &use_gpu, &ctx)) return 1;
  mispc_csr A = {0}, G = {0};
  mispc_coloring c = {0, 0, NULL, MISPC_MEM_HOST};
  rc = cli_load(ctx, spec, symmetrize, &A);
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
