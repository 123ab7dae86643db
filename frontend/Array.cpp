// Implementation of loom::Array (see Array.h).
#include "frontend/Array.h"

#include "frontend/MeshPlacement.h"
#include "runtime/Client.h"
#include "runtime/Device.h"
#include "runtime/Distributed.h"

#include <algorithm>
#include <set>
#include <fmt/format.h>

using namespace loom;

Array::Array(std::shared_ptr<rt::Buffer> buffer, Shape shape, DType dtype)
    : impl(std::make_shared<const State>(
          State{std::move(buffer), {}, NamedSharding(), std::move(shape), dtype})) {}

Array::Array(std::vector<std::shared_ptr<rt::Buffer>> parts, Shape shape, DType dtype,
             NamedSharding sharding)
    : impl(std::make_shared<const State>(
          State{nullptr, std::move(parts), std::move(sharding), std::move(shape), dtype})) {}

const Array::State &Array::emptyState() {
  static const State empty;
  return empty;
}

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
  char *global = static_cast<char *>(const_cast<void *>(host));
  return fillShards("device_put", shape, dtype, sharding,
                    [&](const std::vector<int64_t> &start, const Shape &box, char *out) {
                      detail::copyBox(shape, start, box, rt::byteSize(dtype), global, out,
                                      /*toLocal=*/true);
                    });
}

Array Array::make_array_from_callback(const Shape &shape, DType dtype,
                                      const NamedSharding &sharding,
                                      const BoxCallback &callback) {
  if (!sharding.specified()) {
    size_t bytes = rt::byteSize(dtype);
    for (int64_t d : shape)
      bytes *= d;
    std::vector<char> whole(bytes);
    callback(std::vector<int64_t>(shape.size(), 0), shape, whole.data());
    return fromBytes(whole.data(), whole.size(), shape, dtype);
  }
  sharding.check(shape, "make_array_from_callback " + loom::describe(dtype, shape));
  return fillShards("make_array_from_callback", shape, dtype, sharding, callback);
}

Array Array::fillShards(const char *what, const Shape &shape, DType dtype,
                        const NamedSharding &sharding, const BoxCallback &callback) {
  rt::Client &client = rt::Client::defaultClient();
  int devices = static_cast<int>(sharding.mesh().numDevices());
  if (devices > client.deviceCount())
    throw Error(fmt::format("{}: the mesh {} has {} devices but the client has {}; set "
                            "LOOM_CPU_DEVICES={}",
                            what, sharding.mesh().describe(), devices, client.deviceCount(),
                            devices / rt::distributed::process().count));
  rt::MeshTopology mesh = detail::topologyOf(sharding.mesh());
  Shape local = detail::localShape(shape, sharding);
  size_t localBytes = rt::byteSize(dtype);
  for (int64_t d : local)
    localBytes *= d;
  std::vector<char> part(localBytes);
  std::vector<std::shared_ptr<rt::Buffer>> parts;
  for (int d = 0; d < devices; ++d) {
    if (!client.isLocal(d)) { // another process fills it
      parts.push_back(nullptr);
      continue;
    }
    callback(detail::partStart(shape, sharding, mesh, d), local, part.data());
    parts.push_back(rt::Buffer::fromHost(client.device(d), part.data(), part.size()));
  }
  return Array(std::move(parts), shape, dtype, sharding);
}

int64_t Array::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape())
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
  if (device < 0 || device >= client.localDeviceCount())
    throw Error(fmt::format("Array: device {} does not exist (this process has {})", device,
                            client.localDeviceCount()));
  return Array(rt::Buffer::fromHost(client.device(client.firstLocalDevice() + device), host,
                                    bytes),
               shape, dtype);
}

bool Array::is_ready() const {
  if (isSharded())
    return std::all_of(shardBuffers().begin(), shardBuffers().end(),
                       [](const auto &b) { return !b || b->ready()->isReady(); });
  return buffer() && buffer()->ready()->isReady();
}

void Array::block_until_ready() const {
  if (!valid())
    throw Error("block_until_ready: empty array");
  for (const auto &part :
       isSharded() ? shardBuffers() : std::vector<std::shared_ptr<rt::Buffer>>{buffer()})
    if (!part)
      continue;
    else if (rt::Status status = part->ready()->wait(); !status.isOk())
      throw Error(status.message());
}

void Array::checkHostType(DType wanted, const char *what) const {
  if (!valid())
    throw Error(fmt::format("{}: empty array", what));
  if (wanted != dtype())
    throw Error(fmt::format("{}: array {} read as {}", what, describe(), rt::name(wanted)));
}

