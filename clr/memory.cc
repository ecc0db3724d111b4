#include "clr/memory.h"

#include <utility>

#include "base/log.h"

namespace hipmem::clr {

Memory::~Memory() {
  if (runtime_ == nullptr) return;
  if (absl::Status s = runtime_->Free(desc_.range.base); !s.ok()) HIPMEM_LOG(kError, "freeing memory object: ", s.message());
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
  return runtime->Free(desc_.range.base);
}

}  // namespace hipmem::clr
