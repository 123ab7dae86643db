// RUN: loom-opt %s -loom-outline-repeated-blocks -split-input-file | FileCheck %s

// Three layers in a row become three calls of one function. What a layer reads from before it
// (the residual stream, its weights) are arguments; what later code reads is returned. The
// mask, computed from constants alone (by the first two layers; the third reuses the first's,
// as after CSE), is moved to the top and cloned into the block; the broadcast that later code
// reads is recomputed after each call from the returned row sums.
// CHECK-LABEL: func.func private @"block:layer.cpp:10"
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK-SAME:    -> (tensor<4x8xf32>, tensor<4xf32>)
// CHECK-SAME:    attributes {loom.block}
// CHECK:         %[[H:.*]] = loom.dot_general %[[X]], %[[W]]
// CHECK:         loom.iota dim = 0
// CHECK:         loom.iota dim = 1
// CHECK:         loom.compare ge
// CHECK:         loom.select
// CHECK:         %[[S:.*]] = loom.reduce sum
// CHECK:         %[[OUT:.*]] = loom.add %[[X]]
// CHECK:         return %[[OUT]], %[[S]]
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X0:.*]]: tensor<4x8xf32>, %[[W0:.*]]: tensor<8x8xf32>, %[[W1:.*]]: tensor<8x8xf32>, %[[W2:.*]]: tensor<8x8xf32>)
// CHECK:         %[[L0:.*]]:2 = call @"block:layer.cpp:10"(%[[X0]], %[[W0]])
// CHECK-NEXT:    %[[B0:.*]] = loom.broadcast_in_dim %[[L0]]#1
// CHECK-NEXT:    %[[L1:.*]]:2 = call @"block:layer.cpp:10"(%[[L0]]#0, %[[W1]])
// CHECK-NEXT:    %[[B1:.*]] = loom.broadcast_in_dim %[[L1]]#1
// CHECK-NEXT:    %[[L2:.*]]:2 = call @"block:layer.cpp:10"(%[[L1]]#0, %[[W2]])
// CHECK-NEXT:    %[[B2:.*]] = loom.broadcast_in_dim %[[L2]]#1
// CHECK-NEXT:    %[[T0:.*]] = loom.add %[[B0]], %[[B1]]
// CHECK-NEXT:    %[[T1:.*]] = loom.add %[[T0]], %[[B2]]
// CHECK-NEXT:    return %[[L2]]#0, %[[T1]]
func.func @main(%x0: tensor<4x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>,
                %w2: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %h0 = loom.dot_general %x0, %w0, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("layer.cpp":10:1)
  %r0 = loom.iota dim = 0 : tensor<4x8xi32>
  %c0 = loom.iota dim = 1 : tensor<4x8xi32>
  %m0 = loom.compare ge, %r0, %c0 : tensor<4x8xi32> -> tensor<4x8xi1>
  %z0 = loom.constant dense<0.0> : tensor<4x8xf32>
  %k0 = loom.select %m0, %h0, %z0 : tensor<4x8xi1>, tensor<4x8xf32>
  %t0 = loom.tanh %k0 : tensor<4x8xf32>
  %s0 = loom.reduce sum %t0, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %b0 = loom.broadcast_in_dim %s0, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %q0 = loom.mul %t0, %b0 : tensor<4x8xf32>
  %n0 = loom.neg %q0 : tensor<4x8xf32>
  %x1 = loom.add %x0, %n0 : tensor<4x8xf32>

  %h1 = loom.dot_general %x1, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("layer.cpp":10:1)
  %r1 = loom.iota dim = 0 : tensor<4x8xi32>
  %c1 = loom.iota dim = 1 : tensor<4x8xi32>
  %m1 = loom.compare ge, %r1, %c1 : tensor<4x8xi32> -> tensor<4x8xi1>
  %z1 = loom.constant dense<0.0> : tensor<4x8xf32>
  %k1 = loom.select %m1, %h1, %z1 : tensor<4x8xi1>, tensor<4x8xf32>
  %t1 = loom.tanh %k1 : tensor<4x8xf32>
  %s1 = loom.reduce sum %t1, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %b1 = loom.broadcast_in_dim %s1, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %q1 = loom.mul %t1, %b1 : tensor<4x8xf32>
  %n1 = loom.neg %q1 : tensor<4x8xf32>
  %x2 = loom.add %x1, %n1 : tensor<4x8xf32>

  %h2 = loom.dot_general %x2, %w2, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("layer.cpp":10:1)
  %k2 = loom.select %m0, %h2, %z0 : tensor<4x8xi1>, tensor<4x8xf32>
  %t2 = loom.tanh %k2 : tensor<4x8xf32>
  %s2 = loom.reduce sum %t2, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %b2 = loom.broadcast_in_dim %s2, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %q2 = loom.mul %t2, %b2 : tensor<4x8xf32>
  %n2 = loom.neg %q2 : tensor<4x8xf32>
  %x3 = loom.add %x2, %n2 : tensor<4x8xf32>

  %u = loom.add %b0, %b1 : tensor<4x8xf32>
  %v = loom.add %u, %b2 : tensor<4x8xf32>
  return %x3, %v : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Elementwise rounds that feed each other (random bits, a polynomial) stay where they are:
// lowering fuses them across rounds, and calls would cut those chains.
// CHECK-LABEL: func.func @rounds
// CHECK-NOT:     call
// CHECK-NOT:     func.func private
func.func @rounds(%a: tensor<16xi32>, %k: tensor<16xi32>) -> tensor<16xi32> {
  %s = loom.constant dense<13> : tensor<16xi32>
  %t = loom.constant dense<19> : tensor<16xi32>
  %a1 = loom.add %a, %k : tensor<16xi32>
  %b1 = loom.shift_left %a1, %s : tensor<16xi32>
  %c1 = loom.shift_right_logical %a1, %t : tensor<16xi32>
  %d1 = loom.or %b1, %c1 : tensor<16xi32>
  %e1 = loom.xor %d1, %a1 : tensor<16xi32>
  %f1 = loom.add %e1, %k : tensor<16xi32>
  %g1 = loom.xor %f1, %d1 : tensor<16xi32>
  %h1 = loom.add %g1, %e1 : tensor<16xi32>
  %a2 = loom.add %h1, %k : tensor<16xi32>
  %b2 = loom.shift_left %a2, %s : tensor<16xi32>
  %c2 = loom.shift_right_logical %a2, %t : tensor<16xi32>
  %d2 = loom.or %b2, %c2 : tensor<16xi32>
  %e2 = loom.xor %d2, %a2 : tensor<16xi32>
  %f2 = loom.add %e2, %k : tensor<16xi32>
  %g2 = loom.xor %f2, %d2 : tensor<16xi32>
  %h2 = loom.add %g2, %e2 : tensor<16xi32>
  return %h2 : tensor<16xi32>
}

// -----

// Independent elementwise copies (a gradient clipping's scaling of each layer's gradient) are
// outlined: no chain runs between them.
// CHECK-LABEL: func.func private @"block:optim.cpp:5"
// CHECK-SAME:    (%{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
// CHECK-LABEL: func.func @update
// CHECK-COUNT-2: call @"block:optim.cpp:5"
func.func @update(%p0: tensor<8xf32>, %m0: tensor<8xf32>, %g0: tensor<8xf32>,
                  %p1: tensor<8xf32>, %m1: tensor<8xf32>, %g1: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %b = loom.constant dense<0.9> : tensor<8xf32>
  %c = loom.constant dense<0.1> : tensor<8xf32>
  %lr = loom.constant dense<0.01> : tensor<8xf32>
  %e = loom.constant dense<1.0e-8> : tensor<8xf32>
  %a0 = loom.mul %m0, %b : tensor<8xf32> loc("optim.cpp":5:1)
  %d0 = loom.mul %g0, %c : tensor<8xf32>
  %n0 = loom.add %a0, %d0 : tensor<8xf32>
  %s0 = loom.mul %n0, %n0 : tensor<8xf32>
  %r0 = loom.sqrt %s0 : tensor<8xf32>
  %q0 = loom.add %r0, %e : tensor<8xf32>
  %u0 = loom.div %n0, %q0 : tensor<8xf32>
  %v0 = loom.mul %u0, %lr : tensor<8xf32>
  %o0 = loom.sub %p0, %v0 : tensor<8xf32>
  %a1 = loom.mul %m1, %b : tensor<8xf32> loc("optim.cpp":5:1)
  %d1 = loom.mul %g1, %c : tensor<8xf32>
  %n1 = loom.add %a1, %d1 : tensor<8xf32>
  %s1 = loom.mul %n1, %n1 : tensor<8xf32>
  %r1 = loom.sqrt %s1 : tensor<8xf32>
  %q1 = loom.add %r1, %e : tensor<8xf32>
  %u1 = loom.div %n1, %q1 : tensor<8xf32>
  %v1 = loom.mul %u1, %lr : tensor<8xf32>
  %o1 = loom.sub %p1, %v1 : tensor<8xf32>
  %to = loom.add %o0, %o1 : tensor<8xf32>
  %tn = loom.add %n0, %n1 : tensor<8xf32>
  return %to, %tn : tensor<8xf32>, tensor<8xf32>
}

// -----

// Copies whose results the function returns into donated arguments (an optimizer's update of
// each layer's parameters) write them into the block's argument for them
// (materialize_in_destination): bufferized, the block updates the caller's buffer in place.
// The state, returned but not donated, is an ordinary result.
// CHECK-LABEL: func.func private @"block:optim.cpp:5"
// CHECK-SAME:    (%[[M:.*]]: tensor<8xf32>, %[[G:.*]]: tensor<8xf32>, %[[P:.*]]: tensor<8xf32>)
// CHECK:         %[[N:.*]] = loom.add
// CHECK:         %[[O:.*]] = loom.sub %[[P]]
// CHECK:         %[[W:.*]] = bufferization.materialize_in_destination %[[O]] in %[[P]]
// CHECK:         return %[[N]], %[[W]]
// CHECK-LABEL: func.func @returned
// CHECK-SAME:    (%[[P0:[^:]*]]: tensor<8xf32> {loom.aliased_output = 0 : i64}, %[[M0:[^:]*]]: tensor<8xf32>, %[[G0:[^:]*]]: tensor<8xf32>, %[[P1:[^:]*]]: tensor<8xf32> {loom.aliased_output = 2 : i64}, %[[M1:[^:]*]]: tensor<8xf32>, %[[G1:[^:]*]]: tensor<8xf32>)
// CHECK:         %[[C0:.*]]:2 = call @"block:optim.cpp:5"(%[[M0]], %[[G0]], %[[P0]])
// CHECK:         %[[C1:.*]]:2 = call @"block:optim.cpp:5"(%[[M1]], %[[G1]], %[[P1]])
// CHECK:         return %[[C0]]#1, %[[C0]]#0, %[[C1]]#1, %[[C1]]#0
func.func @returned(%p0: tensor<8xf32> {loom.aliased_output = 0 : i64}, %m0: tensor<8xf32>,
                    %g0: tensor<8xf32>, %p1: tensor<8xf32> {loom.aliased_output = 2 : i64},
                    %m1: tensor<8xf32>, %g1: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %b = loom.constant dense<0.9> : tensor<8xf32>
  %c = loom.constant dense<0.1> : tensor<8xf32>
  %lr = loom.constant dense<0.01> : tensor<8xf32>
  %e = loom.constant dense<1.0e-8> : tensor<8xf32>
  %a0 = loom.mul %m0, %b : tensor<8xf32> loc("optim.cpp":5:1)
  %d0 = loom.mul %g0, %c : tensor<8xf32>
  %n0 = loom.add %a0, %d0 : tensor<8xf32>
  %s0 = loom.mul %n0, %n0 : tensor<8xf32>
  %r0 = loom.sqrt %s0 : tensor<8xf32>
  %q0 = loom.add %r0, %e : tensor<8xf32>
  %u0 = loom.div %n0, %q0 : tensor<8xf32>
  %v0 = loom.mul %u0, %lr : tensor<8xf32>
  %o0 = loom.sub %p0, %v0 : tensor<8xf32>
  %a1 = loom.mul %m1, %b : tensor<8xf32> loc("optim.cpp":5:1)
  %d1 = loom.mul %g1, %c : tensor<8xf32>
  %n1 = loom.add %a1, %d1 : tensor<8xf32>
  %s1 = loom.mul %n1, %n1 : tensor<8xf32>
  %r1 = loom.sqrt %s1 : tensor<8xf32>
  %q1 = loom.add %r1, %e : tensor<8xf32>
  %u1 = loom.div %n1, %q1 : tensor<8xf32>
  %v1 = loom.mul %u1, %lr : tensor<8xf32>
  %o1 = loom.sub %p1, %v1 : tensor<8xf32>
  return %o0, %n0, %o1, %n1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Copies that look alike but read an operand from different places (the second reads its own
// value where the first reads one from before it) are not the same computation: left alone.
// CHECK-LABEL: func.func @different
// CHECK-NOT:     call
func.func @different(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b0 = loom.tanh %a0 : tensor<4x4xf32>
  %c0 = loom.add %b0, %x : tensor<4x4xf32>
  %d0 = loom.exp %c0 : tensor<4x4xf32>
  %e0 = loom.mul %d0, %w : tensor<4x4xf32>
  %f0 = loom.sub %e0, %x : tensor<4x4xf32>
  %g0 = loom.neg %f0 : tensor<4x4xf32>
  %h0 = loom.abs %g0 : tensor<4x4xf32>
  %a1 = loom.dot_general %h0, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b1 = loom.tanh %a1 : tensor<4x4xf32>
  %c1 = loom.add %b1, %b1 : tensor<4x4xf32>
  %d1 = loom.exp %c1 : tensor<4x4xf32>
  %e1 = loom.mul %d1, %w : tensor<4x4xf32>
  %f1 = loom.sub %e1, %x : tensor<4x4xf32>
  %g1 = loom.neg %f1 : tensor<4x4xf32>
  %h1 = loom.abs %g1 : tensor<4x4xf32>
  return %h1 : tensor<4x4xf32>
}

// -----

// A slice that later code reads (the backward reading the forward's queries) is not returned,
// which would copy it out: the block returns its source, and the slice is taken after the call.
// CHECK-LABEL: func.func private @"block:attn.cpp:3"
// CHECK-SAME:    -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:         %[[T:.*]] = loom.tanh
// CHECK:         return %{{.*}}, %[[T]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-LABEL: func.func @sliced
// CHECK:         %[[C0:.*]]:2 = call @"block:attn.cpp:3"
// CHECK-NEXT:    %[[S0:.*]] = loom.slice %[[C0]]#1, start = [0, 0], limit = [4, 4]
// CHECK:         %[[C1:.*]]:2 = call @"block:attn.cpp:3"(%[[C0]]#0
// CHECK-NEXT:    %[[S1:.*]] = loom.slice %[[C1]]#1, start = [0, 0], limit = [4, 4]
// CHECK:         loom.add %[[S0]], %[[S1]]
func.func @sliced(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  %a0 = loom.dot_general %x, %w0, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("attn.cpp":3:1)
  %b0 = loom.tanh %a0 : tensor<4x8xf32>
  %q0 = loom.slice %b0, start = [0, 0], limit = [4, 4], strides = [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %c0 = loom.exp %b0 : tensor<4x8xf32>
  %d0 = loom.mul %c0, %x : tensor<4x8xf32>
  %e0 = loom.sub %d0, %b0 : tensor<4x8xf32>
  %f0 = loom.abs %e0 : tensor<4x8xf32>
  %g0 = loom.add %f0, %x : tensor<4x8xf32>
  %h0 = loom.tanh %g0 : tensor<4x8xf32>
  %a1 = loom.dot_general %h0, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("attn.cpp":3:1)
  %b1 = loom.tanh %a1 : tensor<4x8xf32>
  %q1 = loom.slice %b1, start = [0, 0], limit = [4, 4], strides = [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %c1 = loom.exp %b1 : tensor<4x8xf32>
  %d1 = loom.mul %c1, %h0 : tensor<4x8xf32>
  %e1 = loom.sub %d1, %b1 : tensor<4x8xf32>
  %f1 = loom.abs %e1 : tensor<4x8xf32>
  %g1 = loom.add %f1, %h0 : tensor<4x8xf32>
  %h1 = loom.tanh %g1 : tensor<4x8xf32>
  %s = loom.add %q0, %q1 : tensor<4x4xf32>
  return %h1, %s : tensor<4x8xf32>, tensor<4x4xf32>
}

// -----

// The same with the slice's sharding constrained (attention's heads; a one-device program keeps
// the constraint, the identity): the constraint is taken after the call with its slice, not
// passed across as a view, which would be copied dense into the reader's function.
// CHECK-LABEL: func.func private @"block:attn.cpp:3"
// CHECK-SAME:    -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-LABEL: func.func @constrained
// CHECK:         %[[C0:.*]]:2 = call @"block:attn.cpp:3"
// CHECK-NEXT:    %[[S0:.*]] = loom.slice %[[C0]]#1, start = [0, 0], limit = [4, 4]
// CHECK-NEXT:    %[[K0:.*]] = loom.sharding_constraint %[[S0]]
// CHECK:         %[[C1:.*]]:2 = call @"block:attn.cpp:3"(%[[C0]]#0
// CHECK-NEXT:    %[[S1:.*]] = loom.slice %[[C1]]#1, start = [0, 0], limit = [4, 4]
// CHECK-NEXT:    %[[K1:.*]] = loom.sharding_constraint %[[S1]]
// CHECK:         loom.add %[[K0]], %[[K1]]
loom.mesh @mesh axes = ["data"] shape = [1]
func.func @constrained(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  %a0 = loom.dot_general %x, %w0, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("attn.cpp":3:1)
  %b0 = loom.tanh %a0 : tensor<4x8xf32>
  %q0 = loom.slice %b0, start = [0, 0], limit = [4, 4], strides = [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %k0 = loom.sharding_constraint %q0 : tensor<4x4xf32> to #loom.sharding<@mesh, [[], []]>
  %c0 = loom.exp %b0 : tensor<4x8xf32>
  %d0 = loom.mul %c0, %x : tensor<4x8xf32>
  %e0 = loom.sub %d0, %b0 : tensor<4x8xf32>
  %f0 = loom.abs %e0 : tensor<4x8xf32>
  %g0 = loom.add %f0, %x : tensor<4x8xf32>
  %h0 = loom.tanh %g0 : tensor<4x8xf32>
  %a1 = loom.dot_general %h0, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("attn.cpp":3:1)
  %b1 = loom.tanh %a1 : tensor<4x8xf32>
  %q1 = loom.slice %b1, start = [0, 0], limit = [4, 4], strides = [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %k1 = loom.sharding_constraint %q1 : tensor<4x4xf32> to #loom.sharding<@mesh, [[], []]>
  %c1 = loom.exp %b1 : tensor<4x8xf32>
  %d1 = loom.mul %c1, %h0 : tensor<4x8xf32>
  %e1 = loom.sub %d1, %b1 : tensor<4x8xf32>
  %f1 = loom.abs %e1 : tensor<4x8xf32>
  %g1 = loom.add %f1, %h0 : tensor<4x8xf32>
  %h1 = loom.tanh %g1 : tensor<4x8xf32>
  %s = loom.add %k0, %k1 : tensor<4x4xf32>
  return %h1, %s : tensor<4x8xf32>, tensor<4x4xf32>
}

// -----

// Each layer draws its weights from its own row of the split keys: the rows' slices differ
// (start = [0, 0], [1, 0]) and would break the repeat. They and the key words computed from
// them move up to just after the keys, and each copy passes its words to the block.
// CHECK-LABEL: func.func private @"block:random.cpp:7"
// CHECK-SAME:    (%{{.*}}: tensor<1x2xi32>, %{{.*}}: tensor<i32>) -> tensor<16xi32>
// CHECK-LABEL: func.func @draws
// CHECK:         %[[R0:.*]] = loom.slice %arg0, start = [0, 0]
// CHECK:         %[[X0:.*]] = loom.xor
// CHECK:         %[[R1:.*]] = loom.slice %arg0, start = [1, 0]
// CHECK:         %[[X1:.*]] = loom.xor
// CHECK:         call @"block:random.cpp:7"(%[[R0]], %[[X0]])
// CHECK:         call @"block:random.cpp:7"(%[[R1]], %[[X1]])
func.func @draws(%keys: tensor<2x2xi32>) -> (tensor<16xi32>, tensor<16xi32>) {
  %c13 = loom.constant dense<13> : tensor<16xi32>
  %c19 = loom.constant dense<19> : tensor<16xi32>
  %r0 = loom.slice %keys, start = [0, 0], limit = [1, 2], strides = [1, 1] : tensor<2x2xi32> -> tensor<1x2xi32>
  %k0 = loom.reshape %r0 : tensor<1x2xi32> -> tensor<2xi32>
  %s0 = loom.slice %k0, start = [0], limit = [1], strides = [1] : tensor<2xi32> -> tensor<1xi32>
  %w0 = loom.reshape %s0 : tensor<1xi32> -> tensor<i32>
  %t0 = loom.slice %k0, start = [1], limit = [2], strides = [1] : tensor<2xi32> -> tensor<1xi32>
  %v0 = loom.reshape %t0 : tensor<1xi32> -> tensor<i32>
  %x0 = loom.xor %w0, %v0 : tensor<i32>
  %a0 = loom.broadcast_in_dim %w0, dims = [] : tensor<i32> -> tensor<16xi32> loc("random.cpp":7:1)
  %b0 = loom.broadcast_in_dim %x0, dims = [] : tensor<i32> -> tensor<16xi32>
  %d0 = loom.add %a0, %b0 : tensor<16xi32>
  %e0 = loom.shift_left %d0, %c13 : tensor<16xi32>
  %f0 = loom.xor %e0, %a0 : tensor<16xi32>
  %g0 = loom.add %f0, %c19 : tensor<16xi32>
  %h0 = loom.shift_left %g0, %c19 : tensor<16xi32>
  %i0 = loom.xor %h0, %d0 : tensor<16xi32>
  %j0 = loom.add %i0, %b0 : tensor<16xi32>
  %r1 = loom.slice %keys, start = [1, 0], limit = [2, 2], strides = [1, 1] : tensor<2x2xi32> -> tensor<1x2xi32>
  %k1 = loom.reshape %r1 : tensor<1x2xi32> -> tensor<2xi32>
  %s1 = loom.slice %k1, start = [0], limit = [1], strides = [1] : tensor<2xi32> -> tensor<1xi32>
  %w1 = loom.reshape %s1 : tensor<1xi32> -> tensor<i32>
  %t1 = loom.slice %k1, start = [1], limit = [2], strides = [1] : tensor<2xi32> -> tensor<1xi32>
  %v1 = loom.reshape %t1 : tensor<1xi32> -> tensor<i32>
  %x1 = loom.xor %w1, %v1 : tensor<i32>
  %a1 = loom.broadcast_in_dim %w1, dims = [] : tensor<i32> -> tensor<16xi32> loc("random.cpp":7:1)
  %b1 = loom.broadcast_in_dim %x1, dims = [] : tensor<i32> -> tensor<16xi32>
  %d1 = loom.add %a1, %b1 : tensor<16xi32>
  %e1 = loom.shift_left %d1, %c13 : tensor<16xi32>
  %f1 = loom.xor %e1, %a1 : tensor<16xi32>
  %g1 = loom.add %f1, %c19 : tensor<16xi32>
  %h1 = loom.shift_left %g1, %c19 : tensor<16xi32>
  %i1 = loom.xor %h1, %d1 : tensor<16xi32>
  %j1 = loom.add %i1, %b1 : tensor<16xi32>
  return %j0, %j1 : tensor<16xi32>, tensor<16xi32>
}

// -----

// A block starts where its copies pass the least across their ends. Each layer here ends in
// a residual sum, and the stream starts as the sum of an embedding and broadcast positions:
// all sums of the same shape. Cut at the sums, the first call would take both operands of the
// first one written out in full (the broadcast too) and return two values; cut after them,
// each call takes the residual stream alone and the first sum stays in the caller.
// CHECK-LABEL: func.func private @"block:layer.cpp:20"
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK:         loom.dot_general %[[X]], %[[W]]
// CHECK:         %[[L:.*]] = loom.exp
// CHECK:         %[[OUT:.*]] = loom.add %[[X]], %[[L]]
// CHECK:         return %[[OUT]]
// CHECK-LABEL: func.func @residual
// CHECK-SAME:    (%[[E:.*]]: tensor<4x8xf32>, %[[P:.*]]: tensor<8xf32>, %[[W0:.*]]: tensor<8x8xf32>, %[[W1:.*]]: tensor<8x8xf32>)
// CHECK:         %[[B:.*]] = loom.broadcast_in_dim %[[P]]
// CHECK-NEXT:    %[[X0:.*]] = loom.add %[[E]], %[[B]]
// CHECK-NEXT:    %[[X1:.*]] = call @"block:layer.cpp:20"(%[[X0]], %[[W0]])
// CHECK-NEXT:    %[[X2:.*]] = call @"block:layer.cpp:20"(%[[X1]], %[[W1]])
// CHECK-NEXT:    return %[[X2]]
func.func @residual(%e: tensor<4x8xf32>, %pos: tensor<8xf32>, %w0: tensor<8x8xf32>,
                    %w1: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %p = loom.broadcast_in_dim %pos, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %x0 = loom.add %e, %p : tensor<4x8xf32> loc("layer.cpp":19:1)
  %h0 = loom.dot_general %x0, %w0, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("layer.cpp":20:1)
  %t0 = loom.tanh %h0 : tensor<4x8xf32>
  %a0 = loom.mul %t0, %t0 : tensor<4x8xf32>
  %s0 = loom.reduce sum %a0, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %b0 = loom.broadcast_in_dim %s0, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %q0 = loom.mul %t0, %b0 : tensor<4x8xf32>
  %l0 = loom.exp %q0 : tensor<4x8xf32>
  %x1 = loom.add %x0, %l0 : tensor<4x8xf32> loc("layer.cpp":19:1)

  %h1 = loom.dot_general %x1, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("layer.cpp":20:1)
  %t1 = loom.tanh %h1 : tensor<4x8xf32>
  %a1 = loom.mul %t1, %t1 : tensor<4x8xf32>
  %s1 = loom.reduce sum %a1, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %b1 = loom.broadcast_in_dim %s1, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %q1 = loom.mul %t1, %b1 : tensor<4x8xf32>
  %l1 = loom.exp %q1 : tensor<4x8xf32>
  %x2 = loom.add %x1, %l1 : tensor<4x8xf32> loc("layer.cpp":19:1)
  return %x2 : tensor<4x8xf32>
}
