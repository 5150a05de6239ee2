/* Pieces shared by the benchmark commands (host code, no CUDA). */
#ifndef MISPC_BENCH_UTIL_H
#define MISPC_BENCH_UTIL_H

#include <stdio.h>

#include "tuning.h"

/* Median of v[0..n) (sorts v in place). */
double bench_median(double *v, int n);

/* "# mispc bench WHAT  device: ...  date: ..." and "# command: ..." lines. */
void bench_print_header(const char *what, int argc, char **argv);

/* The knobs of the --tune NAME=VALUE option (src/tuning.h), for help texts. */
void bench_print_tuning_help(FILE *f);
/* Sets one knob of *t from "NAME=VALUE"; 0 (and a message on stderr naming
 * WHO, the argument and what is wrong with it) when it is not one. */
int bench_parse_tune(const char *who, const char *arg, mispc_tuning *t);
/* bench_parse_tune as a CLI_CALL option (cli_args.h): user is the mispc_tuning. */
int bench_tune_option(void *user, const char *cmd, const char *arg);

#endif
