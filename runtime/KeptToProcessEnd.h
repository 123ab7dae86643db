// Memory a nonblocking MPI operation may still write into after its owner is gone.
#ifndef LOOM_RUNTIME_KEPTTOPROCESSEND_H
#define LOOM_RUNTIME_KEPTTOPROCESSEND_H

#include <memory>
#include <mutex>
#include <vector>

namespace loom::rt {

/// Keeps `object` alive until the process exits (it is never freed): the buffers of an MPI
/// operation that cannot be cancelled (a collective whose late peers may still send) must
/// outlive the backend that posted it.
inline void keepToProcessEnd(std::shared_ptr<void> object) {
  static std::mutex mutex;
  static auto *kept = new std::vector<std::shared_ptr<void>>(); // never freed
  std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(std::move(object));
}

} // namespace loom::rt

#endif // LOOM_RUNTIME_KEPTTOPROCESSEND_H
