// The command line of the tiny GPT's short checkpointing runs, which the checkpoint tests
// vary with flags.
#ifndef LOOM_TESTS_UNIT_TRAIN_TINYGPTCOMMAND_H
#define LOOM_TESTS_UNIT_TRAIN_TINYGPTCOMMAND_H

#include <string>

/// loom-train on configs/gpt-tiny.toml for 12 steps (losses logged at each, no evaluation),
/// writing into `out`, followed by `extra`.
inline std::string tinyGptTrain(const std::string &out, const std::string &extra) {
  return std::string(LOOM_TRAIN_BINARY) + " " + LOOM_SOURCE_DIR +
         "/configs/gpt-tiny.toml --set training.steps=12 --set training.log_interval=1 "
         "--set training.eval_interval=0 --set optimizer.warmup_steps=3 --set training.out_dir=" +
         out + " " + extra;
}

#endif // LOOM_TESTS_UNIT_TRAIN_TINYGPTCOMMAND_H
