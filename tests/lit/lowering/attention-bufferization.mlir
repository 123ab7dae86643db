// RUN: loom-opt --loom-lower-to-linalg --cse --loom-cpu-bufferize --mlir-print-debuginfo=false -split-input-file %s | FileCheck %s

// Tests that loom.attention bufferizes to one call of the runtime's kernel, reading query, key
// and value in place as strided views of one projection (no copy), with a stack array
// describing the call: B, Tq, Tk, H, D, Dv, causal, the scale's bits, the dropout rate's
// bits (0: none), then per buffer its
// offset and its batch, sequence and head strides (the logsumexp [B, H, T] is dense). The
// array is allocated at the function's start (a static alloca, which code generation without
// optimization can select), after the constants.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[QKV:[a-z0-9]+]]: memref<2x8x3x4x16xf32>, %[[OUT:[a-z0-9]+]]: memref<2x8x4x16xf32>)
// CHECK-NOT: scf.parallel
// CHECK: %[[CALL:.*]] = memref.alloca() : memref<29xi64>
// CHECK-NEXT: %[[QV:.*]] = memref.subview %[[QKV]][0, 0, 0, 0, 0]
// CHECK: %[[KV:.*]] = memref.subview %[[QKV]][0, 0, 1, 0, 0]
// CHECK: %[[VV:.*]] = memref.subview %[[QKV]][0, 0, 2, 0, 0]
// CHECK: %[[Q:.*]] = memref.collapse_shape %[[QV]] {{\[}}[0], [1], [2, 3], [4]] : {{.*}} into memref<2x8x4x16xf32, strided<[1536, 192, 16, 1]>>
// CHECK: %[[K:.*]] = memref.collapse_shape %[[KV]] {{.*}} into memref<2x8x4x16xf32, strided<[1536, 192, 16, 1], offset: 64>>
// CHECK: %[[V:.*]] = memref.collapse_shape %[[VV]] {{.*}} into memref<2x8x4x16xf32, strided<[1536, 192, 16, 1], offset: 128>>
// CHECK: %[[LSE:.*]] = memref.alloc() {{.*}} : memref<2x4x8xf32>
// CHECK: memref.store %c2_i64, %[[CALL]][%c0]
// CHECK: memref.store %c8_i64, %[[CALL]][%c1]
// CHECK: memref.store %c8_i64, %[[CALL]][%c2]
// CHECK: memref.store %c4_i64, %[[CALL]][%c3]
// CHECK: memref.store %c16_i64, %[[CALL]][%c4]
// CHECK: memref.store %c16_i64, %[[CALL]][%c5]
// CHECK: memref.store %c1_i64, %[[CALL]][%c6]
// 0.25 as a double's bits.
// CHECK: memref.store %c4598175219545276416_i64, %[[CALL]][%c7]
// CHECK: memref.store %c0_i64, %[[CALL]][%c8]
// The key's layout: offset 64, strides 1536, 192, 16.
// CHECK: memref.store %c64_i64, %[[CALL]][%c13]
// CHECK: memref.store %c1536_i64, %[[CALL]][%c14]
// CHECK: memref.store %c192_i64, %[[CALL]][%c15]
// CHECK: memref.store %c16_i64, %[[CALL]][%c16]
// The logsumexp's: offset 0, batch 32, sequence 1, head 8.
// CHECK: memref.store %c0_i64, %[[CALL]][%c25]
// CHECK: memref.store %c32_i64, %[[CALL]][%c26]
// CHECK: memref.store %c1_i64, %[[CALL]][%c27]
// CHECK: memref.store %c8_i64, %[[CALL]][%c28]
// No seeds: their address is 0.
// CHECK: call @loom_rt_attention_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i64) : (i64, i64, i64, i64, i64, i64, i64) -> ()
// CHECK: memref.dealloc %[[LSE]]
func.func @main(%qkv: tensor<2x8x3x4x16xf32>) -> tensor<2x8x4x16xf32> {
  %q0 = loom.slice %qkv, start = [0, 0, 0, 0, 0], limit = [2, 8, 1, 4, 16], strides = [1, 1, 1, 1, 1] : tensor<2x8x3x4x16xf32> -> tensor<2x8x1x4x16xf32>
  %k0 = loom.slice %qkv, start = [0, 0, 1, 0, 0], limit = [2, 8, 2, 4, 16], strides = [1, 1, 1, 1, 1] : tensor<2x8x3x4x16xf32> -> tensor<2x8x1x4x16xf32>
  %v0 = loom.slice %qkv, start = [0, 0, 2, 0, 0], limit = [2, 8, 3, 4, 16], strides = [1, 1, 1, 1, 1] : tensor<2x8x3x4x16xf32> -> tensor<2x8x1x4x16xf32>
  %q = loom.reshape %q0 : tensor<2x8x1x4x16xf32> -> tensor<2x8x4x16xf32>
  %k = loom.reshape %k0 : tensor<2x8x1x4x16xf32> -> tensor<2x8x4x16xf32>
  %v = loom.reshape %v0 : tensor<2x8x1x4x16xf32> -> tensor<2x8x4x16xf32>
  %out, %lse = loom.attention %q, %k, %v, scale = 0.25 causal
      : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>)
      -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>)
  return %out : tensor<2x8x4x16xf32>
}

// -----

