// The occupancy arithmetic against register-file and LDS limits worked out by hand for each GPU family.
#include "hip/occupancy.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "hip/hip_error.h"

namespace hipmem::hip {
namespace {

// gfx90a / gfx94x: 4 SIMDs per CU, 512 VGPRs per SIMD in granules of 8, 800 SGPRs, 64 KiB of LDS.
clr::DeviceInfo Cdna2(uint32_t cus) {
  clr::DeviceInfo d;
  d.gfx_major = 9;
  d.gfx_stepping = 10;
  d.compute_units = cus;
  d.simds_per_cu = 4;
  d.wavefront_size = 64;
  d.vgprs_per_simd = 512;
  d.vgpr_alloc_granule = 8;
  d.sgprs_per_simd = 800;
  d.local_mem_per_cu = Bytes::KiB(64);
  d.max_work_group_size = 1024;
  return d;
}

clr::Kernel Kernel(uint32_t vgprs, uint32_t sgprs, uint32_t lds = 0, uint32_t wavefront = 64) {
  clr::Kernel k;
  k.name = "k";
  k.vgpr_count = vgprs;
  k.sgpr_count = sgprs;
  k.group_segment_size = lds;
  k.wavefront_size = wavefront;
  return k;
}

TEST(Occupancy, VgprsBoundTheWavesOfAKernelThatHoldsHalfTheFile) {
  // 256 VGPRs: two waves per SIMD, eight per CU, 512 work-items.
  const clr::DeviceInfo d = Cdna2(110);
  absl::StatusOr<Occupancy> o = ComputeOccupancy(Kernel(256, 20), d, 256, 0, false);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->blocks_per_cu, 2);
  // 65 work-items take two waves.
  EXPECT_EQ(ComputeOccupancy(Kernel(256, 20), d, 65, 0, false)->blocks_per_cu, 4);
  // The potential block: the 512 work-items a CU holds, one block per CU.
  o = ComputeOccupancy(Kernel(256, 20), d, 0, 0, true);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->best_block_size, 512);
  EXPECT_EQ(o->blocks_per_grid, 110);
}

TEST(Occupancy, SgprsAndLdsBoundTheBlocks) {
  const clr::DeviceInfo d = Cdna2(110);
  // 10 VGPRs (16 allocated): 32 waves by VGPRs; 100 SGPRs (112 allocated): 800 / 112 = 7 waves per SIMD.
  EXPECT_EQ(ComputeOccupancy(Kernel(10, 100), d, 64, 0, false)->blocks_per_cu, 28);
  EXPECT_EQ(ComputeOccupancy(Kernel(10, 100), d, 1024, 0, false)->blocks_per_cu, 1);
  // 16 KiB static + 16 KiB dynamic LDS: two blocks in 64 KiB.
  EXPECT_EQ(ComputeOccupancy(Kernel(10, 100, 16 << 10), d, 64, 16 << 10, false)->blocks_per_cu, 2);
  // Few registers: the SPI's 8 waves per SIMD.
  EXPECT_EQ(ComputeOccupancy(Kernel(8, 16), d, 64, 0, false)->blocks_per_cu, 32);
  absl::StatusOr<Occupancy> o = ComputeOccupancy(Kernel(8, 16), d, 256, 0, true);
  EXPECT_EQ(o->best_block_size, 256);
  EXPECT_EQ(o->blocks_per_grid, 110 * 8);
}

TEST(Occupancy, Gfx908HasHalfTheVgprsInGranulesOfFour) {
  clr::DeviceInfo d = Cdna2(120);
  d.gfx_stepping = 8;
  d.vgprs_per_simd = 256;
  d.vgpr_alloc_granule = 4;
  // 129 VGPRs (132 allocated): one wave per SIMD.
  EXPECT_EQ(ComputeOccupancy(Kernel(129, 20), d, 256, 0, false)->blocks_per_cu, 1);
  EXPECT_EQ(ComputeOccupancy(Kernel(128, 20), d, 128, 0, false)->blocks_per_cu, 4);
  // More VGPRs than the file: no wave fits, CLR's hipErrorUnknown.
  EXPECT_EQ(ToHipError(ComputeOccupancy(Kernel(300, 20), d, 64, 0, false).status()), hipErrorUnknown);
}

TEST(Occupancy, Rdna3CountsWave32RegistersAndHalvesThemForWave64) {
  clr::DeviceInfo d;
  d.gfx_major = 11;
  d.compute_units = 48;  // WGPs
  d.simds_per_cu = 4;
  d.wavefront_size = 32;
  d.vgprs_per_simd = 1536;
  d.vgpr_alloc_granule = 24;
  d.sgprs_per_simd = UINT32_MAX;
  d.local_mem_per_cu = Bytes::KiB(64);
  d.max_work_group_size = 1024;
  // 100 VGPRs (120 allocated): 12 waves of 32 per SIMD, 48 per WGP: 6 blocks of 256.
  EXPECT_EQ(ComputeOccupancy(Kernel(100, 40, 0, 32), d, 256, 0, false)->blocks_per_cu, 6);
  // Wave64: 768 VGPRs in granules of 12: 108 allocated, 7 waves of 64 per SIMD, 28 per WGP: 7 blocks of 256.
  EXPECT_EQ(ComputeOccupancy(Kernel(100, 40, 0, 64), d, 256, 0, false)->blocks_per_cu, 7);
}

TEST(Occupancy, BlockSizesOutsideTheDeviceAreClrs) {
  const clr::DeviceInfo d = Cdna2(110);
  EXPECT_EQ(ToHipError(ComputeOccupancy(Kernel(8, 16), d, 0, 0, false).status()), hipErrorInvalidValue);
  EXPECT_EQ(ToHipError(ComputeOccupancy(Kernel(8, 16), d, -1, 0, false).status()), hipErrorInvalidValue);
  // A block beyond the device: zero blocks, not an error.
  absl::StatusOr<Occupancy> o = ComputeOccupancy(Kernel(8, 16), d, 2048, 0, false);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->blocks_per_cu, 0);
  // As a limit, beyond the device means the device's maximum.
  o = ComputeOccupancy(Kernel(8, 16), d, 4096, 0, true);
  EXPECT_EQ(o->best_block_size, 1024);
  EXPECT_EQ(o->blocks_per_grid, 110 * 2);
}

}  // namespace
}  // namespace hipmem::hip
