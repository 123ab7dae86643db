// metrics.jsonl: one JSON object per line, appended by a background thread so the training
// loop never waits on the file system (the cookbook's record writer).
#ifndef LOOM_FRONTEND_TRAIN_METRICSWRITER_H
#define LOOM_FRONTEND_TRAIN_METRICSWRITER_H

#include <condition_variable>
#include <deque>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

namespace loom::train {

class MetricsWriter {
public:
  /// Writes `path` anew, or appends to it (a resumed run); creates its directory. Throws
  /// loom::Error if it cannot.
  explicit MetricsWriter(const std::string &path, bool append = false);
  /// Writes what is queued, then stops.
  ~MetricsWriter();
  MetricsWriter(const MetricsWriter &) = delete;
  MetricsWriter &operator=(const MetricsWriter &) = delete;

  /// Queues one line (a serialized JSON object).
  void write(std::string line);
  /// Returns once every queued line is written and flushed.
  void flush();

private:
  void run();
  std::ofstream out;
  std::mutex mutex;
  std::condition_variable wake, drained;
  std::deque<std::string> queue;
  bool writing = false, stopping = false;
  std::thread worker;
};

/// A fresh run writes its metrics file (and loss curve) anew: where `path` holds another run's
/// records, throws loom::Error naming the file and the ways on (`outDirSetting` describes
/// training.out_dir), rather than replacing them.
void checkNoOtherRunsMetrics(const std::string &path, const std::string &outDirSetting);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_METRICSWRITER_H
