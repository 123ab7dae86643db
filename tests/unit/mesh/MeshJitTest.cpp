// Sharded arrays and jitted functions on a mesh of 4 virtual CPU devices: device_put and
// to_host round trips, and training steps (an MLP, and the GPT train step with the cookbook's
// tables) under DP, FSDP, TP and FSDP x TP that give the same losses as one device (within
// 1e-5 relative: only the order of floating-point sums differs).
#include "frontend/Loom.h"
#include "runtime/Client.h"
#include "runtime/HostAllocator.h"

#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

using namespace loom;

namespace {

std::vector<float> ramp(int64_t n, float scale) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>((i * 7) % 13) - 0.3f;
  return v;
}

TEST(MeshArray, DevicePutAndToHostRoundTrip) {
  Mesh mesh({{"data", 2}, {"model", 2}});
  std::vector<float> values = ramp(8 * 6, 0.5f);
  for (PartitionSpec spec : {P("data", "model"), P("model", None), P(None, {"data", "model"}),
                             P()}) {
    if (spec == P(None, {"data", "model"})) // 6 columns do not split 4 ways
      continue;
    Array a = Array::device_put(values, {8, 6}, NamedSharding(mesh, spec));
    ASSERT_TRUE(a.isSharded());
    EXPECT_EQ(a.shardBuffers().size(), 4u);
    EXPECT_EQ(a.to_host<float>(), values) << spec.describe();
  }
}

TEST(MeshJit, AOneDeviceMeshRunsTheProgramWhole) {
  // A config with mesh shape [1] is a plain one-device run: its arrays' only shard is the
  // whole array.
  Mesh mesh({{"data", 1}});
  NamedSharding rows(mesh, P("data"));
  std::vector<float> values = ramp(8 * 6, 0.5f);
  Array a = Array::device_put(values, {8, 6}, rows);
  auto twice = jit([](Tensor x) { return x * 2.0; }, {.name = "twice", .inShardings = {rows}});
  std::vector<float> out = twice(a).to_host<float>();
  ASSERT_EQ(out.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(out[i], 2 * values[i]);
}

TEST(MeshArray, ProcessLocalDataMakesTheGlobalBatch) {
  Mesh mesh({{"data", 4}});
  std::vector<int32_t> batch(8 * 3);
  for (size_t i = 0; i < batch.size(); ++i)
    batch[i] = static_cast<int32_t>(i);
  Array a = Array::make_array_from_process_local_data(NamedSharding(mesh, P("data")), batch,
                                                      {8, 3});
  ASSERT_TRUE(a.isSharded());
  EXPECT_EQ(a.shardBuffers()[1]->size(), 2 * 3 * sizeof(int32_t)) << "device 1 holds 2 rows";
  EXPECT_EQ(a.to_host<int32_t>(), batch);
}

/// Runs `steps` SGD steps of a two-layer MLP (a jitted train step with the given options) and
/// returns the losses and the final first-layer weights.
std::pair<std::vector<float>, std::vector<float>> train(const JitOptions &options,
                                                        const NamedSharding &batch,
                                                        const NamedSharding &w1Sharding) {
  auto loss = [](const Tree<Tensor> &p, const Tensor &x, const Tensor &y) {
    Tensor h = tanh(matmul(x, p.at("w1").leaf()));
    Tensor out = matmul(h, p.at("w2").leaf());
    return mean((out - y) * (out - y));
  };
  auto step = jit(
      [&](Tree<Tensor> p, Tensor x, Tensor y) {
        ValueAndGrad vg = value_and_grad(loss)(p, x, y);
        Tree<Tensor> next = tree_map(
            [](const Tensor &w, const Tensor &g) { return w - 0.1 * g; }, p, vg.grads[0]);
        return std::make_tuple(next, vg.value);
      },
      options);
  Tree<Array> params;
  params["w1"] = Array::device_put(ramp(16 * 32, 0.05f), {16, 32}, w1Sharding);
  params["w2"] = Array::from(ramp(32 * 4, 0.04f), {32, 4});
  std::vector<float> losses;
  for (int i = 0; i < 4; ++i) {
    std::vector<float> xs = ramp(8 * 16, 0.1f + 0.01f * i), ys = ramp(8 * 4, 0.2f);
    Array x = Array::device_put(xs, {8, 16}, batch), y = Array::device_put(ys, {8, 4}, batch);
    auto [next, value] = step(params, x, y);
    params = next;
    losses.push_back(value.item<float>());
  }
  // On a mesh the step ran partitioned: its outputs are split over the devices.
  EXPECT_EQ(params.at("w1").leaf().isSharded(), w1Sharding.specified());
  return {losses, params.at("w1").leaf().to_host<float>()};
}

void expectClose(const std::vector<float> &a, const std::vector<float> &b, const char *what) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], 1e-5 * (1 + std::fabs(b[i]))) << what << " " << i;
}

