// Reshard searches (see ReshardSearch.h).
#include "passes/Sharding/ReshardSearch.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>

using namespace mlir;
using namespace mlir::loom;

namespace {
/// The position of a device in the group of `axes` (major first) from its coordinates
/// (`coords[a]` for each axis a of the group).
int64_t positionIn(ArrayRef<StringRef> axes, const llvm::StringMap<int64_t> &coords,
                   MeshOp mesh) {
  int64_t position = 0;
  for (StringRef a : axes)
    position = position * *mesh.axisSize(a) + coords.lookup(a);
  return position;
}

} // namespace

std::optional<ReshardStep> mlir::loom::permuteStep(RankedTensorType global, const TensorSharding &from,
                                       const TensorSharding &to, MeshOp mesh) {
  if (from == to || from.partial != to.partial)
    return std::nullopt;
  for (size_t d = 0; d < from.dims.size(); ++d)
    if (groupSize(mesh, from.dims[d]) != groupSize(mesh, to.dims[d]))
      return std::nullopt;
  Axes axes;
  for (Attribute a : mesh.getAxes()) {
    StringRef axis = cast<StringAttr>(a).getValue();
    auto splits = [&](const Axes &dimAxes) { return llvm::is_contained(dimAxes, axis); };
    if (!llvm::any_of(from.dims, splits) && !llvm::any_of(to.dims, splits))
      continue;
    if (llvm::is_contained(from.partial, axis))
      return std::nullopt;
    axes.push_back(axis);
  }
  // Each device's piece under a sharding, as one number (dims major first).
  auto piece = [&](const TensorSharding &s, const llvm::StringMap<int64_t> &coords) {
    int64_t index = 0;
    for (const Axes &dimAxes : s.dims)
      index = index * groupSize(mesh, dimAxes) + positionIn(dimAxes, coords, mesh);
    return index;
  };
  int64_t n = groupSize(mesh, axes);
  std::vector<SmallVector<int64_t>> holders(n), needers(n);
  for (int64_t position = 0; position < n; ++position) {
    llvm::StringMap<int64_t> coords;
    for (int64_t rest = position, i = axes.size() - 1; i >= 0; --i) {
      int64_t size = *mesh.axisSize(axes[i]);
      coords[axes[i]] = rest % size, rest /= size;
    }
    holders[piece(from, coords)].push_back(position);
    needers[piece(to, coords)].push_back(position);
  }
  ReshardStep step{ReshardStep::Kind::Permute, 0, 0, axes, from.combiner, 0, to};
  for (int64_t i = 0; i < n; ++i) {
    // A device that holds the piece it needs keeps it; the others pair up in order.
    SmallVector<int64_t> senders, receivers;
    for (int64_t h : holders[i])
      if (llvm::is_contained(needers[i], h))
        step.pairs.insert(step.pairs.end(), {h, h});
      else
        senders.push_back(h);
    for (int64_t r : needers[i])
      if (!llvm::is_contained(holders[i], r))
        receivers.push_back(r);
    for (auto [s, r] : llvm::zip_equal(senders, receivers))
      step.pairs.insert(step.pairs.end(), {s, r});
    if (!senders.empty())
      step.bytes = localBytes(global, from, mesh);
  }
  return step;
}

ReshardCost mlir::loom::costOf(ArrayRef<ReshardStep> steps) {
  ReshardCost cost;
  for (const ReshardStep &step : steps) {
    if (step.kind == ReshardStep::Kind::Slice)
      continue;
    int64_t average = step.bytes;
    if (step.kind == ReshardStep::Kind::Permute) { // only the devices whose piece moves send
      int64_t moving = 0, n = static_cast<int64_t>(step.pairs.size() / 2);
      for (size_t i = 0; i + 1 < step.pairs.size(); i += 2)
        moving += step.pairs[i] != step.pairs[i + 1];
      average = n ? step.bytes * moving / n : 0;
    }
    cost = cost + ReshardCost{step.bytes, average, 1};
  }
  return cost;
}

namespace {
/// Where the search stops: far more shardings than two dims and three axes give.
constexpr size_t kMaxStates = 4096;

/// A sharding's dims as a key of the search's maps.
std::string keyOf(const TensorSharding &s) { return s.toString(); }
} // namespace

