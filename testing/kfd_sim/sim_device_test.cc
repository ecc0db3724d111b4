// The device and queue controls through the raw ioctl ABI: SET_XNACK_MODE, RUNTIME_ENABLE, GET_TILE_CONFIG,
// SET_MEMORY_POLICY, SET_TRAP_HANDLER, SET_CU_MASK and ALLOC_QUEUE_GWS, each with the errno amdkfd answers for
// bad input, in amdkfd's order of checks.
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
using ::hipmem_testing::AcquireAllVms;
using ::hipmem_testing::Alloc;
using ::hipmem_testing::AllocResult;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::Map;
using ::testing::Each;
using ::testing::HasSubstr;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;

constexpr AllocMemFlags kGtt = AllocMemFlags::kGtt | AllocMemFlags::kWritable | AllocMemFlags::kNoSubstitute;
constexpr uint32_t kRingBytes = 4096;

Topology Preset(absl::string_view name) {
  absl::StatusOr<Topology> topology = PresetTopology(name);
  EXPECT_TRUE(topology.ok()) << topology.status();
  return *std::move(topology);
}

class SimDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(DefaultTopology()); }

  void Open(Topology topology) {
    file_.reset();
    sim_ = MakeSimulator(std::move(topology));
    file_ = sim_->Open();
    AcquireAllVms(*sim_, *file_);
    gpu_ = sim_->topology().gpus[0].gpu_id;
  }

  // Creates an SDMA queue on `gpu_id` (default: the first GPU) over a fresh GPU-mapped ring; returns its id.
  uint32_t CreateQueue(uint32_t gpu_id = 0) {
    if (gpu_id == 0) gpu_id = gpu_;
    const uint64_t ring_va = next_va_;
    const uint64_t pointers_va = next_va_ + Bytes::MiB(2).raw();
    next_va_ += Bytes::MiB(4).raw();
    for (uint64_t va : {ring_va, pointers_va}) {
      const AllocResult r = Alloc(*file_, gpu_id, va, Bytes(kRingBytes), kGtt);
      EXPECT_EQ(r.ret, 0);
      EXPECT_EQ(Map(*file_, r.handle, {gpu_id}).ret, 0);
    }
    uapi::CreateQueueArgs args{};
    args.ring_base_address = ring_va;
    args.read_pointer_address = pointers_va;
    args.write_pointer_address = pointers_va + 8;
    args.ring_size = kRingBytes;
    args.gpu_id = gpu_id;
    args.queue_type = static_cast<uint32_t>(uapi::QueueType::kSdma);
    args.queue_percentage = 100;
    EXPECT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);
    return args.queue_id;
  }

  int DestroyQueue(uint32_t id) {
    uapi::DestroyQueueArgs args{.queue_id = id, .pad = 0};
    return Ioctl(*file_, uapi::kDestroyQueue, args);
  }

  // SET_XNACK_MODE; `mode` is what the kernel wrote back.
  int SetXnack(int32_t value, int32_t* mode = nullptr) {
    uapi::SetXnackModeArgs args{.xnack_enabled = value};
    const int ret = Ioctl(*file_, uapi::kSetXnackMode, args);
    if (mode != nullptr) *mode = args.xnack_enabled;
    return ret;
  }
  int32_t XnackMode() {
    int32_t mode = -2;
    EXPECT_EQ(SetXnack(-1, &mode), 0);
    return mode;
  }

  int Runtime(uint32_t mode_mask, uint32_t* caps = nullptr) {
    uapi::RuntimeEnableArgs args{.r_debug = 0x1000, .mode_mask = mode_mask, .capabilities_mask = caps ? *caps : 0};
    const int ret = Ioctl(*file_, uapi::kRuntimeEnable, args);
    if (caps != nullptr) *caps = args.capabilities_mask;
    return ret;
  }

  int SetCuMask(uint32_t queue_id, uint32_t bits, const uint32_t* mask) {
    uapi::SetCuMaskArgs args{.queue_id = queue_id, .num_cu_mask = bits, .cu_mask_ptr = reinterpret_cast<uintptr_t>(mask)};
    return Ioctl(*file_, uapi::kSetCuMask, args);
  }

  int AllocGws(uint32_t queue_id, uint32_t num_gws, uint32_t* first = nullptr) {
    uapi::AllocQueueGwsArgs args{.queue_id = queue_id, .num_gws = num_gws, .first_gws = 0xdead, .pad = 0};
    const int ret = Ioctl(*file_, uapi::kAllocQueueGws, args);
    if (first != nullptr) *first = args.first_gws;
    return ret;
  }

  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> file_;
  uint32_t gpu_ = 0;
  uint64_t next_va_ = kTestVa;
};

// ---- SET_XNACK_MODE ----

