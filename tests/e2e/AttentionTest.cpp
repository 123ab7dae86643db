// End-to-end tests of dot_product_attention (loom.attention, run by the CPU's blocked
// kernel): causal and not, sequences that end inside a block, more keys than queries, a
// value dim unlike the query's, f32 and f64, strided operands, bf16 (run in f32), and a sweep
// of random shapes.
#include "tests/e2e/Harness.h"

#include <cmath>
#include <cstdlib>

using namespace loom;
using namespace loom::e2e;

namespace {

struct AttentionCase {
  int64_t batch, queries, keys, heads, dim, valueDim;
  bool causal;
  DType dtype;
};

class AttentionTest : public testing::TestWithParam<AttentionCase> {};

// The kernel's units own 32 rows and take up to 256 of the other side per product: sizes 1,
// 63, 64, 65, 130 and 300 cover a block's first row, its edge, remainder blocks, and a
// softmax carried over several spans of keys.
TEST_P(AttentionTest, MatchesReference) {
  const AttentionCase &c = GetParam();
  std::mt19937 rng(kSeed);
  // Scores up to ~|dim * 2^2 * scale| apart: the softmax is far from uniform.
  RefTensor q = uniform({c.batch, c.queries, c.heads, c.dim}, rng, -2, 2, c.dtype);
  RefTensor k = uniform({c.batch, c.keys, c.heads, c.dim}, rng, -2, 2, c.dtype);
  RefTensor v = uniform({c.batch, c.keys, c.heads, c.valueDim}, rng, -1, 1, c.dtype);
  bool causal = c.causal;
  auto f = jit(
      [causal](Tensor q, Tensor k, Tensor v) { return dot_product_attention(q, k, v, causal); });
  Array got = f(toArray(q, c.dtype), toArray(k, c.dtype), toArray(v, c.dtype));
  EXPECT_EQ(got.dtype(), c.dtype);
  RefTensor want = ref::attention(q, k, v, 1.0 / std::sqrt(double(c.dim)), c.causal);
  EXPECT_TRUE(allClose(got, want, c.dtype == DType::F64 ? kF64 : kF32Approx));
}

INSTANTIATE_TEST_SUITE_P(
    , AttentionTest,
    testing::Values(AttentionCase{2, 8, 8, 3, 5, 5, false, DType::F32},
                    AttentionCase{2, 8, 8, 3, 5, 5, true, DType::F32},
                    AttentionCase{1, 1, 1, 1, 4, 4, true, DType::F32},       // one position
                    AttentionCase{1, 130, 130, 2, 16, 16, true, DType::F32}, // 3 blocks
                    AttentionCase{2, 64, 64, 2, 8, 8, true, DType::F32},     // one full block
                    AttentionCase{1, 65, 129, 2, 8, 3, false, DType::F32},   // Tq != Tk, Dv != D
                    AttentionCase{1, 300, 300, 2, 8, 8, true, DType::F32},   // 2 spans of keys
                    AttentionCase{2, 150, 150, 3, 64, 64, true, DType::F32}, // GPT heads
                    AttentionCase{1, 530, 530, 2, 16, 16, true, DType::F32}, // 3 spans
                    AttentionCase{1, 90, 200, 2, 100, 128, false, DType::F32},
                    AttentionCase{1, 33, 33, 2, 40, 24, true, DType::F32},
                    // Heads enough for 16 threads' units: a forward block of all 100 queries.
                    AttentionCase{8, 100, 100, 8, 16, 16, true, DType::F32},
                    // Heads enough for 2 threads' units: a unit's blocks of 128 queries read
                    // its keys turned once, over spans of them (300) and unmasked (530).
                    AttentionCase{4, 300, 300, 2, 16, 16, true, DType::F32},
                    AttentionCase{4, 140, 530, 2, 8, 8, false, DType::F32},
                    // Keys past the most a unit turns at once (2^18 elements): span by span.
                    AttentionCase{1, 70, 2700, 1, 100, 8, false, DType::F32},
                    AttentionCase{1, 70, 600, 1, 4, 6, false, DType::F64},   // 3 spans
                    AttentionCase{2, 63, 63, 3, 7, 7, true, DType::F64},
                    AttentionCase{8, 128, 128, 8, 8, 8, true, DType::F64},
                    AttentionCase{1, 130, 70, 2, 5, 9, false, DType::F64}),
    [](const testing::TestParamInfo<AttentionCase> &info) {
      const AttentionCase &c = info.param;
      return std::string(c.dtype == DType::F64 ? "f64_" : "f32_") +
             (c.causal ? "causal_" : "full_") + std::to_string(c.batch) + "x" +
             std::to_string(c.queries) + "x" + std::to_string(c.keys) + "x" +
             std::to_string(c.heads) + "x" + std::to_string(c.dim) + "x" +
             std::to_string(c.valueDim);
    });

// Query, key and value read in place from a projection (strided views, as a GPT's are),
// with an explicit scale.
TEST(AttentionLayoutTest, ReadsStridedSlicesOfOneProjection) {
  std::mt19937 rng(kSeed);
  RefTensor qkv = uniform({2, 9, 3, 2, 4}, rng); // [B, T, 3, H, D]
  auto f = jit([](Tensor qkv) {
    auto part = [&](int64_t i) {
      return reshape(slice(qkv, {0, 0, i, 0, 0}, {2, 9, i + 1, 2, 4}), {2, 9, 2, 4});
    };
    return dot_product_attention(part(0), part(1), part(2), true, 0.7);
  });
  auto part = [&](int64_t i) {
    RefTensor t{{2, 9, 2, 4}, {}};
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t s = 0; s < 9; ++s)
        for (int64_t h = 0; h < 2; ++h)
          for (int64_t d = 0; d < 4; ++d)
            t.data.push_back(qkv.at({b, s, i, h, d}));
    return t;
  };
  EXPECT_TRUE(
      allClose(f(toArray(qkv)), ref::attention(part(0), part(1), part(2), 0.7, true), kF32Approx));
}

