// Simulator::WriteSysfs: the topology tree libhsakmt reads.
#include <dirent.h>
#include <stdlib.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"

namespace hipmem::kfd_sim {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::MakeSimulator;
using ::testing::Contains;
using ::testing::Key;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// Parses "name value" lines the way libhsakmt does (sscanf "%s %llu").
std::map<std::string, uint64_t> ReadProperties(const std::string& path) {
  std::map<std::string, uint64_t> properties;
  std::istringstream in(ReadFile(path));
  std::string name;
  uint64_t value = 0;
  while (in >> name >> value) properties[name] = value;
  return properties;
}

std::vector<std::string> ListDir(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  return names;
}

std::string MakeTempDir() {
  const char* base = getenv("TEST_TMPDIR");
  std::string pattern = absl::StrCat(base != nullptr ? base : "/tmp", "/kfd_sysfs_XXXXXX");
  return mkdtemp(pattern.data()) != nullptr ? pattern : std::string();
}

TEST(SimSysfsTest, WritesCpuAndGpuNodesLibhsakmtCanParse) {
  auto sim = MakeSimulator(Mi300xTopology(2));
  const std::string dir = MakeTempDir();
  ASSERT_FALSE(dir.empty());
  const std::string root = dir + "/topology";
  ASSERT_THAT(sim->WriteSysfs(root), IsOk());

  EXPECT_EQ(ReadFile(root + "/generation_id"), "1\n");
  const auto system = ReadProperties(root + "/system_properties");
  EXPECT_THAT(system, UnorderedElementsAre(Key("platform_oem"), Key("platform_id"), Key("platform_rev")));
  EXPECT_THAT(ListDir(root + "/nodes"), UnorderedElementsAre("0", "1", "2"));

  // Node 0: the CPU.
  EXPECT_EQ(ReadFile(root + "/nodes/0/gpu_id"), "0\n");
  const auto cpu = ReadProperties(root + "/nodes/0/properties");
  EXPECT_THAT(cpu, Contains(Pair("cpu_cores_count", sim->topology().cpu_cores)));
  EXPECT_THAT(cpu, Contains(Pair("simd_count", 0u)));
  EXPECT_THAT(cpu, Contains(Pair("mem_banks_count", 1u)));
  EXPECT_THAT(cpu, Contains(Pair("io_links_count", 2u)));
  EXPECT_THAT(cpu, Contains(Pair("caches_count", 0u)));
  EXPECT_THAT(cpu, Contains(Pair("max_engine_clk_ccompute", sim->topology().cpu_max_engine_clk_mhz)));
  const auto cpu_bank = ReadProperties(root + "/nodes/0/mem_banks/0/properties");
  EXPECT_THAT(cpu_bank, Contains(Pair("heap_type", 0u)));
  EXPECT_THAT(cpu_bank, Contains(Pair("size_in_bytes", sim->topology().system_memory_bytes)));
  EXPECT_THAT(ListDir(root + "/nodes/0/io_links"), UnorderedElementsAre("0", "1"));
  EXPECT_THAT(ListDir(root + "/nodes/0/caches"), ::testing::IsEmpty());
  const auto cpu_link = ReadProperties(root + "/nodes/0/io_links/1/properties");
  EXPECT_THAT(cpu_link, Contains(Pair("node_from", 0u)));
  EXPECT_THAT(cpu_link, Contains(Pair("node_to", 2u)));
  EXPECT_THAT(cpu_link, Contains(Pair("type", 2u)));   // PCIe
  EXPECT_THAT(cpu_link, Contains(Pair("flags", 3u)));  // enabled, non-coherent from the CPU side

  // Nodes 1 and 2: the GPUs, in topology order.
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const GpuConfig& gpu = sim->topology().gpus[i];
    const std::string node = absl::StrCat(root, "/nodes/", i + 1);
    EXPECT_EQ(ReadFile(node + "/gpu_id"), absl::StrCat(gpu.gpu_id, "\n"));
    EXPECT_EQ(ReadFile(node + "/name"), "gfx942\n");
    const auto props = ReadProperties(node + "/properties");
    EXPECT_THAT(props, Contains(Pair("simd_count", 1216u)));
    EXPECT_THAT(props, Contains(Pair("drm_render_minor", gpu.drm_render_minor)));
    EXPECT_THAT(props, Contains(Pair("gfx_target_version", 90402u)));
    EXPECT_THAT(props, Contains(Pair("local_mem_size", 0u)));
    EXPECT_THAT(props, Contains(Pair("vendor_id", 0x1002u)));
    EXPECT_THAT(props, Contains(Pair("device_id", gpu.device_id)));
    EXPECT_THAT(props, Contains(Pair("location_id", gpu.location_id)));
    EXPECT_THAT(props, Contains(Pair("capability", gpu.capability | gpu.asic_revision << 22)));
    EXPECT_THAT(props, Contains(Pair("num_xcc", 8u)));
    EXPECT_THAT(props, Contains(Pair("hive_id", gpu.hive_id)));
    EXPECT_THAT(props, Contains(Pair("mem_banks_count", 1u)));
    EXPECT_THAT(props, Contains(Pair("io_links_count", 2u)));  // the CPU and the other GPU
    EXPECT_THAT(props, Contains(Pair("caches_count", gpu.caches.size())));
    const auto bank = ReadProperties(node + "/mem_banks/0/properties");
    EXPECT_THAT(bank, Contains(Pair("heap_type", 1u)));  // FRAME_BUFFER_PUBLIC
    EXPECT_THAT(bank, Contains(Pair("size_in_bytes", gpu.vram_bytes)));
    EXPECT_THAT(bank, Contains(Pair("width", gpu.mem_width)));
    EXPECT_THAT(ListDir(node + "/caches"), ::testing::SizeIs(gpu.caches.size()));
    const auto l2 = ReadProperties(node + "/caches/3/properties");
    EXPECT_THAT(l2, Contains(Pair("level", gpu.caches[3].level)));
    EXPECT_THAT(l2, Contains(Pair("size", gpu.caches[3].size_kib)));
    EXPECT_THAT(l2, Contains(Pair("processor_id_low", props.at("simd_id_base"))));
    const auto to_cpu = ReadProperties(node + "/io_links/0/properties");
    EXPECT_THAT(to_cpu, Contains(Pair("node_from", static_cast<uint64_t>(i + 1))));
    EXPECT_THAT(to_cpu, Contains(Pair("node_to", 0u)));
    EXPECT_THAT(to_cpu, Contains(Pair("type", 2u)));  // PCIe
    EXPECT_THAT(to_cpu, Contains(Pair("weight", 20u)));
    const auto to_peer = ReadProperties(node + "/io_links/1/properties");
    EXPECT_THAT(to_peer, Contains(Pair("node_to", static_cast<uint64_t>(2 - i))));
    EXPECT_THAT(to_peer, Contains(Pair("type", 11u)));  // XGMI
    EXPECT_THAT(to_peer, Contains(Pair("weight", 15u)));
  }

