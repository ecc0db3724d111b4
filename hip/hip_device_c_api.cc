// Device queries and device state: hipInit, hipDeviceGet, hipGetDeviceProperties (R0600), hipDeviceGetAttribute,
// names, PCI bus ids, UUIDs, total memory, compute capability, hipChooseDevice, device flags and hipDeviceReset.
// Thin shells over hip::Runtime and device_props.h; argument checks in CLR's order (the device first, then the
// output pointer, where CLR checks them so).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hip/c_shell.h"
#include "hip/device_props.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/runtime.h"

namespace {

using hipmem::clr::DeviceInfo;
using hipmem::hip::Return;
using hipmem::hip::Runtime;

// The device `ordinal` names, or null with `*error` set to hipErrorInvalidDevice.
const DeviceInfo* Info(Runtime& rt, int ordinal, hipError_t* error) {
  absl::StatusOr<const DeviceInfo*> info = rt.GetDeviceInfo(ordinal);
  if (!info.ok()) {
    *error = hipmem::hip::ToHipError(info.status());
    return nullptr;
  }
  return *info;
}

// hipChooseDevice's rule: among devices meeting every non-zero field of `want` (each as a minimum), the first one
// meeting the most of them; device 0 when none meets them all.
int ChooseDevice(Runtime& rt, const hipDeviceProp_t& want) {
  int chosen = 0;
  int best = 0;
  for (int i = 0; i < rt.device_count(); ++i) {
    const hipDeviceProp_t have = hipmem::hip::DeviceProperties(**rt.GetDeviceInfo(i));
    int asked = 0;
    int met = 0;
    auto at_least = [&](auto wanted, auto got) {
      if (wanted == 0) return;
      ++asked;
      if (got >= wanted) ++met;
    };
    at_least(want.major, have.major);
    at_least(want.minor, have.minor);
    at_least(want.totalGlobalMem, have.totalGlobalMem);
    at_least(want.sharedMemPerBlock, have.sharedMemPerBlock);
    at_least(want.maxThreadsPerBlock, have.maxThreadsPerBlock);
    at_least(want.totalConstMem, have.totalConstMem);
    at_least(want.multiProcessorCount, have.multiProcessorCount);
    at_least(want.maxThreadsPerMultiProcessor, have.maxThreadsPerMultiProcessor);
    at_least(want.memoryClockRate, have.memoryClockRate);
    at_least(want.memoryBusWidth, have.memoryBusWidth);
    at_least(want.l2CacheSize, have.l2CacheSize);
    at_least(want.regsPerBlock, have.regsPerBlock);
    at_least(want.maxSharedMemoryPerMultiProcessor, have.maxSharedMemoryPerMultiProcessor);
    at_least(want.warpSize, have.warpSize);
    if (asked == met && met > best) {
      chosen = i;
      best = met;
    }
  }
  return chosen;
}

}  // namespace

extern "C" {

hipError_t hipInit(unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, flags);
  (void)rt;
  return Return(flags == 0 ? hipSuccess : hipErrorInvalidValue);
}

hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  HIPMEM_INIT_OR_RETURN(rt, device, ordinal);
  if (device == nullptr) return Return(hipErrorInvalidValue);
  hipError_t error = hipSuccess;
  if (Info(rt, ordinal, &error) == nullptr) return Return(error);
  *device = ordinal;
  return Return(hipSuccess);
}

hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600* prop, int deviceId) {
  HIPMEM_INIT_OR_RETURN(rt, prop, deviceId);
  if (prop == nullptr) return Return(hipErrorInvalidValue);
  hipError_t error = hipSuccess;
  const DeviceInfo* info = Info(rt, deviceId, &error);
  if (info == nullptr) return Return(error);
  *prop = hipmem::hip::DeviceProperties(*info);
  return Return(hipSuccess);
}

hipError_t hipDeviceGetAttribute(int* pi, hipDeviceAttribute_t attr, int deviceId) {
  HIPMEM_INIT_OR_RETURN(rt, pi, attr, deviceId);
  if (pi == nullptr) return Return(hipErrorInvalidValue);
  hipError_t error = hipSuccess;
  const DeviceInfo* info = Info(rt, deviceId, &error);
  if (info == nullptr) return Return(error);
  if (attr == hipDeviceAttributeHdpMemFlushCntl || attr == hipDeviceAttributeHdpRegFlushCntl) {
    // These two answer a pointer through `pi`, as upstream's do; the simulated GPU maps no HDP registers.
    *reinterpret_cast<unsigned int**>(pi) = nullptr;
    return Return(hipSuccess);
  }
  absl::StatusOr<int> value = hipmem::hip::DeviceAttribute(*info, attr);
  if (!value.ok()) return Return(value.status());
  *pi = *value;
  return Return(hipSuccess);
}

hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
  HIPMEM_INIT_OR_RETURN(rt, name, len, device);
  hipError_t error = hipSuccess;
  const DeviceInfo* info = Info(rt, device, &error);
  if (info == nullptr) return Return(error);
  if (name == nullptr || len <= 0) return Return(hipErrorInvalidValue);
  // A short buffer gets the name cut to fit, still NUL-terminated.
  const size_t n = std::min(info->board_name.size(), static_cast<size_t>(len) - 1);
  std::memcpy(name, info->board_name.data(), n);
  name[n] = '\0';
  return Return(hipSuccess);
}

hipError_t hipDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  HIPMEM_INIT_OR_RETURN(rt, pciBusId, len, device);
  hipError_t error = hipSuccess;
  const DeviceInfo* info = Info(rt, device, &error);
  if (info == nullptr) return Return(error);
  if (pciBusId == nullptr) return Return(hipErrorInvalidValue);
  // CLR writes what fits and then fails a buffer too small for the 12 characters and the NUL.
  std::snprintf(pciBusId, static_cast<size_t>(std::max(len, 0)), "%s", hipmem::hip::PciBusId(*info).c_str());
  return Return(len <= 12 ? hipErrorInvalidValue : hipSuccess);
}

hipError_t hipDeviceGetByPCIBusId(int* device, const char* pciBusId) {
  HIPMEM_INIT_OR_RETURN(rt, device, pciBusId);
  if (device == nullptr || pciBusId == nullptr) return Return(hipErrorInvalidValue);
  unsigned domain = 0, bus = 0, dev = 0, function = 0;
  if (std::sscanf(pciBusId, "%04x:%02x:%02x.%01x", &domain, &bus, &dev, &function) != 4) {
    return Return(hipErrorInvalidValue);
  }
  for (int i = 0; i < rt.device_count(); ++i) {
    const DeviceInfo& info = **rt.GetDeviceInfo(i);
    if (info.pci_domain == domain && info.pci_bus == bus && info.pci_device == dev && info.pci_function == function) {
      *device = i;
      return Return(hipSuccess);
    }
  }
  return Return(hipErrorInvalidValue);
}

hipError_t hipDeviceGetUuid(hipUUID* uuid, hipDevice_t device) {
  HIPMEM_INIT_OR_RETURN(rt, uuid, device);
  hipError_t error = hipSuccess;
  const DeviceInfo* info = Info(rt, device, &error);
  if (info == nullptr) return Return(error);
  if (uuid == nullptr) return Return(hipErrorInvalidValue);
  std::memcpy(uuid->bytes, info->uuid.data(), sizeof(uuid->bytes));
  return Return(hipSuccess);
}

hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device) {
  HIPMEM_INIT_OR_RETURN(rt, bytes, device);
  hipError_t error = hipSuccess;
  const DeviceInfo* info = Info(rt, device, &error);
  if (info == nullptr) return Return(error);
  if (bytes == nullptr) return Return(hipErrorInvalidValue);
  *bytes = info->global_mem_size.raw();
  return Return(hipSuccess);
}

hipError_t hipDeviceComputeCapability(int* major, int* minor, hipDevice_t device) {
  HIPMEM_INIT_OR_RETURN(rt, major, minor, device);
  hipError_t error = hipSuccess;
  const DeviceInfo* info = Info(rt, device, &error);
  if (info == nullptr) return Return(error);
  if (major == nullptr || minor == nullptr) return Return(hipErrorInvalidValue);
  *major = static_cast<int>(info->gfx_major);
  *minor = static_cast<int>(info->gfx_minor);
  return Return(hipSuccess);
}

hipError_t hipChooseDeviceR0600(int* device, const hipDeviceProp_tR0600* prop) {
  HIPMEM_INIT_OR_RETURN(rt, device, prop);
  if (device == nullptr || prop == nullptr) return Return(hipErrorInvalidValue);
  *device = ChooseDevice(rt, *prop);
  return Return(hipSuccess);
}

hipError_t hipGetDeviceFlags(unsigned int* flags) {
  HIPMEM_INIT_OR_RETURN(rt, flags);
  if (flags == nullptr) return Return(hipErrorInvalidValue);
  *flags = rt.device_flags();
  return Return(hipSuccess);
}

hipError_t hipSetDeviceFlags(unsigned flags) {
  HIPMEM_INIT_OR_RETURN(rt, flags);
  return Return(rt.SetDeviceFlags(flags));
}

hipError_t hipInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, device, deviceFlags, flags);
  if (flags != 0 && flags != hipInitDeviceFlagsAreValid) return Return(hipErrorInvalidValue);
  hipError_t error = hipSuccess;
  if (Info(rt, device, &error) == nullptr) return Return(error);
  // deviceFlags count only when the caller says they are valid.
  if (flags == hipInitDeviceFlagsAreValid) {
    absl::Status set = rt.SetDeviceFlags(device, deviceFlags);
    if (!set.ok()) return Return(set);
  }
  // CLR creates the device's null stream here; hipmem's is made on first use, with the same effect.
  return Return(hipSuccess);
}

