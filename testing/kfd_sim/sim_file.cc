// The ioctl side of the simulator: one SimFile per KFD process, the dispatcher and the mmap/close paths.
//
// This is the simulator's "kernel edge", the one place that speaks errno to the caller. The handlers live by
// subject (sim_memory_ioctls.cc, sim_event_ioctls.cc, sim_queue_ioctls.cc; sim_internal.h declares them); each
// mirrors its kfd_chardev.c counterpart: the same checks in the same order, so a thunk bug meets the errno it
// would meet on real hardware. Departures from the kernel are marked "Deliberate:".
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "kfd_uapi/kfd_svm.h"
#include "base/scoped_lock.h"
#include "testing/kfd_sim/bo_pages.h"
#include "testing/kfd_sim/engines/compute_engine.h"
#include "testing/kfd_sim/engines/sdma_engine.h"
#include "testing/kfd_sim/events.h"
#include "testing/kfd_sim/host/fault_hook.h"
#include "testing/kfd_sim/gpu_page_table.h"
#include "testing/kfd_sim/shared_resources.h"
#include "testing/kfd_sim/sim_internal.h"
#include "testing/kfd_sim/sim_log.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/kfd_sim/user_memory.h"

namespace hipmem::kfd_sim {

namespace uapi = ::hipmem::kfd_uapi;

namespace {

using sim_internal::Bo;
using sim_internal::Domain;
using sim_internal::EventTable;
using sim_internal::IoctlContext;
using sim_internal::ProcessDevice;
using sim_internal::ProcessState;
using sim_internal::Queue;
using sim_internal::kDoorbellSlice;
using sim_internal::kEnotsupp;
using sim_internal::kFirstRenderToken;
using sim_internal::kPageSize;
namespace si = sim_internal;

// ---- the dispatch table (amdkfd_ioctls[]) ----

struct IoctlEntry {
  uapi::IoctlDirection direction = uapi::IoctlDirection::kNone;
  uint32_t kernel_size = 0;  // sizeof the kernel's Args
  int (*handler)(IoctlContext&, std::byte* kdata) = nullptr;
  // Set instead of `handler` for an ioctl that may sleep (WAIT_EVENTS): it runs without the world and
  // process locks, so other threads' ioctls, Open() and Snapshot() proceed meanwhile.
  int (*sleeping_handler)(EventTable&, std::byte* kdata) = nullptr;
  // Set instead of `handler` for a variable-sized request (SVM): it also gets the bytes copied in.
  int (*sized_handler)(IoctlContext&, std::byte* kdata, uint32_t size) = nullptr;
};

// Builds the entry for `kDescriptor` from a handler typed by the descriptor's own Args, so pairing a
// request with the wrong struct does not compile. The handler runs on an aligned typed copy of kdata.
template <const auto& kDescriptor, auto kHandler>
constexpr std::pair<uint32_t, IoctlEntry> Entry() {
  using Args = typename std::remove_cvref_t<decltype(kDescriptor)>::Args;
  static_assert(std::is_same_v<decltype(kHandler), int (*)(IoctlContext&, Args&)>,
                "the handler must take the descriptor's Args");
  return {kDescriptor.nr, IoctlEntry{
                              .direction = kDescriptor.direction,
                              .kernel_size = sizeof(Args),
                              .handler = [](IoctlContext& c, std::byte* kdata) {
                                Args args;
                                std::memcpy(&args, kdata, sizeof(Args));
                                const int ret = kHandler(c, args);
                                std::memcpy(kdata, &args, sizeof(Args));
                                return ret;
                              },
                          }};
}

// As Entry, for a handler that sleeps (see IoctlEntry::sleeping_handler).
template <const auto& kDescriptor, auto kHandler>
constexpr std::pair<uint32_t, IoctlEntry> SleepingEntry() {
  using Args = typename std::remove_cvref_t<decltype(kDescriptor)>::Args;
  static_assert(std::is_same_v<decltype(kHandler), int (*)(EventTable&, Args&)>,
                "the handler must take the descriptor's Args");
  return {kDescriptor.nr, IoctlEntry{
                              .direction = kDescriptor.direction,
                              .kernel_size = sizeof(Args),
                              .handler = nullptr,
                              .sleeping_handler = [](EventTable& events, std::byte* kdata) {
                                Args args;
                                std::memcpy(&args, kdata, sizeof(Args));
                                const int ret = kHandler(events, args);
                                std::memcpy(kdata, &args, sizeof(Args));
                                return ret;
                              },
                          }};
}

constexpr std::array<IoctlEntry, uapi::kCommandEnd> BuildIoctlTable() {
  std::array<IoctlEntry, uapi::kCommandEnd> table{};
  for (const auto& [nr, entry] : {
           Entry<uapi::kGetVersion, &si::GetVersion>(),
           Entry<uapi::kGetClockCounters, &si::GetClockCounters>(),
           Entry<uapi::kCreateQueue, &si::CreateQueue>(),
           Entry<uapi::kDestroyQueue, &si::DestroyQueue>(),
           Entry<uapi::kUpdateQueue, &si::UpdateQueue>(),
           Entry<uapi::kCreateEvent, &si::CreateEvent>(),
           Entry<uapi::kDestroyEvent, &si::DestroyEvent>(),
           Entry<uapi::kSetEvent, &si::SetEvent>(),
           Entry<uapi::kResetEvent, &si::ResetEvent>(),
           SleepingEntry<uapi::kWaitEvents, &si::WaitEvents>(),
           Entry<uapi::kGetProcessAperturesNew, &si::GetProcessAperturesNew>(),
           Entry<uapi::kAcquireVm, &si::AcquireVm>(),
           Entry<uapi::kAllocMemoryOfGpu, &si::AllocMemoryOfGpu>(),
           Entry<uapi::kFreeMemoryOfGpu, &si::FreeMemoryOfGpu>(),
           Entry<uapi::kMapMemoryToGpu, &si::MapMemoryToGpu>(),
           Entry<uapi::kUnmapMemoryFromGpu, &si::UnmapMemoryFromGpu>(),
           Entry<uapi::kAvailableMemory, &si::AvailableMemory>(),
           Entry<uapi::kSetMemoryPolicy, &si::SetMemoryPolicy>(),
           Entry<uapi::kSetScratchBackingVa, &si::SetScratchBackingVa>(),
           Entry<uapi::kGetTileConfig, &si::GetTileConfig>(),
           Entry<uapi::kSetTrapHandler, &si::SetTrapHandler>(),
           Entry<uapi::kSetCuMask, &si::SetCuMask>(),
           Entry<uapi::kAllocQueueGws, &si::AllocQueueGws>(),
           Entry<uapi::kSetXnackMode, &si::SetXnackMode>(),
           Entry<uapi::kRuntimeEnable, &si::RuntimeEnable>(),
           Entry<uapi::kGetDmabufInfo, &si::GetDmabufInfo>(),
           Entry<uapi::kImportDmabuf, &si::ImportDmabuf>(),
           Entry<uapi::kExportDmabuf, &si::ExportDmabuf>(),
       }) {
    table[nr] = entry;
  }
  table[uapi::kSvm.nr] = IoctlEntry{.direction = uapi::kSvm.direction,
                                    .kernel_size = sizeof(uapi::SvmArgs),
                                    .sized_handler = &si::Svm};
  return table;
}

constexpr std::array<IoctlEntry, uapi::kCommandEnd> kIoctlTable = BuildIoctlTable();

// The amdgpu-DKMS kernel's second table (AMDKFD_COMMAND_START_2 on), indexed by nr - kDkmsCommandStart.
constexpr std::array<IoctlEntry, uapi::kDkmsCommandEnd - uapi::kDkmsCommandStart> BuildDkmsIoctlTable() {
  std::array<IoctlEntry, uapi::kDkmsCommandEnd - uapi::kDkmsCommandStart> table{};
  for (const auto& [nr, entry] : {
           Entry<uapi::kIpcImportHandle, &si::IpcImportHandle>(),
           Entry<uapi::kIpcExportHandle, &si::IpcExportHandle>(),
       }) {
    table[nr - uapi::kDkmsCommandStart] = entry;
  }
  return table;
}

constexpr std::array<IoctlEntry, uapi::kDkmsCommandEnd - uapi::kDkmsCommandStart> kDkmsIoctlTable =
    BuildDkmsIoctlTable();

// The entry for `nr` in either table, or null outside both.
const IoctlEntry* FindIoctlEntry(uint32_t nr) {
  if (nr >= uapi::kCommandStart && nr < uapi::kCommandEnd) return &kIoctlTable[nr];
  if (nr >= uapi::kDkmsCommandStart && nr < uapi::kDkmsCommandEnd) {
    return &kDkmsIoctlTable[nr - uapi::kDkmsCommandStart];
  }
  return nullptr;
}

bool HasDirection(uapi::IoctlDirection set, uapi::IoctlDirection bit) {
  return (static_cast<uint32_t>(set) & static_cast<uint32_t>(bit)) != 0;
}

// The errno's symbolic name ("EINVAL"), including the kernel-internal ENOTSUPP that glibc does not know.
std::string ErrnoName(int err) {
  if (err == kEnotsupp) return "ENOTSUPP";
  const char* name = strerrorname_np(err);
  return name != nullptr ? name : absl::StrCat("errno ", err);
}

}  // namespace

SimFile::SimFile(Simulator* sim, uint64_t id)
    : sim_(sim),
      id_(id),
      opener_pid_(CurrentPid()),
      events_(std::make_unique<EventTable>()),
      state_(std::make_unique<ProcessState>(sim->topology().gpus.size())) {}

SimFile::~SimFile() {
  ScopedLock world(&sim_->world_mu_);  // exclusive: no snapshot sees a half-closed process
  {
    ScopedLock lock(&mu_);
    IoctlContext c{sim_->topology_, *sim_->shared_, *state_, *events_, *this, sim_->log_, id_};
    // What close() gives back, for the log: kfd_process_wq_release's teardown in one line.
    const size_t queues = state_->queues.size();
    const size_t bos = state_->bos.size();
    const size_t events = events_->Snapshot().size();
    Bytes vram;
    Bytes system;
    for (const auto& [handle, bo] : state_->bos) (bo.domain == Domain::kVram ? vram : system) += bo.accounted;
    // Queues first: their engines may still be reading the buffers.
    while (!state_->queues.empty()) si::ReleaseQueue(c, state_->queues.begin());
    while (!state_->bos.empty()) si::ReleaseBo(c, state_->bos.begin());
    state_.reset();
    sim_->log_.Write(SimLogLevel::kInfo,
                     absl::StrCat("kfd_sim: process ", id_, " (pid ", opener_pid_, ") closed /dev/kfd: released ",
                                  queues, " queue(s), ", bos, " buffer(s) (", SizeText(vram), " VRAM, ",
                                  SizeText(system), " system memory), ", events, " event(s)"));
  }
  sim_->processes_.erase(id_);
}

int SimFile::Ioctl(unsigned long request, void* arg) {
  const int ret = DispatchIoctl(request, arg);
  // kfd_ioctl's pr_debug of the result, for failures only and ratelimited: a caller probing in a loop must
  // not push the faults and lifecycle lines out of the ring.
  if (ret < 0) {
    sim_->log_.WriteRatelimited(SimLogLevel::kDebug,
                                absl::StrCat("kfd_sim: process ", id_, ": ", uapi::IoctlName(request), " (nr 0x",
                                             absl::Hex(uapi::IoctlNr(request)), ") failed: ", ret, " (",
                                             ErrnoName(-ret), ")"));
  }
  return ret;
}

int SimFile::DispatchIoctl(unsigned long request, void* arg) {
  // kfd_ioctl(): the nr selects the handler; the type byte and the caller's direction bits are ignored,
  // the kernel trusts only its own table.
  // The simulator plays the amdgpu-DKMS amdkfd: mainline's table, and the DKMS one from 0x80 (IPC handles).
  const uint32_t nr = uapi::IoctlNr(request);
  const IoctlEntry* found = FindIoctlEntry(nr);
  if (found == nullptr) return -ENOTTY;
  const IoctlEntry& entry = *found;
  // The kernel has a handler for every nr in range; the ones not simulated yet are unknown to the caller.
  if (entry.handler == nullptr && entry.sleeping_handler == nullptr && entry.sized_handler == nullptr) return -ENOTTY;
  // Only the process that opened /dev/kfd may use it; a forked child must open its own.
  if (CurrentPid() != opener_pid_) return -EBADF;
  // A test's injected failure (fault_hook.h): the handler fails for lack of resources before changing anything.
  if (const int fault = InjectedFault(KernelEntry::kIoctl, nr); fault != 0) return -fault;

  // Size tolerance: copy the caller's usize bytes in, zero up to max(usize, sizeof(Args)), run the
  // handler, copy usize bytes back. Older (shorter) and newer (longer) structs both work.
  const uint32_t usize = uapi::IoctlSize(request);
  const uint32_t asize = std::max(usize, entry.kernel_size);
  // Like the kernel: arguments up to 128 bytes live on the stack, larger ones on the heap.
  constexpr uint32_t kStackArgs = 128;
  alignas(8) std::byte stack_data[kStackArgs] = {};
  std::vector<std::byte> heap_data(asize > kStackArgs ? asize : 0);  // zero-filled
  std::byte* const kdata_ptr = asize > kStackArgs ? heap_data.data() : stack_data;
  const uint64_t user = reinterpret_cast<uintptr_t>(arg);
  const bool copy_in = HasDirection(entry.direction, uapi::IoctlDirection::kWrite);
  const bool copy_out = HasDirection(entry.direction, uapi::IoctlDirection::kRead);
  if (copy_in && !CopyFromUser(kdata_ptr, user, usize)) return -EFAULT;

  int ret = 0;
  if (entry.sleeping_handler != nullptr) {
    ret = entry.sleeping_handler(*events_, kdata_ptr);
  } else {
    ScopedReaderLock world(&sim_->world_mu_);
    ScopedLock lock(&mu_);
    IoctlContext c{sim_->topology_, *sim_->shared_, *state_, *events_, *this, sim_->log_, id_};
    ret = entry.sized_handler != nullptr ? entry.sized_handler(c, kdata_ptr, asize) : entry.handler(c, kdata_ptr);
  }
  // Copied back even when the handler failed: MAP/UNMAP report their progress in n_success.
  if (copy_out && !CopyToUser(user, kdata_ptr, usize)) ret = -EFAULT;
  return ret;
}

int SimFile::OpenRenderNode(uint32_t drm_render_minor) {
  if (CurrentPid() != opener_pid_) return -EBADF;  // as MmapBo: the parent's process is not the child's
  if (const int fault = InjectedFault(KernelEntry::kOpenRenderNode); fault != 0) return -fault;
  ScopedReaderLock world(&sim_->world_mu_);
  ScopedLock lock(&mu_);
  const std::vector<GpuConfig>& gpus = sim_->topology_.gpus;
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (gpus[i].drm_render_minor != drm_render_minor) continue;
    state_->render_nodes.push_back(i);
    return kFirstRenderToken + static_cast<int>(state_->render_nodes.size() - 1);
  }
  return -ENOENT;
}

