// The HIP runtime's C++ API for memory: what hip* C functions are thin shells over.
//
// Plays hipamd (hip_memory.cpp, hip_device_runtime.cpp) on top of ROCclr (clr::Context). Argument
// checks and error codes follow CLR (rocm_facts.md §1.4); where a HIP code has no canonical
// equivalent the Status carries it through hip_error.h's named constructors. Thread-safe; the
// current device is per thread, as in HIP.
#ifndef HIPMEM_HIP_RUNTIME_H_
#define HIPMEM_HIP_RUNTIME_H_

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "clr/context.h"
#include "hip/device_limits.h"
#include "hip/mem_pools.h"
#include "hip/streams.h"

namespace hipmem::hip {

// hipMemcpyKind values.
enum class MemcpyKind : uint32_t {
  kHostToHost = 0,
  kHostToDevice = 1,
  kDeviceToHost = 2,
  kDeviceToDevice = 3,
  kDefault = 4,
  kDeviceToDeviceNoCu = 1024,
};

// hipMemoryType values reported by GetPointerAttributes.
enum class MemoryType : uint32_t { kUnregistered = 0, kHost = 1, kDevice = 2, kManaged = 3 };

// hipInvalidDeviceId: the device HIP reports for memory it does not know, or for a managed range with no single
// location (hip_runtime_api.h's value; this header needs no C header).
inline constexpr int kInvalidDeviceId = -2;

// hipPointerAttribute_t, field for field.
struct PointerAttributes {
  MemoryType type = MemoryType::kUnregistered;
  int device = kInvalidDeviceId;
  void* device_pointer = nullptr;
  void* host_pointer = nullptr;
  bool is_managed = false;
  uint32_t allocation_flags = 0;
};

class Runtime {
 public:
  // The process-wide runtime, created on first use (HIP_INIT_API) and never retried. NoDeviceError when the machine
  // has no GPU; when initialisation fails otherwise, InvalidDeviceError to the call that ran it and NoDeviceError
  // to every later one, as CLR.
  static absl::StatusOr<Runtime*> Get();

  // For tests: a runtime over an existing CLR context.
  explicit Runtime(std::unique_ptr<clr::Context> context);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int device_count() const { return static_cast<int>(context_->devices().size()); }
  // The calling thread's current device (0 until SetDevice).
  int current_device() const;
  // InvalidDeviceError for an ordinal outside [0, device_count()).
  absl::Status SetDevice(int ordinal);

  // hipSetValidDevices: OK for an empty list; otherwise the calling thread's current device becomes the first
  // entry unless it called SetDevice already (then nothing changes), as CLR does. Errors: kInvalidArgument
  // (hipErrorInvalidValue) for a negative length or more entries than devices; InvalidDeviceError for an entry
  // out of range.
  absl::Status SetValidDevices(const int* devices, int count);

  // ROCclr's description of device `ordinal` (hipGetDeviceProperties, hipDeviceGetAttribute, ...).
  // InvalidDeviceError for an ordinal outside [0, device_count()).
  absl::StatusOr<const clr::DeviceInfo*> GetDeviceInfo(int ordinal) const;

  // hipGetDeviceFlags / hipSetDeviceFlags of the calling thread's current device. A device starts with
  // hipDeviceScheduleSpin; SetDeviceFlags keeps only the scheduling bits, as CLR does. kInvalidArgument
  // (hipErrorInvalidValue) for bits outside hipDeviceScheduleMask | hipDeviceMapHost |
  // hipDeviceLmemResizeToMax, or for more than one scheduling mode.
  uint32_t device_flags() const;
  absl::Status SetDeviceFlags(uint32_t flags);
  // The same for device `ordinal` (hipInitDevice). InvalidDeviceError for an ordinal out of range.
  absl::Status SetDeviceFlags(int ordinal, uint32_t flags);

