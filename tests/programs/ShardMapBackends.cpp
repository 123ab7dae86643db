// The backends' shard_maps (Backends.h). The reference runs the body once per device of
// programMesh() on that device's block, does each collective by reading the other group
// members' values (group position: the group's axes as mixed-radix digits, in the order
// named), and places each device's result at its block of the out spec.
#include "tests/programs/Backends.h"

#include <algorithm>
#include <map>

namespace loom::programs {

namespace {

using Coords = std::map<std::string, int64_t>;

/// Every device's coordinates, in the mesh's order (the first axis major).
std::vector<Coords> meshDevices() {
  std::vector<Coords> devices{{}};
  for (const auto &[axis, size] : programMesh()) {
    std::vector<Coords> next;
    for (const Coords &c : devices)
      for (int64_t i = 0; i < size; ++i) {
        next.push_back(c);
        next.back()[axis] = i;
      }
    devices = std::move(next);
  }
  return devices;
}

/// `c`'s position among the devices that differ from it only along `axes`.
int64_t positionOf(const Coords &c, const std::vector<std::string> &axes) {
  int64_t p = 0;
  for (const std::string &a : axes)
    p = p * meshSize({a}) + c.at(a);
  return p;
}

/// Piece `i` of `count` equal pieces of `x` along `dim`.
RefTensor piece(const RefTensor &x, int64_t dim, int64_t count, int64_t i) {
  Dims start(x.shape.size(), 0), limit = x.shape, strides(x.shape.size(), 1);
  int64_t size = x.shape[dim] / count;
  start[dim] = i * size;
  limit[dim] = (i + 1) * size;
  return ref::slice(x, start, limit, strides);
}

RefTensor blockOf(RefTensor x, const Spec &spec, const Coords &c) {
  for (size_t d = 0; d < spec.size(); ++d)
    if (!spec[d].empty())
      x = piece(x, static_cast<int64_t>(d), meshSize(spec[d]), positionOf(c, spec[d]));
  return x;
}

} // namespace

RefTensor ReferenceBackend::shardMap(const Node &n, const RefTensor &x) {
  std::vector<Coords> devices = meshDevices();
  std::vector<RefTensor> locals;
  for (const Coords &c : devices) {
    RefTensor local = blockOf(x, n.spec, c);
    locals.push_back(n.unaryFirst ? unary(n.unary, local) : local);
  }
  int64_t group = meshSize(n.axes);
  RefTensor out{n.shape, std::vector<double>(ref::numElements(n.shape), 0.0)};
  for (const Coords &c : devices) {
    // The group's members' locals, by position.
    std::vector<RefTensor> members(group);
    for (size_t j = 0; j < devices.size(); ++j) {
      bool same = true;
      for (const auto &[axis, i] : devices[j])
        if (std::find(n.axes.begin(), n.axes.end(), axis) == n.axes.end())
          same = same && c.at(axis) == i;
      if (same)
        members[positionOf(devices[j], n.axes)] = locals[j];
    }
    int64_t pos = positionOf(c, n.axes);
    RefTensor sum = members[0], max = members[0];
    for (int64_t q = 1; q < group; ++q) {
      sum = ref::add(sum, members[q]);
      max = ref::maximum(max, members[q]);
    }
    RefTensor result;
    switch (n.collective) {
    case Collective::Psum:
      result = sum;
      break;
    case Collective::Pmean:
      result = ref::mul(sum, RefTensor{{}, {1.0 / double(group)}});
      break;
    case Collective::Pmax:
      result = max;
      break;
    case Collective::AllGather:
      result = ref::concatenate(members, n.axis);
      break;
    case Collective::PsumScatter:
      result = piece(sum, n.axis, group, pos);
      break;
    case Collective::AllToAll: {
      std::vector<RefTensor> received;
      for (const RefTensor &m : members)
        received.push_back(piece(m, n.axis, group, pos));
      result = ref::concatenate(received, n.axis2);
      break;
    }
    case Collective::Ppermute:
      result = ref::map(members[pos], [](double) { return 0.0; });
      for (auto [source, target] : n.pairs)
        if (target == pos)
          result = members[source];
      break;
    case Collective::AxisIndex:
      result = ref::add(members[pos], RefTensor{{}, {double(pos)}});
      break;
    }
    Dims starts;
    for (size_t d = 0; d < n.outSpec.size(); ++d)
      starts.push_back(positionOf(c, n.outSpec[d]) * result.shape[d]);
    out = ref::dynamicUpdateSlice(out, result, starts);
  }
  return out;
}

Tensor LoomBackend::shardMap(const Node &n, const Tensor &x) {
  MeshAxes axes(n.axes);
  auto body = [&](const Tensor &local) -> Tensor {
    Tensor t = n.unaryFirst ? unary(n.unary, local) : local;
    switch (n.collective) {
    case Collective::Psum:
      return psum(t, axes);
    case Collective::Pmean:
      return pmean(t, axes);
    case Collective::Pmax:
      return pmax(t, axes);
    case Collective::AllGather:
      return all_gather(t, axes, n.axis);
    case Collective::PsumScatter:
      return psum_scatter(t, axes, n.axis);
    case Collective::AllToAll:
      return all_to_all(t, axes, n.axis, n.axis2);
    case Collective::Ppermute:
      return ppermute(t, axes, n.pairs);
    case Collective::AxisIndex:
      return t + astype(axis_index(axes), t.dtype());
    }
    return t;
  };
  return shard_map(body, *mesh, {partitionSpec(n.spec)}, {partitionSpec(n.outSpec)})(x);
}

} // namespace loom::programs
