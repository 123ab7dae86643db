// Checkpoints (see Checkpoint.h).
#include "frontend/train/Checkpoint.h"

#include "frontend/Error.h"
#include "frontend/MeshPlacement.h"
#include "frontend/train/CheckpointIo.h"
#include "frontend/train/CheckpointParts.h"
#include "frontend/Distributed.h"
#include "runtime/Distributed.h"
#include "runtime/Process.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace fs = std::filesystem;

namespace loom::train {

namespace {
using namespace detail;

std::string stepName(int64_t step) {
  char text[32];
  std::snprintf(text, sizeof text, "step_%08lld", static_cast<long long>(step));
  return text;
}

/// The safetensors header of `arrays`: an 8-byte little-endian size, then JSON naming each
/// tensor's dtype, shape and byte range; the tensors' bytes follow in order.
std::string safetensorsHeader(const std::vector<std::pair<std::string, Array>> &arrays) {
  nlohmann::json header = nlohmann::json::object();
  size_t offset = 0;
  for (const auto &[name, a] : arrays) {
    size_t bytes = a.numElements() * rt::byteSize(a.dtype());
    header[name] = {{"dtype", safetensorsType(a.dtype())}, {"shape", a.shape()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  header["__metadata__"] = {{"format", "pt"}, {"writer", "loom"}};
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  uint64_t size = json.size();
  return std::string(reinterpret_cast<const char *>(&size), 8) + json;
}
} // namespace

void CheckpointWriter::commit(const fs::path &temporary, const fs::path &final, int64_t step) {
  fs::remove_all(final);
  fs::rename(temporary, final);
  // The pointer last: until it is renamed, `latest` names the previous checkpoint.
  writeDurably(fs::path(root) / "latest.tmp", stepName(step));
  fs::rename(fs::path(root) / "latest.tmp", fs::path(root) / "latest");
  syncDirectory(root);
  // Keep `keep`: this one and the newest before it. Later steps stay (a run resumed from an
  // earlier checkpoint, `latest` set back by hand, replaces them as it reaches them): pruning
  // by name alone would delete the checkpoint just written, which `latest` names.
  std::vector<std::pair<int64_t, fs::path>> earlier;
  for (const auto &entry : fs::directory_iterator(root)) {
    std::string file = entry.path().filename().string();
    char *end = nullptr;
    long long number = file.rfind("step_", 0) == 0 ? std::strtoll(file.c_str() + 5, &end, 10) : -1;
    if (entry.is_directory() && end && *end == '\0' && number >= 0 && number < step)
      earlier.emplace_back(number, entry.path());
  }
  std::sort(earlier.begin(), earlier.end());
  for (size_t i = 0; i + keep < earlier.size() + 1; ++i)
    fs::remove_all(earlier[i].second);
}

void CheckpointWriter::saveWhole(int64_t step, std::vector<std::pair<std::string, Array>> &arrays,
                                 nlohmann::json &metadata) {
  fs::path final = fs::path(root) / stepName(step);
  // Named with its writer: readers sweep only the temporaries of dead writers.
  fs::path temporary = fs::path(root) / (".tmp-" + stepName(step) + "." + rt::writerTag());
  fs::remove_all(temporary);
  fs::create_directories(temporary);
  try {
    writeWhole(temporary, step, arrays, metadata);
  } catch (...) {
    // A failed save (a full disk) leaves no partial copy behind to hold the space.
    std::error_code ignored;
    fs::remove_all(temporary, ignored);
    throw;
  }
  commit(temporary, final, step);
}

void CheckpointWriter::writeWhole(const fs::path &temporary, int64_t step,
                                  std::vector<std::pair<std::string, Array>> &arrays,
                                  nlohmann::json &metadata) {
  // One tensor at a time through a host buffer: the host never holds the whole state.
  std::string header = safetensorsHeader(arrays);
  DurableFile file(temporary / kTensors);
  file.write(header.data(), header.size());
  size_t total = header.size();
  nlohmann::json crcs = nlohmann::json::object();
  std::vector<uint8_t> host;
  for (auto &[name, array] : arrays) {
    host.resize(array.numElements() * rt::byteSize(array.dtype()));
    array.copyTo(host.data(), host.size());
    array = Array(); // the snapshot's device memory goes now
    crcs[name] = crc32Of(host.data(), host.size());
    file.write(host.data(), host.size());
    total += host.size();
  }
  file.sync();
  metadata["format_version"] = kFormatVersion;
  metadata["step"] = step;
  metadata["files"] = {{kTensors, {{"bytes", total}}}};
  metadata["crc32"] = crcs;
  writeDurably(temporary / kMetadata, metadata.dump(2));
  syncDirectory(temporary);
}

void CheckpointWriter::saveInParts(int64_t step, std::vector<std::pair<std::string, Array>> &arrays,
                                   nlohmann::json &metadata) {
  // Every process writes its parts into one temporary directory; process 0 indexes them and
  // commits once all have written.
  auto barrier = [&](const char *what) {
    if (rt::Status s = rt::distributed::barrier(); !s.isOk())
      throw Error(std::string("waiting for the other processes ") + what + ": " + s.message());
  };
  const bool first = distributed::process_index() == 0;
  fs::path final = fs::path(root) / stepName(step);
  fs::path temporary = fs::path(root) / (".tmp-" + stepName(step) + ".job");
  if (first) {
    fs::remove_all(temporary);
    fs::create_directories(temporary);
  }
  barrier("to start the checkpoint");
  if (!fs::is_directory(temporary))
    throw Error(temporary.string() + ", which process 0 made, is not here: the processes of a "
                "job must share training.out_dir (on several hosts, a shared volume), or set "
                "checkpoint.enabled = false");
  detail::writeProcessParts(temporary, arrays);
  barrier("to write their parts");
  if (first) {
    mergeProcessParts(temporary, distributed::process_count(), metadata);
    metadata["format_version"] = kFormatVersion;
    metadata["step"] = step;
    metadata["processes"] = distributed::process_count();
    writeDurably(temporary / kMetadata, metadata.dump(2));
    syncDirectory(temporary);
    commit(temporary, final, step);
  }
}

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

double CheckpointWriter::save(int64_t step, std::vector<std::pair<std::string, Array>> arrays,
                              nlohmann::json metadata) {
  auto start = std::chrono::steady_clock::now();
  wait();
  writer = std::thread([this, step, arrays = std::move(arrays), metadata]() mutable {
    auto begin = std::chrono::steady_clock::now();
    try {
      fs::create_directories(root);
      if (distributed::process_count() > 1)
        saveInParts(step, arrays, metadata);
      else
        saveWhole(step, arrays, metadata);
    } catch (const std::exception &e) {
      error = std::string("saving the checkpoint of step ") + std::to_string(step) + ": " +
              e.what();
    }
    writeSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  });
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::optional<std::string> latestCheckpoint(const std::string &outDir) {
  fs::path root = fs::path(outDir) / "checkpoints";
  if (!fs::is_directory(root))
    return std::nullopt;
  // What a crashed save left behind (not what a live writer is writing now), also where no
  // save ever finished.
  for (const auto &entry : fs::directory_iterator(root)) {
    std::string file = entry.path().filename().string();
    if (file.rfind(".tmp-", 0) != 0)
      continue;
    // ".tmp-step_N.WRITER" (a job's: WRITER "job", swept by any process that resumes it).
    size_t dot = file.find('.', 1);
    if (rt::writerGone(dot == std::string::npos ? "" : file.substr(dot + 1))) {
      // The processes of a resumed job sweep at once: what another removed first is gone.
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
  // Saves write the bare name; a hand-edited file (`echo step_00000100 > latest`, to go back
  // to an earlier checkpoint) ends in a newline.
  if (!fs::exists(root / "latest"))
    return std::nullopt;
  std::string name = readFile(root / "latest");
  const char *space = " \t\r\n";
  name.erase(name.find_last_not_of(space) + 1);
  name.erase(0, name.find_first_not_of(space));
  fs::path dir = root / name;
  if (name.empty() || !fs::is_directory(dir))
    throw Error((root / "latest").string() + " names \"" + name + "\", which does not exist");
  return dir.string();
}

void clearForFreshRun(const std::string &outDir, bool overwrite,
                      const std::string &outDirSetting) {
  fs::path dir = fs::path(outDir) / "checkpoints";
  if (overwrite) {
    if (distributed::process_index() == 0)
      fs::remove_all(dir);
    return;
  }
  if (std::optional<std::string> newest = latestCheckpoint(outDir))
    throw Error(dir.string() + " holds the checkpoints of another run (the newest: " +
                fs::path(*newest).filename().string() +
                "): --resume continues it, --overwrite starts afresh and deletes them; or set "
                "another " + outDirSetting);
}

namespace {
void verifyPart(const StoredPart &part) {
  if (part.verified)
    return;
  if (crc32Of(part.bytes.data(), part.bytes.size()) != part.crc32)
    throw Error(part.where + ": checksum mismatch (the file is damaged)");
  part.verified = true;
}
} // namespace

void StoredTensor::read(const std::vector<int64_t> &start, const Shape &box, char *out) const {
  size_t elem = rt::byteSize(dtype);
  for (const StoredPart &part : parts) {
    bool overlaps = true;
    for (size_t d = 0; d < shape.size(); ++d)
      overlaps &= part.start[d] < start[d] + box[d] && start[d] < part.start[d] + part.shape[d];
    if (!overlaps)
      continue;
    verifyPart(part);
    loom::detail::copyOverlap(part.shape, part.start,
                              reinterpret_cast<const char *>(part.bytes.data()), box, start, out,
                              elem);
  }
}

std::vector<uint8_t> StoredTensor::whole() const {
  size_t bytes = rt::byteSize(dtype);
  for (int64_t d : shape)
    bytes *= d;
  std::vector<uint8_t> out(bytes);
  read(std::vector<int64_t>(shape.size(), 0), shape, reinterpret_cast<char *>(out.data()));
  return out;
}

void Checkpoint::verify(const std::string &name) const {
  for (const StoredPart &part : tensors.at(name).parts)
    verifyPart(part);
}

Checkpoint readCheckpoint(const std::string &dir) {
  Checkpoint c;
  c.dir = dir;
  fs::path metaPath = fs::path(dir) / kMetadata, tensorPath = fs::path(dir) / kTensors;
  std::string where = tensorPath.string();
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
  if (c.metadata.contains("parts")) { // written by several processes
    detail::readParts(c);
    return c;
  }
  // Map the file: a tensor's bytes are read from disk only where they are used.
  int fd = ::open(tensorPath.c_str(), O_RDONLY);
  if (fd < 0)
    throw Error(where + ": cannot open the file");
  struct stat st {};
  ::fstat(fd, &st);
  size_t size = static_cast<size_t>(st.st_size);
  size_t expected = c.metadata["files"][kTensors].value("bytes", size_t(0));
  if (size != expected) {
    ::close(fd);
    throw Error(where + ": " + std::to_string(size) + " bytes, the metadata says " +
                std::to_string(expected) + " (truncated?)");
  }
  void *base = size ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  ::close(fd);
  if (base == MAP_FAILED)
    throw Error(where + ": cannot map the file");
  c.mapping = std::shared_ptr<const void>(base, [size](const void *p) {
    ::munmap(const_cast<void *>(p), size);
  });
  auto file = static_cast<const uint8_t *>(base);
  uint64_t headerSize = 0;
  if (size >= 8)
    std::memcpy(&headerSize, file, 8);
  if (size < 8 || headerSize > size - 8)
    throw Error(where + ": not a safetensors file (no header)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(file + 8, file + 8 + headerSize);
  } catch (const nlohmann::json::exception &e) {
    throw Error(where + ": the header is not JSON: " + e.what());
  }
  const nlohmann::json &crcs = c.metadata["crc32"];
  size_t base0 = 8 + headerSize;
  for (const auto &[name, entry] : header.items()) {
    if (name == "__metadata__")
      continue;
    std::optional<DType> dtype = dtypeNamed(entry.value("dtype", ""));
    if (!dtype)
      throw Error(where + ": tensor " + name + " has an unknown dtype");
    if (!crcs.contains(name))
      throw Error(metaPath.string() + ": no checksum for tensor " + name);
    StoredTensor t{*dtype, entry["shape"].get<Shape>(), {}};
    size_t begin = entry["data_offsets"][0], end = entry["data_offsets"][1];
    int64_t elements = 1;
    for (int64_t d : t.shape)
      elements *= d;
    if (end < begin || base0 + end > size || end - begin != elements * rt::byteSize(*dtype))
      throw Error(where + ": tensor " + name + " has bad data offsets");
    t.parts.push_back(StoredPart{std::vector<int64_t>(t.shape.size(), 0), t.shape,
                                 std::span<const uint8_t>(file + base0 + begin, end - begin),
                                 crcs[name].get<uint32_t>(), where + ": tensor " + name});
    c.tensors.emplace(name, std::move(t));
  }
  return c;
}

} // namespace loom::train
