// The CPU stream: one worker thread draining an in-order queue, and execute()
// built on top of it.
#include "runtime/Device.h"
#include "runtime/Profiler.h"
#include "runtime/TempMemory.h"
#include "runtime/WorkerPool.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <string>

namespace loom::rt {

namespace {
/// How long a device's thread spins for its next item before sleeping (see enqueuedCount).
constexpr int kIdleSpinUs = 300;
} // namespace

void detail::MemoryStats::add(size_t bytes) {
  size_t now = inUse.fetch_add(bytes) + bytes;
  size_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

void detail::MemoryStats::addTemporary(size_t bytes) {
  add(bytes);
  size_t now = temporaryInUse.fetch_add(bytes) + bytes;
  size_t seen = temporaryPeak.load();
  while (now > seen && !temporaryPeak.compare_exchange_weak(seen, now)) {
  }
}

Device::Device(int id, int kernelThreads, std::shared_ptr<Platform> platform)
    : index(id), kind(std::move(platform)), pool(std::make_unique<WorkerPool>(kernelThreads, [stats = memoryStats.get()] {
        detail::setTempMemoryStats(stats);
      })) {
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
    enqueuedCount.fetch_add(1, std::memory_order_release);
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
  // Temporaries of the compiled code this thread runs count as this device's memory.
  detail::setTempMemoryStats(memoryStats.get());
  // Parallel loops of the kernels it runs share the device's pool.
  detail::setCurrentWorkerPool(pool.get());
  kind->bindWorkerThread();
  // Only a device with cores of its own spins: devices sharing cores would take them from
  // each other's kernels.
  const auto idleSpin = std::chrono::microseconds(pool->threads() >= 2 ? kIdleSpinUs : 0);
  uint64_t taken = 0;
  for (;;) {
    WorkItem item;
    {
      if (idleSpin.count() > 0) {
        auto until = std::chrono::steady_clock::now() + idleSpin;
        for (int spins = 1; enqueuedCount.load(std::memory_order_acquire) == taken; ++spins) {
          if (spins % 64 == 0 && std::chrono::steady_clock::now() >= until)
            break;
          cpuRelax();
        }
      }
      std::unique_lock<std::mutex> lock(mutex);
      workAvailable.wait(lock, [this] { return stopping || !queue.empty(); });
      if (queue.empty())
        return;
      item = std::move(queue.front());
      queue.pop_front();
      ++taken;
    }
    pool->setBusy(true);
    Status status = runItem(item);
    pool->setBusy(false);
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
  uint64_t target = enqueuedCount.load();
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
  // Messages are built only for a failure: this runs before every launch.
  auto invalid = [&](const std::string &what) {
    return Status::error(StatusCode::InvalidArgument, "executable '" + exe.name + "': " + what);
  };
  if (!exe.entry)
    return invalid("no entry point");
  if (inputs.size() != exe.inputs.size())
    return invalid("expected " + std::to_string(exe.inputs.size()) +
                   " inputs, got " + std::to_string(inputs.size()));
  if (!exe.outputAliases.empty() &&
      exe.outputAliases.size() != exe.outputs.size())
    return invalid("has " + std::to_string(exe.outputAliases.size()) +
                   " output aliases for " + std::to_string(exe.outputs.size()) +
                   " outputs");
  std::vector<bool> aliased(inputs.size());
  for (size_t o = 0; o < exe.outputAliases.size(); ++o) {
    int alias = exe.outputAliases[o];
    if (alias < 0)
      continue;
    if (static_cast<size_t>(alias) >= inputs.size() || aliased[alias] ||
        exe.inputs[alias].bytes() != exe.outputs[o].bytes())
      return invalid("output " + std::to_string(o) +
                     " cannot live in input " + std::to_string(alias) +
                     " (no such input, sizes differ, or already taken)");
    aliased[alias] = true;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto input = [i] { return "input " + std::to_string(i); };
    if (!inputs[i])
      return invalid(input() + " is null");
    if (&inputs[i]->device() != &device)
      return invalid(input() + " lives on device " +
                     std::to_string(inputs[i]->device().id()) +
                     ", expected device " + std::to_string(device.id()));
    if (inputs[i]->isDonated())
      return invalid(input() + " was donated to an earlier launch; pass that "
                             "launch's output instead");
    const BufferLayout &layout = exe.inputs[i];
    if (inputs[i]->size() != layout.bytes())
      return invalid(input() + " expected " + std::to_string(layout.bytes()) +
                     " bytes (" + layout.toString() + "), got " +
                     std::to_string(inputs[i]->size()) + " bytes");
  }
  return Status::ok();
}

/// Allocates `exe`'s outputs on `device`, not yet ready. An output that aliases
/// a donated input takes over that input's memory; if the same buffer is also
/// passed as another input, which must keep its contents, the donated input is
/// first replaced by a copy (`copies` lists the pairs to copy before running).
/// Nothing is donated unless every allocation succeeded.
static StatusOr<std::vector<std::shared_ptr<Buffer>>>
allocateOutputs(const Executable &exe, Device &device,
                std::vector<std::shared_ptr<Buffer>> &inputs,
                std::vector<std::pair<std::shared_ptr<Buffer>,
                                      std::shared_ptr<Buffer>>> &copies,
                const std::shared_ptr<Event> &ready) {
  auto outOfMemory = [&](size_t bytes, const std::string &what) {
    return Status::error(StatusCode::Unavailable,
                         "executable '" + exe.name + "': cannot allocate " +
                             std::to_string(bytes) + " bytes for " + what);
  };
  auto aliasOf = [&](size_t output) {
    return output < exe.outputAliases.size() ? exe.outputAliases[output] : -1;
  };
  std::vector<std::shared_ptr<Buffer>> outputs(exe.outputs.size());
  std::vector<std::shared_ptr<Buffer>> donors = inputs;
  for (size_t i = 0; i < exe.outputs.size(); ++i) {
    int alias = aliasOf(i);
    if (alias < 0) {
      size_t bytes = exe.outputs[i].bytes();
      if (!(outputs[i] = Buffer::allocate(device, bytes, ready)))
        return outOfMemory(bytes, "output " + std::to_string(i));
    } else if (std::count(donors.begin(), donors.end(), inputs[alias]) > 1) {
      auto copy = Buffer::allocate(device, inputs[alias]->size());
      if (!copy)
        return outOfMemory(inputs[alias]->size(), "input " + std::to_string(alias));
      copies.emplace_back(inputs[alias], copy);
      donors[alias] = copy;
    }
  }
  for (size_t i = 0; i < exe.outputs.size(); ++i)
    if (int alias = aliasOf(i); alias >= 0)
      if (!(outputs[i] = donors[alias]->donate(ready))) // donated by another thread
        return Status::error(StatusCode::FailedPrecondition,
                             "executable '" + exe.name + "': input " +
                                 std::to_string(alias) + " was donated twice");
  inputs = std::move(donors);
  return outputs;
}

StatusOr<std::vector<std::shared_ptr<Buffer>>>
Device::execute(std::shared_ptr<const Executable> exe,
                std::vector<std::shared_ptr<Buffer>> inputs,
                std::optional<SpmdContext> spmd) {
  if (!exe)
    return Status::error(StatusCode::InvalidArgument,
                         "execute: executable is null");
  if (Status status = validateInputs(*exe, *this, inputs); !status.isOk())
    return status;
  // A launch's outputs share one event, so the inputs of the next step (the last one's
  // outputs, in a row) wait on a few events, not one per array: a run of inputs with the same
  // event waits once (linear in the inputs, however many producers they have).
  std::vector<std::shared_ptr<Event>> waitFor;
  std::vector<size_t> waitInputs; // an input each event stands for, for error messages
  for (size_t i = 0; i < inputs.size(); ++i)
    if (waitFor.empty() || waitFor.back() != inputs[i]->ready())
      waitFor.push_back(inputs[i]->ready()), waitInputs.push_back(i);
  std::vector<std::pair<std::shared_ptr<Buffer>, std::shared_ptr<Buffer>>> copies;
  // The outputs are ready together, when the launch ends.
  std::shared_ptr<Event> done = Event::create();
  auto allocated = allocateOutputs(*exe, *this, inputs, copies, done);
  if (!allocated.ok())
    return allocated.status();
  std::vector<std::shared_ptr<Buffer>> outputs = std::move(*allocated);
  std::vector<std::shared_ptr<Buffer>> donors;
  for (int alias : exe->outputAliases)
    if (alias >= 0)
      donors.push_back(inputs[alias]);

  WaitFailureFn onWaitFailure = [name = exe->name, waitInputs](size_t i,
                                                               const Status &cause) {
    return Status::error(cause.code(), "executable '" + name + "': input " +
                                           std::to_string(waitInputs[i]) +
                                           " failed: " + cause.message());
  };
  auto work = [exe, inputs, outputs, copies, donors, spmd, deviceId = id(),
               platform = kind]() {
    for (const auto &[from, to] : copies)
      if (Status s = platform->copyWithin(to->data(), from->data(), from->size()); !s.isOk())
        return s;
    // Host reads of a donated buffer that began before the donation finish
    // before its memory is overwritten.
    std::vector<std::unique_lock<std::shared_mutex>> writing;
    for (const auto &donor : donors)
      writing.emplace_back(donor->hostReadLock());
    std::vector<void *> pointers;
    pointers.reserve(inputs.size() + outputs.size());
    for (const auto &buffer : inputs)
      pointers.push_back(buffer->data());
    for (const auto &buffer : outputs)
      pointers.push_back(buffer->data());
    profile::LaunchScope launch(deviceId, exe->name);
    detail::beginSpmdLaunch(spmd ? &*spmd : nullptr);
    platform->beginLaunch();
    exe->entry(pointers.data());
    Status ran = platform->endLaunch();
    Status status = detail::endSpmdLaunch();
    if (status.isOk())
      status = std::move(ran);
    if (!status.isOk())
      return Status::error(status.code(),
                           "executable '" + exe->name + "': " + status.message());
    return Status::ok();
  };
  push({std::move(work), std::move(waitFor), {std::move(done)}, std::move(onWaitFailure)});
  return outputs;
}

} // namespace loom::rt
