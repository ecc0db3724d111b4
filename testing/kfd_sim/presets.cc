#include "testing/kfd_sim/presets.h"

#include <sys/sysinfo.h>

#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/log.h"
#include "base/units.h"
#include "testing/kfd_sim/simulator.h"

// Sources for the values below (public documents; the kernel files are Linux drivers/gpu/drm/amd):
// [KFD]   amdkfd/kfd_topology.c, kfd_crat.c (cache tables, io-link weights, flags), kfd_device.c
//         (gfx_target_version per ASIC; SDMA engines: 2 PCIe-optimised, the rest XGMI when XGMI is
//         supported), amdgpu/amdgpu_amdkfd.c (PCIe and XGMI bandwidth in MB/s).
// [MI300X] AMD Instinct MI300X data sheet and the CDNA 3 white paper: 304 CUs in 8 XCDs, 192 GB HBM3 on
//         an 8192-bit bus, 2100 MHz peak engine clock, PCIe Gen5 x16, 7 Infinity Fabric links of
//         128 GB/s (64 GB/s each way) to the other OAMs, 32 KB L1 per CU, 64 KB instruction cache per 2
//         CUs, 4 MB L2 per XCD, 256 MB Infinity Cache.
// [MI250X] AMD Instinct MI250X data sheet and the CDNA 2 white paper: two GCDs of 110 CUs and 64 GB
//         HBM2e (4096-bit) each, 1700 MHz, PCIe Gen4 x16, four Infinity Fabric links between the two
//         GCDs; cache sizes from kfd_crat.c aldebaran_cache_info.
// [MI100]  AMD Instinct MI100 data sheet: 120 CUs, 32 GB HBM2 (4096-bit), 1502 MHz, PCIe Gen4 x16;
//         cache sizes from kfd_crat.c (Arcturus shares Vega20's table).
// [RX7900XTX] AMD Radeon RX 7900 XTX specifications and the RDNA 3 architecture disclosures: 96 CUs
//         of two SIMD32 each (wave32), 24 GB GDDR6 on 384 bits, 2500 MHz boost, PCIe Gen4 x16, 32 KB
//         vector L0 per CU, 256 KB L1 per shader array, 6 MB L2, 96 MB Infinity Cache.
// [dumps] rocminfo outputs in public ROCm issues: MI300X ROCm/rocm-examples#187 and ROCm/legacy-rocm-build#4414
//         (201310208 KB pools, 4 of them, ucode 166/22, ASIC revision 1); MI250X ROCm/TheRock#1395 (67092480 KB,
//         ucode 96/9) and ROCm/aiter#179; RX 7900 XTX ROCm/rocm-systems#8458 and ROCm/legacy-rocm-build#2866.
// PCI device ids are the amdgpu ones (0x74a1, 0x740c, 0x738c, 0x744c). gpu_ids, unique_ids and hive ids
// are stand-ins for the kernel's hashes: fixed, distinct, non-zero.

