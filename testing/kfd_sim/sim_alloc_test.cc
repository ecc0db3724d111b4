// ACQUIRE_VM, ALLOC/FREE_MEMORY_OF_GPU and AVAILABLE_MEMORY.
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "base/units.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/kfd_sim/user_memory.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
using ::hipmem_testing::AcquireAllVms;
using ::hipmem_testing::Alloc;
using ::hipmem_testing::AllocResult;
using ::hipmem_testing::Available;
using ::hipmem_testing::Free;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::kVramFlags;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::SmallTopology;
using ::hipmem_testing::UserPages;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;

constexpr Bytes kPage = Bytes::KiB(4);

// ---- ACQUIRE_VM ----

TEST(SimAcquireVmTest, SameRenderFdTwiceSucceeds) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  const GpuConfig& gpu = sim->topology().gpus[0];
  const int fd = file->OpenRenderNode(gpu.drm_render_minor);
  ASSERT_GE(fd, 0);
  uapi::AcquireVmArgs args{.drm_fd = static_cast<uint32_t>(fd), .gpu_id = gpu.gpu_id};
  EXPECT_EQ(Ioctl(*file, uapi::kAcquireVm, args), 0);
  EXPECT_EQ(Ioctl(*file, uapi::kAcquireVm, args), 0);
}

TEST(SimAcquireVmTest, BadRequestsGetKernelErrnos) {
  auto sim = MakeSimulator(Mi300xTopology(2));
  auto file = sim->Open();
  const GpuConfig& gpu0 = sim->topology().gpus[0];
  const GpuConfig& gpu1 = sim->topology().gpus[1];
  const int fd0 = file->OpenRenderNode(gpu0.drm_render_minor);
  const int fd1 = file->OpenRenderNode(gpu1.drm_render_minor);
  const int fd0_again = file->OpenRenderNode(gpu0.drm_render_minor);
  ASSERT_GE(fd0, 0);
  ASSERT_GE(fd1, 0);
  ASSERT_NE(fd0, fd0_again);

  struct Row {
    const char* what;
    uint32_t drm_fd;
    uint32_t gpu_id;
    int expected;
  };
  const Row kRows[] = {
      {"drm_fd 0 is no render node", 0, gpu0.gpu_id, -EINVAL},
      {"drm_fd never opened", static_cast<uint32_t>(fd1 + 100), gpu0.gpu_id, -EINVAL},
      {"unknown gpu_id", static_cast<uint32_t>(fd0), 0xbeef, -EINVAL},
      {"gpu_id 0 is the CPU", static_cast<uint32_t>(fd0), 0, -EINVAL},
      {"render node of another GPU", static_cast<uint32_t>(fd1), gpu0.gpu_id, -EINVAL},
      {"first acquire", static_cast<uint32_t>(fd0), gpu0.gpu_id, 0},
      {"another file for an acquired VM", static_cast<uint32_t>(fd0_again), gpu0.gpu_id, -EBUSY},
      {"another GPU's file for an acquired VM", static_cast<uint32_t>(fd1), gpu0.gpu_id, -EBUSY},
      {"same file again", static_cast<uint32_t>(fd0), gpu0.gpu_id, 0},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    uapi::AcquireVmArgs args{.drm_fd = row.drm_fd, .gpu_id = row.gpu_id};
    EXPECT_EQ(Ioctl(*file, uapi::kAcquireVm, args), row.expected);
  }
}

TEST(SimAcquireVmTest, UnknownRenderMinorIsEnoent) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  EXPECT_EQ(file->OpenRenderNode(129), -ENOENT);
  EXPECT_EQ(file->OpenRenderNode(0), -ENOENT);
}

TEST(SimAcquireVmTest, AllocBeforeAcquireIsEnodev) {
  // kfd_bind_process_to_device refuses a device without a VM.
  auto sim = MakeSimulator();
  auto file = sim->Open();
  EXPECT_EQ(Alloc(*file, sim->topology().gpus[0].gpu_id, kTestVa, Bytes::MiB(2), kVramFlags).ret, -ENODEV);
}

