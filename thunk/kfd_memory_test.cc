// Kfd's memory paths beyond plain allocation (fmm.c): OnlyAddress, NoAddress, Scratch and FixedAddress, and
// hsaKmtMapMemoryToGPUNodes' node-set semantics, checked against what the simulated kernel holds.
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/kfd_testing.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr NodeId kCpuNode(0);
constexpr NodeId kGpuNode(1);
constexpr NodeId kSecondGpuNode(2);
constexpr MemFlags kVram = MemFlags::kNonPaged | MemFlags::kCoarseGrain | MemFlags::kNoSubstitute;
constexpr MemFlags kSystem = MemFlags::kHostAccess;

// The simulator's device, except that request `failing` (while set) answers `error` without reaching it.
class FailingDevice final : public KfdDevice {
 public:
  explicit FailingDevice(std::unique_ptr<KfdDevice> device) : device_(std::move(device)) {}

  void Fail(unsigned long request, int error) {
    error_ = error;
    failing_ = request;
  }

  absl::string_view backend_name() const override { return device_->backend_name(); }
  const std::string& sysfs_topology_root() const override { return device_->sysfs_topology_root(); }
  int Ioctl(unsigned long request, void* arg) override {
    return request == failing_.load() ? error_.load() : device_->Ioctl(request, arg);
  }
  absl::StatusOr<int> OpenRenderNode(uint32_t minor) override { return device_->OpenRenderNode(minor); }
  void CloseRenderNode(int fd) override { device_->CloseRenderNode(fd); }
  absl::Status MapBoForCpu(int fd, void* addr, Bytes size, int prot, uint64_t offset) override {
    return device_->MapBoForCpu(fd, addr, size, prot, offset);
  }
  bool InvisibleVramKeepsReservation() const override { return device_->InvisibleVramKeepsReservation(); }
  absl::Status MapKfdPagesForCpu(void* addr, Bytes size, uint64_t offset) override {
    return device_->MapKfdPagesForCpu(addr, size, offset);
  }
  void RingDoorbell(uint64_t* doorbell, uint64_t value) override { device_->RingDoorbell(doorbell, value); }

 private:
  const std::unique_ptr<KfdDevice> device_;
  std::atomic<unsigned long> failing_{0};
  std::atomic<int> error_{0};
};

// This process's resident memory (/proc/self/statm), in bytes.
uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0;
  uint64_t resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * 4096;
}

class KfdMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override { Open("mi300x"); }

  void Open(const char* preset) {
    kfd_.reset();
    ASSERT_OK_AND_ASSIGN(kfd_sim::Topology topology, kfd_sim::PresetTopology(preset));
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(topology));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> device, OpenSimKfdDevice(machine_));
    ASSERT_OK_AND_ASSIGN(kfd_, Kfd::Open(std::move(device)));
  }

  // The buffers the simulated kernel holds for this (the only) process.
  std::vector<kfd_sim::SimBo> KernelBos() { return kfd_sim::BosButMmioPages(machine_->simulator().Snapshot().processes.at(0)); }
  uint32_t GpuIdOf(NodeId node) { return kfd_->topology().nodes[node.raw()].gpu_id->raw(); }
  static HSAKMT_STATUS Code(const absl::Status& s) { return ToHsakmtStatus(s); }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<Kfd> kfd_;
};

TEST_F(KfdMemoryTest, OnlyAddressReservesVaWithoutABufferAndFreeReleasesIt) {
  for (MemFlags flags : {kVram, kSystem}) {
    SCOPED_TRACE(ToRaw(flags));
    ASSERT_OK_AND_ASSIGN(DeviceAddress va, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), flags | MemFlags::kOnlyAddress)));
    EXPECT_THAT(KernelBos(), IsEmpty()) << "no buffer behind a reservation";
    const PointerInfo info = kfd_->QueryPointerInfo(va.ToPointer());
    EXPECT_EQ(info.type, PointerType::kReservedAddr);
    EXPECT_EQ(info.node, kCpuNode) << "fmm_allocate_va records node 0";
    EXPECT_EQ(info.gpu_address, va);
    EXPECT_EQ(info.cpu_address, DeviceAddress(0));
    EXPECT_EQ(info.size, Bytes::KiB(64));
    EXPECT_EQ(Code(kfd_->MapMemoryToGpu(va)), HSAKMT_STATUS_INVALID_PARAMETER);
    const NodeId nodes[] = {kGpuNode};
    EXPECT_EQ(Code(kfd_->MapMemoryToGpu(va, nodes)), HSAKMT_STATUS_INVALID_PARAMETER);
    ASSERT_THAT(kfd_->FreeMemory(va), IsOk());
    EXPECT_EQ(kfd_->QueryPointerInfo(va.ToPointer()).type, PointerType::kUnknown);
    // The VA itself went back: a fixed allocation can take it again.
    ASSERT_OK_AND_ASSIGN(DeviceAddress again,
                         Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), kVram | MemFlags::kFixedAddress, Bytes(0), va)));
    EXPECT_EQ(again, va);
    ASSERT_THAT(kfd_->FreeMemory(again), IsOk());
  }
}

