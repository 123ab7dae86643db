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
                           "mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::func::FuncDialect"];
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
  let options = [Option<"onGpu", "gpu", "bool", "false",
                        "call loom_rt_gpu_gemm_* (cuBLAS on the CUDA device, runtime/CudaBlas.h)">];
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
    A producer with one user fuses into it, reductions included. A producer with several
    users is copied into each when that costs no memory traffic: a value of the indices alone
    (a causal mask, which would otherwise be written as an i1 tensor whose loads also kept
    its users' loops from vectorizing), or a few additions or multiplications reading at most
    one full-size tensor (a layer norm's `x - mean`, read by the variance, the output and the
    backward). Otherwise it joins an elementwise user over the same elements, when its other
    users come after it, as one more result of the fused loop, which its other users then
    read: AdamW's new moments and its parameter update become one pass. Nothing else is
    computed twice.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def DistinctResults : Pass<"loom-distinct-results", "mlir::ModuleOp"> {
  let summary = "Gives every buffer result of a public function its own buffer.";
  let description = [{
    Runs after bufferization, before results become out-params. After CSE two results may be
    one buffer, but the caller allocates one output buffer per result, and
    `buffer-results-to-out-params` cannot give one buffer to two results. A repeated result
    is replaced by a copy. A repeated block (`loom.block`, whose callers are all in the module)
    instead returns it once, and its calls read that result in both places.

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

def ReturnReshapedAllocs : Pass<"loom-return-reshaped-allocs", "mlir::ModuleOp"> {
  let summary = "Allocates a returned reshape of a buffer in the returned shape.";
  let description = [{
    Runs after bufferization, just before `buffer-results-to-out-params{hoist-static-allocs}`,
    which makes a returned `memref.alloc` the caller's buffer but copies anything else into
    it. A function that returns a reshape (expand_shape, collapse_shape) of a buffer it
    allocates, as a layer returns its GEMM's [M, N] product as [B, T, N], then allocates the
    returned shape and reshapes that for its own uses: the product is written straight into
    the caller's buffer, with no copy after the function's work.

    Input:
    ```mlir
    %0 = memref.alloc() : memref<8x4xf32>
    linalg.fill ins(%cst : f32) outs(%0 : memref<8x4xf32>)
    %1 = memref.expand_shape %0 [[0, 1], [2]] output_shape [2, 4, 4] : memref<8x4xf32> into memref<2x4x4xf32>
    return %1 : memref<2x4x4xf32>
    ```
    Output:
    ```mlir
    %0 = memref.alloc() : memref<2x4x4xf32>
    %1 = memref.collapse_shape %0 [[0, 1], [2]] : memref<2x4x4xf32> into memref<8x4xf32>
    linalg.fill ins(%cst : f32) outs(%1 : memref<8x4xf32>)
    return %0 : memref<2x4x4xf32>
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def DonateArguments : Pass<"loom-donate-arguments", "mlir::ModuleOp"> {
  let summary = "Makes a donated argument's buffer the home of its paired result.";
  let description = [{
    Runs on tensors, just before bufferization. An argument of a public function that carries
    `loom.aliased_output = i` was donated by the caller: its buffer may be overwritten and
    result `i` (same type) should be written into it, so that a train step updates parameters
    and optimizer state in place. The pass marks that argument writable and routes result `i`
    through `bufferization.materialize_in_destination` into it; empty-tensor elimination then
    lets the producing loop write there directly. Every other argument is marked read-only, so
    bufferization never writes into a buffer the caller still owns.

    An argument is not aliased (its attribute is dropped) when its value, or a view of it, is
    also returned elsewhere: that output must still see the old contents.

    When the result comes from a call of a private function that read the donated argument
    as an operand (a layer's optimizer update, outlined once for all layers), and every call
    of that function donates that result into that operand, the write-back moves into the
    function, once: the caller keeps no write-back per layer, so its bufferization does not
    grow with depth.

    Input:
    ```mlir
    func.func @main(%p: tensor<4xf32> {loom.aliased_output = 0 : i64}, %g: tensor<4xf32>)
        -> tensor<4xf32> {
      %0 = linalg.generic ... ins(%p, %g) outs(%e) ...
      return %0 : tensor<4xf32>
    }
    ```
    Output:
    ```mlir
    func.func @main(%p: tensor<4xf32> {bufferization.writable = true, loom.aliased_output = 0},
                    %g: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32> {
      %0 = linalg.generic ... ins(%p, %g) outs(%e) ...
      %1 = bufferization.materialize_in_destination %0 in %p : (...) -> tensor<4xf32>
      return %1 : tensor<4xf32>
    }
    ```
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def DropDonatedResults : Pass<"loom-drop-donated-results", "mlir::ModuleOp"> {
  let summary = "Removes results that bufferization placed in their donated argument.";
  let description = [{
    Runs after bufferization, before results become out-params. A result that is the buffer
    of the argument donated for it needs no output buffer: the caller already holds that
    memory. The function gets `loom.output_aliases`, one entry per original result: the
    argument it lives in, or -1; `loom-emit-entry` turns that into the exported table the
    runtime reads. The `bufferization.writable` argument attributes are removed.

    Input:
    ```mlir
    func.func @main(%p: memref<4xf32> {loom.aliased_output = 0 : i64}) -> memref<4xf32> {
      ...
      return %p : memref<4xf32>
    }
    ```
    Output:
    ```mlir
    func.func @main(%p: memref<4xf32> {loom.aliased_output = 0 : i64})
        attributes {loom.output_aliases = array<i64: 0>} {
      ...
      return
    }
    ```
  }];
}

def DropOptimizationBarriers : Pass<"loom-drop-optimization-barriers"> {
  let summary = "Replaces each loom.optimization_barrier by its operand.";
  let description = [{
    Runs first in bufferization, after the last CSE of tensors: by then the recomputations
    that rematerialization put behind barriers are kernels of their own, and no later pass
    merges identical ops on buffers (they read and write memory).
  }];
}

def PrivatizeInits : Pass<"loom-privatize-inits"> {
  let summary = "Gives each destination-style op its own filled init tensor.";
  let description = [{
    Runs just before bufferization. CSE merges identical `linalg.fill`s, so several matmuls
    and reductions may start from one zero tensor. Bufferization must then copy it for all
    but one of them (each writes its init in place), and a matmul whose output is a copy of
    zeros no longer has the zero fill next to it that `loom-lower-matmul-to-blas` folds into
    beta = 0. A fill is cheaper than a copy, so each user gets its own, created next to it.

    Input:
    ```mlir
    %z = linalg.fill ins(%zero) outs(%e) -> tensor<4x4xf32>
    %a = linalg.matmul ins(...) outs(%z)
    %b = linalg.matmul ins(...) outs(%z)
    ```
    Output:
    ```mlir
    %e1 = tensor.empty() : tensor<4x4xf32>
    %z1 = linalg.fill ins(%zero) outs(%e1) -> tensor<4x4xf32>
    %a = linalg.matmul ins(...) outs(%z1)
    %e2 = tensor.empty() : tensor<4x4xf32>
    %z2 = linalg.fill ins(%zero) outs(%e2) -> tensor<4x4xf32>
    %b = linalg.matmul ins(...) outs(%z2)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"];
}

def ElementwiseInPlace : Pass<"loom-elementwise-in-place"> {
  let summary = "Writes an elementwise op's result over an input that dies with it.";
  let description = [{
    Runs just before bufferization. An elementwise `linalg.generic` (all loops parallel)
    whose init is an empty tensor it never reads takes as init instead an input of the same
    type, read at the same element (identity maps), that nothing else uses and that will be a
    buffer of its own (a result of destination-style ops starting from an empty tensor). The
    op then bufferizes in place: a layer's bias and activation overwrite the GEMM's product,
    whose rows the same thread has just written, rather than a fresh buffer that it must
    first fetch. One buffer less per such op while the step runs. Function arguments and
    views of them are never taken, so bufferization never needs a copy for it.

    Input:
    ```mlir
    %p = linalg.matmul ins(%x, %w) outs(%zeros) -> tensor<4x8xf32>
    %e = tensor.empty() : tensor<4x8xf32>
    %y = linalg.generic ... ins(%p, %bias) outs(%e) { max(p + b, 0) }
    ```
    Output:
    ```mlir
    %y = linalg.generic ... ins(%p, %bias) outs(%p) { max(p + b, 0) }
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def SinkDeallocs : Pass<"loom-sink-deallocs"> {
  let summary = "Moves each memref.dealloc of a temporary right after its last use.";
  let description = [{
    Runs after the buffer deallocation pipeline, which frees every temporary of a function's
    top-level block at the end of the function: a train step would then hold all of its
    activations, gradients and scratch buffers at once. A dealloc moves up to just after the
    last op of its block that uses the buffer, a view of it, or a value computed from it (such
    as a pointer extracted for a BLAS call); a use inside a loop counts as a use by the loop.
    The freed memory is then reused by later temporaries of the same step.

    Input:
    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.generic ... outs(%a)
    linalg.generic ins(%a) outs(%out)
    ... (much more work)
    memref.dealloc %a : memref<4xf32>
    ```
    Output:
    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.generic ... outs(%a)
    linalg.generic ins(%a) outs(%out)
    memref.dealloc %a : memref<4xf32>
    ... (much more work)
    ```
  }];
}

def SplitDeallocs : Pass<"loom-split-deallocs", "mlir::func::FuncOp"> {
  let summary = "Splits a dealloc of distinct allocations into one dealloc per allocation.";
  let description = [{
    Runs after ownership-based-buffer-deallocation, which frees every temporary of a block with
    one `bufferization.dealloc` at its end, and before buffer-deallocation-simplification, which
    splits such an op by checking every pair of its buffers for aliasing: quadratic in the
    temporaries of a step (0.09 s for a 12-layer GPT step, against 0.007 s for 2 layers). When
    the op retains nothing and each buffer is the result of its own `memref.alloc`, no two
    alias, and the op is split here in one pass over it.

    Input:
    ```mlir
    bufferization.dealloc (%a, %b : memref<4xf32>, memref<8xf32>) if (%true, %true)
    ```
    Output:
    ```mlir
    bufferization.dealloc (%a : memref<4xf32>) if (%true)
    bufferization.dealloc (%b : memref<8xf32>) if (%true)
    ```
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def ProfileKernels : Pass<"loom-profile-kernels", "mlir::ModuleOp"> {
  let summary = "Brackets each kernel call of a step with the profiler's begin and end calls.";
  let description = [{
    Runs after loom-outline-kernels when the timeline profiler is on (`LOOM_PROFILE`). In each
    public function, every call to a kernel (a private function defined in the module) gets
    `loom_rt_profile_begin()` before it and `loom_rt_profile_end(name)` after it, where `name`
    is the address (as i64) of a constant, NUL-terminated copy of the kernel's name: the
    profiler then records one event per kernel call on the running device's track.

    Input:
    ```mlir
    call @"exp_sub:Layers.cpp:34"(%a, %b) : (memref<8xf32>, memref<8xf32>) -> ()
    ```
    Output:
    ```mlir
    call @loom_rt_profile_begin() : () -> ()
    call @"exp_sub:Layers.cpp:34"(%a, %b) : (memref<8xf32>, memref<8xf32>) -> ()
    %name = memref.get_global @loom_profile_name_0 : memref<18xi8>
    %pointer = memref.extract_aligned_pointer_as_index %name : memref<18xi8> -> index
    %address = arith.index_cast %pointer : index to i64
    call @loom_rt_profile_end(%address) : (i64) -> ()
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def LowerStridedCopies : Pass<"loom-lower-strided-copies"> {
  let summary = "Turns copies to or from strided views into linalg.copy; drops self-copies.";
  let description = [{
    Bufferization writes a concatenation's parts into strided views of its result with
    `memref.copy`. Between two contiguous buffers that is one `memcpy`; otherwise it would
    be a call of MLIR's generic `memrefCopy`, which walks the elements one at a time with
    index arithmetic (several nanoseconds each). As `linalg.copy` it becomes a loop nest
    like any other: a vectorized kernel, run on the device's threads when large. A copy of a
    buffer onto itself, or of a view onto an identical view of the same buffer (a part its
    producer already wrote in place, as the attention gradient does), is erased.

    Input:
    ```mlir
    memref.copy %a, %view : memref<8x64xf32> to memref<8x64xf32, strided<[192, 1], offset: 64>>
    ```
    Output:
    ```mlir
    linalg.copy ins(%a : memref<8x64xf32>)
                outs(%view : memref<8x64xf32, strided<[192, 1], offset: 64>>)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def TileTransposedLoops : Pass<"loom-tile-transposed-loops"> {
  let summary = "Runs a loop nest that reads (or writes) a buffer transposed in square tiles.";
  let description = [{
    A loop nest whose innermost dim runs down a buffer's column (a transpose, or an
    elementwise op on one: `out[i, j] = x[j, i]`) touches a new cache line in every
    iteration, each a row apart; with rows a power of two apart the lines fall into the same
    cache sets, evict one another before their other elements are used, and a 1024 x 1024
    f32 transpose ran at 1.7 GB/s. Such an `scf.parallel` (constant bounds, a body without
    loops) is split into tiles of the two dims: the one indexing the buffer's last dim and
    the innermost one. Within a tile of `tile-size` x `tile-size` iterations the lines it
    reads stay in the first-level cache until all their elements are used; the innermost dim
    stays innermost, so the other accesses stay contiguous. Tiles are the outer loop's
    iterations, which loom-parallel-kernels shares among the device's threads. The tile of a
    dim is the largest divisor of its extent from half the tile size to the tile size (the
    inner loops then have constant bounds), else the tile size, clamped at the extent's end.

    Input:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c1024, %c1024) step (%c1, %c1) {
      %v = memref.load %x[%j, %i] : memref<1024x1024xf32>
      memref.store %v, %out[%i, %j] : memref<1024x1024xf32>
    }
    ```
    Output:
    ```mlir
    scf.parallel (%ti, %tj) = (%c0, %c0) to (%c1024, %c1024) step (%c32, %c32) {
      scf.parallel (%ii, %jj) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
        %i = arith.addi %ti, %ii : index
        %j = arith.addi %tj, %jj : index
        %v = memref.load %x[%j, %i] : memref<1024x1024xf32>
        memref.store %v, %out[%i, %j] : memref<1024x1024xf32>
      }
    }
    ```
  }];
  let options = [
    Option<"tileSize", "tile-size", "int64_t", /*default=*/"8",
           "Iterations of each of the two dims in a tile.">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def PromoteAccumulators : Pass<"loom-promote-accumulators"> {
  let summary = "Keeps a reduction loop's accumulator in a register.";
  let description = [{
    A reduction lowered to loops loads and stores its output element in every iteration of
    the reduced dim; LLVM cannot keep it in a register, since the output buffer may alias the
    inputs as far as it knows. In an `scf.for` whose body stores to a buffer once, at indices
    defined outside the loop, after one load of the same element, with no other access to
    that buffer and no other memory writes or calls, the element becomes a loop-carried value:
    loaded once before the loop and stored once after it. A sum's `arith.addf` gets the
    `reassoc` and `nsz` flags, so that LLVM vectorizes it with a partial sum per lane (the rounding
    differs from a serial sum, as PyTorch's vectorized sums do; it does not depend on threads
    or chunks); max and min reductions are exact in any order.

    Input:
    ```mlir
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %in[%i, %k] : memref<8x64xf32>
      %acc = memref.load %out[%i] : memref<8xf32>
      %m = arith.maximumf %x, %acc : f32
      memref.store %m, %out[%i] : memref<8xf32>
    }
    ```
    Output:
    ```mlir
    %init = memref.load %out[%i] : memref<8xf32>
    %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %init) -> (f32) {
      %x = memref.load %in[%i, %k] : memref<8x64xf32>
      %m = arith.maximumf %x, %acc : f32
      scf.yield %m : f32
    }
    memref.store %r, %out[%i] : memref<8xf32>
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"];
}

def FuseRowLoops : Pass<"loom-fuse-row-loops"> {
  let summary = "Runs consecutive loop nests over the same rows as one loop over the rows.";
  let description = [{
    A layer norm, a softmax or a cross-entropy lowers to several loop nests over the same
    rows, each a pass over all of them: a reduction (`scf.parallel` over the rows, an
    `scf.for` along each row), an elementwise nest over every element, another reduction of
    its result, and so on. Each pass reads the whole tensor from memory again. Consecutive
    `scf.parallel` nests whose leading dims have the same extents (at least 64 rows in all)
    become one `scf.parallel` over those dims, whose body runs each nest's body in turn, the
    rest of its dims as sequential `scf.for` loops: the row is read from cache after its
    first pass.

    Fusion is legal when every buffer either nest writes is accessed by both only in the
    current row: its leading dims are indexed by the loops' induction variables, in order
    (through `memref.expand_shape`, `collapse_shape` and `cast` views, which are followed to
    the buffer). Nests with other memory effects (calls, copies, subviews) are not fused.
    Allocations, constants and views between two nests move before the first. Distinct
    allocations and function arguments are taken not to alias, as bufferization makes them.

    Input:
    ```mlir
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %s = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (f32) { ... }
      memref.store %s, %sum[%i] : memref<128xf32>
    }
    scf.parallel (%i, %k) = (%c0, %c0) to (%c128, %c256) step (%c1, %c1) {
      %x = memref.load %in[%i, %k] : memref<128x256xf32>
      %s = memref.load %sum[%i] : memref<128xf32>
      %d = arith.subf %x, %s : f32
      memref.store %d, %out[%i, %k] : memref<128x256xf32>
    }
    ```
    Output:
    ```mlir
    scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
      %s = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (f32) { ... }
      memref.store %s, %sum[%i] : memref<128xf32>
      scf.for %k = %c0 to %c256 step %c1 {
        %x = memref.load %in[%i, %k] : memref<128x256xf32>
        ...
      }
    }
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"];
}

def ParallelKernels : Pass<"loom-parallel-kernels", "mlir::ModuleOp"> {
  let summary = "Lets large kernels with a parallel outer loop run it in chunks.";
  let description = [{
    Runs after loom-outline-kernels. A kernel whose body is one `scf.parallel` with constant
    bounds, doing at least `min-work` innermost iterations in all, gets two leading index
    arguments `lo` and `hi`: it then runs iterations [lo, hi) of its leading dims (a prefix
    of them flattened into one range of at least 64 iterations where they are short, the
    last dim left as a loop for LLVM to vectorize unless the body already loops along the
    contiguous dim, as a row reduction does). The kernel is marked with the range's
    extent (`loom.parallel_extent`) and the fewest iterations worth a chunk
    (`loom.parallel_grain`, about `chunk-work` innermost iterations); callers pass the whole
    range, so the program is still correct on one thread. loom-dispatch-parallel-kernels
    later hands the range to the device's worker pool. Each iteration of a parallel loop
    writes its own elements, so the results do not depend on how it is split.

    Input (min-work=1024):
    ```mlir
    func.func private @k(%a: memref<64x64xf32>) {
      scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) { ... }
      return
    }
    ```
    Output:
    ```mlir
    func.func private @k(%lo: index, %hi: index, %a: memref<64x64xf32>)
        attributes {loom.parallel_extent = 64 : i64, loom.parallel_grain = 128 : i64} {
      scf.for %i = %lo to %hi step %c1 {
        scf.parallel (%j) = (%c0) to (%c64) step (%c1) { ... }
      }
      return
    }
    ```
  }];
  let options = [
    // 32K rather than 128K: the tiny GPT's layer norms and AdamW updates of 64K elements
    // then take two threads, and its kernels other than GEMMs and attention took 0.86-0.92
    // ms a step instead of 1.02-1.05, its optimizer 0.34-0.36 ms instead of 0.44-0.45.
    Option<"minWork", "min-work", "int64_t", "32768",
           "innermost iterations below which a kernel stays on one thread">,
    Option<"chunkWork", "chunk-work", "int64_t", "32768",
           "innermost iterations a chunk should at least do">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def PointerBuffers : Pass<"loom-pointer-buffers", "mlir::ModuleOp"> {
  let summary = "Passes static buffers between functions as data pointers, before the memref lowering.";
  let description = [{
    Runs after loom-emit-entry, before the memref lowering. The memref lowering gives every
    buffer value a descriptor of 3 + 2 x rank words, built by a chain of inserts; a step's
    function holds some 30 buffers per layer (each layer's saved activations and
    gradients), so that chain made its lowered form, and the time spent lowering it, grow
    with depth. Here:

    - a private function whose buffer arguments all have a static shape and layout, that
      returns no buffer and is only called, takes `!llvm.ptr` for each buffer; an argument
      that an op still needs whole gets its descriptor built at the entry, once per
      function, as the bare-pointer calling convention would;
    - an allocation used only as such a call's operand, deallocated, or reshaped for those
      uses becomes the allocator call the memref lowering would make
      (`_mlir_memref_to_llvm_alloc`, or `_aligned_alloc` with an alignment), and its
      deallocation the matching free: no descriptor;
    - any other buffer passed to such a call passes its aligned data pointer (the entry's
      descriptors are looked through and then erased).

    Input:
    ```mlir
    func.func private @layer(%x: memref<8x256xf32>, %y: memref<8x256xf32>)
    func.func private @main(%p: memref<8x256xf32>) {
      %a = memref.alloc() : memref<8x256xf32>
      call @layer(%p, %a) : (memref<8x256xf32>, memref<8x256xf32>) -> ()
      memref.dealloc %a : memref<8x256xf32>
    }
    ```
    Output:
    ```mlir
    func.func private @layer(%x: !llvm.ptr, %y: !llvm.ptr)
    func.func private @main(%p: !llvm.ptr) {
      %a = llvm.call @_mlir_memref_to_llvm_alloc(%c8192) : (i64) -> !llvm.ptr
      call @layer(%p, %a) : (!llvm.ptr, !llvm.ptr) -> ()
      llvm.call @_mlir_memref_to_llvm_free(%a) : (!llvm.ptr) -> ()
    }
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def FuncToLLVM : Pass<"loom-func-to-llvm", "mlir::ModuleOp"> {
  let summary = "func-to-llvm, passing buffers as bare pointers where every signature allows.";
  let description = [{
    Runs `convert-func-to-llvm` with `use-bare-ptr-memref-call-conv` when every buffer in a
    function signature has a static shape, static strides and at least one element, and no
    external function takes a buffer; otherwise with memref descriptors. Loom's buffers are
    static, so calls of a step's layer functions and kernels pass one pointer per buffer
    rather than a descriptor of 3 + 2 x rank words. Loom's argument annotations
    (`loom.sharding`, `loom.aliased_output`) are dropped first: they have been read by now.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def PrefetchUpdates : Pass<"loom-prefetch-updates", "mlir::ModuleOp"> {
  let summary = "In-place updates ask for the lines of a row ahead for writing.";
  let description = [{
    Runs after loom-parallel-kernels, on the CPU. A chunked kernel whose loop along a row
    loads and stores the same elements of a buffer (an optimizer's update of a parameter or
    of its moments, in place) gets, before that loop, a loop over the lines of the row some
    iterations ahead (at least 1 KB on, never past the chunk's last row) with a
    `memref.prefetch` for writing of each: the core owns those lines before its stores reach
    them. A step's GEMMs leave each weight's lines in every core's cache (each core's rows of
    C read all of B), and each store of the update would otherwise wait for the other cores'
    copies to be invalidated, one line at a time. Rows under 256 bytes or over 16 KB are left
    alone. The results do not change.

    Input:
    ```mlir
    func.func private @update(%lo: index, %hi: index, %p: memref<784x512xf32>,
                              %g: memref<784x512xf32>) attributes {loom.parallel_extent = 784} {
      scf.for %i = %lo to %hi step %c1 {
        scf.parallel (%j) = (%c0) to (%c512) step (%c1) {
          %x = memref.load %p[%i, %j] : memref<784x512xf32>
          ...
          memref.store %y, %p[%i, %j] : memref<784x512xf32>
        }
      }
    }
    ```
    Output (before the scf.parallel):
    ```mlir
    %last = arith.subi %hi, %c1 : index
    %next = arith.minui (%i + 1), %last : index
    scf.for %k = %c0 to %c512 step %c16 {
      memref.prefetch %p[%next, %k], write, locality<3>, data : memref<784x512xf32>
    }
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def MarkParallelLoops : Pass<"loom-mark-parallel-loops", "mlir::ModuleOp"> {
  let summary = "Lowers innermost scf.parallel loops to scf.for nests, the inner loop annotated as parallel.";
  let description = [{
    Runs before convert-scf-to-cf on the CPU. An scf.parallel with no reductions and no loop
    inside becomes a nest of scf.for, one per dim, whose innermost carries
    `llvm.loop_annotation = #llvm.loop_annotation<parallelAccesses = #group>` with a fresh
    access group; convert-scf-to-cf moves the attribute onto the loop's latch branch, and
    loom-parallel-access-groups puts the loop's memory accesses into the group. LLVM then
    vectorizes the loop without checking at run time whether its buffers overlap (it
    cannot tell from a kernel's argument struct), and without a scalar copy of the loop.

    Input:
    ```mlir
    scf.parallel (%j) = (%c0) to (%c512) step (%c1) {
      %x = memref.load %in[%j] : memref<512xf32>
      memref.store %x, %out[%j] : memref<512xf32>
      scf.reduce
    }
    ```
    Output:
    ```mlir
    scf.for %j = %c0 to %c512 step %c1 {
      ...
    } {llvm.loop_annotation = #llvm.loop_annotation<parallelAccesses = #access_group>}
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::LLVM::LLVMDialect"];
}

def ParallelAccessGroups : Pass<"loom-parallel-access-groups", "mlir::ModuleOp"> {
  let summary = "Puts the memory accesses of loops marked parallel into their access group.";
  let description = [{
    Runs on the LLVM dialect, after the control-flow lowering. A latch `llvm.br` carrying a
    discardable `llvm.loop_annotation` (loom-mark-parallel-loops) gets it as its
    `loop_annotation`, and each load and store of the loop (the blocks that reach the latch
    without passing its header) joins the annotation's parallel access groups, which LLVM
    requires of every access before it treats a loop as parallel.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def DispatchParallelKernels : Pass<"loom-dispatch-parallel-kernels", "mlir::ModuleOp"> {
  let summary = "Calls chunked kernels through the runtime's parallel_for.";
  let description = [{
    Runs on the LLVM dialect, after loom-parallel-kernels' kernels and their calls are
    lowered. A kernel marked `loom.parallel_extent` and `loom.parallel_grain` takes
    `(ptr context, i64 lo, i64 hi)` instead of `(lo, hi, args...)`: a new entry block loads
    its arguments from the context struct. Each call stores the arguments in a struct on
    the caller's stack and calls `loom_rt_parallel_for(@kernel, context, extent, grain)`,
    which runs the chunks on the calling device's worker pool and returns when all are done.

    Input:
    ```mlir
    llvm.call @k(%c0, %c64, %p, %q, ...) : (i64, i64, !llvm.ptr, !llvm.ptr, ...) -> ()
    ```
    Output:
    ```mlir
    %f = llvm.getelementptr %frame[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(...)>
    llvm.store %p, %f : !llvm.ptr, !llvm.ptr
    ...
    %k = llvm.mlir.addressof @k : !llvm.ptr
    llvm.call @loom_rt_parallel_for(%k, %frame, %c64, %grain) : (...) -> ()
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def InlineSingleCalls : Pass<"loom-inline-single-calls", "mlir::ModuleOp"> {
  let summary = "Moves the body of each private function called once into its caller.";
  let description = [{
    Runs before the inliner. The inliner clones a callee's body into each caller and
    symbol-dce then erases the callee; autodiff's gradient function, called once, is the whole
    forward and backward of a train step, so that clone and erase grew with the model's depth.
    Here a private, single-block function that exactly one `func.call` names (and nothing
    else: no address taken) has its body moved in place of that call and is erased. Functions
    called more than once are left to the inliner.

    Input:
    ```mlir
    func.func private @grad(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = loom.mul %x, %x : tensor<4xf32>
      return %y : tensor<4xf32>
    }
    func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      %r = call @grad(%a) : (tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    }
    ```
    Output:
    ```mlir
    func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      %y = loom.mul %a, %a : tensor<4xf32>
      return %y : tensor<4xf32>
    }
    ```
  }];
}

def OutlineRepeatedBlocks : Pass<"loom-outline-repeated-blocks", "mlir::ModuleOp"> {
  let summary = "Turns repeated straight-line code (each layer of a model) into calls of one function.";
  let description = [{
    Runs on Loom ops, after partitioning and before lowering (in the CPU pipeline unless
    LOOM_OUTLINE_BLOCKS=0). An L-layer model traces its layers one after the other, and
    autodiff repeats them too; every later pass would then work on L copies. This pass finds,
    in each public function, the run of ops that repeats back to back saving the most ops
    (same ops, attributes and types; at least 8 ops a copy), checks that each copy takes the
    same operands from the same places (values of the copy itself, or from before it), and
    replaces the copies by calls of one private function marked `loom.block`. Its arguments
    are what the copies read from before them; its results what later code reads. Pure chains
    computed from constants alone (a causal mask's iota and compare) are moved to the top
    first and cloned into the function, so that fusion still sees them; broadcasts, reshapes,
    slices and negations are recomputed on the side that reads them. A result the function
    returns into a donated argument (an optimizer's update of a layer's parameters) is written
    into the block's argument for it (`bufferization.materialize_in_destination`), so the
    update stays in place. Left alone: elementwise-only repeats whose copies feed each other
    (fusion would lose the chain), and repeats that save fewer than 4 ops a copy. It repeats until no repeat is left: a GPT's forward and backward
    each become one function called L times.

    Input (period 2 here; the pass wants longer ones):
    ```mlir
    %1 = loom.mul %0, %w0 : tensor<4xf32>
    %2 = loom.tanh %1 : tensor<4xf32>
    %3 = loom.mul %2, %w1 : tensor<4xf32>
    %4 = loom.tanh %3 : tensor<4xf32>
    ```
    Output:
    ```mlir
    %2 = call @"block:model.cpp:12"(%0, %w0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %4 = call @"block:model.cpp:12"(%2, %w1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::func::FuncDialect"];
}

def OutlineKernels : Pass<"loom-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Moves each loop nest into a kernel function, one per distinct body.";
  let description = [{
    Runs on buffers, after loops are formed. Each loop nest in the top-level block of a
    function becomes a call to a private, never-inlined kernel function named after its ops
    and the source line that produced it (`exp_sub_div:Gpt.cpp:88`). Constants it uses are
    cloned into the kernel (LLVM then sees its loop bounds); other values it uses become
    arguments. Kernels whose bodies are identical (same ops, types and attributes; an L-layer
    model repeats each layer's) are created once and called from every place: LLVM then
    optimizes and compiles one layer's loops, not L copies inside one huge function, whose
    loop passes (induction-variable simplification, strength reduction) grow faster than its
    size. A function that had nests (the step, now a sequence of calls) is marked `optnone`:
    the object emitter compiles it apart with FastISel and the fast register allocator, whose
    time grows linearly with the depth of the model (instruction selection and the greedy
    allocator did not on the huge block).

    Input:
    ```mlir
    func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
      %c0 = arith.constant 0 : index
      ...
      scf.for %i = %c0 to %c4 step %c1 {
        %x = memref.load %a[%i] : memref<4xf32>
        %y = math.exp %x : f32
        memref.store %y, %b[%i] : memref<4xf32>
      }
      return
    }
    ```
    Output:
    ```mlir
    func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
      call @"exp:model.cpp:12"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
      return
    }
    func.func private @"exp:model.cpp:12"(%a: memref<4xf32>, %b: memref<4xf32>)
        attributes {passthrough = ["noinline"]} {
      %c0 = arith.constant 0 : index
      ...
      scf.for %i = %c0 to %c4 step %c1 { ... }
      return
    }
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def OverlapCollectives : Pass<"loom-overlap-collectives", "mlir::func::FuncOp"> {
  let summary = "Moves collectives' waits down and starts up so they overlap with compute.";
  let description = [{
    A bufferized collective is a start call (`loom_rt_collective_start`, returning a handle)
    followed by a wait call (`loom_rt_collective_wait`). This pass schedules them in the
    function's top-level block, so the device computes while the collective is in flight: the
    start of a parameter's all_gather before the previous layer's matmuls, the reduce_scatter
    of a gradient while the backward goes on.

    * A wait moves down to just before the first op that reads or writes the collective's
      output buffer, or writes (or frees) its input buffer: peers read the input until then.
    * A start moves up to just after the last op that writes its input buffer. An all_gather
      (all_to_all, permute) stops at another collective's start or wait: a parameter's
      all_gather is prefetched one collective ahead, not all at the top. A reduction
      (all_reduce, reduce_scatter: a gradient's) passes other reductions, so it starts as soon
      as the backward has made its input, whatever order the partitioner emitted them in;
      every device runs the same program, so all issue them in the same new order. It stays
      behind all_gathers, which the compute after them waits for. The output's allocation and
      the pointer arithmetic move with it.

    Buffers are tracked through views, extracted pointers and casts; an op whose effects are
    unknown (a BLAS call) counts as writing every buffer it reaches. A function that passes
    memrefs through loop results or block arguments is left alone.

    Input:
    ```mlir
    %w = memref.alloc() : memref<8x4xf32>
    (pointers of %arg0 and %w)
    %h = call @loom_rt_collective_start(...) : (...) -> i64
    call @loom_rt_collective_wait(%h) : (i64) -> ()
    (work on other buffers)
    (the matmul reading %w)
    ```
    Output:
    ```mlir
    %w = memref.alloc() : memref<8x4xf32>
    (pointers of %arg0 and %w)
    %h = call @loom_rt_collective_start(...) : (...) -> i64
    (work on other buffers)
    call @loom_rt_collective_wait(%h) : (i64) -> ()
    (the matmul reading %w)
    ```
  }];
}

def WidenAccumulations : Pass<"loom-widen-accumulations"> {
  let summary = "Products and sums of bf16/f16 tensors accumulate in f32 and round once.";
  let description = [{
    Mixed precision keeps tensors in bf16 or f16, but a product or sum accumulated in 8 or 11
    bits of mantissa loses most of them over a long contracted dim. Each `loom.dot_general`,
    `loom.reduce sum` and `loom.scatter_add` (an embedding's gradient sums a row's update per
    token) with a bf16/f16 result computes in f32 instead: its operands are
    converted up, and its result rounded to its type once, at the end, as GPUs' tensor cores
    and cuBLAS do. On the CPU the product then reaches the f32 GEMM (the GPU pipeline shares
    this pass: its products reach the f32 cuBLAS GEMM until bf16 GEMMs have a path of their
    own), and the conversions fuse into the loops that produce and use it. Max reductions and elementwise ops are left alone
    (the CPU computes each bf16/f16 elementwise op in f32 and rounds its result already).

    Input:
    ```mlir
    %2 = loom.dot_general %0, %1, batching_dims = [] x [], contracting_dims = [1] x [0]
        : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
    ```
    Output:
    ```mlir
    %a = loom.convert %0 : tensor<4x8xbf16> -> tensor<4x8xf32>
    %b = loom.convert %1 : tensor<8x2xbf16> -> tensor<8x2xf32>
    %p = loom.dot_general %a, %b, batching_dims = [] x [], contracting_dims = [1] x [0]
        : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    %2 = loom.convert %p : tensor<4x2xf32> -> tensor<4x2xbf16>
    ```
  }];
  let dependentDialects = ["mlir::loom::LoomDialect"];
}

def RoundEmulatedFloats : Pass<"loom-round-emulated-floats"> {
  let summary = "Keeps the rounding of each bf16/f16 result that arith-emulate-unsupported-floats computes in f32.";
  let description = [{
    arith-emulate-unsupported-floats computes each bf16/f16 op in f32 between an `extf` and a
    `truncf`, both marked `fastmath<contract>`: a later fold then takes `extf(truncf(x))` to
    `x`, so in a fused loop `a * b + a` would add the unrounded product. Loom's 16-bit ops
    round each result (as PyTorch's do), fused or not; this pass drops `contract` from those
    conversions.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ApproximateMath : Pass<"loom-approximate-math"> {
  let summary = "Rewrites math.exp/log/tanh/... as polynomials that vectorize.";
  let description = [{
    Calls to libm functions cannot be vectorized by LLVM; MLIR's polynomial approximations
    (within a few ulp in f32) can. f16/bf16 math is computed in f32. f32/f64
    `arith.maximumf`/`minimumf`/`maxnumf`/`minnumf` become `llvm.intr.maximum` etc. (same
    semantics): arith-expand would turn them into compares and selects, which LLVM does not
    recognise as a max reduction, so a row max (softmax) would not vectorize.
  }];
  let dependentDialects = ["mlir::math::MathDialect", "mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect", "mlir::LLVM::LLVMDialect"];
}

def GpuCollapseLoops : Pass<"loom-gpu-collapse-loops"> {
  let summary = "Collapses each outermost multi-dim scf.parallel into one dim, for GPU threads.";
  let description = [{
    The GPU pipeline tiles the first dim of a parallel loop into blocks and gives a tile's
    iterations to consecutive threads. For a loop nest over [rows, cols] of a row-major buffer
    consecutive threads would then walk rows, each access a whole row apart. Collapsed into one
    dim (rows * cols, the indices recovered by division), consecutive threads touch
    consecutive elements: the loads and stores are coalesced. Loops nested in another parallel
    loop are left alone.

    Input:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c1024, %c512) step (%c1, %c1) { ... }
    ```
    Output:
    ```mlir
    scf.parallel (%k) = (%c0) to (%c524288) step (%c1) {
      %i = arith.divsi %k, %c512 : index
      %j = arith.remsi %k, %c512 : index
      ...
    }
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def GpuBlockReductions : Pass<"loom-gpu-block-reductions"> {
  let summary = "Runs each row of a row reduction on a block of GPU threads.";
  let description = [{
    After loop collapsing, a reduction along the contiguous dim (a softmax's row max and
    sum, a layer norm's mean and variance, the cross-entropy's log-sum-exp over the vocabulary)
    is a parallel loop over rows whose body walks its row with an `scf.for`: a thread per row,
    consecutive threads a row apart (uncoalesced), each reading its whole row serially. For
    rows of at least 64 elements the loop becomes a `gpu.launch` of a block per row: the
    block's T threads (32 to 256, at least 4 elements each) read elements t, t + T, ... side
    by side, each from the combination's neutral element; `gpu.all_reduce` (warp shuffles and
    shared memory) combines their partials and the loop's initial value; thread 0 runs what
    followed the row's loop (its stores). Taken when each loop-carried value is combined by one
    order-free op (max, min, integer ops, and sums and products whose fastmath allows
    reassociation), the row is read on the last index, and nothing in the row writes memory.
    Other loops are left to the thread-per-element mapping.

    Input:
    ```mlir
    scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
      %init = memref.load %out[%i] : memref<1024xf32>
      %m = scf.for %j = %c0 to %c512 step %c1 iter_args(%a = %init) -> (f32) {
        %x = memref.load %in[%i, %j] : memref<1024x512xf32>
        %n = arith.maximumf %x, %a : f32
        scf.yield %n : f32
      }
      memref.store %m, %out[%i] : memref<1024xf32>
    }
    ```
    Output: `gpu.launch blocks(%b, ...) in (%c1024, 1, 1) threads(%t, ...) in (%c128, 1, 1)`
    around an `scf.for %j = %t to %c512 step %c128` from -inf, `gpu.all_reduce maximumf`, the
    maximum with `%init`, and the store under `scf.if %t == 0`.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def GpuStreamCalls : Pass<"loom-gpu-stream-calls", "mlir::ModuleOp"> {
  let summary = "Lets calls of the runtime's GPU entry points join the kernels' stream.";
  let description = [{
    Runs after `gpu-async-region`, which does not know what a call does and so makes the host
    wait for the stream to drain before a run of calls (`gpu.wait [%t]`) and start a new stream
    after it (`%s = gpu.wait async`). A call of the runtime's GPU entry points (`loom_rt_gpu_*`:
    cuBLAS GEMMs, attention; the collectives' start and wait) enqueues its work on the device's
    one stream, the stream every token of the function stands for, or waits on the host for
    work that follows the stream, so the waits only stall the GPU while the host catches up (a
    step of GPT-2 small makes about 200 such calls). Where every call of a run is such a call
    (only ops free of memory effects between them), both waits are removed and the uses of the
    new stream take the old one: stream order keeps the calls between the kernels before and
    after them. Other runs are left as they are. A repeated layer's function
    (`loom-outline-repeated-blocks`) counts as such a call, since its launches and calls go on
    the device's stream too, and no longer drains the stream before it returns.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def GpuTensorCoreGemms : Pass<"loom-gpu-tensor-core-gemms", "mlir::ModuleOp"> {
  let summary = "Runs products of bf16 or f16 operands on the tensor cores, accumulating in f32.";
  let description = [{
    loom-widen-accumulations makes a 16-bit product accumulate in f32 by widening its operands
    (`arith.extf` to f32 tensors) before an f32 contraction. On the GPU that would be a
    CUDA-core product of widened copies. Right after loom-lower-to-linalg (before fusion folds
    the widening into the operands' producers), a `linalg.matmul`, `linalg.batch_matmul` or
    strided contraction with f32 result whose two operands are such widenings of bf16 (or
    both of f16) tensors, through reshapes, reads the 16-bit tensors (reshaped alike) and
    widens inside its body; loom-lower-matmul-to-blas{gpu=true} then calls
    `loom_rt_gpu_gemm_bf16_f32` (`..._f16_f32`): cuBLAS's GemmStridedBatchedEx with 16-bit A
    and B, f32 C and f32 accumulation, on the tensor cores. The result is the same product
    rounded once to f32 (up to the order of the sums); widenings nothing else reads go away.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def ExpandDynamicSlices : Pass<"loom-expand-dynamic-slices", "mlir::ModuleOp"> {
  let summary = "Writes loom.dynamic_slice and loom.dynamic_update_slice as gathers and a "
                "select.";
  let description = [{
    For the GPU, whose host side cannot read the starts (they live in device memory) to place
    a tensor view. Each start is clamped to `[0, dim - size]` with `loom.max` and `loom.min`;
    a dynamic slice then gathers its box dim by dim (`loom.gather` of `iota + start`, the dim
    transposed to the front and back); a dynamic update gathers the update out to the
    operand's shape (row `i - start`) and selects it inside the box (`loom.compare`,
    `loom.and`, `loom.select`), a pass over the whole operand where the CPU writes the box in
    place.

    Input:
    ```mlir
    %1 = loom.dynamic_slice %0[%i, %j]
        : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
    ```
    Output: `loom.max`, `loom.min`, `loom.iota`, `loom.add`, `loom.broadcast_in_dim` and
    `loom.gather`.
  }];
}

def DecomposeAttention : Pass<"loom-decompose-attention", "mlir::ModuleOp"> {
  let summary = "Writes loom.attention and loom.attention_grad as products, softmax and mask.";
  let description = [{
    For a backend without an attention kernel. By default only attentions the CPU's kernel
    (runtime/Attention.h, f32 and f64) cannot run are decomposed; with `all`, every one. With
    `gpu` (the GPU pipeline), those the GPU's kernel cannot run (runtime/CudaAttention.h: f32,
    head dims up to 128); the others are marked `loom.on_gpu` for it. On the CPU a bf16 or
    f16 attention (and gradient) is computed in f32 by the kernel: its operands converted up,
    its results rounded back once, without the scores a decomposition makes in 16 bits. (The
    GPU decomposes them: 16-bit products on its tensor cores ran a bf16 GPT step faster than
    its f32 kernels on bf16 values.)
    The decomposition makes the [B, H, Tq, Tk] scores and probabilities that
    the kernel avoids: scores `scale * q k^T` (-inf where a causal mask forbids the pair), a
    softmax over the keys, and its product with the values; the gradient recomputes the
    probabilities from the logsumexp.

    Input:
    ```mlir
    %out, %lse = loom.attention %q, %k, %v, scale = 0.25 : (...) -> (...)
    ```
    Output: `loom.dot_general`, `loom.reduce max`, `loom.exp`, `loom.reduce sum`,
    `loom.div`, `loom.dot_general`, `loom.transpose`, and `loom.log` for the logsumexp.
  }];
  let options = [Option<"all", "all", "bool", "false",
                        "decompose every attention, not only those the CPU kernel cannot run">,
                 Option<"gpu", "gpu", "bool", "false",
                        "keep (and mark loom.on_gpu) the attentions the GPU's kernel runs">];
}


def GpuHostToDevice : Pass<"loom-gpu-host-to-device"> {
  let summary = "Leaves the GPU program's host side only allocating, copying and launching.";
  let description = [{
    Runs after parallel loops became `gpu.launch`. What is left on the host must not touch
    buffer memory, which lives on the GPU:
    - `memref.alloc`/`dealloc` become `gpu.alloc`/`gpu.dealloc`;
    - a `memref.get_global` constant is copied to a `gpu.alloc` buffer (freed at the return);
    - a `memref.copy` between plain buffers becomes `gpu.memcpy`, one between views (offsets,
      strides) a kernel of a thread per element;
    - each run of consecutive ops that read or write memory (the loops of a full reduction to
      a scalar) becomes a kernel of one thread, `gpu.launch` on a 1x1x1 grid;
    - a loop around launches stays on the host, and its body is treated the same way.
    A scalar such a run computes for a later kernel (a load before a collective's wait, used
    after it) goes through a one-element `gpu.alloc` buffer: stored by the first kernel,
    loaded by the later one, freed at the return.
    Calls of the runtime's GPU entry points (`loom_rt_gpu_*`: cuBLAS GEMMs, attention) and of
    the program's own functions (a layer's, whose host side launches its kernels on the same
    stream) stay; another call (a collective) and a value such a run computes for the host
    itself (a call's argument, a launch's size) are errors that name the op.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def GpuSequentialLoops : Pass<"loom-gpu-sequential-loops"> {
  let summary = "Makes host loops that read buffer memory sequential as a whole, for the GPU.";
  let description = [{
    A scatter-add lowers to a loop over the updates that loads each row index from a buffer
    and adds the row with a parallel loop. On the GPU the parallel loop would become a kernel
    launched by a host loop that cannot read the index, which lives in GPU memory. Such a loop
    (one that reads memory outside its parallel loops) has its parallel loops made sequential
    (`scf.for` nests), so loom-gpu-host-to-device runs it whole as one kernel of one thread.
    Loops without such reads are left alone. Scatter-adds of the usual shape are taken before
    by loom-gpu-atomic-scatter, which runs their rows at once; this is the fallback.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def CpuSplitReductions : Pass<"loom-cpu-split-reductions", "mlir::ModuleOp"> {
  let summary = "Reduces over leading dims in two steps, the first keeping the leading dim, "
                "so that it runs on the device's threads.";
  let description = [{
    On the CPU only a kernel's outer parallel loop runs on the device's threads. A reduction
    over leading dims (a bias or scale gradient: [batch, seq, 256] summed over batch and seq)
    has its reduction loops outermost, and a reduction to a scalar (the sum of squares that
    gradient clipping takes of each gradient) has no parallel loop: both ran on one thread.
    From 65536 elements, a reduction over at least two leading dims (or over all dims)
    first reduces over them but the first, keeping one partial per index of the first (at
    most 2^20 partial elements), a kernel whose outer loop is parallel; a reduction over the
    first dim sums the partials. The operand is not reshaped, so an elementwise producer
    still fuses into the first step. A reduction over the first dim alone (a bias gradient
    of a [rows, features] matrix) views it as [groups, rows / groups, ...], the groups the
    largest divisor of the rows from 8 to 16, and sums each group's rows first. A chain of
    elementwise producers used by nothing else, which fuses into the reduction, is recomputed
    on views of its operands; not where a leaf of the chain would fuse too (a broadcast).
    In the MLP's step at batch 1024 its [1024, 512] bias gradient took 0.046 ms instead of
    0.115. The split depends only on the shape, so the sums' order and bits do not depend on
    the machine; they are reassociated (the rounding differs from one serial sum, as on the
    vector lanes).

    Input:
    ```mlir
    %g = loom.reduce sum %dy, dims = [0, 1] : tensor<8x128x256xf32> -> tensor<256xf32>
    ```
    Output:
    ```mlir
    %p = loom.reduce sum %dy, dims = [1] : tensor<8x128x256xf32> -> tensor<8x256xf32>
    %g = loom.reduce sum %p, dims = [0] : tensor<8x256xf32> -> tensor<256xf32>
    ```
  }];
}

def GpuSplitReductions : Pass<"loom-gpu-split-reductions", "mlir::ModuleOp"> {
  let summary = "Splits large reductions to a scalar or to few outputs into many threads' "
                "partials, for the GPU.";
  let description = [{
    On the GPU a reduction to a scalar has no parallel dim: it would run on one thread (the
    clipping norm's sum of squares over every parameter, the mean loss). For n elements (at
    least 512), the operand is viewed as [n / p, p] with p the largest divisor of n in
    [64, 4096]: a reduction over dim 0 gives p partials, one thread each, reading consecutive
    elements side by side. While more than 64 partials are left they are reduced the same
    way, at most 64 to a thread (a thread's loads are serial, each a memory latency); one
    thread sums the last ones. Sums are reassociated (the rounding differs from one serial
    sum, as on the CPU's vector lanes).

    A reduction over leading dims to few outputs (a bias gradient: [rows, 768] summed over
    the rows) has a thread per output, each walking every row: 768 threads with 8192 serial
    loads leave the GPU nearly idle. With at most 16384 outputs and at least 512 rows, the
    rows are split into s slices (the largest divisor of the rows up to 65536 / outputs and
    128, each slice at least 8 rows): [s, rows / s, outputs] reduced over its middle dim gives s x
    outputs threads, and a reduction over the slices the result.

    Input:
    ```mlir
    %s = loom.reduce sum %x, dims = [0, 1] : tensor<512x768xf32> -> tensor<f32>
    ```
    Output:
    ```mlir
    %r = loom.reshape %x : tensor<512x768xf32> -> tensor<96x4096xf32>
    %p = loom.reduce sum %r, dims = [0] : tensor<96x4096xf32> -> tensor<4096xf32>
    %q = loom.reshape %p : tensor<4096xf32> -> tensor<64x64xf32>
    %r = loom.reduce sum %q, dims = [0] : tensor<64x64xf32> -> tensor<64xf32>
    %s = loom.reduce sum %r, dims = [0] : tensor<64xf32> -> tensor<f32>
    ```
  }];
}

def GpuParallelDimsFirst : Pass<"loom-gpu-parallel-dims-first"> {
  let summary = "Moves each linalg.generic's parallel dims in front of its reduction dims.";
  let description = [{
    Only the leading parallel dims of a linalg op become parallel loops, and so GPU threads: a
    reduction over a leading dim (a bias gradient, summing [rows, cols] over rows) would run
    whole on one thread. Interchanged (linalg::interchangeGenericOp), every parallel dim comes
    first, a thread per output element, consecutive threads on the contiguous dim; the
    reduction dims follow in their order, as a loop in each thread.

    Input: `iterator_types = ["reduction", "parallel"]` with maps `(d0, d1) -> (d0, d1)`,
    `(d0, d1) -> (d1)`. Output: `["parallel", "reduction"]` with `(d0, d1) -> (d1, d0)`,
    `(d0, d1) -> (d0)`.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def GpuAtomicScatter : Pass<"loom-gpu-atomic-scatter"> {
  let summary = "Runs a scatter-add's rows at once with atomic adds, for the GPU.";
  let description = [{
    A scatter-add lowers to a loop over its updates (marked `scatter_add`): each iteration loads
    the row's index and adds the update to that row with a parallel loop. Rows may repeat, so
    the CPU runs them in order. Here the loop and its row loop become one parallel loop over
    (update, element), adding with `memref.atomic_rmw addf` (addi for integers): a thread per
    element of every update. The sums' order, and so their rounding, then varies from run to
    run, as with PyTorch's index_add on a GPU. Loops of another shape are left alone (to
    loom-gpu-sequential-loops).
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"];
}

#endif // LOOM_LOWERING_PASSES_TD

def GpuMergeKernelModules : Pass<"loom-gpu-merge-kernel-modules", "ModuleOp"> {
  let summary = "Puts the outlined kernels in a few gpu.modules: a few ptxas runs, not one per kernel.";
  let description = [{
    `gpu-kernel-outlining` gives each kernel a gpu.module of its own, and
    `gpu-module-to-binary` then runs LLVM's NVPTX backend and the CUDA toolkit's `ptxas`, a
    process, once per module: a GPT train step has hundreds of kernels, and ptxas alone took
    6.0 s for the small GPT's 350 modules against 1.3 s for the same kernels in one. This
    pass moves every module's contents into one gpu.module, `loom_kernels`, each kernel
    renamed after the module it came from (outlining names every kernel after its function,
    its module uniquely), with '_' for what PTX names cannot hold (a layer function's
    "block:FILE:LINE"); other symbols that would clash are renamed in their module first.
    The launches then name the merged module's kernels. A program of more than
    `kernels-per-module` kernels gets that many per module, in order (`loom_kernels`,
    `loom_kernels_1`, ...), which loom-gpu-modules-to-binaries serializes side by side; the
    split depends only on the program, not on the machine.
  }];
  let options = [
    Option<"kernelsPerModule", "kernels-per-module", "int64_t", "48",
           "most kernels in one module">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def GpuModulesToBinaries : Pass<"loom-gpu-modules-to-binaries", "ModuleOp"> {
  let summary = "gpu-module-to-binary with the gpu.modules serialized side by side.";
  let description = [{
    Upstream's `gpu-module-to-binary` serializes one gpu.module after another: LLVM's NVPTX
    backend, then a `ptxas` process, each on one thread. This pass moves each gpu.module into
    a module of its own and serializes those on the context's threads, then puts the
    `gpu.binary` ops back in the modules' order; the binaries are the same as upstream's.
    `loom-gpu-merge-kernel-modules` shards a program's kernels into a few modules for it.
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", [{""}], "the CUDA toolkit's path (its ptxas)">,
    Option<"format", "format", "std::string", [{"bin"}],
           "what each module becomes: llvm, isa, bin or fatbin">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}
