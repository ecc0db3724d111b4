// The HIP runtime's C++ API for memory: what hip* C functions are thin shells over.
//
// Plays hipamd (hip_memory.cpp, hip_device_runtime.cpp) on top of ROCclr (clr::Context). Argument
// checks and error codes follow CLR (rocm_facts.md §1.4); where a HIP code has no canonical
// equivalent the Status carries it through hip_error.h's named constructors. Thread-safe; the
// current device is per thread, as in HIP.
#ifndef HIPMEM_HIP_RUNTIME_H_
#define HIPMEM_HIP_RUNTIME_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "clr/context.h"
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

// hipPointerAttribute_t, field for field.
struct PointerAttributes {
  MemoryType type = MemoryType::kUnregistered;
  int device = -2;  // hipInvalidDeviceId
  void* device_pointer = nullptr;
  void* host_pointer = nullptr;
  bool is_managed = false;
  uint32_t allocation_flags = 0;
};

class Runtime {
 public:
  // The process-wide runtime, created on first use (HIP_INIT_API). NoDeviceError when the machine
  // has no GPU, InvalidDeviceError when initialisation fails otherwise.
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

  // hipMalloc: nullptr for size 0; kResourceExhausted (hipErrorOutOfMemory) when too large or
  // out of VRAM.
  absl::StatusOr<void*> Malloc(size_t size);

  // hipHostMalloc: nullptr for size 0; kInvalidArgument for unknown flag bits or Coherent together
  // with NonCoherent; kResourceExhausted when out of memory.
  absl::StatusOr<void*> HostMalloc(size_t size, uint32_t flags);

  // hipFree / hipHostFree: OK for nullptr; kInvalidArgument (hipErrorInvalidValue) for a pointer
  // that is not the start of a live allocation.
  absl::Status Free(void* ptr);

  // hipMemcpy: the direction and the path come from the pointer map (clr::BlitManager); `kind` is only
  // validated, and kDeviceToDeviceNoCu asks for SDMA. Queued on the null stream of the device whose memory it
  // touches; returns when the copy is done, except a copy inside one device's memory, which may still run.
  // OK at once for size 0 or (dst == src with kDefault); kInvalidArgument for a null pointer, a
  // copy past the end of an allocation, or two unknown pointers with a device kind;
  // InvalidMemcpyDirectionError for a kind outside hipMemcpyKind.
  absl::Status Memcpy(void* dst, const void* src, size_t size, MemcpyKind kind);

  // hipMemGetInfo of the current device.
  absl::StatusOr<clr::MemInfo> MemGetInfo();

  // The streams and events of this runtime.
  StreamTable& streams() { return *streams_; }

  // hipPointerGetAttributes: unknown pointers are kUnregistered, not an error.
  PointerAttributes GetPointerAttributes(const void* ptr) const;

 private:
  const clr::Device& CurrentDevice() const;
  // The device owning `ptr` when it is device memory, else -1.
  int DeviceOf(const void* ptr) const;

  std::unique_ptr<clr::Context> context_;
  std::unique_ptr<StreamTable> streams_;  // destroyed first (~Runtime)
};

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_RUNTIME_H_
