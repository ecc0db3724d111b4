// KfdBuffer and VaReservation, the owners every allocation is built from, against a simulated KFD process.
#include "thunk/kfd_buffer.h"

#include <memory>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/ioctl.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

const uint32_t kVramFlags = kfd_uapi::ToRaw(kfd_uapi::AllocMemFlags::kVram | kfd_uapi::AllocMemFlags::kWritable);

class KfdBufferTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(kfd_sim::DefaultTopology()));
    ASSERT_OK_AND_ASSIGN(device_, OpenSimKfdDevice(machine_));
    sim_id_ = machine_->simulator().Snapshot().processes.back().id;
    const kfd_sim::GpuConfig& gpu = machine_->simulator().topology().gpus[0];
    gpu_ = GpuId(gpu.gpu_id);
    ASSERT_OK_AND_ASSIGN(render_fd_, device_->OpenRenderNode(gpu.drm_render_minor));
    kfd_uapi::AcquireVmArgs acquire{static_cast<uint32_t>(render_fd_), gpu.gpu_id};
    ASSERT_THAT(Ioctl(*device_, kfd_uapi::kAcquireVm, acquire), IsOk());
  }
  void TearDown() override {
    if (device_ != nullptr) device_->CloseRenderNode(render_fd_);
  }

  // The handles the simulated kernel holds for this process.
  std::vector<uint64_t> KernelHandles() {
    std::vector<uint64_t> handles;
    for (const kfd_sim::SimProcess& p : machine_->simulator().Snapshot().processes) {
      if (p.id != sim_id_) continue;
      for (const kfd_sim::SimBo& bo : p.bos) handles.push_back(bo.handle);
    }
    return handles;
  }

  KfdBuffer Vram() {
    absl::StatusOr<KfdBuffer::Allocated> allocated =
        KfdBuffer::Allocate(*device_, gpu_, DeviceAddress(0), Bytes::KiB(4), kVramFlags, 0);
    EXPECT_THAT(allocated.status(), IsOk());
    return std::move(allocated->buffer);
  }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<KfdDevice> device_;
  uint64_t sim_id_ = 0;
  GpuId gpu_{0};
  int render_fd_ = -1;
};

TEST_F(KfdBufferTest, DestructorFreesTheKernelBuffer) {
  {
    KfdBuffer buffer = Vram();
    EXPECT_THAT(KernelHandles(), ElementsAre(buffer.handle()->raw()));
  }
  EXPECT_THAT(KernelHandles(), IsEmpty());
}

TEST_F(KfdBufferTest, MoveEmptiesTheSourceAndMoveAssignFreesTheOldBuffer) {
  KfdBuffer a = Vram();
  KfdBuffer b = Vram();
  const uint64_t a_handle = a.handle()->raw();
  KfdBuffer moved(std::move(a));
  EXPECT_FALSE(a.handle().has_value());  // NOLINT(bugprone-use-after-move): a move empties the source
  b = std::move(moved);
  EXPECT_EQ(b.handle()->raw(), a_handle);
  EXPECT_THAT(KernelHandles(), ElementsAre(a_handle)) << "b's old buffer is freed";
  KfdBuffer& self = b;
  b = std::move(self);
  EXPECT_THAT(KernelHandles(), ElementsAre(a_handle)) << "self-move keeps the buffer";
}

TEST_F(KfdBufferTest, FreeReportsTheKernelsRefusalAndKeepsTheHandle) {
  KfdBuffer buffer = Vram();
  const uint64_t handle = buffer.handle()->raw();
  // Freed behind the owner's back: the kernel no longer knows the handle and answers -EINVAL.
  kfd_uapi::FreeMemoryOfGpuArgs args{handle};
  ASSERT_THAT(Ioctl(*device_, kfd_uapi::kFreeMemoryOfGpu, args), IsOk());
  EXPECT_THAT(std::move(buffer).Free(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(buffer.handle()->raw(), handle);  // NOLINT(bugprone-use-after-move): a refused Free keeps it
  EXPECT_EQ(std::move(buffer).Release(), KfdBufferHandle(handle));
  EXPECT_FALSE(buffer.handle().has_value());  // NOLINT(bugprone-use-after-move)
}

TEST_F(KfdBufferTest, FreeConsumesTheBufferAndReleaseLeavesItToTheKernel) {
  KfdBuffer freed = Vram();
  EXPECT_THAT(std::move(freed).Free(), IsOk());
  EXPECT_FALSE(freed.handle().has_value());  // NOLINT(bugprone-use-after-move)
  EXPECT_THAT(KernelHandles(), IsEmpty());
  const uint64_t kept = [&] {
    KfdBuffer released = Vram();
    return std::move(released).Release()->raw();
  }();
  EXPECT_THAT(KernelHandles(), ElementsAre(kept)) << "released: closing the device frees it";
}

TEST_F(KfdBufferTest, FailedAllocationLeavesNothing) {
  // No domain bit: the kernel refuses the flags.
  EXPECT_THAT(KfdBuffer::Allocate(*device_, gpu_, DeviceAddress(0), Bytes::KiB(4), 0, 0),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(KernelHandles(), IsEmpty());
}

}  // namespace
}  // namespace hipmem::thunk
