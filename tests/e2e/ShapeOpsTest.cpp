// End-to-end tests of the data-movement ops: reshape, transpose, broadcast_in_dim,
// broadcast_to, slice (with strides), concatenate, pad and expand_dims. Results must be exact.
#include "tests/e2e/Harness.h"

using namespace loom;
using namespace loom::e2e;

namespace {

//===--- reshape ---===//

struct ReshapeCase {
  Shape from, to, want; ///< `to` may hold -1; `want` is the resolved shape
};

class ReshapeTest : public testing::TestWithParam<ReshapeCase> {};

TEST_P(ReshapeTest, KeepsRowMajorOrder) {
  const ReshapeCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor x = uniform(c.from, rng);
  Shape to = c.to;
  auto f = jit([to](Tensor x) { return reshape(x, to) * 2.0; });
  EXPECT_TRUE(
      allClose(f(toArray(x)), ref::mul(ref::reshape(x, c.want), RefTensor{{}, {2}}), kExact));
}

INSTANTIATE_TEST_SUITE_P(, ReshapeTest,
                         testing::Values(ReshapeCase{{3, 4, 5}, {5, 12}, {5, 12}},
                                         ReshapeCase{{7, 13}, {-1}, {91}},
                                         ReshapeCase{{2, 3, 1}, {3, -1}, {3, 2}},
                                         ReshapeCase{{1}, {}, {}}, ReshapeCase{{}, {1, 1}, {1, 1}},
                                         ReshapeCase{{33}, {3, 1, 11}, {3, 1, 11}}),
                         [](const testing::TestParamInfo<ReshapeCase> &info) {
                           return paramName(info.param.from) + "_to_" + paramName(info.param.want);
                         });

//===--- transpose ---===//

struct TransposeCase {
  Shape shape;
  Axes perm; ///< empty: reverse
};

class TransposeTest : public testing::TestWithParam<TransposeCase> {};

TEST_P(TransposeTest, PermutesDims) {
  const TransposeCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor x = uniform(c.shape, rng);
  Axes perm = c.perm;
  auto f = jit([perm](Tensor x) { return transpose(x, perm); });
  Axes resolved = perm;
  if (resolved.empty())
    for (int64_t i = x.rank() - 1; i >= 0; --i)
      resolved.push_back(i);
  EXPECT_TRUE(allClose(f(toArray(x)), ref::transpose(x, resolved), kExact));
}

INSTANTIATE_TEST_SUITE_P(
    , TransposeTest,
    testing::Values(TransposeCase{{13, 33}, {1, 0}}, TransposeCase{{3, 7, 5}, {2, 0, 1}},
                    TransposeCase{{2, 3, 5, 7}, {}}, TransposeCase{{1, 7, 1, 3}, {3, 1, 0, 2}},
                    TransposeCase{{33}, {0}},
                    // Run in tiles (loom-tile-transposed-loops): tiles dividing the dims,
                    // tiles clamped at a dim's end, a batch, and two dims apart.
                    TransposeCase{{64, 48}, {1, 0}}, TransposeCase{{70, 45}, {1, 0}},
                    TransposeCase{{3, 40, 29}, {0, 2, 1}}, TransposeCase{{17, 3, 24}, {2, 1, 0}},
                    TransposeCase{{2, 11, 6, 19}, {0, 3, 2, 1}}),
    [](const testing::TestParamInfo<TransposeCase> &info) {
      return paramName(info.param.shape) + "_" + std::to_string(info.param.perm.size());
    });

class TransposeDTypeTest : public testing::TestWithParam<DType> {};

TEST_P(TransposeDTypeTest, PermutesDims) {
  std::mt19937 rng(kSeed);
  RefTensor x = randomOf({3, 7, 5}, rng, GetParam());
  auto f = jit([](Tensor x) { return transpose(x, {1, 2, 0}); });
  Array got = f(toArray(x, GetParam()));
  EXPECT_EQ(got.dtype(), GetParam());
  EXPECT_TRUE(allClose(got, ref::transpose(x, {1, 2, 0}), kExact));
}

/// Large enough to run in tiles (6 x 5 here), for each element size.
TEST_P(TransposeDTypeTest, PermutesDimsInTiles) {
  std::mt19937 rng(kSeed);
  RefTensor x = randomOf({20, 9, 12}, rng, GetParam());
  auto f = jit([](Tensor x) { return transpose(x, {1, 2, 0}); });
  EXPECT_TRUE(allClose(f(toArray(x, GetParam())), ref::transpose(x, {1, 2, 0}), kExact));
}

INSTANTIATE_TEST_SUITE_P(, TransposeDTypeTest, kMoveDTypes, dtypeName);

/// A transpose fused with its consumer, both results kept: the tiled loop writes both.
TEST(TransposeIntoConsumerTest, WritesEveryResultInTiles) {
  std::mt19937 rng(kSeed);
  RefTensor x = uniform({37, 64}, rng), y = uniform({64, 37}, rng);
  auto f = jit([](Tensor x, Tensor y) {
    Tensor t = transpose(x, {1, 0});
    return std::make_tuple(t, t * y + 1.0);
  });
  auto [t, z] = f(toArray(x), toArray(y));
  RefTensor want = ref::transpose(x, {1, 0});
  EXPECT_TRUE(allClose(t, want, kExact));
  EXPECT_TRUE(allClose(z, ref::add(ref::mul(want, y), ref::full({64, 37}, 1.0)), kF32));
}

//===--- broadcasts ---===//

struct BroadcastCase {
  Shape from, to;
  Axes dims;
};

class BroadcastInDimTest : public testing::TestWithParam<BroadcastCase> {};

TEST_P(BroadcastInDimTest, RepeatsValues) {
  const BroadcastCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor x = uniform(c.from, rng);
  Shape to = c.to;
  Axes dims = c.dims;
  auto f = jit([to, dims](Tensor x) { return broadcast_in_dim(x, to, dims); });
  EXPECT_TRUE(allClose(f(toArray(x)), ref::broadcastInDim(x, c.to, c.dims), kExact));
}

INSTANTIATE_TEST_SUITE_P(, BroadcastInDimTest,
                         testing::Values(BroadcastCase{{7}, {3, 7, 5}, {1}},
                                         BroadcastCase{{7, 1}, {7, 4, 3}, {0, 2}},
                                         BroadcastCase{{}, {3, 5}, {}},
                                         BroadcastCase{{1, 1}, {3, 1, 4}, {0, 2}},
                                         BroadcastCase{{13, 1, 3}, {13, 5, 3}, {0, 1, 2}},
                                         BroadcastCase{{1}, {33}, {0}}),
                         [](const testing::TestParamInfo<BroadcastCase> &info) {
                           return paramName(info.param.from) + "_to_" + paramName(info.param.to);
                         });

class BroadcastToTest : public testing::TestWithParam<DType> {};

TEST_P(BroadcastToTest, NumPyRules) {
  std::mt19937 rng(kSeed);
  RefTensor x = randomOf({3, 1}, rng, GetParam());
  auto f = jit([](Tensor x) { return broadcast_to(x, {2, 3, 4}); });
  EXPECT_TRUE(allClose(f(toArray(x, GetParam())), ref::broadcastTo(x, {2, 3, 4}), kExact));
}

INSTANTIATE_TEST_SUITE_P(, BroadcastToTest, kMoveDTypes, dtypeName);

//===--- slice ---===//

struct SliceCase {
  Shape shape, start, limit, strides;
};

class SliceTest : public testing::TestWithParam<SliceCase> {};

TEST_P(SliceTest, TakesStridedBox) {
  const SliceCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor x = uniform(c.shape, rng);
  auto f = jit([c](Tensor x) { return slice(x, c.start, c.limit, c.strides); });
  Shape strides = c.strides.empty() ? Shape(c.shape.size(), 1) : c.strides;
  EXPECT_TRUE(allClose(f(toArray(x)), ref::slice(x, c.start, c.limit, strides), kExact));
}

std::string sliceName(const testing::TestParamInfo<SliceCase> &info) {
  return paramName(info.param.shape) + "_" + std::to_string(info.index);
}

/// Slices that are one contiguous run of the operand (1-d, or whole rows).
const SliceCase kContiguousSlices[] = {
    {{33}, {3}, {4}, {1}},
    {{33}, {5}, {30}, {}},
    {{7, 13}, {2, 0}, {5, 13}, {}},
    {{5, 3, 7}, {1, 0, 0}, {4, 3, 7}, {}},
};

/// Strided boxes, and unit-stride boxes of partial rows.
const SliceCase kStridedSlices[] = {
    {{13, 33}, {1, 0}, {13, 33}, {2, 3}}, // odd extents, strides 2 and 3
    {{7, 13}, {2, 5}, {6, 13}, {}},       // unit strides, partial rows
    {{5, 13, 3}, {0, 1, 0}, {5, 12, 3}, {1, 2, 1}},
    {{9, 1}, {0, 0}, {9, 1}, {4, 1}}, // size-1 dim kept
    {{7}, {0}, {7}, {2}},             // 1-d, stride 2
};

INSTANTIATE_TEST_SUITE_P(Contiguous, SliceTest, testing::ValuesIn(kContiguousSlices), sliceName);

// Strided and partial-row slices returned as they are: a non-contiguous memref.copy, which
// lowers to a call of memrefCopy that the JIT binds.
INSTANTIATE_TEST_SUITE_P(Strided, SliceTest, testing::ValuesIn(kStridedSlices), sliceName);

class SliceIntoConsumerTest : public testing::TestWithParam<SliceCase> {};

// The same strided slices feeding an elementwise op, which reads the subview in place (no
// memref.copy): this checks the strided indexing while the plain slice cannot compile.
TEST_P(SliceIntoConsumerTest, TakesStridedBox) {
  const SliceCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor x = uniform(c.shape, rng);
  auto f = jit([c](Tensor x) { return slice(x, c.start, c.limit, c.strides) * 2.0; });
  Shape strides = c.strides.empty() ? Shape(c.shape.size(), 1) : c.strides;
  RefTensor want = ref::mul(ref::slice(x, c.start, c.limit, strides), RefTensor{{}, {2}});
  EXPECT_TRUE(allClose(f(toArray(x)), want, kExact));
}

INSTANTIATE_TEST_SUITE_P(, SliceIntoConsumerTest, testing::ValuesIn(kStridedSlices), sliceName);

class SliceDTypeTest : public testing::TestWithParam<DType> {};

TEST_P(SliceDTypeTest, TakesRows) {
  std::mt19937 rng(kSeed);
  RefTensor x = randomOf({7, 13}, rng, GetParam());
  auto f = jit([](Tensor x) { return slice(x, {1, 0}, {6, 13}); });
  EXPECT_TRUE(allClose(f(toArray(x, GetParam())), ref::slice(x, {1, 0}, {6, 13}, {1, 1}), kExact));
}

TEST_P(SliceDTypeTest, TakesStridedBox) {
  std::mt19937 rng(kSeed);
  RefTensor x = randomOf({7, 13}, rng, GetParam());
  auto f = jit([](Tensor x) { return slice(x, {1, 0}, {7, 13}, {2, 2}); });
  EXPECT_TRUE(allClose(f(toArray(x, GetParam())), ref::slice(x, {1, 0}, {7, 13}, {2, 2}), kExact));
}

INSTANTIATE_TEST_SUITE_P(, SliceDTypeTest, kMoveDTypes, dtypeName);

//===--- concatenate, expand_dims ---===//

class ConcatenateTest : public testing::TestWithParam<DType> {};

// Three inputs of different extents along axis 0 (each lands in one contiguous run).
TEST_P(ConcatenateTest, ThreeInputsLeadingAxis) {
  DType dtype = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor a = randomOf({2, 5, 3}, rng, dtype), b = randomOf({7, 5, 3}, rng, dtype),
            c = randomOf({1, 5, 3}, rng, dtype);
  auto f = jit([](Tensor a, Tensor b, Tensor c) { return concatenate({a, b, c}, 0); });
  Array got = f(toArray(a, dtype), toArray(b, dtype), toArray(c, dtype));
  EXPECT_EQ(got.dtype(), dtype);
  EXPECT_TRUE(allClose(got, ref::concatenate({a, b, c}, 0), kExact));
}

// Each input is copied into a strided subview of the result.
TEST_P(ConcatenateTest, ThreeInputsMiddleAxis) {
  DType dtype = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor a = randomOf({3, 2, 5}, rng, dtype), b = randomOf({3, 7, 5}, rng, dtype),
            c = randomOf({3, 1, 5}, rng, dtype);
  auto f = jit([](Tensor a, Tensor b, Tensor c) {
    return std::make_tuple(concatenate({a, b, c}, 1), concatenate({c, a}, -2));
  });
  auto [abc, ca] = f(toArray(a, dtype), toArray(b, dtype), toArray(c, dtype));
  EXPECT_TRUE(allClose(abc, ref::concatenate({a, b, c}, 1), kExact));
  EXPECT_TRUE(allClose(ca, ref::concatenate({c, a}, 1), kExact));
}

INSTANTIATE_TEST_SUITE_P(, ConcatenateTest, kMoveDTypes, dtypeName);

TEST(ConcatenateEdgeTest, OneDimAndSingleInput) {
  std::mt19937 rng(kSeed);
  RefTensor a = uniform({7}, rng), b = uniform({13}, rng), c = uniform({1}, rng);
  auto f = jit([](Tensor a, Tensor b, Tensor c) {
    return std::make_tuple(concatenate({a, b, c}, 0), concatenate({b}, 0) * 2.0);
  });
  auto [abc, b2] = f(toArray(a), toArray(b), toArray(c));
  EXPECT_TRUE(allClose(abc, ref::concatenate({a, b, c}, 0), kExact));
  EXPECT_TRUE(allClose(b2, ref::mul(b, RefTensor{{}, {2}}), kExact));
}

TEST(ExpandDimsTest, InsertsUnitDim) {
  std::mt19937 rng(kSeed);
  RefTensor x = uniform({7, 13}, rng);
  auto f = jit([](Tensor x) {
    return std::make_tuple(expand_dims(x, 0), expand_dims(x, 1) + 1.0, expand_dims(x, -1));
  });
  auto [front, middle, back] = f(toArray(x));
  EXPECT_TRUE(allClose(front, ref::reshape(x, {1, 7, 13}), kExact));
  EXPECT_TRUE(allClose(middle, ref::add(ref::reshape(x, {7, 1, 13}), RefTensor{{}, {1}})));
  EXPECT_TRUE(allClose(back, ref::reshape(x, {7, 13, 1}), kExact));
}

//===--- pad ---===//

struct PadCase {
  Shape shape, low, high;
};

class PadTest : public testing::TestWithParam<PadCase> {};

// Every dtype a model pads (sequence lengths, causal convolutions), with growing, shrinking
// (negative) and mixed amounts, one past the dim's size too.
TEST_P(PadTest, PlacesValuesAndPadding) {
  const PadCase &c = GetParam();
  for (DType dtype : {DType::F32, DType::F64, DType::BF16, DType::I32}) {
    std::mt19937 rng(kSeed);
    RefTensor x = randomOf(c.shape, rng, dtype);
    Shape low = c.low, high = c.high;
    auto f = jit([low, high](Tensor x) { return pad(x, low, high, -2.0); });
    Array got = f(toArray(x, dtype));
    EXPECT_EQ(got.dtype(), dtype);
    EXPECT_TRUE(allClose(got, ref::pad(x, c.low, c.high, -2.0), kExact)) << rt::name(dtype);
  }
}

INSTANTIATE_TEST_SUITE_P(, PadTest,
                         testing::Values(PadCase{{5}, {2}, {3}}, PadCase{{5}, {0}, {0}},
                                         PadCase{{4, 3}, {1, 0}, {0, 2}},
                                         PadCase{{4, 6}, {-1, 2}, {3, -4}},
                                         PadCase{{3, 2}, {-4, 0}, {3, 1}},
                                         PadCase{{2, 3}, {3, 0}, {-4, 1}},
                                         PadCase{{2, 33, 3}, {0, 7, 1}, {1, -3, 0}},
                                         // Cropped to nothing, as lax.pad allows.
                                         PadCase{{4, 3}, {0, -2}, {0, -1}},
                                         PadCase{{3, 2}, {-5, 1}, {2, 0}}),
                         [](const testing::TestParamInfo<PadCase> &info) {
                           return "case" + std::to_string(info.index);
                         });

TEST(PadErrorTest, NamesTheBadAmounts) {
  Array x = Array::from(std::vector<float>(6, 1.0f), {2, 3});
  auto message = [&](Shape low, Shape high) -> std::string {
    try {
      jit([low, high](Tensor x) { return pad(x, low, high); })(x);
    } catch (const Error &e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message({1}, {1, 1}).find("1 low and 2 high amounts for f32[2,3]: give one of "
                                      "each per dim"),
            std::string::npos);
  EXPECT_NE(message({0, -2}, {0, -2}).find("dim 1 of f32[2,3] padded by -2 and -2 would have "
                                           "size -1"),
            std::string::npos);
}

} // namespace
