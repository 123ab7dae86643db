// Buffers of a static shape and layout as plain data pointers: what the entry ABI, the
// bare-pointer calling convention and loom-pointer-buffers share.
#ifndef LOOM_COMPILER_LOWERING_STATICBUFFERS_H
#define LOOM_COMPILER_LOWERING_STATICBUFFERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::loom {

/// Whether `type` can be passed as its data pointer alone: anything but a buffer, or a
/// static, non-empty buffer with static strides and offset (MLIR's lowering cannot give an
/// empty buffer a bare pointer).
bool passesAsPointer(Type type);

/// The memref descriptor {allocated, aligned, offset, sizes, strides} of a buffer of the
/// static `type` whose (aligned) data pointer is `data`, cast back to `type`.
Value describeStaticBuffer(OpBuilder &b, Location loc, Value data, MemRefType type);

/// The data pointer `describeStaticBuffer` built `buffer` from, or null.
Value describedPointer(Value buffer);

} // namespace mlir::loom

#endif // LOOM_COMPILER_LOWERING_STATICBUFFERS_H
