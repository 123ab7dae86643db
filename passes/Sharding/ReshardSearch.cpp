// Reshard searches (see ReshardSearch.h).
#include "passes/Sharding/ReshardSearch.h"

#include "passes/Sharding/MeshAxes.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

using namespace mlir;
using namespace mlir::loom;

namespace {
/// A sharding's dims as the indices of their axes in the mesh, major first: small and cheap
/// to copy, compare and hash (the search weighs thousands).
using Code = SmallVector<SmallVector<int8_t, 4>, 4>;

Code codeOf(const MeshAxes &mesh, ArrayRef<Axes> dims) {
  Code code;
  for (const Axes &dimAxes : dims)
    code.push_back(llvm::map_to_vector<4>(
        dimAxes, [&](StringRef a) { return static_cast<int8_t>(mesh.index(a)); }));
  return code;
}

/// The piece a device holds under `code`, as one number (dims major first), from its
/// coordinates on the mesh's axes.
int64_t pieceOf(const MeshAxes &mesh, const Code &code, ArrayRef<int64_t> coords) {
  int64_t index = 0;
  for (const auto &dimAxes : code)
    for (int8_t x : dimAxes)
      index = index * mesh.sizes[x] + coords[x];
  return index;
}

/// permuteStep, with the mesh's axes looked up once and `bytes` the shard's.
std::optional<ReshardStep> permuteWith(const MeshAxes &mesh, int64_t bytes,
                                       const TensorSharding &from, const TensorSharding &to) {
  if (from == to || from.partial != to.partial)
    return std::nullopt;
  for (size_t d = 0; d < from.dims.size(); ++d)
    if (mesh.group(from.dims[d]) != mesh.group(to.dims[d]))
      return std::nullopt;
  SmallVector<int> groupAxes = mesh.splitting(from, to);
  Axes axes = llvm::map_to_vector(groupAxes, [&](int i) { return mesh.names[i]; });
  for (StringRef axis : axes)
    if (llvm::is_contained(from.partial, axis))
      return std::nullopt;
  const Code fromCode = codeOf(mesh, from.dims), toCode = codeOf(mesh, to.dims);
  int64_t n = mesh.group(axes);
  ReshardStep step{ReshardStep::Kind::Permute, 0, 0, axes, from.combiner, 0, to};
  std::vector<SmallVector<int64_t>> holders(n), needers(n);
  SmallVector<int64_t> coords(mesh.names.size(), 0);
  for (int64_t position = 0; position < n; ++position) {
    mesh.place(position, ArrayRef(groupAxes), coords);
    holders[pieceOf(mesh, fromCode, coords)].push_back(position);
    needers[pieceOf(mesh, toCode, coords)].push_back(position);
  }
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
      step.bytes = bytes;
  }
  return step;
}
} // namespace

std::optional<ReshardStep> mlir::loom::permuteStep(RankedTensorType global,
                                                   const TensorSharding &from,
                                                   const TensorSharding &to, MeshOp mesh) {
  return permuteWith(MeshAxes(mesh), localBytes(global, from, mesh), from, to);
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
/// Where the search stops (and the greedy plan stands): more shardings than two dims and
/// three axes give.
constexpr size_t kMaxStates = 512;

std::string keyOf(const Code &code) {
  std::string key;
  for (const auto &axes : code) {
    key.append(axes.begin(), axes.end());
    key += static_cast<char>(-1);
  }
  return key;
}

int64_t groupOf(const MeshAxes &mesh, ArrayRef<int8_t> axes) {
  int64_t n = 1;
  for (int8_t a : axes)
    n *= mesh.sizes[a];
  return n;
}

/// The cost of a permute from `a` to `b`, or nullopt where a dim has a different number of
/// pieces: every device whose piece changes sends its shard of `bytes`.
std::optional<ReshardCost> permuteCost(const MeshAxes &mesh, const Code &a, const Code &b,
                                       int64_t bytes) {
  if (a == b)
    return std::nullopt;
  SmallVector<int8_t> axes;
  for (size_t i = 0; i < a.size(); ++i) {
    if (groupOf(mesh, a[i]) != groupOf(mesh, b[i]))
      return std::nullopt;
    for (int8_t x : a[i])
      axes.push_back(x);
    for (int8_t x : b[i])
      if (!llvm::is_contained(axes, x))
        axes.push_back(x);
  }
  int64_t n = groupOf(mesh, axes), moving = 0;
  SmallVector<int64_t> coords(mesh.names.size(), 0);
  for (int64_t position = 0; position < n; ++position) {
    mesh.place(position, ArrayRef(axes), coords);
    moving += pieceOf(mesh, a, coords) != pieceOf(mesh, b, coords);
  }
  return ReshardCost{bytes, bytes * moving / n, 1};
}

/// One edge of the search: what it does.
struct Move {
  ReshardStep::Kind kind;
  size_t dim = 0, fromDim = 0; ///< positions in the changing dims
  int8_t axis = 0;             ///< a slice's
  size_t count = 0;            ///< axes a gather or an all_to_all moves (the dim's minor ones)
  /// An all_to_all's: the moved axes in the order the target dim takes them, the free axes
  /// it slices from that dim first (minor under them), and where the moved axes are not the
  /// source dim's minor ones, the rest of that dim's axes, gathered after it.
  SmallVector<int8_t, 4> order, sliced, rest;
};
} // namespace

