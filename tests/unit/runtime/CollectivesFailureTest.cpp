// Tests of the in-process collectives when something is wrong: a peer that never comes is
// named within the timeout (taken from the environment), a peer busy between start and wait
// is served by the others, malformed requests are rejected at start with a message naming
// the fault, and members that disagree on a collective all fail.
#include "runtime/InProcessCollectives.h"
#include "tests/unit/runtime/CollectivesTestSupport.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace loom::rt;
using namespace loom::rt::testsupport;
using namespace std::chrono_literals;

//===--- Timeouts ---===//

TEST_F(CollectivesTest, AMissingPeerIsNamedWithinTheTimeout) {
  MeshTopology mesh = makeMesh(2, 2);
  InProcessCollectives backend(5s);
  // Device 0's group over "data" is devices [0, 2]; device 2 never comes.
  DeviceGroup group = *mesh.group(0, {"data"});
  float in[6] = {}, out[12] = {};
  auto h = backend.startAllGather(group, in, out, DType::F32, {2, 3}, 1);
  ASSERT_TRUE(h.ok());
  auto begin = std::chrono::steady_clock::now();
  Status status = backend.wait(*h, 200ms);
  auto elapsed = std::chrono::steady_clock::now() - begin;
  EXPECT_EQ(status.code(), StatusCode::DeadlineExceeded);
  EXPECT_EQ(status.message(),
            "all_gather f32[2,3] dim 1 over devices [0, 2] (collective #0 of "
            "the group): rank 0 timed out after 200 ms; missing ranks [1] "
            "(devices [2]) never started it");
  EXPECT_GE(elapsed, 200ms);
  EXPECT_LT(elapsed, 1s);

  // The late member learns of the failure at once instead of waiting.
  float in2[6] = {}, out2[12] = {};
  auto late = backend.startAllGather({group.devices, 1}, in2, out2, DType::F32,
                                     {2, 3}, 1);
  ASSERT_TRUE(late.ok());
  begin = std::chrono::steady_clock::now();
  EXPECT_EQ(backend.wait(*late, 5s), status);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 1s);
}

TEST_F(CollectivesTest, APeerBusyBetweenStartAndWaitIsServedByTheOthers) {
  // Rank 2 starts and then computes (it does not wait yet): the waiting ranks
  // write its output too, so nobody waits for it and the collective overlaps
  // with its compute; its own wait then returns at once.
  InProcessCollectives backend(5s);
  DeviceGroup group{{0, 1, 2}, 0};
  int64_t in[3][4] = {{1, 2, 3, 4}, {10, 20, 30, 40}, {100, 200, 300, 400}};
  int64_t out[3][4] = {};
  std::vector<CollectiveHandle> handles;
  for (int rank = 0; rank < 3; ++rank) {
    auto h = backend.startAllReduce({group.devices, rank}, in[rank], out[rank],
                                    DType::I64, 4, ReduceKind::Sum);
    ASSERT_TRUE(h.ok());
    handles.push_back(*h);
  }
  Status status;
  std::thread rank1([&] { status = backend.wait(handles[1], 2s); });
  Status mine = backend.wait(handles[0], 2s);
  rank1.join();
  ASSERT_TRUE(mine.isOk()) << mine.message();
  ASSERT_TRUE(status.isOk()) << status.message();
  for (int rank = 0; rank < 3; ++rank) // rank 2's output is written already
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(out[rank][i], 111 * (i + 1)) << "rank " << rank << " element " << i;
  EXPECT_EQ(backend.stats(2).collectives, 0u);
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(backend.wait(handles[2], 2s).isOk());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_EQ(backend.stats(2).collectives, 1u);
  // A reduce_scatter and an all_gather's worth: 2 (n - 1) / n of the 32 bytes.
  EXPECT_EQ(backend.stats(2).bytesReceived, 2u * 2 * 4 * sizeof(int64_t) / 3);
}

