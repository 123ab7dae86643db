// The MPI backend's progress thread (see MpiCollectives.h): it makes every MPI call of the
// process, packing each collective's inputs, posting it, testing it until it completes, and
// answering the peers' liveness probes; the members unpack their outputs.
#include "runtime/CollectiveKernels.h"
#include "runtime/KeptToProcessEnd.h"
#include "runtime/MpiWorld.h"
#include "runtime/Distributed.h"
#include "runtime/MpiCollectiveState.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace loom::rt {

using namespace mpi_detail;

void MpiCollectives::progressLoop() {
  // The job-wide communicators first, in the same order on every process.
  {
    MPI_Comm dup;
    MPI_Comm_dup(distributed::detail::jobComm(), &dup);
    std::memcpy(&hostComm, &dup, sizeof dup);
    liveness.start();
  }
  std::vector<std::shared_ptr<Slot>> active;
  auto idleSleep = std::chrono::microseconds(5);
  while (true) {
    std::vector<std::shared_ptr<Slot>> fresh;
    std::vector<std::function<void()>> todo;
    {
      std::unique_lock<std::mutex> lock(mutex);
      // Idle, it still wakes now and then to answer the peers' liveness probes.
      workArrived.wait_for(lock, std::chrono::milliseconds(20), [&] {
        return stopping || !toPost.empty() || !jobs.empty() || !active.empty() ||
               !rendezvous.empty() || !livenessWaiters.empty();
      });
      if (stopping)
        break;
      fresh.assign(toPost.begin(), toPost.end());
      toPost.clear();
      todo.assign(jobs.begin(), jobs.end());
      jobs.clear();
    }
    for (auto &job : todo)
      job();
    liveness.serve();
    if (!livenessWaiters.empty() && liveness.roundOver()) {
      for (auto &waiter : livenessWaiters)
        waiter.set_value(liveness.silent());
      livenessWaiters.clear();
    }
    bool progressed = !fresh.empty() || !todo.empty();
    for (auto &slot : fresh) {
      post(*slot);
      active.push_back(slot);
    }
    for (size_t i = 0; i < active.size();) {
      Slot &slot = *active[i];
      bool wasDone = slot.done;
      if (test(slot)) {
        active.erase(active.begin() + i);
        progressed = true;
        continue;
      }
      progressed |= slot.done != wasDone;
      ++i;
    }
    for (size_t i = 0; i < rendezvous.size();) {
      int flag = 0;
      MPI_Test(&rendezvous[i]->request, &flag, MPI_STATUS_IGNORE);
      if (!flag) {
        ++i;
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        rendezvous[i]->done = true;
      }
      rendezvous.erase(rendezvous.begin() + i);
      progressed = true;
    }
    if (progressed) {
      changed.notify_all();
      idleSleep = std::chrono::microseconds(5);
    } else if (!active.empty() || !rendezvous.empty() || !livenessWaiters.empty()) {
      // Waiting on peers: test again soon, backing off so that a long wait costs little CPU.
      std::this_thread::sleep_for(idleSleep);
      idleSleep = std::min(idleSleep * 2, std::chrono::microseconds(kMaxPollMicros));
    }
  }
  // Stopping: nothing in flight can complete any more; fail every waiter. The communicators
  // are freed (MPI_Finalize of processes joined through a coordinator fails on any left).
  // A slot still in flight (timed out; its late peers may come yet) keeps its buffers to the
  // process's end: MPI writes into them whenever the peers' data arrives, and a nonblocking
  // collective cannot be cancelled. Its arrival notices can.
  for (auto &slot : active) {
    for (MPI_Request &r : slot->arrivalRecvs)
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
    keepToProcessEnd(slot);
  }
  liveness.stop();
  {
    MPI_Comm barrier;
    std::memcpy(&barrier, &hostComm, sizeof barrier);
    MPI_Comm_free(&barrier);
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &[key, group] : groups)
      if (group->comm != MPI_COMM_NULL)
        MPI_Comm_free(&group->comm);
  }
  for (auto &waiter : livenessWaiters)
    waiter.set_value({});
  livenessWaiters.clear();
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &[key, slot] : slots)
    if (!slot->done && slot->failure.isOk())
      slot->failure = Status::error(StatusCode::Cancelled, slot->what + ": MPI has stopped");
  changed.notify_all();
}

