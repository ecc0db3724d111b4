// One engine queue of one GPU for the copy path (ROCr's BlitSdma and BlitKernel objects): an SDMA queue, or the
// blit kernel's AQL queue, with the operations published to it and a watcher thread.
//
// A channel writes each operation's packets -- dependency waits, the copy or fill, the completion -- and rings
// the doorbell without waiting. Its watcher thread retires finished operations (dropping the GPU views of their
// sides, which unpins host memory pinned just for them) and catches the GPU's VM faults: an operation whose queue
// faulted, and every one queued behind it, gets its completion signal set to -1, and the queue is rebuilt on the
// next submission. Thread-safe.
#ifndef HIPMEM_HSA_COPY_CHANNEL_H_
#define HIPMEM_HSA_COPY_CHANNEL_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "hsa/copy_engine.h"
#include "hsa/pin_table.h"
#include "hsa/signal.h"
#include "thunk/events.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {

// One operation for a channel, in GPU addresses.
struct ChannelOp {
  enum class Kind { kCopy, kFill, kSdmaStream } kind = Kind::kCopy;
  uint64_t dst = 0;
  uint64_t src = 0;
  uint64_t bytes = 0;
  uint32_t fill_value = 0;
  std::vector<uint64_t> dependencies = {};  // signal handles
  uint64_t completion = 0;             // signal handle
  bool profile = false;
  // The engine reports completion to the channel (its retire counter) instead of decrementing `completion`;
  // the watcher drops the op's pins and then decrements. For host memory pinned just for this op: its
  // owner may free it as soon as the signal says done, so it must be unpinned by then.
  bool via_host = false;
  // kSdmaStream: the packets between the dependency waits and the completion, and the memory they touch in
  // GPU addresses (what a VM fault is matched against).
  std::vector<uint32_t> stream = {};
  std::vector<AddressRange> stream_ranges = {};
};

class CopyChannel {
 public:
  // A queue on `gpu`: the blit kernel's AQL queue for kBlitKernel, else an SDMA queue (XGMI when `xgmi`).
  // Errors: the queue's memory, KFD queue and event creation's.
  static absl::StatusOr<std::unique_ptr<CopyChannel>> Create(thunk::Kfd& kfd, const thunk::NodeProperties& gpu,
                                                             CopyEngineKind kind, bool xgmi);
  // Stops the watcher and destroys the queue; operations still queued are abandoned.
  ~CopyChannel();
  CopyChannel(const CopyChannel&) = delete;
  CopyChannel& operator=(const CopyChannel&) = delete;

  // Publishes `op`; `holds` (the GPU views of its sides) and `completion` live until it is done. Errors: the
  // queue's rebuild (after a fault); kInvalidArgument for an operation larger than the ring; kDeadlineExceeded
  // when the ring stays full (its operations wait on signals nobody sets).
  absl::Status Submit(ChannelOp op, std::vector<Hold> holds, SignalRef completion);

  // Whether nothing is queued (hsa_amd_memory_copy_engine_status's "free").
  bool Idle();

 private:
  struct Queue;  // the KFD queue with its memory and events (copy_channel.cc)
  struct Pending {
    uint64_t end;       // the queue position past the op: SDMA bytes, AQL packet index
    uint64_t host_seq;  // via_host: its number among them (1, 2, ...); 0 otherwise
    SignalRef completion;
    std::vector<Hold> holds;
    std::vector<AddressRange> touched;
  };

  CopyChannel(thunk::Kfd& kfd, const thunk::NodeProperties& gpu, CopyEngineKind kind, bool xgmi);

  std::string Name() const;
  absl::Status EnsureQueue() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropQueue() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // How far the engine got: SDMA's read pointer (bytes), AQL's read dispatch id.
  uint64_t Position() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops the ops the engine has finished, in order; a via_host op is unpinned, then its signal decremented.
  void Retire() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Waits (holding the lock: the engine, not the watcher, makes room) until `needed` more fit in the ring.
  absl::Status WaitForRoom(uint64_t needed, uint64_t capacity) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Write the op's packets and ring the doorbell; return the queue position past them.
  absl::StatusOr<uint64_t> WriteSdma(const ChannelOp& op) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<uint64_t> WriteAql(const ChannelOp& op) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The watcher thread: retires finished ops and fails the queued ones when the queue faulted.
  void Watch();
  void OnFault(const thunk::MemoryAccessFault& fault);

  thunk::Kfd& kfd_;  // Not owned; must outlive this.
  const thunk::NodeId gpu_;
  const CopyEngineKind kind_;
  const bool xgmi_;
  const uint64_t max_linear_;  // the most bytes one COPY_LINEAR / CONST_FILL moves on this GPU

  absl::Mutex mu_;
  std::unique_ptr<Queue> q_ ABSL_GUARDED_BY(mu_);
  std::deque<Pending> pending_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread watcher_;  // declared last: started once everything else is built
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_COPY_CHANNEL_H_
