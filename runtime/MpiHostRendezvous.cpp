// The MPI backend's rendezvous of the processes on the host (see MpiCollectives.h): barriers,
// broadcasts and maxima, posted by the progress thread like the collectives, on a
// communicator of their own.
#include "runtime/Distributed.h"
#include "runtime/ListOf.h"
#include "runtime/MpiCollectiveState.h"
#include "runtime/MpiCollectives.h"
#include "runtime/MpiWorld.h"

#include <cstring>

namespace loom::rt {

Status MpiCollectives::barrier(std::chrono::milliseconds timeout) {
  auto b = std::make_shared<HostRendezvous>();
  if (Status s = postOnHost(b); !s.isOk())
    return s;
  return awaitOnHost(b, timeout, "the barrier");
}

Status MpiCollectives::broadcast(std::vector<char> &bytes, int root,
                                 std::chrono::milliseconds timeout) {
  auto b = std::make_shared<HostRendezvous>();
  b->kind = HostRendezvous::Kind::Broadcast, b->root = root, b->bytes = bytes;
  if (Status s = postOnHost(b); !s.isOk())
    return s;
  if (Status s = awaitOnHost(b, timeout, "a broadcast from process " + std::to_string(root));
      !s.isOk())
    return s;
  bytes = b->bytes;
  return Status::ok();
}

StatusOr<std::shared_ptr<HostRendezvous>> MpiCollectives::startMax(int64_t value) {
  auto b = std::make_shared<HostRendezvous>();
  b->kind = HostRendezvous::Kind::Max;
  b->bytes.resize(sizeof value);
  std::memcpy(b->bytes.data(), &value, sizeof value);
  if (Status s = postOnHost(b); !s.isOk())
    return s;
  return b;
}

StatusOr<int64_t> MpiCollectives::finishMax(const std::shared_ptr<HostRendezvous> &max,
                                            std::chrono::milliseconds timeout) {
  if (Status s = awaitOnHost(max, timeout, "a maximum over the processes"); !s.isOk())
    return s;
  int64_t value;
  std::memcpy(&value, max->bytes.data(), sizeof value);
  return value;
}

Status MpiCollectives::postOnHost(std::shared_ptr<HostRendezvous> b) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping)
      return Status::error(StatusCode::FailedPrecondition, "the MPI backend has stopped");
    jobs.push_back([this, b] {
      // Its own communicator, apart from the collectives': every process comes to its
      // barriers, broadcasts and maxima in the same order (the host's program order).
      MPI_Comm comm;
      std::memcpy(&comm, &hostComm, sizeof comm);
      switch (b->kind) {
      case HostRendezvous::Kind::Barrier:
        MPI_Ibarrier(comm, &b->request);
        break;
      case HostRendezvous::Kind::Broadcast:
        MPI_Ibcast(b->bytes.data(), static_cast<int>(b->bytes.size()), MPI_BYTE, b->root, comm,
                   &b->request);
        break;
      case HostRendezvous::Kind::Max:
        MPI_Iallreduce(MPI_IN_PLACE, b->bytes.data(), 1, MPI_INT64_T, MPI_MAX, comm,
                       &b->request);
        break;
      }
      rendezvous.push_back(b);
    });
  }
  workArrived.notify_all();
  return Status::ok();
}

Status MpiCollectives::awaitOnHost(const std::shared_ptr<HostRendezvous> &b,
                                   std::chrono::milliseconds timeout, const std::string &what) {
  std::unique_lock<std::mutex> lock(mutex);
  if (changed.wait_for(lock, timeout, [&] { return b->done || stopping; }))
    return b->done ? Status::ok()
                   : Status::error(StatusCode::Cancelled, "the MPI backend has stopped");
  // Who is missing: a process that no longer answers (stuck or dead), or one that is only
  // behind (still computing, or never coming to it).
  lock.unlock();
  std::vector<int> peers;
  for (int p = 0; p < distributed::process().count; ++p)
    if (p != distributed::process().index)
      peers.push_back(p);
  std::vector<int> silent = silentProcesses(peers);
  return Status::error(
      StatusCode::DeadlineExceeded,
      distributed::describeProcess() + ": the other processes did not reach " + what +
          " within " + std::to_string(timeout.count() / 1000) + " s: " +
          (silent.empty() ? std::string("every process still answers (one is behind)")
                          : "rank(s) " + listOf(silent) +
                                " no longer answer: the process is stuck or dead"));
}

} // namespace loom::rt
