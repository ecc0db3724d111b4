// The KFD ioctl ABI (linux/include/uapi/linux/kfd_ioctl.h), as typed C++.
//
// Plays the kernel's uapi header. Each argument struct is byte-identical to the kernel's (sizes and
// offsets are static_asserted here and compared against Debian's <linux/kfd_ioctl.h> in
// kfd_ioctl_test.cc). Each request is an IoctlDescriptor<Args> that pairs the encoded request
// number with its argument struct, so issuing a request with the wrong struct does not compile.
//
// Version: we speak KFD ioctl 1.17 (the copy libhsakmt ships; mainline as of 2025). Debian
// bookworm's header is 1.11: every struct used here is identical in both; the flag bits
// EXT_COHERENT and CONTIGUOUS_BEST_EFFORT exist only from 1.16/1.17 and are absent from the test's
// reference header.
#ifndef HIPMEM_KFD_UAPI_KFD_IOCTL_H_
#define HIPMEM_KFD_UAPI_KFD_IOCTL_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace hipmem::kfd_uapi {

inline constexpr uint32_t kIoctlMajorVersion = 1;
inline constexpr uint32_t kIoctlMinorVersion = 17;

// ---- request encoding (asm-generic/ioctl.h) ----
enum class IoctlDirection : uint32_t { kNone = 0, kWrite = 1, kRead = 2, kReadWrite = 3 };

inline constexpr uint32_t kIoctlType = 'K';
inline constexpr uint32_t kCommandStart = 0x01;
inline constexpr uint32_t kCommandEnd = 0x27;  // exclusive, KFD 1.17

constexpr unsigned long EncodeIoctl(IoctlDirection dir, uint32_t nr, uint32_t size) {
  return (static_cast<unsigned long>(dir) << 30) | (static_cast<unsigned long>(size & 0x3fff) << 16) |
         (kIoctlType << 8) | nr;
}
constexpr uint32_t IoctlNr(unsigned long request) { return request & 0xff; }
constexpr uint32_t IoctlType(unsigned long request) { return (request >> 8) & 0xff; }
constexpr uint32_t IoctlSize(unsigned long request) { return (request >> 16) & 0x3fff; }
constexpr IoctlDirection IoctlDir(unsigned long request) { return static_cast<IoctlDirection>((request >> 30) & 3); }

// ---- argument structs (field names as in the kernel) ----
struct GetVersionArgs {
  uint32_t major_version;  // out
  uint32_t minor_version;  // out
};

struct ProcessDeviceApertures {
  uint64_t lds_base;
  uint64_t lds_limit;
  uint64_t scratch_base;
  uint64_t scratch_limit;
  uint64_t gpuvm_base;
  uint64_t gpuvm_limit;
  uint32_t gpu_id;
  uint32_t pad;
};

struct GetProcessAperturesNewArgs {
  uint64_t kfd_process_device_apertures_ptr;  // user pointer to ProcessDeviceApertures[]
  uint32_t num_of_nodes;                      // in: array capacity; out: GPUs in the process
  uint32_t pad;
};

struct AcquireVmArgs {
  uint32_t drm_fd;
  uint32_t gpu_id;
};

struct AllocMemoryOfGpuArgs {
  uint64_t va_addr;      // in
  uint64_t size;         // in
  uint64_t handle;       // out: (gpu_id << 32) | idr
  uint64_t mmap_offset;  // in (USERPTR: CPU address) / out
  uint32_t gpu_id;       // in
  uint32_t flags;        // in: AllocMemFlags
};

struct FreeMemoryOfGpuArgs {
  uint64_t handle;
};

struct MapMemoryToGpuArgs {
  uint64_t handle;
  uint64_t device_ids_array_ptr;  // user pointer to uint32_t gpu_ids[n_devices]
  uint32_t n_devices;
  uint32_t n_success;  // in/out: devices done so far; a retry resumes from here
};

struct UnmapMemoryFromGpuArgs {
  uint64_t handle;
  uint64_t device_ids_array_ptr;
  uint32_t n_devices;
  uint32_t n_success;
};

struct GetAvailableMemoryArgs {
  uint64_t available;  // out
  uint32_t gpu_id;     // in
  uint32_t pad;
};

// ---- the layout contract ----
#define HIPMEM_KFD_LAYOUT(T, size) static_assert(sizeof(T) == (size) && std::is_standard_layout_v<T>)
HIPMEM_KFD_LAYOUT(GetVersionArgs, 8);
HIPMEM_KFD_LAYOUT(ProcessDeviceApertures, 56);
HIPMEM_KFD_LAYOUT(GetProcessAperturesNewArgs, 16);
HIPMEM_KFD_LAYOUT(AcquireVmArgs, 8);
HIPMEM_KFD_LAYOUT(AllocMemoryOfGpuArgs, 40);
HIPMEM_KFD_LAYOUT(FreeMemoryOfGpuArgs, 8);
HIPMEM_KFD_LAYOUT(MapMemoryToGpuArgs, 24);
HIPMEM_KFD_LAYOUT(UnmapMemoryFromGpuArgs, 24);
HIPMEM_KFD_LAYOUT(GetAvailableMemoryArgs, 16);
#undef HIPMEM_KFD_LAYOUT
static_assert(offsetof(AllocMemoryOfGpuArgs, gpu_id) == 32 && offsetof(AllocMemoryOfGpuArgs, flags) == 36);
static_assert(offsetof(MapMemoryToGpuArgs, n_devices) == 16 && offsetof(MapMemoryToGpuArgs, n_success) == 20);
static_assert(offsetof(ProcessDeviceApertures, gpu_id) == 48);

