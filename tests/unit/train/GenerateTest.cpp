// Text from a trained GPT (frontend/train/GptSample.h): the sampler's distribution against
// the softmax computed here, and `loom-train --generate` as a user runs it: a GPT trained on
// a text that repeats a cycle of letters continues the cycle from any prompt, a seed gives the
// same text, and what cannot be sampled is refused with a message naming why.
#include "frontend/Error.h"
#include "frontend/train/GptSample.h"
#include "tests/unit/train/RunCommand.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>
#include <vector>

namespace {

using loom::train::sampleToken;

/// The frequency of each id over `draws` samples.
std::vector<double> frequencies(const std::vector<float> &logits, double temperature,
                                int64_t topK, int draws, double topP = 1) {
  std::mt19937_64 rng(7);
  std::vector<double> seen(logits.size());
  for (int i = 0; i < draws; ++i)
    seen[sampleToken(logits, temperature, topK, rng, topP)] += 1.0 / draws;
  return seen;
}

TEST(SampleToken, TemperatureZeroAndTopOneTakeTheFirstLargest) {
  std::mt19937_64 rng(1);
  std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f};
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(sampleToken(logits, 0.0, 0, rng), 1);
    EXPECT_EQ(sampleToken(logits, 1.5, 1, rng), 1);
  }
}

TEST(SampleToken, ANaNLogitIsNamed) {
  std::mt19937_64 rng(1);
  std::vector<float> logits = {0.5f, std::nanf(""), 1.0f};
  for (double temperature : {0.0, 1.0}) {
    try {
      sampleToken(logits, temperature, 0, rng);
      ADD_FAILURE() << "no error at temperature " << temperature;
    } catch (const loom::Error &e) {
      EXPECT_STREQ(e.what(), "the logit of token 1 is NaN: the parameters have diverged");
    }
  }
}

TEST(SampleToken, DrawsInProportionToTheSoftmaxAtTheTemperature) {
  std::vector<float> logits = {0.0f, std::log(2.0f), std::log(3.0f), std::log(4.0f)};
  const int draws = 200000;
  for (double temperature : {1.0, 2.0, 0.5}) {
    std::vector<double> p(logits.size());
    double total = 0;
    for (size_t i = 0; i < logits.size(); ++i)
      total += p[i] = std::exp(logits[i] / temperature);
    std::vector<double> seen = frequencies(logits, temperature, 0, draws);
    for (size_t i = 0; i < logits.size(); ++i)
      EXPECT_NEAR(seen[i], p[i] / total, 0.005) << "id " << i << " at T " << temperature;
  }
}

TEST(SampleToken, TopKDrawsAmongTheKLargestOnly) {
  // Weights 1, 4, 2, 3: the two largest are ids 1 and 3, drawn 4 : 3.
  std::vector<float> logits = {0.0f, std::log(4.0f), std::log(2.0f), std::log(3.0f)};
  std::vector<double> seen = frequencies(logits, 1.0, 2, 140000);
  EXPECT_EQ(seen[0], 0.0);
  EXPECT_EQ(seen[2], 0.0);
  EXPECT_NEAR(seen[1], 4.0 / 7, 0.005);
  EXPECT_NEAR(seen[3], 3.0 / 7, 0.005);
  // k at or above the number of ids: all of them.
  EXPECT_GT(frequencies(logits, 1.0, 4, 2000)[0], 0.0);
  EXPECT_GT(frequencies(logits, 1.0, 9, 2000)[0], 0.0);
}

TEST(SampleToken, TopPDrawsAmongTheFewestMostLikelyReachingP) {
  // Probabilities 0.1, 0.4, 0.2, 0.3 (weights 1, 4, 2, 3).
  std::vector<float> logits = {0.0f, std::log(4.0f), std::log(2.0f), std::log(3.0f)};
  // 0.6: ids 1 and 3 (0.4 + 0.3 = 0.7 is the first sum to reach it), drawn 4 : 3.
  std::vector<double> seen = frequencies(logits, 1.0, 0, 140000, 0.6);
  EXPECT_EQ(seen[0], 0.0);
  EXPECT_EQ(seen[2], 0.0);
  EXPECT_NEAR(seen[1], 4.0 / 7, 0.005);
  EXPECT_NEAR(seen[3], 3.0 / 7, 0.005);
  // 0.8: three ids (0.9); 0.3: the most likely alone; after top-k 3 (ids 1, 3, 2) and 0.75:
  // ids 1 and 3 (4 + 3 of 9 is 0.78).
  seen = frequencies(logits, 1.0, 0, 90000, 0.8);
  EXPECT_EQ(seen[0], 0.0);
  EXPECT_NEAR(seen[2], 2.0 / 9, 0.005);
  EXPECT_NEAR(frequencies(logits, 1.0, 0, 2000, 0.3)[1], 1.0, 1e-9); // every draw
  seen = frequencies(logits, 1.0, 3, 2000, 0.75);
  EXPECT_EQ(seen[0] + seen[2], 0.0);
  // At a temperature the shares are those after it: at 0.5 the weights are 1, 16, 4, 9 and
  // 0.5 keeps id 1 alone (16 of 30 is 0.53).
  EXPECT_NEAR(frequencies(logits, 0.5, 0, 2000, 0.5)[1], 1.0, 1e-9);
}

