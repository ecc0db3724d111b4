// Kfd's dma-buf sharing (fmm_export_dma_buf_fd, fmm_register_graphics_handle) between two KFD processes of one
// simulated machine, checked against what the simulated kernel holds and counts.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/dma_buf_fd.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/kfd_testing.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr NodeId kGpuNode(1);
constexpr MemFlags kHostVisibleVram = MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kCoarseGrain;
constexpr MemFlags kInvisibleVram = MemFlags::kNonPaged | MemFlags::kCoarseGrain;

class KfdDmaBufTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(kfd_sim::DefaultTopology()));
    first_ = Open();
    second_ = Open();
    ASSERT_NE(first_, nullptr);
    ASSERT_NE(second_, nullptr);
    gpu_id_ = first_->topology().nodes[kGpuNode.raw()].gpu_id->raw();
  }

  std::unique_ptr<Kfd> Open() {
    absl::StatusOr<std::unique_ptr<KfdDevice>> device = OpenSimKfdDevice(machine_);
    EXPECT_THAT(device, IsOk());
    if (!device.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<Kfd>> kfd = Kfd::Open(*std::move(device));
    EXPECT_THAT(kfd, IsOk());
    return kfd.ok() ? *std::move(kfd) : nullptr;
  }

  Bytes VramUsed() { return machine_->simulator().Snapshot().gpus.at(0).vram_used; }
  std::vector<kfd_sim::SimBo> KernelBos(size_t process) {
    return kfd_sim::BosButMmioPages(machine_->simulator().Snapshot().processes.at(process));
  }
  static HSAKMT_STATUS Code(const absl::Status& s) { return ToHsakmtStatus(s); }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<Kfd> first_;
  std::unique_ptr<Kfd> second_;
  uint32_t gpu_id_ = 0;
};

TEST_F(KfdDmaBufTest, SecondProcessReadsTheBytesTheFirstWrote) {
  const Bytes before = VramUsed();
  const Bytes size = Bytes::KiB(64);
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(first_->AllocMemory(kGpuNode, size, kHostVisibleVram)));
  std::vector<uint8_t> pattern(size.raw());
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);
  std::memcpy(mine.ToPointer(), pattern.data(), pattern.size());

  ASSERT_OK_AND_ASSIGN(Kfd::DmaBufExport exported, first_->ExportDmaBuf(mine, size));
  EXPECT_EQ(exported.offset, Bytes(0));
  EXPECT_GE(exported.fd.get(), 0);

  ASSERT_OK_AND_ASSIGN(Kfd::ImportedDmaBuf imported, second_->ImportDmaBuf(exported.fd.get(), {}));
  EXPECT_EQ(imported.size, size);
  EXPECT_EQ(imported.node, kGpuNode);
  EXPECT_THAT(imported.metadata, IsEmpty()) << "simulated buffers carry no UMD metadata";
  EXPECT_EQ(imported.address.raw() % Bytes::KiB(256).raw(), 0u) << "IMAGE_ALIGN";
  EXPECT_EQ(VramUsed(), before + size) << "the import shares the exporter's pages";

  const PointerInfo info = second_->QueryPointerInfo(imported.address.ToPointer());
  EXPECT_EQ(info.type, PointerType::kRegisteredGraphics);
  EXPECT_EQ(info.node, kGpuNode);
  EXPECT_EQ(info.gpu_address, imported.address);
  EXPECT_EQ(info.cpu_address, DeviceAddress(0)) << "an import is not CPU-mapped";
  EXPECT_EQ(info.size, size);
  EXPECT_TRUE(HasFlag(info.flags, MemFlags::kCoarseGrain));
  EXPECT_TRUE(HasFlag(info.flags, MemFlags::kHostAccess)) << "PUBLIC survives the export";

  ASSERT_THAT(second_->MapMemoryToGpu(imported.address), IsOk());
  EXPECT_THAT(second_->QueryPointerInfo(imported.address.ToPointer()).mapped_nodes, ElementsAre(kGpuNode));
  std::vector<uint8_t> seen(size.raw());
  ASSERT_TRUE(SimulatedFile(second_->device())->ReadGpuMemory(gpu_id_, imported.address, size, seen.data()));
  EXPECT_EQ(seen, pattern);

  ASSERT_THAT(second_->UnmapMemoryFromGpu(imported.address), IsOk());
  EXPECT_FALSE(SimulatedFile(second_->device())->IsMapped(gpu_id_, imported.address, size));
  ASSERT_THAT(second_->FreeMemory(imported.address), IsOk());
  EXPECT_EQ(second_->QueryPointerInfo(imported.address.ToPointer()).type, PointerType::kUnknown);
  EXPECT_THAT(KernelBos(1), IsEmpty());
  { DmaBufFd closed = std::move(exported.fd); }
  ASSERT_THAT(first_->FreeMemory(mine), IsOk());
  EXPECT_THAT(KernelBos(0), IsEmpty());
  EXPECT_EQ(VramUsed(), before) << "every holder let go: the accounting is back exactly";
}

