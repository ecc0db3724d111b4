// MAP_MEMORY_TO_GPU / UNMAP_MEMORY_FROM_GPU and the per-process page tables.
#include <cerrno>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/units.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
using ::hipmem_testing::AcquireAllVms;
using ::hipmem_testing::Alloc;
using ::hipmem_testing::AllocResult;
using ::hipmem_testing::Free;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::kVramFlags;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::Map;
using ::hipmem_testing::MapResult;
using ::hipmem_testing::Unmap;
using ::hipmem_testing::UserPages;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;

constexpr Bytes kSize = Bytes::MiB(2);

class SimMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = MakeSimulator(Mi300xTopology(2));
    file_ = sim_->Open();
    AcquireAllVms(*sim_, *file_);
    const AllocResult r = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags);
    ASSERT_EQ(r.ret, 0);
    handle_ = r.handle;
  }
  void TearDown() override { file_.reset(); }

  uint32_t gpu_id(int i) const { return sim_->topology().gpus[i].gpu_id; }
  bool Mapped(int gpu, uint64_t va = kTestVa, Bytes size = kSize) const {
    return file_->IsMapped(gpu_id(gpu), DeviceAddress(va), size);
  }
  std::vector<uint32_t> MappedGpuIds() const {
    const SimSnapshot snapshot = sim_->Snapshot();
    for (const SimBo& bo : snapshot.processes.at(0).bos) {
      if (bo.handle == handle_) return bo.mapped_gpu_ids;
    }
    ADD_FAILURE() << "buffer is gone";
    return {};
  }

  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> file_;
  uint64_t handle_ = 0;
};

TEST_F(SimMapTest, MapThenUnmapUpdatesThePageTable) {
  EXPECT_FALSE(Mapped(0));
  const MapResult map = Map(*file_, handle_, {gpu_id(0)});
  ASSERT_EQ(map.ret, 0);
  EXPECT_EQ(map.n_success, 1u);
  EXPECT_TRUE(Mapped(0));
  EXPECT_TRUE(Mapped(0, kTestVa + 4096, Bytes(100)));
  EXPECT_FALSE(Mapped(0, kTestVa, kSize + Bytes(1))) << "one byte past the buffer";
  EXPECT_FALSE(Mapped(1)) << "only the listed GPU";
  EXPECT_THAT(MappedGpuIds(), ElementsAre(gpu_id(0)));

  const MapResult unmap = Unmap(*file_, handle_, {gpu_id(0)});
  ASSERT_EQ(unmap.ret, 0);
  EXPECT_EQ(unmap.n_success, 1u);
  EXPECT_FALSE(Mapped(0));
  EXPECT_THAT(MappedGpuIds(), IsEmpty());
}

TEST_F(SimMapTest, MappingTwiceIsANoOp) {
  ASSERT_EQ(Map(*file_, handle_, {gpu_id(0)}).ret, 0);
  const MapResult again = Map(*file_, handle_, {gpu_id(0), gpu_id(0)});
  EXPECT_EQ(again.ret, 0);
  EXPECT_EQ(again.n_success, 2u);
  ASSERT_EQ(Unmap(*file_, handle_, {gpu_id(0)}).ret, 0);
  EXPECT_FALSE(Mapped(0)) << "one unmap undoes any number of maps";
}

TEST_F(SimMapTest, PeerGpuMapsAnotherGpusBuffer) {
  ASSERT_EQ(Map(*file_, handle_, {gpu_id(0), gpu_id(1)}).ret, 0);
  EXPECT_TRUE(Mapped(0));
  EXPECT_TRUE(Mapped(1));
  EXPECT_THAT(MappedGpuIds(), ElementsAre(gpu_id(0), gpu_id(1)));
}

