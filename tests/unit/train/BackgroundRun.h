// A loom-train run in the background, for the tests that signal it or start another beside
// it while it trains.
#ifndef LOOM_TESTS_UNIT_TRAIN_BACKGROUNDRUN_H
#define LOOM_TESTS_UNIT_TRAIN_BACKGROUNDRUN_H

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace background {

inline std::string readText(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Starts `command` with its output in `log`, ignoring SIGINT if `ignoreSigint` (as a shell
/// starts a background job).
inline pid_t start(const std::string &command, const std::filesystem::path &log,
                   bool ignoreSigint = false) {
  pid_t child = fork();
  if (child == 0) {
    if (ignoreSigint)
      std::signal(SIGINT, SIG_IGN);
    execl("/bin/sh", "sh", "-c", ("exec " + command + " > " + log.string() + " 2>&1").c_str(),
          static_cast<char *>(nullptr));
    _exit(127);
  }
  return child;
}

/// Waits (up to two minutes) until `log` holds `text`.
inline bool waitFor(const std::filesystem::path &log, const std::string &text) {
  for (int waited = 0; waited < 120000; waited += 20) {
    if (readText(log).find(text) != std::string::npos)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

} // namespace background

#endif // LOOM_TESTS_UNIT_TRAIN_BACKGROUNDRUN_H
