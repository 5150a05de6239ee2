/* Internal to libpetscmispc: mispc status -> PETSc error, the rank-local block
 * of an AIJ matrix as a mispc_csr (in place), log events. */
#ifndef MISPC_PLUGIN_INTERNAL_H
#define MISPC_PLUGIN_INTERNAL_H

#include <petscmat.h>

#include "mispc/mispc.h"
#include "mispc_petsc.h"
#include "petsc_compat.h"

/* The PETSc error code of a mispc failure: by status (MISPC_ERR_NOT_SQUARE ->
 * PETSC_ERR_ARG_SIZ, MISPC_ERR_ALLOC -> PETSC_ERR_MEM, ...), and for the
 * numeric setup's diagonal checks (MISPC_ERR_INVALID_ARG) by the message:
 * a zero or missing diagonal entry -> PETSC_ERR_MAT_LU_ZRPVT, a NaN or
 * infinite one, or omega / a_ii overflowing -> PETSC_ERR_FP. */
PetscErrorCode MispcErrorCode(mispc_status s, const char *message);

/* A failed mispc call becomes a PETSc error carrying mispc's message. */
#define MispcCall(mctx, call)                                                                      \
  do {                                                                                             \
    mispc_status _mispc_s = (call);                                                                \
    if (_mispc_s != MISPC_SUCCESS)                                                                 \
      SETERRQ(PETSC_COMM_SELF, MispcErrorCode(_mispc_s, mispc_context_error(mctx)),                \
              "mispc: %s (%s)", mispc_context_error(mctx), mispc_strerror(_mispc_s));              \
  } while (0)

extern PetscLogEvent MISPC_EventGSSymbolic, MISPC_EventGSNumeric, MISPC_EventGSApply,
    MISPC_EventCoarsen, MISPC_EventCoarsenGraph, MISPC_EventCoarsenAgg, MISPC_EventCoarsenLists,
    MISPC_EventProduct, MISPC_EventMatFromCSR;

PetscErrorCode MispcRegisterPCs(void);
PetscErrorCode MispcRegisterCoarseners(void);

/* Creates a mispc context whose log lines go to PetscInfo(obj) and, for GPU
 * matrices, whose stream is PETSc's current one (so our kernels are ordered
 * with PETSc's). Host threads: -mispc_num_threads under obj's options
 * prefix, else without a prefix, else OMP_NUM_THREADS, else 1 a rank on
 * several ranks, else OpenMP's default. */
PetscErrorCode MispcContextCreate(PetscObject obj, PetscBool gpu, mispc_context **ctx);
/* Points ctx at the stream of PETSc's current device context (called again
 * before each use: the current context may change between setup and apply). */
PetscErrorCode MispcContextUsePetscStream(mispc_context *ctx);

/* The diagonal block a rank owns (the matrix itself for sequential ones):
 * mpiaij / mpiaijcusparse -> its "A" block; seqaij(cusparse) -> itself. */
PetscErrorCode MispcLocalBlock(Mat A, Mat *Ad, PetscBool *gpu);

/* The host CSR arrays of an AIJ matrix's diagonal block (ai, aj, aa) and, on
 * several ranks, of its off-diagonal block (bi, bj, ba: NULL on one rank)
 * with garray; a GPU matrix's values are brought to the host when stale.
 * n local rows; rstart / cstart the first row / column. Restore releases
 * them. */
typedef struct {
  Mat Ad, Ao;
  const PetscInt *garray, *ai, *aj, *bi, *bj;
  const PetscScalar *aa, *ba;
  PetscInt n, rstart, cstart;
} MispcHostBlocks;
PetscErrorCode MispcHostBlocksGet(Mat A, MispcHostBlocks *b);
PetscErrorCode MispcHostBlocksRestore(MispcHostBlocks *b);
/* splitmix64's finaliser (with its increment, so 0 is not a fixed point). */
static inline unsigned long long MispcMix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
/* A hash of three words, their order counting: summed over a set of triples,
 * a checksum that does not depend on how the set is split over ranks or
 * ordered (the coarsener's lists, MispcMatChecksum's entries). */
static inline unsigned long long MispcHashTriple(unsigned long long a, unsigned long long b,
                                                 unsigned long long c) {
  return MispcMix64(MispcMix64(MispcMix64(a) ^ b) ^ c);
}

/* An order-free checksum of M's entries (global row, column, value bits),
 * summed over the ranks, and its entries (collective; reads host copies):
 * the same for any partition of the same matrix. */
PetscErrorCode MispcMatChecksum(Mat M, uint64_t *hash, PetscInt *nnz);

/* The rank-local block as a mispc_csr over PETSc's own arrays: column indices
 * and values are borrowed (device pointers for cusparse), the row offsets are
 * widened to 64 bits into rowptr64 (kept between calls; widened again only
 * when `widen` is set). Call MispcLocalCSREnd after use. */
