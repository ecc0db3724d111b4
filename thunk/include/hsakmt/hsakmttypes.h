/* libhsakmt ("the thunk") public types, rewritten for hipmem.
 *
 * Names, enumerator values, field order, field widths and the 4-byte packing match ROCm's
 * libhsakmt as shipped in ROCR-Runtime (October 2024, libhsakmt/include/hsakmt/hsakmttypes.h), so
 * code written against upstream <hsakmt/hsakmttypes.h> compiles and links unchanged. Only the types
 * the hipmem thunk implements are declared. Plain C; the layouts are pinned by static asserts in
 * the header tests.
 */
#ifndef HIPMEM_HSAKMT_HSAKMTTYPES_H_
#define HIPMEM_HSAKMT_HSAKMTTYPES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Interface revision upstream advertises for this header family. */
#define HSAKMT_VERSION_MAJOR 0
#define HSAKMT_VERSION_MINOR 99

/* Marks an exported thunk entry point. Upstream leaves it empty on Linux and relies on the default
 * visibility; spelling the visibility out keeps the symbols exported under -fvisibility=hidden. */
#ifndef HSAKMTAPI
#if defined(__GNUC__)
#define HSAKMTAPI __attribute__((visibility("default")))
#else
#define HSAKMTAPI
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef uint8_t HSAuint8;
typedef int8_t HSAint8;
typedef uint16_t HSAuint16;
typedef int16_t HSAint16;
typedef uint32_t HSAuint32;
typedef int32_t HSAint32;
typedef uint64_t HSAuint64;
typedef int64_t HSAint64;

typedef void* HSA_HANDLE;
typedef HSAuint64 HSA_QUEUEID;

/* Sentinels that never name a real queue, process or node. */
#define INVALID_QUEUEID 0xFFFFFFFFFFFFFFFFULL
#define INVALID_PID 0xFFFFFFFF
#define INVALID_NODEID 0xFFFFFFFF

/* Upstream packs every structure of this header to 4 bytes, so a 64-bit member that follows a
 * 32-bit one is not padded (HsaMemoryProperties is 32 bytes, not 40). Must stay in force until the
 * matching pop at the end of the file. */
#pragma pack(push, hsakmttypes_h, 4)

/* Result of every hsaKmt* call. */
typedef enum _HSAKMT_STATUS {
  HSAKMT_STATUS_SUCCESS = 0,
  HSAKMT_STATUS_ERROR = 1,           /* failure with no more specific code */
  HSAKMT_STATUS_DRIVER_MISMATCH = 2, /* KFD interface major version is not the one we speak */
  HSAKMT_STATUS_INVALID_PARAMETER = 3,
  HSAKMT_STATUS_INVALID_HANDLE = 4,
  HSAKMT_STATUS_INVALID_NODE_UNIT = 5,
  HSAKMT_STATUS_NO_MEMORY = 6,
  HSAKMT_STATUS_BUFFER_TOO_SMALL = 7,
  HSAKMT_STATUS_NOT_IMPLEMENTED = 10,
  HSAKMT_STATUS_NOT_SUPPORTED = 11,
  HSAKMT_STATUS_UNAVAILABLE = 12,
  HSAKMT_STATUS_OUT_OF_RESOURCES = 13,
  HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED = 20, /* /dev/kfd is not open */
  HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR = 21,
  HSAKMT_STATUS_KERNEL_ALREADY_OPENED = 22, /* second open: refcount bumped, treated as success */
  HSAKMT_STATUS_HSAMMU_UNAVAILABLE = 23,
  HSAKMT_STATUS_WAIT_FAILURE = 30,
  HSAKMT_STATUS_WAIT_TIMEOUT = 31,
  HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED = 35,
  HSAKMT_STATUS_MEMORY_NOT_REGISTERED = 36,
  HSAKMT_STATUS_MEMORY_ALIGNMENT = 37,
} HSAKMT_STATUS;

/* KFD ioctl interface version (AMDKFD_IOC_GET_VERSION). */
typedef struct _HsaVersionInfo {
  HSAuint32 KernelInterfaceMajorVersion;
  HSAuint32 KernelInterfaceMinorVersion;
} HsaVersionInfo;

