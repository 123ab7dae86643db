// Stopping a training run cleanly on SIGINT (Ctrl-C) or SIGTERM (a scheduler's preemption):
// the first signal only records a request, which the training loop reads after each step to
// stop there with a checkpoint (TrainLoop.h); a second one ends the process at once, as if no
// handler were installed. The processes of a job agree after each step whether any of them
// was interrupted (learning it two steps later), so that all stop after the same step and
// save one checkpoint together, however many of them the signal reached (Slurm and
// Kubernetes signal every process; a user may interrupt one). mpirun, sent a signal itself,
// gives its processes a second before it kills them (`--mca odls_base_sigkill_timeout S`
// gives S).
#ifndef LOOM_FRONTEND_TRAIN_INTERRUPTS_H
#define LOOM_FRONTEND_TRAIN_INTERRUPTS_H

#include "runtime/Distributed.h"

#include <deque>
#include <string>

namespace loom::train {

/// Installs the handlers for SIGINT and SIGTERM (once; later calls do nothing), except for a
/// signal the process was started ignoring (a background job's SIGINT), which stays ignored.
void watchInterrupts();

/// The signal that asked the run to stop (SIGINT or SIGTERM), or 0 if none has.
int interruptSignal();

/// An interrupt that stops a job: its signal (0: none) and the process it came to.
struct JobInterrupt {
  int signal = 0;
  int process = 0;
};

/// The processes of a job agreeing, after each step, whether one of them was interrupted:
/// each step's question is answered `lag` steps later, so that no process waits on the
/// others for it (by then every one has long asked it). With one process, at once.
class InterruptAgreement {
public:
  explicit InterruptAgreement(int lag) : lag(lag) {}
  /// Called by every process after each step: the interrupt to stop on now (signal 0: none).
  /// Throws loom::Error if the processes cannot meet (a peer gone).
  JobInterrupt afterStep();
  /// Reads the answers still in flight, before the run's end.
  void drain();

private:
  const int lag;
  std::deque<rt::distributed::MaxOverProcesses> asked;
};

/// "SIGINT" or "SIGTERM" (or "signal N").
std::string signalName(int signal);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_INTERRUPTS_H
