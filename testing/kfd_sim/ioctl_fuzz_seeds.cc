// Writes the seed corpus of //testing/kfd_sim:ioctl_fuzzer into the directory given as argv[1]: the ioctl
// sequences the simulator's own tests run (sim_memory/sim_event/sim_svm/sim_queue tests, in short), each played
// on a machine like the fuzzer's while it is written, so the handles, ids and apertures in the seeds are the ones
// a fresh process really gets.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kfd_uapi/kfd_ioctl.h"
#include "kfd_uapi/kfd_svm.h"
#include "testing/kfd_sim/ioctl_fuzz_input.h"
#include "testing/kfd_sim/simulator.h"

namespace {

namespace uapi = ::hipmem::kfd_uapi;
namespace fuzz = ::hipmem::kfd_sim::fuzz;
using ::hipmem::kfd_sim::SimFile;
using ::hipmem::kfd_sim::Simulator;

constexpr uint64_t kPage = 4096;

// One seed: runs each ioctl on a fresh process of `sim` as it records it, so later records can use its answers.
class Seed {
 public:
  Seed(Simulator& sim, std::byte* scratch, std::span<const std::byte> scratch_init)
      : writer_(scratch_init), file_(sim.Open()), scratch_(scratch) {
    std::memset(scratch_, 0, fuzz::kScratchBytes);
    std::memcpy(scratch_, scratch_init.data(), scratch_init.size());
    for (const auto& gpu : sim.topology().gpus) tokens_.push_back(file_->OpenRenderNode(gpu.drm_render_minor));
  }
  template <typename Args>
  Args Run(const uapi::IoctlDescriptor<Args>& d, Args args) {
    writer_.Add(d.request(), args);
    file_->Ioctl(d.request(), &args);
    return args;
  }
  void RunRaw(unsigned long request, std::span<const std::byte> arg) {
    writer_.AddRaw(request, arg);
    std::vector<std::byte> copy(std::max<size_t>(arg.size(), uapi::IoctlSize(request)));
    std::memcpy(copy.data(), arg.data(), arg.size());
    file_->Ioctl(request, copy.data());
  }
  int token(size_t gpu) const { return tokens_[gpu]; }
  bool Write(const std::string& dir, const std::string& name) {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(writer_.bytes().data()), static_cast<std::streamsize>(writer_.bytes().size()));
    return static_cast<bool>(out);
  }

 private:
  fuzz::InputWriter writer_;
  std::unique_ptr<SimFile> file_;
  std::byte* scratch_;
  std::vector<int> tokens_;
};

