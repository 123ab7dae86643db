// The loom-fuse-row-loops pass (see Passes.td): consecutive loop nests over the same rows
// (a layer norm's mean, centring, variance and scaling; a softmax's max, exponentials, sum
// and division) become one loop over the rows, each row's passes run back to back while the
// row is in cache.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::loom {
#define GEN_PASS_DEF_FUSEROWLOOPS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// Fewest rows a fused loop keeps: enough iterations for the device's threads.
constexpr int64_t kMinFusedRows = 64;

/// An access's buffer traced through reshaping views to the allocation or argument it is
/// part of, with the index of each of that buffer's dims where it is one value (else null).
struct RowAccess {
  Value root;
  SmallVector<Value> rootIndices;
  bool write = false;
};

bool isUnitDim(int64_t size) { return size == 1; }

/// `indices` into `view`, as indices into the buffer `view` reshapes. A dim made of one
/// non-unit dim and unit dims (whose index can only be 0) keeps that dim's index; others
/// become null.
std::optional<RowAccess> traceToRoot(Value view, SmallVector<Value> indices) {
  while (true) {
    if (auto expand = view.getDefiningOp<memref::ExpandShapeOp>()) {
      ArrayRef<int64_t> shape = expand.getResultType().getShape();
      SmallVector<Value> source;
      for (const ReassociationIndices &group : expand.getReassociationIndices()) {
        Value index;
        int nonUnit = 0;
        for (int64_t d : group)
          if (!isUnitDim(shape[d]))
            ++nonUnit, index = indices[d];
        source.push_back(nonUnit == 1 ? index : Value());
      }
      view = expand.getSrc(), indices = std::move(source);
    } else if (auto collapse = view.getDefiningOp<memref::CollapseShapeOp>()) {
      ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
      SmallVector<Value> source;
      for (auto [r, group] : llvm::enumerate(collapse.getReassociationIndices())) {
        int nonUnit = llvm::count_if(group, [&](int64_t d) { return !isUnitDim(shape[d]); });
        for (int64_t d : group)
          source.push_back(nonUnit == 1 && !isUnitDim(shape[d]) ? indices[r] : Value());
      }
      view = collapse.getSrc(), indices = std::move(source);
    } else if (auto cast = view.getDefiningOp<memref::CastOp>()) {
      view = cast.getSource();
    } else if (isa<BlockArgument>(view) || view.getDefiningOp<memref::AllocOp>() ||
               view.getDefiningOp<memref::AllocaOp>()) {
      return RowAccess{view, std::move(indices)};
    } else {
      return std::nullopt; // a subview or other alias we do not follow
    }
  }
}

/// Every memory access in `loop`'s body, or nothing if one is not a load or store of a
/// buffer we can trace (a call, a copy, a subview).
std::optional<SmallVector<RowAccess>> accessesOf(scf::ParallelOp loop) {
  SmallVector<RowAccess> accesses;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    Value buffer;
    SmallVector<Value> indices;
    bool write = false;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      buffer = load.getMemRef(), indices = llvm::to_vector(load.getIndices());
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      buffer = store.getMemRef(), indices = llvm::to_vector(store.getIndices());
      write = true;
    } else if (isMemoryEffectFree(op) || isa<scf::ForOp, scf::ParallelOp, scf::YieldOp,
                                              scf::ReduceOp, scf::ReduceReturnOp>(op)) {
      return WalkResult::advance(); // loops: their bodies are walked
    } else {
      return WalkResult::interrupt();
    }
    std::optional<RowAccess> access = traceToRoot(buffer, std::move(indices));
    if (!access)
      return WalkResult::interrupt();
    if (!loop->isAncestor(access->root.getParentRegion()->getParentOp())) {
      access->write = write;
      accesses.push_back(std::move(*access));
    } // else a buffer of one iteration's own
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return accesses;
}

/// The constant trip counts of `loop`'s dims, if its bounds are constants.
std::optional<SmallVector<int64_t>> rowTripCounts(scf::ParallelOp loop) {
  SmallVector<int64_t> trips;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *l != 0 || *s != 1 || *u <= 0)
      return std::nullopt;
    trips.push_back(*u);
  }
  return trips;
}

/// A loop nest candidate for fusion: its trip counts and memory accesses.
struct Nest {
  scf::ParallelOp loop;
  SmallVector<int64_t> trips;
  SmallVector<RowAccess> accesses;
};

std::optional<Nest> analyse(scf::ParallelOp loop) {
  if (loop.getNumResults() != 0)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> trips = rowTripCounts(loop);
  std::optional<SmallVector<RowAccess>> accesses = trips ? accessesOf(loop) : std::nullopt;
  if (!accesses)
    return std::nullopt;
  return Nest{loop, std::move(*trips), std::move(*accesses)};
}

