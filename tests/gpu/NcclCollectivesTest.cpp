// The NCCL backend on the GPUs present (skipped, saying so, without a GPU or NCCL): on one GPU
// its one-member groups (NCCL's calls, the pitched copies of a dim that is not the leading
// one, the events), and over two GPUs or more the collectives against the in-process
// backend's results, with the group's ranks in the GPUs' order and reversed.
#include "runtime/CudaPlatform.h"
#include "runtime/NcclCollectives.h"
#include "tests/unit/runtime/CollectivesTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <thread>
#include <vector>

using namespace loom::rt;

namespace {

class NcclOnGpus : public ::testing::Test {
protected:
  void SetUp() override {
    if (auto driver = CudaDriver::get(); !driver.ok())
      GTEST_SKIP() << "no GPU here: " << driver.status().message();
    if (auto nccl = NcclLibrary::get(); !nccl.ok())
      GTEST_SKIP() << nccl.status().message();
    for (int i = 0; i < CudaPlatform::deviceCount(); ++i) {
      auto gpu = CudaPlatform::create(i);
      ASSERT_TRUE(gpu.ok()) << gpu.status().message();
      gpus.push_back(*gpu);
    }
    auto created = NcclCollectives::create(gpus);
    ASSERT_TRUE(created.ok()) << created.status().message();
    backend = std::move(*created);
  }

  /// Runs `request` on the first `n` GPUs, each on a thread of its own (as devices run), with
  /// member r's input `in[r]`; returns every member's output. Member r is GPU r, or GPU
  /// n - 1 - r where `reversed` (a group over mesh axes in another order than the mesh's).
  std::vector<std::vector<float>> run(CollectiveRequest request,
                                      const std::vector<std::vector<float>> &in,
                                      bool reversed = false) {
    int n = static_cast<int>(in.size());
    std::vector<int> devices(n);
    std::iota(devices.begin(), devices.end(), 0);
    if (reversed)
      std::reverse(devices.begin(), devices.end());
    request.group = {devices, 0};
    size_t outElements = request.outputElements();
    std::vector<std::vector<float>> out(n, std::vector<float>(outElements));
    std::vector<std::thread> threads;
    for (int d = 0; d < n; ++d)
      threads.emplace_back([&, d] {
        CudaPlatform &gpu = *gpus[devices[d]];
        gpu.bindWorkerThread();
        size_t inBytes = in[d].size() * 4, outBytes = outElements * 4;
        void *input = gpu.allocate(inBytes), *output = gpu.allocate(outBytes);
        ASSERT_TRUE(gpu.copyFromHost(input, in[d].data(), inBytes).isOk());
        CollectiveRequest mine = request;
        mine.group.rank = d, mine.input = input, mine.output = output;
        Status s = backend->run(mine);
        EXPECT_TRUE(s.isOk()) << "device " << d << ": " << s.message();
        EXPECT_TRUE(gpu.copyToHost(out[d].data(), output, outBytes).isOk());
        gpu.release(input, inBytes), gpu.release(output, outBytes);
      });
    for (std::thread &t : threads)
      t.join();
    return out;
  }

  static std::vector<std::vector<float>> inputs(int n, size_t elements) {
    std::vector<std::vector<float>> in(n, std::vector<float>(elements));
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < elements; ++i)
        in[r][i] = float(1000 * r + i);
    return in;
  }

  std::vector<std::shared_ptr<CudaPlatform>> gpus;
  std::unique_ptr<NcclCollectives> backend;
};

const std::vector<int64_t> kShape = {4, 6, 8};

TEST_F(NcclOnGpus, EachCollectiveOverOneGpuMatchesTheCpu) {
  std::vector<std::vector<float>> in = inputs(1, 4 * 6 * 8);
  for (CollectiveRequest request :
       {CollectiveRequest{.kind = CollectiveKind::AllReduce, .shape = {4 * 6 * 8}},
        CollectiveRequest{.kind = CollectiveKind::AllGather, .shape = kShape, .dim = 1},
        CollectiveRequest{.kind = CollectiveKind::ReduceScatter, .shape = kShape, .dim = 2},
        CollectiveRequest{.kind = CollectiveKind::AllToAll, .shape = kShape, .dim = 1,
                          .concatDim = 2},
        CollectiveRequest{.kind = CollectiveKind::CollectivePermute, .shape = kShape,
                          .pairs = {{0, 0}}}})
    EXPECT_EQ(run(request, in), testsupport::inProcessOutputs(request, in)) << name(request.kind);
}

class NcclOverGpus : public NcclOnGpus, public ::testing::WithParamInterface<bool> {};

TEST_P(NcclOverGpus, EachCollectiveMatchesTheCpu) {
  int n = static_cast<int>(gpus.size());
  if (n < 2)
    GTEST_SKIP() << "one GPU here: a group of several needs two or more";
  const bool reversed = GetParam();
  std::vector<int64_t> shape = {2 * n, 3 * n, 4};
  std::vector<std::vector<float>> in = inputs(n, 2 * n * 3 * n * 4);
  std::vector<std::pair<int, int>> ring;
  for (int r = 0; r < n; ++r)
    ring.push_back({r, (r + 1) % n});
  for (CollectiveRequest request :
       {CollectiveRequest{.kind = CollectiveKind::AllReduce, .shape = {2 * n * 3 * n * 4}},
        CollectiveRequest{.kind = CollectiveKind::AllReduce, .shape = {2 * n * 3 * n * 4},
                          .reduce = ReduceKind::Max},
        CollectiveRequest{.kind = CollectiveKind::AllGather, .shape = shape, .dim = 0},
        CollectiveRequest{.kind = CollectiveKind::AllGather, .shape = shape, .dim = 1},
        CollectiveRequest{.kind = CollectiveKind::ReduceScatter, .shape = shape, .dim = 0},
        CollectiveRequest{.kind = CollectiveKind::ReduceScatter, .shape = shape, .dim = 1},
        CollectiveRequest{.kind = CollectiveKind::AllToAll, .shape = shape, .dim = 0,
                          .concatDim = 1},
        CollectiveRequest{.kind = CollectiveKind::AllToAll, .shape = shape, .dim = 1,
                          .concatDim = 0},
        CollectiveRequest{.kind = CollectiveKind::CollectivePermute, .shape = shape,
                          .pairs = ring}})
    EXPECT_EQ(run(request, in, reversed), testsupport::inProcessOutputs(request, in))
        << name(request.kind) << (reversed ? " over the GPUs in reverse order" : "");
}

// Ranks in device order are NCCL's; in reverse order they are mapped (NcclCollectives.h).
INSTANTIATE_TEST_SUITE_P(InDeviceOrderAndReversed, NcclOverGpus, ::testing::Bool());

} // namespace
