// Runs a command line as a user would, for the tests that drive the loom-train binary.
#ifndef LOOM_TESTS_UNIT_TRAIN_RUNCOMMAND_H
#define LOOM_TESTS_UNIT_TRAIN_RUNCOMMAND_H

#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <utility>

/// Runs `command` through the shell; its exit status and everything it printed (stdout and
/// stderr).
inline std::pair<int, std::string> runCommand(const std::string &command) {
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe))
    output.append(buffer, n);
  int status = pclose(pipe);
  return {WEXITSTATUS(status), output};
}

#endif // LOOM_TESTS_UNIT_TRAIN_RUNCOMMAND_H
