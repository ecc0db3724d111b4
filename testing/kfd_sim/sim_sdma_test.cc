// The SDMA engine and the GPU clock through the simulator's raw ABI, as kfdtest drives them: GET_CLOCK_COUNTERS,
// GET_GLOBAL_TIMESTAMP and WRITE_LINEAR packets on an SDMA queue, the queue's SDMA generation following its GPU,
// and an illegal packet halting the queue with a kernel log line and a HW_EXCEPTION event.
#include <dirent.h>
#include <sys/mman.h>
#include <time.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "gpu_abi/sdma_packets.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/engines/doorbell.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/raw_sdma_fixture.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
namespace sdma = ::hipmem::gpu_abi::sdma;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::kDoorbellSlice;

uint64_t ClockNs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

Topology Preset(const std::string& name) {
  absl::StatusOr<Topology> topology = PresetTopology(name);
  EXPECT_TRUE(topology.ok()) << topology.status();
  return topology.ok() ? *std::move(topology) : DefaultTopology();
}

class SimSdmaTest : public hipmem_testing::RawSdmaFixture {
 protected:
  uapi::GetClockCountersArgs Clocks(uint32_t gpu_id) {
    uapi::GetClockCountersArgs args{};
    args.gpu_id = gpu_id;
    EXPECT_EQ(Ioctl(*file_, uapi::kGetClockCounters, args), 0);
    return args;
  }

  // Waits (up to 10 s) until the engine's read pointer reaches the write pointer, as kfdtest's
  // Wait4PacketConsumption does; false when it does not.
  bool WaitForConsumption() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (Rptr() != wptr_) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return true;
  }

  // Rings the doorbell and waits for the engine to consume everything.
  bool SubmitAndDrain() {
    Submit();
    return WaitForConsumption();
  }

  SimQueue OnlyQueue() { return hipmem_testing::OnlyQueue(*sim_); }
};

TEST_F(SimSdmaTest, GpuClockAdvancesAtThePresetsRate) {
  struct Row {
    const char* preset;
    uint64_t hz;
  };
  constexpr Row kRows[] = {{"mi300x", 100'000'000}, {"mi250x", 25'000'000}, {"mi100", 25'000'000},
                           {"rx7900xtx", 100'000'000}};
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.preset);
    Open(Preset(row.preset));
    EXPECT_EQ(sim_->topology().gpus[0].gpu_clock_counter_hz, row.hz);
    const uapi::GetClockCountersArgs first = Clocks(gpu_);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const uapi::GetClockCountersArgs second = Clocks(gpu_);
    const double cpu_s = static_cast<double>(second.cpu_clock_counter - first.cpu_clock_counter) / 1e9;
    ASSERT_GE(cpu_s, 0.019);
    const double rate = static_cast<double>(second.gpu_clock_counter - first.gpu_clock_counter) / cpu_s;
    EXPECT_NEAR(rate, static_cast<double>(row.hz), 0.05 * static_cast<double>(row.hz));
  }
}