/* Snapshot header from hsaKmtAcquireSystemProperties (sysfs topology/system_properties). */
typedef struct _HsaSystemProperties {
  HSAuint32 NumNodes; /* CPU and GPU nodes; every other query is per node */
  HSAuint32 PlatformOem;
  HSAuint32 PlatformId;
  HSAuint32 PlatformRev;
} HsaSystemProperties;

/* GFX IP of a node: gfx90a is Major 9, Minor 0, Stepping 10. */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int uCode : 10; /* command processor firmware version */
    unsigned int Major : 6;
    unsigned int Minor : 8;
    unsigned int Stepping : 8;
  } ui32;
} HSA_ENGINE_ID;

/* Firmware versions of the node's other engines. */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int uCodeSDMA : 10;
    unsigned int uCodeRes : 10;
    unsigned int Reserved : 12;
  };
} HSA_ENGINE_VERSION;

/* Node capability bits (sysfs "capability"). */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int HotPluggable : 1;
    unsigned int HSAMMUPresent : 1;
    unsigned int SharedWithGraphics : 1;
    unsigned int QueueSizePowerOfTwo : 1;
    unsigned int QueueSize32bit : 1;
    unsigned int QueueIdleEvent : 1;
    unsigned int VALimit : 1;
    unsigned int WatchPointsSupported : 1;
    unsigned int WatchPointsTotalBits : 4; /* log2 of the watch point count */
    unsigned int DoorbellType : 2;
    unsigned int AQLQueueDoubleMap : 1;
    unsigned int DebugTrapSupported : 1;
    unsigned int WaveLaunchTrapOverrideSupported : 1;
    unsigned int WaveLaunchModeSupported : 1;
    unsigned int PreciseMemoryOperationsSupported : 1;
    unsigned int DEPRECATED_SRAM_EDCSupport : 1;
    unsigned int Mem_EDCSupport : 1;
    unsigned int RASEventNotify : 1;
    unsigned int ASICRevision : 4;
    unsigned int SRAM_EDCSupport : 1;
    unsigned int SVMAPISupported : 1; /* AMDKFD_IOC_SVM works on this node */
    unsigned int CoherentHostAccess : 1;
    unsigned int DebugSupportedFirmware : 1;
    unsigned int PreciseALUOperationsSupported : 1;
    unsigned int Reserved : 1;
  } ui32;
} HSA_CAPABILITY;

/* Debugger-facing node properties (sysfs "debug_prop"). */
typedef union {
  HSAuint64 Value;
  struct {
    HSAuint64 WatchAddrMaskLoBit : 4;
    HSAuint64 WatchAddrMaskHiBit : 6;
    HSAuint64 DispatchInfoAlwaysValid : 1;
    HSAuint64 AddressWatchpointShareKind : 1;
    HSAuint64 Reserved : 52;
  };
} HSA_DEBUG_PROPERTIES;

/* Length, in elements, of the node name arrays. */
#define HSA_PUBLIC_NAME_SIZE 64