TEST_F(KfdMemoryTest, NoAddressIsAVramBufferWithoutAGpuVa) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress name, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(2), kVram | MemFlags::kNoAddress)));
  EXPECT_GE(name.raw(), uint64_t{1} << 47) << "a name in the non-canonical hole, never a CPU address";
  ASSERT_THAT(KernelBos(), SizeIs(1));
  EXPECT_EQ(KernelBos()[0].va, DeviceAddress(0));
  EXPECT_EQ(KernelBos()[0].size, Bytes::MiB(2));
  EXPECT_EQ(kfd_->QueryPointerInfo(name.ToPointer()).type, PointerType::kAllocated);
  EXPECT_EQ(Code(kfd_->MapMemoryToGpu(name)), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_THAT(KernelBos()[0].mapped_gpu_ids, IsEmpty());
  ASSERT_THAT(kfd_->FreeMemory(name), IsOk());
  EXPECT_THAT(KernelBos(), IsEmpty());
}

TEST_F(KfdMemoryTest, OnlyAddressWithNoAddressOnTheDevicePathIsInvalidParameter) {
  EXPECT_EQ(Code(Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(4), kVram | MemFlags::kOnlyAddress | MemFlags::kNoAddress))
                     .status()),
            HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_THAT(KernelBos(), IsEmpty());
}

TEST_F(KfdMemoryTest, FixedAddressAllocatesAtTheCallersAddressOrFailsLeavingNothing) {
  EXPECT_EQ(Code(Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(4), kVram | MemFlags::kFixedAddress)).status()),
            HSAKMT_STATUS_INVALID_PARAMETER)
      << "FixedAddress needs an address";
  // A free address: one the aperture handed out and took back.
  ASSERT_OK_AND_ASSIGN(DeviceAddress probe, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(2), kVram)));
  ASSERT_THAT(kfd_->FreeMemory(probe), IsOk());
  const DeviceAddress at = probe + Bytes::MiB(1);
  ASSERT_OK_AND_ASSIGN(DeviceAddress vram,
                       Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), kVram | MemFlags::kFixedAddress, Bytes(0), at)));
  EXPECT_EQ(vram, at);
  ASSERT_THAT(KernelBos(), SizeIs(1));
  EXPECT_EQ(KernelBos()[0].va, at);
  // Taken now: the device path answers NO_MEMORY, the host path ERROR, and neither leaves a buffer.
  EXPECT_EQ(Code(Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(4), kVram | MemFlags::kFixedAddress, Bytes(0), at)).status()),
            HSAKMT_STATUS_NO_MEMORY);
  EXPECT_EQ(
      Code(Unowned(kfd_->AllocMemory(kCpuNode, Bytes::KiB(4), kSystem | MemFlags::kFixedAddress, Bytes(0), at)).status()),
      HSAKMT_STATUS_ERROR);
  EXPECT_THAT(KernelBos(), SizeIs(1));
  // Without the flag the address is only an output.
  ASSERT_OK_AND_ASSIGN(DeviceAddress elsewhere, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(4), kVram, Bytes(0), at)));
  EXPECT_NE(elsewhere, at);
  ASSERT_THAT(kfd_->FreeMemory(elsewhere), IsOk());
  ASSERT_THAT(kfd_->FreeMemory(vram), IsOk());
  EXPECT_THAT(KernelBos(), IsEmpty());
}