void Array::copyOut(void *dst, size_t bytes) const {
  if (!isSharded()) {
    rt::Status status = rt::copyToHost(*buffer(), dst, bytes);
    if (!status.isOk())
      throw Error(status.message());
    return;
  }
  // Each device's part goes to its place in the global value. A part held by another
  // process is read from a local copy of it, if there is one.
  const std::vector<std::shared_ptr<rt::Buffer>> &shards = shardBuffers();
  rt::MeshTopology mesh = detail::topologyOf(sharding().mesh());
  std::vector<std::vector<int64_t>> starts;
  for (size_t d = 0; d < shards.size(); ++d)
    starts.push_back(detail::partStart(shape(), sharding(), mesh, static_cast<int>(d)));
  for (size_t d = 0; d < shards.size(); ++d) {
    size_t from = d;
    if (!shards[d]) {
      for (size_t c = 0; c < shards.size() && from == d; ++c)
        if (shards[c] && starts[c] == starts[d])
          from = c;
      if (from == d) {
        const rt::Client &client = rt::Client::defaultClient();
        throw Error(fmt::format(
            "to_host: array {} split as {}: the part of device {} lives on process {}, and "
            "this {} holds devices {}-{} with no copy of it; return it replicated (or read "
            "it on that process)",
            describe(), sharding().describe(), d, d / client.localDeviceCount(),
            rt::distributed::describeProcess(), client.firstLocalDevice(),
            client.firstLocalDevice() + client.localDeviceCount() - 1));
      }
      continue; // its copy is read in its own turn
    }
    std::vector<char> part(shards[d]->size());
    rt::Status status = rt::copyToHost(*shards[d], part.data(), part.size());
    if (!status.isOk())
      throw Error(fmt::format("device {}: {}", d, status.message()));
    detail::copyPart(shape(), sharding(), mesh, static_cast<int>(d), rt::byteSize(dtype()),
                     static_cast<char *>(dst), part.data(), false);
  }
}

std::pair<int64_t, int64_t> Array::processRowSpan(const NamedSharding &sharding,
                                                  const Shape &globalShape) {
  if (globalShape.empty())
    return {0, 0};
  const rt::Client &client = rt::Client::defaultClient();
  if (rt::distributed::process().count == 1 || !sharding.specified())
    return {0, globalShape[0]};
  rt::MeshTopology mesh = detail::topologyOf(sharding.mesh());
  int64_t partRows = detail::localShape(globalShape, sharding)[0];
  std::set<int64_t> starts;
  for (int d = 0; d < static_cast<int>(sharding.mesh().numDevices()); ++d)
    if (client.isLocal(d))
      starts.insert(detail::partStart(globalShape, sharding, mesh, d)[0]);
  if (starts.empty())
    return {0, 0};
  int64_t first = *starts.begin(), count = *starts.rbegin() + partRows - first;
  if (count != static_cast<int64_t>(starts.size()) * partRows)
    throw Error(fmt::format("{}: the rows of a [{}] batch split as {} that this process's "
                            "devices hold are not one contiguous range",
                            rt::distributed::describeProcess(), fmt::join(globalShape, ","),
                            sharding.describe()));
  return {first, count};
}

Array Array::fromProcessLocal(const NamedSharding &sharding, const void *localData, size_t bytes,
                              const Shape &globalShape, DType dtype) {
  if (rt::distributed::process().count == 1)
    return device_put(localData, bytes, globalShape, dtype, sharding);
  std::string what = "make_array_from_process_local_data " + loom::describe(dtype, globalShape);
  sharding.check(globalShape, what);
  size_t globalBytes = rt::byteSize(dtype);
  for (int64_t d : globalShape)
    globalBytes *= d;
  auto [first, count] = processRowSpan(sharding, globalShape);
  size_t rowBytes = globalShape.empty() || globalShape[0] == 0 ? 0 : globalBytes / globalShape[0];
  if (bytes != count * rowBytes)
    throw Error(fmt::format("{}: {} holds rows {}-{} ({} bytes) but got {} bytes of local data",
                            what, rt::distributed::describeProcess(), first, first + count - 1,
                            count * rowBytes, bytes));
  // The global value with this process's rows in place (the other rows are never read).
  std::vector<char> global(globalBytes);
  std::memcpy(global.data() + first * rowBytes, localData, bytes);
  return device_put(global.data(), global.size(), globalShape, dtype, sharding);
}
