// ReadTopology against the simulator's sysfs trees: every preset parses back to the values it was written
// from, and malformed files are refused with the file and line named.
#include "thunk/topology.h"

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::SizeIs;

std::string MakeTempDir() {
  const char* base = getenv("TEST_TMPDIR");
  std::string pattern = absl::StrCat(base != nullptr ? base : "/tmp", "/topology_test_XXXXXX");
  return mkdtemp(pattern.data()) != nullptr ? pattern : std::string();
}

// Writes `topology`'s sysfs tree to a fresh directory; returns the directory ("" on failure).
std::string WriteTree(kfd_sim::Topology topology) {
  absl::StatusOr<std::unique_ptr<kfd_sim::Simulator>> sim = kfd_sim::Simulator::Create(std::move(topology));
  if (!sim.ok()) return "";
  const std::string dir = MakeTempDir();
  if (dir.empty() || !(*sim)->WriteSysfs(dir).ok()) return "";
  return dir;
}

void Overwrite(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::trunc);
  out << contents;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(TopologyTest, EveryPresetParsesBackToTheValuesItWasWrittenFrom) {
  for (const std::string& name : kfd_sim::PresetNames()) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(kfd_sim::Topology preset, kfd_sim::PresetTopology(name));
    const std::string dir = WriteTree(preset);
    ASSERT_FALSE(dir.empty());
    ASSERT_OK_AND_ASSIGN(SystemTopology topology, ReadTopology(dir));

    ASSERT_THAT(topology.nodes, SizeIs(preset.gpus.size() + 1));
    const NodeProperties& cpu = topology.nodes[0];
    EXPECT_FALSE(cpu.is_gpu());
    EXPECT_EQ(cpu.Get("cpu_cores_count"), preset.cpu_cores);
    ASSERT_THAT(cpu.mem_banks, SizeIs(1));
    EXPECT_EQ(cpu.mem_banks[0].heap_type, HeapType::kSystem);
    EXPECT_EQ(cpu.mem_banks[0].size, Bytes(preset.system_memory_bytes));
    EXPECT_THAT(cpu.caches, SizeIs(0));
    EXPECT_EQ(cpu.pci_revision, std::nullopt) << "a CPU node has no PCI function";

    size_t gpus = 0;
    for (size_t n = 0; n < topology.nodes.size(); ++n) {
      SCOPED_TRACE(n);
      const NodeProperties& node = topology.nodes[n];
      EXPECT_EQ(node.id, NodeId(static_cast<uint32_t>(n)));
      // The links of this node, in the order the preset lists them.
      std::vector<const kfd_sim::IoLinkConfig*> want_links;
      for (const kfd_sim::IoLinkConfig& link : preset.io_links) {
        if (link.node_from == n) want_links.push_back(&link);
      }
      ASSERT_THAT(node.io_links, SizeIs(want_links.size()));
      EXPECT_EQ(node.Get("io_links_count"), want_links.size());
      for (size_t l = 0; l < want_links.size(); ++l) {
        const IoLink& got = node.io_links[l];
        EXPECT_EQ(static_cast<uint32_t>(got.type), static_cast<uint32_t>(want_links[l]->type));
        EXPECT_EQ(got.node_from, NodeId(static_cast<uint32_t>(n)));
        EXPECT_EQ(got.node_to, NodeId(want_links[l]->node_to));
        EXPECT_EQ(got.weight, want_links[l]->weight);
        EXPECT_EQ(got.min_bandwidth, want_links[l]->min_bandwidth);
        EXPECT_EQ(got.max_bandwidth, want_links[l]->max_bandwidth);
        EXPECT_EQ(got.flags, want_links[l]->flags);
      }
      if (n == 0) continue;

      const kfd_sim::GpuConfig& gpu = preset.gpus[n - 1];
      ++gpus;
      ASSERT_TRUE(node.is_gpu());
      EXPECT_EQ(node.pci_revision, gpu.pci_revision) << "nodes/N/revision, which amdgpu.ids keys names by";
      EXPECT_EQ(*node.gpu_id, GpuId(gpu.gpu_id));
      EXPECT_EQ(node.name, gpu.name);
      EXPECT_EQ(node.gfx_major() * 10000 + node.gfx_minor() * 100 + node.gfx_stepping(), gpu.gfx_target_version);
      EXPECT_EQ(absl::StrCat("gfx", node.gfx_major(), node.gfx_minor(), absl::Hex(node.gfx_stepping())), gpu.name);
      EXPECT_EQ(node.Get("simd_count"), gpu.simd_count);
      EXPECT_EQ(node.Get("wave_front_size"), gpu.wave_front_size);
      EXPECT_EQ(node.Get("hive_id"), gpu.hive_id);
      EXPECT_EQ(node.Get("num_xcc"), gpu.num_xcc);
      EXPECT_EQ(node.Get("local_mem_size"), 0u);
      ASSERT_THAT(node.mem_banks, SizeIs(1));
      EXPECT_EQ(node.mem_banks[0].heap_type, gpu.large_bar ? HeapType::kFrameBufferPublic : HeapType::kFrameBufferPrivate);
      EXPECT_EQ(node.mem_banks[0].size, Bytes(gpu.vram_bytes));
      ASSERT_THAT(node.caches, SizeIs(gpu.caches.size()));
      for (size_t c = 0; c < gpu.caches.size(); ++c) {
        const Cache& got = node.caches[c];
        EXPECT_EQ(got.level, gpu.caches[c].level);
        EXPECT_EQ(got.size, Bytes::KiB(gpu.caches[c].size_kib));
        EXPECT_EQ(got.cache_line_size, gpu.caches[c].cache_line_size);
        EXPECT_EQ(got.type, gpu.caches[c].type);
        EXPECT_EQ(got.processor_id_low, node.Get("simd_id_base"));
        ASSERT_GE(got.sibling_map.size(), gpu.caches[c].cus_shared);
        EXPECT_EQ(got.sibling_map[gpu.caches[c].cus_shared - 1], 1u);
      }
    }
    EXPECT_EQ(gpus, preset.gpus.size());
  }
}

