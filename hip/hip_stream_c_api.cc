// hipStream*, hipEvent*, the stream-ordered copies and memsets, host registration and device synchronisation:
// thin shells over hip::Runtime and its StreamTable. Argument checks CLR makes before its C++ layer (null
// output pointers) are made here; everything else is the C++ API's.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "hip/c_shell.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/runtime.h"
#include "hip/streams.h"

namespace {

using hipmem::hip::EventHandle;
using hipmem::hip::HipStream;
using hipmem::hip::MemcpyKind;
using hipmem::hip::Return;
using hipmem::hip::Runtime;
using hipmem::hip::StreamHandle;
using hipmem::hip::StreamTable;

StreamHandle Handle(hipStream_t stream) { return StreamHandle(reinterpret_cast<uint64_t>(stream)); }
EventHandle Handle(hipEvent_t event) { return EventHandle(reinterpret_cast<uint64_t>(event)); }

hipError_t CreateStream(hipStream_t* stream, unsigned int flags, int priority) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  if (stream == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<StreamHandle> handle = rt.streams().Create(rt.current_device(), flags, priority);
  if (!handle.ok()) return Return(handle.status());
  *stream = reinterpret_cast<hipStream_t>(handle->raw());
  return Return(hipSuccess);
}

// Calls `body` with the stream `stream` names for the current device.
hipError_t WithStream(hipStream_t stream, const std::function<absl::Status(Runtime&, HipStream&)>& body) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  absl::StatusOr<HipStream*> s = rt.streams().Resolve(Handle(stream), rt.current_device());
  if (!s.ok()) return Return(s.status());
  return Return(body(rt, **s));
}

hipError_t Memset(void* dst, uint32_t value, uint32_t element_size, size_t count, hipStream_t stream, bool async) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  return Return(hipmem::hip::DeviceFaultAsHip(rt.Memset(dst, value, element_size, count, Handle(stream), async)));
}

}  // namespace

extern "C" {

hipError_t hipStreamCreate(hipStream_t* stream) { return CreateStream(stream, hipStreamDefault, 0); }

hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) { return CreateStream(stream, flags, 0); }

hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned int flags, int priority) {
  HIPMEM_API_SLICE(stream, flags, priority);
  return CreateStream(stream, flags, priority);
}

hipError_t hipDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  HIPMEM_INIT_OR_RETURN(rt, leastPriority, greatestPriority);
  (void)rt;
  if (leastPriority != nullptr) *leastPriority = StreamTable::kLeastPriority;
  if (greatestPriority != nullptr) *greatestPriority = StreamTable::kGreatestPriority;
  return Return(hipSuccess);
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  HIPMEM_INIT_OR_RETURN(rt, stream);
  // Only a created stream can be destroyed: resolving the null or per-thread handle would make one.
  // Only a created stream can be destroyed: resolving the null or per-thread handle would make one.
  const bool created = Handle(stream).raw() > hipmem::hip::kPerThreadStreamHandle.raw();
  absl::StatusOr<HipStream*> s =
      created ? rt.streams().Resolve(Handle(stream), rt.current_device()) : absl::StatusOr<HipStream*>(nullptr);
  const hipmem::clr::Stream* queue = s.ok() && *s != nullptr ? &(*s)->queue() : nullptr;
  absl::Status destroyed = rt.streams().Destroy(Handle(stream));
  if (destroyed.ok() && queue != nullptr) rt.pools().ForgetStream(queue);  // compared only: it is gone
  return Return(destroyed);
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  HIPMEM_API_SLICE(stream);
  return WithStream(stream, [](Runtime& rt, HipStream& s) {
    RETURN_IF_ERROR(rt.streams().Synchronize(s));
    return rt.pools().ReleaseFreed();  // CLR's ReleaseFreedMemory on a stream synchronisation
  });
}

hipError_t hipStreamQuery(hipStream_t stream) {
  HIPMEM_API_SLICE(stream);
  return WithStream(stream, [](Runtime& rt, HipStream& s) { return rt.streams().Query(s); });
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
  HIPMEM_API_SLICE(stream, event, flags);
  return WithStream(stream, [&](Runtime& rt, HipStream& s) {
    if (absl::Status before = rt.streams().BeforeCommand(s); !before.ok()) return before;
    absl::StatusOr<std::optional<StreamTable::EventMark>> mark = rt.streams().WaitEventMark(s, Handle(event), flags);
    if (!mark.ok()) return mark.status();
    // CLR's AddSafeStream: blocks freed on the event's stream before its mark may now go to `s`.
    if (mark->has_value()) rt.pools().AddSafeStream(s.queue(), *(*mark)->origin, (*mark)->tick);
    return absl::OkStatus();
  });
}

hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int* flags) {
  HIPMEM_API_SLICE(stream, flags);
  if (flags == nullptr) return Return(hipErrorInvalidValue);
  return WithStream(stream, [&](Runtime&, HipStream& s) {
    *flags = s.flags();
    return absl::OkStatus();
  });
}

hipError_t hipStreamGetPriority(hipStream_t stream, int* priority) {
  HIPMEM_API_SLICE(stream, priority);
  if (priority == nullptr) return Return(hipErrorInvalidValue);
  return WithStream(stream, [&](Runtime&, HipStream& s) {
    *priority = s.priority();
    return absl::OkStatus();
  });
}

hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t* device) {
  HIPMEM_API_SLICE(stream, device);
  if (device == nullptr) return Return(hipErrorInvalidValue);
  const hipError_t got = WithStream(stream, [&](Runtime&, HipStream& s) {
    *device = s.device();
    return absl::OkStatus();
  });
  // hip_stream.cpp hipStreamGetDevice is the one stream query whose !hip::isValid answers
  // hipErrorContextIsDestroyed rather than the resource-handle code.
  return got == hipErrorInvalidHandle ? Return(hipErrorContextIsDestroyed) : got;
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* userData) {
  HIPMEM_INIT_OR_RETURN(rt, stream, fn, userData);
  if (fn == nullptr) return Return(hipErrorInvalidValue);
  return Return(hipmem::hip::DeviceFaultAsHip(rt.LaunchHostFunc(Handle(stream), [fn, userData] { fn(userData); })));
}

hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void* userData,
                                unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, stream, callback, userData, flags);
  // CUDA and CLR reserve the flags: they must be 0.
  if (callback == nullptr || flags != 0) return Return(hipErrorInvalidValue);
  (void)rt;  // WithStream resolves the stream on it
  // The callback learns how the work before it ended: hipSuccess, or the error (hipErrorIllegalAddress after a
  // GPU memory fault) that failed it, as CUDA reports it.
  return WithStream(stream, [&](Runtime& r, HipStream& s) {
    if (absl::Status before = r.streams().BeforeCommand(s); !before.ok()) return hipmem::hip::DeviceFaultAsHip(before);
    return hipmem::hip::DeviceFaultAsHip(s.queue().HostCallback([stream, callback, userData](const absl::Status& st) {
      callback(stream, hipmem::hip::ToHipError(hipmem::hip::DeviceFaultAsHip(st)), userData);
    }));
  });
}

hipError_t hipDeviceSynchronize(void) {
  HIPMEM_INIT_OR_RETURN(rt);
  absl::Status synced = rt.streams().SynchronizeDevice(rt.current_device());
  return Return(synced.ok() ? rt.pools().ReleaseFreed() : synced);
}

hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
  HIPMEM_INIT_OR_RETURN(rt, event, flags);
  if (event == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<EventHandle> handle = rt.streams().CreateEvent(flags, rt.current_device());
  if (!handle.ok()) return Return(handle.status());
  *event = reinterpret_cast<hipEvent_t>(handle->raw());
  return Return(hipSuccess);
}

hipError_t hipEventCreate(hipEvent_t* event) { return hipEventCreateWithFlags(event, hipEventDefault); }

hipError_t hipEventDestroy(hipEvent_t event) {
  HIPMEM_INIT_OR_RETURN(rt, event);
  if (event == nullptr) return Return(hipErrorInvalidHandle);
  absl::Status destroyed = rt.streams().DestroyEvent(Handle(event));
  // As CLR: an event no longer in the live set answers hipErrorContextIsDestroyed, returned without becoming the
  // thread's last error.
  if (absl::IsNotFound(destroyed)) return hipErrorContextIsDestroyed;
  return Return(destroyed);
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  HIPMEM_API_SLICE(event, stream);
  return WithStream(stream, [&](Runtime& rt, HipStream& s) {
    if (absl::Status before = rt.streams().BeforeCommand(s); !before.ok()) return before;
    return rt.streams().RecordEvent(Handle(event), s);
  });
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  HIPMEM_INIT_OR_RETURN(rt, event);
  absl::Status synced = rt.streams().SynchronizeEvent(Handle(event));
  return Return(synced.ok() ? rt.pools().ReleaseFreed() : synced);
}

hipError_t hipEventQuery(hipEvent_t event) {
  HIPMEM_INIT_OR_RETURN(rt, event);
  return Return(rt.streams().QueryEvent(Handle(event)));
}

hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  HIPMEM_INIT_OR_RETURN(rt, ms, start, stop);
  if (ms == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<float> elapsed = rt.streams().ElapsedMs(Handle(start), Handle(stop));
  if (!elapsed.ok()) return Return(elapsed.status());
  *ms = *elapsed;
  return Return(hipSuccess);
}

