#include "thunk/perf_counters.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "thunk/hsakmt_status.h"
#include "thunk/svm_aperture.h"

namespace hipmem::thunk {
namespace {

// The tables, by GFX family. Source: pmc_table.c as of ROCm/rocm-systems projects/rocr-runtime/libhsakmt (the
// newest copy; ROCm/ROCR-Runtime libhsakmt/src holds the same ids and slots). Every version read keeps the full
// tables; the only one-block table in it is Kaveri's (SQ alone), a gfx7 APU this thunk carries no table for.
// Every block counts in 64 bits (BITMASK(64)); ids are listed as ranges, gaps being ids the hardware leaves unused.

// gfx9: vega_blocks, which upstream uses for every gfx9 GPU (Vega10 through gfx942 and gfx950).
constexpr CounterIdRange kGfx9Cb[] = {{0, 437}};
constexpr CounterIdRange kGfx9Cpf[] = {{0, 31}};
constexpr CounterIdRange kGfx9Cpg[] = {{0, 58}};
constexpr CounterIdRange kGfx9Db[] = {{0, 327}};
constexpr CounterIdRange kGfx9Gds[] = {{0, 120}};  // gfx7's ids
constexpr CounterIdRange kGfx9Grbm[] = {{0, 37}};
constexpr CounterIdRange kGfx9GrbmSe[] = {{0, 15}};
constexpr CounterIdRange kGfx9Ia[] = {{0, 31}};
constexpr CounterIdRange kGfx9Pasc[] = {{0, 490}};
constexpr CounterIdRange kGfx9Pasu[] = {{0, 291}};
constexpr CounterIdRange kGfx9Spi[] = {{0, 195}};
constexpr CounterIdRange kGfx9Sq[] = {{1, 183}, {255, 372}};
constexpr CounterIdRange kGfx9Sx[] = {{0, 207}};
constexpr CounterIdRange kGfx9Ta[] = {{0, 118}};               // gfx8's ids
constexpr CounterIdRange kGfx9Tca[] = {{1, 34}};               // gfx8's ids
constexpr CounterIdRange kGfx9Tcc[] = {{0, 107}, {128, 255}};  // gfx8's ids
constexpr CounterIdRange kGfx9Tcp[] = {{0, 84}};
constexpr CounterIdRange kGfx9Td[] = {{0, 56}};
constexpr CounterIdRange kGfx9Vgt[] = {{0, 147}};
constexpr CounterIdRange kGfx9Wd[] = {{0, 57}};

// gfx10: navi_blocks (no IA, TCA, TCC, VGT or WD).
constexpr CounterIdRange kGfx10Cb[] = {{0, 460}};
constexpr CounterIdRange kGfx10Cpf[] = {{0, 39}};
constexpr CounterIdRange kGfx10Cpg[] = {{0, 81}};
constexpr CounterIdRange kGfx10Db[] = {{0, 369}};
constexpr CounterIdRange kGfx10Gds[] = {{0, 122}};
constexpr CounterIdRange kGfx10Grbm[] = {{0, 46}};
constexpr CounterIdRange kGfx10GrbmSe[] = {{0, 18}};
constexpr CounterIdRange kGfx10Pasc[] = {{0, 551}};
constexpr CounterIdRange kGfx10Pasu[] = {{0, 265}};
constexpr CounterIdRange kGfx10Spi[] = {{0, 328}};
constexpr CounterIdRange kGfx10Sq[] = {{0, 511}};
constexpr CounterIdRange kGfx10Sx[] = {{0, 224}};
constexpr CounterIdRange kGfx10Ta[] = {{0, 225}};
constexpr CounterIdRange kGfx10Tcp[] = {{0, 76}};
constexpr CounterIdRange kGfx10Td[] = {{0, 60}};

constexpr PerfCounterBlock Block(PerfBlock block, uint32_t slots, std::span<const CounterIdRange> ids) {
  return PerfCounterBlock{
      .block = block, .slots = slots, .counter_ids = ids, .counter_size_in_bits = 64, .counter_mask = ~uint64_t{0}};
}

constexpr PerfCounterBlock kGfx9Blocks[] = {
    Block(PerfBlock::kCb, 7, kGfx9Cb),         Block(PerfBlock::kCpf, 5, kGfx9Cpf),
    Block(PerfBlock::kCpg, 5, kGfx9Cpg),       Block(PerfBlock::kDb, 12, kGfx9Db),
    Block(PerfBlock::kGds, 4, kGfx9Gds),       Block(PerfBlock::kGrbm, 2, kGfx9Grbm),
    Block(PerfBlock::kGrbmSe, 1, kGfx9GrbmSe), Block(PerfBlock::kIa, 7, kGfx9Ia),
    Block(PerfBlock::kPasc, 11, kGfx9Pasc),    Block(PerfBlock::kPasu, 10, kGfx9Pasu),
    Block(PerfBlock::kSpi, 18, kGfx9Spi),      Block(PerfBlock::kSq, 16, kGfx9Sq),
    Block(PerfBlock::kSx, 4, kGfx9Sx),         Block(PerfBlock::kTa, 6, kGfx9Ta),
    Block(PerfBlock::kTca, 10, kGfx9Tca),      Block(PerfBlock::kTcc, 10, kGfx9Tcc),
    Block(PerfBlock::kTcp, 10, kGfx9Tcp),      Block(PerfBlock::kTd, 6, kGfx9Td),
    Block(PerfBlock::kVgt, 10, kGfx9Vgt),      Block(PerfBlock::kWd, 4, kGfx9Wd),
};

constexpr PerfCounterBlock kGfx10Blocks[] = {
    Block(PerfBlock::kCb, 7, kGfx10Cb),         Block(PerfBlock::kCpf, 6, kGfx10Cpf),
    Block(PerfBlock::kCpg, 6, kGfx10Cpg),       Block(PerfBlock::kDb, 12, kGfx10Db),
    Block(PerfBlock::kGds, 10, kGfx10Gds),      Block(PerfBlock::kGrbm, 2, kGfx10Grbm),
    Block(PerfBlock::kGrbmSe, 1, kGfx10GrbmSe), Block(PerfBlock::kPasc, 11, kGfx10Pasc),
    Block(PerfBlock::kPasu, 16, kGfx10Pasu),    Block(PerfBlock::kSpi, 18, kGfx10Spi),
    Block(PerfBlock::kSq, 16, kGfx10Sq),        Block(PerfBlock::kSx, 4, kGfx10Sx),
    Block(PerfBlock::kTa, 5, kGfx10Ta),         Block(PerfBlock::kTcp, 10, kGfx10Tcp),
    Block(PerfBlock::kTd, 5, kGfx10Td),
};

// HSA_PROFILEBLOCK_AMD_* by block (perfctr.c's blockid2uuid). CPC has no UUID in hsakmttypes.h; no table lists it.
HSA_UUID BlockUuid(PerfBlock block) {
  switch (block) {
    case PerfBlock::kCb: return HSA_PROFILEBLOCK_AMD_CB;
    case PerfBlock::kCpc: return HSA_UUID{};
    case PerfBlock::kCpf: return HSA_PROFILEBLOCK_AMD_CPF;
    case PerfBlock::kCpg: return HSA_PROFILEBLOCK_AMD_CPG;
    case PerfBlock::kDb: return HSA_PROFILEBLOCK_AMD_DB;
    case PerfBlock::kGds: return HSA_PROFILEBLOCK_AMD_GDS;
    case PerfBlock::kGrbm: return HSA_PROFILEBLOCK_AMD_GRBM;
    case PerfBlock::kGrbmSe: return HSA_PROFILEBLOCK_AMD_GRBMSE;
    case PerfBlock::kIa: return HSA_PROFILEBLOCK_AMD_IA;
    case PerfBlock::kMc: return HSA_PROFILEBLOCK_AMD_MC;
    case PerfBlock::kPasc: return HSA_PROFILEBLOCK_AMD_PASC;
    case PerfBlock::kPasu: return HSA_PROFILEBLOCK_AMD_PASU;
    case PerfBlock::kSpi: return HSA_PROFILEBLOCK_AMD_SPI;
    case PerfBlock::kSrbm: return HSA_PROFILEBLOCK_AMD_SRBM;
    case PerfBlock::kSq: return HSA_PROFILEBLOCK_AMD_SQ;
    case PerfBlock::kSx: return HSA_PROFILEBLOCK_AMD_SX;
    case PerfBlock::kTa: return HSA_PROFILEBLOCK_AMD_TA;
    case PerfBlock::kTca: return HSA_PROFILEBLOCK_AMD_TCA;
    case PerfBlock::kTcc: return HSA_PROFILEBLOCK_AMD_TCC;
    case PerfBlock::kTcp: return HSA_PROFILEBLOCK_AMD_TCP;
    case PerfBlock::kTcs: return HSA_PROFILEBLOCK_AMD_TCS;
    case PerfBlock::kTd: return HSA_PROFILEBLOCK_AMD_TD;
    case PerfBlock::kVgt: return HSA_PROFILEBLOCK_AMD_VGT;
    case PerfBlock::kWd: return HSA_PROFILEBLOCK_AMD_WD;
  }
  return HSA_UUID{};
}

// The layout hsaKmtPmcGetCounterProperties hands out: a header, then each block's header with its counters inline.
// Upstream sizes it as sizeof(HsaCounterProperties) + (blocks - 1) * sizeof(HsaCounterBlockProperties) +
// (counters - blocks) * sizeof(HsaCounter); with these (unpadded) sizes that is exactly the sum below.
constexpr size_t kHeaderBytes = offsetof(HsaCounterProperties, Blocks);
constexpr size_t kBlockHeaderBytes = offsetof(HsaCounterBlockProperties, Counters);
static_assert(sizeof(HsaCounterProperties) == kHeaderBytes + sizeof(HsaCounterBlockProperties));
static_assert(sizeof(HsaCounterBlockProperties) == kBlockHeaderBytes + sizeof(HsaCounter));
static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= alignof(HsaCounterProperties));

// Lays out `table`, every other byte zero (upstream leaves them uninitialised). Each block has at least one
// counter, so every struct constructed below fits in the storage.
std::unique_ptr<std::byte[]> LayOut(std::span<const PerfCounterBlock> table) {
  HIPMEM_CHECK(!table.empty(), "an empty counter table");
  size_t bytes = kHeaderBytes;
  uint32_t concurrent = 0;
  for (const PerfCounterBlock& block : table) {
    HIPMEM_CHECK(block.NumCounters() > 0, "a counter block without counters");
    bytes += kBlockHeaderBytes + size_t{block.NumCounters()} * sizeof(HsaCounter);
    concurrent += block.slots;
  }
  auto storage = std::make_unique<std::byte[]>(bytes);  // zeroed
  std::byte* const base = storage.get();
  auto* properties = new (base) HsaCounterProperties{};
  properties->NumBlocks = static_cast<HSAuint32>(table.size());
  properties->NumConcurrent = concurrent;
  size_t offset = kHeaderBytes;
  for (const PerfCounterBlock& block : table) {
    auto* out = new (base + offset) HsaCounterBlockProperties{};
    out->BlockId = BlockUuid(block.block);
    out->NumCounters = block.NumCounters();
    out->NumConcurrent = block.slots;
    offset += kBlockHeaderBytes;
    for (const CounterIdRange& range : block.counter_ids) {
      for (uint32_t id = range.first; id <= range.last; ++id) {
        auto* counter = new (base + offset) HsaCounter{};
        counter->Type = HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE;
        counter->CounterId = id;
        counter->CounterSizeInBits = block.counter_size_in_bits;
        counter->CounterMask = block.counter_mask;
        counter->Flags.ui32.Global = 1;
        counter->BlockIndex = static_cast<HSAuint32>(block.block);
        offset += sizeof(HsaCounter);
      }
    }
  }
  HIPMEM_CHECK(offset == bytes, "counter layout size");
  return storage;
}

// perfctr.c's MAX_COUNTERS: RegisterTrace takes at most this many counters.
constexpr size_t kMaxTraceCounters = 512;

}  // namespace

