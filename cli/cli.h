/* Shared pieces of the mispc command-line tool. */
#ifndef MISPC_CLI_H
#define MISPC_CLI_H

#include <stdio.h>

#include "cli_args.h"
#include "mispc/mispc.h"

/* Prints "mispc: WHAT: status (context message)" to stderr; returns 1. */
int cli_fail(mispc_context *ctx, const char *what, mispc_status s);
/* Loads SPEC (file or gen:...) on the host, printing progress when verbose. */
int cli_load(mispc_context *ctx, const char *spec, int symmetrize, mispc_csr *A);
/* Creates the context of a command: verbosity (progress to stderr), host
 * threads, and the backend (*use_gpu < 0: GPU when one is visible). Prints
 * why and returns 1 when --gpu was asked for without a GPU. */
int cli_context(const char *cmd, int verbose, int threads, int *use_gpu, mispc_context **ctx);
/* Closes F after writing PATH; prints "mispc CMD: cannot write PATH: reason"
 * and returns 1 when a write or the close failed (disk full, ...), else 0. */
int cli_close_output(const char *cmd, FILE *f, const char *path);

/* Options of the one-process commands (mis, color, coarsen), written once:
 * --host / --gpu (*USE_GPU = 0 / 1), --threads, --symmetrize. */
#define CLI_OPTS_BACKEND(USE_GPU)                                                                  \
  CLI_OPT_FLAG("--host", "host backend (default: GPU when one is visible)", USE_GPU, 0),           \
      CLI_OPT_FLAG("--gpu", "GPU backend", USE_GPU, 1)
#define CLI_OPT_THREADS(OUT)                                                                       \
  CLI_OPT_INT("--threads", "N", "host threads (default: all)", OUT, 0, MISPC_MAX_THREADS)
#define CLI_OPT_SYMMETRIZE(OUT)                                                                    \
  CLI_OPT_FLAG("--symmetrize", "use the pattern of A + A^T (for unsymmetric input)", OUT, 1)

/* The cli_command fields of a command with the option table OPTS (an array)
 * and 1 to MAX operands, each a WHAT ("graph", "matrix"): a file or gen:... */
#define CLI_SPEC_OPERANDS(OPTS, MAX, WHAT)                                                         \
  .opts = OPTS, .nopts = (int)(sizeof OPTS / sizeof OPTS[0]), .min_pos = 1, .max_pos = MAX,        \
  .no_operand = "no " WHAT " given (a file or gen:...)"
/* The --help note of a one-process command NAME that the ranks also run together. */
#define CLI_DIST_NOTE(NAME)                                                                        \
  "Under mpiexec, or with --dist, the ranks compute it together (an mispc\n"                       \
  "built with MPI: mispc " NAME " --dist --help)."

/* The --priority option: the words of CLI_PRIORITY_WORDS in the order of
 * the table of cli_priority, which maps a CLI_CHOICE index to the priority
 * (index < 0, the option not given: MISPC_PRIORITY_DEFAULT). */
#define CLI_PRIORITY_WORDS "degree|largest-degree|hash|per-round|default|cover"
mispc_priority cli_priority(int index);
/* Logger that prints library progress lines to stderr. */
void cli_log(void *user, const char *line);

int cmd_info(int argc, char **argv);
int cmd_mis(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_coarsen(int argc, char **argv);
int cmd_color(int argc, char **argv);
int cmd_bench_agg(int argc, char **argv);
int cmd_bench_gs(int argc, char **argv);

#endif
