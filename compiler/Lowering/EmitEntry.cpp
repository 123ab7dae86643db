// The loom-emit-entry pass: gives every compiled program the one C ABI the runtime calls,
// `void loom_entry(void **buffers)`, so the runtime needs no knowledge of memref descriptors.
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/StaticBuffers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include <numeric>

namespace mlir::loom {
#define GEN_PASS_DEF_EMITENTRY
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// An exported constant i64 array `name` that the runtime reads after loading.
void emitTable(OpBuilder &b, Location loc, StringRef name, ArrayRef<int64_t> table) {
  auto type = LLVM::LLVMArrayType::get(b.getI64Type(), table.size());
  auto value = DenseElementsAttr::get(
      RankedTensorType::get({static_cast<int64_t>(table.size())}, b.getI64Type()), table);
  LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true, LLVM::Linkage::External, name,
                         value);
}

/// The exported table `loom_output_aliases = {numOutputs, alias_0, ...}` that tells the
/// runtime which outputs live in which donated input (-1: an output buffer of its own).
void emitAliasTable(OpBuilder &b, Location loc, ArrayRef<int64_t> aliases) {
  SmallVector<int64_t> table{static_cast<int64_t>(aliases.size())};
  table.append(aliases.begin(), aliases.end());
  emitTable(b, loc, "loom_output_aliases", table);
}

/// The buffer plan of temporaries: walking the function in program order, the most bytes of
/// memref.alloc'd buffers live at once (an op with regions adds the peak of what it allocates
/// inside), and the number of buffers live at that point.
struct TemporaryPlan {
  int64_t peakBytes = 0, peakBuffers = 0;
};

int64_t allocBytes(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape())
    return 0;
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

/// Plans of called functions, each computed once.
using CalleePlans = DenseMap<Operation *, TemporaryPlan>;

TemporaryPlan planBlock(Block &block, SymbolTable &symbols, CalleePlans &callees) {
  TemporaryPlan plan;
  int64_t liveBytes = 0, liveBuffers = 0;
  DenseMap<Value, int64_t> live;
  auto peak = [&](int64_t bytes, int64_t buffers) {
    if (bytes > plan.peakBytes)
      plan = {bytes, buffers};
  };
  for (Operation &op : block) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      int64_t bytes = allocBytes(alloc);
      live[alloc.getResult()] = bytes;
      liveBytes += bytes, ++liveBuffers;
      peak(liveBytes, liveBuffers);
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      auto found = live.find(dealloc.getMemref());
      if (found != live.end()) {
        liveBytes -= found->second, --liveBuffers;
        live.erase(found);
      }
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      // A repeated block's temporaries live during its call.
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal())
        continue;
      if (!callees.count(callee)) {
        // (Planned before it is stored: planning it may add to the map.)
        TemporaryPlan planned = planBlock(callee.getBody().front(), symbols, callees);
        callees[callee] = planned;
      }
      TemporaryPlan inner = callees.lookup(callee);
      peak(liveBytes + inner.peakBytes, liveBuffers + inner.peakBuffers);
    } else {
      for (Region &region : op.getRegions())
        for (Block &nested : region) {
          TemporaryPlan inner = planBlock(nested, symbols, callees);
          peak(liveBytes + inner.peakBytes, liveBuffers + inner.peakBuffers);
        }
    }
  }
  return plan;
}

/// The exported `loom_temporary_plan = {peak bytes, buffers at the peak}`.
void emitTemporaryPlan(OpBuilder &b, Location loc, func::FuncOp fn, SymbolTable &symbols) {
  CalleePlans callees;
  TemporaryPlan plan = planBlock(fn.getBody().front(), symbols, callees);
  emitTable(b, loc, "loom_temporary_plan", {plan.peakBytes, plan.peakBuffers});
}

struct EmitEntryPass : mlir::loom::impl::EmitEntryBase<EmitEntryPass> {
  using EmitEntryBase::EmitEntryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The collectives that named mesh axes are runtime calls with axis indices by now.
    for (auto mesh : llvm::make_early_inc_range(module.getOps<mlir::loom::MeshOp>()))
      mesh.erase();
    auto target = module.lookupSymbol<func::FuncOp>(entry);
    if (!target) {
      module.emitError("loom-emit-entry: no function named '") << entry.getValue() << "'";
      return signalPassFailure();
    }
    if (target.getNumResults() != 0) {
      target.emitError("loom-emit-entry: '")
          << entry.getValue() << "' must return its results through out-params";
      return signalPassFailure();
    }
    for (auto [i, type] : llvm::enumerate(target.getArgumentTypes())) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity()) {
        target.emitError("loom-emit-entry: argument ")
            << i << " has type " << type << "; need a static identity-layout memref";
        return signalPassFailure();
      }
    }

    // Outputs placed in a donated input (loom-drop-donated-results) have no out-param; the
    // runtime still passes a slot for every output, so later out-params skip those slots.
    unsigned numArgs = target.getNumArguments();
    SmallVector<int32_t> slots(numArgs);
    std::iota(slots.begin(), slots.end(), 0);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = target.getLoc();
    if (auto aliases = target->getAttrOfType<DenseI64ArrayAttr>("loom.output_aliases")) {
      int64_t kept = llvm::count(aliases.asArrayRef(), -1);
      if (kept > numArgs) {
        target.emitError("loom-emit-entry: loom.output_aliases lists more kept outputs than "
                         "there are arguments");
        return signalPassFailure();
      }
      unsigned numInputs = numArgs - kept, arg = numInputs;
      for (auto [output, alias] : llvm::enumerate(aliases.asArrayRef()))
        if (alias < 0)
          slots[arg++] = numInputs + output;
      emitAliasTable(b, loc, aliases.asArrayRef());
    }
    SymbolTable symbols(module);
    emitTemporaryPlan(b, loc, target, symbols);

    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    auto wrapper = func::FuncOp::create(b, loc, "loom_entry", b.getFunctionType({ptr}, {}));
    b.setInsertionPointToStart(wrapper.addEntryBlock());
    Value buffers = wrapper.getArgument(0);
    SmallVector<Value> operands;
    for (auto [i, type] : llvm::enumerate(target.getArgumentTypes())) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, buffers,
                                       ArrayRef<LLVM::GEPArg>{slots[i]});
      Value data = LLVM::LoadOp::create(b, loc, ptr, slot);
      operands.push_back(mlir::loom::describeStaticBuffer(b, loc, data, cast<MemRefType>(type)));
    }
    func::CallOp::create(b, loc, target, operands);
    func::ReturnOp::create(b, loc);
    target.setPrivate();
  }
};

} // namespace
