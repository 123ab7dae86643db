// The Goodreads two-tower recommender (loom-train's model.kind = "two_tower") on synthetic
// data: training examples/s on 1 device (in f32 and in bf16), data parallel on 2 devices with
// replicated tables, and with the user and item tables split by rows over the 2 devices, next
// to the same model in PyTorch (two_tower_torch.py) in the same run; the peak memory per
// device and the bytes each device receives through collectives per step. The PyTorch
// baseline is a careful user's: 2 threads on Debian's OpenMP OpenBLAS, AdamW with foreach;
// PyTorch as shipped is printed for reference.
//
//   build/bin/loom-recsys-benchmark [benchmarks/two_tower_torch.py]
#include "benchmarks/TorchBaseline.h"
#include "frontend/recsys/GoodreadsGenerator.h"
#include "frontend/recsys/GoodreadsPrepare.h"
#include "frontend/train/TrainLoop.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace loom;

namespace {

const int64_t kBatch = 4096, kDim = 16, kHidden = 64;

struct Setup {
  const char *name;
  std::vector<std::string> mesh;
};

const std::vector<Setup> kSetups = {
    {"1 device", {"mesh.strategy=\"none\""}},
    {"1 device, computing in bf16", {"mesh.strategy=\"none\"", "model.precision=\"bf16\""}},
    {"DP over 2, tables replicated", {"mesh.strategy=\"dp\"", "mesh.shape=[2]"}},
    {"DP over 2, user and item tables split by rows",
     {"mesh.strategy=\"rules\"", "mesh.shape=[2]", "mesh.axes=[\"data\"]",
      "mesh.batch_axes=[\"data\"]",
      "mesh.rules=[\"tables.user = [data, _]\", \"tables.item = [data, _]\"]"}}};

/// One setup's run, in this process (the devices are fixed per process): prints its
/// examples/s and peak bytes per device.
int runSetup(size_t k, const fs::path &dir) {
  std::vector<std::string> overrides = {
      "data.goodreads=\"" + (dir / "prepared").string() + "\"",
      "data.batch=" + std::to_string(kBatch), "training.epochs=0", "training.steps=60",
      "training.log_interval=60", "training.eval_interval=0", "checkpoint.enabled=false",
      "training.out_dir=\"" + (dir / ("run" + std::to_string(k))).string() + "\""};
  overrides.insert(overrides.end(), kSetups[k].mesh.begin(), kSetups[k].mesh.end());
  train::Config config = train::Config::load("configs/goodreads.toml", overrides);
  FILE *quiet = std::fopen("/dev/null", "w");
  train::RunSummary r = train::runTraining(config, {}, quiet);
  std::fclose(quiet);
  std::printf("%f %f %f\n", r.throughput,
              *std::max_element(r.peakBytes.begin(), r.peakBytes.end()),
              r.collectiveBytesPerStep);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  bench::runOnOpenBlasOwnKernels(argv); // both sides on the CPU's own kernels
  if (argc == 4 && std::string(argv[1]) == "--setup")
    return runSetup(std::stoul(argv[2]), argv[3]);
  std::string script = argc > 1 ? argv[1] : "benchmarks/two_tower_torch.py";
  if (script == "-h" || script == "--help") {
    std::printf("usage: loom-recsys-benchmark [path/to/two_tower_torch.py]\n");
    return 0;
  }
  fs::path dir = fs::temp_directory_path() / ("loom-recsys-benchmark-" + std::to_string(getpid()));
  fs::remove_all(dir);
  recsys::generateGoodreads((dir / "raw").string(), {.users = 20000, .books = 5000, .seed = 1});
  recsys::prepareGoodreads((dir / "raw").string(), (dir / "prepared").string(), {});
  auto sizes = nlohmann::json::parse(std::ifstream(dir / "prepared" / "sizes.json"));
  std::vector<std::string> args = {std::to_string(kBatch), std::to_string(kDim),
                                   std::to_string(kHidden)};
  for (const char *t : {"users", "items", "language", "is_ebook", "format", "publisher", "decade"})
    args.push_back(std::to_string(sizes[std::string("n_") + t].get<int64_t>()));
  std::vector<double> openmp = bench::runTorchBaseline(script, args, true, 1);
  std::vector<double> shipped = bench::runTorchBaseline(script, args, false, 1);
  double torch = openmp.empty() ? 0 : openmp[0];

  std::printf("Two-tower recommender, %lld users x %lld books, embeddings %lld, batch %lld, "
              "2 cores; PyTorch (2 threads, OpenMP OpenBLAS): %.0f examples/s (as shipped: "
              "%s)\n\n",
              (long long)sizes["n_users"].get<int64_t>(),
              (long long)sizes["n_items"].get<int64_t>(), (long long)kDim, (long long)kBatch,
              torch, shipped.empty() ? "n/a" : std::to_string(int64_t(shipped[0])).c_str());
  std::printf("| Loom | examples/s | / PyTorch | peak memory per device | received per step by "
              "the busiest device |\n|---|---|---|---|---|\n");
  for (size_t k = 0; k < kSetups.size(); ++k) {
    std::string command = std::string(argv[0]) + " --setup " + std::to_string(k) + " " +
                          dir.string();
    FILE *pipe = popen(command.c_str(), "r");
    double throughput = 0, peak = 0, received = 0;
    if (!pipe || std::fscanf(pipe, "%lf %lf %lf", &throughput, &peak, &received) != 3)
      std::printf("| %s | failed | | | |\n", kSetups[k].name);
    else
      std::printf("| %s | %.0f | %s | %.1f MB | %.0f KB |\n", kSetups[k].name, throughput,
                  torch > 0 ? (std::to_string(throughput / torch).substr(0, 4) + "x").c_str()
                            : "n/a",
                  peak / 1e6, received / 1e3);
    if (pipe)
      pclose(pipe);
  }
  fs::remove_all(dir);
  return 0;
}
