#include "testing/kfd_sim/bo_pages.h"

#include <sys/mman.h>

#include <cerrno>
#include <memory>
#include <utility>

#include "base/log.h"

namespace hipmem::kfd_sim {

absl::StatusOr<std::shared_ptr<BoPages>> BoPages::Create(absl::string_view name, Bytes size) {
  absl::StatusOr<MemFd> file = MemFd::Create(name, size);
  if (!file.ok()) return file.status();
  return std::make_shared<BoPages>(*std::move(file));
}

BoPages::~BoPages() {
  if (view_ != nullptr && munmap(view_, size().raw()) != 0) {
    HIPMEM_LOG(kError, "munmap(engine view of ", size().raw(), " B) failed: errno ", errno);
  }
}

std::byte* BoPages::EngineView() {
  std::lock_guard<std::mutex> lock(mu_);
  if (view_ == nullptr) {
    // NORESERVE: a 192 GiB buffer costs address space here, never memory, until an engine writes it.
    void* p = mmap(nullptr, size().raw(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd(), 0);
    if (p == MAP_FAILED) {
      HIPMEM_LOG(kError, "mmap(engine view of ", size().raw(), " B) failed: errno ", errno);
      return nullptr;
    }
    view_ = static_cast<std::byte*>(p);
  }
  return view_;
}

}  // namespace hipmem::kfd_sim
