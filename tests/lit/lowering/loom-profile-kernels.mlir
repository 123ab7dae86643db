// RUN: loom-opt %s -loom-profile-kernels | FileCheck %s
// RUN: loom-opt %s -loom-profile-kernels -loom-cpu-to-llvm | FileCheck %s --check-prefix=LLVM

// Each kernel call of a public function is bracketed by the profiler's begin and end calls;
// end gets the address of a NUL-terminated constant holding the kernel's name, one per name.
// Calls to the runtime (declarations) and calls inside kernels are left alone.
// CHECK-DAG:   memref.global "private" constant @[[N1:loom_profile_name.*]] : memref<6xi8> = dense<[101, 120, 112, 58, 49, 0]>
// CHECK-DAG:   memref.global "private" constant @[[N2:loom_profile_name.*]] : memref<6xi8> = dense<[97, 100, 100, 58, 50, 0]>
// CHECK-DAG:   func.func private @loom_rt_profile_begin()
// CHECK-DAG:   func.func private @loom_rt_profile_end(i64)
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    call @loom_rt_profile_begin()
// CHECK-NEXT:    call @"exp:1"(%arg0)
// CHECK-NEXT:    %[[G:.*]] = memref.get_global @[[N1]] : memref<6xi8>
// CHECK-NEXT:    %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK-NEXT:    call @loom_rt_profile_end(%[[I]])
// CHECK-NEXT:    call @runtime_call(%arg0)
// CHECK-NEXT:    call @loom_rt_profile_begin()
// CHECK-NEXT:    call @"exp:1"(%arg0)
// CHECK-NEXT:    memref.get_global @[[N1]]
// CHECK:         call @loom_rt_profile_begin()
// CHECK-NEXT:    call @"add:2"(%arg0)
// CHECK-NEXT:    memref.get_global @[[N2]]
// CHECK:         call @loom_rt_profile_end
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @"exp:1"
// CHECK-NOT:     loom_rt_profile
// CHECK:         return

// LLVM-LABEL: llvm.func @main
// LLVM:         llvm.call @loom_rt_profile_begin()
// LLVM:         llvm.call @"exp:1"
// LLVM:         llvm.mlir.addressof @loom_profile_name
// LLVM:         llvm.call @loom_rt_profile_end
func.func private @runtime_call(memref<4xf32>)
func.func @main(%a: memref<4xf32>) {
  call @"exp:1"(%a) : (memref<4xf32>) -> ()
  call @runtime_call(%a) : (memref<4xf32>) -> ()
  call @"exp:1"(%a) : (memref<4xf32>) -> ()
  call @"add:2"(%a) : (memref<4xf32>) -> ()
  return
}
func.func private @"exp:1"(%a: memref<4xf32>) {
  call @"add:2"(%a) : (memref<4xf32>) -> ()
  return
}
func.func private @"add:2"(%a: memref<4xf32>) {
  return
}