std::optional<std::vector<ReshardStep>>
mlir::loom::cheapestReshard(RankedTensorType global, const TensorSharding &from,
                            const TensorSharding &to, MeshOp mesh) {
  using K = ReshardStep::Kind;
  const MeshAxes axesOf(mesh);
  // The dims the two shardings split differently; the others stay as they are.
  SmallVector<size_t> active;
  for (size_t d = 0; d < from.dims.size(); ++d)
    if (from.dims[d] != to.dims[d])
      active.push_back(d);
  // The search's states: the changing dims' codes.
  auto activeCode = [&](const TensorSharding &s) {
    SmallVector<Axes> dims;
    for (size_t d : active)
      dims.push_back(s.dims[d]);
    return codeOf(axesOf, dims);
  };
  auto shardingOf = [&](const Code &code) {
    TensorSharding s = to;
    for (auto [i, d] : llvm::enumerate(active))
      s.dims[d] = llvm::map_to_vector<4>(code[i], [&](int8_t a) { return axesOf.names[a]; });
    return s;
  };
  auto group = [&](ArrayRef<int8_t> axes) { return groupOf(axesOf, axes); };
  // Axes a slice may not take: those of the other dims and the pending ones.
  SmallVector<bool> taken(axesOf.names.size(), false);
  for (size_t d = 0; d < from.dims.size(); ++d)
    if (!llvm::is_contained(active, d))
      for (StringRef a : from.dims[d])
        taken[axesOf.index(a)] = true;
  for (StringRef a : from.partial)
    taken[axesOf.index(a)] = true;
  int64_t fixedBytes = localBytes(global, TensorSharding::replicated(global.getRank()), mesh);
  for (size_t d = 0; d < from.dims.size(); ++d)
    if (!llvm::is_contained(active, d))
      fixedBytes /= axesOf.group(from.dims[d]);
  const Code start = activeCode(from), goal = activeCode(to);

  struct Node {
    ReshardCost cost;
    Code code;
    std::string parent;
    std::optional<Move> move; ///< none for the start
  };
  std::unordered_map<std::string, Node> best;
  using Entry = std::pair<ReshardCost, std::string>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> frontier;
  const std::string startKey = keyOf(start), goalKey = keyOf(goal);
  best[startKey] = Node{{}, start, "", std::nullopt};
  frontier.push({{}, startKey});
  std::unordered_set<std::string> done;
  while (!frontier.empty()) {
    auto [cost, key] = frontier.top();
    frontier.pop();
    if (!done.insert(key).second)
      continue;
    if (key == goalKey)
      break;
    if (done.size() > kMaxStates)
      return std::nullopt;
    const Code cur = best[key].code;
    int64_t bytes = fixedBytes;
    for (const auto &dimAxes : cur)
      bytes /= group(dimAxes);
    auto localDim = [&](size_t i) { return global.getDimSize(active[i]) / group(cur[i]); };
    auto used = [&](int8_t x) {
      return taken[x] || llvm::any_of(cur, [&](const auto &axes) {
               return llvm::is_contained(axes, x);
             });
    };
    auto reach = [&](Code next, ReshardCost edge, Move move) {
      ReshardCost total = cost + edge;
      std::string nextKey = keyOf(next);
      auto it = best.find(nextKey);
      if (it != best.end() && !(total < it->second.cost))
        return;
      best[nextKey] = Node{total, std::move(next), key, move};
      frontier.push({total, std::move(nextKey)});
    };
    if (auto edge = permuteCost(axesOf, cur, goal, bytes))
      reach(goal, *edge, Move{K::Permute});
    // All_to_alls of `moved` (axes of dim i) to each other dim that wants them, in any order
    // there (the received blocks are reordered locally), and, continuing the target's split
    // of that dim, with the target's free axes among or after them sliced first: each device
    // sends only what its peer keeps. `rest`: dim i's other axes, gathered after; `after`:
    // the state without the moved (and gathered) axes on dim i.
    auto allToAlls = [&](size_t i, ArrayRef<int8_t> moved, ArrayRef<int8_t> rest,
                         const Code &after) {
      int64_t n = group(moved), gather = bytes * (group(rest) - 1);
      int collectives = rest.empty() ? 1 : 2;
      for (size_t j = 0; j < cur.size(); ++j) {
        auto wantedThere = [&](int8_t x) { return llvm::is_contained(goal[j], x); };
        if (j == i || localDim(j) % n != 0 || !llvm::all_of(moved, wantedThere))
          continue;
        SmallVector<int8_t, 4> order(moved);
        llvm::sort(order);
        do {
          Code next = after;
          next[j].append(order.begin(), order.end());
          int64_t sent = bytes * (n - 1) / n + gather;
          reach(std::move(next), {sent, sent, collectives},
                Move{K::AllToAll, j, i, 0, moved.size(), order, {}, SmallVector<int8_t, 4>(rest)});
        } while (std::next_permutation(order.begin(), order.end()));
        // The target's next axes on dim j, the moved ones and free ones, these sliced first.
        if (cur[j].size() > goal[j].size() ||
            !std::equal(cur[j].begin(), cur[j].end(), goal[j].begin()))
          continue;
        Move move{K::AllToAll, j, i, 0, moved.size(), {}, {}, SmallVector<int8_t, 4>(rest)};
        Code next = after;
        for (size_t q = cur[j].size(); q < goal[j].size(); ++q) {
          int8_t x = goal[j][q];
          bool isMoved = llvm::is_contained(moved, x);
          if (!isMoved && used(x))
            break;
          (isMoved ? move.order : move.sliced).push_back(x);
          next[j].push_back(x);
          int64_t f = group(move.sliced);
          if (localDim(j) % (n * f) != 0)
            break;
          if (move.order.size() < moved.size() || move.sliced.empty())
            continue;
          int64_t slicedSent = bytes / f * (n - 1) / n + gather / f;
          reach(next, {slicedSent, slicedSent, collectives}, move);
        }
      }
    };
    for (size_t i = 0; i < cur.size(); ++i) {
      // The dim's axes in another order (as many pieces, held by other devices), so that
      // the axis to gather or move next is the minor one.
      SmallVector<int8_t, 4> order = cur[i];
      llvm::sort(order);
      do {
        Code next = cur;
        next[i] = order;
        if (auto edge = permuteCost(axesOf, cur, next, bytes))
          reach(std::move(next), *edge, Move{K::Permute});
      } while (std::next_permutation(order.begin(), order.end()));
      // A free slice over an axis the target wants on this dim and no dim splits yet.
      for (int8_t x : goal[i]) {
        if (used(x) || localDim(i) % axesOf.sizes[x] != 0)
          continue;
        Code next = cur;
        next[i].push_back(x);
        reach(std::move(next), {}, Move{K::Slice, i, 0, x});
      }
      // The dim's minor axes (one or more, one collective over them all) gathered, or moved
      // to the minor end of another dim: an all_to_all over 4 devices sends 3/4 of the
      // shard, two over 2 devices each one half of it.
      for (size_t k = 1; k <= cur[i].size(); ++k) {
        ArrayRef<int8_t> moved = ArrayRef(cur[i]).take_back(k);
        int64_t n = group(moved);
        Code gathered = cur;
        gathered[i].resize(cur[i].size() - k);
        reach(gathered, {bytes * (n - 1), bytes * (n - 1), 1}, Move{K::AllGather, i, 0, 0, k});
        allToAlls(i, moved, {}, gathered);
      }
      // Axes that are not the dim's minor ones moved by an all_to_all, and the rest of the
      // dim after its first `kept` axes gathered after it ([b, a] to [] with b going to
      // another dim, where gathering a first would send its rows to every b).
      for (size_t kept = 0; kept + 1 < cur[i].size(); ++kept) {
        ArrayRef<int8_t> tail = ArrayRef(cur[i]).drop_front(kept);
        for (unsigned mask = 1; mask + 1 < (1u << tail.size()); ++mask) {
          SmallVector<int8_t, 4> moved, rest;
          for (size_t q = 0; q < tail.size(); ++q)
            ((mask >> q) & 1 ? moved : rest).push_back(tail[q]);
          if (std::equal(moved.begin(), moved.end(), tail.end() - moved.size()))
            continue; // the minor ones: the moves above
          Code next = cur;
          next[i].resize(kept);
          allToAlls(i, moved, rest, next);
        }
      }
    }
  }
  if (!done.count(goalKey))
    return std::nullopt;
  // The path back from the goal, each move made a step of the partitioner's.
  std::vector<ReshardStep> steps;
  for (std::string key = goalKey; best[key].move; key = best[key].parent) {
    const Node &node = best[key];
    const Code &before = best[node.parent].code;
    TensorSharding prior = shardingOf(before), after = shardingOf(node.code);
    int64_t bytes = localBytes(global, prior, mesh);
    const Move &m = *node.move;
    auto minorAxes = [&] {
      return Axes(prior.dims[active[m.kind == K::AllToAll ? m.fromDim : m.dim]].end() - m.count,
                  prior.dims[active[m.kind == K::AllToAll ? m.fromDim : m.dim]].end());
    };
    ReshardStep step{m.kind, 0, 0, {}, from.combiner, 0, after};
    switch (m.kind) {
    case K::Permute:
      step = *permuteWith(axesOf, bytes, prior, after);
      break;
    case K::Slice:
      step.dim = active[m.dim], step.axes = {axesOf.names[m.axis]};
      break;
    case K::AllGather: {
      step.dim = active[m.dim], step.axes = minorAxes();
      step.bytes = bytes * (axesOf.group(step.axes) - 1);
      break;
    }
    case K::AllToAll: {
      auto names = [&](ArrayRef<int8_t> axes) {
        return llvm::map_to_vector(axes, [&](int8_t a) { return axesOf.names[a]; });
      };
      step.dim = active[m.dim], step.fromDim = active[m.fromDim], step.axes = names(m.order);
      step.presliced = names(m.sliced);
      int64_t n = axesOf.group(step.axes);
      step.bytes = bytes / axesOf.group(step.presliced) * (n - 1) / n;
      if (m.rest.empty()) {
        if (Axes moved = minorAxes(); moved != step.axes)
          step.arrivalOrder = step.axes, step.concatOrder = moved;
        break;
      }
      // Then the gather of the dim's other axes, its rows arriving in the order [rest,
      // moved] and put back in the order the dim split them. In between the dim's pieces
      // are not blocks (they hold every moved-axis block of their rest), but have the size
      // of the rest's: the all_to_all's `after` says only that.
      ReshardStep gather{K::AllGather, step.fromDim, 0, names(m.rest), from.combiner, 0, after};
      size_t kept = after.dims[step.fromDim].size(); // the dim's axes that stay
      step.after = after;
      step.after.dims[step.fromDim].append(gather.axes.begin(), gather.axes.end());
      gather.bytes = localBytes(global, step.after, mesh) * (axesOf.group(gather.axes) - 1);
      gather.arrivalOrder = gather.axes;
      gather.arrivalOrder.append(step.axes.begin(), step.axes.end());
      gather.concatOrder = Axes(ArrayRef(prior.dims[step.fromDim]).drop_front(kept));
      steps.push_back(std::move(gather));
      break;
    }
    default:
      return std::nullopt;
    }
    steps.push_back(std::move(step));
  }
  std::reverse(steps.begin(), steps.end());
  return steps;
}
