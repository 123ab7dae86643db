// Counter-based random numbers: the Threefry block function against its published test
// vectors, the distributions' statistics, and reproducibility of keys and draws.
#include "frontend/Loom.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loom;

namespace {

Array words(std::vector<uint32_t> values) {
  std::vector<int32_t> asSigned(values.begin(), values.end());
  return Array::from(asSigned, {static_cast<int64_t>(values.size())});
}

TEST(Random, ThreefryMatchesTheReferenceVectors) {
  // Known-answer tests of Threefry-2x32 with 20 rounds (Random123; also used by JAX).
  auto block = jit([](Tensor k0, Tensor k1, Tensor c0, Tensor c1) {
    auto [x0, x1] = random::threefry2x32(k0, k1, c0, c1);
    return std::make_tuple(x0, x1);
  });
  auto [x0, x1] = block(words({0x0, 0xffffffff, 0x13198a2e}), words({0x0, 0xffffffff, 0x03707344}),
                        words({0x0, 0xffffffff, 0x243f6a88}), words({0x0, 0xffffffff, 0x85a308d3}));
  std::vector<int32_t> a = x0.to_host<int32_t>(), b = x1.to_host<int32_t>();
  EXPECT_EQ(uint32_t(a[0]), 0x6b200159u);
  EXPECT_EQ(uint32_t(b[0]), 0x99ba4efeu);
  EXPECT_EQ(uint32_t(a[1]), 0x1cb996fcu);
  EXPECT_EQ(uint32_t(b[1]), 0xbb002be7u);
  EXPECT_EQ(uint32_t(a[2]), 0xc4923a9cu);
  EXPECT_EQ(uint32_t(b[2]), 0x483df7a0u);
}

/// Mean and variance of the values.
std::pair<double, double> moments(const std::vector<float> &v) {
  double mean = 0, var = 0;
  for (float x : v)
    mean += x;
  mean /= v.size();
  for (float x : v)
    var += (x - mean) * (x - mean);
  return {mean, var / v.size()};
}

TEST(Random, DistributionsHaveTheirMoments) {
  const int64_t n = 1 << 16;
  auto draw = jit([&](Tensor key) {
    Tensor keys = random::split(key, 4);
    return std::make_tuple(random::uniform(random::splitAt(keys, 0), {n}),
                           random::normal(random::splitAt(keys, 1), {n}),
                           random::truncatedNormal(random::splitAt(keys, 2), {n}, -2, 2),
                           astype(random::bernoulli(random::splitAt(keys, 3), 0.3, {n}),
                                  DType::F32));
  });
  auto [u, z, t, b] = draw(random::key(42));
  std::vector<float> uv = u.to_host<float>(), tv = t.to_host<float>();
  for (float x : uv)
    ASSERT_TRUE(x >= 0.0f && x < 1.0f) << x;
  for (float x : tv)
    ASSERT_TRUE(x >= -2.0f && x <= 2.0f) << x;
  // Standard errors at n = 65536 are below 0.005; the bounds are several of them.
  auto [um, uvar] = moments(uv);
  EXPECT_NEAR(um, 0.5, 0.01);
  EXPECT_NEAR(uvar, 1.0 / 12, 0.005);
  auto [zm, zvar] = moments(z.to_host<float>());
  EXPECT_NEAR(zm, 0.0, 0.02);
  EXPECT_NEAR(zvar, 1.0, 0.03);
  auto [tm, tvar] = moments(tv);
  EXPECT_NEAR(tm, 0.0, 0.02);
  EXPECT_NEAR(tvar, 0.7737, 0.03); // variance of N(0,1) truncated to [-2, 2]
  EXPECT_NEAR(moments(b.to_host<float>()).first, 0.3, 0.01);
}

TEST(Random, SameKeySameNumbersAndSplitsDiffer) {
  auto draw = jit([](Tensor key) {
    Tensor keys = random::split(key, 2);
    return std::make_tuple(random::normal(random::splitAt(keys, 0), {5, 7}),
                           random::normal(random::splitAt(keys, 1), {5, 7}),
                           random::normal(random::foldIn(key, 3), {5, 7}));
  });
  auto [a, b, c] = draw(random::key(7));
  auto [a2, b2, c2] = draw(random::key(7));
  EXPECT_EQ(a.to_host<float>(), a2.to_host<float>()); // bit for bit
  EXPECT_EQ(c.to_host<float>(), c2.to_host<float>());
  EXPECT_NE(a.to_host<float>(), b.to_host<float>());
  EXPECT_NE(a.to_host<float>(), c.to_host<float>());
  auto [d, e, f] = draw(random::key(8));
  EXPECT_NE(a.to_host<float>(), d.to_host<float>());
}

TEST(Random, HeNormalScalesByFanIn) {
  auto init = jit([](Tensor key) { return init::heNormal(key, {512, 256}); });
  auto [mean, var] = moments(init(random::key(1)).to_host<float>());
  EXPECT_NEAR(mean, 0.0, 0.005);
  EXPECT_NEAR(var, 2.0 / 512, 0.0003);
}

} // namespace
