// Asynchronous copies and fills on a GPU's engines: ROCr's Runtime::CopyMemory / CopyMemoryOnEngine /
// FillMemory with the blit objects behind them (runtime.cpp, amd_gpu_agent.cpp DmaCopy / GetBlitObject,
// amd_blit_sdma.cpp, amd_blit_kernel.cpp). The public face of the copy path; its parts are the choice of engine
// (copy_engine.h), the engine queues (copy_channel.h) and the pin table for unregistered host memory (pin_table.h).
//
// A copy from the C API (Copy) looks each side up in the runtime's allocations (Runtime::FindPointer) for one bounds
// check, picks the engine as ROCr does (rocm_facts.md §5.1), makes both sides reachable by that GPU
// (GpuAccess::Acquire asks the thunk, to map or pin it), and publishes the whole copy to the engine's queue without
// waiting for it. A copy whose caller resolved its sides already (CopyResolved, CopyRectResolved: clr, which looked
// each pointer up once for a hipMemcpy or a hipMemcpy2D/3D) is neither looked up nor checked again; only a side not
// known to be mapped on the copying GPU -- pageable memory, another GPU's VRAM -- goes to the thunk (the pin table).
// The packets:
//   SDMA          POLL_REGMEM until each dependency signal's value is 0 (both halves), [TIMESTAMP start],
//                 COPY_LINEAR..., [TIMESTAMP end], ATOMIC add -1 on the completion signal, then FENCE + TRAP
//                 on the signal's event when it has one (so a sleeping waiter wakes).
//   blit kernel   BARRIER_AND packets on the dependency signals, then the copy kernel's KERNEL_DISPATCH with
//                 the completion signal as its completion_signal (the CP decrements it and interrupts).
// The caller never blocks on a dependency, except for a copy between two CPU agents, which ROCr's CpuAgent
// runs on the calling thread (waits, memmove, decrement).
//
// Each engine queue has a watcher thread that retires finished copies (dropping the pins of host memory that
// had to be registered for them) and catches the queue's VM faults: a copy whose queue faulted -- and every
// copy queued behind it -- gets its completion signal set to -1, and the queue is rebuilt on the next use.
// Thread-safe.
#ifndef HIPMEM_HSA_COPY_H_
#define HIPMEM_HSA_COPY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "hsa/copy_engine.h"
#include "hsa/runtime.h"
#include "hsa/signal.h"

