/* The argument parser of the mispc tool (cli_args.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"

/* A number starts with a digit, a sign or a point: no blanks, "inf" or "nan". */
static int number_start(const char *arg) {
  return arg &&
         (arg[0] == '-' || arg[0] == '+' || arg[0] == '.' || (arg[0] >= '0' && arg[0] <= '9'));
}

int cli_parse_int(const char *cmd, const char *opt, const char *arg, long long lo, long long hi,
                  long long *out) {
  char *end = NULL;
  errno = 0;
  long long v = number_start(arg) ? strtoll(arg, &end, 10) : 0;
  if (!number_start(arg) || errno || !end || *end || v < lo || v > hi) {
    fprintf(stderr, "mispc %s: %s takes an integer from %lld to %lld, got '%s'\n", cmd, opt, lo, hi,
            arg ? arg : "");
    return 0;
  }
  *out = v;
  return 1;
}

int cli_parse_i(const char *cmd, const char *opt, const char *arg, int lo, int hi, int *out) {
  long long v;
  if (!cli_parse_int(cmd, opt, arg, lo, hi, &v)) return 0;
  *out = (int)v;
  return 1;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *arg, unsigned long long *out) {
  char *end = NULL;
  errno = 0;
  int ok = arg && arg[0] >= '0' && arg[0] <= '9'; /* strtoull accepts "-1" */
  unsigned long long v = ok ? strtoull(arg, &end, 10) : 0;
  if (!ok || errno || !end || *end) {
    fprintf(stderr, "mispc %s: %s takes an integer from 0 to %llu, got '%s'\n", cmd, opt,
            (unsigned long long)UINT64_MAX, arg ? arg : "");
    return 0;
  }
  *out = v;
  return 1;
}

int cli_parse_real(const char *cmd, const char *opt, const char *arg, double lo, double hi,
                   double *out) {
  char *end = NULL;
  errno = 0;
  double v = number_start(arg) ? strtod(arg, &end) : 0;
  if (!number_start(arg) || errno || !end || *end || !isfinite(v) || v < lo || v > hi) {
    fprintf(stderr, "mispc %s: %s takes a number from %g to %g, got '%s'\n", cmd, opt, lo, hi,
            arg ? arg : "");
    return 0;
  }
  *out = v;
  return 1;
}

/* Index of ARG among the '|'-separated WORDS, or -1. */
static int choice_index(const char *words, const char *arg) {
  size_t n = strlen(arg);
  int i = 0;
  for (const char *w = words; w; ++i) {
    const char *bar = strchr(w, '|');
    size_t len = bar ? (size_t)(bar - w) : strlen(w);
    if (len == n && !strncmp(w, arg, n)) return i;
    w = bar ? bar + 1 : NULL;
  }
  return -1;
}

/* "mispc CMD: OPT takes a, b or c, got 'ARG'" */
static void choice_error(const char *cmd, const cli_opt *o, const char *arg) {
  fprintf(stderr, "mispc %s: %s takes ", cmd, o->name);
  int count = 1;
  for (const char *w = o->value; (w = strchr(w, '|')); ++w) ++count;
  int i = 0;
  for (const char *w = o->value; w; ++i) {
    const char *bar = strchr(w, '|');
    int len = bar ? (int)(bar - w) : (int)strlen(w);
    fprintf(stderr, "%s%.*s", i == 0 ? "" : i == count - 1 ? " or " : ", ", len, w);
    w = bar ? bar + 1 : NULL;
  }
  fprintf(stderr, ", got '%s'\n", arg);
}

