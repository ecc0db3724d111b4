// The occupancy arithmetic behind hipOccupancyMaxActiveBlocksPerMultiprocessor, hipOccupancyMaxPotentialBlockSize
// (and their hipModule* forms) and hipLaunchCooperativeKernel's residency check.
//
// Plays hip_impl::ihipOccupancyMaxActiveBlocksPerMultiprocessor (hipamd's hip_platform.cpp): waves per SIMD are
// bounded by the SPI (8 on gfx9, 16 from gfx10 on), by the VGPR file (the kernel's .vgpr_count rounded up to the
// allocation granule; on gfx90a and gfx94x that count already holds the AGPRs, the register file being unified) and
// by the SGPR file (.sgpr_count rounded up to 16); a CU holds SIMDs x those waves, and as many blocks of the
// (wavefront-rounded) block size as fit in them and in its LDS (the kernel's static LDS plus the dynamic size).
//
// The kernel is taken to run in the WGP mode the device counts its compute units in (ROCclr's GPU_ENABLE_WGP_MODE,
// the compiler's default): hipmem's DeviceInfo already counts SIMDs and CUs per WGP there.
#ifndef HIPMEM_HIP_OCCUPANCY_H_
#define HIPMEM_HIP_OCCUPANCY_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "clr/device_info.h"
#include "clr/program.h"

namespace hipmem::hip {

struct Occupancy {
  int blocks_per_cu = 0;    // of the block size asked about (0 for a block beyond the device's maximum)
  int best_block_size = 0;  // the potential form's answer: the largest wavefront multiple that fits a CU
  int blocks_per_grid = 0;  // that best block size's blocks per CU, on every CU
};

// With `potential` false, `block_size` is the block asked about: hipErrorInvalidValue when it is not positive; a
// block beyond the device's maximum answers 0 blocks (not an error, as CLR answers). With `potential` true it is the
// caller's limit: 0 or beyond the device's maximum means the device's maximum. hipErrorUnknown for a kernel whose
// VGPR count exceeds the register file (no wave fits), as CLR answers.
absl::StatusOr<Occupancy> ComputeOccupancy(const clr::Kernel& kernel, const clr::DeviceInfo& device, int block_size,
                                           size_t dynamic_shared_bytes, bool potential);

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_OCCUPANCY_H_