TEST_F(KfdMemoryTest, ScratchIsOneRangePerGpuBackedWhereMapped) {
  EXPECT_EQ(Code(Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), MemFlags::kScratch, Bytes::KiB(64))).status()),
            HSAKMT_STATUS_NOT_IMPLEMENTED)
      << "scratch takes no alignment";
  ASSERT_OK_AND_ASSIGN(DeviceAddress scratch, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(100), MemFlags::kScratch)));
  EXPECT_TRUE(IsAligned(scratch, Bytes::KiB(64)));
  EXPECT_THAT(KernelBos(), IsEmpty()) << "no memory until mapped";
  EXPECT_EQ(Code(Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), MemFlags::kScratch)).status()), HSAKMT_STATUS_NO_MEMORY)
      << "one scratch range per GPU";
  EXPECT_EQ(Code(Unowned(kfd_->AllocMemory(kCpuNode, Bytes::KiB(64), MemFlags::kScratch)).status()), HSAKMT_STATUS_NO_MEMORY);

  const DeviceAddress part = scratch + Bytes::KiB(64);
  ASSERT_THAT(kfd_->MapMemoryToGpu(part, {}, Bytes::KiB(64)), IsOk());
  ASSERT_THAT(KernelBos(), SizeIs(1));
  EXPECT_EQ(KernelBos()[0].va, part);
  EXPECT_THAT(KernelBos()[0].mapped_gpu_ids, ElementsAre(GpuIdOf(kGpuNode)));
  EXPECT_EQ(Code(kfd_->MapMemoryToGpu(scratch, {}, Bytes::KiB(256))), HSAKMT_STATUS_INVALID_PARAMETER)
      << "beyond the 128 KiB range";
  ASSERT_THAT(kfd_->UnmapMemoryFromGpu(part), IsOk());
  EXPECT_THAT(KernelBos(), IsEmpty());
  ASSERT_THAT(kfd_->MapMemoryToGpu(scratch, {}, Bytes::KiB(64)), IsOk());
  ASSERT_THAT(kfd_->FreeMemory(scratch + Bytes::KiB(4)), IsOk()) << "any address in it frees the range";
  EXPECT_THAT(KernelBos(), IsEmpty());
  ASSERT_OK_AND_ASSIGN(DeviceAddress again, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), MemFlags::kScratch)));
  ASSERT_THAT(kfd_->FreeMemory(again), IsOk());
}

// kfdtest's CheckZeroInitializationSysMem, bounded: five rounds of allocating system memory, checking one word per
// 4 KiB page reads zero, writing it, freeing. Each round gets zeroed memory although the last wrote the same pages
// (the same VA comes back), and freeing gives the pages back to the host (resident memory and the kernel's
// accounting), so rounds do not add up. Pageable memory (kfdtest's default) and pinned GTT memory alike.
TEST_F(KfdMemoryTest, SystemMemoryIsZeroedOnEachReuseAndFreeingGivesThePagesBack) {
  constexpr Bytes kSize = Bytes::MiB(32);
  constexpr Bytes kSlack = Bytes::MiB(2);  // what else of the process may come or go meanwhile
  constexpr uint64_t kWordsPerPage = 4096 / sizeof(uint64_t);
  const auto system_used = [&] { return machine_->simulator().Snapshot().system_used; };
  for (MemFlags flags : {kSystem, kSystem | MemFlags::kNonPaged}) {
    SCOPED_TRACE(ToRaw(flags));
    const uint64_t resident_before = ResidentBytes();
    for (uint64_t round = 1; round <= 5; ++round) {
      SCOPED_TRACE(round);
      ASSERT_OK_AND_ASSIGN(DeviceAddress p, Unowned(kfd_->AllocMemory(kCpuNode, kSize, flags)));
      EXPECT_EQ(system_used(), kSize);
      auto* words = static_cast<volatile uint64_t*>(p.ToPointer());
      uint64_t nonzero = 0;
      for (uint64_t i = 0; i < kSize.raw() / sizeof(uint64_t); i += kWordsPerPage) {
        if (words[i] != 0) ++nonzero;
        words[i] = round;
      }
      EXPECT_EQ(nonzero, 0u) << "pages that were not zero";
      const uint64_t resident_touched = ResidentBytes();
      EXPECT_GE(resident_touched, resident_before + kSize.raw() - kSlack.raw()) << "every page was touched";
      ASSERT_THAT(kfd_->FreeMemory(p), IsOk());
      EXPECT_EQ(system_used(), Bytes(0));
      EXPECT_LE(ResidentBytes() + kSize.raw() - kSlack.raw(), resident_touched) << "the pages went back to the host";
    }
    // Nothing added up over the rounds, but for a sanitizer's shadow of the range, which stays while the thunk keeps
    // the freed range reserved for reuse (svm_aperture.h): AddressSanitizer's is an eighth of it, ThreadSanitizer's
    // a shadow page for every page the rounds touched.
#ifdef ABSL_HAVE_THREAD_SANITIZER
    constexpr uint64_t kShadowBytes = kSize.raw();
#else
    constexpr uint64_t kShadowBytes = kSize.raw() / 8;
#endif
    EXPECT_LE(ResidentBytes(), resident_before + kShadowBytes + kSlack.raw());
  }
}