// With a head dim of 0 every score is 0: each query averages the values it sees.
TEST(AttentionLayoutTest, AnEmptyHeadDimAveragesTheValues) {
  std::mt19937 rng(kSeed);
  RefTensor q = uniform({1, 5, 2, 0}, rng), v = uniform({1, 5, 2, 3}, rng);
  auto f = jit([](Tensor q, Tensor v) { return dot_product_attention(q, q, v, true, 1.0); });
  EXPECT_TRUE(allClose(f(toArray(q), toArray(v)), ref::attention(q, q, v, 1.0, true), kF32));
}

// bf16 attention runs on the f32 kernel, its operands converted up and its result rounded
// back once: it matches the reference on the same bf16 inputs within one rounding to bf16
// (a softmax in bf16, as the decomposition computes, misses it by several).
TEST(AttentionLayoutTest, Bf16RunsInF32) {
  std::mt19937 rng(kSeed);
  RefTensor q = uniform({1, 6, 2, 4}, rng, -1, 1, DType::BF16);
  RefTensor k = uniform({1, 6, 2, 4}, rng, -1, 1, DType::BF16);
  RefTensor v = uniform({1, 6, 2, 4}, rng, -1, 1, DType::BF16);
  auto f = jit([](Tensor q, Tensor k, Tensor v) { return dot_product_attention(q, k, v, true); });
  Array got = f(toArray(q, DType::BF16), toArray(k, DType::BF16), toArray(v, DType::BF16));
  EXPECT_EQ(got.dtype(), DType::BF16);
  EXPECT_TRUE(allClose(got, ref::attention(q, k, v, 0.5, true), {4e-3, 4e-3}));
}

/// The gradients of q, k and v of sum(attention(q, k, v) * weights), with `attention` the
/// kernel or the same attention written as products, mask and softmax (autodiff's own path).
std::vector<Array> attentionGrads(bool kernel, bool causal, const std::vector<RefTensor> &in,
                                  DType dtype = DType::F64) {
  auto f = jit([kernel, causal](Tensor q, Tensor k, Tensor v, Tensor weights) {
    auto loss = [&](Tree<Tensor> p, Tensor w) {
      Tensor q = p.at("q").leaf(), k = p.at("k").leaf(), v = p.at("v").leaf();
      if (kernel)
        return sum(dot_product_attention(q, k, v, causal) * w);
      Tensor scores = einsum("bthd,bshd->bhts", q, k) * (1.0 / std::sqrt(double(q.dim(3))));
      if (causal) {
        int64_t seq = q.dim(1);
        Tensor allowed = greater_equal(iota({seq, seq}, 0), iota({seq, seq}, 1));
        scores = where(allowed, scores, full({}, -1e30, scores.dtype()));
      }
      return sum(einsum("bhts,bshd->bthd", softmax(scores, -1), v) * w);
    };
    Tree<Tensor> p;
    p["q"] = q, p["k"] = k, p["v"] = v;
    Tree<Tensor> g = grad(loss)(p, weights);
    return std::make_tuple(g.at("q").leaf(), g.at("k").leaf(), g.at("v").leaf());
  });
  auto [dq, dk, dv] = f(toArray(in[0], dtype), toArray(in[1], dtype), toArray(in[2], dtype),
                        toArray(in[3], dtype));
  return {dq, dk, dv};
}

