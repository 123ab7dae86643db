// Ops of the Loom dialect for sharded programs: the device mesh, user sharding annotations,
// and the collectives and local slices the partitioner (loom-partition) emits. Collectives work
// on per-device (local) shapes, inside a function partitioned for one device of the mesh.

#ifndef LOOM_IR_LOOMSHARDINGOPS_TD
#define LOOM_IR_LOOMSHARDINGOPS_TD

include "compiler/IR/LoomAttrs.td"

def Loom_MeshOp : Op<Loom_Dialect, "mesh", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A named n-d array of devices with named axes.";
  let description = [{
    ```mlir
    loom.mesh @mesh axes = ["data", "model"] shape = [2, 4]
    ```
    **Constraints:**
    - as many axis names as sizes, at least one axis;
    - axis names are non-empty and distinct;
    - every size is at least 1.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axes, DenseI64ArrayAttr:$shape);
  let assemblyFormat = "$sym_name `axes` `=` $axes `shape` `=` $shape attr-dict";
  let extraClassDeclaration = [{
    /// The size of axis `name`, or std::nullopt if the mesh has no such axis.
    std::optional<int64_t> axisSize(StringRef name);
    /// The number of devices.
    int64_t numDevices();
  }];
  let hasVerifier = 1;
}

def Loom_ShardingConstraintOp : Loom_Op<"sharding_constraint", [SameOperandsAndResultType,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Requires a value to have a sharding (with_sharding_constraint).";
  let description = [{
    The identity on values; propagation treats `sharding` as fixed for the result, and the
    partitioner reshards the operand to it.
    ```mlir
    %1 = loom.sharding_constraint %0 : tensor<8x16xf32> to #loom.sharding<@mesh, [["data"], []]>
    ```
    **Constraints:**
    - the sharding is valid for the tensor on its mesh (see `#loom.sharding`) and has no
      partial axes.
  }];
  let arguments = (ins Loom_Tensor:$operand, Loom_ShardingAttr:$sharding);
  let results = (outs Loom_Tensor:$result);
  // The type comes first: a trailing `: type` would be read as the attribute's type.
  let assemblyFormat = "$operand `:` type($result) `to` qualified($sharding) attr-dict";
}

//===----------------------------------------------------------------------===//
// Collectives (local shapes)
//===----------------------------------------------------------------------===//

// A collective over `axes` of `mesh`. `reason` says why the partitioner emitted it (which op
// needed it, at which source location), `bytes` the bytes each device sends. Collectives are
// not Pure: CSE must not merge two all_gathers of one parameter (the forward's and the
// backward's), which would keep the gathered copy alive in between.
class Loom_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Op<Loom_Dialect, mnemonic, !listconcat(traits, [Loom_ShardingRuleOpInterface,
                                                      DeclareOpInterfaceMethods<SymbolUserOpInterface>,
                                                      Loom_SizesFit])> {
  let results = (outs Loom_Tensor:$result);
  // Every check needs the mesh's axis sizes, so all of them are in verifySymbolUses.
}

def Loom_AllGatherOp : Loom_CollectiveOp<"all_gather"> {
  let summary = "Concatenates the shards of all devices along `axes` on dim `dim`.";
  let description = [{
    ```mlir
    %1 = loom.all_gather %0, @mesh, dim = 0, axes = ["data"] : tensor<2x8xf32> -> tensor<8x8xf32>
    ```
    **Constraints:**
    - `dim` is a dim of the operand; the axes are distinct axes of the mesh;
    - the result is the operand with dim `dim` multiplied by the group size.
  }];
  let arguments = (ins Loom_Tensor:$operand, FlatSymbolRefAttr:$mesh, I64Attr:$dim,
                       StrArrayAttr:$axes, OptionalAttr<StrAttr>:$reason,
                       OptionalAttr<I64Attr>:$bytes);
  let assemblyFormat = [{
    $operand `,` $mesh `,` `dim` `=` $dim `,` `axes` `=` $axes attr-dict `:` type($operand)
    `->` type($result)
  }];
}

