/* libhsakmt ("the thunk") public types, rewritten for hipmem.
 *
 * Names, enumerator values, field order, field widths and the 4-byte packing match ROCm's libhsakmt
 * as last shipped standalone in ROCR-Runtime (libhsakmt/include/hsakmt/hsakmttypes.h, 2025: with
 * NumNeuralCores, Capability2 and the CWSR sizes in HsaNodeProperties), so code written against upstream
 * <hsakmt/hsakmttypes.h> compiles unchanged. Every upstream type is declared, including those of calls
 * hipmem answers with HSAKMT_STATUS_NOT_SUPPORTED (debugger, counters, SVM, SMI, PC sampling). Later
 * rocm-systems additions for Windows/WDDM and the experimental DRM-handle calls are not carried, except the
 * fields appended to HsaNodeProperties and HsaCacheProperties (rocm-systems 24bf20d3), which a drop-in
 * libhsakmt.so.1 needs for upstream's struct sizes. Plain C;
 * the layouts are pinned by static asserts in the header tests.
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
    unsigned int PerQueueResetSupported : 1;
  } ui32;
} HSA_CAPABILITY;

/* More node capability bits (sysfs "capability2"). */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int PerSDMAQueueResetSupported : 1;
    unsigned int AqlEmulationPm4_ : 1; /* AQL packets emulated through PM4 */
    unsigned int Reserved : 30;
  } ui32;
} HSA_CAPABILITY2;

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
  HSAuint32 NumNeuralCores;   /* AIE cores; 0 on CPU and GPU nodes */
  HSAuint32 NumMemoryBanks;
  HSAuint32 NumCaches;
  HSAuint32 NumIOLinks;
  HSAuint32 CComputeIdLo;
  HSAuint32 FComputeIdLo;
  HSA_CAPABILITY Capability;
  HSA_CAPABILITY2 Capability2;
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
  HSAuint32 CwsrSize;     /* context save/restore area per queue, bytes */
  HSAuint32 CtlStackSize; /* control stack within it, bytes */
  /* rocm-systems' later tail (Windows' adapter LUID and clock, fabric handles): carried so the struct has
     upstream's size; hipmem answers 0 (none). */
  HSAuint32 LuidLowPart;
  HSAuint32 LuidHighPart;
  HSAuint64 WallClockKHz;
  HSAuint32 FabricHandleSupported;
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
  /* rocm-systems' later addition (sysfs persisting_cache_size_max, which no kernel writes yet): 0. Carried because
     hsaKmtGetNodeCacheProperties fills an array, whose stride must be upstream's. */
  HSAuint32 PersistingCacheSizeMax;
} HsaCacheProperties;

/* CPU siblings of a compute unit (declared upstream; no call fills it). */
typedef struct _HsaCComputeProperties {
  HSAuint32 SiblingMap[HSA_CPU_SIBLINGS];
} HsaCComputeProperties;

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
      unsigned int ExecuteBlit : 1; /* holds a blit kernel object */
      unsigned int QueueObject : 1; /* an AQL queue object the CPU reads (Windows) */
      unsigned int Reserved : 7;
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

/* What hsaKmtRegisterGraphicsHandleToNodes reports about an imported graphics buffer. */
typedef struct _HsaGraphicsResourceInfo {
  void* MemoryAddress;           /* for hsaKmtMapMemoryToGPU(Nodes) */
  HSAuint64 SizeInBytes;
  const void* Metadata;          /* owned by the thunk */
  HSAuint32 MetadataSizeInBytes;
  HSAuint32 NodeId;              /* the GPU that exported the buffer */
} HsaGraphicsResourceInfo;

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
  HSA_POINTER_REGISTERED_GRAPHICS = 3, /* hsaKmtRegisterGraphicsHandleToNodes (a dma-buf import) */
  HSA_POINTER_REGISTERED_SHARED = 4,   /* hsaKmtRegisterSharedHandle(ToNodes): an IPC import */
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

/* Header at offset 0 of a queue's (page-aligned) user context save area; the KFD updates it on each
 * context save. The control stack copy follows it, then the page-aligned wave state, then the
 * 64-byte-aligned debugger area. */