  // hipDeviceReset of the current device, as CLR's hip::Device::Reset: waits for the device's streams, destroys
  // those hipStreamCreate made on it and its cooperative stream (the next cooperative launch makes a new one, on a new
  // HSA queue), frees every device allocation made on it (hipHostMalloc memory belongs to
  // the process and stays; registered memory stays registered), and puts its flags back to
  // hipDeviceScheduleSpin. The null stream and per-thread streams stay usable; events stay valid.
  absl::Status DeviceReset();

  // hipDeviceCanAccessPeer: whether `device` can be given `peer`'s memory (a link exists); false for itself.
  // InvalidDeviceError for an ordinal out of range.
  absl::StatusOr<bool> CanAccessPeer(int device, int peer) const;
  // hipDeviceEnablePeerAccess from the current device: its GPU then reaches `peer`'s allocations, present and
  // future. Errors: kInvalidArgument for flags other than 0; InvalidDeviceError for `peer` out of range, itself
  // or without a link; hipErrorPeerAccessAlreadyEnabled when enabled already.
  absl::Status EnablePeerAccess(int peer, uint32_t flags);
  // hipDeviceDisablePeerAccess: later allocations of `peer` are no longer mapped for the current device.
  // Errors: InvalidDeviceError as EnablePeerAccess; hipErrorPeerAccessNotEnabled when not enabled.
  absl::Status DisablePeerAccess(int peer);
  // The link from `device1` to `device2`'s memory (hipExtGetLinkTypeAndHopCount, hipDeviceGetP2PAttribute).
  // InvalidDeviceError for an ordinal out of range; callers check equal devices first, as their CLR codes differ.
  absl::StatusOr<clr::Context::PeerLink> PeerLink(int device1, int device2) const;

  // hipMalloc: nullptr for size 0; kResourceExhausted (hipErrorOutOfMemory) when too large or
  // out of VRAM.
  absl::StatusOr<void*> Malloc(size_t size);

  // hipHostMalloc: nullptr for size 0; kInvalidArgument for unknown flag bits, Coherent together
  // with NonCoherent, or Uncached with either; kResourceExhausted when out of memory.
  absl::StatusOr<void*> HostMalloc(size_t size, uint32_t flags);

  // hipFree / hipHostFree: OK for nullptr; kInvalidArgument (hipErrorInvalidValue) for a pointer
  // that is not the start of a live allocation.
  absl::Status Free(void* ptr);

  // hipMemcpy: the direction and the path come from the pointer map (clr::BlitManager); `kind` is only
  // validated, and kDeviceToDeviceNoCu asks for SDMA. Queued on the null stream of the device whose memory it
  // touches; returns when the copy is done, except a copy inside one device's memory, which may still run unless
  // both allocations have SYNC_MEMOPS set (hipPointerSetAttribute), as in CLR.
  // OK at once for size 0 or (dst == src with kDefault); kInvalidArgument for a null pointer, a
  // copy past the end of an allocation, or two unknown pointers with a device kind;
  // InvalidMemcpyDirectionError for a kind outside hipMemcpyKind.
  absl::Status Memcpy(void* dst, const void* src, size_t size, MemcpyKind kind);

  // Whether a copy between device memory of `dst_device` and `src_device` needs CLR's P2P staging: different
  // devices, and the destination's GPU (where the copy runs) has not been given access to the source's VRAM.
  bool NeedsPeerStaging(int dst_device, int src_device) const;
  // (Memcpy and MemcpyAsync stage such copies themselves; the 2D/3D copies ask.) hipCpuDeviceId for either: false.

  // hipMemcpyAsync: as Memcpy, queued on `stream` (a copy touching another device's memory goes to that
  // device's null stream, ordered after `stream`'s work and before its later work, as CLR sends it there).
  // Returns once queued, except what touches pageable memory (clr::BlitManager::Copy). Errors: Memcpy's;
  // ContextIsDestroyedError for a stream that is not live.
  absl::Status MemcpyAsync(void* dst, const void* src, size_t size, MemcpyKind kind, StreamHandle stream);

