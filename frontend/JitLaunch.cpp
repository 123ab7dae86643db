// Launching a compiled program on the devices of its mesh (see JitLaunch.h).
#include "frontend/JitLaunch.h"

#include "runtime/Client.h"
#include "runtime/CudaPlatform.h"
#include "runtime/Distributed.h"
#include "runtime/InProcessCollectives.h"
#include "runtime/MpiCollectives.h"
#include "runtime/NcclCollectives.h"
#include "runtime/SpmdCalls.h"

#include <fmt/format.h>

using namespace loom;

rt::Collectives &detail::collectives() {
  rt::Client &client = rt::Client::defaultClient();
  const bool processes = rt::distributed::process().count > 1;
  if (std::string_view(client.platformName()) == "cuda") { // over NCCL
    static std::unique_ptr<rt::NcclCollectives> gpus = [&] {
      // The job's GPUs by device id, this process's own; the others' are null.
      std::vector<std::shared_ptr<rt::CudaPlatform>> platforms(client.deviceCount());
      for (int d = client.firstLocalDevice(); client.isLocal(d); ++d)
        platforms[d] =
            std::static_pointer_cast<rt::CudaPlatform>(client.device(d).sharedPlatform());
      // Processes share the communicators' ids through MPI, on the host.
      rt::MpiCollectives *host =
          processes ? &rt::MpiCollectives::process(client.localDeviceCount()) : nullptr;
      auto created =
          rt::NcclCollectives::create(std::move(platforms), client.localDeviceCount(), host);
      if (!created.ok())
        throw Error(created.status().message());
      return std::move(*created);
    }();
    return *gpus;
  }
  if (processes)
    return rt::MpiCollectives::process(client.localDeviceCount());
  static std::unique_ptr<rt::InProcessCollectives> backend = [] {
    auto created = rt::InProcessCollectives::create();
    if (!created.ok())
      throw Error(created.status().message());
    return std::move(*created);
  }();
  return *backend;
}

std::pair<std::vector<Array>, const TreeDef *>
detail::callOnMesh(const JitFunction::FlatArgs &args, const CompiledProgram &compiled,
                   const std::string &name) {
  rt::Client &client = rt::Client::defaultClient();
  int devices = compiled.mesh->numDevices();
  if (devices > client.deviceCount())
    throw Error(fmt::format("{}: the program runs on {} devices but the client has {}; set "
                            "LOOM_CPU_DEVICES={}",
                            name, devices, client.deviceCount(), devices));
  // Each argument in the layout the program expects: sharded arrays already in it are used
  // as they are; others are placed (through the host).
  std::vector<Array> placed;
  for (size_t i = 0; i < args.leaves.size(); ++i) {
    const Array &a = args.leaves[i];
    const NamedSharding &wanted = compiled.argumentShardings[i];
    if (a.isSharded() && a.sharding() == wanted) {
      placed.push_back(a);
      continue;
    }
    std::vector<char> host(a.numElements() * rt::byteSize(a.dtype()));
    a.copyTo(host.data(), host.size());
    placed.push_back(Array::device_put(host.data(), host.size(), a.shape(), a.dtype(), wanted));
  }
  // This process launches its own devices of the mesh; the other processes launch theirs.
  std::vector<std::vector<std::shared_ptr<rt::Buffer>>> outputs(devices);
  for (int d = 0; d < devices; ++d) {
    if (!client.isLocal(d))
      continue;
    std::vector<std::shared_ptr<rt::Buffer>> buffers;
    for (const Array &a : placed)
      buffers.push_back(a.shardBuffers()[d]);
    // The launch holds the mesh: the jitted function may be gone before it runs.
    auto out = client.device(d).execute(
        compiled.executable, std::move(buffers),
        rt::SpmdContext{d, compiled.mesh.get(), &collectives(), compiled.mesh});
    if (!out.ok())
      throw Error(fmt::format("device {}: {}", d, out.status().message()));
    outputs[d] = std::move(*out);
  }
  std::vector<Array> results;
  for (size_t r : compiled.positions) {
    std::vector<std::shared_ptr<rt::Buffer>> parts;
    for (int d = 0; d < devices; ++d)
      parts.push_back(client.isLocal(d) ? outputs[d][r] : nullptr);
    results.emplace_back(std::move(parts), compiled.resultShapes[r],
                         compiled.executable->outputs[r].dtype, compiled.resultShardings[r]);
  }
  return {results, &compiled.outputs};
}

CollectiveStats loom::collectiveStats(int device) {
  rt::CollectiveStats backend = detail::collectives().stats(device);
  rt::SpmdCallStats calls = rt::spmdCallStats(device);
  return {backend.collectives, backend.bytesReceived, calls.inFlightSeconds, calls.waitSeconds};
}
