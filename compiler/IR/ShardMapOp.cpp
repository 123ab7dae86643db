// Verification of loom.shard_map: its boundary (in and out shardings against the global and
// local types) and its body (per-device code whose results vary only where their out
// shardings split them).
#include "compiler/IR/Sharding.h"
#include "compiler/IR/VaryingAxes.h"

#include <string>

using namespace mlir;
using namespace mlir::loom;

YieldOp ShardMapOp::yield() { return cast<YieldOp>(getBody().front().getTerminator()); }

LogicalResult ShardMapOp::verifySymbolUses(SymbolTableCollection &) {
  MeshOp mesh = lookupMesh(*this, getMeshAttr());
  if (!mesh)
    return emitOpError("refers to an unknown mesh ") << getMeshAttr();
  if (mesh.getAxes().size() > 64) // VaryingAxes keeps axes in a 64-bit set
    return emitOpError("runs over mesh ") << getMeshAttr() << " of " << mesh.getAxes().size()
                                          << " axes; shard_map supports at most 64";
  if (getInShardings().size() != getArgs().size())
    return emitOpError("has ") << getArgs().size() << " operands but "
                               << getInShardings().size() << " in shardings";
  if (getOutShardings().size() != getNumResults())
    return emitOpError("has ") << getNumResults() << " results but "
                               << getOutShardings().size() << " out shardings";
  Block &body = getBody().front();
  if (body.getNumArguments() != getArgs().size())
    return emitOpError("body has ") << body.getNumArguments() << " arguments for "
                                    << getArgs().size() << " operands";
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with loom.yield");
  if (yield.getValues().size() != getNumResults())
    return emitOpError("body yields ") << yield.getValues().size() << " values for "
                                       << getNumResults() << " results";

  // Each side of the boundary: the global type, its sharding, and the local type the body sees.
  auto checkBoundary = [&](StringRef what, size_t i, Type global, Attribute attr,
                           Type local) -> LogicalResult {
    auto sharding = cast<ShardingAttr>(attr);
    auto type = cast<RankedTensorType>(global);
    auto emit = [&] { return emitOpError() << what << " " << i << ": "; };
    if (sharding.getMesh() != getMeshAttr())
      return emit() << "sharding is on " << sharding.getMesh() << ", not on " << getMeshAttr();
    if (failed(verifySharding(emit, *this, sharding, type)))
      return failure();
    if (!sharding.partialAxes().empty())
      return emit() << "sharding " << sharding << " has partial axes";
    RankedTensorType expected = localType(type, sharding, mesh);
    if (local != expected)
      return emit() << "the body's type is " << local << ", but " << type << " sharded as "
                    << sharding << " is " << expected << " on each device";
    return success();
  };
  for (auto [i, arg] : llvm::enumerate(getArgs()))
    if (failed(checkBoundary("operand", i, arg.getType(), getInShardings()[i],
                             body.getArgument(i).getType())))
      return failure();
  for (auto [i, result] : llvm::enumerate(getResults()))
    if (failed(checkBoundary("result", i, result.getType(), getOutShardings()[i],
                             yield.getValues()[i].getType())))
      return failure();

  Operation *global = nullptr;
  body.walk([&](Operation *op) {
    if (isa<ShardMapOp, ShardingConstraintOp>(op) && !global)
      global = op;
  });
  if (global)
    return global->emitOpError("cannot be inside loom.shard_map: the body's values are "
                               "per-device shards");

  VaryingAxes varying(mesh, body, VaryingAxes(mesh).argumentAxes(*this));
  for (auto [i, value] : llvm::enumerate(yield.getValues())) {
    VaryingAxes::Mask extra =
        varying.of(value) & ~varying.splitBy(cast<ShardingAttr>(getOutShardings()[i]));
    if (!extra)
      continue;
    std::string axes;
    for (StringRef a : varying.axesOf(extra))
      axes += (axes.empty() ? "\"" : ", \"") + a.str() + "\"";
    return emitOpError("result ") << i << " differs between devices along [" << axes
                                  << "], but its out sharding " << getOutShardings()[i]
                                  << " does not split it over them: combine it over those "
                                     "axes (all_reduce) or split it in the out sharding";
  }
  return success();
}
