// Interfaces of Loom ops.

#ifndef LOOM_IR_LOOMINTERFACES_TD
#define LOOM_IR_LOOMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Loom_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::mlir::loom";
  let description = [{
    How an op's operand and result dims relate (see compiler/IR/ShardingRule.h): what
    loom-propagate-sharding and loom-partition know of an op. Every Loom op has it; the rules
    of all ops are written in one place, compiler/IR/ShardingRules.cpp.
  }];
  let methods = [
    InterfaceMethod<[{
        The op's rule, or failure for ops that have none (collectives, which only exist
        after partitioning, and value_and_grad, which autodiff removes first).
      }], "::mlir::FailureOr<::mlir::loom::ShardingRule>", "getShardingRule", (ins), [{}],
      [{ return ::mlir::loom::shardingRuleOf($_op); }]>,
  ];
}

#endif // LOOM_IR_LOOMINTERFACES_TD
