// The entry point of the runtime: a Client owns the devices of this process
// (N virtual CPU devices or the GPUs, each with its own stream). In a job of several processes
// (distributed::initialize()) device ids are global and the Client holds its process's share.
#ifndef LOOM_RUNTIME_CLIENT_H
#define LOOM_RUNTIME_CLIENT_H

#include "runtime/Device.h"
#include "runtime/Status.h"

#include <memory>
#include <vector>

namespace loom::rt {

/// Owns the devices of one process. Buffers must be freed, and devices no
/// longer used, before the Client is destroyed.
class Client {
public:
  /// The environment variable giving the number of virtual CPU devices.
  static constexpr const char *cpuDevicesEnv = "LOOM_CPU_DEVICES";
  /// The most virtual CPU devices a Client accepts (each owns a thread).
  static constexpr int maxCpuDevices = 1024;

  /// A client with `numDevices` CPU devices, indexed 0..numDevices-1. When
  /// `numDevices` <= 0 the count comes from LOOM_CPU_DEVICES (1 if unset or
  /// empty); an invalid value is an InvalidArgument error naming the variable
  /// and the value.
  /// With more than one device, OpenBLAS (process-wide) gets the cores divided by the
  /// device count, so devices running GEMMs at once do not oversubscribe the machine.
  static StatusOr<std::unique_ptr<Client>> createCpu(int numDevices = 0);

  /// The environment variable choosing the default client's devices: "cpu" (the default:
  /// LOOM_CPU_DEVICES virtual CPU devices) or "cuda" (every GPU the driver sees).
  static constexpr const char *deviceKindEnv = "LOOM_DEVICE";

  /// A client whose devices are `numDevices` GPUs (every GPU when `numDevices` <= 0);
  /// Unavailable, saying why, without a CUDA driver or with fewer GPUs. In a job of several
  /// processes the GPUs of a host are shared out among its processes (gpusOfProcess), and
  /// each process must have as many.
  static StatusOr<std::unique_ptr<Client>> createCuda(int numDevices = 0);

  /// The process-wide client, created on first use from LOOM_DEVICE and LOOM_CPU_DEVICES.
  /// If those are invalid or ask for GPUs that are not there, the error is printed to stderr
  /// and one CPU device is used.
  static Client &defaultClient();

  /// "cpu" or "cuda": the platform of its devices.
  const char *platformName() const { return devices[0]->platform().name(); }

  /// The number of devices of the job, every process's (this process's alone without
  /// distributed::initialize()).
  int deviceCount() const { return static_cast<int>(devices.size()) * processes; }
  /// This process's devices: ids firstLocalDevice() .. + localDeviceCount() - 1.
  int localDeviceCount() const { return static_cast<int>(devices.size()); }
  int firstLocalDevice() const { return first; }
  bool isLocal(int i) const { return i >= first && i < first + localDeviceCount(); }
  /// Device `i` (a global id); requires isLocal(i).
  Device &device(int i) { return *devices[i - first]; }

private:
  /// `numDevices` local devices; `processes` processes of which this is `index`, all alike.
  Client(int numDevices, int processes = 1, int index = 0);
  /// One device per GPU platform; `processes` processes of which this is `index`, all alike.
  Client(std::vector<std::shared_ptr<Platform>> gpus, int processes, int index);

  std::vector<std::unique_ptr<Device>> devices;
  int processes = 1, first = 0;
};

/// The driver's ordinals of the GPUs a process takes: `wanted` of them (<= 0: its share of
/// the `available` ones), where it is process `indexOnHost` of the `onHost` processes of the
/// job on its host. Where the host's processes see at least one GPU each, they share them
/// out in order (process i takes the i-th `wanted`); where each sees fewer GPUs than there
/// are processes, the launcher has given each its own (CUDA_VISIBLE_DEVICES) and a process
/// takes the first `wanted` it sees. Unavailable, saying why, where there are too few.
StatusOr<std::vector<int>> gpusOfProcess(int available, int wanted, int onHost,
                                         int indexOnHost);

} // namespace loom::rt

#endif // LOOM_RUNTIME_CLIENT_H
