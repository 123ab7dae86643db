// loom::jit: turns a C++ function on Tensors into a compiled, cached function on Arrays.
// The first call with a given signature (the arguments' tree structure, shapes and dtypes)
// traces the function into Loom IR and compiles it; later calls with that signature reuse
// the compiled code without tracing. Calls are asynchronous: they return Arrays at once.
#ifndef LOOM_FRONTEND_JIT_H
#define LOOM_FRONTEND_JIT_H

#include "frontend/Array.h"
#include "frontend/Sharding.h"
#include "frontend/Tensor.h"
#include "frontend/Tree.h"

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
  /// The device the function runs on: an index among this process's devices (in one
  /// process, the device id).
  int device = 0;
  /// Use the on-disk compilation cache.
  bool useCache = true;
  /// Let collectives run while the device computes (the loom-overlap-collectives pass); off,
  /// each collective is awaited right after it starts (for measuring what overlap buys).
  bool overlapCollectives = true;
  /// Gather each split parameter once per call and keep it whole for every later use (the
  /// loom-partition pass's keep-gathered): FSDP's backward then reuses the forward's gathered
  /// parameters instead of gathering them again, receiving about a third fewer bytes per step
  /// and holding the whole parameters from the forward to the backward (as PyTorch FSDP's
  /// reshard_after_forward=False). Off, each use gathers again, and memory stays at a shard.
  /// (Every reshard's result is reused so, not only a parameter's gather.)
  bool keepGathered = false;
  /// If not empty, the module after each compiler stage is written under this directory, in
  /// a folder named after the function: traced.mlir, partitioning/ and lowering/.
  std::string dumpIrDir;
  /// Positions of the arguments (each an Array or a whole Tree) the caller donates: their
  /// memory is reused for outputs of the same shape and dtype, so a train step updates
  /// parameters and optimizer state in place. A donated Array must not be used after the
  /// call (doing so raises an Error); use what the call returned.
  std::vector<int> donateArgnums;
  /// The sharding of each argument: a Tree of that argument's structure, or a prefix of it (a
  /// lone leaf applies to every leaf of the argument, as JAX's pytree prefixes). Empty: no
  /// sharding given; so is a default Tree or an unspecified NamedSharding. The traced `main`
  /// carries them as `loom.sharding` argument attributes.
  std::vector<Tree<NamedSharding>> inShardings;
  /// The sharding of each top-level output (each element of a returned tuple, pair or vector;
  /// else the one result), in the same form; `loom.sharding` result attributes.
  std::vector<Tree<NamedSharding>> outShardings;
};

/// Statistics of one jitted function, for tests and benchmarks.
struct JitStats {
  int traces = 0;        ///< how many signatures were traced
  int cacheHits = 0;     ///< compiles served by the on-disk cache
  double lastTraceSeconds = 0, lastCompileSeconds = 0;
  /// The last compile's split: MLIR pipeline, LLVM optimisation + codegen, loading.
  double lastLowerSeconds = 0, lastCodegenSeconds = 0, lastLoadSeconds = 0;
  /// The last compile's kernels, and how many of them came from the kernel cache (compiled
  /// before for another program: another depth, batch of the same shapes...).
  int lastKernels = 0, lastKernelsFromCache = 0;
};

/// What a compiled function holds in memory on each device it runs on (like JAX's
/// CompiledMemoryStats): the arguments, the outputs, and the peak of compiled code's
/// temporaries from the compiler's buffer plan. For a program partitioned over a mesh these
/// are one device's local shards.
struct CompiledMemoryStats {
  /// Per top-level argument (for a train step: parameters, optimizer state, batch...).
  std::vector<uint64_t> argumentBytes;
  /// Outputs with buffers of their own, and outputs written into donated arguments.
  uint64_t outputBytes = 0, aliasBytes = 0;
  /// The most bytes of temporaries the program holds at once, and how many buffers.
  uint64_t temporaryBytes = 0, temporaryBuffers = 0;
  /// "arguments [a, b, ...] bytes, outputs ..., aliased ..., temporaries ... (n buffers)".
  std::string toString() const;
};

namespace detail {

/// The structure of a jitted function's result (a tree whose leaves are placeholders).
using TreeDef = Tree<char>;

struct TracedOutputs {
  std::vector<Tensor> flat;
  TreeDef structure;
  /// Whether the function returned a tuple, pair or vector: its top-level outputs are then the
  /// items of `structure`.
  bool sequence = false;
};

/// The type-erased core of a jitted function.
class JitFunction {
public:
  using Traced = std::function<TracedOutputs(const std::vector<Tensor> &)>;
  explicit JitFunction(JitOptions options);
  ~JitFunction();

  /// The flattened arguments of one call: `leaves`, where argument k ends (`argumentEnds`),
  /// and the arguments' tree structure (as one string, and per argument: computed only when
  /// tracing, since every call builds a FlatArgs).
  struct FlatArgs {
    std::vector<Array> leaves;
    std::vector<size_t> argumentEnds;
    std::string structure;
    std::function<std::vector<TreeDef>()> trees;
  };

