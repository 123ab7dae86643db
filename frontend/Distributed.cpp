// loom::distributed: the DSL's view of the runtime's process layout (see Distributed.h).
#include "frontend/Distributed.h"

#include "frontend/Error.h"
#include "runtime/Client.h"
#include "runtime/Distributed.h"

#include <string>

namespace loom::distributed {

void initialize() {
  if (rt::Status s = rt::distributed::initialize(); !s.isOk())
    throw Error("distributed::initialize: " + s.message());
}

void initialize(int num_processes, int process_id) {
  initialize();
  if (num_processes != process_count() || process_id != process_index())
    throw Error("distributed::initialize(" + std::to_string(num_processes) + ", " +
                std::to_string(process_id) + "): the launcher started this as process " +
                std::to_string(process_index()) + " of " + std::to_string(process_count()));
}

void initialize(const std::string &coordinator_address, int num_processes, int process_id) {
  if (launched_by_mpi())
    return initialize(num_processes, process_id);
  if (rt::Status s =
          rt::distributed::initialize(coordinator_address, num_processes, process_id);
      !s.isOk())
    throw Error("distributed::initialize(\"" + coordinator_address + "\", " +
                std::to_string(num_processes) + ", " + std::to_string(process_id) +
                "): " + s.message());
}

bool launched_by_mpi() { return rt::distributed::launchedByMpi(); }

bool job_in_environment() { return rt::distributed::jobInEnvironment(); }

int process_index() { return rt::distributed::process().index; }

int process_count() { return rt::distributed::process().count; }

std::vector<int> local_devices() {
  rt::Client &client = rt::Client::defaultClient();
  std::vector<int> ids;
  for (int i = 0; i < client.localDeviceCount(); ++i)
    ids.push_back(client.firstLocalDevice() + i);
  return ids;
}

void abort_job(const char *message, int code) { rt::distributed::abortJob(message, code); }

} // namespace loom::distributed
