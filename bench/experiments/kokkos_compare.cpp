/* Kokkos Kernels on mispc's graphs, for the side-by-side comparison of
 * docs/BENCHMARKS.md ("Kokkos Kernels side by side"): the same matrices
 * (mispc_load of the same SPEC: generators or files), on the same GPU, in
 * the same device call as `mispc bench`. Times KokkosSparse::spmv (the
 * unit), KokkosGraph::graph_d2_mis (MIS2_FAST and MIS2_QUALITY),
 * KokkosGraph::graph_mis2_aggregate, KokkosGraph's distance-1 coloring
 * (graph_color: the default, VB, VBBIT, EB and the deterministic VBD and
 * VBDBIT; each coloring checked proper on the host), and KokkosSparse's
 * point (GS_DEFAULT) and cluster (CLUSTER_MIS2) multicolor Gauss-Seidel:
 * setup and one symmetric sweep from x = 0. Each is the median of --reps calls after one
 * warm-up call, wall time between Kokkos::fence()s (what a caller waits,
 * allocations inside the call included, as `mispc bench` does with events
 * around the call). The MIS-2 sets and the aggregates are checked on the
 * host (distance-2 independence and maximality, every vertex in one
 * aggregate), so a fast wrong answer cannot pass.
 * Built by scripts/kokkos-compare (not part of the mispc build). */
#include <Kokkos_Core.hpp>
#include <KokkosGraph_Distance1Color.hpp>
#include <KokkosGraph_MIS2.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_gauss_seidel.hpp>
#include <KokkosSparse_spmv.hpp>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "mispc/mispc.h"
}

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using Device = Kokkos::Device<Exec, Mem>;
using Offset = int64_t;
using Ordinal = int;
using Rowmap = Kokkos::View<Offset *, Device>;
using Entries = Kokkos::View<Ordinal *, Device>;
using Values = Kokkos::View<double *, Device>;
using Matrix = KokkosSparse::CrsMatrix<double, Ordinal, Device, void, Offset>;
using Handle =
    KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, double, Exec, Mem, Mem>;

static double median_ms(int reps, const std::function<void()> &f) {
  f(); /* warm-up */
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    Kokkos::fence();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/* A host graph without self loops (the MIS-2 and aggregation input). */
struct HostGraph {
  std::vector<Offset> rp;
  std::vector<Ordinal> ci;
};

static HostGraph without_loops(const mispc_csr &A) {
  HostGraph g;
  g.rp.assign(A.nrows + 1, 0);
  for (int64_t i = 0; i < A.nrows; ++i) {
    for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
      if (A.colidx[p] != i) g.ci.push_back(A.colidx[p]);
    g.rp[i + 1] = (Offset)g.ci.size();
  }
  return g;
}

/* Distance-2 independence and maximality of the vertex list mis, in
 * O(entries): cnt[u] counts the IN vertices of u's closed neighbourhood;
 * two IN vertices are within distance 2 exactly when some cnt is 2 or more,
 * and v has one within distance 2 when some u of N[v] has cnt >= 1. */
static bool check_mis2(const HostGraph &g, const std::vector<Ordinal> &mis) {
  const int64_t n = (int64_t)g.rp.size() - 1;
  std::vector<int> in(n, 0), cnt(n, 0);
  for (Ordinal v : mis) {
    if (v < 0 || v >= n || in[v]) return false;
    in[v] = 1;
    cnt[v]++;
    for (Offset p = g.rp[v]; p < g.rp[v + 1]; ++p) cnt[g.ci[p]]++;
  }
  for (int64_t v = 0; v < n; ++v) {
    if (cnt[v] > 1) return false;
    bool covered = cnt[v] > 0;
    for (Offset p = g.rp[v]; p < g.rp[v + 1] && !covered; ++p) covered = cnt[g.ci[p]] > 0;
    if (!covered) return false;
  }
  return true;
}

template <class V> static std::vector<typename V::non_const_value_type> to_host(const V &d) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  return std::vector<typename V::non_const_value_type>(h.data(), h.data() + h.extent(0));
}

template <class T> static Kokkos::View<T *, Device> to_device(const T *p, size_t n, const char *l) {
  Kokkos::View<T *, Device> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(l)), n);
  Kokkos::View<const T *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(p, n);
  Kokkos::deep_copy(d, h);
  return d;
}

