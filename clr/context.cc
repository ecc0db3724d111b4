#include "clr/context.h"

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "clr/visible_devices.h"
#include "hsa/agent_info.h"
#include "hsa/memory.h"
#include "hsa/pool_path.h"

namespace hipmem::clr {
namespace {

Bytes Percent(Bytes b, uint64_t percent) {
  // Bytes x percent / 100 without overflow for any realistic VRAM size.
  return Bytes(b.raw() / 100 * percent + b.raw() % 100 * percent / 100);
}

absl::StatusOr<hsa::PoolId> FindPool(const hsa::Runtime& runtime, const hsa::Agent& agent, hsa::GlobalFlags flags) {
  for (hsa::PoolId id : agent.pools) {
    ASSIGN_OR_RETURN(const hsa::MemoryPool* pool, runtime.GetPool(id));
    if (pool->segment == hsa::Segment::kGlobal && pool->alloc_allowed && pool->global_flags == flags) return id;
  }
  return absl::NotFoundError(absl::StrCat("agent ", agent.name, " has no pool with global flags ", ToRaw(flags)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Context>> Context::Create() {
  absl::StatusOr<std::unique_ptr<hsa::Runtime>> runtime = hsa::Runtime::Create();
  // kNotFound means "no GPU" to the caller (hipErrorNoDevice). An HSA runtime that did not start -- no /dev/kfd, a
  // KFD open or topology read that failed -- is ROCclr's failed hsa_init instead, whatever errno it carries (ENOENT
  // for a missing /dev/kfd would read as kNotFound).
  if (!runtime.ok()) return Recode(runtime.status(), absl::StatusCode::kUnavailable);
  return Create(*std::move(runtime));
}

absl::StatusOr<std::unique_ptr<Context>> Context::Create(std::unique_ptr<hsa::Runtime> runtime) {
  const Settings settings = Settings::FromEnvironment();
  const hsa::Agent* cpu = nullptr;
  for (const hsa::Agent& agent : runtime->agents()) {
    if (agent.type == hsa::DeviceType::kCpu && !agent.pools.empty()) {
      cpu = &agent;
      break;
    }
  }
  if (cpu == nullptr) return absl::NotFoundError("no CPU agent with system memory pools");
  ASSIGN_OR_RETURN(hsa::PoolId host_pool, FindPool(*runtime, *cpu, hsa::GlobalFlags::kFineGrained));
  ASSIGN_OR_RETURN(hsa::PoolId host_coarse, FindPool(*runtime, *cpu, hsa::GlobalFlags::kCoarseGrained));
  const absl::StatusOr<hsa::PoolId> host_uncached =
      FindPool(*runtime, *cpu, hsa::GlobalFlags::kExtendedScopeFineGrained);
  std::vector<const hsa::Agent*> gpus;
  for (const hsa::Agent& agent : runtime->agents()) {
    if (agent.type == hsa::DeviceType::kGpu) gpus.push_back(&agent);
  }
  std::vector<Device> devices;
  // HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES choose and order the agents that become devices, by index or by
  // UUID (the agent's HSA_AMD_AGENT_INFO_UUID string).
  std::vector<std::string> uuids;
  for (const hsa::Agent* gpu : gpus) {
    ASSIGN_OR_RETURN(const hsa::AgentDescription d, hsa::DescribeRuntimeAgent(*runtime, *gpu));
    uuids.push_back(d.uuid);
  }
  const std::optional<std::string> visible = VisibleDevicesFromEnvironment();
  for (size_t index : VisibleDeviceOrder(visible, uuids)) {
    const hsa::Agent& agent = *gpus[index];
    ASSIGN_OR_RETURN(hsa::PoolId vram, FindPool(*runtime, agent, hsa::GlobalFlags::kCoarseGrained));
    ASSIGN_OR_RETURN(const hsa::MemoryPool* pool, runtime->GetPool(vram));
    const Bytes global = Percent(pool->size, settings.max_heap_percent);
    ASSIGN_OR_RETURN(DeviceInfo info, DescribeDevice(*runtime, agent, vram, settings));
    devices.push_back(Device{static_cast<int>(devices.size()), agent.id, agent.name, vram, host_pool, host_coarse,
                             global, Percent(global, settings.single_alloc_percent), std::move(info)});
    if (host_uncached.ok()) devices.back().host_uncached_pool = *host_uncached;
    if (absl::StatusOr<hsa::PoolId> fine = FindPool(*runtime, agent, hsa::GlobalFlags::kFineGrained); fine.ok()) {
      devices.back().fine_device_pool = *fine;
    }
    if (absl::StatusOr<hsa::PoolId> uncached = FindPool(*runtime, agent, hsa::GlobalFlags::kExtendedScopeFineGrained);
        uncached.ok()) {
      devices.back().uncached_device_pool = *uncached;
    }
    Trace(Layer::kClr, "device ", devices.back().ordinal, " (", agent.name, "): device memory from the coarse-grained",
          " VRAM pool, host memory from the CPU's fine-grained pool; global memory ", global.raw(), " B");
  }
  if (devices.empty()) {
    return absl::NotFoundError(absl::StrCat("no GPU agents (", gpus.size(), " before HIP_VISIBLE_DEVICES / ",
                                            "CUDA_VISIBLE_DEVICES)"));
  }
  std::unique_ptr<Context> context(new Context(settings, std::move(runtime), cpu->id, std::move(devices)));
  ASSIGN_OR_RETURN(context->faults_, DeviceFaults::Create(*context->runtime_));
  return context;
}

Context::Context(const Settings& settings, std::unique_ptr<hsa::Runtime> runtime, hsa::AgentId host_agent,
                 std::vector<Device> devices)
    : settings_(settings),
      host_agent_(host_agent),
      runtime_(std::move(runtime)),
      signals_(hsa::SignalRuntime::Create(*runtime_)),
      queues_(std::make_unique<hsa::Queues>(*runtime_, *signals_)),
      copies_(hsa::Copies::Create(*runtime_, signals_->allocator())),
      devices_(std::move(devices)),
      active_wait_(std::make_unique<std::atomic<bool>[]>(devices_.size())),
      peer_enabled_(devices_.size(), std::vector<bool>(devices_.size(), false)) {
  // hipDeviceScheduleSpin, the scheduling mode a HIP device starts in, waits actively.
  for (size_t i = 0; i < devices_.size(); ++i) active_wait_[i].store(true, std::memory_order_relaxed);
}

Context::~Context() = default;  // objects_ (and every Memory in it) goes before copies_, signals_ and runtime_

absl::StatusOr<const Device*> Context::GetDevice(int ordinal) const {
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= devices_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("device ", ordinal, ": there are ", devices_.size(), " devices"));
  }
  return &devices_[ordinal];
}

hsa::PoolId Context::DevicePool(const Device& device, DeviceGrain grain) {
  if (grain == DeviceGrain::kUncached && device.uncached_device_pool.has_value()) return *device.uncached_device_pool;
  if (grain == DeviceGrain::kFineGrained && device.fine_device_pool.has_value()) return *device.fine_device_pool;
  return device.device_pool;
}

Allocation::Allocation(Allocation&& other) noexcept
    : context_(std::exchange(other.context_, nullptr)), address_(other.address_) {}

Allocation& Allocation::operator=(Allocation&& other) noexcept {
  if (this != &other) {
    Allocation old(std::move(*this));  // frees what this held when it goes
    context_ = std::exchange(other.context_, nullptr);
    address_ = other.address_;
  }
  return *this;
}

Allocation::~Allocation() {
  if (context_ == nullptr) return;
  if (absl::Status s = context_->Free(address_); !s.ok()) {
    HIPMEM_LOG(kError, "freeing ", AddressText(address_), ": ", s.message());
  }
}

DeviceAddress Allocation::Release() && {
  context_ = nullptr;
  return address_;
}

absl::Status Allocation::Free() && {
  Context* context = std::exchange(context_, nullptr);
  if (context == nullptr) return absl::FailedPreconditionError("Allocation::Free: nothing owned");
  return context->Free(address_);
}

absl::StatusOr<DeviceAddress> Released(absl::StatusOr<Allocation> allocation) {
  if (!allocation.ok()) return allocation.status();
  return std::move(*allocation).Release();
}

absl::StatusOr<Allocation> Context::AllocDevice(const Device& device, Bytes size, uint32_t user_flags,
                                                DeviceMemoryOptions options) {
  TraceSlice trace_slice(TraceCategory::kClr, "Context::AllocDevice");
  if (size > device.max_alloc_size) {
    return absl::ResourceExhaustedError(absl::StrCat("device allocation of ", size.raw(), " B exceeds the ",
                                                     device.max_alloc_size.raw(), " B single-allocation limit"));
  }
  const hsa::PoolId pool = DevicePool(device, options.grain);
  ASSIGN_OR_RETURN(hsa::PoolAllocation allocation,
                   runtime_->Allocate(pool, size, options.contiguous ? hsa::PoolAllocFlags::kContiguous
                                                                     : hsa::PoolAllocFlags::kStandard));
  const DeviceAddress base = allocation.address();
  auto memory = std::make_unique<Memory>(std::move(allocation), runtime_.get(),
                                         MemoryDesc{{base, size}, base, MemoryKind::kDevice, device.ordinal, user_flags, pool});
  RETURN_IF_ERROR(objects_.Insert(std::move(memory)));
  Allocation owned(this, base);
  if (TraceEnabled()) {
    Trace(Layer::kClr, "device memory ", size.raw(), " B at ", AddressText(base), " on device ", device.ordinal);
  }
  // Until some device enables peer access no allocation needs a grant. Enable sets the flag before it maps the
  // allocations already in the object map, and this Insert came before the load: either that scan sees this
  // allocation or this load sees the flag.
  if (any_peer_access_.load(std::memory_order_seq_cst)) {
    LightLock lock(&peers_mu_);
    const std::vector<hsa::AgentId> peers = PeerAgentsLocked(device.ordinal);
    if (!peers.empty()) {
      RETURN_IF_ERROR(runtime_->memory().AllowAccess(peers, base));  // `owned` frees it
    }
  }
  return owned;
}

std::vector<hsa::AgentId> Context::PeerAgentsLocked(int owner) const {
  std::vector<hsa::AgentId> agents;
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (peer_enabled_[owner][i]) agents.push_back(devices_[i].agent);
  }
  return agents;
}

bool Context::CanAccessPeer(const Device& device, const Device& peer) const {
  if (device.ordinal == peer.ordinal) return false;
  absl::StatusOr<hsa::PoolPath> path = hsa::DescribePoolPath(*runtime_, device.agent, peer.device_pool);
  return path.ok() && path->access != hsa::PoolAccess::kNeverAllowed;
}

bool Context::PeerAccessEnabled(const Device& device, const Device& peer) const {
  LightLock lock(&peers_mu_);
  return peer_enabled_[peer.ordinal][device.ordinal];
}

absl::Status Context::EnablePeerAccess(const Device& device, const Device& peer) {
  if (!CanAccessPeer(device, peer)) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device.ordinal, " has no path to device ", peer.ordinal, "'s memory"));
  }
  LightLock lock(&peers_mu_);
  if (peer_enabled_[peer.ordinal][device.ordinal]) {
    return absl::AlreadyExistsError(
        absl::StrCat("device ", device.ordinal, " already has access to device ", peer.ordinal));
  }
  peer_enabled_[peer.ordinal][device.ordinal] = true;
  any_peer_access_.store(true, std::memory_order_seq_cst);
  // Grants name every accessor of the owner: a grant sets the GPUs an allocation is mapped on.
  const std::vector<hsa::AgentId> agents = PeerAgentsLocked(peer.ordinal);
  for (DeviceAddress base : objects_.Bases(peer.ordinal, MemoryKind::kDevice)) {
    absl::Status granted = runtime_->memory().AllowAccess(agents, base);
    // An allocation freed meanwhile needs no mapping.
    if (!granted.ok() && !absl::IsNotFound(granted)) {
      peer_enabled_[peer.ordinal][device.ordinal] = false;
      return granted;
    }
  }
  Trace(Layer::kClr, "device ", device.ordinal, " maps device ", peer.ordinal, "'s memory (peer access)");
  return absl::OkStatus();
}