template <typename T>
std::vector<std::byte> Bytes(const T& v) {
  std::vector<std::byte> out(sizeof(T));
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

uint32_t Flags(std::initializer_list<uapi::AllocMemFlags> flags) {
  uint32_t raw = 0;
  for (uapi::AllocMemFlags f : flags) raw |= uapi::ToRaw(f);
  return raw;
}

// The argument structs mirror the kernel's and have no member defaults, so a seed starts each one zeroed (the
// kernel's outputs and the padding as the thunk clears them) and sets its inputs.
uapi::AllocMemoryOfGpuArgs AllocArgs(uint64_t va, uint64_t size, uint64_t mmap_offset, uint32_t gpu_id,
                                     uint32_t flags) {
  uapi::AllocMemoryOfGpuArgs args{};
  args.va_addr = va;
  args.size = size;
  args.mmap_offset = mmap_offset;
  args.gpu_id = gpu_id;
  args.flags = flags;
  return args;
}

// MAP_MEMORY_TO_GPU or UNMAP_MEMORY_FROM_GPU of `handle` on the one GPU id at the start of scratch.
template <typename Args>
Args MapArgs(uint64_t handle) {
  Args args{};
  args.handle = handle;
  args.device_ids_array_ptr = fuzz::kScratchAddress;
  args.n_devices = 1;
  return args;
}

uapi::CreateEventArgs CreateEventArgs(uapi::EventType type, uint32_t auto_reset) {
  uapi::CreateEventArgs args{};
  args.event_type = uapi::ToRaw(type);
  args.auto_reset = auto_reset;
  return args;
}

// GET_PROCESS_APERTURES_NEW, then ACQUIRE_VM on the first GPU, as libhsakmt opens a GPU; returns that GPU's GPUVM
// aperture base, where the seed places its buffers.
uint64_t AcquireFirstGpu(Seed& s, uint32_t gpu_id) {
  std::vector<uapi::ProcessDeviceApertures> apertures(8);
  uapi::GetProcessAperturesNewArgs get_apertures{};
  get_apertures.kfd_process_device_apertures_ptr = reinterpret_cast<uint64_t>(apertures.data());
  get_apertures.num_of_nodes = 8;
  const auto got = s.Run(uapi::kGetProcessAperturesNew, get_apertures);
  s.Run(uapi::kAcquireVm, uapi::AcquireVmArgs{.drm_fd = static_cast<uint32_t>(s.token(0)), .gpu_id = gpu_id});
  return got.num_of_nodes > 0 ? apertures[0].gpuvm_base : 0x1000000;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  absl::StatusOr<std::unique_ptr<Simulator>> made = Simulator::Create(hipmem::kfd_sim::DefaultTopology());
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.status().ToString().c_str());
    return 1;
  }
  Simulator& sim = **made;
  void* p = mmap(reinterpret_cast<void*>(fuzz::kScratchAddress), fuzz::kScratchBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != reinterpret_cast<void*>(fuzz::kScratchAddress)) return 1;
  auto* scratch = static_cast<std::byte*>(p);
  const uint32_t gpu_id = sim.topology().gpus[0].gpu_id;
  const std::vector<std::byte> gpu_ids = Bytes(gpu_id);
  bool ok = true;

  // GET_VERSION, apertures, available memory, clock counters, XNACK query.
  {
    Seed s(sim, scratch, {});
    s.Run(uapi::kGetVersion, uapi::GetVersionArgs{});
    uapi::GetProcessAperturesNewArgs apertures{};
    apertures.kfd_process_device_apertures_ptr = fuzz::kScratchAddress;
    apertures.num_of_nodes = 8;
    s.Run(uapi::kGetProcessAperturesNew, apertures);
    uapi::GetAvailableMemoryArgs available{};
    available.gpu_id = gpu_id;
    s.Run(uapi::kAvailableMemory, available);
    uapi::GetClockCountersArgs clocks{};
    clocks.gpu_id = gpu_id;
    s.Run(uapi::kGetClockCounters, clocks);
    s.Run(uapi::kSetXnackMode, uapi::SetXnackModeArgs{.xnack_enabled = -1});
    ok = ok && s.Write(dir, "info");
  }
  // hsaKmtAllocMemory + MapMemoryToGPU + Unmap + Free, VRAM and GTT, and a USERPTR of the scratch region.
  {
    Seed s(sim, scratch, gpu_ids);
    const uint64_t base = AcquireFirstGpu(s, gpu_id);
    struct Alloc {
      uint64_t offset;
      uint64_t size;
      uint32_t flags;
      uint64_t userptr;
    };
    const Alloc allocs[] = {
        {0x200000, 2 << 20, Flags({uapi::AllocMemFlags::kVram, uapi::AllocMemFlags::kWritable,
                                   uapi::AllocMemFlags::kNoSubstitute}), 0},
        {0x600000, 64 * kPage, Flags({uapi::AllocMemFlags::kGtt, uapi::AllocMemFlags::kWritable,
                                     uapi::AllocMemFlags::kExecutable}), 0},
        {0, 16 * kPage, Flags({uapi::AllocMemFlags::kUserptr, uapi::AllocMemFlags::kWritable}),
         fuzz::kScratchAddress + 16 * kPage},
    };
    for (const Alloc& a : allocs) {
      const uint64_t va = a.userptr != 0 ? a.userptr : base + a.offset;
      const auto alloc = s.Run(uapi::kAllocMemoryOfGpu, AllocArgs(va, a.size, a.userptr, gpu_id, a.flags));
      s.Run(uapi::kMapMemoryToGpu, MapArgs<uapi::MapMemoryToGpuArgs>(alloc.handle));
      s.Run(uapi::kUnmapMemoryFromGpu, MapArgs<uapi::UnmapMemoryFromGpuArgs>(alloc.handle));
      if (a.userptr == 0) s.Run(uapi::kFreeMemoryOfGpu, uapi::FreeMemoryOfGpuArgs{.handle = alloc.handle});
    }
    ok = ok && s.Write(dir, "alloc_map_free");
  }
  // Events: a signal event set, waited on (the events array in scratch), reset and destroyed; a memory event.
  {
    uapi::EventData wait{};
    Seed s(sim, scratch, {});
    const auto event = s.Run(uapi::kCreateEvent, CreateEventArgs(uapi::EventType::kSignal, /*auto_reset=*/1));
    wait.event_id = event.event_id;
    Seed with_data(sim, scratch, Bytes(wait));
    const auto e = with_data.Run(uapi::kCreateEvent, CreateEventArgs(uapi::EventType::kSignal, /*auto_reset=*/1));
    with_data.Run(uapi::kSetEvent, uapi::SetEventArgs{.event_id = e.event_id, .pad = 0});
    uapi::WaitEventsArgs wait_events{};
    wait_events.events_ptr = fuzz::kScratchAddress;
    wait_events.num_events = 1;
    with_data.Run(uapi::kWaitEvents, wait_events);
    with_data.Run(uapi::kResetEvent, uapi::ResetEventArgs{.event_id = e.event_id, .pad = 0});
    with_data.Run(uapi::kCreateEvent, CreateEventArgs(uapi::EventType::kMemory, /*auto_reset=*/0));
    with_data.Run(uapi::kDestroyEvent, uapi::DestroyEventArgs{.event_id = e.event_id, .pad = 0});
    ok = ok && with_data.Write(dir, "events");
  }
  // SVM: SET_ATTR over scratch pages (access, prefetch to the GPU and back), GET_ATTR.
  {
    Seed s(sim, scratch, {});
    struct {
      uapi::SvmArgs head;
      uapi::SvmAttribute attrs[3];
    } set{};
    set.head = {.start_addr = fuzz::kScratchAddress + 32 * kPage, .size = 8 * kPage,
                .op = uapi::ToRaw(uapi::SvmOp::kSetAttr), .nattr = 3};
    set.attrs[0] = {uapi::ToRaw(uapi::SvmAttrType::kAccess), gpu_id};
    set.attrs[1] = {uapi::ToRaw(uapi::SvmAttrType::kPrefetchLoc), gpu_id};
    set.attrs[2] = {uapi::ToRaw(uapi::SvmAttrType::kGranularity), 1};
    s.RunRaw(uapi::SvmRequest(3), Bytes(set));
    set.attrs[1].value = uapi::kSvmLocationSysmem;
    set.head.size = 4 * kPage;
    s.RunRaw(uapi::SvmRequest(3), Bytes(set));
    set.head.op = uapi::ToRaw(uapi::SvmOp::kGetAttr);
    set.head.size = 8 * kPage;
    set.attrs[1].type = uapi::ToRaw(uapi::SvmAttrType::kPreferredLoc);
    s.RunRaw(uapi::SvmRequest(3), Bytes(set));
    s.Run(uapi::kSetXnackMode, uapi::SetXnackModeArgs{.xnack_enabled = 1});
    ok = ok && s.Write(dir, "svm");
  }
  // A queue: an SDMA ring, read and write pointers in a USERPTR buffer of scratch pages mapped on the GPU.
  {
    Seed s(sim, scratch, gpu_ids);
    s.Run(uapi::kAcquireVm, uapi::AcquireVmArgs{.drm_fd = static_cast<uint32_t>(s.token(0)), .gpu_id = gpu_id});
    const uint64_t ring = fuzz::kScratchAddress + 48 * kPage;
    const auto alloc =
        s.Run(uapi::kAllocMemoryOfGpu, AllocArgs(ring, 16 * kPage, ring, gpu_id,
                                                 Flags({uapi::AllocMemFlags::kUserptr, uapi::AllocMemFlags::kWritable})));
    s.Run(uapi::kMapMemoryToGpu, MapArgs<uapi::MapMemoryToGpuArgs>(alloc.handle));
    uapi::CreateQueueArgs create_queue{};
    create_queue.ring_base_address = ring;
    create_queue.write_pointer_address = ring + 8 * kPage;
    create_queue.read_pointer_address = ring + 8 * kPage + 64;
    create_queue.ring_size = 4 * kPage;
    create_queue.gpu_id = gpu_id;
    create_queue.queue_type = static_cast<uint32_t>(uapi::QueueType::kSdma);
    create_queue.queue_percentage = 100;
    create_queue.queue_priority = 7;
    const auto queue = s.Run(uapi::kCreateQueue, create_queue);
    s.Run(uapi::kDestroyQueue, uapi::DestroyQueueArgs{.queue_id = queue.queue_id, .pad = 0});
    ok = ok && s.Write(dir, "queue");
  }
  // A dma-buf export: the VRAM buffer outlives its FREE and the process's close, held by the descriptor, until
  // the harness closes that at the input's end as the process's exit would.
  {
    Seed s(sim, scratch, gpu_ids);
    const uint64_t base = AcquireFirstGpu(s, gpu_id);
    const auto alloc = s.Run(uapi::kAllocMemoryOfGpu,
                             AllocArgs(base + 0x200000, 2 << 20, 0, gpu_id,
                                       Flags({uapi::AllocMemFlags::kVram, uapi::AllocMemFlags::kWritable})));
    const auto exported = s.Run(uapi::kExportDmabuf, uapi::ExportDmabufArgs{.handle = alloc.handle, .flags = 0,
                                                                             .dmabuf_fd = 0});
    s.Run(uapi::kFreeMemoryOfGpu, uapi::FreeMemoryOfGpuArgs{.handle = alloc.handle});
    if (exported.dmabuf_fd != 0) close(static_cast<int>(exported.dmabuf_fd));  // the seed tool's own copy
    ok = ok && s.Write(dir, "export_dmabuf");
  }
  // Requests that fail: an nr past the table; another type byte (the kernel looks at the number alone: an ALLOC of
  // zeros, which fails); a size too small for the struct; no argument at all.
  {
    Seed s(sim, scratch, {});
    const std::vector<std::byte> zeros(64);
    s.RunRaw(uapi::EncodeIoctl(uapi::IoctlDirection::kReadWrite, 0x7f, 8), zeros);
    s.RunRaw((uapi::kAllocMemoryOfGpu.request() & ~(0xfful << 8)) | (0x58ul << 8), zeros);  // type 'X'
    s.RunRaw(uapi::EncodeIoctl(uapi::IoctlDirection::kReadWrite, uapi::kAllocMemoryOfGpu.nr, 4), zeros);
    s.RunRaw(uapi::EncodeIoctl(uapi::IoctlDirection::kNone, uapi::kCreateEvent.nr, 0), {});
    ok = ok && s.Write(dir, "refused");
  }
  return ok ? 0 : 1;
}