// Tests that the gradient is one call of the f64 kernel with nine buffers, no seeds and a
// 45-word description.
// CHECK-LABEL: func.func @grad
// CHECK: memref.alloca() : memref<45xi64>
// CHECK: call @loom_rt_attention_grad_f64({{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
func.func @grad(%q: tensor<1x4x2x8xf64>, %o: tensor<1x4x2x8xf64>, %lse: tensor<1x2x4xf64>,
                %do: tensor<1x4x2x8xf64>)
    -> (tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>) {
  %dq, %dk, %dv = loom.attention_grad %q, %q, %q, %o, %lse, %do, scale = 0.5
      : (tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>,
         tensor<1x2x4xf64>, tensor<1x4x2x8xf64>)
      -> (tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>)
  return %dq, %dk, %dv : tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>
}

// -----

// Tests that gradients concatenated into one tensor (dq, dk, dv of one projection, as the
// GPT's backward has them) are written by the kernel where they are inserted: its three
// output buffers are views of the concatenation's buffer (here the caller's, an out-param)
// at offsets 0, 16 and 32; in the description the key gradient's layout is offset 16,
// strides 192, 48, 8. Nothing is allocated for them and no copy is left.
// CHECK-LABEL: func.func @grad_into_concatenation
// CHECK-SAME: %[[ALL:[a-z0-9_]+]]: memref<1x4x3x2x8xf32>)
// CHECK-NOT: memref.alloc()
// CHECK: %[[CALL:.*]] = memref.alloca() : memref<45xi64>
// CHECK: %[[DQ:.*]] = memref.subview %[[ALL]][0, 0, 0, 0, 0] [1, 4, 1, 2, 8]
// CHECK: memref.collapse_shape %[[DQ]] {{.*}} into memref<1x4x2x8xf32, strided<[192, 48, 8, 1]>>
// CHECK: %[[DK:.*]] = memref.subview %[[ALL]][0, 0, 1, 0, 0] [1, 4, 1, 2, 8]
// CHECK: memref.collapse_shape %[[DK]] {{.*}} into memref<1x4x2x8xf32, strided<[192, 48, 8, 1], offset: 16>>
// CHECK: %[[DV:.*]] = memref.subview %[[ALL]][0, 0, 2, 0, 0] [1, 4, 1, 2, 8]
// CHECK: memref.collapse_shape %[[DV]] {{.*}} into memref<1x4x2x8xf32, strided<[192, 48, 8, 1], offset: 32>>
// CHECK: memref.store %c16_i64, %[[CALL]][%c37]
// CHECK: memref.store %c192_i64, %[[CALL]][%c38]
// CHECK: memref.store %c48_i64, %[[CALL]][%c39]
// CHECK: memref.store %c8_i64, %[[CALL]][%c40]
// CHECK: call @loom_rt_attention_grad_f32
// CHECK-NOT: memref.alloc()
// CHECK-NOT: copy
// CHECK: return
func.func @grad_into_concatenation(%q: tensor<1x4x2x8xf32>, %o: tensor<1x4x2x8xf32>,
                                   %lse: tensor<1x2x4xf32>, %do: tensor<1x4x2x8xf32>)
    -> tensor<1x4x3x2x8xf32> {
  %dq, %dk, %dv = loom.attention_grad %q, %q, %q, %o, %lse, %do, scale = 0.5
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>,
         tensor<1x2x4xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
  %q1 = loom.reshape %dq : tensor<1x4x2x8xf32> -> tensor<1x4x1x2x8xf32>
  %k1 = loom.reshape %dk : tensor<1x4x2x8xf32> -> tensor<1x4x1x2x8xf32>
  %v1 = loom.reshape %dv : tensor<1x4x2x8xf32> -> tensor<1x4x1x2x8xf32>
  %all = loom.concatenate(%q1, %k1, %v1) dim = 2
      : (tensor<1x4x1x2x8xf32>, tensor<1x4x1x2x8xf32>, tensor<1x4x1x2x8xf32>)
      -> tensor<1x4x3x2x8xf32>
  return %all : tensor<1x4x3x2x8xf32>
}

// -----

// Tests that an attention with dropout passes its seeds' address last, the rate's bits in
// word 8 and the seeds' layout (offset, batch stride, 0, head stride) at words 45-48, after
// the gradient's nine layouts (unused by the forward).
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: %[[SEEDS:[a-z0-9]+]]: memref<2x4xi32>
// CHECK: %[[CALL:.*]] = memref.alloca() : memref<49xi64>
// 0.125 as a double's bits.
// CHECK: memref.store %c4593671619917905920_i64, %[[CALL]][%c8]
// CHECK: memref.store %c0_i64, %[[CALL]][%c45]
// CHECK: memref.store %c4_i64, %[[CALL]][%c46]
// CHECK: memref.store %c0_i64, %[[CALL]][%c47]
// CHECK: memref.store %c1_i64, %[[CALL]][%c48]
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[SEEDS]]
// CHECK-NEXT: %[[SEEDS_ADDR:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK: call @loom_rt_attention_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SEEDS_ADDR]])
func.func @dropout(%q: tensor<2x8x4x16xf32>, %seeds: tensor<2x4xi32>) -> tensor<2x8x4x16xf32> {
  %out, %lse = loom.attention %q, %q, %q seeds %seeds, scale = 0.25 dropout = 0.125 causal
      : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x4xi32>)
      -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>)
  return %out : tensor<2x8x4x16xf32>
}
