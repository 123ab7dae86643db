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

std::optional<TensorSharding>
mlir::loom::cheaperRebroadcast(BroadcastInDimOp op, const TensorSharding &operandSharding,
                               RankedTensorType global, const TensorSharding &from,
                               const TensorSharding &to, MeshOp mesh) {
  RankedTensorType operandType =
      wholeType(cast<RankedTensorType>(op.getOperand().getType()), operandSharding, mesh);
  auto route = rebroadcastShardings(op, operandType.getShape(), from, to);
  if (!route || reshardTime(operandType, operandSharding, route->second, mesh) >=
                    reshardTime(global, from, to, mesh))
    return std::nullopt;
  return route->second;
}
