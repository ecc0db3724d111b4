// The backing store of one simulated VRAM or GTT buffer object: an anonymous memory file (memfd).
//
// Plays the pages TTM allocates behind an amdgpu BO. The file is sized with ftruncate, so nothing is
// committed until someone touches it; every CPU mapping of the BO (SimFile::MmapBo) maps this one file
// MAP_SHARED, which is what makes two mappings of the same BO see each other's writes.
#ifndef HIPMEM_TESTING_KFD_SIM_MEMFD_H_
#define HIPMEM_TESTING_KFD_SIM_MEMFD_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/units.h"

namespace hipmem::kfd_sim {

// Owns one memfd. Move-only; the destructor closes it (and logs a close error). Thread-compatible.
// Closing the file does not unmap it: existing CPU mappings keep the pages alive, as a DRM mapping
// keeps a freed BO alive in the kernel.
class MemFd {
 public:
  // Creates a memfd named `name` (shown in /proc/self/fd) of `size` bytes, close-on-exec.
  // Errors: the errno of memfd_create or ftruncate through absl::ErrnoToStatus (kResourceExhausted for
  // ENOMEM/EMFILE, kInvalidArgument for a size the kernel refuses, ...). Nothing leaks on failure.
  static absl::StatusOr<MemFd> Create(absl::string_view name, Bytes size);
  // Takes ownership of `fd`, an open memory file of `size` bytes made elsewhere (another process's, received over
  // a socket). Never fails; the destructor closes it.
  static MemFd Adopt(int fd, Bytes size) { return MemFd(fd, size); }

  // An empty owner (fd() -1), to be assigned.
  MemFd() = default;
  MemFd(const MemFd&) = delete;
  MemFd& operator=(const MemFd&) = delete;
  MemFd(MemFd&& other) noexcept;
  MemFd& operator=(MemFd&& other) noexcept;
  ~MemFd();

  // The file descriptor, or -1 once moved from or closed.
  int fd() const { return fd_; }
  Bytes size() const { return size_; }

  // Closes the file now and reports close()'s error; the object is empty afterwards.
  absl::Status Close() &&;

 private:
  MemFd(int fd, Bytes size) : fd_(fd), size_(size) {}

  int fd_ = -1;
  Bytes size_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_MEMFD_H_
