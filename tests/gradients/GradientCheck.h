// The gradient checker behind every test in this folder: it compares the gradients that
// loom-autodiff builds with central finite differences of the same loss, in f64.
#ifndef LOOM_TESTS_GRADIENTS_GRADIENTCHECK_H
#define LOOM_TESTS_GRADIENTS_GRADIENTCHECK_H

#include "frontend/Loom.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

namespace loom::gradcheck {

using Args = std::vector<Tensor>;
/// The op under test: maps the traced inputs to one f64 tensor.
using OpFn = std::function<Tensor(const Args &)>;

/// One input of an op. f64 inputs (`values`) are differentiated and perturbed by the finite
/// differences; other inputs (`fixed`: indices, predicates) are passed through unchanged.
struct Input {
  Shape shape;
  std::vector<double> values;
  Array fixed;

  bool differentiable() const { return !fixed.valid(); }
  Array array() const { return differentiable() ? Array::from(values, shape) : fixed; }
};

/// A non-differentiated input.
inline Input fixedInput(Array array) { return Input{array.shape(), {}, std::move(array)}; }

struct CheckOptions {
  /// The finite-difference step.
  double h = 1e-6;
};

/// The gradients of `sum(op(inputs) * r)` with respect to every f64 input, from one jitted
/// value_and_grad call; r is a fixed pseudo-random tensor of op's result shape, so the cotangent
/// reaching op is not all ones.
std::vector<std::vector<double>> autodiffGradients(const OpFn &op,
                                                   const std::vector<Input> &inputs);

/// Checks autodiffGradients against `(L(x + h e_i) - L(x - h e_i)) / 2h` for every element of every
/// f64 input, with `L` the same loss jitted once.
void checkGradients(const OpFn &op, const std::vector<Input> &inputs, CheckOptions options = {});

/// Expects `|ad - fd| <= 1e-6 + 1e-5 |fd|` elementwise; a failure names `what`, how many elements
/// differ and the first few.
void expectGradientsMatch(const std::vector<double> &ad, const std::vector<double> &fd,
                          const std::string &what);

/// Gives each test a fixed-seed generator and the input distributions the ops need.
class GradientTest : public testing::Test {
protected:
  /// Uniform in [lo, hi).
  Input uniform(const Shape &shape, double lo = -1, double hi = 1);
  /// Magnitudes uniform in [lo, hi) with random signs: away from 0 (abs, relu, divisors).
  Input awayFromZero(const Shape &shape, double lo = 0.2, double hi = 1.5);
  /// `x` with every element moved by at least `gap`, up or down: no ties with `x`.
  Input shiftedFrom(const Input &x, double gap = 0.1);
  /// A shuffle of values at least `gap` apart: no ties anywhere (max reduction).
  Input distinct(const Shape &shape, double gap = 0.05);
  /// Uniform integers in [lo, hi], as a fixed i32 input.
  Input indices(const Shape &shape, int32_t lo, int32_t hi);

  std::mt19937 rng{20250601};
};

} // namespace loom::gradcheck

#endif // LOOM_TESTS_GRADIENTS_GRADIENTCHECK_H
