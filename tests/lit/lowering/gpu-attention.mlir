// RUN: loom-opt %s --loom-lower-to-linalg --loom-gpu-bufferize --loom-gpu-kernels --mlir-print-debuginfo=false | FileCheck %s

// Tests that an attention marked for the GPU's kernels (loom-decompose-attention{gpu=true})
// becomes one call of the runtime's GPU entry point, forward and gradient, describing the call
// in a constant global (B, Tq, Tk, H, D, Dv, causal, the scale's and dropout's bits, then each buffer's
// offset and batch, sequence and head strides) that stays in host memory, where the runtime
// reads it: no kernel copies it, no stack array is stored to. The buffers are the device's:
// the logsumexp a GPU allocation, the result written into the function's output.
// CHECK-DAG: memref.global "private" constant @__loom_call_words{{.*}} : memref<29xi64> = dense<[2, 8, 8, 4, 16, 16, 1, 4598175219545276416, 0, 0, 512, 64, 16, 0, 512, 64, 16, 0, 512, 64, 16, 0, 512, 64, 16, 0, 32, 1, 8]>
// CHECK-DAG: memref.global "private" constant @__loom_call_words{{.*}} : memref<45xi64>
// CHECK-LABEL: func.func @main
// CHECK-NOT: memref.alloca
// CHECK: %[[LSE:.*]] = gpu.alloc () : memref<2x4x8xf32>
// CHECK: %[[WORDS:.*]] = memref.get_global @__loom_call_words{{.*}} : memref<29xi64>
// CHECK: %[[WORDS_PTR:.*]] = memref.extract_aligned_pointer_as_index %[[WORDS]]
// CHECK: %[[WORDS_ADDR:.*]] = arith.index_cast %[[WORDS_PTR]]
// CHECK: call @loom_rt_gpu_attention_f32(%[[WORDS_ADDR]],
// CHECK: memref.get_global @__loom_call_words{{.*}} : memref<45xi64>
// CHECK: call @loom_rt_gpu_attention_grad_f32(
// CHECK-NOT: gpu.launch_func
// CHECK: return
func.func @main(%q: tensor<2x8x4x16xf32>, %k: tensor<2x8x4x16xf32>, %v: tensor<2x8x4x16xf32>,
                %g: tensor<2x8x4x16xf32>)
    -> (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>,
        tensor<2x8x4x16xf32>) {
  %out, %lse = loom.attention %q, %k, %v, scale = 0.25 causal {loom.on_gpu}
      : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>)
      -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>)
  %dq, %dk, %dv = loom.attention_grad %q, %k, %v, %out, %lse, %g, scale = 0.25 causal {loom.on_gpu}
      : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>,
         tensor<2x8x4x16xf32>, tensor<2x4x8xf32>, tensor<2x8x4x16xf32>)
      -> (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>)
  return %out, %dq, %dk, %dv
      : tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>
}