/// The GPT check: the 3 losses within 1e-5 relative; the parameters within 2e-4 absolute and
/// all but 0.1% of them within 1e-5 relative. Sharded sums add in another order, and where a
/// gradient is near zero AdamW turns that rounding into a visible step (up to the learning
/// rate, 1e-3); a wrong gradient moves whole rows by about the learning rate per step.
void expectGptClose(const std::vector<float> &a, const std::vector<float> &b, const char *what) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(a[i], b[i], 1e-5 * (1 + std::fabs(b[i]))) << what << ": loss of step " << i;
  size_t loose = 0;
  for (size_t i = 3; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], b[i], 2e-4) << what << ": parameter value " << i - 3;
    loose += std::fabs(a[i] - b[i]) > 1e-5 * (1 + std::fabs(b[i]));
  }
  EXPECT_LE(loose, (a.size() - 3) / 1000) << what << ": parameters off by more than 1e-5";
}

TEST(MeshJit, DataParallelTrainingMatchesOneDevice) {
  Mesh mesh({{"data", 4}});
  auto [oneLosses, oneW1] = train({.name = "one"}, NamedSharding(), NamedSharding());
  auto [dpLosses, dpW1] = train({.name = "dp"}, NamedSharding(mesh, P("data")),
                                NamedSharding(mesh, P()));
  expectClose(dpLosses, oneLosses, "loss");
  expectClose(dpW1, oneW1, "w1");
  EXPECT_LT(oneLosses.back(), oneLosses.front());
}

TEST(MeshJit, DataParallelOverTwoDevicesMatchesOneDevice) {
  Mesh mesh({{"data", 2}}); // two of the four devices
  auto [oneLosses, oneW1] = train({.name = "one"}, NamedSharding(), NamedSharding());
  auto [dpLosses, dpW1] = train({.name = "dp2"}, NamedSharding(mesh, P("data")),
                                NamedSharding(mesh, P()));
  expectClose(dpLosses, oneLosses, "loss");
  expectClose(dpW1, oneW1, "w1");
}

TEST(MeshJit, FsdpTrainingMatchesOneDevice) {
  Mesh mesh({{"fsdp", 4}});
  NamedSharding rows(mesh, P("fsdp"));
  auto [oneLosses, oneW1] = train({.name = "one"}, NamedSharding(), NamedSharding());
  auto [fsdpLosses, fsdpW1] = train({.name = "fsdp"}, rows, rows);
  expectClose(fsdpLosses, oneLosses, "loss");
  expectClose(fsdpW1, oneW1, "w1");
}

/// Losses of 3 steps of the GPT train step (AdamW) with `strategy`'s shardings on `meshShape`,
/// or on one device without shardings when `meshShape` is empty, then every final parameter
/// value (flattened in tree order).
///
/// The small config (V1024 C256 L4 H4 T128 B8), whole: with kernels compiled once per distinct
/// body, four layers compile in seconds per strategy. The vocabulary being four times the width
/// matters: the embedding table then has the MLP weights' shape, so their updates share
/// constants, which once made bufferization reuse a buffer a collective still had to read.
const nn::GptConfig kSmallGpt{.vocab = 1024, .embed = 256, .layers = 4, .heads = 4,
                                  .seq = 128, .batch = 8};