int SimFile::MmapBo(int render_fd, void* addr, uint64_t size, int prot, uint64_t mmap_offset) {
  // A forked child's inherited file: its render node would let a child map a buffer, but the buffer belongs to
  // the parent's simulated process, whose state the child's copy must never touch (its locks may have been
  // held by parent threads at fork()). Checked before any lock, as Ioctl.
  if (CurrentPid() != opener_pid_) return -EBADF;
  if (const int fault = InjectedFault(KernelEntry::kMmap); fault != 0) return -fault;
  ScopedReaderLock world(&sim_->world_mu_);
  ScopedLock lock(&mu_);
  ProcessState& process = *state_;
  const std::optional<size_t> gpu = si::RenderTokenGpu(process, render_fd);
  if (!gpu) return -EBADF;
  const uint64_t addr_raw = reinterpret_cast<uintptr_t>(addr);
  if (addr_raw == 0 || !IsAligned(Bytes(addr_raw), kPageSize) || size == 0 ||
      !IsAligned(Bytes(mmap_offset), kPageSize)) {
    return -EINVAL;
  }
  if ((prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) != 0) return -EINVAL;
  const std::optional<Bytes> span = AlignUp(Bytes(size), kPageSize);
  if (!span) return -EINVAL;

  // drm_vma_offset_lookup_locked: the one buffer of this render node whose offset range holds the request.
  auto offset_it = process.mmap_offsets.upper_bound(mmap_offset);
  if (offset_it == process.mmap_offsets.begin()) return -EINVAL;
  --offset_it;
  const auto bo_it = process.bos.find(offset_it->second);
  HIPMEM_CHECK(bo_it != process.bos.end(), "mmap offset without a buffer");
  const Bo& bo = bo_it->second;
  const Bytes bo_span = *AlignUp(bo.size, kPageSize);
  const Bytes delta(mmap_offset - offset_it->first);
  if (bo.gpu_index != *gpu || delta >= bo_span || *span > bo_span - delta) return -EINVAL;

  // amdgpu_gem_object_mmap: user pages are not mappable through the render node; doorbells are mapped
  // through /dev/kfd (MmapKfd).
  if (bo.domain == Domain::kUserptr) return -EPERM;
  if (bo.domain == Domain::kDoorbell || bo.domain == Domain::kMmioRemap) return -EINVAL;
  // Deliberate (see simulator.h): invisible VRAM may only hold a PROT_NONE placeholder mapping.
  if (bo.domain == Domain::kVram && !uapi::HasFlag(bo.flags, uapi::AllocMemFlags::kPublic)) {
    return prot == PROT_NONE ? si::MapInvisibleVramPlaceholder(addr, *span) : -EPERM;
  }
  // The backing file failing to appear is the kernel's bo allocation failing for lack of pages.
  // The buffer's pages are its range of a file it shares with the process's other buffers of its kind.
  const absl::StatusOr<BoPages::FileRange> file = bo.pages->File();
  if (!file.ok()) return -ENOMEM;
  void* mapped = mmap(addr, span->raw(), prot, MAP_SHARED | MAP_FIXED, file->fd,
                      static_cast<off_t>(file->offset + delta.raw()));
  if (mapped == MAP_FAILED) return -errno;
  return 0;
}

