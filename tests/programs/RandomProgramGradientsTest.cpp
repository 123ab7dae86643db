// The gradients of random programs: Loom's reverse mode (loom-autodiff, then the same
// lowering, on one device and on the 2x2 mesh) against central finite differences of the
// plain-loop reference in double. The loss weights every output by fixed random numbers, so
// each output's cotangent differs from element to element.
#include "tests/programs/ProgramCase.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>

using namespace loom;
using namespace loom::programs;

namespace {

/// Programs small enough that finite differences (two reference runs per input element) stay
/// quick.
constexpr GenerateOptions kGradientPrograms{.maxElements = 240};

/// sum over outputs o of sum(out_o * weights_o).
double referenceLoss(const ProgramCase &c, const std::vector<RefTensor> &inputs,
                     const std::vector<std::vector<double>> &weights) {
  ReferenceBackend reference;
  std::vector<RefTensor> outs = evaluate(c.program, inputs, reference);
  double loss = 0;
  for (size_t o = 0; o < outs.size(); ++o)
    for (size_t i = 0; i < outs[o].data.size(); ++i)
      loss += outs[o].data[i] * weights[o][i];
  return loss;
}

void checkGradients(int64_t number, bool sharded) {
  ProgramCase c = makeCase(number, DType::F64, sharded, kGradientPrograms);
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
  auto loss = [&](const Tree<Tensor> &in) {
    std::vector<Tensor> outs = evaluate(c.program, leavesOf(in), backend);
    Tensor total = zeros({}, DType::F64);
    for (size_t o = 0; o < outs.size(); ++o)
      total = total + sum(outs[o] * constant(weights[o], outs[o].shape(), DType::F64));
    return total;
  };
  auto f = jit([&](const Tree<Tensor> &in) { return grad(loss)(in); },
               c.jitOptions("random_program_grad"));
  Tree<Array> grads;
  try {
    grads = f(c.arrays());
  } catch (const std::exception &e) {
    FAIL() << "Loom failed: " << e.what();
  }

  const double h = 1e-5;
  std::vector<RefTensor> inputs = c.inputs;
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::vector<double> got = grads.at(k).leaf().to_host<double>();
    ASSERT_EQ(got.size(), inputs[k].data.size()) << "arg" << k;
    for (size_t i = 0; i < got.size(); ++i) {
      double x = inputs[k].data[i];
      inputs[k].data[i] = x + h;
      double up = referenceLoss(c, inputs, weights);
      inputs[k].data[i] = x - h;
      double down = referenceLoss(c, inputs, weights);
      inputs[k].data[i] = x;
      double fd = (up - down) / (2 * h);
      // Central differences err by ~h^2 f''' + 1e-16 |loss| / h: ~1e-9 here.
      ASSERT_LE(std::fabs(got[i] - fd), 1e-6 * (1 + std::fabs(fd)))
          << fmt::format("d loss / d arg{}[{}]: Loom {}, finite differences {}", k, i, got[i], fd);
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
