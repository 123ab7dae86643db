// Exchanges of the parts of split values that slices, pads and concatenations read (see
// WindowExchange.h).
#include "passes/Sharding/WindowExchange.h"

#include "passes/Sharding/ReshardSearch.h"
#include "passes/Sharding/TensorSharding.h"
#include "passes/Sharding/WindowPermutes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::loom;

// A namespace of its own: the unity build joins anonymous namespaces across files.
namespace window_exchange {

/// Where a chain's elements along the dim come from.
struct Leaf {
  enum class Kind {
    Gathered, ///< `value` is this device's piece of an all_gather's result
    Whole,    ///< every device holds `value` whole along the dim
    Padding,  ///< `value` is a rank-0 padding value
  } kind;
  Value value;
  int64_t extent; ///< along the dim: the gathered value's, the whole value's, or 1
};

/// Element `index` (along the dim, in its global extent) of leaf `leaf`.
struct Source {
  int leaf;
  int64_t index;
};

/// The ops between the all_gathers and the shard_slice, and where each element comes from.
struct Chain {
  int64_t dim;
  ArrayAttr axes;
  SmallVector<Leaf> leaves;
  SmallVector<Operation *> ops; ///< users before the values they use
  int64_t gatheredBytes = 0, gathers = 0;

  int64_t extentOf(Value v) const { return cast<RankedTensorType>(v.getType()).getDimSize(dim); }

  int leafOf(Leaf::Kind kind, Value v, int64_t extent) {
    for (auto [i, leaf] : llvm::enumerate(leaves))
      if (leaf.kind == kind && leaf.value == v)
        return static_cast<int>(i);
    leaves.push_back({kind, v, extent});
    return static_cast<int>(leaves.size()) - 1;
  }

  /// Whether start, limit and strides (or low, high and interior padding) leave every other
  /// dim of `operand` as it is.
  bool onlyAlongDim(Value operand, ArrayRef<int64_t> first, ArrayRef<int64_t> last,
                    ArrayRef<int64_t> step, bool padding) const {
    auto shape = cast<RankedTensorType>(operand.getType()).getShape();
    for (size_t e = 0; e < shape.size(); ++e) {
      bool same = padding ? first[e] == 0 && last[e] == 0 && step[e] == 0
                          : first[e] == 0 && last[e] == shape[e] && step[e] == 1;
      if (int64_t(e) != dim && !same)
        return false;
    }
    return !padding || step[dim] == 0;
  }

  /// The sources of v's elements along the dim; failure where v is not built as the header
  /// says. `inside`: v is an operand of a chain op (else the shard_slice's).
  FailureOr<SmallVector<Source>> trace(Value v, bool inside) {
    Operation *def = v.getDefiningOp();
    SmallVector<Source> out;
    auto whole = [&] {
      int leaf = leafOf(Leaf::Kind::Whole, v, extentOf(v));
      for (int64_t p = 0; p < extentOf(v); ++p)
        out.push_back({leaf, p});
      return out;
    };
    if (!def || !v.hasOneUse()) {
      if (!inside)
        return failure();
      return whole();
    }
    if (auto gather = dyn_cast<AllGatherOp>(def);
        gather && inside && int64_t(gather.getDim()) == dim && gather.getAxes() == axes) {
      int leaf = leafOf(Leaf::Kind::Gathered, gather.getOperand(), extentOf(v));
      for (int64_t p = 0; p < extentOf(v); ++p)
        out.push_back({leaf, p});
      ops.push_back(gather);
      gatheredBytes += gather.getBytes() ? int64_t(*gather.getBytes()) : tensorBytes(v);
      ++gathers;
      return out;
    }
    if (auto slice = dyn_cast<SliceOp>(def);
        slice && onlyAlongDim(slice.getOperand(), slice.getStart(), slice.getLimit(),
                              slice.getStrides(), false)) {
      ops.push_back(slice);
      auto in = trace(slice.getOperand(), true);
      if (failed(in))
        return failure();
      for (int64_t p = 0; p < extentOf(v); ++p)
        out.push_back((*in)[slice.getStart()[dim] + p * slice.getStrides()[dim]]);
      return out;
    }
    if (auto pad = dyn_cast<PadOp>(def);
        pad && onlyAlongDim(pad.getOperand(), pad.getLow(), pad.getHigh(), pad.getInterior(),
                            true)) {
      ops.push_back(pad);
      auto in = trace(pad.getOperand(), true);
      if (failed(in))
        return failure();
      int padding = leafOf(Leaf::Kind::Padding, pad.getPaddingValue(), 1);
      int64_t low = pad.getLow()[dim], size = static_cast<int64_t>(in->size());
      for (int64_t p = 0; p < extentOf(v); ++p)
        out.push_back(p - low >= 0 && p - low < size ? (*in)[p - low] : Source{padding, 0});
      return out;
    }
    if (auto concat = dyn_cast<ConcatenateOp>(def); concat && int64_t(concat.getDim()) == dim) {
      ops.push_back(concat);
      for (Value input : concat.getInputs()) {
        auto in = trace(input, true);
        if (failed(in))
          return failure();
        out.append(in->begin(), in->end());
      }
      return out;
    }
    if (!inside)
      return failure();
    return whole();
  }
};

class Rewriter {
public:
  Rewriter(MeshOp mesh) : mesh(mesh), meshRef(FlatSymbolRefAttr::get(mesh.getSymNameAttr())) {}
  void rewrite(ShardSliceOp root);
  /// The all_gathers of every chain found, before any is rewritten.
  llvm::DenseSet<Operation *> exchangeable;

private:
  Value sliceAlongDim(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t lo, int64_t hi) {
    auto shape = cast<RankedTensorType>(v.getType()).getShape();
    if (lo == 0 && hi == shape[dim])
      return v;
    SmallVector<int64_t> start(shape.size(), 0), limit(shape), strides(shape.size(), 1);
    start[dim] = lo, limit[dim] = hi;
    return SliceOp::create(b, loc, v, start, limit, strides);
  }
  /// Row `device` of the [devices, width] table `rows`: constant if all rows are equal, else
  /// picked by this device's position along the axes.
  Value indicesFor(OpBuilder &b, Location loc, ArrayAttr axes, ArrayRef<int32_t> rows,
                   int64_t devices, int64_t width);

