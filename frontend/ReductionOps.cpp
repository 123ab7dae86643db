// Reductions of the DSL (sum, mean, max over axes) and the softmax family built from them.
#include "frontend/Ops.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomOps.h"

#include <algorithm>
#include <fmt/format.h>

using namespace loom;
using namespace loom::detail;
namespace ml = mlir::loom;

namespace {

/// `axes` made non-negative, sorted and unique; all axes when empty.
Axes normalizeAxes(const Tensor &x, const Axes &axes, const Loc &loc, std::string_view op) {
  Axes result;
  if (axes.empty())
    for (int64_t i = 0; i < x.rank(); ++i)
      result.push_back(i);
  for (int64_t axis : axes) {
    int64_t a = axis < 0 ? axis + x.rank() : axis;
    if (a < 0 || a >= x.rank())
      fail(loc, std::string(op),
           fmt::format("axis {} is out of range for {}", axis, x.describe()));
    result.push_back(a);
  }
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

Tensor reduce(ml::ReduceKind kind, const Tensor &x, const Axes &axes, bool keepdims,
              const Loc &loc, std::string_view name) {
  Trace &trace = Trace::of(x, loc, name);
  if (x.dtype() == DType::I1)
    fail(loc, std::string(name), fmt::format("cannot reduce i1 tensor {}", x.describe()));
  Axes dims = normalizeAxes(x, axes, loc, name);
  Tensor result = build<ml::ReduceOp>(trace, loc, name, {&x}, kind,
                                      trace.value(x, loc, name), llvm::ArrayRef<int64_t>(dims));
  if (!keepdims)
    return result;
  Shape kept = x.shape();
  for (int64_t d : dims)
    kept[d] = 1;
  return reshape(result, kept, loc);
}

} // namespace

Tensor loom::sum(const Tensor &x, const Axes &axes, bool keepdims, Loc loc) {
  return reduce(ml::ReduceKind::sum, x, axes, keepdims, loc, "sum");
}

Tensor loom::max(const Tensor &x, const Axes &axes, bool keepdims, Loc loc) {
  return reduce(ml::ReduceKind::max, x, axes, keepdims, loc, "max");
}

Tensor loom::mean(const Tensor &x, const Axes &axes, bool keepdims, Loc loc) {
  int64_t count = 1;
  for (int64_t d : normalizeAxes(x, axes, loc, "mean"))
    count *= x.shape()[d];
  Tensor total = sum(x, axes, keepdims, loc);
  return div(total, scalar_like(total, static_cast<double>(count), loc), loc);
}

// The shift by the max only guards against overflow; it does not change the value, so no
// gradient needs to flow through it.
Tensor loom::softmax(const Tensor &x, int64_t axis, Loc loc) {
  normalizeAxes(x, {axis}, loc, "softmax"); // named as the user's op, not as its max
  Tensor shifted = sub(x, stop_gradient(max(x, {axis}, true, loc), loc), loc);
  Tensor e = exp(shifted, loc);
  return div(e, sum(e, {axis}, true, loc), loc);
}

Tensor loom::log_softmax(const Tensor &x, int64_t axis, Loc loc) {
  normalizeAxes(x, {axis}, loc, "log_softmax");
  Tensor shifted = sub(x, stop_gradient(max(x, {axis}, true, loc), loc), loc);
  return sub(shifted, log(sum(exp(shifted, loc), {axis}, true, loc), loc), loc);
}
