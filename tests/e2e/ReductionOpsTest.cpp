// End-to-end tests of loom.reduce through sum, mean and max (over one, several or all axes,
// with and without keepdims, negative axes, integer dtypes) and of softmax/log_softmax.
#include "tests/e2e/Harness.h"

#include <cmath>
#include <limits>

using namespace loom;
using namespace loom::e2e;

namespace {

struct ReduceCase {
  Shape shape;
  Axes axes; ///< empty: all
  bool keepdims;
};

std::string reduceName(const testing::TestParamInfo<ReduceCase> &info) {
  std::string name = paramName(info.param.shape) + "_axes";
  for (int64_t a : info.param.axes) {
    name += a < 0 ? "_m" : "_";
    name += std::to_string(a < 0 ? -a : a);
  }
  return name + (info.param.keepdims ? "_keep" : "");
}

// [5,33,7] rather than a smaller odd shape: reducing the middle axis of [7,13,5] compiles
// ~10x slower (LLVM fully unrolls it), which the suite's time budget cannot afford.
const ReduceCase kReduceCases[] = {
    {{5, 33, 7}, {}, false},
    {{5, 33, 7}, {}, true},
    {{5, 33, 7}, {0}, false},
    {{5, 33, 7}, {1}, true},
    {{5, 33, 7}, {-1}, false},
    {{5, 33, 7}, {0, 2}, false},
    {{5, 33, 7}, {0, 2}, true},
    {{5, 33, 7}, {2, -2}, false},
    {{33}, {0}, false},
    {{3, 1, 4, 5}, {1, 3}, true},
    {{}, {}, false},
};

class ReduceTest : public testing::TestWithParam<ReduceCase> {};

// sum, mean and max of one input in one function; max sees only negative values so that a
// wrong initial value of 0 would show.
TEST_P(ReduceTest, SumMeanMax) {
  const ReduceCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor x = uniform(c.shape, rng, -1, 1), negative = uniform(c.shape, rng, -5, -1);
  auto f = jit([c](Tensor x, Tensor negative) {
    return std::make_tuple(sum(x, c.axes, c.keepdims), mean(x, c.axes, c.keepdims),
                           loom::max(x, c.axes, c.keepdims),
                           loom::max(negative, c.axes, c.keepdims));
  });
  auto [total, average, largest, largestNegative] = f(toArray(x), toArray(negative));
  EXPECT_TRUE(allClose(total, ref::sum(x, c.axes, c.keepdims), kF32));
  EXPECT_TRUE(allClose(average, ref::mean(x, c.axes, c.keepdims), kF32));
  EXPECT_TRUE(allClose(largest, ref::max(x, c.axes, c.keepdims), kExact));
  EXPECT_TRUE(allClose(largestNegative, ref::max(negative, c.axes, c.keepdims), kExact));
}

INSTANTIATE_TEST_SUITE_P(, ReduceTest, testing::ValuesIn(kReduceCases), reduceName);

// Reducing only size-1 dims makes sum and max fold to the same value, returned twice.
INSTANTIATE_TEST_SUITE_P(SameResults, ReduceTest,
                         testing::Values(ReduceCase{{1, 13, 1}, {0, 2}, false}), reduceName);

// Reductions over size-1 dims and of rank-0 tensors, one result per function.
TEST(ReduceEdgeTest, UnitDimsAndScalars) {
  std::mt19937 rng(kSeed);
  RefTensor x = uniform({1, 13, 1}, rng), s = uniform({}, rng);
  auto sumUnit = jit([](Tensor x) { return sum(x, {0, 2}); });
  auto maxUnit = jit([](Tensor x) { return loom::max(x, {0, -1}, true); });
  auto meanAll = jit([](Tensor x) { return mean(x); });
  EXPECT_TRUE(allClose(sumUnit(toArray(x)), ref::sum(x, {0, 2}), kExact));
  EXPECT_TRUE(allClose(maxUnit(toArray(x)), ref::max(x, {0, -1}, true), kExact));
  EXPECT_TRUE(allClose(meanAll(toArray(s)), s, kExact));
}

class ReduceDTypeTest : public testing::TestWithParam<DType> {};

// Integer reductions are exact; f64 keeps f64 precision.
TEST_P(ReduceDTypeTest, SumAndMax) {
  DType dtype = GetParam();
  bool isInt = dtype == DType::I32 || dtype == DType::I64;
  std::mt19937 rng(kSeed);
  RefTensor x =
      isInt ? randomInts({5, 33, 7}, rng, -1000, -1) : uniform({5, 33, 7}, rng, -5, -1, dtype);
  auto f = jit([](Tensor x) {
    return std::make_tuple(sum(x, {0, 2}), loom::max(x, {1}), sum(x), loom::max(x));
  });
  auto [rows, cols, all, top] = f(toArray(x, dtype));
  Tolerance tol = isInt ? kExact : kF64;
  EXPECT_TRUE(allClose(rows, ref::sum(x, {0, 2}), tol));
  EXPECT_TRUE(allClose(cols, ref::max(x, {1}), tol));
  EXPECT_TRUE(allClose(all, ref::sum(x), tol));
  EXPECT_TRUE(allClose(top, ref::max(x), tol));
}

INSTANTIATE_TEST_SUITE_P(, ReduceDTypeTest, testing::Values(DType::F64, DType::I32, DType::I64),
                         [](const testing::TestParamInfo<DType> &info) {
                           return std::string(rt::name(info.param));
                         });

// A long f32 sum: 4096 terms of magnitude <= 1 round within 1e-4 of the exact total.
TEST(ReduceEdgeTest, LongSum) {
  std::mt19937 rng(kSeed);
  RefTensor x = uniform({4096}, rng);
  auto f = jit([](Tensor x) { return sum(x); });
  EXPECT_TRUE(allClose(f(toArray(x)), ref::sum(x), Tolerance{1e-4, 1e-5}));
}

/// Values in [-1000, -1] (i32) or [-5, -1]: a wrong initial max of 0 would show.
RefTensor negativeValues(const Shape &shape, std::mt19937 &rng, DType dtype) {
  return dtype == DType::I32 ? randomInts(shape, rng, -1000, -1)
                             : uniform(shape, rng, -5, -1, dtype);
}

// Shapes that the GPU pipeline reduces across threads (loom-gpu-block-reductions: rows of at
// least 64 elements, here 1000, not a multiple of a block's threads; loom-gpu-split-reductions:
// leading dims of at least 512 rows, here 2048 rows of 24) in f32, f64 and i32; on the CPU
// the same programs check the references. Values are negative so that a wrong initial max of
// 0 would show.
TEST(ReduceEdgeTest, WideRowsAndTallColumns) {
  for (DType dtype : {DType::F32, DType::F64, DType::I32}) {
    SCOPED_TRACE(rt::name(dtype));
    bool isInt = dtype == DType::I32;
    std::mt19937 rng(kSeed);
    auto values = [&](const Shape &shape) { return negativeValues(shape, rng, dtype); };
    RefTensor wide = values({37, 1000}), tall = values({2048, 24});
    auto f = jit([](Tensor w, Tensor t) {
      return std::make_tuple(sum(w, {1}), loom::max(w, {1}), sum(t, {0}), loom::max(t, {0}));
    });
    auto [rowSums, rowMaxes, columnSums, columnMaxes] = f(toArray(wide, dtype), toArray(tall, dtype));
    // f32 sums of up to 2048 terms near -3: within 1e-4 of totals near -6000.
    Tolerance sums = isInt ? kExact : dtype == DType::F64 ? kF64 : Tolerance{1e-4, 1e-4};
    EXPECT_TRUE(allClose(rowSums, ref::sum(wide, {1}), sums));
    EXPECT_TRUE(allClose(rowMaxes, ref::max(wide, {1}), kExact));
    EXPECT_TRUE(allClose(columnSums, ref::sum(tall, {0}), sums));
    EXPECT_TRUE(allClose(columnMaxes, ref::max(tall, {0}), kExact));
  }
}

// Reductions over the first dim alone that the CPU splits into groups of rows
// (loom-cpu-split-reductions: from 65536 elements, 16 groups of 65 rows here, of a rank-3
// tensor, and of a fused square), and one whose 1021 rows no group count from 8 to 16
// divides, left whole.
TEST(ReduceEdgeTest, FirstDimInGroupsOfRows) {
  for (DType dtype : {DType::F32, DType::F64, DType::I32}) {
    SCOPED_TRACE(rt::name(dtype));
    bool isInt = dtype == DType::I32;
    std::mt19937 rng(kSeed);
    auto values = [&](const Shape &shape) { return negativeValues(shape, rng, dtype); };
    RefTensor grouped = values({1040, 80}), deep = values({1040, 4, 20});
    RefTensor whole = values({1021, 96});
    auto f = jit([](Tensor g, Tensor d, Tensor w) {
      return std::make_tuple(sum(g, {0}), loom::max(g, {0}), sum(d, {0}), sum(w, {0}),
                             sum(g * g, {0}));
    });
    auto [sums, maxes, deepSums, wholeSums, squares] =
        f(toArray(grouped, dtype), toArray(deep, dtype), toArray(whole, dtype));
    // f32 sums of about 1000 terms near -3: within 1e-4 of totals near -3000.
    Tolerance tol = isInt ? kExact : dtype == DType::F64 ? kF64 : Tolerance{1e-4, 1e-4};
    EXPECT_TRUE(allClose(sums, ref::sum(grouped, {0}), tol));
    EXPECT_TRUE(allClose(maxes, ref::max(grouped, {0}), kExact));
    EXPECT_TRUE(allClose(deepSums, ref::sum(deep, {0}), tol));
    EXPECT_TRUE(allClose(wholeSums, ref::sum(whole, {0}), tol));
    EXPECT_TRUE(allClose(squares, ref::sum(ref::mul(grouped, grouped), {0}), tol));
  }
}

// Reducing zero elements: sum is 0, max the lowest value (-inf for floats, INT_MIN for i32).
TEST(ReduceEdgeTest, EmptyDims) {
  auto f = jit([](Tensor x) { return std::make_tuple(sum(x, {0}), loom::max(x, {0})); });
  RefTensor empty = ref::full({0, 3}, 0);
  auto [floatSum, floatMax] = f(toArray(empty));
  EXPECT_TRUE(allClose(floatSum, ref::full({3}, 0), kExact));
  EXPECT_TRUE(allClose(floatMax, ref::full({3}, -INFINITY), kExact));
  auto [intSum, intMax] = f(toArray(empty, DType::I32));
  EXPECT_TRUE(allClose(intSum, ref::full({3}, 0), kExact));
  EXPECT_TRUE(allClose(intMax, ref::full({3}, std::numeric_limits<int32_t>::min()), kExact));
}

//===--- softmax ---===//

struct SoftmaxCase {
  Shape shape;
  int64_t axis;
  double scale; ///< inputs in [-scale, scale]
};

class SoftmaxTest : public testing::TestWithParam<SoftmaxCase> {};

// Inputs up to 100 check the max-shift: exp(100) overflows f32, so without the shift the
// result would be inf / inf.
TEST_P(SoftmaxTest, SoftmaxAndLogSoftmax) {
  const SoftmaxCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor x = uniform(c.shape, rng, -c.scale, c.scale);
  auto f =
      jit([c](Tensor x) { return std::make_tuple(softmax(x, c.axis), log_softmax(x, c.axis)); });
  auto [probs, logProbs] = f(toArray(x));
  EXPECT_TRUE(allClose(probs, ref::softmax(x, c.axis), kF32Approx));
  EXPECT_TRUE(allClose(logProbs, ref::logSoftmax(x, c.axis), kF32Approx));
}

INSTANTIATE_TEST_SUITE_P(, SoftmaxTest,
                         testing::Values(SoftmaxCase{{4, 7, 5}, 1, 3},  // middle axis
                                         SoftmaxCase{{4, 7, 5}, -1, 3}, // last axis
                                         SoftmaxCase{{13, 3}, 0, 3},    // leading axis
                                         SoftmaxCase{{33}, 0, 100},     // large inputs
                                         SoftmaxCase{{3, 1}, 1, 3}),    // size-1 axis
                         [](const testing::TestParamInfo<SoftmaxCase> &info) {
                           return paramName(info.param.shape) + "_axis" +
                                  (info.param.axis < 0 ? "_m1" : std::to_string(info.param.axis)) +
                                  (info.param.scale > 10 ? "_large" : "");
                         });

} // namespace
