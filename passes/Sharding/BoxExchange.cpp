// Reshards as exchanges of boxes (see BoxExchange.h).
#include "passes/Sharding/BoxExchange.h"

#include "passes/Sharding/MeshAxes.h"
#include "passes/Sharding/ReshardBound.h"
#include "passes/Sharding/ReshardSearch.h"

#include <functional>
#include <map>
#include <set>
#include <vector>

using namespace mlir;
using namespace mlir::loom;

// A namespace of its own: the unity build joins anonymous namespaces across files.
namespace box_exchange {

/// Boxes of more than this many transfers in all are not planned (compile time).
constexpr size_t kMaxTransfers = 1 << 14;

int64_t elementBytes(Type type) { return (type.getIntOrFloatBitWidth() + 7) / 8; }

/// Whether each device of the move sends its box to itself: no permute (where some devices
/// do not, the others keep zeros, by a select on the device's index).
bool selfOnly(const BoxExchange::Move &move) {
  for (size_t k = 0; k < move.pairs.size(); k += 2)
    if (move.pairs[k] != move.pairs[k + 1])
      return false;
  return true;
}

/// Whether every device of the group sends its own box to itself: a local slice.
bool allLocal(const BoxExchange::Move &move, int64_t devices) {
  return selfOnly(move) && static_cast<int64_t>(move.pairs.size()) == 2 * devices;
}

/// `part` on the devices at the move's positions in the group of `axes`, zeros on the others:
/// what permutes of each of them to itself would leave, without a collective.
Value keepOnSenders(OpBuilder &b, Location loc, Value part, const BoxExchange::Move &move,
                    FlatSymbolRefAttr mesh, ArrayAttr axes) {
  auto type = cast<RankedTensorType>(part.getType());
  auto index = RankedTensorType::get({}, b.getI32Type());
  Value here = AxisIndexOp::create(b, loc, index, mesh, axes), keep;
  for (size_t k = 0; k < move.pairs.size(); k += 2) {
    Value position = ConstantOp::create(
        b, loc, DenseElementsAttr::get(index, b.getI32IntegerAttr(move.pairs[k])));
    Value is = CompareOp::create(b, loc, ComparisonDirection::eq, here, position);
    keep = keep ? OrOp::create(b, loc, is.getType(), keep, is).getResult() : is;
  }
  Value mask = BroadcastInDimOp::create(b, loc, type.clone(b.getI1Type()), keep,
                                        b.getDenseI64ArrayAttr({}));
  Value zeros = ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  return SelectOp::create(b, loc, type, mask, part, zeros);
}

} // namespace box_exchange

using namespace box_exchange;

int64_t BoxExchange::time() const {
  int64_t collectives = 0;
  for (const Move &m : moves)
    collectives += selfOnly(m) ? 0 : 1;
  return ReshardCost{busiest, 0, collectives}.time();
}

