// hsaKmtAllocMemory's HsaMemFlags -> KFD_IOC_ALLOC_MEM_FLAGS_* translation (rocm_facts.md §3.5),
// one row per flag, checked on the BO the simulated kernel actually received.
#include <memory>
#include <optional>

#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/kfd.h"
#include "thunk/kfd_testing.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using kfd_uapi::AllocMemFlags;

constexpr NodeId kCpu(0);
constexpr NodeId kGpu(1);
// What libhsakmt puts on every user allocation: EXECUTABLE, NO_SUBSTITUTE, and WRITABLE unless read-only.
constexpr AllocMemFlags kEvery = AllocMemFlags::kExecutable | AllocMemFlags::kNoSubstitute | AllocMemFlags::kWritable;
constexpr MemFlags kCoarseVram = MemFlags::kNonPaged | MemFlags::kCoarseGrain;

struct Row {
  const char* name;
  NodeId node;
  MemFlags flags;
  AllocMemFlags expected;
};

const Row kRows[] = {
    {"coarse VRAM", kGpu, kCoarseVram, kEvery | AllocMemFlags::kVram},
    {"HostAccess -> PUBLIC", kGpu, kCoarseVram | MemFlags::kHostAccess,
     kEvery | AllocMemFlags::kVram | AllocMemFlags::kPublic},
    {"fine grain -> COHERENT", kGpu, MemFlags::kNonPaged, kEvery | AllocMemFlags::kVram | AllocMemFlags::kCoherent},
    {"ReadOnly drops WRITABLE", kGpu, kCoarseVram | MemFlags::kReadOnly,
     AllocMemFlags::kExecutable | AllocMemFlags::kNoSubstitute | AllocMemFlags::kVram},
    {"Uncached -> UNCACHED", kGpu, MemFlags::kNonPaged | MemFlags::kUncached,
     kEvery | AllocMemFlags::kVram | AllocMemFlags::kCoherent | AllocMemFlags::kUncached},
    {"ExtendedCoherent -> EXT_COHERENT", kGpu, MemFlags::kNonPaged | MemFlags::kExtendedCoherent,
     kEvery | AllocMemFlags::kVram | AllocMemFlags::kCoherent | AllocMemFlags::kExtCoherent},
    {"Contiguous -> CONTIGUOUS_BEST_EFFORT", kGpu, kCoarseVram | MemFlags::kContiguous,
     kEvery | AllocMemFlags::kVram | AllocMemFlags::kContiguousBestEffort},
    {"AqlQueueMemory -> AQL_QUEUE_MEM | UNCACHED", kGpu, kCoarseVram | MemFlags::kAqlQueueMemory,
     kEvery | AllocMemFlags::kVram | AllocMemFlags::kAqlQueueMem | AllocMemFlags::kUncached},
    {"NoSubstitute is implied", kGpu, kCoarseVram | MemFlags::kNoSubstitute, kEvery | AllocMemFlags::kVram},
    {"pageable system -> USERPTR", kCpu, MemFlags::kHostAccess,
     kEvery | AllocMemFlags::kUserptr | AllocMemFlags::kCoherent},
    {"pageable coarse system -> USERPTR, not coherent", kCpu, MemFlags::kHostAccess | MemFlags::kCoarseGrain,
     kEvery | AllocMemFlags::kUserptr},
    {"non-paged system -> GTT", kCpu, MemFlags::kNonPaged | MemFlags::kHostAccess,
     kEvery | AllocMemFlags::kGtt | AllocMemFlags::kCoherent},
    {"GTTAccess on a GPU node -> GTT", kGpu, MemFlags::kNonPaged | MemFlags::kGttAccess | MemFlags::kHostAccess,
     kEvery | AllocMemFlags::kGtt | AllocMemFlags::kCoherent},
};

TEST(MemFlagsTest, EveryFlagTranslatesAsLibhsakmtDoes) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<SimMachine> machine, SimMachine::Create(kfd_sim::DefaultTopology()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> device, OpenSimKfdDevice(machine));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Kfd> kfd, Kfd::Open(std::move(device)));
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    ASSERT_OK_AND_ASSIGN(DeviceAddress addr, Unowned(kfd->AllocMemory(row.node, Bytes::KiB(4), row.flags)));
    std::optional<kfd_sim::SimBo> bo;
    const kfd_sim::SimSnapshot snapshot = machine->simulator().Snapshot();
    ASSERT_EQ(snapshot.processes.size(), 1u);
    for (const kfd_sim::SimBo& b : snapshot.processes[0].bos) {
      if (b.va == addr) bo = b;
    }
    ASSERT_TRUE(bo.has_value());
    EXPECT_EQ(kfd_uapi::ToRaw(bo->flags), kfd_uapi::ToRaw(row.expected))
        << "got 0x" << std::hex << kfd_uapi::ToRaw(bo->flags) << ", want 0x" << kfd_uapi::ToRaw(row.expected);
    EXPECT_TRUE(kfd->FreeMemory(addr).ok());
  }
}

}  // namespace
}  // namespace hipmem::thunk