// ---- ALLOC / FREE ----

class SimAllocTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = MakeSimulator(Mi300xTopology(2));
    file_ = sim_->Open();
    render_fds_ = AcquireAllVms(*sim_, *file_);
  }
  void TearDown() override { file_.reset(); }

  uint32_t gpu_id(int i) const { return sim_->topology().gpus[i].gpu_id; }

  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> file_;
  std::vector<int> render_fds_;
};

TEST_F(SimAllocTest, HandleCarriesGpuIdAndUniqueIdr) {
  absl::flat_hash_set<uint64_t> handles;
  absl::flat_hash_set<uint64_t> offsets;
  for (int i = 0; i < 4; ++i) {
    const AllocResult r = Alloc(*file_, gpu_id(i % 2), kTestVa + i * Bytes::MiB(4).raw(), Bytes::MiB(2),
                                i % 2 ? kVramFlags : AllocMemFlags::kGtt | AllocMemFlags::kWritable);
    ASSERT_EQ(r.ret, 0);
    EXPECT_EQ(uapi::HandleGpuId(r.handle), gpu_id(i % 2));
    EXPECT_GE(uapi::HandleIdr(r.handle), 1u);
    EXPECT_EQ(r.mmap_offset % kPage.raw(), 0u);
    EXPECT_TRUE(handles.insert(r.handle).second);
    EXPECT_TRUE(offsets.insert(r.mmap_offset).second);
  }
}

TEST_F(SimAllocTest, BadRequestsGetKernelErrnos) {
  const int cpu = 0x7000;  // a page-aligned CPU address for USERPTR rows
  struct Row {
    const char* what;
    uint32_t gpu_id;
    uint64_t va;
    uint64_t size;
    AllocMemFlags flags;
    uint64_t userptr;
    int expected;
  };
  const uint64_t limit = (uint64_t{1} << 47);
  const Row kRows[] = {
      {"size 0", gpu_id(0), kTestVa, 0, kVramFlags, 0, -EINVAL},
      {"unknown gpu_id", 0xbeef, kTestVa, 4096, kVramFlags, 0, -EINVAL},
      {"gpu_id 0", 0, kTestVa, 4096, kVramFlags, 0, -EINVAL},
      {"no domain bit", gpu_id(0), kTestVa, 4096, AllocMemFlags::kWritable, 0, -EINVAL},
      {"two domain bits", gpu_id(0), kTestVa, 4096, AllocMemFlags::kVram | AllocMemFlags::kGtt, 0, -EINVAL},
      {"doorbell smaller than the 8 KiB slice", gpu_id(0), kTestVa, 4096, AllocMemFlags::kDoorbell, 0, -EINVAL},
      {"mmio remap of two pages", gpu_id(0), kTestVa, 8192, AllocMemFlags::kMmioRemap, 0, -EINVAL},
      {"misaligned va", gpu_id(0), kTestVa + 16, 4096, kVramFlags, 0, -EINVAL},
      {"misaligned size", gpu_id(0), kTestVa, 4097, kVramFlags, 0, -EINVAL},
      {"va below the GPUVM base", gpu_id(0), 0x1000, 4096, kVramFlags, 0, -EINVAL},
      {"GTT at va 0", gpu_id(0), 0, 4096, AllocMemFlags::kGtt, 0, -EINVAL},
      {"end past the GPUVM limit", gpu_id(0), limit - 4096, 8192, kVramFlags, 0, -EINVAL},
      {"range wraps", gpu_id(0), 0xfffffffffffff000, 8192, kVramFlags, 0, -EINVAL},
      {"userptr without a CPU address", gpu_id(0), kTestVa, 4096, AllocMemFlags::kUserptr, 0, -EFAULT},
      {"userptr misaligned", gpu_id(0), kTestVa, 4096, AllocMemFlags::kUserptr, cpu + 8u, -EFAULT},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(Alloc(*file_, row.gpu_id, row.va, Bytes(row.size), row.flags, row.userptr).ret, row.expected);
  }
  // Nothing leaked from any refused request.
  const SimSnapshot snapshot = sim_->Snapshot();
  ASSERT_EQ(snapshot.processes.size(), 1u);
  EXPECT_TRUE(snapshot.processes[0].bos.empty());
  EXPECT_EQ(snapshot.gpus[0].vram_used, Bytes(0));
  EXPECT_EQ(snapshot.system_used, Bytes(0));
}

