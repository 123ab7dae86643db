// Checkpoints (see Checkpoint.h).
#include "frontend/train/Checkpoint.h"

#include "frontend/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace loom::train {

namespace {
constexpr int kFormatVersion = 1;
constexpr const char *kTensors = "model.safetensors", *kMetadata = "metadata.json";

const char *safetensorsType(DType t) {
  switch (t) {
  case DType::F32: return "F32";
  case DType::F64: return "F64";
  case DType::BF16: return "BF16";
  case DType::F16: return "F16";
  case DType::I32: return "I32";
  case DType::I64: return "I64";
  case DType::I1: return "BOOL";
  }
  return "?";
}

std::optional<DType> dtypeNamed(const std::string &name) {
  for (DType t : {DType::F32, DType::F64, DType::BF16, DType::F16, DType::I32, DType::I64,
                  DType::I1})
    if (name == safetensorsType(t))
      return t;
  return std::nullopt;
}

/// FNV-1a, 64 bits: a checksum that catches a damaged or truncated file.
std::string checksum(const std::string &bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes)
    h = (h ^ c) * 0x100000001b3ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

/// Writes `bytes` to `path` and makes them durable.
void writeDurably(const fs::path &path, const std::string &bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    throw Error(path.string() + ": cannot create the file");
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      ::close(fd);
      throw Error(path.string() + ": cannot write the file (disk full?)");
    }
    done += static_cast<size_t>(n);
  }
  bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced)
    throw Error(path.string() + ": cannot sync the file to disk");
}

void syncDirectory(const fs::path &dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path.string() + ": cannot read the file");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string stepName(int64_t step) {
  char text[32];
  std::snprintf(text, sizeof text, "step_%08lld", static_cast<long long>(step));
  return text;
}

