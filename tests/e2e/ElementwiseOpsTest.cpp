// End-to-end tests of the f32 elementwise ops (unary, binary with broadcasting, the scalar
// operators, NaN rules of max/min) against the plain reference.
#include "tests/e2e/Harness.h"

#include <cmath>

using namespace loom;
using namespace loom::e2e;

namespace {

/// Shapes every elementwise op runs on: rank 0, an odd 1-d size, a size-1 middle dim.
const std::vector<Shape> kShapes = {{}, {33}, {3, 1, 13}};

struct UnaryCase {
  const char *name;
  Tensor (*op)(Tensor);
  double (*reference)(double);
  double lo, hi; ///< input range
  Tolerance tol;
};

class UnaryOpTest : public testing::TestWithParam<std::tuple<UnaryCase, Shape>> {};

TEST_P(UnaryOpTest, MatchesReference) {
  auto [c, shape] = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor x = uniform(shape, rng, c.lo, c.hi);
  auto f = jit(c.op);
  EXPECT_TRUE(allClose(f(toArray(x)), ref::map(x, c.reference), c.tol));
}

const UnaryCase kUnaryCases[] = {
    {"neg", [](Tensor x) { return -x; }, [](double x) { return -x; }, -4, 4, kExact},
    {"abs", [](Tensor x) { return loom::abs(x); }, [](double x) { return std::fabs(x); }, -4,
     4, kExact},
    {"exp", [](Tensor x) { return loom::exp(x); }, [](double x) { return std::exp(x); }, -20,
     20, kF32Approx},
    {"log", [](Tensor x) { return loom::log(x); }, [](double x) { return std::log(x); }, 1e-3,
     100, kF32Approx},
    {"tanh", [](Tensor x) { return loom::tanh(x); }, [](double x) { return std::tanh(x); }, -6,
     6, kF32Approx},
    {"sqrt", [](Tensor x) { return loom::sqrt(x); }, [](double x) { return std::sqrt(x); }, 0,
     100, kF32},
    {"rsqrt", [](Tensor x) { return loom::rsqrt(x); },
     [](double x) { return 1 / std::sqrt(x); }, 1e-3, 100, kF32},
    {"sigmoid", [](Tensor x) { return loom::sigmoid(x); }, ref::sigmoid, -12, 12, kF32Approx},
    {"relu", [](Tensor x) { return loom::relu(x); }, ref::relu, -4, 4, kExact},
    {"gelu", [](Tensor x) { return loom::gelu(x); }, ref::gelu, -6, 6, kF32Approx},
};

std::string unaryName(const testing::TestParamInfo<UnaryOpTest::ParamType> &info) {
  return std::get<0>(info.param).name + ("_" + paramName(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(F32, UnaryOpTest,
                         testing::Combine(testing::ValuesIn(kUnaryCases),
                                          testing::ValuesIn(kShapes)),
                         unaryName);

} // namespace