TEST_F(CollectivesTest, TimeoutComesFromTheEnvironment) {
  // Restores the caller's value, so that the test leaves no trace.
  struct Restore {
    std::optional<std::string> saved;
    Restore() {
      if (const char *v = std::getenv(collectiveTimeoutEnv))
        saved = v;
    }
    ~Restore() {
      if (saved)
        ::setenv(collectiveTimeoutEnv, saved->c_str(), 1);
      else
        ::unsetenv(collectiveTimeoutEnv);
    }
  } restore;
  ::setenv(collectiveTimeoutEnv, "0.25", 1);
  auto backend = InProcessCollectives::create();
  ASSERT_TRUE(backend.ok());
  EXPECT_EQ((*backend)->timeout(), 250ms);
  ::setenv(collectiveTimeoutEnv, "soon", 1);
  Status bad = InProcessCollectives::create().status();
  EXPECT_EQ(bad.message(),
            "LOOM_COLLECTIVE_TIMEOUT_S=\"soon\" is not a positive number of "
            "seconds");
  ::unsetenv(collectiveTimeoutEnv);
  EXPECT_EQ((*InProcessCollectives::create())->timeout(), 60s);
  EXPECT_EQ((*InProcessCollectives::create({.timeout = 3s}))->timeout(), 3s);
}

//===--- Errors at start ---===//

TEST_F(CollectivesTest, MalformedRequestsAreRejectedAtStart) {
  InProcessCollectives backend(5s);
  float in[8] = {}, out[16] = {};
  auto message = [&](CollectiveRequest r) {
    r.input = in;
    r.output = out;
    StatusOr<CollectiveHandle> h = backend.start(r);
    EXPECT_FALSE(h.ok());
    EXPECT_EQ(h.status().code(), StatusCode::InvalidArgument);
    return h.status().message();
  };
  const DeviceGroup pair{{0, 1}, 0}, badRank{{0, 1}, 2}, repeated{{1, 1}, 0},
      triple{{0, 1, 2}, 0};
  EXPECT_EQ(message({.kind = CollectiveKind::AllGather, .group = badRank,
                     .shape = {8}, .dim = 0}),
            "all_gather: rank 2 is outside the group [0, 1]");
  EXPECT_EQ(message({.kind = CollectiveKind::AllGather, .group = repeated,
                     .shape = {8}, .dim = 0}),
            "all_gather: the group [1, 1] has a repeated or negative device");
  EXPECT_EQ(message({.kind = CollectiveKind::AllGather, .group = pair,
                     .shape = {8}, .dim = 1}),
            "all_gather: dim 1 is not a dim of all_gather f32[8] dim 1 over "
            "devices [0, 1]");
  EXPECT_EQ(message({.kind = CollectiveKind::ReduceScatter,
                     .group = triple, .shape = {8}, .dim = 0}),
            "reduce_scatter: dim 0 of reduce_scatter f32[8] dim 0 over devices "
            "[0, 1, 2] does not divide by the group size 3");
  EXPECT_EQ(message({.kind = CollectiveKind::AllReduce, .group = pair,
                     .dtype = DType::I1, .shape = {8}}),
            "all_reduce: cannot reduce i1 (supported: f32, f64, bf16, f16, i32, i64)");
  EXPECT_EQ(message({.kind = CollectiveKind::CollectivePermute, .group = pair,
                     .shape = {8}, .pairs = {{0, 2}}}),
            "collective_permute: pair 0->2 names a rank outside the group of 2 in "
            "collective_permute f32[8] pairs [0->2] over devices [0, 1]");
  EXPECT_EQ(message({.kind = CollectiveKind::CollectivePermute, .group = pair,
                     .shape = {8}, .pairs = {{0, 1}, {1, 1}}}),
            "collective_permute: rank 1 is the target of two pairs in collective_permute "
            "f32[8] pairs [0->1, 1->1] over devices [0, 1]");
  EXPECT_EQ(message({.kind = CollectiveKind::CollectivePermute, .group = pair,
                     .shape = {8}, .pairs = {{0, 1}, {0, 0}}}),
            "collective_permute: rank 0 is the source of two pairs in collective_permute "
            "f32[8] pairs [0->1, 0->0] over devices [0, 1]");
  EXPECT_EQ(backend.stats(0).collectives, 0u);
}

TEST_F(CollectivesTest, MembersThatDisagreeAllFail) {
  InProcessCollectives backend(5s);
  std::vector<Status> results(2);
  onEveryDevice(2, [&](int device) {
    float in[8] = {}, out[16] = {};
    // Rank 1 gathers along another dim than rank 0.
    auto h = backend.startAllGather({{0, 1}, device}, in, out, DType::F32,
                                    {2, 4}, device);
    ASSERT_TRUE(h.ok());
    results[device] = backend.wait(*h);
  });
  for (const Status &s : results) {
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
    EXPECT_NE(s.message().find("members disagree"), std::string::npos)
        << s.message();
  }
}
