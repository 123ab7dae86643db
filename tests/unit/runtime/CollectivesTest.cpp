// Tests of the collectives interface on the in-process backend: every
// collective against a straightforward reference on 2x2 and 2x4 meshes, with
// one thread per device; overlapping started collectives awaited in any
// order; byte statistics. (Timeouts and malformed requests:
// CollectivesFailureTest.cpp.)
#include "runtime/InProcessCollectives.h"
#include "tests/unit/runtime/CollectivesReference.h"
#include "tests/unit/runtime/CollectivesTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace loom::rt;
using namespace loom::rt::testsupport;
using namespace std::chrono_literals;

namespace {

/// Runs `request` (pointers filled in here) for type T and checks this
/// member's output against the reference.
template <typename T>
void runAndCheck(Collectives &backend, CollectiveRequest request) {
  std::vector<T> input = inputOf<T>(request.group.rank, request.inputElements());
  std::vector<T> output(request.outputElements(), T(-99));
  request.input = input.data();
  request.output = output.data();
  Status status = backend.run(request);
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_EQ(output, reference<T>(request)) << request.describe();
}

void runAndCheck(Collectives &backend, const CollectiveRequest &request) {
  switch (request.dtype) {
  case DType::F32:
    return runAndCheck<float>(backend, request);
  case DType::F64:
    return runAndCheck<double>(backend, request);
  case DType::I32:
    return runAndCheck<int32_t>(backend, request);
  case DType::I64:
    return runAndCheck<int64_t>(backend, request);
  default:
    FAIL() << "unsupported dtype in test";
  }
}

/// The collectives each group runs: every kind, on every dim (so non-leading
/// ones too), with the split dim made divisible by the group size.
std::vector<CollectiveRequest> casesFor(const DeviceGroup &group) {
  const int64_t g = group.size();
  std::vector<CollectiveRequest> cases;
  for (int64_t dim = 0; dim < 3; ++dim) {
    std::vector<int64_t> shape = {2, 3, 5};
    cases.push_back({.kind = CollectiveKind::AllGather, .group = group,
                     .shape = shape, .dim = dim});
    shape[dim] *= g;
    cases.push_back({.kind = CollectiveKind::ReduceScatter, .group = group,
                     .shape = shape, .dim = dim});
    cases.push_back({.kind = CollectiveKind::AllToAll, .group = group,
                     .shape = shape, .dim = dim, .concatDim = (dim + 1) % 3});
    cases.push_back({.kind = CollectiveKind::AllToAll, .group = group,
                     .shape = shape, .dim = dim, .concatDim = (dim + 2) % 3});
  }
  for (ReduceKind reduce : {ReduceKind::Sum, ReduceKind::Max})
    cases.push_back({.kind = CollectiveKind::AllReduce, .group = group,
                     .shape = {37}, .reduce = reduce});
  // A ring shift, its inverse, and a partial permutation (rank 0 sends to itself; the last
  // rank receives nothing and gets zeros when the group has more than one member).
  std::vector<std::pair<int, int>> shift, back, partial;
  for (int r = 0; r < g; ++r) {
    shift.push_back({r, static_cast<int>((r + 1) % g)});
    back.push_back({static_cast<int>((r + 1) % g), r});
  }
  partial.push_back({0, 0});
  for (int r = 1; r + 1 < g; ++r)
    partial.push_back({static_cast<int>(g - 1 - r + 1) % static_cast<int>(g), r});
  for (const auto &pairs : {shift, back, partial})
    cases.push_back({.kind = CollectiveKind::CollectivePermute, .group = group,
                     .shape = {2, 3, 5}, .pairs = pairs});
  return cases;
}

/// Every non-empty subset of the two axes, and both orders of the pair.
const std::vector<std::vector<std::string>> axisSubsets = {
    {"data"}, {"model"}, {"data", "model"}, {"model", "data"}};

} // namespace

//===--- Correctness against the reference ---===//

class CollectivesMeshTest
    : public CollectivesTest,
      public ::testing::WithParamInterface<std::pair<int64_t, int64_t>> {};

