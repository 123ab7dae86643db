// Shape and indexing ops of the DSL: reshape, transpose, broadcasts, slices, concatenation,
// padding, take (gather of rows), scatter_add and one_hot.
#include "frontend/Ops.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomOps.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

using namespace loom;
using namespace loom::detail;
namespace ml = mlir::loom;

Tensor loom::reshape(const Tensor &x, const Shape &shape, Loc loc) {
  Trace &trace = Trace::of(x, loc, "reshape");
  Shape resolved = shape;
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && inferred < 0)
      inferred = static_cast<int64_t>(i);
    else if (shape[i] < 0)
      fail(loc, "reshape", fmt::format("invalid target shape [{}]", fmt::join(shape, ",")));
    else
      known *= shape[i];
  }
  if (inferred >= 0 && known > 0 && x.numElements() % known == 0)
    resolved[inferred] = x.numElements() / known;
  int64_t count = std::accumulate(resolved.begin(), resolved.end(), int64_t(1),
                                  std::multiplies<int64_t>());
  if ((inferred >= 0 && resolved[inferred] < 0) || count != x.numElements())
    fail(loc, "reshape",
         fmt::format("cannot reshape {} ({} elements) to [{}]", x.describe(), x.numElements(),
                     fmt::join(shape, ",")));
  if (resolved == x.shape())
    return x;
  return build<ml::ReshapeOp>(trace, loc, "reshape", {&x},
                              tensorType(trace.context(), resolved, x.dtype()),
                              trace.value(x, loc, "reshape"));
}

Tensor loom::transpose(const Tensor &x, const Axes &perm, Loc loc) {
  Trace &trace = Trace::of(x, loc, "transpose");
  Axes p = perm;
  if (p.empty())
    for (int64_t i = x.rank() - 1; i >= 0; --i)
      p.push_back(i);
  for (int64_t &axis : p)
    if (axis < 0)
      axis += x.rank();
  return build<ml::TransposeOp>(trace, loc, "transpose", {&x},
                                trace.value(x, loc, "transpose"), llvm::ArrayRef<int64_t>(p));
}

Tensor loom::broadcast_in_dim(const Tensor &x, const Shape &shape, const Axes &dims, Loc loc) {
  Trace &trace = Trace::of(x, loc, "broadcast_in_dim");
  return build<ml::BroadcastInDimOp>(trace, loc, "broadcast_in_dim", {&x},
                                     tensorType(trace.context(), shape, x.dtype()),
                                     trace.value(x, loc, "broadcast_in_dim"),
                                     llvm::ArrayRef<int64_t>(dims));
}

Tensor loom::broadcast_to(const Tensor &x, const Shape &shape, Loc loc) {
  Trace::of(x, loc, "broadcast_to");
  if (x.shape() == shape)
    return x;
  int64_t offset = static_cast<int64_t>(shape.size()) - x.rank();
  bool ok = offset >= 0;
  Axes dims;
  for (int64_t i = 0; ok && i < x.rank(); ++i) {
    dims.push_back(i + offset);
    ok = x.shape()[i] == 1 || x.shape()[i] == shape[i + offset];
  }
  if (!ok)
    fail(loc, "broadcast_to",
         fmt::format("cannot broadcast {} to [{}]", x.describe(), fmt::join(shape, ",")));
  return broadcast_in_dim(x, shape, dims, loc);
}

Tensor loom::slice(const Tensor &x, const Shape &start, const Shape &limit,
                   const Shape &strides, Loc loc) {
  Trace &trace = Trace::of(x, loc, "slice");
  Shape s = strides.empty() ? Shape(x.rank(), 1) : strides;
  return build<ml::SliceOp>(trace, loc, "slice", {&x}, trace.value(x, loc, "slice"),
                            llvm::ArrayRef<int64_t>(start), llvm::ArrayRef<int64_t>(limit),
                            llvm::ArrayRef<int64_t>(s));
}

Tensor loom::concatenate(const std::vector<Tensor> &xs, int64_t axis, Loc loc) {
  if (xs.empty())
    fail(loc, "concatenate", "needs at least one tensor");
  Trace &trace = Trace::of(xs.front(), loc, "concatenate");
  llvm::SmallVector<mlir::Value> values;
  for (const Tensor &x : xs)
    values.push_back(trace.value(x, loc, "concatenate"));
  if (axis < 0)
    axis += xs.front().rank();
  auto op = ml::ConcatenateOp::create(trace.builder(), trace.location(loc),
                                      mlir::ValueRange(values), axis);
  return trace.check(op, loc, "concatenate", {&xs.front()});
}

namespace {
/// The start indices of a dynamic box: one rank-0 integer tensor per dim of `x`.
llvm::SmallVector<mlir::Value> startValues(detail::Trace &trace, const Tensor &x,
                                           const std::vector<Tensor> &starts, const Loc &loc,
                                           std::string_view op) {
  if (static_cast<int64_t>(starts.size()) != x.rank())
    fail(loc, std::string(op),
         fmt::format("{} start indices for {}: give one per dim", starts.size(), x.describe()));
  llvm::SmallVector<mlir::Value> values;
  for (const Tensor &s : starts) {
    if (s.rank() != 0 || (s.dtype() != DType::I32 && s.dtype() != DType::I64))
      fail(loc, std::string(op),
           fmt::format("start index {} must be a rank-0 i32 or i64 tensor", s.describe()));
    values.push_back(trace.value(s, loc, op));
  }
  return values;
}
} // namespace

