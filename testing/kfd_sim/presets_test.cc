// The named simulated machines: their public facts, their wiring, and that the simulator accepts them.
#include "testing/kfd_sim/presets.h"

#include <cstdint>
#include <fstream>
#include <optional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"

namespace hipmem::kfd_sim {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// /proc/meminfo's MemTotal in bytes, read as a person would, independently of HostSystemMemory.
uint64_t MemTotal() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemTotal:") return kib * 1024;
  }
  ADD_FAILURE() << "no MemTotal in /proc/meminfo";
  return 0;
}

constexpr uint32_t kPcie = static_cast<uint32_t>(IoLinkType::kPcieExpress);
constexpr uint32_t kXgmi = static_cast<uint32_t>(IoLinkType::kXgmi);

TEST(PresetTest, NamesAreTheSevenDocumentedMachines) {
  EXPECT_THAT(PresetNames(),
              ElementsAre("mi300x", "mi250x", "mi100", "rx7900xtx", "2xmi250x", "8xmi300x", "2xrx7900xtx"));
}

TEST(PresetTest, UnknownNameIsNotFoundAndListsTheValidNames) {
  EXPECT_THAT(PresetTopology("mi400x"),
              StatusIs(absl::StatusCode::kNotFound, AllOf(HasSubstr("mi400x"), HasSubstr("mi300x, mi250x"))));
  EXPECT_THAT(PresetTopology("MI300X"), StatusIs(absl::StatusCode::kNotFound)) << "names are exact";
  EXPECT_THAT(PresetTopology(""), StatusIs(absl::StatusCode::kNotFound));
}

// The public facts each preset is built from (presets.cc cites the sources).
TEST(PresetTest, EveryPresetCarriesItsProductsPublicFacts) {
  struct Row {
    const char* preset;
    size_t gpus;
    const char* gfx_name;
    uint32_t gfx_target_version;
    uint64_t vram_gib;
    uint32_t cus;
    uint32_t wave_front_size;
    uint32_t device_id;
    uint32_t num_xcc;
  };
  constexpr Row kRows[] = {
      {"mi300x", 1, "gfx942", 90402, 192, 304, 64, 0x74a1, 8},
      {"mi250x", 1, "gfx90a", 90010, 64, 110, 64, 0x740c, 1},
      {"mi100", 1, "gfx908", 90008, 32, 120, 64, 0x738c, 1},
      {"rx7900xtx", 1, "gfx1100", 110000, 24, 96, 32, 0x744c, 1},
      {"2xmi250x", 2, "gfx90a", 90010, 64, 110, 64, 0x740c, 1},
      {"8xmi300x", 8, "gfx942", 90402, 192, 304, 64, 0x74a1, 8},
      {"2xrx7900xtx", 2, "gfx1100", 110000, 24, 96, 32, 0x744c, 1},
  };
  ASSERT_EQ(std::size(kRows), PresetNames().size());
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.preset);
    ASSERT_OK_AND_ASSIGN(Topology topology, PresetTopology(row.preset));
    ASSERT_EQ(topology.gpus.size(), row.gpus);
    EXPECT_EQ(topology.system_memory_bytes, MemTotal()) << "the CPU node reports the host's RAM";
    EXPECT_EQ(topology.system_memory_limit_bytes, std::nullopt) << "amdgpu's default limit";
    EXPECT_GT(topology.cpu_cores, 0u);
    EXPECT_GT(topology.cpu_max_engine_clk_mhz, 0u);
    for (const GpuConfig& gpu : topology.gpus) {
      SCOPED_TRACE(gpu.gpu_id);
      EXPECT_EQ(gpu.name, row.gfx_name);
      EXPECT_EQ(gpu.gfx_target_version, row.gfx_target_version);
      // The board less the 16 MiB amdgpu keeps, as the bank (and every rocminfo VRAM pool) reports it.
      EXPECT_EQ(gpu.vram_bytes, (row.vram_gib << 30) - (uint64_t{16} << 20));
      EXPECT_EQ(gpu.simd_count, row.cus * gpu.simd_per_cu);
      EXPECT_EQ(gpu.wave_front_size, row.wave_front_size);
      EXPECT_EQ(gpu.vendor_id, 0x1002u);
      EXPECT_EQ(gpu.device_id, row.device_id);
      EXPECT_EQ(gpu.num_xcc, row.num_xcc);
      EXPECT_EQ(gpu.lds_size_in_kb, 64u);
      EXPECT_GT(gpu.max_engine_clk_fcompute, 0u);
      EXPECT_GT(gpu.mem_width, 0u);
      EXPECT_GT(gpu.mem_clk_max, 0u);
      EXPECT_GE(gpu.array_count * gpu.cu_per_simd_array, row.cus) << "the shader arrays hold every CU";
    }
  }
}

