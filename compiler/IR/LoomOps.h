// The ops of the Loom dialect (declared in LoomOps.td).
#ifndef LOOM_COMPILER_IR_LOOMOPS_H
#define LOOM_COMPILER_IR_LOOMOPS_H

#include "compiler/IR/LoomDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/IR/ShardingRule.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir::loom {
/// The sharding rule of a Loom op (compiler/IR/ShardingRules.cpp), or failure.
FailureOr<ShardingRule> shardingRuleOf(Operation *op);

/// The element count of `type`, or nullopt when it is dynamic or overflows int64.
std::optional<int64_t> checkedElementCount(ShapedType type);

/// The bytes of a statically shaped tensor value (0 for any other value). Loom ops verify
/// that it fits in int64 (SizesFit).
int64_t tensorBytes(Value v);

/// Fails, naming the value, if a tensor `op` takes or makes has more elements or bytes than
/// int64 holds (compiler/IR/SizeChecks.cpp).
LogicalResult verifySizesFit(Operation *op);

/// The op trait behind it: every Loom op has it.
template <typename ConcreteType>
class SizesFit : public OpTrait::TraitBase<ConcreteType, SizesFit> {
public:
  static LogicalResult verifyTrait(Operation *op) { return verifySizesFit(op); }
};
} // namespace mlir::loom

#include "compiler/IR/LoomInterfaces.h.inc"

#define GET_OP_CLASSES
#include "compiler/IR/LoomOps.h.inc"

#endif // LOOM_COMPILER_IR_LOOMOPS_H
