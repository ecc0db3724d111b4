// HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES: which of the HSA runtime's GPU agents HIP makes devices, in order.
//
// Plays ROCclr's ordinal filter in roc::Device init (rocdevice.cpp): HIP reads HIP_VISIBLE_DEVICES, or
// CUDA_VISIBLE_DEVICES when the former is unset or empty (GPU_DEVICE_ORDINAL is the OpenCL spelling, not read by
// HIP). The value is a comma-separated list of indices into the GPU agents ROCr enumerates (after
// ROCR_VISIBLE_DEVICES). Devices follow list order; the list stops at the first entry that is not a decimal
// index below the agent count (everything after it is ignored); a repeated index is skipped.
#ifndef HIPMEM_CLR_VISIBLE_DEVICES_H_
#define HIPMEM_CLR_VISIBLE_DEVICES_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hipmem::clr {

// The agent positions that become HIP devices 0, 1, ..., for a list `ordinals` over `gpu_count` agents;
// nullopt (no list) keeps every agent in order.
std::vector<size_t> VisibleDeviceOrder(std::optional<std::string_view> ordinals, size_t gpu_count);

// The list in effect: HIP_VISIBLE_DEVICES if set and non-empty, else CUDA_VISIBLE_DEVICES if set and non-empty.
std::optional<std::string> VisibleDevicesFromEnvironment();

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_VISIBLE_DEVICES_H_
