// Attention dropout split on a mesh of 4 virtual CPU devices: with the batch over one axis and
// the heads over the other, each device draws its own (batch, head) pairs' seeds by their
// place in the whole tensor, so the result and the gradients equal one device's.
#include "frontend/Loom.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loom;

namespace {

TEST(AttentionDropoutMesh, ASplitAttentionDropsWhatOneDeviceDrops) {
  Mesh mesh({{"data", 2}, {"model", 2}});
  NamedSharding split(mesh, P("data", None, "model", None));
  Shape shape{4, 40, 4, 8};
  const int64_t n = 4 * 40 * 4 * 8;
  std::vector<std::vector<double>> in;
  for (int i = 0; i < 4; ++i) {
    std::vector<double> v(n);
    for (int64_t j = 0; j < n; ++j)
      v[j] = std::sin(0.37 * double(j) + i) * (i == 3 ? 1.0 : 2.0);
    in.push_back(v);
  }
  auto step = jit([](Tensor q, Tensor k, Tensor v, Tensor w) {
    auto loss = [](Tree<Tensor> p, Tensor w) {
      Tensor out = dot_product_attention(p.at("q").leaf(), p.at("k").leaf(), p.at("v").leaf(),
                                         {0.3, random::keyConstant(5)}, true);
      return sum(out * w);
    };
    Tree<Tensor> p;
    p["q"] = q, p["k"] = k, p["v"] = v;
    ValueAndGrad r = value_and_grad(loss)(p, w);
    const Tree<Tensor> &g = r.grads.at(0);
    return std::make_tuple(r.value, g.at("q").leaf(), g.at("k").leaf(), g.at("v").leaf());
  });
  auto run = [&](bool sharded) {
    std::vector<Array> args;
    for (const std::vector<double> &v : in)
      args.push_back(sharded ? Array::device_put(v, shape, split) : Array::from(v, shape));
    auto [loss, dq, dk, dv] = step(args[0], args[1], args[2], args[3]);
    return std::vector<std::vector<double>>{loss.to_host<double>(), dq.to_host<double>(),
                                            dk.to_host<double>(), dv.to_host<double>()};
  };
  auto one = run(false), four = run(true);
  for (size_t i = 0; i < one.size(); ++i)
    for (size_t j = 0; j < one[i].size(); ++j)
      ASSERT_NEAR(four[i][j], one[i][j], 1e-12 * (1 + std::abs(one[i][j])))
          << "loss, dq, dk, dv: #" << i << " at " << j;
  // Dropout is on: the loss differs from the attention without it.
  auto plain = jit([](Tensor q, Tensor k, Tensor v, Tensor w) {
    return sum(dot_product_attention(q, k, v, true) * w);
  });
  double without = plain(Array::from(in[0], shape), Array::from(in[1], shape),
                         Array::from(in[2], shape), Array::from(in[3], shape))
                       .to_host<double>()[0];
  EXPECT_GT(std::abs(without - one[0][0]), 1e-3);
}

} // namespace
