// The per-op decision of loom-propagate-sharding: which mesh axes split each factor of an op's
// rule. The choice is made for all factors together (an axis splits one factor at most), among
// the axes the op's tensors propose and their major parts (any part where the op's tensors are
// all decided), and costed with the partitioner's own reshard plans: the operands' reshards,
// the combining of a partial result, and the reshard of each result to what its users already
// want. So a contracted split pays for the all_reduce it makes necessary, and an op runs at one
// end's sharding or the other, never at a compromise that gathers both.
#include "passes/Sharding/BoxExchange.h"
#include "passes/Sharding/Propagation.h"
#include "passes/Sharding/Rebroadcast.h"
#include "passes/Sharding/ReshardPlan.h"
#include "passes/Sharding/ReshardSearch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::loom;

namespace {
constexpr int64_t kUnreachable = kUnreachableReshard;
/// The cost model is alpha-beta plus compute, in bytes: a collective costs its start-up
/// latency (kCollectiveLatencyBytes, ReshardPlan.h) plus the bytes it moves; a contraction
/// costs its local flops at a conservative machine balance (CPUs do 10-50 flops per byte of
/// interconnect, GPUs hundreds). So small programs use fewer collectives and no plan saves
/// bytes by doing the same matmul on every device.
constexpr int64_t kFlopsPerByte = 16;
/// Joint choices an op may weigh; beyond it, the least proposed candidates are dropped.
constexpr int64_t kMaxChoices = 4096;

bool holdsFactor(ArrayRef<SmallVector<int>> dims, int f) {
  return llvm::any_of(dims, [&](const SmallVector<int> &fs) { return llvm::is_contained(fs, f); });
}

} // namespace

int64_t Propagation::planCost(Value v, const TensorSharding &from, const TensorSharding &to) {
  auto cached = [&](RankedTensorType type, const TensorSharding &a, const TensorSharding &b) {
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(type.getAsOpaquePointer()));
    key += a.toString() + "|" + b.toString();
    auto [it, inserted] = planCosts.try_emplace(key, 0);
    if (inserted)
      it->second = reshardTime(type, a, b, mesh);
    return it->second;
  };
  int64_t direct = cached(cast<RankedTensorType>(v.getType()), from, to);
  // As loom-partition moves a broadcast's result: through its operand where that is cheaper.
  if (auto broadcast = v.getDefiningOp<BroadcastInDimOp>()) {
    auto operandType = cast<RankedTensorType>(broadcast.getOperand().getType());
    if (auto route = rebroadcastShardings(broadcast, operandType.getShape(), from, to))
      direct = std::min(direct, cached(operandType, route->first, route->second));
  }
  return direct;
}

ValueState &Propagation::state(Value v) {
  auto [it, inserted] = states.try_emplace(v);
  if (inserted) {
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    it->second.sharding = TensorSharding::replicated(rank);
    it->second.closed.assign(rank, false);
  }
  return it->second;
}

bool Propagation::isClosed(Value t, ArrayRef<SmallVector<int>> dims, int f) {
  for (auto [d, factors] : llvm::enumerate(dims))
    if (llvm::is_contained(factors, f))
      return state(t).closed[d];
  return false;
}

TensorSharding Propagation::targetOf(Value v, const TensorSharding &produced) {
  const ValueState &s = state(v);
  if (s.fixed)
    return s.sharding;
  TensorSharding target = s.sharding;
  target.partial.clear();
  for (auto [d, axes] : llvm::enumerate(target.dims))
    if (axes.empty() && !s.closed[d] &&
        llvm::none_of(produced.dims[d], [&](StringRef a) { return target.uses(a); }))
      axes = produced.dims[d];
  // A partial value its one user lets through stays pending.
  if (produced.partial.empty() || v.use_empty())
    return target;
  Operation *user = *v.getUsers().begin();
  if (llvm::any_of(v.getUsers(), [&](Operation *u) { return u != user; }))
    return target;
  const ShardingRule *rule = ruleOf(user);
  if (!rule)
    return target;
  unsigned index = v.getUses().begin()->getOperandNumber();
  if (!rule->passesPartial(index, produced.combiner))
    return target;
  for (StringRef a : produced.partial)
    if (!target.uses(a))
      target.partial.push_back(a);
  target.combiner = produced.combiner;
  return target;
}