void MpiCollectives::post(Slot &s) {
  const CollectiveRequest &r = s.request;
  const Group &g = *s.group;
  const int n = r.group.size(), procs = static_cast<int>(g.processes.size());
  const int localCount = static_cast<int>(s.localRanks.size());
  const size_t elem = byteSize(r.dtype);
  const int64_t inBytes = r.inputElements() * elem;
  const MPI_Comm comm = g.comm;
  // Members by communicator rank, ascending rank within a process.
  std::vector<std::vector<int>> members(procs);
  for (int rank = 0; rank < n; ++rank) {
    int p = processOf(r.group.devices[rank]);
    members[std::lower_bound(g.processes.begin(), g.processes.end(), p) - g.processes.begin()]
        .push_back(rank);
  }
  s.memberOrder.clear();
  for (auto &m : members)
    s.memberOrder.insert(s.memberOrder.end(), m.begin(), m.end());
  bool rankOrderIsProcessOrder = true;
  for (int i = 0; i < n; ++i)
    rankOrderIsProcessOrder &= s.memberOrder[i] == i;
  // The process's members combined in rank order (every process does the same, so the
  // members of a process agree bitwise).
  auto combineLocal = [&](std::vector<char> &into) {
    into.assign(static_cast<const char *>(s.inputs[0]),
                static_cast<const char *>(s.inputs[0]) + inBytes);
    for (int i = 1; i < localCount; ++i)
      combine(r.dtype, r.reduce, into.data(), s.inputs[i], r.inputElements());
  };
  MPI_Op op = mpiOp(r.reduce, r.dtype);
  // MPI reads and writes only the slot's own buffers: a collective cannot be cancelled, and
  // after a timeout the members' buffers may be gone before it completes.
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!s.failure.isOk()) { // a member timed out before its peers here all came
      s.done = true;
      return;
    }
    s.packing = true;
  }
  int rc = MPI_SUCCESS;
  switch (r.kind) {
  case CollectiveKind::AllReduce:
    combineLocal(s.send);
    s.recv.resize(inBytes);
    rc = MPI_Iallreduce(s.send.data(), s.recv.data(), static_cast<int>(r.inputElements()),
                        mpiType(r.dtype), op, comm, &s.request_);
    break;
  case CollectiveKind::AllGather: {
    s.send.resize(localCount * inBytes);
    for (int i = 0; i < localCount; ++i)
      std::memcpy(s.send.data() + i * inBytes, s.inputs[i], inBytes);
    s.recvCounts.assign(procs, 0), s.recvDispls.assign(procs, 0);
    for (int p = 0, at = 0; p < procs; ++p) {
      s.recvCounts[p] = static_cast<int>(members[p].size() * inBytes);
      s.recvDispls[p] = at;
      at += s.recvCounts[p];
    }
    s.recv.resize(n * inBytes);
    rc = MPI_Iallgatherv(s.send.data(), static_cast<int>(s.send.size()), MPI_BYTE, s.recv.data(),
                         s.recvCounts.data(), s.recvDispls.data(), MPI_BYTE, comm, &s.request_);
    break;
  }
  case CollectiveKind::ReduceScatter: {
    const int64_t pieceElems = r.inputElements() / n;
    // Pieces in communicator order, so that process p receives its members' pieces.
    if (rankOrderIsProcessOrder && r.dim == 0) {
      combineLocal(s.send);
    } else {
      std::vector<char> combined;
      combineLocal(combined);
      s.send.resize(inBytes);
      for (int i = 0; i < n; ++i)
        copyPiece(r.shape, r.dim, n, s.memberOrder[i], elem, combined.data(),
                  s.send.data() + i * pieceElems * elem, true);
    }
    s.recvCounts.assign(procs, 0);
    for (int p = 0; p < procs; ++p)
      s.recvCounts[p] = static_cast<int>(members[p].size() * pieceElems);
    s.recv.resize(localCount * pieceElems * elem);
    rc = MPI_Ireduce_scatter(s.send.data(), s.recv.data(), s.recvCounts.data(),
                             mpiType(r.dtype), op, comm, &s.request_);
    break;
  }
  case CollectiveKind::AllToAll: {
    const int64_t pieceBytes = inBytes / n;
    // To process p: for each local sender (ascending), each of p's members (ascending).
    s.send.resize(localCount * n * pieceBytes);
    s.counts.assign(procs, 0), s.displs.assign(procs, 0);
    s.recvCounts.assign(procs, 0), s.recvDispls.assign(procs, 0);
    char *at = s.send.data();
    for (int p = 0, sendAt = 0, recvAt = 0; p < procs; ++p) {
      for (int i = 0; i < localCount; ++i)
        for (int to : members[p]) {
          copyPiece(r.shape, r.dim, n, to, elem,
                    static_cast<char *>(const_cast<void *>(s.inputs[i])), at, true);
          at += pieceBytes;
        }
      s.counts[p] = static_cast<int>(localCount * members[p].size() * pieceBytes);
      s.displs[p] = sendAt, sendAt += s.counts[p];
      s.recvCounts[p] = static_cast<int>(members[p].size() * localCount * pieceBytes);
      s.recvDispls[p] = recvAt, recvAt += s.recvCounts[p];
    }
    s.recv.resize(n * localCount * pieceBytes);
    rc = MPI_Ialltoallv(s.send.data(), s.counts.data(), s.displs.data(), MPI_BYTE, s.recv.data(),
                        s.recvCounts.data(), s.recvDispls.data(), MPI_BYTE, comm, &s.request_);
    break;
  }
  case CollectiveKind::CollectivePermute: {
    // To process p: the inputs of this process's sources whose target is one of p's members
    // (ascending source rank); from p: those of p's sources whose target is here.
    std::vector<int> targetOf(n, -1), processIndex(n);
    for (auto [from, to] : r.pairs)
      targetOf[from] = to;
    for (int p = 0; p < procs; ++p)
      for (int rank : members[p])
        processIndex[rank] = p;
    const int me = s.group->myRank;
    s.counts.assign(procs, 0), s.displs.assign(procs, 0);
    s.recvCounts.assign(procs, 0), s.recvDispls.assign(procs, 0);
    s.send.clear();
    for (int p = 0, recvAt = 0; p < procs; ++p) {
      s.displs[p] = static_cast<int>(s.send.size());
      for (int i = 0; i < localCount; ++i) {
        int to = targetOf[s.localRanks[i]];
        if (to >= 0 && processIndex[to] == p)
          s.send.insert(s.send.end(), static_cast<const char *>(s.inputs[i]),
                        static_cast<const char *>(s.inputs[i]) + inBytes);
      }
      s.counts[p] = static_cast<int>(s.send.size()) - s.displs[p];
      for (int from : members[p])
        if (targetOf[from] >= 0 && processIndex[targetOf[from]] == me)
          s.recvCounts[p] += static_cast<int>(inBytes);
      s.recvDispls[p] = recvAt, recvAt += s.recvCounts[p];
    }
    s.recv.resize(s.recvDispls[procs - 1] + s.recvCounts[procs - 1]);
    rc = MPI_Ialltoallv(s.send.data(), s.counts.data(), s.displs.data(), MPI_BYTE, s.recv.data(),
                        s.recvCounts.data(), s.recvDispls.data(), MPI_BYTE, comm, &s.request_);
    break;
  }
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    s.packing = false;
  }
  changed.notify_all();
  // Arrival notices, so that a timeout can name who never came.
  s.arrivalOut = s.sequence;
  s.arrivalIn.assign(procs, 0);
  for (int p = 0; p < procs; ++p) {
    if (p == g.myRank)
      continue;
    s.arrivalSends.emplace_back(), s.arrivalRecvs.emplace_back();
    MPI_Isend(&s.arrivalOut, 1, MPI_UINT64_T, p, kArrivalTag, comm, &s.arrivalSends.back());
    MPI_Irecv(&s.arrivalIn[p], 1, MPI_UINT64_T, p, kArrivalTag, comm, &s.arrivalRecvs.back());
  }
  s.posted = true;
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    std::lock_guard<std::mutex> lock(mutex);
    s.failure = Status::error(StatusCode::Unavailable, s.what + ": " + std::string(text, len));
  }
}

