// Speed of jitted code against baselines measured in the same run, printed as a table:
// GEMM through jit vs OpenBLAS called directly (at 256-2048 cubed, and at the tiny GPT's
// and an MLP's shapes), a fused elementwise chain vs a plain C++ loop, causal attention's
// forward and backward as one op (the blocked kernel) vs the same attention written as
// products, mask and softmax, a layer norm's, the cross-entropy loss's and the GELU's
// forward and backward vs PyTorch's own fused CPU kernels (rows_torch.py, 2 threads,
// the OpenMP OpenBLAS), a sum over rows into columns vs a plain C++ loop, transposing copies
// vs PyTorch's, and the compile time of a 2-layer MLP forward pass (cold and with a warm
// cache). Run from the repository's root (the PyTorch script's path is relative). One group
// of rows runs alone when named.
#include "benchmarks/TorchBaseline.h"
#include "frontend/Loom.h"
#include "frontend/nn/Layers.h"

#include <algorithm>
#include <chrono>
#include <cblas.h>
#include <cmath>
#include <cstdio>
#include <string>
#include <filesystem>
#include <functional>
#include <random>
#include <vector>

using namespace loom;
using Clock = std::chrono::steady_clock;

namespace {

/// Median wall time in seconds of `reps` runs of `fn` (after one warm-up run).
double medianSeconds(int reps, const std::function<void()> &fn) {
  fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = Clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<float> randomVector(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

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
/// 784-512-512-10 MLP's first two at batch 128.
void smallGemmRows() {
  const GemmShape shapes[] = {{512, 512, 128},        {512, 128, 512},
                              {512, 128, 512, true},  {512, 512, 128, false, true},
                              {512, 128, 512, false, true}, {512, 384, 128},
                              {1024, 10, 512},        {1024, 512, 10, false, true},
                              {128, 512, 512, true},  {784, 512, 128, true},
                              {512, 512, 128, true}};
  for (GemmShape s : shapes)
    gemmRow(s, 200);
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

/// Causal attention written out, as it was before dot_product_attention: the [B, H, T, T]
/// scores, mask and softmax made in full.
Tensor composedAttention(const Tensor &q, const Tensor &k, const Tensor &v) {
  int64_t seq = q.dim(1);
  Tensor scores = einsum("bthd,bshd->bhts", q, k) * (1.0 / std::sqrt(double(q.dim(3))));
  Tensor allowed = greater_equal(iota({seq, seq}, 0), iota({seq, seq}, 1));
  scores = where(allowed, scores, full({}, -1e9, scores.dtype()));
  return einsum("bhts,bshd->bthd", softmax(scores, -1), v);
}

/// Forward and backward of causal attention at the GPT benchmark's shapes and a longer
/// sequence: one step's attention, with the gradients of q, k and v.
void attentionRows() {
  struct Shape4 {
    const char *name;
    int64_t batch, seq, heads, dim;
  };
  for (Shape4 s : {Shape4{"GPT tiny", 8, 64, 4, 32}, Shape4{"GPT small", 8, 128, 4, 64},
                   Shape4{"GPT medium", 4, 256, 8, 64}, Shape4{"T = 1024", 2, 1024, 8, 64}}) {
    auto step = [](auto attention) {
      return jit([attention](Tensor q, Tensor k, Tensor v, Tensor r) {
        auto loss = [&](Tree<Tensor> p, Tensor weights) {
          return sum(attention(p.at("q").leaf(), p.at("k").leaf(), p.at("v").leaf()) * weights);
        };
        Tree<Tensor> params;
        params["q"] = q, params["k"] = k, params["v"] = v;
        Tree<Tensor> g = grad(loss)(params, r);
        return std::make_tuple(g.at("q").leaf(), g.at("k").leaf(), g.at("v").leaf());
      });
    };
    auto fused = step([](const Tensor &q, const Tensor &k, const Tensor &v) {
      return dot_product_attention(q, k, v, true);
    });
    auto composed = step(composedAttention);
    auto dropped = step([](const Tensor &q, const Tensor &k, const Tensor &v) {
      return dot_product_attention(q, k, v, {0.1, random::keyConstant(1)}, true);
    });
    int64_t n = s.batch * s.seq * s.heads * s.dim;
    Shape shape = {s.batch, s.seq, s.heads, s.dim};
    Array q = Array::from(randomVector(n, 11), shape), k = Array::from(randomVector(n, 12), shape),
          v = Array::from(randomVector(n, 13), shape), r = Array::from(randomVector(n, 14), shape);
    auto run = [&](auto &fn) {
      auto [dq, dk, dv] = fn(q, k, v, r);
      dv.block_until_ready();
    };
    int reps = s.seq >= 1024 ? 5 : 20;
    // In turns, each keeping its best median (the machine's speed drifts).
    double fusedTime = 1e30, composedTime = 1e30, droppedTime = 1e30;
    for (int round = 0; round < 3; ++round) {
      fusedTime = std::min(fusedTime, medianSeconds(reps, [&] { run(fused); }));
      composedTime = std::min(composedTime, medianSeconds(reps, [&] { run(composed); }));
      droppedTime = std::min(droppedTime, medianSeconds(reps, [&] { run(dropped); }));
    }
    std::printf("| causal attention fwd+bwd, %s [%ld, %ld, %ld, %ld] f32 | %.2f ms | %.2f ms "
                "(products, mask, softmax) | %.2f |\n",
                s.name, s.batch, s.seq, s.heads, s.dim, fusedTime * 1e3, composedTime * 1e3,
                composedTime / fusedTime);
    // Dropout's cost: the kernels draw each probability's keep bit where they use it.
    std::printf("| the same with dropout 0.1 on the probabilities | %.2f ms | %.2f ms "
                "(no dropout) | %.2f |\n",
                droppedTime * 1e3, fusedTime * 1e3, fusedTime / droppedTime);
  }
}

/// A layer norm's and the loss's forward and backward (each a few passes over the same rows,
/// run row by row in cache) against PyTorch's fused kernels, at GPT medium's [B*T, C] and
/// [B*T, vocab] and GPT-2's width; the GELU's (tanh form) at the tiny and medium GPTs' MLP
/// hidden activations.
void rowKernelRows() {
  enum Kind { LayerNorm, CrossEntropy, Gelu };
  const char *names[] = {"layer norm", "cross-entropy", "GELU (tanh)"};
  const char *torchKinds[] = {"layernorm", "xent", "gelu"}; // rows_torch.py's names
  struct Case {
    Kind kind;
    int64_t rows, width;
  };
  for (Case c : {Case{LayerNorm, 1024, 512}, Case{LayerNorm, 2048, 768},
                 Case{CrossEntropy, 1024, 4096}, Case{Gelu, 512, 512}, Case{Gelu, 1024, 2048}}) {
    int64_t n = c.rows * c.width;
    Array x = Array::from(randomVector(n, 21), {c.rows, c.width});
    Array weights = Array::from(randomVector(n, 22), {c.rows, c.width});
    Array scale = Array::from(std::vector<float>(c.width, 1.0f), {c.width});
    Array bias = Array::from(std::vector<float>(c.width, 0.0f), {c.width});
    std::vector<int32_t> labels(c.rows);
    for (int64_t i = 0; i < c.rows; ++i)
      labels[i] = static_cast<int32_t>((i * 7919) % c.width);
    Array targets = Array::from(labels, {c.rows});
    // Only the case's program is traced and compiled (on its first call).
    std::function<void()> run;
    if (c.kind == LayerNorm) {
      auto layerNorm = jit([](Tensor x, Tensor scale, Tensor bias, Tensor weights) {
        auto loss = [](Tree<Tensor> p, Tensor w) {
          return sum(nn::layerNorm(p, p.at("x").leaf()) * w);
        };
        Tree<Tensor> p;
        p["x"] = x, p["scale"] = scale, p["bias"] = bias;
        Tree<Tensor> g = grad(loss)(p, weights);
        return std::make_tuple(g.at("x").leaf(), g.at("scale").leaf(), g.at("bias").leaf());
      });
      run = [=]() mutable {
        auto [dx, dscale, dbias] = layerNorm(x, scale, bias, weights);
        dbias.block_until_ready();
      };
    } else if (c.kind == Gelu) {
      // The activation and its gradient, as a training step needs both.
      auto gelu = jit([](Tensor x, Tensor weights) {
        Tensor dx = grad([](Tensor x, Tensor w) { return sum(loom::gelu(x) * w); })(x, weights);
        return std::make_tuple(loom::gelu(x), dx);
      });
      run = [=]() mutable {
        auto [y, dx] = gelu(x, weights);
        dx.block_until_ready();
      };
    } else {
      auto loss = jit([](Tensor logits, Tensor targets) {
        return grad([](Tensor l, Tensor t) { return nn::crossEntropy(l, t); })(logits, targets);
      });
      run = [=]() mutable { loss(x, targets).block_until_ready(); };
    }
    // In turns, each keeping its best median: PyTorch's time here varies up to 5x run to run.
    double loom = 1e30, torch = 0; // 0: PyTorch not measured
    for (int round = 0; round < 3; ++round) {
      loom = std::min(loom, medianSeconds(20, run));
      std::vector<double> t = bench::runTorchBaseline(
          "benchmarks/rows_torch.py",
          {torchKinds[c.kind], std::to_string(c.rows), std::to_string(c.width), "20"},
          /*openmp=*/true, 1, bench::Better::Lower);
      if (!t.empty())
        torch = torch == 0 ? t[0] : std::min(torch, t[0]);
    }
    char baseline[64] = "n/a", ratio[32] = "n/a";
    if (torch > 0) {
      std::snprintf(baseline, sizeof baseline, "%.2f ms", torch * 1e3);
      std::snprintf(ratio, sizeof ratio, "%.2f", torch / loom);
    }
    std::printf("| %s fwd+bwd [%ld, %ld] f32 | %.2f ms | %s (PyTorch's kernel) | %s |\n",
                names[c.kind], c.rows, c.width, loom * 1e3, baseline, ratio);
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
