// Speed of jitted code against baselines measured in the same run, printed as a table:
// GEMM through jit vs OpenBLAS called directly (at 256-2048 cubed, and at the tiny GPT's
// and an MLP's shapes), a fused elementwise chain vs a plain C++ loop, causal attention's
// forward and backward as one op (the blocked kernel) vs the same attention written as
// products, mask and softmax, a layer norm's, the cross-entropy loss's and the GELU's
// forward and backward vs PyTorch's own fused CPU kernels (those two groups in
// jit_row_benchmarks.cpp), a sum over rows into columns vs a plain C++ loop, transposing copies
// vs PyTorch's, and the compile time of a 2-layer MLP forward pass (cold and with a warm
// cache). Run from the repository's root (the PyTorch script's path is relative). One group
// of rows runs alone when named.
#include "benchmarks/JitBenchmarkGroups.h"
#include "benchmarks/TorchBaseline.h"
#include "frontend/Loom.h"

#include <algorithm>
#include <chrono>
#include <cblas.h>
#include <cmath>
#include <cstdio>
#include <string>
#include <filesystem>
#include <functional>
#include <vector>

using namespace loom;
using loom::bench::attentionRows;
using loom::bench::medianSeconds;
using loom::bench::randomVector;
using loom::bench::rowKernelRows;
using Clock = std::chrono::steady_clock;

namespace {

/// One product C[m x n] = op(A) op(B), A or B transposed as stored, jitted (the transposes
/// folded into the product) against OpenBLAS called directly on its threads: one table row.
struct GemmShape {
  int64_t m, n, k;
  bool ta = false, tb = false;
};
void gemmRow(GemmShape s, int reps) {
  auto fn = jit(
      [s](Tensor a, Tensor b) {
        return matmul(s.ta ? transpose(a, {1, 0}) : a, s.tb ? transpose(b, {1, 0}) : b);
      },
      {.name = "gemm"});
  std::vector<float> a = randomVector(s.m * s.k, 1), b = randomVector(s.k * s.n, 2);
  std::vector<float> c(s.m * s.n);
  Array da = s.ta ? Array::from(a, {s.k, s.m}) : Array::from(a, {s.m, s.k});
  Array db = s.tb ? Array::from(b, {s.n, s.k}) : Array::from(b, {s.k, s.n});
  double blas = medianSeconds(reps, [&] {
    cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans,
                s.m, s.n, s.k, 1.0f, a.data(), s.ta ? s.m : s.k, b.data(), s.tb ? s.k : s.n,
                0.0f, c.data(), s.n);
  });
  double loom = medianSeconds(reps, [&] { fn(da, db).block_until_ready(); });
  double flops = 2.0 * s.m * s.n * s.k;
  std::printf("| GEMM %ldx%ldx%ld f32%s%s | %.1f GFLOP/s | %.1f GFLOP/s (OpenBLAS) | %.2f |\n",
              s.m, s.n, s.k, s.ta ? ", A^T" : "", s.tb ? ", B^T" : "", flops / loom / 1e9,
              flops / blas / 1e9, blas / loom);
}

void gemmRows() {
  for (int64_t n : {256, 1024, 2048})
    gemmRow({n, n, n}, n <= 256 ? 50 : n <= 1024 ? 10 : 5);
}

/// The gradients of three weights that read the same x (a projection's q, k and v): x^T dY_o
/// for o < 3, x [k x m] and dY_o [k x n], jitted as one product with an outer dim, against
/// OpenBLAS called for each on its threads.
void sharedXGradientsRow(int64_t m, int64_t n, int64_t k, int reps) {
  auto fn = jit([](Tensor x, Tensor dy) { return einsum("km,okn->omn", x, dy); },
                {.name = "shared_x_gradients"});
  std::vector<float> x = randomVector(k * m, 3), dy = randomVector(3 * k * n, 4);
  std::vector<float> c(3 * m * n);
  Array dx = Array::from(x, {k, m}), ddy = Array::from(dy, {3, k, n});
  double blas = medianSeconds(reps, [&] {
    for (int64_t o = 0; o < 3; ++o)
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m, n, k, 1.0f, x.data(), m,
                  dy.data() + o * k * n, n, 0.0f, c.data() + o * m * n, n);
  });
  double loom = medianSeconds(reps, [&] { fn(dx, ddy).block_until_ready(); });
  double flops = 2.0 * 3 * m * n * k;
  std::printf("| GEMM [%ldx%ld]^T x 3 [%ldx%ld] f32 (q, k, v weights' gradients) | %.1f GFLOP/s "
              "| %.1f GFLOP/s (OpenBLAS) | %.2f |\n",
              k, m, k, n, flops / loom / 1e9, flops / blas / 1e9, blas / loom);
}

