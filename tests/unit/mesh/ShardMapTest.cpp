// shard_map on 4 virtual CPU devices: each collective against its definition computed on the
// host, and the gradient of each (through the shard_map) against central finite differences
// in f64 (programs written with it: ShardMapProgramsTest.cpp).
#include "frontend/Loom.h"
#include "tests/unit/mesh/ShardMapTestData.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace loom;
using namespace loom::shard_map_test;

namespace {

//===--- Values ---===//

class ShardMapValues : public testing::Test {
protected:
  Mesh mesh{{{"x", 4}}};
  NamedSharding rows{mesh, P("x")};
  // Global [8, 3]: device d holds rows 2d and 2d+1.
  std::vector<double> host = wave(8 * 3, 1.0);
  Array input = Array::device_put(host, {8, 3}, rows);

  /// Runs `body` in a shard_map over the rows of `input`, returning what `out` assembles.
  std::vector<double> run(const std::function<Tensor(const Tensor &)> &body, PartitionSpec out) {
    auto f = jit([&](Tensor x) { return shard_map(body, mesh, {P("x")}, {out})(x); },
                 {.name = "shard_map_values", .inShardings = {rows}});
    return f(input).to_host<double>();
  }
  double at(int64_t row, int64_t col) const { return host[row * 3 + col]; }
};

TEST_F(ShardMapValues, PsumPmeanAndPmaxCombineTheGroup) {
  std::vector<double> sum(2 * 3, 0), max(2 * 3, -1e300);
  for (int64_t d = 0; d < 4; ++d)
    for (int64_t i = 0; i < 6; ++i) {
      sum[i] += host[d * 6 + i];
      max[i] = std::max(max[i], host[d * 6 + i]);
    }
  std::vector<double> mean = sum;
  for (double &m : mean)
    m /= 4;
  expectNear(run([](const Tensor &x) { return psum(x, "x"); }, P()), sum, 1e-14, "psum");
  expectNear(run([](const Tensor &x) { return pmean(x, "x"); }, P()), mean, 1e-14, "pmean");
  expectNear(run([](const Tensor &x) { return pmax(x, "x"); }, P()), max, 0, "pmax");
}

TEST_F(ShardMapValues, AllGatherAndPsumScatterMoveTheRightPieces) {
  // Gathered whole on every device, returned split: the global result is 4 copies of input.
  std::vector<double> copies;
  for (int d = 0; d < 4; ++d)
    copies.insert(copies.end(), host.begin(), host.end());
  expectNear(run([](const Tensor &x) { return all_gather(x, "x", 0); }, P("x")), copies, 0,
             "all_gather");
  // psum_scatter over dim 1 of a [2, 4] local: device d keeps column d of the sum.
  auto f = [](const Tensor &x) {
    Tensor wide = concatenate({x, slice(x, {0, 0}, {2, 1})}, 1); // [2, 4]
    return psum_scatter(wide, "x", 1);                             // [2, 1]
  };
  std::vector<double> got = run(f, P(None, "x")); // global [2, 4]
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 4; ++c) {
      double want = 0;
      for (int64_t d = 0; d < 4; ++d)
        want += at(2 * d + r, c == 3 ? 0 : c);
      EXPECT_NEAR(got[r * 4 + c], want, 1e-14) << r << "," << c;
    }
}

