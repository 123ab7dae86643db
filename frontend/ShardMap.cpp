// Traces the function given to shard_map into the body of a loom.shard_map (see ShardMap.h):
// the body is traced as a function of local shards, then moved into the op's region.
#include "frontend/ShardMap.h"
#include "frontend/CallerScope.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomOps.h"
#include "mlir/IR/Verifier.h"

#include <fmt/format.h>

using namespace loom;
using namespace loom::detail;

namespace {
int64_t groupSize(const Mesh &mesh, const std::vector<std::string> &axes) {
  int64_t n = 1;
  for (const std::string &a : axes)
    n *= mesh.axisSize(a);
  return n;
}
} // namespace

std::vector<Tensor> loom::detail::shardMap(const TensorFunction &fn, const Mesh &mesh,
                                           const std::vector<Tensor> &args,
                                           const std::vector<PartitionSpec> &inSpecs,
                                           const std::vector<PartitionSpec> &outSpecs,
                                           const std::source_location &loc) {
  Trace &trace = args.empty() ? Trace::current(loc, "shard_map")
                              : Trace::of(args.front(), loc, "shard_map");
  mlir::OpBuilder &b = trace.builder();
  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<mlir::Attribute> inShardings, outShardings;
  std::vector<std::pair<Shape, DType>> locals;
  for (size_t i = 0; i < args.size(); ++i) {
    NamedSharding sharding(mesh, inSpecs[i], loc);
    inShardings.push_back(trace.shardingAttr(
        sharding, args[i].shape(),
        fmt::format("{}: shard_map: argument {} {}", describeLocation(loc), i, args[i].describe())));
    operands.push_back(trace.value(args[i], loc, "shard_map"));
    Shape local = args[i].shape();
    for (size_t d = 0; d < local.size(); ++d)
      local[d] /= groupSize(mesh, inSpecs[i].axes(d));
    locals.emplace_back(local, args[i].dtype());
  }

  std::vector<Tensor> inner = trace.beginFunction("shard_map_fn", locals);
  trace.enterShardMap(mesh);
  std::vector<Tensor> outputs;
  try {
    outputs = fn(inner);
  } catch (...) {
    trace.exitShardMap();
    throw;
  }
  trace.exitShardMap();
  if (outSpecs.size() != 1 && outSpecs.size() != outputs.size())
    fail(loc, "shard_map",
         fmt::format("{} out specs for {} results (give one per result, or one for all)",
                     outSpecs.size(), outputs.size()));
  llvm::SmallVector<mlir::Type> resultTypes;
  for (size_t j = 0; j < outputs.size(); ++j) {
    const PartitionSpec &spec = outSpecs.size() == 1 ? outSpecs[0] : outSpecs[j];
    NamedSharding sharding(mesh, spec, loc);
    if (spec.size() > outputs[j].shape().size())
      fail(loc, "shard_map",
           fmt::format("out spec {} has more entries than result {} {} has dims",
                       spec.describe(), j, outputs[j].describe()));
    Shape global = outputs[j].shape();
    for (size_t d = 0; d < global.size(); ++d)
      global[d] *= groupSize(mesh, spec.axes(d));
    outShardings.push_back(trace.shardingAttr(
        sharding, global, fmt::format("{}: shard_map: result {}", describeLocation(loc), j)));
    resultTypes.push_back(tensorType(trace.context(), global, outputs[j].dtype()));
  }
  std::string callee = trace.endFunction(outputs, loc);

  // The traced function's body becomes the op's region.
  auto traced = trace.module().lookupSymbol<mlir::func::FuncOp>(callee);
  auto op = mlir::loom::ShardMapOp::create(
      b, trace.location(loc), resultTypes, mlir::FlatSymbolRefAttr::get(&trace.context(), mesh.name()),
      operands, b.getArrayAttr(inShardings), b.getArrayAttr(outShardings));
  op.getBody().takeBody(traced.getBody());
  traced.erase();
  mlir::Block &body = op.getBody().front();
  auto ret = llvm::cast<mlir::func::ReturnOp>(body.getTerminator());
  mlir::OpBuilder atReturn(ret);
  mlir::loom::YieldOp::create(atReturn, ret.getLoc(), ret.getOperands());
  ret.erase();

  mlir::SymbolTableCollection tables;
  if (mlir::failed(mlir::verify(op)) || mlir::failed(op.verifySymbolUses(tables))) {
    std::string why = trace.takeDiagnostics();
    op.erase();
    fail(loc, "shard_map", why);
  }
  std::vector<Tensor> results;
  for (mlir::Value r : op.getResults())
    results.push_back(trace.wrap(r));
  return results;
}