TEST_F(SimDeviceTest, XnackStartsOffAndQueryChangesNothing) {
  EXPECT_EQ(XnackMode(), 0);
  EXPECT_EQ(XnackMode(), 0);
  EXPECT_FALSE(sim_->Snapshot().processes[0].xnack_enabled);
}

TEST_F(SimDeviceTest, XnackEnablesOnGfx942AndTheProcessReportsIt) {
  EXPECT_EQ(SetXnack(1), 0);
  EXPECT_EQ(XnackMode(), 1);
  EXPECT_TRUE(sim_->Snapshot().processes[0].xnack_enabled);
  EXPECT_THAT(FormatSnapshot(sim_->Snapshot()), HasSubstr("XNACK:                   on"));
  EXPECT_EQ(SetXnack(0), 0);
  EXPECT_EQ(XnackMode(), 0);
}

TEST_F(SimDeviceTest, XnackCannotChangeWhileQueuesLive) {
  const uint32_t queue = CreateQueue();
  EXPECT_EQ(SetXnack(1), -EBUSY);
  // The kernel checks for queues before comparing modes: even a no-op change is refused.
  EXPECT_EQ(SetXnack(0), -EBUSY);
  EXPECT_EQ(XnackMode(), 0) << "a query is always allowed";
  ASSERT_EQ(DestroyQueue(queue), 0);
  EXPECT_EQ(SetXnack(1), 0);
}

TEST_F(SimDeviceTest, XnackIsRefusedOnGpusWithoutPerProcessRetry) {
  for (const char* preset : {"mi100", "rx7900xtx"}) {
    SCOPED_TRACE(preset);
    Open(Preset(preset));
    EXPECT_EQ(SetXnack(1), -EPERM);
    EXPECT_EQ(XnackMode(), 0);
    EXPECT_EQ(SetXnack(0), 0) << "XNACK off is always possible";
  }
  Open(Preset("mi250x"));
  EXPECT_EQ(SetXnack(1), 0) << "gfx90a switches per process";
}

// ---- RUNTIME_ENABLE ----

TEST_F(SimDeviceTest, RuntimeEnablesOnceUntilDisabled) {
  EXPECT_EQ(Runtime(uapi::kRuntimeEnableModeEnableMask), 0);
  EXPECT_EQ(Runtime(uapi::kRuntimeEnableModeEnableMask | uapi::kRuntimeEnableModeTtmpSaveMask), -EBUSY);
  EXPECT_EQ(Runtime(0), 0);
  EXPECT_EQ(Runtime(0), 0) << "disabling a disabled runtime is harmless";
  EXPECT_EQ(Runtime(uapi::kRuntimeEnableModeEnableMask), 0);
}

TEST_F(SimDeviceTest, RuntimeEnableAfterTheFirstQueueIsRefused) {
  CreateQueue();
  EXPECT_EQ(Runtime(uapi::kRuntimeEnableModeEnableMask), -EEXIST);
  EXPECT_EQ(Runtime(0), 0);
}

TEST_F(SimDeviceTest, RuntimeEnableLeavesCapabilitiesAsPassed) {
  uint32_t caps = 0;
  EXPECT_EQ(Runtime(uapi::kRuntimeEnableModeEnableMask, &caps), 0);
  EXPECT_EQ(caps, 0u) << "no core dump or other capability is claimed";
}

// ---- GET_TILE_CONFIG ----

TEST_F(SimDeviceTest, TileConfigReportsGbAddrConfigAndZeroedArrays) {
  std::vector<uint32_t> tiles(40, 0xffffffff);
  std::vector<uint32_t> macro(40, 0xffffffff);
  uapi::GetTileConfigArgs args{};
  args.tile_config_ptr = reinterpret_cast<uintptr_t>(tiles.data());
  args.macro_tile_config_ptr = reinterpret_cast<uintptr_t>(macro.data());
  args.num_tile_configs = 40;
  args.num_macro_tile_configs = 40;
  args.gpu_id = gpu_;
  args.num_banks = args.num_ranks = 0xdead;
  ASSERT_EQ(Ioctl(*file_, uapi::kGetTileConfig, args), 0);
  EXPECT_EQ(args.gb_addr_config, 0x2a114042u) << "gfx942";
  EXPECT_EQ(args.num_tile_configs, 32u);
  EXPECT_EQ(args.num_macro_tile_configs, 16u);
  EXPECT_EQ(args.num_banks, 0u);
  EXPECT_EQ(args.num_ranks, 0u);
  EXPECT_THAT(std::vector<uint32_t>(tiles.begin(), tiles.begin() + 32), Each(0u));
  EXPECT_EQ(tiles[32], 0xffffffffu) << "nothing past the kernel's count";
  EXPECT_THAT(std::vector<uint32_t>(macro.begin(), macro.begin() + 16), Each(0u));
  EXPECT_EQ(macro[16], 0xffffffffu);
}

