// The collectives of shard_map bodies (see ShardMap.h): each emits the Loom collective over
// the named axes of the body's mesh.
#include "frontend/Ops.h"
#include "frontend/ShardMap.h"
#include "frontend/Trace.h"

#include "compiler/IR/LoomOps.h"

#include <fmt/format.h>

using namespace loom;
using namespace loom::detail;

namespace {

/// The group a collective runs over, checked against the body's mesh.
struct Group {
  mlir::FlatSymbolRefAttr mesh;
  mlir::ArrayAttr axes;
  int64_t size = 1;
};

Group groupOf(Trace &trace, const MeshAxes &axes, const Loc &loc, const char *op) {
  const Mesh &mesh = trace.shardMapMesh(loc, op);
  if (axes.axes.empty())
    fail(loc, op, "names no mesh axis to run over");
  Group group;
  llvm::SmallVector<llvm::StringRef> names;
  for (const std::string &a : axes.axes) {
    if (!mesh.hasAxis(a))
      fail(loc, op, fmt::format("mesh {} has no axis '{}'", mesh.describe(), a));
    if (llvm::is_contained(names, a))
      fail(loc, op, fmt::format("axis '{}' is named twice", a));
    names.push_back(a);
    group.size *= mesh.axisSize(a);
  }
  group.mesh = mlir::FlatSymbolRefAttr::get(&trace.context(), mesh.name());
  group.axes = trace.builder().getStrArrayAttr(names);
  return group;
}

/// Checks the op just built, the mesh-dependent constraints included.
Tensor checked(Trace &trace, mlir::Operation *op, const Loc &loc, const char *name,
               const Tensor *operand) {
  mlir::SymbolTableCollection tables;
  if (auto user = llvm::dyn_cast<mlir::SymbolUserOpInterface>(op);
      user && mlir::failed(user.verifySymbolUses(tables))) {
    std::string why = trace.takeDiagnostics();
    op->erase();
    fail(loc, name,
         operand ? fmt::format("{} (operands: {})", why, operand->describe()) : why);
  }
  if (operand)
    return trace.check(op, loc, name, {operand});
  return trace.check(op, loc, name, {});
}

void checkDim(const Tensor &x, int64_t dim, const Loc &loc, const char *op, const char *what) {
  if (dim < 0 || dim >= x.rank())
    fail(loc, op, fmt::format("{} {} is not a dim of {}", what, dim, x.describe()));
}

Tensor allReduce(const Tensor &x, const MeshAxes &axes, mlir::loom::ReduceKind kind,
                 const Loc &loc, const char *name) {
  Trace &trace = Trace::of(x, loc, name);
  Group g = groupOf(trace, axes, loc, name);
  mlir::Value v = trace.value(x, loc, name);
  auto op = mlir::loom::AllReduceOp::create(
      trace.builder(), trace.location(loc), v.getType(),
      mlir::loom::ReduceKindAttr::get(&trace.context(), kind), v, g.mesh, g.axes,
      mlir::StringAttr(), mlir::IntegerAttr());
  return checked(trace, op, loc, name, &x);
}

} // namespace

Tensor loom::psum(const Tensor &x, const MeshAxes &axes, Loc loc) {
  return allReduce(x, axes, mlir::loom::ReduceKind::sum, loc, "psum");
}

Tensor loom::pmax(const Tensor &x, const MeshAxes &axes, Loc loc) {
  return allReduce(x, axes, mlir::loom::ReduceKind::max, loc, "pmax");
}

Tensor loom::pmean(const Tensor &x, const MeshAxes &axes, Loc loc) {
  Trace &trace = Trace::of(x, loc, "pmean");
  Group g = groupOf(trace, axes, loc, "pmean");
  return div(psum(x, axes, loc), scalar_like(x, static_cast<double>(g.size), loc), loc);
}