int64_t Propagation::costOf(Operation *op, const ShardingRule &rule, ArrayRef<Axes> chosen) {
  SmallVector<Axes> factors = consistentFactors(rule, SmallVector<Axes>(chosen), mesh);
  PassedPartial passed = passedPartial(
      op, rule, factors, [&](Value v) -> const TensorSharding & { return state(v).sharding; });
  int64_t total = 0;
  if (isa<DotGeneralOp>(op)) {
    int64_t flops = 2;
    for (auto [f, size] : llvm::enumerate(rule.factorSizes))
      flops *= size / groupSize(mesh, factors[f]);
    total += flops / kFlopsPerByte;
  }
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    const TensorSharding &have = state(operand).sharding;
    TensorSharding wanted = operandSharding(rule, i, factors, passed, have, mesh);
    total = std::min(total + planCost(operand, have, wanted), kUnreachable);
  }
  for (auto [j, result] : llvm::enumerate(op->getResults())) {
    TensorSharding produced = resultSharding(rule, j, factors, passed, mesh);
    TensorSharding target = targetOf(result, produced);
    int64_t cost = planCost(result, produced, target);
    // The partitioner combines a partial value once for all its users but reshards anything
    // else at each use (so a gathered copy never stays alive between uses): each use pays.
    bool combines = llvm::any_of(produced.partial, [&](StringRef a) {
      return !llvm::is_contained(target.partial, a);
    });
    int64_t uses = std::max<int64_t>(1, std::distance(result.use_begin(), result.use_end()));
    if (!combines && cost < kUnreachable)
      cost = std::min(cost * uses, kUnreachable);
    // A gather from rows split over the devices leaves a partial sum that a later op must
    // combine: weighed here against gathering the table, or a small table's lookup would
    // trade its gather for a bigger combine of the rows looked up. Likewise a scatter_add of
    // updates split over the devices leaves a partial table (a lookup's gradient): passed on
    // through a scaling, it would be combined whole later, where gathering the updates here
    // moves fewer bytes.
    if (isa<GatherOp, ScatterAddOp>(op) && !combines && !produced.partial.empty()) {
      TensorSharding whole = produced;
      whole.partial.clear();
      cost = std::min(cost + planCost(result, produced, whole), kUnreachable);
    }
    total = std::min(total + cost, kUnreachable);
  }
  return total;
}