def Loom_ReduceScatterOp : Loom_CollectiveOp<"reduce_scatter"> {
  let summary = "Sums (or takes the max) over `axes` and leaves each device its slice of dim `dim`.";
  let description = [{
    The combiner is a sum unless `combiner = max` is given.
    ```mlir
    %1 = loom.reduce_scatter %0, @mesh, dim = 0, axes = ["data"] : tensor<8x8xf32> -> tensor<2x8xf32>
    %2 = loom.reduce_scatter %0, @mesh, dim = 0, axes = ["data"], combiner = max : tensor<8x8xf32> -> tensor<2x8xf32>
    ```
    **Constraints:**
    - `dim` is a dim of the operand; the axes are distinct axes of the mesh;
    - dim `dim` divides by the group size, and the result is the operand with that dim divided.
  }];
  let arguments = (ins Loom_NumericTensor:$operand, FlatSymbolRefAttr:$mesh, I64Attr:$dim,
                       StrArrayAttr:$axes,
                       DefaultValuedAttr<Loom_ReduceKind, "::mlir::loom::ReduceKind::sum">:$kind,
                       OptionalAttr<StrAttr>:$reason, OptionalAttr<I64Attr>:$bytes);
  let assemblyFormat = [{
    $operand `,` $mesh `,` `dim` `=` $dim `,` `axes` `=` $axes (`,` `combiner` `=` $kind^)?
    attr-dict `:` type($operand) `->` type($result)
  }];
}

def Loom_AllReduceOp : Loom_CollectiveOp<"all_reduce", [SameOperandsAndResultType]> {
  let summary = "Sums (or takes the max) over `axes`; every device gets the result.";
  let description = [{
    ```mlir
    %1 = loom.all_reduce sum %0, @mesh, axes = ["model"] : tensor<8x8xf32>
    ```
    **Constraints:**
    - the axes are distinct axes of the mesh.
  }];
  let arguments = (ins Loom_ReduceKind:$kind, Loom_NumericTensor:$operand,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes,
                       OptionalAttr<StrAttr>:$reason, OptionalAttr<I64Attr>:$bytes);
  let assemblyFormat = [{
    $kind $operand `,` $mesh `,` `axes` `=` $axes attr-dict `:` type($result)
  }];
}

def Loom_AllToAllOp : Loom_CollectiveOp<"all_to_all"> {
  let summary = "Moves the split of a tensor over `axes` from one dim to another.";
  let description = [{
    Each device cuts dim `split_dim` into group-size pieces, sends piece i to the i-th device
    of its group, and concatenates what it receives along `concat_dim`.
    ```mlir
    %1 = loom.all_to_all %0, @mesh, split_dim = 1, concat_dim = 0, axes = ["model"]
        : tensor<2x8xf32> -> tensor<8x2xf32>
    ```
    **Constraints:**
    - `split_dim` and `concat_dim` are distinct dims of the operand; the axes are distinct
      axes of the mesh;
    - `split_dim` divides by the group size; the result divides it and multiplies
      `concat_dim` by the group size.
  }];
  let arguments = (ins Loom_Tensor:$operand, FlatSymbolRefAttr:$mesh, I64Attr:$split_dim,
                       I64Attr:$concat_dim, StrArrayAttr:$axes, OptionalAttr<StrAttr>:$reason,
                       OptionalAttr<I64Attr>:$bytes);
  let assemblyFormat = [{
    $operand `,` $mesh `,` `split_dim` `=` $split_dim `,` `concat_dim` `=` $concat_dim `,`
    `axes` `=` $axes attr-dict `:` type($operand) `->` type($result)
  }];
}

def Loom_CollectivePermuteOp
    : Loom_CollectiveOp<"collective_permute", [SameOperandsAndResultType]> {
  let summary = "Sends each device's tensor to another device of its group over `axes`.";
  let description = [{
    `pairs` lists (source, target) positions in the group of `axes` (major axis first), as
    a flat list: source 0, target 0, source 1, target 1, ... The target of a pair gets its
    source's operand; a device no pair targets gets zeros. (JAX's `ppermute`, XLA's
    collective-permute.)
    ```mlir
    // A ring shift over 4 devices of "seq".
    %1 = loom.collective_permute %0, @mesh, axes = ["seq"], pairs = [0, 1, 1, 2, 2, 3, 3, 0]
        : tensor<2x8xf32>
    ```
    **Constraints:**
    - the axes are distinct axes of the mesh;
    - `pairs` has an even length; every position is in the group; no position is the source
      of two pairs, nor the target of two.
  }];
  let arguments = (ins Loom_Tensor:$operand, FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes,
                       DenseI64ArrayAttr:$pairs, OptionalAttr<StrAttr>:$reason,
                       OptionalAttr<I64Attr>:$bytes);
  let assemblyFormat = [{
    $operand `,` $mesh `,` `axes` `=` $axes `,` `pairs` `=` $pairs attr-dict `:` type($result)
  }];
}

