#include "testing/kfd_sim/bo_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "testing/kfd_sim/host/fault_hook.h"

namespace hipmem::kfd_sim {

// ---- PageFile ----

PageFile::~PageFile() {
  std::lock_guard<std::mutex> lock(mu_);
  PunchLocked();
}

std::shared_ptr<PageFile> PageFile::Borrow(std::string name, MemFd file, std::shared_ptr<const void> keepalive) {
  auto borrowed = std::make_shared<PageFile>(std::move(name));
  borrowed->borrowed_ = true;
  borrowed->keepalive_ = std::move(keepalive);
  borrowed->file_.emplace(std::move(file));
  return borrowed;
}

std::optional<uint64_t> PageFile::Take(Bytes size) {
  if (borrowed_) return std::nullopt;  // the owner hands out its offsets
  std::lock_guard<std::mutex> lock(mu_);
  if (size.raw() > kSpan.raw() - next_offset_) return std::nullopt;
  const uint64_t offset = next_offset_;
  next_offset_ += size.raw();
  return offset;
}

absl::StatusOr<int> PageFile::fd() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!file_.has_value()) {
    // The page file is the simulator's large host backing (the kernel's page allocations): a host without it is out
    // of memory, as a test makes it (fault_hook.h).
    if (const int fault = InjectedFault(KernelEntry::kHostAllocation); fault != 0) {
      return absl::ErrnoToStatus(fault, absl::StrCat("memfd for ", name_, " (injected)"));
    }
    absl::StatusOr<MemFd> made = MemFd::Create(name_, kSpan);
    if (!made.ok()) return made.status();
    file_.emplace(*std::move(made));
  }
  return file_->fd();
}

bool PageFile::has_file() const {
  std::lock_guard<std::mutex> lock(mu_);
  return file_.has_value();
}

void PageFile::Discard(uint64_t offset, Bytes size) {
  if (borrowed_) return;  // the owner's pages: it punches them when its own holders are gone
  std::lock_guard<std::mutex> lock(mu_);
  if (!file_.has_value() || size.is_zero()) return;  // nothing was ever written
  uint64_t start = offset;
  uint64_t end = offset + size.raw();
  // Buffers freed in allocation order (the usual alloc/free loop) sit end to end: merged, a whole batch is
  // one punch.
  if (auto next = pending_.find(end); next != pending_.end()) {
    end = next->second;
    pending_.erase(next);
  }
  if (auto prev = pending_.lower_bound(start); prev != pending_.begin()) {
    --prev;
    if (prev->second == start) {
      start = prev->first;
      pending_.erase(prev);
    }
  }
  pending_.emplace(start, end);
  pending_bytes_ += size.raw();
  if (pending_bytes_ >= kDiscardBatch.raw() || pending_.size() > kMaxPendingRanges) PunchLocked();
}

Bytes PageFile::pending_discard() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Bytes(pending_bytes_);
}

void PageFile::PunchLocked() {
  for (const auto& [range_start, end] : pending_) {
    // Only from the first page that holds data: a range nobody wrote (a buffer the CPU and the engines never
    // touched, as most large ones are) has no pages to give back, and punching it would still cost a walk of
    // its CPU mappings' page tables (the kernel zaps them), as long as the buffer was. A stale mapping reads
    // zeroes from a hole either way. Errors other than "no data past here" (ENXIO) fall back to punching it all.
    uint64_t start = range_start;
    if (const off_t data = lseek(file_->fd(), static_cast<off_t>(start), SEEK_DATA); data >= 0) {
      if (static_cast<uint64_t>(data) >= end) continue;
      start = static_cast<uint64_t>(data);  // a page boundary: shmem tracks data by page
    } else if (errno == ENXIO) {
      continue;
    }
    // KEEP_SIZE is required with PUNCH_HOLE; the file's size is its offset space and never changes.
    if (fallocate(file_->fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(start),
                  static_cast<off_t>(end - start)) != 0) {
      // Only the memory is lost until the file closes: the range is never handed out again.
      HIPMEM_LOG(kError, "fallocate(", name_, ", PUNCH_HOLE, 0x", absl::Hex(start), ", ", end - start,
                 " B) failed: errno ", errno);
    }
  }
  pending_.clear();
  pending_bytes_ = 0;
}

// ---- BoPages ----

absl::StatusOr<std::shared_ptr<BoPages>> BoPages::Create(std::shared_ptr<PageFile> file, Bytes size) {
  const std::optional<uint64_t> offset = file->Take(size);
  if (!offset) {
    return absl::ResourceExhaustedError(absl::StrCat("BoPages::Create(size=", size.raw(), "): page file offsets used up"));
  }
  return std::make_shared<BoPages>(Key{}, std::move(file), *offset, size);
}

std::shared_ptr<BoPages> BoPages::Borrow(std::shared_ptr<PageFile> file, uint64_t offset, Bytes size) {
  return std::make_shared<BoPages>(Key{}, std::move(file), offset, size);
}

BoPages::~BoPages() {
  if (std::byte* view = view_.load(std::memory_order_relaxed); view != nullptr && munmap(view, size_.raw()) != 0) {
    HIPMEM_LOG(kError, "munmap(engine view of ", size_.raw(), " B) failed: errno ", errno);
  }
  if (touched_) file_->Discard(offset_, size_);
}

absl::StatusOr<BoPages::FileRange> BoPages::File() {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<int> fd = file_->fd();
  if (!fd.ok()) return fd.status();
  touched_ = true;
  return FileRange{.fd = *fd, .offset = offset_};
}

bool BoPages::touched() const {
  std::lock_guard<std::mutex> lock(mu_);
  return touched_;
}

std::byte* BoPages::EngineView() {
  if (std::byte* view = view_.load(std::memory_order_acquire); view != nullptr) return view;
  std::lock_guard<std::mutex> lock(mu_);
  if (view_.load(std::memory_order_relaxed) == nullptr) {
    const absl::StatusOr<int> fd = file_->fd();
    if (!fd.ok()) {
      HIPMEM_LOG(kError, "engine view of ", size_.raw(), " B: ", fd.status().message());
      return nullptr;
    }
    touched_ = true;
    // NORESERVE: a 192 GiB buffer costs address space here, never memory, until an engine writes it.
    void* p = mmap(nullptr, size_.raw(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, *fd,
                   static_cast<off_t>(offset_));
    if (p == MAP_FAILED) {
      HIPMEM_LOG(kError, "mmap(engine view of ", size_.raw(), " B) failed: errno ", errno);
      return nullptr;
    }
    // The view stands for the kernel's own access to the buffer, which a forked child of the process does not
    // inherit: without this the child would hold a writable shared mapping of its parent's GPU memory.
    (void)madvise(p, size_.raw(), MADV_DONTFORK);
    view_.store(static_cast<std::byte*>(p), std::memory_order_release);
  }
  return view_.load(std::memory_order_relaxed);
}

}  // namespace hipmem::kfd_sim
