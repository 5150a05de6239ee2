/* ECL-MIS and ECL-GC on mispc's graphs, for the side-by-side comparison of
 * docs/BENCHMARKS.md ("ECL-MIS and ECL-GC side by side"). The ECL codes are
 * not part of mispc: scripts/ecl-compare compiles this file with
 * ECL_MIS_SOURCE and ECL_GC_SOURCE naming their main.cu (HeCBench's
 * src/mis-cuda and src/gc-cuda: ECL-MIS v1.3, ECL-GC v1.2, Texas State
 * University), which are included here in namespaces of their own, and
 * links a static CUDA libmispc.
 *
 * For each SPEC (mispc_load: generators or files) the graph is made
 * symmetric without self loops (mispc_csr_symmetrize), as ECL's kernels
 * need, and both libraries get that same graph on the same GPU in the same
 * process:
 *   MIS-1: mispc_mis1 (default options) against ECL-MIS's init + findmins
 *          launches (its grid: SMs x max threads per SM / 256);
 *   coloring: mispc_color (default: MIS-1 classes in one pass) against
 *          ECL-GC's wlsize reset + init + runLarge + runSmall.
 * A call's time is the wall time from before the call to the end of a
 * stream sync after it (what a caller waits; mispc's allocations inside
 * its call included, ECL's buffers allocated once outside, as its main
 * does); the median of --reps calls after one warm-up, the two libraries
 * alternated for --rounds rounds. Every result is checked on the host
 * (independent and maximal; proper coloring), so a fast wrong answer
 * cannot pass, and set sizes and color counts are printed beside the times.
 *
 *   ecl_compare SPEC... [--reps N] [--rounds R] [--ecl-mis-blocks B] [--tune K=V]... */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <functional>
#include <vector>

extern "C" {
#include "mispc/mispc.h"
#include "tuning.h" /* --tune, as `mispc bench` */
}

/* The ECL sources, each with its main renamed and its names in a namespace
 * (both define hash, init, ThreadsPerBlock and include the same graph.h). */
namespace ecl_mis {
#define main ecl_mis_main
#include ECL_MIS_SOURCE
#undef main
} // namespace ecl_mis
#undef ECL_GRAPH
namespace ecl_gc {
#define main ecl_gc_main
#include ECL_GC_SOURCE
#undef main
} // namespace ecl_gc

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "ecl_compare: %s: %s\n", #call, cudaGetErrorString(e_));                     \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static void need(mispc_context *ctx, mispc_status s, const char *what) {
  if (s) {
    fprintf(stderr, "ecl_compare: %s: %s\n", what, mispc_context_error(ctx));
    exit(1);
  }
}

/* Median wall time (ms) of reps calls of f, each followed by a sync of s,
 * after one warm-up call. */
static double median_ms(int reps, cudaStream_t s, const std::function<void()> &f) {
  f();
  CK(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    CK(cudaStreamSynchronize(s));
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/* 1 if in[] (nonzero = member) is an independent and maximal set of g. */
template <typename T> static int is_mis(const mispc_csr *g, const T *in) {
  for (int64_t v = 0; v < g->nrows; ++v) {
    int nb = 0;
    for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p) nb |= in[g->colidx[p]] != 0;
    if (in[v] ? nb : !nb) return 0;
  }
  return 1;
}

/* The number of distinct colors, or -1 where two neighbours share one. */
static int count_colors(const mispc_csr *g, const int *color) {
  std::vector<char> used;
  for (int64_t v = 0; v < g->nrows; ++v) {
    if (color[v] < 0) return -1;
    for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p)
      if (color[g->colidx[p]] == color[v]) return -1;
    if ((size_t)color[v] >= used.size()) used.resize((size_t)color[v] + 1, 0);
    used[(size_t)color[v]] = 1;
  }
  return (int)std::count(used.begin(), used.end(), 1);
}

static void usage(FILE *f) {
  fprintf(f, "usage: ecl_compare SPEC... [--reps N] [--rounds R] [--ecl-mis-blocks B] "
             "[--tune K=V]... [--largest]\n"
             "  MIS-1 and distance-1 coloring: mispc against ECL-MIS and ECL-GC on the\n"
             "  same graph (SPEC as mispc_load, made symmetric without self loops), the\n"
             "  median wall time of N calls (default 50) in each of R alternated rounds\n"
             "  (default 2); B blocks for ECL-MIS (default 0: SMs x max threads / 256);\n"
             "  --tune: mispc's tuning knobs (mispc bench --help lists them);\n"
             "  --largest: mispc colors largest degree first (ECL-GC's order) instead\n"
             "  of its default hash order.\n");
}

