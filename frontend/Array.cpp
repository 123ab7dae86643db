// Implementation of loom::Array (see Array.h).
#include "frontend/Array.h"

#include "runtime/Client.h"
#include "runtime/Device.h"

#include <fmt/format.h>

using namespace loom;

Array::Array(std::shared_ptr<rt::Buffer> buffer, Shape shape, DType dtype)
    : data(std::move(buffer)), dims(std::move(shape)), type(dtype) {}

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

bool Array::is_ready() const { return data && data->ready()->isReady(); }

void Array::block_until_ready() const {
  if (!data)
    throw Error("block_until_ready: empty array");
  rt::Status status = data->ready()->wait();
  if (!status.isOk())
    throw Error(status.message());
}

void Array::checkHostType(DType wanted, const char *what) const {
  if (!data)
    throw Error(fmt::format("{}: empty array", what));
  if (wanted != type)
    throw Error(fmt::format("{}: array {} read as {}", what, describe(), rt::name(wanted)));
}

void Array::copyOut(void *dst, size_t bytes) const {
  rt::Status status = rt::copyToHost(*data, dst, bytes);
  if (!status.isOk())
    throw Error(status.message());
}
