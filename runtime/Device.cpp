// The CPU stream: one worker thread draining an in-order queue, and execute()
// built on top of it.
#include "runtime/Device.h"

#include <exception>
#include <string>

namespace loom::rt {

void detail::MemoryStats::add(size_t bytes) {
  size_t now = inUse.fetch_add(bytes) + bytes;
  size_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

Device::Device(int id) : index(id) {
  // Started last, once every member the worker touches exists.
  worker = std::thread([this] { serve(); });
}

Device::~Device() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  workAvailable.notify_all();
  worker.join();
}

void Device::push(WorkItem item) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(std::move(item));
    ++enqueuedCount;
  }
  workAvailable.notify_one();
}

void Device::enqueue(std::function<Status()> work,
                     std::vector<std::shared_ptr<Event>> waitFor,
                     std::vector<std::shared_ptr<Event>> signal) {
  WaitFailureFn onWaitFailure = [](size_t i, const Status &cause) {
    return Status::error(cause.code(), "wait event " + std::to_string(i) +
                                           " failed: " + cause.message());
  };
  push({std::move(work), std::move(waitFor), std::move(signal),
        std::move(onWaitFailure)});
}

Status Device::runItem(WorkItem &item) {
  for (size_t i = 0; i < item.waitFor.size(); ++i) {
    if (!item.waitFor[i])
      continue;
    Status status = item.waitFor[i]->wait();
    if (!status.isOk())
      return item.onWaitFailure(i, status);
  }
  // A throwing work function must still signal its events, or every consumer
  // downstream would wait forever.
  try {
    return item.work ? item.work() : Status::ok();
  } catch (const std::exception &e) {
    return Status::error(StatusCode::Internal,
                         std::string("work threw: ") + e.what());
  } catch (...) {
    return Status::error(StatusCode::Internal, "work threw an exception");
  }
}

void Device::serve() {
  for (;;) {
    WorkItem item;
    {
      std::unique_lock<std::mutex> lock(mutex);
      workAvailable.wait(lock, [this] { return stopping || !queue.empty(); });
      if (queue.empty())
        return;
      item = std::move(queue.front());
      queue.pop_front();
    }
    Status status = runItem(item);
    for (auto &event : item.signal)
      if (event)
        event->signal(status);
    // Drop the item's references before counting it finished, so that after
    // synchronize() the device holds no buffer of its own.
    item = WorkItem();
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++finishedCount;
      if (!status.isOk() && firstError.isOk())
        firstError = std::move(status);
    }
    workFinished.notify_all();
  }
}

Status Device::synchronize() {
  std::unique_lock<std::mutex> lock(mutex);
  uint64_t target = enqueuedCount;
  workFinished.wait(lock, [&] { return finishedCount >= target; });
  Status result = std::move(firstError);
  firstError = Status::ok();
  return result;
}

/// Checks `inputs` against `exe`'s layout on `device`; the message names the
/// executable so that a failing step of a large program is easy to find.
static Status
validateInputs(const Executable &exe, const Device &device,
               const std::vector<std::shared_ptr<Buffer>> &inputs) {
  std::string prefix = "executable '" + exe.name + "': ";
  auto invalid = [&](const std::string &what) {
    return Status::error(StatusCode::InvalidArgument, prefix + what);
  };
  if (!exe.entry)
    return invalid("no entry point");
  if (inputs.size() != exe.inputs.size())
    return invalid("expected " + std::to_string(exe.inputs.size()) +
                   " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string input = "input " + std::to_string(i);
    if (!inputs[i])
      return invalid(input + " is null");
    if (&inputs[i]->device() != &device)
      return invalid(input + " lives on device " +
                     std::to_string(inputs[i]->device().id()) +
                     ", expected device " + std::to_string(device.id()));
    const BufferLayout &layout = exe.inputs[i];
    if (inputs[i]->size() != layout.bytes())
      return invalid(input + " expected " + std::to_string(layout.bytes()) +
                     " bytes (" + layout.toString() + "), got " +
                     std::to_string(inputs[i]->size()) + " bytes");
  }
  return Status::ok();
}

/// Allocates `exe`'s outputs on `device`, not yet ready.
static StatusOr<std::vector<std::shared_ptr<Buffer>>>
allocateOutputs(const Executable &exe, Device &device) {
  std::vector<std::shared_ptr<Buffer>> outputs;
  for (size_t i = 0; i < exe.outputs.size(); ++i) {
    size_t bytes = exe.outputs[i].bytes();
    auto output = Buffer::allocate(device, bytes);
    if (!output)
      return Status::error(StatusCode::Unavailable,
                           "executable '" + exe.name + "': cannot allocate " +
                               std::to_string(bytes) + " bytes for output " +
                               std::to_string(i));
    outputs.push_back(std::move(output));
  }
  return outputs;
}

StatusOr<std::vector<std::shared_ptr<Buffer>>>
Device::execute(std::shared_ptr<const Executable> exe,
                std::vector<std::shared_ptr<Buffer>> inputs) {
  if (!exe)
    return Status::error(StatusCode::InvalidArgument,
                         "execute: executable is null");
  if (Status status = validateInputs(*exe, *this, inputs); !status.isOk())
    return status;
  auto allocated = allocateOutputs(*exe, *this);
  if (!allocated.ok())
    return allocated.status();
  std::vector<std::shared_ptr<Buffer>> outputs = std::move(*allocated);

  std::vector<std::shared_ptr<Event>> waitFor, signal;
  for (const auto &input : inputs)
    waitFor.push_back(input->ready());
  for (const auto &output : outputs)
    signal.push_back(output->ready());
  WaitFailureFn onWaitFailure = [name = exe->name](size_t i,
                                                   const Status &cause) {
    return Status::error(cause.code(), "executable '" + name + "': input " +
                                           std::to_string(i) +
                                           " failed: " + cause.message());
  };
  auto work = [exe, inputs, outputs]() {
    std::vector<void *> pointers;
    pointers.reserve(inputs.size() + outputs.size());
    for (const auto &buffer : inputs)
      pointers.push_back(buffer->data());
    for (const auto &buffer : outputs)
      pointers.push_back(buffer->data());
    exe->entry(pointers.data());
    return Status::ok();
  };
  push({std::move(work), std::move(waitFor), std::move(signal),
        std::move(onWaitFailure)});
  return outputs;
}

} // namespace loom::rt
