// hipMallocManaged, hipMemAdvise(_v2), hipMemPrefetchAsync(_v2), hipMemRangeGetAttribute(s) and
// hipStreamAttachMemAsync: thin shells over hip/managed.h. The _v2 forms take a hipMemLocation: a device ordinal,
// or the host (any host kind is system memory here: the simulated machine has one NUMA node).
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hip/c_shell.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/managed.h"
#include "hip/runtime.h"

namespace {

using hipmem::hip::Return;
using hipmem::hip::StreamHandle;

StreamHandle Handle(hipStream_t stream) { return StreamHandle(reinterpret_cast<uint64_t>(stream)); }

// A hipMemLocation as the device value of the v1 calls: hipCpuDeviceId for the host kinds, hipInvalidDeviceId
// (rejected later as hipErrorInvalidDevice) for an unknown kind.
int DeviceOf(const hipMemLocation& location) {
  switch (location.type) {
    case hipMemLocationTypeDevice: return location.id;
    case hipMemLocationTypeHost:
    case hipMemLocationTypeHostNuma:
    case hipMemLocationTypeHostNumaCurrent: return hipCpuDeviceId;
    default: return hipInvalidDeviceId;
  }
}

}  // namespace

extern "C" {

hipError_t hipMallocManaged(void** dev_ptr, size_t size, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, dev_ptr, size, flags);
  if (dev_ptr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<void*> p = hipmem::hip::MallocManaged(rt, size, flags);
  if (!p.ok()) return Return(p.status());
  *dev_ptr = *p;
  return Return(hipSuccess);
}

hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice, int device) {
  HIPMEM_INIT_OR_RETURN(rt, dev_ptr, count, advice, device);
  return Return(hipmem::hip::MemAdvise(rt, dev_ptr, count, static_cast<uint32_t>(advice), device));
}

hipError_t hipMemAdvise_v2(const void* dev_ptr, size_t count, hipMemoryAdvise advice, hipMemLocation location) {
  HIPMEM_INIT_OR_RETURN(rt, dev_ptr, count, advice, location);
  return Return(hipmem::hip::MemAdvise(rt, dev_ptr, count, static_cast<uint32_t>(advice), DeviceOf(location)));
}

hipError_t hipMemPrefetchAsync(const void* dev_ptr, size_t count, int device, hipStream_t stream) {
  HIPMEM_INIT_OR_RETURN(rt, dev_ptr, count, device, stream);
  return Return(hipmem::hip::MemPrefetchAsync(rt, dev_ptr, count, device, Handle(stream)));
}

hipError_t hipMemPrefetchAsync_v2(const void* dev_ptr, size_t count, hipMemLocation location, unsigned int flags,
                                  hipStream_t stream) {
  HIPMEM_INIT_OR_RETURN(rt, dev_ptr, count, location, flags, stream);
  if (flags != 0) return Return(hipErrorInvalidValue);
  return Return(hipmem::hip::MemPrefetchAsync(rt, dev_ptr, count, DeviceOf(location), Handle(stream)));
}

hipError_t hipMemRangeGetAttribute(void* data, size_t data_size, hipMemRangeAttribute attribute, const void* dev_ptr,
                                   size_t count) {
  HIPMEM_INIT_OR_RETURN(rt, data, data_size, attribute, dev_ptr, count);
  return Return(
      hipmem::hip::MemRangeGetAttribute(rt, data, data_size, static_cast<uint32_t>(attribute), dev_ptr, count));
}

hipError_t hipMemRangeGetAttributes(void** data, size_t* data_sizes, hipMemRangeAttribute* attributes,
                                    size_t num_attributes, const void* dev_ptr, size_t count) {
  HIPMEM_INIT_OR_RETURN(rt, data, data_sizes, attributes, num_attributes, dev_ptr, count);
  if (data == nullptr || data_sizes == nullptr || attributes == nullptr || num_attributes == 0 ||
      dev_ptr == nullptr || count == 0) {
    return Return(hipErrorInvalidValue);
  }
  for (size_t i = 0; i < num_attributes; ++i) {
    if (data[i] == nullptr) return Return(hipErrorInvalidValue);
  }
  for (size_t i = 0; i < num_attributes; ++i) {
    absl::Status s = hipmem::hip::MemRangeGetAttribute(rt, data[i], data_sizes[i],
                                                       static_cast<uint32_t>(attributes[i]), dev_ptr, count);
    if (!s.ok()) return Return(s);
  }
  return Return(hipSuccess);
}

hipError_t hipStreamAttachMemAsync(hipStream_t stream, void* dev_ptr, size_t length, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, stream, dev_ptr, length, flags);
  return Return(hipmem::hip::StreamAttachMemAsync(rt, Handle(stream), dev_ptr, length, flags));
}

}  // extern "C"
