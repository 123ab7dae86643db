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

    With `rematerialize` (the default), a forward value the backward reads that an
    elementwise chain computes is recomputed in the backward where that keeps fewer bytes
    alive between the two (passes/Autodiff/Rematerialize.h): a GELU's intermediates are
    recomputed from its input, a softmax from its scores. A value a backward product reads
    is kept (the product needs it in memory, so recomputing it would write it out again).
  }];
  let options = [Option<"rematerialize", "rematerialize", "bool", "true",
                        "recompute cheap forward values in the backward instead of keeping them">];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::loom::LoomDialect"];
}

def PropagateSharding : Pass<"loom-propagate-sharding", "mlir::ModuleOp"> {
  let summary = "Gives every value of a sharded program a sharding, partial sums included.";
  let description = [{
    Runs after differentiation (and inlining) on a module with one `loom.mesh`. Shardings the
    user gave are fixed points: `loom.sharding` on arguments and `loom.sharding_constraint`
    results; `loom.sharding` on results is a wish for the returned value. Every op's sharding
    rule (compiler/IR/ShardingRules.cpp) relates its operand and result dims through factors;
    the pass sweeps forward and backward until nothing changes. At each op, its tensors propose
    mesh axes for each factor, and the pass picks the axes of all factors together (an axis
    splits one factor at most) by cost, in bytes: the reshards of the operands, the combining of
    a partial result (an all_reduce, or a reduce_scatter where users want it split), and the
    reshards of the results to what their users already want, each costed with the plan
    `loom-partition` will emit (ReshardPlan.h), plus a start-up latency per collective and the
    contraction's local flops. Ties go to the larger split, then to results split on their major
    dims, never to operand order. A split reduced factor (a matmul's contracted dim, a summed or
    maxed dim) makes the result partial over its axes with the reduction's combiner (sum or
    max), and an op that commutes with it (add or a matmul for a sum, max for a max, any op
    that only moves elements) keeps a partial operand pending in its result.

    Writes `loom.sharding` on every argument and result, and on each op `loom.shardings` (one
    per result) and `loom.factors` (the axes chosen for each factor of its rule, which
    `loom-partition` follows). With `explain`, a remark on every value says where its sharding
    came from, one on every split op how it runs, and one on every collective the partitioner
    will emit (it partitions a copy) its axes, bytes and reason; with `keep-gathered`, those
    of `loom-partition=keep-gathered=true`.

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
                        "emit remarks: every value's sharding and its origin, how each split op runs, and every collective the partitioner will emit">,
                 Option<"keepGathered", "keep-gathered", "bool", "false",
                        "with explain: the collectives of loom-partition=keep-gathered=true (each reshard reused by later users)">];
}

def Partition : Pass<"loom-partition", "mlir::ModuleOp"> {
  let summary = "Rewrites a propagated program into the program of one device, with collectives.";
  let description = [{
    Runs after `loom-propagate-sharding`. Every tensor becomes its local (per-device) part;
    each op is rewritten to local shapes, and wherever an operand's sharding differs from the
    one the op needs (from its `loom.factors`), the value is resharded by the plan of
    ReshardPlan.h: free slices first (`loom.shard_slice`), then a partial value is combined
    (`loom.reduce_scatter` onto a dim that wants the axis next, else `loom.all_reduce`, with its
    combiner), then an axis moves between dims (`loom.all_to_all`) or is gathered
    (`loom.all_gather`), then the remaining slices. An all_reduce whose one user slices it (a
    value pinned replicated and then wanted split) becomes reduce_scatters and slices, in the
    slice's axis order. Each collective records the op that needed it (`reason`, with its
    source location) and the bytes each device sends (`bytes`). A reshard happens at its use, so
    a parameter's all_gather sits right before the op that reads it and its result dies after
    that op (FSDP's parameters are gathered again for the backward), unless `keep-gathered`.
    Returned values are resharded to the results' shardings.
  }];
  let options = [Option<"keepGathered", "keep-gathered", "bool", "false",
                        "reshard each value once per target sharding and reuse the result for every later user: a parameter gathered for the forward stays whole for the backward (fewer bytes received, a whole copy held between them)">];
  let dependentDialects = ["mlir::loom::LoomDialect"];
}

def InlineShardMaps : Pass<"loom-inline-shard-maps", "mlir::ModuleOp"> {
  let summary = "Runs shard_map bodies whole on a one-device mesh (a program not partitioned).";
  let description = [{
    A program over a mesh of one device is not partitioned: each `loom.shard_map` is replaced
    by its body, and the collectives in it (every group has one device) become what they are
    on one device: all_reduce, all_gather, reduce_scatter and all_to_all their operand, a
    collective_permute its operand if position 0 sends to itself and zeros otherwise,
    axis_index 0. A shard_map over a mesh of several devices is an error naming the mesh: its
    per-device code needs the partitioned program (`loom-partition`), on that many devices.
    A partitioned program has no shard_map left, so the pass changes nothing there.
  }];
  let dependentDialects = ["mlir::loom::LoomDialect"];
}

#endif // LOOM_PASSES_PASSES_TD
