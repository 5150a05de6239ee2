/* mispc_csr_from_coo (internal, so this test links mispc_internal): rows
 * sorted, repeats merged and diagonals dropped as asked, against a dense
 * reference. */
#include <stdint.h>
#include <string.h>

#include "mis_test_graphs.h" /* mispc_csr_from_coo (csr_build.h) */
#include "test_util.h"

static mispc_context *ctx;

/* mispc_csr_from_coo of a pattern (no values: rows sorted by an integer
 * sort) and of values (a stable sort, repeats summed in input order),
 * against a row-by-row reference: rows of 0 to 40 entries (both sides of
 * the insertion sort's 16), repeats, diagonal entries kept or dropped,
 * mirrored or not. */
static void test_coo_rows(void) {
  enum { N = 60, M = 1500 };
  int32_t I[M], J[M];
  double V[M];
  uint64_t h = 12345;
  for (int k = 0; k < M; ++k) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    const int r = (int)((h >> 33) % N);
    /* rows r < 20 get few entries, the others many, some repeated */
    I[k] = r < 20 && k % 7 ? (int32_t)(20 + (h >> 20) % 40) : (int32_t)r;
    J[k] = (int32_t)((h >> 45) % (k % 5 ? N : 8)); /* repeats among columns 0..7 */
    V[k] = (double)(k % 13) - 6.0;
  }
  for (int flags = 0; flags < 4; ++flags)
    for (int with_values = 0; with_values < 2; ++with_values) {
      mispc_csr A;
      CHECK_OK(ctx, mispc_csr_from_coo(ctx, N, N, M, I, J, with_values ? V : NULL, flags, &A));
      /* reference: dense rows, entries in input order (mirrors after all) */
      static double ref[N][N];
      static int has[N][N];
      memset(ref, 0, sizeof ref);
      memset(has, 0, sizeof has);
      for (int pass = 0; pass < 2; ++pass)
        for (int k = 0; k < M; ++k) {
          int32_t r = I[k], c = J[k];
          if (pass) { /* the mirrored entries */
            if (!(flags & MISPC_COO_SYMMETRIC) || r == c) continue;
            r = J[k], c = I[k];
          }
          if ((flags & MISPC_COO_DROP_DIAG) && r == c) continue;
          has[r][c] = 1;
          ref[r][c] += V[k];
        }
      int64_t nnz = 0, bad = 0;
      for (int r = 0; r < N; ++r) {
        int64_t q = A.rowptr[r];
        for (int c = 0; c < N; ++c) {
          if (!has[r][c]) continue;
          ++nnz;
          if (q >= A.rowptr[r + 1] || A.colidx[q] != c) {
            ++bad;
            continue;
          }
          if (with_values && A.values[q] != ref[r][c]) ++bad;
          ++q;
        }
        if (q != A.rowptr[r + 1]) ++bad;
      }
      CHECK_MSG(bad == 0 && nnz == A.nnz && (A.values != NULL) == with_values,
                "coo rows, flags %d, values %d: %lld wrong, %lld against %lld entries", flags,
                with_values, (long long)bad, (long long)A.nnz, (long long)nnz);
      mispc_csr_free(ctx, &A);
    }
}

int main(void) {
  if (mispc_context_create(&ctx) != MISPC_SUCCESS) return 1;
  RUN_TEST(test_coo_rows);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