uint32_t PerfCounterBlock::NumCounters() const {
  uint32_t n = 0;
  for (const CounterIdRange& range : counter_ids) n += range.last - range.first + 1;
  return n;
}

absl::StatusOr<std::span<const PerfCounterBlock>> PerfCounterTable(const NodeProperties& node) {
  if (!node.is_gpu()) {
    return absl::InvalidArgumentError(absl::StrCat("PerfCounterTable(node=", node.id.raw(), "): not a GPU node"));
  }
  // pmc_table.c picks by the major GFX version (gfx_target_version, as EngineId carries it).
  switch (node.gfx_major()) {
    case 9: return std::span<const PerfCounterBlock>(kGfx9Blocks);
    case 10: return std::span<const PerfCounterBlock>(kGfx10Blocks);
    default:
      return absl::InvalidArgumentError(absl::StrCat("PerfCounterTable(node=", node.id.raw(), ", ", node.name,
                                                     "): no counter table for gfx", node.gfx_major(), " GPUs"));
  }
}

PerfCounters::PerfCounters(const Kfd& kfd) : kfd_(&kfd) {}

PerfCounters::~PerfCounters() = default;

absl::StatusOr<const HsaCounterProperties*> PerfCounters::CounterProperties(NodeId node) {
  ASSIGN_OR_RETURN(const NodeProperties* properties, kfd_->Node(node));
  ScopedLock lock(&mu_);
  auto it = properties_.find(node);
  if (it == properties_.end()) {
    ASSIGN_OR_RETURN(std::span<const PerfCounterBlock> table, PerfCounterTable(*properties));
    it = properties_.emplace(node, LayOut(table)).first;
  }
  return reinterpret_cast<const HsaCounterProperties*>(it->second.get());
}

