// A command queue: the ordered work of one HIP stream on one device.
//
// Plays ROCclr's amd::HostQueue with direct dispatch (the caller's thread submits, as CLR does on Linux) over
// roc::VirtualGPU: one HSA AQL queue on the device's compute CP carries shader copies, fills and markers, and
// SDMA copies go through ROCr's async copy. Every command completes a signal of its own and depends on the
// one before it -- the AQL barrier bit inside the queue, a barrier-AND packet or the SDMA engine's poll across
// engines -- so the work runs in submission order while the host only queues it. Waits on other streams and
// host functions are dependencies on signals too; the host blocks only in Finish and Marker::Wait.
//
// Failures never leave the host waiting: a command that completes its signal negative is reported as kDataLoss
// (CLR's failed command); a queue the CP halted (the queue error callback) or a GPU memory fault on the device
// (DeviceFaults, the HSA system event listener) makes the stream fail every pending command's signal, which
// wakes whoever waits in Finish or Marker::Wait with that error (kAborted for a fault, sticky for the device).
// No wait polls. Thread-safe: one mutex orders submissions (CLR's queue lock).
#ifndef HIPMEM_CLR_STREAM_H_
#define HIPMEM_CLR_STREAM_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/light_mutex.h"
#include "base/units.h"
#include "clr/context.h"
#include "clr/device_printf.h"
#include "gpu_abi/blit_kernels.h"
#include "hsa/queue.h"
#include "hsa/signal.h"

namespace hipmem::clr {

// Completion signals a stream's AQL packets may reuse, as ROCclr's VirtualGPU keeps a pool of them instead of making
// one per command: creating and destroying an HSA signal costs more than the command it ends (a KFD event taken and
// given back, the allocator's lock twice). Only signals the CP alone completes come back here: one an SDMA copy or a
// host callback completes may still be watched by another thread after it reached 0 (hsa::Copies' pin release,
// the callback handler). Thread-safe; shared by the stream and its signals, so it lives while either does.
class SignalPool {
 public:
  // `signals` must outlive the pool.
  explicit SignalPool(hsa::SignalRuntime& signals) : signals_(signals) {}
  SignalPool(const SignalPool&) = delete;
  SignalPool& operator=(const SignalPool&) = delete;

  hsa::SignalRuntime& signals() const { return signals_; }
  // An idle signal set back to 1, if there is one.
  std::optional<hsa::RegisteredSignal> Take();
  // Keeps a signal that completed (value 0) for a later Take; destroys it when the pool is full.
  void Give(hsa::RegisteredSignal signal);

 private:
  static constexpr size_t kMaxIdle = 64;
  hsa::SignalRuntime& signals_;
  LightMutex mu_;
  std::vector<hsa::RegisteredSignal> idle_ ABSL_GUARDED_BY(mu_);  // destroyed with the pool
};

// One signal a stream made, destroyed (or given back to its pool) when the last holder lets go (a stream's in-flight
// list, a marker, a command that waits on it).
class StreamSignal {
 public:
  // A signal at 1 from `signals`, which must outlive it.
  static absl::StatusOr<std::shared_ptr<StreamSignal>> Create(hsa::SignalRuntime& signals);
  // A signal at 1 from `pool`, given back to it when the last holder lets go if it completed (value 0): for a
  // command only the CP completes.
  static absl::StatusOr<std::shared_ptr<StreamSignal>> Create(const std::shared_ptr<SignalPool>& pool);
  ~StreamSignal();
  StreamSignal(const StreamSignal&) = delete;
  StreamSignal& operator=(const StreamSignal&) = delete;

  hsa::SignalHandle handle() const { return signal_.handle(); }
  const hsa::SignalRef& ref() const { return signal_.ref(); }
  // 0: done; negative: the command failed; positive: not yet.
  hsa::SignalValue value() const { return signal_.ref().Load(hsa::MemoryOrder::kAcquire); }

 private:
  StreamSignal(std::shared_ptr<SignalPool> pool, hsa::RegisteredSignal signal)
      : pool_(std::move(pool)), signal_(std::move(signal)) {}

