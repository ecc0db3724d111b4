// The device and queue controls through the thunk's C++ API on simulated machines: each call's success path and
// the HSAKMT_STATUS libhsakmt answers when the kernel (or libhsakmt itself) refuses.
#include "thunk/device_controls.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/events.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/kfd_testing.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"
#include "thunk/queues.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;
using ::testing::Each;

constexpr NodeId kCpuNode(0);
constexpr NodeId kGpuNode(1);
constexpr NodeId kNoSuchNode(99);
constexpr MemFlags kHostVisible = MemFlags::kNonPaged | MemFlags::kHostAccess;
constexpr Bytes kRing = Bytes::KiB(4);
// HSA_CAPABILITY.DebugSupportedFirmware.
constexpr uint32_t kCapDebugSupportedFirmware = 1u << 29;

HSAKMT_STATUS Code(const absl::Status& status) { return ToHsakmtStatus(status); }

kfd_sim::Topology Preset(absl::string_view name) {
  absl::StatusOr<kfd_sim::Topology> topology = kfd_sim::PresetTopology(name);
  EXPECT_THAT(topology, IsOk());
  return *std::move(topology);
}

class DeviceControlsTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(kfd_sim::DefaultTopology()); }

  void Open(const kfd_sim::Topology& topology) {
    kfd_.reset();
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(topology));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> device, OpenSimKfdDevice(machine_));
    ASSERT_OK_AND_ASSIGN(kfd_, Kfd::Open(std::move(device)));
  }

  // An SDMA queue on the GPU node over a fresh GPU-mapped ring.
  Queue NewQueue() {
    absl::StatusOr<DeviceAddress> ring = Unowned(kfd_->AllocMemory(kCpuNode, kRing, kHostVisible));
    EXPECT_THAT(ring, IsOk());
    EXPECT_THAT(kfd_->MapMemoryToGpu(*ring), IsOk());
    absl::StatusOr<Queue> queue = Queue::Create(
        *kfd_, QueueSpec{.node = kGpuNode, .type = QueueType::kSdma, .ring = *ring, .ring_size = kRing});
    EXPECT_THAT(queue, IsOk());
    return *std::move(queue);
  }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<Kfd> kfd_;
};

// ---- XNACK ----

TEST_F(DeviceControlsTest, XnackRoundTripsOnGfx942) {
  EXPECT_THAT(GetXnackMode(*kfd_), IsOkAndHolds(false));
  ASSERT_THAT(SetXnackMode(*kfd_, true), IsOk());
  EXPECT_THAT(GetXnackMode(*kfd_), IsOkAndHolds(true));
  ASSERT_THAT(SetXnackMode(*kfd_, false), IsOk());
  EXPECT_THAT(GetXnackMode(*kfd_), IsOkAndHolds(false));
}

