// cuBLAS GEMMs for the CUDA device (see CudaBlas.h).
#include "runtime/CudaBlas.h"
#include "runtime/CudaKernelTimes.h"
#include "runtime/CudaPlatform.h"

#include <cublas_v2.h>
#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <vector>
#include <mutex>
#include <string>

using loom::rt::CudaKernelTimes;
using loom::rt::CudaPlatform;
using loom::rt::Status;
using loom::rt::StatusCode;

namespace {

struct Cublas {
  cublasStatus_t (*create)(cublasHandle_t *);
  cublasStatus_t (*setStream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                          const float *, const float *, int, long long, const float *, int,
                          long long, const float *, float *, int, long long, int);
  cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                          const double *, const double *, int, long long, const double *, int,
                          long long, const double *, double *, int, long long, int);
  cublasStatus_t (*gemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                           const void *, const void *, cudaDataType, int, long long,
                           const void *, cudaDataType, int, long long, const void *, void *,
                           cudaDataType, int, long long, int, cublasComputeType_t,
                           cublasGemmAlgo_t);
  std::string error; ///< why cuBLAS is not there, if it is not
};

const Cublas &cublas() {
  static const Cublas loaded = [] {
    Cublas c{};
    std::vector<std::string> candidates = {"libcublas.so.13", "libcublas.so.12",
                                           "/usr/local/cuda/lib64/libcublas.so.13"};
    if (const char *path = std::getenv("LOOM_CUBLAS"); path && *path)
      candidates.insert(candidates.begin(), path);
    void *lib = nullptr;
    for (const std::string &name : candidates)
      if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!lib) {
      c.error = "no cuBLAS (libcublas.so.13; LOOM_CUBLAS may name the file): " +
                std::string(dlerror());
      return c;
    }
    c.create = reinterpret_cast<decltype(c.create)>(dlsym(lib, "cublasCreate_v2"));
    c.setStream = reinterpret_cast<decltype(c.setStream)>(dlsym(lib, "cublasSetStream_v2"));
    c.sgemm = reinterpret_cast<decltype(c.sgemm)>(dlsym(lib, "cublasSgemmStridedBatched"));
    c.dgemm = reinterpret_cast<decltype(c.dgemm)>(dlsym(lib, "cublasDgemmStridedBatched"));
    c.gemmEx = reinterpret_cast<decltype(c.gemmEx)>(dlsym(lib, "cublasGemmStridedBatchedEx"));
    if (!c.create || !c.setStream || !c.sgemm || !c.dgemm || !c.gemmEx)
      c.error = "the cuBLAS found lacks the strided batched GEMMs";
    return c;
  }();
  return loaded;
}

/// The handle of `gpu`, bound to its stream; created on first use.
cublasHandle_t handleOf(CudaPlatform *gpu) {
  static std::mutex mutex;
  static std::map<CudaPlatform *, cublasHandle_t> handles;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = handles.emplace(gpu, nullptr);
  if (inserted) {
    if (cublas().create(&it->second) != CUBLAS_STATUS_SUCCESS ||
        cublas().setStream(it->second, reinterpret_cast<cudaStream_t>(gpu->stream())) !=
            CUBLAS_STATUS_SUCCESS)
      it->second = nullptr;
  }
  return it->second;
}

