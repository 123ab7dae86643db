// The loom-gpu-block-reductions pass (see Passes.td): a row reduction, a thread per row walking
// the row's contiguous elements, becomes a block per row whose threads read the row side by
// side and combine their partials with gpu.all_reduce (warp shuffles and shared memory).
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <optional>

namespace mlir::loom {
#define GEN_PASS_DEF_GPUBLOCKREDUCTIONS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// Rows shorter than this stay a thread per row: a block would leave most lanes idle.
constexpr int64_t kMinRowLength = 64;
/// The most threads of a block; each reads at least 4 of the row's elements.
constexpr int64_t kMaxThreads = 256, kMinPerThread = 4;

/// The all_reduce kind of a loop's combining op, when its result does not depend on the
/// order of the combination (sums only where reassociation is allowed, as on the CPU).
std::optional<gpu::AllReduceOperation> combiningKind(Operation *op) {
  auto reassociates = [&] {
    auto fm = dyn_cast<arith::ArithFastMathInterface>(op);
    return fm && arith::bitEnumContainsAll(fm.getFastMathFlagsAttr().getValue(),
                                           arith::FastMathFlags::reassoc);
  };
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case([&](arith::AddFOp) { return reassociates() ? std::optional(K::ADD) : std::nullopt; })
      .Case([&](arith::MulFOp) { return reassociates() ? std::optional(K::MUL) : std::nullopt; })
      .Case([](arith::AddIOp) { return K::ADD; })
      .Case([](arith::MulIOp) { return K::MUL; })
      .Case([](arith::MaximumFOp) { return K::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return K::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return K::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return K::MINNUMF; })
      .Case([](arith::MaxSIOp) { return K::MAXSI; })
      .Case([](arith::MinSIOp) { return K::MINSI; })
      .Case([](arith::MaxUIOp) { return K::MAXUI; })
      .Case([](arith::MinUIOp) { return K::MINUI; })
      .Case([](arith::AndIOp) { return K::AND; })
      .Case([](arith::OrIOp) { return K::OR; })
      .Case([](arith::XOrIOp) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `root` or an op nested in it may write, allocate or free memory (unknown effects
/// count as such).
bool writesMemory(Operation *root) {
  return root
      ->walk([](Operation *op) {
        return mightHaveEffect<MemoryEffects::Write>(op) ||
                       mightHaveEffect<MemoryEffects::Allocate>(op) ||
                       mightHaveEffect<MemoryEffects::Free>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// A row reduction: a one-dim parallel loop whose body holds one scf.for that combines each
/// of its loop-carried values with one order-free op, reads the row on its last index and
/// writes nothing; the ops before it write nothing either.
struct RowReduction {
  scf::ParallelOp rows;
  scf::ForOp row;
  SmallVector<Operation *> combiners;
  SmallVector<gpu::AllReduceOperation> kinds;
  int64_t length;
};

std::optional<RowReduction> match(scf::ParallelOp loop) {
  if (loop.getNumLoops() != 1 || loop.getNumReductions() != 0 ||
      loop->getParentOfType<scf::ParallelOp>())
    return std::nullopt;
  RowReduction r{loop, nullptr, {}, {}, 0};
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto forOp = dyn_cast<scf::ForOp>(op); forOp && forOp.getNumRegionIterArgs() > 0) {
      if (r.row)
        return std::nullopt; // two reductions in one row: left as they are
      r.row = forOp;
    } else if (!r.row && writesMemory(&op)) {
      return std::nullopt;
    }
  }
  if (!r.row)
    return std::nullopt;
  std::optional<int64_t> lb = getConstantIntValue(r.row.getLowerBound()),
                         ub = getConstantIntValue(r.row.getUpperBound()),
                         step = getConstantIntValue(r.row.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  r.length = (*ub - *lb + *step - 1) / *step;
  if (r.length < kMinRowLength || writesMemory(r.row))
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(r.row.getBody()->getTerminator());
  for (auto [acc, yielded] : llvm::zip(r.row.getRegionIterArgs(), yield.getOperands())) {
    Operation *combiner = yielded.getDefiningOp();
    if (!acc.hasOneUse() || !combiner || *acc.getUsers().begin() != combiner ||
        combiner->getNumOperands() != 2 || !yielded.hasOneUse() ||
        combiner->getBlock() != r.row.getBody())
      return std::nullopt;
    std::optional<gpu::AllReduceOperation> kind = combiningKind(combiner);
    if (!kind || !arith::getNeutralElement(combiner))
      return std::nullopt;
    r.combiners.push_back(combiner);
    r.kinds.push_back(*kind);
  }
  // Coalesced: an access that moves with the row's index has that index last, as it is (a
  // computed index, such as a gather's, is left alone).
  Value iv = r.row.getInductionVar();
  auto inRow = [&](Value v) { return r.row.getRegion().isAncestor(v.getParentRegion()); };
  bool rowLast = true;
  r.row.walk([&](Operation *op) {
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      indices = load.getIndices();
    for (auto [d, index] : llvm::enumerate(indices))
      if (index == iv ? d + 1 != indices.size() : inRow(index))
        rowLast = false;
  });
  if (!rowLast)
    return std::nullopt;
  return r;
}

int64_t threadsFor(int64_t length) {
  int64_t threads = 32;
  while (threads * 2 <= kMaxThreads && threads * 2 * kMinPerThread <= length)
    threads *= 2;
  return threads;
}

/// The block's combination of each thread's `partial`. gpu.all_reduce's warp shuffles move
/// 32 or 64 bits (NVVM's shfl.sync takes an i32): a narrower value (a bf16 softmax's row
/// maximum) is widened for them and narrowed back, which is exact for maxima, minima and
/// integer bits, and for sums and products, reassociated anyway, rounds once at the end.
Value allReduce(OpBuilder &b, Location loc, Value partial, gpu::AllReduceOperation kind) {
  using K = gpu::AllReduceOperation;
  Type type = partial.getType();
  Value value = partial;
  if (auto f = dyn_cast<FloatType>(type); f && f.getWidth() < 32)
    value = arith::ExtFOp::create(b, loc, b.getF32Type(), partial);
  else if (auto i = dyn_cast<IntegerType>(type); i && i.getWidth() < 32)
    value = kind == K::MAXSI || kind == K::MINSI
                ? arith::ExtSIOp::create(b, loc, b.getI32Type(), partial).getResult()
                : arith::ExtUIOp::create(b, loc, b.getI32Type(), partial).getResult();
  Value all =
      gpu::AllReduceOp::create(b, loc, value,
                               gpu::AllReduceOperationAttr::get(b.getContext(), kind),
                               b.getUnitAttr())
          .getResult();
  if (value == partial)
    return all;
  return isa<FloatType>(type) ? arith::TruncFOp::create(b, loc, type, all).getResult()
                              : arith::TruncIOp::create(b, loc, type, all).getResult();
}

/// Rewrites `r` into a gpu.launch: block b takes row b, thread t the row's elements t, t + T,
/// ...; all_reduce combines the partials; thread 0 runs what followed the row's loop.
void rewrite(RowReduction &r, IRRewriter &rewriter) {
  scf::ParallelOp loop = r.rows;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  Value lb = loop.getLowerBound()[0], ub = loop.getUpperBound()[0], step = loop.getStep()[0];
  Value count = arith::CeilDivSIOp::create(
      rewriter, loc, arith::SubIOp::create(rewriter, loc, ub, lb), step);
  int64_t threads = threadsFor(r.length);
  Value one = index(1);
  auto launch =
      gpu::LaunchOp::create(rewriter, loc, count, one, one, index(threads), one, one);
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPointToStart(&body);

  IRMapping map;
  Value rowIndex = arith::AddIOp::create(
      rewriter, loc, lb,
      arith::MulIOp::create(rewriter, loc, launch.getBlockIds().x, step));
  map.map(loop.getInductionVars()[0], rowIndex);
  Value tid = launch.getThreadIds().x;
  Block *rowsBody = loop.getBody();
  auto it = rowsBody->begin();
  for (; &*it != r.row.getOperation(); ++it)
    rewriter.clone(*it, map);

  // The strided walk, each value starting from the combination's neutral element.
  scf::ForOp row = r.row;
  Value rowStep = map.lookupOrDefault(row.getStep());
  Value start = arith::AddIOp::create(
      rewriter, loc, map.lookupOrDefault(row.getLowerBound()),
      arith::MulIOp::create(rewriter, loc, tid, rowStep));
  Value stride = arith::MulIOp::create(rewriter, loc, rowStep, index(threads));
  SmallVector<Value> neutral;
  for (Operation *combiner : r.combiners)
    neutral.push_back(arith::ConstantOp::create(rewriter, loc,
                                                *arith::getNeutralElement(combiner)));
  auto strided = scf::ForOp::create(
      rewriter, loc, start, map.lookupOrDefault(row.getUpperBound()), stride, neutral,
      [&](OpBuilder &b, Location, Value iv, ValueRange accs) {
        IRMapping inner = map;
        inner.map(row.getInductionVar(), iv);
        inner.map(row.getRegionIterArgs(), accs);
        for (Operation &op : row.getBody()->without_terminator())
          b.clone(op, inner);
        SmallVector<Value> yielded;
        for (Value v : row.getBody()->getTerminator()->getOperands())
          yielded.push_back(inner.lookupOrDefault(v));
        scf::YieldOp::create(b, loc, yielded);
      });

  // The block's partials combined, then with the loop's initial value.
  for (auto [i, combiner] : llvm::enumerate(r.combiners)) {
    Value all = allReduce(rewriter, loc, strided.getResult(i), r.kinds[i]);
    IRMapping withInit;
    Value acc = row.getRegionIterArgs()[i];
    Value other = combiner->getOperand(0) == acc ? combiner->getOperand(1)
                                                 : combiner->getOperand(0);
    withInit.map(acc, map.lookupOrDefault(row.getInitArgs()[i]));
    withInit.map(other, all);
    map.map(row.getResult(i), rewriter.clone(*combiner, withInit)->getResult(0));
  }

  // What followed (the stores of the row's results), once per row.
  Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid, index(0));
  auto once = scf::IfOp::create(rewriter, loc, first, /*withElseRegion=*/false);
  rewriter.setInsertionPoint(once.thenBlock()->getTerminator());
  for (++it; it != rowsBody->end(); ++it)
    if (!it->hasTrait<OpTrait::IsTerminator>())
      rewriter.clone(*it, map);
  rewriter.eraseOp(loop);
}

struct GpuBlockReductionsPass
    : mlir::loom::impl::GpuBlockReductionsBase<GpuBlockReductionsPass> {
  void runOnOperation() override {
    SmallVector<RowReduction> found;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (std::optional<RowReduction> r = match(loop))
        found.push_back(*r);
    });
    IRRewriter rewriter(&getContext());
    for (RowReduction &r : found)
      rewrite(r, rewriter);
  }
};

} // namespace
