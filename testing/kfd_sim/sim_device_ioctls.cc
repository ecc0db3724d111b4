// The simulated kernel's device and queue controls (kfd_chardev.c): SET_MEMORY_POLICY, GET_TILE_CONFIG,
// SET_TRAP_HANDLER, SET_CU_MASK, ALLOC_QUEUE_GWS, SET_XNACK_MODE and RUNTIME_ENABLE.
//
// Each keeps the kernel's checks in the kernel's order. What the hardware would do with the setting (cache
// policy registers, a trap handler, a CU mask in the MQD, GWS, retry faults) is recorded, not simulated: no
// simulated engine runs shader code, so none of these changes what it computes.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_internal.h"
#include "testing/kfd_sim/user_memory.h"

namespace hipmem::kfd_sim::sim_internal {
namespace {

// What amdgpu_amdkfd_get_tile_config answers for one GPU. From gfx9 on the kernel still reports the full
// tile_mode_array (32 entries) and macrotile_mode_array (16), but leaves both zero, as it does num_banks and
// num_ranks: only gb_addr_config means anything there.
struct TileConfig {
  uint32_t gb_addr_config;
};
constexpr uint32_t kNumTileConfigs = 32;
constexpr uint32_t kNumMacroTileConfigs = 16;

// GB_ADDR_CONFIG as the amdgpu driver sets it up, by gfx_target_version.
TileConfig TileConfigOf(uint32_t gfx_target_version) {
  switch (gfx_target_version) {
    case 90400:  // gfx940
    case 90401:  // gfx941
    case 90402:  // gfx942: gfx_v9_4_3.c's GOLDEN_GB_ADDR_CONFIG
    case 90500:  // gfx950
      return {.gb_addr_config = 0x2a114042};
    case 90008:  // gfx908
    case 90010:  // gfx90a: gfx_v9_0.c ORs 0x22014042 into the register under mask ~0xf3e777ff; the strapped
                 // bits the mask keeps read as 0 here.
      return {.gb_addr_config = 0x22014042};
    default:
      // Deliberate: gfx10/gfx11 read GB_ADDR_CONFIG from the board; this is a representative value (4 pipes,
      // 256-byte pipe interleave, 4 shader engines), not one read from hardware.
      return {.gb_addr_config = 0x00000442};
  }
}

// KFD_SUPPORT_XNACK_PER_PROCESS: the GPUs that can switch retry faults per process (GC 9.4.2, 9.4.3, 9.4.4, 9.5.0).
// Every other simulated GPU boots with noretry on (gfx908, and gfx10.3+ by amdgpu_gmc_noretry_set's default) or
// cannot preempt during a fault (gfx10.1.1+), so kfd_process_xnack_mode refuses XNACK there.
bool SupportsXnack(uint32_t gfx_target_version) {
  return gfx_target_version == 90010 || gfx_target_version == 90400 || gfx_target_version == 90401 ||
         gfx_target_version == 90402 || gfx_target_version == 90500;
}

// The WGP ASICs (gfx10 up to gfx12.1) schedule CUs in pairs: pqm_update_mqd refuses a mask that enables half a pair.
bool HasWorkgroupProcessors(uint32_t gfx_target_version) {
  return gfx_target_version >= 100000 && gfx_target_version < 120100;
}

// kfd_bind_process_to_device: this simulator binds a GPU once ACQUIRE_VM gave it a render node.
bool Bound(const IoctlContext& c, size_t gpu) { return c.process.devices[gpu].vm_token.has_value(); }

}  // namespace

int SetMemoryPolicy(IoctlContext& c, uapi::SetMemoryPolicyArgs& args) {
  const auto valid = [](uint32_t policy) {
    return policy == uapi::ToRaw(uapi::CachePolicy::kCoherent) || policy == uapi::ToRaw(uapi::CachePolicy::kNoncoherent);
  };
  if (!valid(args.default_policy) || !valid(args.alternate_policy)) return -EINVAL;
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;  // "Could not find gpu id"
  if (!Bound(c, *gpu)) return -ESRCH;
  // set_cache_memory_policy: gfx9+ device queue managers have no ASIC hook, so any aperture is accepted and
  // nothing is programmed (the alternate aperture exists only on CIK/VI, which no preset models).
  ProcessDevice& device = c.process.devices[*gpu];
  device.default_policy = static_cast<uapi::CachePolicy>(args.default_policy);
  device.alternate_policy = static_cast<uapi::CachePolicy>(args.alternate_policy);
  return 0;
}

int SetScratchBackingVa(IoctlContext& c, uapi::SetScratchBackingVaArgs& args) {
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;
  // kfd_bind_process_to_device's own errno (no drm_priv yet), passed through here, unlike SET_TRAP_HANDLER's.
  if (!Bound(c, *gpu)) return -ENODEV;
  // Recorded as qpd.sh_hidden_private_base, whatever the value. The kernel programs SH_HIDDEN_PRIVATE_BASE_VMID
  // itself only without the hardware scheduler (sched_policy NO_HWS, a debugging mode); with the HWS every gfx9+
  // GPU runs by default, and this simulator models, the value goes to the CP with the process's queues when they
  // are mapped (StartEngine), and the CP finds a queue's scratch at it plus the queue's
  // scratch_backing_memory_location.
  c.process.devices[*gpu].sh_hidden_private_base = args.va_addr;
  return 0;
}

int GetTileConfig(IoctlContext& c, uapi::GetTileConfigArgs& args) {
  // kfd_process_device_data_by_id only: no bind, so a GPU without ACQUIRE_VM answers too.
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;
  const TileConfig config = TileConfigOf(c.topology.gpus[*gpu].gfx_target_version);
  args.gb_addr_config = config.gb_addr_config;
  args.num_banks = 0;
  args.num_ranks = 0;
  // Each array: as many entries as the caller has room for, at most the kernel's; a failed copy reports 0.
  static constexpr uint32_t kZeros[kNumTileConfigs] = {};
  args.num_tile_configs = std::min(args.num_tile_configs, kNumTileConfigs);
  if (!CopyToUser(args.tile_config_ptr, kZeros, args.num_tile_configs * sizeof(uint32_t))) {
    args.num_tile_configs = 0;
    return -EFAULT;
  }
  args.num_macro_tile_configs = std::min(args.num_macro_tile_configs, kNumMacroTileConfigs);
  if (!CopyToUser(args.macro_tile_config_ptr, kZeros, args.num_macro_tile_configs * sizeof(uint32_t))) {
    args.num_macro_tile_configs = 0;
    return -EFAULT;
  }
  return 0;
}

int SetTrapHandler(IoctlContext& c, uapi::SetTrapHandlerArgs& args) {
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;
  if (!Bound(c, *gpu)) return -ESRCH;
  // kfd_process_set_trap_handler: stored for the next MQD load, whatever the addresses.
  ProcessDevice& device = c.process.devices[*gpu];
  device.trap_handler_base = args.tba_addr;
  device.trap_memory_base = args.tma_addr;
  return 0;
}

int SetCuMask(IoctlContext& c, uapi::SetCuMaskArgs& args) {
  if (args.num_cu_mask % 32 != 0) return -EINVAL;
  if (args.num_cu_mask == 0) return -EINVAL;
  // Bits past 1024 are dropped, not refused.
  const uint32_t bits = std::min(args.num_cu_mask, uapi::kMaxCuMaskBits);
  std::vector<uint32_t> mask(bits / 32);
  if (!CopyFromUser(mask.data(), args.cu_mask_ptr, mask.size() * sizeof(uint32_t))) return -EFAULT;
  const auto it = c.process.queues.find(args.queue_id);
  if (it == c.process.queues.end()) return -EFAULT;  // pqm_update_mqd: "No queue ... exists for update operation"
  Queue& q = it->second;
  if (HasWorkgroupProcessors(c.topology.gpus[q.gpu_index].gfx_target_version)) {
    for (uint32_t i = 0; i < bits; i += 2) {
      const uint32_t pair = (mask[i / 32] >> (i % 32)) & 0x3;
      if (pair != 0 && pair != 0x3) return -EINVAL;  // "CUs must be adjacent pairwise enabled."
    }
  }
  // The kernel accepts a mask on any queue type; update_mqd_sdma ignores it.
  q.cu_mask = std::move(mask);
  return 0;
}

int AllocQueueGws(IoctlContext& c, uapi::AllocQueueGwsArgs& args) {
  const auto it = c.process.queues.find(args.queue_id);
  if (it == c.process.queues.end()) return -EINVAL;  // pqm_get_user_queue found nothing
  Queue& q = it->second;
  if (c.topology.gpus[q.gpu_index].num_gws == 0) return -ENODEV;  // !dev->gws
  // pqm_set_gws: the GWS belong to one queue per process and GPU (qpd.num_gws).
  bool device_has_gws = false;
  for (const auto& [qid, other] : c.process.queues) device_has_gws |= other.gpu_index == q.gpu_index && other.gws;
  if (args.num_gws != 0 && device_has_gws) return -EBUSY;
  if (args.num_gws == 0 && !device_has_gws) return -EINVAL;
  if (args.num_gws != 0) {
    q.gws = std::make_shared<gfx9::GwsBlock>();
    if (q.engine != nullptr) q.engine->SetGws(q.gws);
  } else {
    // Releasing clears the GPU's GWS whichever of its queues is named, as qpd.num_gws = 0 does.
    for (auto& [qid, other] : c.process.queues) {
      if (other.gpu_index != q.gpu_index || other.gws == nullptr) continue;
      other.gws.reset();
      if (other.engine != nullptr) other.engine->SetGws(nullptr);
    }
  }
  args.first_gws = 0;
  return 0;
}

int SetXnackMode(IoctlContext& c, uapi::SetXnackModeArgs& args) {
  if (args.xnack_enabled < 0) {
    args.xnack_enabled = c.process.xnack_enabled ? 1 : 0;
    return 0;
  }
  // Live queues were set up for the current mode.
  if (!c.process.queues.empty()) return -EBUSY;
  const bool enable = args.xnack_enabled != 0;
  if (enable == c.process.xnack_enabled) return 0;
  if (enable) {
    // kfd_process_xnack_mode(p, true): every GPU of the process must be able to retry.
    for (const GpuConfig& gpu : c.topology.gpus) {
      if (!SupportsXnack(gpu.gfx_target_version)) return -EPERM;
    }
  }
  c.process.xnack_enabled = enable;
  if (c.process.svm != nullptr) c.process.svm->SetXnack(enable);
  c.log.Write(SimLogLevel::kInfo,
              absl::StrCat("kfd_sim: process ", c.process_id, ": XNACK ", enable ? "enabled" : "disabled"));
  return 0;
}

int RuntimeEnable(IoctlContext& c, uapi::RuntimeEnableArgs& args) {
  // capabilities_mask is left as the caller passed it: mainline reports no capability this way.
  if ((args.mode_mask & uapi::kRuntimeEnableModeEnableMask) == 0) {
    // runtime_disable: always succeeds without a debugger attached.
    c.process.runtime_state = RuntimeState::kDisabled;
    c.process.runtime_r_debug = 0;
    c.process.runtime_ttmp_setup = false;
    return 0;
  }
  if (c.process.runtime_state != RuntimeState::kDisabled) return -EBUSY;
  // A debugger must see every queue created, so the runtime enables before its first queue.
  if (!c.process.queues.empty()) return -EEXIST;
  c.process.runtime_state = RuntimeState::kEnabled;
  c.process.runtime_r_debug = args.r_debug;
  c.process.runtime_ttmp_setup = (args.mode_mask & uapi::kRuntimeEnableModeTtmpSaveMask) != 0;
  return 0;
}

}  // namespace hipmem::kfd_sim::sim_internal
