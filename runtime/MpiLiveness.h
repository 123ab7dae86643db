// Which peer processes still answer: when a collective across processes times out although
// every process started it, one of them stopped in the middle (killed, stopped, stuck in a
// kernel). Every process's progress thread answers probes on a communicator of their own, so
// the one that does not answer is the one to name.
#ifndef LOOM_RUNTIME_MPILIVENESS_H
#define LOOM_RUNTIME_MPILIVENESS_H

#include <chrono>
#include <cstdint>
#include <vector>

namespace loom::rt {

/// Used by the MPI backend's progress thread only (every call makes MPI calls).
class MpiLiveness {
public:
  /// Creates the communicator (collective over the job: the progress threads of all
  /// processes call it first) and starts answering probes.
  void start();
  /// Answers the probes that came in; advances a round of asking, if any.
  void serve();
  /// Asks `processes` (world ranks) whether they are alive; the answers come through serve()
  /// until `deadline`.
  void ask(const std::vector<int> &processes, std::chrono::steady_clock::time_point deadline);
  /// Whether the round of asking is over (all answered, or its deadline passed).
  bool roundOver() const;
  /// The processes of the last round that did not answer.
  std::vector<int> silent() const;
  /// Stops answering (before MPI_Finalize).
  void stop();

private:
  uint64_t comm = 0; ///< an MPI_Comm
  uint64_t incoming = 0, probeIn = 0;
  std::vector<uint64_t> replySends;
  struct Asked {
    int process;
    uint64_t send = 0, receive = 0; ///< MPI_Requests
    uint64_t out = 0, in = 0;
    bool answered = false;
  };
  std::vector<Asked> round;
  /// Earlier rounds: MPI may still complete their requests (a stuck peer that resumes).
  std::vector<std::vector<Asked>> retired;
  std::chrono::steady_clock::time_point deadline{};
  bool started = false;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_MPILIVENESS_H