typedef struct {
  Mat Ad;
  PetscBool gpu, with_values;
  mispc_csr csr;
  int64_t *rowptr64; /* owned, in memory space mem */
  mispc_memspace mem;
  PetscInt nrows, nnz;
  const PetscInt *ia, *ja; /* host pattern (MatGetRowIJ), while begun */
  const PetscScalar *a;
} MispcLocalCSR;
PetscErrorCode MispcLocalCSRBegin(mispc_context *ctx, Mat A, PetscBool with_values, PetscBool widen,
                                  MispcLocalCSR *L);
/* The same for any sequential AIJ block B (not necessarily square: an
 * MPIAIJ matrix's off-diagonal block), gpu telling whether it is cusparse. */
PetscErrorCode MispcBlockCSRBegin(mispc_context *ctx, Mat B, PetscBool gpu, PetscBool with_values,
                                  PetscBool widen, MispcLocalCSR *L);
PetscErrorCode MispcLocalCSREnd(MispcLocalCSR *L);
PetscErrorCode MispcLocalCSRDestroy(mispc_context *ctx, MispcLocalCSR *L);

/* galerkin_ptap.c: a new sequential Mat of `type` (MATSEQAIJ or
 * MATSEQAIJCUSPARSE) and block sizes rbs x cbs holding X (host or device):
 * X is copied into one host buffer that the Mat reads in place and frees
 * (MatCreateSeqAIJWithArrays; PETSc copies it to the GPU when first used). */
PetscErrorCode MispcMatCreateFromCSR(mispc_context *ctx, MPI_Comm comm, const mispc_csr *X,
                                     MatType type, PetscInt rbs, PetscInt cbs, Mat *M);
/* Marks P and routes A so that MatPtAP(A, P), A and P of one AIJ type, runs
 * mispc_galerkin_product (sequential types) or mispc_dist_galerkin_product
 * (MPI types) once (then A's own hook is back), with
 * the context in ctxc (NULL: a context of the product's own); every other
 * product of A or P stays the type's (galerkin_ptap.c says how). */
PetscErrorCode MispcUseGalerkinPtAP(Mat A, Mat P, PetscContainer ctxc);
/* A container holding a mispc context (destroyed with the container's last
 * reference), for MispcUseGalerkinPtAP: one context, and one device memory
 * pool, for all products of a PC. */
PetscErrorCode MispcProductContextCreate(PetscObject obj, PetscBool gpu, PetscContainer *c);

#include "mispc/config.h"
#if MISPC_ENABLE_MPI
#include "mispc/dist.h"
/* dist_products.c: an MPIAIJ matrix (host or cusparse: the host copies of
 * its blocks are read in place) wrapped as a mispc_dist_csr with its halo
 * plan (collective); End frees the wrap. */
typedef struct {
  MispcLocalCSR L, Lo; /* the diagonal and off-diagonal blocks */
  int64_t *garray;     /* ghost columns, 64-bit */
  mispc_dist_csr D;
  PetscBool have_D;
} MispcDistMat;
PetscErrorCode MispcDistMatBegin(mispc_context *ctx, Mat A, MispcDistMat *w);
/* An MPIAIJ matrix's blocks, global size, first row, ghost count and ghost
 * columns as the 64-bit array that mispc_dist_csr_wrap keeps (PetscMalloc1;
 * PetscFree it after the wrap is freed): what every wrap of a PETSc matrix
 * (dist_products.c, pc_gs.c, coarsen_mis2.c) reads before wrapping its own
 * block views. */
PetscErrorCode MispcMPIAIJLayout(Mat A, Mat *Ad, Mat *Ao, PetscInt *N, PetscInt *rstart,
                                 PetscInt *nghost, int64_t **garray64);
PetscErrorCode MispcDistMatEnd(mispc_context *ctx, MispcDistMat *w);
/* A prolongator Mat (column block size k) as this rank's rows, each merged in
 * global column order; cstart, cend: its column ownership in coarse nodes;
 * no Bc. Free with mispc_dist_prolongator_free. */
PetscErrorCode MispcDistProlongatorFromMat(Mat P, mispc_dist_prolongator *dp);
/* A new Mat of `type` (block sizes bs) holding X, rows and columns laid out as
 * X's rows (COO assembly); MispcMatSetDistValues puts the values of an X of
 * the same pattern (nnz: this rank's entries, MispcDistCSRNnz) in it. */
PetscErrorCode MispcMatFromDistCSR(const mispc_dist_csr *X, MatType type, PetscInt bs, Mat *M);
PetscErrorCode MispcMatSetDistValues(Mat M, const mispc_dist_csr *X, PetscCount nnz);
PetscCount MispcDistCSRNnz(const mispc_dist_csr *X);
#endif

#endif