  // hipMemset / hipMemsetD8/D16/D32 (+Async): `count` elements of `element_size` bytes with the low bytes of
  // `value`, on the fill kernel of `stream`; without `async`, returns when done (hipMemset waits as CLR's
  // does). OK at once for count 0. Errors: kInvalidArgument (hipErrorInvalidValue) for a null `dst`, memory
  // HIP did not allocate or register, a fill past its end or a `dst` not aligned to the element;
  // ContextIsDestroyedError for a dead stream.
  absl::Status Memset(void* dst, uint32_t value, uint32_t element_size, size_t count, StreamHandle stream,
                      bool async);

  // hipLaunchHostFunc / hipStreamAddCallback: `function` runs on the runtime's handler thread once the work
  // queued on `stream` before it is done; work queued after it waits for it. Errors as MemcpyAsync's.
  absl::Status LaunchHostFunc(StreamHandle stream, std::function<void()> function);

  // hipHostRegister: locks [ptr, ptr + size) for every GPU. Errors: kInvalidArgument for a null pointer, size 0,
  // unknown flag bits, or memory the KFD cannot pin; HostMemoryAlreadyRegisteredError when it overlaps memory
  // HIP knows (current CLR).
  absl::Status HostRegister(void* ptr, size_t size, uint32_t flags);
  // hipHostUnregister: after the current device's streams are done. Errors: kInvalidArgument for null;
  // HostMemoryNotRegisteredError for a pointer that does not start registered memory.
  absl::Status HostUnregister(void* ptr);
  // hipHostGetDevicePointer: where the GPUs reach host memory HIP allocated or registered. Errors:
  // kInvalidArgument for flags other than 0, a null pointer, or memory that is not such host memory.
  absl::StatusOr<void*> HostGetDevicePointer(void* ptr, uint32_t flags) const;
  // hipHostGetFlags: the flags the host memory containing `ptr` was allocated or registered with. Errors:
  // kInvalidArgument for a pointer into anything else.
  absl::StatusOr<uint32_t> HostGetFlags(const void* ptr) const;

  // hipMemGetInfo of the current device.
  absl::StatusOr<clr::MemInfo> MemGetInfo();

  // ROCclr underneath: devices, memory objects, settings (for the hip/ parts built beside Runtime).
  clr::Context& context() { return *context_; }
  const clr::Context& context() const { return *context_; }

  // The streams and events of this runtime.
  StreamTable& streams() { return *streams_; }

  // The stream-ordered memory pools (hipMallocAsync).
  PoolTable& pools() { return *pools_; }

  // hipDeviceGetLimit / hipDeviceSetLimit values, per device.
  DeviceLimits& limits() { return *limits_; }

  // hipPointerGetAttributes: unknown pointers are kUnregistered, not an error.
  PointerAttributes GetPointerAttributes(const void* ptr) const;

  // The device whose VRAM holds `pointer` (resolved already: no lookup), else hipCpuDeviceId (-1): host memory,
  // HIP's own or pageable, which upstream's pointer queries place on the CPU. Copies and fills run on the device
  // whose memory they touch.
  static int DeviceOf(const clr::ResolvedPointer& pointer);

 private:
  const clr::Device& CurrentDevice() const;
  // DeviceOf after one lookup of `ptr`.
  int DeviceOf(const void* ptr) const;
  // That staging: through host memory in GPU_STAGING_BUFFER_SIZE chunks, the host waiting for each half, after the
  // work already queued on every device involved (the caller's stream may be on a third one).
  absl::Status StagedPeerCopy(void* dst, int dst_device, const void* src, int src_device, size_t size);

  std::unique_ptr<clr::Context> context_;
  std::unique_ptr<StreamTable> streams_;  // destroyed first (~Runtime)
  std::unique_ptr<std::atomic<uint32_t>[]> device_flags_;  // by device
  std::unique_ptr<DeviceLimits> limits_;
  std::unique_ptr<PoolTable> pools_;  // destroyed after streams_ (~Runtime), before context_
};

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_RUNTIME_H_
