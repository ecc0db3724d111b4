/* Compiles <hsakmt/hsakmt.h> as C and pins the values and layouts libhsakmt callers depend on
 * (ROCR-Runtime's libhsakmt as last shipped there, 2025; structures packed to 4 bytes). The expected
 * numbers are worked out from upstream's declarations, not read back from ours. Sizes and offsets are
 * checked at compile time; bit-field positions at run time (main fails on a mismatch). */
#include <hsakmt/hsakmt.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <hsakmt/hsakmttypes.h> /* again: the include guards must hold */

_Static_assert(HSAKMT_STATUS_SUCCESS == 0 && HSAKMT_STATUS_ERROR == 1, "");
_Static_assert(HSAKMT_STATUS_INVALID_NODE_UNIT == 5 && HSAKMT_STATUS_BUFFER_TOO_SMALL == 7, "");
_Static_assert(HSAKMT_STATUS_NOT_IMPLEMENTED == 10 && HSAKMT_STATUS_OUT_OF_RESOURCES == 13, "");
_Static_assert(HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED == 20, "");
_Static_assert(HSAKMT_STATUS_KERNEL_ALREADY_OPENED == 22 && HSAKMT_STATUS_HSAMMU_UNAVAILABLE == 23, "");
_Static_assert(HSAKMT_STATUS_WAIT_FAILURE == 30 && HSAKMT_STATUS_WAIT_TIMEOUT == 31, "");
_Static_assert(HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED == 35, "");
_Static_assert(HSAKMT_STATUS_MEMORY_ALIGNMENT == 37, "");
_Static_assert(HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE == 2 && HSA_HEAPTYPE_MMIO_REMAP == 7, "");
_Static_assert(HSA_CACHING_WRITECOMBINED == 2 && HSA_PAGE_SIZE_1GB == 3, "");

_Static_assert(sizeof(HSAuint64) == 8 && sizeof(HSAint8) == 1, "");
_Static_assert(sizeof(HsaVersionInfo) == 8 && sizeof(HsaSystemProperties) == 16, "");
_Static_assert(sizeof(HSA_ENGINE_ID) == 4 && sizeof(HSA_ENGINE_VERSION) == 4, "");
_Static_assert(sizeof(HSA_CAPABILITY) == 4 && sizeof(HSA_DEBUG_PROPERTIES) == 8, "");
_Static_assert(sizeof(HsaMemFlags) == 4 && sizeof(HsaMemMapFlags) == 4, "");
_Static_assert(offsetof(HsaCacheProperties, PersistingCacheSizeMax) == 1056 && sizeof(HsaCacheProperties) == 1060, "");
_Static_assert(HSA_IOLINKTYPE_PCIEXPRESS == 2 && HSA_IOLINK_TYPE_XGMI == 11 && HSA_IOLINK_TYPE_OTHER == 16, "");
_Static_assert(sizeof(HSA_IOLINKTYPE) == 4 && sizeof(HSA_LINKPROPERTY) == 4, "");
_Static_assert(offsetof(HsaIoLinkProperties, NodeFrom) == 12 && offsetof(HsaIoLinkProperties, Weight) == 20, "");
_Static_assert(offsetof(HsaIoLinkProperties, MinimumBandwidth) == 32, "");
_Static_assert(offsetof(HsaIoLinkProperties, Flags) == 48 && sizeof(HsaIoLinkProperties) == 52, "");

/* 4-byte packing: no padding before the 64-bit size. */
_Static_assert(offsetof(HsaMemoryProperties, HeapType) == 0, "");
_Static_assert(offsetof(HsaMemoryProperties, SizeInBytes) == 4, "");
_Static_assert(offsetof(HsaMemoryProperties, Flags) == 12, "");
_Static_assert(offsetof(HsaMemoryProperties, Width) == 16, "");
_Static_assert(offsetof(HsaMemoryProperties, MemoryClockMax) == 20, "");
_Static_assert(offsetof(HsaMemoryProperties, VirtualBaseAddress) == 24, "");
_Static_assert(sizeof(HsaMemoryProperties) == 32, "");

