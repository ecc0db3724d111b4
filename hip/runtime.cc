#include "hip/runtime.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"

namespace hipmem::hip {
namespace {

thread_local int t_current_device = 0;
// Whether this thread chose its device with hipSetDevice (CLR's tls.isSetDeviceCalled): hipSetValidDevices
// then leaves it alone.
thread_local bool t_set_device_called = false;

// Every flag hipHostMalloc accepts (hip_runtime_api.h).
constexpr uint32_t kHostMallocKnownFlags = hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined |
                                           hipHostMallocNumaUser | hipHostMallocCoherent | hipHostMallocNonCoherent |
                                           hipHostMallocUncached;

bool ValidKind(MemcpyKind kind) {
  const auto raw = static_cast<uint32_t>(kind);
  return raw <= static_cast<uint32_t>(MemcpyKind::kDefault) || kind == MemcpyKind::kDeviceToDeviceNoCu;
}

DeviceAddress Address(const void* p) { return DeviceAddress::FromPointer(p); }

}  // namespace

absl::StatusOr<Runtime*> Runtime::Get() {
  // CLR starts its runtime once (std::call_once(g_ihipInitialized, hip::init)) and never again, even after a failure.
  // A start that failed (amd::Runtime::init: hsa_init failed, so ROCclr found no device backend) answers
  // hipErrorInvalidDevice to the one call that ran it (HIP_INIT); every later call passes HIP_INIT, finds
  // g_devices empty and answers hipErrorNoDevice. A start that found no GPU (none present, or all hidden by
  // HIP_VISIBLE_DEVICES) is a success with no device: hipErrorNoDevice for every call.
  bool started_here = false;
  // Never destroyed: HIP programs call into the runtime from atexit handlers and static destructors.
  static const absl::StatusOr<Runtime*>* const runtime = [&started_here]() -> absl::StatusOr<Runtime*>* {
    started_here = true;
    absl::StatusOr<std::unique_ptr<clr::Context>> context = clr::Context::Create();
    if (context.ok()) return new absl::StatusOr<Runtime*>(new Runtime(*std::move(context)));
    if (absl::IsNotFound(context.status())) {
      return new absl::StatusOr<Runtime*>(
          WithHipError(Recode(context.status(), absl::StatusCode::kFailedPrecondition), hipErrorNoDevice));
    }
    return new absl::StatusOr<Runtime*>(
        WithHipError(Recode(context.status(), absl::StatusCode::kInvalidArgument), hipErrorInvalidDevice));
  }();
  if (runtime->ok() || started_here || ToHipError(runtime->status()) == hipErrorNoDevice) return *runtime;
  return NoDeviceError(absl::StrCat("the HIP runtime failed to start, and is not retried: ", runtime->status().message()));
}

namespace {

// What each device allows hipDeviceSetLimit: ROCclr's stack ceiling for its ISA and its global memory size.
std::vector<DeviceLimits::Bounds> LimitBounds(const clr::Context& context) {
  std::vector<DeviceLimits::Bounds> bounds;
  for (const clr::Device& d : context.devices()) {
    bounds.push_back({DeviceLimits::MaxStackSizeFor(d.info.gfx_major), d.global_mem_size.raw()});
  }
  return bounds;
}

}  // namespace

Runtime::Runtime(std::unique_ptr<clr::Context> context)
    : context_(std::move(context)),
      streams_(std::make_unique<StreamTable>(*context_)),
      device_flags_(std::make_unique<std::atomic<uint32_t>[]>(context_->devices().size())),
      limits_(std::make_unique<DeviceLimits>(LimitBounds(*context_))),
      pools_(std::make_unique<PoolTable>(*context_)) {
  for (size_t i = 0; i < context_->devices().size(); ++i) device_flags_[i] = hipDeviceScheduleSpin;
}

Runtime::~Runtime() {
  streams_.reset();  // streams finish their work before the context goes
  pools_.reset();    // then the pools give their blocks back
}

int Runtime::DeviceOf(const void* ptr) const { return DeviceOf(context_->Resolve(Address(ptr))); }

int Runtime::DeviceOf(const clr::ResolvedPointer& pointer) {
  const std::optional<clr::MemObjRef>& ref = pointer.object;
  return ref.has_value() && ref->desc.kind == clr::MemoryKind::kDevice ? ref->desc.device : hipCpuDeviceId;
}

int Runtime::current_device() const { return t_current_device; }

const clr::Device& Runtime::CurrentDevice() const {
  // SetDevice only stores valid ordinals, and devices never go away.
  return context_->devices()[t_current_device];
}

absl::Status Runtime::SetDevice(int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) {
    return InvalidDeviceError(absl::StrCat("hipSetDevice(", ordinal, "): ", device_count(), " devices"));
  }
  t_current_device = ordinal;
  t_set_device_called = true;
  return absl::OkStatus();
}