bool MpiCollectives::test(Slot &s) {
  // A slot that failed (a timeout) stays until MPI completes it, so that no request is
  // left behind if the late peers come after all.
  int flag = 0;
  if (!s.done && s.request_ == MPI_REQUEST_NULL) {
    s.done = true; // never posted (MPI refused it)
  } else if (!s.done) {
    int rc = MPI_Test(&s.request_, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || flag) {
      std::lock_guard<std::mutex> lock(mutex);
      if (rc != MPI_SUCCESS)
        s.failure = Status::error(StatusCode::Unavailable,
                                  s.what + ": the MPI collective failed (code " +
                                      std::to_string(rc) + ")");
      s.done = true;
    }
  }
  // Arrival notices: record who came; the slot is finished once they all went through.
  if (!s.posted)
    return s.done;
  bool allArrived = true;
  size_t k = 0;
  for (int p = 0; p < static_cast<int>(s.group->processes.size()); ++p) {
    if (p == s.group->myRank)
      continue;
    int got = 1;
    if (s.arrivalRecvs[k] != MPI_REQUEST_NULL)
      MPI_Test(&s.arrivalRecvs[k], &got, MPI_STATUS_IGNORE);
    if (got && !s.peerArrived[p]) {
      std::lock_guard<std::mutex> lock(mutex);
      s.peerArrived[p] = true;
    }
    int sent = 1;
    if (s.arrivalSends[k] != MPI_REQUEST_NULL)
      MPI_Test(&s.arrivalSends[k], &sent, MPI_STATUS_IGNORE);
    allArrived &= got && sent;
    ++k;
  }
  return s.done && allArrived;
}

