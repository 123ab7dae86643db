// RUN: loom-opt %s -loom-propagate-sharding -split-input-file -verify-diagnostics

// Tests the diagnostics of invalid annotations: each names the tensor (argument, result or
// op), the dim and the axes.

loom.mesh @mesh axes = ["data", "model"] shape = [2, 4]
// expected-error @+1 {{argument 0: dim 0 of 'tensor<6x8xf32>' (size 6) does not divide by the 4 devices of mesh axes ["model"]}}
func.func @indivisible(%x: tensor<6x8xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>}) -> tensor<6x8xf32> {
  return %x : tensor<6x8xf32>
}

// -----

loom.mesh @mesh axes = ["data", "model"] shape = [2, 4]
// expected-error @+1 {{argument 0: dim 1: mesh @mesh has no axis "tensor"}}
func.func @unknown_axis(%x: tensor<8x8xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["tensor"]]>}) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}

// -----

loom.mesh @mesh axes = ["data", "model"] shape = [2, 4]
// expected-error @+1 {{mesh axis "data" is used twice}}
func.func @axis_twice(%x: tensor<8x8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], ["data"]]>}) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}

// -----

loom.mesh @mesh axes = ["data", "model"] shape = [2, 4]
// expected-error @+1 {{result 0: dim 1 of 'tensor<8x6xf32>' (size 6) does not divide by the 4 devices of mesh axes ["model"]}}
func.func @bad_result(%x: tensor<8x6xf32>) -> (tensor<8x6xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>}) {
  return %x : tensor<8x6xf32>
}

// -----

loom.mesh @mesh axes = ["data", "model"] shape = [2, 4]
func.func @bad_constraint(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @+1 {{'loom.sharding_constraint' op dim 1 of 'tensor<8x6xf32>' (size 6) does not divide by the 4 devices of mesh axes ["model"]}}
  %0 = loom.sharding_constraint %x : tensor<8x6xf32> to #loom.sharding<@mesh, [[], ["model"]]>
  return %0 : tensor<8x6xf32>
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @unknown_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'loom.sharding_constraint' op sharding refers to an unknown mesh @other}}
  %0 = loom.sharding_constraint %x : tensor<8xf32> to #loom.sharding<@other, [["data"]]>
  return %0 : tensor<8xf32>
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
// expected-error @+1 {{a program may use one mesh; @second is declared besides @mesh}}
loom.mesh @second axes = ["model"] shape = [2]

// -----

// Tests that an op without a sharding rule is named itself, not the scalars that feed it.
loom.mesh @mesh axes = ["data"] shape = [2]
func.func @loop(%x: tensor<8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"]]>}) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'scf.for' op has no sharding rule, so loom-propagate-sharding cannot handle it}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<8xf32>) {
    %y = loom.exp %acc : tensor<8xf32>
    scf.yield %y : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
