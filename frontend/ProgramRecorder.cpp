// Writing programs and their data for replay (see ProgramRecorder.h).
#include "frontend/ProgramRecorder.h"
#include "frontend/Error.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

namespace loom::detail {

namespace {
std::mutex recording;

std::string bytesOf(const rt::Buffer &buffer) {
  std::string bytes(buffer.size(), '\0');
  if (rt::Status s = rt::copyToHost(buffer, bytes.data(), bytes.size()); !s.isOk())
    throw Error("LOOM_RECORD_PROGRAMS: " + s.message());
  return bytes;
}
} // namespace

ProgramRecorder *ProgramRecorder::get() {
  static ProgramRecorder *recorder = []() -> ProgramRecorder * {
    const char *dir = std::getenv("LOOM_RECORD_PROGRAMS");
    if (!dir || !*dir)
      return nullptr;
    std::filesystem::create_directories(dir);
    return new ProgramRecorder(dir);
  }();
  return recorder;
}

std::string
ProgramRecorder::captureInputs(const std::vector<std::shared_ptr<rt::Buffer>> &inputs) const {
  std::string bytes;
  for (const auto &input : inputs)
    bytes += bytesOf(*input);
  return bytes;
}

void ProgramRecorder::record(const std::string &name, const std::string &ir,
                             const std::string &inputBytes,
                             const std::vector<std::shared_ptr<rt::Buffer>> &outputs) {
  std::string data = inputBytes;
  for (const auto &output : outputs)
    data += bytesOf(*output);
  std::lock_guard<std::mutex> lock(recording);
  std::string safe;
  for (char c : name)
    safe += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  std::string stem = fmt::format("{}/{:05}-{}", dir, next++, safe.substr(0, 40));
  std::ofstream(stem + ".mlir") << ir;
  std::ofstream(stem + ".bin", std::ios::binary).write(data.data(), data.size());
}

} // namespace loom::detail
