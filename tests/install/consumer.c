/* Uses the installed headers and library: MIS-2 of a small Laplacian. */
#include <stdio.h>
#include <stdlib.h>

#include "mispc/mispc.h"

int main(void) {
  mispc_context *ctx;
  mispc_csr A;
  if (mispc_context_create(&ctx) || mispc_generate(ctx, "gen:laplace3d:10", 0, &A)) return 1;
  uint8_t *set = malloc((size_t)A.nrows);
  mispc_mis_result r;
  mispc_status s = mispc_mis2(ctx, &A, NULL, set, &r);
  if (!s) s = mispc_verify_mis(ctx, &A, 2, set);
  printf("consumer: MIS-2 of %lld vertices has %lld members: %s\n", (long long)A.nrows,
         (long long)r.set_size, mispc_strerror(s));
  free(set);
  mispc_csr_free(ctx, &A);
  mispc_context_destroy(ctx);
  return s != MISPC_SUCCESS;
}
