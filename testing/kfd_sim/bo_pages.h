// The pages behind one simulated VRAM, GTT or doorbell buffer, and the engines' view of them.
//
// Plays the memory a BO's TTM pages live in. The CPU reaches them through its own MAP_SHARED mappings of
// the file (SimFile::MmapBo / MmapKfd); the simulated engines reach them through one more mapping. Both
// the file and the engines' mapping are made on first use: a buffer that nothing reads or writes (the
// common case for a buffer that is allocated, mapped to a GPU and freed again, or invisible VRAM no engine
// has touched yet) costs no system call. A file made late is as zeroed as one made at allocation, so
// nobody can tell the difference. Shared (std::shared_ptr) by the buffer and every GPU page-table entry
// that maps it, so a mapping an engine is using never disappears under it.
#ifndef HIPMEM_TESTING_KFD_SIM_BO_PAGES_H_
#define HIPMEM_TESTING_KFD_SIM_BO_PAGES_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/units.h"
#include "testing/kfd_sim/memfd.h"

namespace hipmem::kfd_sim {

// Thread-safe.
class BoPages {
 public:
  // `size` bytes of zeroed pages, named "kfd_sim <kind> gpu_id=0x<gpu_id>" once their file exists (as
  // /proc/self/fd shows it). `kind` must outlive the object (a string literal). Allocates nothing yet.
  BoPages(absl::string_view kind, uint32_t gpu_id, Bytes size) : kind_(kind), gpu_id_(gpu_id), size_(size) {}
  ~BoPages();
  BoPages(const BoPages&) = delete;
  BoPages& operator=(const BoPages&) = delete;

  Bytes size() const { return size_; }

  // Returns the descriptor of the backing file, creating it on the first call. Every call returns the same
  // file. Errors: MemFd::Create's (kResourceExhausted when out of descriptors or memory, ...); a later
  // call tries again.
  absl::StatusOr<int> File();

  // Returns whether the backing file exists, i.e. whether anything has asked for the pages.
  bool has_file() const;

  // The engines' view: the first byte of a MAP_SHARED read-write mapping of all the pages, made on the
  // first call (with the file, if need be). Null when that fails (descriptor or address-space
  // exhaustion); the caller treats it as a fault.
  std::byte* EngineView();

 private:
  absl::StatusOr<int> FileLocked();

  const absl::string_view kind_;
  const uint32_t gpu_id_;
  const Bytes size_;
  mutable std::mutex mu_;
  std::optional<MemFd> file_;  // guarded by mu_
  std::byte* view_ = nullptr;  // guarded by mu_
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_BO_PAGES_H_