/// The tiny GPT step's products (512 tokens, width 128, MLP 512), an MLP's 10-wide ones, and
/// weights' gradients (A^T): the tiny GPT's MLP weight and its q, k and v weights, and the
/// 784-512-512-10 MLP's first two at batch 128; products of depth 1 and 16 (the outer
/// product of a regression head's gradient; the deepest one lowered as an elementwise loop).
void smallGemmRows() {
  const GemmShape shapes[] = {{512, 512, 128},        {512, 128, 512},
                              {512, 128, 512, true},  {512, 512, 128, false, true},
                              {512, 128, 512, false, true}, {512, 384, 128},
                              {1024, 10, 512},        {1024, 512, 10, false, true},
                              {128, 512, 512, true},  {784, 512, 128, true},
                              {512, 512, 128, true}};
  for (GemmShape s : shapes)
    gemmRow(s, 200);
  for (int64_t k : {1, 16}) // shallow products: elementwise loops, not GEMMs (K <= 16)
    gemmRow({1024, 512, k, false, true}, 200);
  sharedXGradientsRow(128, 128, 512, 200);
}

// The baseline for the fused chain: what a C++ programmer writes, built -O3.
void plainGelu(const float *x, float a, float b, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] * a + b;
    out[i] = 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}

void elementwiseRow() {
  const int64_t n = 16 * 1024 * 1024;
  std::vector<float> x = randomVector(n, 3), out(n);
  auto chain = jit([](Tensor x, Tensor a, Tensor b) { return gelu(x * a + b); },
                   {.name = "gelu_chain"});
  Array dx = Array::from(x, {n});
  Array da = Array::scalar(1.5f), db = Array::scalar(0.25f);
  double plain = medianSeconds(5, [&] { plainGelu(x.data(), 1.5f, 0.25f, out.data(), n); });
  double loom = medianSeconds(5, [&] { chain(dx, da, db).block_until_ready(); });
  double bytes = 2.0 * n * sizeof(float); // read x, write the result
  std::printf("| gelu(x*a+b), 16M f32 | %.1f GB/s | %.1f GB/s (C++ loop -O3) | %.2f |\n",
              bytes / loom / 1e9, bytes / plain / 1e9, plain / loom);
}

// The baseline for a sum into columns: rows added in turn into the [width] result, -O3.
void plainColumnSum(const float *x, const float *y, float *out, int64_t rows, int64_t width) {
  std::fill_n(out, width, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < width; ++c)
      out[c] += x[r * width + c] * y[r * width + c];
}

/// A reduction over rows into columns (a layer norm's scale gradient: sum of x * dy over the
/// rows), in cache and out of it.
void columnSumRows() {
  auto fn = jit([](Tensor x, Tensor y) { return sum(x * y, {0}); }, {.name = "column_sum"});
  for (auto [rows, width] : {std::pair<int64_t, int64_t>{2048, 256}, {8192, 768}}) {
    std::vector<float> x = randomVector(rows * width, 11), y = randomVector(rows * width, 12);
    std::vector<float> out(width);
    Array dx = Array::from(x, {rows, width}), dy = Array::from(y, {rows, width});
    int reps = rows * width < (1 << 20) ? 200 : 20;
    double plain = medianSeconds(
        reps, [&] { plainColumnSum(x.data(), y.data(), out.data(), rows, width); });
    double loom = medianSeconds(reps, [&] { fn(dx, dy).block_until_ready(); });
    double bytes = 2.0 * rows * width * sizeof(float);
    std::printf("| sum(x*y) over rows [%ld, %ld] f32 | %.1f GB/s | %.1f GB/s (C++ loop -O3) | "
                "%.2f |\n",
                rows, width, bytes / loom / 1e9, bytes / plain / 1e9, plain / loom);
  }
}

