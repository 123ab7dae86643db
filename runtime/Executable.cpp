// Size arithmetic and printing of buffer layouts.
#include "runtime/Executable.h"

namespace loom::rt {

int64_t BufferLayout::numElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

size_t BufferLayout::bytes() const {
  return static_cast<size_t>(numElements()) * byteSize(dtype);
}

std::string BufferLayout::toString() const {
  std::string result(name(dtype));
  result += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0)
      result += ',';
    result += std::to_string(shape[i]);
  }
  result += ']';
  return result;
}

} // namespace loom::rt
