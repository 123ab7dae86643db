// Which of the runtime's hand-written float kernels this CPU runs. The small products and
// transposes (SmallGemm.h) and attention's row passes (AttentionRows.h) each come as an
// AVX-512 version, an AVX2 one (with FMA) and a portable fallback (OpenBLAS, plain loops);
// one choice holds for all of them, and tests force it to run every path on one machine.
#ifndef LOOM_RUNTIME_CPUKERNELS_H
#define LOOM_RUNTIME_CPUKERNELS_H

#include <optional>

/// The target of a function holding AVX-512 code in a file built for the baseline CPU: it is
/// called only where cpuKernels() chose AVX-512 (the AVX2 ones' is LOOM_AVX2, Avx2Lanes.h).
#define LOOM_AVX512 gnu::target("avx512f")

/// A function compiled once per instruction set, the clone picked by an ifunc resolver as the
/// program is relocated. Under ThreadSanitizer that resolver would run before the sanitizer's
/// runtime is up and crash, so its builds keep the default clone alone.
#if defined(__SANITIZE_THREAD__)
#define LOOM_TARGET_CLONES(...)
#else
#define LOOM_TARGET_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#endif

namespace loom::rt {

enum class CpuKernels { Avx512, Avx2, Portable };

/// The best kernels this CPU has, unless a test forced others.
CpuKernels cpuKernels();

/// Whether this CPU can run `kernels`.
bool cpuSupports(CpuKernels kernels);

namespace detail {
/// Makes cpuKernels() return `kernels`, which the CPU must support, or choose by the CPU
/// again (nullopt).
void forceCpuKernels(std::optional<CpuKernels> kernels);
} // namespace detail

} // namespace loom::rt

#endif // LOOM_RUNTIME_CPUKERNELS_H