int SimFile::MmapKfd(void* addr, uint64_t size, int prot, uint64_t mmap_offset) {
  // kfd_mmap looks up the caller's own KFD process: a forked child that opened none has none (-ESRCH).
  if (CurrentPid() != opener_pid_) return -ESRCH;
  if (const int fault = InjectedFault(KernelEntry::kMmap); fault != 0) return -fault;
  ScopedReaderLock world(&sim_->world_mu_);
  ScopedLock lock(&mu_);
  const uint64_t addr_raw = reinterpret_cast<uintptr_t>(addr);
  if (addr_raw == 0 || !IsAligned(Bytes(addr_raw), kPageSize) || size == 0) return -EINVAL;
  if ((prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) != 0) return -EINVAL;
  // kfd_mmap: the top two bits pick what is mapped, the next sixteen the GPU.
  const uint64_t type = mmap_offset & (uint64_t{3} << uapi::kMmapTypeShift);
  const auto gpu_id = static_cast<uint32_t>((mmap_offset >> uapi::kMmapGpuIdShift) & 0xffff);
  // TODO(#3): KFD_MMAP_TYPE_EVENTS (the APU signal page) and RESERVED_MEM.
  if (type != uapi::kMmapTypeDoorbell && type != uapi::kMmapTypeMmio) return -EINVAL;
  // kfd_doorbell_mmap / kfd_mmio_mmap: a device this process uses, and exactly the doorbell slice or one page.
  const std::optional<size_t> gpu = si::FindGpu(sim_->topology_, gpu_id);
  if (!gpu) return -EINVAL;
  ProcessDevice& device = state_->devices[*gpu];
  if (!device.vm_token) return -EINVAL;
  if (type == uapi::kMmapTypeMmio) {
    if (size != kPageSize.raw()) return -EINVAL;
    const absl::StatusOr<BoPages::FileRange> page = si::MmioPageOf(sim_->topology_, device, *gpu)->File();
    if (!page.ok()) return -ENOMEM;
    void* mapped = mmap(addr, size, prot, MAP_SHARED | MAP_FIXED, page->fd, static_cast<off_t>(page->offset));
    return mapped == MAP_FAILED ? -errno : 0;
  }
  if (size != kDoorbellSlice.raw()) return -EINVAL;
  const std::shared_ptr<BoPages> doorbells = si::DoorbellsOf(sim_->topology_, device, *gpu);
  const absl::StatusOr<BoPages::FileRange> file = doorbells->File();
  if (!file.ok()) return -ENOMEM;
  // The engines read the doorbells through their own view; made now, so a bare store through this mapping can
  // be traced to the words engines sleep on.
  std::byte* engine_view = doorbells->EngineView();
  if (engine_view == nullptr) return -ENOMEM;
  void* mapped = mmap(addr, size, prot, MAP_SHARED | MAP_FIXED, file->fd, static_cast<off_t>(file->offset));
  if (mapped == MAP_FAILED) return -errno;
  // A bare store through this mapping must wake the engine as the hardware's doorbell would: write-protect it
  // and catch the fault (polling where userfaultfd is unavailable).
  device.doorbell_mappings.push_back(DoorbellClientMapping::Watch(mapped, size, engine_view));
  return 0;
}