absl::Status Context::DisablePeerAccess(const Device& device, const Device& peer) {
  LightLock lock(&peers_mu_);
  if (!peer_enabled_[peer.ordinal][device.ordinal]) {
    return absl::NotFoundError(
        absl::StrCat("device ", device.ordinal, " has not enabled access to device ", peer.ordinal));
  }
  peer_enabled_[peer.ordinal][device.ordinal] = false;
  return absl::OkStatus();
}

absl::StatusOr<Context::PeerLink> Context::GetPeerLink(const Device& device, const Device& peer) const {
  ASSIGN_OR_RETURN(const hsa::PoolPath path, hsa::DescribePoolPath(*runtime_, device.agent, peer.device_pool));
  if (path.hops.empty()) return PeerLink{UINT32_MAX, 0, true};
  uint32_t distance = 0;
  for (const hsa::LinkHop& hop : path.hops) distance += hop.numa_distance;
  const hsa::LinkHop& first = path.hops[0];
  const uint32_t one_hop = first.type == hsa::LinkType::kXgmi ? 15 : 20;
  return PeerLink{static_cast<uint32_t>(first.type), distance / one_hop, first.atomics_32bit || first.atomics_64bit};
}

absl::StatusOr<Allocation> Context::AllocHost(const Device& device, Bytes size, HostCoherence coherence,
                                              uint32_t user_flags) {
  TraceSlice trace_slice(TraceCategory::kClr, "Context::AllocHost");
  hsa::PoolId pool = coherence == HostCoherence::kNonCoherent ? device.host_coarse_pool : device.host_pool;
  if (coherence == HostCoherence::kUncached && device.host_uncached_pool.has_value()) pool = *device.host_uncached_pool;
  ASSIGN_OR_RETURN(hsa::PoolAllocation allocation, runtime_->Allocate(pool, size));
  const DeviceAddress base = allocation.address();
  auto memory = std::make_unique<Memory>(std::move(allocation), runtime_.get(),
                                         MemoryDesc{{base, size}, base, MemoryKind::kHost, device.ordinal, user_flags, pool});
  RETURN_IF_ERROR(objects_.Insert(std::move(memory)));
  Trace(Layer::kClr, "host memory ", size.raw(), " B at ", AddressText(base),
        coherence == HostCoherence::kCoherent     ? " (fine-grained)"
        : coherence == HostCoherence::kUncached ? " (uncached)"
                                                : " (coarse-grained)");
  return Allocation(this, base);
}

