// Implementation of the optimizers and schedules (see Optim.h).
#include "frontend/optim/Optim.h"
#include "runtime/Client.h"

#include "frontend/CallerScope.h"
#include "frontend/Error.h"
#include "runtime/Device.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>
#include <optional>

using namespace loom;
using namespace loom::optim;

namespace {
/// The tree of each leaf's `i`-th part, from a tree whose leaves are parts (an update's new
/// parameter and state).
template <size_t N> Tree<Tensor> part(const Tree<std::array<Tensor, N>> &parts, size_t i) {
  return tree_map([i](const std::array<Tensor, N> &leaf) { return leaf[i]; }, parts);
}
} // namespace

Schedule optim::constant(double value) {
  return {[value](const Tensor &step) { return scalar_like(step, value); },
          [value](int64_t) { return value; }};
}

Schedule optim::warmupCosine(double peak, int64_t warmupSteps, int64_t totalSteps, double end) {
  const double pi = 3.14159265358979323846;
  auto host = [=](int64_t step) {
    if (step < warmupSteps)
      return peak * static_cast<double>(step) / std::max<int64_t>(warmupSteps, 1);
    double t = std::min(1.0, static_cast<double>(step - warmupSteps) /
                                 std::max<int64_t>(totalSteps - warmupSteps, 1));
    return end + (peak - end) * 0.5 * (1 + std::cos(pi * t));
  };
  auto traced = [=](const Tensor &step) {
    Tensor warm = step * (peak / std::max<int64_t>(warmupSteps, 1));
    Tensor t = minimum((step - static_cast<double>(warmupSteps)) *
                           (1.0 / std::max<int64_t>(totalSteps - warmupSteps, 1)),
                       scalar_like(step, 1.0));
    Tensor decay = end + (peak - end) * 0.5 * (1.0 + cos(t * pi));
    return where(less(step, scalar_like(step, static_cast<double>(warmupSteps))), warm, decay);
  };
  return {traced, host};
}

Tree<Array> optim::zerosLike(const Tree<Array> &params) {
  return tree_map(
      [](const Array &p) {
        // Laid out like the parameter: on its device, or split as it is.
        std::vector<uint8_t> zeros(p.numElements() * rt::byteSize(p.dtype()), 0);
        if (p.isSharded())
          return Array::device_put(zeros.data(), zeros.size(), p.shape(), p.dtype(), p.sharding());
        return Array::fromBytes(zeros.data(), zeros.size(), p.shape(), p.dtype(),
                                p.buffer()->device().id() -
                                    rt::Client::defaultClient().firstLocalDevice());
      },
      params);
}

Tensor optim::globalNorm(const Tree<Tensor> &tree, Loc loc) {
  CallerScope scope("optim::globalNorm", loc);
  std::vector<Tensor> leaves = tree.flatten();
  Tensor total = sum(leaves.at(0) * leaves.at(0));
  for (size_t i = 1; i < leaves.size(); ++i)
    total = total + sum(leaves[i] * leaves[i]);
  return sqrt(total);
}

Tensor optim::clipScale(const Tree<Tensor> &grads, double maxNorm, Loc loc) {
  CallerScope scope("optim::clipScale", loc);
  Tensor norm = globalNorm(grads);
  // scale = min(1, maxNorm / norm); the epsilon keeps a zero gradient finite.
  return minimum(scalar_like(norm, 1.0), maxNorm / (norm + 1e-12));
}

Tree<Tensor> optim::clipByGlobalNorm(const Tree<Tensor> &grads, double maxNorm, Loc loc) {
  CallerScope scope("optim::clipByGlobalNorm", loc);
  Tensor scale = clipScale(grads, maxNorm);
  return tree_map([&](const Tensor &g) { return g * astype(scale, g.dtype()); }, grads);
}

Tree<Array> optim::sgdInit(const Tree<Array> &params) {
  Tree<Array> state;
  state["velocity"] = zerosLike(params);
  return state;
}

std::pair<Tree<Tensor>, Tree<Tensor>>
optim::sgdUpdate(const SgdOptions &options, const Tree<Tensor> &params, const Tree<Tensor> &grads,
                 const Tree<Tensor> &state, const Tensor &step, Loc loc) {
  CallerScope scope("optim::sgdUpdate", loc);
  // The learning rate in the parameters' precision (see adamwUpdate).
  std::map<DType, Tensor> lrs;
  auto lrFor = [&](DType paramType) {
    DType d = paramType == DType::F64 ? DType::F64 : DType::F32;
    auto it = lrs.find(d);
    return it != lrs.end() ? it->second
                           : lrs.emplace(d, options.lr.traced(astype(step, d))).first->second;
  };
  for (const Tensor &p : params.flatten()) // the rates first, not inside the first leaf's update
    lrFor(p.dtype());
  // Leaf by leaf, each leaf's whole update together: one fused loop per leaf, and a layer's
  // update one repeated block of the step.
  auto both = tree_map(
      [&](const Tensor &p, const Tensor &v, const Tensor &g) {
        Tensor velocity = v * options.momentum + g;
        return std::array<Tensor, 2>{p - astype(lrFor(p.dtype()), p.dtype()) * velocity, velocity};
      },
      params, state.at("velocity"), grads);
  Tree<Tensor> newState;
  newState["velocity"] = part(both, 1);
  return {part(both, 0), newState};
}

