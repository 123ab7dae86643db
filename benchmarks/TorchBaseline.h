// Runs a PyTorch baseline script (gpt_torch.py, mlp_torch.py) the way the benchmarks compare
// against it: Debian's python3-torch on 2 threads, with Debian's OpenMP OpenBLAS swapped in
// for the Python process alone (LD_LIBRARY_PATH) or as shipped.
#ifndef LOOM_BENCHMARKS_TORCHBASELINE_H
#define LOOM_BENCHMARKS_TORCHBASELINE_H

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

namespace loom::bench {

/// Where Debian's libopenblas0-openmp puts its library.
inline const char *kOpenMpOpenBlas = "/usr/lib/x86_64-linux-gnu/openblas-openmp";

/// The first `count` numbers `script` prints when run with `args`, with the OpenMP OpenBLAS
/// if `openmp`; empty when it cannot run (no torch, no OpenMP OpenBLAS) or prints fewer.
inline std::vector<double> runTorchBaseline(const std::string &script,
                                            const std::vector<std::string> &args, bool openmp,
                                            size_t count) {
  if (openmp && access((std::string(kOpenMpOpenBlas) + "/libopenblas.so.0").c_str(), R_OK) != 0)
    return {};
  std::string command =
      (openmp ? "LD_LIBRARY_PATH=" + std::string(kOpenMpOpenBlas) + " " : "") +
      "/usr/bin/python3 " + script;
  for (const std::string &arg : args)
    command += " " + arg;
  FILE *pipe = popen((command + " 2>/dev/null").c_str(), "r");
  if (!pipe)
    return {};
  std::vector<double> values(count);
  for (double &v : values)
    if (std::fscanf(pipe, "%lf", &v) != 1) {
      values.clear();
      break;
    }
  pclose(pipe);
  return values;
}

/// A ratio with two decimals, or "n/a" for 0 (a side not measured).
inline std::string ratioText(double ratio) {
  if (!(ratio > 0))
    return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", ratio);
  return text;
}

} // namespace loom::bench

#endif // LOOM_BENCHMARKS_TORCHBASELINE_H
