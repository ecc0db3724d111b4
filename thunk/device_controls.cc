#include "thunk/device_controls.h"

#include <cerrno>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/errno_status.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"
#include "thunk/queues.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

namespace uapi = ::hipmem::kfd_uapi;

constexpr uint64_t kPageBytes = 4096;
// HSA_CAPABILITY.DebugSupportedFirmware (bit 29 of the sysfs "capability").
constexpr uint64_t kCapDebugSupportedFirmware = uint64_t{1} << 29;
// The KFD minor version that brought RUNTIME_ENABLE (libhsakmt's HSA_RUNTIME_ENABLE_MIN_MINOR).
constexpr uint32_t kRuntimeEnableMinMinor = 13;

// The kernel refused: `code` is what libhsakmt answers; the errno and its canonical code stay.
absl::Status Refused(const absl::Status& status, absl::string_view context, HSAKMT_STATUS code) {
  return WithHsakmtStatus(Annotate(status, context), code);
}

// hsakmt_validate_nodeid: an unknown node is INVALID_NODE_UNIT; a CPU node passes with gpu_id 0, which the
// kernel then refuses.
absl::StatusOr<uint32_t> GpuIdOfNode(const Kfd& kfd, NodeId node) {
  ASSIGN_OR_RETURN(const NodeProperties* properties, kfd.Node(node));
  return properties->gpu_id ? properties->gpu_id->raw() : 0;
}

