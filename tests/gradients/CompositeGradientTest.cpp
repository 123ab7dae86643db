// Gradient checks of whole models and of stop_gradient: a small MLP's cross-entropy loss against
// finite differences, and stop_gradient's zero gradient against its definition.
#include "tests/gradients/GradientCheck.h"

#include <gtest/gtest-spi.h>

#include <cmath>

using namespace loom;
using namespace loom::gradcheck;

namespace {

using CompositeGradTest = GradientTest;

/// Mean cross-entropy of an MLP: x [B,D], w1 [D,H], b1 [H], w2 [H,C], labels [B] (i32).
Tensor mlpLoss(const Args &x) {
  Tensor hidden = gelu(matmul(x[0], x[1]) + x[2]);
  Tensor logProbs = log_softmax(matmul(hidden, x[3]), -1);
  int64_t batch = logProbs.dim(0), classes = logProbs.dim(1);
  // The log-probability of each row's label, taken from the flattened [B*C] table.
  Tensor picked = take(reshape(logProbs, {batch * classes}), arange(batch) * classes + x[4]);
  return -mean(picked);
}

TEST_F(CompositeGradTest, MlpCrossEntropy) {
  checkGradients(mlpLoss, {uniform({5, 3}), uniform({3, 4}), uniform({4}), uniform({4, 3}),
                           indices({5}, 0, 2)});
}

// Nothing reaches x through stop_gradient: its gradient is exactly zero.
TEST_F(CompositeGradTest, StopGradientBlocksTheGradient) {
  std::vector<std::vector<double>> grads =
      autodiffGradients([](const Args &x) { return stop_gradient(exp(x[0])); }, {uniform({3, 2})});
  ASSERT_EQ(grads.size(), 1u);
  for (double g : grads[0])
    EXPECT_EQ(g, 0.0);
}

// d/dx sum(stop_gradient(exp(x)) * x) treats exp(x) as a constant: the gradient is exp(x).
TEST_F(CompositeGradTest, StopGradientHoldsItsValueConstant) {
  Input x = uniform({2, 3});
  auto f = jit(
      [](Tensor x) { return grad([](Tensor x) { return sum(stop_gradient(exp(x)) * x); })(x); });
  std::vector<double> got = f(x.array()).to_host<double>();
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], std::exp(x.values[i]), 1e-12) << "element " << i;
}

// The same model with the stopped value passed in as a fixed input gives the same gradients, which
// the finite differences confirm.
TEST_F(CompositeGradTest, StopGradientEqualsAFixedInput) {
  Input x = uniform({3, 4}), y = uniform({3, 4});
  std::vector<double> product;
  for (size_t i = 0; i < x.values.size(); ++i)
    product.push_back(x.values[i] * y.values[i]);
  Input held = fixedInput(Array::from(product, x.shape));
  OpFn stopped = [](const Args &a) { return stop_gradient(a[0] * a[1]) * a[0] + a[1]; };
  OpFn fixed = [](const Args &a) { return a[2] * a[0] + a[1]; };
  std::vector<std::vector<double>> got = autodiffGradients(stopped, {x, y});
  std::vector<std::vector<double>> want = autodiffGradients(fixed, {x, y, held});
  ASSERT_EQ(got.size(), 2u);
  for (size_t k = 0; k < 2; ++k)
    for (size_t i = 0; i < got[k].size(); ++i)
      EXPECT_NEAR(got[k][i], want[k][i], 1e-12) << "input " << k << " element " << i;
  checkGradients(fixed, {x, y, held});
}

// Only the first output is differentiated: the aux output exp(y) comes back as is and adds
// nothing to the gradient with respect to y, which stays x.
TEST_F(CompositeGradTest, AuxOutputsAreNotDifferentiated) {
  Input x = uniform({4}), y = uniform({4});
  auto f = jit([](Tensor x, Tensor y) {
    auto loss = [](Tensor x, Tensor y) { return std::make_tuple(sum(x * y), exp(y)); };
    ValueAndGrad vg = value_and_grad(loss, {1})(x, y);
    return std::make_tuple(vg.aux[0], vg.grads[0].leaf());
  });
  auto [aux, dy] = f(x.array(), y.array());
  std::vector<double> auxValues = aux.to_host<double>(), dyValues = dy.to_host<double>();
  for (size_t i = 0; i < x.values.size(); ++i) {
    EXPECT_NEAR(auxValues[i], std::exp(y.values[i]), 1e-12) << "element " << i;
    EXPECT_NEAR(dyValues[i], x.values[i], 1e-12) << "element " << i;
  }
}

// An argument the value does not depend on gets a zero gradient.
TEST_F(CompositeGradTest, UnusedArgumentGetsZero) {
  checkGradients([](const Args &x) { return exp(x[0]); }, {uniform({2, 2}), uniform({3})});
}

// The checker itself fails on a wrong gradient: through stop_gradient, autodiff sees x where the
// finite differences see 2x.
TEST(GradientCheckerTest, ReportsAWrongGradient) {
  EXPECT_NONFATAL_FAILURE(checkGradients([](const Args &x) { return stop_gradient(x[0]) * x[0]; },
                                         {Input{{2, 2}, {0.5, -1, 1.5, 2}, {}}}),
                          "4 of 4 elements differ");
}

} // namespace