TEST(PresetTest, GfxTargetVersionDecodesToTheGfxName) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(Topology topology, PresetTopology(name));
    for (const GpuConfig& gpu : topology.gpus) {
      const uint32_t v = gpu.gfx_target_version;
      EXPECT_EQ(absl::StrCat("gfx", v / 10000, v / 100 % 100, absl::Hex(v % 100)), gpu.name);
    }
  }
}

TEST(PresetTest, EveryPresetIsAcceptedBySimulatorCreate) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(Topology topology, PresetTopology(name));
    EXPECT_THAT(Simulator::Create(std::move(topology)), IsOk());
  }
}

// Every GPU reaches the CPU over PCIe both ways; GPUs of a multi-GPU Instinct preset share one hive and reach
// each other over one XGMI hop both ways; a lone GPU, and the Radeons of 2xrx7900xtx, are in no hive and have
// no link to another GPU.
TEST(PresetTest, GpusLinkToTheCpuOverPcieAndToHiveMatesOverXgmi) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(Topology topology, PresetTopology(name));
    const size_t gpus = topology.gpus.size();
    absl::flat_hash_set<std::pair<uint32_t, uint32_t>> pcie;
    absl::flat_hash_set<std::pair<uint32_t, uint32_t>> xgmi;
    for (const IoLinkConfig& link : topology.io_links) {
      const auto type = static_cast<uint32_t>(link.type);
      if (type == kPcie) {
        EXPECT_EQ(link.weight, 20u);
        EXPECT_TRUE(pcie.insert({link.node_from, link.node_to}).second);
      } else {
        ASSERT_EQ(type, kXgmi);
        EXPECT_EQ(link.weight, 15u);
        EXPECT_TRUE(xgmi.insert({link.node_from, link.node_to}).second);
      }
      EXPECT_GT(link.min_bandwidth, 0u);
      EXPECT_GE(link.max_bandwidth, link.min_bandwidth);
    }
    EXPECT_EQ(pcie.size(), 2 * gpus);
    const bool hive_mates = gpus > 1 && topology.gpus[0].name != "gfx1100";
    EXPECT_EQ(xgmi.size(), hive_mates ? gpus * (gpus - 1) : 0);
    for (uint32_t node = 1; node <= gpus; ++node) {
      EXPECT_TRUE(pcie.contains({node, 0}) && pcie.contains({0, node})) << "node " << node;
      for (uint32_t peer = 1; peer <= gpus; ++peer) {
        if (peer == node) continue;
        EXPECT_EQ(xgmi.contains({node, peer}), hive_mates) << node << " -> " << peer;
      }
      const uint64_t hive = topology.gpus[node - 1].hive_id;
      if (!hive_mates && topology.gpus[0].name != "gfx942") {
        EXPECT_EQ(hive, 0u);
      } else if (gpus == 1) {
        EXPECT_NE(hive, 0u) << "one MI300X OAM keeps its board's XGMI hive";
      } else {
        EXPECT_NE(hive, 0u);
        EXPECT_EQ(hive, topology.gpus[0].hive_id);
      }
    }
  }
}

TEST(PresetTest, EveryGpuHasL1AndL2Caches) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(Topology topology, PresetTopology(name));
    for (const GpuConfig& gpu : topology.gpus) {
      absl::flat_hash_set<uint32_t> levels;
      for (const CacheConfig& cache : gpu.caches) levels.insert(cache.level);
      EXPECT_TRUE(levels.contains(1) && levels.contains(2));
    }
  }
}

TEST(PresetTest, DefaultTopologyIsTheMi300xPreset) {
  ASSERT_OK_AND_ASSIGN(Topology preset, PresetTopology("mi300x"));
  const Topology def = DefaultTopology();
  ASSERT_EQ(def.gpus.size(), 1u);
  EXPECT_EQ(def.gpus[0].gpu_id, preset.gpus[0].gpu_id);
  EXPECT_EQ(def.gpus[0].vram_bytes, preset.gpus[0].vram_bytes);
  EXPECT_EQ(def.io_links.size(), preset.io_links.size());
  EXPECT_EQ(def.system_memory_bytes, preset.system_memory_bytes);
}

}  // namespace
}  // namespace hipmem::kfd_sim
