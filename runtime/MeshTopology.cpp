// Coordinates and collective groups of a named device mesh.
#include "runtime/MeshTopology.h"
#include "runtime/ListOf.h"

#include <algorithm>
#include <climits>

namespace loom::rt {

namespace {
Status invalid(std::string message) {
  return Status::error(StatusCode::InvalidArgument, std::move(message));
}
} // namespace

StatusOr<MeshTopology>
MeshTopology::create(std::vector<std::pair<std::string, int64_t>> axes) {
  if (axes.empty())
    return invalid("mesh: at least one axis is needed");
  MeshTopology mesh;
  int64_t count = 1;
  for (auto &[name, size] : axes) {
    if (name.empty())
      return invalid("mesh: an axis name is empty");
    if (std::find(mesh.names.begin(), mesh.names.end(), name) !=
        mesh.names.end())
      return invalid("mesh: axis \"" + name + "\" is repeated");
    if (size < 1)
      return invalid("mesh: axis \"" + name + "\" has size " +
                     std::to_string(size) + ", expected at least 1");
    // Device ids are ints (as Device::id()), so the product must fit one.
    if (count > INT_MAX / size)
      return invalid("mesh: too many devices");
    count *= size;
    mesh.names.push_back(name);
    mesh.sizes.push_back(size);
  }
  mesh.deviceCount = static_cast<int>(count);
  return mesh;
}

StatusOr<int> MeshTopology::axisIndex(const std::string &name) const {
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    return invalid("mesh " + toString() + " has no axis \"" + name + "\"");
  return static_cast<int>(it - names.begin());
}

StatusOr<std::vector<int64_t>> MeshTopology::coordinates(int device) const {
  if (device < 0 || device >= deviceCount)
    return invalid("device " + std::to_string(device) + " is not in mesh " +
                   toString());
  std::vector<int64_t> coords(sizes.size());
  int64_t rest = device;
  for (size_t i = sizes.size(); i-- > 0;) {
    coords[i] = rest % sizes[i];
    rest /= sizes[i];
  }
  return coords;
}

StatusOr<int> MeshTopology::deviceAt(const std::vector<int64_t> &coords) const {
  if (coords.size() != sizes.size())
    return invalid("coordinates " + listOf(coords) + " do not match mesh " +
                   toString());
  int64_t device = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (coords[i] < 0 || coords[i] >= sizes[i])
      return invalid("coordinates " + listOf(coords) + " are outside mesh " +
                     toString());
    device = device * sizes[i] + coords[i];
  }
  return static_cast<int>(device);
}

StatusOr<DeviceGroup>
MeshTopology::group(int device, const std::vector<std::string> &axes) const {
  std::vector<int> axisIds;
  for (const std::string &axis : axes) {
    StatusOr<int> id = axisIndex(axis);
    if (!id.ok())
      return id.status();
    if (std::find(axisIds.begin(), axisIds.end(), *id) != axisIds.end())
      return invalid("axis \"" + axis + "\" is repeated in a group of mesh " +
                     toString());
    axisIds.push_back(*id);
  }
  StatusOr<std::vector<int64_t>> home = coordinates(device);
  if (!home.ok())
    return home.status();

  // Enumerate the group's coordinates like a row-major counter over `axes`
  // (last listed axis fastest), so position == rank.
  DeviceGroup group;
  int64_t groupSize = 1;
  for (int id : axisIds)
    groupSize *= sizes[id];
  std::vector<int64_t> coords = *home;
  for (int64_t rank = 0; rank < groupSize; ++rank) {
    int64_t rest = rank;
    for (size_t i = axisIds.size(); i-- > 0;) {
      coords[axisIds[i]] = rest % sizes[axisIds[i]];
      rest /= sizes[axisIds[i]];
    }
    int member = *deviceAt(coords);
    if (member == device)
      group.rank = static_cast<int>(rank);
    group.devices.push_back(member);
  }
  return group;
}

std::vector<std::vector<int>> MeshTopology::groupSets() const {
  std::vector<std::vector<int>> sets;
  for (unsigned mask = 1; mask < (1u << names.size()); ++mask) {
    std::vector<std::string> axes;
    for (size_t a = 0; a < names.size(); ++a)
      if (mask & (1u << a))
        axes.push_back(names[a]);
    for (int d = 0; d < deviceCount; ++d) {
      std::vector<int> set = group(d, axes)->devices; // d and axes are the mesh's own
      std::sort(set.begin(), set.end());
      if (std::find(sets.begin(), sets.end(), set) == sets.end())
        sets.push_back(std::move(set));
    }
  }
  return sets;
}

std::string MeshTopology::toString() const {
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    out.append(i ? ", \"" : "\"").append(names[i]).append("\": ");
    out.append(std::to_string(sizes[i]));
  }
  return out + "}";
}

} // namespace loom::rt
