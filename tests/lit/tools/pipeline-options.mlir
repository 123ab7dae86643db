// A pipeline that takes no options, given some, says so (MLIR's own registration of such a
// pipeline fails without a word, exit status 1); given none, it runs.
// RUN: not loom-opt %s --loom-cpu-pipeline=xyz 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not loom-opt %s --loom-spmd=a=1 2>&1 | FileCheck %s --check-prefix=SPMD
// RUN: not loom-opt %s '--pass-pipeline=builtin.module(loom-gpu-kernels{q=1})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GPU
// RUN: loom-opt %s --loom-cpu-to-linalg | FileCheck %s --check-prefix=RUNS
// CPU: error: 'loom-cpu-pipeline' takes no options, got 'xyz'
// SPMD: error: 'loom-spmd' takes no options, got 'a=1'
// GPU: error: 'loom-gpu-kernels' takes no options, got 'q=1'
// RUNS: linalg.generic
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
