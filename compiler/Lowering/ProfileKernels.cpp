// The loom-profile-kernels pass (see Passes.td): the profiler's calls around each kernel call.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::loom {
#define GEN_PASS_DEF_PROFILEKERNELS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

constexpr StringLiteral kBegin = "loom_rt_profile_begin", kEnd = "loom_rt_profile_end";

struct ProfileKernelsPass : mlir::loom::impl::ProfileKernelsBase<ProfileKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(module.getContext());
    SymbolTable symbols(module);
    Location loc = module.getLoc();
    auto declare = [&](StringRef name, FunctionType type) {
      if (symbols.lookup(name))
        return;
      b.setInsertionPointToStart(module.getBody());
      auto fn = func::FuncOp::create(b, loc, name, type);
      fn.setPrivate();
      symbols.insert(fn);
    };
    declare(kBegin, b.getFunctionType({}, {}));
    declare(kEnd, b.getFunctionType({b.getI64Type()}, {}));

    llvm::StringMap<memref::GlobalOp> names; // one constant per kernel name
    auto nameOf = [&](StringRef kernel) {
      if (auto it = names.find(kernel); it != names.end())
        return it->second;
      SmallVector<int8_t> bytes(kernel.begin(), kernel.end());
      bytes.push_back(0);
      auto type = MemRefType::get({static_cast<int64_t>(bytes.size())}, b.getI8Type());
      auto value = DenseElementsAttr::get(
          RankedTensorType::get(type.getShape(), b.getI8Type()), ArrayRef<int8_t>(bytes));
      b.setInsertionPointToStart(module.getBody());
      auto global = memref::GlobalOp::create(b, loc, "loom_profile_name", b.getStringAttr("private"),
                                             type, value, /*constant=*/true,
                                             /*alignment=*/nullptr);
      symbols.insert(global); // made unique
      return names[kernel] = global;
    };

    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      // The step and the repeated blocks it calls (loom-outline-repeated-blocks) call kernels.
      bool isBlock = mlir::loom::isRepeatedBlock(fn);
      if ((fn.isPrivate() && !isBlock) || fn.isExternal())
        continue;
      fn.walk([&](func::CallOp call) {
        auto kernel = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!kernel || !kernel.isPrivate() || kernel.isExternal() ||
            mlir::loom::isRepeatedBlock(kernel))
          return;
        memref::GlobalOp name = nameOf(call.getCallee());
        b.setInsertionPoint(call);
        func::CallOp::create(b, call.getLoc(), kBegin, TypeRange{}, ValueRange{});
        b.setInsertionPointAfter(call);
        Value bytes = memref::GetGlobalOp::create(b, call.getLoc(), name.getType(),
                                                  name.getSymName());
        Value pointer =
            memref::ExtractAlignedPointerAsIndexOp::create(b, call.getLoc(), bytes);
        Value address =
            arith::IndexCastOp::create(b, call.getLoc(), b.getI64Type(), pointer);
        func::CallOp::create(b, call.getLoc(), kEnd, TypeRange{}, ValueRange{address});
      });
    }
  }
};

} // namespace
