/* Shared pieces of the mispc command-line tool. */
#ifndef MISPC_CLI_H
#define MISPC_CLI_H

#include <stdio.h>

#include "mispc/mispc.h"

/* Prints "mispc: WHAT: status (context message)" to stderr; returns 1. */
int cli_fail(mispc_context *ctx, const char *what, mispc_status s);
/* Loads SPEC (file or gen:...) on the host, printing progress when verbose. */
int cli_load(mispc_context *ctx, const char *spec, int symmetrize, mispc_csr *A);
/* Creates the context of a command: verbosity (progress to stderr), host
 * threads, and the backend (*use_gpu < 0: GPU when one is visible). Prints
 * why and returns 1 when --gpu was asked for without a GPU. */
int cli_context(const char *cmd, int verbose, int threads, int *use_gpu, mispc_context **ctx);
/* Strict number parsing for every numeric option: the whole of ARG must be
 * the number (no trailing characters, no blanks, no overflow) and lie in
 * [lo, hi]. Otherwise prints "mispc CMD: OPT takes WHAT from LO to HI, got
 * 'ARG'" to stderr and returns 0 (the caller exits with 2); 1 on success.
 * cli_parse_u64 takes any 64-bit unsigned value (seeds); cli_parse_real
 * takes finite numbers only. */
int cli_parse_int(const char *cmd, const char *opt, const char *arg, long long lo, long long hi,
                  long long *out);
int cli_parse_u64(const char *cmd, const char *opt, const char *arg, unsigned long long *out);
int cli_parse_real(const char *cmd, const char *opt, const char *arg, double lo, double hi,
                   double *out);
/* cli_parse_int into an int. */
int cli_parse_i(const char *cmd, const char *opt, const char *arg, int lo, int hi, int *out);
/* Closes F after writing PATH; prints "mispc CMD: cannot write PATH: reason"
 * and returns 1 when a write or the close failed (disk full, ...), else 0. */
int cli_close_output(const char *cmd, FILE *f, const char *path);

/* "degree" | "largest-degree" | "hash" | "per-round" | "default" -> *p; 0 if unknown. */
int parse_priority(const char *s, mispc_priority *p);
/* Logger that prints library progress lines to stderr. */
void cli_log(void *user, const char *line);

int cmd_info(int argc, char **argv);
int cmd_mis(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_coarsen(int argc, char **argv);
int cmd_color(int argc, char **argv);

#endif