std::vector<float> trainGpt(nn::GptStrategy strategy, const std::vector<int64_t> &meshShape,
                            bool keepGathered = false, const nn::GptConfig &config = kSmallGpt) {
  std::optional<nn::GptShardings> shardings;
  if (!meshShape.empty())
    shardings = nn::gptShardings(config, strategy, nn::gptMesh(strategy, meshShape));
  auto step = nn::jitGptTrainStep(config, {}, shardings ? &*shardings : nullptr,
                                  {.name = "gpt_step", .keepGathered = keepGathered});
  Tree<Array> params = nn::gptInit(config, 1), state = optim::adamwInit(params);
  std::vector<float> losses;
  for (int i = 0; i < 3; ++i) {
    std::vector<int32_t> tokens(config.batch * config.seq), next(tokens.size());
    for (size_t j = 0; j < tokens.size(); ++j)
      tokens[j] = static_cast<int32_t>((j * 5 + i) % config.vocab),
      next[j] = static_cast<int32_t>((j * 5 + i + 1) % config.vocab);
    auto [p, st, loss] = step(params, state, Array::from(tokens, {config.batch, config.seq}),
                              Array::from(next, {config.batch, config.seq}),
                              Array::scalar(static_cast<float>(i)));
    params = p, state = st;
    losses.push_back(loss.item<float>());
  }
  params.visit([&](const Array &p) {
    std::vector<float> values = p.to_host<float>();
    losses.insert(losses.end(), values.begin(), values.end());
  });
  return losses;
}

TEST(MeshJit, GptTrainStepUnderEveryStrategyMatchesOneDevice) {
  // The cookbook's tables: DP over 4, FSDP over 4, TP over 2, FSDP x TP on 2x2.
  std::vector<float> one = trainGpt(nn::GptStrategy::DP, {});
  // The first 3 values are the losses, the rest the final parameters.
  expectGptClose(trainGpt(nn::GptStrategy::DP, {4}), one, "DP over 4");
  expectGptClose(trainGpt(nn::GptStrategy::FSDP, {4}), one, "FSDP over 4");
  expectGptClose(trainGpt(nn::GptStrategy::TP, {2}), one, "TP over 2");
  expectGptClose(trainGpt(nn::GptStrategy::FSDP_TP, {2, 2}), one, "FSDP x TP on 2x2");
}

/// FSDP where the tables' dims do not divide by the devices: 3 heads and a vocabulary of 1030
/// over 4, so that att_out and the embedding table are split along the width instead.
TEST(MeshJit, FsdpOfDimsThatDoNotDivideMatchesOneDevice) {
  nn::GptConfig config{.vocab = 1030, .embed = 96, .layers = 2, .heads = 3, .seq = 32,
                       .batch = 4};
  EXPECT_EQ(nn::gptShardings(config, nn::GptStrategy::FSDP, nn::gptMesh(nn::GptStrategy::FSDP,
                                                                        {4}))
                .fsdpFitted.size(),
            2u);
  expectGptClose(trainGpt(nn::GptStrategy::FSDP, {4}, false, config),
                 trainGpt(nn::GptStrategy::DP, {}, false, config), "FSDP over 4, dims moved");
}

/// FSDP keeping each gathered parameter for the backward (JitOptions::keepGathered) computes
/// what one device does, and each device receives less: the backward's second gather of the
/// five split weights goes.
TEST(MeshJit, FsdpKeepingGatheredParametersMatchesOneDeviceAndReceivesLess) {
  std::vector<float> one = trainGpt(nn::GptStrategy::DP, {});
  auto received = [](bool keep, std::vector<float> &values) {
    uint64_t before = collectiveStats(0).bytesReceived;
    values = trainGpt(nn::GptStrategy::FSDP, {4}, keep);
    return collectiveStats(0).bytesReceived - before;
  };
  std::vector<float> gatheredAgain, kept;
  uint64_t again = received(false, gatheredAgain), once = received(true, kept);
  expectGptClose(kept, one, "FSDP over 4, gathered parameters kept");
  expectGptClose(kept, gatheredAgain, "kept vs gathered again");
  // Per step the five weights (12 C^2 per layer and the output layer's V C of the small
  // config) are gathered once less, each device receiving 3/4 of them.
  const double weights = (12.0 * 4 * 256 * 256 + 1024.0 * 256) * 4, steps = 3;
  EXPECT_NEAR(double(again - once), steps * 0.75 * weights, 0.01 * steps * weights);
}

/// Each layer's forward, backward and update as one function called once per layer
/// (loom-outline-repeated-blocks, the default) computes what lowering every layer apart
/// (LOOM_OUTLINE_BLOCKS=0) does, under FSDP, whose layer functions hold the gathers of its
/// parameters.
TEST(MeshJit, GptWithEachLayerOneFunctionMatchesEachLayerLoweredApart) {
  setenv("LOOM_OUTLINE_BLOCKS", "0", 1);
  std::vector<float> apart = trainGpt(nn::GptStrategy::FSDP, {4});
  setenv("LOOM_OUTLINE_BLOCKS", "1", 1);
  std::vector<float> blocks = trainGpt(nn::GptStrategy::FSDP, {4});
  unsetenv("LOOM_OUTLINE_BLOCKS");
  expectGptClose(blocks, apart, "layers as functions vs each layer lowered apart");
}