// hsaKmtCheckRuntimeDebugSupport: every GPU node's firmware must support the debugger, and the KFD must know
// RUNTIME_ENABLE.
absl::Status CheckRuntimeDebugSupport(const Kfd& kfd, absl::string_view context) {
  for (const NodeProperties& node : kfd.topology().nodes) {
    if (!node.is_gpu()) continue;
    if ((node.Get("capability") & kCapDebugSupportedFirmware) == 0) {
      return WithHsakmtStatus(absl::UnimplementedError(absl::StrCat(context, ": node ", node.id.raw(),
                                                                    " has no debugger-capable firmware")),
                              HSAKMT_STATUS_NOT_SUPPORTED);
    }
  }
  const KfdVersion version = kfd.version();
  if (version.major < 1 || (version.major == 1 && version.minor < kRuntimeEnableMinMinor)) {
    return WithHsakmtStatus(absl::UnimplementedError(absl::StrCat(context, ": KFD ", version.major, ".",
                                                                  version.minor, " predates RUNTIME_ENABLE")),
                            HSAKMT_STATUS_NOT_SUPPORTED);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> GetXnackMode(Kfd& kfd) {
  uapi::SetXnackModeArgs args{.xnack_enabled = -1};
  const absl::Status status = Ioctl(kfd.device(), uapi::kSetXnackMode, args);
  if (!status.ok()) return Refused(status, "hsaKmtGetXNACKMode", HSAKMT_STATUS_ERROR);
  return args.xnack_enabled > 0;
}

absl::Status SetXnackMode(Kfd& kfd, bool enabled) {
  uapi::SetXnackModeArgs args{.xnack_enabled = enabled ? 1 : 0};
  const absl::Status status = Ioctl(kfd.device(), uapi::kSetXnackMode, args);
  if (status.ok()) return status;
  const std::string context = absl::StrCat("hsaKmtSetXNACKMode(", enabled ? 1 : 0, ")");
  // svm.c: only -EPERM (a GPU cannot switch) is NOT_SUPPORTED; -EBUSY (queues live) is a plain error.
  return Refused(status, context, ErrnoOf(status) == EPERM ? HSAKMT_STATUS_NOT_SUPPORTED : HSAKMT_STATUS_ERROR);
}

absl::StatusOr<uint32_t> RuntimeEnable(Kfd& kfd, uint64_t r_debug, bool setup_ttmp) {
  const std::string context = absl::StrCat("hsaKmtRuntimeEnable(setupTtmp=", setup_ttmp ? 1 : 0, ")");
  RETURN_IF_ERROR(CheckRuntimeDebugSupport(kfd, context));
  uapi::RuntimeEnableArgs args{};
  args.r_debug = r_debug;
  args.mode_mask = uapi::kRuntimeEnableModeEnableMask | (setup_ttmp ? uapi::kRuntimeEnableModeTtmpSaveMask : 0);
  const absl::Status status = Ioctl(kfd.device(), uapi::kRuntimeEnable, args);
  if (!status.ok()) {
    return Refused(status, context, ErrnoOf(status) == EBUSY ? HSAKMT_STATUS_UNAVAILABLE : HSAKMT_STATUS_ERROR);
  }
  return args.capabilities_mask;
}

absl::Status RuntimeDisable(Kfd& kfd) {
  RETURN_IF_ERROR(CheckRuntimeDebugSupport(kfd, "hsaKmtRuntimeDisable"));
  uapi::RuntimeEnableArgs args{};
  const absl::Status status = Ioctl(kfd.device(), uapi::kRuntimeEnable, args);
  if (!status.ok()) return Refused(status, "hsaKmtRuntimeDisable", HSAKMT_STATUS_ERROR);
  return absl::OkStatus();
}

absl::StatusOr<TileConfig> GetTileConfig(Kfd& kfd, NodeId node, std::span<uint32_t> tile_configs,
                                         std::span<uint32_t> macro_tile_configs) {
  const std::string context = absl::StrCat("hsaKmtGetTileConfig(node=", node.raw(), ")");
  ASSIGN_OR_RETURN(const uint32_t gpu_id, GpuIdOfNode(kfd, node));
  uapi::GetTileConfigArgs args{};
  args.gpu_id = gpu_id;
  args.tile_config_ptr = reinterpret_cast<uintptr_t>(tile_configs.data());
  args.macro_tile_config_ptr = reinterpret_cast<uintptr_t>(macro_tile_configs.data());
  args.num_tile_configs = static_cast<uint32_t>(tile_configs.size());
  args.num_macro_tile_configs = static_cast<uint32_t>(macro_tile_configs.size());
  const absl::Status status = Ioctl(kfd.device(), uapi::kGetTileConfig, args);
  if (!status.ok()) return Refused(status, context, HSAKMT_STATUS_ERROR);
  return TileConfig{
      .gb_addr_config = args.gb_addr_config,
      .num_banks = args.num_banks,
      .num_ranks = args.num_ranks,
      .num_tile_configs = args.num_tile_configs,
      .num_macro_tile_configs = args.num_macro_tile_configs,
  };
}

absl::Status SetMemoryPolicy(Kfd& kfd, NodeId node, uint32_t default_policy, uint32_t alternate_policy,
                             DeviceAddress alternate_base, Bytes alternate_size) {
  const std::string context = absl::StrCat("hsaKmtSetMemoryPolicy(node=", node.raw(), ")");
  ASSIGN_OR_RETURN(const NodeProperties* properties, kfd.Node(node));
  // Kaveri (gfx 7.0.0) is the only GPU where user mode may choose; elsewhere the alternate aperture is the
  // thunk's own, set up at open for coherent allocations.
  const bool kaveri = properties->is_gpu() && properties->gfx_major() == 7 && properties->gfx_minor() == 0 &&
                      properties->gfx_stepping() == 0;
  if (!kaveri) {
    return WithHsakmtStatus(absl::UnimplementedError(absl::StrCat(context, ": only Kaveri takes a user policy")),
                            HSAKMT_STATUS_NOT_IMPLEMENTED);
  }
  const auto valid = [](uint32_t p) {
    return p == static_cast<uint32_t>(CachingType::kCached) || p == static_cast<uint32_t>(CachingType::kNonCached);
  };
  if (!valid(default_policy) || !valid(alternate_policy) || alternate_base.raw() % kPageBytes != 0 ||
      alternate_size.raw() % kPageBytes != 0) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context, ": bad policy or unaligned aperture")),
                            HSAKMT_STATUS_INVALID_PARAMETER);
  }
  return SetKernelCachePolicy(kfd, node, default_policy == static_cast<uint32_t>(CachingType::kCached),
                              alternate_policy == static_cast<uint32_t>(CachingType::kCached), alternate_base,
                              alternate_size);
}

