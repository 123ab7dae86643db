// The ops of the Loom dialect. Every op documents its semantics with an IR example and a
// **Constraints** list; each constraint is enforced by the verifier (type constraints by ODS,
// the rest in LoomOps.cpp) and hit one by one by tests/lit/ops/*-invalid.mlir.

#ifndef LOOM_IR_LOOMOPS_TD
#define LOOM_IR_LOOMOPS_TD

include "compiler/IR/LoomBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "compiler/IR/LoomInterfaces.td"

class Loom_Op<string mnemonic, list<Trait> traits = []>
    : Op<Loom_Dialect, mnemonic, !listconcat(traits, [Pure, Loom_ShardingRuleOpInterface,
                                                      Loom_SizesFit])>;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Loom_ConstantOp : Loom_Op<"constant", [ConstantLike, AllTypesMatch<["value", "result"]>]> {
  let summary = "A tensor of known values.";
  let description = [{
    ```mlir
    %0 = loom.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
    **Constraints:**
    - the attribute's type is the result type.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Loom_IotaOp : Loom_Op<"iota"> {
  let summary = "Counts 0, 1, 2, ... along one dimension.";
  let description = [{
    `result[i_0, ..., i_n] = i_dim`.
    ```mlir
    %0 = loom.iota dim = 1 : tensor<2x3xi32>   // [[0, 1, 2], [0, 1, 2]]
    ```
    **Constraints:**
    - the result has rank >= 1;
    - `0 <= dim < rank(result)`.
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Loom_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

class Loom_UnaryOp<string mnemonic, Type tensorType, string formula,
                   list<Trait> traits = []>
    : Loom_Op<mnemonic, !listconcat(traits, [Elementwise, SameOperandsAndResultType])> {
  let summary = "Elementwise `" # formula # "`.";
  let description = [{
    Applies the function to every element; the result has the operand's type.
    ```mlir
    %1 = loom.}] # mnemonic # [{ %0 : tensor<4x8xf32>
    ```
    **Constraints:**
    - operand and result have the same type (the element types the op accepts are listed in
      the operand's type constraint).
  }];
  let arguments = (ins tensorType:$operand);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Loom_NegOp : Loom_UnaryOp<"neg", Loom_NumericTensor, "-x"> { let hasFolder = 1; }
def Loom_AbsOp : Loom_UnaryOp<"abs", Loom_NumericTensor, "|x|"> { let hasFolder = 1; }
def Loom_ExpOp : Loom_UnaryOp<"exp", Loom_FloatTensor, "e^x">;
def Loom_LogOp : Loom_UnaryOp<"log", Loom_FloatTensor, "ln(x)">;
def Loom_TanhOp : Loom_UnaryOp<"tanh", Loom_FloatTensor, "tanh(x)">;
def Loom_SqrtOp : Loom_UnaryOp<"sqrt", Loom_FloatTensor, "sqrt(x)">;
def Loom_RsqrtOp : Loom_UnaryOp<"rsqrt", Loom_FloatTensor, "1 / sqrt(x)">;
def Loom_LogisticOp : Loom_UnaryOp<"logistic", Loom_FloatTensor, "1 / (1 + e^-x)">;
def Loom_SinOp : Loom_UnaryOp<"sin", Loom_FloatTensor, "sin(x)">;
def Loom_CosOp : Loom_UnaryOp<"cos", Loom_FloatTensor, "cos(x)">;

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

class Loom_BinaryOp<string mnemonic, Type tensorType, string formula,
                    list<Trait> traits = []>
    : Loom_Op<mnemonic, !listconcat(traits, [Elementwise, SameOperandsAndResultType])> {
  let summary = "Elementwise `" # formula # "`.";
  let description = [{
    Both operands and the result have one type; broadcasting is explicit
    (`loom.broadcast_in_dim`).
    ```mlir
    %2 = loom.}] # mnemonic # [{ %0, %1 : tensor<4x8xf32>
    ```
    **Constraints:**
    - operands and result have the same type.
  }];
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Loom_AddOp : Loom_BinaryOp<"add", Loom_NumericTensor, "lhs + rhs", [Commutative]> {
  let hasCanonicalizer = 1;
}
def Loom_SubOp : Loom_BinaryOp<"sub", Loom_NumericTensor, "lhs - rhs">;
def Loom_MulOp : Loom_BinaryOp<"mul", Loom_NumericTensor, "lhs * rhs", [Commutative]>;
def Loom_DivOp : Loom_BinaryOp<"div", Loom_NumericTensor, "lhs / rhs">;
def Loom_MaxOp : Loom_BinaryOp<"max", Loom_NumericTensor, "max(lhs, rhs)", [Commutative]>;
def Loom_MinOp : Loom_BinaryOp<"min", Loom_NumericTensor, "min(lhs, rhs)", [Commutative]>;
def Loom_PowOp : Loom_BinaryOp<"pow", Loom_FloatTensor, "lhs ^ rhs">;

//===----------------------------------------------------------------------===//
// Bitwise ops (counter-based random numbers are built from them)
//===----------------------------------------------------------------------===//

def Loom_BitsTensor : StaticShapeTensorOf<[I1, I32, I64]>;
def Loom_IntTensor : StaticShapeTensorOf<[I32, I64]>;

def Loom_AndOp : Loom_BinaryOp<"and", Loom_BitsTensor, "lhs & rhs", [Commutative]> {
  let hasFolder = 0;
}
def Loom_OrOp : Loom_BinaryOp<"or", Loom_BitsTensor, "lhs | rhs", [Commutative]> {
  let hasFolder = 0;
}
def Loom_XorOp : Loom_BinaryOp<"xor", Loom_BitsTensor, "lhs ^ rhs", [Commutative]> {
  let hasFolder = 0;
}
// Shifts by an amount outside [0, bit width) give 0.
def Loom_ShiftLeftOp : Loom_BinaryOp<"shift_left", Loom_IntTensor, "lhs << rhs"> {
  let hasFolder = 0;
}
def Loom_ShiftRightLogicalOp
    : Loom_BinaryOp<"shift_right_logical", Loom_IntTensor, "lhs >>> rhs (zero fill)"> {
  let hasFolder = 0;
}

def Loom_BitcastConvertOp : Loom_Op<"bitcast_convert", [Elementwise]> {
  let summary = "Reinterprets each element's bits as another type of the same width.";
  let description = [{
    ```mlir
    %1 = loom.bitcast_convert %0 : tensor<4xi32> -> tensor<4xf32>
    ```
    **Constraints:**
    - operand and result have the same shape;
    - their element types have the same bit width.
  }];
  let arguments = (ins Loom_Tensor:$operand);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compare, select, convert
//===----------------------------------------------------------------------===//

def Loom_CompareOp : Loom_Op<"compare", [Elementwise, SameTypeOperands]> {
  let summary = "Elementwise comparison giving i1.";
  let description = [{
    Float comparisons are ordered (false when either side is NaN), except `ne`, which is
    true when either side is NaN (as C's `!=`).
    ```mlir
    %2 = loom.compare lt, %0, %1 : tensor<4xf32> -> tensor<4xi1>
    ```
    **Constraints:**
    - both operands have the same type;
    - the result is i1 with the operands' shape.
  }];
  let arguments = (ins Loom_ComparisonDirection:$direction, Loom_NumericTensor:$lhs,
                       Loom_NumericTensor:$rhs);
  let results = (outs Loom_PredTensor:$result);
  let assemblyFormat =
      "$direction `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let builders = [OpBuilder<(ins "ComparisonDirection":$direction, "Value":$lhs,
                                 "Value":$rhs)>];
  let extraClassDeclaration = [{
    /// The i1 tensor type with the shape of `operandType`.
    static RankedTensorType inferResultType(RankedTensorType operandType);
  }];
  let hasFolder = 1;
}