TEST_F(KfdDmaBufTest, ExporterFreeingFirstLeavesTheImportReadable) {
  const Bytes before = VramUsed();
  const Bytes size = Bytes::MiB(2);
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(first_->AllocMemory(kGpuNode, size, kHostVisibleVram)));
  std::memset(mine.ToPointer(), 0x5a, size.raw());
  ASSERT_OK_AND_ASSIGN(Kfd::DmaBufExport exported, first_->ExportDmaBuf(mine, size));
  ASSERT_OK_AND_ASSIGN(Kfd::ImportedDmaBuf imported, second_->ImportDmaBuf(exported.fd.get(), {}));
  { DmaBufFd closed = std::move(exported.fd); }
  ASSERT_THAT(first_->FreeMemory(mine), IsOk());
  EXPECT_EQ(VramUsed(), before + size) << "the importer still holds the pages";
  ASSERT_THAT(second_->MapMemoryToGpu(imported.address), IsOk());
  uint8_t byte = 0;
  ASSERT_TRUE(SimulatedFile(second_->device())->ReadGpuMemory(gpu_id_, imported.address + Bytes::MiB(1), Bytes(1),
                                                               &byte));
  EXPECT_EQ(byte, 0x5a);
  ASSERT_THAT(second_->FreeMemory(imported.address), IsOk());
  EXPECT_EQ(VramUsed(), before);
}

TEST_F(KfdDmaBufTest, ExportOfAnInteriorAddressReportsItsOffset) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(first_->AllocMemory(kGpuNode, Bytes::KiB(64), kInvisibleVram)));
  ASSERT_OK_AND_ASSIGN(Kfd::DmaBufExport exported, first_->ExportDmaBuf(mine + Bytes::KiB(8), Bytes::KiB(4)));
  EXPECT_EQ(exported.offset, Bytes::KiB(8));
  EXPECT_THAT(first_->ExportDmaBuf(mine + Bytes::KiB(8), Bytes::KiB(60)),
              StatusIs(absl::StatusCode::kInvalidArgument))
      << "runs past the end";
  EXPECT_EQ(Code(first_->ExportDmaBuf(mine + Bytes::KiB(64), Bytes(4)).status()), HSAKMT_STATUS_INVALID_PARAMETER)
      << "just past the end is another address";
  ASSERT_THAT(first_->FreeMemory(mine), IsOk());
}

