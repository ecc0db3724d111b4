// The SVM calls through the thunk's C++ API on the simulated KFD: node ids in, node ids out (libhsakmt's
// translation to and from gpu_ids), XNACK changing what an untouched range answers, a prefetch moving the VRAM
// accounting, and the HSAKMT_STATUS libhsakmt answers when it or the kernel refuses.
#include "thunk/svm.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/device_controls.h"
#include "thunk/errno_status.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::FieldsAre;

constexpr uint32_t kCpu = 0;
constexpr uint32_t kGpu = 1;
constexpr uint64_t kPage = 4096;

HSAKMT_STATUS Code(const absl::Status& status) { return ToHsakmtStatus(status); }

// Anonymous pages of this process, unmapped on destruction.
class Pages {
 public:
  explicit Pages(uint64_t count) : bytes_(count * kPage) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    base_ = static_cast<char*>(p);
  }
  ~Pages() { munmap(base_, bytes_); }
  Pages(const Pages&) = delete;
  Pages& operator=(const Pages&) = delete;
  DeviceAddress start() const { return DeviceAddress(reinterpret_cast<uintptr_t>(base_)); }
  Bytes size() const { return Bytes(bytes_); }
  char* cpu() const { return base_; }

 private:
  uint64_t bytes_;
  char* base_ = nullptr;
};

class SvmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(kfd_sim::Mi300xTopology(2)));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> device, OpenSimKfdDevice(machine_));
    ASSERT_OK_AND_ASSIGN(kfd_, Kfd::Open(std::move(device)));
  }

  std::vector<SvmAttribute> Get(const Pages& pages, std::vector<SvmAttribute> queries) {
    absl::StatusOr<std::vector<SvmAttribute>> answers = SvmGetAttr(*kfd_, pages.start(), pages.size(), queries);
    EXPECT_THAT(answers, IsOk());
    return answers.ok() ? *std::move(answers) : std::vector<SvmAttribute>{};
  }

  Bytes VramUsed(size_t gpu) const { return machine_->simulator().Snapshot().gpus.at(gpu).vram_used; }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<Kfd> kfd_;
};

TEST_F(SvmTest, LocationsAndAccessAreNamedByNode) {
  Pages pages(8);
  const std::vector<SvmAttribute> set = {{SvmAttrType::kPreferredLoc, 2},
                                         {SvmAttrType::kAccess, kGpu},
                                         {SvmAttrType::kAccessInPlace, 2},
                                         {SvmAttrType::kGranularity, 3}};
  ASSERT_THAT(SvmSetAttr(*kfd_, pages.start(), pages.size(), set), IsOk());
  EXPECT_THAT(Get(pages, {{SvmAttrType::kPreferredLoc, 0},
                          {SvmAttrType::kPrefetchLoc, 0},
                          {SvmAttrType::kAccess, kGpu},
                          {SvmAttrType::kAccess, 2},
                          {SvmAttrType::kGranularity, 0}}),
              ElementsAre(FieldsAre(SvmAttrType::kPreferredLoc, 2u), FieldsAre(SvmAttrType::kPrefetchLoc, kSvmNoNode),
                          FieldsAre(SvmAttrType::kAccess, kGpu), FieldsAre(SvmAttrType::kAccessInPlace, 2u),
                          FieldsAre(SvmAttrType::kGranularity, 3u)));
  // The CPU node is system memory; "no node" clears a preference.
  ASSERT_THAT(SvmSetAttr(*kfd_, pages.start(), pages.size(), std::vector<SvmAttribute>{{SvmAttrType::kPreferredLoc, kCpu}}),
              IsOk());
  EXPECT_THAT(Get(pages, {{SvmAttrType::kPreferredLoc, 0}}), ElementsAre(FieldsAre(SvmAttrType::kPreferredLoc, kCpu)));
  ASSERT_THAT(
      SvmSetAttr(*kfd_, pages.start(), pages.size(), std::vector<SvmAttribute>{{SvmAttrType::kPreferredLoc, kSvmNoNode}}),
      IsOk());
  EXPECT_THAT(Get(pages, {{SvmAttrType::kPreferredLoc, 0}}),
              ElementsAre(FieldsAre(SvmAttrType::kPreferredLoc, kSvmNoNode)));
}

