/* mispc's main job under PETSc: solve a built-in Laplace3D / Elasticity3D
 * system (or a matrix from a file) with CG or GMRES under a list of
 * preconditioners, and print one table (iterations, setup and solve time,
 * true residual).
 *
 *   solve [-problem laplace3d|elasticity3d] [-n N] [-f FILE|gen:SPEC]
 *         [-pcs jacobi,sor,mcgs,clustergs,clustergs-block,gamg,gamg-mis2agg,...]
 *         [-ksp_type cg|gmres]
 *         [-ksp_rtol 1e-8] [any PETSc option, e.g. -mat_type aijcusparse -vec_type cuda]
 *
 * b = A * ones, x0 = 0. FILE: PETSc binary, or .mtx/.mtx.gz/METIS through
 * mispc_load. Run with -help for the list of table entries. */
#include <petscksp.h>

#include "mispc/mispc.h"
#include "mispc_petsc.h"
#include "petsc_compat.h"

typedef struct {
  const char *name, *pc, *options, *help;
} Entry;

/* Options of an entry are set for its solve only (unless the user set them). */
static const Entry entries[] = {
    {"jacobi", "jacobi", "", "point Jacobi"},
    {"sor", "sor", "", "PETSc SOR (host; local symmetric sweeps)"},
    {"mcgs", "mcgs", "", "mispc point multicolor SGS"},
    {"clustergs", "clustergs", "", "mispc cluster multicolor SGS"},
    {"clustergs-block", "clustergs",
     "-pc_clustergs_strength_threshold -1 -pc_clustergs_block_solve true",
     "mispc cluster SGS, automatic clusters solved exactly (block GS)"},
    {"clustergs-lines", "clustergs",
     "-pc_clustergs_strength_threshold -1 -pc_clustergs_line_clusters true "
     "-pc_clustergs_block_solve true",
     "mispc cluster SGS, clusters grown along lines and solved exactly (line GS)"},
    {"gamg", "gamg", "", "PETSc GAMG, default configuration"},
    {"gamg-mis2agg", "gamg", MISPC_GAMG_COARSEN_OPTION " mis2agg -pc_gamg_aggressive_coarsening 0",
     "GAMG with mispc mis2agg aggregation"},
    {"gamg-mis2agg-cover", "gamg",
     MISPC_GAMG_COARSEN_OPTION
     " mis2agg -pc_gamg_aggressive_coarsening 0 " MISPC_GAMG_COARSEN_PREFIX "mispc_priority cover",
     "GAMG + mis2agg, MIS-2 cover priority (fewer, larger aggregates)"},
    {"gamg-mispc", "gamg", "-pc_gamg_type mispc",
     "GAMG type mispc: mis2agg aggregation, its own products on one rank"},
    {"gamg-mis2basic", "gamg",
     MISPC_GAMG_COARSEN_OPTION " mis2basic -pc_gamg_aggressive_coarsening 0",
     "GAMG with mispc mis2basic aggregation"},
    {"gamg-mis2agg-cgs", "gamg",
     MISPC_GAMG_COARSEN_OPTION " mis2agg -pc_gamg_aggressive_coarsening 0"
                               " -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1"
                               " -mg_levels_pc_type clustergs",
     "GAMG + mis2agg, one cluster SGS sweep as smoother"},
    {"gamg-mis2agg-mcgs", "gamg",
     MISPC_GAMG_COARSEN_OPTION " mis2agg -pc_gamg_aggressive_coarsening 0"
                               " -mg_levels_ksp_type richardson -mg_levels_ksp_max_it 1"
                               " -mg_levels_pc_type mcgs",
     "GAMG + mis2agg, one point multicolor SGS sweep as smoother"},
    {"hypre", "hypre", "", "hypre BoomerAMG (when PETSc has hypre)"},
};
#define NENTRIES ((int)(sizeof entries / sizeof entries[0]))

/* Waits for the GPU before a timer reads the clock (CUDA vectors only: host
 * runs of a CUDA-enabled PETSc must not touch the device). */