/// A sharded argument donated to a partitioned program: every device's output shard is written
/// into that device's input shard, the values are right, and the donated array is refused.
TEST(MeshJit, DonatedShardedArrayIsUpdatedInPlaceOnEveryDevice) {
  Mesh mesh({{"x", 4}});
  NamedSharding rows(mesh, P("x", None));
  auto scale = jit([](Tensor w, Tensor g) { return w - g * 0.5f; },
                   {.name = "scale_sharded", .donateArgnums = {0}, .inShardings = {rows, rows},
                    .outShardings = {rows}});
  std::vector<float> w0 = ramp(8 * 3, 0.25f), g0 = ramp(8 * 3, -0.5f);
  Array w = Array::device_put(w0, {8, 3}, rows), g = Array::device_put(g0, {8, 3}, rows);
  std::vector<const void *> memory;
  for (const auto &shard : w.shardBuffers())
    memory.push_back(shard->data());
  Array updated = scale(w, g);
  ASSERT_TRUE(updated.isSharded());
  ASSERT_EQ(updated.shardBuffers().size(), 4u);
  for (size_t d = 0; d < 4; ++d)
    EXPECT_EQ(updated.shardBuffers()[d]->data(), memory[d]) << "device " << d;
  std::vector<float> got = updated.to_host<float>();
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_FLOAT_EQ(got[i], w0[i] - g0[i] * 0.5f) << i;
  std::string error;
  try {
    scale(w, g);
  } catch (const Error &e) {
    error = e.what();
  }
  EXPECT_NE(error.find("was donated to an earlier call"), std::string::npos) << error;
}

/// The memory report of the GPT train step (tiny sizes) on one device and under FSDP over 4
/// (also keeping its gathered parameters):
/// argument bytes per top-level argument are each device's shards, the donated parameters and
/// state are aliased outputs, and the compiler's temporary plan matches what one step really
/// allocates on every device (the runtime adds a header and alignment padding per buffer).
TEST(MeshJit, MemoryReportMatchesMeasuredAllocation) {
  nn::GptConfig config{.vocab = 64, .embed = 32, .layers = 2, .heads = 4, .seq = 16, .batch = 8};
  // With each layer lowered apart and as a function (the default): the plan then adds what a
  // layer's function holds while it runs; and FSDP keeping its gathered parameters, whose
  // whole copies live from the forward to the backward.
  struct Case {
    bool sharded, blocks, keepGathered;
  };
  uint64_t gatheredAgainTemporaries = 0; // FSDP's plan, layers as functions
  for (auto [sharded, blocks, keepGathered] :
       {Case{false, false, false}, {true, false, false}, {false, true, false},
        {true, true, false}, {true, true, true}}) {
    SCOPED_TRACE(std::string(sharded ? "FSDP over 4" : "one device") +
                 (blocks ? ", layers as functions" : "") +
                 (keepGathered ? ", gathered parameters kept" : ""));
    setenv("LOOM_OUTLINE_BLOCKS", blocks ? "1" : "0", 1);
    const int devices = sharded ? 4 : 1;
    std::optional<nn::GptShardings> fsdp;
    if (sharded)
      fsdp = nn::gptShardings(config, nn::GptStrategy::FSDP,
                              nn::gptMesh(nn::GptStrategy::FSDP, {4}));
    auto step = nn::jitGptTrainStep(config, {}, fsdp ? &*fsdp : nullptr,
                                    {.name = "gpt_memory", .keepGathered = keepGathered,
                                     .donateArgnums = {0, 1}});
    Tree<Array> params = nn::gptInit(config, 1), state = optim::adamwInit(params);
    std::vector<int32_t> tokens(config.batch * config.seq, 3);
    Array ids = Array::from(tokens, {config.batch, config.seq});
    CompiledMemoryStats memory = step.memory_analysis(params, state, ids, ids, Array::scalar(0.f));

    uint64_t paramBytes = 0;
    params.visit([&](const Array &a) { paramBytes += a.numElements() * 4; });
    ASSERT_EQ(memory.argumentBytes.size(), 5u);
    if (sharded) // in_kernel and the matmul weights split four ways, the rest replicated
      EXPECT_LT(memory.argumentBytes[0], paramBytes * 3 / 10);
    else
      EXPECT_EQ(memory.argumentBytes[0], paramBytes);
    EXPECT_EQ(memory.argumentBytes[1], 2 * memory.argumentBytes[0]); // AdamW's m and v
    EXPECT_EQ(memory.argumentBytes[2], uint64_t(config.batch * config.seq * 4 / devices));
    EXPECT_EQ(memory.aliasBytes, memory.argumentBytes[0] + memory.argumentBytes[1]);
    EXPECT_EQ(memory.outputBytes, 4u); // the loss
    ASSERT_GT(memory.temporaryBytes, 0u);
    if (sharded && blocks && !keepGathered)
      gatheredAgainTemporaries = memory.temporaryBytes;
    if (keepGathered) { // the whole parameters stay from the forward to the backward
      EXPECT_GT(memory.temporaryBytes, gatheredAgainTemporaries);
    }

    rt::Client &client = rt::Client::defaultClient();
    for (int d = 0; d < devices; ++d)
      client.device(d).resetTemporaryPeak();
    auto [p, st, loss] = step(params, state, ids, ids, Array::scalar(0.f));
    loss.block_until_ready();
    p.visit([](const Array &a) { a.block_until_ready(); });
    const uint64_t slack = memory.temporaryBuffers * 3 * rt::HostAllocator::alignment;
    for (int d = 0; d < devices; ++d) {
      size_t measured = client.device(d).peakTemporaryBytes();
      EXPECT_GE(measured, memory.temporaryBytes) << "device " << d;
      EXPECT_LE(measured, memory.temporaryBytes + slack) << "device " << d;
    }
  }
  unsetenv("LOOM_OUTLINE_BLOCKS");
}

} // namespace

