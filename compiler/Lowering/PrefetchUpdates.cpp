// The loom-prefetch-updates pass (see Passes.td): a chunked kernel that updates a buffer in
// place (reads and writes the same elements: an optimizer's parameters and moments) asks for
// the lines of a row ahead in exclusive state, while it works on the current row.
//
// Why: a training step's GEMMs read every weight on every core (each core computes its rows
// of C against all of B). Those lines then sit in both cores' caches, and each store of the
// update must first invalidate the other core's copy, one line at a time as the store buffer
// drains. On 2 cores (AMD EPYC, Zen 5), an SGD update of a 784 x 512 weight took 196 us after
// both cores had read it against 50 us when only its own core had; asking for the next row's
// lines for writing (prefetchw) a row ahead took it to 127 us: the invalidations overlap.
// In the MLP benchmark's step the gain was smaller (that update 165-178 us against 188; the
// step 1.5-4% faster); on cores that share their caches it changes nothing.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::loom {
#define GEN_PASS_DEF_PREFETCHUPDATES
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace prefetch_updates {

constexpr int64_t kLineBytes = 64;
/// How far ahead the lines are asked for: at least a row, and rows of at least this many
/// bytes (2 KB rows a row ahead ran the update above fastest; 1-2 KB ahead per line alike).
constexpr int64_t kAheadBytes = 1024;
/// Rows shorter than this are left alone (a few lines each, many rows ahead: the loop of
/// prefetches would cost more than the lines it asks for), as are rows longer than
/// kMaxRowBytes (a row ahead would not stay in L1 beside the current one).
constexpr int64_t kMinRowBytes = 256;
constexpr int64_t kMaxRowBytes = 16 << 10;

/// The buffers `loop`'s body both loads and stores at the same indices, the last of them
/// the loop's own induction variable and the others defined outside it (a row of the
/// buffer per iteration of the enclosing chunk loop), each with the indices of its store.
SmallVector<memref::StoreOp> updatedRows(scf::ParallelOp loop) {
  Value column = loop.getInductionVars()[0];
  SmallVector<memref::LoadOp> loads;
  for (Operation &op : *loop.getBody())
    if (auto load = dyn_cast<memref::LoadOp>(op))
      loads.push_back(load);
  SmallVector<memref::StoreOp> stores;
  llvm::SmallPtrSet<Value, 4> seen;
  for (Operation &op : *loop.getBody()) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store || seen.contains(store.getMemRef()))
      continue;
    auto type = cast<MemRefType>(store.getMemRef().getType());
    ValueRange indices = store.getIndices();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() || indices.empty() ||
        indices.back() != column ||
        llvm::any_of(indices.drop_back(), [&](Value v) {
          return loop->isAncestor(v.getParentBlock()->getParentOp());
        }))
      continue;
    bool reads = llvm::any_of(loads, [&](memref::LoadOp load) {
      return load.getMemRef() == store.getMemRef() &&
             llvm::equal(load.getIndices(), store.getIndices());
    });
    if (reads && seen.insert(store.getMemRef()).second)
      stores.push_back(store);
  }
  return stores;
}

/// Adds the prefetches to one chunked kernel: its body is `scf.for %i = %lo to %hi` over
/// rows, computing the row's indices and then running one scf.parallel along the row.
void prefetchRows(func::FuncOp kernel) {
  scf::ForOp rows;
  for (Operation &op : kernel.getBody().front())
    if (auto loop = dyn_cast<scf::ForOp>(op))
      rows = loop;
  if (!rows)
    return;
  scf::ParallelOp along;
  for (Operation &op : rows.getBody()->without_terminator()) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (along)
        return; // two loops along rows: not the one-row form
      along = loop;
    } else if (!isPure(&op)) {
      return; // only the row's indices are computed outside the loop along it
    }
  }
  if (!along || along.getNumLoops() != 1 || along.getNumResults() != 0)
    return;
  std::optional<int64_t> lb = getConstantIntValue(along.getLowerBound()[0]),
                         ub = getConstantIntValue(along.getUpperBound()[0]),
                         step = getConstantIntValue(along.getStep()[0]);
  if (!lb || !ub || !step || *lb != 0 || *step != 1)
    return;
  SmallVector<memref::StoreOp> stores = updatedRows(along);
  if (stores.empty())
    return;
  auto bytesOf = [](memref::StoreOp store) {
    return cast<MemRefType>(store.getMemRef().getType()).getElementTypeBitWidth() / 8;
  };
  int64_t elementBytes = bytesOf(stores.front());
  llvm::erase_if(stores, [&](memref::StoreOp s) { return bytesOf(s) != elementBytes; });
  int64_t rowBytes = *ub * elementBytes;
  if (elementBytes == 0 || rowBytes < kMinRowBytes || rowBytes > kMaxRowBytes)
    return;

  // The ops computing the row's indices from the chunk loop's induction variable.
  SmallVector<Operation *> indexOps;
  for (Operation &op : rows.getBody()->without_terminator())
    if (&op != along.getOperation() && !op.hasTrait<OpTrait::ConstantLike>())
      indexOps.push_back(&op);

  // The row `ahead` iterations on, but never past the chunk's last row: the rows after it
  // are another thread's.
  OpBuilder b(along);
  Location loc = along.getLoc();
  int64_t ahead = std::max<int64_t>(1, kAheadBytes / rowBytes);
  Value last = arith::SubIOp::create(b, loc, rows.getUpperBound(),
                                     arith::ConstantIndexOp::create(b, loc, 1));
  Value next = arith::MinUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, rows.getInductionVar(),
                            arith::ConstantIndexOp::create(b, loc, ahead)),
      last);
  // That row's indices: the ops computing this row's, again from `next`.
  IRMapping mapping;
  mapping.map(rows.getInductionVar(), next);
  for (Operation *op : indexOps)
    b.clone(*op, mapping);
  int64_t lineElements = std::max<int64_t>(1, kLineBytes / elementBytes);
  auto lines = scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                                  along.getUpperBound()[0],
                                  arith::ConstantIndexOp::create(b, loc, lineElements));
  b.setInsertionPointToStart(lines.getBody());
  for (memref::StoreOp store : stores) {
    SmallVector<Value> indices;
    for (Value index : store.getIndices().drop_back())
      indices.push_back(mapping.lookupOrDefault(index));
    indices.push_back(lines.getInductionVar());
    memref::PrefetchOp::create(b, loc, store.getMemRef(), indices, /*isWrite=*/true,
                               /*localityHint=*/3, /*isDataCache=*/true);
  }
}

struct PrefetchUpdatesPass : mlir::loom::impl::PrefetchUpdatesBase<PrefetchUpdatesPass> {
  void runOnOperation() override {
    for (func::FuncOp kernel : getOperation().getOps<func::FuncOp>())
      if (kernel->hasAttr("loom.parallel_extent"))
        prefetchRows(kernel);
  }
};

} // namespace prefetch_updates
