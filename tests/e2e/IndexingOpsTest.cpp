// End-to-end tests of the indexing ops: take (loom.gather, clamping out-of-range indices),
// scatter_add (its adjoint, accumulating repeated indices) and one_hot.
#include "tests/e2e/Harness.h"

#include <cmath>

using namespace loom;
using namespace loom::e2e;

namespace {

//===--- take ---===//

struct TakeCase {
  const char *name;
  Shape table, indices;
  int64_t lo, hi; ///< index range; outside [0, rows) they clamp
};

class TakeTest : public testing::TestWithParam<std::tuple<TakeCase, DType>> {};

TEST_P(TakeTest, GathersClampedRows) {
  auto [c, indexType] = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor table = uniform(c.table, rng), indices = randomInts(c.indices, rng, c.lo, c.hi);
  auto f = jit([](Tensor table, Tensor indices) { return take(table, indices); });
  EXPECT_TRUE(allClose(f(toArray(table), toArray(indices, indexType)), ref::gather(table, indices),
                       kExact));
}

const TakeCase kTakeCases[] = {
    {"rows", {13, 5}, {7}, 0, 12},
    {"indices_2d", {7, 33}, {3, 4}, 0, 6},
    {"out_of_range", {13, 5}, {3, 11}, -20, 40}, // clamped to 0 and 12
    {"table_1d", {13}, {2, 7}, -2, 14},
    {"table_3d", {5, 3, 2}, {4}, 0, 4},
    {"scalar_index", {7, 13}, {}, 0, 6},
    {"one_row", {1, 7}, {5}, -3, 3},
};

INSTANTIATE_TEST_SUITE_P(, TakeTest,
                         testing::Combine(testing::ValuesIn(kTakeCases),
                                          testing::Values(DType::I32, DType::I64)),
                         [](const testing::TestParamInfo<TakeTest::ParamType> &info) {
                           return std::string(std::get<0>(info.param).name) + "_" +
                                  std::string(rt::name(std::get<1>(info.param)));
                         });

// Every boundary: far below, -1, 0, the last row, one past it, far above.
TEST(TakeEdgeTest, ClampsEachBoundary) {
  std::mt19937 rng(kSeed);
  RefTensor table = uniform({7, 3}, rng);
  RefTensor indices{{6}, {-1000, -1, 0, 6, 7, 1000}};
  auto f = jit([](Tensor table, Tensor indices) { return take(table, indices); });
  Array got = f(toArray(table), toArray(indices, DType::I32));
  EXPECT_TRUE(allClose(got, ref::gather(table, indices), kExact));
}

// The table's dtype is carried through: i32 and i1 tables.
TEST(TakeEdgeTest, IntegerAndBoolTables) {
  std::mt19937 rng(kSeed);
  RefTensor ints = randomInts({9, 4}, rng, -100, 100), bits = randomInts({9, 4}, rng, 0, 1);
  RefTensor indices = randomInts({5}, rng, -2, 10);
  auto f = jit([](Tensor table, Tensor indices) { return take(table, indices); });
  Array gotInts = f(toArray(ints, DType::I32), toArray(indices, DType::I32));
  Array gotBits = f(toArray(bits, DType::I1), toArray(indices, DType::I32));
  EXPECT_EQ(gotInts.dtype(), DType::I32);
  EXPECT_TRUE(allClose(gotInts, ref::gather(ints, indices), kExact));
  EXPECT_EQ(gotBits.dtype(), DType::I1);
  EXPECT_TRUE(allClose(gotBits, ref::gather(bits, indices), kExact));
}

//===--- scatter_add ---===//

struct ScatterCase {
  const char *name;
  Shape indices, row; ///< updates have shape indices ++ row
  int64_t rows, lo, hi;
};

class ScatterAddTest : public testing::TestWithParam<ScatterCase> {};

// Few rows and many indices make repeats certain; sums of <= 40 terms fit kF32.
TEST_P(ScatterAddTest, AccumulatesRepeatedIndices) {
  const ScatterCase &c = GetParam();
  std::mt19937 rng(kSeed);
  Shape updateShape = c.indices;
  updateShape.insert(updateShape.end(), c.row.begin(), c.row.end());
  RefTensor updates = uniform(updateShape, rng), indices = randomInts(c.indices, rng, c.lo, c.hi);
  int64_t rows = c.rows;
  auto f = jit([rows](Tensor u, Tensor i) { return scatter_add(u, i, rows); });
  EXPECT_TRUE(allClose(f(toArray(updates), toArray(indices, DType::I32)),
                       ref::scatterAdd(updates, indices, c.rows), kF32));
}

INSTANTIATE_TEST_SUITE_P(, ScatterAddTest,
                         testing::Values(ScatterCase{"repeated", {33}, {5}, 7, 0, 6},
                                         ScatterCase{"indices_2d", {3, 11}, {4}, 6, 0, 5},
                                         ScatterCase{"out_of_range", {13}, {3}, 5, -10, 15},
                                         ScatterCase{"scalar_rows", {13}, {}, 4, 0, 3},
                                         ScatterCase{"row_3d", {9}, {2, 3}, 4, 0, 3},
                                         ScatterCase{"one_row", {7}, {5}, 1, -2, 2},
                                         // One index (a gather's gradient at it), in range
                                         // or clamped: one pass over the result.
                                         ScatterCase{"scalar_index", {}, {6}, 9, 0, 8},
                                         ScatterCase{"one_index_clamped", {1}, {2, 3}, 4, 5, 9}),
                         [](const testing::TestParamInfo<ScatterCase> &info) {
                           return info.param.name;
                         });

// A hand-checked case (which checks the reference too): row 2 gets three updates, row 0
// gets two because -5 clamps to 0, row 1 none, and 9 clamps to row 3.
TEST(ScatterAddEdgeTest, HandComputed) {
  RefTensor updates{{6, 2}, {1, 2, 10, 20, 100, 200, 1000, 2000, 3, 4, 5, 6}};
  RefTensor indices{{6}, {0, 2, 2, 2, -5, 9}};
  RefTensor want{{4, 2}, {4, 6, 0, 0, 1110, 2220, 5, 6}};
  ASSERT_TRUE(allClose(toArray(want), ref::scatterAdd(updates, indices, 4), kExact));
  auto f = jit([](Tensor u, Tensor i) { return scatter_add(u, i, 4); });
  EXPECT_TRUE(allClose(f(toArray(updates), toArray(indices, DType::I64)), want, kExact));
}

// Integer updates accumulate exactly.
TEST(ScatterAddEdgeTest, IntegerUpdates) {
  std::mt19937 rng(kSeed);
  RefTensor updates = randomInts({17, 3}, rng, -100, 100), indices = randomInts({17}, rng, 0, 4);
  auto f = jit([](Tensor u, Tensor i) { return scatter_add(u, i, 5); });
  Array got = f(toArray(updates, DType::I32), toArray(indices, DType::I32));
  EXPECT_EQ(got.dtype(), DType::I32);
  EXPECT_TRUE(allClose(got, ref::scatterAdd(updates, indices, 5), kExact));
}

// One index: the update lands on its (clamped) row and every other row is zero, with an
// integer update exact and a -0 update added to zero as the loop over indices adds it (+0).
TEST(ScatterAddEdgeTest, OneIndex) {
  auto f = jit([](Tensor u, Tensor i) { return scatter_add(u, i, 3); });
  RefTensor ints{{2}, {7, -4}}, want{{3, 2}, {0, 0, 0, 0, 7, -4}};
  Array got = f(toArray(ints, DType::I32), toArray(RefTensor{{}, {12}}, DType::I32));
  EXPECT_TRUE(allClose(got, want, kExact));
  std::vector<float> signs = f(Array::from(std::vector<float>{-0.0f, 1.5f}, {2}),
                               toArray(RefTensor{{}, {0}}, DType::I32))
                                 .to_host<float>();
  ASSERT_EQ(signs.size(), 6u);
  EXPECT_FALSE(std::signbit(signs[0])) << "-0 + 0 is +0";
  EXPECT_EQ(signs[1], 1.5f);
}

//===--- one_hot ---===//

struct OneHotCase {
  Shape indices;
  int64_t n;
  DType dtype;
};

class OneHotTest : public testing::TestWithParam<OneHotCase> {};

// Indices run from -2 to n + 1: out-of-range ones give all-zero rows (no clamping).
TEST_P(OneHotTest, MarksTheIndex) {
  const OneHotCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor indices = randomInts(c.indices, rng, -2, c.n + 1);
  auto f = jit([c](Tensor i) { return one_hot(i, c.n, c.dtype); });
  Array got = f(toArray(indices, DType::I32));
  EXPECT_EQ(got.dtype(), c.dtype);
  EXPECT_TRUE(allClose(got, ref::oneHot(indices, c.n), kExact));
}

INSTANTIATE_TEST_SUITE_P(
    , OneHotTest,
    testing::Values(OneHotCase{{7}, 5, DType::F32}, OneHotCase{{3, 4}, 6, DType::F32},
                    OneHotCase{{}, 13, DType::F32}, OneHotCase{{33}, 1, DType::F32},
                    OneHotCase{{7}, 5, DType::I32}, OneHotCase{{7}, 5, DType::BF16}),
    [](const testing::TestParamInfo<OneHotCase> &info) {
      return paramName(info.param.indices) + "_n" + std::to_string(info.param.n) + "_" +
             std::string(rt::name(info.param.dtype));
    });

} // namespace
