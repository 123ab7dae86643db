// The attention kernel's passes over the rows of a block (runtime/AttentionRows.h) against
// double-precision references, at every length up to past four vectors (whole vectors and
// every tail), on this CPU's path, on the AVX2 loops and on the portable loops of CPUs with
// neither AVX-512 nor AVX2.
#include "runtime/AttentionRows.h"
#include "runtime/cuda/AttentionDropout.h"
#include "tests/unit/runtime/CpuKernelPaths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace loom::rt;

namespace {

class AttentionRowsTest : public test::CpuKernelPathTest {
protected:
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
    float sum = -1;
    expRows(values.data(), n + 1, 1, n, &n, &shift, &sum);
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
  const int64_t n = int64_t(values.size());
  const float shift = 0;
  float sum = -1;
  expRows(values.data(), n, 1, n, &n, &shift, &sum);
  EXPECT_EQ(values, (std::vector<float>{0, 0, 0, 1, 0}));
  EXPECT_EQ(sum, 1.0f);
}

TEST_P(AttentionRowsTest, MaxAndDotProductAtEveryLength) {
  for (int64_t n = 1; n <= 70; ++n) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    std::vector<float> x = row(n), y = row(n + 100);
    y.resize(n);
    float max = 0;
    rowMaxes(x.data(), n, 1, &n, &max);
    EXPECT_EQ(max, *std::max_element(x.begin(), x.end()));
    double dot = 0, scale = 0;
    for (int64_t i = 0; i < n; ++i)
      dot += double(x[i]) * y[i], scale += std::abs(double(x[i]) * y[i]);
    EXPECT_NEAR(rowDot(x.data(), y.data(), n), dot, 1e-6 * (1 + scale));
  }
  EXPECT_EQ(rowDot(static_cast<const float *>(nullptr), nullptr, 0), 0.0f);
}

// A causal block: row r of 40 keys sees r + 1 of them (none for the first row here); the
// rest of its 40 become zeros, the columns past them stay, and each row has its own shift.
TEST_P(AttentionRowsTest, BlockRowsWithTheirOwnLengthsAndShifts) {
  const int64_t rows = 37, width = 40, ld = 48;
  std::vector<float> block(rows * ld), original;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<float> values = row(ld + r);
    std::copy_n(values.begin(), ld, block.begin() + r * ld);
  }
  original = block;
  std::vector<int64_t> lengths(rows);
  std::vector<float> shifts(rows), maxes(rows), sums(rows, -1);
  for (int64_t r = 0; r < rows; ++r)
    lengths[r] = r, shifts[r] = 0.1f * float(r) - 1;
  rowMaxes(block.data(), ld, rows, lengths.data(), maxes.data());
  expRows(block.data(), ld, rows, width, lengths.data(), shifts.data(), sums.data());
  for (int64_t r = 0; r < rows; ++r) {
    SCOPED_TRACE(::testing::Message() << "row " << r);
    const float *in = original.data() + r * ld, *out = block.data() + r * ld;
    if (lengths[r] == 0)
      EXPECT_EQ(maxes[r], -std::numeric_limits<float>::infinity());
    else
      EXPECT_EQ(maxes[r], *std::max_element(in, in + lengths[r]));
    double expectedSum = 0;
    for (int64_t c = 0; c < lengths[r]; ++c) {
      // The shift is taken in floats, as the kernel's scores are.
      double expected = std::exp(double(in[c] - shifts[r]));
      expectedSum += expected;
      ASSERT_NEAR(out[c], expected, 4e-7 * expected) << "at " << c;
    }
    for (int64_t c = lengths[r]; c < width; ++c)
      ASSERT_EQ(out[c], 0.0f) << "masked key " << c;
    for (int64_t c = width; c < ld; ++c)
      ASSERT_EQ(out[c], in[c]) << "past the block, column " << c;
    EXPECT_NEAR(sums[r], expectedSum, 1e-6 * (1 + expectedSum));
  }
  // Without sums (the gradient's recomputed probabilities), the same values.
  std::vector<float> again = original;
  expRows(again.data(), ld, rows, width, lengths.data(), shifts.data(), nullptr);
  EXPECT_EQ(again, block);
}

// The softmax's gradient on a causal block: p (dp - delta) scale up to each row's length,
// zeros after it (whatever dP held there), the columns past the block left alone.
TEST_P(AttentionRowsTest, SoftmaxGradientOfBlockRows) {
  const int64_t rows = 35, width = 33, ld = 40;
  std::vector<float> probs(rows * ld), dprobs(rows * ld), deltas(rows);
  std::vector<int64_t> lengths(rows);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<float> p = row(ld + r), d = row(2 * ld + r);
    std::copy_n(p.begin(), ld, probs.begin() + r * ld);
    std::copy_n(d.begin(), ld, dprobs.begin() + r * ld);
    lengths[r] = std::min<int64_t>(r, width), deltas[r] = 0.25f * float(r % 5) - 0.5f;
  }
  std::vector<float> original = dprobs;
  const float scale = 0.3f;
  softmaxGradRows(dprobs.data(), probs.data(), ld, rows, width, lengths.data(), deltas.data(),
                  scale);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < ld; ++c) {
      SCOPED_TRACE(::testing::Message() << "row " << r << " column " << c);
      float got = dprobs[r * ld + c];
      if (c < lengths[r])
        ASSERT_EQ(got, probs[r * ld + c] * (original[r * ld + c] - deltas[r]) * scale);
      else
        ASSERT_EQ(got, c < width ? 0.0f : original[r * ld + c]);
    }
}

// Dropout's factors are the scalar word's (runtime/cuda/AttentionDropout.h, which the GPU
// and the decomposed attention share) at every length and start, keys wrapping past 2^32,
// seeds with high bits, and rates keeping almost none and almost all.
TEST_P(AttentionRowsTest, DropoutFactorsAreTheScalarWordsAtEveryLength) {
  const uint32_t seeds[] = {0u, 1u, 0x9E3779B9u, 0xFFFFFFFFu};
  const uint32_t starts[] = {0u, 5u, 0xFFFFFFF0u};
  const double rates[] = {0.1, 0.5, 0.999};
  std::vector<float> out(80);
  for (uint32_t seed : seeds)
    for (uint32_t s0 : starts)
      for (double rate : rates)
        for (int64_t n = 0; n <= 70; ++n) {
          const uint32_t t = uint32_t(n * 977 + seed % 13), threshold =
                                                               loomAttentionDropThreshold(rate);
          std::fill(out.begin(), out.end(), -1.0f);
          dropoutFactors(out.data(), n, seed, t, s0, threshold, 2.5f);
          for (int64_t i = 0; i < n; ++i) {
            bool keeps = loomAttentionDropoutKeeps(seed, t, s0 + uint32_t(i), threshold);
            ASSERT_EQ(out[i], keeps ? 2.5f : 0.0f)
                << "seed " << seed << " t " << t << " key " << s0 + uint32_t(i) << " n " << n;
          }
          ASSERT_EQ(out[n], -1.0f) << "past the row";
        }
}

INSTANTIATE_TEST_SUITE_P(, AttentionRowsTest, test::everyCpuKernelPath(),
                         test::cpuKernelPathName);

} // namespace
