// Helpers for tests that drive the KFD simulator through raw ioctls with kfd_uapi structs.
#ifndef HIPMEM_TESTING_KFD_SIM_SIM_TEST_UTIL_H_
#define HIPMEM_TESTING_KFD_SIM_SIM_TEST_UTIL_H_

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/units.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem_testing {

using ::hipmem::Bytes;
using ::hipmem::kfd_uapi::AllocMemFlags;

// A GPU VA well inside the canonical GPUVM aperture.
inline constexpr uint64_t kTestVa = uint64_t{1} << 32;

// Issues `descriptor`'s request with `args`; returns 0 or -errno.
template <typename Args>
int Ioctl(hipmem::kfd_sim::SimFile& file, const hipmem::kfd_uapi::IoctlDescriptor<Args>& descriptor, Args& args) {
  return file.Ioctl(descriptor.request(), &args);
}

// Creates a simulator, aborting the test binary if the topology is refused (a broken test).
inline std::unique_ptr<hipmem::kfd_sim::Simulator> MakeSimulator(
    hipmem::kfd_sim::Topology topology = hipmem::kfd_sim::DefaultTopology()) {
  auto sim = hipmem::kfd_sim::Simulator::Create(std::move(topology));
  if (!sim.ok()) {
    ADD_FAILURE() << sim.status();
    std::abort();
  }
  return *std::move(sim);
}

// The default topology with small memories, for exhaustion tests: `system` is both the CPU node's bank and the
// limit of system memory buffers.
inline hipmem::kfd_sim::Topology SmallTopology(Bytes vram, Bytes system, int gpu_count = 1) {
  hipmem::kfd_sim::Topology topology = hipmem::kfd_sim::Mi300xTopology(gpu_count);
  topology.system_memory_bytes = system.raw();
  topology.system_memory_limit_bytes = system.raw();
  for (hipmem::kfd_sim::GpuConfig& gpu : topology.gpus) gpu.vram_bytes = vram.raw();
  return topology;
}

// Opens every GPU's render node in `file` and acquires its VM; returns the render fds in topology order.
inline std::vector<int> AcquireAllVms(const hipmem::kfd_sim::Simulator& sim, hipmem::kfd_sim::SimFile& file) {
  std::vector<int> fds;
  for (const hipmem::kfd_sim::GpuConfig& gpu : sim.topology().gpus) {
    const int fd = file.OpenRenderNode(gpu.drm_render_minor);
    EXPECT_GE(fd, 0);
    hipmem::kfd_uapi::AcquireVmArgs args{.drm_fd = static_cast<uint32_t>(fd), .gpu_id = gpu.gpu_id};
    EXPECT_EQ(Ioctl(file, hipmem::kfd_uapi::kAcquireVm, args), 0);
    fds.push_back(fd);
  }
  return fds;
}

struct AllocResult {
  int ret;
  uint64_t handle;
  uint64_t mmap_offset;
};

// Fresh anonymous read/write pages of this process, unmapped on destruction: the CPU side of a USERPTR buffer,
// which the simulator pins as the kernel does, so its address must really be mapped.
class UserPages {
 public:
  explicit UserPages(Bytes size) : size_(size) {
    void* p = mmap(nullptr, size.raw(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      ADD_FAILURE() << "mmap of " << size.raw() << " bytes failed";
      std::abort();
    }
    address_ = reinterpret_cast<uintptr_t>(p);
  }
  UserPages(const UserPages&) = delete;
  UserPages& operator=(const UserPages&) = delete;
  ~UserPages() { munmap(reinterpret_cast<void*>(address_), size_.raw()); }

  uint64_t address() const { return address_; }

 private:
  uint64_t address_ = 0;
  Bytes size_;
};

// Issues ALLOC_MEMORY_OF_GPU. For USERPTR, `userptr` is the CPU address passed in mmap_offset.
inline AllocResult Alloc(hipmem::kfd_sim::SimFile& file, uint32_t gpu_id, uint64_t va, Bytes size,
                         AllocMemFlags flags, uint64_t userptr = 0) {
  hipmem::kfd_uapi::AllocMemoryOfGpuArgs args{
      .va_addr = va,
      .size = size.raw(),
      .handle = 0,
      .mmap_offset = userptr,
      .gpu_id = gpu_id,
      .flags = hipmem::kfd_uapi::ToRaw(flags),
  };
  const int ret = Ioctl(file, hipmem::kfd_uapi::kAllocMemoryOfGpu, args);
  return AllocResult{.ret = ret, .handle = args.handle, .mmap_offset = args.mmap_offset};
}

// The flags ROCr uses for plain device memory (hipMalloc): VRAM, writable, executable, no substitute.
inline constexpr AllocMemFlags kVramFlags =
    AllocMemFlags::kVram | AllocMemFlags::kWritable | AllocMemFlags::kExecutable | AllocMemFlags::kNoSubstitute;

// What the queue tests allocate rings, pointers and packets' data in: uncached, executable system memory, as the
// thunk gives kfdtest's queue buffers; and the process's doorbell slice (one 8 KiB DOORBELL buffer per GPU).
inline constexpr AllocMemFlags kQueueGttFlags = AllocMemFlags::kGtt | AllocMemFlags::kWritable |
                                                AllocMemFlags::kExecutable | AllocMemFlags::kNoSubstitute |
                                                AllocMemFlags::kCoherent | AllocMemFlags::kUncached;
inline constexpr AllocMemFlags kDoorbellFlags =
    AllocMemFlags::kDoorbell | AllocMemFlags::kWritable | AllocMemFlags::kCoherent;
inline constexpr Bytes kDoorbellSlice = Bytes::KiB(8);

inline int Free(hipmem::kfd_sim::SimFile& file, uint64_t handle) {
  hipmem::kfd_uapi::FreeMemoryOfGpuArgs args{.handle = handle};
  return Ioctl(file, hipmem::kfd_uapi::kFreeMemoryOfGpu, args);
}

struct MapResult {
  int ret;
  uint32_t n_success;
};

inline MapResult Map(hipmem::kfd_sim::SimFile& file, uint64_t handle, const std::vector<uint32_t>& gpu_ids,
                     uint32_t n_success = 0) {
  hipmem::kfd_uapi::MapMemoryToGpuArgs args{
      .handle = handle,
      .device_ids_array_ptr = reinterpret_cast<uintptr_t>(gpu_ids.data()),
      .n_devices = static_cast<uint32_t>(gpu_ids.size()),
      .n_success = n_success,
  };
  const int ret = Ioctl(file, hipmem::kfd_uapi::kMapMemoryToGpu, args);
  return MapResult{.ret = ret, .n_success = args.n_success};
}

inline MapResult Unmap(hipmem::kfd_sim::SimFile& file, uint64_t handle, const std::vector<uint32_t>& gpu_ids,
                       uint32_t n_success = 0) {
  hipmem::kfd_uapi::UnmapMemoryFromGpuArgs args{
      .handle = handle,
      .device_ids_array_ptr = reinterpret_cast<uintptr_t>(gpu_ids.data()),
      .n_devices = static_cast<uint32_t>(gpu_ids.size()),
      .n_success = n_success,
  };
  const int ret = Ioctl(file, hipmem::kfd_uapi::kUnmapMemoryFromGpu, args);
  return MapResult{.ret = ret, .n_success = args.n_success};
}

// Returns AVAILABLE_MEMORY for `gpu_id`, failing the test if the ioctl fails.
inline uint64_t Available(hipmem::kfd_sim::SimFile& file, uint32_t gpu_id) {
  hipmem::kfd_uapi::GetAvailableMemoryArgs args{.available = 0, .gpu_id = gpu_id, .pad = 0};
  EXPECT_EQ(Ioctl(file, hipmem::kfd_uapi::kAvailableMemory, args), 0);
  return args.available;
}

// A PROT_NONE reservation of address space, as the thunk makes before mapping a buffer into it. Owns it.
class Reservation {
 public:
  explicit Reservation(Bytes size) : size_(size) {
    void* p = mmap(nullptr, size.raw(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    addr_ = p == MAP_FAILED ? nullptr : p;
  }
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() {
    if (addr_ != nullptr) munmap(addr_, size_.raw());
  }
  void* addr() const { return addr_; }
  char* bytes() const { return static_cast<char*>(addr_); }

 private:
  void* addr_ = nullptr;
  Bytes size_;
};

// Lowers the soft RLIMIT_NOFILE to the lowest free descriptor for its lifetime, so no file can be opened.
class NoFreeDescriptors {
 public:
  NoFreeDescriptors() {
    EXPECT_EQ(getrlimit(RLIMIT_NOFILE, &old_), 0);
    const int lowest_free = dup(0);
    EXPECT_GE(lowest_free, 0);
    close(lowest_free);
    rlimit low = old_;
    low.rlim_cur = static_cast<rlim_t>(lowest_free);
    EXPECT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  }
  NoFreeDescriptors(const NoFreeDescriptors&) = delete;
  NoFreeDescriptors& operator=(const NoFreeDescriptors&) = delete;
  ~NoFreeDescriptors() { EXPECT_EQ(setrlimit(RLIMIT_NOFILE, &old_), 0); }

 private:
  rlimit old_{};
};

// WAIT_EVENTS on one event for up to `timeout_ms`; returns the wait result (a WaitResult), after failing the
// test if the ioctl itself failed. `data`, when given, receives the event data the kernel wrote back.
inline uint32_t WaitEventResult(hipmem::kfd_sim::SimFile& file, uint32_t event_id, uint32_t timeout_ms,
                                hipmem::kfd_uapi::EventData* data = nullptr) {
  hipmem::kfd_uapi::EventData local{};
  hipmem::kfd_uapi::EventData& out = data != nullptr ? *data : local;
  out = {};
  out.event_id = event_id;
  hipmem::kfd_uapi::WaitEventsArgs args{};
  args.events_ptr = reinterpret_cast<uintptr_t>(&out);
  args.num_events = 1;
  args.wait_for_all = 1;
  args.timeout = timeout_ms;
  EXPECT_EQ(Ioctl(file, hipmem::kfd_uapi::kWaitEvents, args), 0);
  return args.wait_result;
}

// WAIT_EVENTS on one event with a generous timeout (10 s); returns the event data the kernel wrote back.
inline hipmem::kfd_uapi::EventData WaitForEvent(hipmem::kfd_sim::SimFile& file, uint32_t event_id) {
  hipmem::kfd_uapi::EventData data{};
  EXPECT_EQ(WaitEventResult(file, event_id, 10000, &data),
            hipmem::kfd_uapi::ToRaw(hipmem::kfd_uapi::WaitResult::kComplete));
  return data;
}

// Waits (up to 10 s) for a kernel log line containing every one of `parts`, which an engine thread may still be
// writing; returns it, or "" after failing the test.
inline std::string WaitForLogLine(const hipmem::kfd_sim::Simulator& sim, std::initializer_list<std::string> parts) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  do {
    for (const hipmem::kfd_sim::SimLogLine& line : sim.Log()) {
      bool all = true;
      for (const std::string& part : parts) all = all && line.text.find(part) != std::string::npos;
      if (all) return line.text;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  } while (std::chrono::steady_clock::now() < deadline);
  ADD_FAILURE() << "no log line with all of the expected parts in:\n" << sim.Dmesg();
  return "";
}

// The one queue of the one process of `sim`, as its snapshot shows it.
inline hipmem::kfd_sim::SimQueue OnlyQueue(const hipmem::kfd_sim::Simulator& sim) {
  const hipmem::kfd_sim::SimSnapshot snapshot = sim.Snapshot();
  EXPECT_EQ(snapshot.processes.size(), 1u);
  EXPECT_EQ(snapshot.processes[0].queues.size(), 1u);
  return snapshot.processes[0].queues.at(0);
}

}  // namespace hipmem_testing

#endif  // HIPMEM_TESTING_KFD_SIM_SIM_TEST_UTIL_H_
