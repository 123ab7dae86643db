// Reshard plans (see ReshardPlan.h).
#include "passes/Sharding/ReshardPlan.h"
#include "passes/Sharding/ReshardBound.h"
#include "passes/Sharding/ReshardSearch.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::loom;

namespace {
bool isPrefix(ArrayRef<StringRef> prefix, ArrayRef<StringRef> of) {
  return prefix.size() <= of.size() && llvm::equal(prefix, of.take_front(prefix.size()));
}

/// Builds a plan step by step, tracking the sharding and its local bytes.
class Planner {
public:
  Planner(RankedTensorType global, TensorSharding from, MeshOp mesh)
      : global(global), cur(std::move(from)), mesh(mesh) {}

  int64_t bytes() { return localBytes(global, cur, mesh); }
  int64_t localDim(int64_t d) {
    return global.getDimSize(d) / groupSize(mesh, cur.dims[d]);
  }
  int64_t size(StringRef axis) { return *mesh.axisSize(axis); }

  /// Appends a step; a slice or reduce_scatter right after one of the same kind on the same
  /// dim joins it (one collective over both axes, major first, moves the same bytes).
  /// Steps that slice free axes first (`presliced`) join none.
  void push(ReshardStep::Kind kind, int64_t dim, Axes axes, int64_t sent, int64_t fromDim = 0,
            Axes presliced = {}) {
    using K = ReshardStep::Kind;
    if (!plan.steps.empty() && (kind == K::Slice || kind == K::ReduceScatter) &&
        presliced.empty()) {
      ReshardStep &last = plan.steps.back();
      if (last.kind == kind && last.dim == dim && last.presliced.empty()) {
        last.axes.append(axes.begin(), axes.end());
        last.bytes += sent;
        last.after = cur;
        return;
      }
    }
    ReshardStep step{kind, dim, fromDim, std::move(axes), cur.combiner, sent, cur};
    step.presliced = std::move(presliced);
    plan.steps.push_back(std::move(step));
  }

  RankedTensorType global;
  TensorSharding cur;
  MeshOp mesh;
  ReshardPlan plan;
};
} // namespace

std::string ReshardStep::toString() const {
  using K = ReshardStep::Kind;
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on the concatenation.
  std::string list = "[";
  list += llvm::join(axes, ", ");
  list += ']';
  std::string combine = combiner == ReduceKind::sum ? "" : stringifyReduceKind(combiner).str() + " ";
  std::string text;
  switch (kind) {
  case K::Slice:
    text = "slice dim " + std::to_string(dim) + " over " + list;
    break;
  case K::ReduceScatter:
    text = combine + "reduce_scatter over " + list + " onto dim " + std::to_string(dim);
    if (!presliced.empty())
      text += ", slicing [" + llvm::join(presliced, ", ") + "] first";
    break;
  case K::AllReduce:
    text = (combine.empty() ? "sum " : combine) + "all_reduce over " + list;
    break;
  case K::AllToAll:
    text = "all_to_all over " + list + " from dim " + std::to_string(fromDim) + " to dim " +
           std::to_string(dim);
    if (!presliced.empty())
      text += ", slicing [" + llvm::join(presliced, ", ") + "] first";
    break;
  case K::AllGather:
    text = "all_gather over " + list + " on dim " + std::to_string(dim);
    break;
  case K::Permute:
    text = "collective_permute over " + list;
    break;
  }
  if (!concatOrder.empty())
    text += ", its blocks put in [" + llvm::join(concatOrder, ", ") + "] order";
  return text + " (" + std::to_string(bytes) + " bytes)";
}

int64_t ReshardPlan::bytes() const {
  int64_t total = 0;
  for (const ReshardStep &step : steps)
    total += step.bytes;
  return total;
}

TensorSharding mlir::loom::withoutTrivialAxes(TensorSharding s, MeshOp mesh) {
  auto trivial = [&](StringRef a) { return *mesh.axisSize(a) == 1; };
  for (Axes &axes : s.dims)
    llvm::erase_if(axes, trivial);
  llvm::erase_if(s.partial, trivial);
  return s;
}

namespace {
bool divides(Planner &p, int64_t d, int64_t n, std::string &whyNot) {
  if (p.localDim(d) % n == 0)
    return true;
  whyNot = "dim " + std::to_string(d) + " of a " + std::to_string(p.global.getDimSize(d)) +
           "-element dim sharded " + p.cur.toString() + " does not divide by " +
           std::to_string(n) + " devices";
  return false;
}

/// Takes `p` to `to` by moving axes between dims, gathering and slicing, once no axis is
/// pending that `to` does not keep pending.
LogicalResult moveThenSlice(Planner &p, const TensorSharding &to, std::string &whyNot) {
  using K = ReshardStep::Kind;
  TensorSharding &cur = p.cur;
  // Axes a dim must lose, minor first: moved to a dim that wants them next (all_to_all),
  // otherwise gathered.
  for (size_t d = 0; d < cur.dims.size(); ++d) {
    while (!isPrefix(cur.dims[d], to.dims[d])) {
      StringRef a = cur.dims[d].back();
      int64_t n = p.size(a), before = p.bytes();
      std::optional<size_t> target;
      for (size_t d2 = 0; d2 < to.dims.size(); ++d2) {
        Axes extended = cur.dims[d2];
        extended.push_back(a);
        if (d2 != d && isPrefix(extended, to.dims[d2]) && p.localDim(d2) % n == 0)
          target = d2;
      }
      cur.dims[d].pop_back();
      if (target) {
        cur.dims[*target].push_back(a);
        p.push(K::AllToAll, *target, {a}, before * (n - 1) / n, d);
      } else {
        p.push(K::AllGather, d, {a}, before * (n - 1));
      }
    }
  }

  // Then axes a dim must gain: each device keeps its slice.
  for (size_t d = 0; d < cur.dims.size(); ++d) {
    if (cur.dims[d] == to.dims[d])
      continue;
    Axes missing(to.dims[d].begin() + cur.dims[d].size(), to.dims[d].end());
    if (!divides(p, d, groupSize(p.mesh, missing), whyNot))
      return failure();
    cur.dims[d] = to.dims[d];
    p.push(K::Slice, d, missing, 0);
  }
  if (cur != to) {
    whyNot = "internal error: resharding to " + to.toString() + " reached " + cur.toString();
    return failure();
  }
  return success();
}

} // namespace

