// A mesh's axes and sizes as plain arrays, and the device arithmetic on them that reshard
// planning needs: a device's coordinates from its position in a group of axes, its position
// from its coordinates, and the piece of a split dim it holds.
#ifndef LOOM_PASSES_SHARDING_MESHAXES_H
#define LOOM_PASSES_SHARDING_MESHAXES_H

#include "passes/Sharding/TensorSharding.h"

namespace mlir::loom {

/// The mesh's axes and sizes, looked up without going through the mesh op's attributes (the
/// reshard search asks for them millions of times in a large program).
struct MeshAxes {
  explicit MeshAxes(MeshOp mesh) {
    for (auto [a, size] : llvm::zip_equal(mesh.getAxes(), mesh.getShape()))
      names.push_back(cast<StringAttr>(a).getValue()), sizes.push_back(size);
  }
  int index(StringRef axis) const {
    return static_cast<int>(llvm::find(names, axis) - names.begin());
  }
  int64_t size(StringRef axis) const { return sizes[index(axis)]; }
  int64_t group(ArrayRef<StringRef> axes) const {
    int64_t n = 1;
    for (StringRef a : axes)
      n *= size(a);
    return n;
  }
  /// Sets the coordinates (`coords`, by axis index) of the device at `position` in the group
  /// of the axes with indices `group`, major first; the other axes' stay as they are.
  template <typename Index>
  void place(int64_t position, ArrayRef<Index> group, MutableArrayRef<int64_t> coords) const {
    for (int64_t i = static_cast<int64_t>(group.size()) - 1; i >= 0; --i)
      coords[group[i]] = position % sizes[group[i]], position /= sizes[group[i]];
  }
  /// The position in the group of the axes with indices `group` (major first) of the device
  /// at `coords`: the inverse of place().
  template <typename Index>
  int64_t position(ArrayRef<Index> group, ArrayRef<int64_t> coords) const {
    int64_t at = 0;
    for (Index i : group)
      at = at * sizes[i] + coords[i];
    return at;
  }
  /// The index of the piece a device at `coords` holds of a dim split over `dimAxes`.
  int64_t pieceOf(ArrayRef<StringRef> dimAxes, ArrayRef<int64_t> coords) const {
    int64_t piece = 0;
    for (StringRef a : dimAxes)
      piece = piece * size(a) + coords[index(a)];
    return piece;
  }
  /// Sets the coordinates on `dimAxes` of a device holding piece `piece` of that dim: the
  /// inverse of pieceOf().
  void placePiece(ArrayRef<StringRef> dimAxes, int64_t piece,
                  MutableArrayRef<int64_t> coords) const {
    for (StringRef a : llvm::reverse(dimAxes))
      coords[index(a)] = piece % size(a), piece /= size(a);
  }
  /// The indices of the mesh axes that `from` or `to` split a dim over, in mesh order: the
  /// group of a permute between them.
  SmallVector<int> splitting(const TensorSharding &from, const TensorSharding &to) const {
    SmallVector<int> axes;
    for (auto [i, axis] : llvm::enumerate(names)) {
      auto splits = [&](const Axes &dimAxes) { return llvm::is_contained(dimAxes, axis); };
      if (llvm::any_of(from.dims, splits) || llvm::any_of(to.dims, splits))
        axes.push_back(static_cast<int>(i));
    }
    return axes;
  }
  SmallVector<StringRef> names;
  SmallVector<int64_t> sizes;
};

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_MESHAXES_H
