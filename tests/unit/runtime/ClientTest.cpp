// Tests of Client creation: explicit device counts, LOOM_CPU_DEVICES and the
// process-wide default client.
#include "runtime/Client.h"
#include "runtime/Blas.h"

#include <algorithm>
#include <thread>

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

using namespace loom::rt;

namespace {

/// Restores LOOM_CPU_DEVICES after each test.
class ClientTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (const char *value = std::getenv("LOOM_CPU_DEVICES"))
      saved = value;
  }
  void TearDown() override {
    if (saved)
      setenv("LOOM_CPU_DEVICES", saved->c_str(), 1);
    else
      unsetenv("LOOM_CPU_DEVICES");
  }
  std::optional<std::string> saved;
};

} // namespace

TEST_F(ClientTest, ExplicitCountIgnoresTheEnvironment) {
  setenv("LOOM_CPU_DEVICES", "7", 1);
  auto client = Client::createCpu(2);
  ASSERT_TRUE(client.ok());
  ASSERT_EQ((*client)->deviceCount(), 2);
  EXPECT_EQ((*client)->device(0).id(), 0);
  EXPECT_EQ((*client)->device(1).id(), 1);
}

TEST_F(ClientTest, CountFromTheEnvironment) {
  setenv("LOOM_CPU_DEVICES", "3", 1);
  auto client = Client::createCpu(0);
  ASSERT_TRUE(client.ok()) << client.status().toString();
  ASSERT_EQ((*client)->deviceCount(), 3);
  EXPECT_EQ((*client)->device(2).id(), 2);
}

TEST_F(ClientTest, DefaultsToOneDevice) {
  unsetenv("LOOM_CPU_DEVICES");
  auto client = Client::createCpu(-1);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ((*client)->deviceCount(), 1);
}

TEST_F(ClientTest, InvalidEnvironmentValueIsAnError) {
  for (const char *value : {"abc", "0", "-2", "3x", "100000"}) {
    setenv("LOOM_CPU_DEVICES", value, 1);
    auto client = Client::createCpu(0);
    ASSERT_FALSE(client.ok()) << value;
    EXPECT_EQ(client.status().code(), StatusCode::InvalidArgument);
    EXPECT_EQ(client.status().message(),
              "LOOM_CPU_DEVICES='" + std::string(value) +
                  "' is not a device count between 1 and 1024");
  }
}

TEST_F(ClientTest, TooManyDevicesIsAnError) {
  auto client = Client::createCpu(5000);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(),
            "cannot create 5000 CPU devices; the limit is 1024");
}

TEST_F(ClientTest, DefaultClientIsCreatedOnce) {
  Client &first = Client::defaultClient();
  Client &second = Client::defaultClient();
  EXPECT_EQ(&first, &second);
  EXPECT_GE(first.deviceCount(), 1);
}

TEST(ClientBlas, DevicesShareTheCoresForGemm) {
  int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  int before = blasThreads();
  auto client = Client::createCpu(2 * cores);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ(blasThreads(), 1) << "2 devices per core leave one BLAS thread each";
  setBlasThreads(before);
}

TEST(ClientBlas, TheThreadCountIsTheConfiguredOneWhileAProductRunsOnOneThread) {
  int before = blasThreads();
  setBlasThreads(2);
  {
    OneBlasThread oneThread; // as a device's small products hold it, for the whole process
    EXPECT_EQ(blasThreads(), 2) << "the share the devices were given, not the scope's 1";
  }
  EXPECT_EQ(blasThreads(), 2);
  setBlasThreads(before);
}

TEST(ClientGpus, OneProcessTakesTheGpusItAsksForFromTheFirst) {
  EXPECT_EQ(*gpusOfProcess(4, 0, 1, 0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(*gpusOfProcess(4, 2, 1, 0), (std::vector<int>{0, 1}));
  Status tooMany = gpusOfProcess(2, 3, 1, 0).status();
  EXPECT_EQ(tooMany.code(), StatusCode::Unavailable);
  EXPECT_EQ(tooMany.message(), "asked for 3 GPUs, the driver sees 2");
  EXPECT_EQ(gpusOfProcess(0, 0, 1, 0).status().message(), "asked for 0 GPUs, the driver sees 0");
}

TEST(ClientGpus, ProcessesOfAHostShareItsGpusOutInOrder) {
  // 8 GPUs, 4 processes on the host: 2 each, process 2 takes the third pair.
  EXPECT_EQ(*gpusOfProcess(8, 0, 4, 2), (std::vector<int>{4, 5}));
  EXPECT_EQ(*gpusOfProcess(8, 1, 4, 3), (std::vector<int>{3}));
  EXPECT_EQ(*gpusOfProcess(8, 0, 8, 7), (std::vector<int>{7}));
  Status tooMany = gpusOfProcess(8, 3, 4, 3).status();
  EXPECT_EQ(tooMany.message(),
            "asked for 3 GPUs for each of the 4 processes on this host, the driver sees 8");
}

TEST(ClientGpus, ProcessesThatSeeTheirOwnGpusTakeThemAll) {
  // CUDA_VISIBLE_DEVICES gave each of 8 processes one GPU: each takes the one it sees.
  EXPECT_EQ(*gpusOfProcess(1, 0, 8, 5), (std::vector<int>{0}));
  EXPECT_EQ(*gpusOfProcess(2, 0, 4, 1), (std::vector<int>{0, 1}));
}