bool SimFile::IsMapped(uint32_t gpu_id, DeviceAddress va, Bytes size) const {
  ScopedReaderLock world(&sim_->world_mu_);
  ScopedLock lock(&mu_);
  const std::optional<size_t> gpu = si::FindGpu(sim_->topology_, gpu_id);
  if (!gpu) return false;
  return state_->devices[*gpu].page_table->Covers(AddressRange{va, size});
}

bool SimFile::ReadGpuMemory(uint32_t gpu_id, DeviceAddress va, Bytes size, void* out) const {
  ScopedReaderLock world(&sim_->world_mu_);
  ScopedLock lock(&mu_);
  const std::optional<size_t> gpu = si::FindGpu(sim_->topology_, gpu_id);
  if (!gpu) return false;
  GpuPageTable& table = *state_->devices[*gpu].page_table;
  GpuMemory::AccessScope scope(&table);
  auto* dst = static_cast<std::byte*>(out);
  for (uint64_t done = 0; done < size.raw();) {
    const std::optional<GpuMemory::Span> span = table.Translate(va.raw() + done, size.raw() - done);
    if (!span) return false;
    std::memcpy(dst + done, span->host, span->bytes);
    done += span->bytes;
  }
  return true;
}

void SimFile::SignalEvent(uint32_t event_id) { events_->SignalFromEngine(event_id); }

