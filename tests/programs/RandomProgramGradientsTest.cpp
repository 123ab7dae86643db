// The gradients of random programs: Loom's reverse mode (loom-autodiff, then the same
// lowering, on one device and on the 2x2 mesh) against central finite differences of the
// plain-loop reference in double. The loss weights every output by fixed random numbers, so
// each output's cotangent differs from element to element.
#include "tests/programs/ProgramCase.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numeric>

using namespace loom;
using namespace loom::programs;

namespace {

/// Programs small enough that finite differences (two reference runs per input element
/// checked) stay quick; every third has larger dims, and 48 elements of each input checked.
GenerateOptions gradientPrograms(bool large) {
  return {.maxElements = large ? 4096 : 240, .large = large, .differentiable = true};
}
constexpr size_t kCheckedPerLargeInput = 48;

/// sum over outputs o of sum(out_o * weights_o).
double referenceLoss(const ProgramCase &c, const std::vector<RefTensor> &inputs,
                     const std::vector<std::vector<double>> &weights) {
  ReferenceBackend reference = c.reference();
  std::vector<RefTensor> outs = evaluate(c.program, inputs, reference);
  double loss = 0;
  for (size_t o = 0; o < outs.size(); ++o)
    for (size_t i = 0; i < outs[o].data.size(); ++i)
      loss += outs[o].data[i] * weights[o][i];
  return loss;
}

void checkGradients(int64_t number, bool sharded) {
  bool large = number % 3 == 2;
  ProgramCase c = makeCase(number, DType::F64, sharded, gradientPrograms(large));
  SCOPED_TRACE(c.text());
  std::mt19937 rng(static_cast<unsigned>(number) + 99);
  std::uniform_real_distribution<double> weight(-1.5, 1.5);
  std::vector<std::vector<double>> weights;
  for (int o : c.program.outputs) {
    std::vector<double> &w = weights.emplace_back();
    for (int64_t i = ref::numElements(c.program.nodes[o].shape); i > 0; --i)
      w.push_back(weight(rng));
  }

  LoomBackend backend{c.mesh};
  auto loss = [&](const Tree<Tensor> &floats, const Tree<Tensor> &indices) {
    std::vector<Tensor> outs = evaluate(c.program, c.merge(floats, indices), backend);
    Tensor total = zeros({}, DType::F64);
    for (size_t o = 0; o < outs.size(); ++o)
      total = total + sum(outs[o] * constant(weights[o], outs[o].shape(), DType::F64));
    return total;
  };
  auto f = jit([&](const Tree<Tensor> &floats,
                   const Tree<Tensor> &indices) { return grad(loss)(floats, indices); },
               c.jitOptions("random_program_grad"));
  Tree<Array> grads;
  try {
    grads = f(c.arrays(false), c.arrays(true));
  } catch (const std::exception &e) {
    FAIL() << "Loom failed: " << e.what();
  }

  std::vector<RefTensor> inputs = c.inputs;
  auto centralDifference = [&](size_t k, size_t i, double h) {
    double x = inputs[k].data[i];
    inputs[k].data[i] = x + h;
    double up = referenceLoss(c, inputs, weights);
    inputs[k].data[i] = x - h;
    double down = referenceLoss(c, inputs, weights);
    inputs[k].data[i] = x;
    return (up - down) / (2 * h);
  };
  // Central differences err by ~h^2 f''' (truncation) plus the loss's rounding over the
  // step, ~eps |loss| / h: with h = 1e-5 about 1e-9 for a loss near 1, but 4e-6 for a loss
  // of 3e5 (program 18155's dot of 8192 values with themselves), so the rounding's share is
  // allowed for, and such a loss is also checked with a step of 1e-4 (a tenth of the
  // rounding). max, min, abs and relu have kinks, and two values within h of each other
  // (about once in a thousand programs) put one inside the step: then the step shrinks to
  // 1e-7, which a kink is 100 times less likely to be inside; there the rounding is not
  // allowed for (a loss of 3e5 would allow 1e-2). A wrong gradient fails all three.
  const double loss0 = std::fabs(referenceLoss(c, inputs, weights));
  auto close = [loss0](double loom, double fd, double h, double relative) {
    double rounding = h < 1e-5 ? 0 : 16 * std::numeric_limits<double>::epsilon() * loss0 / h;
    return std::fabs(loom - fd) <= relative * (1 + std::fabs(fd)) + rounding;
  };
  for (size_t k = 0, nextFloat = 0; k < inputs.size(); ++k) {
    if (c.program.inputs[k].index)
      continue; // indices are not differentiated
    std::vector<double> got = grads.at(nextFloat++).leaf().to_host<double>();
    ASSERT_EQ(got.size(), inputs[k].data.size()) << "arg" << k;
    std::vector<size_t> checked(got.size());
    std::iota(checked.begin(), checked.end(), 0);
    if (large && checked.size() > kCheckedPerLargeInput) {
      std::shuffle(checked.begin(), checked.end(), rng);
      checked.resize(kCheckedPerLargeInput);
    }
    for (size_t i : checked) {
      double fd = centralDifference(k, i, 1e-5);
      if (close(got[i], fd, 1e-5, 1e-6))
        continue;
      double coarse = centralDifference(k, i, 1e-4), fine = centralDifference(k, i, 1e-7);
      ASSERT_TRUE(close(got[i], coarse, 1e-4, 1e-6) || close(got[i], fine, 1e-7, 1e-5))
          << fmt::format("d loss / d arg{}[{}]: Loom {}, finite differences {} (step 1e-5), {} "
                         "(step 1e-4), {} (step 1e-7)",
                         k, i, got[i], fd, coarse, fine);
    }
  }
}

void checkAll(bool sharded) {
  const ProgramRange &range = programRange();
  for (int64_t i = range.first; i < range.first + range.count; ++i) {
    checkGradients(i, sharded);
    if (testing::Test::HasFailure())
      return;
  }
}

TEST(RandomProgramGradients, OnOneDeviceMatchFiniteDifferences) { checkAll(false); }
TEST(RandomProgramGradients, ShardedOnAMeshMatchFiniteDifferences) { checkAll(true); }

} // namespace
