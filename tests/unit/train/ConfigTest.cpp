// loom-train's configuration: every error names the file and line (or the override), the key
// and what is accepted; overrides apply; the printed config reads back to the same values.
#include "frontend/Error.h"
#include "frontend/train/Config.h"
#include "frontend/train/TrainTask.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace loom;
using namespace loom::train;

namespace {

std::string writeConfig(const std::string &name, const std::string &text) {
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("loom-config-" + name);
  std::ofstream(path) << text;
  return path.string();
}

/// The message of the Error `f` throws, or "" if it throws none.
template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(TrainConfig, UnknownKeyNamesFileLineAndTheSectionsKeys) {
  std::string path = writeConfig("unknown.toml", "[model]\nlayers = 2\nlayerz = 3\n");
  EXPECT_EQ(errorOf([&] { Config::load(path); }),
            path + ":3: model.layerz: unknown key; [model] has kind, vocab, embed, layers, heads, seq, "
                   "hidden, embed_dim, tower_hidden, precision, dropout, attention_dropout");
}

TEST(TrainConfig, AMissingFileOrADirectoryIsRefusedNotReadAsEmpty) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "loom-config-dir.toml";
  std::filesystem::create_directories(dir);
  EXPECT_EQ(errorOf([&] { Config::load(dir.string()); }),
            dir.string() + ": is a directory, not a TOML config file");
  std::string missing = (dir / "missing.toml").string();
  EXPECT_EQ(errorOf([&] { Config::load(missing); }),
            missing + ": cannot read the config: No such file or directory");
  std::filesystem::remove_all(dir);
}

TEST(TrainConfig, UnknownSectionListsTheSections) {
  std::string path = writeConfig("section.toml", "[modle]\nlayers = 2\n");
  EXPECT_EQ(errorOf([&] { Config::load(path); }),
            path + ":2: unknown section [modle]; the sections are model, data, optimizer, mesh, "
                   "training, checkpoint, ema");
}

TEST(TrainConfig, WrongTypeSaysWhatWasExpected) {
  std::string path = writeConfig("type.toml", "[training]\n\nsteps = \"ten\"\n");
  EXPECT_EQ(errorOf([&] { Config::load(path); }),
            path + ":3: training.steps: expected an integer, got the string \"ten\"");
  path = writeConfig("list.toml", "[mesh]\nshape = [2, \"x\"]\n");
  EXPECT_EQ(errorOf([&] { Config::load(path); }),
            path + ":2: mesh.shape: expected a list of integers, got a list holding the string "
                   "\"x\"");
}

TEST(TrainConfig, UnknownStrategyListsTheAcceptedOnes) {
  std::string path = writeConfig("strategy.toml", "[mesh]\nstrategy = \"zero3\"\n");
  EXPECT_EQ(errorOf([&] { Config::load(path); }),
            path + ":2: mesh.strategy: \"zero3\" is not one of none, dp, fsdp, tp, fsdp_tp, rules");
}

TEST(TrainConfig, BoundsAreChecked) {
  std::string path = writeConfig("bounds.toml", "[model]\nlayers = 0\n");
  EXPECT_EQ(errorOf([&] { Config::load(path); }), path + ":2: model.layers: must be at least 1");
}

// Shares and decays are below 1: a held-out share of 1 leaves nothing to train on, and
// AdamW's bias correction divides by 1 - beta^t.
TEST(TrainConfig, SharesAndDecaysAreBelowOne) {
  std::string path = writeConfig("shares.toml", "[optimizer]\nlr = 0.1\n");
  for (const char *key : {"data.eval_fraction", "optimizer.beta1", "optimizer.beta2",
                          "ema.decay", "model.dropout"})
    EXPECT_EQ(errorOf([&] { Config::load(path, {std::string(key) + "=1.0"}); }),
              "--set " + std::string(key) + "=1.0: " + key + ": must be below 1");
}

// TOML accepts nan and inf as floats; no key takes them.
TEST(TrainConfig, NonFiniteNumbersAreRefused) {
  std::string path = writeConfig("nan.toml", "[optimizer]\nlr = nan\n");
  EXPECT_EQ(errorOf([&] { Config::load(path); }),
            path + ":2: optimizer.lr: must be a finite number, not nan");
  std::string valid = writeConfig("finite.toml", "[optimizer]\nlr = 0.1\n");
  EXPECT_EQ(errorOf([&] { Config::load(valid, {"optimizer.lr=-inf"}); }),
            "--set optimizer.lr=-inf: optimizer.lr: must be a finite number, not -inf");
}

TEST(TrainConfig, SyntaxErrorsNameTheLine) {
  std::string path = writeConfig("syntax.toml", "[model]\nlayers = = 2\n");
  EXPECT_EQ(errorOf([&] { Config::load(path); }).rfind(path + ":2: ", 0), 0u);
}

