// Differentiation in the DSL: value_and_grad and grad, usable inside jitted functions, on
// Tensor and Tree<Tensor> arguments. They trace the function into its own Loom function and
// emit loom.value_and_grad; the gradient itself is built by the compiler (the loom-autodiff
// pass), so loom-opt shows it.
#ifndef LOOM_FRONTEND_GRAD_H
#define LOOM_FRONTEND_GRAD_H

#include "frontend/Jit.h"
#include "frontend/Tensor.h"
#include "frontend/Tree.h"

#include <algorithm>
#include <functional>
#include <map>
#include <source_location>
#include <vector>

namespace loom {

/// What value_and_grad returns: the differentiated value (a scalar), the function's further
/// (auxiliary) outputs, and one gradient per differentiated argument, shaped like it (a leaf
/// for a Tensor argument).
struct ValueAndGrad {
  Tensor value;
  std::vector<Tensor> aux;
  std::vector<Tree<Tensor>> grads;
};

namespace detail {
using TensorFunction = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;

/// Differentiates `fn` at `args` with respect to the flat arguments `wrt`: returns the value,
/// the aux outputs and the gradients (in `wrt` order) in `grads`.
ValueAndGrad valueAndGrad(const TensorFunction &fn, const std::vector<Tensor> &args,
                          const std::vector<int64_t> &wrt, const std::source_location &loc);

/// Flattening of a differentiable argument: a Tensor or a Tree<Tensor>.
inline void flattenArg(const Tensor &t, std::vector<Tensor> &out) { out.push_back(t); }
inline void flattenArg(const Tree<Tensor> &t, std::vector<Tensor> &out) {
  t.visit([&](const Tensor &x) { out.push_back(x); });
}
inline Tensor rebuildArg(const Tensor &, const std::vector<Tensor> &flat, size_t &next) {
  return flat[next++];
}
inline Tree<Tensor> rebuildArg(const Tree<Tensor> &example, const std::vector<Tensor> &flat,
                               size_t &next) {
  size_t n = example.numLeaves();
  std::vector<Tensor> leaves(flat.begin() + next, flat.begin() + next + n);
  next += n;
  return example.unflattenLike(leaves);
}

template <typename F, typename... Args>
ValueAndGrad valueAndGradOf(const F &fn, const std::vector<int64_t> &argnums,
                            const std::source_location &loc, const Args &...args) {
  std::vector<Tensor> flat;
  std::vector<size_t> begins;
  ((begins.push_back(flat.size()), flattenArg(args, flat)), ...);
  begins.push_back(flat.size());
  TensorFunction traced = [&](const std::vector<Tensor> &ts) {
    size_t next = 0;
    // Braced initialization evaluates left to right, keeping `next` in order.
    std::tuple<std::decay_t<Args>...> rebuilt{rebuildArg(args, ts, next)...};
    using R = std::decay_t<decltype(std::apply(fn, rebuilt))>;
    std::vector<Tensor> out;
    Results<R>::flatten(std::apply(fn, rebuilt), out);
    return out;
  };
  // Differentiate with respect to the arguments in increasing order, then hand the
  // gradients back in the order the caller listed them.
  std::vector<int64_t> sorted = argnums;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw Error("value_and_grad: argnums must be distinct");
  std::vector<int64_t> wrt;
  for (int64_t a : sorted) {
    if (a < 0 || a >= static_cast<int64_t>(sizeof...(Args)))
      throw Error("value_and_grad: argnum " + std::to_string(a) + " is out of range for " +
                  std::to_string(sizeof...(Args)) + " arguments");
    for (size_t i = begins[a]; i < begins[a + 1]; ++i)
      wrt.push_back(static_cast<int64_t>(i));
  }
  ValueAndGrad flatResult = valueAndGrad(traced, flat, wrt, loc);
  std::vector<Tree<Tensor>> shapes;
  (shapes.push_back(Tree<Tensor>(args)), ...);
  std::map<int64_t, Tree<Tensor>> byArgument;
  size_t next = 0;
  for (int64_t a : sorted) {
    std::vector<Tensor> leaves;
    for (size_t i = begins[a]; i < begins[a + 1]; ++i)
      leaves.push_back(flatResult.grads[next++].leaf());
    byArgument[a] = shapes[a].unflattenLike(leaves);
  }
  ValueAndGrad result{flatResult.value, flatResult.aux, {}};
  for (int64_t a : argnums)
    result.grads.push_back(byArgument[a]);
  return result;
}
/// While it lives, the ops traced in the current function form one rematerialization group
/// (marked `loom.remat`); see remat.
class RematScope {
public:
  explicit RematScope(const std::source_location &loc);
  ~RematScope();
  RematScope(const RematScope &) = delete;
  RematScope &operator=(const RematScope &) = delete;

private:
  void *trace;          // the Trace
  void *block;          // the mlir::Block ops are traced into
  void *last = nullptr; // the mlir::Operation before the group's first, if any
  int64_t group;
};
} // namespace detail

/// `remat(f)(args...)` is f(args...) whose intermediate values a gradient recomputes from
/// f's inputs instead of keeping them from the forward to the backward (jax.checkpoint;
/// activation checkpointing): the backward of a model whose layers each go through remat
/// keeps the layers' inputs and outputs, and runs each layer's forward again just before its
/// backward. The values are the same; without a gradient it changes nothing.
template <typename F>
auto remat(F fn, std::source_location loc = std::source_location::current()) {
  return [fn = std::move(fn), loc](auto &&...args) {
    detail::RematScope scope(loc);
    return fn(std::forward<decltype(args)>(args)...);
  };
}

/// `value_and_grad(f, {0, 2})(a, b, c)` returns f(a, b, c) and its gradients with respect to
/// a and c (each a Tensor or a Tree<Tensor>). f returns a scalar float Tensor, or a tuple /
/// vector whose first element is one (the rest are auxiliary outputs, not differentiated).
template <typename F>
auto value_and_grad(F fn, std::vector<int64_t> argnums = {0},
                    std::source_location loc = std::source_location::current()) {
  return [fn = std::move(fn), argnums = std::move(argnums), loc](const auto &...args) {
    return detail::valueAndGradOf(fn, argnums, loc, args...);
  };
}

/// The gradient of a scalar function with respect to argument `argnum`: a Tensor when all
/// arguments are Tensors, else a Tree<Tensor>.
template <typename F>
auto grad(F fn, int64_t argnum = 0, std::source_location loc = std::source_location::current()) {
  return [fn = std::move(fn), argnum, loc](const auto &...args) {
    Tree<Tensor> g = detail::valueAndGradOf(fn, {argnum}, loc, args...).grads[0];
    if constexpr ((std::is_same_v<std::decay_t<decltype(args)>, Tensor> && ...))
      return g.leaf();
    else
      return g;
  };
}

} // namespace loom

#endif // LOOM_FRONTEND_GRAD_H
