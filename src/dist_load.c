/* mispc_dist_load: graph specs read into even row ranges. Every generator
 * makes only this rank's rows (weak scaling with no input file): stencils
 * (the anisotropic ones included), road grids and elasticity row by row,
 * Kronecker and random graphs by drawing every edge and sorting and
 * keeping only this rank's; MatrixMarket, METIS and PETSc binary files are
 * read by row ranges; other inputs are read whole and cut. */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"
#include "mispc/generate.h"
#include "mispc/io.h"
#include "io_petsc.h"
#include "io_rows.h"
#include "stencil.h"

static int ends_with(const char *s, size_t len, const char *suffix) {
  const size_t k = strlen(suffix);
  return len >= k && !strcmp(s + len - k, suffix);
}

/* Even split of n rows over P ranks. */
static void even_range(int64_t n, MPI_Comm comm, int64_t *r0, int64_t *r1) {
  int P = 1, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  *r0 = n * rank / P;
  *r1 = n * (rank + 1) / P;
}

mispc_status mispc_dist_load(mispc_context *ctx, MPI_Comm comm, const char *spec, int symmetrize,
                             mispc_dist_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!out) /* the other ranks wait in the first agreement below: fail there */
    return mispc_dist_agree(
        ctx, comm, mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_load: output is NULL"));
  memset(out, 0, sizeof *out);
  mispc_status s =
      spec ? MISPC_SUCCESS : mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_load: NULL spec");
  s = mispc_dist_agree(ctx, comm, s);
  if (s) return s;
  /* Generators (all symmetric: symmetrize changes nothing): stencils, road
   * grids and elasticity make this rank's rows, Kronecker and random graphs
   * draw every edge and sort and keep only this rank's rows. */
  mispc_gen_ranged ge;
  s = mispc_dist_agree(ctx, comm, mispc_gen_ranged_spec(ctx, spec, &ge));
  if (s) return s;
  if (ge.kind != MISPC_GEN_RANGED_NONE) {
    int64_t r0 = 0, r1 = 0, *rowptr = NULL, *gcol = NULL;
    double *val = NULL;
    /* arguments out of range get the generator's message (from any range) */
    even_range(ge.n, comm, &r0, &r1);
    s = mispc_dist_agree(ctx, comm,
                         mispc_gen_ranged_rows(ctx, &ge, 0, r0, r1, &rowptr, &gcol, &val));
    if (!s) s = mispc_dist_csr_from_global(ctx, comm, ge.n, r0, r1, rowptr, gcol, val, out);
    free(val);
    free(rowptr);
    free(gcol);
    return s;
  }
  /* PETSc binary files: each rank reads its own rows (three seeks). */
  const size_t len = strlen(spec);
  if (!symmetrize &&
      ((len > 6 && !strcmp(spec + len - 6, ".petsc")) || mispc_is_petsc_binary(spec))) {
    int64_t nr = 0, nc = 0, nz = 0, r0 = 0, r1 = 0, *rowptr = NULL, *gcol = NULL;
    double *val = NULL;
    s = mispc_petsc_header(ctx, spec, &nr, &nc, &nz);
    if (!s && nr != nc)
      s = mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "%s: %lld x %lld is not square", spec,
                       (long long)nr, (long long)nc);
    if (!s) even_range(nr, comm, &r0, &r1);
    if (!s) s = mispc_petsc_read_rows(ctx, spec, r0, r1, &rowptr, &gcol, &val);
    s = mispc_dist_agree(ctx, comm, s);
    if (!s) s = mispc_dist_csr_from_global(ctx, comm, nr, r0, r1, rowptr, gcol, val, out);
    free(rowptr), free(gcol), free(val);
    return s;
  }
  /* MatrixMarket and METIS files: every rank reads the sizes for the split,
   * then parses the whole file (checking it as mispc_load does) and keeps
   * its rows: memory follows the rows, I/O time the file. */
  const int is_mtx =
      !symmetrize && (ends_with(spec, len, ".mtx") || ends_with(spec, len, ".mtx.gz"));
  const int is_metis =
      !symmetrize && (ends_with(spec, len, ".graph") || ends_with(spec, len, ".metis") ||
                      ends_with(spec, len, ".graph.gz") || ends_with(spec, len, ".metis.gz"));
  if (is_mtx || is_metis) {
    int64_t nr = 0, nc = 0, r0 = 0, r1 = 0;
    mispc_csr R;
    memset(&R, 0, sizeof R);
    if (is_mtx) {
      s = mispc_read_mtx_sizes(ctx, spec, &nr, &nc);
    } else {
      s = mispc_read_metis_sizes(ctx, spec, &nr);
      nc = nr;
    }
    if (!s && nr != nc)
      s = mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "%s: %lld x %lld is not square", spec,
                       (long long)nr, (long long)nc);
    if (!s) even_range(nr, comm, &r0, &r1);
    if (!s)
      s = is_mtx ? mispc_read_mtx_rows(ctx, spec, r0, r1, &nr, &nc, &R)
                 : mispc_read_metis_rows(ctx, spec, r0, r1, &nr, &R);
    int64_t *gcol = NULL;
    if (!s) {
      gcol = (int64_t *)mispc_host_alloc_n(ctx, R.nnz + 1, sizeof(int64_t), "columns");
      if (!gcol) s = MISPC_ERR_ALLOC;
      for (int64_t k = 0; !s && k < R.nnz; ++k) gcol[k] = R.colidx[k];
    }
    s = mispc_dist_agree(ctx, comm, s);
    if (!s) s = mispc_dist_csr_from_global(ctx, comm, nr, r0, r1, R.rowptr, gcol, R.values, out);
    free(gcol);
    mispc_csr_free(ctx, &R);
    return s;
  }
  mispc_csr A, S;
  memset(&A, 0, sizeof A);
  memset(&S, 0, sizeof S);
  s = mispc_load(ctx, spec, &A);
  if (!s && symmetrize) {
    s = mispc_csr_symmetrize(ctx, &A, 0, &S);
    mispc_csr_free(ctx, &A);
    A = S;
  }
  if (!s && A.nrows != A.ncols)
    s = mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "%s: %lld x %lld is not square", spec,
                     (long long)A.nrows, (long long)A.ncols);
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) {
    int64_t r0, r1;
    even_range(A.nrows, comm, &r0, &r1);
    s = mispc_dist_csr_from_rows(ctx, comm, &A, r0, r1, out);
  }
  mispc_csr_free(ctx, &A);
  return s;
}
