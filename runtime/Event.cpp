// Event: a mutex, a condition variable and the callbacks still to run.
#include "runtime/Event.h"

#include <string>

namespace loom::rt {

std::shared_ptr<Event> Event::create() { return std::make_shared<Event>(); }

std::shared_ptr<Event> Event::ready() {
  auto event = create();
  event->signal(Status::ok());
  return event;
}

void Event::signal(Status status) {
  std::vector<std::function<void(const Status &)>> toRun;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (result)
      return;
    result = status;
    toRun.swap(callbacks);
  }
  signalled.notify_all();
  // Callbacks run unlocked so that they may touch this event again.
  for (auto &callback : toRun)
    callback(status);
}

bool Event::isReady() const {
  std::lock_guard<std::mutex> lock(mutex);
  return result.has_value();
}

Status Event::wait() const {
  std::unique_lock<std::mutex> lock(mutex);
  signalled.wait(lock, [this] { return result.has_value(); });
  return *result;
}

Status Event::waitFor(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex);
  if (!signalled.wait_for(lock, timeout, [this] { return result.has_value(); }))
    return Status::error(StatusCode::DeadlineExceeded,
                         "event not signalled within " +
                             std::to_string(timeout.count()) + " ms");
  return *result;
}

void Event::onReady(std::function<void(const Status &)> callback) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!result) {
      callbacks.push_back(std::move(callback));
      return;
    }
  }
  callback(*result);
}

} // namespace loom::rt
