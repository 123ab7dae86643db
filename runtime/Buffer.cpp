// Buffer allocation with per-device accounting, and the host read-back.
#include "runtime/Buffer.h"
#include "runtime/HostAllocator.h"

#include "runtime/Device.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace loom::rt {

Buffer::Buffer(Device &owner, std::shared_ptr<detail::MemoryStats> stats, void *storage,
               size_t bytes, std::shared_ptr<Event> ready, bool counted)
    : owner(owner), platform(owner.sharedPlatform()), stats(std::move(stats)), storage(storage),
      bytes(bytes), readyEvent(ready ? std::move(ready) : Event::create()) {
  if (!counted)
    this->stats->add(bytes);
}

Buffer::~Buffer() {
  // A donated buffer's memory belongs to the buffer it was donated to.
  if (donated.load())
    return;
  platform->release(storage, bytes);
  stats->remove(bytes);
}

std::shared_ptr<Buffer> Buffer::donate(std::shared_ptr<Event> ready) {
  if (donated.exchange(true))
    return nullptr;
  return std::shared_ptr<Buffer>(
      new Buffer(owner, stats, storage, bytes, std::move(ready), /*counted=*/true));
}

std::shared_ptr<Buffer> Buffer::allocate(Device &device, size_t bytes,
                                         std::shared_ptr<Event> ready) {
  // A zero-size buffer still gets one line so that data() is a real pointer
  // kernels may receive.
  void *storage = device.platform().allocate(bytes);
  if (!storage)
    return nullptr;
  return std::shared_ptr<Buffer>(
      new Buffer(device, device.memoryStats, storage, bytes, std::move(ready)));
}

std::shared_ptr<Buffer> Buffer::fromHost(Device &device, const void *data,
                                         size_t bytes) {
  if (!data && bytes != 0)
    return nullptr;
  auto buffer = allocate(device, bytes);
  if (!buffer)
    return nullptr;
  if (bytes != 0 && !buffer->platform->copyFromHost(buffer->data(), data, bytes).isOk())
    return nullptr; // the device failed: a lost GPU, nothing a caller can tell from no memory
  buffer->ready()->signal(Status::ok());
  return buffer;
}

Status copyToHost(const Buffer &buffer, void *dst, size_t bytes) {
  if (bytes != buffer.size())
    return Status::error(
        StatusCode::InvalidArgument,
        "copyToHost: buffer has " + std::to_string(buffer.size()) +
            " bytes, destination has " + std::to_string(bytes));
  if (!dst && bytes != 0)
    return Status::error(StatusCode::InvalidArgument,
                         "copyToHost: destination is null");
  auto donatedError = [] {
    return Status::error(StatusCode::FailedPrecondition,
                         "copyToHost: the buffer was donated to a launch that "
                         "overwrites it; read that launch's output instead");
  };
  if (buffer.isDonated())
    return donatedError();
  Status status = buffer.ready()->wait();
  if (!status.isOk())
    return status;
  std::shared_lock<std::shared_mutex> lock(buffer.hostReadLock());
  if (buffer.isDonated()) // donated while we waited
    return donatedError();
  return buffer.platform->copyToHost(dst, buffer.data(), bytes);
}

} // namespace loom::rt
