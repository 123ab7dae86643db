// A kernel of the GPU pipeline on a GPU: its cubin loaded through the CUDA driver, launched
// with arguments laid out as the NVVM lowering expects them (an index or f32 per 8-byte
// parameter, a memref as its expanded descriptor: allocated and aligned pointers, offset,
// sizes, strides). The GPU kernel tests and the bandwidth benchmark launch single kernels
// with it; whole programs go through the CUDA device (CudaPlatform.h, CudaLaunchAbi.h).
#ifndef LOOM_RUNTIME_CUDAKERNEL_H
#define LOOM_RUNTIME_CUDAKERNEL_H

#include "runtime/CudaDriver.h"

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace loom::rt {

/// A row-major buffer on the GPU, passed as a memref.
struct CudaBuffer {
  CUdeviceptr ptr = 0;
  std::vector<int64_t> shape;
};
using CudaArg = std::variant<int64_t, float, CudaBuffer>;

/// The cubin of `gpu.binary @name` in printed MLIR (its string escapes decoded), or "".
std::string cubinFromIr(const std::string &ir, const std::string &name);

class CudaKernel {
public:
  /// Loads `cubin` and finds its kernel `function`; the driver's error otherwise.
  static StatusOr<CudaKernel> load(const CudaDriver &cuda, const std::string &cubin,
                                   const std::string &function = "main_kernel");
  /// Launches it on `blocks` x `threads` (asynchronously, on the default stream).
  Status launch(std::array<unsigned, 3> blocks, std::array<unsigned, 3> threads,
                const std::vector<CudaArg> &args) const;

private:
  const CudaDriver *cuda = nullptr;
  CUfunction function = nullptr;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_CUDAKERNEL_H
