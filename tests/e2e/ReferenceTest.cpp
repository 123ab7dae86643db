// Checks of the plain reference itself on hand-computed values, and of its ops against each
// other (matmul, dot_general and einsum are three independent loops), so that a pass of an
// e2e test means Loom agrees with something known to be right.
#include "tests/e2e/reference/Reference.h"

#include <gtest/gtest.h>

#include <cmath>

using ref::RefTensor;

namespace {

void expectEqual(const RefTensor &got, const RefTensor &want) {
  ASSERT_EQ(got.shape, want.shape);
  for (int64_t i = 0; i < want.numElements(); ++i)
    EXPECT_NEAR(got.data[i], want.data[i], 1e-12) << "element " << i;
}

RefTensor counting(const ref::Shape &shape) {
  RefTensor t = ref::full(shape, 0);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.data[i] = static_cast<double>(i % 7) - 3;
  return t;
}

TEST(ReferenceTest, RoundTo) {
  using ref::ElemType;
  EXPECT_EQ(ref::roundTo(1 + std::ldexp(1, -8), ElemType::BF16), 1.0); // tie to even
  EXPECT_EQ(ref::roundTo(1 + 3 * std::ldexp(1, -8), ElemType::BF16), 1 + std::ldexp(1, -6));
  EXPECT_EQ(ref::roundTo(1 + std::ldexp(1, -8) + 1e-9, ElemType::BF16), 1 + std::ldexp(1, -7));
  EXPECT_EQ(ref::roundTo(3.4028e38, ElemType::BF16), INFINITY);
  EXPECT_EQ(ref::roundTo(65519, ElemType::F16), 65504);
  EXPECT_EQ(ref::roundTo(65520, ElemType::F16), INFINITY);
  EXPECT_EQ(ref::roundTo(1e-8, ElemType::F16), std::ldexp(1, -24) * 0); // below half of 2^-24
  EXPECT_EQ(ref::roundTo(4e-8, ElemType::F16), std::ldexp(1, -24));     // f16 subnormal
  EXPECT_EQ(ref::roundTo(1e-45, ElemType::F32), std::ldexp(1, -149));   // f32 subnormal
  EXPECT_EQ(ref::roundTo(0.1, ElemType::F32), static_cast<double>(0.1f));
  EXPECT_EQ(ref::roundTo(16777217, ElemType::F32), 16777216);
  EXPECT_EQ(ref::roundTo(-2.7, ElemType::I32), -2);
  EXPECT_EQ(ref::roundTo(NAN, ElemType::I1), 1);
  EXPECT_EQ(ref::roundTo(-0.0, ElemType::I1), 0);
}

TEST(ReferenceTest, BroadcastAndCompare) {
  RefTensor a{{3, 1}, {1, 2, 3}}, b{{1, 4}, {0, 1, 2, 3}};
  expectEqual(ref::add(a, b), {{3, 4}, {1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6}});
  RefTensor n{{2}, {NAN, 1}}, one{{}, {1}};
  expectEqual(ref::compare(n, one, ref::Cmp::Eq), {{2}, {0, 1}});
  expectEqual(ref::compare(n, one, ref::Cmp::Ne), {{2}, {1, 0}});
  EXPECT_TRUE(std::isnan(ref::maximum(n, one).data[0]));
  expectEqual(ref::divTrunc({{2}, {-7, 7}}, {{2}, {2, -2}}), {{2}, {-3, -3}});
}

TEST(ReferenceTest, ShapeOps) {
  RefTensor x = counting({2, 3}); // [[-3,-2,-1],[0,1,2]]
  expectEqual(ref::transpose(x, {1, 0}), {{3, 2}, {-3, 0, -2, 1, -1, 2}});
  expectEqual(ref::slice(x, {0, 0}, {2, 3}, {1, 2}), {{2, 2}, {-3, -1, 0, 2}});
  expectEqual(ref::concatenate({x, ref::full({2, 1}, 9)}, 1),
              {{2, 4}, {-3, -2, -1, 9, 0, 1, 2, 9}});
  expectEqual(ref::broadcastInDim({{2}, {5, 6}}, {2, 3}, {0}), {{2, 3}, {5, 5, 5, 6, 6, 6}});
}

TEST(ReferenceTest, ContractionsAgree) {
  RefTensor a{{2, 3}, {1, 2, 3, 4, 5, 6}}, b{{3, 2}, {7, 8, 9, 10, 11, 12}};
  expectEqual(ref::matmul(a, b), {{2, 2}, {58, 64, 139, 154}});
  RefTensor x = counting({2, 5, 4, 3}), y = counting({3, 2, 4, 6});
  RefTensor viaDot = ref::dotGeneral(x, y, {0}, {1}, {3, 2}, {0, 2});
  expectEqual(viaDot, ref::einsum("bmkc,cbkn->bmn", x, y));
  RefTensor p = counting({3, 7, 13}), q = counting({3, 13, 5});
  expectEqual(ref::matmul(p, q), ref::dotGeneral(p, q, {0}, {0}, {2}, {1}));
  expectEqual(ref::einsum("bij,bjk->bki", p, q), ref::transpose(ref::matmul(p, q), {0, 2, 1}));
}

TEST(ReferenceTest, ReductionsAndIndexing) {
  RefTensor x = counting({2, 3});
  expectEqual(ref::sum(x, {1}), {{2}, {-6, 3}});
  expectEqual(ref::max(x, {0}, true), {{1, 3}, {0, 1, 2}});
  expectEqual(ref::mean(x), {{}, {-0.5}});
  RefTensor s = ref::softmax({{2}, {0, std::log(3.0)}}, 0);
  expectEqual(s, {{2}, {0.25, 0.75}});
  expectEqual(ref::gather(x, {{3}, {1, -4, 9}}), {{3, 3}, {0, 1, 2, -3, -2, -1, 0, 1, 2}});
  expectEqual(ref::oneHot({{2}, {1, 5}}, 3), {{2, 3}, {0, 1, 0, 0, 0, 0}});
}

} // namespace
