// Checkpoints of a training run: OUT/checkpoints/step_N/ with the tensors in safetensors format
// (global tensors named by their tree path, so any tool reads them and any mesh restores them;
// a job of several processes writes one file of parts per process, see CheckpointParts.h)
// and metadata.json (step, config, mesh, format version, the file's size, a CRC-32 per tensor).
// A save takes a snapshot made on the device and writes it from a background thread into a
// temporary directory that is fsynced and renamed; `latest` is updated last. A crash leaves the
// previous checkpoint whole.
#ifndef LOOM_FRONTEND_TRAIN_CHECKPOINT_H
#define LOOM_FRONTEND_TRAIN_CHECKPOINT_H

#include "frontend/Array.h"
#include "frontend/Tree.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace loom::train {

/// The leaves of `tree` named by their paths ("params.layers.0.mlp_in"), in flatten() order.
template <typename T>
void namedLeaves(const Tree<T> &tree, const std::string &path,
                 std::vector<std::pair<std::string, T>> &out) {
  using Kind = typename Tree<T>::Kind;
  if (tree.nodeKind() == Kind::Value) {
    out.emplace_back(path, tree.leaf());
  } else if (tree.nodeKind() == Kind::Dict) {
    for (const auto &[key, child] : tree.dict())
      namedLeaves(child, path.empty() ? key : path + "." + key, out);
  } else {
    for (size_t i = 0; i < tree.list().size(); ++i)
      namedLeaves(tree.list()[i], path + "." + std::to_string(i), out);
  }
}

/// A box of a tensor stored contiguously in a mapped file: the whole tensor, or the part one
/// process wrote in a checkpoint of several processes. Its bytes are read from disk only where
/// they are touched.
struct StoredPart {
  std::vector<int64_t> start; ///< where it lies in the tensor, per dim
  Shape shape;
  std::span<const uint8_t> bytes;
  uint32_t crc32 = 0;
  std::string where; ///< "FILE: tensor NAME", for errors
  mutable bool verified = false;
};

/// One tensor of a checkpoint: its parts, which cover it once.
struct StoredTensor {
  DType dtype;
  Shape shape;
  std::vector<StoredPart> parts;

  /// Copies the box at `start` of shape `box` into row-major `out` from the parts it
  /// overlaps, each checked against its CRC-32 first (once): a device's shard reads its own
  /// part, not the whole tensor. Throws loom::Error naming the file and tensor if damaged.
  void read(const std::vector<int64_t> &start, const Shape &box, char *out) const;
  /// The whole tensor, row-major.
  std::vector<uint8_t> whole() const;
};

class CheckpointWriter {
public:
  /// Checkpoints go to `outDir`/checkpoints; the newest `keep` are kept.
  CheckpointWriter(std::string outDir, int keep);
  /// Waits for a save in progress.
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter &) = delete;
  CheckpointWriter &operator=(const CheckpointWriter &) = delete;

  /// Writes the checkpoint of `step` in the background: a thread copies `arrays` to the host
  /// one at a time (waiting for each to be computed) and writes them. The arrays must stay
  /// unchanged until then: pass a snapshot (a copy made on the device), not arrays the next
  /// step donates. Waits for the previous save first. Returns the seconds the caller was held.
  double save(int64_t step, std::vector<std::pair<std::string, Array>> arrays,
              nlohmann::json metadata);
  /// Waits for the save in progress; throws its error. Returns the seconds all saves so far
  /// spent writing.
  double wait();

private:
  /// Renames `temporary` to `final`, points `latest` at it, keeps the newest `keep`.
  void commit(const std::filesystem::path &temporary, const std::filesystem::path &final,
              int64_t step);
  /// save() in one process: one safetensors file of global tensors.
  void saveWhole(int64_t step, std::vector<std::pair<std::string, Array>> &arrays,
                 nlohmann::json &metadata);
  /// saveWhole's files, written and synced into `temporary`.
  void writeWhole(const std::filesystem::path &temporary, int64_t step,
                  std::vector<std::pair<std::string, Array>> &arrays, nlohmann::json &metadata);
  /// save() in a job of several processes (CheckpointParts.h).
  void saveInParts(int64_t step, std::vector<std::pair<std::string, Array>> &arrays,
                   nlohmann::json &metadata);

  std::string root;
  int keep;
  std::thread writer;
  std::string error;
  double writeSeconds = 0;
};

struct Checkpoint {
  std::string dir;
  int64_t step = 0;
  nlohmann::json metadata;
  std::map<std::string, StoredTensor> tensors;
  /// The mapped safetensors files the tensors' bytes point into.
  std::shared_ptr<const void> mapping;

  /// Checks all of tensor `name`'s parts against the CRC-32s the metadata records; throws
  /// loom::Error naming the file and the tensor.
  void verify(const std::string &name) const;
};

/// The checkpoint `outDir`/checkpoints/latest names, or nullopt when there is none. Removes
/// directories a crashed save left behind.
std::optional<std::string> latestCheckpoint(const std::string &outDir);

/// Before a fresh run (not resumed) writes checkpoints under `outDir`: throws loom::Error where
/// another run's are there (its saves would replace theirs one by one), naming the newest and
/// `outDirSetting` (the config's training.out_dir, described), unless `overwrite`: then
/// deletes them (process 0 of a job, whose processes share the directory).
void clearForFreshRun(const std::string &outDir, bool overwrite,
                      const std::string &outDirSetting);

/// Opens the checkpoint in `dir`: checks its format, the file's size and every tensor's
/// dtype, shape and offsets (not yet the bytes: see Checkpoint::verify); throws loom::Error
/// naming the file (and tensor) that is wrong.
Checkpoint readCheckpoint(const std::string &dir);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_CHECKPOINT_H
