// The loom-gpu-host-to-device pass (see Passes.td): what parallel-loop mapping left on the GPU
// program's host side moves to the device, so that the host only allocates, copies and
// launches and never touches a buffer's memory.
#include "compiler/Lowering/Passes.h"
#include "compiler/Lowering/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUHOSTTODEVICE
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

bool containsLaunch(Operation *op) {
  return op->walk([](gpu::LaunchOp) { return WalkResult::interrupt(); }).wasInterrupted();
}

/// Whether gpu.memcpy can copy it: the lowering takes the memref's data pointer as the start.
bool plainBuffer(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  return type && type.hasStaticShape() && type.getLayout().isIdentity();
}

/// `copy` as a kernel of a thread per element (256 to a block): views with offsets or
/// strides, which gpu.memcpy does not take.
void copyKernel(memref::CopyOp copy, IRRewriter &rewriter) {
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(copy.getSource().getType());
  int64_t count = type.getNumElements();
  constexpr int64_t threads = 256;
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  Value one = index(1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, index((count + threads - 1) / threads), one,
                                      one, index(threads), one, one);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Value flat = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, launch.getBlockIds().x, index(threads)),
      launch.getThreadIds().x);
  Value inRange = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, flat,
                                        index(count));
  auto guarded = scf::IfOp::create(rewriter, loc, inRange, /*withElseRegion=*/false);
  rewriter.setInsertionPointToStart(&guarded.getThenRegion().front());
  SmallVector<Value> indices(type.getRank());
  Value rest = flat;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    Value size = index(type.getDimSize(d));
    indices[d] = d == 0 ? rest : arith::RemUIOp::create(rewriter, loc, rest, size).getResult();
    if (d > 0)
      rest = arith::DivUIOp::create(rewriter, loc, rest, size);
  }
  Value value = memref::LoadOp::create(rewriter, loc, copy.getSource(), indices);
  memref::StoreOp::create(rewriter, loc, value, copy.getTarget(), indices);
  rewriter.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(rewriter, loc);
}

struct GpuHostToDevicePass : mlir::loom::impl::GpuHostToDeviceBase<GpuHostToDevicePass> {
  void runOnOperation() override {
    // Run on functions (func.func(loom-gpu-host-to-device)).
    auto fn = dyn_cast<func::FuncOp>(getOperation());
    if (!fn || fn.isExternal())
      return;
    IRRewriter rewriter(&getContext());
    SmallVector<Value> constants;
    if (failed(moveToDevice(fn.getBody().front(), rewriter, constants)))
      return signalPassFailure();
    // Constants copied to the device live until the function returns.
    fn.walk([&](func::ReturnOp ret) {
      rewriter.setInsertionPoint(ret);
      for (Value c : constants)
        gpu::DeallocOp::create(rewriter, ret.getLoc(), Type(), ValueRange{}, c);
    });
  }

