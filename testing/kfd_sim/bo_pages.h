// The pages behind one simulated VRAM, GTT or doorbell buffer, and the engines' view of them.
//
// Plays the memory a BO's TTM pages live in. The CPU reaches them through its own MAP_SHARED mappings of
// the file (SimFile::MmapBo / MmapKfd); the simulated engines reach them through one more mapping, made
// on first use so that a buffer no engine touches costs no mmap. Shared (std::shared_ptr) by the buffer
// and every GPU page-table entry that maps it, so a mapping an engine is using never disappears under it.
#ifndef HIPMEM_TESTING_KFD_SIM_BO_PAGES_H_
#define HIPMEM_TESTING_KFD_SIM_BO_PAGES_H_

#include <cstddef>
#include <mutex>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/units.h"
#include "testing/kfd_sim/memfd.h"

namespace hipmem::kfd_sim {

// Thread-safe.
class BoPages {
 public:
  // Creates `size` bytes of zeroed, uncommitted pages. Errors: MemFd::Create's.
  static absl::StatusOr<std::shared_ptr<BoPages>> Create(absl::string_view name, Bytes size);

  explicit BoPages(MemFd file) : file_(std::move(file)) {}
  ~BoPages();
  BoPages(const BoPages&) = delete;
  BoPages& operator=(const BoPages&) = delete;

  int fd() const { return file_.fd(); }
  Bytes size() const { return file_.size(); }

  // The engines' view: the first byte of a MAP_SHARED read-write mapping of all the pages, made on the
  // first call. Null when that mmap fails (address-space exhaustion); the caller treats it as a fault.
  std::byte* EngineView();

 private:
  const MemFd file_;
  std::mutex mu_;
  std::byte* view_ = nullptr;  // guarded by mu_
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_BO_PAGES_H_