// The gradient kernel against autodiff of the composed attention, where its blocks of keys
// see several spans of queries (300 positions; 600 keys for 70 queries): the first span
// writes a block's dK and dV and the first block dQ, the others add to them. With no
// queries, dK and dV are zero.
TEST(AttentionGradientTest, MatchesTheComposedAttentionAcrossSpans) {
  for (auto [queries, keys, causal] : {std::tuple<int64_t, int64_t, bool>{300, 300, true},
                                       {70, 600, false},
                                       {520, 40, false},
                                       {0, 7, false}}) {
    SCOPED_TRACE(testing::Message() << queries << " queries, " << keys << " keys");
    std::mt19937 rng(kSeed);
    std::vector<RefTensor> in = {uniform({2, queries, 2, 5}, rng, -2, 2, DType::F64),
                                 uniform({2, keys, 2, 5}, rng, -2, 2, DType::F64),
                                 uniform({2, keys, 2, 3}, rng, -1, 1, DType::F64),
                                 uniform({2, queries, 2, 3}, rng, -1, 1, DType::F64)};
    std::vector<Array> got = attentionGrads(true, causal, in);
    std::vector<Array> want = attentionGrads(false, causal, in);
    for (size_t i = 0; i < 3; ++i) {
      std::vector<double> g = got[i].to_host<double>(), w = want[i].to_host<double>();
      ASSERT_EQ(g.size(), w.size());
      for (size_t j = 0; j < g.size(); ++j)
        ASSERT_NEAR(g[j], w[j], 1e-10) << "gradient "
                                       << "qkv"[i] << " at " << j;
    }
  }
}

// f32 gradients against the composed attention in f32, at the head dims of real models and
// past the GPU kernels' thresholds (their rows take 1, 2 or 4 threads of 32 dims: 32, 64, 100
// and 128), with sequences that end inside their blocks of 32 to 128 rows. A GPU runs these
// programs on its attention kernels (loom-gpu-replay compares them with this recording).
TEST(AttentionGradientTest, F32MatchesTheComposedAttentionAtModelHeadDims) {
  struct Case {
    int64_t queries, keys;
    bool causal;
    int64_t dim, valueDim;
  };
  for (Case c : {Case{200, 200, true, 64, 64}, Case{70, 150, false, 100, 72},
                 Case{130, 130, true, 32, 128}, Case{0, 7, false, 64, 64}}) {
    SCOPED_TRACE(testing::Message() << c.queries << " queries, " << c.keys << " keys, dims "
                                    << c.dim << " and " << c.valueDim);
    std::mt19937 rng(kSeed);
    std::vector<RefTensor> in = {uniform({2, c.queries, 3, c.dim}, rng, -1, 1, DType::F32),
                                 uniform({2, c.keys, 3, c.dim}, rng, -1, 1, DType::F32),
                                 uniform({2, c.keys, 3, c.valueDim}, rng, -1, 1, DType::F32),
                                 uniform({2, c.queries, 3, c.valueDim}, rng, -1, 1, DType::F32)};
    std::vector<Array> got = attentionGrads(true, c.causal, in, DType::F32);
    std::vector<Array> want = attentionGrads(false, c.causal, in, DType::F32);
    for (size_t i = 0; i < 3; ++i) {
      std::vector<float> g = got[i].to_host<float>(), w = want[i].to_host<float>();
      ASSERT_EQ(g.size(), w.size());
      for (size_t j = 0; j < g.size(); ++j)
        ASSERT_NEAR(g[j], w[j], 2e-5 + 1e-4 * std::abs(w[j])) << "gradient "
                                                              << "qkv"[i] << " at " << j;
    }
  }
}

