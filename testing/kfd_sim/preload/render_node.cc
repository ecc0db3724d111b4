// The render node's ioctls (render_node.h).
#include "testing/kfd_sim/preload/render_node.h"

#include <errno.h>
#include <drm/amdgpu_drm.h>
#include <drm/drm.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "testing/kfd_sim/user_memory.h"

namespace hipmem::kfd_preload {
namespace {

// The driver's identity as DRM_IOCTL_VERSION reports it: amdgpu's KMS interface 3.49 (Linux 6.1, the first with
// gang submit), and the name, date and description amdgpu_drv.c registers.
constexpr int kKmsMajor = 3;
constexpr int kKmsMinor = 49;
constexpr std::string_view kDriverName = "amdgpu";
constexpr std::string_view kDriverDate = "20150101";
constexpr std::string_view kDriverDesc = "AMD GPU";

constexpr uint32_t kIocIn = 1;   // _IOC_WRITE: user space writes the argument
constexpr uint32_t kIocOut = 2;  // _IOC_READ: user space reads it back

uint32_t IocNr(unsigned long request) { return static_cast<uint32_t>(request & 0xff); }
uint32_t IocSize(unsigned long request) { return static_cast<uint32_t>((request >> 16) & 0x3fff); }
uint32_t IocDir(unsigned long request) { return static_cast<uint32_t>((request >> 30) & 0x3); }

bool CopyOut(uint64_t user, const void* src, size_t size) { return kfd_sim::CopyToUser(user, src, size); }

// drm_copy_field: copies at most *len bytes (no terminator) and reports the full length.
int CopyField(uint64_t user_buf, size_t* len, std::string_view value) {
  const size_t n = std::min(*len, value.size());
  *len = value.size();
  if (n != 0 && user_buf != 0 && !CopyOut(user_buf, value.data(), n)) return -EFAULT;
  return 0;
}

int Version(drm_version& v) {
  v.version_major = kKmsMajor;
  v.version_minor = kKmsMinor;
  v.version_patchlevel = 0;
  if (int r = CopyField(reinterpret_cast<uintptr_t>(v.name), &v.name_len, kDriverName); r != 0) return r;
  if (int r = CopyField(reinterpret_cast<uintptr_t>(v.date), &v.date_len, kDriverDate); r != 0) return r;
  return CopyField(reinterpret_cast<uintptr_t>(v.desc), &v.desc_len, kDriverDesc);
}

// drm_getcap for a driver without DRIVER_MODESET limits: the caps a render client may ask about.
int GetCap(drm_get_cap& cap) {
  cap.value = 0;
  switch (cap.capability) {
    case DRM_CAP_TIMESTAMP_MONOTONIC:
    case DRM_CAP_SYNCOBJ:
    case DRM_CAP_SYNCOBJ_TIMELINE:
      cap.value = 1;
      return 0;
    case DRM_CAP_PRIME:
      cap.value = DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT;
      return 0;
    default:
      return -EINVAL;  // the KMS caps (dumb buffers, cursor size...) are not modelled
  }
}

// amdgpu's VM: 48-bit GPU addresses on every GFX9+ part, split by the GMC hole; the bottom 1 MiB is reserved
// (AMDGPU_VA_RESERVED_SIZE as of Linux 6.1) and so is the same amount at the top.
constexpr uint64_t kVaReserved = uint64_t{1} << 20;
constexpr uint64_t kVmSize = (uint64_t{1} << 48) - kVaReserved;
constexpr uint64_t kGmcHoleStart = 0x0000800000000000ULL;
constexpr uint64_t kGmcHoleEnd = 0xffff800000000000ULL;
// AMDGPU_VM_RESERVED_VRAM: what the VM code keeps of VRAM for page tables.
constexpr uint64_t kVmReservedVram = uint64_t{8} << 20;
// A GPU without a large BAR shows the CPU 256 MiB of VRAM.
constexpr uint64_t kSmallBar = uint64_t{256} << 20;
// The register libdrm reads at amdgpu_device_initialize (GB_ADDR_CONFIG, GC block, soc15 offset).
constexpr uint32_t kGbAddrConfig = 0x263e;
// Its value: a fixed GFX9 layout (4 pipes, 256-byte interleave, 4 shader engines). Inferred, not read from a
// part's golden settings; nothing in the ROCm compute stack decodes it (libdrm only stores it).
constexpr uint32_t kGbAddrConfigValue = 0x2a114042;
constexpr uint32_t kMaxMmrRegs = 128;

uint64_t VisibleVram(const kfd_sim::GpuConfig& gpu) {
  return gpu.large_bar ? gpu.vram_bytes : std::min<uint64_t>(gpu.vram_bytes, kSmallBar);
}

// amdgpu_ttm_init's default GTT size: at least 3 GiB or the VRAM size, at most 3/4 of the RAM.
uint64_t GttSize(const kfd_sim::GpuConfig& gpu, uint64_t system_memory_bytes) {
  const uint64_t floor = std::max<uint64_t>(uint64_t{3} << 30, gpu.vram_bytes);
  return std::min(floor, system_memory_bytes / 4 * 3);
}

drm_amdgpu_info_device DeviceInfo(const kfd_sim::GpuConfig& gpu) {
  drm_amdgpu_info_device d{};
  d.device_id = gpu.device_id;
  // amdgpu's rev_id is the ASIC revision (the one KFD packs into the capability bits); external_rev adds a
  // per-ASIC base we do not model.
  d.chip_rev = gpu.asic_revision;
  d.external_rev = gpu.asic_revision;
  d.pci_rev = gpu.pci_revision;
  d.family = gpu.family_id;
  const uint32_t arrays = std::max<uint32_t>(gpu.array_count, 1);
  const uint32_t arrays_per_engine = std::max<uint32_t>(gpu.simd_arrays_per_engine, 1);
  d.num_shader_engines = arrays / arrays_per_engine;
  d.num_shader_arrays_per_engine = arrays_per_engine;
  d.gpu_counter_freq = static_cast<uint32_t>(gpu.gpu_clock_counter_hz / 1000);  // kHz
  d.max_engine_clock = uint64_t{gpu.max_engine_clk_fcompute} * 1000;           // kHz
  d.max_memory_clock = uint64_t{gpu.mem_clk_max} * 1000;                       // kHz
  const uint32_t cus = gpu.simd_per_cu != 0 ? gpu.simd_count / gpu.simd_per_cu : 0;
  d.cu_active_number = cus;
  // The active CUs spread over the shader arrays, the first arrays taking one more where the count does not divide
  // (a harvested part); the bitmap folds engines past the fourth as amdgpu does (se % 4, sh + se / 4 * 2).
  for (uint32_t a = 0; a < arrays; ++a) {
    const uint32_t in_array = cus / arrays + (a < cus % arrays ? 1 : 0);
    const uint32_t se = a / arrays_per_engine;
    const uint32_t sh = a % arrays_per_engine + se / 4 * 2;
    if (sh >= 4) continue;
    const uint32_t bits = in_array >= 32 ? 0xffffffffu : (1u << in_array) - 1;
    d.cu_bitmap[se % 4][sh] |= bits;
  }
  d.num_cu_per_sh = gpu.cu_per_simd_array;
  d.virtual_address_offset = kVaReserved;
  d.virtual_address_max = std::min(kVmSize, kGmcHoleStart);
  d.high_va_offset = kGmcHoleEnd;
  d.high_va_max = kGmcHoleEnd | kVmSize;
  d.virtual_address_alignment = 4096;
  d.pte_fragment_size = 2u << 20;  // fragment size 9: 512 GPU pages
  d.gart_page_size = 4096;
  // Every Instinct part the presets model has HBM; the Radeon ones GDDR6.
  d.vram_type = gpu.family_id == AMDGPU_FAMILY_AI ? AMDGPU_VRAM_TYPE_HBM : AMDGPU_VRAM_TYPE_GDDR6;
  d.vram_bit_width = gpu.mem_width;
  d.wave_front_size = gpu.wave_front_size;
  d.num_shader_visible_vgprs = 256;
  return d;
}

drm_amdgpu_memory_info MemoryInfo(const kfd_sim::GpuConfig& gpu, uint64_t system_memory_bytes,
                                  const RenderNodeUsage& use) {
  drm_amdgpu_memory_info m{};
  m.vram.total_heap_size = gpu.vram_bytes;
  m.vram.usable_heap_size = gpu.vram_bytes > kVmReservedVram ? gpu.vram_bytes - kVmReservedVram : 0;
  m.vram.heap_usage = use.vram_used;
  m.vram.max_allocation = m.vram.usable_heap_size * 3 / 4;
  m.cpu_accessible_vram.total_heap_size = VisibleVram(gpu);
  m.cpu_accessible_vram.usable_heap_size = std::min<uint64_t>(VisibleVram(gpu), m.vram.usable_heap_size);
  // Large BAR: every VRAM byte is CPU-visible, so visible use is all use; otherwise where a buffer lies is not
  // modelled and none is reported.
  m.cpu_accessible_vram.heap_usage = gpu.large_bar ? use.vram_used : 0;
  m.cpu_accessible_vram.max_allocation = m.cpu_accessible_vram.usable_heap_size * 3 / 4;
  m.gtt.total_heap_size = GttSize(gpu, system_memory_bytes);
  m.gtt.usable_heap_size = m.gtt.total_heap_size;
  m.gtt.heap_usage = use.system_used;
  m.gtt.max_allocation = m.gtt.usable_heap_size * 3 / 4;
  return m;
}

// AMDGPU_INFO_FW_VERSION: the MEC and SDMA microcode the topology reports; every other known block answers version
// 0 (not modelled), an unknown type -EINVAL.
int FirmwareVersion(const kfd_sim::GpuConfig& gpu, const drm_amdgpu_query_fw& q, drm_amdgpu_info_firmware* out) {
  *out = {};
  switch (q.fw_type) {
    case AMDGPU_INFO_FW_GFX_MEC:
      out->ver = gpu.fw_version;
      return 0;
    case AMDGPU_INFO_FW_SDMA:
      if (q.index >= gpu.num_sdma_engines + gpu.num_sdma_xgmi_engines) return -EINVAL;
      out->ver = gpu.sdma_fw_version;
      return 0;
    case AMDGPU_INFO_FW_VCE:
    case AMDGPU_INFO_FW_UVD:
    case AMDGPU_INFO_FW_GMC:
    case AMDGPU_INFO_FW_GFX_ME:
    case AMDGPU_INFO_FW_GFX_PFP:
    case AMDGPU_INFO_FW_GFX_CE:
    case AMDGPU_INFO_FW_GFX_RLC:
    case AMDGPU_INFO_FW_SMC:
    case AMDGPU_INFO_FW_SOS:
    case AMDGPU_INFO_FW_ASD:
    case AMDGPU_INFO_FW_VCN:
    case AMDGPU_INFO_FW_TA:
      return 0;
    default:
      return -EINVAL;
  }
}

template <typename T>
int Reply(const drm_amdgpu_info& info, const T& value) {
  const size_t n = std::min<size_t>(info.return_size, sizeof(T));
  return CopyOut(info.return_pointer, &value, n) ? 0 : -EFAULT;
}

int Info(const kfd_sim::GpuConfig& gpu, uint64_t system_memory_bytes, absl::FunctionRef<RenderNodeUsage()> usage,
         const drm_amdgpu_info& info) {
  if (info.return_size == 0 || info.return_pointer == 0) return -EINVAL;
  switch (info.query) {
    case AMDGPU_INFO_ACCEL_WORKING:
      return Reply(info, uint32_t{1});
    case AMDGPU_INFO_DEV_INFO:
      return Reply(info, DeviceInfo(gpu));
    case AMDGPU_INFO_READ_MMR_REG: {
      const uint32_t count = info.read_mmr_reg.count;
      if (count > kMaxMmrRegs) return -EINVAL;
      std::array<uint32_t, kMaxMmrRegs> regs{};
      for (uint32_t i = 0; i < count; ++i) {
        // amdgpu's allow-list: a register it does not let user space read is -EFAULT.
        if (info.read_mmr_reg.dword_offset + i != kGbAddrConfig) return -EFAULT;
        regs[i] = kGbAddrConfigValue;
      }
      const size_t n = std::min<size_t>(info.return_size, count * sizeof(uint32_t));
      return CopyOut(info.return_pointer, regs.data(), n) ? 0 : -EFAULT;
    }
    case AMDGPU_INFO_VRAM_GTT: {
      drm_amdgpu_info_vram_gtt v{};
      v.vram_size = gpu.vram_bytes > kVmReservedVram ? gpu.vram_bytes - kVmReservedVram : 0;
      v.vram_cpu_accessible_size = std::min<uint64_t>(VisibleVram(gpu), v.vram_size);
      v.gtt_size = GttSize(gpu, system_memory_bytes);
      return Reply(info, v);
    }
    case AMDGPU_INFO_MEMORY:
      return Reply(info, MemoryInfo(gpu, system_memory_bytes, usage()));
    case AMDGPU_INFO_VRAM_USAGE:
      return Reply(info, uint64_t{usage().vram_used});
    case AMDGPU_INFO_VIS_VRAM_USAGE:
      return Reply(info, uint64_t{gpu.large_bar ? usage().vram_used : 0});
    case AMDGPU_INFO_GTT_USAGE:
      return Reply(info, uint64_t{usage().system_used});
    case AMDGPU_INFO_FW_VERSION: {
      drm_amdgpu_info_firmware fw;
      if (int r = FirmwareVersion(gpu, info.query_fw, &fw); r != 0) return r;
      return Reply(info, fw);
    }
    default:
      return -EINVAL;
  }
}

// The DRM core's ioctls by nr: whether the kernel has one, and whether a render client may call it.
enum class CoreIoctl { kNone, kVersion, kGetCap, kRenderDenied, kNotModelled };

CoreIoctl ClassifyCore(uint32_t nr) {
  switch (nr) {
    case 0x00:
      return CoreIoctl::kVersion;
    case 0x0c:
      return CoreIoctl::kGetCap;
    case 0x01:  // GET_UNIQUE
    case 0x02:  // GET_MAGIC
    case 0x05:  // GET_CLIENT
    case 0x06:  // GET_STATS
    case 0x07:  // SET_VERSION
    case 0x0a:  // GEM_FLINK
    case 0x0b:  // GEM_OPEN
    case 0x11:  // AUTH_MAGIC
    case 0x1e:  // SET_MASTER
    case 0x1f:  // DROP_MASTER
      return CoreIoctl::kRenderDenied;
    case 0x09:  // GEM_CLOSE
    case 0x0d:  // SET_CLIENT_CAP
    case 0x2d:  // PRIME_HANDLE_TO_FD
    case 0x2e:  // PRIME_FD_TO_HANDLE
      return CoreIoctl::kNotModelled;
    default:
      if (nr >= 0xa0 && nr < 0xbf) return CoreIoctl::kRenderDenied;  // mode setting
      if (nr >= 0xbf && nr <= 0xcf) return CoreIoctl::kNotModelled;  // syncobjs, leases, getfb2
      return CoreIoctl::kNone;
  }
}

// amdgpu's driver ioctls, by nr - DRM_COMMAND_BASE (amdgpu_ioctls_kms; the table has holes at 0x0a-0x0f).
bool AmdgpuHasIoctl(uint32_t index) { return index <= 0x09 || (index >= 0x10 && index <= 0x15); }

}  // namespace

int RenderNodeIoctl(const kfd_sim::GpuConfig& gpu, uint64_t system_memory_bytes,
                    absl::FunctionRef<RenderNodeUsage()> usage, unsigned long request, void* arg) {
  const uint32_t nr = IocNr(request);
  // What the kernel's handler expects (its own size and direction), from its table.
  uint32_t kernel_size = 0;
  uint32_t kernel_dir = 0;
  enum class Handler { kVersion, kGetCap, kInfo } handler = Handler::kInfo;
  if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END) {
    const uint32_t index = nr - DRM_COMMAND_BASE;
    if (!AmdgpuHasIoctl(index)) return -EINVAL;
    if (index != DRM_AMDGPU_INFO) return -EOPNOTSUPP;
    handler = Handler::kInfo;
    kernel_size = sizeof(drm_amdgpu_info);
    kernel_dir = kIocIn;
  } else {
    switch (ClassifyCore(nr)) {
      case CoreIoctl::kNone:
        return -EINVAL;
      case CoreIoctl::kRenderDenied:
        return -EACCES;
      case CoreIoctl::kNotModelled:
        return -EOPNOTSUPP;
      case CoreIoctl::kVersion:
        handler = Handler::kVersion;
        kernel_size = sizeof(drm_version);
        kernel_dir = kIocIn | kIocOut;
        break;
      case CoreIoctl::kGetCap:
        handler = Handler::kGetCap;
        kernel_size = sizeof(drm_get_cap);
        kernel_dir = kIocIn | kIocOut;
        break;
    }
  }
  // drm_ioctl's size handling: copy in what the caller's request says it passes (if the kernel reads it), zero
  // up to the larger of that and the kernel's struct, and copy the caller's size back (if the kernel writes it),
  // even after a failure.
  const uint32_t usize = IocSize(request);
  const uint32_t in_size = (IocDir(request) & kernel_dir & kIocIn) != 0 ? usize : 0;
  const uint32_t out_size = (IocDir(request) & kernel_dir & kIocOut) != 0 ? usize : 0;
  alignas(8) std::array<std::byte, 256> kdata{};
  if (std::max({in_size, out_size, kernel_size}) > kdata.size()) return -EINVAL;
  const uint64_t user = reinterpret_cast<uintptr_t>(arg);
  if (in_size != 0 && !kfd_sim::CopyFromUser(kdata.data(), user, in_size)) return -EFAULT;
  int ret = 0;
  switch (handler) {
    case Handler::kVersion: {
      drm_version v;
      std::memcpy(&v, kdata.data(), sizeof(v));
      ret = Version(v);
      std::memcpy(kdata.data(), &v, sizeof(v));
      break;
    }
    case Handler::kGetCap: {
      drm_get_cap c;
      std::memcpy(&c, kdata.data(), sizeof(c));
      ret = GetCap(c);
      std::memcpy(kdata.data(), &c, sizeof(c));
      break;
    }
    case Handler::kInfo: {
      drm_amdgpu_info info;
      std::memcpy(&info, kdata.data(), sizeof(info));
      ret = Info(gpu, system_memory_bytes, usage, info);
      break;
    }
  }
  if (out_size != 0 && !CopyOut(user, kdata.data(), out_size)) ret = -EFAULT;
  return ret;
}

}  // namespace hipmem::kfd_preload