  const std::shared_ptr<SignalPool> pool_;  // null: destroyed with this
  hsa::RegisteredSignal signal_;  // never empty until the destructor gives it back to the pool
};

class Stream;

// What stopped a stream's queue: its error callback (on the runtime's handler thread) or a fault of its device
// (on the system event thread).
class QueueHealth {
 public:
  absl::Status Error() const;
  // Keeps the first error, then fails the pending commands of the stream it belongs to, so their waiters wake,
  // and passes the first error on to the dependents.
  void Report(const absl::Status& error);
  // `dependent` (another stream's health) has queued a wait on `on`, a signal of this stream (Stream::WaitFor): a
  // barrier on a signal this stream fails is never met, so the dependent fails with this stream unless `on`
  // completed first (or is gone: the wait is over). Told at once when this one failed already. Call without
  // holding the dependent stream's lock.
  void AddDependent(const std::shared_ptr<QueueHealth>& dependent, const std::shared_ptr<StreamSignal>& on);

 private:
  friend class Stream;
  mutable LightMutex mu_;  // a leaf lock
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  struct Dependent {
    std::weak_ptr<QueueHealth> health;
    std::weak_ptr<StreamSignal> on;
  };
  std::vector<Dependent> dependents_ ABSL_GUARDED_BY(mu_);
  // Held while the stream is told, so the stream can leave (Detach) only when no report is telling it.
  LightMutex owner_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  Stream* owner_ ABSL_GUARDED_BY(owner_mu_) = nullptr;
};

// Whether `error` is a kernel's wave exception as its queue reported it -- a trap (llvm.trap: HIP's abort() and a failed
// device assert) or an illegal instruction, HSA_STATUS_ERROR_EXCEPTION or HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION from
// the queue's error callback -- rather than a memory fault. CLR aborts the process on either (its queue callback);
// HIP reports this one as a failed launch instead.
bool IsKernelException(const absl::Status& error);

// Blocks until `signal` completes: OK at 0; the queue's error when the queue halted or the device faulted;
// kDataLoss when it went negative otherwise (the command failed). `hint` is the device's (WaitHintOf).
absl::Status WaitForSignal(const StreamSignal& signal, const QueueHealth& health, hsa::WaitHint hint);

// How the host waits for `device`'s work (Context::ActiveWait), as ROCclr's WaitForSignal asks ROCr.
hsa::WaitHint WaitHintOf(const Context& context, const Device& device);

// A point in a stream's order: done once everything queued before it is (hipEventRecord's mark).
class Marker {
 public:
  // Whether the work before the mark is done (hipEventQuery). A failed command counts as done.
  bool Done() const { return signal_->value() <= 0; }
  // Blocks until it is (hipEventSynchronize). kDataLoss when a command before the mark failed; the queue's
  // error when its queue halted or its device faulted (kAborted), or when a stream it waited on did.
  absl::Status Wait() const;
  // When the device's CP passed the mark, in its GPU clock ticks (the end stamp a profiling queue writes into
  // the barrier packet's completion signal); nullopt until then.
  std::optional<uint64_t> end_tick() const;
  // The GPU whose clock end_tick counts.
  hsa::AgentId agent() const { return agent_; }

 private:
  friend class Stream;
  Marker(std::shared_ptr<StreamSignal> signal, std::shared_ptr<QueueHealth> health, const Context& context,
         const Device& device)
      : signal_(std::move(signal)), health_(std::move(health)), context_(&context), device_(&device),
        agent_(device.agent) {}

  std::shared_ptr<StreamSignal> signal_;
  std::shared_ptr<QueueHealth> health_;  // its stream's
  const Context* context_;  // not owned; outlives the marker
  const Device* device_;    // the stream's, in context_
  hsa::AgentId agent_;
};

// ROCclr's amd::CommandQueue::Priority as a stream's queue asks for it. The AQL queue is created at the HSA
// priority of the same name (hsa_amd_queue_priority_t), which ROCr hands the KFD as its queue priority
// (LOW -> minimum 0, NORMAL -> 7, HIGH -> maximum 15).
enum class StreamPriority { kLow, kNormal, kHigh };

// One kernel launch as its AQL dispatch packet carries it (roc::VirtualGPU::submitKernelInternal's packet).
struct KernelDispatch {
  uint64_t kernel_object = 0;         // the kernel descriptor's GPU address
  uint32_t grid[3] = {1, 1, 1};       // work-items per dimension
  uint16_t workgroup[3] = {1, 1, 1};  // work-group size per dimension
  uint32_t group_segment_size = 0;    // LDS per work-group: the kernel's static use plus the launch's dynamic bytes
  uint32_t private_segment_size = 0;  // scratch per work-item
  std::span<const uint8_t> kernargs;  // the kernarg segment (BuildKernargs), copied into the stream's kernarg ring
  // A cooperative launch's hidden_multigrid_sync_arg: the kernarg offset of a 64-bit field holding the offset of the
  // grid barrier's workspace in the segment, which becomes its address in the ring. The workspace so lives exactly
  // as long as the dispatch, zeroed per launch, and no two launches share one.
  std::optional<uint32_t> grid_sync_arg;
  // Memory the kernel uses beyond its kernargs that must outlive it (a multi-device launch's barrier, which every
  // grid of the launch shares): the stream keeps a reference until it sees the dispatch complete or fail.
  std::shared_ptr<const void> hold;
};

class Stream {
 public:
  // A stream on `device` of `context`, which must outlive it, whose AQL queue runs at `priority`. Errors: the
  // AQL queue's and the memory's (kResourceExhausted when the device cannot take another queue).
  static absl::StatusOr<std::unique_ptr<Stream>> Create(Context& context, const Device& device,
                                                        StreamPriority priority = StreamPriority::kNormal);
  // The device's cooperative stream (CLR's device queue for cooperative launches, roc::Device::xferQueue, whose HSA
  // queue CLR asks for as HSA_QUEUE_TYPE_COOPERATIVE): on the agent's one cooperative queue, shared with every other
  // holder (hsa::Queues::Create). Only DispatchCooperative queues work on it. Errors: the HSA queue's
  // (INVALID_QUEUE_CREATION for a device without GWS) and the memory's.
  static absl::StatusOr<std::unique_ptr<Stream>> CreateCooperative(Context& context, const Device& device);
  // Waits for the work queued (as CLR's queue release does), then releases the queue.
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  const Device& device() const { return device_; }

