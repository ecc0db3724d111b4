// The skeleton every simulated queue engine shares: one thread per hardware queue slot that sleeps on the queue's
// doorbell, runs the queue's packets one at a time, and stops, suspends, resumes or halts.
//
// Plays what the SDMA RLC queues and the MEC's hardware queue descriptors (HQDs) have in common: a doorbell that
// announces work, a read pointer that moves as packets complete, a queue that halts on a VM fault or a packet it
// cannot run, and the scheduler unmapping a queue (amdkfd's update_queue preempting it) and mapping it again. An
// engine (SdmaEngine, ComputeEngine, Pm4Engine) derives from QueueEngine and supplies the packet processor: Process
// runs the next packet the doorbell announces and says how that went, and ReportError says why a queue halted on a
// bad packet. The thread:
//   sleeps on the doorbell (doorbell.h) while Process finds nothing to run; never polls;
//   halts on kHalt: the queue ignores its doorbell from then on, and the halt is reported once, with no access
//     scope open (a VM fault here, with its log line and callback; anything else through ReportError);
//   parks while suspended (Suspend): no packet starts until Resume, which goes on with whatever the doorbell
//     announces by then -- a ring that came while the queue was suspended needs no second ring;
//   stops at destruction, abandoning a packet that waits (a poll, a barrier) or a dispatch in flight.
// A packet that waits checks interrupted() between looks (or sleeps with SleepUnlessInterrupted) and returns
// kStopped, so that Suspend and Stop do not wait for it; it runs again from its start on Resume, as the hardware
// restarts a preempted wait.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_QUEUE_ENGINE_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_QUEUE_ENGINE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "testing/kfd_sim/engines/doorbell.h"

namespace hipmem::kfd_sim {

// Thread-safe. Owns the engine thread. A derived engine calls Start() last in its constructor and Stop() first in
// its destructor, so the thread never runs the packet processor of a half-built or half-destroyed engine.
namespace gfx9 {
class GwsBlock;
}  // namespace gfx9

class QueueEngine {
 public:
  virtual ~QueueEngine();
  QueueEngine(const QueueEngine&) = delete;
  QueueEngine& operator=(const QueueEngine&) = delete;

  const std::string& name() const { return name_; }

  // Rings the queue's doorbell with `value`, as a producer that owns the doorbell page would
  // (kfd_sim::RingDoorbell). What the value means is the engine's (a byte or dword write pointer, a packet index).
  void RingDoorbell(uint64_t value);

  // Blocks until everything the doorbell announces has completed, or the queue halted. Returns false when it
  // halted; the halt's report (log line, callback) is done by then. A suspended queue with work left keeps it
  // waiting until Resume.
  bool WaitIdle();

  // How far the queue has got, in the engine's units (its read pointer); on a halt, where the offending packet
  // starts.
  uint64_t progress() const;
  bool halted() const;
  bool suspended() const;
  // Whether the engine thread runs (Start succeeded and Stop has not run). An engine that is not running must be
  // destroyed: nothing would ever process its queue.
  bool running() const { return thread_.joinable(); }

  // Unmaps the queue: returns once no packet is running, and starts none until Resume. A packet that waits is
  // abandoned and runs again from its start on Resume. Suspending a suspended queue does nothing.
  void Suspend();
  // Maps the queue again: the engine goes on with whatever the doorbell announces by now, without a new ring.
  void Resume();

  // ALLOC_QUEUE_GWS gave the queue the GPU's global wave sync (null: took it back). Dispatches that start after this
  // use it. Engines whose queues run no shader code (SDMA) have none to give.
  virtual void SetGws(std::shared_ptr<gfx9::GwsBlock> /*gws*/) {}

 protected:
  // How running a packet (or a part of one) went.
  enum class Outcome {
    kDone,      // it completed
    kNotReady,  // nothing to run until the doorbell moves: all it announces is done, or a packet is incomplete
    kHalt,      // the queue halts (Fault or the engine's own error record says why)
    kStopped,   // abandoned because the engine is stopping or being suspended; it runs again on Resume
  };

  // `doorbell` is the engine's view of the queue's doorbell word (not owned, must outlive this); null: a private
  // word, starting at `idle_doorbell`, that only RingDoorbell rings (engine tests and benchmarks). `on_vm_fault`
  // receives the faulting address of a VM-fault halt.
  QueueEngine(std::string name, uint64_t* doorbell, uint64_t idle_doorbell, uint64_t initial_progress,
              std::function<void(uint64_t va)> on_vm_fault);

  // Starts the thread; call once, last in the derived constructor. A thread the host refuses (or a doorbell nobody
  // watches) leaves the engine not running(): its creator fails the ioctl that made it.
  void Start();
  // Stops the thread and joins it; call first in the derived destructor. Idempotent.
  void Stop();

  // ---- the packet processor, called on the engine thread ----

  // Checks the queue itself before the first packet; false halts it (ReportError says why).
  virtual bool Validate() { return true; }
  // Runs the next packet that `doorbell` (what the doorbell word holds now) announces: kDone after Advance,
  // kNotReady when there is none.
  virtual Outcome Process(uint64_t doorbell) = 0;
  // Logs why the queue halted, when it was not a VM fault, and runs the engine's callback for it.
  virtual void ReportError() = 0;
  // Whether `progress` covers everything `doorbell` announces (WaitIdle). Called on any thread, with the engine's
  // lock held.
  virtual bool CaughtUp(uint64_t progress, uint64_t doorbell) const = 0;

  // ---- helpers for the packet processor ----

  // Publishes the read pointer. `write_back` (the read pointer's copy in GPU memory) runs under the same lock, so
  // whoever sees the write-back and then asks progress() agrees.
  void Advance(uint64_t progress, absl::FunctionRef<void()> write_back = [] {});
  // Records a VM fault at `va` as the reason the queue halts; returns kHalt.
  Outcome Fault(uint64_t va);
  // Whether the engine is being stopped or suspended: a packet that waits gives up (kStopped).
  bool interrupted() const { return interrupt_.load(std::memory_order_acquire); }
  // Sleeps `period`; returns false, at once, when the engine is interrupted.
  bool SleepUnlessInterrupted(std::chrono::microseconds period);

 private:
  void Run();
  // Marks the queue halted, reports why, and only then lets WaitIdle return.
  void Halt();

  const std::string name_;
  const std::function<void(uint64_t va)> on_vm_fault_;
  uint64_t private_doorbell_;  // the doorbell word when the engine is given none
  uint64_t* const doorbell_word_;
  const DoorbellWaiter doorbell_;

  std::optional<uint64_t> fault_va_;  // engine thread only: the VM fault that halted the queue

  mutable std::mutex mu_;
  std::condition_variable cv_;  // any change of the state below
  uint64_t progress_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;    // Validate has run
  bool busy_ ABSL_GUARDED_BY(mu_) = false;       // a packet (or a halt's report) is running
  bool halted_ ABSL_GUARDED_BY(mu_) = false;
  bool reporting_ ABSL_GUARDED_BY(mu_) = false;  // a halt is being reported
  bool suspended_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<bool> interrupt_{false};  // stop_ || suspended_, read without mu_ by waiting packets
  std::atomic<bool> exited_{false};
  std::thread thread_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_QUEUE_ENGINE_H_