/// Runs loom-train with `args`; its exit status and everything it printed.
std::pair<int, std::string> loomTrain(const std::string &args) {
  return runCommand(std::string(LOOM_TRAIN_BINARY) + " " + args);
}

TEST(LoomTrainGenerate, AGptTrainedOnACycleOfLettersContinuesIt) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("loom-generate-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    std::ofstream text(dir / "cycle.txt");
    for (int i = 0; i < 2000; ++i)
      text << "abcdefghij";
  }
  std::string config = std::string(LOOM_SOURCE_DIR) + "/configs/gpt-tiny.toml" +
                       " --set model.embed=32 --set model.heads=2 --set model.layers=1" +
                       " --set model.seq=16 --set mesh.strategy=none --set ema.decay=0" +
                       " --set 'data.text=[\"" + (dir / "cycle.txt").string() + "\"]'" +
                       " --set training.out_dir=" + (dir / "run").string();
  {
    auto [status, output] = loomTrain(config + " --generate abc");
    EXPECT_EQ(status, 1);
    EXPECT_NE(output.find("loom-train: no checkpoint under training.out_dir = \"" +
                          (dir / "run").string() + "\" (--set): train the model first"),
              std::string::npos)
        << output;
  }
  {
    auto [status, output] = loomTrain(config + " --set training.steps=150 " +
                                      "--set training.eval_interval=0 --set optimizer.lr=1e-2");
    ASSERT_EQ(status, 0) << output;
  }
  // Greedy, from a prompt that starts mid-cycle and runs past the 16-token window.
  {
    auto [status, output] =
        loomTrain(config + " --generate fghij --temperature 0 --tokens 30");
    ASSERT_EQ(status, 0) << output;
    // The text on stdout, then the summary line on stderr.
    EXPECT_EQ(output.substr(0, output.find('\n')), "fghij" "abcdefghijabcdefghijabcdefghij");
  }
  // Three samples decoded together, past the window: each is the greedy text.
  {
    auto [status, output] =
        loomTrain(config + " --generate fghij --temperature 0 --tokens 30 --samples 3");
    ASSERT_EQ(status, 0) << output;
    std::string expected;
    for (int s = 1; s <= 3; ++s)
      expected += std::string(s > 1 ? "\n" : "") + "--- sample " + std::to_string(s) +
                  " ---\nfghij" + "abcdefghijabcdefghijabcdefghij";
    EXPECT_EQ(output.rfind(expected, 0), 0u) << output;
    EXPECT_NE(output.find("30 tokens in each of 3 samples from"), std::string::npos) << output;
  }
  // A prompt longer than the window: its last half runs in as one chunk.
  {
    auto [status, output] =
        loomTrain(config + " --generate abcdefghijabcdefghijabc --temperature 0 --tokens 12");
    ASSERT_EQ(status, 0) << output;
    EXPECT_EQ(output.substr(0, output.find('\n')), "abcdefghijabcdefghijabc" "defghijabcde");
  }
  // Sampled at a low temperature: the cycle has one continuation, which the model is sure of.
  std::string sampled;
  for (int run = 0; run < 2; ++run) {
    auto [status, output] = loomTrain(config + " --generate d --temperature 0.5 --top-k 3 " +
                                      "--top-p 0.9 --seed 11 --tokens 12");
    ASSERT_EQ(status, 0) << output;
    EXPECT_EQ(output.rfind("defghijabcdef", 0), 0u) << output;
    EXPECT_NE(output.find("12 tokens from " + (dir / "run").string() +
                          "/checkpoints/step_00000149, step 149, trained parameters"),
              std::string::npos)
        << output;
    if (run == 1) {
      EXPECT_EQ(output.substr(0, 13), sampled.substr(0, 13));
    }
    sampled = output;
  }
  // Another model's config is refused, naming the key.
  {
    auto [status, output] = loomTrain(config + " --set model.embed=64 --generate abc");
    EXPECT_EQ(status, 1);
    EXPECT_NE(output.find("metadata.json: the checkpoint's model.embed is 32, the config's "
                          "model.embed = 64 (--set); it is another model"),
              std::string::npos)
        << output;
  }
  // More samples or tokens than memory holds: refused before any is made.
  {
    auto [status, output] = loomTrain(config + " --generate abc --samples 100000000000");
    EXPECT_EQ(status, 1);
    EXPECT_NE(output.find("loom-train: out of memory: the key-value caches and texts of "
                          "--samples 100000000000 of up to 203 tokens take at least "),
              std::string::npos)
        << output;
  }
  std::filesystem::remove_all(dir);
}

