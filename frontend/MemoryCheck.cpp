// The memory check before a program first runs (see MemoryCheck.h).
#include "frontend/MemoryCheck.h"

#include "frontend/Error.h"
#include "runtime/Blas.h"
#include "runtime/Client.h"
#include "runtime/Device.h"
#include "runtime/HostAllocator.h"
#include "runtime/MemoryLimits.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <set>

namespace loom::detail {
namespace {
/// Devices whose worker thread has run a program, so OpenBLAS's buffer for it is mapped.
std::mutex startedMutex;
std::set<int> startedDevices;
} // namespace

void checkMemoryFits(const std::string &name, const rt::Executable &exe,
                     const std::vector<int> &devices) {
  uint64_t outputs = 0;
  for (size_t i = 0; i < exe.outputs.size(); ++i)
    if (i >= exe.outputAliases.size() || exe.outputAliases[i] < 0) // aliases reuse an input
      outputs += rt::HostAllocator::roundUp(exe.outputs[i].bytes());
  uint64_t temporaries = static_cast<uint64_t>(std::max<int64_t>(0, exe.plannedTemporaryBytes));
  uint64_t perDevice = outputs + temporaries;
  uint64_t cached = rt::HostAllocator::instance().cachedBytes(); // freed blocks, reused first
  uint64_t all = perDevice * devices.size();
  uint64_t resident = all > cached ? all - cached : 0;
  // Threads that will run their first GEMM: each device's worker and the workers of its
  // kernel pool (they run batches of small GEMMs), and the first time, the workers of
  // OpenBLAS's pool that devices share.
  size_t newThreads = 0;
  {
    std::lock_guard lock(startedMutex);
    if (startedDevices.empty())
      newThreads += std::max(rt::blasThreads(), 1) - 1;
    rt::Client &client = rt::Client::defaultClient();
    for (int d : devices)
      if (!startedDevices.count(d))
        newThreads += client.isLocal(d) ? client.device(d).kernelThreads() : 1;
    startedDevices.insert(devices.begin(), devices.end());
  }
  uint64_t blas = newThreads * rt::blasThreadBytes;
  uint64_t slack = newThreads ? rt::addressSpaceSlack : 0; // once, with the first program
  for (const rt::MemoryBound &bound : rt::memoryBounds()) {
    uint64_t needed = resident + (bound.addressSpace ? blas + slack : 0);
    if (needed <= bound.available)
      continue;
    std::string where =
        devices.size() == 1 ? fmt::format("device {}", devices[0])
                            : fmt::format("each of devices {}-{}", devices.front(), devices.back());
    std::string blasPart =
        bound.addressSpace && newThreads
            ? fmt::format(", plus {} of address space for OpenBLAS's buffers and {} for "
                          "the stacks and heaps of other threads",
                          rt::formatBytes(blas), rt::formatBytes(slack))
            : "";
    throw Error(fmt::format("{}: out of memory: running it needs {} ({} of outputs and {} of "
                            "temporaries on {}{}), but this process may take only {} more: {}",
                            name, rt::formatBytes(needed), rt::formatBytes(outputs),
                            rt::formatBytes(temporaries), where, blasPart,
                            rt::formatBytes(bound.available), bound.description));
  }
}

void checkStateFits(const std::string &what, uint64_t bytes) {
  for (const rt::MemoryBound &bound : rt::memoryBounds())
    if (bytes > bound.available)
      throw Error(fmt::format("out of memory: {} take at least {}, but this process may take "
                              "only {} more: {}",
                              what, rt::formatBytes(bytes), rt::formatBytes(bound.available),
                              bound.description));
}

} // namespace loom::detail