// Shapes drawn at random (from a fixed seed): batch and heads 1-4, so that a forward unit is
// a whole (batch, head) or one block depending on the device's threads; sequences of 1-400
// ending anywhere in a block or a span; head and value dims 1-80; causal or not. Forward
// against the plain reference, gradients against autodiff of the composed attention, in f32
// on the small products' kernel and in f64 on OpenBLAS. LOOM_ATTENTION_SWEEP=N draws N.
TEST(AttentionSweep, RandomShapesMatchTheReferenceAndTheComposedGradients) {
  std::mt19937 draw(20261201);
  const char *count = std::getenv("LOOM_ATTENTION_SWEEP");
  const int shapes = count ? std::atoi(count) : 8;
  for (int i = 0; i < shapes; ++i) {
    auto between = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(draw);
    };
    int64_t batch = between(1, 4), heads = between(1, 4), queries = between(1, 400);
    bool causal = between(0, 1) == 1;
    int64_t keys = causal ? queries : between(1, 400), dim = between(1, 80);
    int64_t valueDim = between(1, 80);
    DType dtype = i % 2 ? DType::F64 : DType::F32;
    SCOPED_TRACE(testing::Message() << "shape " << i << ": [" << batch << ", " << queries
                                    << "/" << keys << ", " << heads << ", " << dim << "/"
                                    << valueDim << "] " << (causal ? "causal " : "")
                                    << (dtype == DType::F64 ? "f64" : "f32"));
    std::mt19937 rng(kSeed + i);
    std::vector<RefTensor> in = {
        uniform({batch, queries, heads, dim}, rng, -1, 1, dtype),
        uniform({batch, keys, heads, dim}, rng, -1, 1, dtype),
        uniform({batch, keys, heads, valueDim}, rng, -1, 1, dtype),
        uniform({batch, queries, heads, valueDim}, rng, -1, 1, dtype)};
    auto f = jit([causal](Tensor q, Tensor k, Tensor v) {
      return dot_product_attention(q, k, v, causal);
    });
    Array got = f(toArray(in[0], dtype), toArray(in[1], dtype), toArray(in[2], dtype));
    RefTensor want = ref::attention(in[0], in[1], in[2], 1.0 / std::sqrt(double(dim)), causal);
    EXPECT_TRUE(allClose(got, want, dtype == DType::F64 ? kF64 : kF32Approx));
    std::vector<Array> grads = attentionGrads(true, causal, in, dtype);
    std::vector<Array> composed = attentionGrads(false, causal, in, dtype);
    const Tolerance gradients = dtype == DType::F64 ? Tolerance{1e-10, 1e-10}
                                                    : Tolerance{2e-5, 1e-4};
    for (size_t g = 0; g < 3; ++g)
      EXPECT_TRUE(allClose(grads[g], toRef(composed[g]), gradients)) << "gradient " << "qkv"[g];
  }
}

// The point of the blocked kernel: a step that differentiates attention at T = 1024 holds
// less than a tenth of one [B, H, T, T] score tensor in temporaries (the compiler's buffer
// plan), while the same attention written as products and a softmax holds the scores.
TEST(AttentionMemoryTest, TheGradientNeverHoldsTheScores) {
  const int64_t batch = 1, seq = 1024, heads = 4, dim = 16;
  auto step = [](auto attention) {
    return jit([attention](Tensor q, Tensor k, Tensor v, Tensor r) {
      auto loss = [&](Tensor q, Tensor k, Tensor v, Tensor weights) {
        return sum(attention(q, k, v) * weights);
      };
      return grad(loss)(q, k, v, r);
    });
  };
  auto fused = step([](const Tensor &q, const Tensor &k, const Tensor &v) {
    return dot_product_attention(q, k, v, true);
  });
  auto composed = step([](const Tensor &q, const Tensor &k, const Tensor &v) {
    Tensor scores = einsum("bthd,bshd->bhts", q, k) * 0.25;
    Tensor allowed = greater_equal(iota({seq, seq}, 0), iota({seq, seq}, 1));
    scores = where(allowed, scores, full({}, -1e9, scores.dtype()));
    return einsum("bhts,bshd->bthd", softmax(scores, -1), v);
  });
  std::mt19937 rng(kSeed);
  Array x = toArray(uniform({batch, seq, heads, dim}, rng));
  const uint64_t scoreBytes = batch * heads * seq * seq * sizeof(float);
  EXPECT_LT(fused.memory_analysis(x, x, x, x).temporaryBytes, scoreBytes / 10);
  EXPECT_GE(composed.memory_analysis(x, x, x, x).temporaryBytes, scoreBytes);
}

// bf16 attention (mixed precision) runs on the same kernel in f32: its gradient step holds no
// [B, H, T, T] scores either (its temporaries are mostly the f32 copies of q, k, v and their
// gradients), where the decomposition into 16-bit products and a softmax held them
// (loom-decompose-attention).
TEST(AttentionMemoryTest, ABf16GradientNeverHoldsTheScores) {
  const int64_t batch = 1, seq = 1024, heads = 4, dim = 16;
  auto step = jit([](Tensor q, Tensor k, Tensor v, Tensor r) {
    auto loss = [&](Tensor q, Tensor k, Tensor v, Tensor weights) {
      return sum(astype(dot_product_attention(q, k, v, true) * weights, DType::F32));
    };
    return grad(loss)(q, k, v, r);
  });
  std::mt19937 rng(kSeed);
  Array x = toArray(uniform({batch, seq, heads, dim}, rng, -1, 1, DType::BF16), DType::BF16);
  const uint64_t scoreBytes = batch * heads * seq * seq * 2;
  EXPECT_LT(step.memory_analysis(x, x, x, x).temporaryBytes, scoreBytes / 3);
}

} // namespace
