// The thunk's C++ API against a fresh simulated machine per test.
#include "thunk/kfd.h"
#include "thunk/kfd_testing.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr NodeId kCpuNode(0);
constexpr NodeId kGpuNode(1);
constexpr MemFlags kVram = MemFlags::kNonPaged | MemFlags::kCoarseGrain | MemFlags::kNoSubstitute;
constexpr MemFlags kVramHostVisible = kVram | MemFlags::kHostAccess;
constexpr MemFlags kSystem = MemFlags::kHostAccess;  // pageable: a USERPTR BO

class KfdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(kfd_sim::DefaultTopology()));
    kfd_ = OpenOn(machine_);
    ASSERT_NE(kfd_, nullptr);
  }

  static std::unique_ptr<Kfd> OpenOn(std::shared_ptr<SimMachine> machine) {
    absl::StatusOr<std::unique_ptr<KfdDevice>> device = OpenSimKfdDevice(std::move(machine));
    if (!device.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<Kfd>> kfd = Kfd::Open(*std::move(device));
    return kfd.ok() ? *std::move(kfd) : nullptr;
  }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<Kfd> kfd_;
};

TEST_F(KfdTest, OpenReadsVersionAndSysfsTopology) {
  EXPECT_EQ(kfd_->version().major, 1u);
  EXPECT_EQ(kfd_->backend_name(), "sim");
  const SystemTopology& topo = kfd_->topology();
  ASSERT_THAT(topo.nodes, SizeIs(2));
  EXPECT_FALSE(topo.nodes[0].is_gpu());
  ASSERT_TRUE(topo.nodes[1].is_gpu());
  EXPECT_EQ(topo.nodes[1].gpu_id->raw(), machine_->simulator().topology().gpus[0].gpu_id);
  EXPECT_EQ(topo.nodes[1].gfx_major(), 9u);
  EXPECT_EQ(topo.nodes[1].gfx_minor(), 4u);
  EXPECT_EQ(topo.nodes[1].gfx_stepping(), 2u);
  ASSERT_THAT(topo.nodes[1].mem_banks, SizeIs(1));
  EXPECT_EQ(topo.nodes[1].mem_banks[0].size.raw(), machine_->simulator().topology().gpus[0].vram_bytes);
}

TEST_F(KfdTest, UnknownNodeIsInvalidNodeUnit) {
  absl::StatusOr<DeviceAddress> r = Unowned(kfd_->AllocMemory(NodeId(7), Bytes::KiB(4), kVram));
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(ToHsakmtStatus(r.status()), HSAKMT_STATUS_INVALID_NODE_UNIT);
}

TEST_F(KfdTest, BadSizesAndAlignmentsAreInvalidParameter) {
  struct Row {
    Bytes size;
    Bytes alignment;
  };
  const Row kRows[] = {
      {Bytes(0), Bytes(0)}, {Bytes(100), Bytes(0)}, {Bytes::KiB(4), Bytes(2048)}, {Bytes::KiB(4), Bytes(3 * 4096)}};
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.size.raw());
    absl::StatusOr<DeviceAddress> r = Unowned(kfd_->AllocMemory(kGpuNode, row.size, kVram, row.alignment));
    EXPECT_EQ(ToHsakmtStatus(r.status()), HSAKMT_STATUS_INVALID_PARAMETER);
  }
  absl::StatusOr<DeviceAddress> contradictory =
      Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(4), kVram | MemFlags::kExtendedCoherent));
  EXPECT_EQ(ToHsakmtStatus(contradictory.status()), HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_F(KfdTest, VramAllocationChargesAvailableMemoryUntilFreed) {
  ASSERT_OK_AND_ASSIGN(Bytes before, kfd_->AvailableMemory(kGpuNode));
  ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(4), kVram)));
  ASSERT_OK_AND_ASSIGN(Bytes during, kfd_->AvailableMemory(kGpuNode));
  EXPECT_EQ(before - during, Bytes::MiB(4));
  EXPECT_TRUE(IsAligned(addr, Bytes::MiB(2)));
  ASSERT_THAT(kfd_->FreeMemory(addr), IsOk());
  EXPECT_THAT(kfd_->AvailableMemory(kGpuNode), hipmem_testing::IsOkAndHolds(before));
}

TEST_F(KfdTest, HostVisibleVramIsCpuReadableAndWritable) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), kVramHostVisible)));
  auto* p = static_cast<unsigned char*>(addr.ToPointer());
  std::memset(p, 0xab, 64 * 1024);
  EXPECT_EQ(p[65535], 0xab);
  EXPECT_THAT(kfd_->FreeMemory(addr), IsOk());
}