typedef struct {
  HSAuint32 ControlStackOffset; /* to the top of the saved control stack */
  HSAuint32 ControlStackSize;
  HSAuint32 WaveStateOffset;
  HSAuint32 WaveStateSize;
  HSAuint32 DebugOffset;
  HSAuint32 DebugSize;
  volatile HSAint64* ErrorReason; /* signal payload for the error reason bits */
  HSAuint32 ErrorEventId;         /* event used to signal exceptions */
  HSAuint32 Reserved1;
} HsaUserContextSaveAreaHeader;

/* What hsaKmtGetQueueInfo reports about a queue. */
typedef struct {
  HSAuint32 QueueDetailError;  /* hardware-specific error state */
  HSAuint32 QueueTypeExtended; /* hardware-specific type; 0 when unknown */
  HSAuint32 NumCUAssigned;     /* bits in *CUMaskInfo, a multiple of 32; 0 when unknown */
  HSAuint32* CUMaskInfo;       /* CU mask bit array, NULL when unknown */
  HSAuint32* UserContextSaveArea;
  HSAuint64 SaveAreaSizeInBytes;
  HSAuint32* ControlStackTop;
  HSAuint64 ControlStackUsedInBytes;
  HsaUserContextSaveAreaHeader* SaveAreaHeader;
  HSAuint64 Reserved2;
} HsaQueueInfo;

/* hsaKmtReportQueue's answer (Southern Islands only, upstream keeps it for source compatibility). */
typedef struct _HsaQueueReport {
  HSAuint32 VMID;
  void* QueueAddress; /* user-mode mapping of the ring */
  HSAuint64 QueueSize;
} HsaQueueReport;

/* ---- debugger (hsaKmtDbg*, hsaKmtRuntimeEnable) ---- */

typedef enum _HSA_DBG_WAVEOP {
  HSA_DBG_WAVEOP_HALT = 1,
  HSA_DBG_WAVEOP_RESUME = 2,
  HSA_DBG_WAVEOP_KILL = 3,
  HSA_DBG_WAVEOP_DEBUG = 4,
  HSA_DBG_WAVEOP_TRAP = 5,
  HSA_DBG_NUM_WAVEOP = 5,
  HSA_DBG_MAX_WAVEOP = 0xFFFFFFFF
} HSA_DBG_WAVEOP;

typedef enum _HSA_DBG_WAVEMODE {
  HSA_DBG_WAVEMODE_SINGLE = 0,
  /* 1 (every process's waves) does not exist for user mode. */
  HSA_DBG_WAVEMODE_BROADCAST_PROCESS = 2,
  HSA_DBG_WAVEMODE_BROADCAST_PROCESS_CU = 3,
  HSA_DBG_NUM_WAVEMODE = 3,
  HSA_DBG_MAX_WAVEMODE = 0xFFFFFFFF
} HSA_DBG_WAVEMODE;

typedef enum _HSA_DBG_WAVEMSG_TYPE {
  HSA_DBG_WAVEMSG_AUTO = 0,
  HSA_DBG_WAVEMSG_USER = 1,
  HSA_DBG_WAVEMSG_ERROR = 2,
  HSA_DBG_NUM_WAVEMSG,
  HSA_DBG_MAX_WAVEMSG = 0xFFFFFFFF
} HSA_DBG_WAVEMSG_TYPE;

typedef enum _HSA_DBG_WATCH_MODE {
  HSA_DBG_WATCH_READ = 0,
  HSA_DBG_WATCH_NONREAD = 1, /* writes and atomics */
  HSA_DBG_WATCH_ATOMIC = 2,
  HSA_DBG_WATCH_ALL = 3,
  HSA_DBG_WATCH_NUM
} HSA_DBG_WATCH_MODE;

typedef enum _HSA_DBG_TRAP_OVERRIDE {
  HSA_DBG_TRAP_OVERRIDE_OR = 0,
  HSA_DBG_TRAP_OVERRIDE_REPLACE = 1,
  HSA_DBG_TRAP_OVERRIDE_NUM
} HSA_DBG_TRAP_OVERRIDE;

