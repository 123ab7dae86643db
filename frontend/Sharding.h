// Sharding in the DSL, as in JAX: a Mesh of devices with named axes, a PartitionSpec saying
// which mesh axes split each tensor dim, and a NamedSharding pairing the two. They annotate
// jit inputs and outputs (JitOptions::inShardings/outShardings) and values inside a traced
// function (with_sharding_constraint); the compiler propagates them to every other value.
#ifndef LOOM_FRONTEND_SHARDING_H
#define LOOM_FRONTEND_SHARDING_H

#include "frontend/Tensor.h"
#include "frontend/Tree.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom {

/// An n-d arrangement of devices with named, ordered axes, e.g. {"data": 2, "model": 4};
/// `name` is its symbol in the IR (`loom.mesh @mesh ...`).
class Mesh {
public:
  /// `Mesh({{"data", 2}, {"model", 4}})`. Throws Error for no axes, an empty or repeated
  /// axis name, or a size below 1.
  Mesh(std::vector<std::pair<std::string, int64_t>> axes, std::string name = "mesh",
       std::source_location loc = std::source_location::current());

  const std::string &name() const { return symbol; }
  const std::vector<std::string> &axisNames() const { return names; }
  const std::vector<int64_t> &shape() const { return sizes; }
  bool hasAxis(std::string_view axis) const;
  /// The size of `axis`; an Error if the mesh has no such axis.
  int64_t axisSize(std::string_view axis) const;
  /// The product of the axis sizes.
  int64_t numDevices() const;
  /// `@mesh {"data": 2, "model": 4}`.
  std::string describe() const;

  bool operator==(const Mesh &other) const = default;

private:
  std::string symbol;
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
};

/// The mesh axes one tensor dim is split over (major first): none (`None` or `{}`), one
/// (`"data"`) or several (`{"data", "model"}`).
struct MeshAxes {
  MeshAxes() = default;
  MeshAxes(std::nullopt_t) {}
  MeshAxes(const char *axis) : axes{axis} {}
  MeshAxes(std::string axis) : axes{std::move(axis)} {}
  MeshAxes(std::initializer_list<std::string> axes) : axes(axes) {}
  MeshAxes(std::vector<std::string> axes) : axes(std::move(axes)) {}

  bool operator==(const MeshAxes &other) const = default;

  std::vector<std::string> axes;
};

/// No mesh axis for a dim: `P("data", None)`.
inline constexpr std::nullopt_t None = std::nullopt;

/// Per tensor dim, the mesh axes it is split over; dims past the last entry are not split,
/// and `P()` is replicated. JAX-like: `P("data", None)`, `P({"data", "model"}, None)`,
/// `P(None, "fsdp", "tensor")`; `P({"data", "model"})` is one dim over two axes.
class PartitionSpec {
public:
  PartitionSpec() = default;
  PartitionSpec(MeshAxes d0) : dims{std::move(d0)} {}
  /// One dim over several axes (a braced list of names is that, not a spec of several dims).
  PartitionSpec(std::initializer_list<const char *> d0)
      : dims{MeshAxes(std::vector<std::string>(d0.begin(), d0.end()))} {}
  PartitionSpec(std::initializer_list<std::string> d0) : dims{MeshAxes(d0)} {}
  PartitionSpec(MeshAxes d0, MeshAxes d1) : dims{d0, d1} {}
  PartitionSpec(MeshAxes d0, MeshAxes d1, MeshAxes d2) : dims{d0, d1, d2} {}
  PartitionSpec(MeshAxes d0, MeshAxes d1, MeshAxes d2, MeshAxes d3) : dims{d0, d1, d2, d3} {}
  PartitionSpec(MeshAxes d0, MeshAxes d1, MeshAxes d2, MeshAxes d3, MeshAxes d4)
      : dims{d0, d1, d2, d3, d4} {}
  PartitionSpec(MeshAxes d0, MeshAxes d1, MeshAxes d2, MeshAxes d3, MeshAxes d4, MeshAxes d5)
      : dims{d0, d1, d2, d3, d4, d5} {}
  /// A spec of any length.
  static PartitionSpec of(std::vector<MeshAxes> dims);

