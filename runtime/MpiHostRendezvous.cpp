// The MPI backend's rendezvous of the processes on the host (see MpiCollectives.h): barriers
// and broadcasts, posted by the progress thread like the collectives, on a communicator of
// their own.
#include "runtime/Distributed.h"
#include "runtime/MpiCollectiveState.h"
#include "runtime/MpiCollectives.h"
#include "runtime/MpiWorld.h"

#include <cstring>

namespace loom::rt {

Status MpiCollectives::barrier(std::chrono::milliseconds timeout) {
  return rendezvousOnHost(std::make_shared<HostRendezvous>(), -1, timeout, "the barrier");
}

Status MpiCollectives::broadcast(std::vector<char> &bytes, int root,
                                 std::chrono::milliseconds timeout) {
  auto b = std::make_shared<HostRendezvous>();
  b->bytes = bytes;
  if (Status s = rendezvousOnHost(b, root, timeout, "a broadcast from process " +
                                                        std::to_string(root));
      !s.isOk())
    return s;
  bytes = b->bytes;
  return Status::ok();
}

Status MpiCollectives::rendezvousOnHost(std::shared_ptr<HostRendezvous> b, int root,
                                        std::chrono::milliseconds timeout,
                                        const std::string &what) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping)
      return Status::error(StatusCode::FailedPrecondition, "the MPI backend has stopped");
    jobs.push_back([this, b, root] {
      // Its own communicator, apart from the collectives': every process comes to its
      // barriers and broadcasts in the same order (the host's program order).
      MPI_Comm comm;
      std::memcpy(&comm, &hostComm, sizeof comm);
      if (root < 0)
        MPI_Ibarrier(comm, &b->request);
      else
        MPI_Ibcast(b->bytes.data(), static_cast<int>(b->bytes.size()), MPI_BYTE, root, comm,
                   &b->request);
      rendezvous.push_back(b);
    });
  }
  workArrived.notify_all();
  std::unique_lock<std::mutex> lock(mutex);
  if (!changed.wait_for(lock, timeout, [&] { return b->done || stopping; }))
    return Status::error(StatusCode::DeadlineExceeded,
                         distributed::describeProcess() + ": the other processes did not reach " +
                             what + " within " + std::to_string(timeout.count() / 1000) + " s");
  return b->done ? Status::ok()
                 : Status::error(StatusCode::Cancelled, "the MPI backend has stopped");
}

} // namespace loom::rt
