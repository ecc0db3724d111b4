// The baseline the engine benchmarks are measured against: a single-thread memcpy between two page-aligned,
// already committed buffers of the same size as the engine's copy.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_MEMCPY_BASELINE_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_MEMCPY_BASELINE_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "benchmark/benchmark.h"

namespace hipmem::kfd_sim {

// A source and a destination of `bytes` each, 4 KiB aligned, both touched so no page fault lands in a timing.
struct CopyBuffers {
  explicit CopyBuffers(size_t bytes)
      : size(bytes),
        src(static_cast<uint8_t*>(std::aligned_alloc(4096, bytes))),
        dst(static_cast<uint8_t*>(std::aligned_alloc(4096, bytes))) {
    std::memset(src, 1, bytes);
    std::memset(dst, 0, bytes);
  }
  ~CopyBuffers() {
    std::free(src);
    std::free(dst);
  }
  CopyBuffers(const CopyBuffers&) = delete;
  CopyBuffers& operator=(const CopyBuffers&) = delete;

  size_t size;
  uint8_t* src;
  uint8_t* dst;
};

// Register with BENCHMARK(BM_Memcpy)->Arg(bytes)...; the ratio goals name it "BM_Memcpy/<bytes>/real_time".
inline void BM_Memcpy(benchmark::State& state) {
  CopyBuffers b(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    std::memcpy(b.dst, b.src, b.size);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_MEMCPY_BASELINE_H_