absl::StatusOr<RegisteredTrace> PerfCounters::RegisterTrace(NodeId node, std::span<const HsaCounter> counters) {
  const auto context = [&] { return absl::StrCat("PmcRegisterTrace(node=", node.raw(), ")"); };
  if (counters.empty()) return absl::InvalidArgumentError(absl::StrCat(context(), ": no counters"));
  ASSIGN_OR_RETURN(const NodeProperties* properties, kfd_->Node(node));
  if (counters.size() > kMaxTraceCounters) {
    return absl::ResourceExhaustedError(
        absl::StrCat(context(), ": ", counters.size(), " counters; at most ", kMaxTraceCounters));
  }
  // Only privileged counters are traced through the thunk; the others a profiler reads itself.
  std::array<uint32_t, kPerfBlockCount> per_block{};
  uint64_t total_bytes = 0;
  uint32_t total = 0;
  for (const HsaCounter& counter : counters) {
    const uint32_t block = counter.BlockIndex;
    if (block >= kPerfBlockCount) {
      return absl::InvalidArgumentError(absl::StrCat(context(), ": block index ", block));
    }
    // The type as the caller wrote it: any value past PRIVILEGED_STREAMING counts as non-privileged, as upstream.
    if (static_cast<uint32_t>(counter.Type) > HSA_PROFILE_TYPE_PRIVILEGED_STREAMING) continue;
    total_bytes += counter.CounterSizeInBits / 8;
    ++per_block[block];
    ++total;
  }
  if (total == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(context(), ": none of the ", counters.size(), " counters is privileged; nothing to trace"));
  }
  // Each block with privileged counters must exist on this GPU and have a slot for each of them.
  ASSIGN_OR_RETURN(std::span<const PerfCounterBlock> table, PerfCounterTable(*properties));
  for (uint32_t b = 0; b < kPerfBlockCount; ++b) {
    if (per_block[b] == 0) continue;
    const PerfCounterBlock* block = nullptr;
    for (const PerfCounterBlock& candidate : table) {
      if (static_cast<uint32_t>(candidate.block) == b) block = &candidate;
    }
    if (block == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(context(), ": block ", b, " is not on this GPU"));
    }
    if (per_block[b] > block->slots) {
      return absl::InvalidArgumentError(absl::StrCat(context(), ": ", per_block[b], " counters in block ", b,
                                                     ", which has ", block->slots, " slots"));
    }
  }
  static std::atomic<uint64_t> next_id{1};
  const PmcTraceId id(next_id.fetch_add(1, std::memory_order_relaxed));
  ScopedLock lock(&mu_);
  traces_.emplace(id, Trace{.node = node, .num_counters = total});
  // At most 512 counters of under 2^32 bits each: no overflow.
  return RegisteredTrace{.id = id, .passes = 1, .min_buffer_size = *AlignUp(Bytes(total_bytes), kPageSize)};
}

