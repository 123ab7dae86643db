// Passes that lower Loom IR towards native code. Each has an example; the order they run in
// is written once, in compiler/Pipeline/CpuPipeline.cpp.

#ifndef LOOM_LOWERING_PASSES_TD
#define LOOM_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToLinalg : Pass<"loom-lower-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lowers Loom ops to linalg, tensor, arith and math ops on tensors.";
  let description = [{
    Elementwise ops, broadcasts, reductions and gathers become `linalg.generic` ops (so that
    elementwise fusion can merge whole chains into one loop nest); transposes become
    `linalg.transpose`; `loom.dot_general` becomes transposes and reshapes around one
    `linalg.matmul` or `linalg.batch_matmul`; reshapes, slices and concatenations become
    tensor views.

    Input:
    ```mlir
    %1 = loom.exp %0 : tensor<4xf32>
    ```
    Output:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %x = math.exp %in : f32
      linalg.yield %x : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::scf::SCFDialect"];
}

def LowerMatmulToBlas : Pass<"loom-lower-matmul-to-blas", "mlir::ModuleOp"> {
  let summary = "Replaces f32/f64 linalg.matmul and linalg.batch_matmul on memrefs by BLAS calls.";
  let description = [{
    Runs after bufferization. Each matmul whose operands have unit inner stride becomes a call
    to `loom_rt_gemm_f32` / `loom_rt_gemm_f64` (runtime/Blas.h) with OpenBLAS; others are
    left to the loop lowering. A `linalg.fill` of zero into the output just before the matmul
    is folded into the call (beta = 0); otherwise the call accumulates (beta = 1).

    Input:
    ```mlir
    linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
    ```
    Output:
    ```mlir
    func.call @loom_rt_gemm_f32(%batch, %m, %n, %k, %pa, %offa, %lda, %sa, %pb, ..., %beta)
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def EmitEntry : Pass<"loom-emit-entry", "mlir::ModuleOp"> {
  let summary = "Adds the `loom_entry(void **buffers)` ABI wrapper around the main function.";
  let description = [{
    The runtime calls every compiled program the same way: one array of data pointers, the
    inputs then the outputs. Since all shapes are static, the wrapper rebuilds each memref
    descriptor from its pointer alone and calls the function named by `entry`, which becomes
    private (and is inlined by LLVM).

    Input:
    ```mlir
    func.func @main(%x: memref<4xf32>, %out: memref<4xf32>)
    ```
    Output:
    ```mlir
    func.func private @main(%x: memref<4xf32>, %out: memref<4xf32>)
    func.func @loom_entry(%buffers: !llvm.ptr) {
      // load buffers[0], buffers[1]; build descriptors; call @main
    }
    ```
  }];
  let options = [Option<"entry", "entry", "std::string", "\"main\"",
                        "the function the wrapper calls">];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect"];
}

def FuseElementwise : Pass<"loom-fuse-elementwise"> {
  let summary = "Fuses elementwise linalg.generic producers into their consumers.";
  let description = [{
    A chain like `gelu(x @ w + b)` becomes one loop nest after the matmul. Unlike upstream
    `linalg-fuse-elementwise-ops`, reshapes are not propagated through other ops: that pass
    rewrites a `linalg.matmul` whose result is reshaped into a rank-4 `linalg.generic`,
    which then no longer reaches BLAS (measured: a [8,64,128] x [128,512] product 20x slower).
    A producer is fused only into its single user, so no work is duplicated.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def DistinctResults : Pass<"loom-distinct-results", "mlir::ModuleOp"> {
  let summary = "Gives every buffer result of a public function its own buffer.";
  let description = [{
    Runs after bufferization, before results become out-params. After CSE two results may be
    one buffer, but the caller allocates one output buffer per result, and
    `buffer-results-to-out-params` cannot give one buffer to two results. A repeated result
    is replaced by a copy.

    Input:
    ```mlir
    return %0, %0 : memref<4xf32>, memref<4xf32>
    ```
    Output:
    ```mlir
    %1 = memref.alloc() : memref<4xf32>
    memref.copy %0, %1 : memref<4xf32> to memref<4xf32>
    return %0, %1 : memref<4xf32>, memref<4xf32>
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def ApproximateMath : Pass<"loom-approximate-math"> {
  let summary = "Rewrites math.exp/log/tanh/... as polynomials that vectorize.";
  let description = [{
    Calls to libm functions cannot be vectorized by LLVM; MLIR's polynomial approximations
    (within a few ulp in f32) can. f16/bf16 math is computed in f32.
  }];
  let dependentDialects = ["mlir::math::MathDialect", "mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

#endif // LOOM_LOWERING_PASSES_TD
