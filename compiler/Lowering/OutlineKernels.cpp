// The loom-outline-kernels pass (see Passes.td): each top-level loop nest of a function
// becomes a call to a kernel function, created once per distinct body.
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/SourceName.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

namespace mlir::loom {
#define GEN_PASS_DEF_OUTLINEKERNELS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using mlir::loom::sourceName;

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


struct OutlineKernelsPass : mlir::loom::impl::OutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::StringMap<func::FuncOp> byBody; // the kernel of each distinct body
    for (func::FuncOp fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (fn.isExternal())
        continue;
      SmallVector<Operation *> nests;
      for (Operation &op : fn.getBody().front())
        if (isa<scf::ForOp, scf::ParallelOp>(op))
          nests.push_back(&op);
      for (Operation *nest : nests)
        outline(nest, symbols, byBody);
      // What is left is straight-line code around calls: compiled without optimisation
      // (FastISel, no loop passes), as the kernels carry the work. LLVM's instruction
      // selection and register allocation grow faster than linearly on one huge block. The
      // repeated blocks the step calls (loom-outline-repeated-blocks) are sequencers too.
      if ((!nests.empty() && !fn.isPrivate()) || mlir::loom::isRepeatedBlock(fn))
        fn->setAttr("passthrough", OpBuilder(fn).getArrayAttr(
                                       {OpBuilder(fn).getStringAttr("optnone"),
                                        OpBuilder(fn).getStringAttr("noinline")}));
      // Constants only the nests used now live in the kernels.
      for (Operation &op : llvm::make_early_inc_range(fn.getBody().front()))
        if (op.hasTrait<OpTrait::ConstantLike>() && op.use_empty())
          op.erase();
    }
  }

  void outline(Operation *nest, SymbolTable &symbols, llvm::StringMap<func::FuncOp> &byBody) {
    // What the nest reads from outside: its own operands (bounds, initial values) and values
    // its body uses. Constants are cloned into the kernel; the rest are its arguments.
    llvm::SetVector<Value> used(nest->getOperands().begin(), nest->getOperands().end());
    getUsedValuesDefinedAbove(nest->getRegions(), used);
    SmallVector<Value> arguments, constants;
    for (Value v : used) {
      Operation *def = v.getDefiningOp();
      (def && def->hasTrait<OpTrait::ConstantLike>() ? constants : arguments).push_back(v);
    }

    OpBuilder b(nest->getContext());
    auto type = b.getFunctionType(ValueRange(arguments).getTypes(), nest->getResultTypes());
    auto kernel = func::FuncOp::create(b, nest->getLoc(), "kernel", type);
    kernel.setPrivate();
    kernel->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
    Block *body = kernel.addEntryBlock();
    b.setInsertionPointToStart(body);
    IRMapping mapping;
    for (auto [outer, inner] : llvm::zip(arguments, body->getArguments()))
      mapping.map(outer, inner);
    for (Value c : constants)
      mapping.map(c, b.clone(*c.getDefiningOp())->getResult(0));
    Operation *copy = b.clone(*nest, mapping);
    func::ReturnOp::create(b, nest->getLoc(), copy->getResults());

    // The same body (ops, types, attributes; names and locations aside) is one kernel.
    std::string key;
    {
      llvm::raw_string_ostream os(key);
      kernel->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(false));
    }
    func::FuncOp target;
    if (auto it = byBody.find(key); it != byBody.end()) {
      target = it->second;
      kernel->erase();
    } else {
      kernel.setName(opsName(nest) + sourceName(nest->getLoc()));
      symbols.insert(kernel); // renamed if the name is taken
      byBody[key] = kernel;
      target = kernel;
    }
    OpBuilder at(nest);
    auto call = func::CallOp::create(at, nest->getLoc(), target, arguments);
    nest->replaceAllUsesWith(call.getResults());
    nest->erase();
  }
};
} // namespace

std::string mlir::loom::sourceName(Location loc) {
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
