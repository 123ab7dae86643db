// Attributes of the Loom dialect: how a value is laid out over a device mesh.

#ifndef LOOM_IR_LOOMATTRS_TD
#define LOOM_IR_LOOMATTRS_TD

include "compiler/IR/LoomBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Loom_ShardingAttr : AttrDef<Loom_Dialect, "Sharding"> {
  let mnemonic = "sharding";
  let summary = "The layout of a tensor over the axes of a device mesh.";
  let description = [{
    Per tensor dim, the ordered list of mesh axes it is split over (major axis first; an empty
    list: not split), and the set of axes over which the value is **partial**: every device
    along those axes holds a part, and the value is the parts combined by the *combiner*
    (`sum` unless named: the summands of a matmul that contracts a split dim; `max` for a max
    over a split dim). Dims not listed (trailing) are not split. A value sharded on no dim and
    partial on none is replicated.
    ```mlir
    // dim 0 over "data", dim 1 not split; a pending sum over "model".
    #loom.sharding<@mesh, [["data"], []], partial = ["model"]>
    // replicated but for a pending max over "g".
    #loom.sharding<@mesh, [], partial max = ["g"]>
    ```
    **Constraints** (checked against the mesh and the tensor type by the ops that carry it):
    - every axis is an axis of the mesh, used at most once (over dims and partial together);
    - there are at most as many dim entries as the tensor's rank;
    - each dim's size divides by the product of its axes' sizes.
  }];
  let parameters = (ins "FlatSymbolRefAttr":$mesh, "ArrayAttr":$dims,
                        OptionalParameter<"ArrayAttr">:$partial,
                        DefaultValuedParameter<"ReduceKind", "ReduceKind::sum">:$combiner);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilderWithInferredContext<(ins "FlatSymbolRefAttr":$mesh,
        "ArrayRef<SmallVector<StringRef>>":$dims, CArg<"ArrayRef<StringRef>", "{}">:$partial,
        CArg<"ReduceKind", "ReduceKind::sum">:$combiner)>
  ];
  let extraClassDeclaration = [{
    /// The axes of dim `d` (empty for a dim that is not split or not listed).
    SmallVector<StringRef> axesOf(int64_t d) const;
    /// The axes of every dim of a rank-`rank` tensor.
    SmallVector<SmallVector<StringRef>> dimAxes(int64_t rank) const;
    /// The axes over which the value is a pending sum.
    SmallVector<StringRef> partialAxes() const;
    /// Whether no dim is split and nothing is pending.
    bool isReplicated() const;
  }];
}

#endif // LOOM_IR_LOOMATTRS_TD
