// Training throughput of an MLP 784-512-512-10 (ReLU, softmax cross-entropy) with SGD
// (momentum 0.9) and AdamW, next to the same model in PyTorch (mlp_torch.py) in the same run:
// samples/s, the median of 100 steps after warm-up, at a typical batch (128) and a large one
// (1024). Loom and PyTorch take turns for 3 rounds, and each keeps its best round: a step
// takes a few milliseconds, and this shared machine's speed drifts by 10-30% between runs
// seconds apart. The baseline is PyTorch as a careful user runs it: 2 threads on Debian's OpenMP
// OpenBLAS (swapped in for the Python process through LD_LIBRARY_PATH) and foreach
// optimizers; PyTorch as shipped is printed next to it for reference. The bound is the most
// any step could beat PyTorch's on this machine: PyTorch's step time over the step's products
// alone at the cores' FMA peak measured in the same run (GemmRate.h). Beside it, the most a
// step could beat PyTorch's with Loom's GEMMs as they are (OpenBLAS and runtime/SmallGemm.h):
// PyTorch's step over the step's eight products alone, timed in Loom in the same rounds.
#include "benchmarks/CoreSharing.h"
#include "benchmarks/GemmRate.h"
#include "benchmarks/IntegerList.h"
#include "benchmarks/TorchBaseline.h"
#include "frontend/Loom.h"
#include "frontend/nn/Layers.h"
#include "runtime/Blas.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace loom;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int64_t kWidths[] = {784, 512, 512, 10};

constexpr int kSteps = 100, kRounds = 3;

/// PyTorch's samples/s, with the OpenMP OpenBLAS if `openmp` (0: not measured).
double torchSamplesPerSecond(int64_t batch, const std::string &optimizer,
                             const std::string &script, bool openmp) {
  std::vector<double> v = bench::runTorchBaseline(
      script, {std::to_string(batch), optimizer, std::to_string(kSteps)}, openmp, 1);
  return v.empty() ? 0 : v[0];
}

Tree<Array> initParams() {
  Tree<Array> params;
  for (int i = 0; i < 3; ++i) {
    int64_t in = kWidths[i], out = kWidths[i + 1];
    std::vector<float> w(in * out), b(out, 0.0f);
    for (size_t j = 0; j < w.size(); ++j)
      w[j] = static_cast<float>(std::sin(0.7 * j + i) / std::sqrt(double(in)));
    params["layers"][std::to_string(i)]["w"] = Array::from(w, {in, out});
    params["layers"][std::to_string(i)]["b"] = Array::from(b, {out});
  }
  return params;
}

Tensor loss(const Tree<Tensor> &params, const Tensor &x, const Tensor &labels) {
  Tensor h = x;
  for (int i = 0; i < 3; ++i) {
    const Tree<Tensor> &layer = params.at("layers").at(std::to_string(i));
    h = matmul(h, layer.at("w").leaf()) + layer.at("b").leaf();
    if (i < 2)
      h = relu(h);
  }
  return nn::crossEntropy(h, labels);
}

/// FLOPs of one step's products: forward, and the weights' and inputs' gradients (none for
/// the first layer's input, which is data).
double productFlops(int64_t batch) {
  double flops = 0;
  for (int i = 0; i < 3; ++i)
    flops += 2.0 * batch * kWidths[i] * kWidths[i + 1] * (i == 0 ? 2 : 3);
  return flops;
}

/// One step's products alone: the forward's three and the backward's five, at the step's
/// shapes and transposes, without the activations, the loss or the update.
auto stepProducts() {
  return jit(
      [](Tensor x, Tensor w1, Tensor w2, Tensor w3, Tensor dOut) {
        Tensor h1 = matmul(x, w1), h2 = matmul(h1, w2);
        Tensor dH2 = matmul(dOut, transpose(w3)), dH1 = matmul(dH2, transpose(w2));
        return std::make_tuple(matmul(h2, w3), matmul(transpose(x), dH1),
                               matmul(transpose(h1), dH2), matmul(transpose(h2), dOut));
      },
      {.name = "mlp_products"});
}

