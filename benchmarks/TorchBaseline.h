// Runs a PyTorch baseline script (gpt_torch.py, mlp_torch.py) the way the benchmarks compare
// against it: Debian's python3-torch on 2 threads, with Debian's OpenMP OpenBLAS swapped in
// for the Python process alone (LD_LIBRARY_PATH) or as shipped.
//
// OPENBLAS_CORETYPE forces OpenBLAS's kernels, read once as the library loads. Some
// environments set it: these machines set Haswell (AVX2) on AVX-512 CPUs, where OpenBLAS's
// own choice ran sgemm 1.8x faster and PyTorch's small GPT step 1.6x faster. Neither side of
// a comparison, nor the GEMM rate, may run on slower kernels than the CPU's own, so the
// benchmarks start again without it; PyTorch's fair baseline also runs with the forced kernels
// and keeps the better of the two runs.
#ifndef LOOM_BENCHMARKS_TORCHBASELINE_H
#define LOOM_BENCHMARKS_TORCHBASELINE_H

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace loom::bench {

/// Where a restarted benchmark keeps the OPENBLAS_CORETYPE its environment set.
inline constexpr const char *kForcedCoretypeVariable = "LOOM_BENCH_FORCED_OPENBLAS_CORETYPE";

/// Restarts this process (with the same arguments) without OPENBLAS_CORETYPE, so that
/// OpenBLAS picks its kernels for this CPU; returns where nothing is forced, or where the
/// restart failed (saying so, and running on the forced kernels).
inline void runOnOpenBlasOwnKernels(char **argv) {
  const char *forced = std::getenv("OPENBLAS_CORETYPE");
  if (!forced)
    return;
  std::string value = forced;
  setenv(kForcedCoretypeVariable, value.c_str(), 1);
  unsetenv("OPENBLAS_CORETYPE");
  std::fflush(stdout);
  char path[4096]; // by its own name, not as /proc/self/exe (whose process is named "exe")
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  path[length > 0 ? length : 0] = '\0';
  execv(length > 0 ? path : "/proc/self/exe", argv);
  std::fprintf(stderr, "could not restart without OPENBLAS_CORETYPE=%s (%s); running on its "
                       "kernels\n", value.c_str(), std::strerror(errno));
  setenv("OPENBLAS_CORETYPE", value.c_str(), 1);
  unsetenv(kForcedCoretypeVariable);
}

/// The kernels the environment forced before runOnOpenBlasOwnKernels, or "" if none.
inline std::string forcedCoretype() {
  const char *forced = std::getenv(kForcedCoretypeVariable);
  return forced ? forced : "";
}

/// Which of two runs' first numbers is the better one.
enum class Better { Higher, Lower };

/// Where Debian's libopenblas0-openmp puts its library.
inline const char *kOpenMpOpenBlas = "/usr/lib/x86_64-linux-gnu/openblas-openmp";

/// The first `count` numbers `script` prints when run with `args` (and `environment`, a
/// prefix of assignments), with the OpenMP OpenBLAS if `openmp`; empty when it cannot run (no
/// torch, no OpenMP OpenBLAS) or prints fewer.
inline std::vector<double> runTorchScript(const std::string &script,
                                          const std::vector<std::string> &args, bool openmp,
                                          size_t count, const std::string &environment = "") {
  if (openmp && access((std::string(kOpenMpOpenBlas) + "/libopenblas.so.0").c_str(), R_OK) != 0)
    return {};
  std::string command =
      environment + (openmp ? "LD_LIBRARY_PATH=" + std::string(kOpenMpOpenBlas) + " " : "") +
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

/// runTorchScript's numbers on OpenBLAS's own kernels; for the fair baseline (`openmp`), where
/// the environment had forced other kernels, also on those, keeping the run whose first
/// number is `better`.
inline std::vector<double> runTorchBaseline(const std::string &script,
                                            const std::vector<std::string> &args, bool openmp,
                                            size_t count, Better better = Better::Higher) {
  std::vector<double> own = runTorchScript(script, args, openmp, count);
  std::string forced = forcedCoretype();
  if (!openmp || forced.empty())
    return own;
  std::vector<double> other =
      runTorchScript(script, args, openmp, count, "OPENBLAS_CORETYPE=" + forced + " ");
  if (own.empty() || other.empty())
    return own.empty() ? other : own;
  bool otherBetter = better == Better::Higher ? other[0] > own[0] : other[0] < own[0];
  return otherBetter ? other : own;
}

/// The header's line on the kernels both sides ran, `loomKernels` as rt::blasKernels() names
/// them.
inline std::string kernelsLine(const std::string &loomKernels) {
  std::string line = "OpenBLAS kernels (Loom's and PyTorch's): " + loomKernels;
  std::string forced = forcedCoretype();
  if (!forced.empty())
    line += ", OpenBLAS's choice for this CPU without the environment's OPENBLAS_CORETYPE=" +
            forced + " (PyTorch's fair baseline ran on both and kept its faster run)";
  return line;
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