int main(int argc, char **argv) {
  int reps = 50, rounds = 2, mis_blocks = 0, largest = 0;
  std::vector<const char *> specs, tunes;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ecl-mis-blocks") && i + 1 < argc)
      mis_blocks = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--largest"))
      largest = 1;
    else if (!strcmp(argv[i], "--tune") && i + 1 < argc)
      tunes.push_back(argv[++i]);
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else if (argv[i][0] == '-') {
      usage(stderr);
      return 2;
    } else
      specs.push_back(argv[i]);
  }
  if (specs.empty() || reps < 1 || rounds < 1) {
    usage(stderr);
    return 2;
  }
  mispc_context *ctx = NULL;
  if (mispc_context_create(&ctx) || !mispc_have_gpu()) {
    fprintf(stderr, "ecl_compare: needs a GPU and a CUDA build of mispc\n");
    return 1;
  }
  mispc_tuning tu;
  memset(&tu, 0, sizeof tu);
  for (const char *t : tunes) need(ctx, mispc_tuning_parse_(ctx, &tu, t), "--tune");
  need(ctx, mispc_context_set_tuning_(ctx, &tu), "--tune");
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  need(ctx, mispc_context_set_stream(ctx, stream), "stream");
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sm_blocks = prop.multiProcessorCount * prop.maxThreadsPerMultiProcessor;
  const int mblocks = mis_blocks > 0 ? mis_blocks : sm_blocks / ecl_mis::ThreadsPerBlock;
  const int gblocks = sm_blocks / ecl_gc::ThreadsPerBlock;
  printf("# %s, %d SMs; ECL-MIS %d blocks of %d, ECL-GC %d blocks of %d; median of %d calls, "
         "ms\n",
         prop.name, prop.multiProcessorCount, mblocks, ecl_mis::ThreadsPerBlock, gblocks,
         ecl_gc::ThreadsPerBlock, reps);
  printf("%-24s %5s %9s %10s | %9s %9s %7s %7s | %9s %9s %6s %6s | %s\n", "graph", "round",
         "vertices", "edges", "mis1 ms", "ECL-MIS", "set %", "ECL %", "color ms", "ECL-GC",
         "colors", "ECL", "check");
  int bad = 0;
  for (const char *spec : specs) {
    mispc_csr A = {}, G = {}, D = {};
    need(ctx, mispc_load(ctx, spec, &A), spec);
    need(ctx, mispc_csr_symmetrize(ctx, &A, 1, &G), "symmetrize");
    mispc_csr_free(ctx, &A);
    const int n = (int)G.nrows, m = (int)G.nnz;
    need(ctx, mispc_csr_copy(ctx, &G, MISPC_MEM_DEVICE, &D), "device copy");
    /* ECL's 32-bit CSR and buffers, allocated once */
    std::vector<int> nidx(G.rowptr, G.rowptr + n + 1);
    int *nidx_d, *nlist_d, *nlist2_d, *posscol_d, *posscol2_d, *color_d, *wl_d, *wlsize_d;
    unsigned char *nstat_d;
    uint8_t *set_d;
    CK(cudaMalloc(&nidx_d, sizeof(int) * (n + 1)));
    CK(cudaMalloc(&nlist_d, sizeof(int) * (m + 1)));
    CK(cudaMalloc(&nlist2_d, sizeof(int) * (m + 1)));
    CK(cudaMalloc(&posscol_d, sizeof(int) * (n + 1)));
    CK(cudaMalloc(&posscol2_d, sizeof(int) * (m / 32 + 1)));
    CK(cudaMalloc(&color_d, sizeof(int) * (n + 1)));
    CK(cudaMalloc(&wl_d, sizeof(int) * (n + 1)));
    CK(cudaMalloc(&wlsize_d, sizeof(int)));
    CK(cudaMalloc(&nstat_d, n + 1));
    CK(cudaMalloc(&set_d, n + 1));
    CK(cudaMemcpy(nidx_d, nidx.data(), sizeof(int) * (n + 1), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(nlist_d, G.colidx, sizeof(int) * m, cudaMemcpyHostToDevice));
    CK(cudaFuncSetCacheConfig(ecl_gc::init, cudaFuncCachePreferL1));
    CK(cudaFuncSetCacheConfig(ecl_gc::runLarge, cudaFuncCachePreferL1));
    CK(cudaFuncSetCacheConfig(ecl_gc::runSmall, cudaFuncCachePreferL1));

    mispc_mis_options mo;
    mispc_mis_options_default(&mo);
    mo.skip_validation = 1; /* symmetrize made it a graph */
    mispc_coloring_options co;
    mispc_coloring_options_default(&co);
    co.mis.skip_validation = 1;
    if (largest) co.mis.priority = MISPC_PRIORITY_LARGEST_DEGREE;
    mispc_mis_result mr = {};
    int ncolors = 0;
    auto mispc_mis = [&] { need(ctx, mispc_mis1(ctx, &D, &mo, set_d, &mr), "mispc_mis1"); };
    auto ecl_mis_call = [&] {
      ecl_mis::init<<<mblocks, ecl_mis::ThreadsPerBlock, 0, stream>>>(n, m, nidx_d, nstat_d);
      ecl_mis::findmins<<<mblocks, ecl_mis::ThreadsPerBlock, 0, stream>>>(n, nidx_d, nlist_d,
                                                                          nstat_d);
    };
    mispc_coloring last = {}; /* the last call's colors (device), checked below */
    auto mispc_col = [&] {
      mispc_coloring_free(ctx, &last);
      need(ctx, mispc_color(ctx, &D, &co, &last), "mispc_color");
      ncolors = last.ncolors;
    };
    auto ecl_gc_call = [&] {
      const int B = ecl_gc::ThreadsPerBlock;
      CK(cudaMemsetAsync(wlsize_d, 0, sizeof(int), stream));
      ecl_gc::init<<<gblocks, B, 0, stream>>>(n, m, nidx_d, nlist_d, nlist2_d, posscol_d,
                                              posscol2_d, color_d, wl_d, wlsize_d);
      ecl_gc::runLarge<<<gblocks, B, 0, stream>>>(n, nidx_d, nlist2_d, posscol_d, posscol2_d,
                                                  color_d, wl_d, wlsize_d);
      ecl_gc::runSmall<<<gblocks, B, 0, stream>>>(n, nidx_d, nlist_d, posscol_d, color_d);
    };
    for (int r = 0; r < rounds; ++r) {
      const double t_mis = median_ms(reps, stream, mispc_mis);
      const double t_emis = median_ms(reps, stream, ecl_mis_call);
      const double t_col = median_ms(reps, stream, mispc_col);
      const double t_gc = median_ms(reps, stream, ecl_gc_call);
      CK(cudaGetLastError());
      /* the last call's results, checked on the host */
      std::vector<uint8_t> set(n);
      std::vector<unsigned char> stat(n);
      std::vector<int> ecol(n), mcol(n);
      CK(cudaMemcpy(set.data(), set_d, n, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(stat.data(), nstat_d, n, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(ecol.data(), color_d, sizeof(int) * n, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(mcol.data(), last.color, sizeof(int) * n, cudaMemcpyDeviceToHost));
      std::vector<uint8_t> ein(n);
      int64_t mset = 0, eset = 0;
      for (int v = 0; v < n; ++v) {
        ein[v] = stat[v] == ecl_mis::in;
        mset += set[v];
        eset += ein[v];
      }
      const int mis_ok = is_mis(&G, set.data()), emis_ok = is_mis(&G, ein.data());
      const int mc = count_colors(&G, mcol.data()), ec = count_colors(&G, ecol.data());
      const int ok = mis_ok && emis_ok && mc == ncolors && ec > 0;
      bad |= !ok;
      printf("%-24s %5d %9d %10d | %9.4f %9.4f %7.2f %7.2f | %9.4f %9.4f %6d %6d | %s\n", spec,
             r + 1, n, m, t_mis, t_emis, 100.0 * (double)mset / n, 100.0 * (double)eset / n, t_col,
             t_gc, ncolors, ec, ok ? "ok" : "BAD");
      fflush(stdout);
    }
    mispc_coloring_free(ctx, &last);
    cudaFree(nidx_d);
    cudaFree(nlist_d);
    cudaFree(nlist2_d);
    cudaFree(posscol_d);
    cudaFree(posscol2_d);
    cudaFree(color_d);
    cudaFree(wl_d);
    cudaFree(wlsize_d);
    cudaFree(nstat_d);
    cudaFree(set_d);
    mispc_csr_free(ctx, &D);
    mispc_csr_free(ctx, &G);
  }
  mispc_context_destroy(ctx);
  cudaStreamDestroy(stream);
  return bad;
}
