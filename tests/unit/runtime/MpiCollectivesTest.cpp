// The MPI backend, run under mpirun by ctest (2 processes x 2 devices, and 4 x 1): every
// collective, over every group of a 2-axis mesh (groups inside a process, across processes,
// and ordered against the process order), against the in-process kernel computing the same
// output from every member's input; a late peer named on a timeout; byte statistics; the
// host's broadcast and maximum, and the sharing of NCCL's ids that uses it.
#include "runtime/CollectiveKernels.h"
#include "runtime/Distributed.h"
#include "runtime/MpiCollectives.h"
#include "runtime/NcclCommunicators.h"
#include "tests/unit/runtime/MpiTestMain.h"

#include <gtest/gtest.h>

#include <bit>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace loom::rt;
using namespace std::chrono_literals;

namespace {

int processes() { return distributed::process().count; }
int localDevices() { return processes() == 2 ? 2 : 1; }

struct Case {
  CollectiveKind kind;
  DType dtype;
  ReduceKind reduce;
  std::vector<std::string> axes;
  std::vector<int64_t> shape;
  int64_t dim = 0, concatDim = 0;
  /// collective_permute: 1 shifts each rank to the next (a ring); 2 sends rank r to
  /// n-1-r for r < n-1 (a reversal in which rank 0 receives nothing and gets zeros).
  int permutation = 0;
};

/// The input of `device` (integer values, so sums are exact in any order; a float max also
/// meets NaNs, which must win wherever they are).
std::vector<char> inputOf(const Case &c, int device) {
  int64_t n = 1;
  for (int64_t d : c.shape)
    n *= d;
  std::vector<char> bytes(n * byteSize(c.dtype));
  for (int64_t i = 0; i < n; ++i) {
    bool half = c.dtype == DType::BF16 || c.dtype == DType::F16;
    // bf16 holds the integers up to 256 exactly, f16 those up to 2048.
    int64_t v = c.reduce == ReduceKind::Max ? (device * 7919 + i * 31) % 1000
                : half                      ? (device + 1) * 8 + i % 8
                                            : (device + 1) * 1000 + i % 97;
    bool nan = c.reduce == ReduceKind::Max && (i + device) % 17 == 0;
    switch (c.dtype) {
    case DType::F32:
      reinterpret_cast<float *>(bytes.data())[i] =
          nan ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(v);
      break;
    case DType::F64:
      reinterpret_cast<double *>(bytes.data())[i] = static_cast<double>(v);
      break;
    case DType::I32:
      reinterpret_cast<int32_t *>(bytes.data())[i] = static_cast<int32_t>(v);
      break;
    case DType::BF16: // the top half of the f32
      reinterpret_cast<uint16_t *>(bytes.data())[i] =
          nan ? 0x7FC0 : static_cast<uint16_t>(std::bit_cast<uint32_t>(float(v)) >> 16);
      break;
    case DType::F16:
      reinterpret_cast<uint16_t *>(bytes.data())[i] =
          nan ? 0x7E00 : std::bit_cast<uint16_t>(static_cast<_Float16>(v));
      break;
    default:
      reinterpret_cast<int64_t *>(bytes.data())[i] = v;
    }
  }
  return bytes;
}

CollectiveRequest requestOf(const Case &c, const DeviceGroup &group) {
  CollectiveRequest r;
  r.kind = c.kind, r.group = group, r.dtype = c.dtype, r.shape = c.shape, r.dim = c.dim;
  r.concatDim = c.concatDim, r.reduce = c.reduce;
  const int n = group.size();
  for (int rank = 0; rank < n; ++rank)
    if (c.permutation == 1)
      r.pairs.push_back({rank, (rank + 1) % n});
    else if (c.permutation == 2 && rank < n - 1)
      r.pairs.push_back({rank, n - 1 - rank});
  return r;
}

class MpiCollectivesTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto created = MeshTopology::create({{"x", 2}, {"y", processes() * localDevices() / 2}});
    ASSERT_TRUE(created.ok());
    mesh = std::make_unique<MeshTopology>(*created);
    backend = std::make_unique<MpiCollectives>(localDevices(), 20s);
    ASSERT_TRUE(backend->prepare(*mesh).isOk());
  }

  /// Runs `c` on every local device (a thread each); per device, an empty string or what
  /// was wrong.
  std::vector<std::string> run(const Case &c, std::chrono::milliseconds timeout = 20s) {
    int first = distributed::process().index * localDevices();
    std::vector<std::string> problems(localDevices());
    std::vector<std::thread> threads;
    for (int l = 0; l < localDevices(); ++l)
      threads.emplace_back([&, l] {
        int device = first + l;
        DeviceGroup group = *mesh->group(device, c.axes);
        CollectiveRequest r = requestOf(c, group);
        std::vector<char> in = inputOf(c, device), out(r.outputElements() * byteSize(c.dtype));
        r.input = in.data(), r.output = out.data();
        auto handle = backend->start(r);
        if (!handle.ok()) {
          problems[l] = handle.status().message();
          return;
        }
        if (Status s = backend->wait(*handle, timeout); !s.isOk()) {
          problems[l] = s.message();
          return;
        }
        // The reference: the in-process kernel of every member on every member's input.
        std::vector<std::vector<char>> inputs, outputs;
        std::vector<const void *> pointers;
        std::vector<void *> outPointers;
        for (int member : group.devices) {
          inputs.push_back(inputOf(c, member));
          outputs.emplace_back(out.size());
        }
        for (size_t m = 0; m < inputs.size(); ++m)
          pointers.push_back(inputs[m].data()), outPointers.push_back(outputs[m].data());
        for (size_t m = 0; m < inputs.size(); ++m) {
          CollectiveRequest member = r;
          member.group.rank = static_cast<int>(m), member.output = outPointers[m];
          runKernel(member, pointers, outPointers);
        }
        const std::vector<char> &expected = outputs[group.rank];
        if (out != expected)
          problems[l] = "device " + std::to_string(device) + ": " + r.describe() +
                        " differs from the reference";
      });
    for (auto &t : threads)
      t.join();
    return problems;
  }

  std::unique_ptr<MeshTopology> mesh;
  std::unique_ptr<MpiCollectives> backend;
};

