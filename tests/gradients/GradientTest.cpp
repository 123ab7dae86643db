// Gradient checks of the elementwise VJP rules (unary, binary, select, convert) and of the
// broadcasts NumPy-style binary ops insert, against central finite differences in f64.
#include "tests/gradients/GradientCheck.h"

using namespace loom;
using namespace loom::gradcheck;

namespace {

using ElementwiseGradTest = GradientTest;

//===--- Unary ---===//

TEST_F(ElementwiseGradTest, Neg) {
  checkGradients([](const Args &x) { return neg(x[0]); }, {uniform({3, 1, 5})});
}

TEST_F(ElementwiseGradTest, Exp) {
  checkGradients([](const Args &x) { return exp(x[0]); }, {uniform({4, 3})});
}

TEST_F(ElementwiseGradTest, LogOfPositiveInputs) {
  checkGradients([](const Args &x) { return log(x[0]); }, {uniform({2, 3, 5}, 0.3, 2)});
}

TEST_F(ElementwiseGradTest, Tanh) {
  checkGradients([](const Args &x) { return tanh(x[0]); }, {uniform({7}, -2, 2)});
}

TEST_F(ElementwiseGradTest, SqrtOfPositiveInputs) {
  checkGradients([](const Args &x) { return sqrt(x[0]); }, {uniform({3, 4}, 0.3, 2)});
}

TEST_F(ElementwiseGradTest, RsqrtOfPositiveInputs) {
  checkGradients([](const Args &x) { return rsqrt(x[0]); }, {uniform({1, 5}, 0.3, 2)});
}

TEST_F(ElementwiseGradTest, Sin) {
  checkGradients([](const Args &x) { return sin(x[0]); }, {uniform({2, 5}, -4, 4)});
}

TEST_F(ElementwiseGradTest, Cos) {
  checkGradients([](const Args &x) { return cos(x[0]); }, {uniform({5, 1}, -4, 4)});
}

TEST_F(ElementwiseGradTest, AbsAwayFromZero) {
  checkGradients([](const Args &x) { return abs(x[0]); }, {awayFromZero({3, 5})});
}

TEST_F(ElementwiseGradTest, Sigmoid) {
  checkGradients([](const Args &x) { return sigmoid(x[0]); }, {uniform({2, 1, 3}, -3, 3)});
}

TEST_F(ElementwiseGradTest, ReluAwayFromZero) {
  checkGradients([](const Args &x) { return relu(x[0]); }, {awayFromZero({4, 5})});
}

TEST_F(ElementwiseGradTest, Gelu) {
  checkGradients([](const Args &x) { return gelu(x[0]); }, {uniform({3, 7}, -3, 3)});
}

// x feeds three ops, so its cotangents are accumulated.
TEST_F(ElementwiseGradTest, FanOutAccumulates) {
  checkGradients([](const Args &x) { return x[0] * exp(x[0]) - 2.0 * x[0]; }, {uniform({5, 2})});
}

//===--- Binary, same shapes ---===//

TEST_F(ElementwiseGradTest, Add) {
  checkGradients([](const Args &x) { return add(x[0], x[1]); }, {uniform({3, 5}), uniform({3, 5})});
}

TEST_F(ElementwiseGradTest, Sub) {
  checkGradients([](const Args &x) { return sub(x[0], x[1]); }, {uniform({3, 5}), uniform({3, 5})});
}

TEST_F(ElementwiseGradTest, Mul) {
  checkGradients([](const Args &x) { return mul(x[0], x[1]); }, {uniform({3, 5}), uniform({3, 5})});
}

TEST_F(ElementwiseGradTest, DivByDenominatorsAwayFromZero) {
  checkGradients([](const Args &x) { return div(x[0], x[1]); },
                 {uniform({3, 5}), awayFromZero({3, 5}, 0.5, 2)});
}

TEST_F(ElementwiseGradTest, MaximumWithoutTies) {
  Input a = uniform({4, 3});
  checkGradients([](const Args &x) { return maximum(x[0], x[1]); }, {a, shiftedFrom(a)});
}

TEST_F(ElementwiseGradTest, MinimumWithoutTies) {
  Input a = uniform({4, 3});
  checkGradients([](const Args &x) { return minimum(x[0], x[1]); }, {a, shiftedFrom(a)});
}

// At a tie finite differences see half of each side, so ties are checked by value: against a
// constant the tie goes to the first operand, so relu, max(0, x), has derivative 0 at 0 as
// PyTorch's and JAX's relu (its gradient read from its result: 1 where relu(x) > 0) and a
// clamp, max(x, 0), derivative 1 as PyTorch's clamp.
TEST(ElementwiseTies, AgainstAConstantGoToTheFirstOperandSoReluHasDerivativeZeroAtZero) {
  using Fn = Tensor (*)(const Tensor &);
  struct Case {
    const char *name;
    Fn fn;
    std::vector<double> expected; // the gradient of sum(fn(x)) at x = {-2, 0, 0.5}
  };
  Case cases[] = {
      {"relu(x)", [](const Tensor &x) { return relu(x); }, {0, 0, 1}},
      {"maximum(0, x)", [](const Tensor &x) { return maximum(scalar_like(x, 0), x); }, {0, 0, 1}},
      {"maximum(x, 0)", [](const Tensor &x) { return maximum(x, scalar_like(x, 0)); }, {0, 1, 1}},
      {"minimum(0, x)", [](const Tensor &x) { return minimum(scalar_like(x, 0), x); }, {1, 0, 0}},
      {"minimum(x, 0)", [](const Tensor &x) { return minimum(x, scalar_like(x, 0)); }, {1, 1, 0}},
      {"maximum(x, x)", [](const Tensor &x) { return maximum(x, x); }, {1, 1, 1}},
  };
  for (const Case &c : cases) {
    Fn fn = c.fn;
    auto f = jit([fn](Tensor x) { return grad([fn](Tensor v) { return sum(fn(v)); })(x); });
    Array x = Array::from(std::vector<double>{-2, 0, 0.5}, {3});
    EXPECT_EQ(f(x).to_host<double>(), c.expected) << c.name;
  }
}

// Between two operands that both vary, a tie's cotangent is split equally, as PyTorch's
// maximum/minimum and JAX's max/min split it (torch.maximum(a, b).sum().backward() at
// a = b gives 0.5 to each).
TEST(ElementwiseTies, BetweenTwoOperandsAreSplitEqually) {
  using Fn = Tensor (*)(const Tensor &, const Tensor &);
  struct Case {
    const char *name;
    Fn fn;
    std::vector<double> da, db; // at a = {1, 2, 3, -1}, b = {1, 0, 5, -1}
  };
  Case cases[] = {
      {"maximum", [](const Tensor &a, const Tensor &b) { return maximum(a, b); },
       {0.5, 1, 0, 0.5}, {0.5, 0, 1, 0.5}},
      {"minimum", [](const Tensor &a, const Tensor &b) { return minimum(a, b); },
       {0.5, 0, 1, 0.5}, {0.5, 1, 0, 0.5}},
  };
  for (const Case &c : cases) {
    Fn fn = c.fn;
    auto f = jit([fn](Tensor a, Tensor b) {
      ValueAndGrad vg = value_and_grad([fn](Tensor x, Tensor y) { return sum(fn(x, y)); },
                                       {0, 1})(a, b);
      return std::vector<Tensor>{vg.grads[0].leaf(), vg.grads[1].leaf()};
    });
    auto grads = f(Array::from(std::vector<double>{1, 2, 3, -1}, {4}),
                   Array::from(std::vector<double>{1, 0, 5, -1}, {4}));
    EXPECT_EQ(grads[0].to_host<double>(), c.da) << c.name;
    EXPECT_EQ(grads[1].to_host<double>(), c.db) << c.name;
  }
}

TEST_F(ElementwiseGradTest, PowOfPositiveBase) {
  checkGradients([](const Args &x) { return pow(x[0], x[1]); },
                 {uniform({2, 3}, 0.4, 2), uniform({2, 3}, -2, 2)});
}

// A rank-0 exponent broadcast against the base.
TEST_F(ElementwiseGradTest, PowWithScalarExponent) {
  checkGradients([](const Args &x) { return pow(x[0], x[1]); },
                 {uniform({3, 2}, 0.4, 2), uniform({}, 0.5, 3)});
}

//===--- Select and convert ---===//

// Each branch gets the cotangent where the predicate picks it and zero elsewhere.
TEST_F(ElementwiseGradTest, WhereFeedsBothBranches) {
  std::vector<bool> pred = {true, false, false, true, true,  false,
                            true, false, false, true, false, true};
  checkGradients([](const Args &x) { return where(x[0], x[1], x[2]); },
                 {fixedInput(Array::from(pred, {3, 4})), uniform({3, 4}), uniform({3, 4})});
}

// Predicate [3,1], branches [1,4] and a scalar: all three are broadcast to [3,4].
TEST_F(ElementwiseGradTest, WhereBroadcastsItsOperands) {
  checkGradients([](const Args &x) { return where(x[0], x[1], x[2]); },
                 {fixedInput(Array::from(std::vector<bool>{true, false, true}, {3, 1})),
                  uniform({1, 4}), uniform({})});
}

// A predicate computed from the differentiated input carries no gradient itself.
TEST_F(ElementwiseGradTest, WhereOfComparison) {
  Input a = uniform({2, 5});
  checkGradients([](const Args &x) { return where(greater(x[0], x[1]), x[0] * x[0], exp(x[1])); },
                 {a, shiftedFrom(a)});
}

// astype f64 -> f32 -> f64 is only piecewise smooth in f64, so this check uses inputs that are
// multiples of 1/16 and h = 1/16: x, x +- h and their squares are exact in f32, which makes the
// finite difference of the square exact.
TEST_F(ElementwiseGradTest, AstypeThroughF32) {
  Input x = uniform({3, 4}, -3, 3);
  for (double &v : x.values)
    v = std::round(v * 16) / 16;
  checkGradients(
      [](const Args &x) {
        Tensor y = astype(x[0], DType::F32);
        return astype(y * y, DType::F64);
      },
      {x}, CheckOptions{.h = 1.0 / 16});
}

//===--- Broadcasting (the broadcast_in_dim rule) ---===//

using BinaryFn = Tensor (*)(const Tensor &, const Tensor &, Loc);

// [3,1] op [1,4]: each operand's cotangent is summed over the dim it was broadcast along.
TEST_F(ElementwiseGradTest, BroadcastColumnByRow) {
  for (BinaryFn fn : {BinaryFn(add), BinaryFn(sub), BinaryFn(mul), BinaryFn(div)}) {
    checkGradients([fn](const Args &x) { return fn(x[0], x[1], Loc::current()); },
                   {uniform({3, 1}), awayFromZero({1, 4}, 0.5, 2)});
  }
}

// A rank-0 operand is broadcast to every element.
TEST_F(ElementwiseGradTest, BroadcastScalarByTensor) {
  checkGradients([](const Args &x) { return x[0] * x[1] + x[1] / x[0]; },
                 {awayFromZero({}, 0.5, 2), uniform({2, 3})});
}

// [4] against [2,3,4]: leading dims are added, then summed away.
TEST_F(ElementwiseGradTest, BroadcastAddsLeadingDims) {
  checkGradients([](const Args &x) { return x[0] * x[1] - x[0]; },
                 {uniform({4}), uniform({2, 3, 4})});
}

// broadcast_in_dim itself, with a new dim between kept ones and a size-1 dim expanded.
TEST_F(ElementwiseGradTest, BroadcastInDim) {
  checkGradients(
      [](const Args &x) {
        return broadcast_in_dim(x[0], {3, 2, 5}, {0, 2}) * x[1];
      },
      {uniform({3, 1}), uniform({3, 2, 5})});
}

} // namespace