namespace hipmem::hsa {

class CopyChannel;
class PinTable;
struct Hold;

struct CopyRequest {
  DeviceAddress dst{0};
  AgentId dst_agent{0};
  DeviceAddress src{0};
  AgentId src_agent{0};
  Bytes size;
  std::span<const SignalRef> dependencies = {};
  const SignalRef* completion = nullptr;  // required
};

// One side of a copy its caller has resolved and bounds-checked (issue #26: each pointer is looked up once, at the
// top of a hipMemcpy). `reach` says where the GPUs already reach it, so that the side needs no lookup below.
struct ResolvedSide {
  enum class Reach : uint8_t {
    kUnknown,   // ask the thunk: runtime memory is mapped on demand, other host memory pinned (the pin table)
    kOwner,     // mapped on `agent`, a GPU (its own VRAM, always mapped there)
    kEveryGpu,  // mapped on every GPU (system memory the runtime allocated; host memory locked for every GPU)
  };
  DeviceAddress host{0};  // where the CPU reaches it (a copy the CPU runs uses this)
  DeviceAddress gpu{0};   // where the GPUs reach it (differs from `host` for registered memory only)
  AgentId agent{0};       // its owner: the GPU for VRAM, else the CPU agent
  Reach reach = Reach::kUnknown;
};

// A copy whose sides the caller resolved: `size` bytes from `src` to `dst`, both within their objects.
struct ResolvedCopyRequest {
  ResolvedSide dst;
  ResolvedSide src;
  Bytes size;
  std::span<const SignalRef> dependencies = {};
  const SignalRef* completion = nullptr;  // required
};

// hsa_amd_copy_direction_t: which SDMA engine a rectangle copy runs on (host-to-device's, else device-to-host's).
enum class CopyDirection : uint32_t { kHostToHost = 0, kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3 };

// hsa_pitched_ptr_t: a surface of rows `pitch` bytes apart and slices `slice` bytes apart.
struct PitchedPointer {
  DeviceAddress base{0};
  uint64_t pitch = 0;
  uint64_t slice = 0;
};

// hsa_dim3_t.
struct Dim3 {
  uint32_t x = 0, y = 0, z = 0;
};

// One surface of a rectangle copy whose caller resolved it (issue #26: clr, which looked the pointer up once for a
// hipMemcpy2D/3D or hipMemset2D/3D): its base as a ResolvedSide, and the distance from one row, and one slice, to the
// next. The caller checked that the box stays within the object the base is in.
struct ResolvedSurface {
  ResolvedSide base;
  Bytes pitch;
  Bytes slice;
};

// hsa_amd_memory_async_copy_rect's arguments: the box `range` (x bytes, y rows, z slices) from `src` at
// `src_offset` (x bytes, y rows, z slices) to `dst` at `dst_offset`, on `copy_agent`'s SDMA engines. A template over
// the surfaces, so that the C API's bare ones and a caller's resolved ones are the same request.
template <typename Surface>
struct RectRequest {
  Surface dst;
  Dim3 dst_offset;
  Surface src;
  Dim3 src_offset;
  Dim3 range;
  AgentId copy_agent{0};
  CopyDirection direction = CopyDirection::kHostToDevice;
  std::span<const SignalRef> dependencies = {};
  const SignalRef* completion = nullptr;  // required
};
using CopyRectRequest = RectRequest<PitchedPointer>;
// A rectangle copy whose surfaces the caller resolved.
using ResolvedCopyRectRequest = RectRequest<ResolvedSurface>;

// One copy of a batch operation (hsa_amd_memory_copy_op_t of type LINEAR: its single copy, or one entry of its
// lists).
struct BatchCopyEntry {
  DeviceAddress dst{0};
  AgentId dst_agent{0};
  DeviceAddress src{0};
  Bytes size;
};

// One operation of hsa_amd_memory_async_batch_copy: its copies, all from `src_agent`'s side, completing together.
struct BatchCopyOp {
  AgentId src_agent{0};
  std::vector<BatchCopyEntry> entries;
  const SignalRef* completion = nullptr;  // required; decremented once when every entry has landed
  // LINEAR_BROADCAST (one source to every entry's destination): an SDMA operation, which ROCr refuses with
  // INVALID_ARGUMENT where SDMA is off.
  bool broadcast = false;
};

// hsa_amd_profiling_async_copy_time_t, in the system timestamp domain (nanoseconds).
struct CopyTime {
  uint64_t start;
  uint64_t end;
};

class Copies {
 public:
  // Copies on `runtime`'s GPUs; `runtime` and `signals` must outlive it. Reads the environment once.
  static std::unique_ptr<Copies> Create(Runtime& runtime, SignalAllocator& signals,
                                        CopyFlags flags = CopyFlags::FromEnvironment());
  // Stops the watchers and destroys the queues. Copies still queued are abandoned (their signals keep their
  // values); the caller waits for what it needs first, as with ROCr's hsa_shut_down.
  ~Copies();
  Copies(const Copies&) = delete;
  Copies& operator=(const Copies&) = delete;

  // hsa_amd_memory_async_copy: returns once the copy is queued. Errors (nothing is queued, the signal keeps
  // its value): kInvalidArgument for a null pointer or no completion signal; InvalidAgentError for an unknown
  // agent; kOutOfRange when a side runs past the allocation it starts in; the engine's setup and mapping
  // errors (GpuAccess::Acquire's: kInvalidArgument for a peer's VRAM without a link, ...).
  absl::Status Copy(const CopyRequest& request);

  // As Copy, for a caller that resolved both sides and checked their bounds (clr's blit manager): no address
  // lookup and no bounds check here; a side the copying GPU does not reach yet (ResolvedSide::Reach) is mapped or pinned
  // as Copy does. Errors: kInvalidArgument for no completion signal; InvalidAgentError for an unknown agent; the
  // engine's setup and mapping errors.
  absl::Status CopyResolved(const ResolvedCopyRequest& request);

  // hsa_memory_copy: copies and returns when the bytes have landed. The sides' agents are the owners of the
  // allocations they start in (the CPU for memory the runtime did not allocate). The engine: the GPU's blit
  // kernel inside one GPU's memory (ROCr's BlitDevToDev), the CPU between system memory, otherwise the engine
  // Copy would pick (an SDMA engine where allowed). Errors: kInvalidArgument for a null pointer (even for
  // size 0; size 0 is otherwise a no-op); kOutOfRange when a side runs past its allocation; the engine's setup
  // and mapping errors; kDataLoss when the copy faulted on the GPU.
  absl::Status CopySync(DeviceAddress dst, DeviceAddress src, Bytes size);

  // hsa_amd_memory_async_copy_on_engine: as Copy, on the SDMA engine `engine_mask` names (one bit of
  // hsa_amd_sdma_engine_id_t). ROCr's rules: a same-GPU copy runs on the blit kernel unless `force_sdma`;
  // with HSA_ENABLE_SDMA=0, or a peer copy with HSA_ENABLE_PEER_SDMA=0, on the blit kernel. Errors as Copy's,
  // plus kInvalidArgument when the mask is not one bit, names an engine the GPU does not have, or an XGMI
  // engine for a copy that is not between hive peers (or a PCIe engine for one that is).
  absl::Status CopyOnEngine(const CopyRequest& request, uint32_t engine_mask, bool force_sdma);