absl::Status Runtime::SetValidDevices(const int* devices, int count) {
  if (count == 0) return absl::OkStatus();  // CLR keeps its default order
  if (devices == nullptr || count < 0 || count > device_count()) {
    return absl::InvalidArgumentError(absl::StrCat("hipSetValidDevices(", count, " entries): ", device_count(),
                                                   " devices"));
  }
  for (int i = 0; i < count; ++i) {
    if (devices[i] < 0 || devices[i] >= device_count()) {
      return InvalidDeviceError(absl::StrCat("hipSetValidDevices: entry ", i, " is device ", devices[i], " of ",
                                             device_count()));
    }
  }
  if (!t_set_device_called) t_current_device = devices[0];
  return absl::OkStatus();
}

absl::StatusOr<const clr::DeviceInfo*> Runtime::GetDeviceInfo(int ordinal) const {
  if (ordinal < 0 || ordinal >= device_count()) {
    return InvalidDeviceError(absl::StrCat("device ", ordinal, ": there are ", device_count(), " devices"));
  }
  return &context_->devices()[ordinal].info;
}

uint32_t Runtime::device_flags() const { return device_flags_[t_current_device].load(); }

absl::Status Runtime::SetDeviceFlags(uint32_t flags) { return SetDeviceFlags(t_current_device, flags); }

absl::Status Runtime::SetDeviceFlags(int ordinal, uint32_t flags) {
  if (ordinal < 0 || ordinal >= device_count()) {
    return InvalidDeviceError(absl::StrCat("device ", ordinal, ": there are ", device_count(), " devices"));
  }
  constexpr uint32_t kSupported = hipDeviceScheduleMask | hipDeviceMapHost | hipDeviceLmemResizeToMax;
  if ((flags & ~kSupported) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("hipSetDeviceFlags(0x", absl::Hex(flags), "): unknown flag bits"));
  }
  // At most one of Spin, Yield and BlockingSync (Auto is none of them).
  const uint32_t schedule = flags & hipDeviceScheduleMask;
  if ((schedule & (schedule - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("hipSetDeviceFlags(0x", absl::Hex(flags), "): more than one scheduling mode"));
  }
  device_flags_[ordinal] = schedule;
  // CLR's hipSetDeviceFlags: Spin and Yield wait actively, BlockingSync sleeps, and Auto waits actively unless the
  // process has at least as many GPUs as the host has hardware threads.
  bool active = schedule != hipDeviceScheduleBlockingSync;
  if (schedule == hipDeviceScheduleAuto) active = static_cast<unsigned>(device_count()) < std::thread::hardware_concurrency();
  context_->SetActiveWait(ordinal, active);
  return absl::OkStatus();
}

absl::Status Runtime::DeviceReset() {
  const clr::Device& device = CurrentDevice();
  // After a GPU memory fault the device's work is lost, not pending: the reset goes on and ends the sticky error,
  // as CUDA's does, with streams made afresh.
  const bool faulted = !context_->faults().Error(device.agent).ok();
  if (absl::Status synced = streams_->SynchronizeDevice(device.ordinal); !synced.ok() && !faulted) return synced;
  streams_->DestroyDeviceStreams(device.ordinal);
  streams_->DropCooperative(device.ordinal);
  if (faulted) {
    streams_->DropFailedDefaultStreams(device.ordinal);
    context_->faults().Clear(device.agent);
  }
  pools_->DropDevice(device.ordinal);  // its pools' blocks go with the rest of the device's memory
  RETURN_IF_ERROR(context_->FreeDeviceMemory(device));
  device_flags_[device.ordinal] = hipDeviceScheduleSpin;
  context_->SetActiveWait(device.ordinal, true);
  Trace(Layer::kHip, "hipDeviceReset: device ", device.ordinal, " synchronized, its streams destroyed, its device memory freed");
  return absl::OkStatus();
}