void MpiCollectives::unpack(const Slot &s, int position) {
  const CollectiveRequest &r = s.request;
  const int n = r.group.size();
  const int localCount = static_cast<int>(s.localRanks.size());
  const size_t elem = byteSize(r.dtype);
  const int64_t inBytes = r.inputElements() * elem;
  char *out = static_cast<char *>(s.outputs[position]);
  switch (r.kind) {
  case CollectiveKind::AllReduce:
    std::memcpy(out, s.recv.data(), inBytes);
    return;
  case CollectiveKind::ReduceScatter: {
    const int64_t pieceBytes = inBytes / n;
    std::memcpy(out, s.recv.data() + position * pieceBytes, pieceBytes);
    return;
  }
  case CollectiveKind::AllGather:
    // recv holds the members' inputs in communicator order.
    for (int i = 0; i < n; ++i)
      copyPiece(r.outputShape(), r.dim, n, s.memberOrder[i], elem, out,
                const_cast<char *>(s.recv.data()) + i * inBytes, false);
    return;
  case CollectiveKind::AllToAll: {
    // From process p: for each of its senders (ascending), each local receiver (ascending).
    const int64_t pieceBytes = inBytes / n;
    for (int i = 0, at = 0; i < n;) {
      int p = processOf(r.group.devices[s.memberOrder[i]]);
      int j = i;
      while (j < n && processOf(r.group.devices[s.memberOrder[j]]) == p)
        ++j;
      for (int k = i; k < j; ++k)
        copyPiece(r.outputShape(), r.concatDim, n, s.memberOrder[k], elem, out,
                  const_cast<char *>(s.recv.data()) +
                      (at + (k - i) * localCount + position) * pieceBytes,
                  false);
      at += (j - i) * localCount;
      i = j;
    }
    return;
  }
  case CollectiveKind::CollectivePermute: {
    // From process p: its sources whose target is here, ascending (as packed above).
    const int rank = s.localRanks[position];
    std::vector<int> targetOf(n, -1);
    int source = -1;
    for (auto [from, to] : r.pairs) {
      targetOf[from] = to;
      if (to == rank)
        source = from;
    }
    if (source < 0) {
      std::memset(out, 0, inBytes);
      return;
    }
    int64_t at = 0;
    for (int from : s.memberOrder) // by process, ascending rank within one
      if (from == source)
        break;
      else if (targetOf[from] >= 0 &&
               std::find(s.localRanks.begin(), s.localRanks.end(), targetOf[from]) !=
                   s.localRanks.end())
        at += inBytes;
    std::memcpy(out, s.recv.data() + at, inBytes);
    return;
  }
  }
}

} // namespace loom::rt
