// The test-only fault injector at the simulated KFD's entries (fault_injection.h).
#include "testing/kfd_sim/fault_injection.h"

#include <cerrno>
#include <cstdint>
#include <thread>
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
using ::hipmem_testing::Free;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::kVramFlags;
using ::hipmem_testing::MakeSimulator;

int GetVersion(SimFile& file) {
  uapi::GetVersionArgs args{};
  return Ioctl(file, uapi::kGetVersion, args);
}

TEST(FaultInjectionTest, FailsExactlyTheKthCountedIoctlWithTheErrnoAndNothingElse) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  AcquireAllVms(*sim, *file);
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;
  const SimUsage start = UsageOf(sim->Snapshot());
  {
    ScopedFaultInjection fault(FaultPlan{.fail_at = 2});
    EXPECT_EQ(GetVersion(*file), 0);
    // The second entry fails before the handler runs: no buffer is made.
    EXPECT_EQ(Alloc(*file, gpu, kTestVa, Bytes::MiB(2), kVramFlags).ret, -ENOMEM);
    EXPECT_EQ(UsageOf(sim->Snapshot()), start);
    EXPECT_EQ(GetVersion(*file), 0);
    EXPECT_EQ(fault.failed(), 1u);
    EXPECT_EQ(fault.failed_name(), "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU");
    EXPECT_EQ(fault.counted().size(), 3u);
  }
  // Disarmed: the same call succeeds.
  const auto made = Alloc(*file, gpu, kTestVa, Bytes::MiB(2), kVramFlags);
  ASSERT_EQ(made.ret, 0);
  EXPECT_NE(UsageOf(sim->Snapshot()), start);
  EXPECT_EQ(Free(*file, made.handle), 0);
  EXPECT_EQ(UsageOf(sim->Snapshot()), start);
}

TEST(FaultInjectionTest, FiltersByIoctlAndErrnoAndFailsARun) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  AcquireAllVms(*sim, *file);
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;
  ScopedFaultInjection fault(FaultPlan{.fail_at = 2,
                                       .fail_count = 2,
                                       .error = ENOSPC,
                                       .only_ioctl_nr = uapi::kAllocMemoryOfGpu.nr});
  EXPECT_EQ(GetVersion(*file), 0);  // not counted
  const auto first = Alloc(*file, gpu, kTestVa, Bytes::MiB(2), kVramFlags);
  EXPECT_EQ(first.ret, 0);
  EXPECT_EQ(Alloc(*file, gpu, kTestVa + Bytes::MiB(2).raw(), Bytes::MiB(2), kVramFlags).ret, -ENOSPC);
  EXPECT_EQ(Alloc(*file, gpu, kTestVa + Bytes::MiB(2).raw(), Bytes::MiB(2), kVramFlags).ret, -ENOSPC);
  const auto fourth = Alloc(*file, gpu, kTestVa + Bytes::MiB(2).raw(), Bytes::MiB(2), kVramFlags);
  EXPECT_EQ(fourth.ret, 0);
  EXPECT_EQ(fault.failed(), 2u);
  EXPECT_EQ(fault.counted().size(), 4u);
  EXPECT_EQ(Free(*file, first.handle), 0);
  EXPECT_EQ(Free(*file, fourth.handle), 0);
}

TEST(FaultInjectionTest, CountsOnlyTheArmingThreadUnlessAskedForAll) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  {
    ScopedFaultInjection fault(FaultPlan{.fail_at = 1});
    int other = -1;
    std::thread([&] { other = GetVersion(*file); }).join();
    EXPECT_EQ(other, 0);
    EXPECT_EQ(fault.counted().size(), 0u);
    EXPECT_EQ(GetVersion(*file), -ENOMEM);
  }
  {
    ScopedFaultInjection fault(FaultPlan{.fail_at = 1, .all_threads = true});
    int other = 0;
    std::thread([&] { other = GetVersion(*file); }).join();
    EXPECT_EQ(other, -ENOMEM);
  }
}