TEST_F(KfdDmaBufTest, UnknownAddressIsInvalidParameter) {
  EXPECT_EQ(Code(first_->ExportDmaBuf(DeviceAddress(0x1000), Bytes(4)).status()), HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_F(KfdDmaBufTest, UserPagesAreNotExportable) {
  std::vector<uint8_t> host(8192);
  ASSERT_OK_AND_ASSIGN(DeviceAddress gpu_va, Unowned(first_->RegisterMemory(host.data(), Bytes(host.size()))));
  (void)gpu_va;
  EXPECT_EQ(Code(first_->ExportDmaBuf(DeviceAddress::FromPointer(host.data()), Bytes(16)).status()),
            HSAKMT_STATUS_ERROR)
      << "amdgpu_gem_prime_export refuses user pages (EPERM)";
  ASSERT_THAT(first_->DeregisterMemory(host.data()), IsOk());
}

TEST_F(KfdDmaBufTest, BadDescriptorsAreErrorsAndLeaveNothing) {
  EXPECT_EQ(Code(second_->ImportDmaBuf(1'000'000, {}).status()), HSAKMT_STATUS_ERROR) << "EBADF";
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  EXPECT_EQ(Code(second_->ImportDmaBuf(pipe_fds[1], {}).status()), HSAKMT_STATUS_ERROR) << "EINVAL: not a dma-buf";
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  EXPECT_THAT(KernelBos(1), IsEmpty());
}

TEST_F(KfdDmaBufTest, NodesBecomeTheRegisteredNodesAndBadNodesAreRefused) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(first_->AllocMemory(kGpuNode, Bytes::KiB(64), kInvisibleVram)));
  ASSERT_OK_AND_ASSIGN(Kfd::DmaBufExport exported, first_->ExportDmaBuf(mine, Bytes::KiB(64)));
  EXPECT_EQ(Code(second_->ImportDmaBuf(exported.fd.get(), std::vector<NodeId>{NodeId(99)}).status()),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_THAT(KernelBos(1), IsEmpty());
  const std::vector<NodeId> nodes{kGpuNode};
  ASSERT_OK_AND_ASSIGN(Kfd::ImportedDmaBuf imported, second_->ImportDmaBuf(exported.fd.get(), nodes));
  EXPECT_THAT(second_->QueryPointerInfo(imported.address.ToPointer()).registered_nodes, ElementsAre(kGpuNode));
  ASSERT_THAT(second_->MapMemoryToGpu(imported.address, nodes), IsOk());
  EXPECT_TRUE(SimulatedFile(second_->device())->IsMapped(gpu_id_, imported.address, Bytes::KiB(64)));
  ASSERT_THAT(second_->DeregisterMemory(imported.address.ToPointer()), IsOk())
      << "fmm_deregister_memory releases an import";
  EXPECT_THAT(KernelBos(1), IsEmpty());
  ASSERT_THAT(first_->FreeMemory(mine), IsOk());
}

TEST_F(KfdDmaBufTest, WithoutAVaTheImportIsOnlyANameAndCannotBeMapped) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(first_->AllocMemory(kGpuNode, Bytes::KiB(64), kInvisibleVram)));
  ASSERT_OK_AND_ASSIGN(Kfd::DmaBufExport exported, first_->ExportDmaBuf(mine, Bytes::KiB(64)));
  ASSERT_OK_AND_ASSIGN(Kfd::ImportedDmaBuf imported, second_->ImportDmaBuf(exported.fd.get(), {}, /*with_va=*/false));
  const std::vector<kfd_sim::SimBo> bos = KernelBos(1);
  ASSERT_EQ(bos.size(), 1u);
  EXPECT_EQ(bos[0].va, DeviceAddress(0)) << "imported without a GPU VA";
  EXPECT_EQ(Code(second_->MapMemoryToGpu(imported.address)), HSAKMT_STATUS_INVALID_PARAMETER);
  ASSERT_THAT(second_->FreeMemory(imported.address), IsOk());
  EXPECT_THAT(KernelBos(1), IsEmpty());
  ASSERT_THAT(first_->FreeMemory(mine), IsOk());
}

TEST(DmaBufFdTest, DestructorClosesAndMoveEmptiesTheSource) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    DmaBufFd owner = DmaBufFd::Adopt(fds[1]);
    DmaBufFd moved = std::move(owner);
    EXPECT_EQ(owner.get(), -1);  // NOLINT(bugprone-use-after-move): a move empties the source
    EXPECT_EQ(moved.get(), fds[1]);
    DmaBufFd& self = moved;
    moved = std::move(self);
    EXPECT_EQ(moved.get(), fds[1]) << "self-move is harmless";
  }
  char c;
  EXPECT_EQ(read(fds[0], &c, 1), 0) << "the write end is closed: end of file";
  close(fds[0]);
}

TEST(DmaBufFdTest, MoveAssignClosesTheOldAndReleaseGivesUpOwnership) {
  int a[2];
  int b[2];
  ASSERT_EQ(pipe(a), 0);
  ASSERT_EQ(pipe(b), 0);
  DmaBufFd owner = DmaBufFd::Adopt(a[1]);
  owner = DmaBufFd::Adopt(b[1]);
  char c;
  EXPECT_EQ(read(a[0], &c, 1), 0) << "the old descriptor was closed";
  const int raw = std::move(owner).Release();
  EXPECT_EQ(raw, b[1]);
  EXPECT_EQ(owner.get(), -1);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(write(raw, "x", 1), 1) << "still open after Release";
  close(raw);
  close(a[0]);
  close(b[0]);
}

}  // namespace
}  // namespace hipmem::thunk
