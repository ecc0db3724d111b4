// hsaKmt* C entry points for the device and queue controls: thin shells over thunk/device_controls.h on the
// shared thunk::Kfd. They check the arguments libhsakmt checks, convert, call the C++ API and return
// ToHsakmtStatus(status). Before hsaKmtOpenKFD each answers KERNEL_IO_CHANNEL_NOT_OPENED, except
// hsaKmtGetRuntimeCapabilities, which (as upstream) only reports what the last hsaKmtRuntimeEnable learnt.
#include <atomic>
#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "hsakmt/hsakmt.h"
#include "thunk/device_controls.h"
#include "thunk/hsakmt_live_queues.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/queues.h"
#include "thunk/shared_kfd.h"

namespace hipmem::thunk {
namespace {

// What the last successful hsaKmtRuntimeEnable reported (libhsakmt's runtime_capabilities_mask).
std::atomic<uint32_t> g_runtime_capabilities{0};

HSAKMT_STATUS Done(const absl::Status& status) { return ToHsakmtStatus(status); }

}  // namespace
}  // namespace hipmem::thunk

using hipmem::thunk::Done;
using hipmem::thunk::Kfd;
using hipmem::thunk::NodeId;

#define HSAKMT_CONTROLS_KFD_OR_RETURN(kfd)                    \
  absl::StatusOr<Kfd*> kfd##_or = hipmem::thunk::SharedKfd(); \
  if (!kfd##_or.ok()) return Done(kfd##_or.status());         \
  Kfd& kfd = **kfd##_or

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtGetXNACKMode(HSAint32* enable) {
  HSAKMT_CONTROLS_KFD_OR_RETURN(kfd);
  if (enable == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  const absl::StatusOr<bool> mode = hipmem::thunk::GetXnackMode(kfd);
  if (!mode.ok()) return Done(mode.status());
  *enable = *mode ? 1 : 0;
  return HSAKMT_STATUS_SUCCESS;
}

// Any positive value enables. Deliberate: a negative one is refused (INVALID_PARAMETER); libhsakmt passes it on,
// the kernel takes it as a query, and the caller, who asked to set a mode, is told SUCCESS for doing nothing.
HSAKMT_STATUS HSAKMTAPI hsaKmtSetXNACKMode(HSAint32 enable) {
  HSAKMT_CONTROLS_KFD_OR_RETURN(kfd);
  if (enable < 0) return HSAKMT_STATUS_INVALID_PARAMETER;
  return Done(hipmem::thunk::SetXnackMode(kfd, enable != 0));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeEnable(void* rDebug, bool setupTtmp) {
  HSAKMT_CONTROLS_KFD_OR_RETURN(kfd);
  const absl::StatusOr<uint32_t> caps =
      hipmem::thunk::RuntimeEnable(kfd, reinterpret_cast<uintptr_t>(rDebug), setupTtmp);
  if (!caps.ok()) return Done(caps.status());
  hipmem::thunk::g_runtime_capabilities.store(*caps, std::memory_order_relaxed);
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeDisable(void) {
  HSAKMT_CONTROLS_KFD_OR_RETURN(kfd);
  return Done(hipmem::thunk::RuntimeDisable(kfd));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetRuntimeCapabilities(HSAuint32* caps_mask) {
  if (caps_mask == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  *caps_mask = hipmem::thunk::g_runtime_capabilities.load(std::memory_order_relaxed);
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetTileConfig(HSAuint32 NodeId, HsaGpuTileConfig* config) {
  HSAKMT_CONTROLS_KFD_OR_RETURN(kfd);
  if (config == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  // A capacity without its array would have the kernel write through null: refused here (upstream memsets it).
  if ((config->NumTileConfigs != 0 && config->TileConfig == nullptr) ||
      (config->NumMacroTileConfigs != 0 && config->MacroTileConfig == nullptr)) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  const std::span<uint32_t> tiles(config->TileConfig, config->NumTileConfigs);
  const std::span<uint32_t> macro(config->MacroTileConfig, config->NumMacroTileConfigs);
  const absl::StatusOr<hipmem::thunk::TileConfig> result =
      hipmem::thunk::GetTileConfig(kfd, ::NodeId(NodeId), tiles, macro);
  if (!result.ok()) return Done(result.status());
  config->NumTileConfigs = result->num_tile_configs;
  config->NumMacroTileConfigs = result->num_macro_tile_configs;
  config->GbAddrConfig = result->gb_addr_config;
  config->NumBanks = result->num_banks;
  config->NumRanks = result->num_ranks;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryPolicy(HSAuint32 Node, HSAuint32 DefaultPolicy, HSAuint32 AlternatePolicy,
                                              void* MemoryAddressAlternate, HSAuint64 MemorySizeInBytes) {
  HSAKMT_CONTROLS_KFD_OR_RETURN(kfd);
  return Done(hipmem::thunk::SetMemoryPolicy(kfd, ::NodeId(Node), DefaultPolicy, AlternatePolicy,
                                             hipmem::DeviceAddress::FromPointer(MemoryAddressAlternate),
                                             hipmem::Bytes(MemorySizeInBytes)));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetTrapHandler(HSAuint32 NodeId, void* TrapHandlerBaseAddress,
                                             HSAuint64 /*TrapHandlerSizeInBytes*/, void* TrapBufferBaseAddress,
                                             HSAuint64 /*TrapBufferSizeInBytes*/) {
  HSAKMT_CONTROLS_KFD_OR_RETURN(kfd);
  return Done(hipmem::thunk::SetTrapHandler(kfd, ::NodeId(NodeId),
                                            hipmem::DeviceAddress::FromPointer(TrapHandlerBaseAddress),
                                            hipmem::DeviceAddress::FromPointer(TrapBufferBaseAddress)));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetQueueCUMask(HSA_QUEUEID QueueId, HSAuint32 CUMaskCount, HSAuint32* QueueCUMask) {
  HSAKMT_CONTROLS_KFD_OR_RETURN(kfd);
  if (CUMaskCount == 0 || QueueCUMask == nullptr || CUMaskCount % 32 != 0) return HSAKMT_STATUS_INVALID_PARAMETER;
  return Done(hipmem::thunk::WithLiveQueue(QueueId, [&](hipmem::thunk::Queue& queue) {
    return hipmem::thunk::SetQueueCuMask(kfd, queue, std::span<const uint32_t>(QueueCUMask, CUMaskCount / 32));
  }));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAllocQueueGWS(HSA_QUEUEID QueueId, HSAuint32 nGWS, HSAuint32* firstGWS) {
  HSAKMT_CONTROLS_KFD_OR_RETURN(kfd);
  return Done(hipmem::thunk::WithLiveQueue(QueueId, [&](hipmem::thunk::Queue& queue) -> absl::Status {
    const absl::StatusOr<uint32_t> first = hipmem::thunk::AllocQueueGws(kfd, queue, nGWS);
    if (!first.ok()) return first.status();
    if (firstGWS != nullptr) *firstGWS = *first;
    return absl::OkStatus();
  }));
}

}  // extern "C"
