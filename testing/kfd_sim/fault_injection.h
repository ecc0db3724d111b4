// Test-only fault injection into the simulated KFD: make the k-th kernel entry of a scenario fail.
//
// A test first runs its scenario under a counting ScopedFaultInjection (fail_at 0) to learn the N entries it
// makes, then runs it N times failing the k-th, k = 1..N, and checks each run: the call that met the failure
// answers an error, nothing the scenario held stays allocated in the simulated kernel (SimUsage back to its start),
// and the same scenario then succeeds. The entries are the points where a real amdkfd can fail a caller for lack
// of resources: open of /dev/kfd, every ioctl, the mmaps of the kfd and render fds, open of a render node.
//
// Counting is by default only of the arming thread's entries, and skips WAIT_EVENTS: the runtime's own threads
// (signal handlers, copy watchers) and a wait that finds its signal already set come and go with timing, and a
// fault sweep must see the same sequence on every run. CountEntries checks that it does.
#ifndef HIPMEM_TESTING_KFD_SIM_FAULT_INJECTION_H_
#define HIPMEM_TESTING_KFD_SIM_FAULT_INJECTION_H_

#include <cerrno>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/host/fault_hook.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {

// One counted kernel entry.
struct CountedEntry {
  KernelEntry entry;
  uint32_t nr;  // the ioctl's nr for kIoctl, else 0
  friend bool operator==(const CountedEntry&, const CountedEntry&) = default;
};
// "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", "mmap", "open(/dev/kfd)", "open(renderD)".
std::string EntryName(const CountedEntry& entry);

struct FaultPlan {
  // The 1-based index, among the counted entries, of the first that fails; 0: count only, fail nothing.
  uint64_t fail_at = 0;
  // How many counted entries fail from fail_at on (the kernel stays out of the resource for a while).
  uint64_t fail_count = 1;
  // The errno the failing entries answer: by default the kernel's answer to a failed allocation.
  int error = ENOMEM;
  // Count only entries of this kind; nullopt: every kind.
  std::optional<KernelEntry> only_entry = std::nullopt;
  // Count only this ioctl nr (implies kIoctl); nullopt: every nr but those in skip_ioctl_nrs.
  std::optional<uint32_t> only_ioctl_nr = std::nullopt;
  std::vector<uint32_t> skip_ioctl_nrs = {kfd_uapi::kWaitEvents.nr};
  // Count the entries of every thread, not only the arming one's.
  bool all_threads = false;
};

// A plan failing only where amdkfd itself can fail a caller for want of memory: every entry but WAIT_EVENTS (see above)
// and the ioctls that allocate nothing in the kernel and fail only for bad input: GET_VERSION, GET_CLOCK_COUNTERS,
// SET_EVENT, RESET_EVENT and the releases FREE_MEMORY_OF_GPU, DESTROY_EVENT, DESTROY_QUEUE (kfd_chardev.c;
// UNMAP_MEMORY_FROM_GPU does allocate its device array, and is counted). A runtime that cannot release
// must leak or retry; sweeps that want to see that use FaultPlan{} and retry the releases themselves.
FaultPlan ResourceFaultPlan(uint64_t fail_at = 0);
// ResourceFaultPlan without CREATE_EVENT, for runtimes whose event creations come and go with a signal pool refilled by
// whichever thread drops a signal (hsa/signal_allocator.h): EventsExhaustedPlan covers them instead.
FaultPlan ResourceFaultPlanWithoutEvents(uint64_t fail_at = 0);
// The KFD out of event slots for as long as it is armed: every CREATE_EVENT of every thread fails with ENOSPC
// (kfd_events.c allocate_event_notification_slot).
FaultPlan EventsExhaustedPlan();

// Arms `plan` for its lifetime: the simulated KFD's entries (of every Simulator of this OS process) are counted
// and the planned ones fail with plan.error, having done nothing. One at a time per process (a second one aborts).
// Thread-safe.
class ScopedFaultInjection final : public FaultInjector {
 public:
  explicit ScopedFaultInjection(FaultPlan plan);
  ~ScopedFaultInjection() override;
  ScopedFaultInjection(const ScopedFaultInjection&) = delete;
  ScopedFaultInjection& operator=(const ScopedFaultInjection&) = delete;

  // The entries counted so far, in order.
  std::vector<CountedEntry> counted() const;
  // How many entries were failed so far.
  uint64_t failed() const;
  // The first failed entry's name, or "none".
  std::string failed_name() const;

  int OnEntry(KernelEntry entry, uint32_t nr) override;

 private:
  const FaultPlan plan_;
  const std::thread::id owner_;
  // The hook serialises OnEntry calls, not the accessors: they may run while another thread enters the kernel.
  mutable absl::Mutex mu_;
  std::vector<CountedEntry> counted_ ABSL_GUARDED_BY(mu_);
  uint64_t failed_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<CountedEntry> first_failed_ ABSL_GUARDED_BY(mu_);
};

// Runs `scenario` twice under a counting plan with `filter`'s selection and returns the entries it made. Fails
// (kFailedPrecondition, naming the first difference) when the two runs made different sequences: a sweep over a
// scenario whose entries depend on timing would not be repeatable.
absl::StatusOr<std::vector<CountedEntry>> CountEntries(const FaultPlan& filter, absl::FunctionRef<void()> scenario);

// What a scenario may leave allocated in the simulated kernel, summed over its processes.
struct SimUsage {
  size_t processes = 0;
  size_t buffers = 0;
  size_t gpu_mappings = 0;  // (buffer, GPU) pairs mapped
  size_t events = 0;
  size_t queues = 0;
  size_t svm_ranges = 0;
  std::vector<Bytes> vram_used;  // per GPU, topology order
  Bytes system_used;
  friend bool operator==(const SimUsage&, const SimUsage&) = default;
};
SimUsage UsageOf(const SimSnapshot& snapshot);
std::ostream& operator<<(std::ostream& os, const SimUsage& usage);

// `usage` with its event count zeroed. A runtime's events come and go with a signal pool that keeps some idle and is
// refilled by whichever thread drops a signal (hsa/signal_allocator.h), so how many exist after a scenario depends on
// timing; the event-specific checks (EventsExhaustedPlan) cover them instead.
SimUsage WithoutPooledEvents(SimUsage usage);
// Whether `usage` holds no more than `bound` of anything but events (see WithoutPooledEvents): the same processes, at
// most as many buffers, GPU mappings, queues and SVM ranges, at most as many bytes of each GPU's VRAM and of system
// memory. What a runtime keeps cached may shrink between two points, never grow.
bool UsageAtMost(const SimUsage& usage, const SimUsage& bound);

// The first failure of a scenario run through a C API: which call, and the code it answered.
template <typename Code, Code kSuccess>
struct CallOutcome {
  std::string call;
  Code status = kSuccess;
  bool ok() const { return status == kSuccess; }
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_FAULT_INJECTION_H_
