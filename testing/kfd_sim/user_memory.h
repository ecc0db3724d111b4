// copy_from_user / copy_to_user for a kernel that runs inside the calling process.
//
// The simulator receives user pointers exactly as the kernel does (the ioctl argument, the device-id array
// of MAP_MEMORY_TO_GPU, the aperture array of GET_PROCESS_APERTURES_NEW). A bad one must fail with -EFAULT,
// not crash the test, so these copy through process_vm_readv/process_vm_writev on our own pid, which
// report EFAULT for unmapped or unwritable memory. Where those syscalls are unavailable (seccomp), they
// fall back to a plain memcpy that still refuses a null pointer.
#ifndef HIPMEM_TESTING_KFD_SIM_USER_MEMORY_H_
#define HIPMEM_TESTING_KFD_SIM_USER_MEMORY_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace hipmem::kfd_sim {

// Copies `size` bytes from the user address `user_src` to `dst`. Returns false (the kernel's -EFAULT)
// when any of the source bytes cannot be read. A zero-byte copy always succeeds.
[[nodiscard]] bool CopyFromUser(void* dst, uint64_t user_src, size_t size);

// Copies `size` bytes from `src` to the user address `user_dst`. Returns false (-EFAULT) when any of
// the destination bytes cannot be written. A zero-byte copy always succeeds.
[[nodiscard]] bool CopyToUser(uint64_t user_dst, const void* src, size_t size);

// A range of user addresses.
struct UserRange {
  uint64_t start = 0;
  uint64_t size = 0;
};

// For fuzzing the ioctl entry (//testing/kfd_sim:ioctl_fuzzer) only. The kernel reads and writes whatever its caller
// has mapped, and so does the simulator; a fuzzer's random pointers would then land in the fuzzer's own heap, stack
// and bookkeeping, and what it found would be the corruption it caused itself. With a window set, every user
// address outside `ranges` counts as unmapped: CopyFromUser/CopyToUser fail (-EFAULT), as do a USERPTR allocation's
// page probe and the SVM range checks (UserRangeAllowed). An empty span lifts the window. Ranges past the first
// kMaxUserRanges are ignored. Set it from the one thread that issues the ioctls it is meant for.
inline constexpr size_t kMaxUserRanges = 4;
void RestrictUserMemoryTo(std::span<const UserRange> ranges);

// Whether [start, start + size) may be treated as user memory: always, unless a window is set
// (RestrictUserMemoryTo), and then only when one of its ranges holds all of it.
bool UserRangeAllowed(uint64_t start, uint64_t size);

// The calling process's pid without a system call (glibc no longer caches getpid()). Kept current
// across fork() by a pthread_atfork child handler, so a forked child sees its own pid.
pid_t CurrentPid();

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_USER_MEMORY_H_
