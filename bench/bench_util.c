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
  fprintf(f, "  --tune NAME=VALUE  a tuning knob, repeatable (changes speed, never a result;\n"
             "                     src/tuning.h); 0 or auto is the library's own choice:\n");
  for (int i = 0; mispc_tuning_knob_(i, &name, &values, &what); ++i)
    fprintf(f, "    %s=%-20s %s\n", name, values, what);
}
