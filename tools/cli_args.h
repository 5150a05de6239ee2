/* The one argument parser of the mispc tool: the commands (cli/) and the
 * benchmarks (bench/) describe their options in a table, and this module
 * parses argv against it, checks every value, names the bad argument in its
 * message, and prints the --help text (options, notes, an example) from the
 * same table. Part of the tool, not of the library. */
#ifndef MISPC_CLI_ARGS_H
#define MISPC_CLI_ARGS_H

#include <stdint.h>
#include <stdio.h>

typedef enum cli_arg_kind {
  CLI_FLAG,   /* no value: *(int *)out = (int)lo */
  CLI_INT,    /* an integer in [lo, hi]: *(int *)out */
  CLI_LLONG,  /* an integer in [lo, hi]: *(long long *)out */
  CLI_SEED,   /* any 64-bit unsigned integer: *(uint64_t *)out */
  CLI_REAL,   /* a finite number in [rlo, rhi]: *(double *)out */
  CLI_TEXT,   /* any text (a file name): *(const char **)out */
  CLI_CHOICE, /* one of the '|'-separated words of value: its index, *(int *)out */
  CLI_CALL    /* call(user, cmd, text): 1 takes it, 0 rejects it (call printed why) */
} cli_arg_kind;

typedef struct cli_opt {
  const char *name;  /* "--reps", "-k" */
  const char *value; /* the value in the help text ("N"); CLI_CHOICE: the words; flags: NULL */
  const char *help;  /* one or more lines ('\n' between them) */
  cli_arg_kind kind;
  void *out;
  long long lo, hi; /* CLI_INT, CLI_LLONG: the range; CLI_FLAG: lo is the value stored */
  double rlo, rhi;  /* CLI_REAL: the range */
  int (*call)(void *user, const char *cmd, const char *text);
  void *user;
} cli_opt;

/* One table entry of each kind: NAME, the VALUE's name in the help text,
 * HELP, where the value goes, and its range. */
#define CLI_OPT_FLAG(NAME, HELP, OUT, VALUE)                                                       \
  { .name = NAME, .help = HELP, .kind = CLI_FLAG, .out = OUT, .lo = VALUE }
#define CLI_OPT_INT(NAME, VALUE, HELP, OUT, LO, HI)                                                \
  { .name = NAME, .value = VALUE, .help = HELP, .kind = CLI_INT, .out = OUT, .lo = LO, .hi = HI }
#define CLI_OPT_LLONG(NAME, VALUE, HELP, OUT, LO, HI)                                              \
  { .name = NAME, .value = VALUE, .help = HELP, .kind = CLI_LLONG, .out = OUT, .lo = LO, .hi = HI }
#define CLI_OPT_SEED(NAME, VALUE, HELP, OUT)                                                       \
  { .name = NAME, .value = VALUE, .help = HELP, .kind = CLI_SEED, .out = OUT }
#define CLI_OPT_REAL(NAME, VALUE, HELP, OUT, LO, HI)                                               \
  { .name = NAME, .value = VALUE, .help = HELP, .kind = CLI_REAL, .out = OUT, .rlo = LO, .rhi = HI }
#define CLI_OPT_TEXT(NAME, VALUE, HELP, OUT)                                                       \
  { .name = NAME, .value = VALUE, .help = HELP, .kind = CLI_TEXT, .out = OUT }
#define CLI_OPT_CHOICE(NAME, WORDS, HELP, OUT)                                                     \
  { .name = NAME, .value = WORDS, .help = HELP, .kind = CLI_CHOICE, .out = OUT }
#define CLI_OPT_CALL(NAME, VALUE, HELP, CALL, USER)                                                \
  { .name = NAME, .value = VALUE, .help = HELP, .kind = CLI_CALL, .call = CALL, .user = USER }

typedef struct cli_command {
  const char *name;     /* as in messages: "mispc NAME: ..." ("mis", "bench gs") */
  const char *synopsis; /* after "usage: mispc NAME " (or after "usage: " with full_usage) */
  const char *about;    /* what the command does, before the options (or NULL) */
  const cli_opt *opts;
  int nopts;
  int min_pos, max_pos;       /* how many operands (SPEC ...) it takes */
  const char *no_operand;     /* the message when fewer than min_pos are given */
  const char *notes;          /* after the options (or NULL) */
  void (*more_help)(FILE *f); /* prints more after the notes (or NULL) */
  const char *example;        /* one command line a line */
  int full_usage;             /* 1: synopsis is the whole usage line (mpiexec ...) */
} cli_command;

enum { CLI_ARGS_OK = 0, CLI_ARGS_HELP = 1, CLI_ARGS_ERROR = 2 };

/* Parses argv[first .. argc) against c: each option of c (with its value as
 * the next argument), -h / --help, and up to c->max_pos operands (arguments
 * not starting with '-') into pos[0 .. *npos). Returns CLI_ARGS_OK;
 * CLI_ARGS_HELP after printing the help on stdout (exit 0); CLI_ARGS_ERROR
 * after printing one line that names the bad argument, and a usage hint, on
 * stderr (exit 2). */
int cli_args_parse(const cli_command *c, int argc, char **argv, int first, const char **pos,
                   int *npos);
/* The --help text of c. */
void cli_args_help(const cli_command *c, FILE *f);

/* Strict number parsing, used by the table kinds above and by callers with
 * a value of their own: the whole of ARG must be the number (no trailing
 * characters, no blanks, no overflow) and lie in [lo, hi]. Otherwise prints
 * "mispc CMD: OPT takes WHAT from LO to HI, got 'ARG'" to stderr and returns
 * 0; 1 on success. cli_parse_u64 takes any 64-bit unsigned value (seeds);
 * cli_parse_real takes finite numbers only. */
int cli_parse_int(const char *cmd, const char *opt, const char *arg, long long lo, long long hi,
                  long long *out);
int cli_parse_i(const char *cmd, const char *opt, const char *arg, int lo, int hi, int *out);
int cli_parse_u64(const char *cmd, const char *opt, const char *arg, unsigned long long *out);
int cli_parse_real(const char *cmd, const char *opt, const char *arg, double lo, double hi,
                   double *out);

#endif