TEST_F(ShardMapValues, AllToAllPpermuteAndAxisIndex) {
  // all_to_all of [2, 4] locals: split dim 1, concat dim 0 -> [8, 1]: device d gets column d
  // of every device's rows, in device order.
  auto toAll = [](const Tensor &x) {
    Tensor wide = concatenate({x, slice(x, {0, 0}, {2, 1})}, 1);
    return all_to_all(wide, "x", 1, 0);
  };
  std::vector<double> got = run(toAll, P(None, "x")); // global [8, 4]
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t d = 0; d < 4; ++d)
      EXPECT_EQ(got[r * 4 + d], at(r, d == 3 ? 0 : d)) << r << "," << d;
  // Split and concat dim both 0, of [4, 3] locals (the device's rows twice): device d gets
  // row d of every device's, in device order.
  std::vector<double> swapped =
      run([](const Tensor &x) { return all_to_all(concatenate({x, x}, 0), "x", 0, 0); },
          P("x")); // global [16, 3]
  for (int64_t d = 0; d < 4; ++d)
    for (int64_t q = 0; q < 4; ++q)
      for (int64_t c = 0; c < 3; ++c)
        EXPECT_EQ(swapped[(d * 4 + q) * 3 + c], at(q * 2 + d % 2, c)) << d << "," << q;
  // A ring shift forward, and a partial permutation (devices 0 and 3 get zeros).
  std::vector<double> ring = run(
      [](const Tensor &x) { return ppermute(x, "x", {{0, 1}, {1, 2}, {2, 3}, {3, 0}}); }, P("x"));
  std::vector<double> partial =
      run([](const Tensor &x) { return ppermute(x, "x", {{0, 1}, {1, 2}}); }, P("x"));
  for (int64_t d = 0; d < 4; ++d)
    for (int64_t i = 0; i < 6; ++i) {
      EXPECT_EQ(ring[d * 6 + i], host[((d + 3) % 4) * 6 + i]);
      EXPECT_EQ(partial[d * 6 + i], d == 1 || d == 2 ? host[(d - 1) * 6 + i] : 0.0);
    }
  std::vector<double> index =
      run([](const Tensor &x) { return x * 0.0 + astype(axis_index("x"), DType::F64); }, P("x"));
  for (int64_t d = 0; d < 4; ++d)
    EXPECT_EQ(index[d * 6], static_cast<double>(d));
}

TEST(ShardMapOneDevice, AOneDeviceMeshRunsTheBodyWhole) {
  // Not partitioned: the body is inlined and each collective is what it is on one device.
  Mesh one({{"x", 1}});
  auto f = jit(
      [&](Tensor x) {
        auto body = [](const Tensor &t) {
          Tensor shifted = ppermute(t, "x", {{0, 0}}) + all_gather(t, "x", 0);
          return psum(shifted, "x") + astype(axis_index("x"), DType::F64) + pmean(t, "x");
        };
        return shard_map(body, one, {P("x")}, {P("x")})(x);
      },
      {.name = "one_device", .inShardings = {NamedSharding(one, P("x"))}});
  std::vector<double> host = wave(6, 1.0);
  std::vector<double> got = f(Array::from(host, {6})).to_host<double>();
  for (size_t i = 0; i < host.size(); ++i)
    EXPECT_DOUBLE_EQ(got[i], 3 * host[i]);
}

//===--- Gradients against finite differences (f64) ---===//

/// The gradient of L(x, w) = sum(shard_map(body)(x, w) * r), with x [8, 4] split over "x" by
/// rows and w [2, 4] replicated, from value_and_grad around the shard_map, against central
/// finite differences of the same jitted L.
class ShardMapGradients : public testing::Test {
protected:
  Mesh mesh{{{"x", 4}}};
  NamedSharding rows{mesh, P("x")}, whole{mesh, P()};