  // The device's blit copy kernel over [src, src + size) -> dst, on this stream's queue. Both ranges must be
  // reachable by the device (its VRAM, system memory the runtime mapped for it, a linked peer's VRAM). Size 0
  // queues nothing. Errors: kDeadlineExceeded when the ring stays full (a stream stalled on a dependency that
  // never completes); a queue that failed earlier (kDataLoss, or kAborted after a device fault).
  absl::Status ShaderCopy(DeviceAddress dst, DeviceAddress src, Bytes size);
  // The blit fill kernels: `count` elements of `element_size` bytes (1, 2 or 4: hipMemsetD8/D16/D32) at `dst`,
  // each holding the low `element_size` bytes of `pattern` (little-endian, as the GPU stores them).
  // kInvalidArgument for another element size or a `dst` not aligned to it; otherwise as ShaderCopy.
  absl::Status ShaderFill(DeviceAddress dst, uint32_t pattern, uint32_t element_size, uint64_t count);
  // An SDMA copy through ROCr (hsa::Copies), after everything queued so far. The sides are the caller's resolved
  // ones (their owners, where the GPUs reach them; bounds already checked): ROCr looks neither up again, and maps
  // or pins only a side the copying GPU does not reach yet. Errors: Copies::CopyResolved's.
  absl::Status SdmaCopy(const hsa::ResolvedSide& dst, const hsa::ResolvedSide& src, Bytes size);
  // A box (x bytes, y rows, z slices) as SDMA sub-window copies on this device's engines
  // (hsa_amd_memory_async_copy_rect), after everything queued so far. The surfaces are the caller's resolved ones
  // (bounds already checked over the box), so that ROCr looks neither up again, as for SdmaCopy. Errors, nothing
  // queued: Copies::CopyRectResolved's.
  absl::Status SdmaCopyRect(const hsa::ResolvedSurface& dst, const hsa::ResolvedSurface& src, hsa::Dim3 range,
                            hsa::CopyDirection direction);

