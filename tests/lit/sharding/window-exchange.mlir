// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests that a slice along a split dim, split again, moves only what each device reads: of
// columns [128, 256) of a [64, 384] value split 4 ways (pieces of 96 columns), device 0 reads
// columns 128-159 from device 1 and device 3 reads 224-255 from device 2; devices 1 and 2
// hold theirs. One permute of the same 32 columns of both senders (8 KB per receiver)
// replaces gathering the whole value (73728 bytes per device); each device then selects its
// columns by a row of a table indexed by its position.
// CHECK-LABEL: func.func @fused_projection_slice
// CHECK-NOT: loom.all_gather
// CHECK: %[[PART:.*]] = loom.slice %arg0, start = [0, 32], limit = [64, 64], strides = [1, 1] : tensor<64x96xf32> -> tensor<64x32xf32>
// CHECK: %[[GOT:.*]] = loom.collective_permute %[[PART]], @mesh, axes = ["t"], pairs = [1, 0, 2, 3] {bytes = 8192 : i64, reason = "the parts of other devices' pieces that loom.slice at {{.*}} reads (instead of gathering 1 value whole)"} : tensor<64x32xf32>
// CHECK: %[[BUF:.*]] = loom.concatenate(%arg0, %[[GOT]]) dim = 1
// CHECK: %[[AT:.*]] = loom.axis_index @mesh, axes = ["t"]
// CHECK: loom.gather %{{.*}}[%{{.*}}] : (tensor<4x32xi32>, tensor<1xi32>) -> tensor<1x32xi32>
// CHECK: loom.gather %{{.*}}[%{{.*}}] : (tensor<128x64xf32>, tensor<32xi32>) -> tensor<32x64xf32>
// CHECK-NOT: loom.all_gather
// CHECK: return
loom.mesh @mesh axes = ["t"] shape = [4]
func.func @fused_projection_slice(%x: tensor<64x384xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["t"]]>})
    -> (tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["t"]]>}) {
  %0 = loom.slice %x, start = [0, 128], limit = [64, 256], strides = [1, 1] : tensor<64x384xf32> -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// Tests a roll by 8 rows of a value split 4 ways (16 rows each): every device reads 8 rows
// of the next one's piece, the last the first's. The two slices' transfers are one cyclic
// permute of 4096 bytes, and every device takes the same rows of what it holds and got: a
// static slice, no table.
// CHECK-LABEL: func.func @roll
// CHECK-NOT: loom.all_gather
// CHECK: %[[PART:.*]] = loom.slice %arg0, start = [0, 0], limit = [8, 128], strides = [1, 1]
// CHECK: %[[GOT:.*]] = loom.collective_permute %[[PART]], @mesh, axes = ["t"], pairs = [1, 0, 2, 1, 3, 2, 0, 3] {bytes = 4096 : i64, reason = "{{.*}}loom.concatenate at {{.*}}(instead of gathering 2 values whole)"}
// CHECK: %[[BUF:.*]] = loom.concatenate(%arg0, %[[GOT]]) dim = 0 : (tensor<16x128xf32>, tensor<8x128xf32>) -> tensor<24x128xf32>
// CHECK: %[[R:.*]] = loom.slice %[[BUF]], start = [8, 0], limit = [24, 128], strides = [1, 1]
// CHECK-NEXT: return %[[R]]
loom.mesh @mesh axes = ["t"] shape = [4]
func.func @roll(%x: tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [["t"], []]>})
    -> (tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [["t"], []]>}) {
  %0 = loom.slice %x, start = [8, 0], limit = [64, 128], strides = [1, 1] : tensor<64x128xf32> -> tensor<56x128xf32>
  %1 = loom.slice %x, start = [0, 0], limit = [8, 128], strides = [1, 1] : tensor<64x128xf32> -> tensor<8x128xf32>
  %2 = loom.concatenate(%0, %1) dim = 0 : (tensor<56x128xf32>, tensor<8x128xf32>) -> tensor<64x128xf32>
  return %2 : tensor<64x128xf32>
}

// -----

