// What the processes of a job check they agree on before they train: one config (a process
// with another learning rate would train its replica apart, silently), and one checkpoint to
// resume from (each looks in its own view of training.out_dir). Each check is a few maxima
// over the processes on the host; with one process, nothing.
#ifndef LOOM_FRONTEND_TRAIN_JOBAGREEMENT_H
#define LOOM_FRONTEND_TRAIN_JOBAGREEMENT_H

#include "frontend/train/Config.h"

#include <cstdint>
#include <string>

namespace loom::train {

/// Throws loom::Error naming the first key whose value differs between the processes (with
/// this process's value and origin). Paths are exempt: training.out_dir, data.text and
/// data.tokens may be mounted apart. Every process calls it, after its devices exist.
void checkSameConfig(const Config &config);

/// Throws loom::Error naming what this process found where the processes found different
/// checkpoints to resume from (a step, or -1 for none). Every process calls it.
void checkSameResumePoint(int64_t step, const std::string &outDir);

/// Every process calls it with what stops it from starting (empty: nothing), so that the job
/// ends at once on every process rather than on the others when their collectives find the
/// stopped one gone: throws loom::Error with `problem` where it is not empty, and on the
/// other processes one naming the first process that has one.
void startTogether(const std::string &problem);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_JOBAGREEMENT_H