TEST_F(SimAllocTest, LastPageOfTheApertureIsAllocatable) {
  const uint64_t limit = (uint64_t{1} << 47);
  EXPECT_EQ(Alloc(*file_, gpu_id(0), limit - 4096, kPage, kVramFlags).ret, 0);
}

TEST_F(SimAllocTest, OverlappingVaOnSameGpuIsEaddrinuse) {
  ASSERT_EQ(Alloc(*file_, gpu_id(0), kTestVa, Bytes::MiB(2), kVramFlags).ret, 0);
  EXPECT_EQ(Alloc(*file_, gpu_id(0), kTestVa, Bytes::MiB(2), kVramFlags).ret, -EADDRINUSE);
  EXPECT_EQ(Alloc(*file_, gpu_id(0), kTestVa + Bytes::MiB(1).raw(), Bytes::MiB(2), kVramFlags).ret, -EADDRINUSE);
  EXPECT_EQ(Alloc(*file_, gpu_id(0), kTestVa - 4096, Bytes::MiB(1), kVramFlags).ret, -EADDRINUSE);
  // Adjacent ranges and the same range on another GPU are fine.
  EXPECT_EQ(Alloc(*file_, gpu_id(0), kTestVa + Bytes::MiB(2).raw(), kPage, kVramFlags).ret, 0);
  EXPECT_EQ(Alloc(*file_, gpu_id(0), kTestVa - 4096, kPage, kVramFlags).ret, 0);
  EXPECT_EQ(Alloc(*file_, gpu_id(1), kTestVa, Bytes::MiB(2), kVramFlags).ret, 0);
}

TEST_F(SimAllocTest, FreedVaCanBeReused) {
  const AllocResult first = Alloc(*file_, gpu_id(0), kTestVa, Bytes::MiB(2), kVramFlags);
  ASSERT_EQ(first.ret, 0);
  ASSERT_EQ(Free(*file_, first.handle), 0);
  const AllocResult second = Alloc(*file_, gpu_id(0), kTestVa, Bytes::MiB(2), kVramFlags);
  ASSERT_EQ(second.ret, 0);
  EXPECT_NE(second.handle, first.handle) << "idrs are never reused";
}

TEST_F(SimAllocTest, DoubleFreeIsEinval) {
  const AllocResult r = Alloc(*file_, gpu_id(0), kTestVa, Bytes::MiB(2), kVramFlags);
  ASSERT_EQ(r.ret, 0);
  EXPECT_EQ(Free(*file_, r.handle), 0);
  EXPECT_EQ(Free(*file_, r.handle), -EINVAL);
}

TEST_F(SimAllocTest, FreeOfBadHandlesIsEinval) {
  const AllocResult r = Alloc(*file_, gpu_id(0), kTestVa, Bytes::MiB(2), kVramFlags);
  ASSERT_EQ(r.ret, 0);
  struct Row {
    const char* what;
    uint64_t handle;
  };
  const Row kRows[] = {
      {"handle 0", 0},
      {"unknown gpu in the handle", uapi::MakeHandle(0xbeef, uapi::HandleIdr(r.handle))},
      {"right idr, other GPU", uapi::MakeHandle(gpu_id(1), uapi::HandleIdr(r.handle))},
      {"idr never issued", uapi::MakeHandle(gpu_id(0), 999)},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(Free(*file_, row.handle), -EINVAL);
  }
  EXPECT_EQ(Free(*file_, r.handle), 0);
}

