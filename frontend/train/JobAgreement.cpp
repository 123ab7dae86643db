// The processes of a job checking they agree (see JobAgreement.h).
#include "frontend/train/JobAgreement.h"

#include "frontend/Error.h"
#include "runtime/Distributed.h"

#include <climits>
#include <filesystem>
#include <functional>
#include <vector>

namespace loom::train {

namespace {
/// The largest and the smallest of each of `values` over the processes, started together.
std::vector<std::pair<int64_t, int64_t>> extremes(const std::vector<int64_t> &values,
                                                  const std::string &what) {
  std::vector<rt::distributed::MaxOverProcesses> most, negatedLeast;
  for (int64_t v : values)
    most.emplace_back(v), negatedLeast.emplace_back(-v);
  std::vector<std::pair<int64_t, int64_t>> result;
  for (size_t i = 0; i < values.size(); ++i) {
    rt::StatusOr<int64_t> high = most[i].get(), low = negatedLeast[i].get();
    if (!high.ok() || !low.ok())
      throw Error("asking the other processes " + what + ": " +
                  (high.ok() ? low : high).status().message());
    result.push_back({*high, -*low});
  }
  return result;
}
} // namespace

void checkSameConfig(const Config &c) {
  if (rt::distributed::process().count == 1)
    return;
  std::vector<std::string> keys;
  std::vector<int64_t> hashes;
  std::string whole;
  // 62 bits: a value whose negation is one too.
  auto hashOf = [](const std::string &text) {
    return static_cast<int64_t>(std::hash<std::string>()(text) >> 2);
  };
  for (const ConfigKey &key : configSchema()) {
    if (key.path == "training.out_dir" || key.path == "data.text" || key.path == "data.tokens")
      continue;
    keys.push_back(key.path);
    hashes.push_back(hashOf(c.valueJson(key.path)));
    whole += key.path + "=" + c.valueJson(key.path) + "\n";
  }
  // One comparison of the whole config; key by key only to name the one that differs.
  auto [most, least] = extremes({hashOf(whole)}, "which config they run")[0];
  if (most == least)
    return;
  std::vector<std::pair<int64_t, int64_t>> seen = extremes(hashes, "which config they run");
  for (size_t i = 0; i < keys.size(); ++i)
    if (seen[i].first != seen[i].second)
      throw Error(rt::distributed::describeProcess() + " runs " + c.describe(keys[i]) +
                  ", another process of the job another value: its processes must run one "
                  "config");
}

void checkSameResumePoint(int64_t step, const std::string &outDir) {
  if (rt::distributed::process().count == 1)
    return;
  auto [most, least] = extremes({step}, "which checkpoint they resume from")[0];
  if (most == least)
    return;
  auto found = [](int64_t s) {
    return s < 0 ? std::string("no checkpoint") : "the checkpoint of step " + std::to_string(s);
  };
  throw Error(rt::distributed::describeProcess() + " found " + found(step) + " in " +
              (std::filesystem::path(outDir) / "checkpoints").string() + ", another process " +
              found(step == most ? least : most) + ": the processes of a job must share " +
              "training.out_dir (on several hosts, a shared volume)");
}

void startTogether(const std::string &problem) {
  if (rt::distributed::process().count > 1) {
    // The lowest numbered process that has a problem: its number, negated, is the largest.
    constexpr int64_t kNone = INT64_MIN / 2;
    int64_t mine = problem.empty() ? kNone : -int64_t(rt::distributed::process().index);
    int64_t most = extremes({mine}, "whether they can start").front().first;
    if (problem.empty() && most != kNone)
      throw Error(rt::distributed::describeProcess() + " stops: process " +
                  std::to_string(-most) + " of the job cannot start (its log says why)");
  }
  if (!problem.empty())
    throw Error(problem);
}

} // namespace loom::train
