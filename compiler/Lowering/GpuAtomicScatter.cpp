// The loom-gpu-atomic-scatter pass (see Passes.td): a scatter-add's loop over its updates
// becomes one parallel loop over updates and row elements adding with atomics, so a GPU runs
// every row at once instead of one row after another.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUATOMICSCATTER
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// The row update of a scatter-add's loop: `store (current + update), target[...]` in its one
/// parallel loop, `current` loaded from the target or from a copy of its row.
struct RowAdd {
  scf::ParallelOp rowLoop;
  memref::StoreOp store;
  Operation *add;
  Value update;
  memref::LoadOp current;
  /// The row of the result the sum goes to (a view of it, defined before the row loop).
  Value target;
};

/// Whether `loop`'s body copies `from` into `to`.
bool copies(scf::ForOp loop, Value from, Value to) {
  for (auto copy : loop.getBody()->getOps<memref::CopyOp>())
    if (copy.getSource() == from && copy.getTarget() == to)
      return true;
  return false;
}

/// The row the adds accumulate into, in each form bufferization leaves: loaded and stored in
/// place; loaded from a copy of the row and stored to it; or loaded from the row, stored to a
/// temporary and copied back.
Value accumulated(scf::ForOp loop, memref::LoadOp current, memref::StoreOp store) {
  Value loaded = current.getMemRef(), stored = store.getMemRef();
  if (loaded == stored)
    return loaded.getDefiningOp<memref::AllocOp>() ? Value() : loaded;
  bool linked = copies(loop, stored, loaded) || copies(loop, loaded, stored);
  if (!linked)
    return Value();
  // The temporary is the allocation; the row is the other.
  if (loaded.getDefiningOp<memref::AllocOp>() && !stored.getDefiningOp<memref::AllocOp>())
    return stored;
  if (stored.getDefiningOp<memref::AllocOp>() && !loaded.getDefiningOp<memref::AllocOp>())
    return loaded;
  return Value();
}

std::optional<RowAdd> matchRowAdd(scf::ForOp loop) {
  SmallVector<scf::ParallelOp> rowLoops(loop.getBody()->getOps<scf::ParallelOp>());
  if (rowLoops.size() != 1)
    return std::nullopt;
  SmallVector<memref::StoreOp> stores;
  rowLoops[0].walk([&](memref::StoreOp s) { stores.push_back(s); });
  if (stores.size() != 1 || stores[0]->getParentOp() != rowLoops[0])
    return std::nullopt;
  Operation *add = stores[0].getValue().getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add))
    return std::nullopt;
  for (int i : {0, 1})
    if (auto current = add->getOperand(i).getDefiningOp<memref::LoadOp>())
      if (current->getParentOp() == rowLoops[0] && current.getIndices() == stores[0].getIndices())
        if (Value target = accumulated(loop, current, stores[0]))
          return RowAdd{rowLoops[0], stores[0], add, add->getOperand(1 - i), current, target};
  return std::nullopt;
}

struct GpuAtomicScatterPass : mlir::loom::impl::GpuAtomicScatterBase<GpuAtomicScatterPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr("scatter_add"))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      std::optional<RowAdd> row = matchRowAdd(loop);
      if (!row)
        continue; // left to loom-gpu-sequential-loops
      Location loc = loop.getLoc();
      rewriter.setInsertionPoint(loop);
      SmallVector<Value> lbs{loop.getLowerBound()}, ubs{loop.getUpperBound()},
          steps{loop.getStep()};
      llvm::append_range(lbs, row->rowLoop.getLowerBound());
      llvm::append_range(ubs, row->rowLoop.getUpperBound());
      llvm::append_range(steps, row->rowLoop.getStep());
      auto all = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
      IRMapping map;
      map.map(loop.getInductionVar(), all.getInductionVars()[0]);
      // getInductionVars() returns a vector by value: kept here, as a view of the temporary
      // would dangle inside the loop.
      SmallVector<Value> rowVars = row->rowLoop.getInductionVars();
      SmallVector<Value> allVars = all.getInductionVars();
      for (auto [from, to] : llvm::zip(rowVars, ArrayRef<Value>(allVars).drop_front()))
        map.map(from, to);
      rewriter.setInsertionPoint(all.getBody()->getTerminator());
      // The row's index and views; temporaries and copies of the row are not needed any more.
      for (Operation &op : loop.getBody()->without_terminator()) {
        if (&op == row->rowLoop)
          break;
        if (!isa<memref::AllocOp, memref::CopyOp, memref::DeallocOp>(op))
          rewriter.clone(op, map);
      }
      for (Operation &op : row->rowLoop.getBody()->without_terminator())
        if (&op != row->store && &op != row->add && &op != row->current)
          rewriter.clone(op, map);
      auto kind = isa<arith::AddFOp>(row->add) ? arith::AtomicRMWKind::addf
                                               : arith::AtomicRMWKind::addi;
      SmallVector<Value> indices;
      for (Value index : row->store.getIndices())
        indices.push_back(map.lookupOrDefault(index));
      memref::AtomicRMWOp::create(rewriter, loc, kind, map.lookupOrDefault(row->update),
                                  map.lookupOrDefault(row->target), indices);
      rewriter.eraseOp(loop);
    }
  }
};

} // namespace