TEST_F(KfdMemoryTest, ScratchHandsItsRangeToTheKernelOfItsGpu) {
  Open("2xmi250x");
  const auto backing_vas = [&] { return machine_->simulator().Snapshot().processes.at(0).sh_hidden_private_base; };
  EXPECT_THAT(backing_vas(), ElementsAre(0, 0));
  ASSERT_OK_AND_ASSIGN(DeviceAddress scratch, Unowned(kfd_->AllocMemory(kSecondGpuNode, Bytes::KiB(64), MemFlags::kScratch)));
  // SH_HIDDEN_PRIVATE_BASE counts 64 KiB units.
  EXPECT_THAT(backing_vas(), ElementsAre(0, scratch.raw() >> 16));
  ASSERT_OK_AND_ASSIGN(DeviceAddress first, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(1), MemFlags::kScratch)));
  EXPECT_THAT(backing_vas(), ElementsAre(first.raw() >> 16, scratch.raw() >> 16));
  ASSERT_THAT(kfd_->FreeMemory(first), IsOk());
  ASSERT_THAT(kfd_->FreeMemory(scratch), IsOk());
}

TEST_F(KfdMemoryTest, ScratchTheKernelRefusesIsNoMemoryAndLeavesNothing) {
  ASSERT_OK_AND_ASSIGN(kfd_sim::Topology topology, kfd_sim::PresetTopology("mi300x"));
  ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(topology));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> sim, OpenSimKfdDevice(machine_));
  auto failing = std::make_unique<FailingDevice>(std::move(sim));
  FailingDevice* device = failing.get();
  kfd_.reset();
  ASSERT_OK_AND_ASSIGN(kfd_, Kfd::Open(std::move(failing)));

  device->Fail(kfd_uapi::kSetScratchBackingVa.request(), ENODEV);
  const absl::StatusOr<DeviceAddress> refused = Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), MemFlags::kScratch));
  EXPECT_EQ(Code(refused.status()), HSAKMT_STATUS_NO_MEMORY);
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("AMDKFD_IOC_SET_SCRATCH_BACKING_VA"));
  EXPECT_THAT(machine_->simulator().Snapshot().processes.at(0).sh_hidden_private_base, ElementsAre(0));
  // Nothing is left of it: the GPU has no scratch range, so the next one can be had.
  device->Fail(0, 0);
  ASSERT_OK_AND_ASSIGN(DeviceAddress scratch, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), MemFlags::kScratch)));
  ASSERT_THAT(kfd_->FreeMemory(scratch), IsOk());
}

TEST_F(KfdMemoryTest, MapToNodesSetsTheMappedSet) {
  Open("2xmi250x");
  const uint32_t first = GpuIdOf(kGpuNode);
  const uint32_t second = GpuIdOf(kSecondGpuNode);
  for (MemFlags flags : {kSystem, kVram}) {
    SCOPED_TRACE(ToRaw(flags));
    ASSERT_OK_AND_ASSIGN(DeviceAddress p, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), flags)));
    const NodeId both[] = {kGpuNode, kSecondGpuNode};
    const NodeId only_second[] = {kSecondGpuNode};
    const NodeId only_first[] = {kGpuNode};
    ASSERT_THAT(kfd_->MapMemoryToGpu(p, both), IsOk());
    EXPECT_THAT(KernelBos().at(0).mapped_gpu_ids, ElementsAre(first, second));
    ASSERT_THAT(kfd_->MapMemoryToGpu(p, only_second), IsOk());
    EXPECT_THAT(KernelBos().at(0).mapped_gpu_ids, ElementsAre(second)) << "a node dropped from the list is unmapped";
    ASSERT_THAT(kfd_->MapMemoryToGpu(p, only_second), IsOk()) << "the same list again is harmless";
    EXPECT_THAT(KernelBos().at(0).mapped_gpu_ids, ElementsAre(second));
    ASSERT_THAT(kfd_->MapMemoryToGpu(p, only_first), IsOk());
    EXPECT_THAT(KernelBos().at(0).mapped_gpu_ids, ElementsAre(first));
    EXPECT_THAT(kfd_->QueryPointerInfo(p.ToPointer()).mapped_nodes, ElementsAre(kGpuNode));
    const NodeId cpu[] = {kCpuNode};
    EXPECT_EQ(Code(kfd_->MapMemoryToGpu(p, cpu)), HSAKMT_STATUS_INVALID_PARAMETER);
    EXPECT_THAT(KernelBos().at(0).mapped_gpu_ids, ElementsAre(first)) << "a refused list changes nothing";
    ASSERT_THAT(kfd_->UnmapMemoryFromGpu(p), IsOk());
    EXPECT_THAT(KernelBos().at(0).mapped_gpu_ids, IsEmpty());
    ASSERT_THAT(kfd_->FreeMemory(p), IsOk());
  }
}

}  // namespace
}  // namespace hipmem::thunk
