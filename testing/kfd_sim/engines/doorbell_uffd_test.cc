// Bare doorbell stores through a client mapping of a doorbell page (as SimFile::MmapKfd places it) reach the
// engines sleeping on the engines' view of the same page: by userfaultfd write-protect faults, or (compiled with
// HIPMEM_TEST_FORCE_DOORBELL_POLL, which sets HIPMEM_SIM_DOORBELL_POLL=1) by the polling fallback.
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/pm4_packets.h"
#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/compute_engine.h"
#include "testing/kfd_sim/engines/doorbell.h"
#include "testing/kfd_sim/engines/doorbell_poller.h"
#include "testing/kfd_sim/engines/pm4_engine.h"
#include "testing/kfd_sim/engines/sdma_engine.h"
#include "testing/kfd_sim/engines/test_memory.h"

namespace hipmem::kfd_sim {
namespace {
namespace sdma = ::hipmem::gpu_abi::sdma;
namespace pm4 = ::hipmem::gpu_abi::pm4;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

#ifdef HIPMEM_TEST_FORCE_DOORBELL_POLL
constexpr bool kForcePoll = true;
// Before any test asks for the first client mapping, which is when the poller decides.
const bool kEnvSet = setenv("HIPMEM_SIM_DOORBELL_POLL", "1", 1) == 0;
#else
constexpr bool kForcePoll = false;
const bool kEnvSet = unsetenv("HIPMEM_SIM_DOORBELL_POLL") == 0;
#endif

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

void BareStore(uint64_t* word, uint64_t value) { std::atomic_ref<uint64_t>(*word).store(value, std::memory_order_release); }

// Waits until `done` holds, at most `limit` (so a missed store fails the test instead of hanging it).
template <typename Pred>
bool WaitFor(Pred done, Clock::duration limit = std::chrono::seconds(1)) {
  const Clock::time_point until = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

// An 8 KiB doorbell slice (two pages) mapped twice, as the simulator does: the engines' view and the client's,
// the latter watched.
class DoorbellSlice {
 public:
  static constexpr size_t kBytes = 8192;
  DoorbellSlice() {
    fd_ = memfd_create("doorbell_uffd_test", MFD_CLOEXEC);
    EXPECT_GE(fd_, 0);
    EXPECT_EQ(ftruncate(fd_, kBytes), 0);
    engine_ = static_cast<uint64_t*>(mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0));
    client_ = static_cast<uint64_t*>(mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0));
    watch_ = DoorbellClientMapping::Watch(client_, kBytes, engine_);
  }
  ~DoorbellSlice() {
    watch_ = DoorbellClientMapping();
    munmap(client_, kBytes);
    munmap(engine_, kBytes);
    close(fd_);
  }
  uint64_t* engine(size_t i) const { return engine_ + i; }
  uint64_t* client(size_t i) const { return client_ + i; }
  DoorbellClientMapping& watch() { return watch_; }