TEST(FaultInjectionTest, FailsMmapsAndRenderNodeOpens) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  const GpuConfig& gpu = sim->topology().gpus[0];
  {
    ScopedFaultInjection fault(FaultPlan{.fail_at = 1, .only_entry = KernelEntry::kOpenRenderNode});
    EXPECT_EQ(file->OpenRenderNode(gpu.drm_render_minor), -ENOMEM);
  }
  const std::vector<int> fds = AcquireAllVms(*sim, *file);
  const auto bo = Alloc(*file, gpu.gpu_id, kTestVa, Bytes::MiB(2),
                        uapi::AllocMemFlags::kGtt | uapi::AllocMemFlags::kWritable);
  ASSERT_EQ(bo.ret, 0);
  void* place = mmap(nullptr, Bytes::MiB(2).raw(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(place, MAP_FAILED);
  {
    ScopedFaultInjection fault(FaultPlan{.fail_at = 1, .only_entry = KernelEntry::kMmap});
    EXPECT_EQ(file->MmapBo(fds[0], place, Bytes::MiB(2).raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), -ENOMEM);
  }
  EXPECT_EQ(file->MmapBo(fds[0], place, Bytes::MiB(2).raw(), PROT_READ | PROT_WRITE, bo.mmap_offset), 0);
  munmap(place, Bytes::MiB(2).raw());
  EXPECT_EQ(Free(*file, bo.handle), 0);
}

TEST(FaultInjectionTest, CountEntriesReturnsTheSequenceAndRefusesOneThatChanges) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  absl::StatusOr<std::vector<CountedEntry>> same = CountEntries(FaultPlan{}, [&] {
    GetVersion(*file);
    GetVersion(*file);
  });
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->size(), 2u);
  EXPECT_EQ(EntryName((*same)[0]), "AMDKFD_IOC_GET_VERSION");
  int runs = 0;
  absl::StatusOr<std::vector<CountedEntry>> changing = CountEntries(FaultPlan{}, [&] {
    if (++runs == 2) GetVersion(*file);
  });
  EXPECT_EQ(changing.status().code(), absl::StatusCode::kFailedPrecondition);
}

// UsageAtMost is the leak check of the fault sweeps and the op-sequence fuzzer: more of any kind but events is more.
TEST(FaultInjectionTest, UsageAtMostRefusesMoreOfAnythingButEvents) {
  SimUsage bound;
  bound.processes = 1;
  bound.buffers = 4;
  bound.gpu_mappings = 4;
  bound.events = 2;
  bound.queues = 1;
  bound.svm_ranges = 1;
  bound.vram_used = {Bytes::MiB(2), Bytes::MiB(4)};
  bound.system_used = Bytes::MiB(1);
  EXPECT_TRUE(UsageAtMost(bound, bound));
  SimUsage less = bound;
  less.buffers = 3;
  less.vram_used[1] = Bytes::MiB(2);
  EXPECT_TRUE(UsageAtMost(less, bound));
  SimUsage more_events = bound;
  more_events.events = 9;
  EXPECT_TRUE(UsageAtMost(more_events, bound));
  EXPECT_EQ(WithoutPooledEvents(more_events), WithoutPooledEvents(bound));

  const auto more = [&](auto change) {
    SimUsage u = bound;
    change(u);
    return UsageAtMost(u, bound);
  };
  EXPECT_FALSE(more([](SimUsage& u) { u.processes = 2; }));
  EXPECT_FALSE(more([](SimUsage& u) { u.processes = 0; }));  // a process gone is not "less": another one's state
  EXPECT_FALSE(more([](SimUsage& u) { ++u.buffers; }));
  EXPECT_FALSE(more([](SimUsage& u) { ++u.gpu_mappings; }));
  EXPECT_FALSE(more([](SimUsage& u) { ++u.queues; }));
  EXPECT_FALSE(more([](SimUsage& u) { ++u.svm_ranges; }));
  EXPECT_FALSE(more([](SimUsage& u) { u.vram_used[1] = Bytes::MiB(5); }));
  EXPECT_FALSE(more([](SimUsage& u) { u.vram_used.pop_back(); }));
  EXPECT_FALSE(more([](SimUsage& u) { u.system_used = Bytes::MiB(2); }));
}

}  // namespace
}  // namespace hipmem::kfd_sim
