#include "hsa/topology_kfd.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/status/status.h"
#include "hsa/hsa.h"
#include "hsa/hsa_status.h"
#include "testing/status_matchers.h"
#include "thunk/topology.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;

TEST(IsaNameTest, FullNameRoundTripsThroughTheParser) {
  const IsaDescription isa{"gfx942", FeatureState::kOn, FeatureState::kOff, 64};
  EXPECT_EQ(isa.FullName(), "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-");
  ASSERT_OK_AND_ASSIGN(IsaDescription parsed, ParseIsaName(isa.FullName()));
  EXPECT_EQ(parsed, isa);
  ASSERT_OK_AND_ASSIGN(IsaDescription rdna, ParseIsaName("amdgcn-amd-amdhsa--gfx1100"));
  EXPECT_EQ(rdna.wavefront_size, 32u);
  EXPECT_EQ(rdna.FullName(), "amdgcn-amd-amdhsa--gfx1100");
}

TEST(IsaNameTest, LeftOutFeaturesMeanAny) {
  ASSERT_OK_AND_ASSIGN(IsaDescription isa, ParseIsaName("amdgcn-amd-amdhsa--gfx90a:xnack+"));
  EXPECT_EQ(isa.sramecc, FeatureState::kAny);
  EXPECT_EQ(isa.xnack, FeatureState::kOn);
  EXPECT_EQ(isa.FullName(), "amdgcn-amd-amdhsa--gfx90a:xnack+");
}

TEST(IsaNameTest, BadNamesAreInvalidIsaName) {
  struct Row {
    const char* name;
    const char* cause;
  };
  constexpr Row kRows[] = {
      {"gfx942", "does not start with"},
      {"amdgcn-amd-amdhsa--gfx9999", "unknown processor"},
      {"amdgcn-amd-amdhsa--gfx942:tgsplit+", "unknown feature"},
      {"amdgcn-amd-amdhsa--gfx942:xnack", "is not <name>+ or <name>-"},
      {"amdgcn-amd-amdhsa--gfx942:xnack+:xnack-", "given twice"},
      {"amdgcn-amd-amdhsa--gfx1100:sramecc+", "has no sramecc setting"},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    absl::StatusOr<IsaDescription> isa = ParseIsaName(row.name);
    EXPECT_THAT(isa, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.cause)));
    EXPECT_EQ(ToHsaStatus(isa.status()), HSA_STATUS_ERROR_INVALID_ISA_NAME);
  }
}

TEST(IsaRegistryTest, EqualIsasShareAHandleAndUnknownHandlesAreInvalidIsa) {
  const IsaDescription a{"gfx908", FeatureState::kOn, FeatureState::kOff, 64};
  const IsaDescription b{"gfx908", FeatureState::kOn, FeatureState::kOn, 64};
  const uint64_t ha = InternIsa(a);
  EXPECT_EQ(InternIsa(a), ha);
  EXPECT_NE(InternIsa(b), ha);
  ASSERT_OK_AND_ASSIGN(IsaDescription back, LookupIsa(ha));
  EXPECT_EQ(back, a);
  EXPECT_EQ(ToHsaStatus(LookupIsa(0).status()), HSA_STATUS_ERROR_INVALID_ISA);
  EXPECT_EQ(ToHsaStatus(LookupIsa(ha + 1000).status()), HSA_STATUS_ERROR_INVALID_ISA);
}