Tensor loom::dynamic_slice(const Tensor &x, const std::vector<Tensor> &starts,
                           const Shape &sizes, Loc loc) {
  Trace &trace = Trace::of(x, loc, "dynamic_slice");
  llvm::SmallVector<mlir::Value> values = startValues(trace, x, starts, loc, "dynamic_slice");
  for (int64_t d : sizes)
    if (d < 0)
      fail(loc, "dynamic_slice", fmt::format("negative size in [{}]", fmt::join(sizes, ",")));
  auto op = ml::DynamicSliceOp::create(trace.builder(), trace.location(loc),
                                       tensorType(trace.context(), sizes, x.dtype()),
                                       trace.value(x, loc, "dynamic_slice"), values);
  return trace.check(op, loc, "dynamic_slice", {&x});
}

Tensor loom::dynamic_update_slice(const Tensor &x, const Tensor &update,
                                  const std::vector<Tensor> &starts, Loc loc) {
  Trace &trace = Trace::of(x, loc, "dynamic_update_slice");
  llvm::SmallVector<mlir::Value> values =
      startValues(trace, x, starts, loc, "dynamic_update_slice");
  mlir::Value operand = trace.value(x, loc, "dynamic_update_slice");
  auto op = ml::DynamicUpdateSliceOp::create(trace.builder(), trace.location(loc),
                                             operand.getType(), operand,
                                             trace.value(update, loc, "dynamic_update_slice"),
                                             values);
  return trace.check(op, loc, "dynamic_update_slice", {&x, &update});
}

Tensor loom::expand_dims(const Tensor &x, int64_t axis, Loc loc) {
  Shape shape = x.shape();
  if (axis < 0)
    axis += x.rank() + 1;
  if (axis < 0 || axis > x.rank())
    fail(loc, "expand_dims", fmt::format("axis out of range for {}", x.describe()));
  shape.insert(shape.begin() + axis, 1);
  return reshape(x, shape, loc);
}

// A slice of what stays and a concatenation with the padding, dim by dim: the ops' sharding
// rules and gradients then serve it (the gradient of a pad is the slice of what stayed).
Tensor loom::pad(const Tensor &x, const Shape &low, const Shape &high, double value, Loc loc) {
  if (static_cast<int64_t>(low.size()) != x.rank() || static_cast<int64_t>(high.size()) != x.rank())
    fail(loc, "pad",
         fmt::format("{} low and {} high amounts for {}: give one of each per dim", low.size(),
                     high.size(), x.describe()));
  Tensor out = x;
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t size = x.dim(d), padded = size + low[d] + high[d];
    if (padded < 0)
      fail(loc, "pad",
           fmt::format("dim {} of {} padded by {} and {} would have size {}", d, x.describe(),
                       low[d], high[d], padded));
    // Result element j is x's element j - low: elements [begin, end) of x stay, `before`
    // results precede them; a negative amount larger than the dim cuts into the padding of
    // the other end.
    int64_t begin = std::min(size, std::max<int64_t>(0, -low[d]));
    int64_t end = std::max(begin, std::min(size, size + high[d]));
    int64_t before = std::clamp<int64_t>(low[d], 0, padded);
    int64_t after = padded - before - (end - begin);
    std::vector<Tensor> parts;
    Shape piece = out.shape();
    if (before > 0) {
      piece[d] = before;
      parts.push_back(full(piece, value, x.dtype(), loc));
    }
    if (end > begin) {
      Shape start(x.rank(), 0), limit = out.shape();
      start[d] = begin, limit[d] = end;
      parts.push_back(begin == 0 && end == size ? out : slice(out, start, limit, {}, loc));
    }
    if (after > 0) {
      piece[d] = after;
      parts.push_back(full(piece, value, x.dtype(), loc));
    }
    if (parts.empty()) { // cropped to nothing (as lax.pad allows): an empty slice
      Shape start(x.rank(), 0), limit = out.shape();
      limit[d] = 0;
      out = slice(out, start, limit, {}, loc);
      continue;
    }
    out = parts.size() == 1 ? parts[0] : concatenate(parts, d, loc);
  }
  return out;
}

Tensor loom::take(const Tensor &table, const Tensor &indices, Loc loc) {
  Trace &trace = Trace::of(table, loc, "take");
  if (indices.dtype() != DType::I32 && indices.dtype() != DType::I64)
    fail(loc, "take", fmt::format("indices {} must be i32 or i64", indices.describe()));
  return build<ml::GatherOp>(trace, loc, "take", {&table, &indices},
                             trace.value(table, loc, "take"), trace.value(indices, loc, "take"));
}

Tensor loom::scatter_add(const Tensor &updates, const Tensor &indices, int64_t rows, Loc loc) {
  Trace &trace = Trace::of(updates, loc, "scatter_add");
  Shape shape = {rows};
  if (updates.rank() < indices.rank())
    fail(loc, "scatter_add",
         fmt::format("updates {} has lower rank than indices {}", updates.describe(),
                     indices.describe()));
  shape.insert(shape.end(), updates.shape().begin() + indices.rank(), updates.shape().end());
  return build<ml::ScatterAddOp>(trace, loc, "scatter_add", {&updates, &indices},
                                 tensorType(trace.context(), shape, updates.dtype()),
                                 trace.value(updates, loc, "scatter_add"),
                                 trace.value(indices, loc, "scatter_add"));
}

Tensor loom::one_hot(const Tensor &indices, int64_t n, DType dtype, Loc loc) {
  Shape shape = indices.shape();
  shape.push_back(n);
  Axes dims(indices.rank());
  std::iota(dims.begin(), dims.end(), 0);
  Tensor spread = broadcast_in_dim(indices, shape, dims, loc);
  Tensor classes = iota(shape, indices.rank(), indices.dtype(), loc);
  return astype(equal(spread, classes, loc), dtype, loc);
}
