// Differentiation in the DSL: value_and_grad and grad, usable inside jitted functions. They
// trace the function into its own Loom function and emit loom.value_and_grad; the gradient
// itself is built by the compiler (the loom-autodiff pass), so loom-opt shows it.
#ifndef LOOM_FRONTEND_GRAD_H
#define LOOM_FRONTEND_GRAD_H

#include "frontend/Jit.h"
#include "frontend/Tensor.h"

#include <functional>
#include <source_location>
#include <vector>

namespace loom {

/// What value_and_grad returns: the differentiated value (a scalar), the function's further
/// (auxiliary) outputs, and one gradient per differentiated argument.
struct ValueAndGrad {
  Tensor value;
  std::vector<Tensor> aux;
  std::vector<Tensor> grads;
};

namespace detail {
using TensorFunction = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;
ValueAndGrad valueAndGrad(const TensorFunction &fn, const std::vector<Tensor> &args,
                          const std::vector<int64_t> &argnums, const std::source_location &loc);

/// Calls `fn` with the tensors `ts` as separate arguments and flattens its result.
template <typename F, size_t... I>
std::vector<Tensor> callWith(F &fn, const std::vector<Tensor> &ts, std::index_sequence<I...>) {
  using R = std::decay_t<decltype(fn(ts[I]...))>;
  std::vector<Tensor> out;
  Results<R>::flatten(fn(ts[I]...), out);
  return out;
}
} // namespace detail

/// `value_and_grad(f, {0, 2})(a, b, c)` returns f(a, b, c) and its gradients with respect to
/// a and c. f returns a scalar float Tensor, or a tuple / vector whose first element is
/// one (the rest are auxiliary outputs, not differentiated).
template <typename F>
auto value_and_grad(F fn, std::vector<int64_t> argnums = {0},
                    std::source_location loc = std::source_location::current()) {
  return [fn = std::move(fn), argnums = std::move(argnums), loc](const auto &...args) {
    static_assert((std::is_same_v<std::decay_t<decltype(args)>, Tensor> && ...),
                  "value_and_grad functions take Tensors");
    detail::TensorFunction traced = [&fn](const std::vector<Tensor> &ts) {
      return detail::callWith(fn, ts, std::make_index_sequence<sizeof...(args)>{});
    };
    return detail::valueAndGrad(traced, {args...}, argnums, loc);
  };
}

/// The gradient of a scalar function with respect to argument `argnum`.
template <typename F>
auto grad(F fn, int64_t argnum = 0, std::source_location loc = std::source_location::current()) {
  return [inner = value_and_grad(std::move(fn), {argnum}, loc)](const auto &...args) {
    return inner(args...).grads[0];
  };
}

} // namespace loom

#endif // LOOM_FRONTEND_GRAD_H
