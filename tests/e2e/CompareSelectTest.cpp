// End-to-end tests of loom.compare (all six directions, float NaN rules, integers, i1
// results) and loom.select through where, with its three-way broadcasting.
#include "tests/e2e/Harness.h"

#include <cmath>

using namespace loom;
using namespace loom::e2e;

namespace {

const ref::Cmp kDirections[] = {ref::Cmp::Eq, ref::Cmp::Ne, ref::Cmp::Lt,
                                ref::Cmp::Le, ref::Cmp::Gt, ref::Cmp::Ge};

/// All six comparisons of a and b, in kDirections' order.
std::vector<Tensor> compareAll(Tensor a, Tensor b) {
  return {equal(a, b),      not_equal(a, b), less(a, b),
          less_equal(a, b), greater(a, b),   greater_equal(a, b)};
}

class CompareTest : public testing::TestWithParam<DType> {};

// Small integers make ties common, so eq/le/ge are tested on equal values too; a [7,1] and
// b [13] broadcast against each other.
TEST_P(CompareTest, AllDirections) {
  DType dtype = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor a = randomInts({7, 1}, rng, -3, 3), b = randomInts({13}, rng, -3, 3);
  if (dtype == DType::F32 || dtype == DType::F64) {
    a.data[1] = NAN, a.data[2] = INFINITY, a.data[3] = -0.0;
    b.data[0] = NAN, b.data[4] = -INFINITY, b.data[5] = 0.0;
  }
  auto f = jit(compareAll);
  std::vector<Array> got = f(toArray(a, dtype), toArray(b, dtype));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].dtype(), DType::I1) << "direction " << i;
    EXPECT_TRUE(allClose(got[i], ref::compare(a, b, kDirections[i]), kExact)) << "direction " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(, CompareTest,
                         testing::Values(DType::F32, DType::F64, DType::I32, DType::I64),
                         [](const testing::TestParamInfo<DType> &info) {
                           return std::string(rt::name(info.param));
                         });

// Comparing rank-0 tensors gives a rank-0 i1.
TEST(CompareEdgeTest, Scalars) {
  auto f = jit([](Tensor a, Tensor b) { return less(a, b); });
  EXPECT_TRUE(allClose(f(Array::scalar(1.0f), Array::scalar(2.0f)), RefTensor{{}, {1}}));
  EXPECT_TRUE(allClose(f(Array::scalar(2.0f), Array::scalar(2.0f)), RefTensor{{}, {0}}));
}

// where(a > b, a, b) is max, with the predicate computed in the same function.
TEST(SelectTest, PredicateFromCompare) {
  std::mt19937 rng(kSeed);
  RefTensor a = uniform({7, 13}, rng), b = uniform({7, 13}, rng);
  auto f = jit([](Tensor a, Tensor b) { return where(greater(a, b), a, b); });
  RefTensor want = ref::select(ref::compare(a, b, ref::Cmp::Gt), a, b);
  EXPECT_TRUE(allClose(f(toArray(a), toArray(b)), want, kExact));
}

struct SelectShapes {
  Shape pred, onTrue, onFalse;
};

class SelectBroadcastTest : public testing::TestWithParam<std::tuple<SelectShapes, DType>> {};

// Predicate, on_true and on_false each broadcast (NumPy rules over all three).
TEST_P(SelectBroadcastTest, MatchesReference) {
  auto [shapes, dtype] = GetParam();
  std::mt19937 rng(kSeed);
  int64_t lo = dtype == DType::I1 ? 0 : -100, hi = dtype == DType::I1 ? 1 : 100;
  RefTensor pred = randomInts(shapes.pred, rng, 0, 1);
  RefTensor a = randomInts(shapes.onTrue, rng, lo, hi);
  RefTensor b = randomInts(shapes.onFalse, rng, lo, hi);
  auto f = jit([](Tensor p, Tensor a, Tensor b) { return where(p, a, b); });
  Array got = f(toArray(pred, DType::I1), toArray(a, dtype), toArray(b, dtype));
  EXPECT_EQ(got.dtype(), dtype);
  EXPECT_TRUE(allClose(got, ref::select(pred, a, b), kExact));
}

const SelectShapes kSelectShapes[] = {
    {{7, 13}, {7, 13}, {7, 13}},    // no broadcast
    {{7, 1}, {7, 13}, {}},          // pred [7,1], on_false a scalar
    {{}, {3, 5}, {5}},              // rank-0 pred
    {{3, 1, 5}, {1, 4, 1}, {4, 5}}, // every operand broadcasts
};

INSTANTIATE_TEST_SUITE_P(, SelectBroadcastTest,
                         testing::Combine(testing::ValuesIn(kSelectShapes),
                                          testing::Values(DType::F32, DType::I32, DType::I1)),
                         [](const testing::TestParamInfo<SelectBroadcastTest::ParamType> &info) {
                           const SelectShapes &s = std::get<0>(info.param);
                           return std::string(rt::name(std::get<1>(info.param))) + "_" +
                                  paramName(s.pred) + "_" + paramName(s.onTrue) + "_" +
                                  paramName(s.onFalse);
                         });

} // namespace