absl::StatusOr<bool> Runtime::CanAccessPeer(int device, int peer) const {
  if (device == peer) return false;  // CLR answers 0 for itself before checking the ordinal
  for (int ordinal : {device, peer}) {
    if (ordinal < 0 || ordinal >= device_count()) {
      return InvalidDeviceError(absl::StrCat("device ", ordinal, ": there are ", device_count(), " devices"));
    }
  }
  return context_->CanAccessPeer(context_->devices()[device], context_->devices()[peer]);
}

absl::Status Runtime::EnablePeerAccess(int peer, uint32_t flags) {
  if (flags != 0) return absl::InvalidArgumentError(absl::StrCat("hipDeviceEnablePeerAccess: flags ", flags));
  const clr::Device& device = CurrentDevice();
  ASSIGN_OR_RETURN(const bool can, CanAccessPeer(device.ordinal, peer));
  if (!can) {
    return InvalidDeviceError(absl::StrCat("device ", device.ordinal, " cannot access device ", peer, "'s memory"));
  }
  absl::Status status = context_->EnablePeerAccess(device, context_->devices()[peer]);
  if (absl::IsAlreadyExists(status)) return WithHipError(status, hipErrorPeerAccessAlreadyEnabled);
  return status;
}

absl::Status Runtime::DisablePeerAccess(int peer) {
  const clr::Device& device = CurrentDevice();
  ASSIGN_OR_RETURN(const bool can, CanAccessPeer(device.ordinal, peer));
  if (!can) {
    return InvalidDeviceError(absl::StrCat("device ", device.ordinal, " cannot access device ", peer, "'s memory"));
  }
  absl::Status status = context_->DisablePeerAccess(device, context_->devices()[peer]);
  if (absl::IsNotFound(status)) return WithHipError(status, hipErrorPeerAccessNotEnabled);
  return status;
}

absl::StatusOr<clr::Context::PeerLink> Runtime::PeerLink(int device1, int device2) const {
  for (int ordinal : {device1, device2}) {
    if (ordinal < 0 || ordinal >= device_count()) {
      return InvalidDeviceError(absl::StrCat("device ", ordinal, ": there are ", device_count(), " devices"));
    }
  }
  return context_->GetPeerLink(context_->devices()[device1], context_->devices()[device2]);
}

absl::StatusOr<void*> Runtime::Malloc(size_t size) {
  if (size == 0) return nullptr;
  const clr::Device& device = CurrentDevice();
  // The caller's, until hipFree.
  absl::StatusOr<DeviceAddress> base = clr::Released(context_->AllocDevice(device, Bytes(size), 0));
  if (!base.ok()) {
    return Recode(Annotate(base.status(), absl::StrCat("hipMalloc(", size, ")")), absl::StatusCode::kResourceExhausted);
  }
  if (TraceEnabled()) Trace(Layer::kHip, "hipMalloc(", size, ") -> ", AddressText(*base));
  return base->ToPointer();
}

absl::StatusOr<void*> Runtime::HostMalloc(size_t size, uint32_t flags) {
  const std::string context = absl::StrCat("hipHostMalloc(", size, ", flags=0x", absl::Hex(flags), ")");
  if ((flags & ~kHostMallocKnownFlags) != 0) return absl::InvalidArgumentError(absl::StrCat(context, ": unknown flags"));
  if ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent)) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": Coherent and NonCoherent together"));
  }
  // Uncached memory has its own coherence: CLR refuses it with either coherence flag.
  if ((flags & hipHostMallocUncached) && (flags & (hipHostMallocCoherent | hipHostMallocNonCoherent))) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": Uncached with a coherence flag"));
  }
  if (size == 0) return nullptr;
  const clr::HostCoherence coherence = (flags & hipHostMallocUncached)      ? clr::HostCoherence::kUncached
                                       : (flags & hipHostMallocNonCoherent) ? clr::HostCoherence::kNonCoherent
                                                                            : clr::HostCoherence::kCoherent;
  // The caller's, until hipHostFree.
  absl::StatusOr<DeviceAddress> base = clr::Released(context_->AllocHost(CurrentDevice(), Bytes(size), coherence, flags));
  if (!base.ok()) return Recode(Annotate(base.status(), context), absl::StatusCode::kResourceExhausted);
  Trace(Layer::kHip, context, " -> ", AddressText(*base));
  return base->ToPointer();
}

