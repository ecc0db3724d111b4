// Thunk + simulator costs, as ratios to baselines measured in the same run (issue #3 §6, issue #7 §5, issue #25 §4):
//   AMDKFD_IOC_GET_VERSION dispatched to the simulator vs a getppid() system call (goal <= 3x);
//   hsaKmtGetVersion vs an out-of-line function filling the same struct (goal <= 3x: upstream copies a cached
//   struct);
//   ALLOC + MAP + UNMAP + FREE through thunk::Kfd of 4 KiB and 2 MiB VRAM, CPU-invisible (the default for
//   device memory) and host-visible, against the getppid() baseline only (no goal: an absolute time is no goal on a
//   shared 2-core machine);
//   our thunk against AMD's, Debian's binary libhsakmt.so.1 (ROCm 5.2.3), through the same C API on the same
//   simulated KFD (one MI100): the benchmark re-executes itself under libhipmem_kfd.so, where both thunks open
//   /dev/kfd as on a real machine, and times ALLOC+MAP+UNMAP+FREE of VRAM and GTT and REGISTER+MAP+UNMAP+DEREGISTER
//   of a user pointer (4 KiB, 2 MiB), event create/destroy, queue create/destroy and hsaKmtGetVersion, each as
//   BM_Ours_<row> / BM_Amd_<row> (goal <= 0.8). Without Debian's libhsakmt1 or the preload these rows are skipped
//   with a message.
// Run: bazel run -c opt //thunk:kfd_benchmark -- --benchmark_repetitions=5 --benchmark_enable_random_interleaving
// (--amd_libhsakmt=PATH for another libhsakmt.so.1, --kfd_preload=PATH for another libhipmem_kfd.so).
// With repetitions, ratios are printed for the median and mean rows and goals judged on the median.
//
// BM_Floor_EventCreateDestroy and BM_Floor_RegisterMapUnmapDeregisterUserptr2MiB (the ioctls alone on the same KFD)
// and BM_Floor_GetVersion (an indirect call of a trivial function): the floor under any thunk's row, printed as a
// share of AMD's row, and ours against AMD's above it, (ours - floor) / (AMD's - floor) (no goal).
//
// System calls per cycle (goal <= 3 for ours; AMD's printed next to ours), printed after the ratios.
// This kernel exposes no raw_syscalls tracepoint to perf_event_open (no tracefs), so they are counted from
// outside, as strace counts them: the benchmark runs itself as a traced child (ptrace, every thread) in
// `--cycle=<name> --cycles=N` mode, which runs one cycle N times without the benchmark framework after one
// warm-up cycle that makes the per-process files, for N = 0 and N = 2000, and prints
// (count(2000) - count(0)) / 2000, leaving out the simulated kernel's own page-file calls (lseek, fallocate), which a
// real KFD makes inside the kernel. Names: invisible_4k, invisible_2m, visible_4k, visible_2m, and the same
// with an amd_ prefix for AMD's thunk on the preload's KFD. The same by hand:
//   for n in 0 10000; do strace -f -c -o /tmp/c$n bazel-bin/thunk/kfd_benchmark --cycle=visible_4k --cycles=$n; done
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "hsakmt/hsakmt.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/simulator.h"
#include "thunk/kfd.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"
#include "base/bench/ratio_reporter.h"

