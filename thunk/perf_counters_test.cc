// The counter tables, the per-node properties cache and the trace registry (perf_counters.h) on simulated machines
// and on hand-made nodes of the families no preset has.
#include "thunk/perf_counters.h"

#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "hsakmt/hsakmttypes.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

constexpr NodeId kCpuNode(0);
constexpr NodeId kGpuNode(1);

std::unique_ptr<Kfd> OpenPreset(const std::string& preset) {
  absl::StatusOr<kfd_sim::Topology> topology = kfd_sim::PresetTopology(preset);
  EXPECT_TRUE(topology.ok()) << topology.status();
  absl::StatusOr<std::shared_ptr<SimMachine>> machine = SimMachine::Create(*topology);
  EXPECT_TRUE(machine.ok()) << machine.status();
  absl::StatusOr<std::unique_ptr<KfdDevice>> device = OpenSimKfdDevice(*machine);
  EXPECT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<Kfd>> kfd = Kfd::Open(*std::move(device));
  EXPECT_TRUE(kfd.ok()) << kfd.status();
  return kfd.ok() ? *std::move(kfd) : nullptr;
}

// A GPU node of the given gfx_target_version, as the sysfs parser would have read it.
NodeProperties GpuNode(uint64_t gfx_target_version) {
  NodeProperties node;
  node.id = NodeId(1);
  node.gpu_id = GpuId(0x1234);
  node.properties["gfx_target_version"] = gfx_target_version;
  return node;
}

uint32_t TotalCounters(std::span<const PerfCounterBlock> table) {
  uint32_t n = 0;
  for (const PerfCounterBlock& block : table) n += block.NumCounters();
  return n;
}

// One privileged SQ counter (BlockIndex 14), as a caller would hand-build it.
HsaCounter PrivilegedSq(uint64_t id, HSA_PROFILE_TYPE type = HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE) {
  HsaCounter c;
  std::memset(&c, 0, sizeof(c));
  c.Type = type;
  c.CounterId = id;
  c.CounterSizeInBits = 64;
  c.BlockIndex = static_cast<HSAuint32>(PerfBlock::kSq);
  return c;
}

TEST(PerfCounterTableTest, EveryGfx9PresetGetsTheGfx9Table) {
  for (const char* preset : {"mi300x", "mi250x", "mi100"}) {
    SCOPED_TRACE(preset);
    std::unique_ptr<Kfd> kfd = OpenPreset(preset);
    ASSERT_NE(kfd, nullptr);
    ASSERT_OK_AND_ASSIGN(const NodeProperties* node, kfd->Node(kGpuNode));
    ASSERT_OK_AND_ASSIGN(std::span<const PerfCounterBlock> table, PerfCounterTable(*node));
    EXPECT_EQ(table.size(), 20u);
    EXPECT_EQ(TotalCounters(table), 3289u);
  }
}

TEST(PerfCounterTableTest, Gfx9SqBlockSkipsTheUnusedIds) {
  ASSERT_OK_AND_ASSIGN(std::span<const PerfCounterBlock> table, PerfCounterTable(GpuNode(90402)));
  const PerfCounterBlock* sq = nullptr;
  for (const PerfCounterBlock& block : table) {
    if (block.block == PerfBlock::kSq) sq = &block;
  }
  ASSERT_NE(sq, nullptr);
  EXPECT_EQ(sq->slots, 16u);
  EXPECT_EQ(sq->NumCounters(), 301u) << "ids 1-183 and 255-372";
  ASSERT_EQ(sq->counter_ids.size(), 2u);
  EXPECT_EQ(sq->counter_ids[0].first, 1u);
  EXPECT_EQ(sq->counter_ids[0].last, 183u);
  EXPECT_EQ(sq->counter_ids[1].first, 255u);
  EXPECT_EQ(sq->counter_ids[1].last, 372u);
}

TEST(PerfCounterTableTest, Gfx10HasItsOwnTableWithoutTheGeometryBlocks) {
  ASSERT_OK_AND_ASSIGN(std::span<const PerfCounterBlock> table, PerfCounterTable(GpuNode(100300)));
  EXPECT_EQ(table.size(), 15u);
  EXPECT_EQ(TotalCounters(table), 3390u);
  for (const PerfCounterBlock& block : table) {
    EXPECT_NE(block.block, PerfBlock::kIa);
    EXPECT_NE(block.block, PerfBlock::kVgt);
    EXPECT_NE(block.block, PerfBlock::kTcc);
  }
}