  /// Runs the function on `args`, tracing and compiling `fn` first for a new signature.
  /// Returns the flat outputs and their structure.
  std::pair<std::vector<Array>, const TreeDef *> call(const FlatArgs &args, const Traced &fn);
  /// The Loom IR traced for the signature of `args`: that of the compiled function if there
  /// is one, else a fresh trace (nothing is compiled).
  std::string ir(const FlatArgs &args, const Traced &fn);
  /// Compiles for the signature of `args` (if not done yet) and describes its memory.
  CompiledMemoryStats memoryAnalysis(const FlatArgs &args, const Traced &fn);
  const JitStats &stats() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// How one argument type of a jitted function is passed: Array -> Tensor, Tree<Array> ->
/// Tree<Tensor>.
template <typename A> struct Argument;
template <> struct Argument<Array> {
  using Traced = Tensor;
  static void flatten(const Array &a, std::vector<Array> &out) { out.push_back(a); }
  static void appendStructure(const Array &, std::string &out) { out += '*'; }
  static TreeDef tree(const Array &) { return TreeDef('*'); }
  static Tensor rebuild(const Array &, const std::vector<Tensor> &flat, size_t &next) {
    return flat[next++];
  }
};
template <> struct Argument<Tree<Array>> {
  using Traced = Tree<Tensor>;
  static void flatten(const Tree<Array> &t, std::vector<Array> &out) {
    t.visit([&](const Array &a) { out.push_back(a); });
  }
  static void appendStructure(const Tree<Array> &t, std::string &out) { t.appendStructure(out); }
  static TreeDef tree(const Tree<Array> &t) { return structureOf(t); }
  static Tree<Tensor> rebuild(const Tree<Array> &example, const std::vector<Tensor> &flat,
                              size_t &next) {
    size_t n = example.numLeaves();
    std::vector<Tensor> leaves(flat.begin() + next, flat.begin() + next + n);
    next += n;
    return example.unflattenLike(leaves);
  }
};

/// How a traced function's result maps to what a call returns: Tensor -> Array,
/// Tree<Tensor> -> Tree<Array>, tuples, pairs and vectors of those.
template <typename R> struct Results;
template <> struct Results<Tensor> {
  using Out = Array;
  static constexpr bool sequence = false;
  static void flatten(const Tensor &t, std::vector<Tensor> &out) { out.push_back(t); }
  static TreeDef describe(const Tensor &) { return TreeDef('*'); }
  static Out unflatten(const TreeDef &, const std::vector<Array> &a, size_t &next) {
    return a[next++];
  }
};
template <> struct Results<Tree<Tensor>> {
  using Out = Tree<Array>;
  static constexpr bool sequence = false;
  static void flatten(const Tree<Tensor> &t, std::vector<Tensor> &out) {
    t.visit([&](const Tensor &x) { out.push_back(x); });
  }
  static TreeDef describe(const Tree<Tensor> &t) {
    return t.unflattenLike(std::vector<char>(t.numLeaves(), '*'));
  }
  static Out unflatten(const TreeDef &def, const std::vector<Array> &a, size_t &next) {
    size_t n = def.numLeaves();
    std::vector<Array> leaves(a.begin() + next, a.begin() + next + n);
    next += n;
    return def.unflattenLike(leaves);
  }
};
template <typename T> struct Results<std::vector<T>> {
  using Out = std::vector<typename Results<T>::Out>;
  static constexpr bool sequence = true;
  static void flatten(const std::vector<T> &v, std::vector<Tensor> &out) {
    for (const T &x : v)
      Results<T>::flatten(x, out);
  }
  static TreeDef describe(const std::vector<T> &v) {
    std::vector<TreeDef> items;
    for (const T &x : v)
      items.push_back(Results<T>::describe(x));
    return TreeDef::list(std::move(items));
  }
  static Out unflatten(const TreeDef &def, const std::vector<Array> &a, size_t &next) {
    Out out;
    for (const TreeDef &item : def.list())
      out.push_back(Results<T>::unflatten(item, a, next));
    return out;
  }
};
template <typename... Ts> struct Results<std::tuple<Ts...>> {
  using Out = std::tuple<typename Results<Ts>::Out...>;
  static constexpr bool sequence = true;
  static void flatten(const std::tuple<Ts...> &t, std::vector<Tensor> &out) {
    std::apply([&](const auto &...x) { (Results<std::decay_t<decltype(x)>>::flatten(x, out), ...); },
               t);
  }
  static TreeDef describe(const std::tuple<Ts...> &t) {
    return std::apply(
        [](const auto &...x) {
          return TreeDef::list({Results<std::decay_t<decltype(x)>>::describe(x)...});
        },
        t);
  }
  static Out unflatten(const TreeDef &def, const std::vector<Array> &a, size_t &next) {
    return unflattenAt(def, a, next, std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static Out unflattenAt(const TreeDef &def, const std::vector<Array> &a, size_t &next,
                         std::index_sequence<I...>) {
    // Braced initialization evaluates left to right, keeping `next` in order.
    return Out{Results<Ts>::unflatten(def.at(I), a, next)...};
  }
};
template <typename A, typename B> struct Results<std::pair<A, B>> {
  using Out = std::pair<typename Results<A>::Out, typename Results<B>::Out>;
  static constexpr bool sequence = true;
  static void flatten(const std::pair<A, B> &p, std::vector<Tensor> &out) {
    Results<A>::flatten(p.first, out), Results<B>::flatten(p.second, out);
  }
  static TreeDef describe(const std::pair<A, B> &p) {
    return TreeDef::list({Results<A>::describe(p.first), Results<B>::describe(p.second)});
  }
  static Out unflatten(const TreeDef &def, const std::vector<Array> &a, size_t &next) {
    auto first = Results<A>::unflatten(def.at(0), a, next);
    return Out{first, Results<B>::unflatten(def.at(1), a, next)};
  }
};

} // namespace detail

/// A jitted function; call it with one Array or Tree<Array> per parameter of `F` (which
/// takes Tensor or Tree<Tensor> there).
template <typename F> class Jitted {
public:
  Jitted(F fn, JitOptions options)
      : fn(std::move(fn)), core(std::make_shared<detail::JitFunction>(std::move(options))) {}

  template <typename... Args> auto operator()(const Args &...args) {
    using R = std::decay_t<std::invoke_result_t<F &, typename detail::Argument<Args>::Traced...>>;
    auto [flat, structure] = core->call(flatten(args...), traced<R>(args...));
    size_t next = 0;
    return detail::Results<R>::unflatten(*structure, flat, next);
  }

  /// The Loom IR this function traces to for these arguments (traced, not compiled, unless a
  /// call with this signature compiled it already).
  template <typename... Args> std::string lower(const Args &...args) {
    using R = std::decay_t<std::invoke_result_t<F &, typename detail::Argument<Args>::Traced...>>;
    return core->ir(flatten(args...), traced<R>(args...));
  }

  /// Per device memory of the program compiled for these arguments (compiled now if needed;
  /// nothing runs).
  template <typename... Args> CompiledMemoryStats memory_analysis(const Args &...args) {
    using R = std::decay_t<std::invoke_result_t<F &, typename detail::Argument<Args>::Traced...>>;
    return core->memoryAnalysis(flatten(args...), traced<R>(args...));
  }

  const JitStats &stats() const { return core->stats(); }

private:
  template <typename... Args> static detail::JitFunction::FlatArgs flatten(const Args &...args) {
    detail::JitFunction::FlatArgs flat;
    ((detail::Argument<Args>::flatten(args, flat.leaves),
      flat.argumentEnds.push_back(flat.leaves.size()),
      detail::Argument<Args>::appendStructure(args, flat.structure), flat.structure += ';'),
     ...);
    flat.trees = [&args...] {
      return std::vector<detail::TreeDef>{detail::Argument<Args>::tree(args)...};
    };
    return flat;
  }
  /// The traced function: rebuilds the arguments' structure around the flat tensors.
  template <typename R, typename... Args> detail::JitFunction::Traced traced(const Args &...args) {
    return [this, &args...](const std::vector<Tensor> &flat) {
      [[maybe_unused]] size_t next = 0; // unused when the function takes no arguments
      // Braced initialization evaluates left to right, keeping `next` in order.
      std::tuple<typename detail::Argument<Args>::Traced...> rebuilt{
          detail::Argument<Args>::rebuild(args, flat, next)...};
      R result = std::apply(fn, rebuilt);
      detail::TracedOutputs out{{}, detail::Results<R>::describe(result),
                                detail::Results<R>::sequence};
      detail::Results<R>::flatten(result, out.flat);
      return out;
    };
  }

  F fn;
  std::shared_ptr<detail::JitFunction> core;
};

/// What the collectives of partitioned programs did on one virtual device since the process
/// started: for benchmarks (subtract two readings to get one step's share).
struct CollectiveStats {
  /// Collectives completed (shard_slice, a local copy, not counted).
  uint64_t collectives = 0;
  /// Bytes the device received from its peers (see rt::CollectiveStats for the accounting).
  uint64_t bytesReceived = 0;
  /// Seconds the device computed while its collectives were in flight (start to wait).
  double inFlightSeconds = 0;
  /// Seconds the device spent waiting for collectives (exposed communication).
  double waitSeconds = 0;
};
CollectiveStats collectiveStats(int device);

/// Compiles `fn` lazily per signature; see Jitted.
template <typename F> Jitted<F> jit(F fn, JitOptions options = {}) {
  return Jitted<F>(std::move(fn), std::move(options));
}

} // namespace loom

#endif // LOOM_FRONTEND_JIT_H