/* HsaPointerInfo: the pointers and 64-bit fields follow 32-bit ones unpadded. */
_Static_assert(HSA_POINTER_UNKNOWN == 0 && HSA_POINTER_ALLOCATED == 1 && HSA_POINTER_REGISTERED_USER == 2, "");
_Static_assert(HSA_POINTER_REGISTERED_GRAPHICS == 3 && HSA_POINTER_REGISTERED_SHARED == 4, "");
_Static_assert(HSA_POINTER_RESERVED_ADDR == 5 && sizeof(HSA_POINTER_TYPE) == 4, "");
_Static_assert(offsetof(HsaPointerInfo, Type) == 0 && offsetof(HsaPointerInfo, Node) == 4, "");
_Static_assert(offsetof(HsaPointerInfo, MemFlags) == 8 && offsetof(HsaPointerInfo, CPUAddress) == 12, "");
_Static_assert(offsetof(HsaPointerInfo, GPUAddress) == 20 && offsetof(HsaPointerInfo, SizeInBytes) == 28, "");
_Static_assert(offsetof(HsaPointerInfo, NRegisteredNodes) == 36 && offsetof(HsaPointerInfo, NMappedNodes) == 40, "");
_Static_assert(offsetof(HsaPointerInfo, RegisteredNodes) == 44 && offsetof(HsaPointerInfo, MappedNodes) == 52, "");
_Static_assert(offsetof(HsaPointerInfo, UserData) == 60 && sizeof(HsaPointerInfo) == 68, "");

/* HsaNodeProperties: NumNeuralCores (after NumFComputeCores) and Capability2 (after Capability) moved
 * everything behind them by 4 and 8 bytes against the 2024 layout; CwsrSize and CtlStackSize end it. */
#define AT(field, offset) _Static_assert(offsetof(HsaNodeProperties, field) == (offset), #field)
AT(NumCPUCores, 0);
AT(NumFComputeCores, 4);
AT(NumNeuralCores, 8);
AT(NumMemoryBanks, 12);
AT(NumCaches, 16);
AT(NumIOLinks, 20);
AT(CComputeIdLo, 24);
AT(FComputeIdLo, 28);
AT(Capability, 32);
AT(Capability2, 36);
AT(MaxWavesPerSIMD, 40);
AT(LDSSizeInKB, 44);
AT(GDSSizeInKB, 48);
AT(WaveFrontSize, 52);
AT(NumShaderBanks, 56);
AT(NumArrays, 60);
AT(NumCUPerArray, 64);
AT(NumSIMDPerCU, 68);
AT(MaxSlotsScratchCU, 72);
AT(EngineId, 76);
AT(OverrideEngineId, 80);
AT(VendorId, 84);
AT(DeviceId, 86);
AT(LocationId, 88);
AT(LocalMemSize, 92);
AT(MaxEngineClockMhzFCompute, 100);
AT(MaxEngineClockMhzCCompute, 104);
AT(DrmRenderMinor, 108);
AT(MarketingName, 112);
AT(AMDName, 240);
AT(uCodeEngineVersions, 304);
AT(DebugProperties, 308);
AT(HiveID, 316);
AT(NumSdmaEngines, 324);
AT(NumSdmaXgmiEngines, 328);
AT(NumSdmaQueuesPerEngine, 332);
AT(NumCpQueues, 333);
AT(NumGws, 334);
AT(Integrated, 335);
AT(Domain, 336);
AT(UniqueID, 340);
AT(VGPRSizePerCU, 348);
AT(SGPRSizePerCU, 352);
AT(NumXcc, 356);
AT(KFDGpuID, 360);
AT(FamilyID, 364);
AT(CwsrSize, 368);
AT(CtlStackSize, 372);
AT(LuidLowPart, 376);
AT(LuidHighPart, 380);
AT(WallClockKHz, 384);
AT(FabricHandleSupported, 392);
_Static_assert(sizeof(HsaNodeProperties) == 396, "");
_Static_assert(sizeof(HSA_CAPABILITY2) == 4 && sizeof(HsaCComputeProperties) == 1024, "");

/* HsaQueueResource: five 8-byte members (the unions hold pointers or HSAuint64). */
_Static_assert(sizeof(HsaQueueResource) == 40, "");
_Static_assert(offsetof(HsaQueueResource, QueueDoorBell) == 8, "");
_Static_assert(offsetof(HsaQueueResource, QueueWptrValue) == 16, "");
_Static_assert(offsetof(HsaQueueResource, QueueRptrValue) == 24, "");
_Static_assert(offsetof(HsaQueueResource, ErrorReason) == 32, "");
_Static_assert(HSA_QUEUE_SDMA_BY_ENG_ID == 6 && HSA_QUEUE_COMPUTE_AQL == 21, "");
_Static_assert(HSA_QUEUE_PRIORITY_MINIMUM == -3 && HSA_QUEUE_PRIORITY_MAXIMUM == 3, "");