TEST_F(SimAllocTest, UserptrReturnsAnMmapOffsetAndCountsAsSystemMemory) {
  const UserPages pages(Bytes::MiB(1));
  const AllocResult r = Alloc(*file_, gpu_id(0), kTestVa, Bytes::MiB(1), AllocMemFlags::kUserptr, pages.address());
  ASSERT_EQ(r.ret, 0);
  EXPECT_NE(r.mmap_offset, pages.address()) << "the kernel returns the BO's DRM offset";
  const SimSnapshot snapshot = sim_->Snapshot();
  EXPECT_EQ(snapshot.system_used, Bytes::MiB(1));
  EXPECT_EQ(snapshot.gpus[0].vram_used, Bytes(0));
}

// amdgpu pins a USERPTR buffer's pages when it is created (get_user_pages): a range with a page that is not
// mapped, or not accessible, in the caller is refused with -EFAULT and costs nothing.
TEST_F(SimAllocTest, UserptrOverPagesTheCallerCannotReadIsEfault) {
  const Bytes size = kPage + kPage + kPage + kPage;
  const UserPages prot_none(size);
  ASSERT_EQ(mprotect(reinterpret_cast<void*>(prot_none.address() + kPage.raw()), kPage.raw(), PROT_NONE), 0);
  const UserPages hole(size);
  ASSERT_EQ(munmap(reinterpret_cast<void*>(hole.address() + 2 * kPage.raw()), kPage.raw()), 0);
  const UserPages short_tail(size);
  ASSERT_EQ(munmap(reinterpret_cast<void*>(short_tail.address() + 3 * kPage.raw()), kPage.raw()), 0);
  uint64_t unmapped = 0;
  {
    const UserPages gone(size);
    unmapped = gone.address();
  }
  struct Row {
    const char* what;
    uint64_t userptr;
  };
  const Row kRows[] = {
      {"a PROT_NONE page inside", prot_none.address()},
      {"an unmapped page inside", hole.address()},
      {"the last page unmapped", short_tail.address()},
      {"nothing mapped", unmapped},
      {"the kernel half", uint64_t{0xffff800000000000}},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(Alloc(*file_, gpu_id(0), kTestVa, size, AllocMemFlags::kUserptr, row.userptr).ret, -EFAULT);
  }
  const SimSnapshot snapshot = sim_->Snapshot();
  EXPECT_TRUE(snapshot.processes[0].bos.empty());
  EXPECT_EQ(snapshot.system_used, Bytes(0));
  // The same VA takes a buffer over readable pages afterwards: nothing of the refused ones was kept.
  const UserPages good(size);
  EXPECT_EQ(Alloc(*file_, gpu_id(0), kTestVa, size, AllocMemFlags::kUserptr, good.address()).ret, 0);
}

