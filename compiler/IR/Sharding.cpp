// The sharding attribute, the mesh op, and the verification of every op that refers to a
// mesh (sharding constraints and collectives). Checks that need axis sizes run in
// verifySymbolUses, where the mesh can be looked up.
#include "compiler/IR/Sharding.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::loom;

SmallVector<StringRef> mlir::loom::stringsOf(ArrayAttr array) {
  SmallVector<StringRef> result;
  if (array)
    for (Attribute a : array)
      result.push_back(cast<StringAttr>(a).getValue());
  return result;
}

static std::string listOf(ArrayRef<StringRef> axes) {
  std::string text = "[";
  for (auto [i, axis] : llvm::enumerate(axes))
    text += (i ? ", \"" : "\"") + axis.str() + "\"";
  return text + "]";
}

//===----------------------------------------------------------------------===//
// #loom.sharding
//===----------------------------------------------------------------------===//

ShardingAttr ShardingAttr::get(FlatSymbolRefAttr mesh, ArrayRef<SmallVector<StringRef>> dims,
                               ArrayRef<StringRef> partial, ReduceKind combiner) {
  MLIRContext *ctx = mesh.getContext();
  Builder b(ctx);
  SmallVector<Attribute> dimAttrs;
  for (const SmallVector<StringRef> &axes : dims)
    dimAttrs.push_back(b.getStrArrayAttr(axes));
  return get(ctx, mesh, b.getArrayAttr(dimAttrs),
             partial.empty() ? ArrayAttr() : b.getStrArrayAttr(partial),
             partial.empty() ? ReduceKind::sum : combiner);
}

// <@mesh, [[axes], ...] (, partial (max)? = [axes])?>: the combiner is printed unless it is sum.
Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  FlatSymbolRefAttr mesh;
  ArrayAttr dims, partial;
  ReduceKind combiner = ReduceKind::sum;
  if (parser.parseLess() || parser.parseAttribute(mesh) || parser.parseComma() ||
      parser.parseAttribute(dims))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("partial"))
      return {};
    StringRef kind;
    if (succeeded(parser.parseOptionalKeyword(&kind))) {
      std::optional<ReduceKind> parsed = symbolizeReduceKind(kind);
      if (!parsed) {
        parser.emitError(parser.getCurrentLocation(), "unknown combiner '")
            << kind << "' of a partial value (expected sum or max)";
        return {};
      }
      combiner = *parsed;
    }
    if (parser.parseEqual() || parser.parseAttribute(partial))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<ShardingAttr>(parser.getContext(), mesh, dims, partial, combiner);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<" << getMesh() << ", " << getDims();
  if (getPartial()) {
    printer << ", partial ";
    if (getCombiner() != ReduceKind::sum)
      printer << stringifyReduceKind(getCombiner()) << " ";
    printer << "= " << getPartial();
  }
  printer << ">";
}

LogicalResult ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   FlatSymbolRefAttr mesh, ArrayAttr dims, ArrayAttr partial,
                                   ReduceKind combiner) {
  if (combiner != ReduceKind::sum && (!partial || partial.empty()))
    return emitError() << "a combiner (" << stringifyReduceKind(combiner)
                       << ") needs partial axes";
  llvm::StringSet<> seen;
  auto checkAxes = [&](Attribute list, const std::string &what) -> LogicalResult {
    auto array = dyn_cast<ArrayAttr>(list);
    if (!array)
      return emitError() << what << " must be a list of axis names";
    for (Attribute axis : array) {
      auto name = dyn_cast<StringAttr>(axis);
      if (!name || name.getValue().empty())
        return emitError() << what << " must be a list of non-empty axis names";
      if (!seen.insert(name.getValue()).second)
        return emitError() << "mesh axis \"" << name.getValue() << "\" is used twice";
    }
    return success();
  };
  for (auto [d, axes] : llvm::enumerate(dims))
    if (failed(checkAxes(axes, "the entry of dim " + std::to_string(d))))
      return failure();
  if (partial && failed(checkAxes(partial, "partial")))
    return failure();
  return success();
}

SmallVector<StringRef> ShardingAttr::axesOf(int64_t d) const {
  if (d >= static_cast<int64_t>(getDims().size()))
    return {};
  return stringsOf(cast<ArrayAttr>(getDims()[d]));
}

SmallVector<SmallVector<StringRef>> ShardingAttr::dimAxes(int64_t rank) const {
  SmallVector<SmallVector<StringRef>> result;
  for (int64_t d = 0; d < rank; ++d)
    result.push_back(axesOf(d));
  return result;
}

SmallVector<StringRef> ShardingAttr::partialAxes() const { return stringsOf(getPartial()); }

bool ShardingAttr::isReplicated() const {
  return partialAxes().empty() && llvm::all_of(getDims(), [](Attribute axes) {
           return cast<ArrayAttr>(axes).empty();
         });
}

//===----------------------------------------------------------------------===//
// Mesh lookups and checks
//===----------------------------------------------------------------------===//

