// The GPU attention kernels the build embeds in the runtime (runtime/CudaAttention.h). They
// run only on a GPU (loom-gpu-replay compares them with the CPU's recordings); here, that
// nvcc's fatbin is there and holds every kernel the runtime looks up.
#include "runtime/CudaAttention.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

TEST(CudaAttention, TheRuntimeEmbedsAFatbinOfEveryKernel) {
  ASSERT_GT(loomAttentionFatbinSize, 1000u);
  uint32_t magic;
  std::memcpy(&magic, loomAttentionFatbin, sizeof magic);
  EXPECT_EQ(magic, 0xBA55ED50u) << "not a fatbin (fatbinary's magic number)";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(loomAttentionFatbin) % 64, 0u);
  std::string bytes(reinterpret_cast<const char *>(loomAttentionFatbin), loomAttentionFatbinSize);
  for (const char *kernel : {"loom_attention_forward_", "loom_attention_grad_query_",
                             "loom_attention_grad_key_value_"})
    for (const char *threads : {"1", "2", "4"})
      EXPECT_NE(bytes.find(std::string(kernel) + threads), std::string::npos)
          << kernel << threads;
  EXPECT_NE(bytes.find("loom_attention_delta"), std::string::npos);
  // SASS for the chips the compiler targets (sm_80, sm_90): their ELF headers.
  EXPECT_NE(bytes.find("\x7f" "ELF"), std::string::npos);
}

} // namespace
