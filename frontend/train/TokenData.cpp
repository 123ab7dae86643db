// Token files and their batches (see TokenData.h).
#include "frontend/train/TokenData.h"

#include "frontend/Error.h"
#include "runtime/Process.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loom::train {

namespace {
constexpr const char *kFormat = "loom-tokens";
constexpr int kVersion = 1;

/// splitmix64: a counter-based hash, so a row's window depends on (seed, step, row) only.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The size of each of `texts` (-1 for one that cannot be read).
std::vector<int64_t> sourceBytes(const std::vector<std::string> &texts) {
  std::vector<int64_t> sizes;
  for (const std::string &text : texts) {
    std::error_code error;
    uintmax_t size = std::filesystem::file_size(text, error);
    sizes.push_back(error ? -1 : static_cast<int64_t>(size));
  }
  return sizes;
}
} // namespace

bool TokenFile::preparedFrom(const std::string &path, const std::vector<std::string> &texts) {
  std::ifstream in(path, std::ios::binary);
  uint64_t headerBytes = 0;
  if (!in.read(reinterpret_cast<char *>(&headerBytes), 8) || headerBytes > (uint64_t(1) << 24))
    return false;
  std::string json(headerBytes, ' ');
  if (!in.read(json.data(), static_cast<std::streamsize>(headerBytes)))
    return false;
  nlohmann::json header = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  return header.is_object() && header.value("format", "") == kFormat &&
         header.value("sources", nlohmann::json()) == nlohmann::json(texts) &&
         header.value("source_bytes", nlohmann::json()) == nlohmann::json(sourceBytes(texts));
}

// Layout: an 8-byte little-endian header length H, H bytes of JSON (padded with spaces so the
// ids start at a multiple of 8), then the ids.
TokenFile TokenFile::open(const std::string &path) {
  if (std::filesystem::is_directory(path)) // it opens, then cannot be mapped
    throw Error(path + ": a directory, not a token file");
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    throw Error(path + ": cannot open the token file: " + std::strerror(errno));
  struct stat st {};
  ::fstat(fd, &st);
  size_t size = static_cast<size_t>(st.st_size);
  void *base = size ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  ::close(fd);
  if (base == MAP_FAILED)
    throw Error(path + ": cannot map the token file (" + std::to_string(size) + " bytes)");
  TokenFile t;
  t.mapping = std::shared_ptr<const void>(base, [size](const void *p) {
    ::munmap(const_cast<void *>(p), size);
  });
  t.file = path;
  auto bytes = static_cast<const uint8_t *>(base);
  uint64_t headerBytes = 0;
  if (size < 8 || (std::memcpy(&headerBytes, bytes, 8), headerBytes > size - 8))
    throw Error(path + ": not a token file (no header)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes + 8, bytes + 8 + headerBytes);
  } catch (const nlohmann::json::exception &e) {
    throw Error(path + ": the token file's header is not JSON: " + e.what());
  }
  if (header.value("format", "") != kFormat || header.value("version", 0) != kVersion)
    throw Error(path + ": not a loom token file of version " + std::to_string(kVersion));
  std::string dtype = header.value("dtype", "");
  if (dtype != "uint16" && dtype != "uint32")
    throw Error(path + ": dtype \"" + dtype + "\" is not uint16 or uint32");
  t.bytesPerId = dtype == "uint16" ? 2 : 4;
  t.count = header.value("count", int64_t(0));
  t.vocabSize = header.value("vocab", int64_t(0));
  t.ids = bytes + 8 + headerBytes;
  if (t.count < 0 || static_cast<uint64_t>(t.count) * t.bytesPerId > size - 8 - headerBytes)
    throw Error(path + ": truncated: the header promises " + std::to_string(t.count) +
                " ids, the file holds " +
                std::to_string((size - 8 - headerBytes) / t.bytesPerId));
  return t;
}

