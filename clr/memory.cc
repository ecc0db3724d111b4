#include "clr/memory.h"

#include <utility>

#include "base/log.h"
#include "hsa/memory.h"

namespace hipmem::clr {

namespace {

absl::Status Release(hsa::Runtime& runtime, const MemoryDesc& desc) {
  if (desc.kind == MemoryKind::kRegistered) return runtime.memory().Unlock(desc.range.base.ToPointer());
  return runtime.Free(desc.range.base);
}

}  // namespace

Memory::~Memory() {
  if (runtime_ == nullptr) return;
  if (absl::Status s = Release(*runtime_, desc_); !s.ok()) HIPMEM_LOG(kError, "releasing memory object: ", s.message());
}

Memory::Memory(Memory&& other) noexcept : runtime_(std::exchange(other.runtime_, nullptr)), desc_(other.desc_) {}

Memory& Memory::operator=(Memory&& other) noexcept {
  if (this != &other) {
    Memory old(std::move(*this));  // frees the old allocation when it goes out of scope
    runtime_ = std::exchange(other.runtime_, nullptr);
    desc_ = other.desc_;
  }
  return *this;
}

absl::Status Memory::Free() && {
  hsa::Runtime* runtime = std::exchange(runtime_, nullptr);
  if (runtime == nullptr) return absl::FailedPreconditionError("memory object already freed");
  return Release(*runtime, desc_);
}

}  // namespace hipmem::clr
