// Optimizers written in the DSL, applied inside a jitted train step (optax-like): SGD with
// momentum, AdamW, clipping by global norm, learning-rate schedules and an EMA of the
// parameters. State is a Tree of the parameters' structure; the step count is an input, so
// a schedule is evaluated on the device inside the step, and Schedule::at evaluates the same
// formula on the host for logging without enqueueing device work.
#ifndef LOOM_FRONTEND_OPTIM_OPTIM_H
#define LOOM_FRONTEND_OPTIM_OPTIM_H

#include "frontend/Array.h"
#include "frontend/Ops.h"
#include "frontend/Tree.h"

#include <functional>

namespace loom::optim {

// The traced functions take their caller's location: errors inside name the caller (see
// CallerScope.h).

/// A learning rate as a function of the step: on the device (a scalar tensor of the step)
/// and on the host.
struct Schedule {
  std::function<Tensor(const Tensor &step)> traced;
  std::function<double(int64_t step)> at;
};

Schedule constant(double value);
/// Linear warm-up from 0 to `peak` over `warmupSteps`, then cosine decay to `end` at
/// `totalSteps` (and `end` after).
Schedule warmupCosine(double peak, int64_t warmupSteps, int64_t totalSteps, double end = 0);

/// Zeros shaped like every leaf of `params` (on the host, then placed like them).
Tree<Array> zerosLike(const Tree<Array> &params);

/// min(1, maxNorm / the global L2 norm of `grads`): the factor clipByGlobalNorm scales by.
Tensor clipScale(const Tree<Tensor> &grads, double maxNorm, Loc loc = Loc::current());
/// Scales `grads` so their global L2 norm is at most `maxNorm`.
Tree<Tensor> clipByGlobalNorm(const Tree<Tensor> &grads, double maxNorm, Loc loc = Loc::current());
/// The global L2 norm of all leaves.
Tensor globalNorm(const Tree<Tensor> &tree, Loc loc = Loc::current());

struct SgdOptions {
  Schedule lr = constant(0.1);
  double momentum = 0.9;
};
/// State: {"velocity": like params}.
Tree<Array> sgdInit(const Tree<Array> &params);
/// Returns (new params, new state). `step` is the scalar f32 step count (0-based).
std::pair<Tree<Tensor>, Tree<Tensor>> sgdUpdate(const SgdOptions &options,
                                                const Tree<Tensor> &params,
                                                const Tree<Tensor> &grads,
                                                const Tree<Tensor> &state, const Tensor &step,
                                                Loc loc = Loc::current());

struct AdamWOptions {
  Schedule lr = constant(1e-3);
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  /// Decoupled weight decay (multiplied by the learning rate), as in AdamW.
  double weightDecay = 0.01;
  /// If positive, the gradients are first scaled so their global L2 norm is at most this.
  double clipNorm = 0;
};
/// State: {"m": like params, "v": like params}.
Tree<Array> adamwInit(const Tree<Array> &params);
std::pair<Tree<Tensor>, Tree<Tensor>> adamwUpdate(const AdamWOptions &options,
                                                  const Tree<Tensor> &params,
                                                  const Tree<Tensor> &grads,
                                                  const Tree<Tensor> &state,
                                                  const Tensor &step, Loc loc = Loc::current());

/// ema * decay + params * (1 - decay).
Tree<Tensor> emaUpdate(const Tree<Tensor> &ema, const Tree<Tensor> &params, double decay,
                       Loc loc = Loc::current());

} // namespace loom::optim

#endif // LOOM_FRONTEND_OPTIM_OPTIM_H