// Freed host-visible memory (VRAM and GTT): a CPU touch through the old pointer faults, and the next allocation of
// the size, which gets the same VA back, reads zeroes, not what the freed buffer held.
TEST_F(KfdTest, FreedHostVisibleMemoryFaultsOnCpuTouchAndItsVaComesBackZeroed) {
  const std::pair<NodeId, MemFlags> kCases[] = {
      {kGpuNode, kVramHostVisible},
      {NodeId(0), MemFlags::kNonPaged | MemFlags::kHostAccess},
  };
  for (const auto& [node, flags] : kCases) {
    SCOPED_TRACE(ToRaw(flags));
    ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd_->AllocMemory(node, Bytes::KiB(64), flags)));
    std::memset(addr.ToPointer(), 0xab, 64 * 1024);
    ASSERT_THAT(kfd_->FreeMemory(addr), IsOk());
    EXPECT_DEATH({ *static_cast<volatile char*>(addr.ToPointer()) = 1; }, "");
    EXPECT_DEATH({ (void)*static_cast<volatile char*>((addr + Bytes::KiB(60)).ToPointer()); }, "");
    ASSERT_OK_AND_ASSIGN(DeviceAddress again, Unowned(kfd_->AllocMemory(node, Bytes::KiB(64), flags)));
    EXPECT_EQ(again, addr) << "the kept range is reused";
    const auto* p = static_cast<const unsigned char*>(again.ToPointer());
    EXPECT_EQ(std::count(p, p + 64 * 1024, 0), 64 * 1024);
    ASSERT_THAT(kfd_->FreeMemory(again), IsOk());
  }
}

TEST_F(KfdTest, PrivateVramFaultsOnCpuTouch) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(4), kVram)));
  EXPECT_DEATH({ *static_cast<volatile char*>(addr.ToPointer()) = 1; }, "");
  EXPECT_THAT(kfd_->FreeMemory(addr), IsOk());
}

TEST_F(KfdTest, PageableSystemMemoryIsAUserptrBoUsableByTheCpu) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd_->AllocMemory(kCpuNode, Bytes::KiB(8), kSystem)));
  std::memset(addr.ToPointer(), 7, 8192);
  std::optional<Kfd::AllocationInfo> info = kfd_->FindAllocation(addr + Bytes(100));
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->range.base, addr);
  EXPECT_FALSE(info->is_vram);
  EXPECT_THAT(kfd_->MapMemoryToGpu(addr), IsOk());
  EXPECT_THAT(kfd_->FindAllocation(addr)->mapped_gpus, SizeIs(1));
  EXPECT_THAT(kfd_->FreeMemory(addr), IsOk());
  EXPECT_FALSE(kfd_->FindAllocation(addr).has_value());
}

TEST_F(KfdTest, MapAndUnmapTrackGpuPageTables) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(4), kVram)));
  ASSERT_THAT(kfd_->MapMemoryToGpu(addr), IsOk());
  kfd_sim::SimSnapshot snap = machine_->simulator().Snapshot();
  ASSERT_THAT(snap.processes, SizeIs(1));
  ASSERT_THAT(kfd_sim::BosButMmioPages(snap.processes[0]), SizeIs(1));
  EXPECT_THAT(kfd_sim::BosButMmioPages(snap.processes[0])[0].mapped_gpu_ids, SizeIs(1));
  ASSERT_THAT(kfd_->UnmapMemoryFromGpu(addr), IsOk());
  EXPECT_THAT(kfd_sim::BosButMmioPages(machine_->simulator().Snapshot().processes[0])[0].mapped_gpu_ids, SizeIs(0));
  EXPECT_THAT(kfd_->UnmapMemoryFromGpu(addr), IsOk()) << "unmapping an unmapped range is a no-op";
  EXPECT_THAT(kfd_->FreeMemory(addr), IsOk());
}

TEST_F(KfdTest, UnknownAddressesAreRefused) {
  int on_stack = 0;
  const DeviceAddress stranger = DeviceAddress::FromPointer(&on_stack);
  EXPECT_EQ(ToHsakmtStatus(kfd_->MapMemoryToGpu(stranger)), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(ToHsakmtStatus(kfd_->UnmapMemoryFromGpu(stranger)), HSAKMT_STATUS_INVALID_HANDLE);
  // hsakmt_fmm_release with the SVM API (which every simulated GPU advertises): not an allocation, maybe an SVM
  // range, so SUCCESS and nothing freed.
  EXPECT_EQ(ToHsakmtStatus(kfd_->FreeMemory(stranger)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(ToHsakmtStatus(kfd_->FreeMemory(DeviceAddress(0))), HSAKMT_STATUS_ERROR);
}

TEST_F(KfdTest, DoubleFreeFreesNothingAndLeavesAccountingIntact) {
  ASSERT_OK_AND_ASSIGN(Bytes before, kfd_->AvailableMemory(kGpuNode));
  ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(4), kVram)));
  ASSERT_THAT(kfd_->FreeMemory(addr), IsOk());
  // hsakmt_fmm_release with the SVM API: SUCCESS for an address of no allocation, and nothing freed twice.
  EXPECT_THAT(kfd_->FreeMemory(addr), IsOk());
  EXPECT_THAT(kfd_->AvailableMemory(kGpuNode), hipmem_testing::IsOkAndHolds(before));
}