/* One topology node, CPU or GPU (hsaKmtGetNodeProperties). Layout is ABI: do not reorder. */
typedef struct _HsaNodeProperties {
  HSAuint32 NumCPUCores;      /* 0 on a discrete GPU node */
  HSAuint32 NumFComputeCores; /* SIMD count; 0 on a CPU node */
  HSAuint32 NumMemoryBanks;
  HSAuint32 NumCaches;
  HSAuint32 NumIOLinks;
  HSAuint32 CComputeIdLo;
  HSAuint32 FComputeIdLo;
  HSA_CAPABILITY Capability;
  HSAuint32 MaxWavesPerSIMD;
  HSAuint32 LDSSizeInKB;
  HSAuint32 GDSSizeInKB;
  HSAuint32 WaveFrontSize;
  HSAuint32 NumShaderBanks;
  HSAuint32 NumArrays;
  HSAuint32 NumCUPerArray;
  HSAuint32 NumSIMDPerCU;
  HSAuint32 MaxSlotsScratchCU;
  HSA_ENGINE_ID EngineId;
  HSA_ENGINE_ID OverrideEngineId; /* set from HSA_OVERRIDE_GFX_VERSION */
  HSAuint16 VendorId;
  HSAuint16 DeviceId;
  HSAuint32 LocationId; /* PCI bus/device/function */
  HSAuint64 LocalMemSize;
  HSAuint32 MaxEngineClockMhzFCompute;
  HSAuint32 MaxEngineClockMhzCCompute;
  HSAint32 DrmRenderMinor;                       /* /dev/dri/renderD<minor> */
  HSAuint16 MarketingName[HSA_PUBLIC_NAME_SIZE]; /* UTF-16 */
  HSAuint8 AMDName[HSA_PUBLIC_NAME_SIZE];        /* ASCII */
  HSA_ENGINE_VERSION uCodeEngineVersions;
  HSA_DEBUG_PROPERTIES DebugProperties;
  HSAuint64 HiveID; /* XGMI hive; 0 outside a hive */
  HSAuint32 NumSdmaEngines;
  HSAuint32 NumSdmaXgmiEngines;
  HSAuint8 NumSdmaQueuesPerEngine;
  HSAuint8 NumCpQueues;
  HSAuint8 NumGws;
  HSAuint8 Integrated; /* 1 on an APU */
  HSAuint32 Domain;    /* PCI domain */
  HSAuint64 UniqueID;
  HSAuint32 VGPRSizePerCU;
  HSAuint32 SGPRSizePerCU;
  HSAuint32 NumXcc;
  HSAuint32 KFDGpuID; /* the gpu_id every KFD ioctl takes */
  HSAuint32 FamilyID;
} HsaNodeProperties;

/* What a memory bank is (sysfs mem_banks/N/properties heap_type). */
typedef enum _HSA_HEAPTYPE {
  HSA_HEAPTYPE_SYSTEM = 0,
  HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC = 1,  /* CPU-visible VRAM */
  HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE = 2, /* VRAM beyond the BAR */
  HSA_HEAPTYPE_GPU_GDS = 3,
  HSA_HEAPTYPE_GPU_LDS = 4,
  HSA_HEAPTYPE_GPU_SCRATCH = 5,
  HSA_HEAPTYPE_DEVICE_SVM = 6,
  HSA_HEAPTYPE_MMIO_REMAP = 7,
  HSA_HEAPTYPE_NUMHEAPTYPES,
  HSA_HEAPTYPE_SIZE = 0xFFFFFFFF /* forces a 32-bit enum */
} HSA_HEAPTYPE;

typedef union {
  HSAuint32 MemoryProperty;
  struct {
    unsigned int HotPluggable : 1;
    unsigned int NonVolatile : 1;
    unsigned int Reserved : 30;
  } ui32;
} HSA_MEMORYPROPERTY;

/* One memory bank of a node (hsaKmtGetNodeMemoryProperties). */
typedef struct _HsaMemoryProperties {
  HSA_HEAPTYPE HeapType;
  union {
    HSAuint64 SizeInBytes;
    struct {
      HSAuint32 SizeInBytesLow;
      HSAuint32 SizeInBytesHigh;
    } ui32;
  };
  HSA_MEMORYPROPERTY Flags;
  HSAuint32 Width;          /* bus width in bits */
  HSAuint32 MemoryClockMax; /* MHz */
  HSAuint64 VirtualBaseAddress;
} HsaMemoryProperties;

/* Cache description; SiblingMap marks the processors sharing the cache. */
#define HSA_CPU_SIBLINGS 256
#define HSA_PROCESSORID_ALL 0xFFFFFFFF

typedef union {
  HSAuint32 Value;
  struct {
    unsigned int Data : 1;
    unsigned int Instruction : 1;
    unsigned int CPU : 1;
    unsigned int HSACU : 1;
    unsigned int Reserved : 28;
  } ui32;
} HsaCacheType;

