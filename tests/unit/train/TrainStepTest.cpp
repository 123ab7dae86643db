// loom-train's traced train step with an f16 model: the dynamic loss scale lets small
// gradients through, and a step whose gradients overflow f16 changes nothing but the scale
// (and the EMA of the parameters, which the step carries).
// The state machine of the scale alone, and allFinite, against hand-worked sequences.
#include "frontend/Loom.h"
#include "frontend/train/TrainStep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace loom;
using namespace loom::train;

namespace {

/// loss = sum(w * x), computed in f16 from f32 parameters w [4] and batch x [4].
class HalfDotTask final : public TrainTask {
public:
  std::string name() const override { return "half_dot"; }
  std::string describe() const override { return "w . x in f16"; }
  std::string unit() const override { return "examples"; }
  int64_t unitsPerStep() const override { return 1; }
  double stepsPerEpoch() const override { return 1; }
  std::vector<std::string> modelKeys() const override { return {}; }
  const Mesh *mesh() const override { return nullptr; }
  Tree<Shape> paramShapes() const override {
    Tree<Shape> s;
    s["w"] = Shape{4};
    return s;
  }
  const Tree<NamedSharding> *paramShardings() const override { return nullptr; }
  Tree<Array> init(uint32_t) const override {
    Tree<Array> p;
    p["w"] = Array::from(std::vector<float>(4, 1.0f), {4});
    return p;
  }
  DType computeDType() const override { return DType::F16; }
  Tensor loss(const Tree<Tensor> &p, const Tree<Tensor> &b, const Tensor &) const override {
    Tensor w = astype(p.at("w").leaf(), DType::F16), x = astype(b.at("x").leaf(), DType::F16);
    return astype(sum(w * x), DType::F32);
  }
  Tree<Array> trainBatch(uint64_t, int64_t) const override { return {}; }
  NamedSharding batchSharding() const override { return {}; }
  int64_t evalBatches() const override { return 0; }
  Tree<Array> evalBatch(int64_t) const override { return {}; }
  Tree<Tensor> evalSums(const Tree<Tensor> &, const Tree<Tensor> &) const override { return {}; }
};

TEST(TrainStep, AnF16StepWithOverflowingGradientsIsSkippedAndHalvesTheScale) {
  HalfDotTask task;
  const double lr = 0.01, decay = 0.1;
  TrainStepSpec spec = trainStepSpec(
      task, {.lr = optim::constant(lr), .weightDecay = decay}, /*withExamples=*/false);
  ASSERT_TRUE(spec.lossScale.has_value());
  auto step = jit([&spec](Tree<Tensor> p, Tree<Tensor> s, Tree<Tensor> b, Tensor t) {
    return traceTrainStep(spec, p, s, b, t);
  });
  Tree<Array> params = task.init(0), state = initOptState(spec, params);
  auto batchOf = [](float x) {
    Tree<Array> b;
    b["x"] = Array::from(std::vector<float>(4, x), {4});
    return b;
  };
  // dL/dw = x = 1e-3: scaled by 2^15 it is 32.8 in f16, and 1e-3 again in f32. AdamW's first
  // step moves each weight by lr * (sign(g) + decay * w).
  auto [p1, s1, loss1, none] = step(params, state, batchOf(1e-3f), Array::scalar(0.0f));
  EXPECT_TRUE(none.empty());
  EXPECT_NEAR(loss1.item<float>(), 4e-3, 1e-5);
  for (float w : p1.at("w").leaf().to_host<float>())
    EXPECT_NEAR(w, 1 - lr * (1 + decay), 1e-5);
  EXPECT_EQ(s1.at("loss_scale").at("scale").leaf().item<float>(), 32768.0f);
  EXPECT_EQ(s1.at("loss_scale").at("good_steps").leaf().item<float>(), 1.0f);
  std::vector<float> w1 = p1.at("w").leaf().to_host<float>();
  std::vector<float> m1 = s1.at("m").at("w").leaf().to_host<float>();

  // x = 4: the scaled gradient 2^17 overflows f16. The loss is still reported (unscaled),
  // the parameters and moments stay, the scale halves and the skip is counted.
  auto [p2, s2, loss2, none2] = step(p1, s1, batchOf(4.0f), Array::scalar(1.0f));
  EXPECT_NEAR(loss2.item<float>(), 16 * (1 - lr * (1 + decay)), 2e-2);
  EXPECT_EQ(p2.at("w").leaf().to_host<float>(), w1);
  EXPECT_EQ(s2.at("m").at("w").leaf().to_host<float>(), m1);
  EXPECT_EQ(s2.at("loss_scale").at("scale").leaf().item<float>(), 16384.0f);
  EXPECT_EQ(s2.at("loss_scale").at("good_steps").leaf().item<float>(), 0.0f);
  EXPECT_EQ(s2.at("loss_scale").at("skipped").leaf().item<float>(), 1.0f);

  // At 2^14 the same batch's gradients (2^16) still overflow; at 2^13 they fit.
  auto [p3, s3, loss3, none3] = step(p2, s2, batchOf(4.0f), Array::scalar(1.0f));
  EXPECT_EQ(s3.at("loss_scale").at("scale").leaf().item<float>(), 8192.0f);
  auto [p4, s4, loss4, none4] = step(p3, s3, batchOf(4.0f), Array::scalar(1.0f));
  EXPECT_EQ(s4.at("loss_scale").at("skipped").leaf().item<float>(), 2.0f);
  EXPECT_EQ(s4.at("loss_scale").at("good_steps").leaf().item<float>(), 1.0f);
  for (float w : p4.at("w").leaf().to_host<float>())
    EXPECT_LT(w, w1[0]); // updated this time
}

// With an EMA the state carries "ema" through the step, moved towards the step's new
// parameters: a skipped step's unchanged ones too (as an update after the step would).
TEST(TrainStep, TheEmaFollowsTheParametersTheStepReturns) {
  HalfDotTask task;
  const double decay = 0.75;
  TrainStepSpec spec = trainStepSpec(task, {.lr = optim::constant(0.01)},
                                     /*withExamples=*/false, 1, 0, decay);
  auto step = jit([&spec](Tree<Tensor> p, Tree<Tensor> s, Tree<Tensor> b, Tensor t) {
    return traceTrainStep(spec, p, s, b, t);
  });
  Tree<Array> params = task.init(0), state = initOptState(spec, params);
  EXPECT_THROW(state.at("ema"), Error) << "the caller keeps the EMA";
  state["ema"]["w"] = Array::from(std::vector<float>{2, -2, 0.5f, 8}, {4});
  std::vector<float> e0 = state.at("ema").at("w").leaf().to_host<float>();
  auto batchOf = [](float x) {
    Tree<Array> b;
    b["x"] = Array::from(std::vector<float>(4, x), {4});
    return b;
  };
  auto [p1, s1, loss1, none1] = step(params, state, batchOf(1e-3f), Array::scalar(0.0f));
  std::vector<float> w1 = p1.at("w").leaf().to_host<float>();
  std::vector<float> e1 = s1.at("ema").at("w").leaf().to_host<float>();
  ASSERT_EQ(e1.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NE(w1[i], 1.0f) << "the step moved the parameters";
    EXPECT_NEAR(e1[i], decay * e0[i] + (1 - decay) * w1[i], 1e-6) << i;
  }
  // Overflowing gradients: the parameters stay, the EMA still moves towards them.
  auto [p2, s2, loss2, none2] = step(p1, s1, batchOf(4.0f), Array::scalar(1.0f));
  EXPECT_EQ(p2.at("w").leaf().to_host<float>(), w1);
  std::vector<float> e2 = s2.at("ema").at("w").leaf().to_host<float>();
  for (size_t i = 0; i < 4; ++i)
    EXPECT_NEAR(e2[i], decay * e1[i] + (1 - decay) * w1[i], 1e-6) << i;
}

TEST(TrainStep, TheLossScaleDoublesAfterItsGrowthIntervalAndHalvesOnOverflow) {
  optim::DynamicScaleOptions options{.initial = 8, .growthInterval = 3, .factor = 2};
  auto update = jit([&](Tree<Tensor> s, Tensor finite) {
    return optim::dynamicScaleUpdate(options, s, greater(finite, scalar_like(finite, 0.5)));
  });
  Tree<Array> state = optim::dynamicScaleInit(options);
  // (finite?, scale after, good steps after, skipped after)
  struct Expect {
    float finite, scale, good, skipped;
  };
  for (const Expect &e : {Expect{1, 8, 1, 0}, Expect{1, 8, 2, 0}, Expect{1, 16, 0, 0},
                          Expect{0, 8, 0, 1}, Expect{1, 8, 1, 1}}) {
    state = update(state, Array::scalar(e.finite));
    EXPECT_EQ(state.at("scale").leaf().item<float>(), e.scale);
    EXPECT_EQ(state.at("good_steps").leaf().item<float>(), e.good);
    EXPECT_EQ(state.at("skipped").leaf().item<float>(), e.skipped);
  }
  EXPECT_THROW(optim::dynamicScaleInit({.initial = 0}), Error);
}

TEST(TrainStep, AllFiniteSeesAnInfinityOrNaNInAnyLeafOfAnyDtype) {
  auto check = jit([](Tree<Tensor> t) { return astype(optim::allFinite(t), DType::F32); });
  auto tree = [](float a, float b) {
    Tree<Array> t;
    t["f32"] = Array::from(std::vector<float>{1, a, -3}, {3});
    t["f64"] = Array::from(std::vector<double>{b, 2}, {2});
    return t;
  };
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(check(tree(2, 5)).item<float>(), 1.0f);
  EXPECT_EQ(check(tree(inf, 5)).item<float>(), 0.0f);
  EXPECT_EQ(check(tree(2, std::nan(""))).item<float>(), 0.0f);
  EXPECT_EQ(check(tree(-inf, -inf)).item<float>(), 0.0f);
}

} // namespace
