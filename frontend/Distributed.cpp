// loom::distributed: the DSL's view of the runtime's process layout (see Distributed.h).
#include "frontend/Distributed.h"

#include "frontend/Error.h"
#include "runtime/Client.h"
#include "runtime/Distributed.h"

namespace loom::distributed {

void initialize() {
  if (rt::Status s = rt::distributed::initialize(); !s.isOk())
    throw Error("distributed::initialize: " + s.message());
}

bool launched_by_mpi() { return rt::distributed::launchedByMpi(); }

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
