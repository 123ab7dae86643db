// The timeline profiler (see Profiler.h): events are kept in memory, under one lock, and
// written as Chrome trace JSON when recording stops.
#include "runtime/Profiler.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <vector>

#include <unistd.h>

namespace loom::rt::profile {

std::atomic<bool> detail::recording{false};

namespace {

struct Event {
  int track;
  std::string name;
  const char *category;
  int64_t start, end;
  std::string args;
};

struct State {
  std::mutex mutex;
  std::string path;
  std::vector<Event> events;
  bool exitHookInstalled = false;
};

/// Never destroyed: devices may record while the process's statics go away.
State &state() {
  static State *s = new State();
  return *s;
}

const std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now();

thread_local int track = hostTrack;
thread_local std::vector<int64_t> kernelStarts;

/// Chrome trace threads: the host first, then each device's compute and collectives tracks.
int threadId(int t) { return t + 1; }

std::string trackName(int t) {
  if (t == hostTrack)
    return "host";
  int device = t / 2;
  return "device " + std::to_string(device) + (t % 2 ? " collectives" : "");
}

nlohmann::json toJson(const Event &e) {
  nlohmann::json event = {{"name", e.name},
                          {"cat", e.category},
                          {"ph", "X"},
                          {"pid", 1},
                          {"tid", threadId(e.track)},
                          {"ts", e.start / 1000.0},
                          {"dur", (e.end - e.start) / 1000.0}};
  if (!e.args.empty())
    event["args"] = nlohmann::json::parse(e.args, nullptr, /*allow_exceptions=*/false);
  return event;
}

/// Starts recording from LOOM_PROFILE before main runs.
struct FromEnvironment {
  FromEnvironment() {
    if (const char *path = std::getenv("LOOM_PROFILE"); path && *path)
      start(path);
  }
} fromEnvironment;

} // namespace

int64_t at(std::chrono::steady_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time - origin).count();
}

int64_t now() { return at(std::chrono::steady_clock::now()); }

void start(const std::string &path) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  s.path = path;
  s.events.clear();
  if (!s.exitHookInstalled) {
    s.exitHookInstalled = true;
    std::atexit([] {
      if (Status status = stop(); !status.isOk())
        std::fprintf(stderr, "loom: %s\n", status.message().c_str());
    });
  }
  detail::recording.store(true);
}

Status stop() {
  State &s = state();
  if (!detail::recording.exchange(false))
    return Status::ok();
  std::vector<Event> events;
  std::string path;
  {
    std::lock_guard lock(s.mutex);
    events = std::move(s.events);
    s.events.clear();
    path = s.path;
  }
  nlohmann::json trace = {{"displayTimeUnit", "ms"}, {"traceEvents", nlohmann::json::array()}};
  nlohmann::json &out = trace["traceEvents"];
  std::set<int> tracks = {hostTrack};
  for (const Event &e : events)
    tracks.insert(e.track);
  for (int t : tracks) {
    out.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", threadId(t)},
                   {"args", {{"name", trackName(t)}}}});
    out.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 1},
                   {"tid", threadId(t)}, {"args", {{"sort_index", threadId(t)}}}});
  }
  out.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1},
                 {"args", {{"name", "loom"}}}});
  for (const Event &e : events)
    out.push_back(toJson(e));
  // Written next to the target and renamed over it: a reader never sees half a trace.
  std::string temporary = path + ".tmp-" + std::to_string(getpid());
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << trace.dump() << '\n';
    if (!file.flush())
      return Status::error(StatusCode::Internal,
                           "cannot write the profile to '" + temporary + "'");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return Status::error(StatusCode::Internal, "cannot write the profile to '" + path + "'");
  }
  return Status::ok();
}

int currentTrack() { return track; }


void record(int t, std::string name, const char *category, int64_t start, int64_t end,
            std::string args) {
  if (!enabled())
    return;
  State &s = state();
  std::lock_guard lock(s.mutex);
  s.events.push_back({t, std::move(name), category, start, end, std::move(args)});
}

Span::Span(int track, const char *category, std::string_view prefix, std::string_view name,
           std::string args)
    : track(track), category(category) {
  if (!enabled())
    return;
  this->name.append(prefix).append(name);
  this->args = std::move(args);
  start = now();
}

Span::~Span() {
  if (start >= 0)
    record(track, std::move(name), category, start, now(), std::move(args));
}

LaunchScope::LaunchScope(int device, const std::string &program)
    : span(deviceTrack(device), "launch", program), previous(track) {
  track = deviceTrack(device);
}

LaunchScope::~LaunchScope() { track = previous; }

} // namespace loom::rt::profile

using namespace loom::rt;

extern "C" void loom_rt_profile_begin() { profile::kernelStarts.push_back(profile::now()); }

extern "C" void loom_rt_profile_end(int64_t kernel) {
  if (profile::kernelStarts.empty())
    return;
  int64_t start = profile::kernelStarts.back();
  profile::kernelStarts.pop_back();
  profile::record(profile::track, reinterpret_cast<const char *>(kernel), "kernel", start,
                  profile::now());
}
