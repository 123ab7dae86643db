// shard_map as users write with it, on 4 virtual CPU devices: the seed-style data-parallel
// step (value_and_grad per device, then pmean of the gradients) against jit's automatic data
// parallelism, a ring attention whose keys and values travel by ppermute against plain
// attention, with its gradients, and the errors that name what was wrong.
#include "frontend/Loom.h"
#include "tests/unit/frontend/ErrorOf.h"
#include "tests/unit/mesh/ShardMapTestData.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace loom;
using namespace loom::shard_map_test;

namespace {

//===--- The seed-style data-parallel step ---===//

Tensor mlpLoss(const Tree<Tensor> &p, const Tensor &x, const Tensor &y) {
  Tensor h = tanh(matmul(x, p.at("w1").leaf()));
  Tensor out = matmul(h, p.at("w2").leaf());
  return mean((out - y) * (out - y));
}

Tree<Tensor> sgd(const Tree<Tensor> &p, const Tree<Tensor> &g) {
  return tree_map([](const Tensor &w, const Tensor &d) { return w - 0.1 * d; }, p, g);
}

TEST(ShardMapTraining, PmeanOfPerDeviceGradientsMatchesJitDataParallel) {
  Mesh mesh({{"data", 4}});
  NamedSharding batch(mesh, P("data")), replicated(mesh, P());
  // Written per device, as the seeds' pmap-era step: each device differentiates its own
  // batch's loss, then the gradients and the loss are averaged over "data".
  auto perDevice = [&](Tree<Tensor> p, Tensor x, Tensor y) {
    ValueAndGrad vg = value_and_grad(mlpLoss)(p, x, y);
    Tree<Tensor> g = tree_map([](const Tensor &d) { return pmean(d, "data"); }, vg.grads[0]);
    return std::make_tuple(sgd(p, g), pmean(vg.value, "data"));
  };
  auto manual = jit(
      [&](Tree<Tensor> p, Tensor x, Tensor y) {
        return shard_map(perDevice, mesh, {P(), P("data"), P("data")}, {P()})(p, x, y);
      },
      {.name = "shard_map_dp", .inShardings = {replicated, batch, batch}});
  auto automatic = jit(
      [&](Tree<Tensor> p, Tensor x, Tensor y) {
        ValueAndGrad vg = value_and_grad(mlpLoss)(p, x, y);
        return std::make_tuple(sgd(p, vg.grads[0]), vg.value);
      },
      {.name = "jit_dp", .inShardings = {replicated, batch, batch}});
  auto start = [&] {
    Tree<Array> p;
    p["w1"] = Array::device_put(wave(16 * 32, 0.2, 0.1), {16, 32}, replicated);
    p["w2"] = Array::device_put(wave(32 * 4, 0.2, 0.7), {32, 4}, replicated);
    return p;
  };
  Tree<Array> pm = start(), pa = start();
  for (int step = 0; step < 4; ++step) {
    Array x = Array::device_put(wave(8 * 16, 1.0, step), {8, 16}, batch);
    Array y = Array::device_put(wave(8 * 4, 1.0, 3.0 + step), {8, 4}, batch);
    auto [nm, lm] = manual(pm, x, y);
    auto [na, la] = automatic(pa, x, y);
    EXPECT_NEAR(lm.item<double>(), la.item<double>(), 1e-13) << "loss of step " << step;
    pm = nm, pa = na;
  }
  for (const char *name : {"w1", "w2"})
    expectNear(pm.at(name).leaf().to_host<double>(), pa.at(name).leaf().to_host<double>(), 1e-12,
               name);
}

//===--- Ring attention ---===//

/// Attention of q over k, v ([T, D] each), unsharded.
Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v) {
  Tensor s = matmul(q, transpose(k)) / std::sqrt(static_cast<double>(q.dim(1)));
  return matmul(softmax(s, -1), v);
}

/// The same over 4 devices holding a quarter of the sequence each: keys and values go round
/// the ring by ppermute; each block is folded in with an online softmax.
Tensor ringAttention(const Tensor &q, const Tensor &k, const Tensor &v) {
  double scale = 1 / std::sqrt(static_cast<double>(q.dim(1)));
  Pairs ring = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  Tensor s = matmul(q, transpose(k)) * scale;
  Tensor m = max(s, {1}, true);
  Tensor p = exp(s - m);
  Tensor l = sum(p, {1}, true);
  Tensor acc = matmul(p, v);
  Tensor kc = k, vc = v;
  for (int step = 1; step < 4; ++step) {
    kc = ppermute(kc, "seq", ring);
    vc = ppermute(vc, "seq", ring);
    Tensor sb = matmul(q, transpose(kc)) * scale;
    Tensor mNew = maximum(m, max(sb, {1}, true));
    Tensor pb = exp(sb - mNew);
    Tensor correction = exp(m - mNew);
    l = l * correction + sum(pb, {1}, true);
    acc = acc * correction + matmul(pb, vc);
    m = mNew;
  }
  return acc / l;
}

