// The loom-outline-kernels pass (see Passes.td): each top-level loop nest of a function
// becomes a call to a kernel function, created once per distinct body.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

namespace mlir::loom {
#define GEN_PASS_DEF_OUTLINEKERNELS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// "exp_sub_div": the arithmetic of the nest, in order, each op once, at most four.
std::string opsName(Operation *nest) {
  SmallVector<std::string, 4> names;
  nest->walk([&](Operation *op) {
    StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
    if ((dialect != "arith" && dialect != "math") || op->hasTrait<OpTrait::ConstantLike>() ||
        op->getNumResults() != 1 || op->getResult(0).getType().isIndex())
      return;
    std::string name = op->getName().stripDialect().str();
    // arith.mulf / arith.muli -> mul; arith.maximumf -> max; keep math names.
    if (dialect == "arith") {
      if (name.size() > 1 && (name.back() == 'f' || name.back() == 'i') && name != "negf")
        name.pop_back();
      if (StringRef(name).starts_with("maximum") || StringRef(name).starts_with("maxnum"))
        name = "max";
      if (StringRef(name).starts_with("minimum") || StringRef(name).starts_with("minnum"))
        name = "min";
      if (name == "negf")
        name = "neg";
    }
    if (names.size() < 4 && !llvm::is_contained(names, name))
      names.push_back(name);
  });
  return names.empty() ? "copy" : llvm::join(names, "_");
}

/// ":Gpt.cpp:88": the first file location in `loc`, or "".
std::string sourceName(Location loc) {
  std::string result;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      result = (":" + llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
                Twine(file.getLine()))
                   .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result;
}

/// A loop nest to outline: the values it reads from outside (constants aside), the scalar
/// constants it uses (which may become arguments of a shared kernel), and its keys.
struct Nest {
  Operation *op;
  SmallVector<Value> arguments, scalars, constants;
  /// Per argument, its type with a dynamic offset where the nest only loads and stores
  /// through it (views at different offsets of one buffer then share a kernel).
  SmallVector<Type> relaxedTypes;
  /// Its body with the scalars as arguments and relaxed types; and with their values and the
  /// exact types too.
  std::string shapeKey, exactKey;
};

/// `type` with a dynamic offset, if it is a strided memref with a static one.
Type withDynamicOffset(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return type;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) || ShapedType::isDynamic(offset) ||
      memref.getLayout().isIdentity())
    return type;
  auto layout = StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(memref.getShape(), memref.getElementType(), layout,
                         memref.getMemorySpace());
}

/// A float or integer constant, or an index constant that only arithmetic, loads and stores
/// in the nest use (an offset, a subscript such as which of a layer's random keys; `pinned`
/// holds the others). Loop bounds stay in the kernel (LLVM's loop passes need them), and so
/// do i1 conditions.
bool isLiftableScalar(Value v, const llvm::DenseSet<Value> &pinned) {
  Operation *def = v.getDefiningOp();
  if (!def || !def->hasTrait<OpTrait::ConstantLike>())
    return false;
  Type type = v.getType();
  if (type.isIndex())
    return !pinned.contains(v);
  return isa<FloatType>(type) || (type.isInteger() && type.getIntOrFloatBitWidth() > 1);
}

/// The kernel for `nest`: `arguments`, then `lifted` scalars, as its arguments; the other
/// constants cloned in. Neither named nor inserted into the module.
func::FuncOp makeKernel(const Nest &nest, ArrayRef<Value> lifted, bool relaxed) {
  SmallVector<Value> parameters(nest.arguments);
  parameters.append(lifted.begin(), lifted.end());
  SmallVector<Type> types(ValueRange(parameters).getTypes());
  if (relaxed)
    llvm::copy(nest.relaxedTypes, types.begin());
  OpBuilder b(nest.op->getContext());
  auto type = b.getFunctionType(types, nest.op->getResultTypes());
  auto kernel = func::FuncOp::create(b, nest.op->getLoc(), "kernel", type);
  kernel.setPrivate();
  kernel->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
  Block *body = kernel.addEntryBlock();
  b.setInsertionPointToStart(body);
  IRMapping mapping;
  for (auto [outer, inner] : llvm::zip(parameters, body->getArguments()))
    mapping.map(outer, inner);
  for (Value c : nest.constants)
    if (!mapping.contains(c))
      mapping.map(c, b.clone(*c.getDefiningOp())->getResult(0));
  Operation *copy = b.clone(*nest.op, mapping);
  func::ReturnOp::create(b, nest.op->getLoc(), copy->getResults());
  return kernel;
}

std::string printed(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(false));
  return text;
}

