#include "hsa/copy.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "gpu_abi/aql_packets.h"
#include "hsa/copy_channel.h"
#include "hsa/gpu_access.h"
#include "hsa/hsa_status.h"
#include "hsa/pin_table.h"
#include "hsa/runtime_kfd.h"
#include "thunk/clock.h"

namespace hipmem::hsa {
namespace {

namespace aql = ::hipmem::gpu_abi::aql;

uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

template <typename T>
absl::StatusOr<T> Annotated(absl::StatusOr<T> value, absl::string_view context) {
  if (!value.ok()) return Annotate(value.status(), context);
  return value;
}

bool IsGpu(const Agent& a) { return a.type == DeviceType::kGpu; }

// A C API copy's sides: nothing known about them, so Launch asks the thunk where the copying GPU reaches each.
ResolvedCopyRequest Unresolved(const CopyRequest& request) {
  return ResolvedCopyRequest{
      .dst = ResolvedSide{.host = request.dst, .gpu = request.dst, .agent = request.dst_agent},
      .src = ResolvedSide{.host = request.src, .gpu = request.src, .agent = request.src_agent},
      .size = request.size,
      .dependencies = request.dependencies,
      .completion = request.completion,
  };
}

}  // namespace

std::unique_ptr<Copies> Copies::Create(Runtime& runtime, SignalAllocator& signals, CopyFlags flags) {
  return std::unique_ptr<Copies>(new Copies(runtime, signals, flags));
}

Copies::Copies(Runtime& runtime, SignalAllocator& signals, CopyFlags flags)
    : runtime_(runtime), signals_(signals), engines_(runtime, flags), pins_(std::make_unique<PinTable>(KfdOf(runtime))) {
  // The first clock reading of each GPU: TickToSystem measures the GPU's counter rate from it.
  ScopedLock lock(&mu_);
  for (const Agent& agent : runtime_.agents()) {
    if (!IsGpu(agent)) continue;
    absl::StatusOr<thunk::ClockCounters> c = thunk::GetClockCounters(KfdOf(runtime_), KfdNodeOf(runtime_, agent));
    if (c.ok()) clock_origin_.emplace(agent.id.raw(), ClockSample{c->gpu_clock_counter, c->cpu_clock_counter});
  }
}

Copies::~Copies() {
  ScopedLock lock(&mu_);
  channels_.clear();
}

absl::StatusOr<EngineChoice> Copies::ChooseEngine(AgentId dst_agent, AgentId src_agent, Bytes size) const {
  return engines_.Choose(dst_agent, src_agent, size, profiling_enabled());
}

absl::StatusOr<CopyChannel*> Copies::GetChannel(AgentId gpu, CopyEngineKind kind, uint32_t sdma_engine) {
  ASSIGN_OR_RETURN(const Agent* agent, runtime_.GetAgent(gpu));
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *agent);
  if (node == nullptr) return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(gpu.raw()), " has no node"));
  const uint32_t key = kind == CopyEngineKind::kSdma ? sdma_engine : 0;
  ScopedLock lock(&mu_);
  auto it = channels_.find({gpu.raw(), key});
  if (it != channels_.end()) return it->second.get();
  const bool xgmi = kind == CopyEngineKind::kSdma && sdma_engine > node->Get("num_sdma_engines");
  ASSIGN_OR_RETURN(std::unique_ptr<CopyChannel> channel, CopyChannel::Create(KfdOf(runtime_), *node, kind, xgmi));
  return channels_.emplace(std::make_pair(gpu.raw(), key), std::move(channel)).first->second.get();
}

absl::Status Copies::Copy(const CopyRequest& request) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_memory_async_copy");
  ASSIGN_OR_RETURN(const EngineChoice choice, ChooseEngine(request.dst_agent, request.src_agent, request.size));
  return Submit(request, choice);
}

absl::Status Copies::CopyResolved(const ResolvedCopyRequest& request) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_memory_async_copy");
  if (request.completion == nullptr) return absl::InvalidArgumentError("async copy: no completion signal");
  ASSIGN_OR_RETURN(const EngineChoice choice, ChooseEngine(request.dst.agent, request.src.agent, request.size));
  // Named as the C entry point would be: errors and traces read the same on both ways in.
  const std::string context = absl::StrCat("hsa_amd_memory_async_copy(dst=", AddressText(request.dst.gpu),
                                           ", src=", AddressText(request.src.gpu), ", size=", request.size.raw(), ")");
  return Launch(request, choice, context);
}