typedef enum _HSA_DBG_TRAP_MASK {
  HSA_DBG_TRAP_MASK_FP_INVALID = 1,
  HSA_DBG_TRAP_MASK_FP_INPUT_DENOMAL = 2, /* sic: upstream's spelling */
  HSA_DBG_TRAP_MASK_FP_DIVIDE_BY_ZERO = 4,
  HSA_DBG_TRAP_MASK_FP_OVERFLOW = 8,
  HSA_DBG_TRAP_MASK_FP_UNDERFLOW = 16,
  HSA_DBG_TRAP_MASK_FP_INEXACT = 32,
  HSA_DBG_TRAP_MASK_INT_DIVIDE_BY_ZERO = 64,
  HSA_DBG_TRAP_MASK_DBG_ADDRESS_WATCH = 128,
  HSA_DBG_TRAP_MASK_DBG_MEMORY_VIOLATION = 256
} HSA_DBG_TRAP_MASK;

/* The KFD's exception codes (kfd_ioctl.h EC_*), under libhsakmt names. */
typedef enum _HSA_DBG_TRAP_EXCEPTION_CODE {
  HSA_DBG_EC_NONE = 0,
  HSA_DBG_EC_QUEUE_WAVE_ABORT = 1,
  HSA_DBG_EC_QUEUE_WAVE_TRAP = 2,
  HSA_DBG_EC_QUEUE_WAVE_MATH_ERROR = 3,
  HSA_DBG_EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION = 4,
  HSA_DBG_EC_QUEUE_WAVE_MEMORY_VIOLATION = 5,
  HSA_DBG_EC_QUEUE_WAVE_APERTURE_VIOLATION = 6,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_DIM_INVALID = 16,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID = 17,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_CODE_INVALID = 18,
  HSA_DBG_EC_QUEUE_PACKET_RESERVED = 19,
  HSA_DBG_EC_QUEUE_PACKET_UNSUPPORTED = 20,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID = 21,
  HSA_DBG_EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID = 22,
  HSA_DBG_EC_QUEUE_PACKET_VENDOR_UNSUPPORTED = 23,
  HSA_DBG_EC_QUEUE_PREEMPTION_ERROR = 30,
  HSA_DBG_EC_QUEUE_NEW = 31,
  HSA_DBG_EC_DEVICE_QUEUE_DELETE = 32,
  HSA_DBG_EC_DEVICE_MEMORY_VIOLATION = 33,
  HSA_DBG_EC_DEVICE_RAS_ERROR = 34,
  HSA_DBG_EC_DEVICE_FATAL_HALT = 35,
  HSA_DBG_EC_DEVICE_NEW = 36,
  HSA_DBG_EC_PROCESS_RUNTIME = 48,
  HSA_DBG_EC_PROCESS_DEVICE_REMOVE = 49,
  HSA_DBG_EC_MAX
} HSA_DBG_TRAP_EXCEPTION_CODE;

/* The bit of exception code `ecode` in an exception mask (codes start at 1). */
#define HSA_EC_MASK(ecode) (1ULL << (ecode - 1))

typedef enum _HSA_DBG_WAVE_LAUNCH_MODE {
  HSA_DBG_WAVE_LAUNCH_MODE_NORMAL = 0,
  HSA_DBG_WAVE_LAUNCH_MODE_HALT = 1,
  HSA_DBG_WAVE_LAUNCH_MODE_KILL = 2,        /* terminated before the first instruction */
  HSA_DBG_WAVE_LAUNCH_MODE_SINGLE_STEP = 3, /* traps after each instruction once debug traps are on */
  HSA_DBG_WAVE_LAUNCH_MODE_DISABLE = 4,     /* no new waves launch */
  HSA_DBG_WAVE_LAUNCH_MODE_NUM
} HSA_DBG_WAVE_LAUNCH_MODE;

/* No node control flags are defined yet. */
typedef enum HSA_DBG_NODE_CONTROL { HSA_DBG_NODE_CONTROL_FLAG_MAX = 0x01 } HSA_DBG_NODE_CONTROL;

