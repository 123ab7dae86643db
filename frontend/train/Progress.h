// How a training run shows its progress: on a terminal one live bar redrawn in place (step,
// loss, throughput, ETA, memory per device); otherwise (logs, pipes, CI, and processes mpirun
// started) one plain line per logged step. Other messages (evaluations, saves) go through it
// so they never tear the bar.
#ifndef LOOM_FRONTEND_TRAIN_PROGRESS_H
#define LOOM_FRONTEND_TRAIN_PROGRESS_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace loom::train {

class Progress {
public:
  /// `unit` names what throughput counts ("tokens"), `unitsPerStep` how many a step trains
  /// on; `steps` is the run's last step + 1.
  Progress(std::FILE *log, int64_t steps, std::string unit, int64_t unitsPerStep);
  ~Progress();

  /// Step `step` is done with `loss` at learning rate `lr`; `perSecond` units per second
  /// (0: not measured yet).
  void step(int64_t step, double loss, double lr, double perSecond);
  /// A line of its own (printf-style), below the bar on a terminal.
  void line(const char *format, ...) __attribute__((format(printf, 2, 3)));

  bool isLive() const { return live; }

private:
  std::FILE *log;
  int64_t steps, unitsPerStep;
  std::string unit;
  bool live;
  bool barShown = false;
};

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_PROGRESS_H
