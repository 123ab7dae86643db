// Liveness probes between the processes' progress threads (see MpiLiveness.h).
#include "runtime/MpiLiveness.h"
#include "runtime/KeptToProcessEnd.h"
#include "runtime/MpiWorld.h"

#include <mpi.h>

#include <cstring>

namespace loom::rt {

namespace {
constexpr int kProbeTag = 11, kReplyTag = 12;
const uint64_t kReply = 1; // what every probe is answered with

// MPI handles live in uint64_t members so that the header needs no mpi.h.
template <typename Handle> Handle get(const uint64_t &slot) {
  static_assert(sizeof(Handle) <= sizeof(uint64_t));
  Handle h;
  std::memcpy(&h, &slot, sizeof h);
  return h;
}
template <typename Handle> void put(uint64_t &slot, Handle h) {
  slot = 0;
  std::memcpy(&slot, &h, sizeof h);
}

void postReceive(uint64_t comm, uint64_t &probeIn, uint64_t &incoming) {
  MPI_Request r;
  MPI_Irecv(&probeIn, 1, MPI_UINT64_T, MPI_ANY_SOURCE, kProbeTag, get<MPI_Comm>(comm), &r);
  put(incoming, r);
}
} // namespace

void MpiLiveness::start() {
  MPI_Comm dup;
  MPI_Comm_dup(distributed::detail::jobComm(), &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  put(comm, dup);
  postReceive(comm, probeIn, incoming);
  started = true;
}

void MpiLiveness::serve() {
  if (!started)
    return;
  // Answer every probe that came in.
  while (true) {
    MPI_Request r = get<MPI_Request>(incoming);
    int flag = 0;
    MPI_Status status;
    MPI_Test(&r, &flag, &status);
    put(incoming, r);
    if (!flag)
      break;
    MPI_Request send;
    MPI_Isend(&kReply, 1, MPI_UINT64_T, status.MPI_SOURCE, kReplyTag, get<MPI_Comm>(comm),
              &send);
    replySends.emplace_back();
    put(replySends.back(), send);
    postReceive(comm, probeIn, incoming);
  }
  for (size_t i = 0; i < replySends.size();) {
    MPI_Request r = get<MPI_Request>(replySends[i]);
    int flag = 0;
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    put(replySends[i], r);
    if (flag)
      replySends.erase(replySends.begin() + i);
    else
      ++i;
  }
  for (Asked &a : round) {
    if (a.answered)
      continue;
    MPI_Request r = get<MPI_Request>(a.receive);
    int flag = 0;
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    put(a.receive, r);
    a.answered = flag;
  }
}

void MpiLiveness::ask(const std::vector<int> &processes,
                      std::chrono::steady_clock::time_point until) {
  // A new round leaves the old one's requests to MPI (a stuck peer may never complete them).
  if (!round.empty())
    retired.push_back(std::move(round));
  round.clear();
  round.reserve(processes.size());
  deadline = until;
  for (int p : processes) {
    Asked &a = round.emplace_back();
    a.process = p;
    MPI_Request send, receive;
    MPI_Isend(&a.out, 1, MPI_UINT64_T, p, kProbeTag, get<MPI_Comm>(comm), &send);
    MPI_Irecv(&a.in, 1, MPI_UINT64_T, p, kReplyTag, get<MPI_Comm>(comm), &receive);
    put(a.send, send), put(a.receive, receive);
  }
}

bool MpiLiveness::roundOver() const {
  if (std::chrono::steady_clock::now() >= deadline)
    return true;
  for (const Asked &a : round)
    if (!a.answered)
      return false;
  return true;
}

std::vector<int> MpiLiveness::silent() const {
  std::vector<int> out;
  for (const Asked &a : round)
    if (!a.answered)
      out.push_back(a.process);
  return out;
}

void MpiLiveness::stop() {
  if (!started)
    return;
  // Receives still posted are cancelled and completed here: a reply or probe that arrives
  // later would otherwise be written into this object after it is gone. Sends in flight read
  // only the constant kReply, or the asked rounds' `out`, kept to the process's end.
  auto cancel = [](uint64_t &slot) {
    MPI_Request r = get<MPI_Request>(slot);
    if (r == MPI_REQUEST_NULL)
      return;
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    put(slot, r);
  };
  cancel(incoming);
  retired.push_back(std::move(round));
  for (std::vector<Asked> &asked : retired)
    for (Asked &a : asked) {
      cancel(a.receive);
      MPI_Request send = get<MPI_Request>(a.send);
      if (send != MPI_REQUEST_NULL)
        MPI_Request_free(&send);
    }
  for (uint64_t &slot : replySends) {
    MPI_Request send = get<MPI_Request>(slot);
    if (send != MPI_REQUEST_NULL)
      MPI_Request_free(&send);
  }
  replySends.clear();
  for (std::vector<Asked> &asked : retired)
    keepToProcessEnd(std::make_shared<std::vector<Asked>>(std::move(asked)));
  retired.clear();
  // Freed before MPI_Finalize: OpenMPI's finalize of processes joined through a coordinator
  // (connect/accept) fails on communicators left behind.
  MPI_Comm c = get<MPI_Comm>(comm);
  MPI_Comm_free(&c);
  started = false;
}

} // namespace loom::rt