absl::Status Runtime::Free(void* ptr) {
  if (ptr == nullptr) return absl::OkStatus();
  const PoolTable::Hold pool_hold = pools_->Classify(ptr);
  if (pool_hold == PoolTable::Hold::kBusy) {
    // Pool memory goes back to its pool after the device's work, reusable on any stream (CLR's FreeMemory
    // without an event).
    const int device = DeviceOf(ptr);
    if (device >= 0) RETURN_IF_ERROR(Annotate(streams_->SynchronizeDevice(device), "hipFree"));
    absl::Status freed = pools_->Free(ptr, nullptr);
    // Another thread's free won the race: a double free, hipErrorInvalidValue as for any unknown pointer.
    return absl::IsNotFound(freed) ? Recode(freed, absl::StatusCode::kInvalidArgument) : freed;
  }
  if (pool_hold == PoolTable::Hold::kPool) {
    // A block already back in its pool: the pool owns it now.
    return absl::InvalidArgumentError(absl::StrCat("hipFree(", AddressText(ptr), "): freed already (in a memory pool)"));
  }
  // CLR's hipFree synchronises the owning device's streams first: queued work may still use the memory.
  if (const std::optional<clr::MemObjRef> ref = context_->Find(Address(ptr)); ref.has_value()) {
    if (ref->desc.kind == clr::MemoryKind::kManaged) {
      // Every device's streams may hold a prefetch of managed memory (it runs on the target device's stream).
      for (const clr::Device& device : context_->devices()) {
        RETURN_IF_ERROR(Annotate(streams_->SynchronizeDevice(device.ordinal), "hipFree"));
      }
    } else {
      RETURN_IF_ERROR(Annotate(streams_->SynchronizeDevice(ref->desc.device), "hipFree"));
    }
  }
  absl::Status s = context_->Free(Address(ptr));
  // Unknown, interior, freed, or registered memory (hipHostUnregister releases that): hipErrorInvalidValue.
  if (absl::IsNotFound(s) || absl::IsFailedPrecondition(s)) {
    return Recode(Annotate(s, absl::StrCat("hipFree(", AddressText(ptr), ")")), absl::StatusCode::kInvalidArgument);
  }
  RETURN_IF_ERROR(s);
  if (TraceEnabled()) Trace(Layer::kHip, "hipFree(", AddressText(ptr), ")");
  return absl::OkStatus();
}

bool Runtime::NeedsPeerStaging(int dst_device, int src_device) const {
  if (dst_device < 0 || src_device < 0 || dst_device == src_device) return false;
  return !context_->PeerAccessEnabled(context_->devices()[dst_device], context_->devices()[src_device]);
}

absl::Status Runtime::StagedPeerCopy(void* dst, int dst_device, const void* src, int src_device, size_t size) {
  for (int device : {current_device(), dst_device, src_device}) RETURN_IF_ERROR(streams_->SynchronizeDevice(device));
  const Bytes chunk = std::min(Bytes(size), context_->settings().staged_xfer_size);
  ASSIGN_OR_RETURN(clr::Allocation staging_memory,
                   context_->AllocHost(context_->devices()[src_device], chunk, clr::HostCoherence::kCoherent, 0));
  const DeviceAddress staging = staging_memory.address();
  absl::Status result;
  for (size_t done = 0; done < size && result.ok(); done += chunk.raw()) {
    const size_t n = std::min<size_t>(chunk.raw(), size - done);
    result = Memcpy(staging.ToPointer(), static_cast<const char*>(src) + done, n, MemcpyKind::kDeviceToHost);
    if (result.ok()) result = Memcpy(static_cast<char*>(dst) + done, staging.ToPointer(), n, MemcpyKind::kHostToDevice);
  }
  absl::Status freed = std::move(staging_memory).Free();
  RETURN_IF_ERROR(result);
  if (TraceEnabled()) {
    Trace(Layer::kHip, "device ", src_device, " -> device ", dst_device, ": no peer path, staged through host memory in ",
          chunk.raw(), " B chunks");
  }
  return freed;
}

