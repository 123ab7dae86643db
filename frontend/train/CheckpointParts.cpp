// Multi-process checkpoints (see CheckpointParts.h).
#include "frontend/train/CheckpointParts.h"

#include "frontend/Distributed.h"
#include "frontend/Error.h"
#include "frontend/MeshPlacement.h"
#include "frontend/train/CheckpointIo.h"
#include "runtime/Buffer.h"

#include <fcntl.h>
#include <map>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace loom::train::detail {

namespace {
std::string processFile(int p, const char *ext) {
  return "process-" + std::to_string(p) + ext;
}

struct Mapping {
  const uint8_t *data = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (data)
      ::munmap(const_cast<uint8_t *>(data), size);
  }
};

/// What a checkpoint read in parts keeps alive: the mapped files and the assembled tensors.
struct Holder {
  std::vector<std::unique_ptr<Mapping>> files;
};
} // namespace

void writeProcessParts(const fs::path &dir, std::vector<std::pair<std::string, Array>> &arrays) {
  const int me = distributed::process_index();
  // Which parts this process writes, and the safetensors header naming them.
  struct Part {
    std::string tensor;
    std::shared_ptr<rt::Buffer> buffer; ///< null: the array is on one device, written whole
    Array whole;
    std::vector<int64_t> start;
    Shape shape;
  };
  nlohmann::json index = nlohmann::json::object(), header = nlohmann::json::object();
  std::vector<Part> parts;
  size_t offset = 0;
  for (auto &[name, a] : arrays) {
    index[name] = {{"dtype", safetensorsType(a.dtype())}, {"shape", a.shape()},
                   {"parts", nlohmann::json::array()}};
    std::vector<Part> mine;
    if (!a.isSharded()) {
      if (me == 0)
        mine.push_back({name, nullptr, a, std::vector<int64_t>(a.shape().size(), 0), a.shape()});
    } else {
      rt::MeshTopology mesh = loom::detail::topologyOf(a.sharding().mesh());
      Shape local = loom::detail::localShape(a.shape(), a.sharding());
      std::map<std::vector<int64_t>, int> owner; // the lowest device holding each part
      for (int d = 0; d < mesh.numDevices(); ++d)
        owner.emplace(loom::detail::partStart(a.shape(), a.sharding(), mesh, d), d);
      for (const auto &[start, d] : owner)
        if (a.shardBuffers()[d]) {
          std::string tensor = name + "@";
          for (size_t i = 0; i < start.size(); ++i)
            tensor += (i ? "," : "") + std::to_string(start[i]);
          mine.push_back({tensor, a.shardBuffers()[d], Array(), start, local});
        }
    }
    for (Part &p : mine) {
      size_t bytes = rt::byteSize(a.dtype());
      for (int64_t d : p.shape)
        bytes *= d;
      header[p.tensor] = {{"dtype", safetensorsType(a.dtype())}, {"shape", p.shape},
                          {"data_offsets", {offset, offset + bytes}}};
      offset += bytes;
      index[name]["parts"].push_back({{"tensor", p.tensor}, {"start", p.start},
                                      {"shape", p.shape}, {"file", processFile(me, ".safetensors")}});
      parts.push_back(std::move(p));
    }
  }
  header["__metadata__"] = {{"format", "pt"}, {"writer", "loom"}};
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  uint64_t size = json.size();
  DurableFile file(dir / processFile(me, ".safetensors"));
  file.write(&size, 8);
  file.write(json.data(), json.size());
  size_t total = 8 + json.size();
  std::vector<uint8_t> host;
  size_t next = 0;
  for (auto &[name, a] : arrays) {
    for (auto &entry : index[name]["parts"]) {
      Part &p = parts[next++];
      size_t bytes = rt::byteSize(a.dtype());
      for (int64_t d : p.shape)
        bytes *= d;
      host.resize(bytes);
      if (p.buffer) {
        if (rt::Status s = rt::copyToHost(*p.buffer, host.data(), bytes); !s.isOk())
          throw Error(s.message());
      } else {
        p.whole.copyTo(host.data(), bytes);
      }
      entry["crc32"] = crc32Of(host.data(), bytes);
      file.write(host.data(), bytes);
      total += bytes;
    }
    a = Array(); // the snapshot's device memory goes now
  }
  file.sync();
  nlohmann::json summary = {{"file", processFile(me, ".safetensors")}, {"bytes", total},
                            {"tensors", index}};
  writeDurably(dir / processFile(me, ".json"), summary.dump());
}