TEST_F(MpiCollectivesTest, EveryCollectiveOverEveryGroupMatchesTheInProcessKernel) {
  std::vector<std::vector<std::string>> axesSets = {{"x"}, {"y"}, {"x", "y"}, {"y", "x"}};
  int cases = 0;
  for (const auto &axes : axesSets)
    for (auto [dtype, reduce] : {std::pair{DType::F32, ReduceKind::Sum},
                                 std::pair{DType::BF16, ReduceKind::Sum},
                                 std::pair{DType::F16, ReduceKind::Max},
                                 std::pair{DType::F64, ReduceKind::Sum},
                                 std::pair{DType::I32, ReduceKind::Max},
                                 std::pair{DType::F32, ReduceKind::Max}}) {
      std::vector<Case> all = {
          {CollectiveKind::AllReduce, dtype, reduce, axes, {96}},
          {CollectiveKind::AllGather, dtype, reduce, axes, {8, 12}, 0},
          {CollectiveKind::AllGather, dtype, reduce, axes, {8, 12}, 1},
          {CollectiveKind::ReduceScatter, dtype, reduce, axes, {8, 12}, 0},
          {CollectiveKind::ReduceScatter, dtype, reduce, axes, {8, 12}, 1},
          {CollectiveKind::AllToAll, dtype, reduce, axes, {8, 12}, 0, 1},
          {CollectiveKind::AllToAll, dtype, reduce, axes, {8, 12}, 1, 0},
          {CollectiveKind::AllToAll, dtype, reduce, axes, {8, 12}, 0, 0},
          {CollectiveKind::AllToAll, dtype, reduce, axes, {8, 12}, 1, 1},
          {CollectiveKind::CollectivePermute, dtype, reduce, axes, {8, 12}, 0, 0, 1},
          {CollectiveKind::CollectivePermute, dtype, reduce, axes, {8, 12}, 0, 0, 2},
      };
      for (const Case &c : all) {
        for (const std::string &problem : run(c))
          EXPECT_EQ(problem, "");
        ++cases;
      }
    }
  EXPECT_EQ(cases, 264);
}

TEST_F(MpiCollectivesTest, ALatePeerIsNamedOnATimeout) {
  Case c{CollectiveKind::AllReduce, DType::F32, ReduceKind::Sum, {"x", "y"}, {64}};
  const int last = processes() - 1;
  if (distributed::process().index == last) {
    // Late: the others time out first; then it comes, and every MPI request completes (with
    // values that are unspecified: the others' buffers are gone).
    std::this_thread::sleep_for(1500ms);
    for (const std::string &problem : run(c))
      EXPECT_EQ(problem.find("timed out"), std::string::npos) << problem;
    return;
  }
  for (const std::string &problem : run(c, 300ms)) {
    EXPECT_NE(problem.find("all_reduce sum f32[64]"), std::string::npos) << problem;
    EXPECT_NE(problem.find("timed out"), std::string::npos) << problem;
    EXPECT_NE(problem.find("no word from rank(s) [" + std::to_string(last) + "]"),
              std::string::npos)
        << problem;
  }
  // Stay until the late peer's collective has gone through.
  std::this_thread::sleep_for(2500ms);
}

