// loom::jit: turns a C++ function on Tensors into a compiled, cached function on Arrays.
// The first call with a given signature (the arguments' shapes and dtypes) traces the
// function into Loom IR and compiles it; later calls with that signature reuse the compiled
// code without tracing. Calls are asynchronous: they return Arrays at once.
#ifndef LOOM_FRONTEND_JIT_H
#define LOOM_FRONTEND_JIT_H

#include "frontend/Array.h"
#include "frontend/Tensor.h"

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace loom {

struct JitOptions {
  /// Names the function in errors, IR dumps and profiles.
  std::string name = "jit";
  /// The device of the default client the function runs on.
  int device = 0;
  /// Use the on-disk compilation cache.
  bool useCache = true;
  /// If not empty, the module after each compiler stage is written under this directory.
  std::string dumpIrDir;
};

/// Statistics of one jitted function, for tests and benchmarks.
struct JitStats {
  int traces = 0;        ///< how many signatures were traced
  int cacheHits = 0;     ///< compiles served by the on-disk cache
  double lastTraceSeconds = 0, lastCompileSeconds = 0;
};

namespace detail {

/// The type-erased core of a jitted function.
class JitFunction {
public:
  using Traced = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;
  explicit JitFunction(JitOptions options);
  ~JitFunction();

  /// Runs the function on `args`, tracing and compiling `fn` first for a new signature.
  std::vector<Array> call(const std::vector<Array> &args, const Traced &fn);
  /// The Loom IR traced for the signature of `args` (tracing it if needed).
  std::string ir(const std::vector<Array> &args, const Traced &fn);
  const JitStats &stats() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

template <typename> using AsTensor = Tensor;

/// How a traced function's result maps to the arrays a call returns.
template <typename R> struct Results;
template <> struct Results<Tensor> {
  using Out = Array;
  static std::vector<Tensor> flatten(const Tensor &t) { return {t}; }
  static Out unflatten(std::vector<Array> &a) { return a[0]; }
};
template <> struct Results<std::vector<Tensor>> {
  using Out = std::vector<Array>;
  static std::vector<Tensor> flatten(const std::vector<Tensor> &t) { return t; }
  static Out unflatten(std::vector<Array> &a) { return a; }
};
template <typename... Ts> struct Results<std::tuple<Ts...>> {
  static_assert((std::is_same_v<Ts, Tensor> && ...), "a jitted tuple must hold Tensors");
  using Out = std::tuple<AsTensor<Ts>...>;
  static std::vector<Tensor> flatten(const std::tuple<Ts...> &t) {
    return std::apply([](const auto &...x) { return std::vector<Tensor>{x...}; }, t);
  }
  static auto unflatten(std::vector<Array> &a) {
    return unflattenImpl(a, std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static auto unflattenImpl(std::vector<Array> &a, std::index_sequence<I...>) {
    return std::make_tuple(a[I]...);
  }
};
template <typename A, typename B>
struct Results<std::pair<A, B>> : Results<std::tuple<A, B>> {
  static std::vector<Tensor> flatten(const std::pair<A, B> &p) { return {p.first, p.second}; }
};

} // namespace detail

/// A jitted function; call it with Arrays, one per parameter of `F`.
template <typename F> class Jitted {
public:
  Jitted(F fn, JitOptions options)
      : fn(std::move(fn)), core(std::make_shared<detail::JitFunction>(std::move(options))) {}

  template <typename... Args> auto operator()(const Args &...args) {
    static_assert((std::is_same_v<Args, Array> && ...), "jit arguments must be loom::Array");
    using R = std::decay_t<std::invoke_result_t<F &, detail::AsTensor<Args>...>>;
    std::vector<Array> outputs = core->call({args...}, traced<R, sizeof...(Args)>());
    return detail::Results<R>::unflatten(outputs);
  }

  /// The Loom IR this function traces to for these arguments.
  template <typename... Args> std::string lower(const Args &...args) {
    using R = std::decay_t<std::invoke_result_t<F &, detail::AsTensor<Args>...>>;
    return core->ir({args...}, traced<R, sizeof...(Args)>());
  }

  const JitStats &stats() const { return core->stats(); }

private:
  template <typename R, size_t N> detail::JitFunction::Traced traced() {
    return [this](const std::vector<Tensor> &ts) {
      return invoke<R>(ts, std::make_index_sequence<N>{});
    };
  }
  template <typename R, size_t... I>
  std::vector<Tensor> invoke(const std::vector<Tensor> &ts, std::index_sequence<I...>) {
    return detail::Results<R>::flatten(std::invoke(fn, ts[I]...));
  }

  F fn;
  std::shared_ptr<detail::JitFunction> core;
};

/// Compiles `fn` lazily per signature; see Jitted.
template <typename F> Jitted<F> jit(F fn, JitOptions options = {}) {
  return Jitted<F>(std::move(fn), std::move(options));
}

} // namespace loom

#endif // LOOM_FRONTEND_JIT_H
