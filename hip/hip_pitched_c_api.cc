// hipMallocPitch, hipMalloc3D, hipMemAllocPitch and the 2D/3D copies and memsets: thin shells over
// hip/pitched.h. Checks CLR makes before its C++ layer (null output pointers) are made here.
#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hip/c_shell.h"
#include "hip/hip_runtime_api.h"
#include "hip/pitched.h"
#include "hip/runtime.h"
#include "hip/streams.h"

namespace {

using hipmem::hip::MemcpyKind;
using hipmem::hip::PitchedAllocation;
using hipmem::hip::RectCopy;
using hipmem::hip::Return;
using hipmem::hip::StreamHandle;

StreamHandle Handle(hipStream_t stream) { return StreamHandle(reinterpret_cast<uint64_t>(stream)); }

hipError_t MallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr || pitch == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<PitchedAllocation> a = hipmem::hip::MallocPitch(rt, width, height, 1);
  if (!a.ok()) return Return(a.status());
  *ptr = a->ptr;
  if (a->ptr != nullptr) *pitch = a->pitch;  // an empty extent leaves *pitch alone, as CLR does
  return Return(hipSuccess);
}

hipError_t Memcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                    hipMemcpyKind kind, hipStream_t stream, bool async) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  const RectCopy copy{{dst, dpitch, 0}, {src, spitch, 0}, width, height, 1, static_cast<MemcpyKind>(kind)};
  return Return(hipmem::hip::MemcpyRect(rt, copy, Handle(stream), async));
}

hipError_t CopyFrom(const absl::StatusOr<RectCopy>& copy, hipStream_t stream, bool async) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  if (!copy.ok()) return Return(copy.status());
  return Return(hipmem::hip::MemcpyRect(rt, *copy, Handle(stream), async));
}

hipError_t Memset3D(hipPitchedPtr dst, int value, hipExtent extent, hipStream_t stream, bool async) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  return Return(hipmem::hip::MemsetRect(rt, dst, value, extent, Handle(stream), async));
}

}  // namespace

extern "C" {

hipError_t hipMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  HIPMEM_API_SLICE(ptr, pitch, width, height);
  return MallocPitch(ptr, pitch, width, height);
}

hipError_t hipMemAllocPitch(hipDeviceptr_t* dptr, size_t* pitch, size_t widthInBytes, size_t height,
                            unsigned int /*elementSizeBytes*/) {
  HIPMEM_API_SLICE(dptr, pitch, widthInBytes, height);
  // As CLR: hipMallocPitch under another name. The element size (the widest access the caller will make) does
  // not change a pitch already aligned to 256 bytes, and CLR does not check it (CUDA refuses sizes other than
  // 4, 8 and 16; hip-tests expects that on NVIDIA only).
  return MallocPitch(dptr, pitch, widthInBytes, height);
}

hipError_t hipMalloc3D(hipPitchedPtr* pitchedDevPtr, hipExtent extent) {
  HIPMEM_INIT_OR_RETURN(rt, pitchedDevPtr, extent);
  if (pitchedDevPtr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<PitchedAllocation> a = hipmem::hip::MallocPitch(rt, extent.width, extent.height, extent.depth);
  if (!a.ok()) return Return(a.status());
  *pitchedDevPtr = make_hipPitchedPtr(a->ptr, a->pitch, extent.width, extent.height);
  return Return(hipSuccess);
}

hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                       hipMemcpyKind kind) {
  HIPMEM_API_SLICE(dst, dpitch, src, spitch, width, height, kind);
  return Memcpy2D(dst, dpitch, src, spitch, width, height, kind, nullptr, /*async=*/false);
}

hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                            hipMemcpyKind kind, hipStream_t stream) {
  HIPMEM_API_SLICE(dst, dpitch, src, spitch, width, height, kind, stream);
  return Memcpy2D(dst, dpitch, src, spitch, width, height, kind, stream, /*async=*/true);
}

hipError_t hipMemcpyParam2D(const hip_Memcpy2D* pCopy) {
  HIPMEM_API_SLICE(pCopy);
  return CopyFrom(hipmem::hip::FromParam2D(pCopy), nullptr, /*async=*/false);
}

hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D* pCopy, hipStream_t stream) {
  HIPMEM_API_SLICE(pCopy, stream);
  return CopyFrom(hipmem::hip::FromParam2D(pCopy), stream, /*async=*/true);
}

hipError_t hipMemcpy3D(const hipMemcpy3DParms* p) {
  HIPMEM_API_SLICE(p);
  return CopyFrom(hipmem::hip::FromMemcpy3DParms(p), nullptr, /*async=*/false);
}

hipError_t hipMemcpy3DAsync(const hipMemcpy3DParms* p, hipStream_t stream) {
  HIPMEM_API_SLICE(p, stream);
  return CopyFrom(hipmem::hip::FromMemcpy3DParms(p), stream, /*async=*/true);
}

hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D* pCopy) {
  HIPMEM_API_SLICE(pCopy);
  return CopyFrom(hipmem::hip::FromDrvMemcpy3D(pCopy), nullptr, /*async=*/false);
}

hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D* pCopy, hipStream_t stream) {
  HIPMEM_API_SLICE(pCopy, stream);
  return CopyFrom(hipmem::hip::FromDrvMemcpy3D(pCopy), stream, /*async=*/true);
}

hipError_t hipMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
  HIPMEM_API_SLICE(dst, pitch, value, width, height);
  return Memset3D(make_hipPitchedPtr(dst, pitch, width, height), value, make_hipExtent(width, height, 1), nullptr,
                  /*async=*/false);
}

hipError_t hipMemset2DAsync(void* dst, size_t pitch, int value, size_t width, size_t height, hipStream_t stream) {
  HIPMEM_API_SLICE(dst, pitch, value, width, height, stream);
  return Memset3D(make_hipPitchedPtr(dst, pitch, width, height), value, make_hipExtent(width, height, 1), stream,
                  /*async=*/true);
}

hipError_t hipMemset3D(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent) {
  HIPMEM_API_SLICE(pitchedDevPtr, value, extent);
  return Memset3D(pitchedDevPtr, value, extent, nullptr, /*async=*/false);
}

hipError_t hipMemset3DAsync(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent, hipStream_t stream) {
  HIPMEM_API_SLICE(pitchedDevPtr, value, extent, stream);
  return Memset3D(pitchedDevPtr, value, extent, stream, /*async=*/true);
}

}  // extern "C"
