#include "testing/kfd_sim/bo_pages.h"

#include <sys/mman.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace hipmem::kfd_sim {

BoPages::~BoPages() {
  if (view_ != nullptr && munmap(view_, size_.raw()) != 0) {
    HIPMEM_LOG(kError, "munmap(engine view of ", size_.raw(), " B) failed: errno ", errno);
  }
}

absl::StatusOr<int> BoPages::FileLocked() {
  if (!file_.has_value()) {
    absl::StatusOr<MemFd> made = MemFd::Create(absl::StrCat("kfd_sim ", kind_, " gpu_id=0x", absl::Hex(gpu_id_)), size_);
    if (!made.ok()) return made.status();
    file_.emplace(*std::move(made));
  }
  return file_->fd();
}

absl::StatusOr<int> BoPages::File() {
  std::lock_guard<std::mutex> lock(mu_);
  return FileLocked();
}

bool BoPages::has_file() const {
  std::lock_guard<std::mutex> lock(mu_);
  return file_.has_value();
}

std::byte* BoPages::EngineView() {
  std::lock_guard<std::mutex> lock(mu_);
  if (view_ == nullptr) {
    const absl::StatusOr<int> fd = FileLocked();
    if (!fd.ok()) {
      HIPMEM_LOG(kError, "engine view of ", size_.raw(), " B: ", fd.status().message());
      return nullptr;
    }
    // NORESERVE: a 192 GiB buffer costs address space here, never memory, until an engine writes it.
    void* p = mmap(nullptr, size_.raw(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, *fd, 0);
    if (p == MAP_FAILED) {
      HIPMEM_LOG(kError, "mmap(engine view of ", size_.raw(), " B) failed: errno ", errno);
      return nullptr;
    }
    view_ = static_cast<std::byte*>(p);
  }
  return view_;
}

}  // namespace hipmem::kfd_sim
