// hsaKmtGetNodeProperties against the simulated machine HIPMEM_SIM_PRESET names: every key the kernel writes to a
// node's sysfs properties file reaches HsaNodeProperties, as libhsakmt's topology.c reads it. Run once per preset
// (see BUILD).
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/host_cpu.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

using Field = std::function<uint64_t(const HsaNodeProperties&)>;

// How each sysfs key shows in HsaNodeProperties (topology.c topology_sysfs_get_node_props).
struct Row {
  const char* key;
  Field field;
  std::function<uint64_t(uint64_t value, const NodeProperties& node)> expected;
};

uint64_t Same(uint64_t v, const NodeProperties&) { return v; }

const std::vector<Row>& Rows() {
  static const auto* rows = new std::vector<Row>{
      {"cpu_cores_count", [](const HsaNodeProperties& p) { return p.NumCPUCores; }, Same},
      {"simd_count", [](const HsaNodeProperties& p) { return p.NumFComputeCores; }, Same},
      // libhsakmt adds a dGPU node's LDS, scratch and SVM apertures as banks of their own, and on GFX9+ its MMIO
      // page.
      {"mem_banks_count", [](const HsaNodeProperties& p) { return p.NumMemoryBanks; },
       [](uint64_t v, const NodeProperties& n) { return n.is_gpu() ? v + (n.gfx_major() >= 9 ? 4 : 3) : v; }},
      // A CPU node's caches are the host's (host_cpu.h), whatever the kernel lists.
      {"caches_count", [](const HsaNodeProperties& p) { return p.NumCaches; },
       [](uint64_t v, const NodeProperties& n) {
         if (n.Get("cpu_cores_count") == 0) return v;
         std::ifstream in(HostCpuPaths().cpuinfo);
         std::stringstream text;
         text << in.rdbuf();
         return uint64_t{HostCpuCaches(n.id.raw(), ParseCpuInfo(text.str()), HostCpuPaths()).size()};
       }},
      {"io_links_count", [](const HsaNodeProperties& p) { return p.NumIOLinks; },
       [](uint64_t v, const NodeProperties& n) { return v + n.Get("p2p_links_count"); }},
      {"p2p_links_count", [](const HsaNodeProperties& p) { return p.NumIOLinks; },
       [](uint64_t v, const NodeProperties& n) { return v + n.Get("io_links_count"); }},
      {"cpu_core_id_base", [](const HsaNodeProperties& p) { return p.CComputeIdLo; }, Same},
      {"simd_id_base", [](const HsaNodeProperties& p) { return p.FComputeIdLo; }, Same},
      {"capability", [](const HsaNodeProperties& p) { return p.Capability.Value; }, Same},
      {"debug_prop", [](const HsaNodeProperties& p) { return p.DebugProperties.Value; }, Same},
      {"max_waves_per_simd", [](const HsaNodeProperties& p) { return p.MaxWavesPerSIMD; }, Same},
      {"lds_size_in_kb", [](const HsaNodeProperties& p) { return p.LDSSizeInKB; }, Same},
      {"gds_size_in_kb", [](const HsaNodeProperties& p) { return p.GDSSizeInKB; }, Same},
      {"num_gws", [](const HsaNodeProperties& p) { return p.NumGws; }, Same},
      {"wave_front_size", [](const HsaNodeProperties& p) { return p.WaveFrontSize; }, Same},
      {"array_count", [](const HsaNodeProperties& p) { return uint64_t{p.NumShaderBanks} * p.NumArrays; }, Same},
      {"simd_arrays_per_engine", [](const HsaNodeProperties& p) { return p.NumArrays; }, Same},
      {"cu_per_simd_array", [](const HsaNodeProperties& p) { return p.NumCUPerArray; }, Same},
      {"simd_per_cu", [](const HsaNodeProperties& p) { return p.NumSIMDPerCU; }, Same},
      {"max_slots_scratch_cu", [](const HsaNodeProperties& p) { return p.MaxSlotsScratchCU; }, Same},
      {"fw_version", [](const HsaNodeProperties& p) { return p.EngineId.ui32.uCode; },
       [](uint64_t v, const NodeProperties&) { return v & 0x3ff; }},
      {"sdma_fw_version", [](const HsaNodeProperties& p) { return p.uCodeEngineVersions.uCodeSDMA; },
       [](uint64_t v, const NodeProperties&) { return v & 0x3ff; }},
      {"gfx_target_version",
       [](const HsaNodeProperties& p) {
         return uint64_t{p.EngineId.ui32.Major} * 10000 + p.EngineId.ui32.Minor * 100 + p.EngineId.ui32.Stepping;
       },
       Same},
      {"vendor_id", [](const HsaNodeProperties& p) { return p.VendorId; }, Same},
      {"device_id", [](const HsaNodeProperties& p) { return p.DeviceId; }, Same},
      {"location_id", [](const HsaNodeProperties& p) { return p.LocationId; }, Same},
      {"domain", [](const HsaNodeProperties& p) { return p.Domain; }, Same},
      {"max_engine_clk_fcompute", [](const HsaNodeProperties& p) { return p.MaxEngineClockMhzFCompute; }, Same},
      {"max_engine_clk_ccompute", [](const HsaNodeProperties& p) { return p.MaxEngineClockMhzCCompute; }, Same},
      // Current kernels write 0 and the frame-buffer banks carry the size.
      {"local_mem_size", [](const HsaNodeProperties& p) { return p.LocalMemSize; },
       [](uint64_t v, const NodeProperties& n) {
         uint64_t banks = 0;
         for (const MemoryBank& b : n.mem_banks) {
           if (b.heap_type != HeapType::kSystem) banks += b.size.raw();
         }
         return v != 0 ? v : banks;
       }},
      {"drm_render_minor", [](const HsaNodeProperties& p) { return static_cast<uint64_t>(p.DrmRenderMinor); }, Same},
      {"hive_id", [](const HsaNodeProperties& p) { return p.HiveID; }, Same},
      {"unique_id", [](const HsaNodeProperties& p) { return p.UniqueID; }, Same},
      {"num_sdma_engines", [](const HsaNodeProperties& p) { return p.NumSdmaEngines; }, Same},
      {"num_sdma_xgmi_engines", [](const HsaNodeProperties& p) { return p.NumSdmaXgmiEngines; }, Same},
      {"num_sdma_queues_per_engine", [](const HsaNodeProperties& p) { return p.NumSdmaQueuesPerEngine; }, Same},
      {"num_cp_queues", [](const HsaNodeProperties& p) { return p.NumCpQueues; }, Same},
      {"num_xcc", [](const HsaNodeProperties& p) { return p.NumXcc; },
       [](uint64_t v, const NodeProperties& n) { return v == 0 && n.Get("simd_count") != 0 ? 1 : v; }},
      {"family_id", [](const HsaNodeProperties& p) { return p.FamilyID; }, Same},
  };
  return *rows;
}

class NodePropertiesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS); }
  void TearDown() override { EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS); }
};

TEST_F(NodePropertiesTest, EverySysfsKeyReachesItsField) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<SimMachine> machine, SimMachine::Default());
  ASSERT_OK_AND_ASSIGN(SystemTopology sysfs, ReadTopology(machine->sysfs_root()));
  HsaSystemProperties system{};
  ASSERT_EQ(hsaKmtAcquireSystemProperties(&system), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(system.NumNodes, sysfs.nodes.size());
  for (const NodeProperties& node : sysfs.nodes) {
    SCOPED_TRACE(node.id.raw());
    HsaNodeProperties props{};
    ASSERT_EQ(hsaKmtGetNodeProperties(node.id.raw(), &props), HSAKMT_STATUS_SUCCESS);
    for (const auto& [key, value] : node.properties) {
      SCOPED_TRACE(key);
      const Row* row = nullptr;
      for (const Row& r : Rows()) {
        if (key == r.key) row = &r;
      }
      if (row == nullptr) {
        ADD_FAILURE() << "sysfs key " << key << " reaches no HsaNodeProperties field";
        continue;
      }
      EXPECT_EQ(row->field(props), row->expected(value, node));
    }
  }
}

// The values the preset configures, through the whole path (preset -> sysfs -> HsaNodeProperties).
TEST_F(NodePropertiesTest, GpuNodesReportThePresetsIdentityAndRegisterFiles) {
  const char* preset = std::getenv("HIPMEM_SIM_PRESET");
  ASSERT_NE(preset, nullptr);
  ASSERT_OK_AND_ASSIGN(kfd_sim::Topology topology, kfd_sim::PresetTopology(preset));
  for (size_t i = 0; i < topology.gpus.size(); ++i) {
    const kfd_sim::GpuConfig& gpu = topology.gpus[i];
    SCOPED_TRACE(gpu.name);
    HsaNodeProperties props{};
    ASSERT_EQ(hsaKmtGetNodeProperties(static_cast<HSAuint32>(i + 1), &props), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(props.KFDGpuID, gpu.gpu_id);
    EXPECT_EQ(props.DeviceId, gpu.device_id);
    EXPECT_EQ(props.VendorId, gpu.vendor_id);
    EXPECT_EQ(props.LocationId, gpu.location_id);
    EXPECT_EQ(props.Domain, gpu.domain);
    EXPECT_EQ(props.UniqueID, gpu.unique_id);
    EXPECT_EQ(props.NumSdmaEngines, gpu.num_sdma_engines);
    EXPECT_EQ(props.NumSdmaXgmiEngines, gpu.num_sdma_xgmi_engines);
    EXPECT_EQ(props.Capability.Value, gpu.capability | gpu.asic_revision << 22) << "ASICRevision in bits 22-25";
    EXPECT_EQ(props.Capability.ui32.ASICRevision, gpu.asic_revision);
    EXPECT_EQ(props.FamilyID, gpu.family_id);
    EXPECT_EQ(props.SGPRSizePerCU, 0x4000u);
    const uint32_t gfx = gpu.gfx_target_version;
    const uint32_t major = gfx / 10000;
    const uint32_t minor = gfx / 100 % 100;
    // gfx90a, gfx94x: 512 KiB of VGPRs per CU; gfx1100/gfx1101: 384 KiB; the rest 256 KiB.
    const uint32_t vgpr = (major == 9 && (minor == 4 || gfx == 90010 || gfx == 90008))            ? 0x80000
                          : (major == 11 && minor == 0 && gfx % 100 <= 1) ? 0x60000
                                                                          : 0x40000;
    EXPECT_EQ(props.VGPRSizePerCU, vgpr) << "gfx_target_version " << gfx;
    EXPECT_NE(props.EngineId.ui32.uCode, 0u) << "the CP firmware version";
    EXPECT_NE(props.uCodeEngineVersions.uCodeSDMA, 0u) << "the SDMA firmware version";
  }
  HsaNodeProperties cpu{};
  ASSERT_EQ(hsaKmtGetNodeProperties(0, &cpu), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(cpu.VGPRSizePerCU, 0u);
  EXPECT_EQ(cpu.NumXcc, 0u) << "a CPU node has no XCC";
}

}  // namespace
}  // namespace hipmem::thunk