static void run(mispc_context *ctx, const char *spec, int reps, int cluster_hint) {
  mispc_csr A;
  if (mispc_load(ctx, spec, &A)) {
    std::fprintf(stderr, "kokkos_compare: %s: %s\n", spec, mispc_context_error(ctx));
    std::exit(1);
  }
  const Ordinal n = (Ordinal)A.nrows;
  const HostGraph g = without_loops(A);
  auto rowmap = to_device(A.rowptr, (size_t)n + 1, "rowmap");
  auto entries = to_device(A.colidx, (size_t)A.nnz, "entries");
  /* a pattern (gen:kron, gen:random: no values): ones for the SpMV, no GS */
  const bool pattern = A.values == nullptr;
  std::vector<double> ones(pattern ? (size_t)A.nnz : 0, 1.0);
  auto values = to_device(pattern ? ones.data() : A.values, (size_t)A.nnz, "values");
  auto grow = to_device(g.rp.data(), g.rp.size(), "graph rowmap");
  auto gcol = to_device(g.ci.data(), g.ci.size(), "graph entries");
  Matrix M("A", n, n, A.nnz, values, rowmap, entries);
  /* b = A * 1, as mispc bench gs */
  std::vector<double> hb(n, 0.0);
  double bb = 0.0;
  for (int64_t i = 0; i < A.nrows; ++i) {
    for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) hb[i] += pattern ? 1.0 : A.values[p];
    bb += hb[i] * hb[i];
  }
  Values x("x", n), y("y", n);
  Values b = to_device(hb.data(), hb.size(), "b");
  std::printf("%s: %d rows, %lld entries (%lld without the diagonal)\n", spec, n, (long long)A.nnz,
              (long long)g.ci.size());
  const double spmv = median_ms(reps, [&] { KokkosSparse::spmv("N", 1.0, M, b, 0.0, y); });
  std::printf("  kokkos spmv                  %9.4f ms\n", spmv);
  for (auto algo : {KokkosGraph::MIS2_FAST, KokkosGraph::MIS2_QUALITY}) {
    Entries mis;
    const double t =
        median_ms(reps, [&] { mis = KokkosGraph::graph_d2_mis<Device>(grow, gcol, algo); });
    const auto h = to_host(mis);
    std::printf("  kokkos mis2 %-16s %9.4f ms  %6.2f SpMV  set %lld (%.2f %%)  %s\n",
                KokkosGraph::mis2_algorithm_name(algo), t, t / spmv, (long long)h.size(),
                100.0 * (double)h.size() / n, check_mis2(g, h) ? "valid" : "INVALID");
  }
  {
    Entries labels;
    Ordinal naggs = 0;
    const double t = median_ms(
        reps, [&] { labels = KokkosGraph::graph_mis2_aggregate<Device>(grow, gcol, naggs); });
    const auto h = to_host(labels);
    bool ok = (Ordinal)h.size() == n;
    std::vector<int> used(naggs > 0 ? naggs : 1, 0);
    for (size_t i = 0; ok && i < h.size(); ++i) {
      ok = h[i] >= 0 && h[i] < naggs;
      if (ok) used[h[i]] = 1;
    }
    for (Ordinal a = 0; ok && a < naggs; ++a) ok = used[a];
    std::printf("  kokkos mis2 aggregation      %9.4f ms  %6.2f SpMV  %d aggregates  %s\n", t,
                t / spmv, naggs, ok ? "valid" : "INVALID");
  }
  for (auto algo :
       {KokkosGraph::COLORING_DEFAULT, KokkosGraph::COLORING_VB, KokkosGraph::COLORING_VBBIT,
        KokkosGraph::COLORING_EB, KokkosGraph::COLORING_VBD, KokkosGraph::COLORING_VBDBIT}) {
    static const char *const names[] = {"default", "serial", "VB",     "VBBIT",
                                        "VBCS",    "VBD",    "VBDBIT", "EB"};
    Handle kh;
    Ordinal ncolors = 0;
    Kokkos::View<Ordinal *, Device> colors;
    const double t = median_ms(reps, [&] {
      kh.create_graph_coloring_handle(algo);
      KokkosGraph::Experimental::graph_color(&kh, n, n, grow, gcol);
      ncolors = (Ordinal)kh.get_graph_coloring_handle()->get_num_colors();
      colors = kh.get_graph_coloring_handle()->get_vertex_colors();
      kh.destroy_graph_coloring_handle();
    });
    const auto h = to_host(colors);
    bool ok = (Ordinal)h.size() == n;
    for (Ordinal v = 0; ok && v < n; ++v) {
      ok = h[v] >= 1 && h[v] <= ncolors; /* Kokkos' colors are 1 .. ncolors */
      for (Offset p = g.rp[v]; ok && p < g.rp[v + 1]; ++p) ok = h[g.ci[p]] != h[v];
    }
    std::printf("  kokkos color %-15s %9.4f ms  %6.2f SpMV  %d colors  %s\n", names[(int)algo], t,
                t / spmv, ncolors, ok ? "valid" : "INVALID");
  }
  if (pattern) std::printf("  (a pattern without values: no Gauss-Seidel)\n");
  for (int cluster = 0; cluster < 2 && !pattern; ++cluster) {
    Handle kh;
    auto make = [&] {
      if (cluster)
        kh.create_gs_handle(KokkosSparse::ClusteringAlgorithm::CLUSTER_MIS2, cluster_hint);
      else
        kh.create_gs_handle(KokkosSparse::GS_DEFAULT);
      KokkosSparse::gauss_seidel_symbolic(&kh, n, n, rowmap, entries, true);
      KokkosSparse::gauss_seidel_numeric(&kh, n, n, rowmap, entries, values, true);
    };
    const double setup = median_ms(reps, make);
    /* update_y: b changed since the last apply (Kokkos then permutes it
     * again); timed both ways, the second as mispc's apply (same b) */
    const double apply_b = median_ms(reps, [&] {
      KokkosSparse::symmetric_gauss_seidel_apply(&kh, n, n, rowmap, entries, values, x, b, true,
                                                 true, 1.0, 1);
    });
    const double apply = median_ms(reps, [&] {
      KokkosSparse::symmetric_gauss_seidel_apply(&kh, n, n, rowmap, entries, values, x, b, true,
                                                 false, 1.0, 1);
    });
    /* ||b - A x|| / ||b|| after the last sweep from x = 0, on the host */
    const auto hx = to_host(x);
    double rr = 0.0;
    for (int64_t i = 0; i < A.nrows; ++i) {
      double r = hb[i];
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) r -= A.values[p] * hx[A.colidx[p]];
      rr += r * r;
    }
    std::printf("  kokkos %s GS setup %9.4f ms  %6.2f SpMV; symmetric sweep %9.4f ms  %6.2f SpMV"
                " (new b %9.4f ms)  resid %.4f\n",
                cluster ? "cluster" : "point  ", setup, setup / spmv, apply, apply / spmv, apply_b,
                std::sqrt(rr / bb));
  }
  mispc_csr_free(ctx, &A);
}