// Tests a pad along a split dim (a slice's gradient): [48, 64] padded by 8 rows on each side
// to [64, 64], split 4 ways both sides (12 and 16 rows). Devices 0 and 3 read padding and
// their own rows; device 1 reads 4 rows of device 0's piece, device 2 4 rows of device 3's.
// Two permutes of 4 rows would each pay a collective's start-up (16 KB in the cost model)
// for 1 KB: one permute of the whole 12-row pieces (3 KB) serves both pairs.
// CHECK-LABEL: func.func @pad_rows
// CHECK-NOT: loom.all_gather
// CHECK: %[[PAD:.*]] = loom.broadcast_in_dim %arg1, dims = [] : tensor<f32> -> tensor<1x64xf32>
// CHECK: %[[GOT:.*]] = loom.collective_permute %arg0, @mesh, axes = ["t"], pairs = [3, 2, 0, 1] {bytes = 3072 : i64
// CHECK: loom.concatenate(%arg0, %[[PAD]], %[[GOT]]) dim = 0 : (tensor<12x64xf32>, tensor<1x64xf32>, tensor<12x64xf32>) -> tensor<25x64xf32>
// CHECK: loom.constant dense<{{\[\[}}12, 12, 12, 12, 12, 12, 12, 12, 0, 1, 2, 3, 4, 5, 6, 7], [21, 22, 23, 24, 0, 1,
// CHECK-NOT: loom.all_gather
// CHECK: return
loom.mesh @mesh axes = ["t"] shape = [4]
func.func @pad_rows(%x: tensor<48x64xf32> {loom.sharding = #loom.sharding<@mesh, [["t"], []]>}, %zero: tensor<f32>)
    -> (tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["t"], []]>}) {
  %0 = loom.pad %x, %zero, low = [8, 0], high = [8, 0], interior = [0, 0] : (tensor<48x64xf32>, tensor<f32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Tests that a value also gathered whole for another user (here the result) stays gathered
// for the slice: the two gathers become one (CSE), and an exchange would only add to it.
// CHECK-LABEL: func.func @gathered_value_read_twice
// CHECK: loom.all_gather %arg0
// CHECK-NOT: loom.collective_permute
loom.mesh @mesh axes = ["t"] shape = [4]
func.func @gathered_value_read_twice(%x: tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [["t"], []]>})
    -> (tensor<32x128xf32> {loom.sharding = #loom.sharding<@mesh, [["t"], []]>},
        tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [[], []]>}) {
  %0 = loom.slice %x, start = [8, 0], limit = [40, 128], strides = [1, 1] : tensor<64x128xf32> -> tensor<32x128xf32>
  return %0, %x : tensor<32x128xf32>, tensor<64x128xf32>
}

// -----

// Tests q, k and v sliced from one fused projection split 4 ways, each split again: every
// slice's gather goes (another slice's gather of the same value is no reason to keep one).
// Of k = columns [128, 256), device 0 reads from device 1 and device 3 from device 2, as
// above (one permute); q's devices 1, 2 and 3 read from devices 0, 0 and 1, and v's
// reversed (two permutes each: device 0 sends to two).
// CHECK-LABEL: func.func @q_k_v_of_one_projection
// CHECK-NOT: loom.all_gather
// CHECK-COUNT-5: loom.collective_permute
// CHECK-NOT: loom.all_gather
// CHECK: return
loom.mesh @mesh axes = ["t"] shape = [4]
func.func @q_k_v_of_one_projection(%x: tensor<64x384xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["t"]]>})
    -> (tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["t"]]>},
        tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["t"]]>},
        tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["t"]]>}) {
  %q = loom.slice %x, start = [0, 0], limit = [64, 128], strides = [1, 1] : tensor<64x384xf32> -> tensor<64x128xf32>
  %k = loom.slice %x, start = [0, 128], limit = [64, 256], strides = [1, 1] : tensor<64x384xf32> -> tensor<64x128xf32>
  %v = loom.slice %x, start = [0, 256], limit = [64, 384], strides = [1, 1] : tensor<64x384xf32> -> tensor<64x128xf32>
  return %q, %k, %v : tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>
}