  /// The number of entries (dims past it are not split).
  size_t size() const { return dims.size(); }
  /// The axes of dim `d` (empty for an unsplit or unlisted dim).
  const std::vector<std::string> &axes(size_t d) const;
  const std::vector<MeshAxes> &entries() const { return dims; }
  /// `P("data", None)`, `P({"data", "model"})`, `P()`.
  std::string describe() const;

  bool operator==(const PartitionSpec &other) const = default;

private:
  std::vector<MeshAxes> dims;
};
using P = PartitionSpec;

/// A PartitionSpec on a Mesh. A default-constructed NamedSharding is *unspecified*: it
/// leaves the layout to the compiler.
class NamedSharding {
public:
  NamedSharding() = default;
  /// Throws Error (with the caller's file:line) if `spec` names an axis `mesh` lacks or uses
  /// an axis twice.
  NamedSharding(Mesh mesh, PartitionSpec spec,
                std::source_location loc = std::source_location::current());

  bool specified() const { return meshValue.has_value(); }
  /// The mesh; an Error for an unspecified sharding.
  const Mesh &mesh() const;
  const PartitionSpec &spec() const { return specValue; }

  /// Checks the sharding for a tensor of `shape`: at most rank entries, and each dim divisible
  /// by the product of its axes' sizes. Errors start with `what`, which names the tensor
  /// ("jit: argument 2 f32[7,8]"). Nothing to check for an unspecified sharding.
  void check(const Shape &shape, const std::string &what) const;

  /// `P("data", None) on @mesh {"data": 2}`, or `unspecified`.
  std::string describe() const;

  /// Equal meshes and specs, ignoring trailing unsplit entries.
  bool operator==(const NamedSharding &other) const;

private:
  std::optional<Mesh> meshValue;
  PartitionSpec specValue;
};

/// `spec` for a value of `shape` with its split over mesh axis `axis` fitted to the shape:
/// where that split's dim does not divide (3 heads over 4 devices), it moves to the largest
/// other dim that no axis splits and that divides by `axis`, or, with none, the value is whole
/// along `axis`, as FSDP recipes place parameters. Other axes' splits stay. `note` says what
/// changed ("split by "fsdp" along dim 2 (size 120): dim 0 (size 3) does not divide by its 4
/// devices"), empty where nothing did.
PartitionSpec fitSplit(const PartitionSpec &spec, const Shape &shape, const Mesh &mesh,
                       const std::string &axis, std::string &note);

/// `x`, required to be laid out as `sharding` (`loom.sharding_constraint`); the compiler
/// reshards to it. On one device it is the identity. An unspecified sharding returns `x`
/// unconstrained.
Tensor with_sharding_constraint(const Tensor &x, const NamedSharding &sharding,
                                std::source_location loc = std::source_location::current());

namespace detail {
/// The path of every leaf of `tree` in flatten order: `layers[0].att_qkv`, "" for a lone leaf.
std::vector<std::string> leafPaths(const Tree<char> &tree);

/// One sharding per leaf of `tree` (in flatten order) from `shardings`, a tree of `tree`'s
/// structure or a prefix of it (a leaf applies to every leaf of the subtree at its place, as
/// JAX's pytree prefixes). A default Tree (an empty dict) leaves every leaf unspecified.
/// `what` names `shardings` in the Error for a structure that does not match.
std::vector<NamedSharding> leafShardings(const Tree<NamedSharding> &shardings,
                                         const Tree<char> &tree, const std::string &what);

/// A placeholder tree of `tree`'s structure.
template <typename Leaf> Tree<char> structureOf(const Tree<Leaf> &tree) {
  return tree.unflattenLike(std::vector<char>(tree.numLeaves(), '*'));
}
} // namespace detail

} // namespace loom

#endif // LOOM_FRONTEND_SHARDING_H