// Pinning is one pass over the range, not a per-byte copy: a large, never-touched reservation pins quickly and
// without committing memory.
TEST_F(SimAllocTest, UserptrOverALargeUntouchedRangeSucceeds) {
  const Bytes size = Bytes::MiB(512);
  void* p = mmap(nullptr, size.raw(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const AllocResult r = Alloc(*file_, gpu_id(0), kTestVa, size, AllocMemFlags::kUserptr, reinterpret_cast<uintptr_t>(p));
  EXPECT_EQ(r.ret, 0);
  EXPECT_EQ(Free(*file_, r.handle), 0);
  munmap(p, size.raw());
}

// A fuzzer's user-memory window (user_memory.h): a USERPTR over mapped pages outside it is -EFAULT, as over a hole,
// and the same pages are pinned once the window admits them. The argument struct is in the window both times.
TEST_F(SimAllocTest, UserptrOutsideAFuzzersWindowIsEfault) {
  const UserPages pages(Bytes::MiB(1));
  uapi::AllocMemoryOfGpuArgs args{};
  const auto alloc = [&] {
    args = uapi::AllocMemoryOfGpuArgs{.va_addr = kTestVa,
                                      .size = Bytes::MiB(1).raw(),
                                      .handle = 0,
                                      .mmap_offset = pages.address(),
                                      .gpu_id = gpu_id(0),
                                      .flags = uapi::ToRaw(AllocMemFlags::kUserptr)};
    return file_->Ioctl(uapi::kAllocMemoryOfGpu.request(), &args);
  };
  const UserRange args_only[] = {{reinterpret_cast<uintptr_t>(&args), sizeof(args)}};
  RestrictUserMemoryTo(args_only);
  const int outside = alloc();
  const UserRange args_and_pages[] = {args_only[0], {pages.address(), Bytes::MiB(1).raw()}};
  RestrictUserMemoryTo(args_and_pages);
  const int inside = alloc();
  RestrictUserMemoryTo({});
  EXPECT_EQ(outside, -EFAULT);
  ASSERT_EQ(inside, 0);
  EXPECT_EQ(Free(*file_, args.handle), 0);
}

TEST_F(SimAllocTest, VramWithoutVaIsAllowed) {
  const AllocResult r = Alloc(*file_, gpu_id(0), 0, Bytes::MiB(2), kVramFlags);
  ASSERT_EQ(r.ret, 0);
  // A second VA-less handle does not "overlap" the first.
  EXPECT_EQ(Alloc(*file_, gpu_id(0), 0, Bytes::MiB(2), kVramFlags).ret, 0);
  EXPECT_EQ(Available(*file_, gpu_id(0)), sim_->topology().gpus[0].vram_bytes - Bytes::MiB(4).raw());
}

TEST_F(SimAllocTest, BuffersNothingTouchesNeedNoFileDescriptors) {
  // The kernel's BOs cost no file descriptor; here a buffer gets its backing file only when something reaches
  // its pages, so a process may hold more buffers than it may open files.
  const std::vector<uint32_t> gpu0 = {gpu_id(0)};
  std::vector<uint64_t> handles;
  {
    const hipmem_testing::NoFreeDescriptors none;
    for (int i = 0; i < 64; ++i) {
      const AllocMemFlags flags = i % 2 ? kVramFlags : AllocMemFlags::kGtt | AllocMemFlags::kWritable;
      const AllocResult r = Alloc(*file_, gpu_id(0), kTestVa + i * Bytes::MiB(2).raw(), Bytes::MiB(2), flags);
      ASSERT_EQ(r.ret, 0) << i;
      ASSERT_EQ(hipmem_testing::Map(*file_, r.handle, gpu0).ret, 0) << i;
      handles.push_back(r.handle);
    }
    for (uint64_t handle : handles) {
      ASSERT_EQ(hipmem_testing::Unmap(*file_, handle, gpu0).ret, 0);
      ASSERT_EQ(Free(*file_, handle), 0);
    }
  }
  EXPECT_EQ(Available(*file_, gpu_id(0)), sim_->topology().gpus[0].vram_bytes);
}

TEST_F(SimAllocTest, AvailableMemoryOfUnknownGpuIsEinval) {
  uapi::GetAvailableMemoryArgs args{.available = 0, .gpu_id = 0xbeef, .pad = 0};
  EXPECT_EQ(Ioctl(*file_, uapi::kAvailableMemory, args), -EINVAL);
}

TEST_F(SimAllocTest, AvailableMemoryTracksVramUseExactly) {
  const uint64_t start = Available(*file_, gpu_id(0));
  EXPECT_EQ(start, sim_->topology().gpus[0].vram_bytes);
  const AllocResult a = Alloc(*file_, gpu_id(0), kTestVa, Bytes::MiB(6), kVramFlags);
  const AllocResult b = Alloc(*file_, gpu_id(0), kTestVa + Bytes::MiB(8).raw(), Bytes::KiB(12), kVramFlags);
  ASSERT_EQ(a.ret, 0);
  ASSERT_EQ(b.ret, 0);
  EXPECT_EQ(Available(*file_, gpu_id(0)), start - Bytes::MiB(6).raw() - Bytes::KiB(12).raw());
  EXPECT_EQ(Available(*file_, gpu_id(1)), sim_->topology().gpus[1].vram_bytes) << "other GPU untouched";
  ASSERT_EQ(Free(*file_, a.handle), 0);
  ASSERT_EQ(Free(*file_, b.handle), 0);
  EXPECT_EQ(Available(*file_, gpu_id(0)), start);
}

// libhsakmt's map_mmio: one MMIO_REMAP page per GPU, CPU-mapped through /dev/kfd at the offset ALLOC returned and
// mapped on its GPU; ROCr writes the HDP flush registers through it.
TEST_F(SimAllocTest, MmioRemapPageIsNotMemoryAndMapsOnlyThroughKfd) {
  const uint64_t start = Available(*file_, gpu_id(0));
  const AllocMemFlags flags = AllocMemFlags::kMmioRemap | AllocMemFlags::kWritable | AllocMemFlags::kCoherent;
  const AllocResult r = Alloc(*file_, gpu_id(0), kTestVa, kPage, flags);
  ASSERT_EQ(r.ret, 0);
  EXPECT_EQ(r.mmap_offset, uapi::kMmapTypeMmio | (uint64_t{gpu_id(0)} << uapi::kMmapGpuIdShift));
  EXPECT_EQ(Available(*file_, gpu_id(0)), start) << "a register page, not VRAM";

  hipmem_testing::Reservation place(Bytes::KiB(8));
  EXPECT_EQ(file_->MmapKfd(place.addr(), 8192, PROT_READ | PROT_WRITE, r.mmap_offset), -EINVAL) << "one page only";
  EXPECT_EQ(file_->MmapKfd(place.addr(), 4096, PROT_READ | PROT_WRITE,
                           uapi::kMmapTypeMmio | (uint64_t{0xbad} << uapi::kMmapGpuIdShift)),
            -EINVAL)
      << "unknown gpu";
  EXPECT_EQ(file_->MmapBo(render_fds_[0], place.addr(), 4096, PROT_READ | PROT_WRITE, r.mmap_offset), -EINVAL)
      << "not through the render node";
  ASSERT_EQ(file_->MmapKfd(place.addr(), 4096, PROT_READ | PROT_WRITE, r.mmap_offset), 0);
  auto* regs = static_cast<uint32_t*>(place.addr());
  regs[uapi::kMmioRemapHdpMemFlushCntl / sizeof(uint32_t)] = 1;  // an HDP flush: harmless, and the page is writable

  uapi::MapMemoryToGpuArgs map{};
  uint32_t id = gpu_id(0);
  map.handle = r.handle;
  map.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&id);
  map.n_devices = 1;
  ASSERT_EQ(Ioctl(*file_, uapi::kMapMemoryToGpu, map), 0);
  EXPECT_TRUE(file_->IsMapped(gpu_id(0), DeviceAddress(kTestVa), kPage));
  uint32_t seen = 0;
  ASSERT_TRUE(file_->ReadGpuMemory(gpu_id(0), DeviceAddress(kTestVa), Bytes(sizeof(seen)), &seen));
  EXPECT_EQ(seen, 1u) << "the GPU reaches the same page";

  uapi::UnmapMemoryFromGpuArgs unmap{};
  unmap.handle = r.handle;
  unmap.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&id);
  unmap.n_devices = 1;
  ASSERT_EQ(Ioctl(*file_, uapi::kUnmapMemoryFromGpu, unmap), 0);
  ASSERT_EQ(Free(*file_, r.handle), 0);
  EXPECT_EQ(Available(*file_, gpu_id(0)), start);
}