std::optional<int64_t> MeshOp::axisSize(StringRef name) {
  for (auto [axis, size] : llvm::zip(getAxes(), getShape()))
    if (cast<StringAttr>(axis).getValue() == name)
      return size;
  return std::nullopt;
}

int64_t MeshOp::numDevices() {
  int64_t n = 1;
  for (int64_t size : getShape())
    n *= size;
  return n;
}

LogicalResult MeshOp::verify() {
  if (getAxes().empty())
    return emitOpError("needs at least one axis");
  if (getAxes().size() != getShape().size())
    return emitOpError("has ") << getAxes().size() << " axis names but " << getShape().size()
                               << " sizes";
  llvm::StringSet<> seen;
  for (auto [axis, size] : llvm::zip(getAxes(), getShape())) {
    StringRef name = cast<StringAttr>(axis).getValue();
    if (name.empty())
      return emitOpError("has an empty axis name");
    if (!seen.insert(name).second)
      return emitOpError("has axis \"") << name << "\" twice";
    if (size < 1)
      return emitOpError("axis \"") << name << "\" has size " << size << "; sizes must be >= 1";
  }
  // Group sizes are products of axis sizes: the whole mesh's must fit.
  int64_t devices = 1;
  for (int64_t size : getShape())
    if (std::optional<int64_t> n = llvm::checkedMul(devices, size))
      devices = *n;
    else
      return emitOpError("has more devices than fit in 64 bits (shape [")
             << getShape() << "])";
  return success();
}

MeshOp mlir::loom::lookupMesh(Operation *from, FlatSymbolRefAttr name) {
  return SymbolTable::lookupNearestSymbolFrom<MeshOp>(from, name);
}

int64_t mlir::loom::groupSize(MeshOp mesh, ArrayRef<StringRef> axes) {
  int64_t n = 1;
  for (StringRef axis : axes)
    n *= *mesh.axisSize(axis);
  return n;
}

LogicalResult mlir::loom::verifyAxes(function_ref<InFlightDiagnostic()> emitError, MeshOp mesh,
                                     ArrayRef<StringRef> axes, StringRef what) {
  llvm::StringSet<> seen;
  for (StringRef axis : axes) {
    if (!mesh.axisSize(axis))
      return emitError() << what << ": mesh @" << mesh.getSymName() << " has no axis \""
                         << axis << "\"";
    if (!seen.insert(axis).second)
      return emitError() << what << ": mesh axis \"" << axis << "\" is used twice";
  }
  // Callers go on to use groupSize: the product must not wrap (even on a mesh whose own
  // verifier has not run yet).
  int64_t n = 1;
  for (StringRef axis : axes)
    if (std::optional<int64_t> next = llvm::checkedMul(n, *mesh.axisSize(axis)))
      n = *next;
    else
      return emitError() << what << ": the axes " << listOf(axes) << " of mesh @"
                         << mesh.getSymName() << " have more devices than fit in 64 bits";
  return success();
}

LogicalResult mlir::loom::verifySharding(function_ref<InFlightDiagnostic()> emitError,
                                         Operation *from, ShardingAttr sharding,
                                         RankedTensorType type) {
  MeshOp mesh = lookupMesh(from, sharding.getMesh());
  if (!mesh)
    return emitError() << "sharding refers to an unknown mesh " << sharding.getMesh();
  if (static_cast<int64_t>(sharding.getDims().size()) > type.getRank())
    return emitError() << "sharding lists " << sharding.getDims().size() << " dims for a tensor "
                       << type << " of rank " << type.getRank();
  SmallVector<StringRef> all = sharding.partialAxes();
  for (int64_t d = 0; d < type.getRank(); ++d) {
    SmallVector<StringRef> axes = sharding.axesOf(d);
    if (failed(verifyAxes(emitError, mesh, axes, "dim " + std::to_string(d))))
      return failure();
    int64_t n = groupSize(mesh, axes);
    if (type.getDimSize(d) % n != 0)
      return emitError() << "dim " << d << " of " << type << " (size " << type.getDimSize(d)
                         << ") does not divide by the " << n << " devices of mesh axes "
                         << listOf(axes);
    all.append(axes);
  }
  return verifyAxes(emitError, mesh, all, "sharding");
}

RankedTensorType mlir::loom::localType(RankedTensorType type, ShardingAttr sharding,
                                       MeshOp mesh) {
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t d = 0; d < type.getRank(); ++d)
    shape[d] /= groupSize(mesh, sharding.axesOf(d));
  return type.clone(shape);
}

//===----------------------------------------------------------------------===//
// Ops that refer to a mesh
//===----------------------------------------------------------------------===//

LogicalResult ShardingConstraintOp::verifySymbolUses(SymbolTableCollection &) {
  auto emit = [&] { return emitOpError(); };
  if (failed(verifySharding(emit, *this, getSharding(),
                            cast<RankedTensorType>(getOperand().getType()))))
    return failure();
  if (!getSharding().partialAxes().empty())
    return emitOpError("a constraint cannot ask for a partial sum");
  return success();
}

