#include "hsa/topology.h"

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "hsa/hsa.h"
#include "hsa/hsa_status.h"
#include "hsa/topology_kfd.h"
#include "thunk/amdgpu_ids.h"

namespace hipmem::hsa {
namespace {

using thunk::HeapType;
using thunk::NodeProperties;

constexpr absl::string_view kIsaPrefix = "amdgcn-amd-amdhsa--";

// HSA_CAPABILITY bit fields (hsakmttypes.h).
constexpr uint32_t kCapIommuPresentBit = 1;  // HSAMMUPresent
constexpr uint32_t kCapWatchPointsTotalBitsShift = 8;
constexpr uint32_t kCapAsicRevisionShift = 22;
constexpr uint32_t kCapSramEdcBit = 26;
constexpr uint32_t kCapCoherentHostAccessBit = 28;
// fw_version / sdma_fw_version: the microcode version is the low 10 bits (libhsakmt's EngineId.uCode).
constexpr uint32_t kUcodeMask = 0x3ff;
// ROCr's cache line size when the KFD reports no L2 line size.
constexpr uint32_t kDefaultCacheLine = 64;

// The processors this runtime names ISAs for, with the target features each has (LLVM AMDGPUUsage's
// processor table).
struct Processor {
  absl::string_view name;
  bool sramecc;
  bool xnack;
  uint32_t wavefront_size;
};
constexpr Processor kProcessors[] = {
    {"gfx906", true, true, 64},    {"gfx908", true, true, 64},    {"gfx90a", true, true, 64},
    {"gfx942", true, true, 64},    {"gfx950", true, true, 64},    {"gfx1030", false, false, 32},
    {"gfx1100", false, false, 32}, {"gfx1101", false, false, 32}, {"gfx1102", false, false, 32},
    {"gfx1200", false, false, 32}, {"gfx1201", false, false, 32},
};

const Processor* FindProcessor(absl::string_view name) {
  for (const Processor& p : kProcessors) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool Bit(uint64_t value, uint32_t bit) { return (value >> bit & 1) != 0; }

std::string FeatureSuffix(absl::string_view feature, FeatureState state) {
  switch (state) {
    case FeatureState::kOn: return absl::StrCat(":", feature, "+");
    case FeatureState::kOff: return absl::StrCat(":", feature, "-");
    default: return "";
  }
}

absl::Status BadIsaName(absl::string_view name, absl::string_view cause) {
  return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat("hsa_isa_from_name(\"", name, "\"): ", cause)),
                       HSA_STATUS_ERROR_INVALID_ISA_NAME);
}

// "gfx" + major (decimal) + minor and stepping (one hex digit each), as the kernel names nodes.
std::string ProcessorFromVersion(const NodeProperties& node) {
  return absl::StrFormat("gfx%u%x%x", node.gfx_major(), node.gfx_minor(), node.gfx_stepping());
}

std::vector<CacheDescription> DescribeCaches(const NodeProperties& node) {
  std::vector<CacheDescription> caches;
  for (const thunk::Cache& cache : node.caches) {
    caches.push_back(CacheDescription{absl::StrCat("L", cache.level), static_cast<uint8_t>(cache.level),
                                      static_cast<uint32_t>(cache.size.raw())});
  }
  return caches;
}

// Opaque ISA handle values: a base that no agent, pool or cache handle shares, plus the index in the registry.
constexpr uint64_t kIsaHandleBase = 0x4953'0000'0000'0000ull;  // "IS"

ABSL_CONST_INIT absl::Mutex g_isa_mu(absl::kConstInit);
// Never destroyed: handles stay valid to the end of the process, as ROCr's do.
std::vector<IsaDescription>* g_isas ABSL_GUARDED_BY(g_isa_mu) = nullptr;

}  // namespace

uint64_t InternIsa(const IsaDescription& isa) {
  ScopedLock lock(&g_isa_mu);
  if (g_isas == nullptr) g_isas = new std::vector<IsaDescription>();
  for (size_t i = 0; i < g_isas->size(); ++i) {
    if ((*g_isas)[i] == isa) return kIsaHandleBase + i + 1;
  }
  g_isas->push_back(isa);
  return kIsaHandleBase + g_isas->size();
}

