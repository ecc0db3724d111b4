// CPU mappings of buffers through a render node (SimFile::MmapBo).
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>

#include "base/units.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/kfd_sim/user_memory.h"

namespace hipmem::kfd_sim {
namespace {

using ::hipmem_testing::AcquireAllVms;
using ::hipmem_testing::Alloc;
using ::hipmem_testing::AllocResult;
using ::hipmem_testing::Free;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::kVramFlags;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::UserPages;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;
using ::hipmem_testing::Reservation;

constexpr Bytes kSize = Bytes::MiB(2);

class SimMmapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = MakeSimulator(Mi300xTopology(2));
    file_ = sim_->Open();
    fds_ = AcquireAllVms(*sim_, *file_);
  }
  void TearDown() override { file_.reset(); }

  uint32_t gpu_id(int i) const { return sim_->topology().gpus[i].gpu_id; }

  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> file_;
  std::vector<int> fds_;
};

TEST_F(SimMmapTest, PublicVramIsSharedBetweenCpuMappings) {
  const AllocResult bo = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags | AllocMemFlags::kPublic);
  ASSERT_EQ(bo.ret, 0);
  Reservation first(kSize);
  Reservation second(kSize);
  ASSERT_NE(first.addr(), nullptr);
  ASSERT_NE(second.addr(), nullptr);
  ASSERT_EQ(file_->MmapBo(fds_[0], first.addr(), kSize.raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), 0);
  ASSERT_EQ(file_->MmapBo(fds_[0], second.addr(), kSize.raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), 0);

  std::memcpy(first.bytes() + 12345, "hello, vram", 12);
  EXPECT_STREQ(second.bytes() + 12345, "hello, vram");
  second.bytes()[kSize.raw() - 1] = 'z';
  EXPECT_EQ(first.bytes()[kSize.raw() - 1], 'z');
  // Fresh VRAM reads as zero here (the BO's pages are new).
  EXPECT_EQ(first.bytes()[0], 0);
}

TEST_F(SimMmapTest, PartialMappingStartsAtTheOffsetWithinTheBuffer) {
  const AllocResult bo = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags | AllocMemFlags::kPublic);
  ASSERT_EQ(bo.ret, 0);
  Reservation whole(kSize);
  Reservation tail(Bytes::KiB(4));
  ASSERT_EQ(file_->MmapBo(fds_[0], whole.addr(), kSize.raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), 0);
  ASSERT_EQ(file_->MmapBo(fds_[0], tail.addr(), 4096, PROT_READ, bo.mmap_offset + kSize.raw() - 4096), 0);
  whole.bytes()[kSize.raw() - 4096] = 'q';
  EXPECT_EQ(tail.bytes()[0], 'q');
}

TEST_F(SimMmapTest, GttBufferIsMappable) {
  const AllocResult bo = Alloc(*file_, gpu_id(1), kTestVa, kSize, AllocMemFlags::kGtt | AllocMemFlags::kWritable);
  ASSERT_EQ(bo.ret, 0);
  Reservation r(kSize);
  ASSERT_EQ(file_->MmapBo(fds_[1], r.addr(), kSize.raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), 0);
  r.bytes()[0] = 1;
  EXPECT_EQ(r.bytes()[0], 1);
}

TEST_F(SimMmapTest, InvisibleVramAllowsOnlyProtNone) {
  const AllocResult bo = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags);  // no PUBLIC
  ASSERT_EQ(bo.ret, 0);
  Reservation r(kSize);
  EXPECT_EQ(file_->MmapBo(fds_[0], r.addr(), kSize.raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), -EPERM);
  EXPECT_EQ(file_->MmapBo(fds_[0], r.addr(), kSize.raw(), PROT_READ, bo.mmap_offset), -EPERM);
  EXPECT_EQ(file_->MmapBo(fds_[0], r.addr(), kSize.raw(), PROT_NONE, bo.mmap_offset), 0);
}

// The placeholder only has to keep the CPU out: invisible VRAM is never CPU-reachable.
TEST_F(SimMmapTest, InvisibleVramPlaceholderRevokesAccessToWhatWasThere) {
  const AllocResult bo = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  Reservation r(kSize);
  ASSERT_EQ(mprotect(r.addr(), kSize.raw(), PROT_READ | PROT_WRITE), 0);
  r.bytes()[100] = 'x';
  char byte = 0;
  ASSERT_TRUE(CopyFromUser(&byte, reinterpret_cast<uintptr_t>(r.bytes() + 100), 1));
  ASSERT_EQ(file_->MmapBo(fds_[0], r.addr(), kSize.raw(), PROT_NONE, bo.mmap_offset), 0);
  EXPECT_FALSE(CopyFromUser(&byte, reinterpret_cast<uintptr_t>(r.bytes() + 100), 1));
  EXPECT_FALSE(CopyFromUser(&byte, reinterpret_cast<uintptr_t>(r.bytes() + kSize.raw() - 1), 1));
}

