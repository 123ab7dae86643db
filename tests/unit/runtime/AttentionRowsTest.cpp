// The attention kernel's passes over a row (runtime/AttentionRows.h) against double-precision
// references, at every length up to past four vectors (whole vectors and every tail), on this
// CPU's path and on the portable loops of CPUs without AVX-512.
#include "runtime/AttentionRows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace loom::rt;

namespace {

class AttentionRowsTest : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override { detail::forceRowPassFallback(GetParam()); }
  void TearDown() override { detail::forceRowPassFallback(false); }

  /// `n` values in [-6, 2), seeded by n.
  static std::vector<float> row(int64_t n) {
    std::mt19937 random(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> uniform(-6, 2);
    std::vector<float> values(n);
    for (float &v : values)
      v = uniform(random);
    return values;
  }
};

TEST_P(AttentionRowsTest, ExponentialsAndTheirSumAtEveryLength) {
  for (int64_t n = 0; n <= 70; ++n) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    std::vector<float> values = row(n), original = values;
    values.push_back(123.0f); // past the row: left alone
    const float shift = 0.75f;
    float sum = expShifted(values.data(), n, shift);
    double expectedSum = 0;
    for (int64_t i = 0; i < n; ++i) {
      double expected = std::exp(double(original[i]) - shift);
      expectedSum += expected;
      ASSERT_NEAR(values[i], expected, 4e-7 * expected) << "at " << i;
    }
    EXPECT_EQ(values[n], 123.0f);
    EXPECT_NEAR(sum, expectedSum, 1e-6 * (1 + expectedSum));
  }
}

TEST_P(AttentionRowsTest, MaskedAndFarBelowTheShiftAreZero) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values = {-inf, -200.0f, -87.9f, 0.0f, -inf};
  float sum = expShifted(values.data(), int64_t(values.size()), 0.0f);
  EXPECT_EQ(values, (std::vector<float>{0, 0, 0, 1, 0}));
  EXPECT_EQ(sum, 1.0f);
}

TEST_P(AttentionRowsTest, MaxAndDotProductAtEveryLength) {
  for (int64_t n = 1; n <= 70; ++n) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    std::vector<float> x = row(n), y = row(n + 100);
    y.resize(n);
    EXPECT_EQ(rowMax(x.data(), n), *std::max_element(x.begin(), x.end()));
    double dot = 0, scale = 0;
    for (int64_t i = 0; i < n; ++i)
      dot += double(x[i]) * y[i], scale += std::abs(double(x[i]) * y[i]);
    EXPECT_NEAR(rowDot(x.data(), y.data(), n), dot, 1e-6 * (1 + scale));
  }
  EXPECT_EQ(rowDot(static_cast<const float *>(nullptr), nullptr, 0), 0.0f);
}

INSTANTIATE_TEST_SUITE_P(, AttentionRowsTest, ::testing::Values(false, true),
                         [](const auto &info) {
                           return info.param ? "PortableLoops" : "ThisCpusPath";
                         });

} // namespace