  // hsa_amd_memory_async_copy_rect (copy_rect.cc): queues the box as COPY_LINEAR_SUB_WINDOW packets on the copy
  // agent's host-to-device SDMA engine for kHostToDevice, its device-to-host one otherwise, and returns. A box
  // with a zero dimension is a no-op that leaves the signal alone (as ROCr). Errors, nothing queued:
  // kInvalidArgument for kHostToHost or an unknown direction, no completion signal, and ROCr's
  // SubmitCopyRectCommand checks (bases, pitches and slices 4-byte aligned; each side's x + width within its
  // pitch, y + height within slice / pitch; a slice on both sides for depth > 1; pitch and slice within the
  // packet's fields for the element size the box allows); InvalidAgentError for an unknown or CPU copy agent;
  // kResourceExhausted (OUT_OF_RESOURCES) when the agent's copies cannot run on SDMA (HSA_ENABLE_SDMA=0, a GPU
  // without a modelled SDMA packet format); kOutOfRange when a side's box runs past the allocation it starts
  // in; the engine's setup and mapping errors. Bounds each side, then runs the box as CopyRectResolved does.
  absl::Status CopyRect(const CopyRectRequest& request);

  // As CopyRect, for a caller that resolved both surfaces and checked the box's bounds on each (clr's blit manager):
  // no address lookup and no bounds check here; a side the copy agent does not reach yet (ResolvedSide::Reach) is
  // mapped or pinned as CopyRect does. Errors: CopyRect's, except kOutOfRange.
  absl::Status CopyRectResolved(const ResolvedCopyRectRequest& request);

  // hsa_amd_memory_async_batch_copy's LINEAR operations (copy_batch.cc), each after `dependencies`: an operation
  // runs on one SDMA engine of its copy GPU (the source agent if a GPU, else the first entry's destination
  // agent), the one PreferredEngine names, else the host-to-device engine for a copy from a CPU, else the
  // device-to-host one; its entries go in order and its completion signal is decremented once after the last.
  // Where the GPU's copies cannot use SDMA (HSA_ENABLE_SDMA=0, ...), as ROCr's fallback: the caller waits for
  // the dependencies, copies each entry with CopySync and decrements the signal before returning (a broadcast
  // is kInvalidArgument there). Between two
  // CPU agents, the calling thread copies. Every operation is checked before any is queued: kInvalidArgument
  // for no completion signal, no entries, or a null pointer; InvalidAgentError for an unknown agent; kOutOfRange
  // when an entry's side runs past its allocation. A later engine or mapping error leaves the operations
  // before it queued (as ROCr returns at the first failing operation).
  absl::Status BatchCopy(std::span<const BatchCopyOp> ops, std::span<const SignalRef> dependencies);

  // The engine Copy would use (ROCr's GetBlitObject). Errors: InvalidAgentError.
  absl::StatusOr<EngineChoice> ChooseEngine(AgentId dst_agent, AgentId src_agent, Bytes size) const;

  // hsa_amd_memory_copy_engine_status: the mask of the SDMA engines that could serve a copy between the two
  // agents and have nothing queued. Errors: InvalidAgentError for an unknown agent, the same agent twice or
  // two CPUs; kResourceExhausted (OUT_OF_RESOURCES) when every such engine is busy.
  absl::StatusOr<uint32_t> EngineStatus(AgentId dst_agent, AgentId src_agent);

  // hsa_amd_memory_get_preferred_copy_engine: the io link's recommended_sdma_engine_id_mask where the
  // topology gives one, else the engine Copy picks for a large copy (0 when that is not an SDMA engine).
  // Errors: InvalidAgentError.
  absl::StatusOr<uint32_t> PreferredEngine(AgentId dst_agent, AgentId src_agent) const;

  // hsa_amd_memory_fill: fills `count` dwords at `ptr` with `value` and returns when done. VRAM is filled by
  // its GPU's blit fill kernel (ROCr's DmaFill), system memory by the CPU. Errors: kInvalidArgument for a
  // null or misaligned pointer; InvalidAllocationError for memory the runtime did not allocate; kOutOfRange
  // past the allocation; the engine's errors (kDataLoss on a VM fault).
  absl::Status Fill(DeviceAddress ptr, uint32_t value, uint64_t count);

  // hsa_amd_profiling_async_copy_enable. While enabled, every GPU copy runs on SDMA and brackets its
  // transfer with TIMESTAMP packets (the simulated compute CP writes no dispatch timestamps).
  void EnableProfiling(bool enable);
  bool profiling_enabled() const;