TEST_F(SimMmapTest, InvisibleVramPlaceholderFillsAHole) {
  const AllocResult bo = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  Reservation r(kSize);
  ASSERT_EQ(munmap(r.bytes() + 4096, 4096), 0);  // as MAP_FIXED, the mapping covers holes too
  ASSERT_EQ(file_->MmapBo(fds_[0], r.addr(), kSize.raw(), PROT_NONE, bo.mmap_offset), 0);
  EXPECT_EQ(mprotect(r.addr(), kSize.raw(), PROT_NONE), 0) << "every page is mapped";
  char byte = 0;
  EXPECT_FALSE(CopyFromUser(&byte, reinterpret_cast<uintptr_t>(r.bytes() + 4096), 1));
}

TEST_F(SimMmapTest, UserptrBufferIsEperm) {
  const UserPages pages(kSize);
  const AllocResult bo = Alloc(*file_, gpu_id(0), kTestVa, kSize, AllocMemFlags::kUserptr, pages.address());
  ASSERT_EQ(bo.ret, 0);
  Reservation r(kSize);
  EXPECT_EQ(file_->MmapBo(fds_[0], r.addr(), kSize.raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), -EPERM);
}

TEST_F(SimMmapTest, BadRequestsGetMmapErrnos) {
  const AllocResult bo = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags | AllocMemFlags::kPublic);
  ASSERT_EQ(bo.ret, 0);
  Reservation r(kSize + kSize);
  struct Row {
    const char* what;
    int fd;
    void* addr;
    uint64_t size;
    int prot;
    uint64_t offset;
    int expected;
  };
  const int rw = PROT_READ | PROT_WRITE;
  const Row kRows[] = {
      {"not a render token", 3, r.addr(), kSize.raw(), rw, bo.mmap_offset, -EBADF},
      {"null addr", fds_[0], nullptr, kSize.raw(), rw, bo.mmap_offset, -EINVAL},
      {"misaligned addr", fds_[0], r.bytes() + 8, kSize.raw(), rw, bo.mmap_offset, -EINVAL},
      {"size 0", fds_[0], r.addr(), 0, rw, bo.mmap_offset, -EINVAL},
      {"unknown prot bit", fds_[0], r.addr(), kSize.raw(), rw | 0x100, bo.mmap_offset, -EINVAL},
      {"misaligned offset", fds_[0], r.addr(), 4096, rw, bo.mmap_offset + 8, -EINVAL},
      {"offset before any buffer", fds_[0], r.addr(), 4096, rw, 4096, -EINVAL},
      {"past the end of the buffer", fds_[0], r.addr(), kSize.raw() + 4096, rw, bo.mmap_offset, -EINVAL},
      {"offset past the buffer", fds_[0], r.addr(), 4096, rw, bo.mmap_offset + kSize.raw(), -EINVAL},
      {"render node of another GPU", fds_[1], r.addr(), kSize.raw(), rw, bo.mmap_offset, -EINVAL},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(file_->MmapBo(row.fd, row.addr, row.size, row.prot, row.offset), row.expected);
  }
}

TEST_F(SimMmapTest, FreedBufferIsNoLongerMappableButOldMappingStaysValid) {
  const AllocResult bo = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags | AllocMemFlags::kPublic);
  ASSERT_EQ(bo.ret, 0);
  Reservation r(kSize);
  ASSERT_EQ(file_->MmapBo(fds_[0], r.addr(), kSize.raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), 0);
  ASSERT_EQ(Free(*file_, bo.handle), 0);
  // The mapping keeps the pages, as a DRM mapping keeps a freed BO alive.
  r.bytes()[7] = 7;
  EXPECT_EQ(r.bytes()[7], 7);
  Reservation again(kSize);
  EXPECT_EQ(file_->MmapBo(fds_[0], again.addr(), kSize.raw(), PROT_READ, bo.mmap_offset), -EINVAL);
}

TEST_F(SimMmapTest, BufferOfAnotherProcessIsNotFound) {
  const AllocResult bo = Alloc(*file_, gpu_id(0), kTestVa, kSize, kVramFlags | AllocMemFlags::kPublic);
  ASSERT_EQ(bo.ret, 0);
  auto other = sim_->Open();
  const std::vector<int> other_fds = AcquireAllVms(*sim_, *other);
  Reservation r(kSize);
  EXPECT_EQ(other->MmapBo(other_fds[0], r.addr(), kSize.raw(), PROT_READ, bo.mmap_offset), -EINVAL);
}

}  // namespace
}  // namespace hipmem::kfd_sim