thunk::NodeProperties Gpu() {
  thunk::NodeProperties node;
  node.id = thunk::NodeId(1);
  node.gpu_id = thunk::GpuId(0x1e6a);
  node.name = "gfx942";
  node.pci_revision = 0;
  node.properties = {{"device_id", 0x74a1}, {"simd_count", 1216},       {"simd_per_cu", 4},
                     {"array_count", 32},   {"simd_arrays_per_engine", 1}, {"max_waves_per_simd", 8},
                     {"wave_front_size", 64}, {"capability", (1u << 22) | (1u << 26)}, {"unique_id", 0xabc},
                     {"fw_version", 166 | (9u << 10)}, {"location_id", 0x0c00}};
  node.caches.push_back(thunk::Cache{.level = 1, .size = Bytes::KiB(32), .cache_line_size = 128, .sibling_map = {}});
  node.caches.push_back(thunk::Cache{.level = 1, .size = Bytes::KiB(16), .cache_line_size = 64, .sibling_map = {}});
  node.caches.push_back(thunk::Cache{.level = 2, .size = Bytes::KiB(4096), .cache_line_size = 128, .sibling_map = {}});
  node.caches.push_back(thunk::Cache{.level = 2, .size = Bytes::KiB(4096), .cache_line_size = 128, .sibling_map = {}});
  return node;
}

TEST(DescribeAgentTest, GpuFieldsComeFromTheNodeAsRocrDerivesThem) {
  const AgentDescription d = DescribeAgent(Gpu(), "ignored", /*xnack_enabled=*/true);
  EXPECT_TRUE(d.gpu);
  EXPECT_EQ(d.product_name, "AMD Instinct MI300X") << "amdgpu.ids row 74A1, 00";
  EXPECT_EQ(d.uuid, "GPU-0000000000000abc");
  EXPECT_EQ(d.compute_units, 304u);
  EXPECT_EQ(d.shader_engines, 32u);
  EXPECT_EQ(d.max_waves_per_cu, 32u);
  EXPECT_EQ(d.asic_revision, 1u);
  EXPECT_EQ(d.ucode_version, 166u) << "the low 10 bits of fw_version";
  EXPECT_EQ(d.cacheline_size, 128u) << "the first L2's line";
  EXPECT_EQ(d.cache_size[0], 32u * 1024) << "the first L1";
  EXPECT_EQ(d.cache_size[1], 8192u * 1024) << "L2 entries add up";
  EXPECT_EQ(d.bdfid, 0x0c00u);
  ASSERT_TRUE(d.isa.has_value());
  EXPECT_EQ(d.isa->FullName(), "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+");
}

TEST(DescribeAgentTest, GpuWithoutUniqueIdOrKnownRevision) {
  thunk::NodeProperties node = Gpu();
  node.properties["unique_id"] = 0;
  node.pci_revision = 0x7f;
  const AgentDescription d = DescribeAgent(node, "ignored", false);
  EXPECT_EQ(d.uuid, "GPU-XX");
  EXPECT_EQ(d.product_name, "gfx942") << "no amdgpu.ids row: the processor name stays";
}

TEST(DescribeAgentTest, CpuIsNamedByItsModel) {
  thunk::NodeProperties cpu;
  cpu.properties = {{"cpu_cores_count", 96}, {"max_engine_clk_ccompute", 3700}};
  const AgentDescription d = DescribeAgent(cpu, "AMD EPYC 9654 96-Core Processor", false);
  EXPECT_FALSE(d.gpu);
  EXPECT_EQ(d.name, "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(d.uuid, "CPU-XX");
  EXPECT_EQ(d.compute_units, 96u);
  EXPECT_EQ(d.max_clock_mhz, 3700u);
  EXPECT_FALSE(d.isa.has_value());
}

TEST(CpuModelNameTest, ReadsTheFirstModelNameOrFallsBack) {
  const std::string path = ::testing::TempDir() + "/cpuinfo";
  std::ofstream(path) << "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9654 96-Core Processor\n"
                         "processor\t: 1\nmodel name\t: other\n";
  EXPECT_EQ(CpuModelName(path), "AMD EPYC 9654 96-Core Processor");
  std::ofstream(path) << "processor\t: 0\nBogoMIPS\t: 50.00\n";
  EXPECT_EQ(CpuModelName(path), "CPU");
  std::remove(path.c_str());
  EXPECT_EQ(CpuModelName(path), "CPU");
}

}  // namespace
}  // namespace hipmem::hsa