void compileRows() {
  namespace fs = std::filesystem;
  fs::path cacheDir = fs::temp_directory_path() / "loom-bench-cache";
  fs::remove_all(cacheDir);
  ::setenv("LOOM_CACHE_DIR", cacheDir.c_str(), 1);
  auto mlp = [](Tensor x, Tensor w1, Tensor b1, Tensor w2, Tensor b2) {
    return matmul(gelu(matmul(x, w1) + b1), w2) + b2;
  };
  Array x = Array::from(randomVector(32 * 256, 4), {32, 256});
  Array w1 = Array::from(randomVector(256 * 512, 5), {256, 512});
  Array b1 = Array::from(randomVector(512, 6), {512});
  Array w2 = Array::from(randomVector(512 * 10, 7), {512, 10});
  Array b2 = Array::from(randomVector(10, 8), {10});
  auto timeFirstCall = [&](bool useCache) {
    auto fn = jit(mlp, {.name = "mlp2", .useCache = useCache});
    auto start = Clock::now();
    fn(x, w1, b1, w2, b2).block_until_ready();
    return std::make_pair(std::chrono::duration<double>(Clock::now() - start).count(),
                          fn.stats().cacheHits);
  };
  auto [cold, coldHits] = timeFirstCall(false);
  timeFirstCall(true); // fills the cache
  auto [warm, warmHits] = timeFirstCall(true);
  std::printf("| compile 2-layer MLP forward | %.1f ms warm cache (%d hit) | %.1f ms cold "
              "(%d hits) | %.1fx |\n",
              warm * 1e3, warmHits, cold * 1e3, coldHits, cold / warm);
  fs::remove_all(cacheDir);
}

/// Transposing copies (the last two dims swapped) against PyTorch's, which copies in blocks:
/// a square power-of-two matrix (its columns' lines collide in the caches), a GPT-2-wide one
/// and a batch of them.
void transposeRows() {
  struct Case {
    int64_t batch, rows, width;
  };
  for (Case c : {Case{1, 1024, 1024}, Case{1, 4096, 768}, Case{16, 512, 512}}) {
    std::vector<int64_t> shape = {c.rows, c.width};
    Axes perm = {1, 0};
    if (c.batch > 1)
      shape.insert(shape.begin(), c.batch), perm = {0, 2, 1};
    auto fn = jit([perm](Tensor x) { return transpose(x, perm); }, {.name = "transpose"});
    Array x = Array::from(randomVector(c.batch * c.rows * c.width, 31), shape);
    double loom = 1e30, torch = 0; // 0: PyTorch not measured
    for (int round = 0; round < 3; ++round) {
      loom = std::min(loom, medianSeconds(20, [&] { fn(x).block_until_ready(); }));
      std::vector<double> t = bench::runTorchBaseline(
          "benchmarks/rows_torch.py",
          {"transpose", std::to_string(c.rows), std::to_string(c.width), "20",
           std::to_string(c.batch)},
          /*openmp=*/true, 1, bench::Better::Lower);
      if (!t.empty())
        torch = torch == 0 ? t[0] : std::min(torch, t[0]);
    }
    double bytes = 2.0 * c.batch * c.rows * c.width * sizeof(float); // read and write
    char baseline[64] = "n/a", ratio[32] = "n/a";
    if (torch > 0) {
      std::snprintf(baseline, sizeof baseline, "%.1f GB/s", bytes / torch / 1e9);
      std::snprintf(ratio, sizeof ratio, "%.2f", torch / loom);
    }
    std::printf("| transpose [%ld, %ld, %ld] f32 | %.1f GB/s | %s (PyTorch's copy) | %s |\n",
                c.batch, c.rows, c.width, bytes / loom / 1e9, baseline, ratio);
  }
}

} // namespace

int main(int argc, char **argv) {
  bench::runOnOpenBlasOwnKernels(argv); // both sides on the CPU's own kernels
  const std::pair<const char *, void (*)()> groups[] = {
      {"gemm", gemmRows},         {"small_gemm", smallGemmRows}, {"elementwise", elementwiseRow},
      {"columns", columnSumRows}, {"attention", attentionRows},  {"rows", rowKernelRows},
      {"transpose", transposeRows}, {"compile", compileRows}};
  std::string only = argc > 1 ? argv[1] : "";
  bool help = only == "-h" || only == "--help";
  bool known = only.empty() || std::any_of(std::begin(groups), std::end(groups),
                                           [&](auto &group) { return only == group.first; });
  if (argc > 2 || help || !known) {
    if (!help)
      std::fprintf(stderr, "loom-jit-benchmarks: unexpected argument '%s'\n",
                   argc > 2 ? argv[2] : argv[1]);
    std::fputs("usage: loom-jit-benchmarks [GROUP]\n"
               "  GROUP: gemm, small_gemm, elementwise, columns, attention, rows, transpose "
               "or compile "
               "(default: all)\n",
               help ? stdout : stderr);
    return help ? 0 : 2;
  }
  std::printf("| benchmark | Loom | baseline (same run) | baseline time / Loom time |\n");
  std::printf("|---|---|---|---|\n");
  for (auto [name, run] : groups)
    if (only.empty() || only == name)
      run();
  return 0;
}
