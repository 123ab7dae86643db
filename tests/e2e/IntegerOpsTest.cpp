// End-to-end tests of integer arithmetic: i32 and i64 add, sub, mul, truncating div, max,
// min, neg and abs, with broadcasting; results must be exact.
#include "tests/e2e/Harness.h"

#include <cmath>

using namespace loom;
using namespace loom::e2e;

namespace {

struct IntBinaryCase {
  const char *name;
  Tensor (*op)(Tensor, Tensor);
  RefTensor (*reference)(const RefTensor &, const RefTensor &);
};

const IntBinaryCase kIntBinaryCases[] = {
    {"add", [](Tensor a, Tensor b) { return a + b; }, ref::add},
    {"sub", [](Tensor a, Tensor b) { return a - b; }, ref::sub},
    {"mul", [](Tensor a, Tensor b) { return a * b; }, ref::mul},
    {"div", [](Tensor a, Tensor b) { return a / b; }, ref::divTrunc},
    {"maximum", [](Tensor a, Tensor b) { return maximum(a, b); }, ref::maximum},
    {"minimum", [](Tensor a, Tensor b) { return minimum(a, b); }, ref::minimum},
};

const std::pair<Shape, Shape> kIntShapes[] = {
    {{7, 13}, {7, 13}}, {{3, 1}, {1, 4}}, {{}, {5, 7}}, {{}, {}}};

/// Divisors in [-9, 9] without 0, so that every sign combination of div is exercised.
RefTensor nonZero(RefTensor t) {
  for (double &v : t.data)
    v = v == 0 ? 1 : v;
  return t;
}

class IntBinaryOpTest
    : public testing::TestWithParam<std::tuple<IntBinaryCase, std::pair<Shape, Shape>, DType>> {};

TEST_P(IntBinaryOpTest, MatchesReference) {
  auto [c, shapes, dtype] = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor a = randomInts(shapes.first, rng, -1000, 1000);
  RefTensor b = nonZero(randomInts(shapes.second, rng, -9, 9));
  auto f = jit(c.op);
  Array got = f(toArray(a, dtype), toArray(b, dtype));
  EXPECT_EQ(got.dtype(), dtype);
  EXPECT_TRUE(allClose(got, c.reference(a, b), kExact));
}

std::string intBinaryName(const testing::TestParamInfo<IntBinaryOpTest::ParamType> &info) {
  const auto &[c, shapes, dtype] = info.param;
  return std::string(rt::name(dtype)) + "_" + c.name + "_" + paramName(shapes.first) + "_" +
         paramName(shapes.second);
}

INSTANTIATE_TEST_SUITE_P(Int, IntBinaryOpTest,
                         testing::Combine(testing::ValuesIn(kIntBinaryCases),
                                          testing::ValuesIn(kIntShapes),
                                          testing::Values(DType::I32, DType::I64)),
                         intBinaryName);

// Division truncates toward zero for every sign combination, including exact quotients.
TEST(IntBinaryOpEdgeTest, DivTruncatesTowardZero) {
  RefTensor a{{8}, {7, -7, 7, -7, 6, -6, 1, -1}};
  RefTensor b{{8}, {2, 2, -2, -2, 3, 3, 5, 5}};
  auto f = jit([](Tensor a, Tensor b) { return a / b; });
  EXPECT_TRUE(allClose(f(toArray(a, DType::I32), toArray(b, DType::I32)),
                       RefTensor{{8}, {3, -3, -3, 3, 2, -2, 0, 0}}, kExact));
}

// Products past 2^31 need i64: nothing may pass through a narrower or floating type.
TEST(IntBinaryOpEdgeTest, I64KeepsLargeValues) {
  RefTensor a{{4}, {3000000000.0, -3000000000.0, 1LL << 40, 123456789012}};
  RefTensor b{{4}, {3, 7, -5, 1000}};
  auto f = jit([](Tensor a, Tensor b) { return std::make_tuple(a * b, a + b, a / b); });
  auto [product, total, quotient] = f(toArray(a, DType::I64), toArray(b, DType::I64));
  EXPECT_TRUE(allClose(product, ref::mul(a, b), kExact));
  EXPECT_TRUE(allClose(total, ref::add(a, b), kExact));
  EXPECT_TRUE(allClose(quotient, ref::divTrunc(a, b), kExact));
}

class IntUnaryOpTest : public testing::TestWithParam<std::tuple<Shape, DType>> {};

TEST_P(IntUnaryOpTest, NegAndAbs) {
  auto [shape, dtype] = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor x = randomInts(shape, rng, -1000, 1000);
  auto f = jit([](Tensor x) { return std::make_tuple(-x, loom::abs(x)); });
  auto [negated, absolute] = f(toArray(x, dtype));
  EXPECT_TRUE(allClose(negated, ref::map(x, [](double v) { return -v; }), kExact));
  EXPECT_TRUE(allClose(absolute, ref::map(x, [](double v) { return std::fabs(v); }), kExact));
}

INSTANTIATE_TEST_SUITE_P(Int, IntUnaryOpTest,
                         testing::Combine(testing::Values(Shape{}, Shape{33}, Shape{3, 1, 13}),
                                          testing::Values(DType::I32, DType::I64)),
                         [](const testing::TestParamInfo<IntUnaryOpTest::ParamType> &info) {
                           return std::string(rt::name(std::get<1>(info.param))) + "_" +
                                  paramName(std::get<0>(info.param));
                         });

} // namespace