void SimFile::SignalEventInterrupt(uint32_t partial_id, uint32_t valid_id_bits) {
  events_->Interrupt(partial_id, valid_id_bits);
}

void SimFile::RaiseGpuHang(uint32_t gpu_id) {
  uapi::HwExceptionData data{};
  data.reset_type = uapi::kHwExceptionWholeGpuReset;
  data.reset_cause = uapi::kHwExceptionGpuHang;
  data.memory_lost = 1;
  data.gpu_id = gpu_id;
  events_->HwException(data);
}

bool SimFile::RaiseMemoryException(const SimVmFault& fault) {
  // kfd_signal_vm_fault_event: a fault on a GPU the process does not know is dropped (WARN_ONCE).
  if (!si::FindGpu(sim_->topology_, fault.gpu_id)) {
    sim_->log_.Write(SimLogLevel::kWarning, absl::StrCat("kfd_sim: process ", id_, ": VM fault on unknown gpu_id 0x",
                                                         absl::Hex(fault.gpu_id), " dropped"));
    return false;
  }
  // The gfx9+ fault path reports the faulting page, with the protection bits of the failed access.
  uapi::MemoryExceptionData data{};
  data.gpu_id = fault.gpu_id;
  data.va = AlignDown(Bytes(fault.va.raw()), kPageSize).raw();
  // amdgpu's gmc interrupt handler prints the fault (process, page, the client that faulted) before KFD
  // signals it, so the line is in the log by the time a waiter on the memory event wakes up.
  std::vector<absl::string_view> why;
  if (fault.not_present) why.push_back("not present");
  if (fault.read_only) why.push_back("write to read-only page");
  if (fault.no_execute) why.push_back("execute from no-execute page");
  sim_->log_.Write(SimLogLevel::kError,
                   absl::StrCat("kfd_sim: gpu_id 0x", absl::Hex(fault.gpu_id), ": VM fault in process ", id_,
                                fault.queue_id ? absl::StrCat(" from queue ", *fault.queue_id) : std::string(),
                                " at address 0x", absl::Hex(fault.va.raw()), " (page 0x", absl::Hex(+data.va), "): ",
                                why.empty() ? "no reason given" : absl::StrJoin(why, ", ")));
  data.failure.NotPresent = fault.not_present ? 1 : 0;
  data.failure.ReadOnly = fault.read_only ? 1 : 0;
  data.failure.NoExecute = fault.no_execute ? 1 : 0;
  data.failure.imprecise = 0;
  data.ErrorType = uapi::kMemErrNoRas;
  events_->VmFault(data);
  return true;
}

