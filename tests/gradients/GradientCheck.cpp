// The gradient checker (see GradientCheck.h): one jitted value_and_grad call for the gradients, one
// jitted loss evaluated twice per input element for the finite differences.
#include "tests/gradients/GradientCheck.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

using namespace loom;
using namespace loom::gradcheck;

namespace {

/// The seed of the loss weights r; both traces of a check draw the same r from it.
constexpr unsigned kWeightSeed = 7;

/// `sum(op(args) * r)`.
Tensor weightedLoss(const OpFn &op, const Args &args) {
  Tensor y = op(args);
  if (y.dtype() != DType::F64)
    throw Error("gradient check: the op must return f64, not " + y.describe());
  std::mt19937 rng(kWeightSeed);
  std::uniform_real_distribution<double> weight(-1.5, 1.5);
  std::vector<double> r(y.numElements());
  for (double &w : r)
    w = weight(rng);
  return sum(y * constant(r, y.shape(), DType::F64));
}

std::vector<Array> arraysOf(const std::vector<Input> &inputs) {
  std::vector<Array> arrays;
  for (const Input &input : inputs)
    arrays.push_back(input.array());
  return arrays;
}

/// Calls the jitted `f` with `args` as separate arguments.
template <typename F, size_t... I>
auto callSpread(F &f, const std::vector<Array> &args, std::index_sequence<I...>) {
  return f(args[I]...);
}

/// Runs `body(std::integral_constant<size_t, N>)` for N the number of inputs: jitted functions take
/// their arguments as a parameter pack, so the arity must be static.
template <typename Body> auto withArity(size_t n, Body body) {
  switch (n) {
  case 1:
    return body(std::integral_constant<size_t, 1>{});
  case 2:
    return body(std::integral_constant<size_t, 2>{});
  case 3:
    return body(std::integral_constant<size_t, 3>{});
  case 4:
    return body(std::integral_constant<size_t, 4>{});
  case 5:
    return body(std::integral_constant<size_t, 5>{});
  }
  throw Error(fmt::format("gradient check: {} inputs; 1 to 5 are supported", n));
}

template <size_t N>
std::vector<std::vector<double>> autodiff(const OpFn &op, const std::vector<Input> &inputs) {
  std::vector<int64_t> wrt;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].differentiable())
      wrt.push_back(static_cast<int64_t>(i));
  auto step = jit(
      [&](auto... ts) {
        auto loss = [&](auto... xs) { return weightedLoss(op, {xs...}); };
        std::vector<Tensor> grads;
        for (const Tree<Tensor> &g : value_and_grad(loss, wrt)(ts...).grads)
          grads.push_back(g.leaf());
        return grads;
      },
      JitOptions{.name = "gradcheck_value_and_grad"});
  std::vector<Array> grads = callSpread(step, arraysOf(inputs), std::make_index_sequence<N>{});
  std::vector<std::vector<double>> result;
  for (const Array &g : grads)
    result.push_back(g.to_host<double>());
  return result;
}

/// Central differences for every element of every f64 input. All evaluations are launched before
/// any is read, so the asynchronous calls overlap.
template <size_t N>
std::vector<std::vector<double>> finiteDifferences(const OpFn &op, const std::vector<Input> &inputs,
                                                   double h) {
  auto loss = jit([&](auto... ts) { return weightedLoss(op, {ts...}); },
                  JitOptions{.name = "gradcheck_loss"});
  std::vector<Array> base = arraysOf(inputs);
  auto lossAt = [&](size_t k, size_t j, double delta) {
    std::vector<Array> args = base;
    std::vector<double> values = inputs[k].values;
    values[j] += delta;
    args[k] = Array::from(values, inputs[k].shape);
    return callSpread(loss, args, std::make_index_sequence<N>{});
  };
  std::vector<std::vector<std::pair<Array, Array>>> pending;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].differentiable())
      continue;
    pending.emplace_back();
    for (size_t j = 0; j < inputs[k].values.size(); ++j)
      pending.back().emplace_back(lossAt(k, j, h), lossAt(k, j, -h));
  }
  std::vector<std::vector<double>> result;
  for (const std::vector<std::pair<Array, Array>> &input : pending) {
    result.emplace_back();
    for (const std::pair<Array, Array> &pair : input)
      result.back().push_back((pair.first.item<double>() - pair.second.item<double>()) / (2 * h));
  }
  EXPECT_EQ(loss.stats().traces, 1) << "the loss must compile once for all evaluations";
  return result;
}

} // namespace