absl::Status SetKernelCachePolicy(Kfd& kfd, NodeId node, bool default_coherent, bool alternate_coherent,
                                  DeviceAddress alternate_base, Bytes alternate_size) {
  const std::string context = absl::StrCat("AMDKFD_IOC_SET_MEMORY_POLICY(node=", node.raw(), ")");
  ASSIGN_OR_RETURN(const NodeProperties* properties, kfd.Node(node));
  if (!properties->is_gpu()) return InvalidNodeUnitError(absl::StrCat(context, ": not a GPU node"));
  const auto policy = [](bool coherent) {
    return uapi::ToRaw(coherent ? uapi::CachePolicy::kCoherent : uapi::CachePolicy::kNoncoherent);
  };
  uapi::SetMemoryPolicyArgs args{};
  args.alternate_aperture_base = alternate_base.raw();
  args.alternate_aperture_size = alternate_size.raw();
  args.gpu_id = properties->gpu_id->raw();
  args.default_policy = policy(default_coherent);
  args.alternate_policy = policy(alternate_coherent);
  const absl::Status status = Ioctl(kfd.device(), uapi::kSetMemoryPolicy, args);
  if (!status.ok()) return Refused(status, context, HSAKMT_STATUS_ERROR);
  return absl::OkStatus();
}

absl::Status SetTrapHandler(Kfd& kfd, NodeId node, DeviceAddress handler, DeviceAddress buffer) {
  const std::string context = absl::StrCat("hsaKmtSetTrapHandler(node=", node.raw(), ")");
  ASSIGN_OR_RETURN(const uint32_t gpu_id, GpuIdOfNode(kfd, node));
  uapi::SetTrapHandlerArgs args{.tba_addr = handler.raw(), .tma_addr = buffer.raw(), .gpu_id = gpu_id, .pad = 0};
  const absl::Status status = Ioctl(kfd.device(), uapi::kSetTrapHandler, args);
  if (!status.ok()) return Refused(status, context, HSAKMT_STATUS_ERROR);
  return absl::OkStatus();
}

absl::Status SetQueueCuMask(Kfd& kfd, const Queue& queue, std::span<const uint32_t> mask) {
  const std::string context =
      absl::StrCat("hsaKmtSetQueueCUMask(queue_id=", queue.id().raw(), ", bits=", mask.size() * 32, ")");
  if (mask.empty()) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context, ": empty mask")),
                            HSAKMT_STATUS_INVALID_PARAMETER);
  }
  uapi::SetCuMaskArgs args{};
  args.queue_id = queue.id().raw();
  args.num_cu_mask = static_cast<uint32_t>(mask.size() * 32);
  args.cu_mask_ptr = reinterpret_cast<uintptr_t>(mask.data());
  const absl::Status status = Ioctl(kfd.device(), uapi::kSetCuMask, args);
  if (!status.ok()) return Refused(status, context, HSAKMT_STATUS_ERROR);
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> AllocQueueGws(Kfd& kfd, const Queue& queue, uint32_t num_gws) {
  uapi::AllocQueueGwsArgs args{.queue_id = queue.id().raw(), .num_gws = num_gws, .first_gws = 0, .pad = 0};
  const absl::Status status = Ioctl(kfd.device(), uapi::kAllocQueueGws, args);
  if (status.ok()) return args.first_gws;
  HSAKMT_STATUS code = HSAKMT_STATUS_ERROR;
  switch (ErrnoOf(status).value_or(0)) {
    case EINVAL: code = HSAKMT_STATUS_INVALID_PARAMETER; break;
    case EBUSY: code = HSAKMT_STATUS_OUT_OF_RESOURCES; break;
    case ENODEV: code = HSAKMT_STATUS_NOT_SUPPORTED; break;
    default: break;
  }
  return Refused(status, absl::StrCat("hsaKmtAllocQueueGWS(queue_id=", queue.id().raw(), ", nGWS=", num_gws, ")"),
                 code);
}

}  // namespace hipmem::thunk
