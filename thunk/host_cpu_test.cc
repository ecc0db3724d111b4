// The host's CPU caches and model name as libhsakmt reads them (host_cpu.h), on a sysfs tree made by the test.
#include "thunk/host_cpu.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

constexpr char kCpuInfo[] =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor\napicid\t\t: 0\n\n"
    "processor\t: 1\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor\napicid\t\t: 2\n\n";

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text << "\n";
}

// One cache index of `cpu` under `dir`.
void WriteIndex(const std::string& dir, int cpu, int index, const std::string& level, const std::string& type,
                const std::string& size, const std::string& list, const std::string& map) {
  const std::string base = dir + "/cpu" + std::to_string(cpu) + "/cache/index" + std::to_string(index) + "/";
  Write(base + "level", level);
  Write(base + "type", type);
  Write(base + "size", size);
  Write(base + "coherency_line_size", "64");
  Write(base + "ways_of_associativity", "8");
  Write(base + "physical_line_partition", "1");
  Write(base + "shared_cpu_list", list);
  Write(base + "shared_cpu_map", map);
}

class HostCpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::string(std::getenv("TEST_TMPDIR")) + "/host_cpu";
    std::filesystem::remove_all(root_);
    paths_.node_dir_prefix = root_ + "/node/node";
    paths_.cpu_dir = root_ + "/cpu";
    paths_.cpuinfo = root_ + "/cpuinfo";
    std::filesystem::create_directories(root_);
    std::ofstream(paths_.cpuinfo) << kCpuInfo;
  }
  // Two CPUs, each with its own L1d and L2, sharing one L3 (listed under CPU 0 only).
  void WriteTwoCpus(const std::string& dir) {
    for (int cpu = 0; cpu < 2; ++cpu) {
      const std::string self = std::to_string(cpu);
      const std::string bit = cpu == 0 ? "00000001" : "00000002";
      WriteIndex(dir, cpu, 0, "1", "Data", "32K", self, bit);
      WriteIndex(dir, cpu, 1, "2", "Unified", "512K", self, bit);
      WriteIndex(dir, cpu, 2, "3", "Unified", "32M", "0-1", "00000003");
    }
    Write(dir + "/cpulist", "0-1");  // not a CPU directory
  }
  std::string root_;
  HostCpuPaths paths_;
};

TEST_F(HostCpuTest, CpuInfoGivesEachProcessorItsApicIdAndModelName) {
  const std::vector<HostProcessor> p = ParseCpuInfo(kCpuInfo);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[1].apicid, 2u);
  EXPECT_EQ(p[0].model_name, "AMD EPYC 7763 64-Core Processor");
  // libhsakmt's 64-byte buffer keeps 63 characters.
  const std::string long_name(80, 'x');
  EXPECT_EQ(ParseCpuInfo("processor\t: 0\nmodel name\t: " + long_name + "\n")[0].model_name, std::string(63, 'x'));
}

TEST_F(HostCpuTest, SharedCachesAreListedOnceUnderTheirFirstCpu) {
  WriteTwoCpus(root_ + "/node/node0");
  const std::vector<Cache> caches = HostCpuCaches(0, ParseCpuInfo(kCpuInfo), paths_);
  ASSERT_EQ(caches.size(), 5u);  // 2 x (L1d, L2) + the shared L3 once
  size_t l3 = 0;
  for (const Cache& c : caches) {
    EXPECT_EQ(c.type & 4u, 4u) << "every CPU cache carries the CPU bit";
    if (c.level == 3) {
      ++l3;
      EXPECT_EQ(c.processor_id_low, 0u);
      EXPECT_EQ(c.size.raw(), 32u << 20) << "sizes in bytes, the suffix applied";
      EXPECT_EQ(c.type, 7u) << "Unified is data and instruction";
      ASSERT_EQ(c.sibling_map.size(), 256u);
      EXPECT_EQ(c.sibling_map[0], 1u);
      EXPECT_EQ(c.sibling_map[2], 1u) << "siblings are indexed by APIC id";
      EXPECT_EQ(c.sibling_map[1], 0u);
    }
    if (c.level == 1) {
      EXPECT_EQ(c.size.raw(), 32u << 10);
      EXPECT_EQ(c.type, 5u);
      EXPECT_EQ(c.cache_line_size, 64u);
      EXPECT_EQ(c.association, 8u);
      EXPECT_EQ(c.cache_lines_per_tag, 1u);
    }
  }
  EXPECT_EQ(l3, 1u);
}

TEST_F(HostCpuTest, WithoutNumaDirectoriesNodeZeroUsesTheCpuDirectory) {
  WriteTwoCpus(root_ + "/cpu");
  EXPECT_EQ(HostCpuCaches(0, ParseCpuInfo(kCpuInfo), paths_).size(), 5u);
  EXPECT_TRUE(HostCpuCaches(1, ParseCpuInfo(kCpuInfo), paths_).empty()) << "only node 0 falls back";
}

TEST_F(HostCpuTest, CpuNodesGetTheHostsCachesAndNameGpuNodesDoNot) {
  WriteTwoCpus(root_ + "/node/node0");
  SystemTopology topology;
  NodeProperties cpu;
  cpu.id = NodeId(0);
  cpu.properties = {{"cpu_cores_count", 2}, {"cpu_core_id_base", 2}};
  NodeProperties gpu;
  gpu.id = NodeId(1);
  gpu.gpu_id = GpuId(0x1234);
  gpu.name = "gfx90a";
  gpu.properties = {{"simd_count", 440}};
  topology.nodes = {cpu, gpu};
  AddHostCpuDetails(topology, paths_);
  EXPECT_EQ(topology.nodes[0].caches.size(), 5u);
  EXPECT_EQ(topology.nodes[0].name, "AMD EPYC 7763 64-Core Processor") << "the processor whose APIC id is the base";
  EXPECT_TRUE(topology.nodes[1].caches.empty());
  EXPECT_EQ(topology.nodes[1].name, "gfx90a");
}

}  // namespace
}  // namespace hipmem::thunk
