// End-to-end tests of attention's dropout (dot_product_attention with AttentionDropout): the
// kernels draw the mask where they need it, so the tests read it back through the op itself
// (values that are the identity make the result P F, next to the reference's P), check its
// share and its scale, and then hold the kernels' forward and gradients to the attention
// written as products, softmax and that mask, on one device and sharded on a mesh.
#include "tests/e2e/Harness.h"

#include "frontend/Random.h"

#include <array>
#include <cmath>

using namespace loom;
using namespace loom::e2e;

namespace {

constexpr double kRate = 0.3;

/// dot_product_attention(q, k, v) in `dtype` with dropout `rate` drawn from random::key(seed).
Array attend(const RefTensor &q, const RefTensor &k, const RefTensor &v, bool causal,
             uint64_t seed, double rate = kRate, DType dtype = DType::F64) {
  auto f = jit([causal, seed, rate](Tensor q, Tensor k, Tensor v) {
    return dot_product_attention(q, k, v, {rate, random::keyConstant(seed)}, causal);
  });
  return f(toArray(q, dtype), toArray(k, dtype), toArray(v, dtype));
}

/// The identity as values [B, S, H, S]: value s of every (b, h) is the unit vector e_s.
RefTensor identityValues(int64_t batch, int64_t keys, int64_t heads) {
  RefTensor v{{batch, keys, heads, keys}, {}};
  v.data.assign(batch * keys * heads * keys, 0.0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < keys; ++s)
      for (int64_t h = 0; h < heads; ++h)
        v.data[((b * keys + s) * heads + h) * keys + s] = 1;
  return v;
}

/// The mask the kernel applies to the probabilities of q and k under `seed`, [B, Tq, H, Tk]
/// as the result: 1 / (1 - rate) where kept, 0 where dropped, -1 where the causal mask
/// hides the key. Fails the test if a probability is neither dropped nor scaled exactly.
std::vector<double> maskOf(const RefTensor &q, const RefTensor &k, bool causal, uint64_t seed) {
  int64_t batch = q.shape[0], heads = q.shape[2], keys = k.shape[1];
  RefTensor v = identityValues(batch, keys, heads);
  std::vector<double> got = attend(q, k, v, causal, seed).to_host<double>();
  RefTensor p = ref::attention(q, k, v, 1.0 / std::sqrt(double(q.shape[3])), causal);
  std::vector<double> mask(got.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (p.data[i] == 0) {
      mask[i] = -1;
      continue;
    }
    double ratio = got[i] / p.data[i];
    EXPECT_TRUE(ratio == 0 || std::abs(ratio * (1 - kRate) - 1) < 1e-12)
        << "probability " << i << ": " << p.data[i] << " became " << got[i];
    mask[i] = ratio == 0 ? 0 : 1 / (1 - kRate);
  }
  return mask;
}

// The mask drops its share of the visible probabilities and scales the rest by 1 / (1 - rate),
// differs between (batch, head) pairs and between keys, and is the same for the same key.
TEST(AttentionDropoutTest, DropsItsShareAndScalesTheRest) {
  const int64_t batch = 2, seq = 70, heads = 3, dim = 8;
  std::mt19937 rng(kSeed);
  RefTensor q = uniform({batch, seq, heads, dim}, rng, -2, 2, DType::F64);
  RefTensor k = uniform({batch, seq, heads, dim}, rng, -2, 2, DType::F64);
  std::vector<double> mask = maskOf(q, k, true, 7);
  int64_t visible = 0, dropped = 0;
  for (double f : mask)
    if (f >= 0)
      ++visible, dropped += f == 0;
  EXPECT_EQ(visible, batch * heads * seq * (seq + 1) / 2);
  // 14910 draws: the share's standard deviation is 0.0038.
  EXPECT_NEAR(double(dropped) / double(visible), kRate, 0.02);
  auto maskOfPair = [&](const std::vector<double> &m, int64_t b, int64_t h) {
    std::vector<double> out;
    for (int64_t t = 0; t < seq; ++t)
      for (int64_t s = 0; s <= t; ++s)
        out.push_back(m[((b * seq + t) * heads + h) * seq + s]);
    return out;
  };
  EXPECT_NE(maskOfPair(mask, 0, 0), maskOfPair(mask, 0, 1));
  EXPECT_NE(maskOfPair(mask, 0, 0), maskOfPair(mask, 1, 0));
  EXPECT_EQ(maskOf(q, k, true, 7), mask);
  EXPECT_NE(maskOf(q, k, true, 8), mask);
}

/// Forward and gradients of sum(attention(q, k, v) * w): the kernel with dropout under
/// `seed`, or the attention written as products, mask and softmax with `mask` (as maskOf).
std::vector<std::vector<double>> lossGrads(bool kernel, bool causal,
                                           const std::vector<RefTensor> &in, uint64_t seed,
                                           const std::vector<double> &mask) {
  int64_t batch = in[0].shape[0], queries = in[0].shape[1], heads = in[0].shape[2],
          keys = in[1].shape[1];
  // The mask as [B, H, Tq, Tk], hidden keys 0.
  std::vector<double> scores(batch * heads * queries * keys, 0.0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < queries; ++t)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t s = 0; s < keys; ++s) {
          double f = mask[((b * queries + t) * heads + h) * keys + s];
          scores[((b * heads + h) * queries + t) * keys + s] = std::max(f, 0.0);
        }
  auto f = jit([kernel, causal, seed](Tensor q, Tensor k, Tensor v, Tensor w, Tensor m) {
    auto attention = [&](const Tensor &q, const Tensor &k, const Tensor &v,
                         const Tensor &mask) {
      if (kernel)
        return dot_product_attention(q, k, v, {kRate, random::keyConstant(seed)}, causal);
      Tensor s = einsum("bthd,bshd->bhts", q, k) * (1.0 / std::sqrt(double(q.dim(3))));
      if (causal) {
        int64_t seq = q.dim(1);
        Tensor allowed = greater_equal(iota({seq, seq}, 0), iota({seq, seq}, 1));
        s = where(allowed, s, full({}, -1e30, s.dtype()));
      }
      return einsum("bhts,bshd->bthd", softmax(s, -1) * mask, v);
    };
    auto loss = [&](Tree<Tensor> p, Tensor w, Tensor mask) {
      return sum(attention(p.at("q").leaf(), p.at("k").leaf(), p.at("v").leaf(), mask) * w);
    };
    Tree<Tensor> p;
    p["q"] = q, p["k"] = k, p["v"] = v;
    Tree<Tensor> g = grad(loss)(p, w, m);
    return std::make_tuple(attention(q, k, v, m), g.at("q").leaf(), g.at("k").leaf(),
                           g.at("v").leaf());
  });
  Array maskArray = Array::from(scores, {batch, heads, queries, keys});
  auto [out, dq, dk, dv] = f(toArray(in[0], DType::F64), toArray(in[1], DType::F64),
                             toArray(in[2], DType::F64), toArray(in[3], DType::F64), maskArray);
  return {out.to_host<double>(), dq.to_host<double>(), dk.to_host<double>(),
          dv.to_host<double>()};
}

