// ROCclr's tunables, read once from the environment under their upstream names with current CLR's defaults.
//
// Plays amd::roc::Settings (rocclr/device/rocm/rocsettings.cpp) and the flags it reads (rocclr/utils/flags.hpp),
// as of rocm-systems projects/clr 2025-26. Where CLR versions disagree, current wins (rocm_facts.md §5.3):
// GPU_FORCE_BLIT_COPY_SIZE defaults to 16 KiB (it was 0), GPU_PINNED_MIN_XFER_SIZE to 64 KiB when unset (it
// was 1 MiB), GPU_PINNED_XFER_SIZE is used (32 MiB), GPU_SINGLE_ALLOC_PERCENT is 100 (it was 85).
// A value that does not parse as an unsigned integer counts as unset.
#ifndef HIPMEM_CLR_SETTINGS_H_
#define HIPMEM_CLR_SETTINGS_H_

#include <cstdint>

#include "base/units.h"

namespace hipmem::clr {

struct Settings {
  // The blit manager's thresholds (rocm_facts.md §5.2).
  Bytes staged_xfer_size = Bytes::MiB(1);       // GPU_STAGING_BUFFER_SIZE (MiB): one staging chunk
  Bytes pinned_xfer_size = Bytes::MiB(32);      // GPU_PINNED_XFER_SIZE (MiB): one pinned chunk
  Bytes pinned_min_xfer_size = Bytes::KiB(64);  // GPU_PINNED_MIN_XFER_SIZE (MiB): pin only above this
  Bytes sdma_copy_threshold = Bytes::KiB(16);   // GPU_FORCE_BLIT_COPY_SIZE (KiB): at or below, the shader copy
  Bytes sdma_p2p_threshold = Bytes::MiB(1);     // ROC_P2P_SDMA_SIZE (KiB): peer copies above it go to SDMA
  uint32_t limit_blit_wg = 16;                  // workgroups of a small peer copy kernel
  // The device's memory.
  uint32_t max_heap_percent = 100;       // GPU_MAX_HEAP_SIZE: share of the VRAM pool HIP reports as global memory
  uint32_t single_alloc_percent = 100;   // GPU_SINGLE_ALLOC_PERCENT: largest allocation, share of global memory
  Bytes hidden_free_mem;                 // HIP_HIDDEN_FREE_MEM (MiB): kept out of hipMemGetInfo's free
  // GPU_ENABLE_WGP_MODE: on gfx10+, a workgroup processor (two CUs) counts as one compute unit.
  bool enable_wgp_mode = true;

  // The settings the environment asks for (the defaults above for what it leaves unset).
  static Settings FromEnvironment();
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_SETTINGS_H_
