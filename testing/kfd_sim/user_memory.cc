#include "testing/kfd_sim/user_memory.h"

#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hipmem::kfd_sim {
namespace {

std::atomic<pid_t> g_pid{0};

void RefreshPid() { g_pid.store(getpid(), std::memory_order_relaxed); }

enum class Direction { kRead, kWrite };

// Moves `size` bytes between `local` and the user address `user`. Returns 1 on success, 0 on a fault,
// and -1 when the syscall itself is unavailable.
int VmCopy(Direction direction, void* local, uint64_t user, size_t size) {
  iovec local_iov{local, size};
  iovec remote_iov{reinterpret_cast<void*>(static_cast<uintptr_t>(user)), size};
  const ssize_t n = direction == Direction::kRead
                        ? process_vm_readv(CurrentPid(), &local_iov, 1, &remote_iov, 1, 0)
                        : process_vm_writev(CurrentPid(), &local_iov, 1, &remote_iov, 1, 0);
  if (n == static_cast<ssize_t>(size)) return 1;
  // A short count means a later page faulted; copy_*_user reports that as a failure too.
  if (n >= 0 || errno == EFAULT) return 0;
  return errno == ENOSYS || errno == EPERM ? -1 : 0;
}

// The top of the calling thread's stack, found once per thread.
uint64_t StackTop() {
  thread_local const uint64_t top = [] {
    pthread_attr_t attr;
    void* base = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uint64_t{0};
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
    return reinterpret_cast<uint64_t>(base) + size;
  }();
  return top;
}

// True when [user, user + size) lies in the live part of the calling thread's stack: between this
// frame and the stack top, which is always mapped and writable. Callers almost always pass their
// ioctl argument struct from there, so it needs no fault-checked copy.
[[gnu::noinline]] bool OnLiveStack(uint64_t user, size_t size) {
  const uint64_t frame = reinterpret_cast<uint64_t>(__builtin_frame_address(0));
  const uint64_t top = StackTop();
  return user > frame && user + size >= user && user + size <= top;
}

// The window of RestrictUserMemoryTo: g_window_count ranges (0: no window). Relaxed atomics: the thread that sets it
// is the one whose ioctls read it; atomics only keep other threads' reads (none expected) defined.
std::atomic<size_t> g_window_count{0};
std::atomic<uint64_t> g_window_start[kMaxUserRanges];
std::atomic<uint64_t> g_window_end[kMaxUserRanges];

bool Copy(Direction direction, void* local, uint64_t user, size_t size) {
  if (size == 0) return true;
  // Before the stack shortcut: a pointer into the caller's own frames is outside any window a fuzzer sets.
  if (!UserRangeAllowed(user, size)) return false;
  if (OnLiveStack(user, size)) {
    void* user_ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(user));
    if (direction == Direction::kRead) {
      std::memcpy(local, user_ptr, size);
    } else {
      std::memcpy(user_ptr, local, size);
    }
    return true;
  }
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

pid_t CurrentPid() {
  static const bool registered = [] {
    RefreshPid();
    pthread_atfork(nullptr, nullptr, RefreshPid);
    return true;
  }();
  (void)registered;
  return g_pid.load(std::memory_order_relaxed);
}

void RestrictUserMemoryTo(std::span<const UserRange> ranges) {
  const size_t count = std::min(ranges.size(), kMaxUserRanges);
  g_window_count.store(0, std::memory_order_relaxed);
  for (size_t i = 0; i < count; ++i) {
    g_window_start[i].store(ranges[i].start, std::memory_order_relaxed);
    // A range that would wrap ends at the top of the address space.
    const uint64_t end = ranges[i].start + ranges[i].size;
    g_window_end[i].store(end < ranges[i].start ? UINT64_MAX : end, std::memory_order_relaxed);
  }
  g_window_count.store(count, std::memory_order_relaxed);
}

bool UserRangeAllowed(uint64_t start, uint64_t size) {
  const size_t count = g_window_count.load(std::memory_order_relaxed);
  if (count == 0) return true;
  const uint64_t end = start + size;
  if (end < start) return false;
  for (size_t i = 0; i < count; ++i) {
    if (start >= g_window_start[i].load(std::memory_order_relaxed) &&
        end <= g_window_end[i].load(std::memory_order_relaxed)) {
      return true;
    }
  }
  return false;
}

bool CopyFromUser(void* dst, uint64_t user_src, size_t size) {
  return Copy(Direction::kRead, dst, user_src, size);
}

bool CopyToUser(uint64_t user_dst, const void* src, size_t size) {
  return Copy(Direction::kWrite, const_cast<void*>(src), user_dst, size);
}

}  // namespace hipmem::kfd_sim
