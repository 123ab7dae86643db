// The VJP of loom.shard_map (see BackwardSweep.h): per-device code is differentiated per
// device, in a second shard_map, with the varying-axes rule for values the same on every
// device. The forward values the backward reads leave the forward shard_map as extra results
// split over the axes they vary over, so after partitioning each stays on its device.
#include "passes/Autodiff/BackwardSweep.h"

#include "compiler/IR/Sharding.h"

using namespace mlir;
using namespace mlir::loom;

namespace {

bool isFloat(Type t) { return isa<FloatType>(cast<RankedTensorType>(t).getElementType()); }

/// How a forward value crosses from the forward shard_map to the backward one: its global
/// type and sharding (dim 0 split over the axes it varies over; a scalar is carried as [1]).
struct Residual {
  Value value;
  RankedTensorType local;  ///< as it crosses
  RankedTensorType global;
  ShardingAttr sharding;
};

Residual residualOf(Value v, const VaryingAxes &varying, MeshOp mesh) {
  auto type = cast<RankedTensorType>(v.getType());
  VaryingAxes::Mask mask = varying.of(v);
  SmallVector<StringRef> axes = varying.axesOf(mask);
  FlatSymbolRefAttr meshRef = varying.meshRef();
  if (axes.empty())
    return {v, type, type, ShardingAttr::get(meshRef, {})};
  RankedTensorType local = type.getRank() == 0 ? type.clone({1}) : type;
  SmallVector<int64_t> shape(local.getShape());
  shape[0] *= groupSize(mesh, axes);
  return {v, local, local.clone(shape), ShardingAttr::get(meshRef, {axes})};
}

} // namespace

FailureOr<ShardMapOp> mlir::loom::transposeShardMap(ShardMapOp fwd,
                                                    ArrayRef<Value> resultCotangents,
                                                    OpBuilder &b,
                                                    SmallVectorImpl<Value> &operandCotangents) {
  Location loc = fwd.getLoc();
  MeshOp mesh = lookupMesh(fwd, fwd.getMeshAttr());
  Block &body = fwd.getBody().front();
  VaryingAxes varying(mesh, body, VaryingAxes(mesh).argumentAxes(fwd));
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator()) {
    if (isa<ValueAndGradOp>(op))
      return op.emitOpError("inside a shard_map that is itself differentiated is not supported "
                            "(nested differentiation)");
    forward.push_back(&op);
  }

  // The backward body, built detached: its arguments are the float results' cotangents, then
  // (added once the sweep shows which) the forward values it reads.
  auto block = std::make_unique<Block>();
  OpBuilder inner(b.getContext()); // a detached block has no context of its own
  inner.setInsertionPointToEnd(block.get());
  BackwardSweep sweep(inner, loc, &varying);
  YieldOp yield = fwd.yield();
  SmallVector<Value> operands;
  SmallVector<Attribute> inShardings;
  for (auto [i, y] : llvm::enumerate(yield.getValues())) {
    if (!isFloat(y.getType()))
      continue;
    Value seed = block->addArgument(y.getType(), loc);
    operands.push_back(resultCotangents[i] ? resultCotangents[i]
                                           : zerosLike(b, loc, fwd.getResult(i).getType()));
    inShardings.push_back(fwd.getOutShardings()[i]);
    // A result the same on every device but returned split: each device's piece of the
    // cotangent is the whole value's, summed over the axes it was split over.
    VaryingAxes::Mask extra =
        varying.splitBy(cast<ShardingAttr>(fwd.getOutShardings()[i])) & ~varying.of(y);
    if (extra)
      seed = AllReduceOp::create(inner, loc, seed.getType(), ReduceKind::sum, seed,
                                 varying.meshRef().getValue(),
                                 inner.getStrArrayAttr(varying.axesOf(extra)), StringAttr(),
                                 IntegerAttr());
    sweep.accumulate(y, seed);
  }
  if (failed(sweep.run(forward)))
    return failure();
  SmallVector<Value> yields;
  SmallVector<Attribute> outShardings;
  SmallVector<Type> resultTypes;
  for (auto [j, arg] : llvm::enumerate(body.getArguments())) {
    if (!isFloat(arg.getType()))
      continue;
    Value ct = sweep.cotangent(arg);
    yields.push_back(ct ? ct : zerosLike(inner, loc, arg.getType()));
    outShardings.push_back(fwd.getInShardings()[j]);
    resultTypes.push_back(fwd.getArgs()[j].getType());
  }
  YieldOp::create(inner, loc, yields);

  // The forward values the backward reads become arguments of its body.
  SmallVector<Residual> residuals;
  DenseMap<Value, size_t> known;
  block->walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (v.getParentBlock() == &body && known.try_emplace(v, residuals.size()).second)
        residuals.push_back(residualOf(v, varying, mesh));
  });
  OpBuilder atStart(b.getContext());
  atStart.setInsertionPointToStart(block.get());
  SmallVector<Value> carried(yield.getValues());
  OpBuilder beforeYield(yield);
  for (Residual &r : residuals) {
    Value arg = block->addArgument(r.local, loc);
    Value use = arg;
    Value sent = r.value;
    if (r.local != r.value.getType()) { // a scalar travels as [1]
      use = ReshapeOp::create(atStart, loc, r.value.getType(), arg);
      sent = ReshapeOp::create(beforeYield, loc, r.local, r.value);
    }
    r.value.replaceUsesWithIf(use, [&](OpOperand &o) { return o.getOwner()->getBlock() == block.get(); });
    carried.push_back(sent);
    inShardings.push_back(r.sharding);
  }

  // The forward shard_map, returning the carried values too.
  SmallVector<Type> forwardTypes(fwd.getResultTypes());
  SmallVector<Attribute> forwardShardings(fwd.getOutShardings().begin(),
                                          fwd.getOutShardings().end());
  for (Residual &r : residuals) {
    forwardTypes.push_back(r.global);
    forwardShardings.push_back(r.sharding);
  }
  OpBuilder atForward(fwd);
  auto replaced = ShardMapOp::create(atForward, loc, forwardTypes, fwd.getMeshAttr(),
                                     fwd.getArgs(), fwd.getInShardings(),
                                     atForward.getArrayAttr(forwardShardings));
  replaced.getBody().takeBody(fwd.getBody());
  yield->setOperands(carried);
  fwd.replaceAllUsesWith(replaced.getResults().take_front(fwd.getNumResults()));
  fwd.erase();
  for (size_t k = 0; k < residuals.size(); ++k)
    operands.push_back(replaced.getResult(replaced.getNumResults() - residuals.size() + k));

  auto backward = ShardMapOp::create(b, loc, resultTypes, replaced.getMeshAttr(), operands,
                                     b.getArrayAttr(inShardings), b.getArrayAttr(outShardings));
  backward.getBody().push_back(block.release());
  operandCotangents.assign(replaced.getArgs().size(), Value());
  size_t next = 0;
  for (auto [j, arg] : llvm::enumerate(replaced.getArgs()))
    if (isFloat(arg.getType()))
      operandCotangents[j] = backward.getResult(next++);
  return replaced;
}