Nest analyze(Operation *op) {
  // What the nest reads from outside: its own operands (bounds, initial values) and values
  // its body uses.
  Nest nest{op};
  llvm::SetVector<Value> used(op->getOperands().begin(), op->getOperands().end());
  getUsedValuesDefinedAbove(op->getRegions(), used);
  // Values that ops other than arithmetic, loads and stores use (loop bounds and steps,
  // views): constants there stay in the kernel.
  llvm::DenseSet<Value> pinned;
  op->walk([&](Operation *inner) {
    if (!isa<arith::ArithDialect>(inner->getDialect()) &&
        !isa<memref::LoadOp, memref::StoreOp>(inner))
      pinned.insert(inner->getOperands().begin(), inner->getOperands().end());
  });
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    if (!def || !def->hasTrait<OpTrait::ConstantLike>())
      nest.arguments.push_back(v);
    else
      (isLiftableScalar(v, pinned) ? nest.scalars : nest.constants).push_back(v);
  }
  nest.constants.append(nest.scalars.begin(), nest.scalars.end());
  for (Value v : nest.arguments) {
    bool accessedOnly = llvm::all_of(v.getUsers(), [&](Operation *user) {
      return !op->isAncestor(user) || isa<memref::LoadOp, memref::StoreOp>(user);
    });
    nest.relaxedTypes.push_back(accessedOnly ? withDynamicOffset(v.getType()) : v.getType());
  }
  func::FuncOp shape = makeKernel(nest, nest.scalars, /*relaxed=*/true);
  nest.shapeKey = printed(shape);
  shape->erase();
  nest.exactKey = nest.shapeKey;
  for (Value v : nest.arguments) {
    llvm::raw_string_ostream os(nest.exactKey);
    os << "|" << v.getType();
  }
  for (Value v : nest.scalars) {
    // The constant's value, not the op: printing an op inside the step would number the
    // whole module each time.
    Attribute value;
    matchPattern(v, m_Constant(&value));
    llvm::raw_string_ostream os(nest.exactKey);
    os << "|" << value;
  }
  return nest;
}

struct OutlineKernelsPass : mlir::loom::impl::OutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Every nest of every function, grouped by body up to scalar constants (first seen first).
    llvm::MapVector<StringRef, SmallVector<Nest *>> groups;
    std::vector<std::unique_ptr<Nest>> nests;
    SmallVector<func::FuncOp> callers;
    for (func::FuncOp fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (fn.isExternal())
        continue;
      bool any = false;
      for (Operation &op : fn.getBody().front())
        if (isa<scf::ForOp, scf::ParallelOp>(op)) {
          nests.push_back(std::make_unique<Nest>(analyze(&op)));
          groups[nests.back()->shapeKey].push_back(nests.back().get());
          any = true;
        }
      if (any)
        callers.push_back(fn);
    }
    for (auto &[shapeKey, members] : groups) {
      // Identical bodies share a kernel with their constants inside; bodies that differ only
      // in scalar constants (a per-layer scale, a random stream's index) share one that takes
      // them as arguments, so an L-layer model still compiles one layer's kernels.
      bool sameConstants = llvm::all_of(members, [&](Nest *n) {
        return n->exactKey == members.front()->exactKey;
      });
      Nest &first = *members.front();
      func::FuncOp kernel =
          makeKernel(first, sameConstants ? ArrayRef<Value>() : ArrayRef<Value>(first.scalars),
                     /*relaxed=*/!sameConstants);
      kernel.setName(opsName(first.op) + sourceName(first.op->getLoc()));
      symbols.insert(kernel); // renamed if the name is taken
      for (Nest *nest : members) {
        OpBuilder at(nest->op);
        SmallVector<Value> operands(nest->arguments);
        if (!sameConstants) {
          for (auto [operand, type] : llvm::zip(operands, nest->relaxedTypes))
            if (operand.getType() != type)
              operand = memref::CastOp::create(at, nest->op->getLoc(), type, operand);
          operands.append(nest->scalars.begin(), nest->scalars.end());
        }
        auto call = func::CallOp::create(at, nest->op->getLoc(), kernel, operands);
        nest->op->replaceAllUsesWith(call.getResults());
        nest->op->erase();
      }
    }
    for (func::FuncOp fn : callers) {
      // What is left is straight-line code around calls: compiled without optimisation
      // (FastISel, no loop passes), as the kernels carry the work. LLVM's instruction
      // selection and register allocation grow faster than linearly on one huge block.
      if (!fn.isPrivate())
        fn->setAttr("passthrough", OpBuilder(fn).getArrayAttr(
                                       {OpBuilder(fn).getStringAttr("optnone"),
                                        OpBuilder(fn).getStringAttr("noinline")}));
      // Constants only the nests used now live in the kernels.
      for (Operation &op : llvm::make_early_inc_range(fn.getBody().front()))
        if (op.hasTrait<OpTrait::ConstantLike>() && op.use_empty())
          op.erase();
    }
  }
};
} // namespace
