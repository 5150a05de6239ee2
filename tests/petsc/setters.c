/* PCMCGS and PCCLUSTERGS configured only through the setters of
 * mispc_petsc.h (no options database for the PC): for each configuration
 * below, a KSP set up with the setters and one set up from the options
 * database (under a prefix) must agree on the getters, the -pc_view text
 * (setup times aside), one PCApply's output bits and the iteration count.
 * Then a setter called after a solve must give the solve of a fresh PC with
 * the new settings (the setup is redone), a setter of the other type must do
 * nothing and a getter of the other type must fail. Links libpetscmispc.
 *
 *   -n N   grid size (default 14) */
#include <string.h>
#include <petscksp.h>

#include "ksp_compare.h"
#include "laplace3d.h"
#include "mispc_petsc.h"

typedef struct {
  const char *pc; /* PCMCGS or PCCLUSTERGS */
  PetscInt sweeps;
  PetscReal omega;
  PCMCGSSweepType type;
  PetscBool exact;
  PetscInt block_size;
  PetscReal threshold;
  const char *coarsen;
  PetscBool lines;
  const char *options; /* the same as options, without the prefix */
} Config;

static const Config configs[] = {
    {PCMCGS, 2, 1.3, PC_MCGS_SWEEP_BACKWARD, PETSC_FALSE, 0, 0, NULL, PETSC_FALSE,
     "-pc_type mcgs -pc_mcgs_sweeps 2 -pc_mcgs_omega 1.3 -pc_mcgs_type backward "
     "-pc_mcgs_exact false"},
    {PCMCGS, 1, 1.0, PC_MCGS_SWEEP_FORWARD, PETSC_TRUE, 0, 0, NULL, PETSC_FALSE,
     "-pc_type mcgs -pc_mcgs_symmetric false"},
    {PCCLUSTERGS, 3, 0.9, PC_MCGS_SWEEP_SYMMETRIC, PETSC_TRUE, 2, 0.05, MATCOARSENMIS2BASIC,
     PETSC_TRUE,
     "-pc_type clustergs -pc_clustergs_sweeps 3 -pc_clustergs_omega 0.9 -pc_clustergs_type "
     "symmetric -pc_clustergs_block_size 2 -pc_clustergs_strength_threshold 0.05 "
     "-pc_clustergs_coarsen mis2basic -pc_clustergs_line_clusters"},
    /* the defaults: the automatic threshold where strongly anisotropic (-2), line
     * clusters automatic: off on this Laplacian, as the setters set them */
    {PCCLUSTERGS, 1, 1.1, PC_MCGS_SWEEP_FORWARD, PETSC_TRUE, 0, -2, MATCOARSENMIS2AGG, PETSC_FALSE,
     "-pc_type clustergs -pc_clustergs_omega 1.1 -pc_clustergs_type forward"},
};