bool Propagation::visit(Operation *op, const ShardingRule &rule) {
  size_t numOperands = op->getNumOperands();
  SmallVector<Value> tensors(op->getOperands());
  tensors.append(op->getResults().begin(), op->getResults().end());
  SmallVector<ArrayRef<SmallVector<int>>> dims;
  for (const auto &d : rule.operands)
    dims.push_back(d);
  for (const auto &d : rule.results)
    dims.push_back(d);
  size_t numFactors = rule.factorSizes.size();

  // Per factor, not splitting it, then the axes the op's tensors propose, largest tensor first.
  SmallVector<SmallVector<Axes>> candidates(numFactors, SmallVector<Axes>{Axes()});
  SmallVector<bool> unsplitProposed(numFactors, false);
  SmallVector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order, [&](size_t a, size_t b) {
    auto bytes = [&](size_t t) {
      return localBytes(cast<RankedTensorType>(tensors[t].getType()), state(tensors[t]).sharding,
                        mesh);
    };
    return bytes(a) > bytes(b);
  });
  for (size_t f = 0; f < numFactors; ++f) {
    if (rule.blocked[f])
      continue;
    for (size_t t : order) {
      if (!holdsFactor(dims[t], f))
        continue;
      Axes axes = factorAxes(rule, dims[t], state(tensors[t]).sharding, mesh)[f];
      // A decided dim without axes that a result (a consumer's need) proposes: the operands
      // are decided unsplit too when the factor stays unsplit.
      if (axes.empty() && isClosed(tensors[t], dims[t], f) && t >= numOperands)
        unsplitProposed[f] = true;
      // The axes proposed, and their major parts: a result wanted split over [a, b] can
      // come from one split over [a] whose pending sum over b is reduce_scattered onto it.
      for (size_t n = axes.size(); n > 0; --n) {
        Axes major(axes.begin(), axes.begin() + n);
        if (!llvm::is_contained(candidates[f], major))
          candidates[f].push_back(major);
      }
    }
  }
  // A factor's axes are proposed to the factors merged above it in some tensor's dim too: a
  // merged dim shows a minor factor's split only under fully split major ones, so a reshape
  // of [B, T, C] split on T to [B * T, C] may move the split to B (one all_to_all) rather
  // than gather T.
  for (ArrayRef<SmallVector<int>> tensorDims : dims)
    for (const SmallVector<int> &merged : tensorDims)
      for (size_t minor = 1; minor < merged.size(); ++minor)
        for (const Axes &axes : SmallVector<Axes>(candidates[merged[minor]]))
          for (size_t major = 0; major < minor && !axes.empty(); ++major)
            if (!rule.blocked[merged[major]] &&
                rule.factorSizes[merged[major]] % groupSize(mesh, axes) == 0 &&
                !llvm::is_contained(candidates[merged[major]], axes))
              candidates[merged[major]].push_back(axes);
  // Where every tensor of the op is decided (its choice then splits no other value), also the
  // proposed axes' other contiguous parts, weighed last: a product contracting over [a, b]
  // whose result is wanted split over [a, b] can run split over [a] on its result and [b] on
  // its contraction, its sum over b reduce_scattered onto [a, b], moving less than a
  // reduce_scatter of the whole product. (Tried for open values too, they let one op take a
  // local saving that its neighbours then paid for several times over.)
  bool allDecided = llvm::all_of(tensors, [&](Value v) {
    return state(v).fixed || llvm::all_of(state(v).closed, [](bool c) { return c; });
  });
  for (size_t f = 0; f < numFactors && allDecided; ++f) {
    SmallVector<Axes> proposed(candidates[f]);
    for (const Axes &axes : proposed)
      for (size_t first = 1; first < axes.size(); ++first)
        for (size_t last = first + 1; last <= axes.size(); ++last) {
          Axes part(axes.begin() + first, axes.begin() + last);
          if (!llvm::is_contained(candidates[f], part))
            candidates[f].push_back(part);
        }
  }
  auto choices = [&] {
    int64_t n = 1;
    for (const auto &c : candidates)
      n = std::min<int64_t>(n * static_cast<int64_t>(c.size()), kMaxChoices + 1);
    return n;
  };
  while (choices() > kMaxChoices) {
    auto longest = llvm::max_element(candidates, [](const auto &a, const auto &b) {
      return a.size() < b.size();
    });
    longest->pop_back();
  }

  // Every joint choice that uses an axis once: fewest bytes, then the most devices sharing the
  // work, then a key that names factors by size, never by the order of operands.
  SmallVector<Axes> best(numFactors), choice(numFactors);
  int64_t bestCost = kUnreachable + 1, bestWork = 0;
  std::string bestKey;
  llvm::StringSet<> used;
  std::function<void(size_t)> search = [&](size_t f) {
    if (f == numFactors) {
      int64_t cost = costOf(op, rule, choice), work = 1;
      for (const Axes &axes : choice)
        work *= groupSize(mesh, axes);
      if (cost > bestCost || (cost == bestCost && work < bestWork))
        return;
      // Results split on their major dims first, then factors by size and axes.
      std::string key;
      for (size_t j = 0; j < rule.results.size(); ++j)
        for (const Axes &axes : dimsFromFactors(rule, rule.results[j], choice, mesh))
          key += (axes.empty() ? "~" : llvm::join(axes, ",")) + "|";
      SmallVector<std::string> parts;
      for (size_t g = 0; g < numFactors; ++g)
        parts.push_back(std::to_string(rule.factorSizes[g]) + ":" + llvm::join(choice[g], ","));
      llvm::sort(parts);
      key += llvm::join(parts, ";");
      if (cost == bestCost && work == bestWork && key >= bestKey)
        return;
      best = choice, bestCost = cost, bestWork = work, bestKey = key;
      return;
    }
    for (const Axes &axes : candidates[f]) {
      if (llvm::any_of(axes, [&](StringRef a) { return used.contains(a); }))
        continue;
      for (StringRef a : axes)
        used.insert(a);
      choice[f] = axes;
      search(f + 1);
      for (StringRef a : axes)
        used.erase(a);
    }
  };
  search(0);
  decisions[op] = best;

  // Open values take the chosen factors on dims they do not split yet.
  SmallVector<Axes> factors = consistentFactors(rule, best, mesh);
  PassedPartial passed = passedPartial(
      op, rule, factors, [&](Value v) -> const TensorSharding & { return state(v).sharding; });
  bool changed = false;
  for (auto [t, value] : llvm::enumerate(tensors)) {
    ValueState &s = state(value);
    if (s.fixed)
      continue;
    bool isResult = t >= numOperands;
    SmallVector<Axes> wanted = dimsFromFactors(rule, dims[t], factors, mesh);
    TensorSharding next = s.sharding;
    if (isResult) {
      TensorSharding produced = resultSharding(rule, t - numOperands, factors, passed, mesh);
      for (StringRef a : produced.partial)
        if (!llvm::is_contained(next.partial, a) && !next.uses(a)) {
          next.partial.push_back(a);
          next.combiner = produced.combiner;
        }
    }
    SmallVector<bool> closed = s.closed;
    for (auto [d, axes] : llvm::enumerate(wanted)) {
      if (closed[d])
        continue;
      if (next.dims[d].empty() && !axes.empty() &&
          llvm::none_of(axes, [&](StringRef a) { return next.uses(a); }))
        next.dims[d] = axes;
      // A dim left unsplit because a decided value wants it so is decided too.
      if (!isResult && next.dims[d].empty() && dims[t][d].size() == 1 &&
          best[dims[t][d][0]].empty() && unsplitProposed[dims[t][d][0]])
        closed[d] = true;
    }
    if (next == s.sharding && closed == s.closed)
      continue;
    s.sharding = next;
    s.closed = closed;
    // Each step that refined the sharding is named, in order.
    std::string step = (isResult ? "result of " : "operand of ") +
                       op->getName().getStringRef().str() + " at " +
                       describeLocation(op->getLoc());
    s.origin = s.origin.empty() ? step : s.origin + ", then " + step;
    changed = true;
  }
  return changed;
}

std::string Propagation::explainOp(Operation *op) {
  if (isa<ShardingConstraintOp>(op))
    return "";
  const ShardingRule &rule = *ruleOf(op);
  SmallVector<Axes> factors = consistentFactors(rule, decisions[op], mesh);
  PassedPartial passed = passedPartial(
      op, rule, factors, [&](Value v) -> const TensorSharding & { return state(v).sharding; });
  std::string split;
  for (auto [f, axes] : llvm::enumerate(factors))
    if (!axes.empty())
      split += std::string(split.empty() ? "" : ", ") +
               (f < 26 ? std::string(1, static_cast<char>('a' + f)) : "f" + std::to_string(f)) +
               " over [" + llvm::join(axes, ", ") + "]";
  if (split.empty())
    return "";
  std::string text = "runs as " + rule.toString() + " with " + split;
  for (auto [j, result] : llvm::enumerate(op->getResults())) {
    TensorSharding produced = resultSharding(rule, j, factors, passed, mesh);
    if (!produced.partial.empty())
      text += "; result " + std::to_string(j) + " is computed " + produced.toString() +
              ", combined where it is used";
  }
  return text;
}
