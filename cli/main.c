/* mispc: command-line front end (info, mis, coarsen, color, bench). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_dist.h"
#include "mispc/config.h"

typedef struct command {
  const char *name, *synopsis, *what;
  int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"info", "SPEC...", "size, degrees, symmetry, diagonal dominance", cmd_info},
    {"mis", "SPEC [-k 1|2]", "an MIS-1 / MIS-2, checked, with its checksum", cmd_mis},
    {"coarsen", "SPEC", "multilevel MIS-2 aggregation of the strength graph", cmd_coarsen},
    {"color", "SPEC", "deterministic distance-1 coloring", cmd_color},
    {"bench", "mis1|mis2|agg|gs SPEC...", "benchmarks against one cuSPARSE SpMV", cmd_bench},
    {"gs", "SPEC (under mpiexec)", "distributed multicolor Gauss-Seidel, exact for any P",
     cmd_dist_gs},
};
enum { NCOMMANDS = (int)(sizeof commands / sizeof commands[0]) };

static void usage(FILE *f) {
  fprintf(f,
          "mispc %s - maximal independent sets, coarsening and preconditioners\n"
          "\n"
          "usage: mispc COMMAND [options]     (mispc COMMAND --help: its options and an example)\n"
          "\n"
          "commands:\n",
          MISPC_VERSION);
  for (int i = 0; i < NCOMMANDS; ++i) {
    char head[64];
    snprintf(head, sizeof head, "%s %s", commands[i].name, commands[i].synopsis);
    fprintf(f, "  %-32s %s\n", head, commands[i].what);
  }
  fprintf(f,
          "  %-32s %s\n"
          "  %-32s %s\n"
          "\n"
          "Under mpiexec (or with --dist) mis, color, coarsen and gs run on the ranks together:\n"
          "  mpiexec -n 4 mispc mis gen:laplace3d:100 -k 2   (same checksum as one process)\n"
          "\n"
          "SPEC is a file (.mtx, .mtx.gz, METIS .graph, PETSc binary .petsc) or a generator:\n"
          "  gen:laplace2d:N  gen:laplace3d:N  gen:elasticity3d:N  gen:aniso2d:N[:EPS[:DEG]]\n"
          "  gen:aniso3d:N[:EPS]  gen:kron:SCALE[:EF]  gen:random:N[:DEG]  gen:path:N\n"
          "  gen:roadgrid:N[:P]  gen:grid2d:N  gen:grid3d27:N\n"
          "\n"
          "example:\n"
          "  mispc mis gen:laplace3d:100 -k 2\n"
          "\n"
          "built with CUDA: %s; GPU visible: %s; built with MPI: %s\n",
          "help [COMMAND]", "this text, or the help of COMMAND", "--version", "the version",
          mispc_built_with_cuda() ? "yes" : "no", mispc_have_gpu() ? "yes" : "no",
          MISPC_ENABLE_MPI ? "yes" : "no");
}

static const command *find(const char *name) {
  for (int i = 0; i < NCOMMANDS; ++i)
    if (!strcmp(name, commands[i].name)) return &commands[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      (!strcmp(argv[1], "help") && argc == 2)) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("mispc %s\n", MISPC_VERSION);
    return 0;
  }
  if (!strcmp(argv[1], "help")) { /* mispc help COMMAND [SUBCOMMAND] */
    const command *c = find(argv[2]);
    if (!c || argc > 4) {
      fprintf(stderr, "mispc help: unknown command '%s' (mispc --help lists them)\n",
              argc > 4 ? argv[4] : argv[2]);
      return 2;
    }
    char help[] = "--help";
    char *args[4] = {argv[2], argc > 3 ? argv[3] : help, argc > 3 ? help : NULL, NULL};
    return c->run(argc > 3 ? 3 : 2, args);
  }
  /* Under mpiexec (or with --dist), mis, color and coarsen run distributed. */
  if ((!strcmp(argv[1], "mis") || !strcmp(argv[1], "color") || !strcmp(argv[1], "coarsen")) &&
      cli_dist_requested(argc, argv))
    return cmd_dist(argc - 1, argv + 1);
  const command *c = find(argv[1]);
  if (c) return c->run(argc - 1, argv + 1);
  fprintf(stderr, "mispc: unknown command '%s' (mispc --help lists them)\n", argv[1]);
  return 2;
}
