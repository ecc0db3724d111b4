// Global wave sync (GWS): the GPU's counters that waves of any workgroup of a queue wait on, as ds_gws_* use them.
//
// Plays the GWS block amdkfd hands one queue per process and GPU on ALLOC_QUEUE_GWS (kfd_ioctl_alloc_queue_gws;
// the simulator makes one GwsBlock per allocation and gives it to the queue's engine). It holds kResources
// resources; an instruction names resource (offset field + M0[21:16]) mod kResources and operates once per wave, with
// the data of the wave's first active lane (AMD's ISA guides, "GWS instructions operate only on the first active lane
// in the EXEC mask"). Each resource is a counter that serves as a semaphore or as a barrier:
//   ds_gws_init v         counter = v (a semaphore's count, or a barrier's "waves that wait, minus 1").
//   ds_gws_sema_v         counter += 1.
//   ds_gws_sema_br v      counter += v (bulk release).
//   ds_gws_sema_p         waits until counter > 0, then counter -= 1.
//   ds_gws_sema_release_all  every wave waiting in sema_p on the resource goes on without taking from the counter.
//   ds_gws_barrier v      the wave waits until v + 1 waves have arrived (LLVM: "bar_val is the total number of waves
//                         that will wait on this barrier, minus 1"), then all of them go on and the barrier is ready
//                         for its next round.
// Inferred where the guides are silent, and said here so the tests hold us to it: a barrier round's size is the value
// its first arrival brings, or the counter ds_gws_init set when it is larger (ockl's grid sync passes the value with
// every ds_gws_barrier and never inits; CLR's gwsInit blit kernel inits with the same value); a wave with EXEC = 0
// has no lane to read and does nothing; GWS state lasts as long as the allocation (across dispatches), as the
// hardware's does for the queue's VMID.
//
// Waiting is not blocking: an operation that must wait answers a Wait, the wave stops issuing, and its unit asks
// Ready() at its later turns while it runs other waves (dispatch.cc), as a waiting wave leaves its SIMD to others.
// Thread-safe: units of several host threads operate on one block.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_GWS_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_GWS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"

namespace hipmem::kfd_sim::gfx9 {

class GwsBlock {
 public:
  // GFX9's GWS resources per VMID (amdgpu's adev->gds.gws_size, which amdkfd reports as num_gws).
  static constexpr uint32_t kResources = 64;

  // What a waiting wave waits for: the resource, and the round it must see end.
  struct Wait {
    enum class Kind : uint8_t { kBarrier, kSemaphore };
    Kind kind = Kind::kBarrier;
    uint32_t resource = 0;
    uint64_t round = 0;  // barrier: its round when the wave arrived; semaphore: its release_all count then
  };

  void Init(uint32_t resource, uint32_t value);
  void SemaV(uint32_t resource, uint32_t count);  // sema_v (count 1) and sema_br
  void SemaReleaseAll(uint32_t resource);
  // sema_p: takes one from the counter and answers nullopt, or answers what to wait for.
  std::optional<Wait> SemaP(uint32_t resource);
  // ds_gws_barrier: arrives; answers nullopt when this arrival completes the round (everyone goes on), else what to
  // wait for.
  std::optional<Wait> Barrier(uint32_t resource, uint32_t value);
  // Whether a wave waiting for `wait` may go on now; a semaphore wait that may takes its one from the counter.
  bool Ready(const Wait& wait);

  // For tests: a resource's counter, and how many waves wait at its barrier now.
  uint32_t counter(uint32_t resource) const;
  uint32_t arrived(uint32_t resource) const;

 private:
  struct Resource {
    uint32_t counter = 0;
    uint32_t arrived = 0;      // waves in the barrier's current round
    uint32_t round_size = 0;   // waves that complete the current round (set by its first arrival)
    uint64_t round = 0;        // barrier rounds completed
    uint64_t released = 0;     // sema_release_all count
  };
  static uint32_t Index(uint32_t resource) { return resource % kResources; }

  mutable std::mutex mu_;
  std::array<Resource, kResources> resources_ ABSL_GUARDED_BY(mu_){};
};

// Where a queue's engine keeps the GWS block ALLOC_QUEUE_GWS gave it, for the dispatches it starts later. Thread-safe.
class GwsSlot {
 public:
  void Set(std::shared_ptr<GwsBlock> gws) {
    std::lock_guard<std::mutex> lock(mu_);
    gws_ = std::move(gws);
  }
  std::shared_ptr<GwsBlock> Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return gws_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<GwsBlock> gws_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_GWS_H_
