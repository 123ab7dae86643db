// Tests of Device, the asynchronous in-order stream: execute() with
// hand-written C kernels standing in for compiled code, ordering, validation,
// error propagation, lifetimes and concurrency across devices.
#include "runtime/Client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace loom::rt;
using namespace std::chrono_literals;

namespace {

/// The gatedAddOne kernel blocks on this until the test opens the gate.
std::shared_future<void> gate;

/// rendezvous kernels wait until this many of them have started.
std::atomic<int> arrived = 0;
int expectedArrivals = 0;

} // namespace

extern "C" {
/// out = x + y over four floats.
static void addF32x4(void **buffers) {
  auto *x = static_cast<const float *>(buffers[0]);
  auto *y = static_cast<const float *>(buffers[1]);
  auto *out = static_cast<float *>(buffers[2]);
  for (int i = 0; i < 4; ++i)
    out[i] = x[i] + y[i];
}

/// out = x + 1 over four floats.
static void addOneF32x4(void **buffers) {
  auto *x = static_cast<const float *>(buffers[0]);
  auto *out = static_cast<float *>(buffers[1]);
  for (int i = 0; i < 4; ++i)
    out[i] = x[i] + 1;
}

static void gatedAddOne(void **buffers) {
  gate.wait();
  addOneF32x4(buffers);
}

/// Writes 1 if every expected rendezvous kernel started within a second,
/// which only happens when devices run at the same time.
static void rendezvous(void **buffers) {
  ++arrived;
  auto deadline = std::chrono::steady_clock::now() + 1s;
  while (arrived.load() < expectedArrivals &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(100us);
  *static_cast<float *>(buffers[0]) = arrived.load() >= expectedArrivals;
}
}

namespace {

using Buffers = std::vector<std::shared_ptr<Buffer>>;

std::shared_ptr<const Executable> makeExe(std::string name,
                                          Executable::EntryFn entry,
                                          int numInputs, int numOutputs) {
  auto exe = std::make_shared<Executable>();
  exe->name = std::move(name);
  exe->entry = entry;
  exe->inputs.assign(numInputs, BufferLayout{{4}, DType::F32});
  exe->outputs.assign(numOutputs, BufferLayout{{4}, DType::F32});
  return exe;
}

std::shared_ptr<Buffer> floats(Device &device, std::vector<float> values) {
  return Buffer::fromHost(device, values.data(), values.size() * 4);
}

std::vector<float> toHost(const std::shared_ptr<Buffer> &buffer) {
  std::vector<float> values(buffer->size() / 4);
  Status status = copyToHost(*buffer, values.data(), buffer->size());
  EXPECT_TRUE(status.isOk()) << status.toString();
  return values;
}

/// Opens the gate when it goes out of scope, so that a failing test never
/// leaves a device blocked in its destructor.
struct Gate {
  std::promise<void> release;
  bool open = false;
  Gate() { gate = release.get_future().share(); }
  ~Gate() { openGate(); }
  void openGate() {
    if (!open)
      release.set_value();
    open = true;
  }
};

/// Runs each test on a client of 1 and of 4 virtual CPU devices.
class DeviceTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override {
    auto created = Client::createCpu(GetParam());
    ASSERT_TRUE(created.ok()) << created.status().toString();
    client = std::move(*created);
  }
  std::unique_ptr<Client> client;
};

} // namespace

TEST_P(DeviceTest, ExecuteAddsOnEveryDevice) {
  auto add = makeExe("add", addF32x4, 2, 1);
  for (int d = 0; d < client->deviceCount(); ++d) {
    Device &device = client->device(d);
    EXPECT_EQ(device.id(), d);
    float base = static_cast<float>(d);
    auto outs = device.execute(add, {floats(device, {1, 2, 3, 4}),
                                     floats(device, {base, base, base, base})});
    ASSERT_TRUE(outs.ok()) << outs.status().toString();
    ASSERT_EQ(outs->size(), 1u);
    EXPECT_EQ(&(*outs)[0]->device(), &device);
    EXPECT_EQ(toHost((*outs)[0]),
              (std::vector<float>{1 + base, 2 + base, 3 + base, 4 + base}));
  }
}

