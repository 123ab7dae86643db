// Choosing the task a config names (see TrainTask.h).
#include "frontend/train/TrainTask.h"

#include "frontend/train/GptTask.h"
#include "frontend/train/MlpTask.h"
#include "frontend/train/TwoTowerTask.h"

#include "frontend/Error.h"

namespace loom::train {

void validateConfig(const Config &c) {
  if (c.text("mesh.strategy") != "rules")
    for (const char *key : {"mesh.axes", "mesh.rules", "mesh.batch_axes"})
      if (!c.texts(key).empty())
        throw Error(c.describe(key) + " applies to mesh.strategy = \"rules\", not " +
                    c.describe("mesh.strategy"));
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

} // namespace loom::train
