// The GPU's view of memory, as the simulated engines see it: one GPU's page table in one process.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GPU_MEMORY_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GPU_MEMORY_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

namespace hipmem::kfd_sim {

// Thread-safe. An engine brackets every packet's accesses with an AccessScope: while one is open the page
// table does not change under it (the simulator's UNMAP and FREE wait for open scopes, as the kernel waits
// for a VM's fences before it tears a mapping down). Never hold a scope while sleeping on something that
// only another ioctl could satisfy.
class GpuMemory {
 public:
  struct Span {
    void* host;      // where the engine reads or writes the first byte
    uint64_t bytes;  // how many following bytes are contiguous there (> 0)
  };

  virtual ~GpuMemory() = default;

  // Returns the host bytes behind `va`, at most `bytes` of them, or nullopt when `va` is not mapped
  // in this GPU's page table (a VM fault). Call only inside an AccessScope.
  virtual std::optional<Span> Translate(uint64_t va, uint64_t bytes) = 0;

  class AccessScope {
   public:
    explicit AccessScope(GpuMemory* memory) : memory_(memory) { memory_->BeginAccess(); }
    ~AccessScope() { memory_->EndAccess(); }
    AccessScope(const AccessScope&) = delete;
    AccessScope& operator=(const AccessScope&) = delete;

   private:
    GpuMemory* const memory_;
  };

 protected:
  virtual void BeginAccess() {}
  virtual void EndAccess() {}
};

// Copies `bytes` bytes at GPU VA `va` into `out`, across mapping boundaries. Call inside an AccessScope. Returns
// the first unmapped VA when the range is not entirely mapped (a VM fault); `out` is then partly written.
inline std::optional<uint64_t> ReadGpu(GpuMemory* memory, uint64_t va, void* out, uint64_t bytes) {
  auto* dst = static_cast<unsigned char*>(out);
  while (bytes > 0) {
    std::optional<GpuMemory::Span> span = memory->Translate(va, bytes);
    if (!span.has_value()) return va;
    const uint64_t n = std::min(span->bytes, bytes);
    std::memcpy(dst, span->host, n);
    dst += n;
    va += n;
    bytes -= n;
  }
  return std::nullopt;
}

// The host address of the naturally aligned T at `va`, or null when it is not mapped. Call inside an
// AccessScope.
template <typename T>
T* TranslateWord(GpuMemory* memory, uint64_t va) {
  std::optional<GpuMemory::Span> span = memory->Translate(va, sizeof(T));
  if (!span.has_value() || span->bytes < sizeof(T)) return nullptr;
  return static_cast<T*>(span->host);
}

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GPU_MEMORY_H_