def Loom_SelectOp : Loom_Op<"select", [Elementwise,
    AllTypesMatch<["on_true", "on_false", "result"]>]> {
  let summary = "Elementwise `pred ? on_true : on_false`.";
  let description = [{
    ```mlir
    %3 = loom.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
    ```
    **Constraints:**
    - `on_true`, `on_false` and the result have the same type;
    - `pred` has the result's shape.
  }];
  let arguments = (ins Loom_PredTensor:$pred, Loom_Tensor:$on_true, Loom_Tensor:$on_false);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat =
      "$pred `,` $on_true `,` $on_false attr-dict `:` type($pred) `,` type($result)";
  let hasFolder = 1;
}

def Loom_ConvertOp : Loom_Op<"convert", [Elementwise]> {
  let summary = "Elementwise change of element type.";
  let description = [{
    Float to float rounds to nearest even; float to int truncates toward zero; int to float
    rounds to nearest; to i1 is `x != 0`; from i1 gives 0 or 1.
    ```mlir
    %1 = loom.convert %0 : tensor<4xf32> -> tensor<4xbf16>
    ```
    **Constraints:**
    - operand and result have the same shape.
  }];
  let arguments = (ins Loom_Tensor:$operand);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Loom_BroadcastInDimOp : Loom_Op<"broadcast_in_dim"> {
  let summary = "Broadcasts a tensor to a larger shape.";
  let description = [{
    Operand dim `i` becomes result dim `dims[i]`; other result dims are new. An operand dim of
    size 1 is repeated to the result dim's size.
    ```mlir
    %1 = loom.broadcast_in_dim %0, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
    ```
    **Constraints:**
    - `dims` has one entry per operand dim;
    - every entry of `dims` is a result dim (`0 <= d < rank(result)`);
    - `dims` is strictly increasing (a broadcast never transposes);
    - each operand dim has size 1 or the size of its result dim;
    - operand and result have the same element type.
  }];
  let arguments = (ins Loom_Tensor:$operand, DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $broadcast_dimensions attr-dict `:` type($operand) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Loom_ReshapeOp : Loom_Op<"reshape"> {
  let summary = "Reinterprets a tensor with another shape (row-major order).";
  let description = [{
    ```mlir
    %1 = loom.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
    ```
    **Constraints:**
    - operand and result have the same number of elements;
    - operand and result have the same element type.
  }];
  let arguments = (ins Loom_Tensor:$operand);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Loom_TransposeOp : Loom_Op<"transpose"> {
  let summary = "Permutes the dims of a tensor.";
  let description = [{
    Result dim `i` is operand dim `permutation[i]`.
    ```mlir
    %1 = loom.transpose %0, permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    ```
    **Constraints:**
    - `permutation` is a permutation of `0 .. rank(operand) - 1`;
    - the result type is the operand's with permuted dims.
  }];
  let arguments = (ins Loom_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `permutation` `=` $permutation attr-dict `:` type($operand) `->` type($result)
  }];
  let builders = [OpBuilder<(ins "Value":$operand, "ArrayRef<int64_t>":$permutation)>];
  let extraClassDeclaration = [{
    /// The result type, or failure (reported through `emitError`) for a bad permutation.
    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType operandType, ArrayRef<int64_t> permutation,
        function_ref<InFlightDiagnostic()> emitError);
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Loom_SliceOp : Loom_Op<"slice"> {
  let summary = "A strided box of a tensor.";
  let description = [{
    Result dim `i` has `ceil((limit[i] - start[i]) / strides[i])` elements, taken from
    `start[i]` in steps of `strides[i]`.
    ```mlir
    %1 = loom.slice %0, start = [0, 2], limit = [4, 8], strides = [1, 2]
        : tensor<4x8xf32> -> tensor<4x3xf32>
    ```
    **Constraints:**
    - `start`, `limit` and `strides` have one entry per operand dim;
    - `0 <= start[i] <= limit[i] <= dim(operand, i)`;
    - `strides[i] >= 1`;
    - the result type is the inferred one.
  }];
  let arguments = (ins Loom_Tensor:$operand, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$strides);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `start` `=` $start `,` `limit` `=` $limit `,` `strides` `=` $strides
    attr-dict `:` type($operand) `->` type($result)
  }];
  let builders = [OpBuilder<(ins "Value":$operand, "ArrayRef<int64_t>":$start,
                                 "ArrayRef<int64_t>":$limit, "ArrayRef<int64_t>":$strides)>];
  let extraClassDeclaration = [{
    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType operandType, ArrayRef<int64_t> start, ArrayRef<int64_t> limit,
        ArrayRef<int64_t> strides, function_ref<InFlightDiagnostic()> emitError);
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Loom_ConcatenateOp : Loom_Op<"concatenate"> {
  let summary = "Joins tensors along one dim.";
  let description = [{
    ```mlir
    %2 = loom.concatenate(%0, %1) dim = 0
        : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
    ```
    **Constraints:**
    - at least one input;
    - all inputs have the same rank and element type;
    - `0 <= dim < rank`;
    - the inputs agree on every dim but `dim`;
    - the result type is the inferred one.
  }];
  let arguments = (ins Variadic<Loom_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    `(` $inputs `)` `dim` `=` $dim attr-dict `:` `(` type($inputs) `)` `->` type($result)
  }];
  let builders = [OpBuilder<(ins "ValueRange":$inputs, "int64_t":$dim)>];
  let extraClassDeclaration = [{
    static FailureOr<RankedTensorType> inferResultType(
        TypeRange inputTypes, int64_t dim, function_ref<InFlightDiagnostic()> emitError);
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Contraction and reduction
//===----------------------------------------------------------------------===//

def Loom_DotGeneralOp : Loom_Op<"dot_general"> {
  let summary = "Batched tensor contraction (matmul, einsum with one product).";
  let description = [{
    Contracts `lhs_contracting_dimensions` of `lhs` with `rhs_contracting_dimensions` of `rhs`,
    pairing the batch dims. The result's dims are the batch dims (in `lhs` batch order), then
    the free dims of `lhs`, then the free dims of `rhs`, each in ascending order.
    ```mlir
    // A batched matmul [B, M, K] x [B, K, N] -> [B, M, N].
    %2 = loom.dot_general %0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [1]
        : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
    ```
    **Constraints:**
    - `lhs`, `rhs` and the result have the same element type, which is not i1;
    - lhs and rhs have as many batching dims as each other, and as many contracting dims;
    - every listed dim is a dim of its operand, listed once across batching and contracting;
    - paired batching dims have equal sizes, and so do paired contracting dims;
    - the result type is the inferred one.
  }];
  let arguments = (ins Loom_NumericTensor:$lhs, Loom_NumericTensor:$rhs,
                       DenseI64ArrayAttr:$lhs_batching_dimensions,
                       DenseI64ArrayAttr:$rhs_batching_dimensions,
                       DenseI64ArrayAttr:$lhs_contracting_dimensions,
                       DenseI64ArrayAttr:$rhs_contracting_dimensions);
  let results = (outs Loom_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,`
    `batching_dims` `=` $lhs_batching_dimensions `x` $rhs_batching_dimensions `,`
    `contracting_dims` `=` $lhs_contracting_dimensions `x` $rhs_contracting_dimensions
    attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let builders = [OpBuilder<(ins "Value":$lhs, "Value":$rhs,
      "ArrayRef<int64_t>":$lhsBatch, "ArrayRef<int64_t>":$rhsBatch,
      "ArrayRef<int64_t>":$lhsContract, "ArrayRef<int64_t>":$rhsContract)>];
  let extraClassDeclaration = [{
    /// The dims of a rank-`rank` operand that are neither batching nor contracting, in
    /// ascending order (the operand's "free" dims, which appear in the result).
    static SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> batching,
                                         ArrayRef<int64_t> contracting);

    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType lhsType, RankedTensorType rhsType,
        ArrayRef<int64_t> lhsBatch, ArrayRef<int64_t> rhsBatch,
        ArrayRef<int64_t> lhsContract, ArrayRef<int64_t> rhsContract,
        function_ref<InFlightDiagnostic()> emitError);
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Loom_ReduceOp : Loom_Op<"reduce"> {
  let summary = "Sum or max over a set of dims.";
  let description = [{
    The reduced dims are removed from the result. Sum of an empty set of elements is 0, max is
    the element type's lowest value.
    ```mlir
    %1 = loom.reduce sum %0, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    ```
    **Constraints:**
    - `dims` is strictly increasing and every entry is an operand dim;
    - the result type is the operand's without the reduced dims.
  }];
  let arguments = (ins Loom_ReduceKind:$kind, Loom_NumericTensor:$operand,
                       DenseI64ArrayAttr:$dims);
  let results = (outs Loom_NumericTensor:$result);
  let assemblyFormat = [{
    $kind $operand `,` `dims` `=` $dims attr-dict `:` type($operand) `->` type($result)
  }];
  let builders = [OpBuilder<(ins "ReduceKind":$kind, "Value":$operand,
                                 "ArrayRef<int64_t>":$dims)>];
  let extraClassDeclaration = [{
    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType operandType, ArrayRef<int64_t> dims,
        function_ref<InFlightDiagnostic()> emitError);
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Gather of rows and its adjoint
//===----------------------------------------------------------------------===//

def Loom_GatherOp : Loom_Op<"gather"> {
  let summary = "Takes rows of a table by index (embedding lookup).";
  let description = [{
    `result[i..., j...] = table[clamp(indices[i...], 0, rows - 1), j...]`: the result's shape
    is the indices' shape followed by the table's row shape. Indices out of range are clamped,
    which makes `loom.scatter_add` its exact adjoint.
    ```mlir
    %2 = loom.gather %table[%ids] : (tensor<100x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
    ```
    **Constraints:**
    - the table has rank >= 1;
    - the table has at least one row, unless there are no indices;
    - the result type is the inferred one.
  }];
  let arguments = (ins Loom_Tensor:$table, Loom_IndexTensor:$indices);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict `:` `(` type($table) `,` type($indices) `)` `->`
    type($result)
  }];
  let builders = [OpBuilder<(ins "Value":$table, "Value":$indices)>];
  let extraClassDeclaration = [{
    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType tableType, RankedTensorType indicesType,
        function_ref<InFlightDiagnostic()> emitError);
  }];
  let hasVerifier = 1;
}

def Loom_ScatterAddOp : Loom_Op<"scatter_add"> {
  let summary = "Adds rows into a zero table by index (adjoint of loom.gather).";
  let description = [{
    `result = 0; result[clamp(indices[i...], 0, rows - 1), j...] += updates[i..., j...]`.
    ```mlir
    %2 = loom.scatter_add %updates[%ids]
        : (tensor<4x8x16xf32>, tensor<4x8xi32>) -> tensor<100x16xf32>
    ```
    **Constraints:**
    - the result has rank >= 1 and a numeric element type;
    - `updates` has the element type of the result;
    - `updates` has shape `shape(indices) ++ shape(result)[1:]`.
  }];
  let arguments = (ins Loom_NumericTensor:$updates, Loom_IndexTensor:$indices);
  let results = (outs Loom_NumericTensor:$result);
  let assemblyFormat = [{
    $updates `[` $indices `]` attr-dict `:` `(` type($updates) `,` type($indices) `)` `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Padding (the adjoint of slice)
//===----------------------------------------------------------------------===//

def Loom_PadOp : Loom_Op<"pad"> {
  let summary = "Pads a tensor at both ends of each dim and between its elements.";
  let description = [{
    Dim `i` of the result has `low[i]` padding elements, then the operand's elements with
    `interior[i]` padding elements between each two, then `high[i]` padding elements; so it
    has `low + high + size + max(size - 1, 0) * interior` elements. The padding value is a
    rank-0 tensor. This is the adjoint of `loom.slice`.
    ```mlir
    %1 = loom.pad %0, %zero, low = [1], high = [0], interior = [1]
        : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>   // [p, a, p, b, p, c]
    ```
    **Constraints:**
    - the padding value is a rank-0 tensor of the operand's element type;
    - `low`, `high` and `interior` have one entry per operand dim, all >= 0;
    - the result type is the inferred one.
  }];
  let arguments = (ins Loom_Tensor:$operand, Loom_Tensor:$padding_value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
                       DenseI64ArrayAttr:$interior);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` $low `,` `high` `=` $high `,`
    `interior` `=` $interior attr-dict `:` `(` type($operand) `,` type($padding_value) `)`
    `->` type($result)
  }];
  let builders = [OpBuilder<(ins "Value":$operand, "Value":$paddingValue,
      "ArrayRef<int64_t>":$low, "ArrayRef<int64_t>":$high, "ArrayRef<int64_t>":$interior)>];
  let extraClassDeclaration = [{
    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType operandType, RankedTensorType paddingType, ArrayRef<int64_t> low,
        ArrayRef<int64_t> high, ArrayRef<int64_t> interior,
        function_ref<InFlightDiagnostic()> emitError);
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Differentiation
//===----------------------------------------------------------------------===//

def Loom_StopGradientOp : Loom_Op<"stop_gradient", [SameOperandsAndResultType]> {
  let summary = "The identity, through which no gradient flows.";
  let description = [{
    `loom-autodiff` treats the result as a constant; after differentiation the op is the
    identity (and lowers as such).
    ```mlir
    %1 = loom.stop_gradient %0 : tensor<4xf32>
    ```
    **Constraints:**
    - operand and result have the same type.
  }];
  let arguments = (ins Loom_Tensor:$operand);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Loom_OptimizationBarrierOp : Loom_Op<"optimization_barrier",
                                          [SameOperandsAndResultType]> {
  let summary = "The identity, which no rewrite looks through.";
  let description = [{
    What `loom-autodiff` recomputes of a rematerialized group (`loom.remat`) reads the
    group's inputs through barriers, so that CSE cannot merge the recomputation back into
    the forward ops it repeats (and keep their values alive after all). It has no folder; it
    stays through the lowering to linalg, and `loom-drop-optimization-barriers` removes it
    before bufferization.
    ```mlir
    %1 = loom.optimization_barrier %0 : tensor<4xf32>
    ```
    **Constraints:**
    - operand and result have the same type.
  }];
  let arguments = (ins Loom_Tensor:$operand);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Loom_ValueAndGradOp : Loom_Op<"value_and_grad",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Calls a function and returns its results and the gradient of the first.";
  let description = [{
    The callee's first result is a scalar (rank-0 float tensor), the value differentiated; any
    further results are auxiliary outputs returned as they are. The op's results are the
    callee's results followed by the gradient of the value with respect to each argument
    listed in `wrt`. `loom-autodiff` replaces the op by a call to a generated function.
    ```mlir
    %loss, %dw = loom.value_and_grad @loss(%w, %x) wrt = [0]
        : (tensor<4x2xf32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<4x2xf32>)
    ```
    **Constraints:**
    - `callee` names a `func.func` in the enclosing module;
    - the operands match the callee's argument types;
    - the callee's first result is a rank-0 float tensor;
    - `wrt` is strictly increasing, and each entry is a float argument of the callee;
    - the results are the callee's results followed by the types of the `wrt` arguments.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Loom_Tensor>:$args,
                       DenseI64ArrayAttr:$wrt);
  let results = (outs Variadic<Loom_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` `wrt` `=` $wrt attr-dict `:` functional-type($args, results)
  }];
}

include "compiler/IR/LoomAttentionOps.td"
include "compiler/IR/LoomDynamicSliceOps.td"
include "compiler/IR/LoomShardingOps.td"

#endif // LOOM_IR_LOOMOPS_TD
