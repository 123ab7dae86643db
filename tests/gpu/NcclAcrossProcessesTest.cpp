// The NCCL backend across processes, run under mpirun by ctest (2 processes, one GPU each;
// skipped, saying so, where the host has fewer than 2 GPUs or no NCCL): the communicators of
// a set of devices that spans the processes come from prepare() (ids from process 0, shared
// through MPI), and each collective gives this process's member what the in-process backend
// gives it, with the group's ranks in the devices' order and reversed.
#include "runtime/Client.h"
#include "runtime/CudaPlatform.h"
#include "runtime/Distributed.h"
#include "runtime/MpiCollectives.h"
#include "runtime/NcclCollectives.h"
#include "tests/unit/runtime/CollectivesTestSupport.h"
#include "tests/unit/runtime/MpiTestMain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace loom::rt;

namespace {

class NcclAcrossProcesses : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    const distributed::ProcessInfo &me = distributed::process();
    if (me.count != 2)
      GTEST_SKIP() << "runs under mpirun -np 2";
    if (auto driver = CudaDriver::get(); !driver.ok())
      GTEST_SKIP() << "no GPU here: " << driver.status().message();
    if (auto nccl = NcclLibrary::get(); !nccl.ok())
      GTEST_SKIP() << nccl.status().message();
    auto ordinals = gpusOfProcess(CudaPlatform::deviceCount(), 1, me.onThisHost,
                                  me.indexOnThisHost);
    if (!ordinals.ok() || me.onThisHost != 2)
      GTEST_SKIP() << "two processes on one host with a GPU each are needed";
    auto gpu = CudaPlatform::create(ordinals->front());
    ASSERT_TRUE(gpu.ok()) << gpu.status().message();
    mine = *gpu;
    // Device d is process d's GPU; the other process's is null here.
    std::vector<std::shared_ptr<CudaPlatform>> gpus(2);
    gpus[me.index] = mine;
    auto created = NcclCollectives::create(gpus, 1, &MpiCollectives::process(1));
    ASSERT_TRUE(created.ok()) << created.status().message();
    backend = std::move(*created);
    Status prepared = backend->prepare(*MeshTopology::create({{"x", 2}}));
    ASSERT_TRUE(prepared.isOk()) << prepared.message();
  }

  /// This process's output of `request`, its member's input being in[rank]; the group's
  /// ranks follow the devices, or run against them where `reversed`.
  std::vector<float> run(CollectiveRequest request, const std::vector<std::vector<float>> &in,
                         bool reversed) {
    const int me = distributed::process().index;
    const int rank = reversed ? 1 - me : me;
    request.group = {reversed ? std::vector<int>{1, 0} : std::vector<int>{0, 1}, rank};
    size_t inBytes = in[rank].size() * 4, outBytes = request.outputElements() * 4;
    mine->bindWorkerThread();
    void *input = mine->allocate(inBytes), *output = mine->allocate(outBytes);
    EXPECT_TRUE(mine->copyFromHost(input, in[rank].data(), inBytes).isOk());
    request.input = input, request.output = output;
    Status s = backend->run(request);
    EXPECT_TRUE(s.isOk()) << "process " << me << ": " << s.message();
    std::vector<float> out(request.outputElements());
    EXPECT_TRUE(mine->copyToHost(out.data(), output, outBytes).isOk());
    mine->release(input, inBytes), mine->release(output, outBytes);
    return out;
  }

  std::shared_ptr<CudaPlatform> mine;
  std::unique_ptr<NcclCollectives> backend;
};

TEST_P(NcclAcrossProcesses, EachCollectiveMatchesTheCpu) {
  const bool reversed = GetParam();
  const std::vector<int64_t> shape = {4, 6, 8};
  std::vector<std::vector<float>> in(2, std::vector<float>(4 * 6 * 8));
  for (int r = 0; r < 2; ++r)
    for (size_t i = 0; i < in[r].size(); ++i)
      in[r][i] = float(1000 * r + i);
  const int me = distributed::process().index, rank = reversed ? 1 - me : me;
  for (CollectiveRequest request :
       {CollectiveRequest{.kind = CollectiveKind::AllReduce, .shape = {4 * 6 * 8}},
        CollectiveRequest{.kind = CollectiveKind::AllGather, .shape = shape, .dim = 0},
        CollectiveRequest{.kind = CollectiveKind::AllGather, .shape = shape, .dim = 1},
        CollectiveRequest{.kind = CollectiveKind::ReduceScatter, .shape = shape, .dim = 0},
        CollectiveRequest{.kind = CollectiveKind::ReduceScatter, .shape = shape, .dim = 2},
        CollectiveRequest{.kind = CollectiveKind::AllToAll, .shape = shape, .dim = 1,
                          .concatDim = 0},
        CollectiveRequest{.kind = CollectiveKind::CollectivePermute, .shape = shape,
                          .pairs = {{0, 1}, {1, 0}}}})
    EXPECT_EQ(run(request, in, reversed), testsupport::inProcessOutputs(request, in)[rank])
        << name(request.kind) << (reversed ? " with the ranks reversed" : "");
}

INSTANTIATE_TEST_SUITE_P(InDeviceOrderAndReversed, NcclAcrossProcesses, ::testing::Bool());

} // namespace

int main(int argc, char **argv) { return testsupport::runTestsInMpiJob(argc, argv); }
