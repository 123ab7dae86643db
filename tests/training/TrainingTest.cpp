// Training end to end on one device: the MLP and the GPT decoder reduce their loss on
// synthetic data below a stated threshold in a fixed number of steps, each train step is
// traced and compiled once, the same seed gives bit-identical losses on two runs, and the GPT
// trains in mixed precision (bf16 products).
#include "frontend/Loom.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace loom;

namespace {

/// A small MLP classifier on prototype-plus-noise data: returns the loss of every step.
std::vector<float> trainMlp(int steps, int *traces) {
  const int64_t inputs = 32, hidden = 64, classes = 4, batch = 32;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> prototypes(classes * inputs);
  for (float &p : prototypes)
    p = normal(rng);
  auto init = [&](int64_t in, int64_t out) {
    std::vector<float> w(in * out);
    for (float &v : w)
      v = normal(rng) * std::sqrt(2.0f / in);
    Tree<Array> layer;
    layer["w"] = Array::from(w, {in, out});
    layer["b"] = Array::from(std::vector<float>(out, 0.0f), {out});
    return layer;
  };
  Tree<Array> params;
  params["hidden"] = init(inputs, hidden);
  params["out"] = init(hidden, classes);
  Tree<Array> state = optim::sgdInit(params);

  auto loss = [](const Tree<Tensor> &p, const Tensor &x, const Tensor &y) {
    Tensor h = relu(matmul(x, p.at("hidden").at("w")) + p.at("hidden").at("b").leaf());
    Tensor logits = matmul(h, p.at("out").at("w")) + p.at("out").at("b").leaf();
    return nn::crossEntropy(logits, y);
  };
  optim::SgdOptions sgd{.lr = optim::constant(0.05), .momentum = 0.9};
  auto step = jit([&](Tree<Tensor> p, Tree<Tensor> s, Tensor x, Tensor y, Tensor t) {
    ValueAndGrad vg = value_and_grad(loss)(p, x, y);
    auto [np, ns] = optim::sgdUpdate(sgd, p, optim::clipByGlobalNorm(vg.grads[0], 5.0), s, t);
    return std::make_tuple(np, ns, vg.value);
  }, {.donateArgnums = {0, 1}});

  std::vector<Array> losses;
  for (int i = 0; i < steps; ++i) {
    std::vector<float> x(batch * inputs);
    std::vector<int32_t> y(batch);
    for (int64_t b = 0; b < batch; ++b) {
      y[b] = static_cast<int32_t>(rng() % classes);
      for (int64_t j = 0; j < inputs; ++j)
        x[b * inputs + j] = prototypes[y[b] * inputs + j] + 0.5f * normal(rng);
    }
    auto [p, s, l] = step(params, state, Array::from(x, {batch, inputs}), Array::from(y, {batch}),
                          Array::scalar(static_cast<float>(i)));
    params = p, state = s;
    losses.push_back(l); // read after the loop: no host read between steps
  }
  *traces = step.stats().traces;
  std::vector<float> values;
  for (const Array &l : losses)
    values.push_back(l.item<float>());
  return values;
}

/// A small GPT on a fixed bigram language (each token has two possible successors, so the
/// loss floor is ln 2): returns the loss of every step.
std::vector<float> trainGpt(int steps, int *traces, DType precision = DType::F32) {
  nn::GptConfig config{.vocab = 32, .embed = 32, .layers = 1, .heads = 2, .seq = 16,
                       .batch = 8, .precision = precision};
  std::mt19937 rng(11);
  std::vector<int32_t> next(config.vocab * 2);
  for (int32_t &n : next)
    n = static_cast<int32_t>(rng() % config.vocab);
  Tree<Array> params = nn::gptInit(config, 3);
  Tree<Array> state = optim::adamwInit(params);
  optim::AdamWOptions adamw{.lr = optim::warmupCosine(1e-2, 5, steps, 1e-3),
                            .weightDecay = 0.0};
  auto step = jit([&](Tree<Tensor> p, Tree<Tensor> s, Tensor ids, Tensor targets, Tensor t) {
    return nn::gptTrainStep(config, adamw, p, s, ids, targets, t);
  }, {.donateArgnums = {0, 1}});
  std::vector<Array> losses;
  for (int i = 0; i < steps; ++i) {
    std::vector<int32_t> ids, targets;
    for (int64_t b = 0; b < config.batch; ++b) {
      int32_t token = static_cast<int32_t>(rng() % config.vocab);
      for (int64_t t = 0; t < config.seq; ++t) {
        int32_t following = next[token * 2 + rng() % 2];
        ids.push_back(token), targets.push_back(following);
        token = following;
      }
    }
    auto [p, s, l] = step(params, state, Array::from(ids, {config.batch, config.seq}),
                          Array::from(targets, {config.batch, config.seq}),
                          Array::scalar(static_cast<float>(i)));
    params = p, state = s;
    losses.push_back(l);
  }
  *traces = step.stats().traces;
  std::vector<float> values;
  for (const Array &l : losses)
    values.push_back(l.item<float>());
  return values;
}

TEST(Training, MlpLossFalls) {
  int traces = 0;
  std::vector<float> losses = trainMlp(60, &traces);
  EXPECT_EQ(traces, 1) << "the train step must compile once and be reused";
  EXPECT_GT(losses.front(), 1.0f);
  EXPECT_LT(losses.back(), 0.1f) << "first loss " << losses.front();
}

TEST(Training, MlpSameSeedSameLosses) {
  int traces = 0;
  EXPECT_EQ(trainMlp(10, &traces), trainMlp(10, &traces)); // bit for bit
}

TEST(Training, GptLossFallsTowardsTheBigramFloor) {
  int traces = 0;
  std::vector<float> losses = trainGpt(80, &traces);
  EXPECT_EQ(traces, 1);
  EXPECT_GT(losses.front(), 3.0f); // about ln 32 = 3.47 at initialisation
  EXPECT_LT(losses.back(), 1.2f) << "first loss " << losses.front() << "; floor ln 2 = 0.69";
}

// Mixed precision (products in bf16, accumulated in f32): the first loss is the f32 one
// within bf16's rounding, and training reaches the same threshold.
TEST(Training, GptInBf16FollowsF32) {
  int traces = 0;
  std::vector<float> f32 = trainGpt(80, &traces), bf16 = trainGpt(80, &traces, DType::BF16);
  EXPECT_NEAR(bf16.front(), f32.front(), 0.02 * f32.front());
  EXPECT_NE(bf16.front(), f32.front()) << "the products must have been rounded to bf16";
  EXPECT_LT(bf16.back(), 1.2f) << "first loss " << bf16.front() << "; floor ln 2 = 0.69";
}

TEST(Training, GptSameSeedSameLosses) {
  int traces = 0;
  EXPECT_EQ(trainGpt(5, &traces), trainGpt(5, &traces));
}

} // namespace
