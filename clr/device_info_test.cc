// clr::DeviceInfo on the simulated presets, compared with what real GPUs report.
//
// Reference values (the numbers hipInfo / hipGetDeviceProperties print on real hardware, and AMD's spec sheets):
//  - MI300X: "AMD Instinct MI300X", gcnArchName gfx942:sramecc+:xnack-, 304 CUs, warpSize 64,
//    maxThreadsPerMultiProcessor 2048, clockRate 2100 MHz, memoryClockRate 1300 MHz, memoryBusWidth 8192,
//    l2CacheSize 4 MiB, sharedMemPerBlock 64 KiB, PCI device id 0x74a1 (AMD Instinct MI300X data sheet; hipInfo
//    dumps in ROCm's MI300X tuning guides and rocm-systems issues).
//  - RX 7900 XTX: "AMD Radeon RX 7900 XTX", gcnArchName gfx1100, 96 CUs = 48 WGPs, which HIP reports as
//    multiProcessorCount 48 (WGP mode), warpSize 32, maxThreadsPerMultiProcessor 2048, memoryBusWidth 384,
//    l2CacheSize 6 MiB, sharedMemPerBlock 64 KiB, PCI device id 0x744c (AMD's product page; hipInfo dumps in
//    ROCm issues for gfx1100).
#include "clr/device_info.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "clr/context.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;

std::string Preset() {
  const char* p = std::getenv("HIPMEM_SIM_PRESET");
  return p == nullptr ? "" : p;
}

std::unique_ptr<Context> MakeContext() {
  absl::StatusOr<std::unique_ptr<Context>> ctx = Context::Create();
  EXPECT_THAT(ctx, IsOk());
  return ctx.ok() ? *std::move(ctx) : nullptr;
}

std::string UuidText(const DeviceInfo& info) {
  return std::string(reinterpret_cast<const char*>(info.uuid.data()), info.uuid.size());
}

TEST(DeviceInfoTest, Mi300xMatchesTheRealGpu) {
  if (Preset() != "mi300x") GTEST_SKIP() << "mi300x preset only";
  std::unique_ptr<Context> ctx = MakeContext();
  ASSERT_NE(ctx, nullptr);
  ASSERT_EQ(ctx->devices().size(), 1u);
  const DeviceInfo& info = ctx->devices()[0].info;
  EXPECT_EQ(info.board_name, "AMD Instinct MI300X");
  EXPECT_EQ(info.name, "gfx942");
  EXPECT_EQ(info.gcn_arch_name, "gfx942:sramecc+:xnack-");
  EXPECT_EQ(info.gfx_major, 9u);
  EXPECT_EQ(info.gfx_minor, 4u);
  EXPECT_EQ(info.gfx_stepping, 2u);
  EXPECT_EQ(info.pci_device_id, 0x74a1u);
  EXPECT_EQ(info.compute_units, 304u);
  EXPECT_EQ(info.wavefront_size, 64u);
  EXPECT_EQ(info.max_threads_per_cu, 2048u);
  EXPECT_EQ(info.max_engine_clock_mhz, 2100u);
  EXPECT_EQ(info.max_memory_clock_mhz, 1300u);
  EXPECT_EQ(info.memory_bus_width_bits, 8192u);
  EXPECT_EQ(info.l2_cache_size, 4u << 20);
  EXPECT_EQ(info.local_mem_per_cu, Bytes::KiB(64));
  EXPECT_EQ(info.max_work_group_size, 1024u);
  EXPECT_EQ(info.num_xcc, 8u);
  // 512 VGPRs per SIMD (gfx90a register file) x 4 SIMDs x 64 lanes.
  EXPECT_EQ(info.available_registers_per_cu, 512u * 4 * 64);
  // What occupancy is computed from: that file allocated in granules of 8, and gfx9's 800 SGPRs.
  EXPECT_EQ(info.vgprs_per_simd, 512u);
  EXPECT_EQ(info.vgpr_alloc_granule, 8u);
  EXPECT_EQ(info.sgprs_per_simd, 800u);
  // 192 GB of HBM3, all of it behind the BAR.
  EXPECT_GT(info.vram_size, Bytes::GiB(180));
  EXPECT_EQ(info.global_mem_size, info.vram_size) << "GPU_MAX_HEAP_SIZE defaults to 100";
  EXPECT_TRUE(info.large_bar);
  EXPECT_FALSE(info.ecc_enabled) << "ROCclr reports no error correction";
  EXPECT_TRUE(info.managed_memory) << "the simulated KFD has SVM ranges";
  EXPECT_EQ(info.pageable_memory_access, info.xnack_enabled) << "pageable access needs XNACK";
  EXPECT_NE(UuidText(info).substr(0, 2), "XX") << "an MI300X has a unique id";
}