// Each row rewrites one file of a valid tree; ReadTopology must refuse it, naming the file (and line).
TEST(TopologyTest, MalformedFilesAreInvalidArgumentNamingFileAndLine) {
  struct Row {
    const char* what;
    const char* file;  // under the tree's root
    const char* contents;
    const char* where;  // expected in the message
  };
  const Row kRows[] = {
      {"value not a number", "nodes/1/properties", "cpu_cores_count 0\nsimd_count abc\n", "properties:2)"},
      {"negative value", "nodes/1/properties", "simd_count -4\n", "properties:1)"},
      {"value too large", "nodes/1/properties", "simd_count 18446744073709551616\n", "properties:1)"},
      {"three fields", "nodes/1/properties", "simd_count 12 13\n", "properties:1)"},
      {"name only", "nodes/1/properties", "simd_count\n", "properties:1)"},
      {"leading space", "nodes/1/properties", " simd_count 4\n", "properties:1)"},
      {"blank line", "nodes/1/properties", "simd_count 4\n\ncpu_cores_count 0\n", "properties:2)"},
      {"repeated key", "nodes/1/properties", "simd_count 4\nsimd_count 8\n", "properties:2)"},
      {"sibling_map outside a cache", "nodes/1/properties", "sibling_map 1,0\n", "properties:1)"},
      {"sibling_map not bits", "nodes/1/caches/0/properties", "level 1\nsize 16\nsibling_map 1,2\n",
       "caches/0/properties:3)"},
      {"sibling_map ending in a comma", "nodes/1/caches/0/properties", "level 1\nsize 16\nsibling_map 1,0,\n",
       "caches/0/properties:3)"},
      {"repeated sibling_map", "nodes/1/caches/0/properties", "level 1\nsibling_map 1\nsize 16\nsibling_map 0\n",
       "caches/0/properties:4)"},
      {"signed value", "nodes/1/properties", "simd_count +4\n", "properties:1)"},
      {"carriage return", "nodes/1/properties", "simd_count 4\r\n", "properties:1)"},
      {"name with a dash", "nodes/1/properties", "simd-count 4\n", "properties:1)"},
      {"bad system_properties", "system_properties", "platform_oem 0x41\n", "system_properties:1)"},
      {"bad memory bank", "nodes/1/mem_banks/0/properties", "heap_type 1\nsize_in_bytes 1e9\n", "properties:2)"},
      {"io link value beyond 32 bits", "nodes/1/io_links/0/properties",
       "type 2\nnode_from 1\nnode_to 0\nweight 4294967296\n", "io_links/0/properties): weight"},
      {"io link without node_to", "nodes/1/io_links/0/properties", "type 2\nnode_from 1\n",
       "io_links/0/properties): missing node_to"},
      {"io link under another node", "nodes/1/io_links/0/properties", "type 2\nnode_from 0\nnode_to 1\n",
       "io_links/0/properties): link 0 -> 1"},
      {"io link to itself", "nodes/1/io_links/0/properties", "type 2\nnode_from 1\nnode_to 1\n",
       "io_links/0/properties): link 1 -> 1"},
      {"io link to a missing node", "nodes/1/io_links/0/properties", "type 2\nnode_from 1\nnode_to 9\n",
       "links to node 9"},
      {"cache without a level", "nodes/1/caches/0/properties", "size 16\n", "missing level"},
  };
  ASSERT_OK_AND_ASSIGN(kfd_sim::Topology preset, kfd_sim::PresetTopology("mi300x"));
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    const std::string dir = WriteTree(preset);
    ASSERT_FALSE(dir.empty());
    ASSERT_THAT(ReadTopology(dir), IsOk()) << "the unmodified tree parses";
    Overwrite(absl::StrCat(dir, "/", row.file), row.contents);
    EXPECT_THAT(ReadTopology(dir), StatusIs(absl::StatusCode::kInvalidArgument,
                                            AllOf(HasSubstr(absl::StrCat(dir, "/", row.file)), HasSubstr(row.where))));
  }
}

