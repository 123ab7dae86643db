// RUN: loom-opt %s -pass-pipeline='builtin.module(func.func(loom-gpu-parallel-dims-first))' | FileCheck %s

// Tests of loom-gpu-parallel-dims-first (compiler/Lowering/GpuParallelDimsFirst.cpp): a column
// sum (a bias gradient: [rows, cols] summed over rows) gets its parallel dim first, so that it
// becomes a thread per column instead of one thread for everything; the indexing maps follow.
// CHECK: #[[IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
func.func @column_sum(%x: memref<4096x768xf32>, %out: memref<768xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<4096x768xf32>) outs(%out : memref<768xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
