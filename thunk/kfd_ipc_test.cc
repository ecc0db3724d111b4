// Kfd's IPC sharing (fmm_share_memory, fmm_register_shared_memory) between two KFD processes of one simulated
// machine, checked against what the simulated kernel holds and counts; and what a kernel without the DKMS IPC
// ioctls makes of it.
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
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
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr NodeId kGpuNode(1);
constexpr MemFlags kHostVisibleVram = MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kCoarseGrain;
// What kfdtest's IPC BasicTest allocates and shares: invisible, coarse-grained VRAM.
constexpr MemFlags kInvisibleVram = MemFlags::kNonPaged | MemFlags::kCoarseGrain;
constexpr Bytes kSize = Bytes::KiB(64);

// A device that forwards to another but answers like a mainline kernel, which has no DKMS ioctls: ENOTTY.
class MainlineKfdDevice final : public KfdDevice {
 public:
  explicit MainlineKfdDevice(std::unique_ptr<KfdDevice> inner) : inner_(std::move(inner)) {}
  absl::string_view backend_name() const override { return inner_->backend_name(); }
  const std::string& sysfs_topology_root() const override { return inner_->sysfs_topology_root(); }
  int Ioctl(unsigned long request, void* arg) override {
    if (kfd_uapi::IoctlNr(request) >= kfd_uapi::kDkmsCommandStart) return ENOTTY;
    return inner_->Ioctl(request, arg);
  }
  absl::StatusOr<int> OpenRenderNode(uint32_t minor) override { return inner_->OpenRenderNode(minor); }
  void CloseRenderNode(int fd) override { inner_->CloseRenderNode(fd); }
  absl::Status MapBoForCpu(int render_fd, void* addr, Bytes size, int prot, uint64_t offset) override {
    return inner_->MapBoForCpu(render_fd, addr, size, prot, offset);
  }
  bool InvisibleVramKeepsReservation() const override { return inner_->InvisibleVramKeepsReservation(); }
  absl::Status MapKfdPagesForCpu(void* addr, Bytes size, uint64_t offset) override {
    return inner_->MapKfdPagesForCpu(addr, size, offset);
  }
  void RingDoorbell(uint64_t* doorbell, uint64_t value) override { inner_->RingDoorbell(doorbell, value); }

 private:
  std::unique_ptr<KfdDevice> inner_;
};

class KfdIpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(kfd_sim::DefaultTopology()));
    exporter_ = Open();
    importer_ = Open();
    ASSERT_NE(exporter_, nullptr);
    ASSERT_NE(importer_, nullptr);
    gpu_id_ = exporter_->topology().nodes[kGpuNode.raw()].gpu_id->raw();
  }

  std::unique_ptr<Kfd> Open(bool mainline = false) {
    absl::StatusOr<std::unique_ptr<KfdDevice>> device = OpenSimKfdDevice(machine_);
    EXPECT_THAT(device, IsOk());
    if (!device.ok()) return nullptr;
    if (mainline) *device = std::make_unique<MainlineKfdDevice>(*std::move(device));
    absl::StatusOr<std::unique_ptr<Kfd>> kfd = Kfd::Open(*std::move(device));
    EXPECT_THAT(kfd, IsOk());
    return kfd.ok() ? *std::move(kfd) : nullptr;
  }

  Bytes VramUsed() { return machine_->simulator().Snapshot().gpus.at(0).vram_used; }
  std::vector<kfd_sim::SimBo> KernelBos(size_t process) {
    return kfd_sim::BosButMmioPages(machine_->simulator().Snapshot().processes.at(process));
  }
  bool GpuReads(Kfd& kfd, DeviceAddress va, Bytes size, void* out) {
    return SimulatedFile(kfd.device())->ReadGpuMemory(gpu_id_, va, size, out);
  }
  static HSAKMT_STATUS Code(const absl::Status& s) { return ToHsakmtStatus(s); }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<Kfd> exporter_;
  std::unique_ptr<Kfd> importer_;
  uint32_t gpu_id_ = 0;
};