TEST(DeviceInfoTest, Rx7900xtxCountsWorkgroupProcessors) {
  if (Preset() != "rx7900xtx") GTEST_SKIP() << "rx7900xtx preset only";
  std::unique_ptr<Context> ctx = MakeContext();
  ASSERT_NE(ctx, nullptr);
  const DeviceInfo& info = ctx->devices()[0].info;
  EXPECT_EQ(info.board_name, "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(info.gcn_arch_name, "gfx1100") << "gfx1100 has neither sramecc nor xnack";
  EXPECT_EQ(info.gfx_major, 11u);
  EXPECT_EQ(info.gfx_minor, 0u);
  EXPECT_EQ(info.pci_device_id, 0x744cu);
  EXPECT_EQ(info.compute_units, 48u) << "96 CUs in 48 WGPs";
  EXPECT_EQ(info.wavefront_size, 32u);
  EXPECT_EQ(info.max_threads_per_cu, 2048u);
  EXPECT_EQ(info.memory_bus_width_bits, 384u);
  EXPECT_EQ(info.l2_cache_size, 6u << 20);
  EXPECT_EQ(info.local_mem_per_cu, Bytes::KiB(64));
  EXPECT_EQ(info.num_xcc, 1u);
  // 1536 VGPRs per SIMD (gfx1100's 1.5x register file, wave32) x 4 SIMDs per WGP x 32 lanes.
  EXPECT_EQ(info.available_registers_per_cu, 1536u * 4 * 32);
  EXPECT_GT(info.vram_size, Bytes::GiB(23));
  EXPECT_FALSE(info.large_bar) << "this preset's workstation has no resizable BAR";
}

TEST(DeviceInfoTest, WgpModeOffCountsComputeUnits) {
  if (Preset() != "rx7900xtx") GTEST_SKIP() << "rx7900xtx preset only";
  ASSERT_EQ(setenv("GPU_ENABLE_WGP_MODE", "0", 1), 0);
  std::unique_ptr<Context> ctx = MakeContext();
  unsetenv("GPU_ENABLE_WGP_MODE");
  ASSERT_NE(ctx, nullptr);
  const DeviceInfo& info = ctx->devices()[0].info;
  EXPECT_EQ(info.compute_units, 96u);
  EXPECT_EQ(info.max_threads_per_cu, 1024u);
}

TEST(DeviceInfoTest, HeapPercentShrinksGlobalMemory) {
  if (Preset() != "mi300x") GTEST_SKIP() << "mi300x preset only";
  ASSERT_EQ(setenv("GPU_MAX_HEAP_SIZE", "50", 1), 0);
  std::unique_ptr<Context> ctx = MakeContext();
  unsetenv("GPU_MAX_HEAP_SIZE");
  ASSERT_NE(ctx, nullptr);
  const DeviceInfo& info = ctx->devices()[0].info;
  EXPECT_EQ(info.global_mem_size.raw(), info.vram_size.raw() / 2);
  EXPECT_EQ(info.max_constant_buffer_size, info.max_alloc_size);
}

TEST(DeviceInfoTest, TwoMi250xGcdsAreDistinctPciDevices) {
  if (Preset() != "2xmi250x") GTEST_SKIP() << "2xmi250x preset only";
  std::unique_ptr<Context> ctx = MakeContext();
  ASSERT_NE(ctx, nullptr);
  ASSERT_EQ(ctx->devices().size(), 2u);
  const DeviceInfo& a = ctx->devices()[0].info;
  const DeviceInfo& b = ctx->devices()[1].info;
  EXPECT_EQ(a.gcn_arch_name, "gfx90a:sramecc+:xnack-");
  EXPECT_EQ(a.gfx_stepping, 10u) << "gfx90a: stepping 0xa";
  EXPECT_EQ(a.compute_units, 110u);
  EXPECT_EQ(a.l2_cache_size, 8u << 20);
  EXPECT_NE(a.pci_bus, b.pci_bus);
  EXPECT_NE(UuidText(a), UuidText(b));
}

}  // namespace
}  // namespace hipmem::clr
