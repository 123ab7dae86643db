// Prints the traced Loom IR of the GPT train step (value_and_grad + AdamW, as
// nn::gptTrainStep) with the cookbook's shardings of one strategy: the mesh, the in/out
// shardings of parameters, optimizer state and batch, and the activation constraints. It
// traces on small zero arrays and compiles and runs nothing; pipe it into loom-opt:
//
//   gpt_sharded_ir --strategy fsdp --devices 4 | loom-opt --loom-autodiff ...
//   gpt_sharded_ir --strategy fsdp_tp --mesh 2x2
#include "frontend/Loom.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <functional>
#include <map>
#include <string>

using namespace loom;

namespace {

const char *usage =
    "usage: gpt_sharded_ir [--strategy dp|fsdp|tp|fsdp_tp] [--devices N | --mesh AxB]\n"
    "                      [--vocab V] [--embed C] [--layers L] [--heads H] [--seq T]\n"
    "                      [--batch B] [--precision f32|bf16|f16] [--no-donate] [--init]\n"
    "Prints the Loom IR of the sharded GPT train step (default: fsdp on 2 devices, V 64,\n"
    "C 32, 1 layer, 4 heads, T 16, batch 8). --devices gives a 1-d mesh (dp, fsdp, tp),\n"
    "--mesh AxB the fsdp x tensor mesh of fsdp_tp. Parameters and optimizer state are\n"
    "donated (loom.aliased_output) unless --no-donate. --init prints the parameter\n"
    "initialisation instead, each parameter created with its sharding. --precision bf16\n"
    "or f16 computes the products in it (mixed precision, nn::GptConfig::precision).\n";

std::vector<int64_t> parseMesh(const std::string &text) {
  std::vector<int64_t> sizes;
  size_t start = 0;
  while (start <= text.size()) {
    size_t x = text.find('x', start);
    std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    char *end = nullptr;
    long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0')
      throw Error("--mesh: \"" + text + "\" is not a list of sizes like 2x4");
    sizes.push_back(v);
    if (x == std::string::npos)
      break;
    start = x + 1;
  }
  return sizes;
}

/// Zeros of `shape` (only their shapes and dtypes matter for tracing).
Array zerosArray(const Shape &shape, DType dtype) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<uint8_t> bytes(n * rt::byteSize(dtype), 0);
  return Array::fromBytes(bytes.data(), bytes.size(), shape, dtype);
}

} // namespace

int main(int argc, char **argv) {
  nn::GptConfig config{.vocab = 64, .embed = 32, .layers = 1, .heads = 4, .seq = 16, .batch = 8};
  std::string strategyName = "fsdp";
  std::vector<int64_t> meshShape;
  bool donate = true, initOnly = false;
  // The flags that take a value, each with what it sets.
  auto number = [](const std::string &flag, const std::string &value) {
    char *end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v < 1)
      throw Error(flag + ": \"" + value + "\" is not a positive integer");
    return static_cast<int64_t>(v);
  };
  auto setInt = [&](int64_t &field) {
    return [&field, number](const std::string &flag, const std::string &value) {
      field = number(flag, value);
    };
  };
  const std::map<std::string, std::function<void(const std::string &, const std::string &)>>
      setters = {
          {"--strategy", [&](const std::string &, const std::string &v) { strategyName = v; }},
          {"--devices",
           [&](const std::string &f, const std::string &v) { meshShape = {number(f, v)}; }},
          {"--mesh", [&](const std::string &, const std::string &v) { meshShape = parseMesh(v); }},
          {"--vocab", setInt(config.vocab)},
          {"--embed", setInt(config.embed)},
          {"--layers", setInt(config.layers)},
          {"--heads", setInt(config.heads)},
          {"--seq", setInt(config.seq)},
          {"--batch", setInt(config.batch)},
          {"--precision",
           [&](const std::string &, const std::string &v) {
             std::optional<DType> dtype = rt::parseDType(v);
             if (!dtype ||
                 !(*dtype == DType::F32 || *dtype == DType::BF16 || *dtype == DType::F16))
               throw Error("--precision: \"" + v + "\" is not f32, bf16 or f16");
             config.precision = *dtype;
           }},
      };
  try {
    for (int i = 1; i < argc; ++i) {
      std::string flag = argv[i];
      if (flag == "-h" || flag == "--help") {
        std::fputs(usage, stdout);
        return 0;
      }
      if (flag == "--no-donate") {
        donate = false;
        continue;
      }
      if (flag == "--init") {
        initOnly = true;
        continue;
      }
      auto setter = setters.find(flag);
      if (setter == setters.end())
        throw Error("unknown flag " + flag + "\n" + usage);
      if (i + 1 >= argc)
        throw Error(flag + " needs a value\n" + usage);
      setter->second(flag, argv[++i]);
    }
    nn::GptStrategy strategy = nn::parseGptStrategy(strategyName);
    if (meshShape.empty())
      meshShape = strategy == nn::GptStrategy::FSDP_TP ? std::vector<int64_t>{2, 2}
                                                       : std::vector<int64_t>{2};
    Mesh mesh = nn::gptMesh(strategy, meshShape);
    nn::GptShardings shardings = nn::gptShardings(config, strategy, mesh);

    if (initOnly) {
      auto init = jit([&](Tensor key) { return nn::gptDrawParams(config, key); },
                      {.name = "gpt_init", .outShardings = {shardings.params}});
      std::fputs(init.lower(random::key(0)).c_str(), stdout);
      return 0;
    }

    optim::AdamWOptions adamw;
    const nn::GptActivationShardings &act = shardings.activations;
    JitOptions options{.name = "gpt_train_step",
                       .donateArgnums = donate ? std::vector<int>{0, 1} : std::vector<int>{}};
    nn::setTrainStepShardings(shardings, options);
    auto trainStep = jit(
        [&](Tree<Tensor> params, Tree<Tensor> state, Tensor ids, Tensor targets, Tensor step) {
          return nn::gptTrainStep(config, adamw, params, state, ids, targets, step, act);
        },
        options);

    Tree<Array> params = tree_map([](const Shape &s) { return zerosArray(s, DType::F32); },
                                  nn::gptParamShapes(config));
    Tree<Array> state;
    state["m"] = params;
    state["v"] = params;
    Array ids = zerosArray({config.batch, config.seq}, DType::I32);
    std::string ir = trainStep.lower(params, state, ids, ids, Array::scalar(0.0f));
    std::fputs(ir.c_str(), stdout);
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
