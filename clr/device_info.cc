#include "clr/device_info.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "hsa/agent_info.h"
#include "hsa/topology.h"

namespace hipmem::clr {
namespace {

// ROCclr's fixed work-group limits (rocdevice.cpp: maxWorkGroupSize_ and maxWorkItemSizes_).
constexpr uint32_t kMaxWorkGroupSize = 1024;
// HIP reports the device's wall-clock counter rate; ROCclr fixes timeStampFrequency_ at 1 GHz, in kHz.
constexpr uint32_t kTimestampFrequencyKhz = 1'000'000;
// The ISA name's prefix; gcnArchName is the target id after it.
constexpr absl::string_view kIsaPrefix = "amdgcn-amd-amdhsa--";

Bytes Percent(Bytes b, uint64_t percent) { return Bytes(b.raw() / 100 * percent + b.raw() % 100 * percent / 100); }

struct GfxVersion {
  uint32_t major = 0, minor = 0, stepping = 0;
};

// "gfx942" -> 9.4.2, "gfx90a" -> 9.0.10, "gfx1100" -> 11.0.0: the last two characters are minor and stepping
// in hex, the rest is the major version (the processor naming LLVM's AMDGPU backend uses).
absl::StatusOr<GfxVersion> ParseGfx(absl::string_view processor) {
  auto hex = [](char c) -> int {
    if (absl::ascii_isdigit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  uint32_t major = 0;
  if (!absl::StartsWith(processor, "gfx") || processor.size() < 6 ||
      !absl::SimpleAtoi(processor.substr(3, processor.size() - 5), &major)) {
    return absl::FailedPreconditionError(absl::StrCat("processor name \"", processor, "\" is not gfxNNN"));
  }
  const int minor = hex(processor[processor.size() - 2]);
  const int stepping = hex(processor[processor.size() - 1]);
  if (minor < 0 || stepping < 0) {
    return absl::FailedPreconditionError(absl::StrCat("processor name \"", processor, "\" is not gfxNNN"));
  }
  return GfxVersion{major, static_cast<uint32_t>(minor), static_cast<uint32_t>(stepping)};
}

// LLVM's total VGPRs per SIMD for the ISA's default wavefront (what comgr's TotalNumVGPRs metadata gives
// ROCclr): 512 with the gfx90a register file (gfx90a, gfx94x), 256 on older gfx9; on gfx10+ 1024 for wave32,
// 1536 on the processors with the 1.5x register file (gfx1100, gfx1101, gfx1151, gfx1200, gfx1201).
uint32_t VgprsPerSimd(absl::string_view processor, const GfxVersion& v, uint32_t wavefront) {
  if (v.major < 10) return (v.minor == 0 && v.stepping < 10) ? 256 : 512;
  const bool wide = processor == "gfx1100" || processor == "gfx1101" || processor == "gfx1151" ||
                    processor == "gfx1200" || processor == "gfx1201";
  const uint32_t wave32 = wide ? 1536 : 1024;
  return wavefront == 32 ? wave32 : wave32 / 2;
}

// LLVM's VGPR allocation granule for the ISA's default wavefront (comgr's VGPRAllocGranule): 8 with the gfx90a
// register file; on gfx10+ (wave32) 24 with the 1.5x register file, 16 on gfx10.3 and later, 8 on gfx10.1; 4 on
// older gfx9.
uint32_t VgprAllocGranule(absl::string_view processor, const GfxVersion& v) {
  if (v.major < 10) return (v.minor == 0 && v.stepping < 10) ? 4 : 8;
  const bool wide = processor == "gfx1100" || processor == "gfx1101" || processor == "gfx1151" ||
                    processor == "gfx1200" || processor == "gfx1201";
  if (wide) return 24;
  return (v.major == 10 && v.minor < 3) ? 8 : 16;
}

}  // namespace

absl::StatusOr<DeviceInfo> DescribeDevice(hsa::Runtime& runtime, const hsa::Agent& agent, hsa::PoolId vram,
                                          const Settings& settings) {
  if (agent.type != hsa::DeviceType::kGpu) {
    return absl::FailedPreconditionError(absl::StrCat("agent ", agent.name, " is not a GPU"));
  }
  ASSIGN_OR_RETURN(const hsa::AgentDescription d, hsa::DescribeRuntimeAgent(runtime, agent));
  if (!d.isa.has_value()) return absl::FailedPreconditionError(absl::StrCat("GPU ", d.name, " has no ISA"));
  ASSIGN_OR_RETURN(const GfxVersion gfx, ParseGfx(d.isa->processor));
  ASSIGN_OR_RETURN(const hsa::MemoryPool* vram_pool, runtime.GetPool(vram));

  DeviceInfo info;
  info.name = d.name;
  const std::string isa_name = d.isa->FullName();
  info.gcn_arch_name = absl::StartsWith(isa_name, kIsaPrefix) ? isa_name.substr(kIsaPrefix.size()) : isa_name;
  info.board_name = d.product_name;
  info.gfx_major = gfx.major;
  info.gfx_minor = gfx.minor;
  info.gfx_stepping = gfx.stepping;
  info.pci_device_id = d.chip_id;
  info.asic_revision = d.asic_revision;
  // ROCclr keeps the characters of the agent's UUID after its "GPU-" prefix.
  const absl::string_view uuid = absl::string_view(d.uuid).substr(std::min<size_t>(4, d.uuid.size()));
  std::copy_n(uuid.begin(), std::min(uuid.size(), info.uuid.size()), info.uuid.begin());

  // location_id is the PCI BDF: bus in bits 15..8, device in 7..3, function in 2..0.
  info.pci_domain = d.domain;
  info.pci_bus = d.bdfid >> 8 & 0xff;
  info.pci_device = d.bdfid >> 3 & 0x1f;
  info.pci_function = d.bdfid & 0x7;

  // ROCclr applies WGP mode on gfx10 and later only (earlier GPUs have no workgroup processors).
  const uint32_t per_unit = settings.enable_wgp_mode && gfx.major >= 10 ? 2 : 1;
  info.compute_units = d.compute_units / per_unit;
  info.physical_compute_units = d.compute_units;
  info.simds_per_cu = d.simds_per_cu * per_unit;
  info.wavefront_size = d.wavefront_size;
  info.max_waves_per_cu = d.max_waves_per_cu * per_unit;
  info.max_threads_per_cu = info.wavefront_size * info.max_waves_per_cu;
  info.available_registers_per_cu =
      VgprsPerSimd(d.isa->processor, gfx, d.wavefront_size) * info.simds_per_cu * d.wavefront_size;
  // LLVM's addressable VGPRs per thread: 512 with the gfx90a register file, 256 everywhere else.
  info.available_vgprs = gfx.major == 9 && (gfx.minor > 0 || gfx.stepping >= 10) ? 512 : 256;
  // For the ISA's default wavefront: wave32 from gfx10 on (ROCclr halves both for a wave64 kernel).
  info.vgprs_per_simd = VgprsPerSimd(d.isa->processor, gfx, gfx.major >= 10 ? 32 : 64);
  info.vgpr_alloc_granule = VgprAllocGranule(d.isa->processor, gfx);
  // ROCclr's SGPR file per SIMD: 800 on gfx8 and gfx9 (512 before), unbounded from gfx10 on.
  info.sgprs_per_simd = gfx.major < 8 ? 512 : gfx.major < 10 ? 800 : UINT32_MAX;
  info.max_work_group_size = kMaxWorkGroupSize;
  info.max_work_item_sizes = {kMaxWorkGroupSize, kMaxWorkGroupSize, kMaxWorkGroupSize};
  info.num_xcc = d.num_xcc;
  info.num_sdma_engines = d.num_sdma_engines;
  info.cooperative_groups = d.cooperative_queues;

  info.max_engine_clock_mhz = d.max_clock_mhz;
  info.max_memory_clock_mhz = d.memory_max_frequency;
  info.memory_bus_width_bits = d.memory_width;
  info.timestamp_frequency_khz = kTimestampFrequencyKhz;

  info.l2_cache_size = d.cache_size[1];
  info.cacheline_size = d.cacheline_size;
  for (hsa::PoolId id : agent.pools) {
    ASSIGN_OR_RETURN(const hsa::MemoryPool* pool, runtime.GetPool(id));
    if (pool->segment == hsa::Segment::kGroup) info.local_mem_per_cu = pool->size;
  }

  info.vram_size = vram_pool->size;
  info.global_mem_size = Percent(vram_pool->size, settings.max_heap_percent);
  info.max_alloc_size = Percent(info.global_mem_size, settings.single_alloc_percent);
  info.max_constant_buffer_size = info.max_alloc_size;

  info.large_bar = d.large_bar;
  info.ecc_enabled = false;
  info.xnack_enabled = d.isa->xnack == hsa::FeatureState::kOn;
  // ROCclr's hmmSupported_ (the KFD's SVM API, which every simulated GPU has: managed memory) and
  // hmmCpuMemoryAccessible_ (XNACK on: the GPU reaches any CPU page, migrating or mapping it on a fault).
  info.managed_memory = true;
  info.pageable_memory_access = info.xnack_enabled;
  info.coherent_host_access = d.coherent_host_access;
  info.apu = d.apu;
  return info;
}

}  // namespace hipmem::clr
