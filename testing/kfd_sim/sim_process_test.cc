// Process isolation, shared accounting, close(), snapshots and concurrency.
#include <cerrno>
#include <cstdint>
#include <memory>
#include <thread>
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
using ::hipmem_testing::Available;
using ::hipmem_testing::Free;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::kVramFlags;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::Map;
using ::hipmem_testing::SmallTopology;
using ::hipmem_testing::Unmap;
using ::hipmem_testing::UserPages;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;

constexpr Bytes kSize = Bytes::MiB(2);

TEST(SimProcessTest, HandleOfAnotherProcessIsUnknown) {
  auto sim = MakeSimulator();
  auto a = sim->Open();
  auto b = sim->Open();
  AcquireAllVms(*sim, *a);
  AcquireAllVms(*sim, *b);
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;
  const AllocResult bo = Alloc(*a, gpu, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);

  EXPECT_EQ(Free(*b, bo.handle), -EINVAL);
  EXPECT_EQ(Map(*b, bo.handle, {gpu}).ret, -ENOMEM);
  EXPECT_EQ(Unmap(*b, bo.handle, {gpu}).ret, -ENOMEM);
  // Each process has its own VA space: B may use the same VA.
  EXPECT_EQ(Alloc(*b, gpu, kTestVa, kSize, kVramFlags).ret, 0);
  ASSERT_EQ(Map(*a, bo.handle, {gpu}).ret, 0);
  EXPECT_TRUE(a->IsMapped(gpu, DeviceAddress(kTestVa), kSize));
  EXPECT_FALSE(b->IsMapped(gpu, DeviceAddress(kTestVa), kSize)) << "B's page table is its own";
  EXPECT_EQ(Free(*a, bo.handle), 0);
}

TEST(SimProcessTest, VramAccountingIsGlobalAcrossProcesses) {
  auto sim = MakeSimulator(SmallTopology(Bytes::MiB(8), Bytes::MiB(8)));
  auto a = sim->Open();
  auto b = sim->Open();
  AcquireAllVms(*sim, *a);
  AcquireAllVms(*sim, *b);
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;

  ASSERT_EQ(Alloc(*a, gpu, kTestVa, Bytes::MiB(6), kVramFlags).ret, 0);
  EXPECT_EQ(Available(*b, gpu), Bytes::MiB(2).raw()) << "B sees A's use";
  EXPECT_EQ(Alloc(*b, gpu, kTestVa, Bytes::MiB(4), kVramFlags).ret, -ENOMEM);
  a.reset();  // close A
  EXPECT_EQ(Available(*b, gpu), Bytes::MiB(8).raw());
  EXPECT_EQ(Alloc(*b, gpu, kTestVa, Bytes::MiB(8), kVramFlags).ret, 0);
}

TEST(SimProcessTest, CloseReleasesEverything) {
  auto sim = MakeSimulator(Mi300xTopology(2));
  const SimSnapshot before = sim->Snapshot();
  auto keeper = sim->Open();
  AcquireAllVms(*sim, *keeper);
  const uint32_t gpu0 = sim->topology().gpus[0].gpu_id;
  const uint32_t gpu1 = sim->topology().gpus[1].gpu_id;
  const uint64_t available_before = Available(*keeper, gpu0);
  {
    const UserPages pages(kSize);
    auto file = sim->Open();
    AcquireAllVms(*sim, *file);
    const AllocResult vram = Alloc(*file, gpu0, kTestVa, kSize, kVramFlags);
    const AllocResult gtt = Alloc(*file, gpu1, kTestVa + Bytes::MiB(8).raw(), kSize, AllocMemFlags::kGtt);
    const AllocResult userptr =
        Alloc(*file, gpu0, kTestVa + Bytes::MiB(4).raw(), kSize, AllocMemFlags::kUserptr, pages.address());
    ASSERT_EQ(vram.ret, 0);
    ASSERT_EQ(gtt.ret, 0);
    ASSERT_EQ(userptr.ret, 0);
    ASSERT_EQ(Map(*file, vram.handle, {gpu0, gpu1}).ret, 0);
    ASSERT_EQ(Map(*file, gtt.handle, {gpu1}).ret, 0);

    const SimSnapshot during = sim->Snapshot();
    ASSERT_EQ(during.processes.size(), 2u);
    const SimProcess& p = during.processes[1];
    ASSERT_EQ(p.bos.size(), 3u);
    EXPECT_EQ(p.bos[0].handle, vram.handle);
    EXPECT_EQ(p.bos[0].gpu_id, gpu0);
    EXPECT_EQ(p.bos[0].va, DeviceAddress(kTestVa));
    EXPECT_EQ(p.bos[0].size, kSize);
    EXPECT_EQ(p.bos[0].flags, kVramFlags);
    EXPECT_THAT(p.bos[0].mapped_gpu_ids, ElementsAre(gpu0, gpu1));
    EXPECT_EQ(during.gpus[0].vram_used, kSize);
    EXPECT_EQ(during.system_used, kSize + kSize);
    EXPECT_EQ(Available(*keeper, gpu0), available_before - kSize.raw());
  }
  const SimSnapshot after = sim->Snapshot();
  ASSERT_EQ(after.processes.size(), 1u);
  EXPECT_THAT(after.processes[0].bos, IsEmpty());
  ASSERT_EQ(after.gpus.size(), before.gpus.size());
  for (size_t i = 0; i < after.gpus.size(); ++i) {
    EXPECT_EQ(after.gpus[i].vram_used, before.gpus[i].vram_used);
  }
  EXPECT_EQ(after.system_used, before.system_used);
  EXPECT_EQ(Available(*keeper, gpu0), available_before);
}

