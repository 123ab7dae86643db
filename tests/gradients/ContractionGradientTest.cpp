// Gradient checks of the dot_general VJP rule through matmul, einsum and dot_general itself,
// including non-leading batch dims and contracting dims listed out of order.
#include "tests/gradients/GradientCheck.h"

using namespace loom;
using namespace loom::gradcheck;

namespace {

using ContractionGradTest = GradientTest;

TEST_F(ContractionGradTest, Matmul) {
  checkGradients([](const Args &x) { return matmul(x[0], x[1]); },
                 {uniform({5, 3}), uniform({3, 1})});
}

TEST_F(ContractionGradTest, MatmulOfVectorByMatrix) {
  checkGradients([](const Args &x) { return matmul(x[0], x[1]); }, {uniform({3}), uniform({3, 4})});
}

// Two 1-d operands: a rank-0 result.
TEST_F(ContractionGradTest, MatmulOfTwoVectors) {
  checkGradients([](const Args &x) { return matmul(x[0], x[1]); }, {uniform({5}), uniform({5})});
}

// One batch dim, leading in both operands.
TEST_F(ContractionGradTest, BatchedMatmul) {
  checkGradients([](const Args &x) { return matmul(x[0], x[1]); },
                 {uniform({2, 3, 4}), uniform({2, 4, 5})});
}

// A batched lhs against a shared rhs: no batch dims, two lhs free dims.
TEST_F(ContractionGradTest, BatchedLhsSharedRhs) {
  checkGradients([](const Args &x) { return matmul(x[0], x[1]); },
                 {uniform({2, 3, 4}), uniform({4, 1})});
}

// a [3,2,4,5] and b [5,6,2,3]: batch dims 1 and 2 (neither leading), contracting a's dims {3, 0}
// with b's {0, 3} (so a's contracting dims are not listed in ascending order).
TEST_F(ContractionGradTest, DotGeneralNonLeadingBatchTwoContracting) {
  checkGradients(
      [](const Args &x) {
        return dot_general(x[0], x[1], {1}, {2}, {3, 0}, {0, 3});
      },
      {uniform({3, 2, 4, 5}), uniform({5, 6, 2, 3})});
}

// Two batch dims listed in opposite orders in the operands, and a size-1 free dim.
TEST_F(ContractionGradTest, DotGeneralBatchDimsInOtherOrder) {
  checkGradients(
      [](const Args &x) {
        return dot_general(x[0], x[1], {0, 1}, {2, 1}, {2}, {0});
      },
      {uniform({2, 3, 4, 1}), uniform({4, 3, 2, 5})});
}

// No contracting or batch dims: an outer product.
TEST_F(ContractionGradTest, DotGeneralOuterProduct) {
  checkGradients([](const Args &x) { return dot_general(x[0], x[1], {}, {}, {}, {}); },
                 {uniform({3}), uniform({2, 1})});
}

// Every dim contracted, a's in order and b's swapped: a rank-0 result.
TEST_F(ContractionGradTest, DotGeneralFullContraction) {
  checkGradients(
      [](const Args &x) {
        return dot_general(x[0], x[1], {}, {}, {0, 1}, {1, 0});
      },
      {uniform({3, 4}), uniform({4, 3})});
}

// The output is a permutation of dot_general's, and label l (only in b, not in the output) is
// summed out before the contraction.
TEST_F(ContractionGradTest, EinsumWithTransposedOutput) {
  checkGradients([](const Args &x) { return einsum("bij,jkl->kib", x[0], x[1]); },
                 {uniform({2, 3, 4}), uniform({4, 5, 3})});
}

// dot_product_attention's gradient (loom.attention_grad, the CPU's blocked kernel): causal
// with 66 positions (a full block of 64 and a remainder, the mask crossing both), and not
// causal with more keys than queries and a value dim unlike the query's.
TEST_F(ContractionGradTest, CausalAttention) {
  checkGradients([](const Args &x) { return dot_product_attention(x[0], x[1], x[2], true); },
                 {uniform({1, 66, 2, 3}), uniform({1, 66, 2, 3}), uniform({1, 66, 2, 2})});
}

TEST_F(ContractionGradTest, AttentionWithMoreKeysThanQueries) {
  checkGradients(
      [](const Args &x) { return dot_product_attention(x[0], x[1], x[2], false, 0.8); },
      {uniform({2, 3, 2, 4}, -2, 2), uniform({2, 5, 2, 4}, -2, 2), uniform({2, 5, 2, 3})});
}

} // namespace