/* hsaKmtGetRuntimeCapabilities bit: the KFD can write a core dump. */
#define HSA_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK 0x80000000

/* Hardware-specific wave message (gen 2 layout). */
typedef struct _HsaDbgWaveMsgAMDGen2 {
  HSAuint32 Value;
  HSAuint32 Reserved2;
} HsaDbgWaveMsgAMDGen2;

typedef union _HsaDbgWaveMessageAMD {
  HsaDbgWaveMsgAMDGen2 WaveMsgInfoGen2;
} HsaDbgWaveMessageAMD;

typedef struct _HsaDbgWaveMessage {
  void* MemoryVA; /* host-accessible data that goes with the message */
  HsaDbgWaveMessageAMD DbgWaveMsg;
} HsaDbgWaveMessage;

/* ---- clocks, performance counters, tiling ---- */

/* hsaKmtGetClockCounters: the GPU, CPU and system clocks read together. */
typedef struct _HsaClockCounters {
  HSAuint64 GPUClockCounter;
  HSAuint64 CPUClockCounter;
  HSAuint64 SystemClockCounter;
  HSAuint64 SystemClockFrequencyHz;
} HsaClockCounters;

/* A GUID naming a profiling block. On Windows (DEFINE_GUID present) it is the platform's GUID. */
#ifndef DEFINE_GUID
typedef struct _HSA_UUID {
  HSAuint32 Data1;
  HSAuint16 Data2;
  HSAuint16 Data3;
  HSAuint8 Data4[8];
} HSA_UUID;

#define HSA_DEFINE_UUID(name, dw, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
  static const HSA_UUID name = {dw, w1, w2, {b1, b2, b3, b4, b5, b6, b7, b8}}
#else
#define HSA_UUID GUID
#define HSA_DEFINE_UUID DEFINE_GUID
#endif

/* The GPU blocks whose counters hsaKmtPmcGetCounterProperties lists. */
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_CB, 0x9ba429c6, 0xaf2d, 0x4b38, 0xb3, 0x49, 0x15, 0x72, 0x71, 0xbe, 0xac, 0x6a);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_CPF, 0x2b0ad2b5, 0x1c43, 0x4f46, 0xa7, 0xbc, 0xe1, 0x19, 0x41, 0x1e, 0xa6, 0xc9);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_CPG, 0x590ec94d, 0x20f0, 0x448f, 0x8d, 0xff, 0x31, 0x6c, 0x67, 0x9d, 0xe7, 0xff);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_DB, 0x3d1a47fc, 0x0013, 0x4ed4, 0x83, 0x06, 0x82, 0x2c, 0xa0, 0xb7, 0xa6, 0xc2);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_GDS, 0xf59276ec, 0x2526, 0x4bf8, 0x8e, 0xc0, 0x11, 0x8f, 0x77, 0x70, 0x0d, 0xc9);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_GRBM, 0x8f00933c, 0xc33d, 0x4801, 0x97, 0xb7, 0x70, 0x07, 0xf7, 0x85, 0x73, 0xad);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_GRBMSE, 0x34ebd8d7, 0x7c8b, 0x4d15, 0x88, 0xfa, 0x0e, 0x4e, 0x4a, 0xf5, 0x9a, 0xc1);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_IA, 0x34276944, 0x4264, 0x4fcd, 0x9d, 0x6e, 0xae, 0x26, 0x45, 0x82, 0xec, 0x51);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_MC, 0x13900b57, 0x4956, 0x4d98, 0x81, 0xd0, 0x68, 0x52, 0x19, 0x37, 0xf5, 0x9c);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_PASC, 0xb0e7fb5d, 0x0efc, 0x4744, 0xb5, 0x16, 0x5d, 0x23, 0xdc, 0x1f, 0xd5, 0x6c);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_PASU, 0x9a152b6a, 0x1fad, 0x45f2, 0xa5, 0xbf, 0xf1, 0x63, 0x82, 0x6b, 0xd0, 0xcd);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_SPI, 0xeda81044, 0xd62c, 0x47eb, 0xaf, 0x89, 0x4f, 0x6f, 0xbf, 0x3b, 0x38, 0xe0);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_SRBM, 0x9f8040e0, 0x6830, 0x4019, 0xac, 0xc8, 0x46, 0x3c, 0x9e, 0x44, 0x5b, 0x89);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_SQ, 0xb5c396b6, 0xd310, 0x47e4, 0x86, 0xfc, 0x5c, 0xc3, 0x04, 0x3a, 0xf5, 0x08);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_SX, 0xbdb8d737, 0x43cc, 0x4162, 0xbe, 0x52, 0x51, 0xcf, 0xb8, 0x47, 0xbe, 0xaf);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TA, 0xc01ee43d, 0xad92, 0x44b1, 0x8a, 0xb9, 0xbe, 0x5e, 0x69, 0x6c, 0xee, 0xa7);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TCA, 0x333e393f, 0xe147, 0x4f49, 0xa6, 0xd1, 0x60, 0x91, 0x4c, 0x70, 0x86, 0xb0);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TCC, 0x848ce855, 0xd805, 0x4566, 0xa8, 0xab, 0x73, 0xe8, 0x84, 0xcc, 0x6b, 0xff);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TCP, 0xe10a013b, 0x17d4, 0x4bf5, 0xb0, 0x89, 0x42, 0x95, 0x91, 0x05, 0x9b, 0x60);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TCS, 0x4126245c, 0x4d96, 0x4d1a, 0x8a, 0xed, 0xa9, 0x39, 0xd4, 0xcc, 0x8e, 0xc9);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_TD, 0x7d7c0fe4, 0xfe41, 0x4fea, 0x92, 0xc9, 0x45, 0x44, 0xd7, 0x70, 0x6d, 0xc6);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_VGT, 0x0b6a8cb7, 0x7a01, 0x409f, 0xa2, 0x2c, 0x30, 0x14, 0x85, 0x4f, 0x13, 0x59);
HSA_DEFINE_UUID(HSA_PROFILEBLOCK_AMD_WD, 0x0e176789, 0x46ed, 0x4b02, 0x97, 0x2a, 0x91, 0x6d, 0x2f, 0xac, 0x24, 0x4a);