TEST_F(SimSdmaTest, ClockCountersReportTheKernelsCpuClocksInNanoseconds) {
  Open(DefaultTopology());
  const uint64_t raw_before = ClockNs(CLOCK_MONOTONIC_RAW);
  const uint64_t boot_before = ClockNs(CLOCK_BOOTTIME);
  const uapi::GetClockCountersArgs args = Clocks(gpu_);
  const uint64_t raw_after = ClockNs(CLOCK_MONOTONIC_RAW);
  const uint64_t boot_after = ClockNs(CLOCK_BOOTTIME);
  EXPECT_EQ(args.system_clock_freq, 1'000'000'000u);
  EXPECT_GE(args.cpu_clock_counter, raw_before);
  EXPECT_LE(args.cpu_clock_counter, raw_after);
  EXPECT_GE(args.system_clock_counter, boot_before);
  EXPECT_LE(args.system_clock_counter, boot_after);
  EXPECT_NE(args.gpu_clock_counter, 0u);
}

TEST_F(SimSdmaTest, ClockCountersOfAGpuIdWithoutAGpuHaveNoGpuCounter) {
  Open(DefaultTopology());
  uapi::GetClockCountersArgs args{};
  args.gpu_id = 0;  // libhsakmt's gpu_id for a CPU node
  args.gpu_clock_counter = 123;
  ASSERT_EQ(Ioctl(*file_, uapi::kGetClockCounters, args), 0);
  EXPECT_EQ(args.gpu_clock_counter, 0u);
  EXPECT_NE(args.cpu_clock_counter, 0u);
}

// kfdtest's SDMA timestamp check: GPU timestamps from the queue lie between clock counters read before and after.
TEST_F(SimSdmaTest, TimestampPacketsLieBetweenClockCountersReadAroundThem) {
  Open(Preset("mi250x"));
  CreateSdmaQueue();
  const Buffer stamps = NewBuffer(Bytes::KiB(4));
  const uint64_t before = Clocks(gpu_).gpu_clock_counter;
  Push(sdma::MakeTimestamp(stamps.va));
  Push(sdma::MakeTimestamp(stamps.va + 32));
  ASSERT_TRUE(SubmitAndDrain());
  const uint64_t after = Clocks(gpu_).gpu_clock_counter;
  const auto* ts = reinterpret_cast<const uint64_t*>(stamps.cpu);
  EXPECT_LE(before, ts[0]);
  EXPECT_LE(ts[0], ts[4]);
  EXPECT_LE(ts[4], after);
}

TEST_F(SimSdmaTest, WriteLinearThroughTheQueueWritesTheDwords) {
  Open(DefaultTopology());
  CreateSdmaQueue();
  const Buffer dst = NewBuffer(Bytes::KiB(4));
  Push(sdma::MakeWrite<4>(dst.va + 8, {1, 2, 3, 4}));
  ASSERT_TRUE(SubmitAndDrain());
  const auto* d = reinterpret_cast<const uint32_t*>(dst.cpu);
  EXPECT_EQ(d[1], 0u);
  EXPECT_EQ(d[2], 1u);
  EXPECT_EQ(d[5], 4u);
  EXPECT_EQ(d[6], 0u);
}

// kfdtest's DisableSdmaQueueByUpdateWithNullAddress: a ring address of 0 disables the queue; re-enabled with its
// ring, it runs what was submitted meanwhile with no second doorbell (kfdtest only polls the read pointer).
TEST_F(SimSdmaTest, UpdateWithANullRingDisablesTheQueueAndReenablingRunsWhatWasSubmitted) {
  Open(DefaultTopology());
  CreateSdmaQueue();
  const Buffer dst = NewBuffer(Bytes::KiB(4));
  auto* word = reinterpret_cast<uint32_t*>(dst.cpu);
  Push(sdma::MakeWrite<1>(dst.va, {1}));
  ASSERT_TRUE(SubmitAndDrain());
  ASSERT_EQ(std::atomic_ref<uint32_t>(*word).load(), 1u);
  std::atomic_ref<uint32_t>(*word).store(0);

  uapi::UpdateQueueArgs disable{.ring_base_address = 0, .queue_id = queue_id_, .ring_size = kRingBytes,
                                .queue_percentage = 100, .queue_priority = 7};
  ASSERT_EQ(Ioctl(*file_, uapi::kUpdateQueue, disable), 0);
  EXPECT_FALSE(OnlyQueue().active);
  const uint64_t rptr = Rptr();
  Push(sdma::MakeWrite<1>(dst.va, {1}));
  Submit();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(std::atomic_ref<uint32_t>(*word).load(), 0u) << "a disabled queue runs nothing";
  EXPECT_EQ(Rptr(), rptr);

  uapi::UpdateQueueArgs enable = disable;
  enable.ring_base_address = ring_.va;
  ASSERT_EQ(Ioctl(*file_, uapi::kUpdateQueue, enable), 0);
  EXPECT_TRUE(OnlyQueue().active);
  ASSERT_TRUE(WaitForConsumption());
  EXPECT_EQ(std::atomic_ref<uint32_t>(*word).load(), 1u);
}

TEST_F(SimSdmaTest, IllegalPacketHaltsTheQueueLogsAndRaisesHwException) {
  Open(DefaultTopology());
  uapi::CreateEventArgs event{};
  event.event_type = uapi::ToRaw(uapi::EventType::kHwException);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateEvent, event), 0);
  CreateSdmaQueue();
  const Buffer fence = NewBuffer(Bytes::KiB(4));
  Push(sdma::MakeFence(fence.va, 1));
  const uint32_t bad[2] = {0x7e, 0};
  Push(bad);
  Push(sdma::MakeFence(fence.va, 2));
  auto* word = reinterpret_cast<uint64_t*>(doorbells_->bytes() + (doorbell_offset_ & (kDoorbellSlice.raw() - 1)));
  RingDoorbell(word, wptr_);

  uapi::EventData data{};
  data.event_id = event.event_id;
  uapi::WaitEventsArgs wait{};
  wait.events_ptr = reinterpret_cast<uintptr_t>(&data);
  wait.num_events = 1;
  wait.wait_for_all = 1;
  wait.timeout = 10000;
  ASSERT_EQ(Ioctl(*file_, uapi::kWaitEvents, wait), 0);
  EXPECT_EQ(wait.wait_result, uapi::ToRaw(uapi::WaitResult::kComplete));

  const SimQueue q = OnlyQueue();
  EXPECT_TRUE(q.halted);
  EXPECT_EQ(q.read_pointer, sizeof(sdma::Fence)) << "the queue stops on the illegal packet";
  EXPECT_EQ(std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(fence.cpu)).load(), 1u);
  bool logged = false;
  for (const SimLogLine& line : sim_->Log()) {
    if (line.text.find("Illegal instruction in SDMA command stream: unknown opcode 126") != std::string::npos &&
        line.text.find("sdma queue 0") != std::string::npos) {
      logged = true;
      EXPECT_EQ(line.level, SimLogLevel::kError);
    }
  }
  EXPECT_TRUE(logged) << sim_->Dmesg();
}