TEST_P(DeviceTest, ChainOf100LaunchesRunsInOrder) {
  auto addOne = makeExe("add_one", addOneF32x4, 1, 1);
  for (int d = 0; d < client->deviceCount(); ++d) {
    Device &device = client->device(d);
    std::shared_ptr<Buffer> value = floats(device, {0, 1, 2, 3});
    for (int step = 0; step < 100; ++step) {
      auto outs = device.execute(addOne, {value});
      ASSERT_TRUE(outs.ok()) << outs.status().toString();
      value = (*outs)[0];
    }
    EXPECT_EQ(toHost(value), (std::vector<float>{100, 101, 102, 103}));
    EXPECT_TRUE(device.synchronize().isOk());
  }
}

TEST_P(DeviceTest, ErrorPropagatesDownTheChain) {
  auto addOne = makeExe("add_one", addOneF32x4, 1, 1);
  Device &device = client->device(client->deviceCount() - 1);
  auto pending = Buffer::allocate(device, 16);
  auto first = device.execute(addOne, {pending});
  ASSERT_TRUE(first.ok());
  auto second = device.execute(addOne, {(*first)[0]});
  ASSERT_TRUE(second.ok());
  pending->ready()->signal(
      Status::error(StatusCode::Unavailable, "host transfer failed"));

  Status firstStatus = (*first)[0]->ready()->waitFor(10s);
  EXPECT_EQ(firstStatus.code(), StatusCode::Unavailable);
  EXPECT_EQ(firstStatus.message(),
            "executable 'add_one': input 0 failed: host transfer failed");
  Status secondStatus = (*second)[0]->ready()->waitFor(10s);
  EXPECT_EQ(secondStatus.code(), StatusCode::Unavailable);
  EXPECT_EQ(secondStatus.message(),
            "executable 'add_one': input 0 failed: executable 'add_one': "
            "input 0 failed: host transfer failed");

  EXPECT_EQ(device.synchronize(), firstStatus);
  EXPECT_TRUE(device.synchronize().isOk()) << "errors are reported once";
  // The stream keeps working after an error.
  auto outs = device.execute(addOne, {floats(device, {1, 1, 1, 1})});
  ASSERT_TRUE(outs.ok());
  EXPECT_EQ(toHost((*outs)[0]), (std::vector<float>{2, 2, 2, 2}));
}

/// out0 = x + 1, out1 = x + 2 over four floats.
extern "C" void addOneAndTwoF32x4(void **buffers) {
  auto *x = static_cast<const float *>(buffers[0]);
  for (int i = 0; i < 4; ++i)
    static_cast<float *>(buffers[1])[i] = x[i] + 1, static_cast<float *>(buffers[2])[i] = x[i] + 2;
}

// A launch's outputs are ready together, on one event; the next launch waits on each
// producer once, and a failure names the first input that came from it.
TEST_P(DeviceTest, OutputsOfALaunchShareTheirEvent) {
  Device &device = client->device(0);
  auto pending = Buffer::allocate(device, 16);
  auto both = device.execute(makeExe("one_and_two", addOneAndTwoF32x4, 1, 2), {pending});
  ASSERT_TRUE(both.ok());
  EXPECT_EQ((*both)[0]->ready(), (*both)[1]->ready());
  auto sum = device.execute(makeExe("add", addF32x4, 2, 1), {(*both)[0], (*both)[1]});
  ASSERT_TRUE(sum.ok());
  auto late = device.execute(makeExe("add", addF32x4, 2, 1),
                             {floats(device, {0, 0, 0, 0}), (*both)[1]});
  ASSERT_TRUE(late.ok());
  std::memcpy(pending->data(), std::vector<float>{1, 2, 3, 4}.data(), 16);
  pending->ready()->signal(Status::ok());
  EXPECT_EQ(toHost((*sum)[0]), (std::vector<float>{5, 7, 9, 11}));
  EXPECT_EQ(toHost((*late)[0]), (std::vector<float>{3, 4, 5, 6}));

  auto failing = Buffer::allocate(device, 16);
  auto failed = device.execute(makeExe("one_and_two", addOneAndTwoF32x4, 1, 2), {failing});
  ASSERT_TRUE(failed.ok());
  auto after = device.execute(makeExe("add", addF32x4, 2, 1),
                              {floats(device, {0, 0, 0, 0}), (*failed)[1]});
  ASSERT_TRUE(after.ok());
  failing->ready()->signal(Status::error(StatusCode::Unavailable, "lost"));
  EXPECT_EQ((*after)[0]->ready()->waitFor(10s).message(),
            "executable 'add': input 1 failed: executable 'one_and_two': input 0 failed: lost");
  EXPECT_EQ(device.synchronize().code(), StatusCode::Unavailable);
}

