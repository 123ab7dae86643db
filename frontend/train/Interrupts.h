// Stopping a training run cleanly on SIGINT (Ctrl-C) or SIGTERM (a scheduler's preemption):
// the first signal only records a request, which the training loop reads after each step to
// stop there with a checkpoint (TrainLoop.h); a second one ends the process at once, as if no
// handler were installed. Only for a job of one process: the processes of a job would stop
// after different steps and then wait on each other, so there the signals keep their default
// action (mpirun forwards them and ends the job).
#ifndef LOOM_FRONTEND_TRAIN_INTERRUPTS_H
#define LOOM_FRONTEND_TRAIN_INTERRUPTS_H

#include <string>

namespace loom::train {

/// Installs the handlers for SIGINT and SIGTERM (once; later calls do nothing), except for a
/// signal the process was started ignoring (a background job's SIGINT), which stays ignored.
void watchInterrupts();

/// The signal that asked the run to stop (SIGINT or SIGTERM), or 0 if none has.
int interruptSignal();

/// "SIGINT" or "SIGTERM" (or "signal N").
std::string signalName(int signal);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_INTERRUPTS_H