absl::StatusOr<const PerfCounters::Trace*> PerfCounters::FindLocked(PmcTraceId trace,
                                                                    absl::string_view operation) const {
  const auto it = traces_.find(trace);
  if (it == traces_.end()) {
    return InvalidHandleError(absl::StrCat(operation, "(trace=", trace.raw(), "): no such trace"));
  }
  return &it->second;
}

absl::Status PerfCounters::UnregisterTrace(NodeId node, PmcTraceId trace) {
  RETURN_IF_ERROR(kfd_->Node(node).status());
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(const Trace* found, FindLocked(trace, "PmcUnregisterTrace"));
  if (found->node != node) {
    return InvalidNodeUnitError(absl::StrCat("PmcUnregisterTrace(trace=", trace.raw(), ", node=", node.raw(),
                                             "): registered on node ", found->node.raw()));
  }
  traces_.erase(trace);
  return absl::OkStatus();
}

absl::Status PerfCounters::AcquireTraceAccess(NodeId node, PmcTraceId trace) {
  {
    ScopedLock lock(&mu_);
    RETURN_IF_ERROR(FindLocked(trace, "PmcAcquireTraceAccess").status());
  }
  return kfd_->Node(node).status();
}

absl::Status PerfCounters::ReleaseTraceAccess(PmcTraceId trace) {
  ScopedLock lock(&mu_);
  return FindLocked(trace, "PmcReleaseTraceAccess").status();
}

