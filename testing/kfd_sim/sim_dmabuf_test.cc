// DMA-buf export and import between two KFD processes of one simulator (EXPORT_DMABUF, GET_DMABUF_INFO,
// IMPORT_DMABUF): the importer sees the exporter's pages at a VA of its own, and they are counted once.
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/units.h"
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
using ::hipmem_testing::Available;
using ::hipmem_testing::Free;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::kVramFlags;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::Map;
using ::hipmem_testing::Reservation;
using ::hipmem_testing::SmallTopology;
using ::hipmem_testing::UserPages;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;

constexpr Bytes kSize = Bytes::MiB(2);
constexpr uint64_t kImportVa = kTestVa + (uint64_t{1} << 30);  // apart from the exporter's VA on purpose

struct Exported {
  int ret;
  int fd;
};

Exported Export(SimFile& file, uint64_t handle, uint32_t flags = O_CLOEXEC) {
  uapi::ExportDmabufArgs args{.handle = handle, .flags = flags, .dmabuf_fd = 0};
  const int ret = Ioctl(file, uapi::kExportDmabuf, args);
  return Exported{.ret = ret, .fd = static_cast<int>(args.dmabuf_fd)};
}

struct Imported {
  int ret;
  uint64_t handle;
};

Imported Import(SimFile& file, int fd, uint32_t gpu_id, uint64_t va) {
  uapi::ImportDmabufArgs args{.va_addr = va, .handle = 0, .gpu_id = gpu_id, .dmabuf_fd = static_cast<uint32_t>(fd)};
  const int ret = Ioctl(file, uapi::kImportDmabuf, args);
  return Imported{.ret = ret, .handle = args.handle};
}

int Info(SimFile& file, int fd, uapi::GetDmabufInfoArgs& args) {
  args.dmabuf_fd = static_cast<uint32_t>(fd);
  return Ioctl(file, uapi::kGetDmabufInfo, args);
}

class SimDmabufTest : public ::testing::Test {
 protected:
  void Open(Topology topology) {
    exporter_.reset();  // processes close before their simulator goes
    importer_.reset();
    sim_ = MakeSimulator(std::move(topology));
    exporter_ = sim_->Open();
    importer_ = sim_->Open();
    exporter_fds_ = AcquireAllVms(*sim_, *exporter_);
    AcquireAllVms(*sim_, *importer_);
    gpu_ = sim_->topology().gpus[0].gpu_id;
  }
  void SetUp() override { Open(DefaultTopology()); }

  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> exporter_;
  std::unique_ptr<SimFile> importer_;
  std::vector<int> exporter_fds_;
  uint32_t gpu_ = 0;
};

TEST_F(SimDmabufTest, AnotherProcessReadsTheExportedVramAtItsOwnVa) {
  const AllocResult bo = Alloc(*exporter_, gpu_, kTestVa, kSize, kVramFlags | AllocMemFlags::kPublic);
  ASSERT_EQ(bo.ret, 0);
  Reservation cpu(kSize);
  ASSERT_EQ(exporter_->MmapBo(exporter_fds_[0], cpu.addr(), kSize.raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), 0);
  for (uint64_t i = 0; i < kSize.raw(); i += 4096) std::memcpy(cpu.bytes() + i, &i, sizeof(i));

  const Exported exported = Export(*exporter_, bo.handle);
  ASSERT_EQ(exported.ret, 0);
  EXPECT_EQ(fcntl(exported.fd, F_GETFD), FD_CLOEXEC) << "O_CLOEXEC was asked for";

  uapi::GetDmabufInfoArgs info{};
  ASSERT_EQ(Info(*importer_, exported.fd, info), 0);
  EXPECT_EQ(info.size, kSize.raw());
  EXPECT_EQ(info.gpu_id, gpu_);
  EXPECT_EQ(info.flags, uapi::ToRaw(AllocMemFlags::kVram | AllocMemFlags::kPublic));
  EXPECT_EQ(info.metadata_size, 0u);

  const Imported imported = Import(*importer_, exported.fd, gpu_, kImportVa);
  ASSERT_EQ(imported.ret, 0);
  EXPECT_EQ(uapi::HandleGpuId(imported.handle), gpu_);
  EXPECT_FALSE(importer_->IsMapped(gpu_, DeviceAddress(kImportVa), kSize)) << "import does not map";
  ASSERT_EQ(Map(*importer_, imported.handle, {gpu_}).ret, 0);

  std::vector<char> seen(kSize.raw());
  ASSERT_TRUE(importer_->ReadGpuMemory(gpu_, DeviceAddress(kImportVa), kSize, seen.data()));
  EXPECT_EQ(std::memcmp(seen.data(), cpu.bytes(), kSize.raw()), 0);
  // And the other way: the exporter's CPU sees what lands in the shared pages later.
  std::memcpy(cpu.bytes() + 100, "shared", 7);
  char word[7] = {};
  ASSERT_TRUE(importer_->ReadGpuMemory(gpu_, DeviceAddress(kImportVa + 100), Bytes(7), word));
  EXPECT_STREQ(word, "shared");
  EXPECT_FALSE(exporter_->IsMapped(gpu_, DeviceAddress(kImportVa), kSize)) << "the importer's VA is its own";
  close(exported.fd);
}