absl::Status Runtime::Memcpy(void* dst, const void* src, size_t size, MemcpyKind kind) {
  // Formatted only for an error or the trace: a small copy's whole cost is a few microseconds.
  auto context = [&] {
    return absl::StrCat("hipMemcpy(", AddressText(dst), ", ", AddressText(src), ", ", size, ", kind=",
                        static_cast<uint32_t>(kind), ")");
  };
  if (size == 0) return absl::OkStatus();
  if (dst == nullptr || src == nullptr) return absl::InvalidArgumentError(absl::StrCat(context(), ": null pointer"));
  if (!ValidKind(kind)) return InvalidMemcpyDirectionError(absl::StrCat(context(), ": not a hipMemcpyKind"));
  if (dst == src && kind == MemcpyKind::kDefault) return absl::OkStatus();
  // Each pointer once, here; everything below takes the resolved pointers (issue #26).
  const clr::ResolvedPointer d = context_->Resolve(Address(dst));
  const clr::ResolvedPointer s = context_->Resolve(Address(src));
  if (!d.object.has_value() && !s.object.has_value() && kind != MemcpyKind::kHostToHost &&
      kind != MemcpyKind::kDefault) {
    // Neither side is memory HIP knows, and the (simulated) device cannot reach pageable memory.
    return absl::InvalidArgumentError(absl::StrCat(context(), ": neither pointer is device-accessible"));
  }
  // On the null stream of the device whose memory it touches (CLR sends a copy to the memory's device), after
  // the legacy stream's implicit waits; then hipMemcpy waits for its own command, except a copy inside one
  // device, which CLR leaves running.
  const int dst_device = DeviceOf(d);
  const int src_device = DeviceOf(s);
  if (NeedsPeerStaging(dst_device, src_device)) {
    return Annotate(StagedPeerCopy(dst, dst_device, src, src_device, size), context());
  }
  const int device = dst_device >= 0 ? dst_device : (src_device >= 0 ? src_device : current_device());
  ASSIGN_OR_RETURN(HipStream * stream, streams_->Resolve(kNullStreamHandle, device));
  RETURN_IF_ERROR(streams_->BeforeCommand(*stream));
  absl::StatusOr<clr::CopyPath> path = stream->blit().Copy(d, s, Bytes(size), kind == MemcpyKind::kDeviceToDeviceNoCu);
  if (absl::IsOutOfRange(path.status())) return Recode(Annotate(path.status(), context()), absl::StatusCode::kInvalidArgument);
  if (!path.ok()) return Annotate(path.status(), context());
  if (TraceEnabled()) Trace(Layer::kHip, context(), ": ", clr::CopyPathName(*path));
  if (dst_device >= 0 && dst_device == src_device) {
    // Unless both allocations asked for synchronous memory operations (HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS).
    if (!(d.object.has_value() && s.object.has_value() && d.object->desc.sync_mem_ops && s.object->desc.sync_mem_ops)) {
      return absl::OkStatus();
    }
  }
  if (absl::Status waited = DeviceFaultAsHip(stream->queue().WaitForQueued()); !waited.ok()) {
    return Annotate(waited, context());
  }
  return absl::OkStatus();
}

absl::Status Runtime::MemcpyAsync(void* dst, const void* src, size_t size, MemcpyKind kind, StreamHandle handle) {
  // Formatted only for an error or the trace: it would cost more than queuing a small copy.
  auto context = [&] {
    return absl::StrCat("hipMemcpyAsync(", AddressText(dst), ", ", AddressText(src), ", ", size, ", kind=",
                        static_cast<uint32_t>(kind), ")");
  };
  ASSIGN_OR_RETURN(HipStream * stream, streams_->Resolve(handle, current_device()));
  if (size == 0) return absl::OkStatus();
  if (dst == nullptr || src == nullptr) return absl::InvalidArgumentError(absl::StrCat(context(), ": null pointer"));
  if (!ValidKind(kind)) return InvalidMemcpyDirectionError(absl::StrCat(context(), ": not a hipMemcpyKind"));
  if (dst == src && kind == MemcpyKind::kDefault) return absl::OkStatus();
  // Each pointer once, here; everything below takes the resolved pointers (issue #26).
  const clr::ResolvedPointer d = context_->Resolve(Address(dst));
  const clr::ResolvedPointer s = context_->Resolve(Address(src));
  const int dst_device = DeviceOf(d);
  const int src_device = DeviceOf(s);
  if (NeedsPeerStaging(dst_device, src_device)) {
    // CLR's staged P2P copy blocks the host whatever the call; it runs after the caller's stream's work.
    return Annotate(StagedPeerCopy(dst, dst_device, src, src_device, size), context());
  }
  const int memory_device = dst_device >= 0 ? dst_device : src_device;
  HipStream* target = stream;
  if (memory_device >= 0 && memory_device != stream->device()) {
    // CLR queues it on the memory's device, after the caller's stream; the caller's later work waits for it.
    ASSIGN_OR_RETURN(target, streams_->Resolve(kNullStreamHandle, memory_device));
    ASSIGN_OR_RETURN(clr::Marker before, stream->queue().Record());
    RETURN_IF_ERROR(target->queue().WaitFor(before));
  }
  RETURN_IF_ERROR(streams_->BeforeCommand(*target));
  absl::StatusOr<clr::CopyPath> path =
      target->blit().Copy(d, s, Bytes(size), kind == MemcpyKind::kDeviceToDeviceNoCu);
  if (absl::IsOutOfRange(path.status())) return Recode(Annotate(path.status(), context()), absl::StatusCode::kInvalidArgument);
  if (!path.ok()) return Annotate(path.status(), context());
  if (TraceEnabled()) Trace(Layer::kHip, context(), ": ", clr::CopyPathName(*path));
  if (target != stream) {
    ASSIGN_OR_RETURN(clr::Marker after, target->queue().Record());
    RETURN_IF_ERROR(stream->queue().WaitFor(after));
  }
  return absl::OkStatus();
}

