// Finding repeats in straight-line code (see RepeatSearch.h).
#include "compiler/Lowering/RepeatSearch.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <tuple>

using namespace mlir;

namespace {
/// The attributes that make an op what it is: all but the partitioner's `reason` for a
/// collective, which names the op it serves and may differ from layer to layer.
DictionaryAttr meaningfulAttrs(Operation &op) {
  DictionaryAttr all = op.getAttrDictionary(); // inherent ones (properties) included
  if (!all.get("reason"))
    return all;
  NamedAttrList kept(all);
  kept.erase("reason");
  return kept.getDictionary(op.getContext());
}
} // namespace

llvm::hash_code mlir::loom::shapeHash(Operation &op, const llvm::DenseSet<Operation *> &unique) {
  // Calls of blocks: a block of blocks saves nothing.
  if (op.getNumRegions() || op.hasTrait<OpTrait::IsTerminator>() || isa<func::CallOp>(op) ||
      unique.contains(&op))
    return llvm::hash_value(&op);
  llvm::hash_code hash = llvm::hash_combine(op.getName(), meaningfulAttrs(op));
  for (Type type : op.getOperandTypes())
    hash = llvm::hash_combine(hash, type);
  for (Type type : op.getResultTypes())
    hash = llvm::hash_combine(hash, type);
  return hash;
}

bool mlir::loom::sameShape(Operation *a, Operation *b) {
  return a->getName() == b->getName() && meaningfulAttrs(*a) == meaningfulAttrs(*b) &&
         a->getOperandTypes() == b->getOperandTypes() &&
         a->getResultTypes() == b->getResultTypes() && a->getNumRegions() == 0 &&
         b->getNumRegions() == 0;
}

// For each period, each maximal run in which an op equals the op one period later. The periods
// tried are the distances from ops to the last few equal ops before them (in a run of period
// P, an op that occurs at most that many times per copy recurs P later), so a search costs
// the ops times the distinct distances, not the ops squared.
std::vector<mlir::loom::Repeat> mlir::loom::findRepeats(ArrayRef<llvm::hash_code> hashes,
                                                       size_t minPeriod, size_t limit) {
  constexpr size_t kRecent = 4;
  size_t n = hashes.size();
  llvm::DenseMap<size_t, SmallVector<size_t, kRecent>> recentAt; // hash -> last positions
  llvm::DenseSet<size_t> periods;
  for (size_t i = 0; i < n; ++i) {
    SmallVector<size_t, kRecent> &recent = recentAt[static_cast<size_t>(hashes[i])];
    for (size_t before : recent)
      if (i - before >= minPeriod && i - before <= n / 2)
        periods.insert(i - before);
    if (recent.size() == kRecent)
      recent.erase(recent.begin());
    recent.push_back(i);
  }
  std::vector<Repeat> found;
  for (size_t period : periods) {
    size_t run = 0;
    for (size_t i = 0; i + period <= n; ++i) {
      if (i + period < n && hashes[i] == hashes[i + period]) {
        ++run;
        continue;
      }
      if ((run + period) / period >= 2)
        found.push_back({i - run, period, (run + period) / period});
      run = 0;
    }
  }
  // Most saved first; then the shorter period, then the earlier start (a stable order).
  llvm::sort(found, [](const Repeat &a, const Repeat &b) {
    return std::tuple(b.saved(), a.period, a.start) < std::tuple(a.saved(), b.period, b.start);
  });
  if (found.size() > limit)
    found.resize(limit);
  return found;
}

