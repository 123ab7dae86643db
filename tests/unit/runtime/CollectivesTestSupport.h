// What the collectives tests share: a watchdog that ends a hung test, the fixture that holds
// one, running a function on one thread per device, and a 2-axis mesh.
#ifndef LOOM_TESTS_UNIT_RUNTIME_COLLECTIVESTESTSUPPORT_H
#define LOOM_TESTS_UNIT_RUNTIME_COLLECTIVESTESTSUPPORT_H

#include "runtime/InProcessCollectives.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace loom::rt::testsupport {

using namespace std::chrono_literals;

/// Ends the process if a test runs for longer than `limit`: a collective bug
/// shows up as a hang, and a hung test binary would stall the whole suite.
class HangGuard {
public:
  explicit HangGuard(std::chrono::seconds limit)
      : watchdog([this, limit] {
          std::unique_lock<std::mutex> lock(mutex);
          if (!done.wait_for(lock, limit, [this] { return finished; })) {
            std::fprintf(stderr, "HangGuard: test still running after %llds\n",
                         static_cast<long long>(limit.count()));
            std::_Exit(1);
          }
        }) {}
  ~HangGuard() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      finished = true;
    }
    done.notify_all();
    watchdog.join();
  }

private:
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  std::thread watchdog;
};

class CollectivesTest : public ::testing::Test {
protected:
  HangGuard guard{20s};
};

/// Runs fn(device) on one thread per device and joins them.
inline void onEveryDevice(int devices, const std::function<void(int)> &fn) {
  std::vector<std::thread> threads;
  for (int d = 0; d < devices; ++d)
    threads.emplace_back(fn, d);
  for (auto &t : threads)
    t.join();
}

/// Every member's output of `request` over devices 0..n-1 (its group and buffers filled in
/// here), member r's input being in[r], from the in-process backend: the reference the other
/// backends' collectives are checked against.
inline std::vector<std::vector<float>> inProcessOutputs(CollectiveRequest request,
                                                       const std::vector<std::vector<float>> &in) {
  int n = static_cast<int>(in.size());
  std::vector<int> devices(n);
  for (int d = 0; d < n; ++d)
    devices[d] = d;
  request.group = {devices, 0};
  auto backend = InProcessCollectives::create();
  EXPECT_TRUE(backend.ok());
  std::vector<std::vector<float>> out(n, std::vector<float>(request.outputElements()));
  onEveryDevice(n, [&](int d) {
    CollectiveRequest mine = request;
    mine.group.rank = d, mine.input = in[d].data(), mine.output = out[d].data();
    Status s = (*backend)->run(mine);
    EXPECT_TRUE(s.isOk()) << s.message();
  });
  return out;
}

inline MeshTopology makeMesh(int64_t a, int64_t b) {
  return *MeshTopology::create({{"data", a}, {"model", b}});
}

} // namespace loom::rt::testsupport

#endif // LOOM_TESTS_UNIT_RUNTIME_COLLECTIVESTESTSUPPORT_H
