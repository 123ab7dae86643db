// The host platform: CPU devices' memory is the process's (see Platform.h).
#include "runtime/Platform.h"
#include "runtime/HostAllocator.h"

#include <cstring>

namespace loom::rt {

namespace {
class HostPlatform final : public Platform {
public:
  const char *name() const override { return "cpu"; }
  void *allocate(size_t bytes) override { return HostAllocator::instance().allocate(bytes); }
  void release(void *memory, size_t bytes) override {
    HostAllocator::instance().release(memory, bytes);
  }
  Status copyFromHost(void *dst, const void *src, size_t bytes) override {
    return copy(dst, src, bytes);
  }
  Status copyToHost(void *dst, const void *src, size_t bytes) override {
    return copy(dst, src, bytes);
  }
  Status copyWithin(void *dst, const void *src, size_t bytes) override {
    return copy(dst, src, bytes);
  }

private:
  static Status copy(void *dst, const void *src, size_t bytes) {
    if (bytes != 0)
      std::memcpy(dst, src, bytes);
    return Status::ok();
  }
};
} // namespace

std::shared_ptr<Platform> hostPlatform() {
  static std::shared_ptr<Platform> host = std::make_shared<HostPlatform>();
  return host;
}

} // namespace loom::rt