namespace hipmem::thunk {
namespace {

std::shared_ptr<SimMachine> Machine() {
  static std::shared_ptr<SimMachine>* machine = new std::shared_ptr<SimMachine>(*SimMachine::Create(kfd_sim::DefaultTopology()));
  return *machine;
}

constexpr MemFlags kInvisibleVram = MemFlags::kNonPaged | MemFlags::kCoarseGrain | MemFlags::kNoSubstitute;
constexpr MemFlags kVisibleVram = kInvisibleVram | MemFlags::kHostAccess;

// One ALLOC + MAP + UNMAP + FREE of VRAM on the first GPU; false when a step fails.
bool Cycle(Kfd& kfd, Bytes size, MemFlags flags) {
  absl::StatusOr<KfdAllocation> p = kfd.AllocMemory(NodeId(1), size, flags);
  return p.ok() && kfd.MapMemoryToGpu(p->address()).ok() && kfd.UnmapMemoryFromGpu(p->address()).ok() &&
         std::move(*p).Free().ok();
}

void BM_GetppidSyscall(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(syscall(SYS_getppid));
}
BENCHMARK(BM_GetppidSyscall);

void BM_GetVersionDispatch(benchmark::State& state) {
  std::unique_ptr<KfdDevice> device = *OpenSimKfdDevice(Machine());
  kfd_uapi::GetVersionArgs args{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(device->Ioctl(kfd_uapi::kGetVersion.request(), &args));
    benchmark::DoNotOptimize(args);
  }
}
BENCHMARK(BM_GetVersionDispatch);

// hsaKmtGetVersion answers from the version cached at open, as libhsakmt (a struct copy, well under 1 ns):
// compared with the cheapest call there is, an out-of-line function filling the same struct.
[[gnu::noinline]] HSAKMT_STATUS TrivialGetVersion(HsaVersionInfo* info) {
  if (info == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  info->KernelInterfaceMajorVersion = 1;
  info->KernelInterfaceMinorVersion = 17;
  return HSAKMT_STATUS_SUCCESS;
}

void BM_TrivialCall(benchmark::State& state) {
  HsaVersionInfo info{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(TrivialGetVersion(&info));
    benchmark::DoNotOptimize(info);
  }
}
BENCHMARK(BM_TrivialCall);

void BM_HsaKmtGetVersion(benchmark::State& state) {
  if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) {
    state.SkipWithError("hsaKmtOpenKFD failed");
    return;
  }
  HsaVersionInfo info{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(hsaKmtGetVersion(&info));
    benchmark::DoNotOptimize(info);
  }
  hsaKmtCloseKFD();
}
BENCHMARK(BM_HsaKmtGetVersion);

template <uint64_t kSize, MemFlags kFlags>
void BM_Cycle(benchmark::State& state) {
  std::unique_ptr<Kfd> kfd = *Kfd::Open(*OpenSimKfdDevice(Machine()));
  for (auto _ : state) {
    if (!Cycle(*kfd, Bytes(kSize), kFlags)) {
      state.SkipWithError("allocation cycle failed");
      break;
    }
  }
}
void BM_AllocMapUnmapFree4KiB(benchmark::State& state) { BM_Cycle<4096, kInvisibleVram>(state); }
void BM_AllocMapUnmapFree2MiB(benchmark::State& state) { BM_Cycle<2u << 20, kInvisibleVram>(state); }
void BM_AllocMapUnmapFreeVisible4KiB(benchmark::State& state) { BM_Cycle<4096, kVisibleVram>(state); }
void BM_AllocMapUnmapFreeVisible2MiB(benchmark::State& state) { BM_Cycle<2u << 20, kVisibleVram>(state); }
BENCHMARK(BM_AllocMapUnmapFree4KiB);
BENCHMARK(BM_AllocMapUnmapFree2MiB);
BENCHMARK(BM_AllocMapUnmapFreeVisible4KiB);
BENCHMARK(BM_AllocMapUnmapFreeVisible2MiB);

// --- AMD's libhsakmt on the same simulated KFD ---
// Debian's libhsakmt.so.1 (ROCm 5.2.3, AMD's binary) and our thunk, both through their C API as function pointers, on
// the simulated KFD of the preload (libhipmem_kfd.so): the benchmark re-executes itself under the preload (main), so
// AMD's thunk opens /dev/kfd, the render node and the sysfs topology as on a real machine, and ours does the same
// (HIPMEM_KFD_BACKEND=linux). One thunk has the KFD open at a time (each run opens and closes its own), as AMD's keeps
// its state in globals and the KFD allows one VM per GPU and process.

// Where the pieces are: --amd_libhsakmt=PATH (else Debian's path) and --kfd_preload=PATH (else HIPMEM_KFD_PRELOAD,
// else the runfiles of this binary).
constexpr char kDebianLibhsakmt[] = "/usr/lib/x86_64-linux-gnu/libhsakmt.so.1";
constexpr char kUnderPreloadEnv[] = "HIPMEM_KFD_BENCHMARK_UNDER_PRELOAD";
// The machine both thunks see: one MI100 (gfx908), a GPU ROCm 5.2.3 knows.
constexpr char kAmdPreset[] = "mi100";
constexpr HSAuint32 kGpuNode = 1;

std::string& AmdLibraryPath() {
  static std::string* path = new std::string(kDebianLibhsakmt);
  return *path;
}

struct ThunkApi {
  HSAKMT_STATUS (*open)();
  HSAKMT_STATUS (*close)();
  HSAKMT_STATUS (*get_version)(HsaVersionInfo*);
  HSAKMT_STATUS (*acquire)(HsaSystemProperties*);
  HSAKMT_STATUS (*release)();
  HSAKMT_STATUS (*alloc)(HSAuint32, HSAuint64, HsaMemFlags, void**);
  HSAKMT_STATUS (*free)(void*, HSAuint64);
  HSAKMT_STATUS (*map)(void*, HSAuint64, HSAuint64*);
  HSAKMT_STATUS (*unmap)(void*);
  HSAKMT_STATUS (*register_memory)(void*, HSAuint64);
  HSAKMT_STATUS (*deregister_memory)(void*);
  HSAKMT_STATUS (*create_event)(HsaEventDescriptor*, bool, bool, HsaEvent**);
  HSAKMT_STATUS (*destroy_event)(HsaEvent*);
  HSAKMT_STATUS (*create_queue)(HSAuint32, HSA_QUEUE_TYPE, HSAuint32, HSA_QUEUE_PRIORITY, void*, HSAuint64, HsaEvent*,
                                HsaQueueResource*);
  HSAKMT_STATUS (*destroy_queue)(HSA_QUEUEID);
};

const ThunkApi& OurApi() {
  static const ThunkApi api = {hsaKmtOpenKFD,         hsaKmtCloseKFD,          hsaKmtGetVersion,
                               hsaKmtAcquireSystemProperties, hsaKmtReleaseSystemProperties,
                               hsaKmtAllocMemory,     hsaKmtFreeMemory,        hsaKmtMapMemoryToGPU,
                               hsaKmtUnmapMemoryToGPU, hsaKmtRegisterMemory,   hsaKmtDeregisterMemory,
                               hsaKmtCreateEvent,     hsaKmtDestroyEvent,      hsaKmtCreateQueue,
                               hsaKmtDestroyQueue};
  return api;
}

template <typename Fn>
bool Lookup(void* library, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

// AMD's thunk, dlopened on first use; an error message when it cannot be. Not RTLD_DEEPBIND: that would bind its
// open/ioctl/mmap to libc past the preload. Its hsaKmt* calls to itself still bind to its own definitions, since this
// executable exports none of ours.
absl::StatusOr<const ThunkApi*> AmdApi() {
  static absl::StatusOr<const ThunkApi*>* api = [] {
    auto* result = new absl::StatusOr<const ThunkApi*>(absl::FailedPreconditionError("unset"));
    void* library = dlopen(AmdLibraryPath().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      *result = absl::NotFoundError(std::string("AMD's libhsakmt: ") + dlerror());
      return result;
    }
    auto* table = new ThunkApi{};
    const bool found =
        Lookup(library, "hsaKmtOpenKFD", table->open) && Lookup(library, "hsaKmtCloseKFD", table->close) &&
        Lookup(library, "hsaKmtGetVersion", table->get_version) &&
        Lookup(library, "hsaKmtAcquireSystemProperties", table->acquire) &&
        Lookup(library, "hsaKmtReleaseSystemProperties", table->release) &&
        Lookup(library, "hsaKmtAllocMemory", table->alloc) && Lookup(library, "hsaKmtFreeMemory", table->free) &&
        Lookup(library, "hsaKmtMapMemoryToGPU", table->map) &&
        Lookup(library, "hsaKmtUnmapMemoryToGPU", table->unmap) &&
        Lookup(library, "hsaKmtRegisterMemory", table->register_memory) &&
        Lookup(library, "hsaKmtDeregisterMemory", table->deregister_memory) &&
        Lookup(library, "hsaKmtCreateEvent", table->create_event) &&
        Lookup(library, "hsaKmtDestroyEvent", table->destroy_event) &&
        Lookup(library, "hsaKmtCreateQueue", table->create_queue) &&
        Lookup(library, "hsaKmtDestroyQueue", table->destroy_queue);
    if (!found) {
      *result = absl::FailedPreconditionError(std::string("AMD's libhsakmt lacks an entry point: ") + dlerror());
    } else {
      *result = table;
    }
    return result;
  }();
  return *api;
}

// The thunk's KFD, open for one benchmark run with the topology acquired, as ROCr opens it (AMD's thunk finds a
// node's GPU only after hsaKmtAcquireSystemProperties).
class OpenKfd {
 public:
  explicit OpenKfd(const ThunkApi& api) : api_(api), status_(api.open()) {
    HsaSystemProperties system{};
    if (status_ == HSAKMT_STATUS_SUCCESS && api_.acquire(&system) != HSAKMT_STATUS_SUCCESS) {
      api_.close();
      status_ = HSAKMT_STATUS_ERROR;
    }
  }
  ~OpenKfd() {
    if (status_ != HSAKMT_STATUS_SUCCESS) return;
    api_.release();
    api_.close();
  }
  OpenKfd(const OpenKfd&) = delete;
  OpenKfd& operator=(const OpenKfd&) = delete;
  bool ok() const { return status_ == HSAKMT_STATUS_SUCCESS; }

 private:
  const ThunkApi& api_;
  HSAKMT_STATUS status_;
};

// What is allocated, the way ROCr asks for it: device-local coarse-grained VRAM on the GPU; GTT, pinned system memory
// the host reaches (node 0, NonPaged); a user pointer, malloc'ed memory registered with the KFD.
enum class Memory { kVram, kGtt, kUserptr };

HsaMemFlags FlagsFor(Memory memory) {
  HsaMemFlags flags{};
  flags.ui32.NonPaged = 1;
  flags.ui32.NoSubstitute = 1;
  if (memory == Memory::kVram) {
    flags.ui32.CoarseGrain = 1;
  } else {
    flags.ui32.HostAccess = 1;
  }
  return flags;
}

// One ALLOC (or register) + MAP + UNMAP + FREE (or deregister); false when a step fails. `user` is the host
// buffer of a user-pointer cycle.
bool ApiCycle(const ThunkApi& api, Memory memory, HSAuint64 size, void* user, bool host_visible = false) {
  void* p = user;
  HsaMemFlags flags = FlagsFor(memory);
  if (host_visible) flags.ui32.HostAccess = 1;
  if (memory == Memory::kUserptr) {
    if (api.register_memory(p, size) != HSAKMT_STATUS_SUCCESS) return false;
  } else if (api.alloc(memory == Memory::kVram ? kGpuNode : 0, size, flags, &p) != HSAKMT_STATUS_SUCCESS) {
    return false;
  }
  HSAuint64 gpu_va = 0;
  const bool mapped = api.map(p, size, &gpu_va) == HSAKMT_STATUS_SUCCESS;
  const bool unmapped = mapped && api.unmap(p) == HSAKMT_STATUS_SUCCESS;
  const HSAKMT_STATUS freed = memory == Memory::kUserptr ? api.deregister_memory(p) : api.free(p, size);
  return unmapped && freed == HSAKMT_STATUS_SUCCESS;
}

struct UserBuffer {
  // 2 MiB aligned, as a huge-page-backed allocation is; aligned_alloc wants a multiple of the alignment.
  explicit UserBuffer(size_t size) : data(static_cast<char*>(std::aligned_alloc(kAlign, RoundUp(size)))) {
    std::memset(data, 1, size);  // resident, as a registered buffer is
  }
  static constexpr size_t kAlign = 2u << 20;
  static size_t RoundUp(size_t size) { return (size + kAlign - 1) / kAlign * kAlign; }
  ~UserBuffer() { std::free(data); }
  UserBuffer(const UserBuffer&) = delete;
  UserBuffer& operator=(const UserBuffer&) = delete;
  char* data;
};

void BM_ApiCycle(benchmark::State& state, const ThunkApi* api, Memory memory, HSAuint64 size) {
  OpenKfd kfd(*api);
  if (!kfd.ok()) {
    state.SkipWithError("hsaKmtOpenKFD failed");
    return;
  }
  UserBuffer user(size);
  for (auto _ : state) {
    if (!ApiCycle(*api, memory, size, user.data)) {
      state.SkipWithError("allocation cycle failed");
      break;
    }
  }
}

void BM_ApiEvent(benchmark::State& state, const ThunkApi* api) {
  OpenKfd kfd(*api);
  if (!kfd.ok()) {
    state.SkipWithError("hsaKmtOpenKFD failed");
    return;
  }
  HsaEventDescriptor descriptor{};
  descriptor.EventType = HSA_EVENTTYPE_SIGNAL;
  for (auto _ : state) {
    HsaEvent* event = nullptr;
    if (api->create_event(&descriptor, /*ManualReset=*/true, /*IsSignaled=*/false, &event) != HSAKMT_STATUS_SUCCESS ||
        api->destroy_event(event) != HSAKMT_STATUS_SUCCESS) {
      state.SkipWithError("event create/destroy failed");
      break;
    }
  }
}

// The floor under any thunk's event row: AMDKFD_IOC_CREATE_EVENT and DESTROY_EVENT issued straight on a /dev/kfd
// file of the same process (the preload's KFD), nothing else. Our thunk opens the KFD first, so the process has its
// event page, as it has in the thunks' rows. A thunk can only add to this; if the floor is above 0.8x AMD's row, no
// thunk that makes both round trips meets issue #25's goal on events.
void BM_FloorEvent(benchmark::State& state) {
  OpenKfd kfd(OurApi());
  const int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  if (!kfd.ok() || fd < 0) {
    state.SkipWithError("opening the KFD failed");
    if (fd >= 0) close(fd);
    return;
  }
  for (auto _ : state) {
    kfd_uapi::CreateEventArgs create{};
    create.event_type = kfd_uapi::ToRaw(kfd_uapi::EventType::kSignal);
    create.auto_reset = 0;
    kfd_uapi::DestroyEventArgs destroy{};
    if (ioctl(fd, kfd_uapi::kCreateEvent.request(), &create) != 0 ||
        (destroy.event_id = create.event_id, ioctl(fd, kfd_uapi::kDestroyEvent.request(), &destroy)) != 0) {
      state.SkipWithError("event ioctls failed");
      break;
    }
  }
  close(fd);
}

// The floor under any thunk's user-pointer row of `size` bytes: ALLOC_MEMORY_OF_GPU (USERPTR) + MAP_MEMORY_TO_GPU +
// UNMAP_MEMORY_FROM_GPU + FREE_MEMORY_OF_GPU issued straight on a /dev/kfd file of the same process, nothing else.
// The GPU address is the buffer's own CPU address: no thunk reservation lives there, so it cannot collide. At 2 MiB
// the simulated kernel's work per page (pinning the pages, writing their translations) is most of both thunks' rows;
// this row is that work alone, what ours and AMD's are judged above.
void BM_FloorUserptr(benchmark::State& state, HSAuint64 size) {
  OpenKfd kfd(OurApi());
  HsaNodeProperties node{};
  const int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  if (!kfd.ok() || fd < 0 || hsaKmtGetNodeProperties(kGpuNode, &node) != HSAKMT_STATUS_SUCCESS) {
    state.SkipWithError("opening the KFD failed");
    if (fd >= 0) close(fd);
    return;
  }
  UserBuffer user(size);
  const uint32_t gpu_ids[1] = {node.KFDGpuID};
  const uint64_t address = reinterpret_cast<uintptr_t>(user.data);
  for (auto _ : state) {
    kfd_uapi::AllocMemoryOfGpuArgs alloc{};
    alloc.va_addr = address;
    alloc.size = size;
    alloc.mmap_offset = address;
    alloc.gpu_id = node.KFDGpuID;
    alloc.flags =
        kfd_uapi::ToRaw(kfd_uapi::AllocMemFlags::kUserptr) | kfd_uapi::ToRaw(kfd_uapi::AllocMemFlags::kWritable);
    if (ioctl(fd, kfd_uapi::kAllocMemoryOfGpu.request(), &alloc) != 0) {
      state.SkipWithError("ALLOC_MEMORY_OF_GPU failed");
      break;
    }
    kfd_uapi::MapMemoryToGpuArgs map{};
    map.handle = alloc.handle;
    map.device_ids_array_ptr = reinterpret_cast<uintptr_t>(gpu_ids);
    map.n_devices = 1;
    kfd_uapi::UnmapMemoryFromGpuArgs unmap{};
    unmap.handle = alloc.handle;
    unmap.device_ids_array_ptr = reinterpret_cast<uintptr_t>(gpu_ids);
    unmap.n_devices = 1;
    kfd_uapi::FreeMemoryOfGpuArgs free_args{};
    free_args.handle = alloc.handle;
    const bool mapped = ioctl(fd, kfd_uapi::kMapMemoryToGpu.request(), &map) == 0;
    const bool unmapped = mapped && ioctl(fd, kfd_uapi::kUnmapMemoryFromGpu.request(), &unmap) == 0;
    if (ioctl(fd, kfd_uapi::kFreeMemoryOfGpu.request(), &free_args) != 0 || !unmapped) {
      state.SkipWithError("map, unmap or free ioctl failed");
      break;
    }
  }
  close(fd);
}

// The floor under both thunks' GetVersion rows: the cheapest call there is (TrivialGetVersion), made as theirs are,
// through a function pointer the compiler cannot see through. Both thunks copy a cached version, so what their rows
// measure is mostly this call.
void BM_FloorGetVersion(benchmark::State& state) {
  HSAKMT_STATUS (*volatile get_version)(HsaVersionInfo*) = TrivialGetVersion;
  HsaVersionInfo info{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(get_version(&info));
    benchmark::DoNotOptimize(info);
  }
}

// A compute AQL queue on the GPU, as ROCr creates one: its ring and its read/write pointers in GTT mapped to the GPU.
void BM_ApiQueue(benchmark::State& state, const ThunkApi* api) {
  OpenKfd kfd(*api);
  if (!kfd.ok()) {
    state.SkipWithError("hsaKmtOpenKFD failed");
    return;
  }
  constexpr HSAuint64 kRingBytes = 64 << 10;
  constexpr HSAuint64 kPointerBytes = 4096;
  void* ring = nullptr;
  void* pointers = nullptr;
  HSAuint64 gpu_va = 0;
  HsaMemFlags flags = FlagsFor(Memory::kGtt);
  flags.ui32.ExecuteAccess = 1;
  if (api->alloc(0, kRingBytes, flags, &ring) != HSAKMT_STATUS_SUCCESS ||
      api->map(ring, kRingBytes, &gpu_va) != HSAKMT_STATUS_SUCCESS ||
      api->alloc(0, kPointerBytes, FlagsFor(Memory::kGtt), &pointers) != HSAKMT_STATUS_SUCCESS ||
      api->map(pointers, kPointerBytes, &gpu_va) != HSAKMT_STATUS_SUCCESS) {
    state.SkipWithError("queue memory allocation failed");
    return;
  }
  for (auto _ : state) {
    HsaQueueResource resource{};
    resource.Queue_read_ptr_aql = static_cast<HSAuint64*>(pointers);
    resource.Queue_write_ptr_aql = static_cast<HSAuint64*>(pointers) + 1;
    if (api->create_queue(kGpuNode, HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, kRingBytes,
                          nullptr, &resource) != HSAKMT_STATUS_SUCCESS ||
        api->destroy_queue(resource.QueueId) != HSAKMT_STATUS_SUCCESS) {
      state.SkipWithError("queue create/destroy failed");
      break;
    }
  }
  api->unmap(pointers);
  api->free(pointers, kPointerBytes);
  api->unmap(ring);
  api->free(ring, kRingBytes);
}

void BM_ApiGetVersion(benchmark::State& state, const ThunkApi* api) {
  OpenKfd kfd(*api);
  if (!kfd.ok()) {
    state.SkipWithError("hsaKmtOpenKFD failed");
    return;
  }
  HsaVersionInfo info{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(api->get_version(&info));
    benchmark::DoNotOptimize(info);
  }
}

// The rows of the comparison, each registered as BM_Ours_<row> and BM_Amd_<row>.
struct ApiRow {
  const char* name;
  void (*run)(benchmark::State&, const ThunkApi*);
};
template <Memory kMemory, HSAuint64 kSize>
void RunCycle(benchmark::State& state, const ThunkApi* api) {
  BM_ApiCycle(state, api, kMemory, kSize);
}
constexpr ApiRow kApiRows[] = {
    {"AllocMapUnmapFreeVram4KiB", RunCycle<Memory::kVram, 4096>},
    {"AllocMapUnmapFreeVram2MiB", RunCycle<Memory::kVram, 2u << 20>},
    {"AllocMapUnmapFreeGtt4KiB", RunCycle<Memory::kGtt, 4096>},
    {"AllocMapUnmapFreeGtt2MiB", RunCycle<Memory::kGtt, 2u << 20>},
    {"RegisterMapUnmapDeregisterUserptr4KiB", RunCycle<Memory::kUserptr, 4096>},
    {"RegisterMapUnmapDeregisterUserptr2MiB", RunCycle<Memory::kUserptr, 2u << 20>},
    {"EventCreateDestroy", BM_ApiEvent},
    {"QueueCreateDestroy", BM_ApiQueue},
    {"GetVersion", BM_ApiGetVersion},
};

// Registers both thunks' rows, ours and AMD's next to each other; false (and a message) when AMD's thunk cannot
// be loaded, in which case no row is registered.
bool RegisterAmdComparison() {
  absl::StatusOr<const ThunkApi*> amd = AmdApi();
  if (!amd.ok()) {
    std::printf("AMD's libhsakmt: not compared (%s)\n", std::string(amd.status().ToString()).c_str());
    return false;
  }
  for (const ApiRow& row : kApiRows) {
    benchmark::RegisterBenchmark((std::string("BM_Ours_") + row.name).c_str(), row.run, &OurApi());
    benchmark::RegisterBenchmark((std::string("BM_Amd_") + row.name).c_str(), row.run, *amd);
  }
  benchmark::RegisterBenchmark("BM_Floor_EventCreateDestroy", BM_FloorEvent);
  benchmark::RegisterBenchmark("BM_Floor_RegisterMapUnmapDeregisterUserptr2MiB", BM_FloorUserptr, 2u << 20);
  benchmark::RegisterBenchmark("BM_Floor_GetVersion", BM_FloorGetVersion);
  return true;
}

// The preload's path: --kfd_preload=PATH, else HIPMEM_KFD_PRELOAD, else this binary's runfiles; empty if none exists.
std::string& PreloadFlag() {
  static std::string* path = new std::string();
  return *path;
}

std::string FindPreload() {
  std::vector<std::string> candidates;
  if (!PreloadFlag().empty()) candidates.push_back(PreloadFlag());
  if (const char* env = getenv("HIPMEM_KFD_PRELOAD"); env != nullptr) candidates.push_back(env);
  constexpr char kRunfile[] = "/hipmem/testing/kfd_sim/preload/libhipmem_kfd.so";
  for (const char* variable : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* runfiles = getenv(variable); runfiles != nullptr) candidates.push_back(runfiles + std::string(kRunfile));
  }
  char exe[4096];
  if (const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1); n > 0) {
    candidates.push_back(std::string(exe, n) + ".runfiles" + kRunfile);
  }
  for (const std::string& candidate : candidates) {
    if (access(candidate.c_str(), R_OK) == 0) {
      char resolved[4096];
      return realpath(candidate.c_str(), resolved) != nullptr ? resolved : candidate;
    }
  }
  return "";
}

// libasan's or libtsan's path when this binary (and so the preload, built alike) has ASan or TSan: it must come first
// in LD_PRELOAD, before the preload's instrumented wrappers of open and mmap.
int FindSanitizerRuntime(dl_phdr_info* info, size_t, void* path) {
  if (info->dlpi_name != nullptr &&
      (std::strstr(info->dlpi_name, "/libasan.so") != nullptr ||
       std::strstr(info->dlpi_name, "/libtsan.so") != nullptr)) {
    *static_cast<std::string*>(path) = info->dlpi_name;
  }
  return 0;
}

// Re-executes this benchmark under the preload on kAmdPreset, with our thunk on the preload's KFD too. Returns only
// when it cannot (no preload found, or exec failed), after saying why.
void ReexecUnderPreload(char** argv) {
  const std::string preload = FindPreload();
  if (preload.empty()) {
    std::printf("AMD's libhsakmt: not compared (libhipmem_kfd.so not found; pass --kfd_preload=PATH)\n");
    return;
  }
  std::string sanitizer;
  dl_iterate_phdr(FindSanitizerRuntime, &sanitizer);
  setenv(kUnderPreloadEnv, "1", 1);
  setenv("LD_PRELOAD", (sanitizer.empty() ? preload : sanitizer + ":" + preload).c_str(), 1);
  // AMD's library frees nothing at exit; its leaks are not ours to report.
  if (!sanitizer.empty()) setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
  setenv("HIPMEM_SIM_PRESET", kAmdPreset, 1);
  setenv("HIPMEM_KFD_BACKEND", "linux", 1);
  execv("/proc/self/exe", argv);
  std::printf("AMD's libhsakmt: not compared (exec under the preload failed: %s)\n", std::strerror(errno));
  unsetenv(kUnderPreloadEnv);
  unsetenv("LD_PRELOAD");
  setenv("HIPMEM_KFD_BACKEND", "sim", 1);
}

struct Case {
  const char* name;
  uint64_t size;
  MemFlags flags;
};
constexpr Case kCases[] = {
    {"invisible_4k", 4096, kInvisibleVram},
    {"invisible_2m", 2u << 20, kInvisibleVram},
    {"visible_4k", 4096, kVisibleVram},
    {"visible_2m", 2u << 20, kVisibleVram},
};

// The --cycle=<name> --cycles=N mode (see the header); returns the process's exit code. An amd_ prefix runs the
// cycle through AMD's libhsakmt on the preload's KFD (the benchmark's process is under the preload then).
int RunCycles(const std::string& name, long cycles) {
  constexpr char kAmdPrefix[] = "amd_";
  const bool amd = name.rfind(kAmdPrefix, 0) == 0;
  const std::string case_name = amd ? name.substr(sizeof(kAmdPrefix) - 1) : name;
  for (const Case& c : kCases) {
    if (case_name != c.name) continue;
    if (amd) {
      absl::StatusOr<const ThunkApi*> api = AmdApi();
      if (!api.ok()) {
        std::fprintf(stderr, "%s\n", std::string(api.status().ToString()).c_str());
        return 1;
      }
      OpenKfd kfd(**api);
      if (!kfd.ok()) return 1;
      const bool visible = HasFlag(c.flags, MemFlags::kHostAccess);
      // Warm-up, as for ours: the apertures' first ranges exist before counting.
      for (long i = -1; i < cycles; ++i) {
        if (!ApiCycle(**api, Memory::kVram, c.size, nullptr, visible)) return 1;
      }
      return 0;
    }
    std::unique_ptr<Kfd> kfd = *Kfd::Open(*OpenSimKfdDevice(Machine()));
    // Warm-up: the process's page files and the thunk's kept VA ranges exist before counting starts.
    if (!Cycle(*kfd, Bytes(c.size), c.flags)) return 1;
    for (long i = 0; i < cycles; ++i) {
      if (!Cycle(*kfd, Bytes(c.size), c.flags)) return 1;
    }
    return 0;
  }
  std::fprintf(stderr, "unknown --cycle=%s\n", name.c_str());
  return 2;
}

// Whether the thread `tid`, stopped entering a system call, is making one only the simulated kernel makes: the hole
// punch of freed pages in its page file (fallocate, after an lseek(SEEK_DATA) for where data starts), batched every
// 16 MiB freed. On a machine with a KFD that work is inside the kernel, so it is not the thunk's to count; no thunk
// path calls either.
bool SimulatedKernelsOwnCall(pid_t tid) {
  user_regs_struct regs{};
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return false;
  return regs.orig_rax == SYS_lseek || regs.orig_rax == SYS_fallocate;
}

// Runs this binary as `--cycle=<name> --cycles=<cycles>` in a child traced as strace -f traces, and returns how many
// system calls its threads entered, or nullopt when it could not be traced or failed. The simulated kernel's own
// calls (SimulatedKernelsOwnCall) are not counted.
std::optional<long> CountSyscalls(const char* name, long cycles) {
  const std::string cycle_arg = std::string("--cycle=") + name;
  const std::string cycles_arg = "--cycles=" + std::to_string(cycles);
  const pid_t child = fork();
  if (child < 0) return std::nullopt;
  if (child == 0) {
    char* const args[] = {const_cast<char*>("kfd_benchmark"), const_cast<char*>(cycle_arg.c_str()),
                          const_cast<char*>(cycles_arg.c_str()), nullptr};
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(126);
    raise(SIGSTOP);
    execv("/proc/self/exe", args);
    _exit(127);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status)) return std::nullopt;
  const long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
  if (ptrace(PTRACE_SETOPTIONS, child, nullptr, options) != 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    return std::nullopt;
  }
  ptrace(PTRACE_SYSCALL, child, nullptr, nullptr);
  long entries = 0;
  std::optional<int> exit_status;
  // Each thread stops twice per system call, entering and leaving; a thread starts outside one.
  std::vector<pid_t> inside;
  for (;;) {
    const pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) break;  // every traced thread is gone
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (tid == child) exit_status = status;
      std::erase(inside, tid);
      continue;
    }
    if (!WIFSTOPPED(status)) continue;
    int deliver = 0;
    if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
      const auto it = std::find(inside.begin(), inside.end(), tid);
      if (it == inside.end()) {
        inside.push_back(tid);
        if (!SimulatedKernelsOwnCall(tid)) ++entries;
      } else {
        inside.erase(it);
      }
    } else if (WSTOPSIG(status) != SIGTRAP && WSTOPSIG(status) != SIGSTOP) {
      deliver = WSTOPSIG(status);  // a real signal: pass it on
    }
    ptrace(PTRACE_SYSCALL, tid, nullptr, reinterpret_cast<void*>(static_cast<intptr_t>(deliver)));
  }
  if (!exit_status || !WIFEXITED(*exit_status) || WEXITSTATUS(*exit_status) != 0) return std::nullopt;
  return entries;
}