TEST_F(SimAllocTest, AqlQueueMemoryIsAccountedAtHalfSize) {
  const AllocResult r =
      Alloc(*file_, gpu_id(0), kTestVa, Bytes::MiB(2), kVramFlags | AllocMemFlags::kAqlQueueMem);
  ASSERT_EQ(r.ret, 0);
  EXPECT_EQ(Available(*file_, gpu_id(0)), sim_->topology().gpus[0].vram_bytes - Bytes::MiB(1).raw());
  ASSERT_EQ(Free(*file_, r.handle), 0);
  EXPECT_EQ(Available(*file_, gpu_id(0)), sim_->topology().gpus[0].vram_bytes);
}

TEST(SimAllocExhaustionTest, VramExhaustionIsEnomemAndAccountingStaysExact) {
  auto sim = MakeSimulator(SmallTopology(Bytes::MiB(64), Bytes::MiB(64)));
  auto file = sim->Open();
  AcquireAllVms(*sim, *file);
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;

  const AllocResult big = Alloc(*file, gpu, kTestVa, Bytes::MiB(48), kVramFlags);
  ASSERT_EQ(big.ret, 0);
  EXPECT_EQ(Alloc(*file, gpu, kTestVa + Bytes::MiB(64).raw(), Bytes::MiB(32), kVramFlags).ret, -ENOMEM);
  EXPECT_EQ(Available(*file, gpu), Bytes::MiB(16).raw());
  // Exactly the rest still fits; one more page does not.
  const AllocResult rest = Alloc(*file, gpu, kTestVa + Bytes::MiB(64).raw(), Bytes::MiB(16), kVramFlags);
  ASSERT_EQ(rest.ret, 0);
  EXPECT_EQ(Alloc(*file, gpu, kTestVa + Bytes::MiB(128).raw(), kPage, kVramFlags).ret, -ENOMEM);
  EXPECT_EQ(Available(*file, gpu), 0u);

  ASSERT_EQ(Free(*file, big.handle), 0);
  ASSERT_EQ(Free(*file, rest.handle), 0);
  EXPECT_EQ(Available(*file, gpu), Bytes::MiB(64).raw());
  EXPECT_EQ(Alloc(*file, gpu, kTestVa, Bytes::MiB(64), kVramFlags).ret, 0);
}

