// A timeline of what the host and every device did, written as a Chrome trace (JSON; opens in
// Perfetto and chrome://tracing). `LOOM_PROFILE=trace.json` turns it on for the whole process
// and writes the file when the process exits; programs compiled while it is on call the
// profiler around each kernel. Tracks: "host" (tracing, compiling, each dispatch, training
// steps), "device N" (each launch with its kernels and BLAS calls) and "device N collectives"
// (each collective from its start to the end of its wait, with its bytes).
#ifndef LOOM_RUNTIME_PROFILER_H
#define LOOM_RUNTIME_PROFILER_H

#include "runtime/Status.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace loom::rt::profile {

namespace detail {
extern std::atomic<bool> recording;
} // namespace detail

/// Whether events are being recorded (a relaxed load: cheap enough for every kernel).
inline bool enabled() { return detail::recording.load(std::memory_order_relaxed); }

/// Starts recording into a trace written to `path` by stop() (or at exit). LOOM_PROFILE=PATH
/// does this before the first program compiles.
void start(const std::string &path);
/// Writes the trace of everything recorded so far and stops recording; an error names the
/// file. A no-op when not recording.
Status stop();

/// Nanoseconds on the trace's clock: now, and at a steady_clock time point.
int64_t now();
int64_t at(std::chrono::steady_clock::time_point time);

/// The track of the host's work.
inline constexpr int hostTrack = -1;
/// The device whose launch this thread runs (hostTrack outside launches).
int currentTrack();
/// A device's tracks: its launches, kernels and BLAS calls; its collectives.
inline int deviceTrack(int device) { return 2 * device; }
inline int collectivesTrack(int device) { return 2 * device + 1; }

/// Records `name` on `track` from `start` to `end` (nanoseconds from now()); `args` is the
/// text of a JSON object ("" for none).
void record(int track, std::string name, const char *category, int64_t start, int64_t end,
            std::string args = "");

/// Records its lifetime as one event named `prefix` + `name`; nothing when not recording (the
/// name is then not even built: spans sit on every call, launch and step).
class Span {
public:
  Span(int track, const char *category, std::string_view prefix, std::string_view name = {},
       std::string args = "");
  ~Span();
  Span(const Span &) = delete;
  Span &operator=(const Span &) = delete;

private:
  int track;
  std::string name;
  const char *category;
  std::string args;
  int64_t start = -1;
};

/// Marks this thread as running `device`'s launch of `program` for its lifetime: the launch
/// is an event on the device's track, and kernels, BLAS calls and collectives the thread
/// records meanwhile go on that device's tracks.
class LaunchScope {
public:
  LaunchScope(int device, const std::string &program);
  ~LaunchScope();
  LaunchScope(const LaunchScope &) = delete;
  LaunchScope &operator=(const LaunchScope &) = delete;

private:
  Span span;
  int previous;
};

} // namespace loom::rt::profile

extern "C" {
/// Called by instrumented programs (loom-profile-kernels) before and after each kernel;
/// `kernel` is the address of its NUL-terminated name.
void loom_rt_profile_begin();
void loom_rt_profile_end(int64_t kernel);
}

#endif // LOOM_RUNTIME_PROFILER_H