// (count(kCycles) - count(0)) / kCycles for the cycle `name`, or nullopt when it could not be counted.
std::optional<double> SyscallsPerCycle(const std::string& name) {
  constexpr long kCycles = 2000;
  const std::optional<long> base = CountSyscalls(name.c_str(), 0);
  const std::optional<long> counted = base ? CountSyscalls(name.c_str(), kCycles) : std::nullopt;
  if (!counted) return std::nullopt;
  return static_cast<double>(*counted - *base) / kCycles;
}

// Prints the system calls per cycle of every case, AMD's thunk's next to ours when it is compared; false when
// one of ours exceeds the goal (3). A machine where the children cannot be traced reports "not measured" and
// does not fail.
bool PrintSyscallsPerCycle(bool compare_amd) {
  constexpr double kGoal = 3.0;
  bool met = true;
  for (const Case& c : kCases) {
    const std::optional<double> ours = SyscallsPerCycle(c.name);
    if (!ours) {
      std::printf("syscalls per cycle: %s: not measured (ptrace unavailable or the cycle failed)\n", c.name);
    } else {
      const bool ok = *ours <= kGoal;
      met = met && ok;
      std::printf("syscalls per cycle: %s = %.3f (goal <= %.0f: %s)\n", c.name, *ours, kGoal, ok ? "met" : "MISSED");
    }
    if (!compare_amd) continue;
    const std::optional<double> theirs = SyscallsPerCycle(std::string("amd_") + c.name);
    if (theirs) {
      std::printf("syscalls per cycle: AMD's %s = %.3f\n", c.name, *theirs);
    } else {
      std::printf("syscalls per cycle: AMD's %s: not measured\n", c.name);
    }
  }
  return met;
}

}  // namespace
}  // namespace hipmem::thunk