TEST_F(SimMapTest, BadRequestsGetKernelErrnos) {
  const std::vector<uint32_t> ids = {gpu_id(0)};
  struct Row {
    const char* what;
    uint64_t handle;
    uint64_t array;
    uint32_t n_devices;
    uint32_t n_success;
    int expected;
  };
  const uint64_t array = reinterpret_cast<uintptr_t>(ids.data());
  const Row kRows[] = {
      {"n_devices 0", handle_, array, 0, 0, -EINVAL},
      {"n_success past n_devices", handle_, array, 1, 2, -EINVAL},
      {"null device array", handle_, 0, 1, 0, -EFAULT},
      {"device array beyond kmalloc", handle_, array, 0xffffffff, 0, -ENOMEM},
      {"unknown gpu in the handle", uapi::MakeHandle(0xbeef, uapi::HandleIdr(handle_)), array, 1, 0, -EINVAL},
      {"unknown idr (the kernel says ENOMEM)", uapi::MakeHandle(gpu_id(0), 999), array, 1, 0, -ENOMEM},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    uapi::MapMemoryToGpuArgs map{
        .handle = row.handle, .device_ids_array_ptr = row.array, .n_devices = row.n_devices, .n_success = row.n_success};
    EXPECT_EQ(Ioctl(*file_, uapi::kMapMemoryToGpu, map), row.expected);
    uapi::UnmapMemoryFromGpuArgs unmap{
        .handle = row.handle, .device_ids_array_ptr = row.array, .n_devices = row.n_devices, .n_success = row.n_success};
    EXPECT_EQ(Ioctl(*file_, uapi::kUnmapMemoryFromGpu, unmap), row.expected);
  }
  EXPECT_FALSE(Mapped(0));
}

TEST_F(SimMapTest, FailedMapReportsProgressAndRetryResumes) {
  // The second device is unknown: the first is mapped and n_success says so.
  std::vector<uint32_t> ids = {gpu_id(0), 0xbeef};
  const MapResult failed = Map(*file_, handle_, ids);
  EXPECT_EQ(failed.ret, -EINVAL);
  EXPECT_EQ(failed.n_success, 1u);
  EXPECT_TRUE(Mapped(0));
  EXPECT_FALSE(Mapped(1));

  // Fix the list and retry from n_success: only the second entry is processed.
  ids[1] = gpu_id(1);
  const MapResult retried = Map(*file_, handle_, ids, failed.n_success);
  EXPECT_EQ(retried.ret, 0);
  EXPECT_EQ(retried.n_success, 2u);
  EXPECT_TRUE(Mapped(1));
}

TEST_F(SimMapTest, RetryDoesNotRevisitDoneDevices) {
  // Entries before n_success are skipped, even a bogus one.
  const MapResult r = Map(*file_, handle_, {0xbeef, gpu_id(1)}, 1);
  EXPECT_EQ(r.ret, 0);
  EXPECT_EQ(r.n_success, 2u);
  EXPECT_FALSE(Mapped(0));
  EXPECT_TRUE(Mapped(1));
}

TEST_F(SimMapTest, FailedUnmapReportsProgressAndRetryResumes) {
  ASSERT_EQ(Map(*file_, handle_, {gpu_id(0), gpu_id(1)}).ret, 0);
  std::vector<uint32_t> ids = {gpu_id(0), 0xbeef, gpu_id(1)};
  const MapResult failed = Unmap(*file_, handle_, ids);
  EXPECT_EQ(failed.ret, -EINVAL);
  EXPECT_EQ(failed.n_success, 1u);
  EXPECT_FALSE(Mapped(0));
  EXPECT_TRUE(Mapped(1));
  ids.erase(ids.begin() + 1);
  const MapResult retried = Unmap(*file_, handle_, ids, failed.n_success);
  EXPECT_EQ(retried.ret, 0);
  EXPECT_EQ(retried.n_success, 2u);
  EXPECT_FALSE(Mapped(1));
}

TEST_F(SimMapTest, UnmapOfUnmappedBufferIsEinval) {
  const MapResult r = Unmap(*file_, handle_, {gpu_id(0)});
  EXPECT_EQ(r.ret, -EINVAL);
  EXPECT_EQ(r.n_success, 0u);
  ASSERT_EQ(Map(*file_, handle_, {gpu_id(0)}).ret, 0);
  EXPECT_EQ(Unmap(*file_, handle_, {gpu_id(1)}).ret, -EINVAL) << "mapped elsewhere only";
}

