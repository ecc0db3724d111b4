#include "hip/occupancy.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "hip/hip_error.h"

namespace hipmem::hip {
namespace {

uint64_t AlignUp(uint64_t value, uint64_t granule) { return granule == 0 ? value : (value + granule - 1) / granule * granule; }

}  // namespace

absl::StatusOr<Occupancy> ComputeOccupancy(const clr::Kernel& kernel, const clr::DeviceInfo& device, int block_size,
                                           size_t dynamic_shared_bytes, bool potential) {
  const int max_block = static_cast<int>(device.max_work_group_size);
  Occupancy o;
  if (!potential) {
    if (block_size <= 0) return FromHipError(hipErrorInvalidValue, "occupancy of a block of no work-items");
    if (block_size > max_block) return o;
  } else if (block_size <= 0 || block_size > max_block) {
    block_size = max_block;
  }
  // The SPI's limit: 32 waves per CU on gfx9 (8 per SIMD), 16 per SIMD from gfx10 on.
  const uint64_t max_waves_per_simd = device.gfx_major <= 9 ? 8 : 16;
  const uint64_t wavefront = kernel.wavefront_size != 0 ? kernel.wavefront_size : device.wavefront_size;
  // gfx10+ describes its register file for wave32; a wave64 kernel gets half the registers at half the granule.
  const bool wave64_on_rdna = device.gfx_major >= 10 && wavefront == 64;
  const uint64_t granule = wave64_on_rdna ? device.vgpr_alloc_granule / 2 : device.vgpr_alloc_granule;
  const uint64_t vgprs = wave64_on_rdna ? device.vgprs_per_simd / 2 : device.vgprs_per_simd;
  const uint64_t vgpr_waves = kernel.vgpr_count > 0 ? vgprs / AlignUp(kernel.vgpr_count, granule) : max_waves_per_simd;
  if (vgpr_waves == 0) {
    return FromHipError(hipErrorUnknown, absl::StrCat(kernel.name, ": ", kernel.vgpr_count, " VGPRs; a SIMD has ",
                                                      vgprs));
  }
  const uint64_t gpr_waves =
      kernel.sgpr_count > 0 ? std::min<uint64_t>(vgpr_waves, device.sgprs_per_simd / AlignUp(kernel.sgpr_count, 16))
                            : vgpr_waves;
  const uint64_t alu_waves = uint64_t{device.simds_per_cu} * std::min(max_waves_per_simd, gpr_waves);
  const int alu_threads = static_cast<int>(alu_waves * wavefront);
  const uint64_t lds = uint64_t{kernel.group_segment_size} + dynamic_shared_bytes;
  const int lds_blocks = lds != 0 ? static_cast<int>(std::min<uint64_t>(device.local_mem_per_cu.raw() / lds, INT_MAX))
                                  : INT_MAX;
  // A block occupies whole waves: 65 work-items take two.
  const int aligned_block = static_cast<int>(AlignUp(static_cast<uint64_t>(block_size), wavefront));
  o.blocks_per_cu = std::min(alu_threads / aligned_block, lds_blocks);
  o.best_block_size = std::min(alu_threads, aligned_block);
  const int best_blocks_per_cu = o.best_block_size == 0 ? 0 : alu_threads / o.best_block_size;
  o.blocks_per_grid = static_cast<int>(device.compute_units) * std::min(best_blocks_per_cu, lds_blocks);
  return o;
}

}  // namespace hipmem::hip