namespace box_exchange {
std::optional<BoxExchange> planBoxExchange(RankedTensorType global, const TensorSharding &from,
                                           const TensorSharding &to, MeshOp mesh) {
  Type elem = global.getElementType();
  if (!from.partial.empty() || !to.partial.empty() || !elem.isIntOrFloat() ||
      elem.isInteger(1) || global.getNumElements() == 0)
    return std::nullopt;
  MeshAxes axes(mesh);
  const SmallVector<int> group = axes.splitting(from, to);
  int64_t devices = 1;
  for (int i : group)
    devices *= axes.sizes[i];
  const int64_t rank = global.getRank();
  if (group.empty() || devices > 256)
    return std::nullopt;
  ArrayRef<int64_t> shape = global.getShape();
  auto pieceSize = [&](const TensorSharding &s, int64_t d) {
    return shape[d] / groupSize(mesh, s.dims[d]);
  };
  // (source box's offset, target box's offset, shape) -> (sender, receiver) pairs.
  std::map<std::vector<int64_t>, std::vector<std::pair<int64_t, int64_t>>> boxes;
  SmallVector<int64_t> received(devices, 0);
  size_t transfers = 0;
  for (int64_t j = 0; j < devices; ++j) {
    SmallVector<int64_t> coords(axes.names.size(), 0);
    axes.place(j, ArrayRef(group), coords);
    SmallVector<int64_t> first(rank), last(rank), targetAt(rank);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = pieceSize(to, d), source = pieceSize(from, d);
      targetAt[d] = axes.pieceOf(to.dims[d], coords) * size;
      first[d] = targetAt[d] / source, last[d] = (targetAt[d] + size - 1) / source;
    }
    // Every piece of `from` the target piece meets: a box each.
    for (SmallVector<int64_t> q = first;;) {
      SmallVector<int64_t> senderCoords = coords;
      std::vector<int64_t> key(3 * rank);
      int64_t elements = 1;
      for (int64_t d = 0; d < rank; ++d) {
        axes.placePiece(from.dims[d], q[d], senderCoords);
        int64_t source = pieceSize(from, d), size = pieceSize(to, d);
        int64_t lo = std::max(targetAt[d], q[d] * source);
        int64_t hi = std::min(targetAt[d] + size, (q[d] + 1) * source);
        key[d] = lo - q[d] * source, key[rank + d] = lo - targetAt[d], key[2 * rank + d] = hi - lo;
        elements *= hi - lo;
      }
      int64_t sender = axes.position(ArrayRef(group), senderCoords);
      boxes[key].push_back({sender, j});
      if (sender != j)
        received[j] += elements * elementBytes(elem);
      if (++transfers > kMaxTransfers)
        return std::nullopt;
      int64_t d = rank - 1;
      while (d >= 0 && q[d] == last[d])
        q[d] = first[d], --d;
      if (d < 0)
        break;
      ++q[d];
    }
  }
  BoxExchange exchange;
  exchange.axes = llvm::map_to_vector(group, [&](int i) { return axes.names[i]; });
  exchange.devices = devices;
  exchange.busiest = *llvm::max_element(received);
  // Each box's pairs in as few permutes as no device sends or receives twice in.
  for (auto &[key, pairs] : boxes) {
    size_t firstMove = exchange.moves.size();
    for (auto [sender, receiver] : pairs) {
      auto fits = [&](const BoxExchange::Move &m) {
        for (size_t k = 0; k < m.pairs.size(); k += 2)
          if (m.pairs[k] == sender || m.pairs[k + 1] == receiver)
            return false;
        return true;
      };
      auto *move = std::find_if(exchange.moves.begin() + firstMove, exchange.moves.end(), fits);
      if (move == exchange.moves.end()) {
        BoxExchange::Move fresh;
        fresh.source.assign(key.begin(), key.begin() + rank);
        fresh.target.assign(key.begin() + rank, key.begin() + 2 * rank);
        fresh.shape.assign(key.begin() + 2 * rank, key.end());
        exchange.moves.push_back(std::move(fresh));
        move = &exchange.moves.back();
      }
      move->pairs.append({sender, receiver});
    }
  }
  return exchange;
}
} // namespace box_exchange

std::optional<BoxExchange> mlir::loom::cheaperBoxExchange(RankedTensorType global,
                                                          const TensorSharding &from,
                                                          const TensorSharding &to, MeshOp mesh,
                                                          ArrayRef<ReshardStep> steps) {
  int64_t stepsTime = costOf(steps).time();
  // Each device receives what it lacks (the bound) by at least one permute where it lacks
  // anything: steps that take no longer cannot be beaten, and the boxes need not be planned.
  int64_t least = leastBytes(global, from, to, mesh);
  if (stepsTime <= least + (least > 0 ? kCollectiveLatencyBytes : 0))
    return std::nullopt;
  std::optional<BoxExchange> boxes = planBoxExchange(global, from, to, mesh);
  if (!boxes || boxes->time() >= stepsTime)
    return std::nullopt;
  return boxes;
}

int64_t mlir::loom::reshardTime(RankedTensorType global, const TensorSharding &from,
                                const TensorSharding &to, MeshOp mesh) {
  std::string whyNot;
  FailureOr<ReshardPlan> plan = planReshard(global, from, to, mesh, whyNot);
  if (failed(plan))
    return kUnreachableReshard;
  if (auto boxes = cheaperBoxExchange(global, from, to, mesh, plan->steps))
    return boxes->time();
  return costOf(plan->steps).time();
}

