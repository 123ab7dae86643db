// Finding repeats in straight-line code (see RepeatSearch.h).
#include "compiler/Lowering/RepeatSearch.h"

#include "compiler/IR/LoomOps.h"

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

bool mlir::loom::isCheap(Operation *op) {
  return isa<BroadcastInDimOp, ReshapeOp, SliceOp, NegOp, ShardingConstraintOp>(op);
}

bool mlir::loom::sameChain(Value a, Value b, const llvm::DenseSet<Operation *> &constants) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || !constants.contains(x) || !constants.contains(y) || !sameShape(x, y) ||
      cast<OpResult>(a).getResultNumber() != cast<OpResult>(b).getResultNumber())
    return false;
  for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameChain(p, q, constants))
      return false;
  return true;
}

// For each period, each maximal run in which an op equals the op one period later. The periods
// tried are the distances from ops to the last few equal ops before them (in a run of period
// P, an op that occurs at most that many times per copy recurs P later), so a search costs
// the ops times the distinct distances, not the ops squared.
//
// Only runs of at least P matches make two copies, and every such run holds a multiple of P:
// each period probes those positions alone and grows a run from a match, so a period costs
// n / P probes plus the runs it finds, not n.
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
    auto matches = [&](size_t i) { return hashes[i] == hashes[i + period]; };
    for (size_t probe = 0; probe + period < n;) {
      if (!matches(probe)) {
        probe += period;
        continue;
      }
      // The maximal run [begin, end) of matches through the probe; `end` does not match.
      size_t begin = probe, end = probe + 1;
      while (begin > 0 && matches(begin - 1))
        --begin;
      while (end + period < n && matches(end))
        ++end;
      size_t run = end - begin;
      if (run >= period)
        found.push_back({begin, period, (run + period) / period, (run + period) % period});
      probe = (end / period + 1) * period; // the first multiple of the period past the run
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

std::vector<size_t> mlir::loom::startsByBoundary(ArrayRef<Operation *> ops, const Repeat &repeat,
                                                 const llvm::DenseSet<Operation *> &constants) {
  llvm::DenseMap<Operation *, size_t> index;
  for (auto [i, op] : llvm::enumerate(ops))
    index[op] = i;
  auto elements = [](Value v) -> size_t {
    auto shaped = dyn_cast<ShapedType>(v.getType());
    return shaped && shaped.hasStaticShape() ? size_t(shaped.getNumElements()) : 1;
  };
  // The elements copy 0 reads from before it and leaves to the ops after it.
  auto boundary = [&](size_t start) {
    size_t end = start + repeat.period, total = 0;
    llvm::DenseSet<Value> counted;
    for (size_t i = start; i < end; ++i) {
      for (Value operand : ops[i]->getOperands()) {
        Operation *def = operand.getDefiningOp();
        auto found = def ? index.find(def) : index.end();
        bool before = !def || (found != index.end() && found->second < start);
        if (before && !(def && constants.contains(def)) && counted.insert(operand).second)
          total += elements(operand);
      }
      for (Value result : ops[i]->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              while (user && !index.count(user))
                user = user->getParentOp();
              return user && index.lookup(user) >= end;
            }))
          total += elements(result);
    }
    return total;
  };
  std::vector<std::pair<size_t, size_t>> costs; // (elements, start)
  for (size_t s = 0; s <= repeat.slack; ++s)
    costs.push_back({boundary(repeat.start + s), repeat.start + s});
  llvm::stable_sort(costs, [](auto a, auto b) { return a.first < b.first; });
  std::vector<size_t> starts;
  for (auto [cost, start] : costs)
    starts.push_back(start);
  return starts;
}
