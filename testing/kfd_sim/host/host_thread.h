// The simulator's own threads (engine threads, compute units, copy workers, the doorbell and userfaultfd watchers,
// the IPC server): started here, so a host that cannot start one is an error the caller turns into the failure of the
// ioctl that needed it, never an exception (std::thread throws std::system_error when pthread_create fails) and
// never a thread a queue waits for that does not exist.
//
// Decision: the errno a failed thread start gives the ioctl is ENOMEM. amdkfd's own helpers fail that way
// (kthread_create and alloc_workqueue fail for want of memory: -ENOMEM), and it is the code clients already treat
// as "the kernel is out of a resource" (libhsakmt: HSAKMT_STATUS_NO_MEMORY; ROCr: OUT_OF_RESOURCES). EAGAIN, what
// pthread_create itself says, would read as "try again" to a caller of the ioctl.
#ifndef HIPMEM_TESTING_KFD_SIM_HOST_HOST_THREAD_H_
#define HIPMEM_TESTING_KFD_SIM_HOST_HOST_THREAD_H_

#include <cerrno>
#include <functional>
#include <thread>

#include "absl/status/statusor.h"

namespace hipmem::kfd_sim {

// The errno of an ioctl that could not start a simulator thread (see above).
inline constexpr int kThreadStartErrno = ENOMEM;

// Starts `body` on a new thread. kResourceExhausted when the host refuses a thread, or when the fault hook fails
// the start (KernelEntry::kThreadStart, fault_hook.h); `body` then never runs.
absl::StatusOr<std::thread> StartHostThread(std::function<void()> body);

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_HOST_HOST_THREAD_H_