/// Per dim, every offset where a box of some device's piece starts or ends, from 0 to the
/// piece's size: the finest grid that each device's boxes are unions of.
SmallVector<SmallVector<int64_t>> cutsOf(const std::map<std::vector<int64_t>, Value> &cells,
                                         ArrayRef<int64_t> piece) {
  const size_t rank = piece.size();
  SmallVector<SmallVector<int64_t>> cuts(rank);
  for (size_t d = 0; d < rank; ++d) {
    std::set<int64_t> at = {0, piece[d]};
    for (const auto &[key, value] : cells)
      at.insert({key[d], key[d] + key[rank + d]});
    cuts[d].assign(at.begin(), at.end());
  }
  return cuts;
}

Value mlir::loom::emitBoxExchange(OpBuilder &b, Location loc, Value v,
                                  const BoxExchange &exchange, FlatSymbolRefAttr mesh,
                                  RankedTensorType target, StringRef reason) {
  Type elem = target.getElementType();
  const size_t rank = target.getRank();
  auto pieceShape = cast<RankedTensorType>(v.getType()).getShape();
  // Each box of the target piece: the sum of the moves that bring it (a device gets zeros from
  // the permutes that do not bring its box there).
  std::map<std::vector<int64_t>, Value> cells, slices;
  for (const BoxExchange::Move &move : exchange.moves) {
    Value part = v;
    if (ArrayRef<int64_t>(move.shape) != pieceShape) {
      std::vector<int64_t> box(move.source.begin(), move.source.end());
      box.insert(box.end(), move.shape.begin(), move.shape.end());
      Value &slice = slices[box]; // moves of one box to different places send one slice
      if (!slice) {
        SmallVector<int64_t> limit, strides(rank, 1);
        for (auto [at, size] : llvm::zip_equal(move.source, move.shape))
          limit.push_back(at + size);
        slice = SliceOp::create(b, loc, v, move.source, limit, strides);
      }
      part = slice;
    }
    if (selfOnly(move)) {
      if (!allLocal(move, exchange.devices))
        part = keepOnSenders(b, loc, part, move, mesh, b.getStrArrayAttr(exchange.axes));
    } else { // some pair's receiver is not its sender: the box's bytes move
      int64_t bytes = elementBytes(elem);
      for (int64_t size : move.shape)
        bytes *= size;
      part = CollectivePermuteOp::create(b, loc, part.getType(), part, mesh,
                                         b.getStrArrayAttr(exchange.axes),
                                         b.getDenseI64ArrayAttr(move.pairs),
                                         b.getStringAttr(reason), b.getI64IntegerAttr(bytes));
    }
    std::vector<int64_t> key(move.target.begin(), move.target.end());
    key.insert(key.end(), move.shape.begin(), move.shape.end());
    Value &cell = cells[key];
    cell = cell ? AddOp::create(b, loc, cell, part).getResult() : part;
  }
  // Devices whose pieces are cut into different boxes (meshes whose axes are not powers of
  // two) share one finer grid: each of its boxes is the sum of the parts of the cells that
  // cover it (on each device one holds it, the others are zeros there), and the boxes go side
  // by side. Where every device's boxes are the same, each box is one cell.
  const SmallVector<SmallVector<int64_t>> cuts = cutsOf(cells, target.getShape());
  std::vector<int64_t> lo(rank), hi(rank);
  std::function<Value(size_t)> assemble = [&](size_t d) -> Value {
    if (d < rank) {
      SmallVector<Value> parts;
      for (size_t k = 0; k + 1 < cuts[d].size(); ++k) {
        lo[d] = cuts[d][k], hi[d] = cuts[d][k + 1];
        parts.push_back(assemble(d + 1));
      }
      return parts.size() == 1 ? parts[0] : ConcatenateOp::create(b, loc, parts, d).getResult();
    }
    Value total;
    for (const auto &[key, cell] : cells) {
      bool covers = true, whole = true;
      SmallVector<int64_t> start(rank), limit(rank), strides(rank, 1);
      for (size_t e = 0; e < rank; ++e) {
        covers &= key[e] <= lo[e] && hi[e] <= key[e] + key[rank + e];
        whole &= key[e] == lo[e] && hi[e] == key[e] + key[rank + e];
        start[e] = lo[e] - key[e], limit[e] = hi[e] - key[e];
      }
      if (!covers)
        continue;
      Value part = whole ? cell : SliceOp::create(b, loc, cell, start, limit, strides).getResult();
      total = total ? AddOp::create(b, loc, total, part).getResult() : part;
    }
    assert(total && "every device's boxes tile its piece");
    return total;
  };
  return assemble(0);
}
