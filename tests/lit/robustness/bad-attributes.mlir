// RUN: loom-opt %s -split-input-file -verify-diagnostics
// RUN: loom-opt %s -split-input-file -verify-diagnostics -loom-spmd

// The discardable loom.* attributes are verified where they appear, before any pass reads
// them (a malformed loom.factors made --loom-partition abort with "out of memory").

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'loom.add' op loom.factors entry 0 must be a list of axis names, got 1 : i64}}
  %0 = loom.add %x, %x {loom.factors = [1]} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'loom.add' op loom.factors must be a list of axis lists, got "data"}}
  %0 = loom.add %x, %x {loom.factors = "data"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'loom.add' op loom.factors entry 0 must hold non-empty axis names, got ""}}
  %0 = loom.add %x, %x {loom.factors = [[""]]} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'loom.add' op loom.shardings must list one #loom.sharding per result (1), got []}}
  %0 = loom.add %x, %x {loom.shardings = []} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'loom.add' op result 0: dim 0: mesh @mesh has no axis "model"}}
  %0 = loom.add %x, %x {loom.shardings = [#loom.sharding<@mesh, [["model"]]>]} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
// expected-error @below {{'func.func' op argument 0: sharding refers to an unknown mesh @other}}
func.func @main(%x: tensor<8xf32> {loom.sharding = #loom.sharding<@other, [["data"]]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
// expected-error @below {{'func.func' op result 0: loom.sharding must be a #loom.sharding, got 3 : i64}}
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32> {loom.sharding = 3}) {
  return %x : tensor<8xf32>
}

// -----

// expected-error @below {{'func.func' op argument 0: loom.aliased_output must be the index of a result, got -1 : i64}}
func.func @main(%x: tensor<8xf32> {loom.aliased_output = -1}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{'loom.neg' op has an unknown Loom attribute loom.shardingz (loom.sharding belongs on function arguments and results)}}
  %0 = loom.neg %x {loom.shardingz = 1} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