TEST_F(KfdIpcTest, SecondProcessSharesTheBufferAndReportsTheExportersFlags) {
  const Bytes before = VramUsed();
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(exporter_->AllocMemory(kGpuNode, kSize, kHostVisibleVram)));
  std::vector<uint8_t> pattern(kSize.raw());
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 5 + 1);
  std::memcpy(mine.ToPointer(), pattern.data(), pattern.size());

  ASSERT_OK_AND_ASSIGN(const Kfd::SharedMemoryHandle handle, exporter_->ShareMemory(mine, kSize));
  EXPECT_EQ(handle.size_in_pages, kSize.raw() / 4096);
  EXPECT_EQ(handle.export_gpu_id, gpu_id_);
  EXPECT_EQ(handle.aperture_type, Kfd::kApertureSvm);

  ASSERT_OK_AND_ASSIGN(const Kfd::ImportedShared imported, importer_->RegisterSharedHandle(handle, {}));
  EXPECT_EQ(imported.size, kSize);
  EXPECT_EQ(VramUsed(), before + kSize) << "one buffer, counted once";
  const PointerInfo info = importer_->QueryPointerInfo(imported.address.ToPointer());
  EXPECT_EQ(info.type, PointerType::kRegisteredShared);
  EXPECT_EQ(info.node, kGpuNode);
  EXPECT_EQ(info.gpu_address, imported.address);
  EXPECT_EQ(info.cpu_address, DeviceAddress(0)) << "hsakmt_fmm_get_mem_info gives a shared import no CPU address";
  EXPECT_EQ(info.size, kSize);
  EXPECT_EQ(info.flags, kHostVisibleVram) << "the exporter's MemFlags, through the kernel";
  EXPECT_THAT(info.registered_nodes, IsEmpty());

  // Host-visible: the import is CPU-mapped over the same pages, both ways.
  EXPECT_EQ(std::memcmp(imported.address.ToPointer(), pattern.data(), pattern.size()), 0);
  std::memcpy(imported.address.ToPointer(), "back", 5);
  EXPECT_STREQ(static_cast<const char*>(mine.ToPointer()), "back");

  ASSERT_THAT(importer_->MapMemoryToGpu(imported.address), IsOk());
  EXPECT_THAT(importer_->QueryPointerInfo(imported.address.ToPointer()).mapped_nodes, ElementsAre(kGpuNode));
  std::vector<uint8_t> seen(kSize.raw());
  ASSERT_TRUE(GpuReads(*importer_, imported.address, kSize, seen.data()));
  EXPECT_EQ(std::memcmp(seen.data() + 5, pattern.data() + 5, pattern.size() - 5), 0);
  ASSERT_THAT(importer_->UnmapMemoryFromGpu(imported.address), IsOk());
  ASSERT_THAT(importer_->DeregisterMemory(imported.address.ToPointer()), IsOk()) << "releases an IPC import";
  EXPECT_EQ(importer_->QueryPointerInfo(imported.address.ToPointer()).type, PointerType::kUnknown);
  EXPECT_THAT(KernelBos(1), IsEmpty());
  ASSERT_THAT(exporter_->FreeMemory(mine), IsOk());
  EXPECT_EQ(VramUsed(), before);
}

TEST_F(KfdIpcTest, InvisibleVramIsSharedAsKfdtestDoesAndReachedByTheGpu) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(exporter_->AllocMemory(kGpuNode, kSize, kInvisibleVram)));
  ASSERT_OK_AND_ASSIGN(const Kfd::SharedMemoryHandle handle, exporter_->ShareMemory(mine, kSize));
  ASSERT_OK_AND_ASSIGN(const Kfd::SharedMemoryHandle again, exporter_->ShareMemory(mine, kSize));
  EXPECT_EQ(handle.share_handle, again.share_handle) << "one buffer, one name";
  ASSERT_OK_AND_ASSIGN(const Kfd::ImportedShared imported, importer_->RegisterSharedHandle(handle, {}));
  EXPECT_EQ(importer_->QueryPointerInfo(imported.address.ToPointer()).flags, kInvisibleVram);
  const std::vector<NodeId> nodes{kGpuNode};
  ASSERT_THAT(importer_->MapMemoryToGpu(imported.address, nodes), IsOk());
  ASSERT_THAT(exporter_->MapMemoryToGpu(mine, nodes), IsOk());
  // What one process's GPU wrote, the other's reads (the kernel-side view of both page tables).
  uint32_t word = 0;
  ASSERT_TRUE(GpuReads(*exporter_, mine, Bytes(4), &word));
  EXPECT_EQ(word, 0u) << "fresh VRAM is zeroed";
  ASSERT_TRUE(GpuReads(*importer_, imported.address, Bytes(4), &word));
  EXPECT_EQ(word, 0u);
  ASSERT_THAT(importer_->FreeMemory(imported.address), IsOk()) << "hsaKmtFreeMemory releases an import too";
  ASSERT_THAT(exporter_->FreeMemory(mine), IsOk());
}