/// Runs C = A B (+ beta C) as cuBLAS's column-major C^T = B^T A^T, `outer` times: A and B
/// hold `In`, C and the scalars `Out`.
template <typename In, typename Out, typename Gemm>
void gemm(Gemm call, const char *type, int64_t batch, int64_t m, int64_t n, int64_t k,
          int64_t a, int64_t aOffset, int64_t lda, int64_t aStride, int64_t b, int64_t bOffset,
          int64_t ldb, int64_t bStride, int64_t c, int64_t cOffset, int64_t ldc,
          int64_t cStride, int64_t beta, int64_t transposeA, int64_t transposeB, int64_t outer,
          int64_t aOuter, int64_t bOuter, int64_t cOuter) {
  CudaPlatform *gpu = CudaPlatform::current();
  if (!gpu || gpu->failed())
    return;
  // Built only for a message or a timed span: this runs for every product of every step.
  auto shape = [&] {
    return std::string(type) + " GEMM [" + std::to_string(outer) + " x " +
           std::to_string(batch) + " x " + std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(k) + (transposeA ? ", A^T" : "") + (transposeB ? ", B^T" : "") + "]";
  };
  auto what = [&] { return gpu->description() + ": " + shape(); };
  if (!cublas().error.empty())
    return gpu->fail(Status::error(StatusCode::Unavailable, what() + ": " + cublas().error));
  cublasHandle_t handle = handleOf(gpu);
  if (!handle)
    return gpu->fail(Status::error(StatusCode::Internal, what() + ": cublasCreate failed"));
  CudaKernelTimes::Span span(gpu, CudaKernelTimes::enabled() ? "cuBLAS " + shape() : "");
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the operands swap.
  const Out one = 1, betaValue = static_cast<Out>(beta);
  // C's outer stride 0: the outer products sum into C (beta for the first), in stream order.
  auto betaOf = [&](int64_t o) { return cOuter == 0 && o > 0 ? &one : &betaValue; };
  const In *pa = reinterpret_cast<const In *>(a) + aOffset;
  const In *pb = reinterpret_cast<const In *>(b) + bOffset;
  Out *pc = reinterpret_cast<Out *>(c) + cOffset;
  // An outer batch (two batch dims that are not one) is one strided batched call per index.
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  for (int64_t o = 0; o < outer && status == CUBLAS_STATUS_SUCCESS; ++o)
    status = call(handle, transposeB ? CUBLAS_OP_T : CUBLAS_OP_N,
                  transposeA ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
                  static_cast<int>(m), static_cast<int>(k), &one, pb + o * bOuter,
                  static_cast<int>(ldb), bStride, pa + o * aOuter, static_cast<int>(lda),
                  aStride, betaOf(o), pc + o * cOuter, static_cast<int>(ldc), cStride,
                  static_cast<int>(batch));
  if (status != CUBLAS_STATUS_SUCCESS)
    gpu->fail(Status::error(StatusCode::Internal,
                            what() + ": cuBLAS error " + std::to_string(static_cast<int>(status))));
}

} // namespace

extern "C" void loom_rt_gpu_gemm_f32(LOOM_GEMM_PARAMETERS) {
  gemm<float, float>(cublas().sgemm, "f32", LOOM_GEMM_ARGUMENTS);
}

extern "C" void loom_rt_gpu_gemm_f64(LOOM_GEMM_PARAMETERS) {
  gemm<double, double>(cublas().dgemm, "f64", LOOM_GEMM_ARGUMENTS);
}

namespace {
/// cublasGemmStridedBatchedEx with 16-bit A and B (`type`), f32 C and f32 accumulation: the
/// tensor cores' products, in the signature of cublasSgemmStridedBatched.
template <cudaDataType type>
cublasStatus_t gemm16(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m,
                      int n, int k, const float *alpha, const uint16_t *a, int lda,
                      long long strideA, const uint16_t *b, int ldb, long long strideB,
                      const float *beta, float *c, int ldc, long long strideC, int batch) {
  return cublas().gemmEx(handle, ta, tb, m, n, k, alpha, a, type, lda, strideA, b, type, ldb,
                         strideB, beta, c, CUDA_R_32F, ldc, strideC, batch, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT);
}
} // namespace

extern "C" void loom_rt_gpu_gemm_bf16_f32(LOOM_GEMM_PARAMETERS) {
  gemm<uint16_t, float>(gemm16<CUDA_R_16BF>, "bf16", LOOM_GEMM_ARGUMENTS);
}

extern "C" void loom_rt_gpu_gemm_f16_f32(LOOM_GEMM_PARAMETERS) {
  gemm<uint16_t, float>(gemm16<CUDA_R_16F>, "f16", LOOM_GEMM_ARGUMENTS);
}
