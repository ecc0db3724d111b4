// The device and queue control structs (memory policy, scratch backing, tile config, trap handler, CU mask, GWS,
// XNACK mode) against Debian's <linux/kfd_ioctl.h> (KFD 1.11). RUNTIME_ENABLE is 1.13+, absent there: its layout is pinned
// by the static_asserts in kfd_ioctl.h alone.
#include <linux/kfd_ioctl.h>

#include <cstddef>

#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"

namespace hipmem::kfd_uapi {
namespace {

#define EXPECT_FIELD(ours, theirs, field)                                          \
  do {                                                                             \
    EXPECT_EQ(offsetof(ours, field), offsetof(theirs, field)) << #ours "." #field; \
    EXPECT_EQ(sizeof(ours::field), sizeof(theirs::field)) << #ours "." #field;     \
  } while (false)

TEST(KfdUapiControlsTest, RequestNumbersMatchKernelHeader) {
  EXPECT_EQ(kSetMemoryPolicy.request(), AMDKFD_IOC_SET_MEMORY_POLICY);
  EXPECT_EQ(kSetScratchBackingVa.request(), AMDKFD_IOC_SET_SCRATCH_BACKING_VA);
  EXPECT_EQ(kGetTileConfig.request(), AMDKFD_IOC_GET_TILE_CONFIG);
  EXPECT_EQ(kSetTrapHandler.request(), AMDKFD_IOC_SET_TRAP_HANDLER);
  EXPECT_EQ(kSetCuMask.request(), AMDKFD_IOC_SET_CU_MASK);
  EXPECT_EQ(kAllocQueueGws.request(), AMDKFD_IOC_ALLOC_QUEUE_GWS);
  EXPECT_EQ(kSetXnackMode.request(), AMDKFD_IOC_SET_XNACK_MODE);
  // 1.11 ends its table before RUNTIME_ENABLE; 1.17's includes it.
  EXPECT_LT(IoctlNr(kRuntimeEnable.request()), kCommandEnd);
}

TEST(KfdUapiControlsTest, StructLayoutsMatchKernelHeader) {
  EXPECT_EQ(sizeof(SetMemoryPolicyArgs), sizeof(kfd_ioctl_set_memory_policy_args));
  EXPECT_FIELD(SetMemoryPolicyArgs, kfd_ioctl_set_memory_policy_args, alternate_aperture_base);
  EXPECT_FIELD(SetMemoryPolicyArgs, kfd_ioctl_set_memory_policy_args, alternate_aperture_size);
  EXPECT_FIELD(SetMemoryPolicyArgs, kfd_ioctl_set_memory_policy_args, gpu_id);
  EXPECT_FIELD(SetMemoryPolicyArgs, kfd_ioctl_set_memory_policy_args, default_policy);
  EXPECT_FIELD(SetMemoryPolicyArgs, kfd_ioctl_set_memory_policy_args, alternate_policy);

  EXPECT_EQ(sizeof(SetScratchBackingVaArgs), sizeof(kfd_ioctl_set_scratch_backing_va_args));
  EXPECT_FIELD(SetScratchBackingVaArgs, kfd_ioctl_set_scratch_backing_va_args, va_addr);
  EXPECT_FIELD(SetScratchBackingVaArgs, kfd_ioctl_set_scratch_backing_va_args, gpu_id);

  EXPECT_EQ(sizeof(GetTileConfigArgs), sizeof(kfd_ioctl_get_tile_config_args));
  EXPECT_FIELD(GetTileConfigArgs, kfd_ioctl_get_tile_config_args, tile_config_ptr);
  EXPECT_FIELD(GetTileConfigArgs, kfd_ioctl_get_tile_config_args, macro_tile_config_ptr);
  EXPECT_FIELD(GetTileConfigArgs, kfd_ioctl_get_tile_config_args, num_tile_configs);
  EXPECT_FIELD(GetTileConfigArgs, kfd_ioctl_get_tile_config_args, num_macro_tile_configs);
  EXPECT_FIELD(GetTileConfigArgs, kfd_ioctl_get_tile_config_args, gpu_id);
  EXPECT_FIELD(GetTileConfigArgs, kfd_ioctl_get_tile_config_args, gb_addr_config);
  EXPECT_FIELD(GetTileConfigArgs, kfd_ioctl_get_tile_config_args, num_banks);
  EXPECT_FIELD(GetTileConfigArgs, kfd_ioctl_get_tile_config_args, num_ranks);

  EXPECT_EQ(sizeof(SetTrapHandlerArgs), sizeof(kfd_ioctl_set_trap_handler_args));
  EXPECT_FIELD(SetTrapHandlerArgs, kfd_ioctl_set_trap_handler_args, tba_addr);
  EXPECT_FIELD(SetTrapHandlerArgs, kfd_ioctl_set_trap_handler_args, tma_addr);
  EXPECT_FIELD(SetTrapHandlerArgs, kfd_ioctl_set_trap_handler_args, gpu_id);

  EXPECT_EQ(sizeof(SetCuMaskArgs), sizeof(kfd_ioctl_set_cu_mask_args));
  EXPECT_FIELD(SetCuMaskArgs, kfd_ioctl_set_cu_mask_args, queue_id);
  EXPECT_FIELD(SetCuMaskArgs, kfd_ioctl_set_cu_mask_args, num_cu_mask);
  EXPECT_FIELD(SetCuMaskArgs, kfd_ioctl_set_cu_mask_args, cu_mask_ptr);

  EXPECT_EQ(sizeof(AllocQueueGwsArgs), sizeof(kfd_ioctl_alloc_queue_gws_args));
  EXPECT_FIELD(AllocQueueGwsArgs, kfd_ioctl_alloc_queue_gws_args, queue_id);
  EXPECT_FIELD(AllocQueueGwsArgs, kfd_ioctl_alloc_queue_gws_args, num_gws);
  EXPECT_FIELD(AllocQueueGwsArgs, kfd_ioctl_alloc_queue_gws_args, first_gws);

  EXPECT_EQ(sizeof(SetXnackModeArgs), sizeof(kfd_ioctl_set_xnack_mode_args));
  EXPECT_FIELD(SetXnackModeArgs, kfd_ioctl_set_xnack_mode_args, xnack_enabled);
}

TEST(KfdUapiControlsTest, CachePolicyValuesMatchKernelHeader) {
  EXPECT_EQ(ToRaw(CachePolicy::kCoherent), static_cast<uint32_t>(KFD_IOC_CACHE_POLICY_COHERENT));
  EXPECT_EQ(ToRaw(CachePolicy::kNoncoherent), static_cast<uint32_t>(KFD_IOC_CACHE_POLICY_NONCOHERENT));
}

TEST(KfdUapiControlsTest, NewRequestsHaveNames) {
  EXPECT_STREQ(IoctlName(kSetXnackMode.request()), "AMDKFD_IOC_SET_XNACK_MODE");
  EXPECT_STREQ(IoctlName(kRuntimeEnable.request()), "AMDKFD_IOC_RUNTIME_ENABLE");
  EXPECT_STREQ(IoctlName(kSetCuMask.request()), "AMDKFD_IOC_SET_CU_MASK");
  EXPECT_STREQ(IoctlName(kAllocQueueGws.request()), "AMDKFD_IOC_ALLOC_QUEUE_GWS");
  EXPECT_STREQ(IoctlName(kGetTileConfig.request()), "AMDKFD_IOC_GET_TILE_CONFIG");
  EXPECT_STREQ(IoctlName(kSetScratchBackingVa.request()), "AMDKFD_IOC_SET_SCRATCH_BACKING_VA");
}

}  // namespace
}  // namespace hipmem::kfd_uapi