TEST_F(KfdIpcTest, ImportOutlivesTheExportersFreeAndThenTheHandleIsUnknown) {
  const Bytes before = VramUsed();
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(exporter_->AllocMemory(kGpuNode, kSize, kHostVisibleVram)));
  std::memset(mine.ToPointer(), 0x6b, kSize.raw());
  ASSERT_OK_AND_ASSIGN(const Kfd::SharedMemoryHandle handle, exporter_->ShareMemory(mine, kSize));
  ASSERT_OK_AND_ASSIGN(const Kfd::ImportedShared imported, importer_->RegisterSharedHandle(handle, {}));
  ASSERT_THAT(exporter_->FreeMemory(mine), IsOk());
  EXPECT_EQ(VramUsed(), before + kSize) << "the import keeps the buffer";
  EXPECT_EQ(static_cast<const uint8_t*>(imported.address.ToPointer())[kSize.raw() - 1], 0x6b);
  ASSERT_THAT(importer_->DeregisterMemory(imported.address.ToPointer()), IsOk());
  EXPECT_EQ(VramUsed(), before) << "the last holder gave it back";
  EXPECT_EQ(Code(importer_->RegisterSharedHandle(handle, {}).status()), HSAKMT_STATUS_ERROR)
      << "no holder is left, so the kernel no longer knows the name";
  EXPECT_THAT(KernelBos(1), IsEmpty());
}

TEST_F(KfdIpcTest, ShareRefusesWhatIsNotAWholeAllocationStart) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(exporter_->AllocMemory(kGpuNode, kSize, kInvisibleVram)));
  struct Row {
    const char* what;
    DeviceAddress address;
    Bytes size;
    HSAKMT_STATUS expected;
  };
  const Row kRows[] = {
      {"2^32 pages or more", mine, Bytes(uint64_t{1} << 44), HSAKMT_STATUS_INVALID_PARAMETER},
      {"no allocation", DeviceAddress(0x1000), Bytes(4096), HSAKMT_STATUS_INVALID_PARAMETER},
      {"inside the allocation", mine + Bytes(4096), Bytes(4096), HSAKMT_STATUS_INVALID_PARAMETER},
      {"larger than the allocation", mine, kSize + Bytes(4096), HSAKMT_STATUS_INVALID_PARAMETER},
      {"a page short", mine, kSize - Bytes(4096), HSAKMT_STATUS_INVALID_PARAMETER},
      {"zero bytes", mine, Bytes(0), HSAKMT_STATUS_INVALID_PARAMETER},
      {"within the last page", mine, kSize - Bytes(100), HSAKMT_STATUS_SUCCESS},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(Code(exporter_->ShareMemory(row.address, row.size).status()), row.expected);
  }
  // User pages: their CPU pointer starts no allocation, and the kernel refuses to export their BO (EPERM).
  void* host = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(host, MAP_FAILED);
  ASSERT_OK_AND_ASSIGN(DeviceAddress user_gpu_va, Unowned(exporter_->RegisterMemory(host, Bytes(8192))));
  EXPECT_EQ(Code(exporter_->ShareMemory(DeviceAddress::FromPointer(host), Bytes(8192)).status()),
            HSAKMT_STATUS_INVALID_PARAMETER);
  const absl::Status user_pages = exporter_->ShareMemory(user_gpu_va, Bytes(8192)).status();
  EXPECT_EQ(Code(user_pages), HSAKMT_STATUS_ERROR);
  EXPECT_THAT(user_pages, StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("EPERM")));
  ASSERT_THAT(exporter_->DeregisterMemory(host), IsOk());
  munmap(host, 8192);
  // An address reservation has no buffer to share: the kernel gets handle 0 (EINVAL).
  ASSERT_OK_AND_ASSIGN(DeviceAddress only_va,
                       Unowned(exporter_->AllocMemory(kGpuNode, kSize, kInvisibleVram | MemFlags::kOnlyAddress)));
  EXPECT_EQ(Code(exporter_->ShareMemory(only_va, kSize).status()), HSAKMT_STATUS_ERROR);
  ASSERT_THAT(exporter_->FreeMemory(only_va), IsOk());
  ASSERT_THAT(exporter_->FreeMemory(mine), IsOk());
}

