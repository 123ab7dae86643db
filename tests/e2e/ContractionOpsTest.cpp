// End-to-end tests of the contractions: matmul for 1-d, 2-d and batched operands,
// dot_general with non-leading batch dims and several contracting dims, and einsum with
// transposed outputs and summed-out labels.
#include "tests/e2e/Harness.h"

#include <algorithm>
#include <map>
#include <random>

using namespace loom;
using namespace loom::e2e;

namespace {

//===--- matmul ---===//

struct MatmulCase {
  Shape a, b;
};

class MatmulTest : public testing::TestWithParam<MatmulCase> {};

// Inputs in [-1, 1] and K <= 65 keep every f32 sum within kF32 of the exact one.
TEST_P(MatmulTest, MatchesReference) {
  const MatmulCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor a = uniform(c.a, rng), b = uniform(c.b, rng);
  auto f = jit([](Tensor a, Tensor b) { return matmul(a, b); });
  EXPECT_TRUE(allClose(f(toArray(a), toArray(b)), ref::matmul(a, b), kF32));
}

INSTANTIATE_TEST_SUITE_P(, MatmulTest,
                         testing::Values(MatmulCase{{7, 13}, {13, 33}},  // odd sizes
                                         MatmulCase{{1, 13}, {13, 1}},   // size-1 M and N
                                         MatmulCase{{33, 65}, {65, 17}}, // larger K
                                         MatmulCase{{64, 64}, {64, 64}}, // a BLAS-friendly square
                                         MatmulCase{{13}, {13, 5}},      // 1-d lhs
                                         MatmulCase{{7, 13}, {13}},      // 1-d rhs
                                         MatmulCase{{13}, {13}},         // 1-d both: rank-0 result
                                         MatmulCase{{3, 0}, {0, 4}},     // K = 0: zeros
                                         MatmulCase{{3, 7, 13}, {3, 13, 5}}, // batched
                                         MatmulCase{{2, 7, 13}, {13, 5}}, // batched lhs, shared rhs
                                         MatmulCase{{2, 3, 5, 7}, {2, 3, 7, 4}}), // two batch dims
                         [](const testing::TestParamInfo<MatmulCase> &info) {
                           return paramName(info.param.a) + "_" + paramName(info.param.b);
                         });

class MatmulDTypeTest : public testing::TestWithParam<DType> {};

// f64 and integer matmuls (the latter must be exact).
TEST_P(MatmulDTypeTest, MatchesReference) {
  DType dtype = GetParam();
  bool isInt = dtype == DType::I32 || dtype == DType::I64;
  std::mt19937 rng(kSeed);
  RefTensor a = isInt ? randomInts({7, 13}, rng, -50, 50) : uniform({7, 13}, rng, -1, 1, dtype);
  RefTensor b = isInt ? randomInts({13, 5}, rng, -50, 50) : uniform({13, 5}, rng, -1, 1, dtype);
  auto f = jit([](Tensor a, Tensor b) { return matmul(a, b); });
  Array got = f(toArray(a, dtype), toArray(b, dtype));
  EXPECT_EQ(got.dtype(), dtype);
  EXPECT_TRUE(allClose(got, ref::matmul(a, b), isInt ? kExact : kF64));
}

INSTANTIATE_TEST_SUITE_P(, MatmulDTypeTest, testing::Values(DType::F64, DType::I32, DType::I64),
                         [](const testing::TestParamInfo<DType> &info) {
                           return std::string(rt::name(info.param));
                         });

//===--- dot_general ---===//

struct DotCase {
  const char *name;
  Shape a, b;
  Axes aBatch, bBatch, aContract, bContract;
};

class DotGeneralTest : public testing::TestWithParam<DotCase> {};

TEST_P(DotGeneralTest, MatchesReference) {
  const DotCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor a = uniform(c.a, rng), b = uniform(c.b, rng);
  auto f = jit([c](Tensor a, Tensor b) {
    return dot_general(a, b, c.aBatch, c.bBatch, c.aContract, c.bContract);
  });
  EXPECT_TRUE(allClose(f(toArray(a), toArray(b)),
                       ref::dotGeneral(a, b, c.aBatch, c.bBatch, c.aContract, c.bContract), kF32));
}

INSTANTIATE_TEST_SUITE_P(
    , DotGeneralTest,
    testing::Values(
        // Batch dim in the middle of lhs and last in rhs: [7,3,13] x [13,5,3] -> [3,7,5].
        DotCase{"middle_batch", {7, 3, 13}, {13, 5, 3}, {1}, {2}, {2}, {0}},
        // Two contracting dims, paired out of order: [7,5,3] x [3,5,2] -> [7,2].
        DotCase{"two_contracting", {7, 5, 3}, {3, 5, 2}, {}, {}, {1, 2}, {1, 0}},
        // Batch and two contracting dims together: [2,5,4,3] x [3,2,4,6] -> [2,5,6].
        DotCase{"batch_and_two_contracting", {2, 5, 4, 3}, {3, 2, 4, 6}, {0}, {1}, {3, 2}, {0, 2}},
        // Two batch dims listed in non-ascending order: result batch follows lhs's list.
        DotCase{"batch_order", {3, 7, 2, 5}, {2, 5, 3, 4}, {2, 0}, {0, 2}, {3}, {1}},
        // No contraction: an outer product with a batch dim, [3,7] x [3,5] -> [3,7,5].
        DotCase{"batched_outer", {3, 7}, {3, 5}, {0}, {0}, {}, {}},
        // Everything contracted: a rank-0 result.
        DotCase{"full_contraction", {7, 13}, {7, 13}, {}, {}, {0, 1}, {0, 1}},
        // Size-1 free and contracting dims.
        DotCase{"unit_dims", {1, 7, 1}, {1, 1, 33}, {}, {}, {0, 2}, {1, 0}},
        // Shallow products (at most 16 products per element: elementwise loops, not GEMMs):
        // a 10-class head's input gradient g w^T (the rhs transposed first), two contracting
        // dims in different orders, an rhs contracted in its middle, and the deepest one
        // next to the shallowest GEMM.
        DotCase{"shallow_head_gradient", {64, 10}, {32, 10}, {}, {}, {1}, {1}},
        DotCase{"shallow_two_contracting", {5, 2, 3}, {3, 7, 2}, {}, {}, {1, 2}, {2, 0}},
        DotCase{"shallow_rhs_middle", {4, 3, 5}, {6, 3, 2}, {}, {}, {1}, {1}},
        DotCase{"shallow_depth_16", {9, 16}, {16, 11}, {}, {}, {1}, {0}},
        DotCase{"gemm_depth_17", {9, 17}, {17, 11}, {}, {}, {1}, {0}}),
    [](const testing::TestParamInfo<DotCase> &info) { return info.param.name; });

//===--- einsum ---===//

struct EinsumCase {
  const char *name;
  const char *spec;
  Shape a, b;
};

class EinsumTest : public testing::TestWithParam<EinsumCase> {};

TEST_P(EinsumTest, MatchesReference) {
  const EinsumCase &c = GetParam();
  std::mt19937 rng(kSeed);
  RefTensor a = uniform(c.a, rng), b = uniform(c.b, rng);
  std::string spec = c.spec;
  auto f = jit([spec](Tensor a, Tensor b) { return einsum(spec, a, b); });
  EXPECT_TRUE(allClose(f(toArray(a), toArray(b)), ref::einsum(spec, a, b), kF32));
}

INSTANTIATE_TEST_SUITE_P(
    , EinsumTest,
    testing::Values(EinsumCase{"matmul", "ij,jk->ik", {7, 13}, {13, 5}},
                    EinsumCase{"transposed_out", "ij,jk->ki", {7, 13}, {13, 5}},
                    EinsumCase{"batched_transposed_out", "bij,bjk->bki", {3, 7, 13}, {3, 13, 5}},
                    EinsumCase{"batch_last_out", "btd,dk->ktb", {2, 7, 13}, {13, 5}},
                    EinsumCase{"rhs_transposed", "ij,kj->ik", {7, 13}, {5, 13}},
                    EinsumCase{"outer", "i,j->ij", {7}, {13}},
                    EinsumCase{"matvec", "ij,j->i", {7, 13}, {13}},
                    EinsumCase{"summed_alone", "ij,jk->k", {7, 13}, {13, 5}},
                    EinsumCase{"batch_middle", "ibj,jbk->bik", {7, 3, 13}, {13, 3, 5}},
                    // One batch dim, not leading: one GEMM call per head reading the operands
                    // in place (a decoding step's scores and weighted sum against its cache,
                    // and a gradient's form with both operands read transposed).
                    EinsumCase{"head_scores", "nhd,thd->hnt", {2, 3, 5}, {7, 3, 5}},
                    EinsumCase{"head_weighted", "hnt,thd->nhd", {3, 2, 7}, {7, 3, 5}},
                    EinsumCase{"head_transposed", "tbi,tbj->bij", {7, 3, 5}, {7, 3, 4}},
                    // Two batch dims, heads not leading: attention's products, one GEMM
                    // call reading the operands in place (scores, weighted sum, and the
                    // backward's transposed forms).
                    EinsumCase{"heads_scores", "bthd,bshd->bhts", {2, 7, 3, 5}, {2, 6, 3, 5}},
                    EinsumCase{"heads_weighted", "bhts,bshd->bhtd", {2, 3, 7, 6}, {2, 6, 3, 5}},
                    EinsumCase{"heads_transposed", "bhts,bthd->bhsd", {2, 3, 7, 6}, {2, 7, 3, 5}},
                    EinsumCase{"heads_result_moved", "bhts,bthd->bshd", {2, 3, 7, 6}, {2, 7, 3, 5}},
                    // No unit stride along either dim of A: loops instead of BLAS.
                    EinsumCase{"heads_no_unit_stride", "tdbh,bshd->bhts", {7, 5, 2, 3},
                               {2, 6, 3, 5}},
                    // A projection's product written transposed (one GEMM over the rhs's
                    // first dim): in the rhs's order, and with the lhs's free dims swapped,
                    // or the rhs's, which one GEMM cannot write (a transpose follows).
                    EinsumCase{"projection_moved", "btc,kchd->kbthd", {2, 3, 5}, {3, 5, 2, 4}},
                    EinsumCase{"projection_rows_swapped", "btc,kchd->ktbhd", {2, 3, 5},
                               {3, 5, 2, 4}},
                    EinsumCase{"projection_cols_swapped", "btc,kchd->kbtdh", {2, 3, 5},
                               {3, 5, 2, 4}}),
    [](const testing::TestParamInfo<EinsumCase> &info) { return info.param.name; });

// Random einsums: batch, contracting and free labels in random orders in each operand and in
// the output, so that every way the lowering reads operands in place and writes the product
// transposed is met (a GEMM's rows or columns written in another order than the product's
// went unseen until a model's einsum met it).
TEST(EinsumRandom, RandomLabelOrdersMatchTheReference) {
  std::mt19937 rng(kSeed);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const std::string labels = "abcdefghij";
  for (int round = 0; round < 60; ++round) {
    // Label kinds: batch (both operands and the output), contracting (both operands), free
    // of the lhs, free of the rhs (one operand and the output).
    int64_t counts[4] = {pick(0, 2), pick(0, 2), pick(1, 2), pick(1, 2)};
    std::string batch, contracting, lhsFree, rhsFree;
    std::string *groups[4] = {&batch, &contracting, &lhsFree, &rhsFree};
    std::map<char, int64_t> size;
    size_t next = 0;
    for (int g = 0; g < 4; ++g)
      for (int64_t i = 0; i < counts[g]; ++i) {
        char label = labels[next++];
        *groups[g] += label;
        size[label] = pick(2, 4);
      }
    auto shuffled = [&](std::string s) {
      std::shuffle(s.begin(), s.end(), rng);
      return s;
    };
    std::string la = shuffled(batch + contracting + lhsFree);
    std::string lb = shuffled(batch + contracting + rhsFree);
    std::string lout = shuffled(batch + lhsFree + rhsFree);
    std::string spec = la + "," + lb + "->" + lout;
    auto shapeOf = [&](const std::string &ls) {
      Shape shape;
      for (char c : ls)
        shape.push_back(size[c]);
      return shape;
    };
    RefTensor a = uniform(shapeOf(la), rng), b = uniform(shapeOf(lb), rng);
    auto f = jit([spec](Tensor x, Tensor y) { return einsum(spec, x, y); });
    ASSERT_TRUE(allClose(f(toArray(a), toArray(b)), ref::einsum(spec, a, b), kF32))
        << spec << " with " << ::testing::PrintToString(a.shape) << " and "
        << ::testing::PrintToString(b.shape);
  }
}

// Every order of the output of a projection (x [b, t, c] times w [k, c, h, d]), of per-head
// scores against a cache (one batch dim, not leading) and of attention's scores (two): the
// forms the lowering writes in one GEMM call and those it cannot, against the reference.
TEST(EinsumRandom, EveryOutputOrderMatchesTheReference) {
  struct Form {
    std::string operands, labels; // the output's labels, sorted
    Shape a, b;
  };
  for (const Form &form : {Form{"btc,kchd->", "bdhkt", {2, 3, 5}, {3, 5, 2, 4}},
                           Form{"nhd,thd->", "hnt", {2, 3, 5}, {4, 3, 5}},
                           Form{"bthd,bshd->", "bhst", {2, 3, 4, 5}, {2, 6, 4, 5}}}) {
    std::mt19937 rng(kSeed);
    RefTensor a = uniform(form.a, rng), b = uniform(form.b, rng);
    std::string out = form.labels; // next_permutation from the sorted one visits every order
    do {
      std::string spec = form.operands + out;
      auto f = jit([spec](Tensor x, Tensor y) { return einsum(spec, x, y); });
      ASSERT_TRUE(allClose(f(toArray(a), toArray(b)), ref::einsum(spec, a, b), kF32)) << spec;
    } while (std::next_permutation(out.begin(), out.end()));
  }
}

//===--- shallow products fused with their users ---===//

// The MLP's backward through its last ReLU: select(h > 0, g w^T, 0) with a 10-class g, the
// product fused into the select (one loop), against the reference computed element by
// element in double; in f32 and f64.
TEST(ShallowProduct, FusedIntoAReluBackwardMatchesTheReference) {
  for (DType dtype : {DType::F32, DType::F64}) {
    std::mt19937 rng(kSeed);
    RefTensor h = uniform({48, 40}, rng, -1, 1, dtype), g = uniform({48, 10}, rng, -1, 1, dtype),
              w = uniform({40, 10}, rng, -1, 1, dtype);
    auto f = jit([](Tensor h, Tensor g, Tensor w) {
      Tensor dh = dot_general(g, w, {}, {}, {1}, {1});
      return where(greater(h, zeros(h.shape(), h.dtype())), dh, zeros(dh.shape(), dh.dtype()));
    });
    RefTensor want{{48, 40}, std::vector<double>(48 * 40)};
    for (int64_t i = 0; i < 48; ++i)
      for (int64_t j = 0; j < 40; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < 10; ++k)
          sum += g.data[i * 10 + k] * w.data[j * 10 + k];
        want.data[i * 40 + j] = h.data[i * 40 + j] > 0 ? sum : 0;
      }
    EXPECT_TRUE(allClose(f(toArray(h, dtype), toArray(g, dtype), toArray(w, dtype)), want,
                         dtype == DType::F32 ? kF32 : kF64))
        << rt::name(dtype);
  }
}

} // namespace
