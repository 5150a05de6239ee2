/* Fuzz target: the generator-spec parser (mispc_load on "gen:" + input).
 * Only small graphs are built: a spec whose size argument is above 24 (10
 * for kron's scale) or whose second argument is above 64 is skipped, since
 * a large valid spec is slow by design, not a defect. Everything else
 * (names, argument syntax, counts, signs, NaN and Inf, empty fields) goes
 * through. */
#include <math.h>

#include "fuzz_util.h"

/* The value of field k (0: the name) of spec, or 0 when it is no number. */
static double field(const char *spec, int k) {
  const char *s = spec;
  for (int i = 0; i < k && s; ++i) {
    s = strchr(s, ':');
    if (s) ++s;
  }
  if (!s) return 0;
  double v = strtod(s, NULL);
  return isnan(v) ? 0 : fabs(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256) return 0;
  char spec[4 + 256 + 1] = "gen:";
  memcpy(spec + 4, data, size);
  spec[4 + size] = '\0';
  const int kron = strncmp(spec + 4, "kron", 4) == 0;
  if (field(spec + 4, 1) > (kron ? 10 : 24) || field(spec + 4, 2) > 64) return 0;
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) abort();
  mispc_csr A;
  fuzz_check_result(ctx, mispc_load(ctx, spec, &A), &A, MISPC_CHECK_INDICES);
  mispc_context_destroy(ctx);
  return 0;
}
