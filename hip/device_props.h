// hipDeviceProp_t and hipDeviceAttribute_t answers from ROCclr's DeviceInfo.
//
// Plays ihipGetDeviceProperties (hip_device.cpp) and hipDeviceGetAttribute's switch (hip_device_runtime.cpp):
// upstream's value for every field and attribute, derived from clr::DeviceInfo. Where hipmem lacks a feature
// upstream reports (images, memory pools, IPC events, stream wait-value, VMM, dma-buf), the answer says what
// hipmem supports: 0. Pure functions; thread-safe.
#ifndef HIPMEM_HIP_DEVICE_PROPS_H_
#define HIPMEM_HIP_DEVICE_PROPS_H_

#include <string>

#include "absl/status/statusor.h"
#include "clr/device_info.h"
#include "hip/hip_runtime_api.h"

namespace hipmem::hip {

// The R0600 hipDeviceProp_t of a device, every field set (zero where upstream reports zero).
hipDeviceProp_t DeviceProperties(const clr::DeviceInfo& info);

// hipDeviceGetAttribute's int answer. kInvalidArgument (hipErrorInvalidValue) for an attribute upstream's switch
// does not answer (the Unused ones, the *Layered/Cubemap surfaces, Luid, ...). hipDeviceAttributeHdpMemFlushCntl
// and HdpRegFlushCntl answer a pointer, not an int: the C shell writes those (null: no HDP registers here).
absl::StatusOr<int> DeviceAttribute(const clr::DeviceInfo& info, hipDeviceAttribute_t attribute);

// hipDeviceGetPCIBusId's text: "dddd:bb:dd.f" in lower-case hex (12 characters).
std::string PciBusId(const clr::DeviceInfo& info);

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_DEVICE_PROPS_H_
