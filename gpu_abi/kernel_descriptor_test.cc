#include "gpu_abi/kernel_descriptor.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace hipmem::gpu_abi::amdhsa {
namespace {

// A descriptor as LLVM 19 emits it for a gfx90a kernel taking a pointer (values read with llvm-readelf /
// llvm-objdump --disassemble-symbols=<k>.kd): kernarg segment ptr, workgroup id x, 2 user SGPRs.
TEST(KernelDescriptorTest, DecodesTheFieldsLlvmWrites) {
  KernelDescriptor kd{};
  kd.kernarg_size = 8;
  kd.kernel_code_entry_byte_offset = 256;
  kd.compute_pgm_rsrc1 = rsrc1::kGranulatedWorkitemVgprCount.Set(0, 1) |
                         rsrc1::kGranulatedWavefrontSgprCount.Set(0, 2) |
                         rsrc1::kFloatDenormMode16_64.Set(0, 3) | rsrc1::kEnableDx10Clamp.Set(0, 1) |
                         rsrc1::kEnableIeeeMode.Set(0, 1);
  kd.compute_pgm_rsrc2 = rsrc2::kUserSgprCount.Set(0, 2) | rsrc2::kEnableSgprWorkgroupIdX.Set(0, 1) |
                         rsrc2::kEnableVgprWorkitemId.Set(0, 2);
  kd.compute_pgm_rsrc3 = rsrc3::kGfx90aAccumOffset.Set(0, 3);
  kd.kernel_code_properties = static_cast<uint16_t>(properties::kEnableSgprKernargSegmentPtr.Set(0, 1));

  EXPECT_EQ(kd.granulated_workitem_vgpr_count(), 1u);
  EXPECT_EQ(VgprCount(kd, 8), 16u);
  EXPECT_EQ(Gfx9SgprCount(kd), 32u);
  EXPECT_EQ(kd.float_denorm_mode_16_64(), 3u);
  EXPECT_EQ(kd.float_denorm_mode_32(), 0u);
  EXPECT_TRUE(kd.enable_dx10_clamp());
  EXPECT_TRUE(kd.enable_ieee_mode());
  EXPECT_EQ(kd.user_sgpr_count(), 2u);
  EXPECT_TRUE(kd.enable_sgpr_workgroup_id_x());
  EXPECT_FALSE(kd.enable_sgpr_workgroup_id_y());
  EXPECT_EQ(kd.enable_vgpr_workitem_id(), 2u);
  EXPECT_EQ(kd.first_agpr(), 16u);
  EXPECT_TRUE(kd.enable_sgpr_kernarg_segment_ptr());
  EXPECT_FALSE(kd.enable_sgpr_dispatch_ptr());
  EXPECT_EQ(EnabledUserSgprCount(kd), kd.user_sgpr_count());
}

TEST(KernelDescriptorTest, FromBytesReadsLittleEndianFields) {
  uint8_t bytes[kKernelDescriptorBytes] = {};
  bytes[8] = 0x10;                          // kernarg_size 16
  bytes[16] = 0x00, bytes[17] = 0x01;       // entry offset 256
  bytes[56] = 0x0b;                         // private segment buffer, dispatch ptr, kernarg ptr
  bytes[58] = 0x82, bytes[59] = 0x00;       // preload length 2, offset 1
  const KernelDescriptor kd = KernelDescriptor::FromBytes(bytes);
  EXPECT_EQ(kd.kernarg_size, 16u);
  EXPECT_EQ(kd.kernel_code_entry_byte_offset, 256);
  EXPECT_TRUE(kd.enable_sgpr_private_segment_buffer());
  EXPECT_TRUE(kd.enable_sgpr_dispatch_ptr());
  EXPECT_FALSE(kd.enable_sgpr_queue_ptr());
  EXPECT_EQ(kd.kernarg_preload_spec_length(), 2u);
  EXPECT_EQ(kd.kernarg_preload_spec_offset(), 1u);
  EXPECT_EQ(EnabledUserSgprCount(kd), 4u + 2u + 2u + 2u);
}

TEST(KernelDescriptorTest, BitFieldSetKeepsOtherBits) {
  constexpr BitField kField{4, 3};
  EXPECT_EQ(kField.Mask(), 0x70u);
  EXPECT_EQ(kField.Set(0xffffffffu, 0), 0xffffff8fu);
  EXPECT_EQ(kField.Get(kField.Set(0, 0xf)), 7u);
  constexpr BitField kWhole{0, 32};
  EXPECT_EQ(kWhole.Get(0xdeadbeefu), 0xdeadbeefu);
}

}  // namespace
}  // namespace hipmem::gpu_abi::amdhsa
