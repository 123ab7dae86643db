// Device memory and the event that says when its contents exist. Buffers are
// shared: the caller and every in-flight launch that reads or writes one hold
// a reference, so the caller may drop its own at any time.
#ifndef LOOM_RUNTIME_BUFFER_H
#define LOOM_RUNTIME_BUFFER_H

#include "runtime/Event.h"
#include "runtime/Platform.h"
#include "runtime/Status.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <shared_mutex>

namespace loom::rt {

class Device;
namespace detail {
struct MemoryStats;
} // namespace detail

/// A block of memory on one device (host memory for a CPU device, GPU memory for a GPU;
/// compiled code for the device reads data() directly, the host reads it through
/// copyToHost), 64-byte aligned, plus the event that is
/// signalled once its contents have been produced (with an error if the work
/// producing them failed).
///
/// The owning Device must outlive the calls to device(); freeing a buffer
/// after its device is gone is safe.
class Buffer {
public:
  /// Byte alignment of every buffer's data.
  static constexpr size_t alignment = 64;

  /// A buffer of `bytes` uninitialised bytes on `device` whose ready() event
  /// is unsignalled: whoever fills it signals it. Zero bytes is allowed (data()
  /// is still a valid, aligned pointer). Returns nullptr when memory runs out.
  /// `ready` (new if null) may be shared: a launch's outputs are ready together.
  static std::shared_ptr<Buffer> allocate(Device &device, size_t bytes,
                                          std::shared_ptr<Event> ready = nullptr);

  /// A buffer on `device` holding a copy of `bytes` bytes at `data`; it is
  /// ready at once. Returns nullptr when memory runs out (or a GPU fails the copy), or when
  /// `data` is null and `bytes` is not zero.
  static std::shared_ptr<Buffer> fromHost(Device &device, const void *data,
                                          size_t bytes);

  /// Donation: a new buffer that takes over this one's memory (not yet ready),
  /// for a launch that overwrites it in place. This buffer is marked donated:
  /// launches and host reads of it fail from now on, while work enqueued
  /// earlier on the device still reads the old contents (the stream is in
  /// order). Returns nullptr if it was donated already. `ready` as for allocate.
  std::shared_ptr<Buffer> donate(std::shared_ptr<Event> ready = nullptr);
  /// Whether donate() has given the memory away.
  bool isDonated() const { return donated.load(); }

  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer();

  /// The buffer's memory. Only read it once ready() is signalled ok.
  void *data() { return storage; }
  const void *data() const { return storage; }
  /// Size in bytes, as requested (the allocation is rounded up to 64 bytes).
  size_t size() const { return bytes; }
  /// The device the memory lives on.
  Device &device() const { return owner; }
  /// Signalled when the contents have been produced, or with the error that
  /// prevented producing them.
  const std::shared_ptr<Event> &ready() const { return readyEvent; }

  /// Held shared by host reads and exclusively by a launch writing the memory
  /// of a donated buffer, so a read in progress finishes before the write.
  std::shared_mutex &hostReadLock() const { return hostReads; }

private:
  friend Status copyToHost(const Buffer &buffer, void *dst, size_t bytes);
  Buffer(Device &owner, std::shared_ptr<detail::MemoryStats> stats, void *storage,
         size_t bytes, std::shared_ptr<Event> ready, bool counted = false);

  Device &owner;
  /// The device's platform, which frees the memory (even after the device is gone).
  std::shared_ptr<Platform> platform;
  std::shared_ptr<detail::MemoryStats> stats;
  void *storage;
  size_t bytes;
  std::shared_ptr<Event> readyEvent;
  std::atomic<bool> donated{false};
  mutable std::shared_mutex hostReads;
};

/// Waits for `buffer` to be ready, then copies its `bytes` bytes to `dst`.
/// Returns the buffer's error if the work producing it failed,
/// InvalidArgument (without waiting) if `bytes` is not the buffer's size, and
/// FailedPrecondition if the buffer was donated.
Status copyToHost(const Buffer &buffer, void *dst, size_t bytes);

} // namespace loom::rt

#endif // LOOM_RUNTIME_BUFFER_H