TEST_P(DeviceTest, DevicesRunConcurrently) {
  int n = client->deviceCount();
  arrived = 0;
  expectedArrivals = n;
  auto meet = makeExe("rendezvous", rendezvous, 0, 1);
  Buffers outs;
  for (int d = 0; d < n; ++d) {
    auto result = client->device(d).execute(meet, {});
    ASSERT_TRUE(result.ok());
    outs.push_back((*result)[0]);
  }
  for (auto &out : outs)
    EXPECT_EQ(toHost(out)[0], 1.0f) << "devices did not overlap";
}

TEST_P(DeviceTest, EventsOrderWorkAcrossDevices) {
  // The last device copies a result of device 0 once its event says so.
  Device &producer = client->device(0);
  Device &consumer = client->device(client->deviceCount() - 1);
  auto addOne = makeExe("add_one", addOneF32x4, 1, 1);
  Gate gateGuard;
  auto produced = producer.execute(makeExe("gated", gatedAddOne, 1, 1),
                                   {floats(producer, {1, 2, 3, 4})});
  ASSERT_TRUE(produced.ok());
  std::shared_ptr<Buffer> source = (*produced)[0];
  auto copy = Buffer::allocate(consumer, 16);
  consumer.enqueue(
      [source, copy] {
        std::memcpy(copy->data(), source->data(), 16);
        return Status::ok();
      },
      {source->ready()}, {copy->ready()});
  auto outs = consumer.execute(addOne, {copy});
  ASSERT_TRUE(outs.ok());
  EXPECT_FALSE(copy->ready()->isReady());
  gateGuard.openGate();
  EXPECT_EQ(toHost((*outs)[0]), (std::vector<float>{3, 4, 5, 6}));
}

INSTANTIATE_TEST_SUITE_P(VirtualCpu, DeviceTest, ::testing::Values(1, 4),
                         [](const auto &info) {
                           return std::to_string(info.param) + "Devices";
                         });

TEST(DeviceExecuteTest, ReturnsBeforeTheWorkRuns) {
  Device device(0);
  Gate gateGuard;
  auto outs = device.execute(makeExe("gated", gatedAddOne, 1, 1),
                             {floats(device, {0, 0, 0, 0})});
  ASSERT_TRUE(outs.ok());
  auto out = (*outs)[0];
  EXPECT_FALSE(out->ready()->isReady());
  EXPECT_EQ(out->ready()->waitFor(5ms).code(), StatusCode::DeadlineExceeded);
  gateGuard.openGate();
  EXPECT_TRUE(out->ready()->waitFor(10s).isOk());
  EXPECT_EQ(toHost(out), (std::vector<float>{1, 1, 1, 1}));
}

TEST(DeviceExecuteTest, ValidationErrorsNameTheExecutableAndInput) {
  Device device(0), other(1);
  auto add = makeExe("add", addF32x4, 2, 1);
  auto x = floats(device, {1, 2, 3, 4});
  auto check = [&](Buffers inputs, const std::string &message) {
    auto outs = device.execute(add, std::move(inputs));
    ASSERT_FALSE(outs.ok());
    EXPECT_EQ(outs.status().code(), StatusCode::InvalidArgument);
    EXPECT_EQ(outs.status().message(), message);
  };
  check({x}, "executable 'add': expected 2 inputs, got 1");
  check({x, floats(device, {1, 2, 3})},
        "executable 'add': input 1 expected 16 bytes (f32[4]), got 12 bytes");
  check({floats(other, {1, 2, 3, 4}), x},
        "executable 'add': input 0 lives on device 1, expected device 0");
  check({x, nullptr}, "executable 'add': input 1 is null");

  auto noEntry = makeExe("empty", nullptr, 0, 0);
  EXPECT_EQ(device.execute(noEntry, {}).status().message(),
            "executable 'empty': no entry point");
  EXPECT_EQ(device.execute(nullptr, {}).status().message(),
            "execute: executable is null");
  // Nothing was enqueued, so nothing failed on the stream.
  EXPECT_TRUE(device.synchronize().isOk());
}

