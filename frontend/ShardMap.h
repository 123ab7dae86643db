// Per-device code in the DSL, as JAX's shard_map: `shard_map(fn, mesh, inSpecs, outSpecs)`
// runs `fn` on every device of the mesh, on that device's shards of the arguments, and
// assembles the results from each device's shards. Inside, `fn` may call the collectives
// below over the mesh's axes. It composes with jit's automatic sharding (code before and
// after is partitioned as usual) and with value_and_grad (both inside and around it).
#ifndef LOOM_FRONTEND_SHARDMAP_H
#define LOOM_FRONTEND_SHARDMAP_H

#include "frontend/Grad.h"
#include "frontend/Sharding.h"

#include <optional>
#include <source_location>
#include <tuple>
#include <utility>
#include <vector>

namespace loom {

//===--- Collectives (inside a shard_map body) ---===//
// `axes` names the mesh axes the collective runs over (their devices form a group; several
// axes: major first). Each is an Error outside a shard_map body.

/// The sum over the group; every device gets it.
Tensor psum(const Tensor &x, const MeshAxes &axes,
            std::source_location loc = std::source_location::current());
/// The mean over the group.
Tensor pmean(const Tensor &x, const MeshAxes &axes,
             std::source_location loc = std::source_location::current());
/// The elementwise max over the group.
Tensor pmax(const Tensor &x, const MeshAxes &axes,
            std::source_location loc = std::source_location::current());
/// The group's tensors concatenated along `dim`, in group order (JAX's tiled all_gather).
Tensor all_gather(const Tensor &x, const MeshAxes &axes, int64_t dim = 0,
                  std::source_location loc = std::source_location::current());
/// The sum over the group, of which each device keeps its piece of `dim` (a tiled
/// psum_scatter).
Tensor psum_scatter(const Tensor &x, const MeshAxes &axes, int64_t dim = 0,
                    std::source_location loc = std::source_location::current());
/// Cuts `splitDim` into group-size pieces, sends piece i to device i of the group, and
/// concatenates what arrives along `concatDim` (which may be `splitDim`: the pieces of that
/// dim change places and its size stays).
Tensor all_to_all(const Tensor &x, const MeshAxes &axes, int64_t splitDim, int64_t concatDim,
                  std::source_location loc = std::source_location::current());
/// Sends each device's `x` along (source, target) pairs of group positions; a device no
/// pair targets gets zeros. `ppermute(x, "seq", {{0, 1}, {1, 2}, {2, 3}, {3, 0}})` is a ring.
Tensor ppermute(const Tensor &x, const MeshAxes &axes,
                const std::vector<std::pair<int64_t, int64_t>> &pairs,
                std::source_location loc = std::source_location::current());
/// This device's position in the group of `axes` (an i32 scalar).
Tensor axis_index(const MeshAxes &axes,
                  std::source_location loc = std::source_location::current());

namespace detail {
/// Traces `fn` on local shards and emits the loom.shard_map; `inSpecs` has one spec per flat
/// argument, `outSpecs` one per flat result or a single one for all.
std::vector<Tensor> shardMap(const TensorFunction &fn, const Mesh &mesh,
                             const std::vector<Tensor> &args,
                             const std::vector<PartitionSpec> &inSpecs,
                             const std::vector<PartitionSpec> &outSpecs,
                             const std::source_location &loc);

/// A result of the shape of `like` from flat tensors (for what the body returns).
inline Tensor rebuildResult(const Tensor &, const std::vector<Tensor> &flat, size_t &next) {
  return flat[next++];
}
inline Tree<Tensor> rebuildResult(const Tree<Tensor> &like, const std::vector<Tensor> &flat,
                                  size_t &next) {
  return rebuildArg(like, flat, next);
}
template <typename T>
std::vector<T> rebuildResult(const std::vector<T> &like, const std::vector<Tensor> &flat,
                             size_t &next) {
  std::vector<T> out;
  for (const T &item : like)
    out.push_back(rebuildResult(item, flat, next));
  return out;
}
template <typename... Ts>
std::tuple<Ts...> rebuildResult(const std::tuple<Ts...> &like, const std::vector<Tensor> &flat,
                                size_t &next) {
  return std::apply(
      [&](const auto &...items) { return std::tuple<Ts...>{rebuildResult(items, flat, next)...}; },
      like);
}
} // namespace detail

/// `shard_map(fn, mesh, {P("data"), P()}, {P()})(x, w)` runs `fn` on each device with its
/// shard of `x` (split over "data" on dim 0) and all of `w`, and returns what `fn` returns
/// (a Tensor, a Tree<Tensor>, or a tuple / vector of them), assembled from the devices'
/// shards by `outSpecs`: P() means every device returns the same value (an Error otherwise:
/// reduce it with psum or pmean first). `inSpecs` has one spec per argument (a Tree
/// argument's leaves share it); `outSpecs` one per flat result, or one for all.
template <typename F>
auto shard_map(F fn, Mesh mesh, std::vector<PartitionSpec> inSpecs,
               std::vector<PartitionSpec> outSpecs,
               std::source_location loc = std::source_location::current()) {
  return [fn = std::move(fn), mesh = std::move(mesh), inSpecs = std::move(inSpecs),
          outSpecs = std::move(outSpecs), loc](const auto &...args) {
    using R = std::decay_t<decltype(fn(args...))>;
    if (inSpecs.size() != sizeof...(args))
      fail(loc, "shard_map",
           std::to_string(inSpecs.size()) + " in specs for " + std::to_string(sizeof...(args)) +
               " arguments");
    std::vector<Tensor> flat;
    std::vector<PartitionSpec> flatSpecs;
    size_t a = 0;
    auto add = [&](const auto &arg) {
      size_t before = flat.size();
      detail::flattenArg(arg, flat);
      flatSpecs.insert(flatSpecs.end(), flat.size() - before, inSpecs[a++]);
    };
    (add(args), ...);
    std::optional<R> like; // the body's result, kept for its structure
    detail::TensorFunction traced = [&](const std::vector<Tensor> &ts) {
      size_t next = 0;
      std::tuple<std::decay_t<decltype(args)>...> rebuilt{detail::rebuildArg(args, ts, next)...};
      like.emplace(std::apply(fn, rebuilt));
      std::vector<Tensor> out;
      detail::Results<R>::flatten(*like, out);
      return out;
    };
    std::vector<Tensor> results = detail::shardMap(traced, mesh, flat, flatSpecs, outSpecs, loc);
    size_t next = 0;
    return detail::rebuildResult(*like, results, next);
  };
}

} // namespace loom

#endif // LOOM_FRONTEND_SHARDMAP_H