absl::StatusOr<IsaDescription> LookupIsa(uint64_t handle) {
  ScopedLock lock(&g_isa_mu);
  if (g_isas != nullptr && handle > kIsaHandleBase && handle - kIsaHandleBase <= g_isas->size()) {
    return (*g_isas)[handle - kIsaHandleBase - 1];
  }
  return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat("isa 0x", absl::Hex(handle), " is not an ISA")),
                       HSA_STATUS_ERROR_INVALID_ISA);
}

std::string IsaDescription::FullName() const {
  return absl::StrCat(kIsaPrefix, processor, FeatureSuffix("sramecc", sramecc), FeatureSuffix("xnack", xnack));
}

absl::StatusOr<IsaDescription> ParseIsaName(absl::string_view name) {
  absl::string_view rest = name;
  if (!absl::ConsumePrefix(&rest, kIsaPrefix)) return BadIsaName(name, absl::StrCat("does not start with ", kIsaPrefix));
  const std::vector<absl::string_view> parts = absl::StrSplit(rest, ':');
  const Processor* processor = FindProcessor(parts[0]);
  if (processor == nullptr) return BadIsaName(name, absl::StrCat("unknown processor \"", parts[0], "\""));
  IsaDescription isa{std::string(processor->name), processor->sramecc ? FeatureState::kAny : FeatureState::kUnsupported,
                     processor->xnack ? FeatureState::kAny : FeatureState::kUnsupported, processor->wavefront_size};
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view feature = parts[i];
    if (feature.size() < 2 || (feature.back() != '+' && feature.back() != '-')) {
      return BadIsaName(name, absl::StrCat("feature \"", feature, "\" is not <name>+ or <name>-"));
    }
    const FeatureState state = feature.back() == '+' ? FeatureState::kOn : FeatureState::kOff;
    feature.remove_suffix(1);
    FeatureState* slot = feature == "sramecc" ? &isa.sramecc : feature == "xnack" ? &isa.xnack : nullptr;
    if (slot == nullptr) return BadIsaName(name, absl::StrCat("unknown feature \"", feature, "\""));
    if (*slot == FeatureState::kUnsupported) {
      return BadIsaName(name, absl::StrCat(processor->name, " has no ", feature, " setting"));
    }
    if (*slot != FeatureState::kAny) return BadIsaName(name, absl::StrCat("feature ", feature, " given twice"));
    *slot = state;
  }
  return isa;
}