// The kernels' forward and gradient against autodiff of the composed attention with the mask
// read back: a causal attention over several spans and blocks (300 positions), and more keys
// than queries. (tests/unit/mesh/AttentionDropoutMeshTest.cpp runs it split on a mesh.)
TEST(AttentionDropoutTest, ForwardAndGradientsMatchTheComposedAttentionWithItsMask) {
  for (auto [queries, keys, causal] :
       {std::tuple<int64_t, int64_t, bool>{300, 300, true}, {70, 290, false}}) {
    SCOPED_TRACE(testing::Message() << queries << " queries, " << keys << " keys");
    std::mt19937 rng(kSeed);
    std::vector<RefTensor> in = {uniform({2, queries, 2, 5}, rng, -2, 2, DType::F64),
                                 uniform({2, keys, 2, 5}, rng, -2, 2, DType::F64),
                                 uniform({2, keys, 2, 3}, rng, -1, 1, DType::F64),
                                 uniform({2, queries, 2, 3}, rng, -1, 1, DType::F64)};
    std::vector<double> mask = maskOf(in[0], in[1], causal, 11);
    auto got = lossGrads(true, causal, in, 11, mask);
    auto want = lossGrads(false, causal, in, 11, mask);
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].size(), want[i].size());
      for (size_t j = 0; j < got[i].size(); ++j)
        ASSERT_NEAR(got[i][j], want[i][j], 1e-10)
            << std::array{"result", "dq", "dk", "dv"}[i] << " at " << j;
    }
  }
}

// f32 and bf16 (run by the f32 kernel) drop the probabilities f64 drops.
TEST(AttentionDropoutTest, EveryDtypeDropsTheSameProbabilities) {
  std::mt19937 rng(kSeed);
  RefTensor q = uniform({2, 40, 2, 8}, rng, -1, 1, DType::BF16);
  RefTensor k = uniform({2, 40, 2, 8}, rng, -1, 1, DType::BF16);
  RefTensor v = uniform({2, 40, 2, 8}, rng, -1, 1, DType::BF16);
  RefTensor want = toRef(attend(q, k, v, true, 3));
  EXPECT_TRUE(allClose(attend(q, k, v, true, 3, kRate, DType::F32), want, {1e-5, 1e-5}));
  EXPECT_TRUE(allClose(attend(q, k, v, true, 3, kRate, DType::BF16), want, {2e-2, 1e-2}));
  // And no dropout at all differs from it.
  EXPECT_FALSE(allClose(attend(q, k, v, true, 3, 0.0), want, {1e-3, 1e-3}));
}

// A rate of 0 is the attention without dropout, bit for bit.
TEST(AttentionDropoutTest, RateZeroIsPlainAttention) {
  std::mt19937 rng(kSeed);
  RefTensor q = uniform({1, 9, 2, 4}, rng), k = uniform({1, 9, 2, 4}, rng),
            v = uniform({1, 9, 2, 4}, rng);
  auto plain = jit([](Tensor q, Tensor k, Tensor v) { return dot_product_attention(q, k, v); });
  std::vector<float> want = plain(toArray(q), toArray(k), toArray(v)).to_host<float>();
  EXPECT_EQ(attend(q, k, v, false, 1, 0.0, DType::F32).to_host<float>(), want);
}

// Bad rates and a missing key are named.
TEST(AttentionDropoutErrorTest, NamesTheBadRateOrTheMissingKey) {
  Array x = Array::from(std::vector<float>(2 * 3 * 2 * 4, 0.5f), {2, 3, 2, 4});
  auto message = [&](double rate, bool withKey) -> std::string {
    try {
      jit([rate, withKey](Tensor x) {
        Tensor key = withKey ? random::keyConstant(1) : Tensor();
        return dot_product_attention(x, x, x, {rate, key});
      })(x);
    } catch (const Error &e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message(1.0, true).find("the dropout rate must be in [0, 1), got 1"),
            std::string::npos);
  EXPECT_NE(message(-0.5, true).find("the dropout rate must be in [0, 1), got -0.5"),
            std::string::npos);
  EXPECT_NE(message(0.1, false).find("dropout 0.1 needs a random key"), std::string::npos);
}

} // namespace
