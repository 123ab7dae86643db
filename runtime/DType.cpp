// Sizes and spellings of the runtime element types.
#include "runtime/DType.h"

#include <array>

namespace loom::rt {

namespace {
constexpr std::array<DType, 7> allDTypes = {DType::F32, DType::F64, DType::BF16,
                                            DType::F16, DType::I32, DType::I64,
                                            DType::I1};
} // namespace

size_t byteSize(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::I1:
    return 1;
  }
  return 0;
}

std::string_view name(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::I1:
    return "i1";
  }
  return "unknown";
}

std::optional<DType> parseDType(std::string_view text) {
  for (DType dtype : allDTypes)
    if (name(dtype) == text)
      return dtype;
  return std::nullopt;
}

} // namespace loom::rt
