#include "testing/kfd_sim/user_memory.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hipmem::kfd_sim {
namespace {

enum class Direction { kRead, kWrite };

// Moves `size` bytes between `local` and the user address `user`. Returns 1 on success, 0 on a fault,
// and -1 when the syscall itself is unavailable.
int VmCopy(Direction direction, void* local, uint64_t user, size_t size) {
  iovec local_iov{local, size};
  iovec remote_iov{reinterpret_cast<void*>(static_cast<uintptr_t>(user)), size};
  const ssize_t n = direction == Direction::kRead
                        ? process_vm_readv(getpid(), &local_iov, 1, &remote_iov, 1, 0)
                        : process_vm_writev(getpid(), &local_iov, 1, &remote_iov, 1, 0);
  if (n == static_cast<ssize_t>(size)) return 1;
  // A short count means a later page faulted; copy_*_user reports that as a failure too.
  if (n >= 0 || errno == EFAULT) return 0;
  return errno == ENOSYS || errno == EPERM ? -1 : 0;
}

bool Copy(Direction direction, void* local, uint64_t user, size_t size) {
  if (size == 0) return true;
  const int r = VmCopy(direction, local, user, size);
  if (r >= 0) return r == 1;
  // Syscall unavailable: we can only catch the null pointer.
  if (user == 0) return false;
  void* user_ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(user));
  if (direction == Direction::kRead) {
    std::memcpy(local, user_ptr, size);
  } else {
    std::memcpy(user_ptr, local, size);
  }
  return true;
}

}  // namespace

bool CopyFromUser(void* dst, uint64_t user_src, size_t size) {
  return Copy(Direction::kRead, dst, user_src, size);
}

bool CopyToUser(uint64_t user_dst, const void* src, size_t size) {
  return Copy(Direction::kWrite, const_cast<void*>(src), user_dst, size);
}

}  // namespace hipmem::kfd_sim