TEST_F(KfdTest, ExhaustionIsNoMemoryAndLosesNothing) {
  ASSERT_OK_AND_ASSIGN(Bytes before, kfd_->AvailableMemory(kGpuNode));
  const Bytes too_much = before + Bytes::MiB(2);
  absl::StatusOr<DeviceAddress> r = Unowned(kfd_->AllocMemory(kGpuNode, too_much, kVram));
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("ENOMEM")));
  EXPECT_EQ(ToHsakmtStatus(r.status()), HSAKMT_STATUS_NO_MEMORY);
  EXPECT_THAT(kfd_->AvailableMemory(kGpuNode), hipmem_testing::IsOkAndHolds(before));
}

TEST_F(KfdTest, ClosingReleasesEverythingHeld) {
  ASSERT_OK_AND_ASSIGN(Bytes before, kfd_->AvailableMemory(kGpuNode));
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(1), kVram)));
    ASSERT_THAT(kfd_->MapMemoryToGpu(addr), IsOk());
  }
  kfd_.reset();
  std::unique_ptr<Kfd> again = OpenOn(machine_);
  ASSERT_NE(again, nullptr);
  EXPECT_THAT(again->AvailableMemory(kGpuNode), hipmem_testing::IsOkAndHolds(before));
}

TEST_F(KfdTest, TwoProcessesShareVramAccountingButNotAllocations) {
  std::unique_ptr<Kfd> other = OpenOn(machine_);
  ASSERT_NE(other, nullptr);
  ASSERT_OK_AND_ASSIGN(Bytes before, other->AvailableMemory(kGpuNode));
  ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(2), kVram)));
  EXPECT_THAT(other->AvailableMemory(kGpuNode), hipmem_testing::IsOkAndHolds(before - Bytes::MiB(2)));
  // Not the other process's allocation: it frees nothing (SUCCESS, as hsakmt_fmm_release with the SVM API).
  EXPECT_THAT(other->FreeMemory(addr), IsOk());
  EXPECT_THAT(other->AvailableMemory(kGpuNode), hipmem_testing::IsOkAndHolds(before - Bytes::MiB(2)));
  EXPECT_THAT(kfd_->FreeMemory(addr), IsOk());
}

TEST(KfdPresetTest, EveryPresetOpensWithOneUsableGpuPerGpuNode) {
  for (const std::string& name : kfd_sim::PresetNames()) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(kfd_sim::Topology topology, kfd_sim::PresetTopology(name));
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<SimMachine> machine, SimMachine::Create(topology));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> device, OpenSimKfdDevice(machine));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Kfd> kfd, Kfd::Open(std::move(device)));
    ASSERT_THAT(kfd->topology().nodes, SizeIs(topology.gpus.size() + 1));
    for (size_t i = 0; i < topology.gpus.size(); ++i) {
      const NodeId node(static_cast<uint32_t>(i + 1));
      EXPECT_THAT(kfd->AvailableMemory(node), hipmem_testing::IsOkAndHolds(Bytes(topology.gpus[i].vram_bytes)));
    }
  }
}

// libhsakmt's usable_peer_id_array: VRAM maps by default to its own GPU and every GPU with an io link to it.
TEST(KfdPresetTest, DefaultMapOfVramReachesItsXgmiPeer) {
  ASSERT_OK_AND_ASSIGN(kfd_sim::Topology topology, kfd_sim::PresetTopology("2xmi250x"));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<SimMachine> machine, SimMachine::Create(topology));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> device, OpenSimKfdDevice(machine));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Kfd> kfd, Kfd::Open(std::move(device)));
  const GpuId owner(topology.gpus[0].gpu_id);
  const GpuId peer(topology.gpus[1].gpu_id);
  ASSERT_OK_AND_ASSIGN(DeviceAddress vram, Unowned(kfd->AllocMemory(kGpuNode, Bytes::MiB(2), kVram)));
  ASSERT_THAT(kfd->MapMemoryToGpu(vram), IsOk());
  EXPECT_THAT(kfd->FindAllocation(vram)->mapped_gpus, ::testing::ElementsAre(owner, peer));
  EXPECT_THAT(kfd_sim::BosButMmioPages(machine->simulator().Snapshot().processes[0])[0].mapped_gpu_ids,
              ::testing::ElementsAre(owner.raw(), peer.raw()));
  ASSERT_THAT(kfd->FreeMemory(vram), IsOk());
}

TEST_F(KfdTest, DefaultMapOfVramWithoutPeersStaysOnItsGpu) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(4), kVram)));
  ASSERT_THAT(kfd_->MapMemoryToGpu(vram), IsOk());
  EXPECT_THAT(kfd_->FindAllocation(vram)->mapped_gpus, ::testing::ElementsAre(*kfd_->topology().nodes[1].gpu_id));
  EXPECT_THAT(kfd_->FreeMemory(vram), IsOk());
}

TEST_F(KfdTest, CpuNodeHasNoAvailableVram) {
  EXPECT_EQ(ToHsakmtStatus(kfd_->AvailableMemory(kCpuNode).status()), HSAKMT_STATUS_INVALID_NODE_UNIT);
}

}  // namespace
}  // namespace hipmem::thunk
