/* mispc info: what a matrix or graph looks like. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *tri(int v) {
  return v < 0 ? "unknown" : v ? "yes" : "no";
}

int cmd_info(int argc, char **argv) {
  const char *specs[64];
  const cli_command cmd = {
      .name = "info",
      .synopsis = "SPEC...",
      .about = "Prints rows, columns, entries, degree min/avg/max, empty rows, self loops,\n"
               "pattern/value symmetry and diagonal dominance of each matrix or graph\n"
               "(at most 64; a file or gen:..., mispc --help lists them).",
      .min_pos = 1,
      .max_pos = 64,
      .no_operand = "no matrix or graph given (a file or gen:...)",
      .example = "mispc info tests/data/bcsstk13.mtx gen:elasticity3d:10",
  };
  int nspecs = 0, rc = cli_args_parse(&cmd, argc, argv, 1, specs, &nspecs);
  if (rc) return rc == CLI_ARGS_HELP ? 0 : 2;
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) return 1;
  for (int a = 0; a < nspecs && !rc; ++a) {
    mispc_csr A;
    if ((rc = cli_load(ctx, specs[a], 0, &A))) break;
    mispc_csr_stats st;
    mispc_status s = mispc_csr_get_stats(ctx, &A, &st);
    if (s) {
      rc = cli_fail(ctx, "stats", s);
    } else {
      printf("%s\n", specs[a]);
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