  // Dispatches a kernel after everything queued so far (a user kernel on the stream's AQL queue, ordered with its
  // copies, fills, markers and host functions as they are with each other). The kernargs are copied into the
  // stream's kernarg ring (fine-grained system memory every GPU maps, as CLR's kernarg pool), whose space comes
  // back as the dispatches that used it complete. Errors: kInvalidArgument for kernargs larger than the ring;
  // otherwise as ShaderCopy's. A kernel that faults on the GPU fails the stream as a faulting copy does.
  // `printf`, for a kernel that prints (Kernel::prints; its printf argument holds the buffer's address), stays
  // with the dispatch: once the stream sees the dispatch complete (or fail), at the latest in Finish, WaitForQueued
  // or the stream's release, it prints the records to stdout (device_printf.h), dispatches in stream order, and
  // keeps the buffer for another dispatch.
  absl::Status DispatchKernel(const KernelDispatch& dispatch, std::optional<PrintfBuffer> printf = std::nullopt);
  // A cooperative launch as CLR's VirtualGPU::submitKernel queues one: the dispatch runs on `cooperative` (the
  // device's cooperative stream, CreateCooperative) after everything queued on this stream so far (a barrier there on
  // this stream's mark), and what this stream queues afterwards waits for it (a barrier here on the cooperative
  // stream's mark). The cooperative queue sizes a dispatch's scratch for all of its workgroups or fails it
  // (hsa::Queues' GrowScratch): that failure fails the cooperative stream and, through the wait, this one, instead
  // of a grid waiting at its grid sync for workgroups that never became resident. `printf` stays with this stream,
  // tied to the dispatch's completion: its records print when this stream retires the dispatch (at the latest in
  // its Finish or WaitForQueued), as an ordinary launch's do, not whenever the shared cooperative stream happens to
  // (CLR's FlushPrintf runs on the launching queue). Errors: this stream's, and the cooperative stream's (a halted
  // cooperative queue).
  absl::Status DispatchCooperative(Stream& cooperative, const KernelDispatch& dispatch,
                                   std::optional<PrintfBuffer> printf = std::nullopt);
  // A printf buffer for the next DispatchKernel: one the stream kept, emptied, or a new one. Errors: the
  // allocator's (kResourceExhausted).
  absl::StatusOr<PrintfBuffer> TakePrintfBuffer();
  // The address of the stream's hsa_queue_t (a kernel's hidden_queue_ptr).
  uint64_t queue_address() const { return queue_address_; }

  // Marks the current end of the stream (hipEventRecord). Errors as ShaderCopy's.
  absl::StatusOr<Marker> Record();
  // The same mark without queueing anything: the completion signal of the stream's newest command, which
  // finishes after every command before it (each waits on its predecessor). Record queues a barrier packet,
  // so the mark waits for the compute CP to see the command's end as well: a second engine hand-off per use.
  // CLR's staged copies wait on each chunk copy's own signal the same way. Records when nothing was queued.
  absl::StatusOr<Marker> MarkNewestCommand();
  // Makes everything queued after this wait for `marker`, without blocking the host (hipStreamWaitEvent).
  // The marker may belong to any stream of the same context. Errors as ShaderCopy's.
  absl::Status WaitFor(const Marker& marker);
  // Runs `function` on the runtime's handler thread once everything queued before it is done; work queued
  // after it waits for it to return (hipLaunchHostFunc). Errors: the handler thread's.
  absl::Status HostFunction(std::function<void()> function);
  // The same for a callback that learns how the work before it ended (hipStreamAddCallback's status): OK, or
  // the error that failed it (a device fault, a halted queue, a failed command), in which case it still runs,
  // as CUDA runs a stream's callbacks with the error.
  absl::Status HostCallback(std::function<void(const absl::Status&)> callback);

  // Blocks until everything queued is done (hipStreamSynchronize). kDataLoss when a command failed; the sticky
  // kAborted once the device took a GPU memory fault (device_faults.h); the queue's error when it halted.
  absl::Status Finish();
  // Blocks until the work queued before the call is done, without queuing a marker: the newest command's own
  // signal completes after every command before it, so a blocking hipMemcpy waits on its copy's signal rather
  // than on a barrier packet that costs the CP another doorbell. Work other threads queue meanwhile is not
  // waited for. kDataLoss when a command failed; the queue's error when it halted.
  absl::Status WaitForQueued();
  // Whether everything queued is done (hipStreamQuery).
  bool Idle() const;
  // The error that stopped the stream (a failed command, a halted queue, a device fault), without waiting; OK
  // while it works.
  absl::Status Error() const;
  // Gives the stream's HSA queue back now instead of in the destructor, waiting for nothing: the stream fails with
  // `why` unless it failed already (its first error stays), and every later command and wait answers that error.
  // For the device's cooperative stream, whose HSA queue hsa::Queues shares between all its holders: a replacement
  // (a failed stream's, or one after hipDeviceReset) must get a new HSA queue even while another thread still holds
  // the old stream, never the old one's halted queue, nor one whose write index another Stream keeps. `why` must not
  // be OK. Idempotent.
  void ReleaseQueue(const absl::Status& why);

 private:
  // A command in flight: its signal, and the signals of other streams it waits on (kept alive until it is done).
  struct InFlight {
    std::shared_ptr<StreamSignal> done;
    std::vector<std::shared_ptr<StreamSignal>> waits_on;
  };

  Stream(Context& context, const Device& device, std::shared_ptr<QueueHealth> health, hsa::Queue queue,
         hsa::PoolAllocation control);
  static absl::StatusOr<std::unique_ptr<Stream>> CreateOn(Context& context, const Device& device, hsa::QueueKind kind,
                                                          StreamPriority priority);

