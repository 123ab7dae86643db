// Kernels run on the device's threads (loom-parallel-kernels, runtime/WorkerPool.h) compute
// exactly what they compute on one thread, and what a double-precision reference computes
// up to float rounding: softmax (row max and sum reductions), an elementwise chain, a
// column sum (a reduction over the leading dim) and a concatenation into strided views.
#include "frontend/Loom.h"
#include "runtime/Client.h"
#include "runtime/Device.h"
#include "runtime/WorkerPool.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loom;

namespace {

constexpr int64_t kRows = 256, kCols = 1000;

std::vector<float> input() {
  std::vector<float> x(kRows * kCols);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(std::sin(0.37 * i) * 4.0 + (i % 7) * 0.1);
  return x;
}

TEST(ParallelKernels, SameResultsOnTheDevicesThreadsAsOnOneAndAsTheReference) {
  rt::Device &device = rt::Client::defaultClient().device(0);
  if (device.kernelThreads() < 2)
    GTEST_SKIP() << "one core: the device's loops have no other thread to run on";
  auto f = jit([](Tensor x) {
    Tensor s = softmax(x, -1);
    Tensor t = tanh(x) * 2.0 + 1.0;
    Tensor c = sum(x, {0});
    Tensor joined = concatenate({x, t}, 1);
    return std::make_tuple(s, t, c, joined);
  });
  Array x = Array::from(input(), {kRows, kCols});

  uint64_t sharedBefore = device.kernelLoopsShared();
  auto [s, t, c, joined] = f(x);
  std::vector<float> sp = s.to_host<float>(), tp = t.to_host<float>(), cp = c.to_host<float>(),
                     jp = joined.to_host<float>();
  EXPECT_GT(device.kernelLoopsShared(), sharedBefore) << "some loop ran on several threads";

  rt::setKernelThreadLimit(1);
  auto [s1, t1, c1, joined1] = f(x);
  std::vector<float> s1p = s1.to_host<float>(), t1p = t1.to_host<float>(),
                     c1p = c1.to_host<float>(), j1p = joined1.to_host<float>();
  rt::setKernelThreadLimit(rt::kNoKernelThreadLimit);
  // Each element is computed by the same code whichever thread runs its chunk.
  EXPECT_EQ(sp, s1p);
  EXPECT_EQ(tp, t1p);
  EXPECT_EQ(cp, c1p);
  EXPECT_EQ(jp, j1p);

  std::vector<float> in = input();
  for (int64_t r = 0; r < kRows; ++r) {
    double m = -INFINITY, z = 0;
    for (int64_t k = 0; k < kCols; ++k)
      m = std::max(m, double(in[r * kCols + k]));
    for (int64_t k = 0; k < kCols; ++k)
      z += std::exp(double(in[r * kCols + k]) - m);
    for (int64_t k = 0; k < kCols; ++k) {
      double x = in[r * kCols + k];
      ASSERT_NEAR(sp[r * kCols + k], std::exp(x - m) / z, 1e-6) << r << "," << k;
      ASSERT_NEAR(tp[r * kCols + k], std::tanh(x) * 2 + 1, 1e-5) << r << "," << k;
      ASSERT_EQ(jp[r * 2 * kCols + k], in[r * kCols + k]);
      ASSERT_EQ(jp[r * 2 * kCols + kCols + k], tp[r * kCols + k]);
    }
  }
  for (int64_t k = 0; k < kCols; ++k) {
    double total = 0;
    for (int64_t r = 0; r < kRows; ++r)
      total += in[r * kCols + k];
    ASSERT_NEAR(cp[k], total, 1e-3) << k;
  }
}

} // namespace