/// safetensors: an 8-byte little-endian header size, the JSON header, the tensors' bytes.
std::string safetensors(const std::vector<std::pair<std::string, HostArray>> &tensors) {
  nlohmann::json header = nlohmann::json::object();
  size_t offset = 0;
  for (const auto &[name, t] : tensors) {
    header[name] = {{"dtype", safetensorsType(t.dtype)}, {"shape", t.shape},
                    {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  header["__metadata__"] = {{"format", "pt"}, {"writer", "loom"}};
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  uint64_t size = json.size();
  std::string file(reinterpret_cast<const char *>(&size), 8);
  file += json;
  for (const auto &[name, t] : tensors)
    file.append(reinterpret_cast<const char *>(t.bytes.data()), t.bytes.size());
  return file;
}
} // namespace

CheckpointWriter::CheckpointWriter(std::string outDir, int keep)
    : root((fs::path(outDir) / "checkpoints").string()), keep(std::max(keep, 1)) {}

CheckpointWriter::~CheckpointWriter() {
  if (writer.joinable())
    writer.join();
}

double CheckpointWriter::wait() {
  if (writer.joinable())
    writer.join();
  if (!error.empty()) {
    std::string message = error;
    error.clear();
    throw Error(message);
  }
  return writeSeconds;
}

double CheckpointWriter::save(int64_t step,
                              const std::vector<std::pair<std::string, Array>> &arrays,
                              nlohmann::json metadata) {
  wait();
  // The steps already enqueued finish first: the device works meanwhile, so that is not a
  // stall. The copy to the host after it is: the device has nothing queued until it ends.
  for (const auto &[name, array] : arrays)
    array.block_until_ready();
  auto start = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, HostArray>> host;
  for (const auto &[name, array] : arrays) {
    HostArray h{array.dtype(), array.shape(),
                std::vector<uint8_t>(array.numElements() * rt::byteSize(array.dtype()))};
    array.copyTo(h.bytes.data(), h.bytes.size());
    host.emplace_back(name, std::move(h));
  }
  double held = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writer = std::thread([this, step, host = std::move(host), metadata]() mutable {
    auto begin = std::chrono::steady_clock::now();
    try {
      fs::create_directories(root);
      fs::path final = fs::path(root) / stepName(step);
      fs::path temporary = fs::path(root) / (".tmp-" + stepName(step));
      fs::remove_all(temporary);
      fs::create_directories(temporary);
      std::string tensors = safetensors(host);
      writeDurably(temporary / kTensors, tensors);
      metadata["format_version"] = kFormatVersion;
      metadata["step"] = step;
      metadata["files"] = {{kTensors, {{"bytes", tensors.size()}, {"fnv1a64", checksum(tensors)}}}};
      writeDurably(temporary / kMetadata, metadata.dump(2));
      syncDirectory(temporary);
      fs::remove_all(final);
      fs::rename(temporary, final);
      // The pointer last: until it is renamed, `latest` names the previous checkpoint.
      writeDurably(fs::path(root) / "latest.tmp", stepName(step));
      fs::rename(fs::path(root) / "latest.tmp", fs::path(root) / "latest");
      syncDirectory(root);
      // Keep the newest `keep`.
      std::vector<fs::path> steps;
      for (const auto &entry : fs::directory_iterator(root))
        if (entry.is_directory() && entry.path().filename().string().rfind("step_", 0) == 0)
          steps.push_back(entry.path());
      std::sort(steps.begin(), steps.end());
      for (size_t i = 0; i + keep < steps.size(); ++i)
        fs::remove_all(steps[i]);
    } catch (const std::exception &e) {
      error = std::string("saving the checkpoint of step ") + std::to_string(step) + ": " +
              e.what();
    }
    writeSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  });
  return held;
}

std::optional<std::string> latestCheckpoint(const std::string &outDir) {
  fs::path root = fs::path(outDir) / "checkpoints";
  if (!fs::exists(root / "latest"))
    return std::nullopt;
  // What a crashed save left behind.
  for (const auto &entry : fs::directory_iterator(root))
    if (entry.path().filename().string().rfind(".tmp-", 0) == 0)
      fs::remove_all(entry.path());
  std::string name = readFile(root / "latest");
  fs::path dir = root / name;
  if (!fs::is_directory(dir))
    throw Error((root / "latest").string() + " names " + name + ", which does not exist");
  return dir.string();
}

Checkpoint readCheckpoint(const std::string &dir) {
  Checkpoint c;
  c.dir = dir;
  fs::path metaPath = fs::path(dir) / kMetadata, tensorPath = fs::path(dir) / kTensors;
  try {
    c.metadata = nlohmann::json::parse(readFile(metaPath));
  } catch (const nlohmann::json::exception &e) {
    throw Error(metaPath.string() + ": not valid JSON: " + e.what());
  }
  if (c.metadata.value("format_version", 0) != kFormatVersion)
    throw Error(metaPath.string() + ": format version " +
                std::to_string(c.metadata.value("format_version", 0)) + ", this Loom reads " +
                std::to_string(kFormatVersion));
  c.step = c.metadata.value("step", int64_t(-1));
  std::string file = readFile(tensorPath);
  const auto &expected = c.metadata["files"][kTensors];
  if (file.size() != expected.value("bytes", size_t(0)))
    throw Error(tensorPath.string() + ": " + std::to_string(file.size()) + " bytes, the metadata says " +
                std::to_string(expected.value("bytes", size_t(0))) + " (truncated?)");
  if (checksum(file) != expected.value("fnv1a64", std::string()))
    throw Error(tensorPath.string() + ": checksum mismatch (the file is damaged)");
  uint64_t headerSize = 0;
  std::memcpy(&headerSize, file.data(), 8);
  nlohmann::json header = nlohmann::json::parse(file.substr(8, headerSize));
  size_t base = 8 + headerSize;
  for (const auto &[name, entry] : header.items()) {
    if (name == "__metadata__")
      continue;
    std::optional<DType> dtype = dtypeNamed(entry.value("dtype", ""));
    if (!dtype)
      throw Error(tensorPath.string() + ": tensor " + name + " has an unknown dtype");
    HostArray t{*dtype, entry["shape"].get<Shape>(), {}};
    size_t begin = entry["data_offsets"][0], end = entry["data_offsets"][1];
    int64_t elements = 1;
    for (int64_t d : t.shape)
      elements *= d;
    if (end < begin || base + end > file.size() ||
        end - begin != elements * rt::byteSize(*dtype))
      throw Error(tensorPath.string() + ": tensor " + name + " has bad data offsets");
    t.bytes.assign(file.begin() + base + begin, file.begin() + base + end);
    c.tensors.emplace(name, std::move(t));
  }
  return c;
}

} // namespace loom::train
