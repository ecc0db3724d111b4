#include "clr/memory.h"

#include <utility>

#include <sys/mman.h>

#include "base/log.h"
#include "hsa/memory.h"
#include "hsa/svm.h"

namespace hipmem::clr {

namespace {

absl::Status Release(hsa::Runtime& runtime, std::optional<hsa::PoolAllocation>& allocation,
                     std::optional<hsa::HostLock>& lock, const MemoryDesc& desc) {
  if (allocation.has_value()) {
    absl::Status freed = std::move(*allocation).Free();
    allocation.reset();
    return freed;
  }
  if (lock.has_value()) {
    absl::Status unlocked = std::move(*lock).Unlock();
    lock.reset();
    return unlocked;
  }
  if (desc.kind == MemoryKind::kManaged) {
    // VRAM the range holds goes back first. The address space then stays reserved (PROT_NONE, no pages): the
    // simulated KFD, unlike the kernel's MMU notifier, keeps an SVM range after munmap, and a later GPU allocation
    // landing on that address would be refused as overlapping it (-EADDRINUSE).
    absl::Status released = hsa::ReleaseSvmRange(runtime, desc.range.base, desc.range.size);
    void* p = mmap(desc.range.base.ToPointer(), desc.range.size.raw(), PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED && released.ok()) released = absl::InternalError("releasing a managed buffer: mmap failed");
    return released;
  }
  return absl::InternalError("releasing a memory object: it owns nothing");
}

}  // namespace

Memory::~Memory() {
  if (runtime_ == nullptr) return;
  if (absl::Status s = Release(*runtime_, allocation_, lock_, desc_); !s.ok()) {
    HIPMEM_LOG(kError, "releasing memory object: ", s.message());
  }
}

Memory::Memory(Memory&& other) noexcept
    : runtime_(std::exchange(other.runtime_, nullptr)),
      allocation_(std::exchange(other.allocation_, std::nullopt)),
      lock_(std::exchange(other.lock_, std::nullopt)),
      desc_(other.desc_) {}

Memory& Memory::operator=(Memory&& other) noexcept {
  if (this != &other) {
    Memory old(std::move(*this));  // frees the old allocation when it goes out of scope
    runtime_ = std::exchange(other.runtime_, nullptr);
    allocation_ = std::exchange(other.allocation_, std::nullopt);
    lock_ = std::exchange(other.lock_, std::nullopt);
    desc_ = other.desc_;
  }
  return *this;
}

absl::Status Memory::Free() && {
  hsa::Runtime* runtime = std::exchange(runtime_, nullptr);
  if (runtime == nullptr) return absl::FailedPreconditionError("memory object already freed");
  return Release(*runtime, allocation_, lock_, desc_);
}

}  // namespace hipmem::clr