TEST_F(SvmTest, XnackDecidesWhatAnUntouchedRangeLetsAGpuDo) {
  Pages pages(2);
  EXPECT_THAT(Get(pages, {{SvmAttrType::kAccess, kGpu}}), ElementsAre(FieldsAre(SvmAttrType::kNoAccess, kGpu)));
  ASSERT_THAT(SetXnackMode(*kfd_, true), IsOk());
  EXPECT_THAT(Get(pages, {{SvmAttrType::kAccess, kGpu}}), ElementsAre(FieldsAre(SvmAttrType::kAccess, kGpu)));
}

TEST_F(SvmTest, PrefetchMovesTheRangeIntoTheNodesVram) {
  Pages pages(16);
  pages.cpu()[0] = 42;
  const Bytes before = VramUsed(1);
  ASSERT_THAT(SvmSetAttr(*kfd_, pages.start(), pages.size(), std::vector<SvmAttribute>{{SvmAttrType::kPrefetchLoc, 2}}),
              IsOk());
  EXPECT_THAT(Get(pages, {{SvmAttrType::kPrefetchLoc, 0}}), ElementsAre(FieldsAre(SvmAttrType::kPrefetchLoc, 2u)));
  const bool migrated = VramUsed(1) == before + pages.size();
  if (!migrated) GTEST_SKIP() << "no userfaultfd here: ranges stay in system memory";
  ASSERT_THAT(SvmSetAttr(*kfd_, pages.start(), pages.size(), std::vector<SvmAttribute>{{SvmAttrType::kPrefetchLoc, kCpu}}),
              IsOk());
  EXPECT_EQ(VramUsed(1), before);
  EXPECT_EQ(pages.cpu()[0], 42);
}

TEST_F(SvmTest, RefusalsCarryLibhsakmtsStatus) {
  Pages pages(2);
  const std::vector<SvmAttribute> none;
  const std::vector<SvmAttribute> access = {{SvmAttrType::kAccess, kGpu}};
  EXPECT_EQ(Code(SvmSetAttr(*kfd_, DeviceAddress(0), pages.size(), access)), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(Code(SvmSetAttr(*kfd_, pages.start() + Bytes(8), pages.size(), access)), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(Code(SvmSetAttr(*kfd_, pages.start(), Bytes(0), access)), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(Code(SvmGetAttr(*kfd_, pages.start(), Bytes(100), access).status()), HSAKMT_STATUS_INVALID_PARAMETER);
  // Nodes: an unknown one, and the CPU where a GPU is meant.
  EXPECT_EQ(Code(SvmSetAttr(*kfd_, pages.start(), pages.size(), std::vector<SvmAttribute>{{SvmAttrType::kAccess, 9}})),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(Code(SvmSetAttr(*kfd_, pages.start(), pages.size(), std::vector<SvmAttribute>{{SvmAttrType::kNoAccess, kCpu}})),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(Code(SvmGetAttr(*kfd_, pages.start(), pages.size(), std::vector<SvmAttribute>{{SvmAttrType::kAccess, kCpu}})
                     .status()),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
  // The kernel's refusals: HSAKMT_STATUS_ERROR with its errno.
  Pages holed(3);
  ASSERT_EQ(munmap(holed.cpu() + kPage, kPage), 0);
  const absl::Status unmapped = SvmSetAttr(*kfd_, holed.start(), holed.size(), access);
  EXPECT_EQ(Code(unmapped), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ErrnoOf(unmapped), EFAULT);
  const absl::StatusOr<std::vector<SvmAttribute>> in_place =
      SvmGetAttr(*kfd_, pages.start(), pages.size(), std::vector<SvmAttribute>{{SvmAttrType::kAccessInPlace, kGpu}});
  EXPECT_EQ(Code(in_place.status()), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ErrnoOf(in_place.status()), EINVAL);
  const std::vector<SvmAttribute> unknown_type = {{static_cast<SvmAttrType>(8), 0}};
  EXPECT_EQ(ErrnoOf(SvmSetAttr(*kfd_, pages.start(), pages.size(), unknown_type)), EINVAL);
  // Nothing at all to set is fine (the range is made, with its defaults).
  EXPECT_THAT(SvmSetAttr(*kfd_, pages.start(), pages.size(), none), IsOk());
}

}  // namespace
}  // namespace hipmem::thunk