typedef struct _HaCacheProperties {
  HSAuint32 ProcessorIdLow;
  HSAuint32 CacheLevel;
  HSAuint32 CacheSize;
  HSAuint32 CacheLineSize;
  HSAuint32 CacheLinesPerTag;
  HSAuint32 CacheAssociativity;
  HSAuint32 CacheLatency; /* ns */
  HsaCacheType CacheType;
  HSAuint32 SiblingMap[HSA_CPU_SIBLINGS];
} HsaCacheProperties;

/* What connects two nodes (sysfs io_links/N/properties type). */
typedef enum _HSA_IOLINKTYPE {
  HSA_IOLINKTYPE_UNDEFINED = 0,
  HSA_IOLINKTYPE_HYPERTRANSPORT = 1,
  HSA_IOLINKTYPE_PCIEXPRESS = 2, /* a GPU's link to its CPU */
  HSA_IOLINKTYPE_AMBA = 3,
  HSA_IOLINKTYPE_MIPI = 4,
  HSA_IOLINK_TYPE_QPI_1_1 = 5,
  HSA_IOLINK_TYPE_RESERVED1 = 6,
  HSA_IOLINK_TYPE_RESERVED2 = 7,
  HSA_IOLINK_TYPE_RAPID_IO = 8,
  HSA_IOLINK_TYPE_INFINIBAND = 9,
  HSA_IOLINK_TYPE_RESERVED3 = 10,
  HSA_IOLINK_TYPE_XGMI = 11, /* GPU to GPU within a hive */
  HSA_IOLINK_TYPE_XGOP = 12,
  HSA_IOLINK_TYPE_GZ = 13,
  HSA_IOLINK_TYPE_ETHERNET_RDMA = 14,
  HSA_IOLINK_TYPE_RDMA_OTHER = 15,
  HSA_IOLINK_TYPE_OTHER = 16,
  HSA_IOLINKTYPE_NUMIOLINKTYPES,
  HSA_IOLINKTYPE_SIZE = 0xFFFFFFFF /* forces a 32-bit enum */
} HSA_IOLINKTYPE;

/* Link flags (sysfs io_links flags, the kernel's CRAT_IOLINK_FLAGS_*). */
typedef union {
  HSAuint32 LinkProperty;
  struct {
    unsigned int Override : 1; /* the other flags are valid */
    unsigned int NonCoherent : 1;
    unsigned int NoAtomics32bit : 1;
    unsigned int NoAtomics64bit : 1;
    unsigned int NoPeerToPeerDMA : 1;
    unsigned int Reserved : 27;
  } ui32;
} HSA_LINKPROPERTY;

/* One directed io link of a node (hsaKmtGetNodeIoLinkProperties). */
typedef struct _HsaIoLinkProperties {
  HSA_IOLINKTYPE IoLinkType;
  HSAuint32 VersionMajor;
  HSAuint32 VersionMinor;
  HSAuint32 NodeFrom;
  HSAuint32 NodeTo;
  HSAuint32 Weight;           /* relative cost: 20 per PCIe hop, 15 per XGMI hop */
  HSAuint32 MinimumLatency;   /* ns */
  HSAuint32 MaximumLatency;   /* ns */
  HSAuint32 MinimumBandwidth; /* MB/s */
  HSAuint32 MaximumBandwidth; /* MB/s */
  HSAuint32 RecTransferSize;  /* bytes */
  HSAuint32 RecSdmaEngIdMask;
  HSA_LINKPROPERTY Flags;
} HsaIoLinkProperties;

/* Allocation attributes for hsaKmtAllocMemory(Align). Value is the raw 32-bit word; bit 0 is
 * NonPaged and the fields follow in declaration order. */