absl::Status Runtime::Memset(void* dst, uint32_t value, uint32_t element_size, size_t count, StreamHandle handle,
                             bool async) {
  const std::string context = absl::StrCat("hipMemset(", AddressText(dst), ", 0x", absl::Hex(value), ", ", count,
                                           " x ", element_size, " B)");
  ASSIGN_OR_RETURN(HipStream * stream, streams_->Resolve(handle, current_device()));
  // Size 0 succeeds before the pointer is looked at, null included (CLR's ihipMemset_validate).
  if (count == 0) return absl::OkStatus();
  if (dst == nullptr) return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer"));
  // Another device's memory is filled by that device, on its null stream, ordered after the caller's stream's work
  // and before its later work (as MemcpyAsync sends a copy to the memory's device): the caller's GPU may have no
  // path to that VRAM.
  // Looked up once, here; the blit manager fills the object it is handed (issue #26).
  const clr::ResolvedPointer d = context_->Resolve(Address(dst));
  HipStream* target = stream;
  if (const int owner = DeviceOf(d); owner >= 0 && owner != stream->device()) {
    ASSIGN_OR_RETURN(target, streams_->Resolve(kNullStreamHandle, owner));
    ASSIGN_OR_RETURN(clr::Marker before, stream->queue().Record());
    RETURN_IF_ERROR(target->queue().WaitFor(before));
  }
  RETURN_IF_ERROR(streams_->BeforeCommand(*target));
  absl::Status filled = target->blit().Fill(d, value, element_size, count);
  if (absl::IsOutOfRange(filled)) return Recode(Annotate(filled, context), absl::StatusCode::kInvalidArgument);
  RETURN_IF_ERROR(Annotate(filled, context));
  Trace(Layer::kHip, context);
  if (async && target == stream) return absl::OkStatus();
  ASSIGN_OR_RETURN(clr::Marker done, target->queue().Record());
  if (target != stream) RETURN_IF_ERROR(stream->queue().WaitFor(done));
  if (async) return absl::OkStatus();
  return Annotate(DeviceFaultAsHip(done.Wait()), context);
}

absl::Status Runtime::LaunchHostFunc(StreamHandle handle, std::function<void()> function) {
  ASSIGN_OR_RETURN(HipStream * stream, streams_->Resolve(handle, current_device()));
  if (!function) return absl::InvalidArgumentError("hipLaunchHostFunc: no function");
  RETURN_IF_ERROR(streams_->BeforeCommand(*stream));
  return stream->queue().HostFunction(std::move(function));
}

absl::Status Runtime::HostRegister(void* ptr, size_t size, uint32_t flags) {
  const std::string context =
      absl::StrCat("hipHostRegister(", AddressText(ptr), ", ", size, ", flags=0x", absl::Hex(flags), ")");
  // Portable | Mapped | IoMemory | ReadOnly/ExtCoarseGrained (one bit) | ExtUncached, as current CLR accepts them.
  // They choose how the GPUs cache the pages; the simulated GPUs are coherent with the CPU whatever they say.
  constexpr uint32_t kKnownFlags = 0xf | hipExtHostRegisterUncached;
  if (ptr == nullptr || size == 0 || (flags & ~kKnownFlags) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer, size 0 or unknown flags"));
  }
  absl::StatusOr<DeviceAddress> gpu = context_->RegisterHost(CurrentDevice(), Address(ptr), Bytes(size), flags);
  if (absl::IsAlreadyExists(gpu.status())) {
    return HostMemoryAlreadyRegisteredError(absl::StrCat(context, ": ", gpu.status().message()));
  }
  // A failed pin is hipErrorInvalidValue in CLR, whatever the KFD said.
  if (!gpu.ok()) return Recode(Annotate(gpu.status(), context), absl::StatusCode::kInvalidArgument);
  Trace(Layer::kHip, context, " -> GPUs use ", AddressText(*gpu));
  return absl::OkStatus();
}

