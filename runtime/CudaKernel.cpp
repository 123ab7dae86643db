// Loading and launching the GPU pipeline's kernels (see CudaKernel.h).
#include "runtime/CudaKernel.h"

#include <cstring>

namespace loom::rt {

std::string cubinFromIr(const std::string &ir, const std::string &name) {
  size_t at = ir.find("gpu.binary @" + name + " ");
  if (at == std::string::npos || (at = ir.find("bin = \"", at)) == std::string::npos)
    return "";
  std::string bytes;
  for (size_t i = at + 7; i < ir.size() && ir[i] != '"'; ++i) {
    if (ir[i] != '\\') {
      bytes += ir[i];
    } else if (i + 1 < ir.size() && ir[i + 1] == '\\') {
      bytes += '\\', ++i;
    } else if (i + 2 < ir.size()) {
      bytes += static_cast<char>(std::stoi(ir.substr(i + 1, 2), nullptr, 16));
      i += 2;
    }
  }
  return bytes;
}

StatusOr<CudaKernel> CudaKernel::load(const CudaDriver &cuda, const std::string &cubin,
                                      const std::string &function) {
  if (cubin.empty())
    return Status::error(StatusCode::InvalidArgument, "no cubin for kernel " + function);
  CUmodule module;
  if (Status s = cuda.check(cuda.moduleLoadData(&module, cubin.data()), "loading a cubin");
      !s.isOk())
    return s;
  CudaKernel k;
  k.cuda = &cuda;
  if (Status s = cuda.check(cuda.moduleGetFunction(&k.function, module, function.c_str()),
                            "finding kernel " + function);
      !s.isOk())
    return s;
  return k;
}

Status CudaKernel::launch(std::array<unsigned, 3> blocks, std::array<unsigned, 3> threads,
                          const std::vector<CudaArg> &args) const {
  std::vector<int64_t> words;
  for (const CudaArg &a : args) {
    if (auto *i = std::get_if<int64_t>(&a)) {
      words.push_back(*i);
    } else if (auto *f = std::get_if<float>(&a)) {
      int64_t w = 0; // an f32 parameter is 4 bytes; the rest of the word is never read
      std::memcpy(&w, f, 4);
      words.push_back(w);
    } else {
      const CudaBuffer &b = std::get<CudaBuffer>(a);
      words.push_back(static_cast<int64_t>(b.ptr));
      words.push_back(static_cast<int64_t>(b.ptr));
      words.push_back(0);
      words.insert(words.end(), b.shape.begin(), b.shape.end());
      std::vector<int64_t> strides(b.shape.size());
      int64_t stride = 1;
      for (size_t d = b.shape.size(); d-- > 0; stride *= b.shape[d])
        strides[d] = stride;
      words.insert(words.end(), strides.begin(), strides.end());
    }
  }
  std::vector<void *> params;
  for (int64_t &w : words)
    params.push_back(&w);
  return cuda->check(cuda->launchKernel(function, blocks[0], blocks[1], blocks[2], threads[0],
                                        threads[1], threads[2], 0, nullptr, params.data(),
                                        nullptr),
                     "cuLaunchKernel");
}

} // namespace loom::rt