TEST(PerfCounterTableTest, TablesAreInBlockOrderWithDisjointAscendingIds) {
  for (uint64_t gfx : {90402u, 100300u}) {
    SCOPED_TRACE(gfx);
    ASSERT_OK_AND_ASSIGN(std::span<const PerfCounterBlock> table, PerfCounterTable(GpuNode(gfx)));
    std::optional<uint32_t> previous_block;
    for (const PerfCounterBlock& block : table) {
      const uint32_t index = static_cast<uint32_t>(block.block);
      EXPECT_LT(index, kPerfBlockCount);
      if (previous_block.has_value()) {
        EXPECT_GT(index, *previous_block);
      }
      previous_block = index;
      EXPECT_GT(block.slots, 0u);
      EXPECT_EQ(block.counter_size_in_bits, 64u);
      EXPECT_EQ(block.counter_mask, ~uint64_t{0});
      std::optional<uint32_t> previous_last;
      for (const CounterIdRange& range : block.counter_ids) {
        EXPECT_LE(range.first, range.last);
        if (previous_last.has_value()) {
          EXPECT_GT(range.first, *previous_last + 1) << "ranges would merge";
        }
        previous_last = range.last;
      }
    }
  }
}

TEST(PerfCounterTableTest, FamiliesWithoutATableAndCpuNodesAreInvalidParameter) {
  struct Row {
    const char* what;
    NodeProperties node;
  };
  NodeProperties cpu;
  cpu.id = kCpuNode;
  const Row rows[] = {
      {"gfx1100 (upstream has no table)", GpuNode(110000)},
      {"gfx1200 (upstream has no table)", GpuNode(120000)},
      {"gfx803 (not carried)", GpuNode(80003)},
      {"cpu node", cpu},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    const absl::StatusOr<std::span<const PerfCounterBlock>> table = PerfCounterTable(row.node);
    EXPECT_THAT(table.status(), StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_EQ(ToHsakmtStatus(table.status()), HSAKMT_STATUS_INVALID_PARAMETER);
  }
}

TEST(PerfCountersTest, PropertiesAreBuiltOncePerNodeAndShared) {
  std::unique_ptr<Kfd> kfd = OpenPreset("mi300x");
  ASSERT_NE(kfd, nullptr);
  PerfCounters counters(*kfd);
  // Several threads ask at once; all get the one table.
  std::vector<const HsaCounterProperties*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<const HsaCounterProperties*> p = counters.CounterProperties(kGpuNode);
      if (p.ok()) seen[i] = *p;
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_NE(seen[0], nullptr);
  for (const HsaCounterProperties* p : seen) EXPECT_EQ(p, seen[0]);
  EXPECT_EQ(seen[0]->NumBlocks, 20u);
  ASSERT_OK_AND_ASSIGN(const HsaCounterProperties* again, counters.CounterProperties(kGpuNode));
  EXPECT_EQ(again, seen[0]);
}

TEST(PerfCountersTest, LayoutMatchesTheTableBlockByBlock) {
  std::unique_ptr<Kfd> kfd = OpenPreset("mi250x");
  ASSERT_NE(kfd, nullptr);
  PerfCounters counters(*kfd);
  ASSERT_OK_AND_ASSIGN(const HsaCounterProperties* props, counters.CounterProperties(kGpuNode));
  ASSERT_OK_AND_ASSIGN(const NodeProperties* node, kfd->Node(kGpuNode));
  ASSERT_OK_AND_ASSIGN(std::span<const PerfCounterBlock> table, PerfCounterTable(*node));
  ASSERT_EQ(props->NumBlocks, table.size());
  uint32_t slots = 0;
  const HsaCounterBlockProperties* block = &props->Blocks[0];
  for (const PerfCounterBlock& expected : table) {
    SCOPED_TRACE(static_cast<uint32_t>(expected.block));
    slots += expected.slots;
    EXPECT_EQ(block->NumCounters, expected.NumCounters());
    EXPECT_EQ(block->NumConcurrent, expected.slots);
    uint32_t i = 0;
    for (const CounterIdRange& range : expected.counter_ids) {
      for (uint32_t id = range.first; id <= range.last; ++id, ++i) {
        const HsaCounter& c = block->Counters[i];
        const uint64_t counter_id = c.CounterId;
        EXPECT_EQ(counter_id, id);
        EXPECT_EQ(c.BlockIndex, static_cast<uint32_t>(expected.block));
      }
    }
    block = reinterpret_cast<const HsaCounterBlockProperties*>(&block->Counters[block->NumCounters]);
  }
  EXPECT_EQ(props->NumConcurrent, slots);
}

TEST(PerfCountersTest, UnknownNodeIsInvalidNodeUnitAndGfx11IsInvalidParameter) {
  std::unique_ptr<Kfd> kfd = OpenPreset("rx7900xtx");
  ASSERT_NE(kfd, nullptr);
  PerfCounters counters(*kfd);
  const absl::StatusOr<const HsaCounterProperties*> unknown = counters.CounterProperties(NodeId(99));
  EXPECT_EQ(ToHsakmtStatus(unknown.status()), HSAKMT_STATUS_INVALID_NODE_UNIT);
  const absl::StatusOr<const HsaCounterProperties*> gfx11 = counters.CounterProperties(kGpuNode);
  EXPECT_EQ(ToHsakmtStatus(gfx11.status()), HSAKMT_STATUS_INVALID_PARAMETER);
  const HsaCounter sq = PrivilegedSq(1);
  EXPECT_THAT(counters.RegisterTrace(kGpuNode, std::span(&sq, 1)).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(PerfCountersTest, RegisterTraceRefusesWhatUpstreamRefuses) {
  std::unique_ptr<Kfd> kfd = OpenPreset("mi300x");
  ASSERT_NE(kfd, nullptr);
  PerfCounters counters(*kfd);
  const HsaCounter sq = PrivilegedSq(1);
  HsaCounter bad_block = sq;
  bad_block.BlockIndex = kPerfBlockCount;
  HsaCounter srbm = sq;  // a block gfx9 does not have
  srbm.BlockIndex = static_cast<HSAuint32>(PerfBlock::kSrbm);
  HsaCounter nonpriv = sq;
  nonpriv.Type = HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE;
  HsaCounter unknown_type = sq;  // past PRIVILEGED_STREAMING: skipped, as upstream
  unknown_type.Type = static_cast<HSA_PROFILE_TYPE>(7);
  const std::vector<HsaCounter> too_many(513, sq);
  const std::vector<HsaCounter> over_slots(17, sq);  // SQ has 16 slots
  struct Row {
    const char* what;
    NodeId node;
    std::vector<HsaCounter> counters;
    HSAKMT_STATUS expected;
  };
  const Row rows[] = {
      {"no counters", kGpuNode, {}, HSAKMT_STATUS_INVALID_PARAMETER},
      {"unknown node", NodeId(9), {sq}, HSAKMT_STATUS_INVALID_NODE_UNIT},
      {"513 counters", kGpuNode, too_many, HSAKMT_STATUS_NO_MEMORY},
      {"block index past the last block", kGpuNode, {sq, bad_block}, HSAKMT_STATUS_INVALID_PARAMETER},
      {"only non-privileged counters", kGpuNode, {nonpriv, unknown_type}, HSAKMT_STATUS_INVALID_PARAMETER},
      {"a block this GPU does not have", kGpuNode, {srbm}, HSAKMT_STATUS_INVALID_PARAMETER},
      {"more counters than slots", kGpuNode, over_slots, HSAKMT_STATUS_INVALID_PARAMETER},
      {"the CPU node", kCpuNode, {sq}, HSAKMT_STATUS_INVALID_PARAMETER},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(ToHsakmtStatus(counters.RegisterTrace(row.node, row.counters).status()), row.expected);
  }
}

TEST(PerfCountersTest, RegisteredTraceValidatesButCannotStart) {
  std::unique_ptr<Kfd> kfd = OpenPreset("mi300x");
  ASSERT_NE(kfd, nullptr);
  PerfCounters counters(*kfd);
  HsaCounter nonpriv = PrivilegedSq(3);
  nonpriv.Type = HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE;
  const std::vector<HsaCounter> asked = {PrivilegedSq(1), PrivilegedSq(2, HSA_PROFILE_TYPE_PRIVILEGED_STREAMING),
                                         nonpriv};
  ASSERT_OK_AND_ASSIGN(RegisteredTrace trace, counters.RegisterTrace(kGpuNode, asked));
  EXPECT_NE(trace.id.raw(), 0u);
  EXPECT_EQ(trace.passes, 1u);
  EXPECT_EQ(trace.min_buffer_size, Bytes(4096)) << "two 64-bit counters, rounded up to a page";
  ASSERT_OK_AND_ASSIGN(RegisteredTrace second, counters.RegisterTrace(kGpuNode, asked));
  EXPECT_NE(second.id, trace.id);

  uint64_t buffer[2] = {};
  EXPECT_THAT(counters.AcquireTraceAccess(kGpuNode, trace.id), IsOk());
  EXPECT_EQ(ToHsakmtStatus(counters.AcquireTraceAccess(NodeId(9), trace.id)), HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(ToHsakmtStatus(counters.StartTrace(trace.id, nullptr, Bytes(16))), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(ToHsakmtStatus(counters.StartTrace(trace.id, buffer, Bytes(0))), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(ToHsakmtStatus(counters.StartTrace(trace.id, buffer, Bytes(sizeof(buffer)))), HSAKMT_STATUS_UNAVAILABLE);
  EXPECT_EQ(ToHsakmtStatus(counters.QueryTrace(trace.id)), HSAKMT_STATUS_NO_MEMORY);
  EXPECT_EQ(ToHsakmtStatus(counters.StopTrace(trace.id)), HSAKMT_STATUS_UNAVAILABLE);
  EXPECT_THAT(counters.ReleaseTraceAccess(trace.id), IsOk());
  EXPECT_EQ(ToHsakmtStatus(counters.UnregisterTrace(NodeId(9), trace.id)), HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(ToHsakmtStatus(counters.UnregisterTrace(kCpuNode, trace.id)), HSAKMT_STATUS_INVALID_NODE_UNIT)
      << "registered on the GPU node";
  EXPECT_THAT(counters.UnregisterTrace(kGpuNode, trace.id), IsOk());

  // Gone: every call answers INVALID_HANDLE; the other trace is untouched.
  EXPECT_EQ(ToHsakmtStatus(counters.UnregisterTrace(kGpuNode, trace.id)), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(ToHsakmtStatus(counters.AcquireTraceAccess(kGpuNode, trace.id)), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(ToHsakmtStatus(counters.ReleaseTraceAccess(trace.id)), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(ToHsakmtStatus(counters.StartTrace(trace.id, buffer, Bytes(sizeof(buffer)))), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(ToHsakmtStatus(counters.QueryTrace(trace.id)), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(ToHsakmtStatus(counters.StopTrace(trace.id)), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_THAT(counters.ReleaseTraceAccess(second.id), IsOk());
}

TEST(PerfCountersTest, IdsOfAnEarlierProcessStayUnknownInALaterOne) {
  std::unique_ptr<Kfd> kfd = OpenPreset("mi300x");
  ASSERT_NE(kfd, nullptr);
  const HsaCounter sq = PrivilegedSq(1);
  PmcTraceId earlier(0);
  {
    PerfCounters first(*kfd);
    ASSERT_OK_AND_ASSIGN(RegisteredTrace trace, first.RegisterTrace(kGpuNode, std::span(&sq, 1)));
    earlier = trace.id;
  }
  PerfCounters second(*kfd);
  ASSERT_OK_AND_ASSIGN(RegisteredTrace later, second.RegisterTrace(kGpuNode, std::span(&sq, 1)));
  EXPECT_NE(later.id, earlier) << "ids are never reused, so a stale one cannot name a new trace";
  EXPECT_EQ(ToHsakmtStatus(second.ReleaseTraceAccess(earlier)), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(ToHsakmtStatus(second.ReleaseTraceAccess(PmcTraceId(0xdeadbeef000))), HSAKMT_STATUS_INVALID_HANDLE);
}

}  // namespace
}  // namespace hipmem::thunk