TEST(DeviceExecuteTest, DroppingEverythingAfterExecuteIsSafe) {
  Device device(0);
  std::weak_ptr<void> code;
  std::weak_ptr<Buffer> output;
  {
    Gate gateGuard;
    auto exe =
        std::make_shared<Executable>(*makeExe("gated", gatedAddOne, 1, 1));
    exe->keepAlive = std::make_shared<int>(0);
    code = exe->keepAlive;
    auto outs = device.execute(exe, {floats(device, {1, 2, 3, 4})});
    ASSERT_TRUE(outs.ok());
    output = (*outs)[0];
    exe.reset();
    outs = Buffers();
    // The queued launch alone keeps the code and buffers alive.
    EXPECT_FALSE(code.expired());
    EXPECT_FALSE(output.expired());
    EXPECT_EQ(device.bytesInUse(), 32u);
  }
  EXPECT_TRUE(device.synchronize().isOk());
  EXPECT_TRUE(code.expired());
  EXPECT_TRUE(output.expired());
  EXPECT_EQ(device.bytesInUse(), 0u);
}

TEST(DeviceEnqueueTest, FailedWorkSignalsItsEventsAndSynchronize) {
  Device device(0);
  auto done = Event::create();
  device.enqueue(
      [] { return Status::error(StatusCode::Internal, "collective failed"); },
      {}, {done});
  EXPECT_EQ(done->waitFor(10s).message(), "collective failed");
  Status status = device.synchronize();
  EXPECT_EQ(status.code(), StatusCode::Internal);
  EXPECT_EQ(status.message(), "collective failed");
}

TEST(DeviceEnqueueTest, ThrowingWorkBecomesAnInternalError) {
  Device device(0);
  auto done = Event::create();
  device.enqueue([]() -> Status { throw std::runtime_error("oops"); }, {},
                 {done});
  Status status = done->waitFor(10s);
  EXPECT_EQ(status.code(), StatusCode::Internal);
  EXPECT_EQ(status.message(), "work threw: oops");
}

TEST(DeviceEnqueueTest, FailedWaitSkipsTheWork) {
  Device device(0);
  auto failed = Event::create();
  failed->signal(Status::error(StatusCode::Cancelled, "step aborted"));
  bool ran = false;
  auto done = Event::create();
  device.enqueue(
      [&] {
        ran = true;
        return Status::ok();
      },
      {Event::ready(), failed}, {done});
  Status status = done->waitFor(10s);
  EXPECT_EQ(status.code(), StatusCode::Cancelled);
  EXPECT_EQ(status.message(), "wait event 1 failed: step aborted");
  EXPECT_TRUE(device.synchronize().code() == StatusCode::Cancelled);
  EXPECT_FALSE(ran);
}

TEST(DeviceEnqueueTest, SynchronizeWaitsForEverything) {
  Device device(0);
  std::atomic<int> finished = 0;
  for (int i = 0; i < 20; ++i)
    device.enqueue(
        [&] {
          std::this_thread::sleep_for(100us);
          ++finished;
          return Status::ok();
        },
        {}, {});
  EXPECT_TRUE(device.synchronize().isOk());
  EXPECT_EQ(finished.load(), 20);
}

TEST(DeviceExecuteTest, ExecuteIsThreadSafe) {
  Device device(0);
  auto addOne = makeExe("add_one", addOneF32x4, 1, 1);
  std::vector<std::shared_ptr<Buffer>> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::shared_ptr<Buffer> value =
          floats(device, {float(t), float(t), float(t), float(t)});
      for (int step = 0; step < 25; ++step)
        value = (*device.execute(addOne, {value}))[0];
      results[t] = value;
    });
  for (auto &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(toHost(results[t])[0], 25.0f + t);
  EXPECT_TRUE(device.synchronize().isOk());
}