int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0); /* lines as they come, also into a pipe */
  int reps = 20, cluster_hint = 8;
  std::vector<const char *> specs;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--cluster-size") && i + 1 < argc)
      cluster_hint = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: kokkos_compare SPEC... [--reps N] [--cluster-size N]\n"
                  "  Kokkos Kernels' SpMV, MIS-2, MIS-2 aggregation and point / cluster\n"
                  "  symmetric Gauss-Seidel on mispc's matrices (SPEC as in mispc);\n"
                  "  --cluster-size: the cluster GS handle's size hint (default 8; its MIS-2\n"
                  "  clusters ignore it but for the rows a team takes)\n");
      return 0;
    } else
      specs.push_back(argv[i]);
  }
  if (specs.empty() || reps < 1 || cluster_hint < 1) {
    std::fprintf(stderr, "usage: kokkos_compare SPEC... [--reps N]\n");
    return 2;
  }
  Kokkos::initialize(argc, argv);
  {
    mispc_context *ctx = nullptr;
    if (mispc_context_create(&ctx)) return 1;
    std::printf("Kokkos %d.%d.%d, execution space %s\n", KOKKOS_VERSION / 10000,
                KOKKOS_VERSION / 100 % 100, KOKKOS_VERSION % 100, Exec::name());
    for (const char *s : specs) run(ctx, s, reps, cluster_hint);
    mispc_context_destroy(ctx);
  }
  Kokkos::finalize();
  return 0;
}
