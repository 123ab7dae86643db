// Implementation of jit's sharding options on the traced program (see JitShardings.h).
#include "frontend/JitShardings.h"

#include "compiler/IR/LoomOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <fmt/format.h>
#include <map>

using namespace loom;
using namespace loom::detail;

namespace {

/// The sharding of each flat leaf of `trees` (one tree per argument, or per top-level
/// output) from `given` (the option `option`, one entry per tree, or empty).
std::vector<NamedSharding> leafShardingsOf(const std::vector<Tree<NamedSharding>> &given,
                                           const std::vector<TreeDef> &trees,
                                           const std::string &option, const char *kind,
                                           const std::string &name) {
  std::vector<NamedSharding> out;
  if (!given.empty() && given.size() != trees.size())
    throw Error(fmt::format("{}: {} has {} entries for {} {}s", name, option, given.size(),
                            trees.size(), kind));
  for (size_t k = 0; k < trees.size(); ++k) {
    std::string what = fmt::format("{}: {}[{}]", name, option, k);
    std::vector<NamedSharding> leaves = given.empty()
                                            ? std::vector<NamedSharding>(trees[k].numLeaves())
                                            : leafShardings(given[k], trees[k], what);
    out.insert(out.end(), leaves.begin(), leaves.end());
  }
  return out;
}

/// How errors name each flat leaf of `trees` (one per argument or top-level output):
/// "jit: argument 2", "jit: output 0 leaf layers[0].w"; the caller appends the type.
std::vector<std::string> describeLeaves(const std::vector<TreeDef> &trees, const char *kind,
                                        const std::string &name) {
  std::vector<std::string> out;
  for (size_t k = 0; k < trees.size(); ++k)
    for (const std::string &path : leafPaths(trees[k]))
      out.push_back(fmt::format("{}: {} {}{}", name, kind, k, path.empty() ? "" : " leaf " + path));
  return out;
}

} // namespace

NamedSharding detail::namedShardingOf(mlir::Attribute attr, const Mesh &mesh) {
  auto sharding = mlir::cast<mlir::loom::ShardingAttr>(attr);
  std::vector<MeshAxes> dims;
  for (mlir::Attribute axes : sharding.getDims()) {
    MeshAxes entry;
    for (mlir::Attribute axis : mlir::cast<mlir::ArrayAttr>(axes))
      entry.axes.push_back(mlir::cast<mlir::StringAttr>(axis).getValue().str());
    dims.push_back(entry);
  }
  return NamedSharding(mesh, PartitionSpec::of(dims));
}

std::vector<mlir::Attribute> detail::argumentShardings(Trace &trace, const JitFunction::FlatArgs &args,
                                               const JitOptions &options) {
  if (options.inShardings.empty())
    return std::vector<mlir::Attribute>(args.leaves.size());
  std::vector<TreeDef> trees = args.trees();
  std::vector<NamedSharding> shardings =
      leafShardingsOf(options.inShardings, trees, "inShardings", "argument", options.name);
  std::vector<std::string> names = describeLeaves(trees, "argument", options.name);
  std::vector<mlir::Attribute> attrs(shardings.size());
  for (size_t i = 0; i < shardings.size(); ++i)
    if (shardings[i].specified())
      attrs[i] = trace.shardingAttr(shardings[i], args.leaves[i].shape(),
                                    names[i] + " " + args.leaves[i].describe());
  return attrs;
}

void detail::setResultShardings(Trace &trace, const TracedOutputs &outputs,
                        const std::vector<size_t> &positions, const JitOptions &options) {
  if (options.outShardings.empty())
    return;
  std::vector<TreeDef> tops = outputs.sequence ? outputs.structure.list()
                                               : std::vector<TreeDef>{outputs.structure};
  std::vector<NamedSharding> shardings =
      leafShardingsOf(options.outShardings, tops, "outShardings", "output", options.name);
  std::vector<std::string> names = describeLeaves(tops, "output", options.name);
  mlir::func::FuncOp main = trace.currentFunction();
  std::map<size_t, size_t> setBy; // compiled result -> the output that set its sharding
  for (size_t i = 0; i < shardings.size(); ++i) {
    if (!shardings[i].specified())
      continue;
    const Tensor &t = outputs.flat[i];
    mlir::Attribute attr =
        trace.shardingAttr(shardings[i], t.shape(), names[i] + " " + t.describe());
    size_t r = positions[i];
    auto [it, fresh] = setBy.emplace(r, i);
    if (!fresh && main.getResultAttr(r, "loom.sharding") != attr)
      throw Error(fmt::format("{} and {} are the same value, but outShardings gives them "
                              "different shardings",
                              names[it->second], names[i]));
    main.setResultAttr(r, "loom.sharding", attr);
  }
}
