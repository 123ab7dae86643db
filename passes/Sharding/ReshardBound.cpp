// The least a reshard must move (see ReshardBound.h).
#include "passes/Sharding/ReshardBound.h"

#include "passes/Sharding/MeshAxes.h"

#include <numeric>

using namespace mlir;
using namespace mlir::loom;

int64_t mlir::loom::leastBytes(RankedTensorType global, const TensorSharding &from,
                               const TensorSharding &to, MeshOp mesh) {
  const MeshAxes axes(mesh);
  const int64_t elementBytes =
      localBytes(global, TensorSharding::replicated(global.getRank()), mesh) /
      std::max<int64_t>(1, global.getNumElements());
  // [begin, end) of dim d a device holds under `s`, from its coordinates.
  auto range = [&](const TensorSharding &s, size_t d, ArrayRef<int64_t> coords) {
    int64_t index = 0, count = 1;
    for (StringRef a : s.dims[d]) {
      int i = axes.index(a);
      index = index * axes.sizes[i] + coords[i], count *= axes.sizes[i];
    }
    int64_t length = global.getDimSize(d) / count;
    return std::pair(index * length, index * length + length);
  };
  int64_t devices = axes.group(axes.names), most = 0;
  SmallVector<int> all(axes.names.size());
  std::iota(all.begin(), all.end(), 0);
  SmallVector<int64_t> coords(axes.names.size(), 0);
  for (int64_t device = 0; device < devices; ++device) {
    axes.place(device, ArrayRef(all), coords);
    int64_t needed = 1, held = 1;
    for (size_t d = 0; d < to.dims.size(); ++d) {
      auto [begin, end] = range(to, d, coords);
      auto [heldBegin, heldEnd] = range(from, d, coords);
      needed *= end - begin;
      held *= std::max<int64_t>(0, std::min(end, heldEnd) - std::max(begin, heldBegin));
    }
    most = std::max(most, (needed - held) * elementBytes);
  }
  return most;
}