void SimFile::RaiseHwException() { events_->HwException(); }

bool Simulator::SignalEvent(uint64_t process_id, uint32_t event_id) {
  ScopedReaderLock world(&world_mu_);  // keeps the process open
  const auto it = processes_.find(process_id);
  if (it == processes_.end()) return false;
  it->second->SignalEvent(event_id);
  return true;
}

bool Simulator::RaiseMemoryException(uint64_t process_id, const SimVmFault& fault) {
  ScopedReaderLock world(&world_mu_);
  const auto it = processes_.find(process_id);
  if (it == processes_.end()) return false;
  return it->second->RaiseMemoryException(fault);
}

SimProcess SimFile::TakeSnapshot() const {
  ScopedLock lock(&mu_);
  SimProcess process{.id = id_,
                     .bos = {},
                     .events = {},
                     .queues = {},
                     .xnack_enabled = state_->xnack_enabled,
                     .sh_hidden_private_base = {},
                     .svm_ranges = {}};
  for (const ProcessDevice& device : state_->devices) {
    process.sh_hidden_private_base.push_back(device.sh_hidden_private_base);
  }
  for (const auto& [qid, q] : state_->queues) {
    process.queues.push_back(SimQueue{
        .id = qid,
        .gpu_id = sim_->topology_.gpus[q.gpu_index].gpu_id,
        .type = q.type,
        .ring_base = DeviceAddress(q.ring_base),
        .ring_size = Bytes(q.ring_size),
        .active = q.running(),
        .halted = q.halted(),
        .read_pointer = q.progress(),
        .priority = q.priority,
    });
  }
  for (const sim_internal::EventState& event : events_->Snapshot()) {
    process.events.push_back(SimEvent{
        .id = event.id,
        .type = event.type,
        .auto_reset = event.auto_reset,
        .signaled = event.signaled,
        .waiters = event.waiters,
    });
  }
  process.bos.reserve(state_->bos.size());
  for (const auto& [handle, bo] : state_->bos) {
    SimBo info{
        .handle = handle,
        .gpu_id = sim_->topology_.gpus[bo.gpu_index].gpu_id,
        .va = bo.va ? bo.va->base : DeviceAddress(0),
        .size = bo.size,
        .flags = bo.flags,
        .mapped_gpu_ids = {},
    };
    for (size_t gpu : bo.mapped_on) info.mapped_gpu_ids.push_back(sim_->topology_.gpus[gpu].gpu_id);
    process.bos.push_back(std::move(info));
  }
  if (state_->svm != nullptr) {
    for (const SvmRangeInfo& r : state_->svm->Ranges()) {
      SimSvmRange range{.start = r.range.base,
                        .size = r.range.size,
                        .location = r.vram_gpu ? sim_->topology_.gpus[*r.vram_gpu].gpu_id : 0,
                        .mapped_gpu_ids = {},
                        .preferred_loc = r.preferred_loc,
                        .prefetch_loc = r.prefetch_loc};
      for (size_t gpu = 0; gpu < sim_->topology_.gpus.size() && gpu < 64; ++gpu) {
        if ((r.mapped >> gpu) & 1) range.mapped_gpu_ids.push_back(sim_->topology_.gpus[gpu].gpu_id);
      }
      process.svm_ranges.push_back(std::move(range));
    }
  }
  return process;
}

}  // namespace hipmem::kfd_sim
