// The Loom dialect: its definition, the element and tensor types its ops accept, and its enums.
// Ops live in LoomOps.td.

#ifndef LOOM_IR_LOOMBASE_TD
#define LOOM_IR_LOOMBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Loom_Dialect : Dialect {
  let name = "loom";
  let cppNamespace = "::mlir::loom";
  let summary = "Tensor-level ops with static shapes for sharded training.";
  let description = [{
    Loom ops work on statically shaped tensors. Values have value semantics (no aliasing, no
    side effects), so every op is `Pure`. Binary elementwise ops take operands of one type:
    broadcasting is explicit through `loom.broadcast_in_dim`, which keeps every op's sharding
    rule a plain mapping of dimensions.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  // The discardable `loom.*` attributes (shardings, factors, aliases) are verified where they
  // appear, before any pass reads them (compiler/IR/DialectAttrs.cpp).
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

// Every tensor an op takes or makes has an element count and a byte size that fit in int64
// (compiler/IR/SizeChecks.cpp): shape arithmetic downstream never wraps.
def Loom_SizesFit : NativeOpTrait<"SizesFit"> { let cppNamespace = "::mlir::loom"; }

//===----------------------------------------------------------------------===//
// Element and tensor types
//===----------------------------------------------------------------------===//

def Loom_FloatElement : AnyTypeOf<[F32, F64, BF16, F16]>;
def Loom_IntElement : AnyTypeOf<[I32, I64]>;
def Loom_NumericElement : AnyTypeOf<[F32, F64, BF16, F16, I32, I64]>;
def Loom_Element : AnyTypeOf<[F32, F64, BF16, F16, I32, I64, I1]>;

def Loom_Tensor : StaticShapeTensorOf<[Loom_Element]>;
def Loom_NumericTensor : StaticShapeTensorOf<[Loom_NumericElement]>;
def Loom_FloatTensor : StaticShapeTensorOf<[Loom_FloatElement]>;
def Loom_IndexTensor : StaticShapeTensorOf<[Loom_IntElement]>;
def Loom_PredTensor : StaticShapeTensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Loom_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "comparison direction of loom.compare", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::loom";
}

def Loom_ReduceKind : I32EnumAttr<"ReduceKind", "combiner of loom.reduce", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>]> {
  let cppNamespace = "::mlir::loom";
}

#endif // LOOM_IR_LOOMBASE_TD