uint32_t TokenFile::at(int64_t i) const {
  if (bytesPerId == 2) {
    uint16_t v;
    std::memcpy(&v, ids + 2 * i, 2);
    return v;
  }
  uint32_t v;
  std::memcpy(&v, ids + 4 * i, 4);
  return v;
}

void TokenFile::prepareBytes(const std::vector<std::string> &texts, const std::string &out) {
  std::vector<uint16_t> ids;
  for (const std::string &text : texts) {
    std::ifstream in(text, std::ios::binary);
    if (!in || std::filesystem::is_directory(text)) // a directory opens, then reads nothing
      throw Error(text + ": cannot read the text file (data.text)" +
                  (in ? ": it is a directory" : ""));
    for (char c; in.get(c);)
      ids.push_back(static_cast<uint8_t>(c));
  }
  nlohmann::json header = {{"format", kFormat}, {"version", kVersion}, {"dtype", "uint16"},
                           {"count", ids.size()}, {"vocab", 256}, {"tokenizer", "bytes"},
                           {"sources", texts}, {"source_bytes", sourceBytes(texts)}};
  std::string json = header.dump();
  json.append((8 - (8 + json.size()) % 8) % 8, ' ');
  uint64_t headerBytes = json.size();
  std::filesystem::path target(out);
  if (target.has_parent_path())
    std::filesystem::create_directories(target.parent_path());
  // Every process of a job prepares it, each into its own temporary (named for hosts that
  // share the volume), then renames it into place: all write the same bytes.
  std::string temporary = out + ".tmp-" + rt::writerTag();
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char *>(&headerBytes), 8);
    file.write(json.data(), static_cast<std::streamsize>(json.size()));
    file.write(reinterpret_cast<const char *>(ids.data()),
               static_cast<std::streamsize>(ids.size() * 2));
    if (!file)
      throw Error(out + ": cannot write the token file");
  }
  std::filesystem::rename(temporary, out);
}

TokenSplit::TokenSplit(const TokenFile &f, double evalFraction, int64_t seq)
    : file(&f), trainTokens(static_cast<int64_t>(f.size() * (1 - evalFraction))), seq(seq) {
  if (trainTokens < seq + 1)
    throw Error(f.path() + ": " + std::to_string(f.size()) + " tokens leave " +
                std::to_string(trainTokens) + " to train on; a window needs " +
                std::to_string(seq + 1) + " (model.seq + 1)");
  if (f.size() - trainTokens < seq + 1)
    throw Error(f.path() + ": the held-out " + std::to_string(f.size() - trainTokens) +
                " tokens (data.eval_fraction) are fewer than one window of " +
                std::to_string(seq + 1));
}

namespace {
void appendWindow(TokenBatch &b, const TokenFile &f, int64_t start, int64_t seq, float mask) {
  for (int64_t j = 0; j < seq; ++j) {
    b.ids.push_back(static_cast<int32_t>(f.at(start + j)));
    b.targets.push_back(static_cast<int32_t>(f.at(start + j + 1)));
  }
  b.mask.push_back(mask);
}
} // namespace

TokenBatch TokenSplit::trainBatch(uint64_t seed, int64_t step, int64_t firstRow,
                                  int64_t rows) const {
  TokenBatch b;
  uint64_t starts = static_cast<uint64_t>(trainTokens - seq);
  for (int64_t r = firstRow; r < firstRow + rows; ++r) {
    uint64_t h = mix(mix(mix(seed) ^ static_cast<uint64_t>(step)) ^ static_cast<uint64_t>(r));
    appendWindow(b, *file, static_cast<int64_t>(h % starts), seq, 1);
  }
  return b;
}

int64_t TokenSplit::evalWindows() const { return (file->size() - trainTokens - 1) / seq; }

TokenBatch TokenSplit::evalBatch(int64_t k, int64_t rows) const {
  TokenBatch b;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t w = k * rows + r;
    bool real = w < evalWindows();
    appendWindow(b, *file, trainTokens + (real ? w : 0) * seq, seq, real ? 1 : 0);
  }
  return b;
}

} // namespace loom::train
