// Client creation: the device count from the caller or the environment, and
// the lazily created process-wide client.
#include "runtime/Client.h"
#include "runtime/Blas.h"
#include "runtime/CudaPlatform.h"
#include "runtime/Distributed.h"

#include <algorithm>
#include <thread>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace loom::rt {

/// The device count LOOM_CPU_DEVICES asks for (1 when unset or empty).
static StatusOr<int> cpuDeviceCountFromEnv() {
  const char *raw = std::getenv(Client::cpuDevicesEnv);
  if (!raw || !*raw)
    return 1;
  std::string_view text(raw);
  int count = 0;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), count);
  if (error != std::errc() || end != text.data() + text.size() || count < 1 ||
      count > Client::maxCpuDevices)
    return Status::error(StatusCode::InvalidArgument,
                         std::string(Client::cpuDevicesEnv) + "='" +
                             std::string(text) +
                             "' is not a device count between 1 and " +
                             std::to_string(Client::maxCpuDevices));
  return count;
}

Client::Client(int numDevices, int processes, int index)
    : processes(processes), first(index * numDevices) {
  distributed::detail::noteClientCreated();
  // N devices run GEMMs at once: each gets its share of the cores, not all of them. Processes
  // on one host share its cores too.
  int sharing = numDevices * distributed::process().onThisHost;
  if (sharing > 1)
    setBlasThreads(std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / sharing));
  // The same share for the loops between GEMMs.
  int kernelThreads = kernelThreadsPerDevice(sharing);
  devices.reserve(numDevices);
  for (int i = 0; i < numDevices; ++i)
    devices.push_back(std::make_unique<Device>(first + i, kernelThreads));
}

Client::Client(std::vector<std::shared_ptr<Platform>> gpus, int processes, int index)
    : processes(processes), first(index * static_cast<int>(gpus.size())) {
  distributed::detail::noteClientCreated();
  for (size_t i = 0; i < gpus.size(); ++i)
    devices.push_back(
        std::make_unique<Device>(first + static_cast<int>(i), 1, std::move(gpus[i])));
}

StatusOr<std::vector<int>> gpusOfProcess(int available, int wanted, int onHost,
                                         int indexOnHost) {
  const bool shared = onHost > 1 && available >= onHost;
  const int share = shared ? available / onHost : available;
  if (wanted <= 0)
    wanted = share;
  const int first = shared ? indexOnHost * wanted : 0;
  if (wanted < 1 || first + wanted > available) {
    std::string text = "asked for " + std::to_string(wanted) + " GPUs";
    if (shared)
      text += " for each of the " + std::to_string(onHost) + " processes on this host";
    return Status::error(StatusCode::Unavailable,
                         text + ", the driver sees " + std::to_string(available));
  }
  std::vector<int> ordinals;
  for (int i = 0; i < wanted; ++i)
    ordinals.push_back(first + i);
  return ordinals;
}

StatusOr<std::unique_ptr<Client>> Client::createCuda(int numDevices) {
  auto driver = CudaDriver::get();
  if (!driver.ok())
    return driver.status();
  const distributed::ProcessInfo &me = distributed::process();
  auto ordinals = gpusOfProcess(CudaPlatform::deviceCount(), numDevices, me.onThisHost,
                                me.indexOnThisHost);
  if (!ordinals.ok())
    return ordinals.status();
  std::vector<std::shared_ptr<Platform>> gpus;
  for (int ordinal : *ordinals) {
    auto gpu = CudaPlatform::create(ordinal);
    if (!gpu.ok())
      return gpu.status();
    gpus.push_back(std::move(*gpu));
  }
  return std::unique_ptr<Client>(new Client(std::move(gpus), me.count, me.index));
}

StatusOr<std::unique_ptr<Client>> Client::createCpu(int numDevices) {
  if (numDevices > maxCpuDevices)
    return Status::error(StatusCode::InvalidArgument,
                         "cannot create " + std::to_string(numDevices) +
                             " CPU devices; the limit is " +
                             std::to_string(maxCpuDevices));
  if (numDevices <= 0) {
    StatusOr<int> fromEnv = cpuDeviceCountFromEnv();
    if (!fromEnv.ok())
      return fromEnv.status();
    numDevices = *fromEnv;
  }
  const distributed::ProcessInfo &me = distributed::process();
  return std::unique_ptr<Client>(new Client(numDevices, me.count, me.index));
}

Client &Client::defaultClient() {
  // A function-local static: created once, thread-safely, on first use.
  static std::unique_ptr<Client> client = [] {
    const char *kind = std::getenv(deviceKindEnv);
    std::string_view wanted = kind && *kind ? kind : "cpu";
    StatusOr<std::unique_ptr<Client>> created =
        wanted == "cpu"    ? createCpu(0)
        : wanted == "cuda" ? createCuda(0)
                           : StatusOr<std::unique_ptr<Client>>(Status::error(
                                 StatusCode::InvalidArgument,
                                 std::string(deviceKindEnv) + "='" + std::string(wanted) +
                                     "' is neither 'cpu' nor 'cuda'"));
    if (created.ok())
      return std::move(*created);
    std::fprintf(stderr, "loom runtime: %s; using 1 CPU device\n",
                 created.status().message().c_str());
    return std::unique_ptr<Client>(new Client(1));
  }();
  return *client;
}

} // namespace loom::rt
