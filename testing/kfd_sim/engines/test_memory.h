// A GpuMemory for engine tests and benchmarks: GPU VA == host address, and only ranges that were
// Map()ped translate; everything else is a VM fault. Thread-safe.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_TEST_MEMORY_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_TEST_MEMORY_H_

#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>

#include "testing/kfd_sim/engines/gpu_memory.h"

namespace hipmem::kfd_sim {

class IdentityPageTable final : public GpuMemory {
 public:
  void Map(const void* host, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    ranges_[reinterpret_cast<uint64_t>(host)] = bytes;
  }
  void Unmap(const void* host) {
    std::lock_guard<std::mutex> lock(mu_);
    ranges_.erase(reinterpret_cast<uint64_t>(host));
  }
  std::optional<Span> Translate(uint64_t va, uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ranges_.upper_bound(va);
    if (it == ranges_.begin()) return std::nullopt;
    --it;
    if (va - it->first >= it->second) return std::nullopt;
    const uint64_t left = it->second - (va - it->first);
    return Span{reinterpret_cast<void*>(va), left < bytes ? left : bytes};
  }

 private:
  std::mutex mu_;
  std::map<uint64_t, uint64_t> ranges_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_TEST_MEMORY_H_