Tree<Array> optim::adamwInit(const Tree<Array> &params) {
  Tree<Array> state;
  state["m"] = zerosLike(params);
  state["v"] = zerosLike(params);
  return state;
}

std::pair<Tree<Tensor>, Tree<Tensor>>
optim::adamwUpdate(const AdamWOptions &o, const Tree<Tensor> &params, const Tree<Tensor> &grads,
                   const Tree<Tensor> &state, const Tensor &step, Loc loc) {
  CallerScope scope("optim::adamwUpdate", loc);
  // A beta of 1 makes a bias correction 1 - beta^t zero: every update would be inf or nan.
  for (auto [name, beta] :
       {std::pair<const char *, double>{"beta1", o.beta1}, {"beta2", o.beta2}})
    if (!(beta >= 0 && beta < 1))
      fail(loc, "adamwUpdate",
           fmt::format("{} must be in [0, 1), got {}", name, beta));
  if (!(o.eps >= 0))
    fail(loc, "adamwUpdate", fmt::format("eps must be at least 0, got {}", o.eps));
  // The step size, decay and bias corrections are computed in the parameters' precision (at
  // least f32), whatever the step counter's dtype: an f32 counter must not round an f64
  // update. One set per precision. The update is PyTorch's: per element one square root and
  // one division (the bias corrections are folded into scalars), where dividing m and v by
  // their corrections first took three divisions, which bounded the update's loop.
  struct Scalars {
    Tensor decay, stepSize, rsqrtCorrection2;
  };
  std::map<DType, Scalars> scalars;
  auto scalarsFor = [&](DType paramType) -> const Scalars & {
    DType d = paramType == DType::F64 ? DType::F64 : DType::F32;
    auto it = scalars.find(d);
    if (it != scalars.end())
      return it->second;
    Tensor s = astype(step, d);
    Tensor t = s + 1.0; // bias correction counts from 1
    Tensor lr = o.lr.traced(s);
    Tensor correction1 = 1.0 - pow(scalar_like(t, o.beta1), t),
           correction2 = 1.0 - pow(scalar_like(t, o.beta2), t);
    Scalars computed{1.0 - lr * o.weightDecay, lr / correction1, rsqrt(correction2)};
    return scalars.emplace(d, computed).first->second;
  };
  std::optional<Tensor> clip;
  if (o.clipNorm > 0)
    clip = clipScale(grads, o.clipNorm);
  for (const Tensor &p : params.flatten()) // the scalars first, not inside the first leaf's update
    scalarsFor(p.dtype());
  // Leaf by leaf, each leaf's whole update together (clipping, both moments, the step): one
  // fused loop per leaf, where an update per quantity read each gradient and moment twice, and
  // a layer's update is one repeated block of the step.
  auto all = tree_map(
      [&](const Tensor &p, const Tensor &m0, const Tensor &v0, const Tensor &g0) {
        Tensor g = clip ? g0 * astype(*clip, g0.dtype()) : g0;
        Tensor m = m0 * o.beta1 + g * (1 - o.beta1);
        Tensor v = v0 * o.beta2 + g * g * (1 - o.beta2);
        // p (1 - lr wd) - lr / c1 * m / (sqrt(v / c2) + eps), with sqrt(v / c2) = sqrt(v) /
        // sqrt(c2).
        DType d = p.dtype();
        const Scalars &c = scalarsFor(d);
        Tensor denominator = sqrt(v) * astype(c.rsqrtCorrection2, d) + o.eps;
        return std::array<Tensor, 3>{
            p * astype(c.decay, d) - astype(c.stepSize, d) * (m / denominator), m, v};
      },
      params, state.at("m"), state.at("v"), grads);
  Tree<Tensor> newState;
  newState["m"] = part(all, 1);
  newState["v"] = part(all, 2);
  return {part(all, 0), newState};
}

Tree<Tensor> optim::emaUpdate(const Tree<Tensor> &ema, const Tree<Tensor> &params, double decay,
                              Loc loc) {
  CallerScope scope("optim::emaUpdate", loc);
  return tree_map([&](const Tensor &e, const Tensor &p) { return e * decay + p * (1 - decay); },
                  ema, params);
}