  MeshOp mesh;
  FlatSymbolRefAttr meshRef;
};

Value Rewriter::indicesFor(OpBuilder &b, Location loc, ArrayAttr axes, ArrayRef<int32_t> rows,
                           int64_t devices, int64_t width) {
  auto i32 = b.getI32Type();
  bool uniform = true;
  for (int64_t j = 1; j < devices && uniform; ++j)
    uniform = rows.slice(j * width, width) == rows.take_front(width);
  auto rowType = RankedTensorType::get({width}, i32);
  if (uniform)
    return ConstantOp::create(b, loc, DenseElementsAttr::get(rowType, rows.take_front(width)));
  auto tableType = RankedTensorType::get({devices, width}, i32);
  Value table = ConstantOp::create(b, loc, DenseElementsAttr::get(tableType, rows));
  Value position =
      AxisIndexOp::create(b, loc, RankedTensorType::get({}, i32), meshRef, axes);
  position = ReshapeOp::create(b, loc, RankedTensorType::get({1}, i32), position);
  Value row = GatherOp::create(b, loc, table, position);
  return ReshapeOp::create(b, loc, rowType, row);
}

void Rewriter::rewrite(ShardSliceOp root) {
  const int64_t dim = root.getDim();
  Chain chain{dim, root.getAxes(), {}, {}};
  FailureOr<SmallVector<Source>> map = chain.trace(root.getOperand(), /*inside=*/false);
  if (failed(map) || chain.gathers == 0)
    return;
  // A value gathered whole for another user too (CSE merges the gathers) costs nothing more;
  // gathers for other slices of it (q, k and v of one projection) may go as these do.
  for (const Leaf &leaf : chain.leaves)
    for (Operation *user : leaf.value.getUsers())
      if (auto other = dyn_cast<AllGatherOp>(user);
          other && other.getDim() == root.getDim() && other.getAxes() == root.getAxes() &&
          !exchangeable.contains(user))
        return;
  auto outType = cast<RankedTensorType>(root.getType());
  const int64_t devices = groupSize(mesh, stringsOf(root.getAxes()));
  const int64_t width = outType.getDimSize(dim);
  if (static_cast<int64_t>(map->size()) != devices * width || devices * width > (1 << 22))
    return;
  const int64_t rowBytes = width > 0 ? tensorBytes(root.getResult()) / width : 0;

  // What each device reads from the others' pieces.
  Transfers transfers;
  auto pieceOf = [&](const Source &s) { return chain.leaves[s.leaf].extent / devices; };
  for (int64_t j = 0; j < devices; ++j)
    for (int64_t w = 0; w < width; ++w) {
      const Source &s = (*map)[j * width + w];
      if (chain.leaves[s.leaf].kind != Leaf::Kind::Gathered)
        continue;
      int64_t from = s.index / pieceOf(s), row = s.index % pieceOf(s);
      if (from == j)
        continue;
      auto [it, fresh] = transfers.try_emplace({s.leaf, from, j}, row, row + 1);
      it->second = {std::min(it->second.first, row), std::max(it->second.second, row + 1)};
    }
  SmallVector<Group> groups;
  int64_t cost = std::numeric_limits<int64_t>::max();
  for (bool byShift : {true, false}) {
    SmallVector<Group> candidate = widenWhereCheaper(groupTransfers(transfers, byShift),
                                                     devices, rowBytes);
    if (int64_t c = costOf(candidate, devices, rowBytes); c < cost)
      groups = std::move(candidate), cost = c;
  }
  if (cost >= ReshardCost{chain.gatheredBytes, 0, chain.gathers}.time())
    return;

  // The local buffer: each leaf's local part, then what each permute brings, along the dim.
  OpBuilder b(root);
  Location loc = root.getLoc();
  Operation *reader = chain.ops.front();
  std::string reason = "the parts of other devices' pieces that " +
                       reader->getName().getStringRef().str() + " at " +
                       describeLocation(reader->getLoc()) + " reads (instead of gathering " +
                       std::to_string(chain.gathers) + " value" +
                       (chain.gathers > 1 ? "s" : "") + " whole)";
  SmallVector<Value> segments;
  SmallVector<int64_t> leafStart, groupStart;
  int64_t length = 0;
  for (const Leaf &leaf : chain.leaves) {
    Value segment = leaf.value;
    if (leaf.kind == Leaf::Kind::Padding) {
      SmallVector<int64_t> shape(outType.getShape());
      shape[dim] = 1;
      segment = BroadcastInDimOp::create(b, loc, outType.clone(shape), leaf.value,
                                         b.getDenseI64ArrayAttr({}));
    }
    leafStart.push_back(length);
    length += chain.extentOf(segment);
    segments.push_back(segment);
  }
  std::map<std::tuple<int, int64_t, int64_t>, int> groupOf;
  for (auto [g, group] : llvm::enumerate(groups)) {
    Value part = sliceAlongDim(b, loc, chain.leaves[group.leaf].value, dim, group.lo, group.hi);
    SmallVector<int64_t> pairs;
    for (auto [from, to] : group.pairs) {
      pairs.append({from, to});
      groupOf[{group.leaf, from, to}] = static_cast<int>(g);
    }
    auto permute = CollectivePermuteOp::create(
        b, loc, part.getType(), part, meshRef, root.getAxes(), b.getDenseI64ArrayAttr(pairs),
        b.getStringAttr(reason), b.getI64IntegerAttr((group.hi - group.lo) * rowBytes));
    groupStart.push_back(length);
    length += group.hi - group.lo;
    segments.push_back(permute.getResult());
  }

  // Each device's rows of the buffer, in the order of its result's rows.
  SmallVector<int32_t> rows;
  for (int64_t j = 0; j < devices; ++j)
    for (int64_t w = 0; w < width; ++w) {
      const Source &s = (*map)[j * width + w];
      const Leaf &leaf = chain.leaves[s.leaf];
      int64_t at = leafStart[s.leaf] + s.index;
      if (leaf.kind == Leaf::Kind::Padding)
        at = leafStart[s.leaf];
      if (leaf.kind == Leaf::Kind::Gathered) {
        int64_t from = s.index / pieceOf(s), row = s.index % pieceOf(s);
        at = leafStart[s.leaf] + row;
        if (from != j) {
          int g = groupOf.at({s.leaf, from, j});
          at = groupStart[g] + row - groups[g].lo;
        }
      }
      rows.push_back(static_cast<int32_t>(at));
    }

  Value buffer =
      segments.size() == 1 ? segments[0] : ConcatenateOp::create(b, loc, segments, dim);
  Value result;
  bool contiguous = true;
  for (int64_t j = 0; j < devices && contiguous; ++j)
    for (int64_t w = 0; w < width && contiguous; ++w)
      contiguous = rows[j * width + w] == rows[0] + w;
  if (contiguous) {
    result = sliceAlongDim(b, loc, buffer, dim, rows.empty() ? 0 : rows[0],
                           (rows.empty() ? 0 : rows[0]) + width);
  } else {
    // A gather takes rows along dim 0: the dim goes first and back.
    SmallVector<int64_t> toFront{dim}, back;
    for (int64_t e = 0; e < outType.getRank(); ++e)
      if (e != dim)
        toFront.push_back(e);
    back.resize(toFront.size());
    for (auto [i, e] : llvm::enumerate(toFront))
      back[e] = static_cast<int64_t>(i);
    if (dim != 0)
      buffer = TransposeOp::create(b, loc, buffer, toFront);
    Value indices = indicesFor(b, loc, root.getAxes(), rows, devices, width);
    result = GatherOp::create(b, loc, buffer, indices);
    if (dim != 0)
      result = TransposeOp::create(b, loc, result, back);
  }
  root.getResult().replaceAllUsesWith(result);
  root.erase();
  for (Operation *op : chain.ops)
    if (op->use_empty())
      op->erase();
}

} // namespace window_exchange

void mlir::loom::exchangeWindows(func::FuncOp fn, MeshOp mesh) {
  SmallVector<ShardSliceOp> roots;
  fn.walk([&](ShardSliceOp op) { roots.push_back(op); });
  window_exchange::Rewriter rewriter(mesh);
  for (ShardSliceOp root : roots) {
    window_exchange::Chain chain{int64_t(root.getDim()), root.getAxes(), {}, {}};
    if (succeeded(chain.trace(root.getOperand(), /*inside=*/false)))
      for (Operation *op : chain.ops)
        if (isa<AllGatherOp>(op))
          rewriter.exchangeable.insert(op);
  }
  for (ShardSliceOp root : roots)
    rewriter.rewrite(root);
}
