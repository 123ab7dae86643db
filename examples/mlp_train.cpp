// Trains an MLP classifier (784-512-512-10) on a deterministic synthetic MNIST-like data set
// with one jitted train step: forward, value_and_grad, AdamW, all on the device. The loop
// is asynchronous: step N+1 is enqueued before step N's loss is read on the host.
#include "frontend/Loom.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace loom;

namespace {

constexpr int64_t kInputs = 784, kHidden = 512, kClasses = 10;

/// Ten random prototype images; an example is its class's prototype plus noise.
struct SyntheticMnist {
  std::vector<float> images;
  std::vector<int32_t> labels;
  int64_t count;

  explicit SyntheticMnist(int64_t count, uint32_t seed = 1234) : count(count) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> prototypes(kClasses * kInputs);
    for (float &p : prototypes)
      p = normal(rng) > 0 ? 1.0f : 0.0f;
    images.resize(count * kInputs);
    labels.resize(count);
    for (int64_t i = 0; i < count; ++i) {
      labels[i] = static_cast<int32_t>(rng() % kClasses);
      for (int64_t j = 0; j < kInputs; ++j)
        images[i * kInputs + j] = prototypes[labels[i] * kInputs + j] + 4.0f * normal(rng);
    }
  }

  std::pair<Array, Array> batch(int64_t index, int64_t size) const {
    int64_t start = (index * size) % (count - size + 1);
    std::vector<float> x(images.begin() + start * kInputs,
                         images.begin() + (start + size) * kInputs);
    std::vector<int32_t> y(labels.begin() + start, labels.begin() + start + size);
    return {Array::from(x, {size, kInputs}), Array::from(y, {size})};
  }
};

/// He-normal weights and zero biases (host-side initialisation with a fixed seed).
Tree<Array> initParams(uint32_t seed) {
  std::mt19937 rng(seed);
  auto layer = [&](int64_t in, int64_t out) {
    std::normal_distribution<float> normal(0.0f, std::sqrt(2.0f / in));
    std::vector<float> w(in * out);
    for (float &v : w)
      v = normal(rng);
    Tree<Array> t;
    t["w"] = Array::from(w, {in, out});
    t["b"] = Array::from(std::vector<float>(out, 0.0f), {out});
    return t;
  };
  Tree<Array> params;
  params["layer1"] = layer(kInputs, kHidden);
  params["layer2"] = layer(kHidden, kHidden);
  params["out"] = layer(kHidden, kClasses);
  return params;
}

Tensor dense(const Tree<Tensor> &p, const Tensor &x) {
  return matmul(x, p.at("w")) + p.at("b").leaf();
}

/// Mean cross-entropy of the MLP's predictions.
Tensor loss(const Tree<Tensor> &params, const Tensor &images, const Tensor &labels) {
  Tensor h = gelu(dense(params.at("layer1"), images));
  h = gelu(dense(params.at("layer2"), h));
  Tensor logp = log_softmax(dense(params.at("out"), h));
  return -mean(sum(logp * one_hot(labels, kClasses), {-1}));
}

} // namespace

int main(int argc, char **argv) {
  int64_t steps = argc > 1 ? std::atoll(argv[1]) : 200, batchSize = 128;
  SyntheticMnist data(8192);
  optim::AdamWOptions adamw{.lr = optim::warmupCosine(2e-3, 20, steps, 1e-4)};

  auto trainStep = jit(
      [&](Tree<Tensor> params, Tree<Tensor> state, Tensor images, Tensor labels, Tensor step) {
        ValueAndGrad vg = value_and_grad(loss)(params, images, labels);
        auto [newParams, newState] =
            optim::adamwUpdate(adamw, params, vg.grads[0], state, step);
        return std::make_tuple(newParams, newState, vg.value);
      },
      // Parameters and optimizer state are updated in place.
      {.name = "mlp_train_step", .donateArgnums = {0, 1}});

  try {
    Tree<Array> params = initParams(0);
    Tree<Array> state = optim::adamwInit(params);
    Array previousLoss;
    auto start = std::chrono::steady_clock::now();
    for (int64_t step = 0; step < steps; ++step) {
      auto [images, labels] = data.batch(step, batchSize);
      // Enqueue this step; it waits on the previous step's parameters, not on the host.
      auto [newParams, newState, lossValue] =
          trainStep(params, state, images, labels, Array::scalar(static_cast<float>(step)));
      params = newParams, state = newState;
      // Read the previous step's loss while this one runs.
      if (previousLoss.valid() && (step % 20 == 1 || step == steps - 1)) {
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("step %4ld  loss %.4f  lr %.2e  %.0f examples/s\n", step - 1,
                    previousLoss.item<float>(), adamw.lr.at(step - 1),
                    step * batchSize / seconds);
      }
      previousLoss = lossValue;
    }
    std::printf("final loss %.4f after %ld steps (train step traced %d time(s))\n",
                previousLoss.item<float>(), steps, trainStep.stats().traces);
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