typedef struct _HsaMemFlags {
  union {
    struct {
      unsigned int NonPaged : 1;    /* pinned system memory or VRAM */
      unsigned int CachePolicy : 2; /* HSA_CACHING_TYPE */
      unsigned int ReadOnly : 1;
      unsigned int PageSize : 2;     /* HSA_PAGE_SIZE */
      unsigned int HostAccess : 1;   /* CPU-mappable */
      unsigned int NoSubstitute : 1; /* never fall back to another kind of memory */
      unsigned int GDSMemory : 1;
      unsigned int Scratch : 1;
      unsigned int AtomicAccessFull : 1;
      unsigned int AtomicAccessPartial : 1;
      unsigned int ExecuteAccess : 1;
      unsigned int CoarseGrain : 1;
      unsigned int AQLQueueMemory : 1; /* ring buffer: the VA is double-mapped */
      unsigned int FixedAddress : 1;   /* *MemoryAddress is an input */
      unsigned int NoNUMABind : 1;
      unsigned int Uncached : 1;
      unsigned int NoAddress : 1;   /* VRAM handle without a virtual address */
      unsigned int OnlyAddress : 1; /* virtual address without backing */
      unsigned int ExtendedCoherent : 1;
      unsigned int GTTAccess : 1;
      unsigned int Contiguous : 1; /* physically contiguous VRAM (KFD 1.16+) */
      unsigned int Reserved : 9;
    } ui32;
    HSAuint32 Value;
  };
} HsaMemFlags;

/* Mapping attributes for hsaKmtMapMemoryToGPUNodes. */
typedef struct _HsaMemMapFlags {
  union {
    struct {
      unsigned int Reserved1 : 1;
      unsigned int CachePolicy : 2; /* HSA_CACHING_TYPE */
      unsigned int ReadOnly : 1;
      unsigned int PageSize : 2; /* HSA_PAGE_SIZE hint */
      unsigned int HostAccess : 1;
      unsigned int Migrate : 1; /* hint: may migrate to the mapping GPU's memory */
      unsigned int Probe : 1;   /* hint: a map of this range is coming */
      unsigned int Reserved : 23;
    } ui32;
    HSAuint32 Value;
  };
} HsaMemMapFlags;

typedef enum _HSA_CACHING_TYPE {
  HSA_CACHING_CACHED = 0,
  HSA_CACHING_NONCACHED = 1,
  HSA_CACHING_WRITECOMBINED = 2,
  HSA_CACHING_RESERVED = 3,
  HSA_CACHING_NUM_CACHING,
  HSA_CACHING_SIZE = 0xFFFFFFFF
} HSA_CACHING_TYPE;

typedef enum _HSA_PAGE_SIZE {
  HSA_PAGE_SIZE_4KB = 0,
  HSA_PAGE_SIZE_64KB = 1,
  HSA_PAGE_SIZE_2MB = 2,
  HSA_PAGE_SIZE_1GB = 3,
} HSA_PAGE_SIZE;

/* What hsaKmtQueryPointerInfo found behind a pointer. */
typedef enum _HSA_POINTER_TYPE {
  HSA_POINTER_UNKNOWN = 0,
  HSA_POINTER_ALLOCATED = 1,           /* hsaKmtAllocMemory (except scratch) */
  HSA_POINTER_REGISTERED_USER = 2,     /* hsaKmtRegisterMemory* user pointer */
  HSA_POINTER_REGISTERED_GRAPHICS = 3, /* hsaKmtRegisterGraphicsHandleToNodes (not in hipmem) */
  HSA_POINTER_REGISTERED_SHARED = 4,   /* hsaKmtRegisterSharedHandle, IPC (not in hipmem) */
  HSA_POINTER_RESERVED_ADDR = 5        /* address-only reservation (not in hipmem) */
} HSA_POINTER_TYPE;

/* What hsaKmtQueryPointerInfo reports. RegisteredNodes and MappedNodes point to storage the thunk keeps
 * (hipmem: until the process exits); they are NULL when their count is 0. */
typedef struct _HsaPointerInfo {
  HSA_POINTER_TYPE Type;
  HSAuint32 Node;              /* node of the memory (registered: of the GPU holding the user BO) */
  HsaMemFlags MemFlags;        /* as allocated (registered: CoarseGrain/ExtendedCoherent) */
  void* CPUAddress;            /* start for CPU access (registered: the pointer as registered) */
  HSAuint64 GPUAddress;        /* start for GPU access (at offset 20: 4-byte packing) */
  HSAuint64 SizeInBytes;       /* as allocated or registered */
  HSAuint32 NRegisteredNodes;  /* nodes given to hsaKmtRegisterMemoryToNodes */
  HSAuint32 NMappedNodes;      /* nodes whose GPU page tables map it */
  const HSAuint32* RegisteredNodes;
  const HSAuint32* MappedNodes;
  void* UserData;              /* hsaKmtSetMemoryUserData's */
} HsaPointerInfo;