TEST(TopologyTest, KernelSiblingMapLineIsAccepted) {
  ASSERT_OK_AND_ASSIGN(kfd_sim::Topology preset, kfd_sim::PresetTopology("mi100"));
  const std::string dir = WriteTree(preset);
  ASSERT_FALSE(dir.empty());
  const std::string cache = dir + "/nodes/1/caches/0/properties";
  EXPECT_THAT(ReadAll(cache), HasSubstr("\nsibling_map 1,0,0,"));
  ASSERT_OK_AND_ASSIGN(SystemTopology topology, ReadTopology(dir));
  ASSERT_THAT(topology.nodes[1].caches, SizeIs(preset.gpus[0].caches.size()));
  EXPECT_THAT(topology.nodes[1].caches[0].sibling_map, SizeIs(32));
}

// The kernel prints "%s %llu"; a tab separates as well, and a captured file longer than one read is read whole.
TEST(TopologyTest, TabsAndLongFilesParse) {
  ASSERT_OK_AND_ASSIGN(kfd_sim::Topology preset, kfd_sim::PresetTopology("mi300x"));
  const std::string dir = WriteTree(preset);
  ASSERT_FALSE(dir.empty());
  const std::string path = dir + "/nodes/1/properties";
  std::string contents = ReadAll(path);
  ASSERT_THAT(contents, HasSubstr("\nsimd_count "));
  contents.replace(contents.find("\nsimd_count ") + 11, 1, "\t \t");
  for (int i = 0; contents.size() < 20000; ++i) absl::StrAppend(&contents, "captured_extra_key_", i, " ", i, "\n");
  Overwrite(path, contents);
  ASSERT_OK_AND_ASSIGN(SystemTopology topology, ReadTopology(dir));
  EXPECT_EQ(topology.nodes[1].Get("simd_count"), preset.gpus[0].simd_count);
  EXPECT_EQ(topology.nodes[1].Get("captured_extra_key_1"), 1u);
  const std::string last = contents.substr(contents.rfind("captured_extra_key_"));
  const uint64_t last_index = std::stoull(last.substr(last.find(' ') + 1));
  EXPECT_EQ(topology.nodes[1].Get(absl::StrCat("captured_extra_key_", last_index)), last_index)
      << "the key on the file's last line, past the first 8 KiB";
  EXPECT_EQ(topology.nodes[1].Get("io_links_count"), preset.gpus.size());
}

