// remat (activation checkpointing): the ops traced under it are marked as one group each,
// and a gradient through rematerialized layers equals the gradient without (the same ops,
// recomputed); without a gradient nothing changes. The GPT's layers likewise.
#include "frontend/Loom.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loom;

namespace {

constexpr int64_t kRematWidth = 48, kRematRows = 16;

Array rematRamp(const Shape &shape, float scale) {
  std::vector<float> v(shape[0] * shape[1]);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = scale * static_cast<float>(static_cast<int64_t>(i * 37 % 23) - 11);
  return Array::from(v, shape);
}

/// Three layers x -> tanh(x w) * sigmoid(x w), each under remat when `checkpointed`.
Tensor rematLoss(const std::vector<Tensor> &ws, const Tensor &x, bool checkpointed) {
  auto layer = [](const Tensor &w, const Tensor &in) {
    Tensor p = matmul(in, w);
    return tanh(p) * sigmoid(p);
  };
  Tensor h = x;
  for (const Tensor &w : ws)
    h = checkpointed ? remat(layer)(w, h) : layer(w, h);
  return sum(h * h);
}

void expectClose(const Array &a, const Array &b, const std::string &what) {
  std::vector<float> va = a.to_host<float>(), vb = b.to_host<float>();
  ASSERT_EQ(va.size(), vb.size());
  for (size_t i = 0; i < va.size(); ++i)
    ASSERT_NEAR(va[i], vb[i], 1e-6 * (1 + std::abs(vb[i]))) << what << " element " << i;
}

TEST(Remat, GradientsThroughRecomputedLayersEqualThoseWithout) {
  auto gradients = [](bool checkpointed) {
    return jit([checkpointed](Tensor w1, Tensor w2, Tensor w3, Tensor x) {
      auto loss = [checkpointed](const Tensor &a, const Tensor &b, const Tensor &c,
                                 const Tensor &in) {
        return rematLoss({a, b, c}, in, checkpointed);
      };
      ValueAndGrad vg = value_and_grad(loss, {0, 1, 2})(w1, w2, w3, x);
      return std::make_tuple(vg.value, vg.grads[0].leaf(), vg.grads[1].leaf(),
                             vg.grads[2].leaf());
    });
  };
  Array w1 = rematRamp({kRematWidth, kRematWidth}, 0.02f),
        w2 = rematRamp({kRematWidth, kRematWidth}, -0.03f),
        w3 = rematRamp({kRematWidth, kRematWidth}, 0.025f),
        x = rematRamp({kRematRows, kRematWidth}, 0.1f);
  auto [v0, a0, b0, c0] = gradients(false)(w1, w2, w3, x);
  auto [v1, a1, b1, c1] = gradients(true)(w1, w2, w3, x);
  EXPECT_NEAR(v1.item<float>(), v0.item<float>(), 1e-6 * std::abs(v0.item<float>()));
  expectClose(a1, a0, "w1's gradient");
  expectClose(b1, b0, "w2's gradient");
  expectClose(c1, c0, "w3's gradient");
}

TEST(Remat, EachCallIsAGroupOfItsOwnAndAForwardIsUnchanged) {
  auto forward = [](bool checkpointed) {
    return jit([checkpointed](Tensor w1, Tensor w2, Tensor w3, Tensor x) {
      return rematLoss({w1, w2, w3}, x, checkpointed);
    });
  };
  Array w = rematRamp({kRematWidth, kRematWidth}, 0.02f);
  Array x = rematRamp({kRematRows, kRematWidth}, 0.1f);
  std::string ir = forward(true).lower(w, w, w, x);
  for (const char *group : {"loom.remat = 1", "loom.remat = 2", "loom.remat = 3"})
    EXPECT_NE(ir.find(group), std::string::npos) << group << "\n" << ir;
  EXPECT_EQ(ir.find("loom.remat = 4"), std::string::npos) << ir;
  EXPECT_EQ(forward(true)(w, w, w, x).item<float>(), forward(false)(w, w, w, x).item<float>());
}

TEST(Remat, TheGptsGradientIsTheSameWithItsLayersRecomputed) {
  nn::GptConfig config{.vocab = 16, .embed = 16, .layers = 3, .heads = 2, .seq = 8, .batch = 4};
  nn::GptConfig recomputing = config;
  recomputing.remat = true;
  auto gradient = [](const nn::GptConfig &c) {
    return jit([&c](Tree<Tensor> params, Tensor ids) {
      auto loss = [&c](const Tree<Tensor> &p, const Tensor &i) { return nn::gptLoss(c, p, i, i); };
      return grad(loss)(params, ids);
    });
  };
  std::vector<int32_t> tokens(config.batch * config.seq);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<int32_t>((i * 5 + 3) % config.vocab);
  Array ids = Array::from(tokens, {config.batch, config.seq});
  Tree<Array> params = nn::gptInit(config, 4);
  std::vector<Array> kept, recomputed;
  gradient(config)(params, ids).visit([&](const Array &a) { kept.push_back(a); });
  gradient(recomputing)(params, ids).visit([&](const Array &a) { recomputed.push_back(a); });
  ASSERT_EQ(kept.size(), recomputed.size());
  for (size_t i = 0; i < kept.size(); ++i)
    expectClose(recomputed[i], kept[i], "gradient leaf " + std::to_string(i));
}

} // namespace