/* Queue introspection and the debugger's wave messages. */
_Static_assert(sizeof(HsaUserContextSaveAreaHeader) == 40, "");
_Static_assert(offsetof(HsaUserContextSaveAreaHeader, ErrorReason) == 24, "");
_Static_assert(offsetof(HsaUserContextSaveAreaHeader, ErrorEventId) == 32, "");
_Static_assert(offsetof(HsaQueueInfo, CUMaskInfo) == 12 && offsetof(HsaQueueInfo, UserContextSaveArea) == 20, "");
_Static_assert(offsetof(HsaQueueInfo, SaveAreaSizeInBytes) == 28 && offsetof(HsaQueueInfo, ControlStackTop) == 36, "");
_Static_assert(offsetof(HsaQueueInfo, SaveAreaHeader) == 52 && sizeof(HsaQueueInfo) == 68, "");
_Static_assert(offsetof(HsaQueueReport, QueueAddress) == 4 && sizeof(HsaQueueReport) == 20, "");
_Static_assert(sizeof(HsaDbgWaveMessage) == 16 && offsetof(HsaDbgWaveMessage, DbgWaveMsg) == 8, "");
_Static_assert(HSA_DBG_WAVEOP_TRAP == 5 && HSA_DBG_WAVEMODE_BROADCAST_PROCESS_CU == 3, "");
_Static_assert(HSA_DBG_WATCH_ALL == 3 && HSA_DBG_TRAP_MASK_DBG_MEMORY_VIOLATION == 256, "");
_Static_assert(HSA_DBG_EC_QUEUE_NEW == 31 && HSA_DBG_EC_DEVICE_NEW == 36 && HSA_DBG_EC_PROCESS_DEVICE_REMOVE == 49, "");
_Static_assert(HSA_EC_MASK(HSA_DBG_EC_QUEUE_WAVE_ABORT) == 1 && HSA_DBG_WAVE_LAUNCH_MODE_DISABLE == 4, "");
_Static_assert(HSA_RUNTIME_ENABLE_CAPS_SUPPORTS_CORE_DUMP_MASK == 0x80000000u, "");

/* Clocks, counters, tiling. */
_Static_assert(sizeof(HsaClockCounters) == 32 && offsetof(HsaClockCounters, SystemClockFrequencyHz) == 24, "");
_Static_assert(sizeof(HSA_UUID) == 16 && offsetof(HSA_UUID, Data4) == 8, "");
_Static_assert(HSA_PROFILE_TYPE_NONPRIV_STREAMING == 3 && sizeof(HSA_PROFILE_TYPE) == 4, "");
_Static_assert(sizeof(HsaCounterFlags) == 4, "");
_Static_assert(offsetof(HsaCounter, CounterId) == 4 && offsetof(HsaCounter, CounterSizeInBits) == 12, "");
_Static_assert(offsetof(HsaCounter, CounterMask) == 16 && offsetof(HsaCounter, Flags) == 24, "");
_Static_assert(offsetof(HsaCounter, BlockIndex) == 28 && sizeof(HsaCounter) == 32, "");
_Static_assert(offsetof(HsaCounterBlockProperties, Counters) == 24 && sizeof(HsaCounterBlockProperties) == 56, "");
_Static_assert(offsetof(HsaCounterProperties, Blocks) == 8 && sizeof(HsaCounterProperties) == 64, "");
_Static_assert(offsetof(HsaPmcTraceRoot, TraceId) == 12 && sizeof(HsaPmcTraceRoot) == 20, "");
_Static_assert(offsetof(HsaGpuTileConfig, NumTileConfigs) == 16 && offsetof(HsaGpuTileConfig, NumRanks) == 32, "");
_Static_assert(offsetof(HsaGpuTileConfig, Reserved) == 36 && sizeof(HsaGpuTileConfig) == 64, "");

