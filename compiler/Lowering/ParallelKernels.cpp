// The loom-parallel-kernels pass (see Passes.td): kernels whose outer loop is parallel and
// large enough run it in chunks, [lo, hi) of its leading iterations given by the caller.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::loom {
#define GEN_PASS_DEF_PARALLELKERNELS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// Leading iterations a chunked kernel spreads over: enough for a many-core device's chunks.
constexpr int64_t kLeadingIterations = 64;

/// Iterations of a loop from lb to ub by step, if all three are constants.
std::optional<int64_t> tripCount(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
}

/// The constant trip count of each dimension of `loop`, or nothing if one is not constant.
std::optional<SmallVector<int64_t>> tripCounts(scf::ParallelOp loop) {
  SmallVector<int64_t> trips;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> count = tripCount(lb, ub, step);
    if (!count)
      return std::nullopt;
    trips.push_back(*count);
  }
  return trips;
}

/// At most how many iterations a loop from lb to ub by step runs: its trip count, or where
/// ub is the minimum of a constant and another value (a tile clamped at a dim's end, as
/// loom-tile-transposed-loops makes), the count up to that constant; else 1.
int64_t tripEstimate(Value lb, Value ub, Value step) {
  if (auto min = ub.getDefiningOp<arith::MinSIOp>())
    for (Value bound : {min.getLhs(), min.getRhs()})
      if (getConstantIntValue(bound))
        ub = bound;
  std::optional<int64_t> count = tripCount(lb, ub, step);
  return count ? std::max<int64_t>(*count, 1) : 1;
}

/// Iterations of the innermost bodies run per iteration of `block`'s enclosing loop (loops
/// with bounds that are neither constants nor clamped to one count once).
int64_t innerWork(Block &block) {
  int64_t work = 1;
  for (Operation &op : block) {
    int64_t trips = 1;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      trips = tripEstimate(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
    } else if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      for (auto [lb, ub, step] :
           llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
        trips *= tripEstimate(lb, ub, step);
    } else {
      continue;
    }
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        work += trips * innerWork(inner);
  }
  return work;
}

struct ParallelKernelsPass : mlir::loom::impl::ParallelKernelsBase<ParallelKernelsPass> {
  using ParallelKernelsBase::ParallelKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The calls of each function, found in one walk (not one walk per kernel).
    llvm::StringMap<SmallVector<func::CallOp>> callsOf;
    module.walk([&](func::CallOp call) { callsOf[call.getCallee()].push_back(call); });
    for (func::FuncOp kernel : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (kernel.isPrivate() && !kernel.isExternal() && kernel.getNumResults() == 0 &&
          !mlir::loom::isRepeatedBlock(kernel))
        if (scf::ParallelOp loop = soleLoop(kernel))
          chunk(kernel, loop, callsOf.lookup(kernel.getSymName()));
  }

  /// The kernel's loop: the only op of its body besides constants and the return.
  static scf::ParallelOp soleLoop(func::FuncOp kernel) {
    scf::ParallelOp loop;
    for (Operation &op : kernel.getBody().front()) {
      if (op.hasTrait<OpTrait::ConstantLike>() || isa<func::ReturnOp>(op))
        continue;
      if (loop || !isa<scf::ParallelOp>(op))
        return nullptr;
      loop = cast<scf::ParallelOp>(op);
    }
    return loop && loop.getNumResults() == 0 ? loop : nullptr;
  }

  void chunk(func::FuncOp kernel, scf::ParallelOp loop, ArrayRef<func::CallOp> calls) {
    std::optional<SmallVector<int64_t>> trips = tripCounts(loop);
    if (!trips)
      return;
    int64_t total = innerWork(*loop.getBody());
    for (int64_t t : *trips)
      total *= t;
    if (total < minWork)
      return;
    // The leading dims the chunks split: a prefix with enough iterations, the last dim kept
    // as a loop when there are others (it is the contiguous one LLVM vectorizes) unless the
    // body loops itself (a row reduction, or a row's passes: the contiguous dim is inside).
    size_t dims = trips->size(), split = 1;
    bool bodyLoops = llvm::any_of(loop.getBody()->getOperations(), [](Operation &op) {
      return isa<scf::ForOp, scf::ParallelOp>(op);
    });
    int64_t leading = (*trips)[0];
    while (leading < kLeadingIterations && split < (bodyLoops ? dims : dims - 1))
      leading *= (*trips)[split++];
    int64_t perIteration = std::max<int64_t>(total / std::max<int64_t>(leading, 1), 1);
    int64_t grain = std::max<int64_t>(1, (chunkWork + perIteration - 1) / perIteration);
    if (leading <= grain)
      return; // one chunk: nothing to share

    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Type index = b.getIndexType();
    // A func.func always takes new arguments (the result is for ops that cannot).
    (void)kernel.insertArgument(0, index, {}, loc);
    (void)kernel.insertArgument(1, index, {}, loc);
    Value lo = kernel.getArgument(0), hi = kernel.getArgument(1);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto outer = scf::ForOp::create(b, loc, lo, hi, one);
    b.setInsertionPointToStart(outer.getBody());
    // The split dims' induction variables from the flat iteration, the last varying fastest.
    SmallVector<Value> ivs(split);
    Value rest = outer.getInductionVar();
    for (size_t d = split; d-- > 0;) {
      Value position = rest;
      if (d > 0) {
        Value extent = arith::ConstantIndexOp::create(b, loc, (*trips)[d]);
        position = arith::RemUIOp::create(b, loc, rest, extent);
        rest = arith::DivUIOp::create(b, loc, rest, extent);
      }
      Value scaled = arith::MulIOp::create(b, loc, position, loop.getStep()[d]);
      ivs[d] = arith::AddIOp::create(b, loc, loop.getLowerBound()[d], scaled);
    }
    IRMapping mapping;
    for (size_t d = 0; d < split; ++d)
      mapping.map(loop.getInductionVars()[d], ivs[d]);
    auto cloneBody = [&](OpBuilder &builder) {
      for (Operation &op : loop.getBody()->without_terminator())
        builder.clone(op, mapping);
    };
    if (split == dims) {
      cloneBody(b);
    } else {
      scf::ParallelOp::create(
          b, loc, loop.getLowerBound().drop_front(split), loop.getUpperBound().drop_front(split),
          loop.getStep().drop_front(split), [&](OpBuilder &inner, Location, ValueRange inside) {
            for (size_t d = split; d < dims; ++d)
              mapping.map(loop.getInductionVars()[d], inside[d - split]);
            cloneBody(inner);
          });
    }
    loop.erase();
    kernel->setAttr("loom.parallel_extent", b.getI64IntegerAttr(leading));
    kernel->setAttr("loom.parallel_grain", b.getI64IntegerAttr(grain));

    // Callers run it whole; loom-dispatch-parallel-kernels later hands the range to the pool.
    for (func::CallOp call : calls) {
      OpBuilder at(call);
      SmallVector<Value> operands = {
          arith::ConstantIndexOp::create(at, call.getLoc(), 0),
          arith::ConstantIndexOp::create(at, call.getLoc(), leading)};
      llvm::append_range(operands, call.getOperands());
      func::CallOp::create(at, call.getLoc(), kernel, operands);
      call.erase();
    }
  }
};

} // namespace
