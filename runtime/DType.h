// Element types of runtime buffers: the runtime's own small enum, so that it
// can describe layouts without knowing MLIR types.
#ifndef LOOM_RUNTIME_DTYPE_H
#define LOOM_RUNTIME_DTYPE_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace loom::rt {

/// The element type of a buffer.
enum class DType { F32, F64, BF16, F16, I32, I64, I1 };

/// Bytes per element of `dtype`; I1 is stored as one byte per element.
size_t byteSize(DType dtype);

/// The lowercase MLIR-style spelling of `dtype`: "f32", "bf16", "i1", ...
std::string_view name(DType dtype);

/// The DType spelled `text` (as printed by name()), or nullopt.
std::optional<DType> parseDType(std::string_view text);

} // namespace loom::rt

#endif // LOOM_RUNTIME_DTYPE_H