TEST_F(KfdIpcTest, BadHandlesAreRefusedAndLeaveNothingBehind) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(exporter_->AllocMemory(kGpuNode, kSize, kInvisibleVram)));
  ASSERT_OK_AND_ASSIGN(const Kfd::SharedMemoryHandle good, exporter_->ShareMemory(mine, kSize));
  struct Row {
    const char* what;
    Kfd::SharedMemoryHandle handle;
    HSAKMT_STATUS expected;
  };
  Kfd::SharedMemoryHandle forged = good;
  forged.share_handle[1] ^= 0x10;
  Kfd::SharedMemoryHandle apu_aperture = good;
  apu_aperture.aperture_type = 3;  // HSA_APERTURE_GPUVM: an APU's
  Kfd::SharedMemoryHandle empty = good;
  empty.size_in_pages = 0;
  Kfd::SharedMemoryHandle longer = good;
  longer.size_in_pages += 1;  // more pages than the buffer: its CPU mapping fails after the import
  Kfd::SharedMemoryHandle other_gpu = good;
  other_gpu.export_gpu_id = 0xdead;
  const Row kRows[] = {
      {"an unknown share handle", forged, HSAKMT_STATUS_ERROR},
      {"an aperture this process has not", apu_aperture, HSAKMT_STATUS_INVALID_PARAMETER},
      {"no pages", empty, HSAKMT_STATUS_INVALID_PARAMETER},
      {"more pages than the buffer", longer, HSAKMT_STATUS_ERROR},
      {"a GPU this process has not", other_gpu, HSAKMT_STATUS_ERROR},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(Code(importer_->RegisterSharedHandle(row.handle, {}).status()), row.expected);
    EXPECT_THAT(KernelBos(1), IsEmpty());
  }
  EXPECT_EQ(Code(importer_->RegisterSharedHandle(good, std::vector<NodeId>{NodeId(99)}).status()),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(Code(importer_->RegisterSharedHandle(good, std::vector<NodeId>{NodeId(0)}).status()),
            HSAKMT_STATUS_INVALID_PARAMETER)
      << "the CPU node has no GPU";
  EXPECT_THAT(KernelBos(1), IsEmpty());
  // Every refused import gave its VA back: the good handle still imports, mapped exactly on its pages.
  ASSERT_OK_AND_ASSIGN(const Kfd::ImportedShared imported, importer_->RegisterSharedHandle(good, {}));
  ASSERT_EQ(KernelBos(1).size(), 1u);
  EXPECT_EQ(KernelBos(1)[0].va, imported.address);
  ASSERT_THAT(importer_->FreeMemory(imported.address), IsOk());
  ASSERT_THAT(exporter_->FreeMemory(mine), IsOk());
}

TEST_F(KfdIpcTest, NodesBecomeTheRegisteredNodes) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(exporter_->AllocMemory(kGpuNode, kSize, kInvisibleVram)));
  ASSERT_OK_AND_ASSIGN(const Kfd::SharedMemoryHandle handle, exporter_->ShareMemory(mine, kSize));
  const std::vector<NodeId> nodes{kGpuNode};
  ASSERT_OK_AND_ASSIGN(const Kfd::ImportedShared imported, importer_->RegisterSharedHandle(handle, nodes));
  EXPECT_THAT(importer_->QueryPointerInfo(imported.address.ToPointer()).registered_nodes, ElementsAre(kGpuNode));
  ASSERT_THAT(importer_->MapMemoryToGpu(imported.address), IsOk()) << "to the registered nodes";
  EXPECT_TRUE(SimulatedFile(importer_->device())->IsMapped(gpu_id_, imported.address, kSize));
  ASSERT_THAT(importer_->DeregisterMemory(imported.address.ToPointer()), IsOk());
  ASSERT_THAT(exporter_->FreeMemory(mine), IsOk());
}

TEST_F(KfdIpcTest, AKernelWithoutTheDkmsIoctlsIsAClearError) {
  std::unique_ptr<Kfd> mainline = Open(/*mainline=*/true);
  ASSERT_NE(mainline, nullptr);
  ASSERT_OK_AND_ASSIGN(DeviceAddress mine, Unowned(mainline->AllocMemory(kGpuNode, kSize, kInvisibleVram)));
  const absl::Status shared = mainline->ShareMemory(mine, kSize).status();
  EXPECT_EQ(Code(shared), HSAKMT_STATUS_ERROR);
  EXPECT_THAT(shared, StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("no IPC ioctls")));
  // A handle from a DKMS machine's process cannot be imported here either.
  ASSERT_OK_AND_ASSIGN(DeviceAddress theirs, Unowned(exporter_->AllocMemory(kGpuNode, kSize, kInvisibleVram)));
  ASSERT_OK_AND_ASSIGN(const Kfd::SharedMemoryHandle handle, exporter_->ShareMemory(theirs, kSize));
  const absl::Status imported = mainline->RegisterSharedHandle(handle, {}).status();
  EXPECT_EQ(Code(imported), HSAKMT_STATUS_ERROR);
  EXPECT_THAT(imported, StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("no IPC ioctls")));
  ASSERT_THAT(mainline->FreeMemory(mine), IsOk());
  ASSERT_THAT(exporter_->FreeMemory(theirs), IsOk());
}

}  // namespace
}  // namespace hipmem::thunk