/// The seconds of stepProducts() on Loom's GEMMs: the median of kSteps calls after 10 of
/// warm-up.
template <typename Products> double productsSeconds(Products &products, int64_t batch) {
  auto filled = [](int64_t rows, int64_t cols) {
    std::vector<float> v(rows * cols);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(std::sin(0.37 * i) * 0.05);
    return Array::from(v, {rows, cols});
  };
  Array x = filled(batch, 784), w1 = filled(784, 512), w2 = filled(512, 512),
        w3 = filled(512, 10), dOut = filled(batch, 10);
  std::vector<double> times;
  for (int i = 0; i < 10 + kSteps; ++i) {
    auto start = Clock::now();
    auto [o, d1, d2, d3] = products(x, w1, w2, w3, dOut);
    o.block_until_ready(), d1.block_until_ready(), d2.block_until_ready();
    d3.block_until_ready();
    if (i >= 10)
      times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Loom's and PyTorch's samples/s for one batch size and optimizer, each the best of kRounds
/// rounds taken in turns (a round: the median of kSteps steps after 10 of warm-up), and the
/// fastest round of Loom's products alone (productsSeconds) in seconds.
struct Rounds {
  double loom = 0, torch = 0, products = 1e30;
};

Rounds bestOfRounds(int64_t batch, const std::string &optimizer, const std::string &script) {
  bool adamw = optimizer == "adamw";
  optim::SgdOptions sgd{.lr = optim::constant(0.01), .momentum = 0.9};
  optim::AdamWOptions adam{.lr = optim::constant(1e-3), .weightDecay = 0.01};
  auto step = jit(
      [&](Tree<Tensor> params, Tree<Tensor> state, Tensor x, Tensor labels, Tensor t) {
        ValueAndGrad vg = value_and_grad(loss)(params, x, labels);
        auto [p, s] = adamw ? optim::adamwUpdate(adam, params, vg.grads[0], state, t)
                            : optim::sgdUpdate(sgd, params, vg.grads[0], state, t);
        return std::make_tuple(p, s, vg.value);
      },
      {.name = adamw ? "mlp_adamw" : "mlp_sgd", .donateArgnums = {0, 1}});
  Tree<Array> params = initParams();
  Tree<Array> state = adamw ? optim::adamwInit(params) : optim::sgdInit(params);
  std::vector<float> x(batch * 784);
  std::vector<int32_t> labels(batch);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(std::cos(0.13 * i));
  for (int64_t i = 0; i < batch; ++i)
    labels[i] = static_cast<int32_t>(i * 7 % 10);
  Array xs = Array::from(x, {batch, 784}), ys = Array::from(labels, {batch});
  auto products = stepProducts();
  Rounds best;
  int t = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<double> times;
    for (int i = 0; i < 10 + kSteps; ++i) {
      auto start = Clock::now();
      auto [p, s, l] = step(params, state, xs, ys, Array::scalar(float(t++)));
      l.block_until_ready();
      if (i >= 10)
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
      params = std::move(p), state = std::move(s);
    }
    std::sort(times.begin(), times.end());
    best.loom = std::max(best.loom, batch / times[times.size() / 2]);
    best.products = std::min(best.products, productsSeconds(products, batch));
    best.torch = std::max(best.torch, torchSamplesPerSecond(batch, optimizer, script, true));
  }
  return best;
}

} // namespace

int main(int argc, char **argv) {
  bench::runOnOpenBlasOwnKernels(argv); // both sides on the CPU's own kernels
  const char *usage = "usage: loom-mlp-benchmark [PYTORCH_SCRIPT] [--batches N,N,...]\n"
                      "  PYTORCH_SCRIPT defaults to benchmarks/mlp_torch.py; the batch sizes to "
                      "128,1024\n";
  std::string script = "benchmarks/mlp_torch.py";
  std::vector<int64_t> batches = {128, 1024};
  bool scriptGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help")
      return std::fputs(usage, stdout), 0;
    if (arg == "--batches" && i + 1 < argc) {
      batches = bench::positiveIntegers(argv[++i]);
      if (batches.empty())
        return std::fprintf(stderr, "loom-mlp-benchmark: --batches takes sizes separated by "
                            "commas, not '%s'\n%s", argv[i], usage), 2;
    } else if (arg[0] != '-' && !scriptGiven) {
      script = arg, scriptGiven = true;
    } else {
      return std::fprintf(stderr, "loom-mlp-benchmark: unexpected argument '%s'\n%s",
                          arg.c_str(), usage), 2;
    }
  }
  // Before any GEMM: OpenBLAS's threads spin for a while after one, on the probe's cores.
  std::string cores = bench::coreSharingLine();
  bench::blasGflops();
  const int threads = loom::rt::blasThreads();
  bench::fmaPeakGflops(threads);
  std::printf("%s\n", bench::kernelsLine(loom::rt::blasKernels()).c_str());
  std::printf("%s\n\n", cores.c_str());
  std::printf("| optimizer | batch | Loom samples/s | PyTorch samples/s (OpenMP OpenBLAS, "
              "foreach) | Loom / PyTorch | bound: PyTorch's step / its products at the FMA "
              "peak | bound on Loom's GEMMs: PyTorch's step / its products alone in Loom "
              "(their GFLOP/s) | PyTorch as shipped |\n|---|---|---|---|---|---|---|---|\n");
  for (const char *optimizer : {"sgd", "adamw"})
    for (int64_t batch : batches) {
      Rounds best = bestOfRounds(batch, optimizer, script);
      double peak = bench::fmaPeakGflops(threads); // measured again: the fastest so far
      bench::blasGflops();
      double shipped = torchSamplesPerSecond(batch, optimizer, script, false);
      double torchStep = best.torch > 0 ? batch / best.torch : 0;
      double bound = torchStep > 0 && peak > 0
                         ? bench::speedupBound(torchStep, productFlops(batch), peak)
                         : 0;
      std::printf("| %s | %lld | %.0f | %.0f | %s | %s | %s (%.0f) | %.0f |\n", optimizer,
                  (long long)batch, best.loom, best.torch,
                  bench::ratioText(best.torch > 0 ? best.loom / best.torch : 0).c_str(),
                  bench::ratioText(bound).c_str(),
                  bench::ratioText(torchStep / best.products).c_str(),
                  productFlops(batch) / best.products / 1e9, shipped);
      std::fflush(stdout);
    }
  std::printf("\nGEMM rate: OpenBLAS sgemm 1024^3, the fastest in this run (the faster of its "
              "threads and Loom's split, measured before each row): %.1f GFLOP/s\n",
              bench::blasGflops());
  std::printf("%s\n", bench::fmaPeakLine(bench::fmaPeakGflops(threads), threads).c_str());
  return 0;
}