TEST_F(DeviceControlsTest, XnackOnGfx908IsNotSupported) {
  Open(Preset("mi100"));
  const absl::Status status = SetXnackMode(*kfd_, true);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_EQ(Code(status), HSAKMT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(GetXnackMode(*kfd_), IsOkAndHolds(false));
}

TEST_F(DeviceControlsTest, XnackWithLiveQueuesIsAnError) {
  Queue queue = NewQueue();
  EXPECT_EQ(Code(SetXnackMode(*kfd_, true)), HSAKMT_STATUS_ERROR);
  ASSERT_THAT(std::move(queue).Destroy(), IsOk());
  EXPECT_THAT(SetXnackMode(*kfd_, true), IsOk());
}

// ---- runtime enable ----

// The presets publish no debugger firmware (hipmem models no debugger), so libhsakmt's support check refuses
// before any ioctl; the kernel's RUNTIME_ENABLE state machine is reached on a machine that claims the firmware.
kfd_sim::Topology WithDebuggerFirmware() {
  kfd_sim::Topology topology = kfd_sim::DefaultTopology();
  for (kfd_sim::GpuConfig& gpu : topology.gpus) gpu.capability |= kCapDebugSupportedFirmware;
  return topology;
}

TEST_F(DeviceControlsTest, RuntimeEnablesOnceAndReportsNoCapabilities) {
  Open(WithDebuggerFirmware());
  EXPECT_THAT(RuntimeEnable(*kfd_, 0x1000, false), IsOkAndHolds(0u));
  EXPECT_EQ(Code(RuntimeEnable(*kfd_, 0x1000, true).status()), HSAKMT_STATUS_UNAVAILABLE);
  ASSERT_THAT(RuntimeDisable(*kfd_), IsOk());
  EXPECT_THAT(RuntimeEnable(*kfd_, 0x1000, true), IsOk());
}

TEST_F(DeviceControlsTest, RuntimeEnableAfterAQueueIsAnError) {
  Open(WithDebuggerFirmware());
  Queue queue = NewQueue();
  EXPECT_EQ(Code(RuntimeEnable(*kfd_, 0, false).status()), HSAKMT_STATUS_ERROR);
}

TEST_F(DeviceControlsTest, RuntimeEnableWithoutDebuggerFirmwareIsNotSupported) {
  EXPECT_EQ(Code(RuntimeEnable(*kfd_, 0, false).status()), HSAKMT_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(Code(RuntimeDisable(*kfd_)), HSAKMT_STATUS_NOT_SUPPORTED);
}

// ---- tile config ----

TEST_F(DeviceControlsTest, TileConfigFillsWhatTheKernelHas) {
  std::vector<uint32_t> tiles(64, 0xffffffff);
  std::vector<uint32_t> macro(64, 0xffffffff);
  ASSERT_OK_AND_ASSIGN(const TileConfig config, GetTileConfig(*kfd_, kGpuNode, tiles, macro));
  EXPECT_EQ(config.gb_addr_config, 0x2a114042u);
  EXPECT_EQ(config.num_tile_configs, 32u);
  EXPECT_EQ(config.num_macro_tile_configs, 16u);
  EXPECT_EQ(config.num_banks, 0u);
  EXPECT_THAT(std::vector<uint32_t>(tiles.begin(), tiles.begin() + 32), Each(0u));
}

TEST_F(DeviceControlsTest, TileConfigRefusesCpuAndUnknownNodes) {
  EXPECT_EQ(Code(GetTileConfig(*kfd_, kCpuNode, {}, {}).status()), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(Code(GetTileConfig(*kfd_, kNoSuchNode, {}, {}).status()), HSAKMT_STATUS_INVALID_NODE_UNIT);
}

// ---- memory policy and trap handler ----

TEST_F(DeviceControlsTest, MemoryPolicyIsKaveriOnly) {
  EXPECT_EQ(Code(SetMemoryPolicy(*kfd_, kGpuNode, 0, 1, DeviceAddress(0), Bytes(0))), HSAKMT_STATUS_NOT_IMPLEMENTED);
  EXPECT_EQ(Code(SetMemoryPolicy(*kfd_, kNoSuchNode, 0, 1, DeviceAddress(0), Bytes(0))),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
}

TEST_F(DeviceControlsTest, KernelCachePolicyGoesToTheGpu) {
  EXPECT_THAT(SetKernelCachePolicy(*kfd_, kGpuNode, false, true, DeviceAddress(0x100000), Bytes::MiB(1)), IsOk());
  EXPECT_EQ(Code(SetKernelCachePolicy(*kfd_, kCpuNode, false, true, DeviceAddress(0), Bytes(0))),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
}

TEST_F(DeviceControlsTest, TrapHandlerNeedsAGpuNode) {
  EXPECT_THAT(SetTrapHandler(*kfd_, kGpuNode, DeviceAddress(0x10000), DeviceAddress(0x20000)), IsOk());
  EXPECT_EQ(Code(SetTrapHandler(*kfd_, kCpuNode, DeviceAddress(0x10000), DeviceAddress(0))), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(Code(SetTrapHandler(*kfd_, kNoSuchNode, DeviceAddress(0), DeviceAddress(0))),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
}

// ---- CU mask and GWS ----

TEST_F(DeviceControlsTest, CuMaskAppliesToALiveQueue) {
  Queue queue = NewQueue();
  const std::vector<uint32_t> mask = {0xffff, 0};
  EXPECT_THAT(SetQueueCuMask(*kfd_, queue, mask), IsOk());
  EXPECT_EQ(Code(SetQueueCuMask(*kfd_, queue, {})), HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_F(DeviceControlsTest, CuMaskSplittingAWgpIsRefusedOnGfx11) {
  Open(Preset("rx7900xtx"));
  Queue queue = NewQueue();
  const std::vector<uint32_t> half = {0x2};
  EXPECT_EQ(Code(SetQueueCuMask(*kfd_, queue, half)), HSAKMT_STATUS_ERROR);
  const std::vector<uint32_t> pair = {0x3};
  EXPECT_THAT(SetQueueCuMask(*kfd_, queue, pair), IsOk());
}

TEST_F(DeviceControlsTest, GwsErrorsMapAsLibhsakmt) {
  Queue first = NewQueue();
  Queue second = NewQueue();
  EXPECT_THAT(AllocQueueGws(*kfd_, first, 1), IsOkAndHolds(0u));
  EXPECT_EQ(Code(AllocQueueGws(*kfd_, second, 1).status()), HSAKMT_STATUS_OUT_OF_RESOURCES);
  EXPECT_THAT(AllocQueueGws(*kfd_, first, 0), IsOk());
  EXPECT_EQ(Code(AllocQueueGws(*kfd_, first, 0).status()), HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_F(DeviceControlsTest, GwsOnAGpuWithoutGwsIsNotSupported) {
  kfd_sim::Topology topology = kfd_sim::DefaultTopology();
  topology.gpus[0].num_gws = 0;
  Open(topology);
  Queue queue = NewQueue();
  EXPECT_EQ(Code(AllocQueueGws(*kfd_, queue, 1).status()), HSAKMT_STATUS_NOT_SUPPORTED);
}

// ---- event age ----

TEST_F(DeviceControlsTest, EventAgeCompletesAWaitForASetSinceSeen) {
  ASSERT_OK_AND_ASSIGN(const EventHandle event,
                       CreateEvent(*kfd_, EventDescriptor{.type = EventType::kSignal, .manual_reset = true}));
  const std::vector<EventHandle> events = {event};
  // A fresh event has age 1. Setting then resetting it leaves it unsignaled but one age older: a waiter that
  // last saw age 1 must not sleep through the set it missed.
  ASSERT_THAT(SetEvent(*kfd_, event), IsOk());
  ASSERT_THAT(ResetEvent(*kfd_, event), IsOk());
  std::vector<uint64_t> ages = {1};
  EXPECT_THAT(WaitOnEvents(*kfd_, events, WaitMode::kAll, absl::ZeroDuration(), ages), IsOk());
  EXPECT_EQ(ages[0], 2u);
  // Now up to date: nothing new, so the poll times out and the age stays.
  EXPECT_THAT(WaitOnEvents(*kfd_, events, WaitMode::kAll, absl::ZeroDuration(), ages),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_EQ(ages[0], 2u);
  // Without ages the unsignaled event times out too: the age is what completed the first wait.
  EXPECT_THAT(WaitOnEvents(*kfd_, events, WaitMode::kAll, absl::ZeroDuration()),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  ASSERT_THAT(DestroyEvent(*kfd_, event.id), IsOk());
}

TEST_F(DeviceControlsTest, EventAgesMustMatchTheEvents) {
  ASSERT_OK_AND_ASSIGN(const EventHandle event, CreateEvent(*kfd_, EventDescriptor{.type = EventType::kSignal}));
  const std::vector<EventHandle> events = {event};
  std::vector<uint64_t> ages = {1, 1};
  EXPECT_EQ(Code(WaitOnEvents(*kfd_, events, WaitMode::kAll, absl::ZeroDuration(), ages).status()),
            HSAKMT_STATUS_INVALID_PARAMETER);
  ASSERT_THAT(DestroyEvent(*kfd_, event.id), IsOk());
}

}  // namespace
}  // namespace hipmem::thunk
