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

namespace hipmem::kfd_sim {

// Copies `size` bytes from the user address `user_src` to `dst`. Returns false (the kernel's -EFAULT)
// when any of the source bytes cannot be read. A zero-byte copy always succeeds.
[[nodiscard]] bool CopyFromUser(void* dst, uint64_t user_src, size_t size);

// Copies `size` bytes from `src` to the user address `user_dst`. Returns false (-EFAULT) when any of
// the destination bytes cannot be written. A zero-byte copy always succeeds.
[[nodiscard]] bool CopyToUser(uint64_t user_dst, const void* src, size_t size);

// The calling process's pid without a system call (glibc no longer caches getpid()). Kept current
// across fork() by a pthread_atfork child handler, so a forked child sees its own pid.
pid_t CurrentPid();

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_USER_MEMORY_H_