absl::Status Copies::CopyOnEngine(const CopyRequest& request, uint32_t engine_mask, bool force_sdma) {
  ASSIGN_OR_RETURN(const EngineChoice choice,
                   engines_.ChooseOnEngine(request.dst_agent, request.src_agent, engine_mask, force_sdma));
  return Submit(request, choice);
}

absl::Status Copies::Submit(const CopyRequest& request, const EngineChoice& choice) {
  const std::string context = absl::StrCat("hsa_amd_memory_async_copy(dst=", AddressText(request.dst),
                                           ", src=", AddressText(request.src), ", size=", request.size.raw(), ")");
  if (request.dst.raw() == 0 || request.src.raw() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer"));
  }
  if (request.completion == nullptr) return absl::InvalidArgumentError(absl::StrCat(context, ": no completion signal"));
  // Each side once: one lookup, one bounds check. Memory the runtime did not allocate is the caller's
  // (registered or plain host memory); GpuAccess pins what needs pinning.
  for (const DeviceAddress side : {request.src, request.dst}) {
    const std::optional<PointerInfo> info = runtime_.FindPointer(side);
    if (!info.has_value()) continue;
    const std::optional<DeviceAddress> end = CheckedAdd(side, request.size);
    if (!end.has_value() || *end > info->allocation.end()) {
      return absl::OutOfRangeError(
          absl::StrCat(context, ": runs past the allocation at ", AddressText(info->allocation.base)));
    }
  }
  return Launch(Unresolved(request), choice, context);
}

