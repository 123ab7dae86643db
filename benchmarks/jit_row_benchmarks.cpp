// loom-jit-benchmarks' row groups (see jit_benchmarks.cpp): causal attention's forward and
// backward as one op (the blocked kernel) against the same attention written as products,
// mask and softmax; a layer norm's, the cross-entropy loss's and the GELU's forward and
// backward against PyTorch's own fused CPU kernels (rows_torch.py, 2 threads, the OpenMP
// OpenBLAS).
#include "benchmarks/JitBenchmarkGroups.h"
#include "benchmarks/TorchBaseline.h"
#include "frontend/Loom.h"
#include "frontend/nn/Layers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace loom;
using loom::bench::medianSeconds;
using loom::bench::randomVector;

namespace {
/// Causal attention written out, as it was before dot_product_attention: the [B, H, T, T]
/// scores, mask and softmax made in full.
Tensor composedAttention(const Tensor &q, const Tensor &k, const Tensor &v) {
  int64_t seq = q.dim(1);
  Tensor scores = einsum("bthd,bshd->bhts", q, k) * (1.0 / std::sqrt(double(q.dim(3))));
  Tensor allowed = greater_equal(iota({seq, seq}, 0), iota({seq, seq}, 1));
  scores = where(allowed, scores, full({}, -1e9, scores.dtype()));
  return einsum("bhts,bshd->bthd", softmax(scores, -1), v);
}
} // namespace

/// Forward and backward of causal attention at the GPT benchmark's shapes and a longer
/// sequence: one step's attention, with the gradients of q, k and v.
void loom::bench::attentionRows() {
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
void loom::bench::rowKernelRows() {
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