TEST_F(SimDeviceTest, TileConfigWithoutArraysNeedsNoPointers) {
  Open(Preset("mi250x"));
  uapi::GetTileConfigArgs args{};
  args.gpu_id = gpu_;
  ASSERT_EQ(Ioctl(*file_, uapi::kGetTileConfig, args), 0);
  EXPECT_EQ(args.gb_addr_config, 0x22014042u) << "gfx90a";
  EXPECT_EQ(args.num_tile_configs, 0u);
}

TEST_F(SimDeviceTest, TileConfigRefusesUnknownGpuAndBadArray) {
  uapi::GetTileConfigArgs args{};
  args.gpu_id = 0x1234;
  EXPECT_EQ(Ioctl(*file_, uapi::kGetTileConfig, args), -EINVAL);

  args = {};
  args.gpu_id = gpu_;
  args.num_tile_configs = 4;
  args.tile_config_ptr = 0x10;  // unmapped
  EXPECT_EQ(Ioctl(*file_, uapi::kGetTileConfig, args), -EFAULT);
  EXPECT_EQ(args.num_tile_configs, 0u) << "a failed copy reports nothing written";
}

TEST_F(SimDeviceTest, TileConfigNeedsNoAcquiredVm) {
  std::unique_ptr<SimFile> fresh = sim_->Open();
  uapi::GetTileConfigArgs args{};
  args.gpu_id = gpu_;
  EXPECT_EQ(Ioctl(*fresh, uapi::kGetTileConfig, args), 0);
}

// ---- SET_MEMORY_POLICY / SET_TRAP_HANDLER ----

TEST_F(SimDeviceTest, MemoryPolicyChecksPoliciesThenGpuThenBinding) {
  uapi::SetMemoryPolicyArgs args{};
  args.gpu_id = 0x1234;
  args.default_policy = 2;
  EXPECT_EQ(Ioctl(*file_, uapi::kSetMemoryPolicy, args), -EINVAL) << "bad policy first";
  args.default_policy = uapi::ToRaw(uapi::CachePolicy::kNoncoherent);
  args.alternate_policy = 7;
  EXPECT_EQ(Ioctl(*file_, uapi::kSetMemoryPolicy, args), -EINVAL);
  args.alternate_policy = uapi::ToRaw(uapi::CachePolicy::kCoherent);
  EXPECT_EQ(Ioctl(*file_, uapi::kSetMemoryPolicy, args), -EINVAL) << "unknown gpu";

  std::unique_ptr<SimFile> unbound = sim_->Open();
  args.gpu_id = gpu_;
  EXPECT_EQ(Ioctl(*unbound, uapi::kSetMemoryPolicy, args), -ESRCH);
  // gfx9+: any alternate aperture is accepted, as libhsakmt's init sets it up on every dGPU.
  args.alternate_aperture_base = 0x123;
  args.alternate_aperture_size = 0x1;
  EXPECT_EQ(Ioctl(*file_, uapi::kSetMemoryPolicy, args), 0);
}

TEST_F(SimDeviceTest, TrapHandlerChecksGpuThenBinding) {
  uapi::SetTrapHandlerArgs args{.tba_addr = 0x10000, .tma_addr = 0x20000, .gpu_id = 0x1234, .pad = 0};
  EXPECT_EQ(Ioctl(*file_, uapi::kSetTrapHandler, args), -EINVAL);
  std::unique_ptr<SimFile> unbound = sim_->Open();
  args.gpu_id = gpu_;
  EXPECT_EQ(Ioctl(*unbound, uapi::kSetTrapHandler, args), -ESRCH);
  EXPECT_EQ(Ioctl(*file_, uapi::kSetTrapHandler, args), 0);
}

// ---- SET_SCRATCH_BACKING_VA ----

TEST_F(SimDeviceTest, ScratchBackingVaChecksGpuThenBindingAndRecordsTheValue) {
  uapi::SetScratchBackingVaArgs args{.va_addr = 0x7f12'3450'0000 >> 16, .gpu_id = 0x1234, .pad = 0};
  EXPECT_EQ(Ioctl(*file_, uapi::kSetScratchBackingVa, args), -EINVAL) << "unknown gpu";
  std::unique_ptr<SimFile> unbound = sim_->Open();
  args.gpu_id = gpu_;
  EXPECT_EQ(Ioctl(*unbound, uapi::kSetScratchBackingVa, args), -ENODEV) << "no ACQUIRE_VM yet";
  EXPECT_EQ(sim_->Snapshot().processes[0].sh_hidden_private_base, std::vector<uint64_t>{0}) << "nothing recorded";
  EXPECT_EQ(Ioctl(*file_, uapi::kSetScratchBackingVa, args), 0);
  // The kernel records any value; a later call replaces it.
  args.va_addr = 0x7f00'0000'0000 >> 16;
  EXPECT_EQ(Ioctl(*file_, uapi::kSetScratchBackingVa, args), 0);
  const SimSnapshot snapshot = sim_->Snapshot();
  ASSERT_EQ(snapshot.processes.size(), 2u);
  EXPECT_EQ(snapshot.processes[0].sh_hidden_private_base, std::vector<uint64_t>{0x7f00'0000'0000 >> 16});
  EXPECT_EQ(snapshot.processes[1].sh_hidden_private_base, std::vector<uint64_t>{0}) << "per process";
}

