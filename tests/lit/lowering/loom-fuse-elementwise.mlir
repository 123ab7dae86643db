// RUN: loom-opt %s -loom-fuse-elementwise -split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that an elementwise producer with one user is fused into its consumer.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Tests that a matmul whose result is reshaped stays a linalg.matmul (so it reaches BLAS):
// reshapes are not propagated through it.
// CHECK-LABEL: func.func @reshaped_matmul
// CHECK: linalg.matmul
// CHECK: tensor.expand_shape
func.func @reshaped_matmul(%x: tensor<512x128xf32>, %w: tensor<128x512xf32>)
    -> tensor<8x64x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %m = linalg.matmul ins(%x, %w : tensor<512x128xf32>, tensor<128x512xf32>)
                     outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r = tensor.expand_shape %m [[0, 1], [2]] output_shape [8, 64, 512]
      : tensor<512x512xf32> into tensor<8x64x512xf32>
  return %r : tensor<8x64x512xf32>
}

// -----

// Tests that a producer with two users is not duplicated into both.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-3: linalg.generic
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.sqrt %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that a value computed from the indices alone (a causal mask) is recomputed in each
// of its two users instead of being written as an i1 tensor: each consumer's body compares
// its own linalg.index values, and no generic produces a tensor<..xi1> any more.
// CHECK-LABEL: func.func @mask_two_users
// CHECK-NOT: tensor<8x8xi1>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{[a-z0-9_]+}} : tensor<8x8xf32>)
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.cmpi sge
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{[a-z0-9_]+}} : tensor<8x8xf32>)
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.cmpi sge
// CHECK: arith.select
// CHECK-NOT: tensor<8x8xi1>
func.func @mask_two_users(%s: tensor<8x8xf32>, %g: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xi1>
  %mask = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x8xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi sge, %i, %j : index
    linalg.yield %c : i1
  } -> tensor<8x8xi1>
  %big = arith.constant -1.0e9 : f32
  %zero = arith.constant 0.0 : f32
  %ef = tensor.empty() : tensor<8x8xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mask, %s : tensor<8x8xi1>, tensor<8x8xf32>) outs(%ef : tensor<8x8xf32>) {
  ^bb0(%m: i1, %x: f32, %out: f32):
    %r = arith.select %m, %x, %big : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %ef2 = tensor.empty() : tensor<8x8xf32>
  %grad = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mask, %g : tensor<8x8xi1>, tensor<8x8xf32>) outs(%ef2 : tensor<8x8xf32>) {
  ^bb0(%m: i1, %x: f32, %out: f32):
    %r = arith.select %m, %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %masked, %grad : tensor<8x8xf32>, tensor<8x8xf32>
}
