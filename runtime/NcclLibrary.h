// NCCL, loaded at run time like the CUDA driver and cuBLAS: Loom builds and runs where it is
// not installed, and only a mesh of GPUs needs it. LOOM_NCCL may name the library file.
#ifndef LOOM_RUNTIME_NCCLLIBRARY_H
#define LOOM_RUNTIME_NCCLLIBRARY_H

#include "runtime/Status.h"

#include <nccl.h>

#include <string>

namespace loom::rt {

/// The NCCL entry points Loom uses, resolved from libnccl.so.2.
struct NcclLibrary {
  ncclResult_t (*getVersion)(int *);
  const char *(*getErrorString)(ncclResult_t);
  ncclResult_t (*commInitAll)(ncclComm_t *, int, const int *);
  ncclResult_t (*getUniqueId)(ncclUniqueId *);
  ncclResult_t (*commInitRank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*commDestroy)(ncclComm_t);
  ncclResult_t (*commAbort)(ncclComm_t);
  ncclResult_t (*commGetAsyncError)(ncclComm_t, ncclResult_t *);
  ncclResult_t (*allReduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
                            ncclComm_t, cudaStream_t);
  ncclResult_t (*allGather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t,
                            cudaStream_t);
  ncclResult_t (*reduceScatter)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
                                ncclComm_t, cudaStream_t);
  ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*groupStart)();
  ncclResult_t (*groupEnd)();

  /// The process's NCCL, loaded on first use; Unavailable, saying why (no library, an entry
  /// point missing), where there is none.
  static StatusOr<const NcclLibrary *> get();

  /// "2.28.9": the loaded library's version.
  std::string version() const;
  /// Ok, or Internal naming `what` and NCCL's message for `result`.
  Status check(ncclResult_t result, const std::string &what) const;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_NCCLLIBRARY_H
