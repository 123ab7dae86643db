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