FailureOr<ReshardPlan> mlir::loom::planReshard(RankedTensorType global, TensorSharding from,
                                               TensorSharding to, MeshOp mesh,
                                               std::string &whyNot) {
  using K = ReshardStep::Kind;
  from = withoutTrivialAxes(std::move(from), mesh);
  to = withoutTrivialAxes(std::move(to), mesh);
  for (StringRef a : to.partial)
    if (!llvm::is_contained(from.partial, a) || from.combiner != to.combiner) {
      whyNot = "cannot make a value sharded " + from.toString() + " partial over \"" + a.str() +
               "\"";
      return failure();
    }
  // Every step below divides dims by their axes: shardings whose pieces do not tile are no
  // plan's start or end.
  for (const TensorSharding *s : {&from, &to})
    for (auto [d, axes] : llvm::enumerate(s->dims))
      if (global.getDimSize(d) % groupSize(mesh, axes) != 0) {
        whyNot = "dim " + std::to_string(d) + " of " + std::to_string(global.getDimSize(d)) +
                 " elements does not divide over " + s->toString() + "'s " +
                 std::to_string(groupSize(mesh, axes)) + " devices";
        return failure();
      }
  Planner p(global, from, mesh);
  TensorSharding &cur = p.cur;
  auto resolving = [&](StringRef a) {
    return llvm::is_contained(cur.partial, a) && !llvm::is_contained(to.partial, a);
  };

  // 1. Free slices first, then reduce_scatters onto dims that want a pending axis next.
  while (true) {
    std::optional<std::pair<int64_t, StringRef>> slice, scatter;
    for (size_t d = 0; d < cur.dims.size(); ++d) {
      if (!isPrefix(cur.dims[d], to.dims[d]) || cur.dims[d].size() == to.dims[d].size())
        continue;
      StringRef a = to.dims[d][cur.dims[d].size()];
      if (!cur.uses(a) && !slice)
        slice = {d, a};
      else if (resolving(a) && !scatter)
        scatter = {d, a};
    }
    if (!slice && !scatter)
      break;
    auto [d, a] = slice ? *slice : *scatter;
    int64_t n = p.size(a);
    // A reduce_scatter first slices the free axes `to` splits the dim over right after it
    // (ReshardStep::presliced): [[a, b]] from a value pending over a scatters a b-th.
    Axes presliced;
    for (size_t k = cur.dims[d].size() + 1; scatter && !slice && k < to.dims[d].size(); ++k) {
      if (cur.uses(to.dims[d][k]))
        break;
      presliced.push_back(to.dims[d][k]);
    }
    int64_t sliced = groupSize(mesh, presliced);
    if (!divides(p, d, n * sliced, whyNot))
      return failure();
    int64_t before = p.bytes();
    cur.dims[d].push_back(a);
    if (slice) {
      p.push(K::Slice, d, {a}, 0);
    } else {
      cur.partial.erase(llvm::find(cur.partial, a));
      cur.dims[d].append(presliced.begin(), presliced.end());
      p.push(K::ReduceScatter, d, {a}, before / sliced * (n - 1) / n, 0, presliced);
    }
  }

  // 2. The remaining pending axes: one all_reduce.
  Axes reduceAll;
  for (StringRef a : cur.partial)
    if (resolving(a))
      reduceAll.push_back(a);
  if (!reduceAll.empty()) {
    int64_t n = groupSize(mesh, reduceAll), before = p.bytes();
    llvm::erase_if(cur.partial, [&](StringRef a) { return llvm::is_contained(reduceAll, a); });
    p.push(K::AllReduce, 0, reduceAll, 2 * before * (n - 1) / n);
  }

  // 3. What remains: moving and gathering axes, then slicing; or, where it costs less, the
  //    cheapest steps a search finds (ReshardSearch.h), which may slice first and end with a
  //    collective_permute.
  Planner moved = p;
  bool canMove = succeeded(moveThenSlice(moved, to, whyNot));
  ReshardCost movedCost = costOf(ArrayRef(moved.plan.steps).drop_front(p.plan.steps.size()));
  std::optional<std::vector<ReshardStep>> searched;
  if (!canMove || movedCost.busiest > leastBytes(global, cur, to, mesh))
    searched = cheapestReshard(global, cur, to, mesh);
  else if (std::optional<ReshardStep> permute = permuteStep(global, cur, to, mesh))
    searched = {{*permute}}; // no plan sends less, but a permute leaves some devices idle
  if (searched && (!canMove || costOf(*searched) < movedCost)) {
    for (ReshardStep &step : *searched) {
      p.cur = step.after;
      p.push(step.kind, step.dim, step.axes, step.bytes, step.fromDim);
      ReshardStep &pushed = p.plan.steps.back();
      if (step.kind == ReshardStep::Kind::Permute)
        pushed.pairs = std::move(step.pairs);
      pushed.presliced = step.presliced;
      pushed.arrivalOrder = step.arrivalOrder, pushed.concatOrder = step.concatOrder;
    }
    return p.plan;
  }
  if (!canMove)
    return failure();
  return moved.plan;
}