std::vector<std::vector<double>>
loom::gradcheck::autodiffGradients(const OpFn &op, const std::vector<Input> &inputs) {
  return withArity(inputs.size(), [&](auto n) { return autodiff<decltype(n)::value>(op, inputs); });
}

void loom::gradcheck::expectGradientsMatch(const std::vector<double> &ad,
                                           const std::vector<double> &fd, const std::string &what) {
  ASSERT_EQ(ad.size(), fd.size()) << what;
  // With h = 1e-6 in f64 the central difference has truncation error ~h^2 |L'''| and rounding error
  // ~1e-16 |L| / h, both far below this tolerance; a wrong rule is off by O(1) in some element.
  std::string mismatches;
  int count = 0;
  for (size_t j = 0; j < ad.size(); ++j) {
    if (std::abs(ad[j] - fd[j]) <= 1e-6 + 1e-5 * std::abs(fd[j]))
      continue;
    if (++count <= 5)
      mismatches += fmt::format("\n  element {}: autodiff {:.10g}, finite difference {:.10g}", j,
                                ad[j], fd[j]);
  }
  EXPECT_EQ(count, 0) << what << ": " << count << " of " << ad.size() << " elements differ"
                      << mismatches;
}

void loom::gradcheck::checkGradients(const OpFn &op, const std::vector<Input> &inputs,
                                     CheckOptions options) {
  std::vector<std::vector<double>> ad = autodiffGradients(op, inputs);
  std::vector<std::vector<double>> fd = withArity(inputs.size(), [&](auto n) {
    return finiteDifferences<decltype(n)::value>(op, inputs, options.h);
  });
  ASSERT_EQ(ad.size(), fd.size());
  size_t differentiated = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].differentiable()) {
      expectGradientsMatch(ad[differentiated], fd[differentiated],
                           fmt::format("input {} ({})", k, describe(DType::F64, inputs[k].shape)));
      ++differentiated;
    }
  }
}

//===--- Inputs ---===//

Input GradientTest::uniform(const Shape &shape, double lo, double hi) {
  Input input{shape, {}, {}};
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < n; ++i)
    input.values.push_back(dist(rng));
  return input;
}

Input GradientTest::awayFromZero(const Shape &shape, double lo, double hi) {
  Input input = uniform(shape, lo, hi);
  std::bernoulli_distribution negative(0.5);
  for (double &v : input.values)
    v = negative(rng) ? -v : v;
  return input;
}

Input GradientTest::shiftedFrom(const Input &x, double gap) {
  Input shift = awayFromZero(x.shape, gap, 1);
  for (size_t i = 0; i < x.values.size(); ++i)
    shift.values[i] += x.values[i];
  return shift;
}

Input GradientTest::distinct(const Shape &shape, double gap) {
  Input input = uniform(shape, 0, 1);
  for (size_t i = 0; i < input.values.size(); ++i)
    input.values[i] = (static_cast<double>(i) - input.values.size() / 2.0) * gap;
  std::shuffle(input.values.begin(), input.values.end(), rng);
  return input;
}

Input GradientTest::indices(const Shape &shape, int32_t lo, int32_t hi) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::uniform_int_distribution<int32_t> dist(lo, hi);
  std::vector<int32_t> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(dist(rng));
  return fixedInput(Array::from(values, shape));
}