TEST(TrainConfig, OverridesApplyAndAreChecked) {
  std::string path = writeConfig("over.toml", "[model]\nlayers = 2\n");
  Config c = Config::load(path, {"model.layers=5", "mesh.strategy=dp", "mesh.shape=[2]",
                                 "training.out_dir=run1"});
  EXPECT_EQ(c.integer("model.layers"), 5);
  EXPECT_EQ(c.text("mesh.strategy"), "dp");
  EXPECT_EQ(c.integers("mesh.shape"), std::vector<int64_t>({2}));
  EXPECT_EQ(c.text("training.out_dir"), "run1");
  EXPECT_EQ(c.origin("model.layers"), "--set");
  EXPECT_EQ(c.origin("model.embed"), "default");
  EXPECT_EQ(errorOf([&] { Config::load(path, {"model.layers=two"}); }),
            "--set model.layers=two: model.layers: expected an integer, got the string \"two\"");
  EXPECT_EQ(errorOf([&] { Config::load(path, {"training.stepz=3"}); }),
            "--set training.stepz=3: training.stepz: unknown key; [training] has steps, epochs, "
            "micro_batches, remat, seed, log_interval, log_format, eval_interval, "
            "eval_per_epoch, out_dir");
  EXPECT_EQ(errorOf([&] { Config::load(path, {"training.steps"}); }),
            "--set training.steps: expected section.key=value");
}

