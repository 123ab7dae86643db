// Checkpoint file plumbing (see CheckpointIo.h).
#include "frontend/train/CheckpointIo.h"

#include "frontend/Error.h"

#include <algorithm>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>
#include <zlib.h>

namespace fs = std::filesystem;

namespace loom::train::detail {

const char *safetensorsType(DType t) {
  switch (t) {
  case DType::F32:
    return "F32";
  case DType::F64:
    return "F64";
  case DType::BF16:
    return "BF16";
  case DType::F16:
    return "F16";
  case DType::I32:
    return "I32";
  case DType::I64:
    return "I64";
  case DType::I1:
    return "BOOL";
  }
  return "?";
}

std::optional<DType> dtypeNamed(const std::string &name) {
  for (DType t :
       {DType::F32, DType::F64, DType::BF16, DType::F16, DType::I32, DType::I64, DType::I1})
    if (name == safetensorsType(t))
      return t;
  return std::nullopt;
}

uint32_t crc32Of(const void *data, size_t bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  auto p = static_cast<const Bytef *>(data);
  while (bytes > 0) { // zlib takes sizes as uInt
    uInt n = static_cast<uInt>(std::min<size_t>(bytes, 1u << 30));
    crc = crc32(crc, p, n);
    p += n, bytes -= n;
  }
  return static_cast<uint32_t>(crc);
}

DurableFile::DurableFile(fs::path p) : path(std::move(p)) {
  fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    throw Error(path.string() + ": cannot create the file");
}

DurableFile::~DurableFile() {
  if (fd >= 0)
    ::close(fd);
}

void DurableFile::write(const void *data, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    ssize_t n = ::write(fd, static_cast<const char *>(data) + done, bytes - done);
    if (n <= 0)
      throw Error(path.string() + ": cannot write the file (disk full?)");
    done += static_cast<size_t>(n);
  }
}

void DurableFile::sync() {
  bool synced = ::fsync(fd) == 0;
  ::close(fd);
  fd = -1;
  if (!synced)
    throw Error(path.string() + ": cannot sync the file to disk");
}

void writeDurably(const fs::path &path, const std::string &bytes) {
  DurableFile file(path);
  file.write(bytes.data(), bytes.size());
  file.sync();
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

} // namespace loom::train::detail