static PetscErrorCode sync_device(Vec v) {
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscBool on_gpu;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &on_gpu, VECSEQCUDA, VECMPICUDA, ""));
  if (on_gpu) {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
#else
  (void)v;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Inserts this rank's rows of a host CSR into a new Mat (type from options). */
static PetscErrorCode mat_from_csr(const mispc_csr *A, PetscInt bs, Mat *M) {
  PetscInt rstart, rend, *dnz, *onz, N = (PetscInt)A->nrows, nloc = PETSC_DECIDE;
  PetscFunctionBegin;
  PetscCall(PetscSplitOwnershipBlock(PETSC_COMM_WORLD, bs, &nloc, &N));
  PetscCallMPI(MPI_Scan(&nloc, &rend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  rstart = rend - nloc;
  PetscCall(MatCreate(PETSC_COMM_WORLD, M));
  PetscCall(MatSetSizes(*M, nloc, nloc, N, N));
  PetscCall(MatSetBlockSize(*M, bs));
  PetscCall(MatSetType(*M, MATAIJ));
  PetscCall(MatSetFromOptions(*M));
  PetscCall(PetscMalloc2(rend - rstart, &dnz, rend - rstart, &onz));
  for (PetscInt i = rstart; i < rend; ++i) {
    dnz[i - rstart] = onz[i - rstart] = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) {
      if (A->colidx[k] >= rstart && A->colidx[k] < rend)
        dnz[i - rstart]++;
      else
        onz[i - rstart]++;
    }
  }
  PetscCall(MatXAIJSetPreallocation(*M, 1, dnz, onz, NULL, NULL));
  PetscCall(PetscFree2(dnz, onz));
  for (PetscInt i = rstart; i < rend; ++i) {
    PetscInt ncols = (PetscInt)(A->rowptr[i + 1] - A->rowptr[i]);
    PetscCall(MatSetValues(*M, 1, &i, ncols, (const PetscInt *)(A->colidx + A->rowptr[i]),
                           A->values + A->rowptr[i], INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rigid-body near-null space of the Elasticity3D generator's interior nodes
 * (node = i + N (j + N k), coordinates (i+1, j+1, k+1) / (N+1)). */
static PetscErrorCode attach_rigid_body_modes(Mat M, PetscInt N) {
  Vec xyz;
  PetscScalar *c;
  PetscInt rstart, rend;
  MatNullSpace ns;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(M, NULL, &xyz));
  PetscCall(VecSetBlockSize(xyz, 3));
  PetscCall(VecGetOwnershipRange(xyz, &rstart, &rend));
  PetscCall(VecGetArray(xyz, &c));
  const double h = 1.0 / (double)(N + 1);
  for (PetscInt r = rstart; r < rend; ++r) {
    PetscInt node = r / 3, comp = r % 3;
    PetscInt ijk[3] = {node % N, (node / N) % N, node / (N * N)};
    c[r - rstart] = (double)(ijk[comp] + 1) * h;
  }
  PetscCall(VecRestoreArray(xyz, &c));
  PetscCall(MatNullSpaceCreateRigidBody(xyz, &ns));
  PetscCall(MatSetNearNullSpace(M, ns));
  PetscCall(MatNullSpaceDestroy(&ns));
  PetscCall(VecDestroy(&xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode load_matrix(Mat *M, char *label, size_t label_len) {
  char problem[64] = "laplace3d", file[PETSC_MAX_PATH_LEN] = "";
  PetscInt n = 40;
  PetscBool has_file, binary = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", problem, sizeof problem, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-f", file, sizeof file, &has_file));
  if (has_file) {
    size_t len = strlen(file);
    binary =
        (PetscBool)(strncmp(file, "gen:", 4) && !(len > 4 && !strcmp(file + len - 4, ".mtx")) &&
                    !(len > 7 && !strcmp(file + len - 7, ".mtx.gz")) &&
                    !(len > 6 && !strcmp(file + len - 6, ".graph")));
  }
  if (binary) {
    PetscViewer v;
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
    PetscCall(MatCreate(PETSC_COMM_WORLD, M));
    PetscCall(MatSetFromOptions(*M));
    PetscCall(MatLoad(*M, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscInt rows, cols;
    PetscCall(MatGetSize(*M, &rows, &cols));
    PetscCheck(rows == cols, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ,
               "%s is %" PetscInt_FMT " x %" PetscInt_FMT ": the solver needs a square matrix",
               file, rows, cols);
    PetscCall(PetscSNPrintf(label, label_len, "%s", file));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  mispc_context *ctx;
  mispc_csr A;
  PetscInt bs = 1;
  PetscBool elasticity = PETSC_FALSE;
  PetscCheck(mispc_context_create(&ctx) == MISPC_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_MEM,
             "cannot create a mispc context");
  char spec[PETSC_MAX_PATH_LEN + 64];
  if (has_file) {
    PetscCall(PetscSNPrintf(spec, sizeof spec, "%s", file));
  } else {
    PetscCheck(!strcmp(problem, "laplace3d") || !strcmp(problem, "elasticity3d"), PETSC_COMM_WORLD,
               PETSC_ERR_ARG_WRONG, "-problem must be laplace3d or elasticity3d, got %s", problem);
    elasticity = (PetscBool)!strcmp(problem, "elasticity3d");
    bs = elasticity ? 3 : 1;
    PetscCall(PetscSNPrintf(spec, sizeof spec, "gen:%s:%" PetscInt_FMT, problem, n));
  }
  mispc_status s = mispc_load(ctx, spec, &A);
  PetscCheck(s == MISPC_SUCCESS, PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "cannot load %s: %s", spec,
             mispc_context_error(ctx));
  PetscCheck(A.values, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "%s is a pattern (graph) without values", spec);
  PetscCheck(A.nrows == A.ncols, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ,
             "%s is %lld x %lld: the solver needs a square matrix", spec, (long long)A.nrows,
             (long long)A.ncols);
  PetscCall(mat_from_csr(&A, bs, M));
  if (elasticity) PetscCall(attach_rigid_body_modes(*M, n));
  PetscCall(PetscSNPrintf(label, label_len, "%s", spec));
  mispc_csr_free(ctx, &A);
  mispc_context_destroy(ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sets "-key value" pairs of opts that the user did not set; records them in set[]. */
static PetscErrorCode push_options(const char *opts, char set[][64], int *nset) {
  char buf[512];
  PetscFunctionBegin;
  *nset = 0;
  PetscCall(PetscStrncpy(buf, opts, sizeof buf));
  for (char *tok = strtok(buf, " "); tok;) {
    char *val = strtok(NULL, " ");
    PetscBool has;
    PetscCall(PetscOptionsHasName(NULL, NULL, tok, &has));
    if (!has) {
      PetscCall(PetscOptionsSetValue(NULL, tok, val));
      PetscCall(PetscStrncpy(set[(*nset)++], tok, 64));
    }
    tok = strtok(NULL, " ");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solver of an entry: KSP ksp_type to rtol on A with the entry's PC,
 * then the options database. */
static PetscErrorCode make_solver(Mat A, const Entry *e, KSPType ksp_type, PetscReal rtol, KSP *ksp,
                                  PC *pc) {
  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, ksp_type));
  PetscCall(KSPSetTolerances(*ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  PetscCall(KSPGetPC(*ksp, pc));
  PetscCall(PCSetType(*pc, e->pc));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode run_entry(Mat A, Vec b, const Entry *e, KSPType ksp_type, PetscReal rtol,
                                PetscBool view, PetscInt repeat, PetscBool *ok) {
  KSP ksp;
  PC pc;
  Vec x, r;
  char set[16][64];
  int nset;
  PetscInt its;
  KSPConvergedReason reason;
  PetscReal rnorm, bnorm;
  PetscFunctionBegin;
  PetscCall(push_options(e->options, set, &nset));
  /* earlier repetitions warm up (first-use costs: library handles, JIT, caches) */
  for (PetscInt rep = 1; rep < repeat; ++rep) {
    PetscCall(VecDuplicate(b, &x));
    PetscCall(make_solver(A, e, ksp_type, rtol, &ksp, &pc));
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
  }
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(make_solver(A, e, ksp_type, rtol, &ksp, &pc));
  PetscCall(VecSet(x, 0.0));
  PetscCall(sync_device(x));
  double t0 = MPI_Wtime();
  PetscCall(KSPSetUp(ksp));
  PetscCall(PCSetUp(pc));
  PetscCall(sync_device(x));
  double t1 = MPI_Wtime();
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(sync_device(x));
  double t2 = MPI_Wtime();
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(MatResidual(A, b, x, r));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-18s %6" PetscInt_FMT " %10.4f %10.4f %12.3e  %s\n",
                        e->name, its, t1 - t0, t2 - t1, (double)(rnorm / bnorm),
                        reason > 0 ? "converged" : KSPConvergedReasons[reason]));
  *ok = (PetscBool)(reason > 0 && rnorm <= 100 * rtol * bnorm);
  if (view) PetscCall(KSPView(ksp, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&r));
  for (int k = 0; k < nset; ++k) PetscCall(PetscOptionsClearValue(NULL, set[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv) {
  Mat A;
  Vec b, ones;
  char label[PETSC_MAX_PATH_LEN + 64], pcs[512] = "";
  char ksp_type[64] = KSPCG;
  PetscReal rtol = 1e-8;
  PetscBool has_pcs, view = PETSC_FALSE, check = PETSC_FALSE, help;
  int failures = 0;
  PetscInt repeat = 1;
  PetscInt M, nnz_local;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(mispc_petsc_register());
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "solve: mispc preconditioners under PETSc\n"
                          "  -problem laplace3d|elasticity3d  -n N (default 40)\n"
                          "  -f FILE (PETSc binary, .mtx[.gz], METIS) or gen:SPEC\n"
                          "  -pcs LIST (comma separated) from:\n"));
    for (int k = 0; k < NENTRIES; ++k)
      PetscCall(
          PetscPrintf(PETSC_COMM_WORLD, "      %-18s %s\n", entries[k].name, entries[k].help));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  -ksp_type cg|gmres  -ksp_rtol R (default 1e-8)"
                                            "  -view_solvers (KSPView after each)\n"
                                            "  -repeat N (time the last of N setups+solves)\n"
                                            "  -check (exit 1 unless every solve converges with a"
                                            " true residual <= 100 rtol)\n"));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pcs", pcs, sizeof pcs, &has_pcs));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ksp_type", ksp_type, sizeof ksp_type, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ksp_rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-view_solvers", &view, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check", &check, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  PetscCall(load_matrix(&A, label, sizeof label));
  PetscCall(MatCreateVecs(A, &ones, &b));
  { /* vectors follow the matrix; an explicit -vec_type (e.g. cuda) converts them */
    char vtype[64];
    PetscBool has_vtype;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", vtype, sizeof vtype, &has_vtype));
    if (has_vtype) {
      PetscCall(VecSetType(ones, vtype));
      PetscCall(VecSetType(b, vtype));
    }
  }
  PetscCall(VecSet(ones, 1.0));
  PetscCall(MatMult(A, ones, b));
  PetscCall(MatGetSize(A, &M, NULL));
  {
    MatInfo info;
    MatType mt;
    PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
    PetscCall(MatGetType(A, &mt));
    nnz_local = (PetscInt)info.nz_used;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%s: %" PetscInt_FMT " rows, %" PetscInt_FMT " entries, %s, %d rank%s;"
                          " %s, rtol %g, b = A*1, x0 = 0\n",
                          label, M, nnz_local, mt, (int)size, size > 1 ? "s" : "", ksp_type,
                          (double)rtol));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-18s %6s %10s %10s %12s  %s\n", "preconditioner",
                        "iters", "setup(s)", "solve(s)", "|b-Ax|/|b|", "result"));
  char list[512];
  PetscCall(PetscStrncpy(list, has_pcs ? pcs : "jacobi,sor,mcgs,clustergs,gamg,gamg-mis2agg,hypre",
                         sizeof list));
  char *save = NULL;
  for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
    const Entry *e = NULL;
    for (int k = 0; k < NENTRIES; ++k)
      if (!strcmp(entries[k].name, name)) e = &entries[k];
    PetscCheck(e, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "unknown entry %s in -pcs (see -help)",
               name);
#if !defined(PETSC_HAVE_HYPRE)
    if (!strcmp(e->pc, "hypre")) {
      PetscCall(
          PetscPrintf(PETSC_COMM_WORLD, "%-18s skipped: PETSc was built without hypre\n", e->name));
      continue;
    }
#endif
    PetscBool ok = PETSC_FALSE;
    PetscCall(run_entry(A, b, e, ksp_type, rtol, view, repeat, &ok));
    if (!ok) failures++;
  }
  PetscCall(VecDestroy(&ones));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  if (failures)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d solve%s did not converge\n", failures,
                          failures > 1 ? "s" : ""));
  PetscCall(PetscFinalize());
  return check && failures ? 1 : 0;
}