hipError_t hipMemcpyAsync(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind, hipStream_t stream) {
  HIPMEM_INIT_OR_RETURN(rt, dst, src, sizeBytes, kind, stream);
  return Return(hipmem::hip::DeviceFaultAsHip(
      rt.MemcpyAsync(dst, src, sizeBytes, static_cast<MemcpyKind>(kind), Handle(stream))));
}

hipError_t hipMemcpyWithStream(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind, hipStream_t stream) {
  // hipMemcpyAsync, then the stream is waited for (CLR's hipMemcpyWithStream is blocking).
  HIPMEM_INIT_OR_RETURN(rt, dst, src, sizeBytes, kind, stream);
  if (absl::Status s = rt.MemcpyAsync(dst, src, sizeBytes, static_cast<MemcpyKind>(kind), Handle(stream)); !s.ok()) {
    return Return(s);
  }
  return WithStream(stream, [](Runtime& r, HipStream& s) { return r.streams().Synchronize(s); });
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void* src, size_t sizeBytes) {
  HIPMEM_API_SLICE(dst, src, sizeBytes);
  return hipMemcpy(dst, src, sizeBytes, hipMemcpyHostToDevice);
}
hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t sizeBytes) {
  HIPMEM_API_SLICE(dst, src, sizeBytes);
  return hipMemcpy(dst, src, sizeBytes, hipMemcpyDeviceToHost);
}
hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes) {
  HIPMEM_API_SLICE(dst, src, sizeBytes);
  return hipMemcpy(dst, src, sizeBytes, hipMemcpyDeviceToDevice);
}
hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, const void* src, size_t sizeBytes, hipStream_t stream) {
  HIPMEM_API_SLICE(dst, src, sizeBytes, stream);
  return hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyHostToDevice, stream);
}
hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream) {
  HIPMEM_API_SLICE(dst, src, sizeBytes, stream);
  return hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyDeviceToHost, stream);
}
hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream) {
  HIPMEM_API_SLICE(dst, src, sizeBytes, stream);
  return hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyDeviceToDevice, stream);
}

// hipMemset takes an int and writes its low byte, as memset does.
hipError_t hipMemset(void* dst, int value, size_t sizeBytes) {
  HIPMEM_API_SLICE(dst, value, sizeBytes);
  return Memset(dst, static_cast<uint8_t>(value), 1, sizeBytes, nullptr, false);
}
hipError_t hipMemsetAsync(void* dst, int value, size_t sizeBytes, hipStream_t stream) {
  HIPMEM_API_SLICE(dst, value, sizeBytes, stream);
  return Memset(dst, static_cast<uint8_t>(value), 1, sizeBytes, stream, true);
}
hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count) {
  HIPMEM_API_SLICE(dest, value, count);
  return Memset(dest, value, 1, count, nullptr, false);
}
hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count, hipStream_t stream) {
  HIPMEM_API_SLICE(dest, value, count, stream);
  return Memset(dest, value, 1, count, stream, true);
}
hipError_t hipMemsetD16(hipDeviceptr_t dest, unsigned short value, size_t count) {
  HIPMEM_API_SLICE(dest, value, count);
  return Memset(dest, value, 2, count, nullptr, false);
}
hipError_t hipMemsetD16Async(hipDeviceptr_t dest, unsigned short value, size_t count, hipStream_t stream) {
  HIPMEM_API_SLICE(dest, value, count, stream);
  return Memset(dest, value, 2, count, stream, true);
}
hipError_t hipMemsetD32(hipDeviceptr_t dest, int value, size_t count) {
  HIPMEM_API_SLICE(dest, value, count);
  return Memset(dest, static_cast<uint32_t>(value), 4, count, nullptr, false);
}
hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t stream) {
  HIPMEM_API_SLICE(dst, value, count, stream);
  return Memset(dst, static_cast<uint32_t>(value), 4, count, stream, true);
}

hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, hostPtr, sizeBytes, flags);
  return Return(rt.HostRegister(hostPtr, sizeBytes, flags));
}

hipError_t hipHostUnregister(void* hostPtr) {
  HIPMEM_INIT_OR_RETURN(rt, hostPtr);
  return Return(rt.HostUnregister(hostPtr));
}

hipError_t hipHostGetDevicePointer(void** devPtr, void* hstPtr, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, devPtr, hstPtr, flags);
  if (devPtr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<void*> p = rt.HostGetDevicePointer(hstPtr, flags);
  if (!p.ok()) return Return(p.status());
  *devPtr = *p;
  return Return(hipSuccess);
}

hipError_t hipHostGetFlags(unsigned int* flagsPtr, void* hostPtr) {
  HIPMEM_INIT_OR_RETURN(rt, flagsPtr, hostPtr);
  if (flagsPtr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<uint32_t> f = rt.HostGetFlags(hostPtr);
  if (!f.ok()) return Return(f.status());
  *flagsPtr = *f;
  return Return(hipSuccess);
}

}  // extern "C"