  void check(const std::function<Tensor(const Tensor &, const Tensor &)> &body, PartitionSpec out,
             const Shape &outShape, const std::string &what) {
    int64_t outSize = 1;
    for (int64_t d : outShape)
      outSize *= d;
    Array r = Array::from(wave(outSize, 1.0, 0.3), outShape);
    auto loss = [&](const Tensor &x, const Tensor &w, const Tensor &rr) {
      return sum(shard_map(body, mesh, {P("x"), P()}, {out})(x, w) * rr);
    };
    auto grads = jit(
        [&](Tensor x, Tensor w, Tensor rr) {
          ValueAndGrad vg = value_and_grad(loss, {0, 1})(x, w, rr);
          return std::make_tuple(vg.grads[0].leaf(), vg.grads[1].leaf());
        },
        {.name = "shard_map_grad", .inShardings = {rows, whole, NamedSharding()}});
    auto value = jit([&](Tensor x, Tensor w, Tensor rr) { return loss(x, w, rr); },
                     {.name = "shard_map_loss", .inShardings = {rows, whole, NamedSharding()}});
    std::vector<double> xs = wave(8 * 4, 0.8, 1.1), ws = wave(2 * 4, 0.6, 2.3);
    auto at = [&](const std::vector<double> &xv, const std::vector<double> &wv) {
      return value(Array::device_put(xv, {8, 4}, rows), Array::device_put(wv, {2, 4}, whole), r)
          .item<double>();
    };
    auto [gx, gw] = grads(Array::device_put(xs, {8, 4}, rows),
                          Array::device_put(ws, {2, 4}, whole), r);
    const double h = 1e-6;
    std::vector<double> fx(xs.size()), fw(ws.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      std::vector<double> up = xs, down = xs;
      up[i] += h, down[i] -= h;
      fx[i] = (at(up, ws) - at(down, ws)) / (2 * h);
    }
    for (size_t i = 0; i < ws.size(); ++i) {
      std::vector<double> up = ws, down = ws;
      up[i] += h, down[i] -= h;
      fw[i] = (at(xs, up) - at(xs, down)) / (2 * h);
    }
    expectNear(gx.to_host<double>(), fx, 1e-6, what + ": gradient of x");
    expectNear(gw.to_host<double>(), fw, 1e-6, what + ": gradient of w");
  }
};

TEST_F(ShardMapGradients, Psum) {
  // w is the same on every device but multiplies each device's shard: its gradient is the
  // sum over the devices.
  check([](const Tensor &x, const Tensor &w) { return psum(x * w, "x"); }, P(), {2, 4}, "psum");
}

TEST_F(ShardMapGradients, PsumOfAReplicatedValue) {
  // psum of w (the same everywhere) is 4 w.
  check([](const Tensor &x, const Tensor &w) { return psum(w * w, "x") + x; }, P("x"), {8, 4},
        "psum of w");
}

TEST_F(ShardMapGradients, PmeanAndPmax) {
  check([](const Tensor &x, const Tensor &w) { return pmean(exp(x) * w, "x"); }, P(), {2, 4},
        "pmean");
  check([](const Tensor &x, const Tensor &w) { return pmax(x + w, "x"); }, P(), {2, 4}, "pmax");
}

TEST_F(ShardMapGradients, AllGatherAndPsumScatter) {
  check([](const Tensor &x, const Tensor &w) { return all_gather(x * w, "x", 0) * 1.5; },
        P("x"), {32, 4}, "all_gather");
  check([](const Tensor &x, const Tensor &w) { return psum_scatter(x * w, "x", 1); },
        P(None, "x"), {2, 4}, "psum_scatter");
  // Scattering the replicated w: each device's piece of 4 w.
  check([](const Tensor &x, const Tensor &w) { return psum_scatter(w * w, "x", 1) + sum(x); },
        P(None, "x"), {2, 4}, "psum_scatter of w");
}

TEST_F(ShardMapGradients, AllToAllAndPpermute) {
  check([](const Tensor &x, const Tensor &w) { return all_to_all(x * w, "x", 1, 0); },
        P(None, "x"), {8, 4}, "all_to_all");
  check([](const Tensor &x, const Tensor &w) { return all_to_all(x * w, "x", 1, 1); }, P("x"),
        {8, 4}, "all_to_all within dim 1");
  check([](const Tensor &x, const Tensor &w) {
    return ppermute(x * w, "x", {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  }, P("x"), {8, 4}, "ring ppermute");
  check([](const Tensor &x, const Tensor &w) { return ppermute(x * w, "x", {{0, 2}, {3, 1}}); },
        P("x"), {8, 4}, "partial ppermute");
}

TEST_F(ShardMapGradients, AValueTheSameEverywhereReturnedSplit) {
  // psum(x) is the same on every device; returned split, the result is 4 copies of it.
  check([](const Tensor &x, const Tensor &w) { return psum(x, "x") * w; }, P("x"), {8, 4},
        "split copies");
}

} // namespace