TEST(TrainConfig, AMeshThatDoesNotFitNamesTheKeysAndTheTensor) {
  std::string path = writeConfig("mesh.toml", "[mesh]\nstrategy = \"fsdp\"\nshape = [3]\n");
  std::string message = errorOf([&] { validateConfig(Config::load(path)); });
  EXPECT_EQ(message.rfind("mesh.strategy = \"fsdp\" (" + path + ":2) on mesh.shape = [3] (" +
                              path + ":3): ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("does not divide by the 3 devices"), std::string::npos) << message;
  std::string heads = writeConfig("heads.toml", "[model]\nembed = 100\nheads = 3\n");
  EXPECT_EQ(errorOf([&] { validateConfig(Config::load(heads)); }),
            "model.heads = 3 (" + heads + ":3) does not divide model.embed = 100 (" + heads + ":2)");
}

TEST(TrainConfig, ThePrintedConfigReadsBackTheSame) {
  std::string path = writeConfig("print.toml", "[model]\nlayers = 3\n[optimizer]\nlr = 0.01\n");
  Config c = Config::load(path, {"mesh.shape=[2, 2]", "mesh.strategy=fsdp_tp"});
  std::string again = writeConfig("printed.toml", c.toToml());
  Config d = Config::load(again);
  EXPECT_EQ(d.toToml(), c.toToml());
  EXPECT_EQ(d.integer("model.layers"), 3);
  EXPECT_DOUBLE_EQ(d.number("optimizer.lr"), 0.01);
  EXPECT_EQ(d.integers("mesh.shape"), std::vector<int64_t>({2, 2}));
}

TEST(TrainConfig, ShippedConfigsAreValid) {
  for (const char *name : {"gpt-tiny.toml", "gpt-small.toml", "gpt-medium.toml", "mlp-digits.toml"}) {
    std::string path = std::string(LOOM_SOURCE_DIR) + "/configs/" + name;
    EXPECT_EQ(errorOf([&] { validateConfig(Config::load(path)); }), "") << name;
    // Every shipped config under every strategy, as the README's command lines set them.
    for (auto [strategy, shape] : {std::pair{"dp", "[4]"}, {"fsdp", "[4]"}, {"tp", "[2]"},
                                   {"tp", "[4]"}, {"fsdp_tp", "[2, 2]"}, {"none", "[1]"}})
      EXPECT_EQ(errorOf([&] {
                  validateConfig(Config::load(path, {std::string("mesh.strategy=") + strategy,
                                                     std::string("mesh.shape=") + shape}));
                }),
                "")
          << name << " " << strategy << " " << shape;
  }
}

TEST(TrainConfig, AKeyOfAnotherModelIsRefused) {
  std::string path = writeConfig("kind.toml", "[model]\nkind = \"mlp\"\nheads = 4\n");
  EXPECT_EQ(errorOf([&] { Config::load(path); }),
            path + ":3: model.heads belongs to model.kind = \"gpt\", not model.kind = \"mlp\" (" +
                path + ":2)");
  std::string gpt = writeConfig("gpt.toml", "[model]\nlayers = 1\n");
  EXPECT_EQ(errorOf([&] { Config::load(gpt, {"model.hidden=[64]"}); }),
            "--set: model.hidden belongs to model.kind = \"mlp\", not model.kind = \"gpt\" "
            "(default)");
  // The printed config holds only the model's own keys.
  Config mlp = Config::load(path, {"model.heads=4", "model.kind=gpt"});
  EXPECT_EQ(mlp.toToml().find("hidden"), std::string::npos);
}

TEST(TrainConfig, AnMlpMeshThatDoesNotFitNamesTheKeys) {
  std::string path = writeConfig("mlp.toml", "[model]\nkind = \"mlp\"\nhidden = [96, 64]\n"
                                             "[data]\nbatch = 30\n[mesh]\nstrategy = \"dp\"\n"
                                             "shape = [4]\n");
  EXPECT_EQ(errorOf([&] { validateConfig(Config::load(path)); }),
            "data.batch = 30 (" + path + ":5) does not divide over the 4 devices of mesh axis "
            "\"data\" (mesh.shape = [4] (" + path + ":8))");
  EXPECT_EQ(errorOf([&] {
              validateConfig(Config::load(path, {"mesh.strategy=tp", "mesh.shape=[5]"}));
            }),
            "model.hidden = [96, 64] (" + path + ":3): width 96 does not divide over the 5 "
            "devices of mesh axis \"tensor\" (mesh.shape = [5] (--set))");
  EXPECT_EQ(errorOf([&] { validateConfig(Config::load(path, {"mesh.strategy=fsdp_tp"})); }),
            "mesh.shape = [4] (" + path + ":8): strategy fsdp_tp takes two sizes [fsdp, tensor]");
  EXPECT_EQ(errorOf([&] {
              validateConfig(Config::load(path, {"mesh.strategy=tp", "mesh.shape=[4]"}));
            }),
            "");
}

TEST(TrainConfig, ShardingRulesAreCheckedRuleByRule) {
  std::string path = writeConfig(
      "rules.toml", "[mesh]\nstrategy = \"rules\"\naxes = [\"fsdp\", \"tensor\"]\n"
                    "shape = [2, 2]\nbatch_axes = [\"fsdp\"]\n"
                    "rules = [\"layers.*.mlp_in = [fsdp, tensor]\", \"*_embed = [_, fsdp+tensor]\"]\n");
  EXPECT_EQ(errorOf([&] { validateConfig(Config::load(path)); }), "");
  std::string rules = "mesh.rules = [layers.*.mlp_in = [fsdp, tensor], *_embed = [_, "
                      "fsdp+tensor]] (" + path + ":6)";
  EXPECT_EQ(errorOf([&] { validateConfig(Config::load(path, {"mesh.rules=[\"x.y\"]"})); }),
            "mesh.rules = [x.y] (--set): rule \"x.y\": expected PATTERN = [dim, ...] (a dim: an "
            "axis, axes joined by +, or _)");
  EXPECT_EQ(errorOf([&] { validateConfig(Config::load(path, {"mesh.rules=[\"a = fsdp\"]"})); }),
            "mesh.rules = [a = fsdp] (--set): rule \"a = fsdp\": the spec \"fsdp\" is not a "
            "bracketed list like [fsdp, _]");
  EXPECT_EQ(errorOf([&] {
              validateConfig(Config::load(path, {"mesh.rules=[\"layers.*.mlp_in = [data]\"]"}));
            }),
            "mesh.rules = [layers.*.mlp_in = [data]] (--set): rule \"layers.*.mlp_in = [data]\": "
            "\"data\" is not an axis of the mesh (fsdp, tensor; _ for none)");
  EXPECT_EQ(errorOf([&] {
              validateConfig(Config::load(path, {"mesh.rules=[\"layers.*.mlp = [fsdp]\"]"}));
            }),
            "mesh.rules = [layers.*.mlp = [fsdp]] (--set): rule \"layers.*.mlp = [fsdp]\" matches "
            "no parameter (the parameters: in_kernel, layers.*.att_out, layers.*.att_qkv, "
            "layers.*.ln1.bias, layers.*.ln1.scale, layers.*.ln2.bias, layers.*.ln2.scale, "
            "layers.*.mlp_in, layers.*.mlp_out, ln_final.bias, ln_final.scale, out_bias, "
            "out_kernel, pos_embed)");
  EXPECT_EQ(errorOf([&] {
              validateConfig(Config::load(path, {"mesh.rules=[\"* = [fsdp]\", \"in_kernel = [_]\"]"}));
            }),
            "mesh.rules = [* = [fsdp], in_kernel = [_]] (--set): rule \"in_kernel = [_]\" is never "
            "used: an earlier rule takes every parameter it matches (the first match wins)");
  // A spec that does not fit the parameter names it, its shape and the axes.
  std::string message = errorOf([&] {
    validateConfig(Config::load(path, {"mesh.shape=[2, 3]"}));
  });
  EXPECT_EQ(message.rfind("mesh.rules = [layers.*.mlp_in = [fsdp, tensor], *_embed = [_, "
                          "fsdp+tensor]] (" + path + ":6): rule \"layers.*.mlp_in = [fsdp, "
                          "tensor]\" on layers.0.mlp_in f32[128,512]: ", 0),
            0u)
      << message;
  EXPECT_EQ(errorOf([&] { validateConfig(Config::load(path, {"mesh.shape=[4]"})); }),
            "mesh.axes = [fsdp, tensor] (" + path + ":3) names 2 axes but mesh.shape = [4] "
            "(--set) gives 1 sizes");
  EXPECT_EQ(errorOf([&] {
              validateConfig(Config::load(path, {"mesh.strategy=fsdp", "mesh.shape=[4]"}));
            }),
            "mesh.axes = [fsdp, tensor] (" + path + ":3) applies to mesh.strategy = \"rules\", "
            "not mesh.strategy = \"fsdp\" (--set)");
  (void)rules;
}

} // namespace
