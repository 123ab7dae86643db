// SIGINT and SIGTERM as requests to stop (see Interrupts.h).
#include "frontend/train/Interrupts.h"
#include "frontend/Error.h"
#include "runtime/Distributed.h"

#include <atomic>
#include <cstdint>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace {

/// The signal recorded by the first delivery (0: none). Lock-free, so the handler may write it.
std::atomic<int> requested{0};
static_assert(std::atomic<int>::is_always_lock_free);

void onSignal(int signal) {
  int none = 0;
  if (!requested.compare_exchange_strong(none, signal)) {
    // A second interrupt: the default action (the process ends with this signal's status).
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  // Only async-signal-safe calls here: write(2), not stdio.
  const char message[] = "\nloom-train: interrupted; stopping after the current step "
                         "(interrupt again to stop at once)\n";
  ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
}

} // namespace

void loom::train::watchInterrupts() {
  static const bool installed = [] {
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART; // a blocking call in progress resumes rather than fails
    for (int signal : {SIGINT, SIGTERM}) {
      // A signal the process was started ignoring stays ignored: a shell starts background
      // jobs ignoring SIGINT, so that Ctrl-C reaches only the job in the foreground.
      struct sigaction current;
      if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN)
        continue;
      sigaction(signal, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

int loom::train::interruptSignal() { return requested.load(std::memory_order_relaxed); }

namespace loom::train {

JobInterrupt InterruptAgreement::afterStep() {
  const rt::distributed::ProcessInfo &me = rt::distributed::process();
  if (me.count == 1)
    return {interruptSignal(), 0};
  // The largest signal wins, and among processes given it, the last.
  asked.emplace_back(interruptSignal() ? (int64_t{interruptSignal()} << 32) | me.index : 0);
  if (static_cast<int>(asked.size()) <= lag)
    return {};
  rt::StatusOr<int64_t> agreed = asked.front().get();
  asked.pop_front();
  if (!agreed.ok())
    throw Error("asking the other processes whether one was interrupted: " +
                agreed.status().message());
  return {static_cast<int>(*agreed >> 32), static_cast<int>(*agreed & 0xffffffff)};
}

void InterruptAgreement::drain() {
  for (; !asked.empty(); asked.pop_front())
    if (rt::StatusOr<int64_t> agreed = asked.front().get(); !agreed.ok())
      throw Error("asking the other processes whether one was interrupted: " +
                  agreed.status().message());
}

} // namespace loom::train

std::string loom::train::signalName(int signal) {
  if (signal == SIGINT)
    return "SIGINT";
  if (signal == SIGTERM)
    return "SIGTERM";
  return "signal " + std::to_string(signal);
}
