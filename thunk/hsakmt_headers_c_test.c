/* Compiles <hsakmt/hsakmt.h> as C and pins the values and layouts libhsakmt callers depend on
 * (ROCR-Runtime libhsakmt, October 2024; structures packed to 4 bytes). Sizes and offsets are
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
_Static_assert(sizeof(HsaCacheProperties) == 1056, "");
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

#define AT(field, offset) _Static_assert(offsetof(HsaNodeProperties, field) == (offset), #field)
AT(NumCPUCores, 0);
AT(NumFComputeCores, 4);
AT(NumMemoryBanks, 8);
AT(NumCaches, 12);
AT(NumIOLinks, 16);
AT(CComputeIdLo, 20);
AT(FComputeIdLo, 24);
AT(Capability, 28);
AT(MaxWavesPerSIMD, 32);
AT(LDSSizeInKB, 36);
AT(GDSSizeInKB, 40);
AT(WaveFrontSize, 44);
AT(NumShaderBanks, 48);
AT(NumArrays, 52);
AT(NumCUPerArray, 56);
AT(NumSIMDPerCU, 60);
AT(MaxSlotsScratchCU, 64);
AT(EngineId, 68);
AT(OverrideEngineId, 72);
AT(VendorId, 76);
AT(DeviceId, 78);
AT(LocationId, 80);
AT(LocalMemSize, 84);
AT(MaxEngineClockMhzFCompute, 92);
AT(MaxEngineClockMhzCCompute, 96);
AT(DrmRenderMinor, 100);
AT(MarketingName, 104);
AT(AMDName, 232);
AT(uCodeEngineVersions, 296);
AT(DebugProperties, 300);
AT(HiveID, 308);
AT(NumSdmaEngines, 316);
AT(NumSdmaXgmiEngines, 320);
AT(NumSdmaQueuesPerEngine, 324);
AT(NumCpQueues, 325);
AT(NumGws, 326);
AT(Integrated, 327);
AT(Domain, 328);
AT(UniqueID, 332);
AT(VGPRSizePerCU, 340);
AT(SGPRSizePerCU, 344);
AT(NumXcc, 348);
AT(KFDGpuID, 352);
AT(FamilyID, 356);
_Static_assert(sizeof(HsaNodeProperties) == 360, "");

/* HsaQueueResource: five 8-byte members (the unions hold pointers or HSAuint64). */
_Static_assert(sizeof(HsaQueueResource) == 40, "");
_Static_assert(offsetof(HsaQueueResource, QueueDoorBell) == 8, "");
_Static_assert(offsetof(HsaQueueResource, QueueWptrValue) == 16, "");
_Static_assert(offsetof(HsaQueueResource, QueueRptrValue) == 24, "");
_Static_assert(offsetof(HsaQueueResource, ErrorReason) == 32, "");
_Static_assert(HSA_QUEUE_SDMA_BY_ENG_ID == 6 && HSA_QUEUE_COMPUTE_AQL == 21, "");
_Static_assert(HSA_QUEUE_PRIORITY_MINIMUM == -3 && HSA_QUEUE_PRIORITY_MAXIMUM == 3, "");

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
