// loom::Tensor: a symbolic value while a function is traced by loom::jit. It has a shape and
// a dtype but no data; every op on it records an op (with the caller's source location) in
// the trace. Tensors are only valid inside the trace that made them.
#ifndef LOOM_FRONTEND_TENSOR_H
#define LOOM_FRONTEND_TENSOR_H

#include "runtime/DType.h"

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

namespace loom {

using DType = rt::DType;
using Shape = std::vector<int64_t>;

namespace detail {
class Trace;
} // namespace detail

class Tensor {
public:
  Tensor() = default;

  const Shape &shape() const { return dims; }
  DType dtype() const { return type; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  /// Size of dim `axis`; negative axes count from the end.
  int64_t dim(int64_t axis) const;
  int64_t numElements() const;
  bool valid() const { return trace != nullptr; }
  /// "f32[2,3]".
  std::string describe() const;

private:
  friend class detail::Trace;
  Tensor(detail::Trace *trace, uint64_t serial, int id, Shape shape, DType dtype)
      : trace(trace), traceSerial(serial), id(id), dims(std::move(shape)), type(dtype) {}

  detail::Trace *trace = nullptr;
  /// Which trace made it: `trace` may be gone (a leaked tensor) and its address reused.
  uint64_t traceSerial = 0;
  int id = -1;
  Shape dims;
  DType type = DType::F32;
};

/// A tensor operand together with the source location of the expression that uses it.
/// Operators cannot take a defaulted std::source_location parameter, but the implicit
/// conversion to Located happens at the caller, so its default argument records the
/// caller's location.
struct Located {
  Located(const Tensor &tensor, std::source_location loc = std::source_location::current())
      : tensor(tensor), loc(loc) {}
  const Tensor &tensor;
  std::source_location loc;
};

/// "f32[2,3]".
std::string describe(DType dtype, const Shape &shape);
/// Appends describe(dtype, shape) to `out` (a call's signature, without a string per leaf).
void appendDescription(std::string &out, DType dtype, const Shape &shape);

} // namespace loom

#endif // LOOM_FRONTEND_TENSOR_H