TEST(SimAllocExhaustionTest, GttAndUserptrShareTheSystemLimit) {
  auto sim = MakeSimulator(SmallTopology(Bytes::MiB(64), Bytes::MiB(8)));
  auto file = sim->Open();
  AcquireAllVms(*sim, *file);
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;

  const UserPages pages(Bytes::MiB(4));
  const AllocResult gtt = Alloc(*file, gpu, kTestVa, Bytes::MiB(6), AllocMemFlags::kGtt);
  ASSERT_EQ(gtt.ret, 0);
  EXPECT_EQ(
      Alloc(*file, gpu, kTestVa + Bytes::MiB(8).raw(), Bytes::MiB(4), AllocMemFlags::kUserptr, pages.address()).ret,
      -ENOMEM);
  EXPECT_EQ(Alloc(*file, gpu, kTestVa + Bytes::MiB(8).raw(), Bytes::MiB(4), AllocMemFlags::kGtt).ret, -ENOMEM);
  EXPECT_EQ(sim->Snapshot().system_used, Bytes::MiB(6));
  // VRAM is a separate pool.
  EXPECT_EQ(Alloc(*file, gpu, kTestVa + Bytes::MiB(8).raw(), Bytes::MiB(32), kVramFlags).ret, 0);
  ASSERT_EQ(Free(*file, gtt.handle), 0);
  EXPECT_EQ(sim->Snapshot().system_used, Bytes(0));
}

}  // namespace
}  // namespace hipmem::kfd_sim