// ---- SET_CU_MASK ----

TEST_F(SimDeviceTest, CuMaskSizeRules) {
  const uint32_t queue = CreateQueue();
  const std::vector<uint32_t> mask(32, 0xffffffff);
  EXPECT_EQ(SetCuMask(queue, 0, mask.data()), -EINVAL);
  EXPECT_EQ(SetCuMask(queue, 33, mask.data()), -EINVAL);
  EXPECT_EQ(SetCuMask(queue, 64, mask.data()), 0);
  // Past 1024 bits the kernel reads only the first 1024: a 32-word array is enough for any count.
  EXPECT_EQ(SetCuMask(queue, 4096, mask.data()), 0);
}

TEST_F(SimDeviceTest, CuMaskRefusesBadPointerAndUnknownQueue) {
  const uint32_t queue = CreateQueue();
  const uint32_t mask[1] = {0xff};
  EXPECT_EQ(SetCuMask(queue, 32, nullptr), -EFAULT);
  EXPECT_EQ(SetCuMask(queue + 1, 32, mask), -EFAULT) << "pqm_update_mqd: no such queue";
  ASSERT_EQ(DestroyQueue(queue), 0);
  EXPECT_EQ(SetCuMask(queue, 32, mask), -EFAULT) << "a destroyed queue is unknown";
}

TEST_F(SimDeviceTest, CuMaskOnWgpGpusMustEnableWholePairs) {
  Open(Preset("rx7900xtx"));
  const uint32_t queue = CreateQueue();
  const uint32_t half[1] = {0x1};
  const uint32_t pairs[1] = {0xf};
  EXPECT_EQ(SetCuMask(queue, 32, half), -EINVAL);
  EXPECT_EQ(SetCuMask(queue, 32, pairs), 0);
}

// ---- ALLOC_QUEUE_GWS ----

TEST_F(SimDeviceTest, GwsGoesToOneQueuePerGpu) {
  const uint32_t first = CreateQueue();
  const uint32_t second = CreateQueue();
  uint32_t first_gws = 1;
  EXPECT_EQ(AllocGws(first, 1, &first_gws), 0);
  EXPECT_EQ(first_gws, 0u);
  EXPECT_EQ(AllocGws(second, 1), -EBUSY);
  EXPECT_EQ(AllocGws(first, 0), 0) << "release";
  EXPECT_EQ(AllocGws(first, 0), -EINVAL) << "nothing left to release";
  EXPECT_EQ(AllocGws(second, 1), 0);
}

TEST_F(SimDeviceTest, GwsOfADestroyedQueueIsFreeAgain) {
  const uint32_t holder = CreateQueue();
  const uint32_t other = CreateQueue();
  ASSERT_EQ(AllocGws(holder, 1), 0);
  ASSERT_EQ(DestroyQueue(holder), 0);
  EXPECT_EQ(AllocGws(holder, 1), -EINVAL) << "the id is gone";
  EXPECT_EQ(AllocGws(other, 1), 0);
}

TEST_F(SimDeviceTest, GwsIsPerGpu) {
  Open(Preset("2xmi250x"));
  const uint32_t on_first = CreateQueue(sim_->topology().gpus[0].gpu_id);
  const uint32_t on_second = CreateQueue(sim_->topology().gpus[1].gpu_id);
  EXPECT_EQ(AllocGws(on_first, 1), 0);
  EXPECT_EQ(AllocGws(on_second, 1), 0);
}

TEST_F(SimDeviceTest, GwsOnAGpuWithoutGwsIsNoDevice) {
  Topology topology = DefaultTopology();
  topology.gpus[0].num_gws = 0;
  Open(std::move(topology));
  const uint32_t queue = CreateQueue();
  EXPECT_EQ(AllocGws(queue, 1), -ENODEV);
  EXPECT_EQ(AllocGws(queue + 7, 1), -EINVAL) << "the queue is looked up first";
}

}  // namespace
}  // namespace hipmem::kfd_sim
