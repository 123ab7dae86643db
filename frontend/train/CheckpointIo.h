// The file plumbing of checkpoints, shared by the one-process writer (Checkpoint.cpp) and the
// multi-process one (CheckpointParts.cpp): durable writes, CRC-32, safetensors dtype names.
#ifndef LOOM_FRONTEND_TRAIN_CHECKPOINTIO_H
#define LOOM_FRONTEND_TRAIN_CHECKPOINTIO_H

#include "frontend/Tensor.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace loom::train::detail {

inline constexpr int kFormatVersion = 2;
inline constexpr const char *kTensors = "model.safetensors", *kMetadata = "metadata.json";

/// "F32", "BF16", "BOOL", ... as safetensors names them, and back.
const char *safetensorsType(DType t);
std::optional<DType> dtypeNamed(const std::string &name);

uint32_t crc32Of(const void *data, size_t bytes);

/// An open file written in pieces, then made durable.
class DurableFile {
public:
  explicit DurableFile(std::filesystem::path p);
  ~DurableFile();
  void write(const void *data, size_t bytes);
  void sync();

private:
  std::filesystem::path path;
  int fd = -1;
};

/// Writes `bytes` to `path` and makes them durable.
void writeDurably(const std::filesystem::path &path, const std::string &bytes);
void syncDirectory(const std::filesystem::path &dir);
std::string readFile(const std::filesystem::path &path);

} // namespace loom::train::detail

#endif // LOOM_FRONTEND_TRAIN_CHECKPOINTIO_H
