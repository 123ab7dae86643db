// The background metrics writer (see MetricsWriter.h).
#include "frontend/train/MetricsWriter.h"

#include "frontend/Error.h"

#include <algorithm>
#include <filesystem>
#include <iterator>

namespace loom::train {

void checkNoOtherRunsMetrics(const std::string &path, const std::string &outDirSetting) {
  std::ifstream in(path);
  if (!in)
    return;
  auto lines = std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(),
                          '\n');
  if (lines == 0)
    return;
  throw Error(path + " holds the metrics of another run (" + std::to_string(lines) +
              " records): --overwrite starts afresh and replaces them (and that run's "
              "checkpoints), --resume continues that run where it saved checkpoints; or set "
              "another " + outDirSetting);
}

MetricsWriter::MetricsWriter(const std::string &path, bool append) {
  std::filesystem::path file(path);
  if (file.has_parent_path())
    std::filesystem::create_directories(file.parent_path());
  out.open(path, append ? std::ios::app : std::ios::trunc);
  if (!out)
    throw Error(path + ": cannot open the metrics file");
  worker = std::thread([this] { run(); });
}

MetricsWriter::~MetricsWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_one();
  worker.join();
}

void MetricsWriter::write(std::string line) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(std::move(line));
  }
  wake.notify_one();
}

void MetricsWriter::flush() {
  std::unique_lock<std::mutex> lock(mutex);
  drained.wait(lock, [&] { return queue.empty() && !writing; });
}

void MetricsWriter::run() {
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    wake.wait(lock, [&] { return stopping || !queue.empty(); });
    if (queue.empty() && stopping)
      break;
    std::deque<std::string> lines;
    lines.swap(queue);
    writing = true;
    lock.unlock();
    for (const std::string &line : lines)
      out << line << '\n';
    out.flush();
    lock.lock();
    writing = false;
    drained.notify_all();
  }
  drained.notify_all();
}

} // namespace loom::train
