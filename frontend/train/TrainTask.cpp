// Choosing the task a config names (see TrainTask.h).
#include "frontend/train/TrainTask.h"

#include "frontend/train/GptTask.h"
#include "frontend/train/MlpTask.h"
#include "frontend/train/TwoTowerTask.h"

#include "frontend/Distributed.h"
#include "frontend/Error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

namespace loom::train {

void validateConfig(const Config &c) {
  if (c.text("mesh.strategy") != "rules")
    for (const char *key : {"mesh.axes", "mesh.rules", "mesh.batch_axes"})
      if (!c.texts(key).empty())
        throw Error(c.describe(key) + " applies to mesh.strategy = \"rules\", not " +
                    c.describe("mesh.strategy"));
  if (c.integer("data.batch") % c.integer("training.micro_batches") != 0)
    throw Error(c.describe("training.micro_batches") + " does not divide " +
                c.describe("data.batch"));
  if (c.text("model.kind") == "mlp")
    validateMlpConfig(c);
  else if (c.text("model.kind") == "two_tower")
    validateTwoTowerConfig(c);
  else
    validateGptConfig(c);
}

int64_t devicesOf(const Config &c) {
  if (c.text("mesh.strategy") == "none")
    return 1;
  int64_t n = 1;
  for (int64_t s : c.integers("mesh.shape"))
    n *= s;
  return n;
}

std::unique_ptr<TrainTask> makeTask(const Config &c, std::FILE *log) {
  if (c.text("model.kind") == "mlp")
    return makeMlpTask(c);
  if (c.text("model.kind") == "two_tower")
    return makeTwoTowerTask(c);
  return makeGptTask(c, log);
}

std::unique_ptr<TrainTask> makeProcessTask(const Config &c, std::FILE *log) {
  validateConfig(c);
  const int processes = distributed::process_count();
  if (devicesOf(c) % processes)
    throw Error(fmt::format("mesh.shape {} has {} devices, which {} processes cannot share "
                            "evenly",
                            fmt::join(c.integers("mesh.shape"), "x"), devicesOf(c), processes));
  setenv("LOOM_CPU_DEVICES", std::to_string(devicesOf(c) / processes).c_str(),
         /*overwrite=*/1);
  return makeTask(c, log);
}

int64_t microBatchesOf(const Config &c, const TrainTask &task) {
  int64_t count = c.integer("training.micro_batches");
  if (count > 1 && task.mesh()) {
    try {
      task.batchSharding().check({c.integer("data.batch") / count}, "a micro-batch's rows");
    } catch (const Error &e) {
      throw Error(c.describe("training.micro_batches") + " of " + c.describe("data.batch") +
                  ": " + e.what());
    }
  }
  return count;
}

int64_t stepsOf(const Config &c, const TrainTask &task) {
  double epochs = c.number("training.epochs");
  if (epochs <= 0)
    return c.integer("training.steps");
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(epochs * task.stepsPerEpoch())));
}

} // namespace loom::train
