// Per-process log lines (see RankLog.h).
#include "frontend/train/RankLog.h"

#include "frontend/Distributed.h"

namespace loom::train {

RankLog::RankLog(std::FILE *log, int64_t steps, int64_t batchesPerEpoch, int64_t batchRows,
                 int64_t logInterval)
    : log(log), steps(steps), batchesPerEpoch(batchesPerEpoch), batchRows(batchRows),
      logInterval(logInterval) {}

void RankLog::step(int64_t step, double loss) {
  const int rank = distributed::process_index();
  const int64_t epochs = (steps + batchesPerEpoch - 1) / batchesPerEpoch;
  int64_t epoch = step / batchesPerEpoch + 1, batch = step % batchesPerEpoch + 1;
  epochLoss += loss, ++epochSteps;
  bool epochEnd = batch == batchesPerEpoch || step == steps - 1;
  if ((step + 1) % logInterval == 0 || epochEnd)
    std::fprintf(log,
                 "Rank %d: epoch: %ld/%ld, batch: %ld/%ld, batch size: %ld, batch per host "
                 "size: %ld\n",
                 rank, static_cast<long>(epoch), static_cast<long>(epochs),
                 static_cast<long>(batch), static_cast<long>(batchesPerEpoch),
                 static_cast<long>(batchRows),
                 static_cast<long>(batchRows / distributed::process_count()));
  if (epochEnd) {
    std::fprintf(log, "Rank %d: epoch %ld/%ld, average epoch loss=%.4f\n", rank,
                 static_cast<long>(epoch), static_cast<long>(epochs), epochLoss / epochSteps);
    epochLoss = 0, epochSteps = 0;
  }
  std::fflush(log);
}

void RankLog::completed() {
  std::fprintf(log, "Rank %d: training completed.\n", distributed::process_index());
}

} // namespace loom::train