  // Queues AQL `packets` (the last one completing `done`), preceded by a barrier-AND on `deps` that the AQL
  // queue does not order by itself (another engine's signal, another stream's).
  absl::Status SubmitAql(const std::vector<uint64_t>& deps, const std::function<void(uint64_t index, void* slot)>& write,
                         const std::shared_ptr<StreamSignal>& done, std::vector<std::shared_ptr<StreamSignal>> waits_on)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status DispatchBlit(gpu_abi::blit::KernelId kernel, DeviceAddress dst, uint64_t src_or_pattern, Bytes size);
  // DispatchKernel's submission, the dispatch completing `done`; the caller keeps its printf buffer.
  absl::Status SubmitDispatch(const KernelDispatch& dispatch, const std::shared_ptr<StreamSignal>& done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The dependency the next AQL command needs beyond the queue's own order: the last command's signal when it
  // ran elsewhere (SDMA, the host).
  std::vector<uint64_t> CrossEngineDeps() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Retire() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Prints the records of the printing dispatches that completed (or failed), oldest first, and keeps their buffers.
  void FlushPrintf() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Failure() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Failure(); when there is one, fails the pending commands (FailPendingLocked) and prints what the failed
  // dispatches printed (FlushPrintf) before answering it. The queue's error callback records the error before it
  // fails the pending commands (QueueHealth::Report): a synchronise that sees the error in between must still have
  // printed a failed kernel's printf and assert text by the time it returns.
  absl::Status StopOnFailure() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Completes every pending command's signal at -1 (QueueHealth::Report), waking their waiters.
  friend class QueueHealth;
  void FailPending() ABSL_LOCKS_EXCLUDED(mu_);
  void FailPendingLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Context& context_;
  const Device& device_;
  const std::shared_ptr<QueueHealth> health_;
  // queue_'s hsa_queue_t, kept apart so that reading it takes no lock and stays valid (as a number) after
  // ReleaseQueue.
  const uint64_t queue_address_;
  const hsa::PoolAllocation control_;  // blit kernel descriptors and the kernarg ring (system memory)
  const std::shared_ptr<SignalPool> signal_pool_;  // for the packets only the CP completes

  // Reserves `size` bytes of the kernarg ring for the next dispatch, waiting for the dispatches that still use
  // that space. Creates the ring on first use.
  absl::StatusOr<DeviceAddress> ReserveKernargs(Bytes size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Held by DispatchCooperative on the cooperative stream, so that one launch's wait, dispatch and mark stay together
  // (CLR locks its device queue for the launch). Taken before any stream's mu_.
  LightMutex cooperative_mu_;
  mutable LightMutex mu_;
  uint64_t write_index_ ABSL_GUARDED_BY(mu_) = 0;
  // The kernarg ring of user kernels (created on the first dispatch, freed with the stream), the offset where the
  // next reservation starts, and the space each dispatch still in flight holds, oldest first.
  struct KernargUse {
    uint64_t begin;
    uint64_t end;
    std::shared_ptr<StreamSignal> done;
    std::shared_ptr<const void> hold;  // KernelDispatch::hold
  };
  std::optional<hsa::PoolAllocation> kernarg_ring_ ABSL_GUARDED_BY(mu_);
  uint64_t kernarg_head_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<KernargUse> kernarg_uses_ ABSL_GUARDED_BY(mu_);
  std::deque<InFlight> in_flight_ ABSL_GUARDED_BY(mu_);
  // The printing dispatches in flight, oldest first, and emptied buffers kept for the next ones.
  struct PrintfUse {
    std::shared_ptr<StreamSignal> done;
    PrintfBuffer buffer;
  };
  std::deque<PrintfUse> printf_uses_ ABSL_GUARDED_BY(mu_);
  std::vector<PrintfBuffer> idle_printf_ ABSL_GUARDED_BY(mu_);
  bool last_on_aql_ ABSL_GUARDED_BY(mu_) = true;  // whether the newest command ran on the AQL queue
  // The stream's AQL queue; empty once ReleaseQueue gave it back (the health's error, set first, stops every command
  // before it touches the queue). ReleaseQueue and the destructor destroy it outside mu_ (its error callback may be
  // reporting to this stream). Declared last so that, were it still held when the members go, it is destroyed first:
  // the CP reads the ring, control_'s kernel descriptors and kernarg_ring_ until its queue is gone.
  hsa::Queue queue_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_STREAM_H_