/* ---- Events (hsaKmtCreateEvent ... hsaKmtWaitOnMultipleEvents) ---- */

typedef enum _HSA_DEVICE {
  HSA_DEVICE_CPU = 0,
  HSA_DEVICE_GPU = 1,
  MAX_HSA_DEVICE = 2
} HSA_DEVICE;

/* What an event reports; the values are the KFD's KFD_IOC_EVENT_*. SIGNAL and DEBUG_EVENT events are
 * set by user mode or a GPU; the others ("system" events) only by the KFD. */
typedef enum _HSA_EVENTTYPE {
  HSA_EVENTTYPE_SIGNAL = 0,            /* user-mode generated GPU signal */
  HSA_EVENTTYPE_NODECHANGE = 1,        /* HSA node change (attach/detach) */
  HSA_EVENTTYPE_DEVICESTATECHANGE = 2, /* HSA device state change (start/stop) */
  HSA_EVENTTYPE_HW_EXCEPTION = 3,      /* GPU shader exception event */
  HSA_EVENTTYPE_SYSTEM_EVENT = 4,      /* GPU SYSCALL with parameter info */
  HSA_EVENTTYPE_DEBUG_EVENT = 5,       /* GPU signal for debugging */
  HSA_EVENTTYPE_PROFILE_EVENT = 6,     /* GPU signal for profiling */
  HSA_EVENTTYPE_QUEUE_EVENT = 7,       /* GPU signal queue idle state (EOP pm4) */
  HSA_EVENTTYPE_MEMORY = 8,            /* GPU memory access fault or memory subsystem issue */
  HSA_EVENTTYPE_MAXID,
  HSA_EVENTTYPE_TYPE_SIZE = 0xFFFFFFFF
} HSA_EVENTTYPE;

/* Kinds of pending debug events. */
typedef enum _HSA_DEBUG_EVENT_TYPE {
  HSA_DEBUG_EVENT_TYPE_NONE = 0,
  HSA_DEBUG_EVENT_TYPE_TRAP = 1,
  HSA_DEBUG_EVENT_TYPE_VMFAULT = 2,
  HSA_DEBUG_EVENT_TYPE_TRAP_VMFAULT = 3
} HSA_DEBUG_EVENT_TYPE;

typedef HSAuint32 HSA_EVENTID;

/* User-mode data attached to an event. */
typedef struct _HsaSyncVar {
  union {
    void* UserData;             /* pointer to user mode data */
    HSAuint64 UserDataPtrValue; /* 64-bit compatibility of value */
  } SyncVar;
  HSAuint64 SyncVarSize;
} HsaSyncVar;

typedef enum _HSA_EVENTTYPE_NODECHANGE_FLAGS {
  HSA_EVENTTYPE_NODECHANGE_ADD = 0,
  HSA_EVENTTYPE_NODECHANGE_REMOVE = 1,
  HSA_EVENTTYPE_NODECHANGE_SIZE = 0xFFFFFFFF
} HSA_EVENTTYPE_NODECHANGE_FLAGS;

typedef struct _HsaNodeChange {
  HSA_EVENTTYPE_NODECHANGE_FLAGS Flags; /* HSA node added/removed on the platform */
} HsaNodeChange;

typedef enum _HSA_EVENTTYPE_DEVICESTATECHANGE_FLAGS {
  HSA_EVENTTYPE_DEVICESTATUSCHANGE_START = 0, /* device started (and available) */
  HSA_EVENTTYPE_DEVICESTATUSCHANGE_STOP = 1,  /* device stopped (i.e. unavailable) */
  HSA_EVENTTYPE_DEVICESTATUSCHANGE_SIZE = 0xFFFFFFFF
} HSA_EVENTTYPE_DEVICESTATECHANGE_FLAGS;

