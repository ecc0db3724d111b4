#include "testing/kfd_sim/memfd.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/units.h"

namespace hipmem::kfd_sim {
namespace {

absl::Status CloseFd(int fd) {
  if (fd < 0) return absl::OkStatus();
  // close() releases the descriptor even when it reports an error; never retry it.
  if (close(fd) != 0) return absl::ErrnoToStatus(errno, absl::StrCat("close(memfd ", fd, ")"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MemFd> MemFd::Create(absl::string_view name, Bytes size) {
  const std::string name_str(name);
  const int fd = memfd_create(name_str.c_str(), MFD_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("memfd_create(", name, ")"));
  MemFd file(fd, size);  // adopt now: every return below closes it
  if (size.raw() > static_cast<uint64_t>(INT64_MAX)) {
    return absl::InvalidArgumentError(absl::StrCat("MemFd::Create(", name, ", size=", size.raw(), "): size does not fit off_t"));
  }
  if (ftruncate(fd, static_cast<off_t>(size.raw())) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("ftruncate(", name, ", ", size.raw(), ")"));
  }
  return file;
}

MemFd::MemFd(MemFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)), size_(std::exchange(other.size_, Bytes())) {}

MemFd& MemFd::operator=(MemFd&& other) noexcept {
  if (this != &other) {
    if (absl::Status s = CloseFd(std::exchange(fd_, -1)); !s.ok()) HIPMEM_LOG(kError, s.ToString());
    fd_ = std::exchange(other.fd_, -1);
    size_ = std::exchange(other.size_, Bytes());
  }
  return *this;
}

MemFd::~MemFd() {
  if (absl::Status s = CloseFd(fd_); !s.ok()) HIPMEM_LOG(kError, s.ToString());
}

absl::Status MemFd::Close() && {
  size_ = Bytes();
  return CloseFd(std::exchange(fd_, -1));
}

}  // namespace hipmem::kfd_sim