TEST(SimProcessTest, SnapshotListsProcessesInOpenOrder) {
  auto sim = MakeSimulator();
  EXPECT_THAT(sim->Snapshot().processes, IsEmpty());
  auto a = sim->Open();
  auto b = sim->Open();
  const SimSnapshot snapshot = sim->Snapshot();
  ASSERT_EQ(snapshot.processes.size(), 2u);
  EXPECT_LT(snapshot.processes[0].id, snapshot.processes[1].id);
  ASSERT_EQ(snapshot.gpus.size(), 1u);
  EXPECT_EQ(snapshot.gpus[0].gpu_id, sim->topology().gpus[0].gpu_id);
  EXPECT_EQ(snapshot.gpus[0].vram_total, Bytes::GiB(192) - Bytes::MiB(16));
  EXPECT_EQ(snapshot.system_total, KfdSystemMemoryLimit(Bytes(sim->topology().system_memory_bytes)));
}

TEST(SimProcessTest, SystemMemoryLimitIsAmdgpusShareOfTheRamUnlessPinned) {
  struct Row {
    Bytes ram;
    Bytes limit;
  };
  // RAM - RAM/64 - 1.5 GiB; halved instead below 3 GiB.
  const Row kRows[] = {
      {Bytes::GiB(24), Bytes::MiB(24 * 1024 - 384 - 1536)},
      {Bytes::GiB(1536), Bytes::MiB(1536 * 1024 - 24 * 1024 - 1536)},
      {Bytes::GiB(2), Bytes::MiB((2048 - 32) / 2)},
      {Bytes::MiB(3 * 1024 + 64), Bytes::MiB(3 * 1024 + 64 - 49 - 1536)},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.ram.raw());
    EXPECT_EQ(KfdSystemMemoryLimit(row.ram), row.limit);
    Topology topology = DefaultTopology();
    topology.system_memory_bytes = row.ram.raw();
    EXPECT_EQ(MakeSimulator(topology)->Snapshot().system_total, row.limit);
  }
  Topology pinned = DefaultTopology();
  pinned.system_memory_limit_bytes = Bytes::MiB(8).raw();
  EXPECT_EQ(MakeSimulator(pinned)->Snapshot().system_total, Bytes::MiB(8));
}

TEST(SimProcessTest, ConcurrentProcessesKeepAccountingExact) {
  auto sim = MakeSimulator(SmallTopology(Bytes::MiB(64), Bytes::MiB(64), 2));
  constexpr int kThreads = 4;
  constexpr int kIterations = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&sim, t] {
      auto file = sim->Open();
      AcquireAllVms(*sim, *file);
      const uint32_t gpu = sim->topology().gpus[t % 2].gpu_id;
      const uint32_t peer = sim->topology().gpus[(t + 1) % 2].gpu_id;
      for (int i = 0; i < kIterations; ++i) {
        const AllocResult r = Alloc(*file, gpu, kTestVa, Bytes::MiB(4), kVramFlags);
        if (r.ret == -ENOMEM) continue;  // other threads hold the VRAM right now
        ASSERT_EQ(r.ret, 0);
        ASSERT_EQ(Map(*file, r.handle, {gpu, peer}).ret, 0);
        EXPECT_TRUE(file->IsMapped(peer, DeviceAddress(kTestVa), Bytes::MiB(4)));
        if (i % 2 == 0) {
          ASSERT_EQ(Unmap(*file, r.handle, {peer}).ret, 0);
        }
        (void)sim->Snapshot();
        ASSERT_EQ(Free(*file, r.handle), 0);
      }
      // Leave one buffer behind for close() to reclaim.
      (void)Alloc(*file, gpu, kTestVa, Bytes::MiB(2), kVramFlags);
    });
  }
  for (std::thread& thread : threads) thread.join();
  const SimSnapshot after = sim->Snapshot();
  EXPECT_THAT(after.processes, IsEmpty());
  for (const SimGpuUsage& gpu : after.gpus) EXPECT_EQ(gpu.vram_used, Bytes(0));
}

}  // namespace
}  // namespace hipmem::kfd_sim