  // Writing again over an existing tree succeeds.
  EXPECT_THAT(sim->WriteSysfs(root), IsOk());
}

// What libhsakmt relies on: each node's counts match the entries written, and every link starts at the
// node it is listed under.
TEST(SimSysfsTest, EveryPresetWritesCountsMatchingItsEntries) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(Topology topology, PresetTopology(name));
    auto sim = MakeSimulator(topology);
    const std::string dir = MakeTempDir();
    ASSERT_FALSE(dir.empty());
    ASSERT_THAT(sim->WriteSysfs(dir), IsOk());
    ASSERT_THAT(ListDir(dir + "/nodes"), ::testing::SizeIs(topology.gpus.size() + 1));
    for (size_t node = 0; node <= topology.gpus.size(); ++node) {
      SCOPED_TRACE(node);
      const std::string node_dir = absl::StrCat(dir, "/nodes/", node);
      const auto props = ReadProperties(node_dir + "/properties");
      const std::vector<std::string> links = ListDir(node_dir + "/io_links");
      EXPECT_EQ(props.at("io_links_count"), links.size());
      EXPECT_EQ(props.at("caches_count"), ListDir(node_dir + "/caches").size());
      for (size_t l = 0; l < links.size(); ++l) {
        const auto link = ReadProperties(absl::StrCat(node_dir, "/io_links/", l, "/properties"));
        EXPECT_EQ(link.at("node_from"), node);
        EXPECT_NE(link.at("node_to"), node);
      }
      if (node > 0) {
        const GpuConfig& gpu = topology.gpus[node - 1];
        EXPECT_EQ(ReadProperties(node_dir + "/mem_banks/0/properties").at("size_in_bytes"), gpu.vram_bytes);
        EXPECT_EQ(props.at("local_mem_size"), 0u) << "current kernels report VRAM only in mem_banks";
      }
    }
  }
}

TEST(SimSysfsTest, CacheSiblingMapMarksTheCusSharingIt) {
  Topology topology = DefaultTopology();
  topology.gpus[0].caches = {
      CacheConfig{.level = 1, .size_kib = 16, .cache_line_size = 64, .type = 9, .cus_shared = 2},
      CacheConfig{.level = 2, .size_kib = 4096, .cache_line_size = 128, .type = 9, .cus_shared = 38},
  };
  auto sim = MakeSimulator(topology);
  const std::string dir = MakeTempDir();
  ASSERT_THAT(sim->WriteSysfs(dir), IsOk());
  // At least 32 entries (the kernel's 4-byte map), whole 32-entry words beyond that; the last line.
  std::string l1_map = "sibling_map 1,1";
  for (int i = 2; i < 32; ++i) l1_map += ",0";
  EXPECT_THAT(ReadFile(dir + "/nodes/1/caches/0/properties"), ::testing::EndsWith("\n" + l1_map + "\n"));
  std::string l2_map = "sibling_map 1";
  for (int i = 1; i < 64; ++i) l2_map += i < 38 ? ",1" : ",0";
  EXPECT_THAT(ReadFile(dir + "/nodes/1/caches/1/properties"), ::testing::EndsWith("\n" + l2_map + "\n"));
}

TEST(SimSysfsTest, UnwritableRootIsAnError) {
  auto sim = MakeSimulator();
  EXPECT_FALSE(sim->WriteSysfs("/proc/kfd_sim_cannot_write_here").ok());
}

}  // namespace
}  // namespace hipmem::kfd_sim