  // hsa_amd_profiling_get_async_copy_time: the start and end of the last profiled copy that completed
  // `signal`. Errors: InvalidSignalError when no profiled copy completed it yet.
  absl::StatusOr<CopyTime> GetCopyTime(const SignalRef& signal);

  // hsa_amd_profiling_convert_tick_to_system_domain: `tick` of `gpu`'s clock counter in system nanoseconds
  // (HSA_SYSTEM_INFO_TIMESTAMP's CLOCK_MONOTONIC). Errors: InvalidAgentError for an unknown agent or a CPU;
  // GetClockCounters'.
  absl::StatusOr<uint64_t> TickToSystem(AgentId gpu, uint64_t tick);

 private:
  struct ClockSample {
    uint64_t gpu_ticks;
    uint64_t raw_ns;     // CLOCK_MONOTONIC_RAW, as the kernel read it
  };

  Copies(Runtime& runtime, SignalAllocator& signals, CopyFlags flags);

  absl::Status Submit(const CopyRequest& request, const EngineChoice& choice);
  // Submit after the argument and bounds checks; `context` names the API call in traces and errors.
  absl::Status Launch(const ResolvedCopyRequest& request, const EngineChoice& choice, absl::string_view context);
  // The memory an SDMA packet stream touches: `size` bytes from `start`.
  struct SdmaRange {
    ResolvedSide start;
    Bytes size;
  };
  // Queues an SDMA packet stream on `gpu`'s SDMA engine `sdma_engine` over the memory `ranges` (each made
  // reachable by the GPU for the operation, as Reach does for a resolved side), with the dependency waits and the
  // completion as Launch does; `build` makes the stream from the ranges' GPU addresses, in order, once they are
  // reachable.
  using SdmaStreamBuilder = std::function<absl::StatusOr<std::vector<uint32_t>>(std::span<const uint64_t> gpu)>;
  absl::Status LaunchSdma(const Agent& gpu, uint32_t sdma_engine, std::span<const SdmaRange> ranges,
                          const SdmaStreamBuilder& build, std::span<const SignalRef> dependencies,
                          const SignalRef& completion, absl::string_view context);
  // A rectangle copy past ROCr's argument checks (copy_rect.cc): its copy GPU, and where the box lies on each side,
  // in bytes from the surface's base.
  struct CheckedRect {
    const Agent* gpu;  // Not owned; the runtime's.
    Bytes dst_first, dst_size;
    Bytes src_first, src_size;
  };
  // ROCr's checks of a rectangle copy, in ROCr's order, for both ways in. Returns nullopt for a box with a zero
  // dimension, which ROCr accepts as a no-op before checking the surfaces. Errors: CopyRect's, except kOutOfRange
  // and the packet's field limits (LaunchRect's).
  absl::StatusOr<std::optional<CheckedRect>> CheckRect(const ResolvedCopyRectRequest& request,
                                                        absl::string_view context);
  // Queues a checked box (its sides bounded by the caller or by CopyRect): kInvalidArgument when a pitch or slice
  // does not fit the packet's fields, else the engine's setup and mapping errors.
  absl::Status LaunchRect(const ResolvedCopyRectRequest& request, const CheckedRect& rect, absl::string_view context);
  // Makes [address, address + size) reachable by `gpu` for one operation.
  absl::StatusOr<Hold> Reach(const Agent& gpu, DeviceAddress address, Bytes size);
  // Reach for a resolved side: no lookup when `side` is mapped on `gpu` already.
  absl::StatusOr<Hold> Reach(const Agent& gpu, const ResolvedSide& side, Bytes size);
  absl::StatusOr<CopyChannel*> GetChannel(AgentId gpu, CopyEngineKind kind, uint32_t sdma_engine);

  Runtime& runtime_;           // Not owned; must outlive this.
  SignalAllocator& signals_;  // Not owned; must outlive this.
  const EngineRules engines_;
  // Declared before channels_: the holds of queued operations, which channels_ drops, unpin through it.
  const std::unique_ptr<PinTable> pins_;

  mutable absl::Mutex mu_;
  // Read by every copy (twice on its way to the engine): an atomic, so that reading it takes no lock (issue #26).
  std::atomic<bool> profiling_{false};
  // By (GPU agent, engine): 0 is the blit kernel, n > 0 SDMA engine offset n.
  std::map<std::pair<uint64_t, uint32_t>, std::unique_ptr<CopyChannel>> channels_ ABSL_GUARDED_BY(mu_);
  // The GPU whose clock stamped each signal's last profiled copy, by signal handle.
  absl::flat_hash_map<uint64_t, AgentId> profiled_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, ClockSample> clock_origin_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_COPY_H_