def Loom_ShardSliceOp : Loom_CollectiveOp<"shard_slice"> {
  let summary = "Keeps this device's slice of dim `dim` of a value replicated over `axes`.";
  let description = [{
    No communication: the device with coordinate `i` in the group of `axes` (major axis
    first) keeps piece `i` of dim `dim`.
    ```mlir
    %1 = loom.shard_slice %0, @mesh, dim = 0, axes = ["data"] : tensor<8x8xf32> -> tensor<2x8xf32>
    ```
    **Constraints:**
    - `dim` is a dim of the operand; the axes are distinct axes of the mesh;
    - dim `dim` divides by the group size, and the result is the operand with that dim divided.
  }];
  let arguments = (ins Loom_Tensor:$operand, FlatSymbolRefAttr:$mesh, I64Attr:$dim,
                       StrArrayAttr:$axes, OptionalAttr<StrAttr>:$reason,
                       OptionalAttr<I64Attr>:$bytes);
  let assemblyFormat = [{
    $operand `,` $mesh `,` `dim` `=` $dim `,` `axes` `=` $axes attr-dict `:` type($operand)
    `->` type($result)
  }];
}

def Loom_AxisIndexOp : Loom_Op<"axis_index", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "This device's index in the group of `axes` (major axis first).";
  let description = [{
    In a partitioned program: on a mesh {"data": 2, "model": 4}, the device at coordinates
    (1, 3) has index 1 along ["data"], 3 along ["model"] and 7 along ["data", "model"]. The
    partitioner uses it to offset a split `loom.iota`, so random numbers drawn from global
    counters are the same whatever the mesh.
    ```mlir
    %0 = loom.axis_index @mesh, axes = ["data"] : tensor<i32>
    ```
    **Constraints:**
    - the axes are distinct axes of the mesh.
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let results = (outs 0DTensorOf<[I32]>:$result);
  let assemblyFormat = "$mesh `,` `axes` `=` $axes attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Per-device code (shard_map)
//===----------------------------------------------------------------------===//

def Loom_ShardMapOp : Op<Loom_Dialect, "shard_map", [IsolatedFromAbove, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>, Loom_SizesFit]> {
  let summary = "Runs its body on every device of the mesh, on each device's shards.";
  let description = [{
    The operands and results are global values. Each device's body gets its shard of operand
    i, as `in_shardings[i]` splits it, and yields its shard of result i, as `out_shardings[i]`
    assembles it (JAX's `shard_map`). The body is per-device code: it may call the collectives
    (`all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all`, `collective_permute`,
    `axis_index`) on the mesh's axes. Propagation takes the boundary's shardings as given and
    leaves the body alone; `loom-partition` reshards the operands and inlines the body.
    ```mlir
    %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, [["data"]]>]
        out_shardings = [#loom.sharding<@mesh, []>] : (tensor<8xf32>) -> tensor<f32> {
    ^bb0(%local: tensor<2xf32>):
      %s = loom.reduce sum %local dims = [0] : tensor<2xf32> -> tensor<f32>
      %t = loom.all_reduce sum %s, @mesh, axes = ["data"] : tensor<f32>
      loom.yield %t : tensor<f32>
    }
    ```
    **Constraints:**
    - one in sharding per operand and one out sharding per result, each on `mesh`, valid for
      its global type and with no partial axes;
    - the body's arguments are the operands' local types, and it yields the results' local
      types;
    - the body holds no `shard_map` or `sharding_constraint` (its values are per-device);
    - a result varies between devices only over axes its out sharding splits it over: a value
      that differs along "data" cannot be returned as replicated over "data" (reduce it with
      `all_reduce` first). Which axes a value varies over follows from the in shardings and
      the collectives (`compiler/IR/VaryingAxes.h`).
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, Variadic<Loom_Tensor>:$args,
                       TypedArrayAttrBase<Loom_ShardingAttr, "shardings">:$in_shardings,
                       TypedArrayAttrBase<Loom_ShardingAttr, "shardings">:$out_shardings);
  let results = (outs Variadic<Loom_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $mesh `(` $args `)` `in_shardings` `=` $in_shardings `out_shardings` `=` $out_shardings
    attr-dict `:` functional-type($args, results) $body
  }];
  let extraClassDeclaration = [{
    /// The yield ending the body.
    YieldOp yield();
  }];
}

def Loom_YieldOp : Op<Loom_Dialect, "yield", [Pure, Terminator, HasParent<"ShardMapOp">]> {
  let summary = "Ends a shard_map body with this device's shards of the results.";
  let arguments = (ins Variadic<Loom_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // LOOM_IR_LOOMSHARDINGOPS_TD
