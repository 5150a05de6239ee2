/* Shared benchmark helpers: medians and the header every benchmark prints. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_gpu.h"
#include "bench_util.h"
#include "tuning.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return v[n / 2];
}

void bench_print_header(const char *what, int argc, char **argv) {
  char dev[256];
  bench_device_name(dev, sizeof dev);
  time_t now = time(NULL);
  printf("# mispc bench %s  device: %s  date: %s", what, dev, ctime(&now));
  printf("# command:");
  for (int a = 0; a < argc; ++a) printf(" %s", argv[a]);
  printf("\n");
}

void bench_print_tuning_help(FILE *f) {
  const char *name, *values, *what;
  fprintf(f, "tuning knobs (--tune NAME=VALUE, repeatable; they change speed, never a result;\n"
             "src/tuning.h); 0 or auto is the library's own choice:\n");
  for (int i = 0; mispc_tuning_knob_(i, &name, &values, &what); ++i) {
    char nv[64];
    snprintf(nv, sizeof nv, "%s=%s", name, values);
    fprintf(f, "    %-32s %s\n", nv, what);
  }
}

int bench_parse_tune(const char *who, const char *arg, mispc_tuning *t) {
  mispc_context *ctx = NULL; /* for the message only (no device work) */
  mispc_context_create(&ctx);
  const mispc_status s = mispc_tuning_parse_(ctx, t, arg);
  if (s)
    fprintf(stderr, "mispc %s: --tune %s: %s\n", who, arg,
            ctx ? mispc_context_error(ctx) : mispc_strerror(s));
  mispc_context_destroy(ctx);
  return s == MISPC_SUCCESS;
}

int bench_tune_option(void *user, const char *cmd, const char *arg) {
  return bench_parse_tune(cmd, arg, (mispc_tuning *)user);
}