typedef struct _HsaDeviceStateChange {
  HSAuint32 NodeId; /* F-NUMA node that contains the device */
  HSA_DEVICE Device;
  HSA_EVENTTYPE_DEVICESTATECHANGE_FLAGS Flags;
} HsaDeviceStateChange;

typedef enum _HSA_EVENTID_MEMORYFLAGS {
  HSA_EVENTID_MEMORY_RECOVERABLE = 0,    /* recoverable after page adjustment */
  HSA_EVENTID_MEMORY_FATAL_PROCESS = 1,  /* the process context must be destroyed */
  HSA_EVENTID_MEMORY_FATAL_VM = 2,       /* every GPU VA context must be destroyed */
} HSA_EVENTID_MEMORYFLAGS;

/* Why a memory access failed. */
typedef struct _HsaAccessAttributeFailure {
  unsigned int NotPresent : 1; /* page not present or supervisor privilege */
  unsigned int ReadOnly : 1;   /* write access to a read-only page */
  unsigned int NoExecute : 1;  /* execute access to a page marked NX */
  unsigned int GpuAccess : 1;  /* host access only */
  unsigned int ECC : 1;        /* RAS ECC failure */
  unsigned int Imprecise : 1;  /* the exact fault address is unknown */
  unsigned int ErrorType : 3;  /* 0 no RAS error, 1 ECC_SRAM, 2 Link_SYNFLOOD (poison), 3 GPU hang */
  unsigned int Reserved : 23;  /* must be 0 */
} HsaAccessAttributeFailure;

/* What an HSA_EVENTTYPE_MEMORY event reports. */
typedef struct _HsaMemoryAccessFault {
  HSAuint32 NodeId;         /* node of the device where the access occurred */
  HSAuint64 VirtualAddress; /* the faulting address (at offset 4: 4-byte packing) */
  HsaAccessAttributeFailure Failure;
  HSA_EVENTID_MEMORYFLAGS Flags;
} HsaMemoryAccessFault;

typedef enum _HSA_EVENTID_HW_EXCEPTION_CAUSE {
  HSA_EVENTID_HW_EXCEPTION_GPU_HANG = 0, /* GPU hang */
  HSA_EVENTID_HW_EXCEPTION_ECC = 1,      /* SRAM ECC error */
} HSA_EVENTID_HW_EXCEPTION_CAUSE;

/* What an HSA_EVENTTYPE_HW_EXCEPTION event reports. */
typedef struct _HsaHwException {
  HSAuint32 NodeId; /* node where the exception occurred */
  HSAuint32 ResetType;
  HSAuint32 MemoryLost;
  HSA_EVENTID_HW_EXCEPTION_CAUSE ResetCause;
} HsaHwException;

typedef struct _HsaEventData {
  HSA_EVENTTYPE EventType;
  union {
    HsaSyncVar SyncVar;                     /* HSA_EVENTTYPE_SIGNAL and other events */
    HsaNodeChange NodeChangeState;          /* HSA_EVENTTYPE_NODECHANGE */
    HsaDeviceStateChange DeviceState;       /* HSA_EVENTTYPE_DEVICESTATECHANGE */
    HsaMemoryAccessFault MemoryAccessFault; /* HSA_EVENTTYPE_MEMORY */
    HsaHwException HwException;             /* HSA_EVENTTYPE_HW_EXCEPTION */
  } EventData;
  /* Internal to the KFD and the thunk. */
  HSAuint64 HWData1; /* the KFD event id */
  HSAuint64 HWData2; /* signal events: address of the event's slot in the event page, else 0 */
  HSAuint32 HWData3; /* the KFD's event_trigger_data */
} HsaEventData;

/* What hsaKmtCreateEvent creates. */
typedef struct _HsaEventDescriptor {
  HSA_EVENTTYPE EventType;
  HSAuint32 NodeId;   /* node of the GPU that is the event source */
  HsaSyncVar SyncVar; /* user mode syncvar data; UserDataPtrValue may be 0 */
} HsaEventDescriptor;