/* Sharing, SVM, SMI, PC sampling, graphics. */
_Static_assert(sizeof(HsaSharedMemoryHandle) == 32 && sizeof(HsaMemoryRange) == 16, "");
_Static_assert(offsetof(HsaGraphicsResourceInfo, Metadata) == 16, "");
_Static_assert(offsetof(HsaGraphicsResourceInfo, NodeId) == 28 && sizeof(HsaGraphicsResourceInfo) == 32, "");
_Static_assert(sizeof(HSA_SVM_ATTRIBUTE) == 8 && HSA_SVM_ATTR_GRANULARITY == 7, "");
_Static_assert(HSA_SVM_FLAG_GPU_ALWAYS_MAPPED == 0x40 && HSA_SVM_FLAG_EXT_COHERENT == 0x80, "");
_Static_assert(HSA_SMI_EVENT_UNMAP_FROM_GPU == 11 && HSA_SMI_EVENT_INDEX_MAX == 12, "");
_Static_assert(HSA_SMI_EVENT_ALL_PROCESS == 64 && HSA_SMI_EVENT_MSG_SIZE == 96, "");
_Static_assert(HSA_SMI_EVENT_MASK_FROM_INDEX(HSA_SMI_EVENT_INDEX_MAX) == (1ULL << 11), "");
_Static_assert(HSA_MIGRATE_TRIGGER_TTM_EVICTION == 3 && HSA_QUEUE_EVICTION_CRIU_RESTORE == 5, "");
_Static_assert(HSA_SVM_UNMAP_TRIGGER_UNMAP_FROM_CPU == 2, "");
_Static_assert(HSA_PC_SAMPLING_METHOD_KIND_STOCHASTIC_V1 == 2 && HSA_PC_SAMPLING_UNIT_INTERVAL_INSTRUCTIONS == 2, "");
_Static_assert(sizeof(HsaPcSamplingInfo) == 40 && offsetof(HsaPcSamplingInfo, units) == 36, "");
_Static_assert(sizeof(HSA_REGISTER_MEM_FLAGS) == 4 && HSA_AIS_WRITE == 2, "");

#define HAS_TYPE(fn, type) _Generic(&(fn), type: 1, default: 0)
_Static_assert(HAS_TYPE(hsaKmtOpenKFD, HSAKMT_STATUS (*)(void)), "");
_Static_assert(HAS_TYPE(hsaKmtGetNodeMemoryProperties,
                        HSAKMT_STATUS (*)(HSAuint32, HSAuint32, HsaMemoryProperties*)), "");
_Static_assert(HAS_TYPE(hsaKmtAllocMemoryAlign,
                        HSAKMT_STATUS (*)(HSAuint32, HSAuint64, HSAuint64, HsaMemFlags, void**)), "");
_Static_assert(HAS_TYPE(hsaKmtFreeMemory, HSAKMT_STATUS (*)(void*, HSAuint64)), "");
_Static_assert(HAS_TYPE(hsaKmtMapMemoryToGPUNodes,
                        HSAKMT_STATUS (*)(void*, HSAuint64, HSAuint64*, HsaMemMapFlags, HSAuint64,
                                          HSAuint32*)), "");
_Static_assert(HAS_TYPE(hsaKmtAvailableMemory, HSAKMT_STATUS (*)(HSAuint32, HSAuint64*)), "");
_Static_assert(HAS_TYPE(hsaKmtGetNodeCacheProperties,
                        HSAKMT_STATUS (*)(HSAuint32, HSAuint32, HSAuint32, HsaCacheProperties*)), "");
_Static_assert(HAS_TYPE(hsaKmtGetClockCounters, HSAKMT_STATUS (*)(HSAuint32, HsaClockCounters*)), "");
_Static_assert(HAS_TYPE(hsaKmtSVMSetAttr, HSAKMT_STATUS (*)(void*, HSAuint64, unsigned int, HSA_SVM_ATTRIBUTE*)), "");
_Static_assert(HAS_TYPE(hsaKmtWaitOnMultipleEvents_Ext,
                        HSAKMT_STATUS (*)(HsaEvent**, HSAuint32, bool, HSAuint32, uint64_t*)), "");
_Static_assert(HAS_TYPE(hsaKmtRegisterSharedHandleToNodes,
                        HSAKMT_STATUS (*)(const HsaSharedMemoryHandle*, void**, HSAuint64*, HSAuint64,
                                          HSAuint32*)), "");
