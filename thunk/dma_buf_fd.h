// The owner of a dma-buf file descriptor (AMDKFD_IOC_EXPORT_DMABUF's dmabuf_fd).
//
// Plays the descriptor libhsakmt's hsaKmtExportDMABufHandle hands to its caller, which closes it when done (ROCr
// passes it to another process, or imports it back). The C shell gives it up with Release().
#ifndef HIPMEM_THUNK_DMA_BUF_FD_H_
#define HIPMEM_THUNK_DMA_BUF_FD_H_

#include <unistd.h>

#include <utility>

namespace hipmem::thunk {

// Owns one open descriptor; the destructor closes it. Thread-compatible.
class DmaBufFd {
 public:
  // Adopts `fd`, which must be an open descriptor the caller owns.
  static DmaBufFd Adopt(int fd) { return DmaBufFd(fd); }

  ~DmaBufFd() { Close(); }
  DmaBufFd(DmaBufFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  DmaBufFd& operator=(DmaBufFd&& other) noexcept {
    if (this != &other) {
      Close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  DmaBufFd(const DmaBufFd&) = delete;
  DmaBufFd& operator=(const DmaBufFd&) = delete;

  // The descriptor, borrowed; -1 once moved from or released.
  int get() const { return fd_; }

  // Gives up ownership: the caller closes the returned descriptor.
  [[nodiscard]] int Release() && { return std::exchange(fd_, -1); }

 private:
  explicit DmaBufFd(int fd) : fd_(fd) {}
  // close() cannot usefully fail here: the descriptor is gone either way on Linux.
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  int fd_;
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_DMA_BUF_FD_H_