Tensor loom::all_gather(const Tensor &x, const MeshAxes &axes, int64_t dim, Loc loc) {
  Trace &trace = Trace::of(x, loc, "all_gather");
  Group g = groupOf(trace, axes, loc, "all_gather");
  checkDim(x, dim, loc, "all_gather", "dim");
  Shape shape = x.shape();
  shape[dim] *= g.size;
  auto op = mlir::loom::AllGatherOp::create(
      trace.builder(), trace.location(loc), tensorType(trace.context(), shape, x.dtype()),
      trace.value(x, loc, "all_gather"), g.mesh, trace.builder().getI64IntegerAttr(dim), g.axes,
      mlir::StringAttr(), mlir::IntegerAttr());
  return checked(trace, op, loc, "all_gather", &x);
}

Tensor loom::psum_scatter(const Tensor &x, const MeshAxes &axes, int64_t dim, Loc loc) {
  Trace &trace = Trace::of(x, loc, "psum_scatter");
  Group g = groupOf(trace, axes, loc, "psum_scatter");
  checkDim(x, dim, loc, "psum_scatter", "dim");
  if (x.dim(dim) % g.size != 0)
    fail(loc, "psum_scatter",
         fmt::format("dim {} of {} does not divide by the {} devices of its axes", dim,
                     x.describe(), g.size));
  Shape shape = x.shape();
  shape[dim] /= g.size;
  auto &b = trace.builder();
  auto op = mlir::loom::ReduceScatterOp::create(
      b, trace.location(loc), tensorType(trace.context(), shape, x.dtype()),
      trace.value(x, loc, "psum_scatter"), g.mesh, b.getI64IntegerAttr(dim), g.axes,
      mlir::loom::ReduceKindAttr::get(&trace.context(), mlir::loom::ReduceKind::sum),
      mlir::StringAttr(), mlir::IntegerAttr());
  return checked(trace, op, loc, "psum_scatter", &x);
}

Tensor loom::all_to_all(const Tensor &x, const MeshAxes &axes, int64_t splitDim,
                        int64_t concatDim, Loc loc) {
  Trace &trace = Trace::of(x, loc, "all_to_all");
  Group g = groupOf(trace, axes, loc, "all_to_all");
  checkDim(x, splitDim, loc, "all_to_all", "split dim");
  checkDim(x, concatDim, loc, "all_to_all", "concat dim");
  if (x.dim(splitDim) % g.size != 0)
    fail(loc, "all_to_all",
         fmt::format("split dim {} of {} does not divide by the {} devices of its axes",
                     splitDim, x.describe(), g.size));
  Shape shape = x.shape();
  shape[splitDim] /= g.size;
  shape[concatDim] *= g.size;
  auto &b = trace.builder();
  auto op = mlir::loom::AllToAllOp::create(
      b, trace.location(loc), tensorType(trace.context(), shape, x.dtype()),
      trace.value(x, loc, "all_to_all"), g.mesh, b.getI64IntegerAttr(splitDim),
      b.getI64IntegerAttr(concatDim), g.axes, mlir::StringAttr(), mlir::IntegerAttr());
  return checked(trace, op, loc, "all_to_all", &x);
}

Tensor loom::ppermute(const Tensor &x, const MeshAxes &axes,
                      const std::vector<std::pair<int64_t, int64_t>> &pairs, Loc loc) {
  Trace &trace = Trace::of(x, loc, "ppermute");
  Group g = groupOf(trace, axes, loc, "ppermute");
  llvm::SmallVector<int64_t> flat;
  for (auto [source, target] : pairs)
    flat.append({source, target});
  mlir::Value v = trace.value(x, loc, "ppermute");
  auto &b = trace.builder();
  auto op = mlir::loom::CollectivePermuteOp::create(b, trace.location(loc), v.getType(), v,
                                                    g.mesh, g.axes,
                                                    b.getDenseI64ArrayAttr(flat),
                                                    mlir::StringAttr(), mlir::IntegerAttr());
  return checked(trace, op, loc, "ppermute", &x);
}

Tensor loom::axis_index(const MeshAxes &axes, Loc loc) {
  Trace &trace = Trace::current(loc, "axis_index");
  Group g = groupOf(trace, axes, loc, "axis_index");
  auto op = mlir::loom::AxisIndexOp::create(
      trace.builder(), trace.location(loc),
      mlir::RankedTensorType::get({}, trace.builder().getI32Type()), g.mesh, g.axes);
  return checked(trace, op, loc, "axis_index", nullptr);
}
