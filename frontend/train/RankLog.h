// training.log_format = "per_rank": every process logs its own lines, as the multi-host seed's
// trainer does: its position every training.log_interval steps and at the end of each epoch,
// each epoch's average loss, and that training completed.
#ifndef LOOM_FRONTEND_TRAIN_RANKLOG_H
#define LOOM_FRONTEND_TRAIN_RANKLOG_H

#include <cstdint>
#include <cstdio>

namespace loom::train {

class RankLog {
public:
  /// A run of `steps` steps in epochs of `batchesPerEpoch`, each step `batchRows` examples
  /// over all processes.
  RankLog(std::FILE *log, int64_t steps, int64_t batchesPerEpoch, int64_t batchRows,
          int64_t logInterval);

  /// Step `step` is done with `loss` (every step's loss is needed, for the epoch's average).
  void step(int64_t step, double loss);
  void completed();

private:
  std::FILE *log;
  int64_t steps, batchesPerEpoch, batchRows, logInterval;
  double epochLoss = 0;
  int64_t epochSteps = 0;
};

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_RANKLOG_H