int main(int argc, char** argv) {
  std::vector<char*> original(argv, argv + argc + 1);  // for the re-exec under the preload, flags and all
  std::string cycle;
  long cycles = -1;
  // Takes out --amd_libhsakmt=PATH and --kfd_preload=PATH, which Google Benchmark does not know.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    constexpr char kAmdFlag[] = "--amd_libhsakmt=";
    constexpr char kPreloadFlag[] = "--kfd_preload=";
    if (std::strncmp(argv[i], kAmdFlag, sizeof(kAmdFlag) - 1) == 0) {
      hipmem::thunk::AmdLibraryPath() = argv[i] + sizeof(kAmdFlag) - 1;
      continue;
    }
    if (std::strncmp(argv[i], kPreloadFlag, sizeof(kPreloadFlag) - 1) == 0) {
      hipmem::thunk::PreloadFlag() = argv[i] + sizeof(kPreloadFlag) - 1;
      continue;
    }
    if (std::strncmp(argv[i], "--cycle=", 8) == 0) cycle = argv[i] + 8;
    if (std::strncmp(argv[i], "--cycles=", 9) == 0) cycles = std::atol(argv[i] + 9);
    argv[kept++] = argv[i];
  }
  argc = kept;
  argv[argc] = nullptr;
  if (!cycle.empty() && cycles >= 0) return hipmem::thunk::RunCycles(cycle, cycles);
  if (getenv(hipmem::thunk::kUnderPreloadEnv) == nullptr) hipmem::thunk::ReexecUnderPreload(original.data());

  benchmark::Initialize(&argc, argv);
  std::vector<hipmem_bench::RatioGoal> goals = {
      {"BM_GetVersionDispatch", "BM_GetppidSyscall", 3.0},
      {"BM_HsaKmtGetVersion", "BM_TrivialCall", 3.0},
  };
  const char* const kCycleBenchmarks[] = {"AllocMapUnmapFree4KiB", "AllocMapUnmapFree2MiB",
                                          "AllocMapUnmapFreeVisible4KiB", "AllocMapUnmapFreeVisible2MiB"};
  for (const char* name : kCycleBenchmarks) goals.push_back({std::string("BM_") + name, "BM_GetppidSyscall", 0});
  // Ours against AMD's on the same KFD: issue #25's goal, ours <= 0.8x theirs on every row.
  const bool compare_amd =
      getenv(hipmem::thunk::kUnderPreloadEnv) != nullptr && hipmem::thunk::RegisterAmdComparison();
  if (compare_amd) {
    for (const hipmem::thunk::ApiRow& row : hipmem::thunk::kApiRows) {
      goals.push_back({std::string("BM_Ours_") + row.name, std::string("BM_Amd_") + row.name, 0.8});
    }
    // The rows most of whose time is the simulated kernel's, the same for both thunks: the floor's share of AMD's
    // row, and each thunk's own cost above the floor compared (report only: the goal above is the issue's, and
    // whether these rows are judged above their floor instead is the project lead's call).
    for (const char* row : {"EventCreateDestroy", "RegisterMapUnmapDeregisterUserptr2MiB", "GetVersion"}) {
      goals.push_back({std::string("BM_Floor_") + row, std::string("BM_Amd_") + row, 0});
      goals.push_back(
          {std::string("BM_Ours_") + row, std::string("BM_Amd_") + row, 0, std::string("BM_Floor_") + row});
    }
  }
  hipmem_bench::RatioReporter reporter(std::move(goals));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  bool met = reporter.PrintRatios();
  met = hipmem::thunk::PrintSyscallsPerCycle(compare_amd) && met;
  benchmark::Shutdown();
  return met ? 0 : 1;
}