// ---- typed descriptors ----
template <typename ArgsT>
struct IoctlDescriptor {
  using Args = ArgsT;
  uint32_t nr;
  IoctlDirection direction;
  const char* name;  // "AMDKFD_IOC_..."

  constexpr unsigned long request() const { return EncodeIoctl(direction, nr, sizeof(Args)); }
};

inline constexpr IoctlDescriptor<GetVersionArgs> kGetVersion{0x01, IoctlDirection::kRead, "AMDKFD_IOC_GET_VERSION"};
inline constexpr IoctlDescriptor<GetProcessAperturesNewArgs> kGetProcessAperturesNew{
    0x14, IoctlDirection::kReadWrite, "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW"};
inline constexpr IoctlDescriptor<AcquireVmArgs> kAcquireVm{0x15, IoctlDirection::kWrite, "AMDKFD_IOC_ACQUIRE_VM"};
inline constexpr IoctlDescriptor<AllocMemoryOfGpuArgs> kAllocMemoryOfGpu{0x16, IoctlDirection::kReadWrite,
                                                                          "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU"};
inline constexpr IoctlDescriptor<FreeMemoryOfGpuArgs> kFreeMemoryOfGpu{0x17, IoctlDirection::kWrite,
                                                                        "AMDKFD_IOC_FREE_MEMORY_OF_GPU"};
inline constexpr IoctlDescriptor<MapMemoryToGpuArgs> kMapMemoryToGpu{0x18, IoctlDirection::kReadWrite,
                                                                      "AMDKFD_IOC_MAP_MEMORY_TO_GPU"};
inline constexpr IoctlDescriptor<UnmapMemoryFromGpuArgs> kUnmapMemoryFromGpu{0x19, IoctlDirection::kReadWrite,
                                                                              "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU"};
inline constexpr IoctlDescriptor<GetAvailableMemoryArgs> kAvailableMemory{0x23, IoctlDirection::kReadWrite,
                                                                           "AMDKFD_IOC_AVAILABLE_MEMORY"};

static_assert(kGetVersion.request() == 0x80084B01);
static_assert(kAllocMemoryOfGpu.request() == 0xC0284B16);
static_assert(kFreeMemoryOfGpu.request() == 0x40084B17);
static_assert(kAvailableMemory.request() == 0xC0104B23);

// Returns the "AMDKFD_IOC_..." name of a request number, or "AMDKFD_IOC_<unknown>".
const char* IoctlName(unsigned long request);

// ---- KFD_IOC_ALLOC_MEM_FLAGS_* ----
// One bit each; combine with |. The raw mask exists only where an ioctl struct is filled in.
enum class AllocMemFlags : uint32_t {
  kNone = 0,
  kVram = 1u << 0,
  kGtt = 1u << 1,
  kUserptr = 1u << 2,
  kDoorbell = 1u << 3,
  kMmioRemap = 1u << 4,
  kContiguousBestEffort = 1u << 23,  // 1.17
  kExtCoherent = 1u << 24,           // 1.16
  kUncached = 1u << 25,
  kCoherent = 1u << 26,
  kAqlQueueMem = 1u << 27,
  kNoSubstitute = 1u << 28,
  kPublic = 1u << 29,
  kExecutable = 1u << 30,
  kWritable = 1u << 31,
};

constexpr AllocMemFlags operator|(AllocMemFlags a, AllocMemFlags b) {
  return static_cast<AllocMemFlags>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr AllocMemFlags& operator|=(AllocMemFlags& a, AllocMemFlags b) { return a = a | b; }
constexpr bool HasFlag(AllocMemFlags set, AllocMemFlags flag) {
  return (static_cast<uint32_t>(set) & static_cast<uint32_t>(flag)) == static_cast<uint32_t>(flag);
}
constexpr uint32_t ToRaw(AllocMemFlags f) { return static_cast<uint32_t>(f); }
constexpr AllocMemFlags AllocMemFlagsFromRaw(uint32_t raw) { return static_cast<AllocMemFlags>(raw); }

// The memory-domain bits: exactly one must be set on an allocation.
inline constexpr uint32_t kAllocMemDomainMask = 0x1f;

// ---- mmap offsets on /dev/kfd (KFD_MMAP_*) ----
// These live in the kernel's private kfd_priv.h, not in the uapi header; values as in mainline.
inline constexpr uint64_t kMmapTypeShift = 62;
inline constexpr uint64_t kMmapTypeDoorbell = 3ull << kMmapTypeShift;
inline constexpr uint64_t kMmapTypeEvents = 2ull << kMmapTypeShift;
inline constexpr uint64_t kMmapTypeReservedMem = 1ull << kMmapTypeShift;
inline constexpr uint64_t kMmapTypeMmio = 0ull << kMmapTypeShift;
inline constexpr uint64_t kMmapGpuIdShift = 46;

// The handle encoding the kernel uses: (gpu_id << 32) | idr id.
constexpr uint32_t HandleGpuId(uint64_t handle) { return static_cast<uint32_t>(handle >> 32); }
constexpr uint32_t HandleIdr(uint64_t handle) { return static_cast<uint32_t>(handle & 0xffffffffu); }
constexpr uint64_t MakeHandle(uint32_t gpu_id, uint32_t idr) { return (static_cast<uint64_t>(gpu_id) << 32) | idr; }

}  // namespace hipmem::kfd_uapi

#endif  // HIPMEM_KFD_UAPI_KFD_IOCTL_H_