// The queue decodes its GPU's SDMA generation: GCR_REQ is a gfx10+ packet, illegal on gfx942's SDMA 4.4.
TEST_F(SimSdmaTest, QueueDecodesItsGpusSdmaGeneration) {
  struct Row {
    const char* preset;
    bool gcr_legal;
  };
  constexpr Row kRows[] = {{"mi300x", false}, {"rx7900xtx", true}};
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.preset);
    wptr_ = 0;
    Open(Preset(row.preset));
    CreateSdmaQueue();
    Push(sdma::GcrReq{});
    if (row.gcr_legal) {
      EXPECT_TRUE(SubmitAndDrain());
      EXPECT_FALSE(OnlyQueue().halted);
    } else {
      auto* word = reinterpret_cast<uint64_t*>(doorbells_->bytes() + (doorbell_offset_ & (kDoorbellSlice.raw() - 1)));
      RingDoorbell(word, wptr_);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!OnlyQueue().halted && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      EXPECT_TRUE(OnlyQueue().halted);
    }
  }
}

// A raw client's COPY_LINEAR_SUB_WINDOW, its 13 dwords written by hand from the packet's documented layout, through
// the KFD's SDMA queue and the GPU page table: the box lands and nothing around it moves.
TEST_F(SimSdmaTest, CopyLinearSubWindowThroughTheQueueCopiesTheBox) {
  Open(DefaultTopology());
  CreateSdmaQueue();
  const Buffer src = NewBuffer(Bytes::KiB(4));
  const Buffer dst = NewBuffer(Bytes::KiB(4));
  for (int i = 0; i < 4096; ++i) src.cpu[i] = static_cast<char>(i * 7 + 1);
  std::memset(dst.cpu, 0x5a, 4096);
  // 2-byte elements: from (x 4, y 1) of a 96-byte pitched source to (x 2, y 3) of a 64-byte pitched
  // destination, 10 elements (20 bytes) wide and 5 rows high.
  const uint32_t packet[13] = {
      1u | (4u << 8) | (1u << 29),
      static_cast<uint32_t>(src.va), static_cast<uint32_t>(src.va >> 32),
      4u | (1u << 16),
      (96u / 2 - 1) << 13,
      0u,
      static_cast<uint32_t>(dst.va), static_cast<uint32_t>(dst.va >> 32),
      2u | (3u << 16),
      (64u / 2 - 1) << 13,
      0u,
      (10u - 1) | ((5u - 1) << 16),
      0u,
  };
  Push(packet);
  ASSERT_TRUE(SubmitAndDrain());
  std::vector<char> want(4096, 0x5a);
  for (int y = 0; y < 5; ++y) std::memcpy(&want[(3 + y) * 64 + 2 * 2], src.cpu + (1 + y) * 96 + 4 * 2, 20);
  EXPECT_EQ(std::memcmp(dst.cpu, want.data(), 4096), 0);
  EXPECT_FALSE(OnlyQueue().halted);
}

// The threads of this process, as /proc lists them.
int ThreadCount() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int count = 0;
  while (const dirent* entry = readdir(dir)) count += entry->d_name[0] != '.' ? 1 : 0;
  closedir(dir);
  return count;
}

TEST_F(SimSdmaTest, LargeCopyLandsAndItsHostThreadsEndWithTheProcess) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread: large copies are not split";
  Open(DefaultTopology());
  const int before = ThreadCount();
  CreateSdmaQueue();
  constexpr uint64_t kBytes = 2 * uint64_t{sdma::kMaxLinearBytes};
  const Buffer src = NewBuffer(Bytes(kBytes));
  const Buffer dst = NewBuffer(Bytes(kBytes));
  const Buffer fence = NewBuffer(Bytes::KiB(4));
  for (uint64_t i = 0; i < kBytes; ++i) src.cpu[i] = static_cast<char>(i * 13 + (i >> 16));
  std::memset(dst.cpu, 0, kBytes);
  for (uint64_t off = 0; off < kBytes; off += sdma::kMaxLinearBytes) {
    Push(sdma::MakeCopy(dst.va + off, src.va + off, sdma::kMaxLinearBytes));
  }
  Push(sdma::MakeFence(fence.va, 0x600d));
  Submit();
  // The fence is the last packet: once it is seen, every byte of the copies is.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(fence.cpu)).load(std::memory_order_acquire) != 0x600d) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the fence never landed";
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  EXPECT_EQ(std::memcmp(dst.cpu, src.cpu, kBytes), 0);
  EXPECT_GT(ThreadCount(), before + 1) << "the engine thread alone: the copy was not split";
  // Closing /dev/kfd tears the device down, its copy workers with it: no thread of it lives on to the process's exit.
  file_.reset();
  const auto close_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (ThreadCount() > before && std::chrono::steady_clock::now() < close_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a joined thread leaves /proc a moment later
  }
  EXPECT_LE(ThreadCount(), before);
}

}  // namespace
}  // namespace hipmem::kfd_sim
