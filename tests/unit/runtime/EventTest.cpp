// Tests of Event, the one-shot completion every asynchronous result rides on.
#include "runtime/Event.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

using namespace loom::rt;
using namespace std::chrono_literals;

TEST(EventTest, ReadyIsSignalledOk) {
  auto event = Event::ready();
  EXPECT_TRUE(event->isReady());
  EXPECT_TRUE(event->wait().isOk());
}

TEST(EventTest, FirstSignalWins) {
  auto event = Event::create();
  EXPECT_FALSE(event->isReady());
  event->signal(Status::error(StatusCode::Cancelled, "stopped"));
  event->signal(Status::ok());
  EXPECT_TRUE(event->isReady());
  Status status = event->wait();
  EXPECT_EQ(status.code(), StatusCode::Cancelled);
  EXPECT_EQ(status.message(), "stopped");
}

TEST(EventTest, WaitBlocksUntilAnotherThreadSignals) {
  auto event = Event::create();
  std::thread producer([event] {
    std::this_thread::sleep_for(5ms);
    event->signal(Status::ok());
  });
  EXPECT_TRUE(event->wait().isOk());
  producer.join();
}

TEST(EventTest, WaitForTimesOut) {
  auto event = Event::create();
  Status status = event->waitFor(10ms);
  EXPECT_EQ(status.code(), StatusCode::DeadlineExceeded);
  EXPECT_EQ(status.message(), "event not signalled within 10 ms");
  EXPECT_FALSE(event->isReady());
  event->signal(Status::ok());
  EXPECT_TRUE(event->waitFor(10ms).isOk());
}

TEST(EventTest, OnReadyBeforeSignalRunsOnSignal) {
  auto event = Event::create();
  int calls = 0;
  StatusCode seen = StatusCode::Ok;
  event->onReady([&](const Status &status) {
    ++calls;
    seen = status.code();
  });
  EXPECT_EQ(calls, 0);
  event->signal(Status::error(StatusCode::Internal, "boom"));
  event->signal(Status::ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, StatusCode::Internal);
}

TEST(EventTest, OnReadyAfterSignalRunsAtOnce) {
  auto event = Event::ready();
  bool ran = false;
  event->onReady([&](const Status &status) { ran = status.isOk(); });
  EXPECT_TRUE(ran);
}

TEST(EventTest, CallbackMayUseTheEvent) {
  // Callbacks run outside the lock, so touching the event again must not
  // deadlock.
  auto event = Event::create();
  bool sawReady = false;
  event->onReady([&](const Status &) { sawReady = event->isReady(); });
  event->signal(Status::ok());
  EXPECT_TRUE(sawReady);
}

TEST(EventTest, ConcurrentSignalsDeliverOneStatus) {
  auto event = Event::create();
  std::atomic<int> calls = 0;
  event->onReady([&](const Status &) { ++calls; });
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([event, i] {
      event->signal(Status::error(StatusCode::Internal, std::to_string(i)));
    });
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(calls.load(), 1);
  EXPECT_FALSE(event->wait().isOk());
}