void mergeProcessParts(const fs::path &dir, int processes, nlohmann::json &metadata) {
  nlohmann::json parts = nlohmann::json::object(), files = nlohmann::json::object();
  for (int p = 0; p < processes; ++p) {
    fs::path path = dir / processFile(p, ".json");
    if (!fs::exists(path))
      throw Error(dir.string() + ": process " + std::to_string(p) +
                  " wrote its part elsewhere: the processes of a job must share "
                  "training.out_dir (on several hosts, a shared volume), or set "
                  "checkpoint.enabled = false");
    nlohmann::json summary = nlohmann::json::parse(readFile(path));
    files[summary["file"].get<std::string>()] = {{"bytes", summary["bytes"]}};
    for (const auto &[name, entry] : summary["tensors"].items()) {
      if (!parts.contains(name))
        parts[name] = {{"dtype", entry["dtype"]}, {"shape", entry["shape"]},
                       {"parts", nlohmann::json::array()}};
      for (const auto &part : entry["parts"])
        parts[name]["parts"].push_back(part);
    }
    fs::remove(path);
  }
  metadata["files"] = files;
  metadata["parts"] = parts;
}

void readParts(Checkpoint &c) {
  auto holder = std::make_shared<Holder>();
  std::map<std::string, std::map<std::string, std::span<const uint8_t>>> stored;
  for (const auto &[file, info] : c.metadata["files"].items()) {
    fs::path path = fs::path(c.dir) / file;
    std::string where = path.string();
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
      throw Error(where + ": cannot open the file");
    struct stat st {};
    ::fstat(fd, &st);
    auto m = std::make_unique<Mapping>();
    m->size = static_cast<size_t>(st.st_size);
    if (m->size != info.value("bytes", size_t(0))) {
      ::close(fd);
      throw Error(where + ": " + std::to_string(m->size) + " bytes, the metadata says " +
                  std::to_string(info.value("bytes", size_t(0))) + " (truncated?)");
    }
    void *base = m->size ? ::mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    ::close(fd);
    if (base == MAP_FAILED)
      throw Error(where + ": cannot map the file");
    m->data = static_cast<const uint8_t *>(base);
    uint64_t headerSize = 0;
    if (m->size >= 8)
      std::memcpy(&headerSize, m->data, 8);
    if (m->size < 8 || headerSize > m->size - 8)
      throw Error(where + ": not a safetensors file (no header)");
    nlohmann::json header;
    try {
      header = nlohmann::json::parse(m->data + 8, m->data + 8 + headerSize);
    } catch (const nlohmann::json::exception &e) {
      throw Error(where + ": the header is not JSON: " + e.what());
    }
    for (const auto &[tensor, entry] : header.items()) {
      if (tensor == "__metadata__")
        continue;
      size_t begin = entry["data_offsets"][0], end = entry["data_offsets"][1];
      if (end < begin || 8 + headerSize + end > m->size)
        throw Error(where + ": tensor " + tensor + " has bad data offsets");
      stored[file][tensor] = {m->data + 8 + headerSize + begin, end - begin};
    }
    holder->files.push_back(std::move(m));
  }
  // Each tensor is its parts, read where a device's shard overlaps them: no process holds
  // a whole tensor it does not need.
  for (const auto &[name, entry] : c.metadata["parts"].items()) {
    std::optional<DType> dtype = dtypeNamed(entry.value("dtype", ""));
    if (!dtype)
      throw Error(c.dir + ": tensor " + name + " has an unknown dtype");
    StoredTensor t{*dtype, entry["shape"].get<Shape>(), {}};
    size_t elem = rt::byteSize(*dtype), bytes = elem;
    for (int64_t d : t.shape)
      bytes *= d;
    size_t covered = 0;
    for (const auto &part : entry["parts"]) {
      std::string file = part["file"], tensor = part["tensor"];
      std::string where = (fs::path(c.dir) / file).string() + ": tensor " + tensor;
      auto found = stored[file].find(tensor);
      if (found == stored[file].end())
        throw Error(where + " is missing");
      Shape partShape = part["shape"].get<Shape>();
      std::vector<int64_t> start = part["start"].get<std::vector<int64_t>>();
      if (partShape.size() != t.shape.size() || start.size() != t.shape.size())
        throw Error(where + " has the wrong rank");
      size_t partBytes = elem;
      for (size_t d = 0; d < partShape.size(); ++d) {
        partBytes *= partShape[d];
        if (start[d] < 0 || partShape[d] < 0 || start[d] + partShape[d] > t.shape[d])
          throw Error(where + " lies outside " + name + "'s shape");
      }
      if (found->second.size() != partBytes)
        throw Error(where + " has the wrong size");
      t.parts.push_back(StoredPart{start, partShape, found->second, part.value("crc32", 0u),
                                   where});
      covered += partBytes;
    }
    if (covered != bytes)
      throw Error(c.dir + ": the parts of tensor " + name + " do not cover it");
    c.tensors[name] = std::move(t);
  }
  c.mapping = holder;
}

} // namespace loom::train::detail
