// Gradient checks of the pad VJP rule. The DSL cannot reach it (it has no pad op, and the pad that
// slice's VJP emits is never differentiated again), so these tests compile Loom IR directly and run
// the same comparison with central finite differences in f64.
#include "tests/gradients/CompiledMain.h"
#include "tests/gradients/GradientCheck.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

using namespace loom;
using namespace loom::gradcheck;

namespace {

std::string tensorType(const Shape &shape) {
  return shape.empty() ? "tensor<f64>" : fmt::format("tensor<{}xf64>", fmt::join(shape, "x"));
}

struct PadCase {
  Shape shape, low, high, interior;

  Shape resultShape() const {
    Shape result;
    for (size_t i = 0; i < shape.size(); ++i)
      result.push_back(low[i] + high[i] + shape[i] +
                       std::max<int64_t>(shape[i] - 1, 0) * interior[i]);
    return result;
  }

  Shape allDims() const {
    Shape dims(shape.size());
    std::iota(dims.begin(), dims.end(), 0);
    return dims;
  }

  /// @loss(x, p, r) = sum(tanh(pad(x, p)) * r), and a @main that returns its value alone or with
  /// the gradients with respect to x and p.
  std::string module(bool withGradients) const {
    std::string x = tensorType(shape), y = tensorType(resultShape());
    std::string loss = fmt::format(
        R"(func.func private @loss(%x: {0}, %p: tensor<f64>, %r: {1}) -> tensor<f64> {{
  %0 = loom.pad %x, %p, low = [{2}], high = [{3}], interior = [{4}]
      : ({0}, tensor<f64>) -> {1}
  %1 = loom.tanh %0 : {1}
  %2 = loom.mul %1, %r : {1}
  %3 = loom.reduce sum %2, dims = [{5}] : {1} -> tensor<f64>
  return %3 : tensor<f64>
}}
)",
        x, y, fmt::join(low, ", "), fmt::join(high, ", "), fmt::join(interior, ", "),
        fmt::join(allDims(), ", "));
    if (!withGradients)
      return loss +
             fmt::format(R"(func.func @main(%x: {0}, %p: tensor<f64>, %r: {1}) -> tensor<f64> {{
  %v = func.call @loss(%x, %p, %r) : ({0}, tensor<f64>, {1}) -> tensor<f64>
  return %v : tensor<f64>
}}
)",
                         x, y);
    return loss + fmt::format(R"(func.func @main(%x: {0}, %p: tensor<f64>, %r: {1})
    -> (tensor<f64>, {0}, tensor<f64>) {{
  %v, %gx, %gp = loom.value_and_grad @loss(%x, %p, %r) wrt = [0, 1]
      : ({0}, tensor<f64>, {1}) -> (tensor<f64>, {0}, tensor<f64>)
  return %v, %gx, %gp : tensor<f64>, {0}, tensor<f64>
}}
)",
                              x, y);
  }
};

class PadGradTest : public GradientTest {
protected:
  /// Checks the gradients of @loss with respect to x and the padding value.
  void checkPad(const PadCase &c) {
    auto context = makeCompilerContext();
    CompiledMain grads(*context, c.module(true)), loss(*context, c.module(false));

    Values inputs = {uniform(c.shape).values, uniform({}).values,
                     uniform(c.resultShape(), -1.5, 1.5).values};
    Values ad = grads(inputs);
    const double h = 1e-6;
    for (size_t k = 0; k < 2; ++k) {
      std::vector<double> fd;
      for (size_t j = 0; j < inputs[k].size(); ++j) {
        Values plus = inputs, minus = inputs;
        plus[k][j] += h, minus[k][j] -= h;
        fd.push_back((loss(plus)[0][0] - loss(minus)[0][0]) / (2 * h));
      }
      expectGradientsMatch(ad[1 + k], fd, k == 0 ? "operand" : "padding value");
    }
  }
};

TEST_F(PadGradTest, LowHighAndInterior) {
  checkPad({.shape = {3, 4}, .low = {1, 0}, .high = {0, 2}, .interior = {0, 2}});
}

TEST_F(PadGradTest, Rank1) { checkPad({.shape = {5}, .low = {2}, .high = {1}, .interior = {1}}); }

// A size-1 dim (no gaps to fill) and a dim with no padding at all.
TEST_F(PadGradTest, SizeOneDimAndUnpaddedDim) {
  checkPad({.shape = {1, 3, 2}, .low = {1, 0, 0}, .high = {2, 0, 1}, .interior = {3, 0, 1}});
}

} // namespace