static PetscErrorCode set_by_setters(PC pc, const Config *c) {
  PetscFunctionBegin;
  PetscCall(PCSetType(pc, c->pc));
  if (!strcmp(c->pc, PCMCGS)) {
    PetscCall(PCMCGSSetSweeps(pc, c->sweeps));
    PetscCall(PCMCGSSetOmega(pc, c->omega));
    PetscCall(PCMCGSSetType(pc, c->type));
    PetscCall(PCMCGSSetExact(pc, c->exact));
  } else {
    PetscCall(PCClusterGSSetSweeps(pc, c->sweeps));
    PetscCall(PCClusterGSSetOmega(pc, c->omega));
    PetscCall(PCClusterGSSetType(pc, c->type));
    PetscCall(PCClusterGSSetBlockSize(pc, c->block_size));
    PetscCall(PCClusterGSSetStrengthThreshold(pc, c->threshold));
    PetscCall(PCClusterGSSetCoarsen(pc, c->coarsen));
    PetscCall(PCClusterGSSetLineClusters(pc, c->lines));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The getters agree with c. */
static PetscErrorCode check_getters(PC pc, const Config *c, PetscBool *ok) {
  PetscInt n, bs = c->block_size;
  PetscReal w, t = c->threshold;
  PCMCGSSweepType type;
  PetscBool exact = c->exact, same = PETSC_TRUE, lines = c->lines;
  const char *coarsen = c->coarsen;
  PetscFunctionBegin;
  if (!strcmp(c->pc, PCMCGS)) {
    PetscCall(PCMCGSGetSweeps(pc, &n));
    PetscCall(PCMCGSGetOmega(pc, &w));
    PetscCall(PCMCGSGetType(pc, &type));
    PetscCall(PCMCGSGetExact(pc, &exact));
  } else {
    PetscCall(PCClusterGSGetSweeps(pc, &n));
    PetscCall(PCClusterGSGetOmega(pc, &w));
    PetscCall(PCClusterGSGetType(pc, &type));
    PetscCall(PCClusterGSGetBlockSize(pc, &bs));
    PetscCall(PCClusterGSGetStrengthThreshold(pc, &t));
    PetscCall(PCClusterGSGetCoarsen(pc, &coarsen));
    PetscCall(PCClusterGSGetLineClusters(pc, &lines));
    PetscCall(PetscStrcmp(coarsen, c->coarsen, &same));
  }
  if (n != c->sweeps || w != c->omega || type != c->type || exact != c->exact ||
      bs != c->block_size || t != c->threshold || !same || lines != c->lines) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "FAIL getters: sweeps %" PetscInt_FMT " omega %g type %s exact %d "
                          "block size %" PetscInt_FMT " threshold %g coarsen %s lines %d\n",
                          n, (double)w, PCMCGSSweepTypes[type], (int)exact, bs, (double)t, coarsen,
                          (int)lines));
    *ok = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PC's -pc_view text without the lines that differ between two equal
 * PCs (setup times, the prefix in the header). */
static PetscErrorCode view_text(PC pc, const char *file, char *text, size_t len) {
  PetscViewer v;
  FILE *f;
  char line[1024];
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, file, &v));
  PetscCall(PCView(pc, v));
  PetscCall(PetscViewerDestroy(&v));
  /* rank 0 wrote the file: every rank reads it only once it is closed */
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  text[0] = 0;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, file, "r", &f));
  while (fgets(line, sizeof line, f))
    if (!strstr(line, "setup:") && !strstr(line, "Object:"))
      strncat(text, line, len - strlen(text) - 1);
  PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Setters against options for c. */
static PetscErrorCode compare(Mat A, const Config *c, int k, PetscBool *ok) {
  KSP ks, ko;
  PC ps, po;
  Vec ys, yo;
  PetscInt its_s, its_o;
  char prefix[32], vs[8192], vo[8192];
  PetscBool same_y;
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(prefix, sizeof prefix, "opt%d_", k));
  PetscCall(insert_options(c->options, prefix));
  PetscCall(make_ksp(A, NULL, &ks));
  PetscCall(KSPGetPC(ks, &ps));
  PetscCall(set_by_setters(ps, c));
  PetscCall(make_ksp(A, prefix, &ko));
  PetscCall(KSPGetPC(ko, &po));
  PetscCall(check_getters(ps, c, ok));
  PetscCall(check_getters(po, c, ok));
  PetscCall(MatCreateVecs(A, &ys, &yo));
  PetscCall(run(ks, A, &its_s, ys));
  PetscCall(run(ko, A, &its_o, yo));
  PetscCall(VecEqual(ys, yo, &same_y));
  PetscMPIInt size;
  char fs[64], fo[64];
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(fs, sizeof fs, "setters_np%d_view_s.txt", (int)size));
  PetscCall(PetscSNPrintf(fo, sizeof fo, "setters_np%d_view_o.txt", (int)size));
  PetscCall(view_text(ps, fs, vs, sizeof vs));
  PetscCall(view_text(po, fo, vo, sizeof vo));
  const PetscBool same_view = (PetscBool)!strcmp(vs, vo);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s: setters %" PetscInt_FMT " iterations, options %" PetscInt_FMT
                        "; PCApply %s; -pc_view %s\n",
                        c->options, its_s, its_o, same_y ? "equal" : "DIFFERS",
                        same_view ? "equal" : "DIFFERS"));
  if (!same_view) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "setters:\n%s\noptions:\n%s\n", vs, vo));
  if (its_s != its_o || !same_y || !same_view) *ok = PETSC_FALSE;
  PetscCall(VecDestroy(&ys));
  PetscCall(VecDestroy(&yo));
  PetscCall(KSPDestroy(&ks));
  PetscCall(KSPDestroy(&ko));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A setter after a solve: the next solve is that of a fresh PC with the new
 * settings. A setter of the other type does nothing; a getter of the other
 * type is an error. */
