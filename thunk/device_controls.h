// Device and queue controls: the thunk's side of the KFD's small per-process settings.
//
// Plays libhsakmt's svm.c (hsaKmtSet/GetXNACKMode), debug.c (hsaKmtRuntimeEnable/Disable,
// hsaKmtGetRuntimeCapabilities), memory.c (hsaKmtSetMemoryPolicy, hsaKmtGetTileConfig) and queues.c
// (hsaKmtSetTrapHandler, hsaKmtSetQueueCUMask, hsaKmtAllocQueueGWS). Each call is one ioctl (or none, where
// libhsakmt answers without the kernel); each function maps the kernel's errno to the HSAKMT_STATUS libhsakmt
// answers for that call, keeping the errno and its canonical code in the Status. Thread-safe: the kernel
// serialises the ioctls.
#ifndef HIPMEM_THUNK_DEVICE_CONTROLS_H_
#define HIPMEM_THUNK_DEVICE_CONTROLS_H_

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "thunk/kfd.h"
#include "thunk/queues.h"
#include "thunk/topology.h"

namespace hipmem::thunk {

// ---- XNACK (recoverable GPU page faults) ----

// Returns whether XNACK is on for this process (SET_XNACK_MODE with -1). Errors: HSAKMT_STATUS_ERROR with the
// kernel's errno.
absl::StatusOr<bool> GetXnackMode(Kfd& kfd);

// Turns XNACK on or off for this process. Errors: NOT_SUPPORTED (kPermissionDenied, -EPERM) when a GPU of the
// process cannot retry faults per process (gfx908, gfx10+); HSAKMT_STATUS_ERROR (kFailedPrecondition, -EBUSY) while
// the process has queues, and for any other refusal.
absl::Status SetXnackMode(Kfd& kfd, bool enabled);

// ---- runtime enable (the debugger rendezvous) ----

// Tells the KFD the runtime is up (RUNTIME_ENABLE with the enable bit, TTMP setup on request), after
// hsaKmtCheckRuntimeDebugSupport's checks. Returns the capabilities the KFD reported
// (HSA_RUNTIME_ENABLE_CAPS_*; the simulator, like mainline, reports none).
// Errors: NOT_SUPPORTED (kUnimplemented) without the ioctl when a GPU node lacks DebugSupportedFirmware or the
// KFD is older than 1.13; UNAVAILABLE (kFailedPrecondition, -EBUSY) when already enabled; HSAKMT_STATUS_ERROR otherwise
// (-EEXIST: the process created a queue first).
absl::StatusOr<uint32_t> RuntimeEnable(Kfd& kfd, uint64_t r_debug, bool setup_ttmp);

// Undoes RuntimeEnable (harmless when not enabled). Errors: RuntimeEnable's NOT_SUPPORTED; HSAKMT_STATUS_ERROR
// when the kernel refuses.
absl::Status RuntimeDisable(Kfd& kfd);

// ---- tile configuration ----

struct TileConfig {
  uint32_t gb_addr_config;
  uint32_t num_banks;               // 0 from gfx9 on
  uint32_t num_ranks;               // 0 from gfx9 on
  uint32_t num_tile_configs;        // entries written to `tile_configs`
  uint32_t num_macro_tile_configs;  // entries written to `macro_tile_configs`
};

// Reads node `node`'s tiling setup; fills as much of the two arrays as the kernel has (32 and 16 entries from
// gfx9 on, all zero). Errors: INVALID_NODE_UNIT for an unknown node; HSAKMT_STATUS_ERROR with the kernel's errno
// (-EINVAL for the CPU node).
absl::StatusOr<TileConfig> GetTileConfig(Kfd& kfd, NodeId node, std::span<uint32_t> tile_configs,
                                         std::span<uint32_t> macro_tile_configs);

// ---- memory policy ----

// HSA_CACHING_TYPE values hsaKmtSetMemoryPolicy accepts.
enum class CachingType : uint32_t { kCached = 0, kNonCached = 1 };

// hsaKmtSetMemoryPolicy: a Kaveri-only API. Errors: INVALID_NODE_UNIT for an unknown node; NOT_IMPLEMENTED
// (kUnimplemented) on every other GPU, without asking the kernel (libhsakmt keeps the dGPU's alternate aperture
// to itself); then INVALID_PARAMETER for a policy other than cached/non-cached or an aperture that is not
// page-aligned; HSAKMT_STATUS_ERROR when the kernel refuses.
absl::Status SetMemoryPolicy(Kfd& kfd, NodeId node, uint32_t default_policy, uint32_t alternate_policy,
                             DeviceAddress alternate_base, Bytes alternate_size);

// Issues SET_MEMORY_POLICY for `node`'s GPU as libhsakmt's aperture setup does on every dGPU (coherent =
// KFD_IOC_CACHE_POLICY_COHERENT). Errors: INVALID_NODE_UNIT for a node without a GPU; HSAKMT_STATUS_ERROR with
// the kernel's errno (-ESRCH before the GPU's VM is acquired).
absl::Status SetKernelCachePolicy(Kfd& kfd, NodeId node, bool default_coherent, bool alternate_coherent,
                                  DeviceAddress alternate_base, Bytes alternate_size);

// ---- trap handler ----

// Installs a trap handler (code at `handler`, data at `buffer`) for node `node`'s GPU; the sizes are not passed
// to the kernel. Errors: INVALID_NODE_UNIT for an unknown node; HSAKMT_STATUS_ERROR with the kernel's errno
// (-EINVAL for the CPU node).
absl::Status SetTrapHandler(Kfd& kfd, NodeId node, DeviceAddress handler, DeviceAddress buffer);

// ---- per-queue controls ----

// Restricts `queue` to the CUs whose bits are set in `mask` (bit i of word i / 32 is CU i); the kernel keeps at
// most 1024 bits. Errors: INVALID_PARAMETER for an empty mask; HSAKMT_STATUS_ERROR with the kernel's errno
// (-EINVAL on gfx10+ for a mask that enables half of a CU pair).
absl::Status SetQueueCuMask(Kfd& kfd, const Queue& queue, std::span<const uint32_t> mask);

// Gives `queue` its GPU's global wave sync (num_gws > 0) or takes it back (0). Returns the first GWS slot (0).
// Errors, as libhsakmt maps them: INVALID_PARAMETER (-EINVAL: unknown queue, nothing to release);
// OUT_OF_RESOURCES (-EBUSY: another queue of the process on this GPU has it); NOT_SUPPORTED (-ENODEV: the GPU has
// no GWS); HSAKMT_STATUS_ERROR otherwise.
absl::StatusOr<uint32_t> AllocQueueGws(Kfd& kfd, const Queue& queue, uint32_t num_gws);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_DEVICE_CONTROLS_H_
