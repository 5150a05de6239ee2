/* mispc info: what a matrix or graph looks like. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *tri(int v) {
  return v < 0 ? "unknown" : v ? "yes" : "no";
}

int cmd_info(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help")) {
    printf("usage: mispc info SPEC...\n  prints rows, entries, degree min/avg/max, self loops,\n"
           "  pattern/value symmetry and diagonal dominance of each matrix or graph\n");
    return argc < 2 ? 2 : 0;
  }
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) return 1;
  int rc = 0;
  for (int a = 1; a < argc && !rc; ++a) {
    mispc_csr A;
    if ((rc = cli_load(ctx, argv[a], 0, &A))) break;
    mispc_csr_stats st;
    mispc_status s = mispc_csr_get_stats(ctx, &A, &st);
    if (s) {
      rc = cli_fail(ctx, "stats", s);
    } else {
      printf("%s\n", argv[a]);
      printf("  rows          %lld\n", (long long)st.nrows);
      printf("  columns       %lld\n", (long long)st.ncols);
      printf("  entries       %lld\n", (long long)st.nnz);
      printf("  degree        min %lld  avg %.2f  max %lld\n", (long long)st.deg_min, st.deg_avg,
             (long long)st.deg_max);
      printf("  empty rows    %lld\n", (long long)st.empty_rows);
      printf("  self loops    %lld\n", (long long)st.self_loops);
      printf("  symmetric     pattern %s, values %s\n", tri(st.symmetric_pattern),
             A.values ? tri(st.symmetric_values) : "n/a (pattern)");
      if (A.values)
        printf("  diag. dominant %lld rows (strictly %lld) of %lld\n", (long long)st.dd_rows,
               (long long)st.strict_dd_rows, (long long)st.nrows);
    }
    mispc_csr_free(ctx, &A);
  }
  mispc_context_destroy(ctx);
  return rc;
}