/// Whether `access`, made in `loop`, touches only the row given by the loop's first `rows`
/// induction variables (its buffer's leading dims are indexed by them, in order).
bool inOwnRow(const RowAccess &access, scf::ParallelOp loop, size_t rows) {
  if (access.rootIndices.size() < rows)
    return false;
  for (size_t d = 0; d < rows; ++d)
    if (!access.rootIndices[d] || access.rootIndices[d] != loop.getInductionVars()[d])
      return false;
  return true;
}

/// The most leading dims `a` and `b` can share as one loop over rows: dims of equal extent,
/// at least kMinFusedRows rows in all, over which every buffer either one writes is accessed by
/// both only in the row of the current iteration (so running `a` then `b` row by row reads
/// and writes what running all of `a` then all of `b` does). 0 if none.
size_t sharedRows(const Nest &a, const Nest &b) {
  size_t rows = 0;
  while (rows < a.trips.size() && rows < b.trips.size() && a.trips[rows] == b.trips[rows])
    ++rows;
  llvm::SmallDenseSet<Value> written;
  for (const Nest *nest : {&a, &b})
    for (const RowAccess &access : nest->accesses)
      if (access.write)
        written.insert(access.root);
  for (; rows > 0; --rows) {
    int64_t count = 1;
    for (size_t d = 0; d < rows; ++d)
      count *= a.trips[d];
    if (count < kMinFusedRows)
      return 0;
    auto rowLocal = [&](const Nest &nest) {
      return llvm::all_of(nest.accesses, [&](const RowAccess &access) {
        return !written.contains(access.root) || inOwnRow(access, nest.loop, rows);
      });
    };
    if (rowLocal(a) && rowLocal(b))
      return rows;
  }
  return 0;
}

/// Appends `nest`'s body to `fused` (a loop over its first `rows` dims), its other dims
/// as sequential loops around it (none for a dim of one iteration).
void appendBody(OpBuilder &b, scf::ParallelOp fused, Nest &nest, size_t rows) {
  scf::ParallelOp loop = nest.loop;
  IRMapping mapping;
  for (size_t d = 0; d < rows; ++d)
    mapping.map(loop.getInductionVars()[d], fused.getInductionVars()[d]);
  b.setInsertionPoint(fused.getBody()->getTerminator());
  for (size_t d = rows; d < loop.getNumLoops(); ++d) {
    if (nest.trips[d] == 1) {
      mapping.map(loop.getInductionVars()[d], loop.getLowerBound()[d]);
      continue;
    }
    auto inner = scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound()[d],
                                    loop.getUpperBound()[d], loop.getStep()[d]);
    mapping.map(loop.getInductionVars()[d], inner.getInductionVar());
    b.setInsertionPoint(inner.getBody()->getTerminator());
  }
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, mapping);
}

/// One loop over the first `rows` dims of `a` and `b` running `a`'s body, then `b`'s.
std::optional<Nest> fuse(Nest a, Nest b, size_t rows) {
  OpBuilder builder(a.loop);
  auto fused = scf::ParallelOp::create(
      builder, a.loop.getLoc(), a.loop.getLowerBound().take_front(rows),
      a.loop.getUpperBound().take_front(rows), a.loop.getStep().take_front(rows));
  appendBody(builder, fused, a, rows);
  appendBody(builder, fused, b, rows);
  a.loop.erase();
  b.loop.erase();
  // Re-analysed rather than remapped: the accesses now index by the fused loop's variables.
  return analyse(fused);
}

/// Whether `op`, found between two loops, can move before the first: it neither reads nor
/// writes memory (an allocation, a constant, a view).
bool movable(Operation &op) {
  if (op.getNumRegions() != 0)
    return false;
  return isMemoryEffectFree(&op) || hasSingleEffect<MemoryEffects::Allocate>(&op);
}

void fuseRowLoops(Block &block) {
  std::optional<Nest> current;
  SmallVector<Operation *> between; // movable ops since the current nest
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto loop = dyn_cast<scf::ParallelOp>(op);
    std::optional<Nest> next = loop ? analyse(loop) : std::nullopt;
    if (!next) {
      if (current && movable(op)) {
        between.push_back(&op);
        continue;
      }
      current.reset();
      between.clear();
      continue;
    }
    size_t rows = current ? sharedRows(*current, *next) : 0;
    if (rows == 0) {
      current = std::move(next);
      between.clear();
      continue;
    }
    for (Operation *moved : between)
      moved->moveBefore(current->loop);
    between.clear();
    current = fuse(*current, *next, rows);
  }
}

struct FuseRowLoopsPass : mlir::loom::impl::FuseRowLoopsBase<FuseRowLoopsPass> {
  void runOnOperation() override {
    for (Region &region : getOperation()->getRegions())
      for (Block &block : region)
        fuseRowLoops(block);
  }
};

} // namespace
