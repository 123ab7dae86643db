// Gradient checks of the reduce VJP rules (sum, and max away from ties) and of mean, softmax and
// log_softmax built on them, against central finite differences in f64.
#include "tests/gradients/GradientCheck.h"

using namespace loom;
using namespace loom::gradcheck;

namespace {

using ReductionGradTest = GradientTest;

TEST_F(ReductionGradTest, SumOverSeveralDims) {
  checkGradients([](const Args &x) { return sum(x[0], {1, 3}); }, {uniform({2, 3, 4, 5})});
}

TEST_F(ReductionGradTest, SumOverSeveralDimsKeepdims) {
  checkGradients(
      [](const Args &x) {
        return sum(x[0], {-1, 0}, true) * x[0];
      },
      {uniform({2, 3, 1, 5})});
}

TEST_F(ReductionGradTest, SumOfAll) {
  checkGradients([](const Args &x) { return sum(x[0] * x[0]); }, {uniform({3, 1, 4})});
}

TEST_F(ReductionGradTest, Mean) {
  checkGradients([](const Args &x) { return mean(x[0], {0, 2}); }, {uniform({3, 4, 5})});
}

TEST_F(ReductionGradTest, MeanKeepdims) {
  checkGradients([](const Args &x) { return exp(mean(x[0], {1}, true)) * x[0]; },
                 {uniform({3, 7})});
}

// Values at least 0.05 apart: one maximum per row, and a step of h never changes it.
TEST_F(ReductionGradTest, MaxWithoutTies) {
  checkGradients([](const Args &x) { return max(x[0], {1}); }, {distinct({3, 5, 2})});
}

TEST_F(ReductionGradTest, MaxKeepdimsOverSeveralDims) {
  checkGradients(
      [](const Args &x) {
        return max(x[0], {0, 2}, true) * x[0];
      },
      {distinct({2, 3, 4})});
}

TEST_F(ReductionGradTest, MaxOfAll) {
  checkGradients([](const Args &x) { return max(x[0]); }, {distinct({4, 3})});
}

TEST_F(ReductionGradTest, SoftmaxAlongMiddleAxis) {
  checkGradients([](const Args &x) { return softmax(x[0], 1); }, {uniform({2, 5, 3}, -2, 2)});
}

TEST_F(ReductionGradTest, SoftmaxAlongLastAxis) {
  checkGradients([](const Args &x) { return softmax(x[0]); }, {uniform({3, 4}, -2, 2)});
}

TEST_F(ReductionGradTest, LogSoftmaxAlongFirstAxis) {
  checkGradients([](const Args &x) { return log_softmax(x[0], 0); }, {uniform({4, 3}, -2, 2)});
}

TEST_F(ReductionGradTest, LogSoftmaxAlongMiddleAxis) {
  checkGradients([](const Args &x) { return log_softmax(x[0], 1); }, {uniform({3, 4, 2}, -2, 2)});
}

} // namespace
