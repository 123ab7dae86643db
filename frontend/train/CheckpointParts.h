// Checkpoints of a job spanning processes: each process writes the parts of the state its
// devices own (every part once, by the lowest device holding it) into its own safetensors
// file; process 0 merges their indexes into metadata.json once all have written. Reading
// assembles each global tensor from its parts, so any process count and mesh restores it.
#ifndef LOOM_FRONTEND_TRAIN_CHECKPOINTPARTS_H
#define LOOM_FRONTEND_TRAIN_CHECKPOINTPARTS_H

#include "frontend/train/Checkpoint.h"

#include <filesystem>

namespace loom::train::detail {

/// Writes this process's parts of `arrays` to `dir`/process-P.safetensors, and their index
/// (global dtype and shape, each part's start, shape and CRC-32) to `dir`/process-P.json.
/// Each array is released once written.
void writeProcessParts(const std::filesystem::path &dir,
                       std::vector<std::pair<std::string, Array>> &arrays);

/// Process 0, once every process has written: the processes' indexes merged into
/// `metadata` ("parts" and "files"); the index files are removed.
void mergeProcessParts(const std::filesystem::path &dir, int processes,
                       nlohmann::json &metadata);

/// The tensors of a checkpoint written in parts (metadata has "parts"), each assembled
/// whole in host memory; throws loom::Error naming the file and tensor that is wrong.
void readParts(Checkpoint &c);

} // namespace loom::train::detail

#endif // LOOM_FRONTEND_TRAIN_CHECKPOINTPARTS_H
