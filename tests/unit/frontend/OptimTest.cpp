// Optimizer updates against a plain double-precision reference on the host: the step counter's
// dtype must not limit the precision of an update (an f32 counter with f64 parameters).
#include "frontend/Loom.h"
#include "tests/unit/frontend/ErrorOf.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loom;

namespace {

struct HostAdamW {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.01;
  /// One AdamW step at 0-based `step` on every element, in double.
  void update(std::vector<double> &p, std::vector<double> &m, std::vector<double> &v,
              const std::vector<double> &g, int64_t step) const {
    double t = static_cast<double>(step + 1);
    double c1 = 1 - std::pow(beta1, t), c2 = 1 - std::pow(beta2, t);
    for (size_t i = 0; i < p.size(); ++i) {
      m[i] = beta1 * m[i] + (1 - beta1) * g[i];
      v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
      double direction = (m[i] / c1) / (std::sqrt(v[i] / c2) + eps) + weightDecay * p[i];
      p[i] -= lr * direction; // AdamW as published; Loom folds c1 and c2 into scalars
    }
  }
};

TEST(Optim, AdamWWithF64ParametersAndAnF32StepIsExactInF64) {
  HostAdamW host;
  optim::AdamWOptions options{.lr = optim::constant(host.lr)};
  auto step = jit([&](Tensor p, Tensor m, Tensor v, Tensor g, Tensor t) {
    Tree<Tensor> params, grads, state, ms, vs;
    params["w"] = p, grads["w"] = g, ms["w"] = m, vs["w"] = v;
    state["m"] = ms, state["v"] = vs;
    auto [updated, next] = optim::adamwUpdate(options, params, grads, state, t);
    return std::make_tuple(updated.at("w").leaf(), next.at("m").at("w").leaf(),
                           next.at("v").at("w").leaf());
  });
  std::vector<double> p = {0.5, -1.25, 3.0, 1e-3}, m(4, 0.0), v(4, 0.0);
  std::vector<double> g = {0.1, -0.2, 1e-4, 7.0};
  Array pa = Array::from(p, {4}), ma = Array::from(m, {4}), va = Array::from(v, {4});
  Array ga = Array::from(g, {4});
  // Late steps, where 0.999^t rounded in f32 is off by about 1e-7 relative.
  for (int64_t s : {0, 1, 12345, 999999}) {
    auto [np, nm, nv] = step(pa, ma, va, ga, Array::scalar(static_cast<float>(s)));
    host.update(p, m, v, g, s);
    pa = np, ma = nm, va = nv;
    std::vector<double> got = pa.to_host<double>();
    for (size_t i = 0; i < p.size(); ++i)
      EXPECT_NEAR(got[i], p[i], 1e-15 * std::fabs(p[i]) + 1e-18) << "step " << s << " element " << i;
  }
}

TEST(Optim, SgdWithF64ParametersAndAnF32StepIsExactInF64) {
  const double lr = 0.1 / 3; // not exact in f32
  optim::SgdOptions options{.lr = optim::constant(lr), .momentum = 0.9};
  auto step = jit([&](Tensor p, Tensor vel, Tensor g, Tensor t) {
    Tree<Tensor> params, grads, state, velocity;
    params["w"] = p, grads["w"] = g, velocity["w"] = vel;
    state["velocity"] = velocity;
    auto [updated, next] = optim::sgdUpdate(options, params, grads, state, t);
    return std::make_tuple(updated.at("w").leaf(), next.at("velocity").at("w").leaf());
  });
  std::vector<double> p = {1.0, -2.0}, vel = {0.0, 0.0}, g = {0.3, -0.7};
  Array pa = Array::from(p, {2}), va = Array::from(vel, {2}), ga = Array::from(g, {2});
  for (int s = 0; s < 3; ++s) {
    auto [np, nv] = step(pa, va, ga, Array::scalar(static_cast<float>(s)));
    for (size_t i = 0; i < p.size(); ++i) {
      vel[i] = vel[i] * 0.9 + g[i];
      p[i] -= lr * vel[i];
    }
    pa = np, va = nv;
    std::vector<double> got = pa.to_host<double>();
    for (size_t i = 0; i < p.size(); ++i)
      EXPECT_NEAR(got[i], p[i], 1e-15 * std::fabs(p[i])) << "step " << s << " element " << i;
  }
}

} // namespace

namespace {

TEST(Optim, AdamWClipsGradientsByTheirGlobalNorm) {
  // AdamW is nearly scale-invariant; a large epsilon makes the update show the clipping.
  HostAdamW host;
  host.eps = 1.0;
  optim::AdamWOptions options{.lr = optim::constant(host.lr), .eps = 1.0, .clipNorm = 0.5};
  auto step = jit([&](Tensor p, Tensor q, Tensor gp, Tensor gq, Tensor t) {
    Tree<Tensor> params, grads, state, ms, vs;
    params["p"] = p, params["q"] = q, grads["p"] = gp, grads["q"] = gq;
    ms["p"] = p * 0.0, ms["q"] = q * 0.0, vs["p"] = p * 0.0, vs["q"] = q * 0.0;
    state["m"] = ms, state["v"] = vs;
    auto [updated, next] = optim::adamwUpdate(options, params, grads, state, t);
    return std::make_tuple(updated.at("p").leaf(), updated.at("q").leaf());
  });
  // Global norm 5 over both leaves: every gradient is scaled by 0.5 / 5.
  std::vector<double> p = {1.0, -2.0}, q = {0.5}, gp = {3.0, 0.0}, gq = {4.0};
  auto [np, nq] = step(Array::from(p, {2}), Array::from(q, {1}), Array::from(gp, {2}),
                       Array::from(gq, {1}), Array::scalar(0.0f));
  std::vector<double> m(2, 0.0), v(2, 0.0), m1(1, 0.0), v1(1, 0.0);
  std::vector<double> sp = {gp[0] * 0.1, gp[1] * 0.1}, sq = {gq[0] * 0.1};
  host.update(p, m, v, sp, 0);
  host.update(q, m1, v1, sq, 0);
  std::vector<double> gotP = np.to_host<double>(), gotQ = nq.to_host<double>();
  for (size_t i = 0; i < p.size(); ++i)
    EXPECT_NEAR(gotP[i], p[i], 1e-12 * std::fabs(p[i]) + 1e-15) << i;
  EXPECT_NEAR(gotQ[0], q[0], 1e-12 * std::fabs(q[0]));
}

// A beta of 1 would make a bias correction zero and every update inf or nan: refused by name.
TEST(Optim, AdamWRefusesABetaOfOneOrANegativeEps) {
  auto update = [](optim::AdamWOptions options) {
    return errorOf([&] {
      jit([&](Tensor p, Tensor t) {
        Tree<Tensor> params, grads, state, zeros;
        params["p"] = p, grads["p"] = p, zeros["p"] = p * 0.0;
        state["m"] = zeros, state["v"] = zeros;
        return optim::adamwUpdate(options, params, grads, state, t).first.at("p").leaf();
      })(Array::from(std::vector<float>{1, 2}, {2}), Array::scalar(0.0f));
    });
  };
  EXPECT_NE(update({.beta1 = 1.0}).find("adamwUpdate: beta1 must be in [0, 1), got 1"),
            std::string::npos);
  EXPECT_NE(update({.beta2 = 1.5}).find("adamwUpdate: beta2 must be in [0, 1), got 1.5"),
            std::string::npos);
  EXPECT_NE(update({.eps = -1}).find("adamwUpdate: eps must be at least 0, got -1"),
            std::string::npos);
}

} // namespace
