// Meshes, partition specs and named shardings (see Sharding.h): their checks, which name the
// tensor, the dim and the axes, and with_sharding_constraint.
#include "frontend/Sharding.h"
#include "frontend/CallerScope.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomOps.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>

using namespace loom;
using namespace loom::detail;

namespace {
std::string quoted(const std::string &name) { return "\"" + name + "\""; }

std::string quotedList(const std::vector<std::string> &names) {
  std::vector<std::string> q;
  for (const std::string &n : names)
    q.push_back(quoted(n));
  return fmt::format("[{}]", fmt::join(q, ", "));
}

/// The devices a dim split over `axes` of `mesh` is cut into.
int64_t devicesOf(const Mesh &mesh, const std::vector<std::string> &axes) {
  int64_t devices = 1;
  for (const std::string &axis : axes)
    devices *= mesh.axisSize(axis);
  return devices;
}
} // namespace

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

Mesh::Mesh(std::vector<std::pair<std::string, int64_t>> axes, std::string name,
           std::source_location loc)
    : symbol(std::move(name)) {
  for (auto &[axis, size] : axes) {
    names.push_back(axis);
    sizes.push_back(size);
  }
  if (symbol.empty())
    fail(loc, "Mesh", "the mesh name is empty");
  if (axes.empty())
    fail(loc, "Mesh", "a mesh needs at least one axis");
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty())
      fail(loc, "Mesh", fmt::format("axis {} of {} has an empty name", i, describe()));
    if (std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i)
      fail(loc, "Mesh", fmt::format("axis {} appears twice in {}", quoted(names[i]), describe()));
    if (sizes[i] < 1)
      fail(loc, "Mesh", fmt::format("axis {} of {} has size {}; sizes must be >= 1",
                                      quoted(names[i]), describe(), sizes[i]));
  }
}

bool Mesh::hasAxis(std::string_view axis) const {
  return std::find(names.begin(), names.end(), axis) != names.end();
}

int64_t Mesh::axisSize(std::string_view axis) const {
  auto it = std::find(names.begin(), names.end(), axis);
  if (it == names.end())
    throw Error(fmt::format("Mesh::axisSize: {} has no axis \"{}\"", describe(), axis));
  return sizes[it - names.begin()];
}

int64_t Mesh::numDevices() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

std::string Mesh::describe() const {
  std::vector<std::string> items;
  for (size_t i = 0; i < names.size(); ++i)
    items.push_back(fmt::format("{}: {}", quoted(names[i]), sizes[i]));
  return fmt::format("@{} {{{}}}", symbol, fmt::join(items, ", "));
}

//===----------------------------------------------------------------------===//
// PartitionSpec
//===----------------------------------------------------------------------===//

PartitionSpec PartitionSpec::of(std::vector<MeshAxes> dims) {
  PartitionSpec spec;
  spec.dims = std::move(dims);
  return spec;
}

const std::vector<std::string> &PartitionSpec::axes(size_t d) const {
  static const std::vector<std::string> none;
  return d < dims.size() ? dims[d].axes : none;
}

std::string PartitionSpec::describe() const {
  std::vector<std::string> items;
  for (const MeshAxes &entry : dims) {
    if (entry.axes.empty())
      items.push_back("None");
    else if (entry.axes.size() == 1)
      items.push_back(quoted(entry.axes[0]));
    else {
      std::vector<std::string> q;
      for (const std::string &a : entry.axes)
        q.push_back(quoted(a));
      items.push_back(fmt::format("{{{}}}", fmt::join(q, ", ")));
    }
  }
  return fmt::format("P({})", fmt::join(items, ", "));
}

//===----------------------------------------------------------------------===//
// NamedSharding
//===----------------------------------------------------------------------===//

NamedSharding::NamedSharding(Mesh mesh, PartitionSpec spec, std::source_location loc)
    : meshValue(std::move(mesh)), specValue(std::move(spec)) {
  std::map<std::string, size_t> usedBy; // axis -> the dim that uses it
  for (size_t d = 0; d < specValue.size(); ++d)
    for (const std::string &axis : specValue.axes(d)) {
      if (!meshValue->hasAxis(axis))
        fail(loc, "NamedSharding",
               fmt::format("{} names axis {} (dim {}), which mesh {} does not have",
                           specValue.describe(), quoted(axis), d, meshValue->describe()));
      auto [it, fresh] = usedBy.emplace(axis, d);
      if (!fresh)
        fail(loc, "NamedSharding",
               fmt::format("{} uses mesh axis {} twice (dims {} and {}); an axis can split "
                           "one dim only",
                           specValue.describe(), quoted(axis), it->second, d));
    }
}

const Mesh &NamedSharding::mesh() const {
  if (!meshValue)
    throw Error("NamedSharding::mesh: the sharding is unspecified");
  return *meshValue;
}

void NamedSharding::check(const Shape &shape, const std::string &what) const {
  if (!meshValue)
    return;
  std::string self = describe();
  if (specValue.size() > shape.size())
    throw Error(fmt::format("{}: sharding {} has {} entries, but the tensor has rank {}", what,
                            self, specValue.size(), shape.size()));
  for (size_t d = 0; d < specValue.size(); ++d) {
    int64_t devices = devicesOf(*meshValue, specValue.axes(d));
    if (shape[d] % devices != 0)
      throw Error(fmt::format("{}: sharding {}: dim {} (size {}) does not divide by the {} "
                              "devices of mesh axes {}",
                              what, self, d, shape[d], devices, quotedList(specValue.axes(d))));
  }
}

std::string NamedSharding::describe() const {
  if (!meshValue)
    return "unspecified";
  return specValue.describe() + " on " + meshValue->describe();
}

