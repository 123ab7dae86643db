// End-to-end tests of the creation ops, which take no operands: iota and arange along each
// axis and dtype, full/zeros/ones, and constant with explicit values.
#include "tests/e2e/Harness.h"

#include <cstdlib>

using namespace loom;
using namespace loom::e2e;

namespace {

struct IotaCase {
  Shape shape;
  int64_t axis;
  DType dtype;
};

class IotaTest : public testing::TestWithParam<IotaCase> {};

// Added to an input so the function has an operand of the result's shape and dtype.
TEST_P(IotaTest, CountsAlongAxis) {
  const IotaCase &c = GetParam();
  auto f = jit([c](Tensor x) { return iota(c.shape, c.axis, c.dtype) + x; });
  RefTensor zero = ref::full(c.shape, 0);
  Array got = f(toArray(zero, c.dtype));
  EXPECT_EQ(got.dtype(), c.dtype);
  int64_t axis = c.axis < 0 ? c.axis + static_cast<int64_t>(c.shape.size()) : c.axis;
  EXPECT_TRUE(allClose(got, ref::iota(c.shape, axis), kExact));
}

INSTANTIATE_TEST_SUITE_P(
    , IotaTest,
    testing::Values(IotaCase{{7}, 0, DType::I32}, IotaCase{{3, 5}, 0, DType::I32},
                    IotaCase{{3, 5}, 1, DType::I64}, IotaCase{{2, 33, 4}, 1, DType::F32},
                    IotaCase{{2, 3, 4}, -1, DType::F64}, IotaCase{{1, 13}, 1, DType::BF16}),
    [](const testing::TestParamInfo<IotaCase> &info) {
      int64_t axis = info.param.axis;
      return paramName(info.param.shape) + "_axis" + (axis < 0 ? "m" : "") +
             std::to_string(std::abs(axis)) + "_" + std::string(rt::name(info.param.dtype));
    });

// A function with no operands at all.
TEST(CreationTest, NoOperands) {
  auto f = jit([]() {
    return std::make_tuple(arange(13), full({3, 4}, 2.5), zeros({2, 1}, DType::I64),
                           ones({}, DType::F64));
  });
  auto [range, filled, zero, one] = f();
  EXPECT_TRUE(allClose(range, ref::iota({13}, 0), kExact));
  EXPECT_TRUE(allClose(filled, ref::full({3, 4}, 2.5), kExact));
  EXPECT_TRUE(allClose(zero, ref::full({2, 1}, 0), kExact));
  EXPECT_TRUE(allClose(one, ref::full({}, 1), kExact));
}

// Constants hold their values in row-major order, converted to the dtype (integers
// truncate toward zero).
TEST(CreationTest, Constant) {
  std::vector<double> values = {1.5, -2.25, 3, 0.1, 1e10, -0.0};
  auto f = jit([values](Tensor x) {
    return std::make_tuple(constant(values, {2, 3}) + x,
                           constant({1.5, -2.7, 3, 0.1, 100, -0.0}, {3, 2}, DType::I32),
                           constant({7}, {}, DType::F64));
  });
  auto [floats, ints, scalar] = f(toArray(ref::full({2, 3}, 0)));
  EXPECT_TRUE(
      allClose(floats, ref::convert(RefTensor{{2, 3}, values}, ref::ElemType::F32), kExact));
  EXPECT_TRUE(allClose(ints, RefTensor{{3, 2}, {1, -2, 3, 0, 100, 0}}, kExact));
  EXPECT_TRUE(allClose(scalar, RefTensor{{}, {7}}, kExact));
}

} // namespace