// hipmem has no L1/LDS carve-out to configure: the settings are validated and, as on upstream's GPUs, change
// nothing.
hipError_t hipDeviceGetCacheConfig(hipFuncCache_t* cacheConfig) {
  HIPMEM_INIT_OR_RETURN(rt, cacheConfig);
  (void)rt;
  if (cacheConfig == nullptr) return Return(hipErrorInvalidValue);
  *cacheConfig = hipFuncCachePreferNone;
  return Return(hipSuccess);
}

hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cacheConfig) {
  HIPMEM_INIT_OR_RETURN(rt, cacheConfig);
  (void)rt;
  const bool known = cacheConfig == hipFuncCachePreferNone || cacheConfig == hipFuncCachePreferShared ||
                     cacheConfig == hipFuncCachePreferL1 || cacheConfig == hipFuncCachePreferEqual;
  return Return(known ? hipSuccess : hipErrorInvalidValue);
}

hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig* pConfig) {
  HIPMEM_INIT_OR_RETURN(rt, pConfig);
  (void)rt;
  if (pConfig == nullptr) return Return(hipErrorInvalidValue);
  *pConfig = hipSharedMemBankSizeFourByte;  // LDS banks are 4 bytes wide on every AMD GPU
  return Return(hipSuccess);
}

hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig config) {
  HIPMEM_INIT_OR_RETURN(rt, config);
  (void)rt;
  const bool known = config == hipSharedMemBankSizeDefault || config == hipSharedMemBankSizeFourByte ||
                     config == hipSharedMemBankSizeEightByte;
  return Return(known ? hipSuccess : hipErrorInvalidValue);
}

hipError_t hipDeviceReset(void) {
  HIPMEM_INIT_OR_RETURN(rt);
  return Return(rt.DeviceReset());
}

hipError_t hipDeviceCanAccessPeer(int* canAccessPeer, int deviceId, int peerDeviceId) {
  HIPMEM_INIT_OR_RETURN(rt, canAccessPeer, deviceId, peerDeviceId);
  if (canAccessPeer == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<bool> can = rt.CanAccessPeer(deviceId, peerDeviceId);
  if (!can.ok()) return Return(can.status());
  *canAccessPeer = *can ? 1 : 0;
  return Return(hipSuccess);
}

hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, peerDeviceId, flags);
  return Return(rt.EnablePeerAccess(peerDeviceId, flags));
}

hipError_t hipDeviceDisablePeerAccess(int peerDeviceId) {
  HIPMEM_INIT_OR_RETURN(rt, peerDeviceId);
  return Return(rt.DisablePeerAccess(peerDeviceId));
}

hipError_t hipExtGetLinkTypeAndHopCount(int device1, int device2, uint32_t* linktype, uint32_t* hopcount) {
  HIPMEM_INIT_OR_RETURN(rt, device1, device2, linktype, hopcount);
  if (linktype == nullptr || hopcount == nullptr || device1 == device2 || device1 < 0 || device2 < 0) {
    return Return(hipErrorInvalidValue);
  }
  absl::StatusOr<hipmem::clr::Context::PeerLink> link = rt.PeerLink(device1, device2);
  if (!link.ok()) return Return(link.status());
  *linktype = link->link_type;
  *hopcount = link->hop_count;
  return Return(hipSuccess);
}

hipError_t hipDeviceGetP2PAttribute(int* value, hipDeviceP2PAttr attr, int srcDevice, int dstDevice) {
  HIPMEM_INIT_OR_RETURN(rt, value, attr, srcDevice, dstDevice);
  if (value == nullptr) return Return(hipErrorInvalidValue);
  if (srcDevice == dstDevice || srcDevice < 0 || dstDevice < 0 || srcDevice >= rt.device_count() ||
      dstDevice >= rt.device_count()) {
    return Return(hipErrorInvalidDevice);
  }
  switch (attr) {
    case hipDevP2PAttrAccessSupported:
    case hipDevP2PAttrHipArrayAccessSupported: {
      // Array (opaque image) access needs the same ISA on both sides as well.
      if (attr == hipDevP2PAttrHipArrayAccessSupported &&
          (*rt.GetDeviceInfo(srcDevice))->gcn_arch_name != (*rt.GetDeviceInfo(dstDevice))->gcn_arch_name) {
        *value = 0;
        return Return(hipSuccess);
      }
      absl::StatusOr<bool> can = rt.CanAccessPeer(srcDevice, dstDevice);
      if (!can.ok()) return Return(can.status());
      *value = *can ? 1 : 0;
      return Return(hipSuccess);
    }
    case hipDevP2PAttrPerformanceRank:
    case hipDevP2PAttrNativeAtomicSupported: {
      absl::StatusOr<hipmem::clr::Context::PeerLink> link = rt.PeerLink(srcDevice, dstDevice);
      if (!link.ok()) return Return(link.status());
      // The rank is the first hop's link type, as CLR reports it (-1 without a hop).
      *value = attr == hipDevP2PAttrPerformanceRank ? static_cast<int>(link->link_type) : (link->atomics ? 1 : 0);
      return Return(hipSuccess);
    }
  }
  return Return(hipErrorInvalidValue);
}

}  // extern "C"