  /// Rewrites the host ops of `block`: allocations and copies become the GPU's, runs of ops
  /// that read or write memory become single-thread kernels, and loops around kernels are
  /// entered.
  LogicalResult moveToDevice(Block &block, IRRewriter &rewriter, SmallVector<Value> &constants) {
    SmallVector<Operation *> run;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      Operation *o = &op;
      if (auto global = dyn_cast<memref::GetGlobalOp>(o);
          (global && mlir::loom::onlyDescribesCalls(global.getResult())) || mlir::loom::describesCalls(o))
        continue;
      bool hostSide = isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
                          memref::CopyOp, func::CallOp>(o) ||
                      containsLaunch(o);
      if (!hostSide && isMemoryEffectFree(o) && !o->hasTrait<OpTrait::IsTerminator>()) {
        // Scalar arithmetic on what the run loaded joins it; the rest (index math of the
        // launches) stays where it is, which the run may move past: it touches no memory.
        if (llvm::any_of(o->getOperands(), [&](Value v) {
              return v.getDefiningOp() && llvm::is_contained(run, v.getDefiningOp());
            }))
          run.push_back(o);
        continue;
      }
      if (isa<gpu::LaunchOp>(o) || o->hasTrait<OpTrait::IsTerminator>()) {
        if (failed(flush(run, o, rewriter, constants)))
          return failure();
        continue;
      }
      if (!hostSide) {
        run.push_back(o);
        continue;
      }
      if (failed(flush(run, o, rewriter, constants)))
        return failure();
      rewriter.setInsertionPoint(o);
      if (auto alloc = dyn_cast<memref::AllocOp>(o)) {
        rewriter.replaceOp(alloc, gpu::AllocOp::create(rewriter, alloc.getLoc(), alloc.getType(),
                                                       Type(), ValueRange{},
                                                       alloc.getDynamicSizes(), ValueRange{})
                                      .getMemref());
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(o)) {
        gpu::DeallocOp::create(rewriter, dealloc.getLoc(), Type(), ValueRange{},
                               dealloc.getMemref());
        rewriter.eraseOp(dealloc);
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(o)) {
        // The constant lives in host memory; kernels read a device copy of it.
        auto copy = gpu::AllocOp::create(rewriter, global.getLoc(), global.getType(), Type(),
                                         ValueRange{}, ValueRange{}, ValueRange{});
        rewriter.setInsertionPointAfter(global);
        rewriter.replaceAllUsesWith(global.getResult(), copy.getMemref());
        gpu::MemcpyOp::create(rewriter, global.getLoc(), Type(), ValueRange{}, copy.getMemref(),
                              global.getResult());
        rewriter.setInsertionPoint(global);
        rewriter.moveOpBefore(global, copy);
        constants.push_back(copy.getMemref());
      } else if (auto copy = dyn_cast<memref::CopyOp>(o)) {
        if (plainBuffer(copy.getSource()) && plainBuffer(copy.getTarget()))
          gpu::MemcpyOp::create(rewriter, copy.getLoc(), Type(), ValueRange{},
                                copy.getTarget(), copy.getSource());
        else if (cast<MemRefType>(copy.getSource().getType()).hasStaticShape())
          copyKernel(copy, rewriter);
        else
          return copy.emitOpError("copies a buffer of dynamic shape, which the GPU pipeline "
                                  "does not support yet");
        rewriter.eraseOp(copy);
      } else if (auto call = dyn_cast<func::CallOp>(o)) {
        // The runtime's GPU entry points (cuBLAS GEMMs) and collectives run on the device's
        // stream; a device's mesh coordinate is the launch's, on the host.
        if (mlir::loom::runsOnGpuStream(call.getCallee()) ||
            call.getCallee() == "loom_rt_axis_index")
          continue;
        // A function of the program (a layer's, loom-outline-repeated-blocks): its own host
        // side launches its kernels on the same stream.
        if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                call, call.getCalleeAttr());
            callee && !callee.isExternal())
          continue;
        return call.emitOpError("calls '")
               << call.getCallee()
               << "' on the host, which the GPU pipeline cannot run";
      } else {
        // A loop around kernels stays on the host; its body is moved like a function's, and
        // the constants it copies are freed at the end of each iteration.
        for (Region &region : o->getRegions())
          for (Block &inner : region) {
            SmallVector<Value> innerConstants;
            if (failed(moveToDevice(inner, rewriter, innerConstants)))
              return failure();
            rewriter.setInsertionPoint(inner.getTerminator());
            for (Value c : innerConstants)
              gpu::DeallocOp::create(rewriter, o->getLoc(), Type(), ValueRange{}, c);
          }
      }
    }
    return flush(run, nullptr, rewriter, constants);
  }

  /// Moves `run` (consecutive ops of one block) into a kernel of one thread, where `at` (the
  /// launch, host op or terminator that ends it; null at the block's end) is reached. A
  /// scalar it computes for a later kernel (a load before a collective's wait, used after it)
  /// goes through a device buffer of its own (in `slots`, freed with the constants): stored
  /// by this kernel, loaded where it is used. A value `at` itself takes (a call's argument, a
  /// launch's size), or one that is not a scalar (a view), is an error.
  LogicalResult flush(SmallVector<Operation *> &run, Operation *at, IRRewriter &rewriter,
                      SmallVector<Value> &slots) {
    if (run.empty())
      return success();
    llvm::SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
    Block *block = run.front()->getBlock();
    SmallVector<Operation *> stores;
    for (Operation *op : run)
      for (Value result : op->getResults()) {
        SmallVector<OpOperand *> later;
        for (OpOperand &use : result.getUses())
          if (!inRun.contains(block->findAncestorOpInBlock(*use.getOwner())))
            later.push_back(&use);
        if (later.empty())
          continue;
        if (!MemRefType::isValidElementType(result.getType()) ||
            llvm::any_of(later, [&](OpOperand *use) { return use->getOwner() == at; }))
          return op->emitOpError("computes a value the GPU program's host side uses");
        Location loc = op->getLoc();
        rewriter.setInsertionPoint(run.front());
        Value slot = gpu::AllocOp::create(rewriter, loc, MemRefType::get({}, result.getType()),
                                          Type(), ValueRange{}, ValueRange{}, ValueRange{})
                         .getMemref();
        slots.push_back(slot);
        rewriter.setInsertionPointAfter(run.back());
        stores.push_back(memref::StoreOp::create(rewriter, loc, result, slot));
        for (OpOperand *use : later) {
          rewriter.setInsertionPoint(use->getOwner());
          use->set(memref::LoadOp::create(rewriter, loc, slot));
        }
      }
    llvm::append_range(run, stores);
    Location loc = run.front()->getLoc();
    // After the run's last op: host ops between its ops stay before the kernel.
    rewriter.setInsertionPointAfter(run.back());
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto launch = gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    rewriter.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    for (Operation *op : run)
      rewriter.moveOpBefore(op, terminator);
    run.clear();
    return success();
  }
};

} // namespace