typedef enum _HSA_PROFILE_TYPE {
  HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE = 0, /* read by the KFD only */
  HSA_PROFILE_TYPE_PRIVILEGED_STREAMING = 1, /* hardware streams updates to memory; KFD only */
  HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE = 2,    /* readable from a user queue */
  HSA_PROFILE_TYPE_NONPRIV_STREAMING = 3,
  HSA_PROFILE_TYPE_NUM,
  HSA_PROFILE_TYPE_SIZE = 0xFFFFFFFF
} HSA_PROFILE_TYPE;

typedef struct _HsaCounterFlags {
  union {
    struct {
      unsigned int Global : 1;     /* not tied to a VMID, wave or CU */
      unsigned int Resettable : 1;
      unsigned int ReadOnly : 1;
      unsigned int Stream : 1;     /* streams into a buffer once triggered */
      unsigned int Reserved : 28;
    } ui32;
    HSAuint32 Value;
  };
} HsaCounterFlags;

typedef struct _HsaCounter {
  HSA_PROFILE_TYPE Type;
  HSAuint64 CounterId; /* register offset (at offset 4: 4-byte packing) */
  HSAuint32 CounterSizeInBits;
  HSAuint64 CounterMask;
  HsaCounterFlags Flags;
  HSAuint32 BlockIndex;
} HsaCounter;

/* One block and its NumCounters counters (Counters[] runs past the declared element). */
typedef struct _HsaCounterBlockProperties {
  HSA_UUID BlockId;
  HSAuint32 NumCounters;
  HSAuint32 NumConcurrent; /* counter slots the block can run at once */
  HsaCounter Counters[1];
} HsaCounterBlockProperties;

/* All NumBlocks blocks of a node (Blocks[] runs past the declared element). */
typedef struct _HsaCounterProperties {
  HSAuint32 NumBlocks;
  HSAuint32 NumConcurrent; /* blocks the hardware can query at once */
  HsaCounterBlockProperties Blocks[1];
} HsaCounterProperties;