TEST(ShardMapAttention, RingAttentionMatchesAttentionAndItsGradients) {
  Mesh mesh({{"seq", 4}});
  NamedSharding bySeq(mesh, P("seq")), replicated(mesh, P());
  const int64_t T = 16, D = 8;
  Array q = Array::device_put(wave(T * D, 1.0, 0.2), {T, D}, bySeq);
  Array k = Array::device_put(wave(T * D, 1.0, 1.4), {T, D}, bySeq);
  Array v = Array::device_put(wave(T * D, 1.0, 2.9), {T, D}, bySeq);
  Array r = Array::device_put(wave(T * D, 1.0, 0.5), {T, D}, bySeq);
  auto ring = [&](const Tensor &qq, const Tensor &kk, const Tensor &vv) {
    return shard_map(ringAttention, mesh, {P("seq"), P("seq"), P("seq")}, {P("seq")})(qq, kk, vv);
  };
  auto withGrads = [](auto fn) {
    return [fn](Tensor qq, Tensor kk, Tensor vv, Tensor rr) {
      auto loss = [&](const Tensor &a, const Tensor &b, const Tensor &c, const Tensor &weights) {
        Tensor o = fn(a, b, c);
        return std::make_tuple(sum(o * weights), o);
      };
      ValueAndGrad vg = value_and_grad(loss, {0, 1, 2})(qq, kk, vv, rr);
      return std::make_tuple(vg.aux[0], vg.grads[0].leaf(), vg.grads[1].leaf(),
                             vg.grads[2].leaf());
    };
  };
  JitOptions options{.name = "ring_attention", .inShardings = {bySeq, bySeq, bySeq, bySeq}};
  auto sharded = jit(withGrads(ring), options);
  options.name = "attention";
  auto plain = jit(withGrads(attention), options);
  auto [o1, dq1, dk1, dv1] = sharded(q, k, v, r);
  auto [o2, dq2, dk2, dv2] = plain(q, k, v, r);
  expectNear(o1.to_host<double>(), o2.to_host<double>(), 1e-13, "output");
  expectNear(dq1.to_host<double>(), dq2.to_host<double>(), 1e-12, "dq");
  expectNear(dk1.to_host<double>(), dk2.to_host<double>(), 1e-12, "dk");
  expectNear(dv1.to_host<double>(), dv2.to_host<double>(), 1e-12, "dv");
}

//===--- Errors ---===//

TEST(ShardMapErrors, NameWhatWasWrong) {
  Mesh mesh({{"x", 4}});
  NamedSharding rows(mesh, P("x"));
  Array a = Array::device_put(wave(8, 1.0), {8}, rows);
  auto run = [&](std::function<Tensor(const Tensor &)> body, PartitionSpec in, PartitionSpec out) {
    return errorOf([&] {
      jit([&](Tensor x) { return shard_map(body, mesh, {in}, {out})(x); },
          {.name = "bad", .inShardings = {rows}})(a);
    });
  };
  EXPECT_NE(run([](const Tensor &x) { return x; }, P("x"), P()).find(
                "result 0 differs between devices along [\"x\"], but its out sharding"),
            std::string::npos);
  EXPECT_NE(run([](const Tensor &x) { return psum(x, "y"); }, P("x"), P())
                .find("psum: mesh @mesh {\"x\": 4} has no axis 'y'"),
            std::string::npos);
  EXPECT_NE(run([](const Tensor &x) { return ppermute(x, "x", {{0, 1}, {2, 1}}); }, P("x"), P("x"))
                .find("position 1 is the target of two pairs"),
            std::string::npos);
  std::string outside = errorOf([&] {
    jit([](Tensor x) { return psum(x, "x"); }, {.name = "outside", .inShardings = {rows}})(a);
  });
  EXPECT_NE(outside.find("psum: called outside of a shard_map body"), std::string::npos)
      << outside;
  std::string tooFew = errorOf([&] {
    Mesh eight({{"x", 8}});
    jit([&](Tensor x) { return shard_map([](const Tensor &t) { return t; }, eight, {P("x")},
                                         {P("x")})(x); },
        {.name = "too_few"})(Array::from(wave(8, 1.0), {8}));
  });
  EXPECT_NE(tooFew.find("runs per-device code over mesh @mesh of 8 devices, which needs the "
                        "program partitioned over the mesh"),
            std::string::npos)
      << tooFew;
  std::string indivisible = errorOf([&] {
    Mesh three({{"x", 3}});
    jit([&](Tensor x) { return shard_map([](const Tensor &t) { return t; }, three, {P("x")},
                                         {P("x")})(x); },
        {.name = "indivisible"})(Array::from(wave(8, 1.0), {8}));
  });
  EXPECT_NE(indivisible.find("shard_map: argument 0 f64[8]"), std::string::npos) << indivisible;
}

} // namespace