TEST(TopologyTest, MissingIoLinkThatTheCountPromisesIsNotFound) {
  ASSERT_OK_AND_ASSIGN(kfd_sim::Topology preset, kfd_sim::PresetTopology("2xmi250x"));
  const std::string dir = WriteTree(preset);
  ASSERT_FALSE(dir.empty());
  std::filesystem::remove_all(dir + "/nodes/2/io_links/1");
  EXPECT_THAT(ReadTopology(dir), StatusIs(absl::StatusCode::kNotFound, HasSubstr("nodes/2/io_links/1/properties")));
}

TEST(TopologyTest, MissingRootIsNotFound) {
  EXPECT_THAT(ReadTopology("/nonexistent/kfd/topology"), StatusIs(absl::StatusCode::kNotFound));
}

// A GPU whose render node libhsakmt cannot open is left out of the topology: the other nodes are numbered again and
// the links into the dropped node go, the rest following the new numbers (topology.c map_user_to_sysfs_node_id).
TEST(TopologyTest, WithoutNodesRenumbersTheRestAndDropsTheLinksIntoTheDroppedNode) {
  ASSERT_OK_AND_ASSIGN(kfd_sim::Topology preset, kfd_sim::PresetTopology("2xmi250x"));
  const std::string dir = WriteTree(preset);
  ASSERT_FALSE(dir.empty());
  ASSERT_OK_AND_ASSIGN(SystemTopology full, ReadTopology(dir));
  ASSERT_THAT(full.nodes, SizeIs(3));  // the CPU, then two GCDs linked to it and, by XGMI, to each other
  ASSERT_TRUE(full.nodes[1].is_gpu() && full.nodes[2].is_gpu());
  const GpuId kept_gpu = *full.nodes[2].gpu_id;
  const size_t kept_links = full.nodes[2].io_links.size();

  const SystemTopology t = WithoutNodes(full, {NodeId(1)});
  ASSERT_THAT(t.nodes, SizeIs(2));
  EXPECT_EQ(t.nodes[0].id, NodeId(0));
  EXPECT_FALSE(t.nodes[0].is_gpu());
  EXPECT_EQ(t.nodes[1].id, NodeId(1));
  EXPECT_EQ(t.nodes[1].gpu_id, kept_gpu);
  EXPECT_EQ(t.nodes[1].Get("drm_render_minor"), full.nodes[2].Get("drm_render_minor"));
  EXPECT_THAT(t.nodes[1].io_links, SizeIs(kept_links - 1));  // its XGMI link to the dropped GCD is gone
  for (const NodeProperties& node : t.nodes) {
    SCOPED_TRACE(node.id.raw());
    EXPECT_FALSE(node.io_links.empty());
    for (const IoLink& link : node.io_links) {
      EXPECT_EQ(link.node_from, node.id);
      EXPECT_NE(link.node_to, node.id);
      EXPECT_LT(link.node_to.raw(), t.nodes.size());
    }
  }
  // The CPU's link to the second GCD now ends at node 1, with what it carried before.
  const auto to_gcd = [](const NodeProperties& cpu, NodeId to) {
    for (const IoLink& link : cpu.io_links) {
      if (link.node_to == to) return link.weight;
    }
    return 0u;
  };
  EXPECT_EQ(to_gcd(t.nodes[0], NodeId(1)), to_gcd(full.nodes[0], NodeId(2)));
  EXPECT_NE(to_gcd(t.nodes[0], NodeId(1)), 0u);
  EXPECT_EQ(t.generation_id, full.generation_id);

  // Nothing to drop (an id naming no node included): the same topology.
  const SystemTopology same = WithoutNodes(full, {NodeId(7)});
  ASSERT_THAT(same.nodes, SizeIs(3));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(same.nodes[i].id, full.nodes[i].id);
    EXPECT_EQ(same.nodes[i].io_links.size(), full.nodes[i].io_links.size());
  }
}

}  // namespace
}  // namespace hipmem::thunk
