// The KFD ioctl ABI (linux/include/uapi/linux/kfd_ioctl.h), as typed C++.
//
// Plays the kernel's uapi header. Each argument struct is byte-identical to the kernel's (sizes and
// offsets are static_asserted here and compared against Debian's <linux/kfd_ioctl.h> in
// kfd_ioctl_test.cc). Each request is an IoctlDescriptor<Args> that pairs the encoded request
// number with its argument struct, so issuing a request with the wrong struct does not compile.
//
// Version: we speak KFD ioctl 1.17 (the copy libhsakmt ships; mainline as of 2025). Debian
// bookworm's header is 1.11: every struct used here has the same size and offsets in both; the flag
// bits EXT_COHERENT and CONTIGUOUS_BEST_EFFORT exist only from 1.16/1.17, and kfd_event_data's union
// gained signal_event_data (offset 0, inside the old union's 32 bytes) in 1.14, so those are absent
// from the test's reference header.
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

// AMDKFD_IOC_GET_CLOCK_COUNTERS (kfd_ioctl_get_clock_counters): the GPU's clock counter and two CPU clocks
// read together, so user space can relate GPU timestamps to CPU time.
struct GetClockCountersArgs {
  uint64_t gpu_clock_counter;     // out: the GPU's counter; 0 for a gpu_id without a GPU
  uint64_t cpu_clock_counter;     // out: CLOCK_MONOTONIC_RAW, ns (ktime_get_raw_ns)
  uint64_t system_clock_counter;  // out: CLOCK_BOOTTIME, ns (ktime_get_boottime_ns)
  uint64_t system_clock_freq;     // out: 1000000000, the two CPU counters' unit
  uint32_t gpu_id;                // in
  uint32_t pad;
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

// ---- events (kfd_events.c) ----

// KFD_IOC_EVENT_*: CreateEventArgs::event_type, matching HSA_EVENTTYPE. SIGNAL and DEBUG_EVENT events
// take a slot of the process's signal page; every other type is a "non-signal" event the kernel itself
// sets (MEMORY on a GPU VM fault, HW_EXCEPTION on a reset, ...).
enum class EventType : uint32_t {
  kSignal = 0,
  kNodeChange = 1,
  kDeviceStateChange = 2,
  kHwException = 3,
  kSystemEvent = 4,
  kDebugEvent = 5,
  kProfileEvent = 6,
  kQueueEvent = 7,
  kMemory = 8,
};
constexpr uint32_t ToRaw(EventType t) { return static_cast<uint32_t>(t); }

// KFD_IOC_WAIT_RESULT_*: WaitEventsArgs::wait_result.
enum class WaitResult : uint32_t {
  kComplete = 0,
  kTimeout = 1,
  kFail = 2,  // an event was destroyed while waited on (the ioctl then fails with -EIO)
};
constexpr uint32_t ToRaw(WaitResult r) { return static_cast<uint32_t>(r); }

// KFD_SIGNAL_EVENT_LIMIT: slots (8 bytes each) of a process's signal page.
inline constexpr uint32_t kSignalEventLimit = 4096;

// The kernel-private values of WaitEventsArgs::timeout (kfd_priv.h KFD_EVENT_TIMEOUT_*; libhsakmt's
// HSA_EVENTTIMEOUT_*): 0 polls once, 0xFFFFFFFF waits forever, anything else is milliseconds.
inline constexpr uint32_t kEventTimeoutImmediate = 0;
inline constexpr uint32_t kEventTimeoutInfinite = 0xFFFFFFFF;

// What an unsignaled slot of the signal page holds (kfd_events.h UNSIGNALED_EVENT_SLOT, kernel-private):
// never a valid event id, and all ones so the kernel can memset a fresh page.
inline constexpr uint64_t kUnsignaledEventSlot = ~uint64_t{0};

// KFD_HW_EXCEPTION_*: HwExceptionData::reset_type / reset_cause.
inline constexpr uint32_t kHwExceptionWholeGpuReset = 0;
inline constexpr uint32_t kHwExceptionPerEngineReset = 1;
inline constexpr uint32_t kHwExceptionGpuHang = 0;
inline constexpr uint32_t kHwExceptionEcc = 1;

// KFD_MEM_ERR_*: MemoryExceptionData::ErrorType.
inline constexpr uint32_t kMemErrNoRas = 0;
inline constexpr uint32_t kMemErrSramEcc = 1;
inline constexpr uint32_t kMemErrPoisonConsumed = 2;
inline constexpr uint32_t kMemErrGpuHang = 3;

struct CreateEventArgs {
  uint64_t event_page_offset;   // in: the event page BO's handle on the first call (dGPU), else 0;
                                // out: the EVENTS mmap offset for a signal event, else 0
  uint32_t event_trigger_data;  // out: what a GPU sends to signal it (the event id)
  uint32_t event_type;          // in: EventType
  uint32_t auto_reset;          // in: non-zero: a wait consumes the signal
  uint32_t node_id;             // in: only meaningful for some types; the kernel ignores it
  uint32_t event_id;            // out
  uint32_t event_slot_index;    // out: signal events: the slot in the signal page (== event_id)
};

struct DestroyEventArgs {
  uint32_t event_id;
  uint32_t pad;
};

struct SetEventArgs {
  uint32_t event_id;
  uint32_t pad;
};

struct ResetEventArgs {
  uint32_t event_id;
  uint32_t pad;
};

// kfd_memory_exception_failure: each field is 0 or 1.
struct MemoryExceptionFailure {
  uint32_t NotPresent;  // page not present or supervisor privilege
  uint32_t ReadOnly;    // write access to a read-only page
  uint32_t NoExecute;   // execute access to a page marked NX
  uint32_t imprecise;   // the exact fault address is unknown
};

// kfd_hsa_memory_exception_data: what a MEMORY event reports.
struct MemoryExceptionData {
  MemoryExceptionFailure failure;
  uint64_t va;
  uint32_t gpu_id;
  uint32_t ErrorType;  // kMemErr*
};

// kfd_hsa_hw_exception_data: what a HW_EXCEPTION event reports.
struct HwExceptionData {
  uint32_t reset_type;
  uint32_t reset_cause;
  uint32_t memory_lost;
  uint32_t gpu_id;
};

// kfd_hsa_signal_event_data (KFD 1.14+).
struct SignalEventData {
  uint64_t last_event_age;  // in/out: 0 disables age tracking
};

// kfd_event_data: one element of the array WAIT_EVENTS reads (event_id, signal_event_data) and, on
// completion, writes back (memory_exception_data of activated MEMORY events, signal_event_data of
// activated age-tracking signal events).
struct EventData {
  union {
    MemoryExceptionData memory_exception_data;
    HwExceptionData hw_exception_data;
    SignalEventData signal_event_data;
  };
  uint64_t kfd_event_data_ext;  // reserved: pointer to a future extension
  uint32_t event_id;            // in
  uint32_t pad;
};

struct WaitEventsArgs {
  uint64_t events_ptr;    // in: user pointer to EventData[num_events]
  uint32_t num_events;    // in
  uint32_t wait_for_all;  // in: non-zero: all events, else any one
  uint32_t timeout;       // in: milliseconds, or kEventTimeoutImmediate / kEventTimeoutInfinite
  uint32_t wait_result;   // out: WaitResult
};

// ---- queues (kfd_ioctl_create_queue_args and friends) ----

// KFD_IOC_QUEUE_TYPE_*: CreateQueueArgs::queue_type.
enum class QueueType : uint32_t {
  kCompute = 0,       // PM4
  kSdma = 1,
  kComputeAql = 2,
  kSdmaXgmi = 3,
  kSdmaByEngineId = 4,  // KFD 1.16: sdma_engine_id picks the engine
};

inline constexpr uint32_t kMaxQueuePercentage = 100;  // KFD_MAX_QUEUE_PERCENTAGE
inline constexpr uint32_t kMaxQueuePriority = 15;     // KFD_MAX_QUEUE_PRIORITY

struct CreateQueueArgs {
  uint64_t ring_base_address;      // in
  uint64_t write_pointer_address;  // in
  uint64_t read_pointer_address;   // in
  uint64_t doorbell_offset;        // out: the DOORBELL mmap offset; on SOC15 the queue's byte offset
                                   //      inside the process's doorbell slice is OR-ed into the low bits
  uint32_t ring_size;              // in: bytes, a power of two
  uint32_t gpu_id;                 // in
  uint32_t queue_type;             // in: QueueType
  uint32_t queue_percentage;       // in: bits 0-7 percentage; bits 8-15 the PM4 target XCC
  uint32_t queue_priority;         // in
  uint32_t queue_id;               // out
  uint64_t eop_buffer_address;     // in
  uint64_t eop_buffer_size;        // in
  uint64_t ctx_save_restore_address;  // in
  uint32_t ctx_save_restore_size;  // in
  uint32_t ctl_stack_size;         // in
  uint32_t sdma_engine_id;         // in: kSdmaByEngineId only (KFD 1.16)
  uint32_t pad;
};

struct DestroyQueueArgs {
  uint32_t queue_id;
  uint32_t pad;
};

struct UpdateQueueArgs {
  uint64_t ring_base_address;
  uint32_t queue_id;
  uint32_t ring_size;
  uint32_t queue_percentage;
  uint32_t queue_priority;
};

// ---- the layout contract ----
#define HIPMEM_KFD_LAYOUT(T, size) static_assert(sizeof(T) == (size) && std::is_standard_layout_v<T>)
HIPMEM_KFD_LAYOUT(GetVersionArgs, 8);
HIPMEM_KFD_LAYOUT(GetClockCountersArgs, 40);
HIPMEM_KFD_LAYOUT(ProcessDeviceApertures, 56);
HIPMEM_KFD_LAYOUT(GetProcessAperturesNewArgs, 16);
HIPMEM_KFD_LAYOUT(AcquireVmArgs, 8);
HIPMEM_KFD_LAYOUT(AllocMemoryOfGpuArgs, 40);
HIPMEM_KFD_LAYOUT(FreeMemoryOfGpuArgs, 8);
HIPMEM_KFD_LAYOUT(MapMemoryToGpuArgs, 24);
HIPMEM_KFD_LAYOUT(UnmapMemoryFromGpuArgs, 24);
HIPMEM_KFD_LAYOUT(GetAvailableMemoryArgs, 16);
HIPMEM_KFD_LAYOUT(CreateEventArgs, 32);
HIPMEM_KFD_LAYOUT(DestroyEventArgs, 8);
HIPMEM_KFD_LAYOUT(SetEventArgs, 8);
HIPMEM_KFD_LAYOUT(ResetEventArgs, 8);
HIPMEM_KFD_LAYOUT(MemoryExceptionFailure, 16);
HIPMEM_KFD_LAYOUT(MemoryExceptionData, 32);
HIPMEM_KFD_LAYOUT(HwExceptionData, 16);
HIPMEM_KFD_LAYOUT(SignalEventData, 8);
HIPMEM_KFD_LAYOUT(EventData, 48);
HIPMEM_KFD_LAYOUT(WaitEventsArgs, 24);
HIPMEM_KFD_LAYOUT(CreateQueueArgs, 96);
HIPMEM_KFD_LAYOUT(DestroyQueueArgs, 8);
HIPMEM_KFD_LAYOUT(UpdateQueueArgs, 24);
#undef HIPMEM_KFD_LAYOUT
static_assert(offsetof(GetClockCountersArgs, system_clock_freq) == 24 && offsetof(GetClockCountersArgs, gpu_id) == 32);
static_assert(offsetof(AllocMemoryOfGpuArgs, gpu_id) == 32 && offsetof(AllocMemoryOfGpuArgs, flags) == 36);
static_assert(offsetof(MapMemoryToGpuArgs, n_devices) == 16 && offsetof(MapMemoryToGpuArgs, n_success) == 20);
static_assert(offsetof(ProcessDeviceApertures, gpu_id) == 48);
static_assert(offsetof(CreateEventArgs, event_type) == 12 && offsetof(CreateEventArgs, event_slot_index) == 28);
static_assert(offsetof(MemoryExceptionData, va) == 16 && offsetof(MemoryExceptionData, ErrorType) == 28);
static_assert(offsetof(EventData, signal_event_data) == 0 && offsetof(EventData, kfd_event_data_ext) == 32 &&
              offsetof(EventData, event_id) == 40);
static_assert(offsetof(CreateQueueArgs, ring_size) == 32 && offsetof(CreateQueueArgs, queue_id) == 52 &&
              offsetof(CreateQueueArgs, ctl_stack_size) == 84 && offsetof(CreateQueueArgs, sdma_engine_id) == 88);
static_assert(offsetof(WaitEventsArgs, num_events) == 8 && offsetof(WaitEventsArgs, wait_result) == 20);

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
inline constexpr IoctlDescriptor<GetClockCountersArgs> kGetClockCounters{0x05, IoctlDirection::kReadWrite,
                                                                          "AMDKFD_IOC_GET_CLOCK_COUNTERS"};
static_assert(kGetClockCounters.request() == 0xC0284B05);
inline constexpr IoctlDescriptor<CreateQueueArgs> kCreateQueue{0x02, IoctlDirection::kReadWrite,
                                                                "AMDKFD_IOC_CREATE_QUEUE"};
inline constexpr IoctlDescriptor<DestroyQueueArgs> kDestroyQueue{0x03, IoctlDirection::kReadWrite,
                                                                  "AMDKFD_IOC_DESTROY_QUEUE"};
inline constexpr IoctlDescriptor<UpdateQueueArgs> kUpdateQueue{0x07, IoctlDirection::kWrite, "AMDKFD_IOC_UPDATE_QUEUE"};
inline constexpr IoctlDescriptor<CreateEventArgs> kCreateEvent{0x08, IoctlDirection::kReadWrite,
                                                                "AMDKFD_IOC_CREATE_EVENT"};
inline constexpr IoctlDescriptor<DestroyEventArgs> kDestroyEvent{0x09, IoctlDirection::kWrite,
                                                                  "AMDKFD_IOC_DESTROY_EVENT"};
inline constexpr IoctlDescriptor<SetEventArgs> kSetEvent{0x0A, IoctlDirection::kWrite, "AMDKFD_IOC_SET_EVENT"};
inline constexpr IoctlDescriptor<ResetEventArgs> kResetEvent{0x0B, IoctlDirection::kWrite, "AMDKFD_IOC_RESET_EVENT"};
inline constexpr IoctlDescriptor<WaitEventsArgs> kWaitEvents{0x0C, IoctlDirection::kReadWrite,
                                                              "AMDKFD_IOC_WAIT_EVENTS"};
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
static_assert(kCreateEvent.request() == 0xC0204B08);
// 1.17's CREATE_QUEUE struct (with sdma_engine_id) is 96 bytes; KFD 1.11's was 88 (0xC0584B02).
static_assert(kCreateQueue.request() == 0xC0604B02 && kDestroyQueue.request() == 0xC0084B03 &&
              kUpdateQueue.request() == 0x40184B07);
static_assert(kDestroyEvent.request() == 0x40084B09 && kSetEvent.request() == 0x40084B0A &&
              kResetEvent.request() == 0x40084B0B);
static_assert(kWaitEvents.request() == 0xC0184B0C);

// ---- device and queue controls (kfd_chardev.c: memory policy, scratch backing, tile config, trap handler, CU
// mask, GWS, XNACK mode, runtime enable), in one block ----

// KFD_IOC_CACHE_POLICY_*: SetMemoryPolicyArgs::default_policy / alternate_policy.
enum class CachePolicy : uint32_t { kCoherent = 0, kNoncoherent = 1 };
constexpr uint32_t ToRaw(CachePolicy p) { return static_cast<uint32_t>(p); }

struct SetMemoryPolicyArgs {
  uint64_t alternate_aperture_base;  // in: the APE1 aperture (pre-gfx9 only)
  uint64_t alternate_aperture_size;  // in
  uint32_t gpu_id;                   // in
  uint32_t default_policy;           // in: CachePolicy
  uint32_t alternate_policy;         // in: CachePolicy
  uint32_t pad;
};

struct SetScratchBackingVaArgs {
  uint64_t va_addr;  // in: the scratch backing range's address >> 16 (SH_HIDDEN_PRIVATE_BASE's unit)
  uint32_t gpu_id;   // in
  uint32_t pad;
};

struct GetTileConfigArgs {
  uint64_t tile_config_ptr;        // in: user pointer to uint32_t[num_tile_configs]
  uint64_t macro_tile_config_ptr;  // in: user pointer to uint32_t[num_macro_tile_configs]
  uint32_t num_tile_configs;       // in: capacity; out: entries written
  uint32_t num_macro_tile_configs;  // in: capacity; out: entries written
  uint32_t gpu_id;                 // in
  uint32_t gb_addr_config;         // out
  uint32_t num_banks;              // out (0 from gfx9 on)
  uint32_t num_ranks;              // out (0 from gfx9 on)
};

struct SetTrapHandlerArgs {
  uint64_t tba_addr;  // in: trap base address (the handler's code)
  uint64_t tma_addr;  // in: trap memory address (the handler's data)
  uint32_t gpu_id;    // in
  uint32_t pad;
};

// The kernel's cap on SetCuMaskArgs::num_cu_mask (max_num_cus): bits past it are ignored.
inline constexpr uint32_t kMaxCuMaskBits = 1024;

struct SetCuMaskArgs {
  uint32_t queue_id;     // in
  uint32_t num_cu_mask;  // in: bits, a non-zero multiple of 32
  uint64_t cu_mask_ptr;  // in: user pointer to uint32_t[num_cu_mask / 32]
};

struct AllocQueueGwsArgs {
  uint32_t queue_id;   // in
  uint32_t num_gws;    // in: 0 releases the queue's GWS
  uint32_t first_gws;  // out: always 0
  uint32_t pad;
};

struct SetXnackModeArgs {
  int32_t xnack_enabled;  // in: < 0 queries, 0 disables, > 0 enables; out: the mode (query)
};

// KFD_RUNTIME_ENABLE_MODE_*_MASK: RuntimeEnableArgs::mode_mask. Without kEnable the call disables.
inline constexpr uint32_t kRuntimeEnableModeEnableMask = 1u << 0;
inline constexpr uint32_t kRuntimeEnableModeTtmpSaveMask = 1u << 1;

struct RuntimeEnableArgs {
  uint64_t r_debug;            // in: user pointer to the runtime's r_debug, for a debugger
  uint32_t mode_mask;          // in: kRuntimeEnableMode*
  uint32_t capabilities_mask;  // in/out: what the KFD supports (mainline leaves it as passed)
};

#define HIPMEM_KFD_LAYOUT(T, size) static_assert(sizeof(T) == (size) && std::is_standard_layout_v<T>)
HIPMEM_KFD_LAYOUT(SetMemoryPolicyArgs, 32);
HIPMEM_KFD_LAYOUT(SetScratchBackingVaArgs, 16);
HIPMEM_KFD_LAYOUT(GetTileConfigArgs, 40);
HIPMEM_KFD_LAYOUT(SetTrapHandlerArgs, 24);
HIPMEM_KFD_LAYOUT(SetCuMaskArgs, 16);
HIPMEM_KFD_LAYOUT(AllocQueueGwsArgs, 16);
HIPMEM_KFD_LAYOUT(SetXnackModeArgs, 4);
HIPMEM_KFD_LAYOUT(RuntimeEnableArgs, 16);
#undef HIPMEM_KFD_LAYOUT
static_assert(offsetof(SetMemoryPolicyArgs, gpu_id) == 16 && offsetof(SetMemoryPolicyArgs, alternate_policy) == 24);
static_assert(offsetof(SetScratchBackingVaArgs, gpu_id) == 8);
static_assert(offsetof(GetTileConfigArgs, num_tile_configs) == 16 && offsetof(GetTileConfigArgs, gpu_id) == 24 &&
              offsetof(GetTileConfigArgs, num_ranks) == 36);
static_assert(offsetof(SetTrapHandlerArgs, gpu_id) == 16);
static_assert(offsetof(SetCuMaskArgs, num_cu_mask) == 4 && offsetof(SetCuMaskArgs, cu_mask_ptr) == 8);
static_assert(offsetof(AllocQueueGwsArgs, first_gws) == 8);
static_assert(offsetof(RuntimeEnableArgs, mode_mask) == 8 && offsetof(RuntimeEnableArgs, capabilities_mask) == 12);

inline constexpr IoctlDescriptor<SetMemoryPolicyArgs> kSetMemoryPolicy{0x04, IoctlDirection::kWrite,
                                                                        "AMDKFD_IOC_SET_MEMORY_POLICY"};
inline constexpr IoctlDescriptor<SetScratchBackingVaArgs> kSetScratchBackingVa{
    0x11, IoctlDirection::kReadWrite, "AMDKFD_IOC_SET_SCRATCH_BACKING_VA"};
inline constexpr IoctlDescriptor<GetTileConfigArgs> kGetTileConfig{0x12, IoctlDirection::kReadWrite,
                                                                    "AMDKFD_IOC_GET_TILE_CONFIG"};
inline constexpr IoctlDescriptor<SetTrapHandlerArgs> kSetTrapHandler{0x13, IoctlDirection::kWrite,
                                                                      "AMDKFD_IOC_SET_TRAP_HANDLER"};
inline constexpr IoctlDescriptor<SetCuMaskArgs> kSetCuMask{0x1A, IoctlDirection::kWrite, "AMDKFD_IOC_SET_CU_MASK"};
inline constexpr IoctlDescriptor<AllocQueueGwsArgs> kAllocQueueGws{0x1E, IoctlDirection::kReadWrite,
                                                                    "AMDKFD_IOC_ALLOC_QUEUE_GWS"};
inline constexpr IoctlDescriptor<SetXnackModeArgs> kSetXnackMode{0x21, IoctlDirection::kReadWrite,
                                                                  "AMDKFD_IOC_SET_XNACK_MODE"};
inline constexpr IoctlDescriptor<RuntimeEnableArgs> kRuntimeEnable{0x25, IoctlDirection::kReadWrite,
                                                                    "AMDKFD_IOC_RUNTIME_ENABLE"};

static_assert(kSetMemoryPolicy.request() == 0x40204B04 && kSetScratchBackingVa.request() == 0xC0104B11 &&
              kGetTileConfig.request() == 0xC0284B12 &&
              kSetTrapHandler.request() == 0x40184B13 && kSetCuMask.request() == 0x40104B1A &&
              kAllocQueueGws.request() == 0xC0104B1E && kSetXnackMode.request() == 0xC0044B21 &&
              kRuntimeEnable.request() == 0xC0104B25);

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

// Byte offsets of the HDP flush registers in the page an MMIO_REMAP buffer maps (uapi enum kfd_mmio_remap).
inline constexpr uint32_t kMmioRemapHdpMemFlushCntl = 0;
inline constexpr uint32_t kMmioRemapHdpRegFlushCntl = 4;

// The handle encoding the kernel uses: (gpu_id << 32) | idr id.
constexpr uint32_t HandleGpuId(uint64_t handle) { return static_cast<uint32_t>(handle >> 32); }
constexpr uint32_t HandleIdr(uint64_t handle) { return static_cast<uint32_t>(handle & 0xffffffffu); }
constexpr uint64_t MakeHandle(uint32_t gpu_id, uint32_t idr) { return (static_cast<uint64_t>(gpu_id) << 32) | idr; }

// ---- DMA-buf sharing (kfd_chardev.c: kfd_ioctl_get_dmabuf_info, _import_dmabuf, _export_dmabuf) ----
// A BO exported as a dma-buf fd can be imported by another KFD process (or another GPU) onto a VA of its
// own: the same pages, one more handle.

struct GetDmabufInfoArgs {
  uint64_t size;           // out: the buffer's size
  uint64_t metadata_ptr;   // in: where to copy the BO's metadata (0: do not)
  uint32_t metadata_size;  // in: room at metadata_ptr; out: the metadata's size
  uint32_t gpu_id;         // out: the GPU the buffer belongs to
  uint32_t flags;          // out: KFD_IOC_ALLOC_MEM_FLAGS_ VRAM or GTT, plus PUBLIC when CPU-visible
  uint32_t dmabuf_fd;      // in
};

struct ImportDmabufArgs {
  uint64_t va_addr;    // in: the GPU VA to give the buffer in this process
  uint64_t handle;     // out: the new BO handle, (gpu_id << 32) | idr
  uint32_t gpu_id;     // in: the GPU to import it on
  uint32_t dmabuf_fd;  // in
};

struct ExportDmabufArgs {
  uint64_t handle;     // in
  uint32_t flags;      // in: file flags for the new fd (O_CLOEXEC is the one that matters)
  uint32_t dmabuf_fd;  // out
};

static_assert(sizeof(GetDmabufInfoArgs) == 32 && std::is_standard_layout_v<GetDmabufInfoArgs>);
static_assert(sizeof(ImportDmabufArgs) == 24 && std::is_standard_layout_v<ImportDmabufArgs>);
static_assert(sizeof(ExportDmabufArgs) == 16 && std::is_standard_layout_v<ExportDmabufArgs>);
static_assert(offsetof(GetDmabufInfoArgs, metadata_size) == 16 && offsetof(GetDmabufInfoArgs, gpu_id) == 20 &&
              offsetof(GetDmabufInfoArgs, flags) == 24 && offsetof(GetDmabufInfoArgs, dmabuf_fd) == 28);
static_assert(offsetof(ImportDmabufArgs, handle) == 8 && offsetof(ImportDmabufArgs, gpu_id) == 16 &&
              offsetof(ImportDmabufArgs, dmabuf_fd) == 20);
static_assert(offsetof(ExportDmabufArgs, flags) == 8 && offsetof(ExportDmabufArgs, dmabuf_fd) == 12);

inline constexpr IoctlDescriptor<GetDmabufInfoArgs> kGetDmabufInfo{0x1C, IoctlDirection::kReadWrite,
                                                                   "AMDKFD_IOC_GET_DMABUF_INFO"};
inline constexpr IoctlDescriptor<ImportDmabufArgs> kImportDmabuf{0x1D, IoctlDirection::kReadWrite,
                                                                 "AMDKFD_IOC_IMPORT_DMABUF"};
inline constexpr IoctlDescriptor<ExportDmabufArgs> kExportDmabuf{0x24, IoctlDirection::kReadWrite,
                                                                 "AMDKFD_IOC_EXPORT_DMABUF"};
static_assert(kGetDmabufInfo.request() == 0xC0204B1C && kImportDmabuf.request() == 0xC0184B1D &&
              kExportDmabuf.request() == 0xC0104B24);

// ---- IPC share handles: the amdgpu-DKMS extension, NOT in the mainline kernel ----
// AMD's out-of-tree amdkfd (the amdgpu-dkms package, ROCK-Kernel-Driver's kfd_ipc.c) numbers its own requests
// from 0x80 (AMDKFD_COMMAND_START_2) so they never collide with mainline's. A mainline /dev/kfd has none of them:
// it answers an nr outside its table with -ENOTTY (older kernels: -EINVAL). libhsakmt's hsaKmtShareMemory and
// hsaKmtRegisterSharedHandle(ToNodes) issue these two. The export turns a buffer into 128 bits that name it
// machine-wide (the kernel keeps a global table of them); any process that knows them can import the buffer
// onto a VA of its own, and the buffer lives while any exporter or importer BO holds it.
// Layouts as in libhsakmt's bundled kfd_ioctl.h (current ROCR-Runtime); older copies call `flags` `pad`.
inline constexpr uint32_t kDkmsCommandStart = 0x80;  // AMDKFD_COMMAND_START_2
inline constexpr uint32_t kDkmsCommandEnd = 0x86;    // AMDKFD_COMMAND_END_2, exclusive; only 0x80/0x81 here
// Deliberate: 0x82 (the DKMS debugger's DBG_TRAP, deprecated since mainline took AMDKFD_IOC_DBG_TRAP at 0x26), 0x83
// (CROSS_MEMORY_COPY, deprecated), 0x84 (RLC_SPM) and 0x85 (PC_SAMPLE) answer -ENOTTY, as on a mainline kernel. AMD's
// libhsakmt 5.2.3 probes 0x82 and, refused, runs on without its debugger support (Debian's rocminfo and ROCr run on
// the simulator that way); current libhsakmt issues the mainline request.

struct IpcExportHandleArgs {
  uint64_t handle;           // in: the buffer to share
  uint32_t share_handle[4];  // out: the buffer's machine-wide name (the same on every export of one buffer)
  uint32_t gpu_id;           // in: the GPU whose process device holds `handle`
  uint32_t flags;            // in: opaque to the kernel, kept with the name and handed to every importer
};

struct IpcImportHandleArgs {
  uint64_t handle;           // out: the new BO of this process
  uint64_t va_addr;          // in: the GPU VA to give it here
  uint64_t mmap_offset;      // out: where to mmap it through the GPU's render node
  uint32_t share_handle[4];  // in
  uint32_t gpu_id;           // in: the GPU to import it on
  uint32_t flags;            // out: the first exporter's `flags`
};

static_assert(sizeof(IpcExportHandleArgs) == 32 && std::is_standard_layout_v<IpcExportHandleArgs>);
static_assert(sizeof(IpcImportHandleArgs) == 48 && std::is_standard_layout_v<IpcImportHandleArgs>);
static_assert(offsetof(IpcExportHandleArgs, share_handle) == 8 && offsetof(IpcExportHandleArgs, gpu_id) == 24 &&
              offsetof(IpcExportHandleArgs, flags) == 28);
static_assert(offsetof(IpcImportHandleArgs, va_addr) == 8 && offsetof(IpcImportHandleArgs, mmap_offset) == 16 &&
              offsetof(IpcImportHandleArgs, share_handle) == 24 && offsetof(IpcImportHandleArgs, gpu_id) == 40 &&
              offsetof(IpcImportHandleArgs, flags) == 44);

inline constexpr IoctlDescriptor<IpcImportHandleArgs> kIpcImportHandle{0x80, IoctlDirection::kReadWrite,
                                                                      "AMDKFD_IOC_IPC_IMPORT_HANDLE"};
inline constexpr IoctlDescriptor<IpcExportHandleArgs> kIpcExportHandle{0x81, IoctlDirection::kReadWrite,
                                                                      "AMDKFD_IOC_IPC_EXPORT_HANDLE"};
static_assert(kIpcImportHandle.request() == 0xC0304B80 && kIpcExportHandle.request() == 0xC0204B81);
static_assert(kIpcImportHandle.nr >= kDkmsCommandStart && kIpcExportHandle.nr < kDkmsCommandEnd);

}  // namespace hipmem::kfd_uapi

#endif  // HIPMEM_KFD_UAPI_KFD_IOCTL_H_
