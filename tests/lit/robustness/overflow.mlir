// RUN: loom-opt %s -split-input-file -verify-diagnostics
// RUN: loom-opt %s -split-input-file -verify-diagnostics -loom-spmd
// RUN: loom-opt %s -split-input-file -verify-diagnostics -loom-cpu-pipeline

// Sizes whose arithmetic would wrap int64 are verifier errors naming the op and the value,
// whatever pipeline runs after (these crashed with SIGFPE or passed verification before).

// expected-error @below {{'loom.mesh' op has more devices than fit in 64 bits (shape [4294967296, 4294967296])}}
loom.mesh @m axes = ["a", "b"] shape = [4294967296, 4294967296]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = loom.sharding_constraint %x : tensor<8xf32> to #loom.sharding<@m, [["a", "b"]]>
  return %y : tensor<8xf32>
}

// -----

// expected-error @below {{'loom.mesh' op has more devices than fit in 64 bits}}
loom.mesh @m axes = ["a", "b"] shape = [4294967296, 4294967296]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = loom.reduce_scatter %x, @m, dim = 0, axes = ["a", "b"] : tensor<8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// expected-error @below {{'loom.mesh' op has more devices than fit in 64 bits}}
loom.mesh @m axes = ["a", "b"] shape = [4294967296, 4294967296]
func.func @f(%x: tensor<8xf32> {loom.sharding = #loom.sharding<@m, [["a", "b"]]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

func.func @main(%x: tensor<4xf32>, %p: tensor<f32>) -> tensor<2xf32> {
  // expected-error @below {{'loom.pad' op padding dim 0 of 'tensor<4xf32>' (low 9223372036854775807, high 9223372036854775807, interior 0) gives a size that does not fit in 64 bits}}
  %0 = loom.pad %x, %p, low = [9223372036854775807], high = [9223372036854775807], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @main(%x: tensor<5xf32>, %p: tensor<f32>) -> tensor<2xf32> {
  // expected-error @below {{'loom.pad' op padding dim 0 of 'tensor<5xf32>' (low 0, high 0, interior 4611686018427387904) gives a size that does not fit in 64 bits}}
  %0 = loom.pad %x, %p, low = [0], high = [0], interior = [4611686018427387904] : (tensor<5xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @main(%x: tensor<4294967296x4294967296xf32>) -> tensor<0xf32> {
  // expected-error @below {{'loom.reshape' op operand 0 'tensor<4294967296x4294967296xf32>' has more elements or bytes than fit in 64 bits}}
  %0 = loom.reshape %x : tensor<4294967296x4294967296xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// The element count fits, the bytes do not.
func.func @main(%x: tensor<4611686018427387904xf32>) -> tensor<4611686018427387904xf32> {
  // expected-error @below {{'loom.neg' op operand 0 'tensor<4611686018427387904xf32>' has more elements or bytes than fit in 64 bits}}
  %0 = loom.neg %x : tensor<4611686018427387904xf32>
  return %0 : tensor<4611686018427387904xf32>
}

// -----

loom.mesh @m axes = ["a"] shape = [4294967296]
func.func @f(%x: tensor<4294967296xf32>) -> tensor<8xf32> {
  // expected-error @below {{'loom.all_gather' op dim 0 of 'tensor<4294967296xf32>' times the 4294967296 devices of its axes does not fit in 64 bits}}
  %y = loom.all_gather %x, @m, dim = 0, axes = ["a"] : tensor<4294967296xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}
