// A broadcast's result resharded through its operand (see Rebroadcast.h).
#include "passes/Sharding/Rebroadcast.h"
#include "passes/Sharding/BoxExchange.h"

using namespace mlir;
using namespace mlir::loom;

std::optional<std::pair<TensorSharding, TensorSharding>>
mlir::loom::rebroadcastShardings(BroadcastInDimOp op, ArrayRef<int64_t> operandShape,
                                 const TensorSharding &from, const TensorSharding &to) {
  if (!from.partial.empty() || !to.partial.empty())
    return std::nullopt;
  auto shardings = std::make_pair(TensorSharding::replicated(operandShape.size()),
                                  TensorSharding::replicated(operandShape.size()));
  for (auto [d, resultDim] : llvm::enumerate(op.getBroadcastDimensions())) {
    if (operandShape[d] == 1) // repeated to the result's size: any split is local
      continue;
    shardings.first.dims[d] = from.dims[resultDim];
    shardings.second.dims[d] = to.dims[resultDim];
  }
  return shardings;
}

std::optional<TensorSharding> mlir::loom::cheaperRebroadcast(BroadcastInDimOp op,
                                                             const TensorSharding &operandSharding,
                                                             const TensorSharding &from,
                                                             const TensorSharding &to,
                                                             MeshOp mesh) {
  // The global shapes, from the local ones and their shardings.
  auto globalOf = [&](Value v, const TensorSharding &s) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    for (auto [d, axes] : llvm::enumerate(s.dims))
      shape[d] *= groupSize(mesh, axes);
    return type.clone(shape);
  };
  RankedTensorType operandType = globalOf(op.getOperand(), operandSharding);
  auto route = rebroadcastShardings(op, operandType.getShape(), from, to);
  if (!route || reshardTime(operandType, operandSharding, route->second, mesh) >=
                    reshardTime(globalOf(op.getResult(), from), from, to, mesh))
    return std::nullopt;
  return route->second;
}
