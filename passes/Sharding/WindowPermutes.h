// The collective_permutes of a window exchange (WindowExchange.h): the rows each device
// reads from another's piece, grouped into as few permutes as pay, weighed as reshard plans
// are. Used by WindowExchange.cpp alone.
#ifndef LOOM_PASSES_SHARDING_WINDOWPERMUTES_H
#define LOOM_PASSES_SHARDING_WINDOWPERMUTES_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

// A namespace of its own: the unity build joins anonymous namespaces across files.
namespace window_exchange {
using mlir::ArrayRef;
using mlir::SmallVector;

/// One collective_permute: rows [lo, hi) along the dim of a gathered leaf's pieces, from the
/// first of each pair to the second (positions in the group of the axes).
struct Group {
  int leaf;
  int64_t lo, hi;
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  bool sharesDevices(const Group &other) const {
    for (auto [from, to] : pairs)
      for (auto [otherFrom, otherTo] : other.pairs)
        if (from == otherFrom || to == otherTo)
          return true;
    return false;
  }
};

/// (leaf, from, to) -> the rows [lo, hi) of `from`'s piece that `to` reads.
using Transfers = std::map<std::tuple<int, int64_t, int64_t>, std::pair<int64_t, int64_t>>;

/// The transfers as collective_permutes: one per shift (`to - from`) of each leaf, sending
/// the rows any pair of that shift needs, or (`byShift` false) one per set of rows; then
/// permutes of the same rows of a leaf whose devices differ are merged.
SmallVector<Group> groupTransfers(const Transfers &transfers, bool byShift);

/// The permutes' time as reshard plans are weighed (ReshardCost): the busiest device's
/// received rows, in bytes, plus each collective's start-up.
int64_t costOf(ArrayRef<Group> groups, int64_t devices, int64_t rowBytes);

/// Merges permutes of one leaf over different devices into one sending the rows either
/// sends, where the start-up saved outweighs the rows added (small values).
SmallVector<Group> widenWhereCheaper(SmallVector<Group> groups, int64_t devices,
                                     int64_t rowBytes);

} // namespace window_exchange

#endif // LOOM_PASSES_SHARDING_WINDOWPERMUTES_H
