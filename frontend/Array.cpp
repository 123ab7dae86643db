// Implementation of loom::Array (see Array.h).
#include "frontend/Array.h"

#include "frontend/MeshPlacement.h"
#include "runtime/Client.h"
#include "runtime/Device.h"

#include <algorithm>
#include <fmt/format.h>

using namespace loom;

Array::Array(std::shared_ptr<rt::Buffer> buffer, Shape shape, DType dtype)
    : data(std::move(buffer)), dims(std::move(shape)), type(dtype) {}

Array::Array(std::vector<std::shared_ptr<rt::Buffer>> parts, Shape shape, DType dtype,
             NamedSharding sharding)
    : shards(std::move(parts)), layout(std::move(sharding)), dims(std::move(shape)),
      type(dtype) {}

Array Array::device_put(const void *host, size_t bytes, const Shape &shape, DType dtype,
                        const NamedSharding &sharding) {
  if (!sharding.specified())
    return fromBytes(host, bytes, shape, dtype);
  sharding.check(shape, "device_put " + loom::describe(dtype, shape));
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  if (bytes != static_cast<size_t>(count) * rt::byteSize(dtype))
    throw Error(fmt::format("device_put: {} bytes of host data do not fill {}", bytes,
                            loom::describe(dtype, shape)));
  rt::Client &client = rt::Client::defaultClient();
  int devices = static_cast<int>(sharding.mesh().numDevices());
  if (devices > client.deviceCount())
    throw Error(fmt::format("device_put: the mesh {} has {} devices but the client has {}; "
                            "set LOOM_CPU_DEVICES={}",
                            sharding.mesh().describe(), devices, client.deviceCount(), devices));
  rt::MeshTopology mesh = detail::topologyOf(sharding.mesh());
  Shape local = detail::localShape(shape, sharding);
  size_t localBytes = rt::byteSize(dtype);
  for (int64_t d : local)
    localBytes *= d;
  std::vector<char> part(localBytes);
  std::vector<std::shared_ptr<rt::Buffer>> parts;
  for (int d = 0; d < devices; ++d) {
    detail::copyPart(shape, sharding, mesh, d, rt::byteSize(dtype),
                     static_cast<char *>(const_cast<void *>(host)), part.data(), true);
    parts.push_back(rt::Buffer::fromHost(client.device(d), part.data(), part.size()));
  }
  return Array(std::move(parts), shape, dtype, sharding);
}

int64_t Array::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

Array Array::fromBytes(const void *host, size_t bytes, const Shape &shape, DType dtype,
                       int device) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      throw Error(fmt::format("Array: negative dim in shape [{}]", fmt::join(shape, ",")));
    count *= d;
  }
  if (bytes != static_cast<size_t>(count) * rt::byteSize(dtype))
    throw Error(fmt::format("Array: {} bytes of host data do not fill {} ({} bytes)", bytes,
                            loom::describe(dtype, shape), count * rt::byteSize(dtype)));
  rt::Client &client = rt::Client::defaultClient();
  if (device < 0 || device >= client.deviceCount())
    throw Error(fmt::format("Array: device {} does not exist (the client has {})", device,
                            client.deviceCount()));
  return Array(rt::Buffer::fromHost(client.device(device), host, bytes), shape, dtype);
}

bool Array::is_ready() const {
  if (isSharded())
    return std::all_of(shards.begin(), shards.end(),
                       [](const auto &b) { return b->ready()->isReady(); });
  return data && data->ready()->isReady();
}

void Array::block_until_ready() const {
  if (!valid())
    throw Error("block_until_ready: empty array");
  for (const auto &buffer : isSharded() ? shards : std::vector<std::shared_ptr<rt::Buffer>>{data})
    if (rt::Status status = buffer->ready()->wait(); !status.isOk())
      throw Error(status.message());
}

void Array::checkHostType(DType wanted, const char *what) const {
  if (!valid())
    throw Error(fmt::format("{}: empty array", what));
  if (wanted != type)
    throw Error(fmt::format("{}: array {} read as {}", what, describe(), rt::name(wanted)));
}

void Array::copyOut(void *dst, size_t bytes) const {
  if (!isSharded()) {
    rt::Status status = rt::copyToHost(*data, dst, bytes);
    if (!status.isOk())
      throw Error(status.message());
    return;
  }
  // Each device's part goes to its place in the global value.
  rt::MeshTopology mesh = detail::topologyOf(layout.mesh());
  for (size_t d = 0; d < shards.size(); ++d) {
    std::vector<char> part(shards[d]->size());
    rt::Status status = rt::copyToHost(*shards[d], part.data(), part.size());
    if (!status.isOk())
      throw Error(fmt::format("device {}: {}", d, status.message()));
    detail::copyPart(dims, layout, mesh, static_cast<int>(d), rt::byteSize(type),
                     static_cast<char *>(dst), part.data(), false);
  }
}
