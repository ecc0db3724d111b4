// The SVM ioctl ABI against Debian's <linux/kfd_ioctl.h> (KFD 1.11, which has had AMDKFD_IOC_SVM since 1.5): request
// number, struct layouts, and every enum value. EXT_COHERENT is 1.16+, absent there.
#include "kfd_uapi/kfd_svm.h"

#include <linux/kfd_ioctl.h>

#include <cstddef>

#include "gtest/gtest.h"

namespace hipmem::kfd_uapi {
namespace {

TEST(KfdSvmAbiTest, RequestNumberMatchesKernelHeader) {
  EXPECT_EQ(kSvm.request(), AMDKFD_IOC_SVM);
  EXPECT_STREQ(IoctlName(kSvm.request()), "AMDKFD_IOC_SVM");
  // A request carrying attributes still names the SVM ioctl (the kernel dispatches on nr).
  EXPECT_STREQ(IoctlName(SvmRequest(3)), "AMDKFD_IOC_SVM");
  EXPECT_EQ(IoctlSize(SvmRequest(3)), sizeof(kfd_ioctl_svm_args) + 3 * sizeof(kfd_ioctl_svm_attribute));
  EXPECT_EQ(IoctlSize(SvmRequest(kSvmMaxAttributes)), sizeof(SvmArgs) + kSvmMaxAttributes * sizeof(SvmAttribute));
  EXPECT_LE(IoctlSize(SvmRequest(kSvmMaxAttributes)) + sizeof(SvmAttribute), 0x3fffu + 1);
}

TEST(KfdSvmAbiTest, StructLayoutsMatchKernelHeader) {
  EXPECT_EQ(sizeof(SvmArgs), sizeof(kfd_ioctl_svm_args));
  EXPECT_EQ(offsetof(SvmArgs, start_addr), offsetof(kfd_ioctl_svm_args, start_addr));
  EXPECT_EQ(offsetof(SvmArgs, size), offsetof(kfd_ioctl_svm_args, size));
  EXPECT_EQ(offsetof(SvmArgs, op), offsetof(kfd_ioctl_svm_args, op));
  EXPECT_EQ(offsetof(SvmArgs, nattr), offsetof(kfd_ioctl_svm_args, nattr));
  EXPECT_EQ(sizeof(SvmArgs), offsetof(kfd_ioctl_svm_args, attrs));
  EXPECT_EQ(sizeof(SvmAttribute), sizeof(kfd_ioctl_svm_attribute));
  EXPECT_EQ(offsetof(SvmAttribute, type), offsetof(kfd_ioctl_svm_attribute, type));
  EXPECT_EQ(offsetof(SvmAttribute, value), offsetof(kfd_ioctl_svm_attribute, value));
}

TEST(KfdSvmAbiTest, EnumValuesMatchKernelHeader) {
  struct Row {
    uint32_t ours;
    uint32_t theirs;
    const char* name;
  };
  const Row rows[] = {
      {ToRaw(SvmOp::kSetAttr), KFD_IOCTL_SVM_OP_SET_ATTR, "SET_ATTR"},
      {ToRaw(SvmOp::kGetAttr), KFD_IOCTL_SVM_OP_GET_ATTR, "GET_ATTR"},
      {kSvmLocationSysmem, KFD_IOCTL_SVM_LOCATION_SYSMEM, "LOCATION_SYSMEM"},
      {kSvmLocationUndefined, KFD_IOCTL_SVM_LOCATION_UNDEFINED, "LOCATION_UNDEFINED"},
      {ToRaw(SvmAttrType::kPreferredLoc), KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, "PREFERRED_LOC"},
      {ToRaw(SvmAttrType::kPrefetchLoc), KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, "PREFETCH_LOC"},
      {ToRaw(SvmAttrType::kAccess), KFD_IOCTL_SVM_ATTR_ACCESS, "ACCESS"},
      {ToRaw(SvmAttrType::kAccessInPlace), KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE, "ACCESS_IN_PLACE"},
      {ToRaw(SvmAttrType::kNoAccess), KFD_IOCTL_SVM_ATTR_NO_ACCESS, "NO_ACCESS"},
      {ToRaw(SvmAttrType::kSetFlags), KFD_IOCTL_SVM_ATTR_SET_FLAGS, "SET_FLAGS"},
      {ToRaw(SvmAttrType::kClrFlags), KFD_IOCTL_SVM_ATTR_CLR_FLAGS, "CLR_FLAGS"},
      {ToRaw(SvmAttrType::kGranularity), KFD_IOCTL_SVM_ATTR_GRANULARITY, "GRANULARITY"},
      {ToRaw(SvmFlags::kHostAccess), KFD_IOCTL_SVM_FLAG_HOST_ACCESS, "FLAG_HOST_ACCESS"},
      {ToRaw(SvmFlags::kCoherent), KFD_IOCTL_SVM_FLAG_COHERENT, "FLAG_COHERENT"},
      {ToRaw(SvmFlags::kHiveLocal), KFD_IOCTL_SVM_FLAG_HIVE_LOCAL, "FLAG_HIVE_LOCAL"},
      {ToRaw(SvmFlags::kGpuRo), KFD_IOCTL_SVM_FLAG_GPU_RO, "FLAG_GPU_RO"},
      {ToRaw(SvmFlags::kGpuExec), KFD_IOCTL_SVM_FLAG_GPU_EXEC, "FLAG_GPU_EXEC"},
      {ToRaw(SvmFlags::kGpuReadMostly), KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY, "FLAG_GPU_READ_MOSTLY"},
      {ToRaw(SvmFlags::kGpuAlwaysMapped), KFD_IOCTL_SVM_FLAG_GPU_ALWAYS_MAPPED, "FLAG_GPU_ALWAYS_MAPPED"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(row.ours, row.theirs);
  }
  // 1.16's EXT_COHERENT is the next bit; every known flag fits kSvmFlagsKnown.
  EXPECT_EQ(ToRaw(SvmFlags::kExtCoherent), uint32_t{KFD_IOCTL_SVM_FLAG_GPU_ALWAYS_MAPPED} << 1);
  EXPECT_EQ(kSvmFlagsKnown, (ToRaw(SvmFlags::kExtCoherent) << 1) - 1);
}

}  // namespace
}  // namespace hipmem::kfd_uapi