TEST_F(MpiCollectivesTest, StatisticsCountTheBytesFromPeers) {
  Case c{CollectiveKind::AllReduce, DType::F64, ReduceKind::Sum, {"x", "y"}, {100}};
  for (const std::string &problem : run(c))
    EXPECT_EQ(problem, "");
  int n = processes() * localDevices();
  CollectiveStats stats = backend->stats(distributed::process().index * localDevices());
  EXPECT_EQ(stats.collectives, 1u);
  // all_reduce at what a bandwidth-optimal algorithm moves: 2 (n-1)/n of the input.
  EXPECT_EQ(stats.bytesReceived, static_cast<uint64_t>(2 * (n - 1) * 100 * 8 / n));
}

TEST_F(MpiCollectivesTest, AMeshOfTheWrongSizeIsRefused) {
  auto wrong = MeshTopology::create({{"x", processes() * localDevices() + 1}});
  ASSERT_TRUE(wrong.ok());
  Status s = backend->prepare(*wrong);
  EXPECT_NE(s.message().find("processes x"), std::string::npos) << s.message();
}

TEST_F(MpiCollectivesTest, ABroadcastGivesEveryProcessTheRootsBytes) {
  const int root = processes() - 1, me = distributed::process().index;
  std::vector<char> bytes(300, static_cast<char>(me));
  ASSERT_TRUE(backend->broadcast(bytes, root, 10s).isOk());
  EXPECT_EQ(bytes, std::vector<char>(300, static_cast<char>(root)));
  // A barrier after it still meets every process's.
  EXPECT_TRUE(backend->barrier(10s).isOk());
}

TEST_F(MpiCollectivesTest, AMaximumOverTheProcessesGivesEveryProcessTheLargest) {
  const int me = distributed::process().index;
  // Beyond 32 bits, and a process other than the last holding the largest.
  auto first = backend->startMax((me == 0 ? int64_t{5} << 40 : me) - 7);
  // Two in flight at once, read in either order.
  auto second = backend->startMax(-me);
  ASSERT_TRUE(first.ok() && second.ok());
  auto secondValue = backend->finishMax(*second, 10s);
  auto firstValue = backend->finishMax(*first, 10s);
  ASSERT_TRUE(firstValue.ok() && secondValue.ok()) << firstValue.status().message();
  EXPECT_EQ(*firstValue, (int64_t{5} << 40) - 7);
  EXPECT_EQ(*secondValue, 0);
  // A barrier after them still meets every process's.
  EXPECT_TRUE(backend->barrier(10s).isOk());
}

TEST_F(MpiCollectivesTest, AMaximumALatePeerHasNotJoinedTimesOutSayingEveryoneAnswers) {
  const int last = processes() - 1, me = distributed::process().index;
  if (me == last)
    std::this_thread::sleep_for(1500ms); // late, but its progress thread answers probes
  auto max = backend->startMax(me);
  ASSERT_TRUE(max.ok());
  auto value = backend->finishMax(*max, me == last ? 10s : 300ms);
  if (me == last) {
    ASSERT_TRUE(value.ok()) << value.status().message(); // the others' requests still stand
    EXPECT_EQ(*value, last);
  } else {
    ASSERT_FALSE(value.ok());
    EXPECT_NE(value.status().message().find("did not reach a maximum over the processes"),
              std::string::npos)
        << value.status().message();
    EXPECT_NE(value.status().message().find("every process still answers (one is behind)"),
              std::string::npos)
        << value.status().message();
  }
  EXPECT_TRUE(backend->barrier(10s).isOk());
}

TEST_F(MpiCollectivesTest, NcclIdsOfTheSetsAcrossProcessesAreShared) {
  auto nccl = NcclLibrary::get();
  if (!nccl.ok())
    GTEST_SKIP() << nccl.status().message();
  // This machine has no GPUs: each process holds none of the job's devices, so preparing
  // makes no communicator (it joins no set), but every process still makes it through the
  // barrier, process 0's ids and their broadcast, for the sets of the mesh that span
  // processes.
  NcclCommunicators communicators(
      **nccl, std::vector<std::shared_ptr<CudaPlatform>>(processes() * localDevices()),
      localDevices(), backend.get());
  std::mutex lock;
  Status prepared = communicators.prepare(*mesh, 10s, lock);
  EXPECT_TRUE(prepared.isOk()) << prepared.message();
  auto tooBig = MeshTopology::create({{"x", processes() * localDevices() + 1}});
  EXPECT_NE(communicators.prepare(*tooBig, 10s, lock).message().find("but the job has"),
            std::string::npos);
}

} // namespace

int main(int argc, char **argv) { return testsupport::runTestsInMpiJob(argc, argv); }
