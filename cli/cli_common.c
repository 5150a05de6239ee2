#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

mispc_priority cli_priority(int index) {
  static const mispc_priority p[] = {MISPC_PRIORITY_DEGREE,  MISPC_PRIORITY_LARGEST_DEGREE,
                                     MISPC_PRIORITY_HASH,    MISPC_PRIORITY_HASH_PER_ROUND,
                                     MISPC_PRIORITY_DEFAULT, MISPC_PRIORITY_COVER};
  return index >= 0 && index < (int)(sizeof p / sizeof p[0]) ? p[index] : MISPC_PRIORITY_DEFAULT;
}

int cli_close_output(const char *cmd, FILE *f, const char *path) {
  int bad = ferror(f);
  errno = 0;
  if (fclose(f)) bad = 1;
  if (!bad) return 0;
  fprintf(stderr, "mispc %s: cannot write %s: %s\n", cmd, path,
          errno ? strerror(errno) : "write error");
  return 1;
}

int cli_fail(mispc_context *ctx, const char *what, mispc_status s) {
  const char *msg = mispc_context_error(ctx);
  fprintf(stderr, "mispc: %s: %s\n", what, msg && *msg ? msg : mispc_strerror(s));
  return 1;
}

void cli_log(void *user, const char *line) {
  (void)user;
  fprintf(stderr, "  %s\n", line);
}

int cli_load(mispc_context *ctx, const char *spec, int symmetrize, mispc_csr *A) {
  double t0 = mispc_wtime();
  if (mispc_context_verbosity(ctx) > 0) fprintf(stderr, "loading %s ...\n", spec);
  mispc_status s = mispc_load(ctx, spec, A);
  if (s) return cli_fail(ctx, spec, s);
  if (symmetrize) {
    mispc_csr S;
    s = mispc_csr_symmetrize(ctx, A, 0, &S);
    if (s) return cli_fail(ctx, "symmetrize", s);
    mispc_csr_free(ctx, A);
    *A = S;
  }
  if (mispc_context_verbosity(ctx) > 0)
    fprintf(stderr, "loaded %s: %lld rows, %lld entries in %.2f s\n", spec, (long long)A->nrows,
            (long long)A->nnz, mispc_wtime() - t0);
  return 0;
}

int cli_context(const char *cmd, int verbose, int threads, int *use_gpu, mispc_context **ctx) {
  if (mispc_context_create(ctx)) return 1;
  mispc_context_set_verbosity(*ctx, verbose);
  mispc_context_set_logger(*ctx, cli_log, NULL);
  mispc_status s = mispc_context_set_num_threads(*ctx, threads);
  if (s) {
    cli_fail(*ctx, "--threads", s);
    mispc_context_destroy(*ctx);
    *ctx = NULL;
    return 1;
  }
  if (*use_gpu < 0) *use_gpu = mispc_have_gpu();
  if (*use_gpu && !mispc_have_gpu()) {
    fprintf(stderr, "mispc %s: --gpu given but no GPU is visible (built with CUDA: %s)\n", cmd,
            mispc_built_with_cuda() ? "yes" : "no");
    mispc_context_destroy(*ctx);
    *ctx = NULL;
    return 1;
  }
  return 0;
}