static PetscErrorCode after_setup(Mat A, PetscBool *ok) {
  KSP k1, k2;
  PC p1, p2;
  Vec y1, y2;
  PetscInt its1, its2, n = 0;
  PetscBool same;
  PetscFunctionBegin;
  PetscCall(make_ksp(A, NULL, &k1));
  PetscCall(KSPGetPC(k1, &p1));
  PetscCall(PCSetType(p1, PCCLUSTERGS));
  PetscCall(MatCreateVecs(A, &y1, &y2));
  PetscCall(run(k1, A, &its1, y1));
  PetscCall(PCClusterGSSetType(p1, PC_MCGS_SWEEP_FORWARD));
  PetscCall(PCClusterGSSetSweeps(p1, 2));
  PetscCall(PCMCGSSetSweeps(p1, 7)); /* not a PCMCGS: nothing */
  PetscCall(run(k1, A, &its1, y1));
  PetscCall(make_ksp(A, NULL, &k2));
  PetscCall(KSPGetPC(k2, &p2));
  PetscCall(PCSetType(p2, PCCLUSTERGS));
  PetscCall(PCClusterGSSetType(p2, PC_MCGS_SWEEP_FORWARD));
  PetscCall(PCClusterGSSetSweeps(p2, 2));
  PetscCall(run(k2, A, &its2, y2));
  PetscCall(VecEqual(y1, y2, &same));
  PetscCall(PCClusterGSGetSweeps(p1, &n));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "set after a solve: %" PetscInt_FMT " iterations, fresh PC %" PetscInt_FMT
                        "; PCApply %s; sweeps %" PetscInt_FMT "\n",
                        its1, its2, same ? "equal" : "DIFFERS", n));
  if (its1 != its2 || !same || n != 2) *ok = PETSC_FALSE;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscErrorCode ierr = PCMCGSGetSweeps(p1, &n);
  PetscCall(PetscPopErrorHandler());
  PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "PCMCGSGetSweeps on a clustergs PC: error %d\n", (int)ierr));
  if (!ierr) *ok = PETSC_FALSE;
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscCall(KSPDestroy(&k1));
  PetscCall(KSPDestroy(&k2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv) {
  PetscInt n = 14;
  PetscBool ok = PETSC_TRUE;
  Mat A;
  PetscCall(PetscInitialize(&argc, &argv, NULL, "PCMCGS / PCCLUSTERGS through the setters"));
  PetscCall(mispc_petsc_register());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(laplace3d(n, 6.0, &A));
  for (int k = 0; k < (int)(sizeof configs / sizeof configs[0]); ++k)
    PetscCall(compare(A, &configs[k], k, &ok));
  PetscCall(after_setup(A, &ok));
  PetscCall(MatDestroy(&A));
  PetscCall(all_ranks_ok("setters", &ok));
  PetscCall(PetscFinalize());
  return ok ? 0 : 1;
}