AgentDescription DescribeAgent(const NodeProperties& node, const std::string& cpu_model_name, bool xnack_enabled) {
  AgentDescription d;
  d.gpu = node.is_gpu();
  d.caches = DescribeCaches(node);
  for (const thunk::Cache& cache : node.caches) {
    if (cache.level < 1 || cache.level > 4) continue;
    // As ROCr: L1 is per CU, so the first L1 entry stands for all; L2 and above add up over the entries
    // (one per XCC on a partitioned GPU).
    uint32_t& slot = d.cache_size[cache.level - 1];
    if (cache.level >= 2) {
      slot += static_cast<uint32_t>(cache.size.raw());
    } else if (slot == 0) {
      slot = static_cast<uint32_t>(cache.size.raw());
    }
  }
  const uint64_t capability = node.Get("capability");
  if (!d.gpu) {
    d.name = d.product_name = cpu_model_name;
    d.uuid = "CPU-XX";
    d.compute_units = static_cast<uint32_t>(node.Get("cpu_cores_count"));
    d.max_clock_mhz = static_cast<uint32_t>(node.Get("max_engine_clk_ccompute"));
    d.cacheline_size = kDefaultCacheLine;
    d.watch_points = 1;  // what rocminfo shows for CPU agents (no watch-point bits: 1 << 0)
    return d;
  }
  d.name = node.name.empty() ? ProcessorFromVersion(node) : node.name;
  d.chip_id = static_cast<uint32_t>(node.Get("device_id"));
  std::optional<std::string> marketing;
  if (node.pci_revision.has_value()) marketing = thunk::MarketingName(d.chip_id, *node.pci_revision);
  // Without an amdgpu.ids row the name stays the processor's, as libhsakmt leaves AMDName in place.
  d.product_name = marketing.value_or(d.name);
  const uint64_t unique_id = node.Get("unique_id");
  d.uuid = unique_id == 0 ? "GPU-XX" : absl::StrFormat("GPU-%016x", unique_id);
  d.asic_revision = static_cast<uint32_t>(capability >> kCapAsicRevisionShift & 0xf);
  d.family_id = static_cast<uint32_t>(node.Get("family_id"));
  d.simds_per_cu = static_cast<uint32_t>(node.Get("simd_per_cu"));
  d.compute_units = d.simds_per_cu == 0 ? 0 : static_cast<uint32_t>(node.Get("simd_count") / d.simds_per_cu);
  d.shader_arrays_per_engine = static_cast<uint32_t>(node.Get("simd_arrays_per_engine"));
  // libhsakmt's NumShaderBanks: the KFD counts shader arrays; engines are arrays / arrays-per-engine.
  d.shader_engines = d.shader_arrays_per_engine == 0
                         ? 0
                         : static_cast<uint32_t>(node.Get("array_count") / d.shader_arrays_per_engine);
  d.max_clock_mhz = static_cast<uint32_t>(node.Get("max_engine_clk_fcompute"));
  d.max_waves_per_cu = static_cast<uint32_t>(node.Get("max_waves_per_simd")) * d.simds_per_cu;
  d.wavefront_size = static_cast<uint32_t>(node.Get("wave_front_size"));
  d.bdfid = static_cast<uint32_t>(node.Get("location_id"));
  d.domain = static_cast<uint32_t>(node.Get("domain"));
  d.cacheline_size = kDefaultCacheLine;
  for (const thunk::Cache& cache : node.caches) {
    if (cache.level == 2 && cache.cache_line_size != 0) {
      d.cacheline_size = cache.cache_line_size;
      break;
    }
  }
  d.watch_points = 1u << (capability >> kCapWatchPointsTotalBitsShift & 0xf);
  d.ucode_version = static_cast<uint32_t>(node.Get("fw_version")) & kUcodeMask;
  d.sdma_ucode_version = static_cast<uint32_t>(node.Get("sdma_fw_version")) & kUcodeMask;
  d.num_sdma_engines = static_cast<uint32_t>(node.Get("num_sdma_engines"));
  d.num_sdma_xgmi_engines = static_cast<uint32_t>(node.Get("num_sdma_xgmi_engines"));
  d.num_xcc = node.Get("num_xcc") == 0 ? 1 : static_cast<uint32_t>(node.Get("num_xcc"));
  d.driver_uid = node.gpu_id->raw();
  for (const thunk::MemoryBank& bank : node.mem_banks) {
    if (bank.heap_type == HeapType::kFrameBufferPublic || bank.heap_type == HeapType::kFrameBufferPrivate) {
      d.memory_width = bank.width;
      d.memory_max_frequency = bank.mem_clk_max;
      d.large_bar = bank.heap_type == HeapType::kFrameBufferPublic;
    }
  }
  d.queues_max = kGpuQueuesMax;
  d.queue_min_size = kAqlQueueMinSize;
  d.queue_max_size = kAqlQueueMaxSize;
  d.cooperative_queues = node.Get("num_gws") != 0;
  d.coherent_host_access = Bit(capability, kCapCoherentHostAccessBit);
  d.iommu_v2 = Bit(capability, kCapIommuPresentBit);
  d.hive_id = node.Get("hive_id");
  IsaDescription isa{d.name, FeatureState::kUnsupported, FeatureState::kUnsupported, d.wavefront_size};
  if (const Processor* processor = FindProcessor(d.name)) {
    // ROCr sets sramecc from the KFD's SRAM EDC capability and xnack from HSA_XNACK (the process's
    // retry mode): both are what the loader needs code built for.
    if (processor->sramecc) isa.sramecc = Bit(capability, kCapSramEdcBit) ? FeatureState::kOn : FeatureState::kOff;
    if (processor->xnack) isa.xnack = xnack_enabled ? FeatureState::kOn : FeatureState::kOff;
  }
  d.isa = isa;
  return d;
}

std::string CpuModelName(const std::string& cpuinfo_path) {
  std::ifstream in(cpuinfo_path);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<absl::string_view> kv = absl::StrSplit(line, absl::MaxSplits(':', 1));
    if (kv.size() == 2 && absl::StripAsciiWhitespace(kv[0]) == "model name") {
      const absl::string_view value = absl::StripAsciiWhitespace(kv[1]);
      if (!value.empty()) return std::string(value);
    }
  }
  return "CPU";
}

}  // namespace hipmem::hsa