namespace {
/// The mesh and checked axes of a collective, or failure (with a diagnostic).
template <typename Op> FailureOr<MeshOp> meshAndAxes(Op op) {
  MeshOp mesh = lookupMesh(op, op.getMeshAttr());
  if (!mesh)
    return op.emitOpError("refers to an unknown mesh ") << op.getMeshAttr();
  if (failed(verifyAxes([&] { return op.emitOpError(); }, mesh, stringsOf(op.getAxes()),
                        "axes")))
    return failure();
  return mesh;
}

/// Checks a collective that scales one dim: the result has operand dim `dim` multiplied
/// (`grow`) or divided by the group size.
template <typename Op> LogicalResult verifyScaledDim(Op op, bool grow) {
  auto mesh = meshAndAxes(op);
  if (failed(mesh))
    return failure();
  auto operand = cast<RankedTensorType>(op.getOperand().getType());
  auto result = cast<RankedTensorType>(op.getResult().getType());
  int64_t dim = op.getDim();
  if (dim < 0 || dim >= operand.getRank())
    return op.emitOpError("dim ") << dim << " is not a dim of " << operand;
  int64_t n = groupSize(*mesh, stringsOf(op.getAxes()));
  if (!grow && operand.getDimSize(dim) % n != 0)
    return op.emitOpError("dim ") << dim << " of " << operand << " does not divide by the "
                                  << n << " devices of its axes";
  SmallVector<int64_t> shape(operand.getShape());
  std::optional<int64_t> grown = llvm::checkedMul(shape[dim], n);
  if (grow && !grown)
    return op.emitOpError("dim ") << dim << " of " << operand << " times the " << n
                                  << " devices of its axes does not fit in 64 bits";
  shape[dim] = grow ? *grown : shape[dim] / n;
  RankedTensorType expected = operand.clone(shape);
  if (result != expected)
    return op.emitOpError("result type ") << result << " should be " << expected;
  return success();
}
} // namespace

LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &) {
  return verifyScaledDim(*this, /*grow=*/true);
}

LogicalResult ReduceScatterOp::verifySymbolUses(SymbolTableCollection &) {
  return verifyScaledDim(*this, /*grow=*/false);
}

LogicalResult ShardSliceOp::verifySymbolUses(SymbolTableCollection &) {
  return verifyScaledDim(*this, /*grow=*/false);
}

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &) {
  return failure(failed(meshAndAxes(*this)));
}

LogicalResult CollectivePermuteOp::verifySymbolUses(SymbolTableCollection &) {
  auto mesh = meshAndAxes(*this);
  if (failed(mesh))
    return failure();
  ArrayRef<int64_t> pairs = getPairs();
  if (pairs.size() % 2 != 0)
    return emitOpError("pairs has ") << pairs.size()
                                     << " entries; it lists (source, target) pairs";
  int64_t n = groupSize(*mesh, stringsOf(getAxes()));
  llvm::SmallDenseSet<int64_t> sources, targets;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    for (int64_t position : {pairs[i], pairs[i + 1]})
      if (position < 0 || position >= n)
        return emitOpError("pair ") << pairs[i] << " -> " << pairs[i + 1]
                                    << " names a position outside the " << n
                                    << " devices of its axes";
    if (!sources.insert(pairs[i]).second)
      return emitOpError("position ") << pairs[i] << " is the source of two pairs";
    if (!targets.insert(pairs[i + 1]).second)
      return emitOpError("position ") << pairs[i + 1] << " is the target of two pairs";
  }
  return success();
}

LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &) {
  auto mesh = meshAndAxes(*this);
  if (failed(mesh))
    return failure();
  auto operand = cast<RankedTensorType>(getOperand().getType());
  int64_t split = getSplitDim(), concat = getConcatDim();
  for (int64_t d : {split, concat})
    if (d < 0 || d >= operand.getRank())
      return emitOpError("dim ") << d << " is not a dim of " << operand;
  int64_t n = groupSize(*mesh, stringsOf(getAxes()));
  if (operand.getDimSize(split) % n != 0)
    return emitOpError("split_dim ") << split << " of " << operand << " does not divide by the "
                                     << n << " devices of its axes";
  // split_dim may be concat_dim: the dim keeps its size, its pieces exchanged (JAX's
  // all_to_all(x, axis, 0, 0)).
  SmallVector<int64_t> shape(operand.getShape());
  shape[split] /= n;
  std::optional<int64_t> grown = llvm::checkedMul(shape[concat], n);
  if (!grown)
    return emitOpError("concat_dim ") << concat << " of " << operand << " times the " << n
                                      << " devices of its axes does not fit in 64 bits";
  shape[concat] = *grown;
  RankedTensorType expected = operand.clone(shape);
  if (getResult().getType() != expected)
    return emitOpError("result type ") << getResult().getType() << " should be " << expected;
  return success();
}

LogicalResult AxisIndexOp::verifySymbolUses(SymbolTableCollection &) {
  return failure(failed(meshAndAxes(*this)));
}