// A model trained on a token file of a vocabulary of 16 cannot take a prompt byte past it.
TEST(LoomTrainGenerate, APromptByteOutsideTheVocabularyIsNamed) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("loom-generate-vocab-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    std::vector<uint16_t> ids(4000);
    for (size_t i = 0; i < ids.size(); ++i)
      ids[i] = static_cast<uint16_t>(i % 16);
    std::string header = nlohmann::json{{"format", "loom-tokens"}, {"version", 1},
                                        {"dtype", "uint16"}, {"count", ids.size()},
                                        {"vocab", 16}}
                             .dump();
    uint64_t length = header.size();
    std::ofstream file(dir / "tokens.bin", std::ios::binary);
    file.write(reinterpret_cast<const char *>(&length), 8);
    file << header;
    file.write(reinterpret_cast<const char *>(ids.data()), ids.size() * 2);
  }
  std::string config = std::string(LOOM_SOURCE_DIR) + "/configs/gpt-tiny.toml" +
                       " --set model.vocab=16 --set model.embed=32 --set model.seq=16" +
                       " --set mesh.strategy=none --set data.tokens=" +
                       (dir / "tokens.bin").string() + " --set training.out_dir=" +
                       (dir / "run").string();
  auto [trained, trainOutput] = loomTrain(config + " --set training.steps=2");
  ASSERT_EQ(trained, 0) << trainOutput;
  auto [status, output] = loomTrain(config + " --generate a");
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("loom-train: --generate: byte 0 of the prompt is 0x61, a token the "
                        "model does not have (model.vocab = 16 (--set))"),
            std::string::npos)
      << output;
  std::filesystem::remove_all(dir);
}

TEST(LoomTrainGenerate, WhatCannotBeSampledIsRefusedWithTheReason) {
  std::string gpt = std::string(LOOM_SOURCE_DIR) + "/configs/gpt-tiny.toml";
  struct Case {
    std::string args, problem;
    int status;
  };
  for (const Case &c : std::vector<Case>{
           {gpt + " --generate x --temperature -1", "--temperature expects a number >= 0, "
                                                    "got '-1'", 2},
           {gpt + " --generate x --tokens 0", "--tokens expects an integer >= 1, got '0'", 2},
           {gpt + " --generate x --top-k two", "--top-k expects an integer >= 0, got 'two'", 2},
           {gpt + " --generate x --top-p 0", "--top-p expects a number in (0, 1], got '0'", 2},
           {gpt + " --generate x --samples 0", "--samples expects an integer >= 1, got '0'", 2},
           {gpt + " --generate x --top-p 1.5", "--top-p expects a number in (0, 1], got '1.5'",
            2},
           {gpt + " --tokens 5", "--tokens goes with --generate", 2},
           {gpt + " --generate x --resume", "--generate samples text from a trained run's "
                                            "checkpoint: it takes no --resume", 2},
           {std::string(LOOM_SOURCE_DIR) + "/configs/mlp-digits.toml --generate x",
            "model.kind = \"mlp\" (" + std::string(LOOM_SOURCE_DIR) +
                "/configs/mlp-digits.toml:9): --generate samples text from a GPT only", 1},
       }) {
    auto [status, output] = loomTrain(c.args);
    EXPECT_EQ(status, c.status) << c.args << "\n" << output;
    EXPECT_NE(output.find("loom-train: " + c.problem), std::string::npos) << c.args << "\n"
                                                                           << output;
  }
}

} // namespace