absl::Status Copies::Launch(const ResolvedCopyRequest& request, const EngineChoice& choice, absl::string_view context) {
  if (choice.kind == CopyEngineKind::kHost) {
    // ROCr's CpuAgent::DmaCopy: both sides are system memory, so the calling thread does it.
    Trace(Layer::kHsa, context, " on the calling CPU thread");
    for (const SignalRef& dep : request.dependencies) {
      dep.Wait(SignalCondition::kEq, 0, absl::InfiniteDuration(), WaitHint::kBlocked);
    }
    if (!request.size.is_zero()) {
      std::memmove(request.dst.host.ToPointer(), request.src.host.ToPointer(), request.size.raw());
    }
    request.completion->Apply(SignalOp::kSubtract, 1, MemoryOrder::kRelease);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(const Agent* gpu, runtime_.GetAgent(*choice.gpu));
  std::vector<Hold> holds;
  ChannelOp op;
  op.bytes = request.size.raw();
  if (!request.size.is_zero()) {
    ASSIGN_OR_RETURN(Hold from, Annotated(Reach(*gpu, request.src, request.size), context));
    op.src = from.gpu_address();
    holds.push_back(std::move(from));
    ASSIGN_OR_RETURN(Hold to, Annotated(Reach(*gpu, request.dst, request.size), context));
    op.dst = to.gpu_address();
    holds.push_back(std::move(to));
  }
  for (const SignalRef& dep : request.dependencies) op.dependencies.push_back(dep.handle().raw());
  op.completion = request.completion->handle().raw();
  op.profile = choice.kind == CopyEngineKind::kSdma && profiling_enabled();
  op.via_host = std::any_of(holds.begin(), holds.end(), [](const Hold& h) { return h.pin != nullptr; });
  absl::StatusOr<CopyChannel*> channel = GetChannel(gpu->id, choice.kind, choice.sdma_engine);
  EngineChoice used = choice;
  if (!channel.ok() && choice.kind == CopyEngineKind::kSdma) {
    // ROCr falls back to a blit kernel when its SDMA blit cannot be created (no free SDMA queue slot, ...).
    HIPMEM_LOG(kWarning, context, ": SDMA engine ", choice.sdma_engine, " unavailable (", channel.status().message(),
               "); using the blit kernel");
    used = EngineChoice{CopyEngineKind::kBlitKernel, gpu->id, 0};
    op.profile = false;
    channel = GetChannel(gpu->id, used.kind, 0);
  }
  if (!channel.ok()) return Annotate(channel.status(), context);
  if (op.profile) {
    ScopedLock lock(&mu_);
    profiled_.insert_or_assign(op.completion, gpu->id);
  }
  Trace(Layer::kHsa, context, " on ", used.kind == CopyEngineKind::kSdma ? "SDMA engine " : "the blit kernel",
        used.kind == CopyEngineKind::kSdma ? absl::StrCat(used.sdma_engine) : "", " of node ", KfdNodeOf(runtime_, *gpu).raw());
  return Annotate((*channel)->Submit(op, std::move(holds), *request.completion), context);
}

absl::Status Copies::LaunchSdma(const Agent& gpu, uint32_t sdma_engine, std::span<const SdmaRange> ranges,
                                const SdmaStreamBuilder& build, std::span<const SignalRef> dependencies,
                                const SignalRef& completion, absl::string_view context) {
  std::vector<Hold> holds;
  ChannelOp op;
  op.kind = ChannelOp::Kind::kSdmaStream;
  std::vector<uint64_t> gpu_addresses;
  for (const SdmaRange& range : ranges) {
    ASSIGN_OR_RETURN(Hold hold, Annotated(Reach(gpu, range.start, range.size), context));
    gpu_addresses.push_back(hold.gpu_address());
    op.stream_ranges.push_back(AddressRange{DeviceAddress(hold.gpu_address()), range.size});
    holds.push_back(std::move(hold));
  }
  ASSIGN_OR_RETURN(op.stream, Annotated(build(gpu_addresses), context));
  for (const SignalRef& dep : dependencies) op.dependencies.push_back(dep.handle().raw());
  op.completion = completion.handle().raw();
  op.profile = profiling_enabled();
  op.via_host = std::any_of(holds.begin(), holds.end(), [](const Hold& h) { return h.pin != nullptr; });
  // No blit-kernel fallback: the stream is SDMA packets (ROCr answers OUT_OF_RESOURCES without an SDMA blit).
  ASSIGN_OR_RETURN(CopyChannel * channel, Annotated(GetChannel(gpu.id, CopyEngineKind::kSdma, sdma_engine), context));
  if (op.profile) {
    ScopedLock lock(&mu_);
    profiled_.insert_or_assign(op.completion, gpu.id);
  }
  Trace(Layer::kHsa, context, " on SDMA engine ", sdma_engine, " of node ", KfdNodeOf(runtime_, gpu).raw());
  return Annotate(channel->Submit(std::move(op), std::move(holds), completion), context);
}

absl::StatusOr<Hold> Copies::Reach(const Agent& gpu, DeviceAddress address, Bytes size) {
  return pins_->Reach(KfdNodeOf(runtime_, gpu), address, size);
}

absl::StatusOr<Hold> Copies::Reach(const Agent& gpu, const ResolvedSide& side, Bytes size) {
  const bool mapped = side.reach == ResolvedSide::Reach::kEveryGpu ||
                      (side.reach == ResolvedSide::Reach::kOwner && side.agent == gpu.id);
  if (mapped) return Hold{nullptr, GpuAccess::AlreadyMapped(side.gpu)};
  // The CPU's address: the thunk finds registered memory by it, and pins pageable memory there.
  return Reach(gpu, side.host, size);
}

absl::StatusOr<uint32_t> Copies::EngineStatus(AgentId dst_id, AgentId src_id) {
  ASSIGN_OR_RETURN(const EngineCandidates candidates, engines_.StatusCandidates(dst_id, src_id));
  uint32_t mask = 0;
  for (uint32_t offset = candidates.first; offset <= candidates.last; ++offset) {
    CopyChannel* channel = nullptr;
    {
      ScopedLock lock(&mu_);
      auto it = channels_.find({candidates.gpu.raw(), offset});
      if (it != channels_.end()) channel = it->second.get();
    }
    // Channels are never removed while the runtime lives, so the pointer outlives the lock.
    if (channel == nullptr || channel->Idle()) mask |= 1u << (offset - 1);
  }
  if (mask == 0) return absl::ResourceExhaustedError("hsa_amd_memory_copy_engine_status: every engine is busy");
  return mask;
}

absl::StatusOr<uint32_t> Copies::PreferredEngine(AgentId dst_id, AgentId src_id) const {
  return engines_.Preferred(dst_id, src_id, profiling_enabled());
}

absl::Status Copies::Fill(DeviceAddress ptr, uint32_t value, uint64_t count) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_memory_fill");
  const std::string context =
      absl::StrCat("hsa_amd_memory_fill(ptr=", AddressText(ptr), ", value=0x", absl::Hex(value), ", count=", count, ")");
  if (ptr.raw() == 0) return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer"));
  if (ptr.raw() % 4 != 0) return absl::InvalidArgumentError(absl::StrCat(context, ": not 4-byte aligned"));
  if (count == 0) return absl::OkStatus();
  if (count > UINT64_MAX / 4) return absl::InvalidArgumentError(absl::StrCat(context, ": size overflows"));
  const Bytes size(count * 4);
  const std::optional<PointerInfo> info = runtime_.FindPointer(ptr);
  if (!info.has_value()) return InvalidAllocationError(absl::StrCat(context, ": not memory of this runtime"));
  const std::optional<DeviceAddress> end = CheckedAdd(ptr, size);
  if (!end.has_value() || *end > info->allocation.end()) {
    return absl::OutOfRangeError(absl::StrCat(context, ": runs past the allocation at ", AddressText(info->allocation.base)));
  }
  ASSIGN_OR_RETURN(const MemoryPool* pool, runtime_.GetPool(info->pool));
  if (pool->location != PoolLocation::kGpu) {
    // ROCr's CpuAgent::DmaFill: system memory is filled by the CPU.
    std::fill_n(static_cast<uint32_t*>(ptr.ToPointer()), count, value);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(const Agent* gpu, runtime_.GetAgent(pool->owner));
  ASSIGN_OR_RETURN(GpuAccess access, Annotated(GpuAccess::Acquire(KfdOf(runtime_), KfdNodeOf(runtime_, *gpu), ptr, size), context));
  ASSIGN_OR_RETURN(Signal done, Annotated(Signal::Create(signals_, 1), context));
  ChannelOp op{.kind = ChannelOp::Kind::kFill,
               .dst = access.gpu_address().raw(),
               .bytes = size.raw(),
               .fill_value = value,
               .completion = done->handle().raw()};
  std::vector<Hold> holds;
  holds.push_back(Hold{nullptr, std::move(access)});
  ASSIGN_OR_RETURN(CopyChannel * channel, Annotated(GetChannel(gpu->id, CopyEngineKind::kBlitKernel, 0), context));
  RETURN_IF_ERROR(Annotate(channel->Submit(op, std::move(holds), done.ref()), context));
  const SignalValue v = done->Wait(SignalCondition::kLt, 1, absl::InfiniteDuration(), WaitHint::kBlocked);
  if (v != 0) return absl::DataLossError(absl::StrCat(context, ": the fill failed on the GPU (signal ", v, ")"));
  return absl::OkStatus();
}

void Copies::EnableProfiling(bool enable) { profiling_.store(enable, std::memory_order_release); }

bool Copies::profiling_enabled() const { return profiling_.load(std::memory_order_acquire); }

absl::StatusOr<CopyTime> Copies::GetCopyTime(const SignalRef& signal) {
  std::optional<AgentId> gpu;
  {
    ScopedLock lock(&mu_);
    auto it = profiled_.find(signal.handle().raw());
    if (it != profiled_.end()) gpu = it->second;
  }
  if (!gpu.has_value()) {
    return InvalidSignalError(absl::StrCat("hsa_amd_profiling_get_async_copy_time(signal=0x",
                                           absl::Hex(signal.handle().raw()), "): no profiled copy completed it"));
  }
  const auto* abi = reinterpret_cast<const aql::AmdSignal*>(signal.handle().raw());
  const uint64_t start = std::atomic_ref<const uint64_t>(abi->start_ts).load(std::memory_order_acquire);
  const uint64_t end = std::atomic_ref<const uint64_t>(abi->end_ts).load(std::memory_order_acquire);
  ASSIGN_OR_RETURN(const uint64_t start_ns, TickToSystem(*gpu, start));
  ASSIGN_OR_RETURN(const uint64_t end_ns, TickToSystem(*gpu, end));
  return CopyTime{start_ns, end_ns};
}

absl::StatusOr<uint64_t> Copies::TickToSystem(AgentId gpu_id, uint64_t tick) {
  ASSIGN_OR_RETURN(const Agent* gpu, runtime_.GetAgent(gpu_id));
  if (!IsGpu(*gpu)) return InvalidAgentError("hsa_amd_profiling_convert_tick_to_system_domain: not a GPU agent");
  std::optional<ClockSample> origin;
  {
    ScopedLock lock(&mu_);
    auto it = clock_origin_.find(gpu_id.raw());
    if (it != clock_origin_.end()) origin = it->second;
  }
  // ROCr's TranslateTime: the GPU counter's rate from two readings far enough apart, then the tick placed
  // against the newer one. The system domain is CLOCK_MONOTONIC; the kernel's CPU counter is MONOTONIC_RAW,
  // so the newer reading is bracketed by two CLOCK_MONOTONIC reads.
  for (int attempt = 0;; ++attempt) {
    const uint64_t before = MonotonicNs();
    ASSIGN_OR_RETURN(const thunk::ClockCounters now, thunk::GetClockCounters(KfdOf(runtime_), KfdNodeOf(runtime_, *gpu)));
    const uint64_t after = MonotonicNs();
    if (!origin.has_value()) {
      ScopedLock lock(&mu_);
      origin = clock_origin_.emplace(gpu_id.raw(), ClockSample{now.gpu_clock_counter, now.cpu_clock_counter})
                   .first->second;
    }
    const uint64_t ticks = now.gpu_clock_counter - origin->gpu_ticks;
    if (ticks < 100'000 && attempt < 20) {  // too close for a precise rate: wait a little and read again
      absl::SleepFor(absl::Milliseconds(1));
      continue;
    }
    if (ticks == 0) return absl::InternalError("the GPU clock counter does not advance");
    const unsigned __int128 ns = now.cpu_clock_counter - origin->raw_ns;
    const __int128 delta = static_cast<__int128>(tick) - static_cast<__int128>(now.gpu_clock_counter);
    const __int128 offset = delta * static_cast<__int128>(ns) / static_cast<__int128>(ticks);
    const __int128 result = static_cast<__int128>(before + (after - before) / 2) + offset;
    return result < 0 ? 0 : static_cast<uint64_t>(result);
  }
}

absl::Status Copies::CopySync(DeviceAddress dst, DeviceAddress src, Bytes size) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_memory_copy");
  const std::string context =
      absl::StrCat("hsa_memory_copy(dst=", AddressText(dst), ", src=", AddressText(src), ", size=", size.raw(), ")");
  if (dst.raw() == 0 || src.raw() == 0) return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer"));
  if (size.is_zero()) return absl::OkStatus();
  // Host memory the runtime did not allocate belongs to the CPU agent: the caller vouches for it, and the
  // engine pins it for the copy.
  const Agent* cpu = nullptr;
  for (const Agent& agent : runtime_.agents()) {
    if (!IsGpu(agent)) {
      cpu = &agent;
      break;
    }
  }
  if (cpu == nullptr) return InvalidAgentError(absl::StrCat(context, ": the runtime has no CPU agent"));
  // Each side once: its owner agent and one bounds check. Launch below does not look them up again.
  AgentId owners[2] = {cpu->id, cpu->id};
  const DeviceAddress sides[2] = {dst, src};
  for (int i = 0; i < 2; ++i) {
    const std::optional<PointerInfo> info = runtime_.FindPointer(sides[i]);
    if (!info.has_value()) continue;
    const std::optional<DeviceAddress> end = CheckedAdd(sides[i], size);
    if (!end.has_value() || *end > info->allocation.end()) {
      return absl::OutOfRangeError(
          absl::StrCat(context, ": runs past the allocation at ", AddressText(info->allocation.base)));
    }
    owners[i] = info->owner;
  }
  ASSIGN_OR_RETURN(const Agent* dst_agent, runtime_.GetAgent(owners[0]));
  // ROCr's GpuAgent::DmaCopy serves hsa_memory_copy inside one GPU's memory with its BlitDevToDev blit
  // kernel, whatever the size (the HSA_FORCE_SDMA_SIZE rule is the asynchronous path's).
  EngineChoice choice{CopyEngineKind::kBlitKernel, dst_agent->id, 0};
  if (owners[0] != owners[1] || !IsGpu(*dst_agent)) {
    ASSIGN_OR_RETURN(choice, ChooseEngine(owners[0], owners[1], size));
  }
  ASSIGN_OR_RETURN(Signal done, Annotated(Signal::Create(signals_, 1), context));
  const CopyRequest request{dst, owners[0], src, owners[1], size, {}, &done.ref()};
  RETURN_IF_ERROR(Launch(Unresolved(request), choice, context));
  // hsa_memory_copy returns when the bytes have landed; a VM fault leaves the signal negative.
  const SignalValue v = done->Wait(SignalCondition::kLt, 1, absl::InfiniteDuration(), WaitHint::kBlocked);
  if (v != 0) return absl::DataLossError(absl::StrCat(context, ": the copy failed on the GPU (signal ", v, ")"));
  return absl::OkStatus();
}

}  // namespace hipmem::hsa
