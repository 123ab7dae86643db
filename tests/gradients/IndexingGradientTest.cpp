// Gradient checks of gather (take) and scatter_add, each the other's adjoint, and of sums weighted
// by one_hot, against central finite differences in f64.
#include "tests/gradients/GradientCheck.h"

using namespace loom;
using namespace loom::gradcheck;

namespace {

using IndexingGradTest = GradientTest;

Input indexArray(const std::vector<int32_t> &values, const Shape &shape) {
  return fixedInput(Array::from(values, shape));
}

// Rows 3 and 0 are taken more than once, so their cotangents are summed by scatter_add; row 2 is
// never taken and gets zero.
TEST_F(IndexingGradTest, TakeWithRepeatedIndices) {
  checkGradients([](const Args &x) { return take(x[0], x[1]); },
                 {uniform({5, 3}), indexArray({0, 3, 3, 1, 4, 0, 3, 3}, {2, 4})});
}

TEST_F(IndexingGradTest, TakeFromVector) {
  checkGradients([](const Args &x) { return take(x[0], x[1]); },
                 {uniform({6}), indices({7}, 0, 5)});
}

// Out-of-range indices are clamped to the first and last rows, in both directions.
TEST_F(IndexingGradTest, TakeClampsOutOfRangeIndices) {
  checkGradients([](const Args &x) { return take(x[0], x[1]); },
                 {uniform({5, 2}), indexArray({-3, 9, 2, 4, 0}, {5})});
}

// Matrix indices into a rank-3 table: result [2,3,2,4].
TEST_F(IndexingGradTest, TakeRowsOfRank3TableWithMatrixIndices) {
  checkGradients([](const Args &x) { return take(x[0], x[1]); },
                 {uniform({4, 2, 4}), indexArray({3, 1, 3, 0, 3, 1}, {2, 3})});
}

// The gradient with respect to the updates is a gather of the cotangent.
TEST_F(IndexingGradTest, ScatterAddWithRepeatedIndices) {
  checkGradients([](const Args &x) { return scatter_add(x[0], x[1], 4); },
                 {uniform({2, 3, 2}), indexArray({1, 3, 1, 0, 1, 3}, {2, 3})});
}

TEST_F(IndexingGradTest, ScatterAddThenNonlinearity) {
  checkGradients([](const Args &x) { return tanh(scatter_add(x[0] * x[0], x[1], 5)); },
                 {uniform({6}), indexArray({4, 0, 4, 2, 9, -1}, {6})});
}

// one_hot of i32 labels is a constant mask: only the f64 input is differentiated.
TEST_F(IndexingGradTest, OneHotWeightedSum) {
  checkGradients([](const Args &x) { return sum(one_hot(x[1], 5, DType::F64) * exp(x[0]), {-1}); },
                 {uniform({4, 5}), indices({4}, 0, 4)});
}

} // namespace
