// The loom-tile-transposed-loops pass (see Passes.td): a loop nest that walks down a buffer's
// columns in its innermost dim runs in square tiles, so that the rows it touches stay cached.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::loom {
#define GEN_PASS_DEF_TILETRANSPOSEDLOOPS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// The dim of `loop` whose induction variable indexes the last dim of a buffer accessed in
/// its body while the innermost induction variable indexes another of its dims: the access
/// then strides down the buffer's columns. None if no access does.
std::optional<unsigned> columnWalkedDim(scf::ParallelOp loop) {
  SmallVector<Value> ivs = loop.getInductionVars();
  Value innermost = ivs.back();
  std::optional<unsigned> found;
  loop.getBody()->walk([&](Operation *op) {
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      indices = load.getIndices();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      indices = store.getIndices();
    if (indices.size() < 2 || found)
      return;
    auto last = llvm::find(ivs, indices.back());
    if (last == ivs.end() || *last == innermost ||
        !llvm::is_contained(indices.drop_back(), innermost))
      return;
    found = static_cast<unsigned>(std::distance(ivs.begin(), last));
  });
  return found;
}

/// The tile of a dim of `extent` iterations: the largest divisor of the extent from half of
/// `size` to `size` (inner loops with constant bounds), else `size` (clamped at the end).
int64_t tileOf(int64_t extent, int64_t size) {
  for (int64_t t = size; t >= std::max<int64_t>(size / 2, 1); --t)
    if (extent % t == 0)
      return t;
  return size;
}

struct TileTransposedLoopsPass
    : mlir::loom::impl::TileTransposedLoopsBase<TileTransposedLoopsPass> {
  using TileTransposedLoopsBase::TileTransposedLoopsBase;

  void runOnOperation() override {
    if (tileSize < 1) {
      getOperation()->emitError() << "loom-tile-transposed-loops: tile-size must be at least 1, "
                                     "got "
                                  << static_cast<int64_t>(tileSize);
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> loops;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops)
      tile(loop);
  }

  void tile(scf::ParallelOp loop) {
    unsigned dims = loop.getNumLoops();
    if (dims < 2 || loop.getNumResults() != 0)
      return;
    // Unit steps from zero to constant bounds, and a body of straight-line code.
    SmallVector<int64_t> extents;
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                             s = getConstantIntValue(step);
      if (!l || !u || !s || *l != 0 || *s != 1)
        return;
      extents.push_back(*u);
    }
    if (llvm::any_of(loop.getBody()->without_terminator(),
                     [](Operation &op) { return op.getNumRegions() != 0; }))
      return;
    std::optional<unsigned> column = columnWalkedDim(loop);
    unsigned inner = dims - 1;
    if (!column || extents[*column] < tileSize || extents[inner] < tileSize)
      return;

    // The tiles: the same dims, the two tiled ones stepping a tile at a time.
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    std::array<unsigned, 2> tiled = {*column, inner};
    SmallVector<Value> steps(loop.getStep()), sizes;
    for (unsigned d : tiled) {
      sizes.push_back(arith::ConstantIndexOp::create(b, loc, tileOf(extents[d], tileSize)));
      steps[d] = sizes.back();
    }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto outer = scf::ParallelOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                                         steps, nullptr);
    b.setInsertionPointToStart(outer.getBody());
    // Each tile's iterations from 0, offset by the tile's start: constant bounds where the
    // tile divides the extent, so that loom-parallel-kernels can count them.
    SmallVector<Value> innerUpper;
    for (auto [d, size] : llvm::zip(tiled, sizes)) {
      innerUpper.push_back(size);
      if (extents[d] % *getConstantIntValue(size) != 0) {
        Value left = arith::SubIOp::create(b, loc, loop.getUpperBound()[d],
                                           outer.getInductionVars()[d]);
        innerUpper.back() = arith::MinSIOp::create(b, loc, size, left);
      }
    }
    scf::ParallelOp::create(
        b, loc, ValueRange{zero, zero}, innerUpper, ValueRange{one, one},
        [&](OpBuilder &body, Location at, ValueRange within) {
          IRMapping mapping;
          for (unsigned d = 0; d < dims; ++d)
            mapping.map(loop.getInductionVars()[d], outer.getInductionVars()[d]);
          mapping.map(loop.getInductionVars()[*column],
                      arith::AddIOp::create(body, at, outer.getInductionVars()[*column],
                                            within[0]));
          mapping.map(loop.getInductionVars()[inner],
                      arith::AddIOp::create(body, at, outer.getInductionVars()[inner],
                                            within[1]));
          for (Operation &op : loop.getBody()->without_terminator())
            body.clone(op, mapping);
        });
    loop.erase();
  }
};

} // namespace
