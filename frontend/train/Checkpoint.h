// Checkpoints of a training run: OUT/checkpoints/step_N/ with the tensors in safetensors format
// (global tensors named by their tree path, so any tool reads them and any mesh restores them)
// and metadata.json (step, config, mesh, format version, a checksum per file). A save copies the
// arrays to the host, then writes on a background thread into a temporary directory that is
// fsynced and renamed; `latest` is updated last. A crash leaves the previous checkpoint whole.
#ifndef LOOM_FRONTEND_TRAIN_CHECKPOINT_H
#define LOOM_FRONTEND_TRAIN_CHECKPOINT_H

#include "frontend/Array.h"
#include "frontend/Tree.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
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

/// One tensor of a checkpoint, on the host.
struct HostArray {
  DType dtype;
  Shape shape;
  std::vector<uint8_t> bytes;
};

class CheckpointWriter {
public:
  /// Checkpoints go to `outDir`/checkpoints; the newest `keep` are kept.
  CheckpointWriter(std::string outDir, int keep);
  /// Waits for a save in progress.
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter &) = delete;
  CheckpointWriter &operator=(const CheckpointWriter &) = delete;

  /// Copies `arrays` to the host now (they may be donated by the next step), then writes the
  /// checkpoint of `step` in the background. Waits for the previous save, and for the arrays
  /// to be computed, first. Returns the seconds of the copy: the time the device idles.
  double save(int64_t step, const std::vector<std::pair<std::string, Array>> &arrays,
              nlohmann::json metadata);
  /// Waits for the save in progress; throws its error. Returns the seconds all saves so far
  /// spent writing.
  double wait();

private:
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
  std::map<std::string, HostArray> tensors;
};

/// The checkpoint `outDir`/checkpoints/latest names, or nullopt when there is none. Removes
/// directories a crashed save left behind.
std::optional<std::string> latestCheckpoint(const std::string &outDir);

/// Reads the checkpoint in `dir`, checking its format, checksums and sizes; throws loom::Error
/// naming the file (and tensor) that is wrong.
Checkpoint readCheckpoint(const std::string &dir);

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_CHECKPOINT_H
