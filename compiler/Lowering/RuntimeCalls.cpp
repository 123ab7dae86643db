// Helpers of the lowerings that call the runtime (see RuntimeCalls.h).
#include "compiler/Lowering/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

bool mlir::loom::runsOnGpuStream(StringRef callee) {
  return callee.starts_with("loom_rt_gpu_") || callee == "loom_rt_collective_start" ||
         callee == "loom_rt_collective_wait";
}

bool mlir::loom::onlyDescribesCalls(Value buffer) {
  SmallVector<Value> values = {buffer};
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto call = dyn_cast<func::CallOp>(user)) {
        if (!runsOnGpuStream(call.getCallee()))
          return false;
      } else if (isa<memref::ExtractAlignedPointerAsIndexOp, arith::IndexCastOp>(user)) {
        llvm::append_range(values, user->getResults());
      } else if (auto store = dyn_cast<memref::StoreOp>(user); !store || store.getMemref() != v) {
        return false; // a store into the array (a permute's pairs) is part of its description
      }
    }
  }
  return true;
}

bool mlir::loom::describesCalls(Operation *op) {
  if (auto alloca = dyn_cast<memref::AllocaOp>(op))
    return onlyDescribesCalls(alloca.getResult());
  auto store = dyn_cast<memref::StoreOp>(op);
  return store && store.getMemref().getDefiningOp<memref::AllocaOp>() &&
         onlyDescribesCalls(store.getMemref());
}

func::FuncOp mlir::loom::declareRuntimeFunction(Operation *from, StringRef name, int64_t numArgs,
                                                Type result) {
  auto module = isa<ModuleOp>(from) ? cast<ModuleOp>(from) : from->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  SmallVector<Type> args(numArgs, b.getI64Type());
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(args, result ? TypeRange{result} : TypeRange{}));
  fn.setPrivate();
  return fn;
}

Value mlir::loom::bufferAddress(OpBuilder &b, Location loc, Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value mlir::loom::constantI64Array(OpBuilder &b, Operation *at, ArrayRef<int64_t> values) {
  Location loc = at->getLoc();
  Value array;
  {
    OpBuilder::InsertionGuard guard(b);
    // The function's entry block, or that of the region the array can be used in.
    Operation *scope = at->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
    b.setInsertionPointToStart(&scope->getRegion(0).front());
    auto type = MemRefType::get({static_cast<int64_t>(values.size())}, b.getI64Type());
    array = memref::AllocaOp::create(b, loc, type);
  }
  for (auto [i, value] : llvm::enumerate(values))
    memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, b.getI64Type(), value),
                            array, ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
  return array;
}

Value mlir::loom::constantI64Global(OpBuilder &b, Operation *at, ArrayRef<int64_t> values) {
  Location loc = at->getLoc();
  auto module = at->getParentOfType<ModuleOp>();
  auto type = MemRefType::get({static_cast<int64_t>(values.size())}, b.getI64Type());
  auto data = DenseElementsAttr::get(RankedTensorType::get(type.getShape(), b.getI64Type()),
                                     values);
  // Made apart, then inserted under a free name (a suffix where the name is taken).
  OpBuilder detached(b.getContext());
  auto global = memref::GlobalOp::create(detached, loc, "__loom_call_words",
                                         b.getStringAttr("private"), type, data,
                                         /*constant=*/true, /*alignment=*/nullptr);
  SymbolTable(module).insert(global, module.getBody()->begin());
  return memref::GetGlobalOp::create(b, loc, type, global.getSymName());
}

FailureOr<Value> mlir::loom::denseCopy(RewriterBase &rewriter, Location loc, Value buffer,
                                       const bufferization::BufferizationOptions &options) {
  auto type = cast<MemRefType>(buffer.getType());
  auto dense = MemRefType::get(type.getShape(), type.getElementType());
  FailureOr<Value> copy = options.createAlloc(rewriter, loc, dense, {});
  if (failed(copy) || failed(options.createMemCpy(rewriter, loc, buffer, *copy)))
    return failure();
  return copy;
}