absl::Status Context::Free(DeviceAddress base) {
  TraceSlice trace_slice(TraceCategory::kClr, "Context::Free");
  ASSIGN_OR_RETURN(std::unique_ptr<Memory> memory,
                   objects_.Extract(base, {MemoryKind::kDevice, MemoryKind::kHost, MemoryKind::kManaged}));
  if (memory->borrowed()) {
    // A program's device variable is not an allocation: it stays, as CLR refuses to free it.
    const DeviceAddress address = memory->desc().range.base;
    RETURN_IF_ERROR(objects_.Insert(std::move(memory)));
    return absl::FailedPreconditionError(absl::StrCat(AddressText(address), " is a device variable, not an allocation"));
  }
  return std::move(*memory).Free();
}

absl::Status Context::Forget(DeviceAddress base) {
  if (const std::optional<MemObjRef> ref = objects_.Find(base); !ref.has_value() || ref->desc.range.base != base) {
    return absl::NotFoundError(absl::StrCat("no device variable at ", AddressText(base)));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Memory> memory, objects_.Extract(base, {MemoryKind::kDevice}));
  if (!memory->borrowed()) {
    RETURN_IF_ERROR(objects_.Insert(std::move(memory)));
    return absl::NotFoundError(absl::StrCat(AddressText(base), " is an allocation, not a device variable"));
  }
  return absl::OkStatus();
}

