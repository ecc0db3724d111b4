// GPU memory faults as ROCclr's streams hear of them: the HSA system event listener (hsa::SystemEvents, what
// hsa_amd_register_system_event_handler feeds) turned into a sticky error per device.
//
// A command that touches memory its GPU has not mapped halts the queue it runs on, and its completion signal
// never moves: a host waiting for it would wait forever. The KFD reports the fault on its MEMORY event; the
// listener thread (asleep in the KFD's WAIT_EVENTS, never polling) calls OnFault, which records the fault for
// the faulting GPU and tells every stream of that GPU, each of which then fails its pending commands so their
// waiters wake with the error.
//
// The error: CLR aborts the process from its queue error callback, and ROCr aborts on a fault nobody
// handles; a library must not end its host program. CUDA's answer is kept instead: the fault is sticky for the
// device (every later wait, synchronize or submission on any stream of that GPU fails) until Clear (a device
// reset), reported as GpuMemoryFaultError with the faulting address, which HIP turns into hipErrorIllegalAddress.
// Thread-safe.
#ifndef HIPMEM_CLR_DEVICE_FAULTS_H_
#define HIPMEM_CLR_DEVICE_FAULTS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "hsa/runtime.h"
#include "hsa/system_events.h"

namespace hipmem::clr {

// A GPU memory fault's error: kAborted, marked as a fault. kAborted alone says less (a thunk wait the kernel
// refused, an EINTR, a queue the CP halted are kAborted too), so whoever must tell a fault apart (HIP's
// hipErrorIllegalAddress) asks IsGpuMemoryFault.
absl::Status GpuMemoryFaultError(absl::string_view message);
// Whether `status` is a GPU memory fault's error (GpuMemoryFaultError, through any Annotate on the way).
bool IsGpuMemoryFault(const absl::Status& status);

class DeviceFaults {
 public:
  // Told of a fault on its GPU, on the listener thread; must not call back into DeviceFaults' Watch.
  using Listener = std::function<void(const absl::Status& error)>;

  // Starts listening to `runtime`'s system events. `runtime` must outlive the result. Errors: SystemEvents'.
  static absl::StatusOr<std::unique_ptr<DeviceFaults>> Create(hsa::Runtime& runtime);
  DeviceFaults(const DeviceFaults&) = delete;
  DeviceFaults& operator=(const DeviceFaults&) = delete;

  // The sticky error of `agent`: OK until one of its commands faulted, then GpuMemoryFaultError naming the first
  // fault.
  absl::Status Error(hsa::AgentId agent) const;

  // Forgets `agent`'s fault (hipDeviceReset, after the streams that saw it are gone): streams made afterwards
  // work again; those made before stay failed.
  void Clear(hsa::AgentId agent);

  // Calls `listener` (once) when `agent` faults; at once, on the caller's thread, when it has faulted already.
  // The listener is dropped when `owner` expires, so a stream that goes away needs no unregistering.
  void Watch(hsa::AgentId agent, std::weak_ptr<void> owner, Listener listener);

  // What the listener thread calls for each fault (public for tests that play the KFD's report).
  void OnFault(const hsa::GpuMemoryFault& fault);

 private:
  struct Watcher {
    std::weak_ptr<void> owner;
    Listener listener;
  };
  DeviceFaults() = default;

  mutable absl::Mutex mu_;  // a leaf lock: held only while the maps change
  absl::flat_hash_map<uint64_t, absl::Status> errors_ ABSL_GUARDED_BY(mu_);  // by agent
  absl::flat_hash_map<uint64_t, std::vector<Watcher>> watchers_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<hsa::SystemEvents> events_;  // last: its thread calls OnFault until it is destroyed
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_DEVICE_FAULTS_H_