namespace hipmem::kfd_sim {
namespace {

// HSA_CAPABILITY bits (kfd_topology.h HSA_CAP_*, hsakmttypes.h HSA_CAPABILITY).
constexpr uint32_t kCapWatchPointsSupported = 1u << 7;
constexpr uint32_t kCapWatchPointsTotalBitsShift = 8;  // 4-bit field: log2 of the address watch points
constexpr uint32_t kCapDoorbellTypeShift = 12;         // 2-bit field: 2 = GFX9+ doorbells
constexpr uint32_t kCapAqlQueueDoubleMap = 1u << 14;
constexpr uint32_t kCapMemEdcSupported = 1u << 20;
constexpr uint32_t kCapSramEdcSupported = 1u << 26;
constexpr uint32_t kCapSvmApiSupported = 1u << 27;

// The simulated KFD advertises only what it and the thunk implement, as a kernel built without a feature
// (CONFIG_HSA_AMD_SVM off, no debugger-capable firmware) clears the bit; real parts set more:
//   - no debugger bits: DebugTrapSupported (15), WaveLaunchTrap
//     Override (16), WaveLaunchMode (17), PreciseMemoryOperations (18), DebugSupportedFirmware (29),
//     PreciseALUOperations (30). There is no AMDKFD_IOC_DBG_TRAP, trap handler or halting wave to back them.
//   - no RASEventNotify (21): the simulated GPU raises no RAS events.
// Kept, because they hold: GFX9+ doorbells and the AQL ring double map (the simulator implements
// AQL_QUEUE_MEM), SVMAPISupported (bit 27: AMDKFD_IOC_SVM is simulated, svm_space.h; every GFX9+ dGPU of a kernel
// with CONFIG_HSA_AMD_SVM sets it, kfd_topology.c), and EDC on HBM/SRAM, which describes the memory and promises
// no API.
//
// Address watch points are not a debugger promise: kfd_topology.c node_show sets WatchPointsSupported and
// WatchPointsTotalBits = ilog2(device_info.num_of_watch_points) for every GPU, and every GFX9+ device has 4
// (kfd_device.c), so real MI300X, MI250X and RX 7900 XTX all show "Watch Pts on Addr. Ranges: 4".
constexpr uint32_t kWatchPoints = kCapWatchPointsSupported | (2u << kCapWatchPointsTotalBitsShift);
// What a GFX11 dGPU reports here: GFX9+ doorbells, the AQL double map, watch points and the SVM API; no EDC on a
// Radeon.
constexpr uint32_t kRdnaCapability =
    (2u << kCapDoorbellTypeShift) | kCapAqlQueueDoubleMap | kCapSvmApiSupported | kWatchPoints;
// An Instinct part adds HBM and SRAM EDC.
constexpr uint32_t kCdnaCapability = kRdnaCapability | kCapMemEdcSupported | kCapSramEdcSupported;

// HsaCacheType bits of caches/C/properties `type` (kfd_crat.h HSA_CACHE_TYPE_*).
constexpr uint32_t kCacheData = 1u << 0;
constexpr uint32_t kCacheInstruction = 1u << 1;
constexpr uint32_t kCacheHsaCu = 1u << 3;
constexpr uint32_t kDataCache = kCacheData | kCacheHsaCu;
constexpr uint32_t kInstructionCache = kCacheInstruction | kCacheHsaCu;

// CRAT_IOLINK_FLAGS_* as the io_links `flags` key shows them.
constexpr uint32_t kLinkEnabled = 1u << 0;
constexpr uint32_t kLinkNonCoherent = 1u << 1;

// kfd_crat.c: a PCIe hop weighs 20 (kfd_parse_subtype_iolink), an XGMI hop 15 (KFD_CRAT_XGMI_WEIGHT).
constexpr uint32_t kPcieWeight = 20;
constexpr uint32_t kXgmiHopWeight = 15;
// amdgpu_amdkfd_get_pcie_bandwidth_mbytes: lanes x Gb/s per lane / 8. min is the slowest state the
// link supports (x1 Gen1), max the fastest (x16 at the slot's generation).
constexpr uint32_t kPcieMinBandwidthMBps = 1 * 2500 / 8;
constexpr uint32_t kPcieGen4x16MBps = 16 * 16000 / 8;
constexpr uint32_t kPcieGen5x16MBps = 16 * 32000 / 8;
// amdgpu_amdkfd_get_xgmi_bandwidth_mbytes: links x (16 lanes x 25 Gb/s) / 8 on Aldebaran; MI300X links
// run 64 GB/s each way [MI300X].
constexpr uint32_t kAldebaranXgmiLinkMBps = 16 * 25000 / 8;
constexpr uint32_t kMi300xXgmiLinkMBps = 64000;

constexpr uint32_t kFirstRenderMinor = 128;

// What the kernel keeps of each board's VRAM for itself before it reports the bank: every public rocminfo dump
// shows VRAM pools exactly 16 MiB below the board's size (MI300X 201310208 KB of 192 GiB, MI250X GCD 67092480 KB
// of 64 GiB, MI100 33538048 KB, RX 7900 XTX 25149440 KB), which is what ROCr passes on from mem_banks.
constexpr Bytes kVramReserve = Bytes::MiB(16);

// amdgpu family ids (amdgpu_drm.h AMDGPU_FAMILY_*): every gfx9 part, CDNA 1-3 included, is "AI".
constexpr uint32_t kFamilyAi = 141;
constexpr uint32_t kFamilyGc11 = 145;

// The host a preset's GPUs sit in (one CPU node). Its memory is the real machine's (HostSystemMemory): system
// memory buffers are real memory here, so the CPU node reports what the host can give, as a real KFD does.
struct Host {
  uint32_t cores;
  uint32_t max_clock_mhz;
};

// Where one GPU of a platform sits, and the kernel's ids for it.
struct Slot {
  uint32_t gpu_id;
  uint32_t pci_bus;
  uint64_t unique_id;
};

// How the GPUs of one hive are wired to each other.
struct XgmiWiring {
  uint32_t links_per_pair;
  uint32_t link_mbps;  // one link, one direction
};

// The host of an 8-OAM MI300X platform as one CPU node: 96 cores (an AMD EPYC 9654, 3.7 GHz boost).
constexpr Host kMi300xHost = {.cores = 96, .max_clock_mhz = 3700};
// AMD EPYC 7763 (64 cores, 3.5 GHz boost): a PCIe host for MI250X or MI100.
constexpr Host kMi250xHost = {.cores = 64, .max_clock_mhz = 3500};
constexpr Host kMi100Host = {.cores = 64, .max_clock_mhz = 3500};
// AMD Ryzen 9 7950X (16 cores, 5.7 GHz boost): a workstation.
constexpr Host kWorkstationHost = {.cores = 16, .max_clock_mhz = 5700};

constexpr int kMaxMi300xGpus = 8;
// PCI buses of the eight OAM modules on a typical MI300X platform.
constexpr Slot kMi300xSlots[kMaxMi300xGpus] = {
    {0x1e6a, 0x0c, 0x5fa2c41d37e80000}, {0x5b2d, 0x22, 0x5fa2c41d37e80001}, {0x92c4, 0x38, 0x5fa2c41d37e80002},
    {0xc8ed, 0x5c, 0x5fa2c41d37e80003}, {0x3f17, 0x9f, 0x5fa2c41d37e80004}, {0x7a90, 0xaf, 0x5fa2c41d37e80005},
    {0xa4d1, 0xbf, 0x5fa2c41d37e80006}, {0xe563, 0xdf, 0x5fa2c41d37e80007},
};
constexpr uint64_t kMi300xHiveId = 0x3c57a3e1d4b2f609;
// The two GCDs of one MI250X (the buses of the first package on an HPE Cray EX235a blade).
constexpr Slot kMi250xSlots[] = {{0x2f91, 0xc1, 0x41b7e02c99d10000}, {0x6b04, 0xc6, 0x41b7e02c99d10001}};
constexpr uint64_t kMi250xHiveId = 0x9ad1c53e7b24f018;
constexpr Slot kMi100Slots[] = {{0x8c3e, 0x23, 0x27c0d59ea4130000}};
constexpr Slot kRx7900xtxSlots[] = {{0xd4a7, 0x03, 0x0e6f318ab2c50000}};
// A second card in the workstation's other x16 slot, for the two-card preset.
constexpr Slot kTwoRx7900xtxSlots[] = {{0xd4a7, 0x03, 0x0e6f318ab2c50000}, {0x1b3e, 0x0c, 0x0e6f318ab2c50001}};

CacheConfig Cache(uint32_t level, uint32_t size_kib, uint32_t line, uint32_t type, uint32_t cus_shared) {
  // Associativity, lines per tag and latency are 0 ("not defined"): the kernel's GPU cache tables do not
  // report them.
  return CacheConfig{
      .level = level,
      .size_kib = size_kib,
      .cache_line_size = line,
      .cache_lines_per_tag = 0,
      .association = 0,
      .latency = 0,
      .type = type,
      .cus_shared = cus_shared,
  };
}

// The per-product fields; Place() fills in the per-slot ones.
GpuConfig Mi300x() {
  return GpuConfig{
      .gpu_id = 0,
      .drm_render_minor = 0,
      .name = "gfx942",
      .marketing_name = "AMD Instinct MI300X",
      .gfx_target_version = 90402,
      .vram_bytes = (Bytes::GiB(192) - kVramReserve).raw(),
      .simd_count = 304 * 4,
      .max_waves_per_simd = 8,
      .wave_front_size = 64,
      .lds_size_in_kb = 64,
      .cu_per_simd_array = 10,  // 40 CUs per XCD (38 enabled) in 4 shader arrays
      .simd_per_cu = 4,
      .array_count = 32,  // 8 XCDs x 4 shader arrays
      .simd_arrays_per_engine = 1,
      .vendor_id = 0x1002,
      .device_id = 0x74a1,
      .location_id = 0,
      .domain = 0,
      .max_engine_clk_fcompute = 2100,
      .num_sdma_engines = 2,
      .num_sdma_xgmi_engines = 14,
      .num_xcc = 8,
      .capability = kCdnaCapability,
      .hive_id = 0,
      .unique_id = 0,
      .mem_width = 8192,
      .mem_clk_max = 1300,
      .caches =
          {
              Cache(1, 32, 128, kDataCache, 1),        // vector L1 per CU
              Cache(1, 16, 64, kDataCache, 2),         // scalar L1 per 2 CUs
              Cache(1, 64, 64, kInstructionCache, 2),  // instruction cache per 2 CUs
              Cache(2, 4096, 128, kDataCache, 38),     // L2 per XCD
              Cache(3, 262144, 64, kDataCache, 304),   // Infinity Cache (MALL)
          },
      // [MI300X dumps]: revision 00 is "AMD Instinct MI300X" in amdgpu.ids; ASIC revision 1, CP ucode 166, SDMA 22.
      .pci_revision = 0x00,
      .family_id = kFamilyAi,
      .fw_version = 166,
      .sdma_fw_version = 22,
      .asic_revision = 1,
      .gpu_clock_counter_hz = 100'000'000,  // gfx94x: the 100 MHz SOC15 reference clock
  };
}

GpuConfig Mi250xGcd() {
  return GpuConfig{
      .gpu_id = 0,
      .drm_render_minor = 0,
      .name = "gfx90a",
      .marketing_name = "AMD Instinct MI250X",
      .gfx_target_version = 90010,
      .vram_bytes = (Bytes::GiB(64) - kVramReserve).raw(),
      .simd_count = 110 * 4,
      .max_waves_per_simd = 8,
      .wave_front_size = 64,
      .lds_size_in_kb = 64,
      .cu_per_simd_array = 14,  // 8 shader engines of 14 CUs (112, 110 enabled)
      .simd_per_cu = 4,
      .array_count = 8,
      .simd_arrays_per_engine = 1,
      .vendor_id = 0x1002,
      .device_id = 0x740c,
      .location_id = 0,
      .domain = 0,
      .max_engine_clk_fcompute = 1700,
      .num_sdma_engines = 2,
      .num_sdma_xgmi_engines = 3,  // 5 SDMA instances per GCD
      .num_xcc = 1,
      .capability = kCdnaCapability,
      .hive_id = 0,
      .unique_id = 0,
      .mem_width = 4096,
      .mem_clk_max = 1600,
      .caches =
          {
              Cache(1, 16, 64, kDataCache, 1),         // TCP L1 per CU
              Cache(1, 32, 64, kInstructionCache, 2),  // instruction cache per SQC
              Cache(1, 16, 64, kDataCache, 2),         // scalar L1 per SQC
              Cache(2, 8192, 128, kDataCache, 14),     // L2
          },
      // [MI250X dumps]: revision 01; ASIC revision 1, CP ucode 96, SDMA 9.
      .pci_revision = 0x01,
      .family_id = kFamilyAi,
      .fw_version = 96,
      .sdma_fw_version = 9,
      .asic_revision = 1,
      .gpu_clock_counter_hz = 25'000'000,  // gfx90a: 25 MHz
  };
}

GpuConfig Mi100() {
  return GpuConfig{
      .gpu_id = 0,
      .drm_render_minor = 0,
      .name = "gfx908",
      .marketing_name = "AMD Instinct MI100",
      .gfx_target_version = 90008,
      .vram_bytes = (Bytes::GiB(32) - kVramReserve).raw(),
      .simd_count = 120 * 4,
      .max_waves_per_simd = 10,
      .wave_front_size = 64,
      .lds_size_in_kb = 64,
      .cu_per_simd_array = 16,  // 8 shader engines of 16 CUs (128, 120 enabled)
      .simd_per_cu = 4,
      .array_count = 8,
      .simd_arrays_per_engine = 1,
      .vendor_id = 0x1002,
      .device_id = 0x738c,
      .location_id = 0,
      .domain = 0,
      .max_engine_clk_fcompute = 1502,
      .num_sdma_engines = 2,
      .num_sdma_xgmi_engines = 6,  // 8 SDMA instances
      .num_xcc = 1,
      .capability = kCdnaCapability,
      .hive_id = 0,
      .unique_id = 0,
      .mem_width = 4096,
      .mem_clk_max = 1200,
      .caches =
          {
              Cache(1, 16, 64, kDataCache, 1),         // TCP L1 per CU
              Cache(1, 32, 64, kInstructionCache, 3),  // instruction cache per SQC
              Cache(1, 16, 64, kDataCache, 3),         // scalar L1 per SQC
              Cache(2, 8192, 128, kDataCache, 16),     // L2
          },
      // Revision 01 is "AMD Instinct MI100" in amdgpu.ids. The firmware versions are the generic defaults: no
      // public MI100 dump with them was found.
      .pci_revision = 0x01,
      .family_id = kFamilyAi,
      .asic_revision = 1,
      .gpu_clock_counter_hz = 25'000'000,  // gfx908: 25 MHz
  };
}

GpuConfig Rx7900xtx() {
  return GpuConfig{
      .gpu_id = 0,
      .drm_render_minor = 0,
      .name = "gfx1100",
      .marketing_name = "AMD Radeon RX 7900 XTX",
      .gfx_target_version = 110000,
      .vram_bytes = (Bytes::GiB(24) - kVramReserve).raw(),
      .simd_count = 96 * 2,  // RDNA: two SIMD32 per CU
      .max_waves_per_simd = 16,
      .wave_front_size = 32,
      .lds_size_in_kb = 64,
      .cu_per_simd_array = 8,
      .simd_per_cu = 2,
      .array_count = 12,  // 6 shader engines x 2 shader arrays
      .simd_arrays_per_engine = 2,
      .vendor_id = 0x1002,
      .device_id = 0x744c,
      .location_id = 0,
      .domain = 0,
      .max_engine_clk_fcompute = 2500,
      .num_sdma_engines = 2,
      .num_sdma_xgmi_engines = 0,  // no XGMI
      .num_xcc = 1,
      .capability = kRdnaCapability,
      .hive_id = 0,
      .unique_id = 0,
      .mem_width = 384,
      .mem_clk_max = 2500,
      .caches =
          {
              Cache(1, 32, 128, kDataCache, 1),        // vector L0 per CU (KFD level 1)
              Cache(1, 32, 64, kInstructionCache, 2),  // instruction cache per WGP
              Cache(1, 16, 64, kDataCache, 2),         // scalar cache per WGP
              Cache(1, 256, 128, kDataCache, 8),       // GL1 per shader array
              Cache(2, 6144, 128, kDataCache, 96),     // L2
              Cache(3, 98304, 64, kDataCache, 96),     // Infinity Cache (MALL)
          },
      // A workstation without resizable BAR: the CPU sees a 256 MiB window, so KFD reports the VRAM
      // FRAME_BUFFER_PRIVATE and nothing above the thunk may touch it with the CPU.
      .large_bar = false,
      // [RX7900XTX dumps]: revision C8 is "AMD Radeon RX 7900 XTX"; ASIC revision 0. Firmware versions: the generic
      // defaults (no public dump with them was found).
      .pci_revision = 0xc8,
      .family_id = kFamilyGc11,
      .asic_revision = 0,
      .gpu_clock_counter_hz = 100'000'000,  // gfx11: 100 MHz
  };
}

IoLinkConfig Link(size_t from, size_t to, IoLinkType type, uint32_t weight, uint32_t min_mbps, uint32_t max_mbps,
                  uint32_t flags) {
  return IoLinkConfig{
      .node_from = static_cast<uint32_t>(from),
      .node_to = static_cast<uint32_t>(to),
      .type = type,
      .weight = weight,
      .min_latency = 0,  // the kernel does not report link latencies
      .max_latency = 0,
      .min_bandwidth = min_mbps,
      .max_bandwidth = max_mbps,
      .flags = flags,
  };
}

// Builds a machine of `slots.size()` GPUs of one `model` in `host`: each PCIe-linked to the CPU (the GPU
// side coherent, the CPU side non-coherent as kfd_set_iolink_non_coherent marks it), and, with several
// GPUs wired by `xgmi`, in one hive with an XGMI link from every GPU to every other. Several GPUs without XGMI
// get no link to each other at all: the KFD adds a PCIe peer link (kfd_add_peer_prop) only when
// amdgpu_device_is_peer_accessible holds, which needs the peer's whole VRAM behind its BAR (large BAR); these
// models are used so only without it.
Topology Machine(const Host& host, const GpuConfig& model, std::span<const Slot> slots, uint32_t pcie_max_mbps,
                 uint64_t hive_id, XgmiWiring xgmi) {
  Topology topology{
      .system_memory_bytes = HostSystemMemory().raw(),
      .system_memory_limit_bytes = std::nullopt,
      .cpu_cores = host.cores,
      .gpus = {},
      .io_links = {},
      .cpu_max_engine_clk_mhz = host.max_clock_mhz,
  };
  const bool in_hive = slots.size() > 1 && xgmi.links_per_pair > 0;
  for (size_t i = 0; i < slots.size(); ++i) {
    GpuConfig gpu = model;
    gpu.gpu_id = slots[i].gpu_id;
    gpu.drm_render_minor = kFirstRenderMinor + static_cast<uint32_t>(i);
    gpu.location_id = slots[i].pci_bus << 8;
    gpu.unique_id = slots[i].unique_id;
    // A hive id without peers: one OAM of a larger platform keeps the XGMI hive the kernel found (an MI300X
    // always sits on an 8-OAM board), so ROCr still exposes its fine-grained VRAM pool.
    gpu.hive_id = hive_id;
    topology.gpus.push_back(std::move(gpu));
  }
  for (size_t node = 1; node <= slots.size(); ++node) {
    topology.io_links.push_back(
        Link(node, 0, IoLinkType::kPcieExpress, kPcieWeight, kPcieMinBandwidthMBps, pcie_max_mbps, kLinkEnabled));
    topology.io_links.push_back(Link(0, node, IoLinkType::kPcieExpress, kPcieWeight, kPcieMinBandwidthMBps,
                                     pcie_max_mbps, kLinkEnabled | kLinkNonCoherent));
  }
  if (in_hive) {
    for (size_t from = 1; from <= slots.size(); ++from) {
      for (size_t to = 1; to <= slots.size(); ++to) {
        if (from == to) continue;
        // One hop; min is one link, max every link between the pair (amdgpu_amdkfd_get_xgmi_bandwidth_mbytes).
        topology.io_links.push_back(Link(from, to, IoLinkType::kXgmi, kXgmiHopWeight, xgmi.link_mbps,
                                         xgmi.links_per_pair * xgmi.link_mbps, kLinkEnabled));
      }
    }
  }
  return topology;
}

constexpr XgmiWiring kMi300xXgmi = {.links_per_pair = 1, .link_mbps = kMi300xXgmiLinkMBps};
constexpr XgmiWiring kMi250xXgmi = {.links_per_pair = 4, .link_mbps = kAldebaranXgmiLinkMBps};
constexpr XgmiWiring kNoXgmi = {.links_per_pair = 0, .link_mbps = 0};

struct Preset {
  absl::string_view name;
  Topology (*make)();
};

constexpr Preset kPresets[] = {
    {"mi300x", [] { return Mi300xTopology(1); }},
    {"mi250x",
     [] { return Machine(kMi250xHost, Mi250xGcd(), std::span(kMi250xSlots, 1), kPcieGen4x16MBps, 0, kNoXgmi); }},
    {"mi100", [] { return Machine(kMi100Host, Mi100(), kMi100Slots, kPcieGen4x16MBps, 0, kNoXgmi); }},
    {"rx7900xtx", [] { return Machine(kWorkstationHost, Rx7900xtx(), kRx7900xtxSlots, kPcieGen4x16MBps, 0, kNoXgmi); }},
    {"2xmi250x",
     [] { return Machine(kMi250xHost, Mi250xGcd(), kMi250xSlots, kPcieGen4x16MBps, kMi250xHiveId, kMi250xXgmi); }},
    {"8xmi300x", [] { return Mi300xTopology(kMaxMi300xGpus); }},
    // Two consumer cards on a board without resizable BAR: neither can map the other's VRAM (no P2P, no XGMI), so
    // peer access is refused and copies between them go through system memory.
    {"2xrx7900xtx",
     [] { return Machine(kWorkstationHost, Rx7900xtx(), kTwoRx7900xtxSlots, kPcieGen4x16MBps, 0, kNoXgmi); }},
};

}  // namespace

Bytes HostSystemMemory() {
  struct sysinfo info {};
  // sysinfo cannot fail with a valid pointer; MemTotal is totalram in mem_unit units.
  HIPMEM_CHECK(sysinfo(&info) == 0, "sysinfo failed");
  return Bytes(uint64_t{info.totalram} * info.mem_unit);
}

Topology DefaultTopology() { return Mi300xTopology(1); }

Topology Mi300xTopology(int gpu_count) {
  HIPMEM_CHECK(gpu_count >= 1 && gpu_count <= kMaxMi300xGpus, "Mi300xTopology(", gpu_count,
               "): gpu_count must be in [1, 8]");
  return Machine(kMi300xHost, Mi300x(), std::span(kMi300xSlots, static_cast<size_t>(gpu_count)), kPcieGen5x16MBps,
                 kMi300xHiveId, kMi300xXgmi);
}

std::vector<std::string> PresetNames() {
  std::vector<std::string> names;
  for (const Preset& preset : kPresets) names.emplace_back(preset.name);
  return names;
}

absl::StatusOr<Topology> PresetTopology(absl::string_view name) {
  for (const Preset& preset : kPresets) {
    if (preset.name == name) return preset.make();
  }
  return absl::NotFoundError(
      absl::StrCat("PresetTopology(", name, "): unknown preset; valid presets: ", absl::StrJoin(PresetNames(), ", ")));
}

absl::StatusOr<Topology> TopologyFromEnvironment() {
  Topology topology = DefaultTopology();
  if (const char* preset = std::getenv("HIPMEM_SIM_PRESET"); preset != nullptr && *preset != '\0') {
    absl::StatusOr<Topology> named = PresetTopology(preset);
    // A bad setting is the caller's input, not a missing thing.
    if (!named.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("HIPMEM_SIM_PRESET=", preset, ": ", named.status().message()));
    }
    topology = *std::move(named);
  }
  if (const char* gws = std::getenv("HIPMEM_SIM_NUM_GWS"); gws != nullptr && *gws != '\0') {
    uint32_t num_gws = 0;
    if (!absl::SimpleAtoi(gws, &num_gws)) {
      return absl::InvalidArgumentError(absl::StrCat("HIPMEM_SIM_NUM_GWS=", gws, ": not an unsigned 32-bit number"));
    }
    for (GpuConfig& gpu : topology.gpus) gpu.num_gws = num_gws;
  }
  return topology;
}

}  // namespace hipmem::kfd_sim
