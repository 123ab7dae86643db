// What a loom-train run leaves in its output directory, read back for the tests.
#ifndef LOOM_TESTS_UNIT_TRAIN_RUNOUTPUTS_H
#define LOOM_TESTS_UNIT_TRAIN_RUNOUTPUTS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

/// step -> train loss, as the run's metrics.jsonl records them.
inline std::map<int64_t, double> lossByStep(const std::filesystem::path &out) {
  std::map<int64_t, double> result;
  std::ifstream in(out / "metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("loss"))
      result[j["step"]] = j["loss"];
  }
  return result;
}

/// The last value of `key` ("eval_loss") a run's metrics.jsonl records; -1 if none.
inline double lastMetric(const std::filesystem::path &out, const std::string &key) {
  std::ifstream in(out / "metrics.jsonl");
  double value = -1;
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains(key))
      value = j[key];
  }
  return value;
}

/// The number a run printed right after `label` ("peak memory per device: "); 0 if absent.
inline double numberAfter(const std::string &output, const std::string &label) {
  size_t at = output.find(label);
  return at == std::string::npos ? 0.0 : std::atof(output.c_str() + at + label.size());
}

/// A file's whole contents.
inline std::string fileBytes(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

#endif // LOOM_TESTS_UNIT_TRAIN_RUNOUTPUTS_H
