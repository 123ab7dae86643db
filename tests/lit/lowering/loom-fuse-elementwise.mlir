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

// Tests that a producer with two elementwise users is computed once, in one loop with both
// users (multi-output): exp is not copied into each of them.
// CHECK-LABEL: func.func @shared
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg0 : tensor<4xf32>)
// CHECK: %[[E:.*]] = math.exp
// CHECK-NOT: math.exp
// CHECK-DAG: %[[T:.*]] = math.tanh %[[E]]
// CHECK-DAG: %[[S:.*]] = math.sqrt %[[E]]
// CHECK: linalg.yield %[[T]], %[[S]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1
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

// -----

// Tests that a value a caller also reads (an optimizer's new moment, returned and used by the
// parameter update) becomes one more result of its user's loop, which the return then reads.
// CHECK-LABEL: func.func @moment_and_update
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg0, %arg1, %arg2 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK: %[[M:.*]] = arith.addf
// CHECK: %[[P:.*]] = arith.subf %{{.*}}, %[[M]]
// CHECK: linalg.yield %[[M]], %[[P]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#1, %[[R]]#0
#v = affine_map<(d0) -> (d0)>
func.func @moment_and_update(%m: tensor<16xf32>, %g: tensor<16xf32>, %p: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %n = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%m, %g : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %u = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%n, %p : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %b, %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %u, %n : tensor<16xf32>, tensor<16xf32>
}

// -----

// Tests that a value with several users is not joined to a user that broadcasts it (its
// elements would be computed, and written, once per row), nor to a user another of its
// users precedes (the fused loop sits at the later user), nor into a reduction.
// CHECK-LABEL: func.func @not_joined
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]], %arg1
// CHECK-NOT: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]] :
// CHECK-SAME: tensor<f32>
// CHECK-NOT: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]] :
// CHECK-NOT: math.exp
// CHECK: return
#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0) -> ()>
func.func @not_joined(%x: tensor<8xf32>, %y: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<f32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %z = tensor.empty() : tensor<f32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#row, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p, %y : tensor<8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, #red], iterator_types = ["reduction"]}
      ins(%p : tensor<8xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.negf %a : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %b, %r, %n : tensor<4x8xf32>, tensor<f32>, tensor<8xf32>
}

// -----

// Tests that a layer norm's `x - mean`, read by the variance and by the output, is computed
// again in each (one subtraction, reading x as it would read the difference) rather than
// written once and read back: no loop writes it, and both read x and the mean.
// CHECK-LABEL: func.func @centered_twice
// CHECK: %[[V:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<4x64xf32>, tensor<4xf32>)
// CHECK: arith.subf
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1, %[[V]] : tensor<4x64xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.subf
// CHECK-NOT: linalg.generic
#x = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @centered_twice(%x: tensor<4x64xf32>, %mu: tensor<4xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %z = arith.constant 0.0 : f32
  %re = tensor.empty() : tensor<4xf32>
  %zero = linalg.fill ins(%z : f32) outs(%re : tensor<4xf32>) -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mu : tensor<4x64xf32>, tensor<4xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<4x64xf32>
  %var = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<4x64xf32>) outs(%zero : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%c, %var : tensor<4x64xf32>, tensor<4xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %n = arith.mulf %a, %v : f32
    linalg.yield %n : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// Tests that a consumer reading two results of one multi-result loop (a select between them,
// as a backward has) is not joined to it: the fusion replaces one value, and the other result
// would become an input of the fused loop that the loop itself defines (this read freed
// memory and left IR whose loop used its own result).
// CHECK-LABEL: func.func @two_results_read
// CHECK: %[[P:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<8xf32>, tensor<8xf32>)
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg2, %[[P]]#1, %[[P]]#0 : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>)
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]]#0 : tensor<8xf32>)
// CHECK: arith.negf
#v = affine_map<(d0) -> (d0)>
func.func @two_results_read(%x: tensor<8xf32>, %y: tensor<8xf32>, %m: tensor<8xi1>)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %p:2 = linalg.generic {indexing_maps = [#v, #v, #v, #v], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32, %o2: f32):
    %s = arith.addf %a, %b : f32
    %t = math.exp %s : f32
    linalg.yield %s, %t : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  %c = linalg.generic {indexing_maps = [#v, #v, #v, #v], iterator_types = ["parallel"]}
      ins(%m, %p#1, %p#0 : tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%k: i1, %a: f32, %b: f32, %o: f32):
    %r = arith.select %k, %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %u = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%p#0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %c, %u : tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests that a loop whose results are all read by one elementwise user (a backward's partial
// terms, summed there) fuses into it as one loop: nothing is written between them, and after
// canonicalize and CSE the shared work (the exp) is done once.
// CHECK-LABEL: func.func @terms_summed
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<8xf32>, tensor<8xf32>)
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
#v = affine_map<(d0) -> (d0)>
func.func @terms_summed(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %p:2 = linalg.generic {indexing_maps = [#v, #v, #v, #v], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32, %o2: f32):
    %t = math.exp %a : f32
    %s = arith.mulf %t, %b : f32
    linalg.yield %t, %s : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  %c = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%p#1, %p#0 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %c : tensor<8xf32>
}
