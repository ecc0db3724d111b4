// The simulated kernel's fault-injection point: every entry into the simulated KFD (open of /dev/kfd, an
// ioctl, an mmap of a kfd or render fd, open of a render node) asks it first whether to fail, and so does every start
// of a simulator thread and every large host allocation of the simulator.
//
// What arms it is test-only (fault_injection.h, a testonly target); this target only holds the hook, so the
// simulator and the thunk's simulator backend can call it. Disarmed, a call is one relaxed atomic load.
#ifndef HIPMEM_TESTING_KFD_SIM_HOST_FAULT_HOOK_H_
#define HIPMEM_TESTING_KFD_SIM_HOST_FAULT_HOOK_H_

#include <atomic>
#include <cstdint>

#include "absl/base/optimization.h"

namespace hipmem::kfd_sim {

// The kernel entries a fault can be injected at.
enum class KernelEntry : uint8_t {
  kOpenKfd,         // open("/dev/kfd"): kfd_open
  kIoctl,           // any AMDKFD_IOC_* the simulator handles (after its nr and caller checks)
  kMmap,            // mmap of /dev/kfd (doorbells) or of a render node (a buffer's pages)
  kOpenRenderNode,  // open("/dev/dri/renderD*")
  // The simulator's own host resources, which a real kernel has as well (kthreads, page allocations) and may lack.
  // Counted only by a plan that names them (FaultPlan::only_entry): a plan for every kernel entry leaves them out,
  // so the ioctl sweeps keep their sequences.
  kThreadStart,     // a simulator thread (host_thread.h)
  kHostAllocation,  // a large host backing: the memfd of a process's page file (bo_pages.h), made on first use
};

// Decides, for one kernel entry, whether it fails. Implemented by the test-only injector.
class FaultInjector {
 public:
  virtual ~FaultInjector() = default;
  // Returns 0 to let the entry run, else the positive errno it fails with, having done nothing. `nr` is the
  // ioctl's nr (uapi::IoctlNr) for kIoctl, 0 otherwise. Called from any thread; never from two at once.
  virtual int OnEntry(KernelEntry entry, uint32_t nr) = 0;
};

namespace fault_hook_internal {
inline std::atomic<bool> g_armed{false};
int SlowPath(KernelEntry entry, uint32_t nr);
}  // namespace fault_hook_internal

// Returns 0, or the positive errno the armed injector fails this entry with.
inline int InjectedFault(KernelEntry entry, uint32_t nr = 0) {
  // Relaxed: arming happens-before the entries a test cares about (the test's own thread armed it, or a thread it
  // started afterwards); an entry racing with arming may go either way, as it could have run either way.
  if (ABSL_PREDICT_TRUE(!fault_hook_internal::g_armed.load(std::memory_order_relaxed))) return 0;
  return fault_hook_internal::SlowPath(entry, nr);
}

// Installs `injector` (not owned; must stay alive until InstallFaultInjector(nullptr) returns), or with
// nullptr removes the installed one, waiting for any call into it to return. At most one at a time: installing
// over another is a programming error and aborts.
void InstallFaultInjector(FaultInjector* injector);

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_HOST_FAULT_HOOK_H_