 private:
  int fd_ = -1;
  uint64_t* engine_ = nullptr;
  uint64_t* client_ = nullptr;
  DoorbellClientMapping watch_;
};

TEST(DoorbellUffdTest, ModeIsWhatTheEnvironmentAsks) {
  ASSERT_TRUE(kEnvSet);
  DoorbellSlice slice;
  if (kForcePoll) {
    EXPECT_FALSE(slice.watch().event_driven());
    EXPECT_FALSE(GetDoorbellPollerStats().event_driven);
  } else {
    if (!GetDoorbellPollerStats().event_driven) GTEST_SKIP() << "no userfaultfd here (see the log line)";
    EXPECT_TRUE(slice.watch().event_driven());
  }
}

// SDMA, AQL and PM4 queues whose doorbells share one page, each rung by a bare store through the client mapping
// after two seconds of silence.
TEST(DoorbellUffdTest, BareStoreAfterSilenceRunsSdmaAqlAndPm4) {
  DoorbellSlice slice;
  IdentityPageTable memory;
  // SDMA: one FENCE.
  std::vector<uint32_t> sdma_ring(1024, 0);
  uint64_t sdma_rptr = 0, sdma_wptr = 0;
  uint32_t fence = 0;
  memory.Map(sdma_ring.data(), sdma_ring.size() * 4);
  memory.Map(&sdma_rptr, 8);
  memory.Map(&fence, 4);
  // AQL: one BARRIER_AND with a completion signal.
  struct alignas(64) Slot {
    unsigned char bytes[aql::kPacketBytes];
  };
  std::vector<Slot> slots(16);
  for (Slot& s : slots) aql::InvalidateSlot(&s);
  uint64_t read_index = 0, write_index = 0;
  alignas(64) aql::AmdSignal done{};
  memory.Map(slots.data(), slots.size() * aql::kPacketBytes);
  memory.Map(&read_index, 8);
  memory.Map(&done, sizeof(done));
  // PM4: one WRITE_DATA.
  std::vector<uint32_t> pm4_ring(64, 0);
  uint64_t pm4_rptr = 0, pm4_wptr = 0;
  uint32_t written = 0;
  memory.Map(pm4_ring.data(), pm4_ring.size() * 4);
  memory.Map(&pm4_rptr, 8);
  memory.Map(&pm4_wptr, 8);
  memory.Map(&written, 4);

  // The packets, written before the engines start (a bare store publishes nothing ThreadSanitizer can see).
  const sdma::Fence fence_packet = sdma::MakeFence(Va(&fence), 7);
  std::memcpy(sdma_ring.data(), &fence_packet, sizeof(fence_packet));
  std::atomic_ref<int64_t>(done.value).store(1);
  aql::WritePacket(&slots[0], aql::MakeBarrierAnd({0, 0, 0, 0, 0}, Va(&done)));
  const std::vector<uint32_t> write = pm4::MakeWriteData(Va(&written), {0x5eed});
  std::copy(write.begin(), write.end(), pm4_ring.begin());

  // Doorbells 0, 1 and 2 of the first page; AQL's announces nothing until the first packet.
  BareStore(slice.engine(1), ComputeEngine::IdleDoorbellValue(0));
  SdmaEngine sdma_engine("sdma", &memory,
                         SdmaQueueDescriptor{.ring_va = Va(sdma_ring.data()),
                                             .ring_bytes = static_cast<uint32_t>(sdma_ring.size() * 4),
                                             .rptr_va = Va(&sdma_rptr),
                                             .wptr_va = Va(&sdma_wptr),
                                             .doorbell = slice.engine(0)},
                         SdmaEngine::Callbacks{});
  ComputeEngine aql_engine("cp", &memory,
                           AqlQueueDescriptor{.ring_va = Va(slots.data()),
                                              .ring_bytes = static_cast<uint32_t>(slots.size() * aql::kPacketBytes),
                                              .read_dispatch_id_va = Va(&read_index),
                                              .write_dispatch_id_va = Va(&write_index),
                                              .doorbell = slice.engine(1)},
                           1, ComputeEngine::Callbacks{});
  Pm4Engine pm4_engine("pm4", &memory,
                       Pm4QueueDescriptor{.ring_va = Va(pm4_ring.data()),
                                          .ring_bytes = static_cast<uint32_t>(pm4_ring.size() * 4),
                                          .rptr_va = Va(&pm4_rptr),
                                          .wptr_va = Va(&pm4_wptr),
                                          .doorbell = slice.engine(2)},
                       Pm4Engine::Callbacks{});

  std::this_thread::sleep_for(std::chrono::seconds(2));
  const DoorbellPollerStats before = GetDoorbellPollerStats();
  if (before.event_driven) {
    EXPECT_EQ(before.period.count(), 0) << "an idle event-driven simulator polls nothing";
  }

  BareStore(slice.client(0), sizeof(fence_packet));
  EXPECT_TRUE(WaitFor([&] { return std::atomic_ref<uint32_t>(fence).load() == 7; })) << "SDMA";
  BareStore(slice.client(1), 0);
  EXPECT_TRUE(WaitFor([&] { return std::atomic_ref<int64_t>(done.value).load() == 0; })) << "AQL";
  BareStore(slice.client(2), write.size());
  EXPECT_TRUE(WaitFor([&] { return std::atomic_ref<uint32_t>(written).load() == 0x5eed; })) << "PM4";
  if (before.event_driven) {
    EXPECT_GT(GetDoorbellPollerStats().faults, before.faults);
  }
}

// A thread per doorbell, sleeping on its word, as an engine does.
class Sleeper {
 public:
  explicit Sleeper(uint64_t* word) : waiter_(word), thread_([this] { Run(); }) {}
  ~Sleeper() {
    stop_.store(true);
    waiter_.WakeUntil(exited_);
    thread_.join();
  }
  uint64_t seen() const { return seen_.load(std::memory_order_acquire); }