absl::Status Context::FreeDeviceMemory(const Device& device) {
  absl::Status first = absl::OkStatus();
  for (DeviceAddress base : objects_.Bases(device.ordinal, MemoryKind::kDevice)) {
    absl::Status status = Free(base);
    // Another thread may have freed it meanwhile (kNotFound); a program's variable is not freed (kFailedPrecondition).
    if (!status.ok() && !absl::IsNotFound(status) && !absl::IsFailedPrecondition(status) && first.ok()) first = status;
  }
  return first;
}

absl::StatusOr<DeviceAddress> Context::RegisterHost(const Device& device, DeviceAddress host, Bytes size,
                                                    uint32_t user_flags) {
  if (host.raw() == 0 || size.is_zero()) {
    return absl::InvalidArgumentError(absl::StrCat("registering ", size.raw(), " B at ", AddressText(host),
                                                   ": null pointer or size 0"));
  }
  // Current CLR refuses memory that overlaps an object it knows (rocm-systems #7498).
  for (DeviceAddress end : {host, host + (size - Bytes(1))}) {
    if (const std::optional<MemObjRef> known = objects_.Find(end)) {
      return absl::AlreadyExistsError(absl::StrCat("registering [", AddressText(host), ", +", size.raw(),
                                                   "): overlaps the memory object at ",
                                                   AddressText(known->desc.range.base)));
    }
  }
  // Every GPU maps it (CLR locks for all devices of the context), through the CPU's fine-grained pool.
  ASSIGN_OR_RETURN(hsa::HostLock lock,
                   runtime_->memory().Lock(host.ToPointer(), size, /*agents=*/{}, /*pool=*/std::nullopt));
  const DeviceAddress gpu_address = lock.gpu_address();
  auto memory = std::make_unique<Memory>(std::move(lock), runtime_.get(),
                                         MemoryDesc{{host, size}, gpu_address, MemoryKind::kRegistered, device.ordinal,
                                                    user_flags, device.host_pool});
  RETURN_IF_ERROR(objects_.Insert(std::move(memory)));
  Trace(Layer::kClr, "registered ", size.raw(), " B at ", AddressText(host), " (GPUs use ", AddressText(gpu_address),
        ")");
  return gpu_address;
}

absl::Status Context::UnregisterHost(DeviceAddress host) {
  absl::StatusOr<std::unique_ptr<Memory>> memory = objects_.Extract(host, {MemoryKind::kRegistered});
  if (!memory.ok()) {
    return absl::NotFoundError(absl::StrCat(AddressText(host), " is not the start of registered memory"));
  }
  return std::move(**memory).Free();
}

absl::StatusOr<MemInfo> Context::GetMemInfo(const Device& device) {
  ASSIGN_OR_RETURN(Bytes available, runtime_->MemoryAvailable(device.agent));
  // ROCclr reads MEMORY_AVAIL in KiB and subtracts HIP_HIDDEN_FREE_MEM (MiB).
  Bytes free = AlignDown(available, Bytes::KiB(1));
  const Bytes hidden = settings_.hidden_free_mem;
  free = free > hidden ? free - hidden : Bytes(0);
  return MemInfo{free < device.global_mem_size ? free : device.global_mem_size, device.global_mem_size};
}

}  // namespace hipmem::clr