/* One event, allocated by hsaKmtCreateEvent and freed by hsaKmtDestroyEvent. */
typedef struct _HsaEvent {
  HSA_EVENTID EventId;
  HsaEventData EventData;
} HsaEvent;

typedef enum _HsaEventTimeout {
  HSA_EVENTTIMEOUT_IMMEDIATE = 0,
  HSA_EVENTTIMEOUT_INFINITE = 0xFFFFFFFF
} HsaEventTimeOut;

/* ---- queues ---- */

typedef enum _HSA_QUEUE_PRIORITY {
  HSA_QUEUE_PRIORITY_MINIMUM = -3,
  HSA_QUEUE_PRIORITY_LOW = -2,
  HSA_QUEUE_PRIORITY_BELOW_NORMAL = -1,
  HSA_QUEUE_PRIORITY_NORMAL = 0,
  HSA_QUEUE_PRIORITY_ABOVE_NORMAL = 1,
  HSA_QUEUE_PRIORITY_HIGH = 2,
  HSA_QUEUE_PRIORITY_MAXIMUM = 3,
  HSA_QUEUE_PRIORITY_NUM_PRIORITY,
  HSA_QUEUE_PRIORITY_SIZE = 0xFFFFFFFF
} HSA_QUEUE_PRIORITY;

typedef enum _HSA_QUEUE_TYPE {
  HSA_QUEUE_COMPUTE = 1,            /* PM4 compute */
  HSA_QUEUE_SDMA = 2,               /* PCIe-optimised SDMA */
  HSA_QUEUE_MULTIMEDIA_DECODE = 3,  /* reserved */
  HSA_QUEUE_MULTIMEDIA_ENCODE = 4,  /* reserved */
  HSA_QUEUE_SDMA_XGMI = 5,          /* XGMI-optimised SDMA */
  HSA_QUEUE_SDMA_BY_ENG_ID = 6,     /* SDMA on the engine hsaKmtCreateQueueExt names */
  HSA_QUEUE_COMPUTE_OS = 11,
  HSA_QUEUE_SDMA_OS = 12,
  HSA_QUEUE_MULTIMEDIA_DECODE_OS = 13,
  HSA_QUEUE_MULTIMEDIA_ENCODE_OS = 14,
  HSA_QUEUE_COMPUTE_AQL = 21,       /* HSA AQL packets */
  HSA_QUEUE_DMA_AQL = 22,
  HSA_QUEUE_DMA_AQL_XGMI = 23,
  HSA_QUEUE_TYPE_SIZE = 0xFFFFFFFF
} HSA_QUEUE_TYPE;

typedef HSAuint64 HSA_QUEUEID;

/* In: the read/write pointer addresses of an AQL queue. Out: the queue id and its doorbell (and, for
 * other queue types, the pointers the library keeps for the queue). */
typedef struct _HsaQueueResource {
  HSA_QUEUEID QueueId;
  union {
    HSAuint32* Queue_DoorBell;
    HSAuint64* Queue_DoorBell_aql;
    HSAuint64 QueueDoorBell;
  };
  union {
    HSAuint32* Queue_write_ptr;
    HSAuint64* Queue_write_ptr_aql;
    HSAuint64 QueueWptrValue;
  };
  union {
    HSAuint32* Queue_read_ptr;
    HSAuint64* Queue_read_ptr_aql;
    HSAuint64 QueueRptrValue;
  };
  volatile HSAint64* ErrorReason; /* exception bits signal payload */
} HsaQueueResource;

/* ---- Added by the sdma branch (hsaKmtGetClockCounters); upstream layout, kept apart for an easy merge ---- */

/* The clocks hsaKmtGetClockCounters reads together: the GPU's counter and two CPU clocks (nanoseconds). */
typedef struct _HsaClockCounters {
  HSAuint64 GPUClockCounter;
  HSAuint64 CPUClockCounter;
  HSAuint64 SystemClockCounter;
  HSAuint64 SystemClockFrequencyHz;
} HsaClockCounters;

/* ---- end of the sdma branch's block ---- */

#pragma pack(pop, hsakmttypes_h)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPMEM_HSAKMT_HSAKMTTYPES_H_ */
