// The device mesh as the runtime sees it: named axes over the devices of a
// Client, and the groups of devices that a collective over some axes spans.
#ifndef LOOM_RUNTIME_MESHTOPOLOGY_H
#define LOOM_RUNTIME_MESHTOPOLOGY_H

#include "runtime/Status.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loom::rt {

/// The devices a collective runs over, ordered by rank, and this device's rank
/// among them.
struct DeviceGroup {
  std::vector<int> devices;
  int rank = 0;

  int size() const { return static_cast<int>(devices.size()); }
  friend bool operator==(const DeviceGroup &, const DeviceGroup &) = default;
};

/// A mesh {"data": 2, "model": 4}: device ids are the row-major linearization
/// of the coordinates, so the first axis is the most major (as loom.mesh).
class MeshTopology {
public:
  /// A mesh with these axes, in order. InvalidArgument for no axes, an empty
  /// or repeated name, or a size below 1.
  static StatusOr<MeshTopology>
  create(std::vector<std::pair<std::string, int64_t>> axes);

  const std::vector<std::string> &axisNames() const { return names; }
  const std::vector<int64_t> &shape() const { return sizes; }
  int numDevices() const { return deviceCount; }

  /// The position of axis `name`, or InvalidArgument naming the mesh.
  StatusOr<int> axisIndex(const std::string &name) const;

  /// The coordinates of `device`; InvalidArgument if it is not in the mesh.
  StatusOr<std::vector<int64_t>> coordinates(int device) const;
  /// The device at `coords`; InvalidArgument if they are out of the mesh.
  StatusOr<int> deviceAt(const std::vector<int64_t> &coords) const;

  /// The group of `device` for a collective over `axes`: the devices that
  /// share every coordinate not in `axes`, ordered by their index along
  /// `axes` (the first listed axis is the most major, as loom.axis_index),
  /// and `device`'s rank in it. No axes gives the group of `device` alone.
  /// InvalidArgument for an unknown or repeated axis, or a device not in the
  /// mesh.
  StatusOr<DeviceGroup> group(int device,
                              const std::vector<std::string> &axes) const;

  /// Every set of devices that a collective over some of the axes spans, each sorted and
  /// listed once, in the same order on every process (axis sets in turn, then by device).
  /// Over axes in the mesh's order, a group's ranks follow its sorted devices.
  std::vector<std::vector<int>> groupSets() const;

  /// {"data": 2, "model": 4}
  std::string toString() const;

private:
  MeshTopology() = default;

  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  int deviceCount = 0;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_MESHTOPOLOGY_H