std::optional<std::vector<ReshardStep>>
mlir::loom::cheapestReshard(RankedTensorType global, const TensorSharding &from,
                            const TensorSharding &to, MeshOp mesh) {
  using K = ReshardStep::Kind;
  // The dims the two shardings split differently, and the axes the target splits them on.
  SmallVector<size_t> active;
  for (size_t d = 0; d < from.dims.size(); ++d)
    if (from.dims[d] != to.dims[d])
      active.push_back(d);
  Axes wanted;
  for (size_t d : active)
    wanted.append(to.dims[d].begin(), to.dims[d].end());

  struct Node {
    ReshardCost cost;
    TensorSharding sharding;
    std::string parent; ///< "" for the start
    std::optional<ReshardStep> step;
  };
  std::map<std::string, Node> best;
  using Entry = std::pair<ReshardCost, std::string>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> frontier;
  best[keyOf(from)] = Node{{}, from, "", std::nullopt};
  frontier.push({{}, keyOf(from)});
  std::set<std::string> done;
  const std::string goal = keyOf(to);
  while (!frontier.empty()) {
    auto [cost, key] = frontier.top();
    frontier.pop();
    if (!done.insert(key).second)
      continue;
    if (key == goal)
      break;
    if (done.size() > kMaxStates)
      return std::nullopt;
    const TensorSharding cur = best[key].sharding;
    int64_t bytes = localBytes(global, cur, mesh);
    auto localDim = [&](size_t d) {
      return global.getDimSize(d) / groupSize(mesh, cur.dims[d]);
    };
    auto reach = [&](TensorSharding next, ReshardStep step) {
      step.after = next;
      ReshardCost total = cost + costOf(step);
      std::string nextKey = keyOf(next);
      auto it = best.find(nextKey);
      if (it != best.end() && !(total < it->second.cost))
        return;
      best[nextKey] = Node{total, std::move(next), key, std::move(step)};
      frontier.push({total, nextKey});
    };
    auto stepOf = [&](K kind, size_t dim, Axes axes, int64_t sent, size_t fromDim = 0) {
      return ReshardStep{kind, int64_t(dim), int64_t(fromDim), std::move(axes), cur.combiner,
                         sent, cur};
    };
    if (std::optional<ReshardStep> permute = permuteStep(global, cur, to, mesh))
      reach(to, std::move(*permute));
    for (size_t d : active) {
      // The dim's axes in another order (as many pieces, held by other devices), so that
      // the axis to gather or move next is the minor one.
      Axes order = cur.dims[d];
      llvm::sort(order);
      do {
        TensorSharding next = cur;
        next.dims[d] = order;
        if (next != cur)
          if (std::optional<ReshardStep> permute = permuteStep(global, cur, next, mesh))
            reach(next, std::move(*permute));
      } while (std::next_permutation(order.begin(), order.end()));
      // A free slice over an axis the target wants and no dim splits yet.
      for (StringRef a : wanted) {
        int64_t n = *mesh.axisSize(a);
        if (cur.uses(a) || localDim(d) % n != 0)
          continue;
        TensorSharding next = cur;
        next.dims[d].push_back(a);
        reach(next, stepOf(K::Slice, d, {a}, 0));
      }
      // The dim's minor axes (one or more, one collective over them all) gathered, or moved
      // to the minor end of another dim: an all_to_all over 4 devices sends 3/4 of the
      // shard, two over 2 devices each one half of it.
      for (size_t k = 1; k <= cur.dims[d].size(); ++k) {
        Axes group(cur.dims[d].end() - k, cur.dims[d].end());
        int64_t n = groupSize(mesh, group);
        TensorSharding gathered = cur;
        gathered.dims[d].resize(cur.dims[d].size() - k);
        reach(gathered, stepOf(K::AllGather, d, group, bytes * (n - 1)));
        for (size_t d2 : active) {
          if (d2 == d || localDim(d2) % n != 0)
            continue;
          TensorSharding next = gathered;
          next.dims[d2].append(group.begin(), group.end());
          reach(next, stepOf(K::AllToAll, d2, group, bytes * (n - 1) / n, d));
        }
      }
    }
  }
  if (!done.count(goal))
    return std::nullopt;
  std::vector<ReshardStep> steps;
  for (std::string key = goal; best[key].step; key = best[key].parent)
    steps.push_back(*best[key].step);
  std::reverse(steps.begin(), steps.end());
  return steps;
}