typedef HSAuint64 HSATraceId;

typedef struct _HsaPmcTraceRoot {
  HSAuint64 TraceBufferMinSizeBytes; /* page aligned */
  HSAuint32 NumberOfPasses;
  HSATraceId TraceId;
} HsaPmcTraceRoot;

/* hsaKmtGetTileConfig: the caller supplies the arrays and their lengths. */
typedef struct _HsaGpuTileConfig {
  HSAuint32* TileConfig;
  HSAuint32* MacroTileConfig;
  HSAuint32 NumTileConfigs;      /* in: array length; out: entries filled */
  HSAuint32 NumMacroTileConfigs; /* likewise */
  HSAuint32 GbAddrConfig;
  HSAuint32 NumBanks;
  HSAuint32 NumRanks;
  HSAuint32 Reserved[7]; /* pads to 16 dwords */
} HsaGpuTileConfig;

/* ---- sharing, SVM, SMI, PC sampling ---- */

/* Opaque IPC handle of hsaKmtShareMemory / hsaKmtRegisterSharedHandle. */
typedef HSAuint32 HsaSharedMemoryHandle[8];

typedef struct _HsaMemoryRange {
  void* MemoryAddress;
  HSAuint64 SizeInBytes;
} HsaMemoryRange;

/* HSA_SVM_ATTR_SET_FLAGS / CLR_FLAGS values; the KFD's KFD_IOCTL_SVM_FLAG_*. */
typedef enum _HSA_SVM_FLAGS {
  HSA_SVM_FLAG_HOST_ACCESS = 0x00000001,
  HSA_SVM_FLAG_COHERENT = 0x00000002,
  HSA_SVM_FLAG_HIVE_LOCAL = 0x00000004,
  HSA_SVM_FLAG_GPU_RO = 0x00000008,
  HSA_SVM_FLAG_GPU_EXEC = 0x00000010,
  HSA_SVM_FLAG_GPU_READ_MOSTLY = 0x00000020,
  HSA_SVM_FLAG_GPU_ALWAYS_MAPPED = 0x00000040,
  HSA_SVM_FLAG_EXT_COHERENT = 0x00000080,
} HSA_SVM_FLAGS;

/* The KFD's KFD_IOCTL_SVM_ATTR_*. Locations are gpu_ids, 0 for system memory, INVALID_NODEID for none. */
typedef enum _HSA_SVM_ATTR_TYPE {
  HSA_SVM_ATTR_PREFERRED_LOC,
  HSA_SVM_ATTR_PREFETCH_LOC, /* setting it migrates at once */
  HSA_SVM_ATTR_ACCESS,
  HSA_SVM_ATTR_ACCESS_IN_PLACE,
  HSA_SVM_ATTR_NO_ACCESS,
  HSA_SVM_ATTR_SET_FLAGS,
  HSA_SVM_ATTR_CLR_FLAGS,
  HSA_SVM_ATTR_GRANULARITY /* log2 of the migration granularity in pages */
} HSA_SVM_ATTR_TYPE;

typedef struct _HSA_SVM_ATTRIBUTE {
  HSAuint32 type; /* HSA_SVM_ATTR_TYPE */
  HSAuint32 value;
} HSA_SVM_ATTRIBUTE;

/* SMI event numbers (the KFD's KFD_SMI_EVENT_*); an event's mask bit is number - 1. */
typedef enum _HSA_SMI_EVENT {
  HSA_SMI_EVENT_NONE = 0,
  HSA_SMI_EVENT_VMFAULT = 1,
  HSA_SMI_EVENT_THERMAL_THROTTLE = 2,
  HSA_SMI_EVENT_GPU_PRE_RESET = 3,
  HSA_SMI_EVENT_GPU_POST_RESET = 4,
  HSA_SMI_EVENT_MIGRATE_START = 5,
  HSA_SMI_EVENT_MIGRATE_END = 6,
  HSA_SMI_EVENT_PAGE_FAULT_START = 7,
  HSA_SMI_EVENT_PAGE_FAULT_END = 8,
  HSA_SMI_EVENT_QUEUE_EVICTION = 9,
  HSA_SMI_EVENT_QUEUE_RESTORE = 10,
  HSA_SMI_EVENT_UNMAP_FROM_GPU = 11,
  HSA_SMI_EVENT_INDEX_MAX = 12,
  /* Not an event: as a mask bit, asks for every process's events (root only). */
  HSA_SMI_EVENT_ALL_PROCESS = 64
} HSA_EVENT_TYPE;

