// Transformations on Loom IR that are independent of the target: differentiation today,
// sharding propagation and partitioning next.

#ifndef LOOM_PASSES_PASSES_TD
#define LOOM_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def Autodiff : Pass<"loom-autodiff", "mlir::ModuleOp"> {
  let summary = "Replaces loom.value_and_grad by calls to generated reverse-mode functions.";
  let description = [{
    For each `loom.value_and_grad @f(...) wrt = [...]`, generates (once per callee and wrt
    list) a private function `@f_value_and_grad_<wrt>` that runs `@f`'s body forward and then
    its adjoint backward, seeded with 1 for the first result, using one VJP rule per op
    (passes/Autodiff/VjpRules.cpp). The op becomes a `func.call` of it. Once every request
    is differentiated, `loom.stop_gradient` ops in the module are replaced by their operand.

    Input:
    ```mlir
    func.func private @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = loom.mul %x, %x : tensor<f32>
      return %0 : tensor<f32>
    }
    %v, %g = loom.value_and_grad @f(%a) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
    ```
    Output:
    ```mlir
    func.func private @f_value_and_grad_0(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %0 = loom.mul %x, %x : tensor<f32>
      %one = loom.constant dense<1.0> : tensor<f32>
      %1 = loom.mul %one, %x : tensor<f32>
      %2 = loom.mul %one, %x : tensor<f32>
      %3 = loom.add %1, %2 : tensor<f32>
      return %0, %3 : tensor<f32>, tensor<f32>
    }
    %v, %g = call @f_value_and_grad_0(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::loom::LoomDialect"];
}

def PropagateSharding : Pass<"loom-propagate-sharding", "mlir::ModuleOp"> {
  let summary = "Gives every value of a sharded program a sharding, partial sums included.";
  let description = [{
    Runs after differentiation (and inlining) on a module with one `loom.mesh`. Shardings the
    user gave are fixed points: `loom.sharding` on arguments and `loom.sharding_constraint`
    results; `loom.sharding` on results is a wish for the returned value. Every op's sharding
    rule (compiler/IR/ShardingRules.cpp) relates its operand and result dims through factors;
    the pass sweeps forward and backward until nothing changes. For each factor of an op, its
    tensors propose mesh axes; the proposal that moves the fewest bytes per device wins (then
    the larger split, then the alphabetically first), so operand order never decides. A split
    reduced factor (a matmul's contracted dim, a summed dim) makes the result a partial sum
    over its axes, and a linear op (add, transpose, a matmul with one partial operand, ...)
    keeps a partial operand pending in its result.

    Writes `loom.sharding` on every argument and result, and on each op `loom.shardings` (one
    per result) and `loom.factors` (the axes chosen for each factor of its rule, which
    `loom-partition` follows). With `explain`, a remark on every value says where its sharding
    came from.

    Input:
    ```mlir
    loom.mesh @mesh axes = ["data"] shape = [4]
    func.func @main(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                    %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
      %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] ...
    ```
    Output: `%0` gets `loom.shardings = [#loom.sharding<@mesh, [["data"], []]>]`.
  }];
  let options = [Option<"explain", "explain", "bool", "false",
                        "emit a remark with the sharding of every value and its origin">];
}

def Partition : Pass<"loom-partition", "mlir::ModuleOp"> {
  let summary = "Rewrites a propagated program into the program of one device, with collectives.";
  let description = [{
    Runs after `loom-propagate-sharding`. Every tensor becomes its local (per-device) part;
    each op is rewritten to local shapes, and wherever an operand's sharding differs from the
    one the op needs (from its `loom.factors`), the value is resharded: a partial sum to
    replicated is `loom.all_reduce`, to split `loom.reduce_scatter`; a split dim to replicated
    is `loom.all_gather`; an axis moving from one dim to another is `loom.all_to_all`;
    replicated to split is `loom.shard_slice`. Each collective records the op that needed it
    (`reason`, with its source location) and the bytes each device sends (`bytes`). A reshard
    happens at its use, so a parameter's all_gather sits right before the op that reads it and
    its result dies after that op. Returned values are resharded to the results' shardings.
  }];
  let dependentDialects = ["mlir::loom::LoomDialect"];
}

#endif // LOOM_PASSES_PASSES_TD