TEST_F(SimDmabufTest, PagesAreCountedOnceAndFreedWithTheirLastHolder) {
  Open(SmallTopology(Bytes::MiB(8), Bytes::MiB(8)));
  const AllocResult bo = Alloc(*exporter_, gpu_, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  const Exported exported = Export(*exporter_, bo.handle);
  ASSERT_EQ(exported.ret, 0);
  const Exported again = Export(*exporter_, bo.handle);
  ASSERT_EQ(again.ret, 0) << "a BO may be exported more than once";
  const Imported imported = Import(*importer_, exported.fd, gpu_, kImportVa);
  ASSERT_EQ(imported.ret, 0);
  EXPECT_EQ(Available(*importer_, gpu_), Bytes::MiB(6).raw()) << "the import costs nothing more";

  EXPECT_EQ(Free(*exporter_, bo.handle), 0);
  EXPECT_EQ(Available(*importer_, gpu_), Bytes::MiB(6).raw()) << "the importer still holds the pages";
  close(exported.fd);
  close(again.fd);
  EXPECT_EQ(Free(*importer_, imported.handle), 0);
  EXPECT_EQ(Available(*importer_, gpu_), Bytes::MiB(8).raw()) << "the last holder gave them back";
}

TEST_F(SimDmabufTest, AnOpenDescriptorKeepsThePagesUntilItIsClosed) {
  Open(SmallTopology(Bytes::MiB(8), Bytes::MiB(8)));
  const AllocResult bo = Alloc(*exporter_, gpu_, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  const Exported exported = Export(*exporter_, bo.handle);
  ASSERT_EQ(exported.ret, 0);
  exporter_.reset();  // close(): the exporter's BO goes
  EXPECT_EQ(Available(*importer_, gpu_), Bytes::MiB(6).raw());
  // The descriptor alone still imports.
  const Imported imported = Import(*importer_, exported.fd, gpu_, kImportVa);
  ASSERT_EQ(imported.ret, 0);
  EXPECT_EQ(Free(*importer_, imported.handle), 0);
  EXPECT_EQ(Available(*importer_, gpu_), Bytes::MiB(6).raw()) << "the descriptor is still open";
  close(exported.fd);
  // Deliberate: the simulator learns of the close at its next dma-buf ioctl or shared-buffer free.
  uapi::GetDmabufInfoArgs info{};
  EXPECT_EQ(Info(*importer_, exported.fd, info), -EBADF);
  EXPECT_EQ(Available(*importer_, gpu_), Bytes::MiB(8).raw());
}

TEST_F(SimDmabufTest, RefusesWhatTheKernelRefuses) {
  const AllocResult bo = Alloc(*exporter_, gpu_, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  EXPECT_EQ(Export(*exporter_, bo.handle + 1).ret, -EINVAL) << "unknown handle";
  EXPECT_EQ(Export(*importer_, bo.handle).ret, -EINVAL) << "another process's handle";
  EXPECT_EQ(Export(*exporter_, uapi::MakeHandle(0xdead, 1)).ret, -EINVAL) << "unknown GPU";
  UserPages user(Bytes::KiB(4));
  const AllocResult userptr = Alloc(*exporter_, gpu_, kTestVa + kSize.raw(), Bytes::KiB(4),
                                    AllocMemFlags::kUserptr | AllocMemFlags::kWritable, user.address());
  ASSERT_EQ(userptr.ret, 0);
  EXPECT_EQ(Export(*exporter_, userptr.handle).ret, -EPERM) << "user pages are not exportable";

  const Exported exported = Export(*exporter_, bo.handle);
  ASSERT_EQ(exported.ret, 0);
  EXPECT_EQ(Import(*importer_, exported.fd, 0xdead, kImportVa).ret, -EINVAL) << "unknown GPU";
  const int not_a_dmabuf = eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(not_a_dmabuf, 0);
  EXPECT_EQ(Import(*importer_, not_a_dmabuf, gpu_, kImportVa).ret, -EINVAL);
  close(not_a_dmabuf);
  EXPECT_EQ(Import(*importer_, -1, gpu_, kImportVa).ret, -EBADF);
  EXPECT_EQ(Import(*importer_, exported.fd, gpu_, kImportVa + 1).ret, -EINVAL) << "misaligned VA";
  ASSERT_EQ(Alloc(*importer_, gpu_, kImportVa, kSize, kVramFlags).ret, 0);
  EXPECT_EQ(Import(*importer_, exported.fd, gpu_, kImportVa).ret, -EADDRINUSE) << "VA taken in the importer";
  close(exported.fd);
}

}  // namespace
}  // namespace hipmem::kfd_sim