_Static_assert(HAS_TYPE(hsaKmtDebugTrapIoctl,
                        HSAKMT_STATUS (*)(struct kfd_ioctl_dbg_trap_args*, HSA_QUEUEID*, HSAuint64*)), "");
_Static_assert(HAS_TYPE(hsaKmtGetNodeIoLinkProperties,
                        HSAKMT_STATUS (*)(HSAuint32, HSAuint32, HsaIoLinkProperties*)), "");

static int failures = 0;
static void Expect(unsigned got, unsigned want, const char* what) {
  if (got != want) {
    fprintf(stderr, "%s: got 0x%x, want 0x%x\n", what, got, want);
    ++failures;
  }
}
#define MEM_BIT(field, bit)                 \
  do {                                      \
    HsaMemFlags f;                          \
    memset(&f, 0, sizeof f);                \
    f.ui32.field = 1;                       \
    Expect(f.Value, 1u << (bit), #field);   \
  } while (0)

int main(void) {
  MEM_BIT(NonPaged, 0);
  MEM_BIT(CachePolicy, 1);
  MEM_BIT(ReadOnly, 3);
  MEM_BIT(PageSize, 4);
  MEM_BIT(HostAccess, 6);
  MEM_BIT(NoSubstitute, 7);
  MEM_BIT(GDSMemory, 8);
  MEM_BIT(Scratch, 9);
  MEM_BIT(AtomicAccessFull, 10);
  MEM_BIT(AtomicAccessPartial, 11);
  MEM_BIT(ExecuteAccess, 12);
  MEM_BIT(CoarseGrain, 13);
  MEM_BIT(AQLQueueMemory, 14);
  MEM_BIT(FixedAddress, 15);
  MEM_BIT(NoNUMABind, 16);
  MEM_BIT(Uncached, 17);
  MEM_BIT(NoAddress, 18);
  MEM_BIT(OnlyAddress, 19);
  MEM_BIT(ExtendedCoherent, 20);
  MEM_BIT(GTTAccess, 21);
  MEM_BIT(Contiguous, 22);
  MEM_BIT(ExecuteBlit, 23);
  MEM_BIT(QueueObject, 24);
  {
    HsaMemMapFlags m;
    memset(&m, 0, sizeof m);
    m.ui32.HostAccess = 1;
    m.ui32.Probe = 1;
    Expect(m.Value, (1u << 6) | (1u << 8), "HsaMemMapFlags HostAccess|Probe");
  }
  {
    HSA_CAPABILITY c;
    c.Value = 0;
    c.ui32.SVMAPISupported = 1;
    c.ui32.WatchPointsTotalBits = 0xF;
    Expect(c.Value, (1u << 27) | (0xFu << 8), "HSA_CAPABILITY SVMAPISupported|WatchPointsTotalBits");
    c.Value = 0;
    c.ui32.RASEventNotify = 1;
    c.ui32.DebugSupportedFirmware = 1;
    c.ui32.PerQueueResetSupported = 1;
    Expect(c.Value, (1u << 21) | (1u << 29) | (1u << 31), "HSA_CAPABILITY RAS|DebugFirmware|PerQueueReset");
  }
  {
    HSA_CAPABILITY2 c2;
    c2.Value = 0;
    c2.ui32.AqlEmulationPm4_ = 1;
    Expect(c2.Value, 1u << 1, "HSA_CAPABILITY2 AqlEmulationPm4_");
  }
  {
    HsaCounterFlags f;
    f.Value = 0;
    f.ui32.Stream = 1;
    Expect(f.Value, 1u << 3, "HsaCounterFlags Stream");
  }
  {
    HSA_LINKPROPERTY l;
    l.LinkProperty = 0;
    l.ui32.NonCoherent = 1;
    l.ui32.NoPeerToPeerDMA = 1;
    Expect(l.LinkProperty, (1u << 1) | (1u << 4), "HSA_LINKPROPERTY NonCoherent|NoPeerToPeerDMA");
  }
  {
    HSA_ENGINE_ID e;
    e.Value = 0;
    e.ui32.Major = 9;
    e.ui32.Stepping = 10;
    Expect(e.Value, (9u << 10) | (10u << 24), "HSA_ENGINE_ID gfx90a");
  }
  return failures == 0 ? 0 : 1;
}
