// The progress display of a training run (see Progress.h).
#include "frontend/train/Progress.h"

#include "runtime/Client.h"
#include "runtime/Device.h"
#include "runtime/Distributed.h"

#include <cstdarg>
#include <unistd.h>

namespace loom::train {

Progress::Progress(std::FILE *log, int64_t steps, std::string unit, int64_t unitsPerStep)
    : log(log), steps(steps), unitsPerStep(unitsPerStep), unit(std::move(unit)),
      // mpirun gives its processes a pseudo-terminal whatever its own output is (a job's log
      // file): under it, plain lines.
      live(isatty(fileno(log)) && !rt::distributed::launchedByMpi()) {}

Progress::~Progress() {
  if (barShown)
    std::fputc('\n', log);
}

void Progress::step(int64_t step, double loss, double lr, double perSecond) {
  rt::Client &client = rt::Client::defaultClient();
  if (!live) {
    std::fprintf(log, "step %5ld  loss %.4f  lr %.2e  %.0f %s/s  device 0 %.1f MB\n",
                 static_cast<long>(step), loss, lr, perSecond, unit.c_str(),
                 client.device(client.firstLocalDevice()).bytesInUse() / 1e6);
    std::fflush(log);
    return;
  }
  double done = static_cast<double>(step + 1) / steps;
  int filled = static_cast<int>(done * 30);
  double eta = perSecond > 0 ? (steps - step - 1) * unitsPerStep / perSecond : 0;
  std::string memory;
  for (int i = 0; i < client.localDeviceCount(); ++i) {
    char mb[32];
    std::snprintf(mb, sizeof mb, "%s%.1f", i ? "/" : "",
                  client.device(client.firstLocalDevice() + i).bytesInUse() / 1e6);
    memory += mb;
  }
  std::fprintf(log,
               "\r\033[K[%.*s%*s] step %ld/%ld  loss %.4f  %.0f %s/s  ETA %.0f s  memory %s MB",
               filled, "##############################", 30 - filled, "",
               static_cast<long>(step + 1), static_cast<long>(steps), loss, perSecond,
               unit.c_str(), eta, memory.c_str());
  std::fflush(log);
  barShown = true;
}

void Progress::line(const char *format, ...) {
  if (barShown)
    std::fputc('\n', log), barShown = false;
  va_list args;
  va_start(args, format);
  std::vfprintf(log, format, args);
  va_end(args);
  std::fputc('\n', log);
  std::fflush(log);
}

} // namespace loom::train