typedef enum _HSA_MIGRATE_TRIGGERS {
  HSA_MIGRATE_TRIGGER_PREFETCH,
  HSA_MIGRATE_TRIGGER_PAGEFAULT_GPU,
  HSA_MIGRATE_TRIGGER_PAGEFAULT_CPU,
  HSA_MIGRATE_TRIGGER_TTM_EVICTION
} HSA_MIGRATE_TRIGGERS;

typedef enum _HSA_QUEUE_EVICTION_TRIGGERS {
  HSA_QUEUE_EVICTION_TRIGGER_SVM,
  HSA_QUEUE_EVICTION_TRIGGER_USERPTR,
  HSA_QUEUE_EVICTION_TRIGGER_TTM,
  HSA_QUEUE_EVICTION_TRIGGER_SUSPEND,
  HSA_QUEUE_EVICTION_CRIU_CHECKPOINT,
  HSA_QUEUE_EVICTION_CRIU_RESTORE
} HSA_QUEUE_EVICTION_TRIGGERS;

typedef enum _HSA_SVM_UNMAP_TRIGGERS {
  HSA_SVM_UNMAP_TRIGGER_MMU_NOTIFY,
  HSA_SVM_UNMAP_TRIGGER_MMU_NOTIFY_MIGRATE,
  HSA_SVM_UNMAP_TRIGGER_UNMAP_FROM_CPU
} HSA_SVM_UNMAP_TRIGGERS;

#define HSA_SMI_EVENT_MASK_FROM_INDEX(i) (1ULL << ((i) - 1))
#define HSA_SMI_EVENT_MSG_SIZE 96

/* libdrm's amdgpu_device_handle, opaque here. */
typedef void* HsaAMDGPUDeviceHandle;

typedef HSAuint32 HsaPcSamplingTraceId;

typedef enum _HSA_PC_SAMPLING_METHOD_KIND {
  HSA_PC_SAMPLING_METHOD_KIND_HOSTTRAP_V1 = 1,
  HSA_PC_SAMPLING_METHOD_KIND_STOCHASTIC_V1,
} HSA_PC_SAMPLING_METHOD_KIND;

typedef enum _HSA_PC_SAMPLING_UNITS {
  HSA_PC_SAMPLING_UNIT_INTERVAL_MICROSECONDS,
  HSA_PC_SAMPLING_UNIT_INTERVAL_CYCLES,
  HSA_PC_SAMPLING_UNIT_INTERVAL_INSTRUCTIONS,
} HSA_PC_SAMPLING_UNIT_INTERVAL;

typedef struct _HsaPcSamplingInfo {
  HSAuint64 value;
  HSAuint64 value_min;
  HSAuint64 value_max;
  HSAuint64 flags;
  HSA_PC_SAMPLING_METHOD_KIND method;
  HSA_PC_SAMPLING_UNIT_INTERVAL units;
} HsaPcSamplingInfo;

/* hsaKmtRegisterGraphicsHandleToNodesExt options. */
typedef union {
  HSAuint32 Value;
  struct {
    unsigned int requiresVAddr : 1; /* give the buffer a GPU virtual address */
  } ui32;
} HSA_REGISTER_MEM_FLAGS;

#pragma pack(pop, hsakmttypes_h)

/* hsaKmtAisReadWriteFile's direction. Upstream declares it after the pack pop; it is an enum, so the
 * packing would not change it anyway. */
typedef enum _HsaAisFlags { HSA_AIS_READ = 0x1, HSA_AIS_WRITE = 0x2 } HsaAisFlags;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPMEM_HSAKMT_HSAKMTTYPES_H_ */
