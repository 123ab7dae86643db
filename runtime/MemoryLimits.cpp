// Reading the memory limits of this process (see MemoryLimits.h).
#include "runtime/MemoryLimits.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

namespace loom::rt {
namespace {

std::optional<uint64_t> readNumber(const std::string &path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max")
    return std::nullopt;
  try {
    return std::stoull(text);
  } catch (...) {
    return std::nullopt;
  }
}

/// The address space this process has mapped (VmSize).
uint64_t mappedBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

std::optional<MemoryBound> addressSpaceBound() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return std::nullopt;
  uint64_t used = mappedBytes(), cap = limit.rlim_cur;
  return MemoryBound{cap > used ? cap - used : 0, true,
                     "its address-space limit (ulimit -v) is " + formatBytes(cap) + " and " +
                         formatBytes(used) + " of it is mapped"};
}

/// The limit of the cgroup this process is in: v2's memory.max, or v1's memory controller.
/// Inside a container the cgroup's own directory is mounted at the root, so both the path
/// /proc/self/cgroup names and the root are tried.
std::optional<MemoryBound> cgroupBound() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroups, line)) {
    size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos)
      continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    std::string root, limitFile, usageFile;
    if (line.rfind("0::", 0) == 0) {
      root = "/sys/fs/cgroup", limitFile = "memory.max", usageFile = "memory.current";
    } else if (controllers == "memory" || controllers.find("memory,") != std::string::npos ||
               controllers.find(",memory") != std::string::npos) {
      root = "/sys/fs/cgroup/memory", limitFile = "memory.limit_in_bytes",
      usageFile = "memory.usage_in_bytes";
    } else {
      continue;
    }
    for (const std::string &dir : {root + path, root}) {
      std::optional<uint64_t> cap = readNumber(dir + "/" + limitFile);
      std::optional<uint64_t> used = readNumber(dir + "/" + usageFile);
      // v1 writes "no limit" as a huge page-rounded number.
      if (!cap || !used || *cap >= (uint64_t(1) << 60))
        continue;
      return MemoryBound{*cap > *used ? *cap - *used : 0, false,
                         "its cgroup's memory limit (" + dir + "/" + limitFile + ") is " +
                             formatBytes(*cap) + " and " + formatBytes(*used) +
                             " of it is in use"};
    }
  }
  return std::nullopt;
}

std::optional<MemoryBound> availableBound() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  uint64_t kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:")
      return MemoryBound{kib * 1024, false,
                         "the machine has " + formatBytes(kib * 1024) +
                             " available (MemAvailable in /proc/meminfo)"};
  return std::nullopt;
}

} // namespace

std::vector<MemoryBound> memoryBounds() {
  std::vector<MemoryBound> bounds;
  for (auto bound : {addressSpaceBound(), cgroupBound(), availableBound()})
    if (bound)
      bounds.push_back(*bound);
  return bounds;
}

std::string formatBytes(uint64_t bytes) {
  char text[32];
  if (bytes >= (uint64_t(1) << 40))
    std::snprintf(text, sizeof text, "%.1f TiB", bytes / double(uint64_t(1) << 40));
  else if (bytes >= (uint64_t(1) << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / double(uint64_t(1) << 30));
  else if (bytes >= (uint64_t(1) << 20))
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / double(uint64_t(1) << 20));
  else if (bytes >= 1024)
    std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  return text;
}

} // namespace loom::rt
