// hsaKmtGetClockCounters and its C++ half on simulated machines: the GPU counter runs at the GPU's rate and the
// CPU counters are the kernel's nanosecond clocks; a CPU node has no GPU counter; unknown nodes are refused.
#include "thunk/clock.h"

#include <time.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/kfd.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::StatusIs;

constexpr NodeId kCpuNode(0);
constexpr NodeId kGpuNode(1);

std::unique_ptr<Kfd> OpenOn(const kfd_sim::Topology& topology) {
  absl::StatusOr<std::shared_ptr<SimMachine>> machine = SimMachine::Create(topology);
  EXPECT_TRUE(machine.ok()) << machine.status();
  absl::StatusOr<std::unique_ptr<KfdDevice>> device = OpenSimKfdDevice(*machine);
  EXPECT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<Kfd>> kfd = Kfd::Open(*std::move(device));
  EXPECT_TRUE(kfd.ok()) << kfd.status();
  return *std::move(kfd);
}

uint64_t RawNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

TEST(ClockTest, GpuCounterRunsAtTheGpusRateAgainstTheCpuCounter) {
  absl::StatusOr<kfd_sim::Topology> mi250x = kfd_sim::PresetTopology("mi250x");
  ASSERT_TRUE(mi250x.ok());
  std::unique_ptr<Kfd> kfd = OpenOn(*mi250x);
  ASSERT_NE(kfd, nullptr);
  const uint64_t before = RawNs();
  absl::StatusOr<ClockCounters> first = GetClockCounters(*kfd, kGpuNode);
  ASSERT_TRUE(first.ok()) << first.status();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  absl::StatusOr<ClockCounters> second = GetClockCounters(*kfd, kGpuNode);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->system_clock_frequency_hz, 1'000'000'000u);
  EXPECT_GE(first->cpu_clock_counter, before) << "the CPU counter is CLOCK_MONOTONIC_RAW";
  const double seconds = static_cast<double>(second->cpu_clock_counter - first->cpu_clock_counter) / 1e9;
  const double rate = static_cast<double>(second->gpu_clock_counter - first->gpu_clock_counter) / seconds;
  EXPECT_NEAR(rate, 25e6, 25e6 * 0.05) << "gfx90a's 25 MHz reference clock";
  EXPECT_GT(second->system_clock_counter, first->system_clock_counter);
}

TEST(ClockTest, CpuNodeHasNoGpuCounter) {
  std::unique_ptr<Kfd> kfd = OpenOn(kfd_sim::DefaultTopology());
  ASSERT_NE(kfd, nullptr);
  absl::StatusOr<ClockCounters> counters = GetClockCounters(*kfd, kCpuNode);
  ASSERT_TRUE(counters.ok()) << counters.status();
  EXPECT_EQ(counters->gpu_clock_counter, 0u);
  EXPECT_NE(counters->cpu_clock_counter, 0u);
}

TEST(ClockTest, UnknownNodeIsInvalidNodeUnit) {
  std::unique_ptr<Kfd> kfd = OpenOn(kfd_sim::DefaultTopology());
  ASSERT_NE(kfd, nullptr);
  EXPECT_THAT(GetClockCounters(*kfd, NodeId(7)), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(HsakmtClockTest, GetClockCountersThroughTheCApi) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  HsaClockCounters counters{};
  EXPECT_EQ(hsaKmtGetClockCounters(1, &counters), HSAKMT_STATUS_SUCCESS);
  EXPECT_NE(counters.GPUClockCounter, 0u);
  EXPECT_EQ(counters.SystemClockFrequencyHz, 1'000'000'000u);
  EXPECT_EQ(hsaKmtGetClockCounters(99, &counters), HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(hsaKmtGetClockCounters(1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtGetClockCounters(1, &counters), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
}

}  // namespace
}  // namespace hipmem::thunk