TEST_P(CollectivesMeshTest, EveryCollectiveMatchesTheReference) {
  MeshTopology mesh = makeMesh(GetParam().first, GetParam().second);
  InProcessCollectives backend(5s);
  // Every device runs the same sequence, so groups of different axes
  // interleave and each group sees many sequence numbers.
  onEveryDevice(mesh.numDevices(), [&](int device) {
    for (const auto &axes : axisSubsets) {
      DeviceGroup group = *mesh.group(device, axes);
      for (CollectiveRequest request : casesFor(group))
        for (DType dtype : {DType::F32, DType::F64, DType::I32, DType::I64}) {
          request.dtype = dtype;
          runAndCheck(backend, request);
        }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Meshes, CollectivesMeshTest,
                         ::testing::Values(std::make_pair(2, 2),
                                           std::make_pair(2, 4)),
                         [](const auto &info) {
                           return std::to_string(info.param.first) + "x" +
                                  std::to_string(info.param.second);
                         });

TEST_F(CollectivesTest, MaxPropagatesNaN) {
  InProcessCollectives backend(5s);
  onEveryDevice(2, [&](int device) {
    float in[2] = {device == 0 ? NAN : 1.0f, device == 0 ? -3.0f : -2.0f};
    float out[2] = {0, 0};
    StatusOr<CollectiveHandle> h = backend.startAllReduce(
        {{0, 1}, device}, in, out, DType::F32, 2, ReduceKind::Max);
    ASSERT_TRUE(h.ok());
    ASSERT_TRUE(backend.wait(*h).isOk());
    EXPECT_TRUE(std::isnan(out[0]));
    EXPECT_EQ(out[1], -2.0f);
  });
}

// bf16 and f16 reductions (a mixed-precision FSDP step's gradients) accumulate in f32 and
// round once: four members adding 1 and three times a quarter of the spacing at 1 get 1 plus
// one spacing, where rounding after each addition would stay at 1.
TEST_F(CollectivesTest, HalfFloatReductionsAccumulateInF32AndRoundOnce) {
  InProcessCollectives backend(5s);
  struct Case {
    DType dtype;
    uint16_t one, quarterSpacing, expected, nan;
  };
  // bf16: 1 = 0x3F80, spacing 2^-7, 2^-9 = 0x3B00, 1 + 2^-7 = 0x3F81.
  // f16: 1 = 0x3C00, spacing 2^-10, 2^-12 = 0x0C00, 1 + 2^-10 = 0x3C01.
  for (const Case &c : {Case{DType::BF16, 0x3F80, 0x3B00, 0x3F81, 0x7FC0},
                        Case{DType::F16, 0x3C00, 0x0C00, 0x3C01, 0x7E00}}) {
    onEveryDevice(4, [&](int device) {
      DeviceGroup group{{0, 1, 2, 3}, device};
      uint16_t value = device == 0 ? c.one : c.quarterSpacing;
      // all_reduce sum of [3] and reduce_scatter of [4] (each member gets one element).
      std::vector<uint16_t> in(4, value), out(4, 0);
      StatusOr<CollectiveHandle> h =
          backend.startAllReduce(group, in.data(), out.data(), c.dtype, 3, ReduceKind::Sum);
      ASSERT_TRUE(h.ok()) << h.status().toString();
      ASSERT_TRUE(backend.wait(*h).isOk());
      EXPECT_EQ(out, (std::vector<uint16_t>{c.expected, c.expected, c.expected, 0}))
          << name(c.dtype) << " on device " << device;
      uint16_t scattered = 0;
      ASSERT_TRUE(backend
                      .run({.kind = CollectiveKind::ReduceScatter, .group = group,
                            .input = in.data(), .output = &scattered, .dtype = c.dtype,
                            .shape = {4}, .dim = 0})
                      .isOk());
      EXPECT_EQ(scattered, c.expected) << name(c.dtype) << " on device " << device;
      // A max: the largest, or a NaN where one member has it.
      std::vector<uint16_t> maxIn = {value, device == 2 ? c.nan : value}, maxOut(2);
      h = backend.startAllReduce(group, maxIn.data(), maxOut.data(), c.dtype, 2, ReduceKind::Max);
      ASSERT_TRUE(h.ok());
      ASSERT_TRUE(backend.wait(*h).isOk());
      EXPECT_EQ(maxOut[0], c.one);
      EXPECT_EQ(maxOut[1], c.nan);
    });
  }
}

//===--- Started, then awaited ---===//

TEST_F(CollectivesTest, SeveralOutstandingCollectivesAwaitedInAnyOrder) {
  MeshTopology mesh = makeMesh(2, 4);
  InProcessCollectives backend(5s);
  onEveryDevice(mesh.numDevices(), [&](int device) {
    // Three collectives on three different groups, all outstanding at once.
    std::vector<CollectiveRequest> requests = {
        {.kind = CollectiveKind::AllGather,
         .group = *mesh.group(device, {"data"}),
         .dtype = DType::F32,
         .shape = {3, 4},
         .dim = 1},
        {.kind = CollectiveKind::AllReduce,
         .group = *mesh.group(device, {"model"}),
         .dtype = DType::I64,
         .shape = {100}},
        {.kind = CollectiveKind::AllToAll,
         .group = *mesh.group(device, {"data", "model"}),
         .dtype = DType::F64,
         .shape = {2, 16},
         .dim = 1,
         .concatDim = 0},
        {.kind = CollectiveKind::ReduceScatter,
         .group = *mesh.group(device, {"model"}),
         .dtype = DType::I32,
         .shape = {8, 2},
         .dim = 0},
    };
    // Inputs and outputs as bytes of the right size; the reference decides
    // the values by type below.
    std::vector<std::vector<char>> inputs, outputs;
    std::vector<CollectiveHandle> handles;
    for (CollectiveRequest &r : requests) {
      size_t elem = byteSize(r.dtype);
      inputs.emplace_back(r.inputElements() * elem);
      outputs.emplace_back(r.outputElements() * elem);
      auto fill = [&](auto typed) {
        using T = decltype(typed);
        auto values = inputOf<T>(r.group.rank, r.inputElements());
        std::memcpy(inputs.back().data(), values.data(), inputs.back().size());
      };
      if (r.dtype == DType::F32) fill(float());
      if (r.dtype == DType::F64) fill(double());
      if (r.dtype == DType::I32) fill(int32_t());
      if (r.dtype == DType::I64) fill(int64_t());
      r.input = inputs.back().data();
      r.output = outputs.back().data();
      StatusOr<CollectiveHandle> h = backend.start(r);
      ASSERT_TRUE(h.ok()) << h.status().toString();
      handles.push_back(*h);
    }
    // Even devices wait in start order, odd ones in reverse: a member must
    // not wait on a peer that waits on it.
    std::vector<int> order = {0, 1, 2, 3};
    if (device % 2)
      std::reverse(order.begin(), order.end());
    for (int i : order) {
      Status s = backend.wait(handles[i]);
      ASSERT_TRUE(s.isOk()) << s.toString();
    }
    auto check = [&](size_t i, auto typed) {
      using T = decltype(typed);
      std::vector<T> got(requests[i].outputElements());
      std::memcpy(got.data(), outputs[i].data(), outputs[i].size());
      EXPECT_EQ(got, reference<T>(requests[i])) << requests[i].describe();
    };
    check(0, float());
    check(1, int64_t());
    check(2, double());
    check(3, int32_t());
  });
}

TEST_F(CollectivesTest, RepeatedOutstandingGathersOfOneInputStayExact) {
  // Two gathers of one buffer in flight, awaited in reverse order, the buffer rewritten for
  // the next round: what a partitioned program does for a value two ops need gathered.
  MeshTopology mesh = makeMesh(2, 1);
  InProcessCollectives backend(10s);
  const int rounds = 1000;
  onEveryDevice(mesh.numDevices(), [&](int device) {
    DeviceGroup group = *mesh.group(device, {"data"});
    std::vector<float> input(32), first(64), second(64);
    for (int round = 0; round < rounds; ++round) {
      for (int i = 0; i < 32; ++i)
        input[i] = static_cast<float>(round * 1000 + device * 100 + i);
      CollectiveRequest r{.kind = CollectiveKind::AllGather, .group = group,
                          .input = input.data(), .dtype = DType::F32, .shape = {4, 8},
                          .dim = 0};
      r.output = first.data();
      auto a = backend.start(r);
      r.output = second.data();
      auto b = backend.start(r);
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_TRUE(backend.wait(*b).isOk());
      for (int i = 0; i < 64; ++i)
        ASSERT_EQ(second[i], static_cast<float>(round * 1000 + (i / 32) * 100 + i % 32))
            << "device " << device << " round " << round << " element " << i;
      ASSERT_TRUE(backend.wait(*a).isOk());
      for (int i = 0; i < 64; ++i)
        ASSERT_EQ(first[i], static_cast<float>(round * 1000 + (i / 32) * 100 + i % 32))
            << "device " << device << " round " << round << " element " << i;
    }
  });
}

TEST_F(CollectivesTest, AHandleIsAwaitedOnce) {
  InProcessCollectives backend(5s);
  int32_t in = 5, out = 0;
  auto h = backend.startAllReduce({{3}, 0}, &in, &out, DType::I32, 1,
                                  ReduceKind::Sum);
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(backend.wait(*h).isOk());
  EXPECT_EQ(out, 5);
  Status again = backend.wait(*h);
  EXPECT_EQ(again.code(), StatusCode::InvalidArgument);
  EXPECT_NE(again.message().find("unknown collective handle"),
            std::string::npos);
}

//===--- Statistics ---===//

TEST_F(CollectivesTest, BytesReceivedFollowTheFormula) {
  MeshTopology mesh = makeMesh(2, 4);
  InProcessCollectives backend(5s);
  onEveryDevice(mesh.numDevices(), [&](int device) {
    DeviceGroup model = *mesh.group(device, {"model"}); // n = 4
    DeviceGroup data = *mesh.group(device, {"data"});   // n = 2
    std::vector<float> in(64), out(256);
    auto run = [&](CollectiveRequest r) {
      r.input = in.data();
      r.output = out.data();
      Status s = backend.run(r);
      ASSERT_TRUE(s.isOk()) << s.toString();
    };
    run({.kind = CollectiveKind::AllGather, .group = model, .shape = {4, 8},
         .dim = 1});
    run({.kind = CollectiveKind::ReduceScatter, .group = model,
         .shape = {4, 8}, .dim = 0});
    run({.kind = CollectiveKind::AllReduce, .group = data, .shape = {64}});
    run({.kind = CollectiveKind::AllToAll, .group = model, .shape = {4, 8},
         .dim = 0, .concatDim = 1});
    // Ranks 1 and 2 swap, rank 3 keeps its own, rank 0 receives nothing.
    run({.kind = CollectiveKind::CollectivePermute, .group = model, .shape = {4, 8},
         .pairs = {{1, 2}, {2, 1}, {3, 3}}});
  });
  // f32, 32-element inputs to the model-axis collectives (n = 4) and a
  // 64-element all_reduce over data (n = 2).
  uint64_t expected = 3 * 32 * 4   // all_gather: (n-1) * input
                      + 3 * 8 * 4  // reduce_scatter: (n-1) * output
                      + 1 * 64 * 4 // all_reduce: 2 (n-1)/n * input
                      + 3 * 8 * 4; // all_to_all: (n-1)/n * input
  for (int device = 0; device < mesh.numDevices(); ++device) {
    int modelRank = mesh.group(device, {"model"})->rank;
    uint64_t permuted = modelRank == 1 || modelRank == 2 ? 32 * 4 : 0; // collective_permute
    EXPECT_EQ(backend.stats(device).collectives, 5u);
    EXPECT_EQ(backend.stats(device).bytesReceived, expected + permuted);
  }
  EXPECT_EQ(backend.stats(99).bytesReceived, 0u);
}
