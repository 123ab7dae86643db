// The runtime's one asynchronous primitive: a one-shot completion that work
// on a device signals and that buffers, other devices and the host wait on.
#ifndef LOOM_RUNTIME_EVENT_H
#define LOOM_RUNTIME_EVENT_H

#include "runtime/Status.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace loom::rt {

/// A one-shot completion carrying a Status, shared by its producers and
/// consumers.
///
/// An event starts unsignalled. The first signal() fixes its status for good;
/// later signals are ignored, so racing producers (a failure path and a normal
/// path) need no coordination. Every method is thread-safe. Callbacks
/// registered with onReady() run exactly once, outside the event's lock, on
/// the thread that signals (or on the registering thread if the event was
/// already signalled), so they may call back into the event.
class Event {
public:
  /// A new, unsignalled event.
  static std::shared_ptr<Event> create();
  /// An event already signalled ok.
  static std::shared_ptr<Event> ready();

  Event() = default;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  /// Signals the event with `status`; only the first call has an effect.
  void signal(Status status);

  /// True once the event has been signalled (ok or with an error).
  bool isReady() const;

  /// Blocks until the event is signalled; returns the status it carries.
  Status wait() const;

  /// Like wait(), but gives up after `timeout` and returns DeadlineExceeded
  /// (the event itself stays unsignalled).
  Status waitFor(std::chrono::milliseconds timeout) const;

  /// Runs `callback` with the event's status once it is signalled: at once if
  /// it already is, otherwise on the signalling thread.
  void onReady(std::function<void(const Status &)> callback);

private:
  mutable std::mutex mutex;
  mutable std::condition_variable signalled;
  std::optional<Status> result;
  std::vector<std::function<void(const Status &)>> callbacks;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_EVENT_H
