/* mispc: command-line front end (info, mis, bench). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_dist.h"
#include "mispc/config.h"

static void usage(FILE *f) {
  fprintf(
      f,
      "mispc %s - maximal independent sets, coarsening and preconditioners\n"
      "\n"
      "usage: mispc COMMAND [options]\n"
      "\n"
      "commands:\n"
      "  info SPEC...            size, degrees, symmetry, diagonal dominance\n"
      "  mis SPEC -k 1|2         compute an MIS-1 / MIS-2 (mispc mis --help)\n"
      "  coarsen SPEC            multilevel MIS-2 aggregation (mispc coarsen --help)\n"
      "  color SPEC              distance-1 coloring (mispc color --help)\n"
      "  bench mis1|mis2|agg|gs SPEC...  benchmark against one cuSPARSE SpMV (mispc bench --help)\n"
      "\n"
      "Under mpiexec (or with --dist) mis, color and coarsen run on the ranks together:\n"
      "  mpiexec -n 4 mispc mis gen:laplace3d:100 -k 2   (same checksum as one process)\n"
      "\n"
      "SPEC is a file (.mtx, .mtx.gz, METIS .graph, PETSc binary .petsc) or a generator:\n"
      "  gen:laplace2d:N  gen:laplace3d:N  gen:elasticity3d:N  gen:aniso2d:N[:EPS[:DEG]]\n"
      "  gen:aniso3d:N[:EPS]  gen:kron:SCALE[:EF]  gen:random:N[:DEG]  gen:path:N\n"
      "  gen:roadgrid:N[:P]  gen:grid2d:N  gen:grid3d27:N\n"
      "\n"
      "built with CUDA: %s; GPU visible: %s\n",
      MISPC_VERSION, mispc_built_with_cuda() ? "yes" : "no", mispc_have_gpu() ? "yes" : "no");
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      !strcmp(argv[1], "help")) {
    usage(stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("mispc %s\n", MISPC_VERSION);
    return 0;
  }
  /* Under mpiexec (or with --dist), mis, color and coarsen run distributed. */
  if ((!strcmp(argv[1], "mis") || !strcmp(argv[1], "color") || !strcmp(argv[1], "coarsen")) &&
      cli_dist_requested(argc, argv))
    return cmd_dist(argc - 1, argv + 1);
  if (!strcmp(argv[1], "info")) return cmd_info(argc - 1, argv + 1);
  if (!strcmp(argv[1], "mis")) return cmd_mis(argc - 1, argv + 1);
  if (!strcmp(argv[1], "bench")) return cmd_bench(argc - 1, argv + 1);
  if (!strcmp(argv[1], "coarsen")) return cmd_coarsen(argc - 1, argv + 1);
  if (!strcmp(argv[1], "color")) return cmd_color(argc - 1, argv + 1);
  fprintf(stderr, "mispc: unknown command '%s' (try mispc --help)\n", argv[1]);
  return 2;
}