bool NamedSharding::operator==(const NamedSharding &other) const {
  if (meshValue != other.meshValue)
    return false;
  size_t n = std::max(specValue.size(), other.specValue.size());
  for (size_t d = 0; d < n; ++d)
    if (specValue.axes(d) != other.specValue.axes(d))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// with_sharding_constraint
//===----------------------------------------------------------------------===//

Tensor loom::with_sharding_constraint(const Tensor &x, const NamedSharding &sharding,
                                      std::source_location loc) {
  const char *op = "with_sharding_constraint";
  Trace &trace = Trace::of(x, loc, op);
  mlir::Value v = trace.value(x, loc, op);
  if (!sharding.specified())
    return x;
  std::string what =
      fmt::format("{}: {}: tensor {}", describeLocation(loc), op, x.describe());
  auto attr = trace.shardingAttr(sharding, x.shape(), what);
  return build<mlir::loom::ShardingConstraintOp>(trace, loc, op, {&x}, v, attr);
}

//===----------------------------------------------------------------------===//
// Shardings of tree leaves
//===----------------------------------------------------------------------===//

namespace {
void collectPaths(const Tree<char> &tree, const std::string &path,
                  std::vector<std::string> &out) {
  switch (tree.nodeKind()) {
  case Tree<char>::Kind::Value:
    out.push_back(path);
    return;
  case Tree<char>::Kind::Dict:
    for (const auto &[key, child] : tree.dict())
      collectPaths(child, path.empty() ? key : path + "." + key, out);
    return;
  case Tree<char>::Kind::List:
    for (size_t i = 0; i < tree.list().size(); ++i)
      collectPaths(tree.list()[i], fmt::format("{}[{}]", path, i), out);
    return;
  }
}

/// Appends the sharding of every leaf of `tree` given the prefix `shardings`; false on a
/// structure mismatch (`where` is then the path of the mismatch).
bool matchPrefix(const Tree<NamedSharding> &shardings, const Tree<char> &tree,
                 const std::string &path, std::vector<NamedSharding> &out, std::string &where) {
  using Kind = Tree<char>::Kind;
  if (shardings.isLeaf()) {
    out.insert(out.end(), tree.numLeaves(), shardings.leaf());
    return true;
  }
  if (shardings.nodeKind() != static_cast<Tree<NamedSharding>::Kind>(tree.nodeKind())) {
    where = path.empty() ? "the root" : path;
    return false;
  }
  if (tree.nodeKind() == Kind::List) {
    if (shardings.list().size() != tree.list().size()) {
      where = path.empty() ? "the root" : path;
      return false;
    }
    for (size_t i = 0; i < tree.list().size(); ++i)
      if (!matchPrefix(shardings.list()[i], tree.list()[i], fmt::format("{}[{}]", path, i), out,
                       where))
        return false;
    return true;
  }
  const auto &given = shardings.dict();
  const auto &wanted = tree.dict();
  bool sameKeys = given.size() == wanted.size() &&
                  std::equal(given.begin(), given.end(), wanted.begin(),
                             [](const auto &a, const auto &b) { return a.first == b.first; });
  if (!sameKeys) {
    where = path.empty() ? "the root" : path;
    return false;
  }
  for (const auto &[key, child] : wanted)
    if (!matchPrefix(given.at(key), child, path.empty() ? key : path + "." + key, out, where))
      return false;
  return true;
}
} // namespace

std::vector<std::string> loom::detail::leafPaths(const Tree<char> &tree) {
  std::vector<std::string> paths;
  collectPaths(tree, "", paths);
  return paths;
}

std::vector<NamedSharding> loom::detail::leafShardings(const Tree<NamedSharding> &shardings,
                                                       const Tree<char> &tree,
                                                       const std::string &what) {
  if (!shardings.isLeaf() && shardings.nodeKind() == Tree<NamedSharding>::Kind::Dict &&
      shardings.dict().empty())
    return std::vector<NamedSharding>(tree.numLeaves());
  std::vector<NamedSharding> out;
  std::string where;
  if (!matchPrefix(shardings, tree, "", out, where))
    throw Error(fmt::format("{}: the shardings' tree {} is neither a leaf nor a prefix of the "
                            "tree {} it annotates (they differ at {})",
                            what, shardings.structure(), tree.structure(), where));
  return out;
}

PartitionSpec loom::fitSplit(const PartitionSpec &spec, const Shape &shape, const Mesh &mesh,
                             const std::string &axis, std::string &note) {
  note.clear();
  if (!mesh.hasAxis(axis) || spec.size() > shape.size()) // the latter: check() says so
    return spec;
  const int64_t devices = mesh.axisSize(axis);
  std::vector<MeshAxes> dims = spec.entries();
  dims.resize(shape.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<std::string> &axes = dims[d].axes;
    auto at = std::find(axes.begin(), axes.end(), axis);
    if (at == axes.end() || shape[d] % devicesOf(mesh, axes) == 0)
      continue;
    axes.erase(at);
    std::optional<size_t> best;
    for (size_t e = 0; e < dims.size(); ++e)
      if (e != d && dims[e].axes.empty() && shape[e] % devices == 0 &&
          (!best || shape[e] > shape[*best]))
        best = e;
    if (best)
      dims[*best] = MeshAxes(axis);
    note = best ? fmt::format("split by \"{}\" along dim {} (size {}): dim {} (size {}) does "
                              "not divide by its {} devices",
                              axis, *best, shape[*best], d, shape[d], devices)
                : fmt::format("whole on each device of \"{}\": no dim divides by its {} "
                              "devices",
                              axis, devices);
    break;
  }
  if (note.empty())
    return spec;
  while (!dims.empty() && dims.back().axes.empty()) // P("fsdp", None) stays as it was written
    dims.pop_back();
  return PartitionSpec::of(dims);
}