 private:
  void Run() {
    while (!stop_.load()) {
      const uint64_t value = waiter_.Load();
      seen_.store(value, std::memory_order_release);
      if (stop_.load()) break;
      waiter_.Wait(value);
    }
    exited_.store(true, std::memory_order_release);
  }
  DoorbellWaiter waiter_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> exited_{false};
  std::atomic<uint64_t> seen_{0};
  std::thread thread_;
};

TEST(DoorbellUffdTest, ManyDoorbellsOnBothPagesEachWakeTheirOwnSleeper) {
  DoorbellSlice slice;
  // Doorbells across both pages of the slice.
  constexpr std::array<size_t, 8> kWords = {0, 1, 2, 300, 511, 512, 600, 1023};
  std::vector<std::unique_ptr<Sleeper>> sleepers;
  for (size_t w : kWords) sleepers.push_back(std::make_unique<Sleeper>(slice.engine(w)));
  for (int round = 1; round <= 3; ++round) {
    // Long enough for every page to be write-protected again.
    std::this_thread::sleep_for(kDoorbellHotFor + milliseconds(30));
    for (size_t i = 0; i < kWords.size(); ++i) {
      BareStore(slice.client(kWords[i]), round * 100 + i);
      EXPECT_TRUE(WaitFor([&] { return sleepers[i]->seen() == round * 100 + i; }))
          << "round " << round << " doorbell " << kWords[i];
    }
  }
}

TEST(DoorbellUffdTest, IdleSliceCostsNoLooks) {
  DoorbellSlice slice;
  std::vector<std::unique_ptr<Sleeper>> sleepers;
  for (size_t w = 0; w < 8; ++w) sleepers.push_back(std::make_unique<Sleeper>(slice.engine(w)));
  BareStore(slice.client(3), 9);
  ASSERT_TRUE(WaitFor([&] { return sleepers[3]->seen() == 9; }));
  std::this_thread::sleep_for(kDoorbellHotFor + milliseconds(50));
  const DoorbellPollerStats before = GetDoorbellPollerStats();
  std::this_thread::sleep_for(milliseconds(300));
  const DoorbellPollerStats after = GetDoorbellPollerStats();
  if (!before.event_driven) {
    EXPECT_GT(after.looks, before.looks) << "the fallback polls";
    return;
  }
  EXPECT_EQ(after.looks, before.looks);
  EXPECT_EQ(after.period.count(), 0);
  EXPECT_GE(after.protects, 1u);
}

// Destroying the watch (and unmapping) while a writer keeps storing, sometimes into a protected page: the writer
// never hangs, and stores after the unregistration are plain stores.
TEST(DoorbellUffdTest, TeardownWithARacingWriter) {
  for (int round = 0; round < 5; ++round) {
    auto slice = std::make_unique<DoorbellSlice>();
    Sleeper sleeper(slice->engine(5));
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> stores{0};
    std::thread writer([&] {
      for (uint64_t v = 1; !stop.load(); ++v) {
        BareStore(slice->client(5 + 512 * (v % 2)), v);
        stores.store(v);
        // Now and then long enough for the page to go cold, so the next store faults.
        if (v % 16 == 0) std::this_thread::sleep_for(kDoorbellHotFor + milliseconds(2));
      }
    });
    std::this_thread::sleep_for(milliseconds(20 + 13 * round));
    slice->watch() = DoorbellClientMapping();  // unregisters under the writer's feet
    const uint64_t at_unregister = stores.load();
    EXPECT_TRUE(WaitFor([&] { return stores.load() > at_unregister + 2; }, std::chrono::seconds(2)))
        << "the writer hung after the unregistration";
    stop.store(true);
    writer.join();
  }
}

// A forked child inherits the mapping but not its registration (no UFFD_FEATURE_EVENT_FORK): its store to a
// write-protected page completes without the parent's handler.
TEST(DoorbellUffdTest, ForkedChildsStoreDoesNotHang) {
  DoorbellSlice slice;
  Sleeper sleeper(slice.engine(0));
  std::this_thread::sleep_for(kDoorbellHotFor + milliseconds(30));  // protected again
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    BareStore(slice.client(0), 42);
    _exit(0);
  }
  int status = 0;
  const bool exited = WaitFor([&] { return waitpid(child, &status, WNOHANG) == child; }, std::chrono::seconds(3));
  if (!exited) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
  }
  ASSERT_TRUE(exited) << "the child's store hung";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // The shared page holds the child's store; the parent's engine is told at its next look or fault at the
  // latest, so ring once more from the parent.
  BareStore(slice.client(0), 43);
  EXPECT_TRUE(WaitFor([&] { return sleeper.seen() == 43; }));
}

}  // namespace
}  // namespace hipmem::kfd_sim
