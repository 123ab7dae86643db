// The entry point of the runtime: a Client owns the devices of this process
// (N virtual CPU devices, each with its own stream).
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

  /// The process-wide client, created on first use from LOOM_CPU_DEVICES. If
  /// that value is invalid, the error is printed to stderr and one device is
  /// used.
  static Client &defaultClient();

  /// The number of devices.
  int deviceCount() const { return static_cast<int>(devices.size()); }
  /// Device `i`; requires 0 <= i < deviceCount().
  Device &device(int i) { return *devices[i]; }

private:
  explicit Client(int numDevices);

  std::vector<std::unique_ptr<Device>> devices;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_CLIENT_H