absl::Status PerfCounters::StartTrace(PmcTraceId trace, const void* buffer, Bytes buffer_size) {
  if (buffer == nullptr || buffer_size.is_zero()) {
    return absl::InvalidArgumentError(absl::StrCat("PmcStartTrace(trace=", trace.raw(), "): no trace buffer"));
  }
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(const Trace* found, FindLocked(trace, "PmcStartTrace"));
  return absl::UnavailableError(absl::StrCat("PmcStartTrace(trace=", trace.raw(), "): none of its ",
                                             found->num_counters, " counters has a perf event to enable"));
}

absl::Status PerfCounters::QueryTrace(PmcTraceId trace) {
  ScopedLock lock(&mu_);
  RETURN_IF_ERROR(FindLocked(trace, "PmcQueryTrace").status());
  return absl::ResourceExhaustedError(
      absl::StrCat("PmcQueryTrace(trace=", trace.raw(), "): the trace was never started; it has no buffer"));
}

absl::Status PerfCounters::StopTrace(PmcTraceId trace) {
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(const Trace* found, FindLocked(trace, "PmcStopTrace"));
  return absl::UnavailableError(absl::StrCat("PmcStopTrace(trace=", trace.raw(), "): none of its ", found->num_counters,
                                             " counters has a perf event to disable"));
}

}  // namespace hipmem::thunk
