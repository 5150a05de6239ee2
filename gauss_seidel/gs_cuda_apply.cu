/* GPU Gauss-Seidel apply: the launches of gs_cuda_sweep.cu captured once
 * into a CUDA graph per kind (from x = 0 or not), relaunched with the
 * caller's b and x (gs_cuda.cuh). */
#include "gs_cuda.cuh"

/* Captures an apply's launches into a CUDA graph (on a stream of its own:
 * the context's may be the legacy default stream, which cannot be
 * captured). On failure the applies launch per color from then on. */
static void build_graph(mispc_context *ctx, mispc_gs *gs, int zero_guess) {
  cudaStream_t cs = NULL;
  cudaGraph_t g = NULL;
  cudaGraphExec_t exec = NULL;
  cudaGraphNode_t root = NULL;
  size_t nroots = 1;
  const double t0 = mispc_wtime();
  cudaError_t e = cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaStreamBeginCapture(cs, cudaStreamCaptureModeRelaxed);
  if (e == cudaSuccess) {
    const mispc_status st = gs_enqueue_apply(ctx, gs, cs, NULL, NULL, zero_guess, kGraph);
    e = cudaStreamEndCapture(cs, &g);
    if (st != MISPC_SUCCESS && e == cudaSuccess) e = cudaErrorUnknown;
  }
  /* a chain of launches: one root, the launch that takes b and x */
  if (e == cudaSuccess) e = cudaGraphGetRootNodes(g, &root, &nroots);
  if (e == cudaSuccess && nroots != 1) e = cudaErrorInvalidValue;
  if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, g, 0);
  if (cs) cudaStreamDestroy(cs);
  if (e != cudaSuccess) {
    cudaGetLastError(); /* not sticky: clear it */
    if (g) cudaGraphDestroy(g);
    gs->no_graph = 1;
    mispc_logf(ctx, 1, "gs: no CUDA graph for the apply (%s); launching per color",
               cudaGetErrorString(e));
    return;
  }
  const int k = zero_guess ? 1 : 0;
  gs->graph[k] = exec;
  gs->graph_template[k] = g; /* owns the root's parameters */
  gs->graph_root[k] = root;
  gs->graph_bx[k][0] = gs->graph_bx[k][1] = NULL;
  mispc_logf(ctx, 2, "gs: apply graph (zero guess %d) built in %.3f ms", k,
             1e3 * (mispc_wtime() - t0));
}

extern "C" mispc_status gs_apply_cuda(mispc_context *ctx, mispc_gs *gs, const double *b, double *x,
                                      int zero_guess) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (gs->n == 0) return MISPC_SUCCESS;
  const int k = zero_guess ? 1 : 0;
  if (!gs->no_graph && !gs->graph[k]) build_graph(ctx, gs, k);
  if (!gs->no_graph && gs->graph[k]) {
    MISPC_TRY(gs_set_root_vectors(ctx, gs, k, b, x));
    MISPC_CUDA_TRY(ctx, cudaGraphLaunch((cudaGraphExec_t)gs->graph[k], s));
  } else {
    MISPC_TRY(gs_enqueue_apply(ctx, gs, s, b, x, zero_guess, kDirect));
  }
  MISPC_CUDA_LAUNCH_CHECK(ctx); /* asynchronous: the caller's next sync reports faults */
  return MISPC_SUCCESS;
}

extern "C" void gs_release_cuda(mispc_gs *gs) {
  for (int k = 0; k < 2; ++k) {
    if (gs->graph[k]) cudaGraphExecDestroy((cudaGraphExec_t)gs->graph[k]);
    if (gs->graph_template[k]) cudaGraphDestroy((cudaGraph_t)gs->graph_template[k]);
    gs->graph[k] = gs->graph_template[k] = gs->graph_root[k] = NULL;
  }
  gs->no_graph = 0;
}