/* Takes the value TEXT of option O; 0 after a message when it is not one. */
static int take_value(const char *cmd, const cli_opt *o, const char *text) {
  switch (o->kind) {
  case CLI_INT:
    return cli_parse_i(cmd, o->name, text, (int)o->lo, (int)o->hi, (int *)o->out);
  case CLI_LLONG:
    return cli_parse_int(cmd, o->name, text, o->lo, o->hi, (long long *)o->out);
  case CLI_SEED: {
    unsigned long long v;
    if (!cli_parse_u64(cmd, o->name, text, &v)) return 0;
    *(uint64_t *)o->out = (uint64_t)v;
    return 1;
  }
  case CLI_REAL:
    return cli_parse_real(cmd, o->name, text, o->rlo, o->rhi, (double *)o->out);
  case CLI_TEXT:
    *(const char **)o->out = text;
    return 1;
  case CLI_CHOICE: {
    int i = choice_index(o->value, text);
    if (i < 0) {
      choice_error(cmd, o, text);
      return 0;
    }
    *(int *)o->out = i;
    return 1;
  }
  case CLI_CALL:
    return o->call(o->user, cmd, text);
  case CLI_FLAG:
    break;
  }
  return 0;
}

static void usage_line(const cli_command *c, FILE *f) {
  if (c->full_usage)
    fprintf(f, "usage: %s\n", c->synopsis);
  else
    fprintf(f, "usage: mispc %s %s\n", c->name, c->synopsis);
}

static void error_hint(const cli_command *c) {
  usage_line(c, stderr);
  fprintf(stderr, "(mispc %s --help lists the options)\n", c->name);
}

int cli_args_parse(const cli_command *c, int argc, char **argv, int first, const char **pos,
                   int *npos) {
  *npos = 0;
  for (int a = first; a < argc; ++a) {
    const char *s = argv[a];
    if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
      cli_args_help(c, stdout);
      return CLI_ARGS_HELP;
    }
    const cli_opt *o = NULL;
    for (int i = 0; i < c->nopts && !o; ++i)
      if (!strcmp(s, c->opts[i].name)) o = &c->opts[i];
    if (o && o->kind == CLI_FLAG) {
      *(int *)o->out = (int)o->lo;
    } else if (o) {
      if (a + 1 >= argc) {
        fprintf(stderr, "mispc %s: %s needs a value (%s %s)\n", c->name, s, s, o->value);
        error_hint(c);
        return CLI_ARGS_ERROR;
      }
      if (!take_value(c->name, o, argv[++a])) return CLI_ARGS_ERROR;
    } else if (s[0] != '-' && *npos < c->max_pos) {
      pos[(*npos)++] = s;
    } else {
      fprintf(stderr, "mispc %s: unexpected argument '%s'\n", c->name, s);
      error_hint(c);
      return CLI_ARGS_ERROR;
    }
  }
  if (*npos < c->min_pos) {
    fprintf(stderr, "mispc %s: %s\n", c->name, c->no_operand ? c->no_operand : "missing operand");
    error_hint(c);
    return CLI_ARGS_ERROR;
  }
  return CLI_ARGS_OK;
}

/* TEXT line by line, each line after the first indented by INDENT. */
static void lines(FILE *f, const char *text, int indent) {
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    int len = nl ? (int)(nl - p) : (int)strlen(p);
    fprintf(f, "%.*s\n", len, p);
    if (!nl || !nl[1]) break;
    p = nl + 1;
    fprintf(f, "%*s", indent, "");
  }
}

void cli_args_help(const cli_command *c, FILE *f) {
  usage_line(c, f);
  if (c->about) {
    fprintf(f, "  ");
    lines(f, c->about, 2);
  }
  if (c->nopts) fprintf(f, "options:\n");
  for (int i = 0; i < c->nopts; ++i) {
    const cli_opt *o = &c->opts[i];
    char head[64];
    snprintf(head, sizeof head, "%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
    if (strlen(head) > 18)
      fprintf(f, "  %s\n  %-18s ", head, "");
    else
      fprintf(f, "  %-18s ", head);
    lines(f, o->help, 21);
  }
  fprintf(f, "  %-18s %s\n", "-h, --help", "this text");
  if (c->notes) lines(f, c->notes, 0);
  if (c->more_help) c->more_help(f);
  if (c->example) {
    fprintf(f, "example:\n  ");
    lines(f, c->example, 2);
  }
}
