// HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES: which of the HSA runtime's GPU agents HIP makes devices, in order.
//
// Plays the ordinal filter in ROCclr's roc::Device::init (rocm-systems projects/clr/rocclr/device/rocm/
// rocdevice.cpp, 2025-26). Which variable: HIP reads HIP_VISIBLE_DEVICES, or CUDA_VISIBLE_DEVICES when the former
// is unset or empty; GPU_DEVICE_ORDINAL is the OpenCL spelling and HIP never reads it. ROCR_VISIBLE_DEVICES acts a
// layer below (hsa/visible_devices.h): ROCr enumerates only the GPUs it leaves, and the HIP list indexes those.
// The list is comma-separated; each entry is either an index into those GPU agents, written exactly as the
// number prints ("1", not "01", "+1" or " 1"), or a UUID entry (anything containing "GPU-"), which names the first
// agent whose HSA_AMD_AGENT_INFO_UUID string contains it (so "GPU-" plus a prefix of the 16 hex digits). The first
// entry that is neither, or whose index is out of range, ends the list: it and everything after it are ignored
// (an empty entry included, so "1,,0" keeps only 1; a trailing comma ends the list harmlessly). A repeated device is
// skipped. An empty value is no list at all; a list whose first entry is invalid ("-1") hides every GPU.
#ifndef HIPMEM_CLR_VISIBLE_DEVICES_H_
#define HIPMEM_CLR_VISIBLE_DEVICES_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hipmem::clr {

// The agent positions that become HIP devices 0, 1, ..., for a list `ordinals` over the GPU agents whose UUID
// strings ("GPU-<16 hex>", "GPU-XX" without a unique id) are `gpu_uuids`, in ROCr's order. nullopt or an empty
// list keeps every agent in order.
std::vector<size_t> VisibleDeviceOrder(std::optional<std::string_view> ordinals,
                                       const std::vector<std::string>& gpu_uuids);

// The list in effect: HIP_VISIBLE_DEVICES if set and non-empty, else CUDA_VISIBLE_DEVICES if set and non-empty.
std::optional<std::string> VisibleDevicesFromEnvironment();

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_VISIBLE_DEVICES_H_