int main(int argc, char **argv) {
  setenv("LOOM_CPU_DEVICES", "4", /*overwrite=*/1); // before the default client exists
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

// A table split by rows (an embedding under row-wise sharding) with the batch split too: each
// device looks up and accumulates only its own rows (loom-partition masks the others), and
// out-of-range ids are clamped to the table as on one device.
TEST(MeshJit, LookupsInATableSplitByRowsMatchTheClampedReference) {
  Mesh mesh({{"data", 4}});
  const int64_t rows = 4096, width = 4, batch = 32;
  std::vector<float> table = ramp(rows * width, 0.25f), weights = ramp(batch * width, 1.5f);
  std::vector<int32_t> ids(batch);
  for (int64_t i = 0; i < batch; ++i)
    ids[i] = static_cast<int32_t>((i * 977) % rows);
  ids[3] = -5, ids[7] = rows, ids[11] = 100000, ids[12] = rows - 1, ids[20] = 0, ids[21] = ids[2];
  NamedSharding byRows(mesh, P("data", None)), byBatch(mesh, P("data"));
  auto step = jit(
      [](Tensor t, Tensor i, Tensor w) {
        auto loss = [](const Tree<Tensor> &p, const Tree<Tensor> &d) {
          return sum(take(p.at("table").leaf(), d.at("ids").leaf()) * d.at("w").leaf());
        };
        Tree<Tensor> p, d;
        p["table"] = t, d["ids"] = i, d["w"] = w;
        ValueAndGrad vg = value_and_grad(loss)(p, d);
        return std::make_tuple(take(t, i), vg.grads[0].at("table").leaf());
      },
      {.name = "row_split_lookup", .inShardings = {byRows, byBatch, NamedSharding(mesh, P("data", None))},
       .outShardings = {byBatch, byRows}});
  auto [looked, grad] = step(Array::device_put(table, {rows, width}, byRows),
                             Array::device_put(ids, {batch}, byBatch),
                             Array::device_put(weights, {batch, width},
                                               NamedSharding(mesh, P("data", None))));
  std::vector<float> got = looked.to_host<float>(), gotGrad = grad.to_host<float>();
  std::vector<float> wantGrad(rows * width, 0.0f);
  for (int64_t i = 0; i < batch; ++i) {
    int64_t r = std::clamp<int64_t>(ids[i], 0, rows - 1);
    for (int64_t c = 0; c < width; ++c) {
      EXPECT_EQ(got[i * width + c], table[r * width + c]) << "example " << i;
      wantGrad[r * width + c] += weights[i * width + c];
    }
  }
  for (int64_t k = 0; k < rows * width; ++k)
    ASSERT_FLOAT_EQ(gotGrad[k], wantGrad[k]) << "row " << k / width;
}