absl::Status Runtime::HostUnregister(void* ptr) {
  if (ptr == nullptr) return absl::InvalidArgumentError("hipHostUnregister(nullptr)");
  const std::optional<clr::MemObjRef> ref = context_->Find(Address(ptr));
  // By the address it was registered at: not an interior pointer, nor its GPU address.
  if (!ref.has_value() || ref->desc.kind != clr::MemoryKind::kRegistered || ref->desc.range.base != Address(ptr)) {
    return HostMemoryNotRegisteredError(absl::StrCat("hipHostUnregister(", AddressText(ptr), "): not registered"));
  }
  // CLR synchronises the device first: queued copies may still read or write the pages.
  RETURN_IF_ERROR(streams_->SynchronizeDevice(ref->desc.device));
  absl::Status s = context_->UnregisterHost(Address(ptr));
  if (absl::IsNotFound(s)) return HostMemoryNotRegisteredError(s.message());
  return s;
}

absl::StatusOr<void*> Runtime::HostGetDevicePointer(void* ptr, uint32_t flags) const {
  const std::string context = absl::StrCat("hipHostGetDevicePointer(", AddressText(ptr), ", flags=", flags, ")");
  if (ptr == nullptr || flags != 0) return absl::InvalidArgumentError(absl::StrCat(context, ": null or flags"));
  const std::optional<clr::MemObjRef> ref = context_->Find(Address(ptr));
  if (!ref.has_value() || ref->desc.kind == clr::MemoryKind::kDevice) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": not host memory HIP allocated or registered"));
  }
  return (ref->desc.gpu_address + ref->offset).ToPointer();
}

absl::StatusOr<uint32_t> Runtime::HostGetFlags(const void* ptr) const {
  const std::optional<clr::MemObjRef> ref = context_->Find(Address(ptr));
  // CLR answers only for fine-grained SVM buffers (hipHostMalloc, hipMallocManaged): neither device memory nor
  // registered memory (a USE_HOST_PTR buffer) has host allocation flags.
  if (ptr == nullptr || !ref.has_value() || ref->desc.kind == clr::MemoryKind::kDevice ||
      ref->desc.kind == clr::MemoryKind::kRegistered) {
    return absl::InvalidArgumentError(
        absl::StrCat("hipHostGetFlags(", AddressText(ptr), "): not host memory HIP allocated"));
  }
  return ref->desc.user_flags;
}

absl::StatusOr<clr::MemInfo> Runtime::MemGetInfo() { return context_->GetMemInfo(CurrentDevice()); }

PointerAttributes Runtime::GetPointerAttributes(const void* ptr) const {
  PointerAttributes attributes;
  const std::optional<clr::MemObjRef> ref = context_->Find(Address(ptr));
  if (!ref.has_value()) return attributes;
  const bool host = ref->desc.kind != clr::MemoryKind::kDevice;
  attributes.type = host ? MemoryType::kHost : MemoryType::kDevice;
  if (ref->desc.kind == clr::MemoryKind::kManaged) {
    // CLR: a fine-grained SVM buffer with ALLOC_HOST_PTR (hipMallocManaged) is managed, reachable both ways.
    attributes.type = MemoryType::kManaged;
    attributes.is_managed = true;
  }
  attributes.device = ref->desc.device;
  // Where the GPUs see it: the same address, except for registered memory (its lock's GPU address).
  attributes.device_pointer = (ref->desc.gpu_address + ref->offset).ToPointer();
  // Where the CPU sees it (registered memory may be named by its GPU address).
  attributes.host_pointer = host ? (ref->desc.range.base + ref->offset).ToPointer() : nullptr;
  attributes.allocation_flags = ref->desc.user_flags;
  return attributes;
}

}  // namespace hipmem::hip