TEST_F(SimMapTest, FreeOfMappedBufferUnmapsIt) {
  ASSERT_EQ(Map(*file_, handle_, {gpu_id(0), gpu_id(1)}).ret, 0);
  ASSERT_EQ(Free(*file_, handle_), 0);
  EXPECT_FALSE(Mapped(0));
  EXPECT_FALSE(Mapped(1));
  // The VA is free for a new buffer and its mapping.
  const AllocResult r = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags);
  ASSERT_EQ(r.ret, 0);
  EXPECT_EQ(Map(*file_, r.handle, {gpu_id(0)}).ret, 0);
}

TEST_F(SimMapTest, ConflictInThePeersPageTableIsEinval) {
  // Allowed at alloc (different GPUs), refused when GPU 0's page table would hold both.
  const AllocResult peer = Alloc(*file_, gpu_id(1), kTestVa + Bytes::MiB(1).raw(), kSize, kVramFlags);
  ASSERT_EQ(peer.ret, 0);
  ASSERT_EQ(Map(*file_, handle_, {gpu_id(0)}).ret, 0);
  const MapResult r = Map(*file_, peer.handle, {gpu_id(1), gpu_id(0)});
  EXPECT_EQ(r.ret, -EINVAL);
  EXPECT_EQ(r.n_success, 1u);
  EXPECT_TRUE(Mapped(1, kTestVa + Bytes::MiB(1).raw(), kSize));
}

TEST_F(SimMapTest, VramWithoutVaCannotBeMapped) {
  const AllocResult r = Alloc(*file_, gpu_id(0), 0, kSize, kVramFlags);
  ASSERT_EQ(r.ret, 0);
  EXPECT_EQ(Map(*file_, r.handle, {gpu_id(0)}).ret, -EINVAL);
}

TEST_F(SimMapTest, GttAndUserptrBuffersMapLikeVram) {
  const UserPages pages(kSize);
  const AllocResult gtt = Alloc(*file_, gpu_id(0), kTestVa + Bytes::MiB(8).raw(), kSize, AllocMemFlags::kGtt);
  const AllocResult userptr =
      Alloc(*file_, gpu_id(0), kTestVa + Bytes::MiB(16).raw(), kSize, AllocMemFlags::kUserptr, pages.address());
  ASSERT_EQ(gtt.ret, 0);
  ASSERT_EQ(userptr.ret, 0);
  EXPECT_EQ(Map(*file_, gtt.handle, {gpu_id(0), gpu_id(1)}).ret, 0);
  EXPECT_EQ(Map(*file_, userptr.handle, {gpu_id(0), gpu_id(1)}).ret, 0);
  EXPECT_TRUE(Mapped(1, kTestVa + Bytes::MiB(8).raw(), kSize));
  EXPECT_TRUE(Mapped(1, kTestVa + Bytes::MiB(16).raw(), kSize));
}

TEST_F(SimMapTest, AdjacentMappingsCoverTheirUnion) {
  const AllocResult next = Alloc(*file_, gpu_id(0), kTestVa + kSize.raw(), kSize, kVramFlags);
  ASSERT_EQ(next.ret, 0);
  ASSERT_EQ(Map(*file_, handle_, {gpu_id(0)}).ret, 0);
  EXPECT_FALSE(Mapped(0, kTestVa, kSize + kSize));
  ASSERT_EQ(Map(*file_, next.handle, {gpu_id(0)}).ret, 0);
  EXPECT_TRUE(Mapped(0, kTestVa, kSize + kSize));
}

TEST(SimMapPeerTest, MapOnPeerWithoutVmIsEnodev) {
  auto sim = MakeSimulator(Mi300xTopology(2));
  auto file = sim->Open();
  const GpuConfig& gpu0 = sim->topology().gpus[0];
  const int fd = file->OpenRenderNode(gpu0.drm_render_minor);
  uapi::AcquireVmArgs acquire{.drm_fd = static_cast<uint32_t>(fd), .gpu_id = gpu0.gpu_id};
  ASSERT_EQ(Ioctl(*file, uapi::kAcquireVm, acquire), 0);
  const AllocResult r = Alloc(*file, gpu0.gpu_id, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(r.ret, 0);
  const MapResult m = Map(*file, r.handle, {gpu0.gpu_id, sim->topology().gpus[1].gpu_id});
  EXPECT_EQ(m.ret, -ENODEV);
  EXPECT_EQ(m.n_success, 1u);
}

}  // namespace
}  // namespace hipmem::kfd_sim
