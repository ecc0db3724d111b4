/* Prints what a libhsakmt reports of the machine, one fact a line ("node 1 LDSSizeInKB 64", "node 1 bank 2 HeapType
 * 5"), so two thunks on the same KFD can be compared line by line (preload_test's thunk comparison).
 *
 * Two builds of this file: hsakmt_dump_ours links hipmem's thunk (//thunk:hsakmt); hsakmt_dump_debian (with
 * HSAKMT_DUMP_DEBIAN) dlopens the libhsakmt.so.1 path in argv[1] (Debian's, ROCm 5.2.3) and reads its answers with
 * 5.2.3's struct layouts, which current upstream's headers (ours) have grown past: HsaNodeProperties gained fields in
 * the middle, HsaIoLinkProperties one before Flags, HsaCacheProperties one at the end. Exits 0 after printing, 1 when
 * a call fails.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hsakmt/hsakmt.h"

#ifdef HSAKMT_DUMP_DEBIAN
/* Packed to 4 bytes, as hsakmttypes.h packs every struct. */
#pragma pack(push, 4)
/* ROCm 5.2.3's HsaNodeProperties (356 bytes). */
typedef struct {
  HSAuint32 NumCPUCores;
  HSAuint32 NumFComputeCores;
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
  HSAuint16 VendorId;
  HSAuint16 DeviceId;
  HSAuint32 LocationId;
  HSAuint64 LocalMemSize;
  HSAuint32 MaxEngineClockMhzFCompute;
  HSAuint32 MaxEngineClockMhzCCompute;
  HSAint32 DrmRenderMinor;
  HSAuint16 MarketingName[HSA_PUBLIC_NAME_SIZE];
  HSAuint8 AMDName[HSA_PUBLIC_NAME_SIZE];
  HSA_ENGINE_VERSION uCodeEngineVersions;
  HSA_DEBUG_PROPERTIES DebugProperties;
  HSAuint64 HiveID;
  HSAuint32 NumSdmaEngines;
  HSAuint32 NumSdmaXgmiEngines;
  HSAuint8 NumSdmaQueuesPerEngine;
  HSAuint8 NumCpQueues;
  HSAuint8 NumGws;
  HSAuint8 Reserved2;
  HSAuint32 Domain;
  HSAuint64 UniqueID;
  HSAuint32 VGPRSizePerCU;
  HSAuint32 SGPRSizePerCU;
  HSAuint8 Reserved[12];
} NodeProps;
_Static_assert(sizeof(NodeProps) == 356, "ROCm 5.2.3's HsaNodeProperties");

/* ROCm 5.2.3's HsaIoLinkProperties (48 bytes): no RecSdmaEngIdMask. */
typedef struct {
  HSA_IOLINKTYPE IoLinkType;
  HSAuint32 VersionMajor;
  HSAuint32 VersionMinor;
  HSAuint32 NodeFrom;
  HSAuint32 NodeTo;
  HSAuint32 Weight;
  HSAuint32 MinimumLatency;
  HSAuint32 MaximumLatency;
  HSAuint32 MinimumBandwidth;
  HSAuint32 MaximumBandwidth;
  HSAuint32 RecTransferSize;
  HSA_LINKPROPERTY Flags;
} LinkProps;

/* ROCm 5.2.3's HsaCacheProperties (1056 bytes): no PersistingCacheSizeMax. */
typedef struct {
  HSAuint32 ProcessorIdLow;
  HSAuint32 CacheLevel;
  HSAuint32 CacheSize;
  HSAuint32 CacheLineSize;
  HSAuint32 CacheLinesPerTag;
  HSAuint32 CacheAssociativity;
  HSAuint32 CacheLatency;
  HsaCacheType CacheType;
  HSAuint32 SiblingMap[HSA_CPU_SIBLINGS];
} CacheProps;
#pragma pack(pop)
_Static_assert(sizeof(LinkProps) == 48, "ROCm 5.2.3's HsaIoLinkProperties");
_Static_assert(sizeof(CacheProps) == 1056, "ROCm 5.2.3's HsaCacheProperties");

static struct {
  HSAKMT_STATUS (*OpenKFD)(void);
  HSAKMT_STATUS (*CloseKFD)(void);
  HSAKMT_STATUS (*AcquireSystemProperties)(HsaSystemProperties*);
  HSAKMT_STATUS (*ReleaseSystemProperties)(void);
  HSAKMT_STATUS (*GetNodeProperties)(HSAuint32, NodeProps*);
  HSAKMT_STATUS (*GetNodeMemoryProperties)(HSAuint32, HSAuint32, HsaMemoryProperties*);
  HSAKMT_STATUS (*GetNodeCacheProperties)(HSAuint32, HSAuint32, HSAuint32, CacheProps*);
  HSAKMT_STATUS (*GetNodeIoLinkProperties)(HSAuint32, HSAuint32, LinkProps*);
} kmt;

static void* Lookup(void* lib, const char* name) {
  void* sym = dlsym(lib, name);
  if (sym == NULL) {
    fprintf(stderr, "hsakmt_dump: no %s\n", name);
    exit(1);
  }
  return sym;
}
#else
typedef HsaNodeProperties NodeProps;
typedef HsaIoLinkProperties LinkProps;
typedef HsaCacheProperties CacheProps;
static const struct {
  HSAKMT_STATUS (*OpenKFD)(void);
  HSAKMT_STATUS (*CloseKFD)(void);
  HSAKMT_STATUS (*AcquireSystemProperties)(HsaSystemProperties*);
  HSAKMT_STATUS (*ReleaseSystemProperties)(void);
  HSAKMT_STATUS (*GetNodeProperties)(HSAuint32, NodeProps*);
  HSAKMT_STATUS (*GetNodeMemoryProperties)(HSAuint32, HSAuint32, HsaMemoryProperties*);
  HSAKMT_STATUS (*GetNodeCacheProperties)(HSAuint32, HSAuint32, HSAuint32, CacheProps*);
  HSAKMT_STATUS (*GetNodeIoLinkProperties)(HSAuint32, HSAuint32, LinkProps*);
} kmt = {hsaKmtOpenKFD,           hsaKmtCloseKFD,          hsaKmtAcquireSystemProperties,
         hsaKmtReleaseSystemProperties, hsaKmtGetNodeProperties, hsaKmtGetNodeMemoryProperties,
         hsaKmtGetNodeCacheProperties,  hsaKmtGetNodeIoLinkProperties};
#endif

static void Check(HSAKMT_STATUS status, const char* what) {
  if (status != HSAKMT_STATUS_SUCCESS) {
    fprintf(stderr, "hsakmt_dump: %s failed: %d\n", what, (int)status);
    exit(1);
  }
}

#define U(prefix, s, field) printf("%s " #field " %llu\n", prefix, (unsigned long long)(s).field)
#define X(prefix, s, field) printf("%s " #field " 0x%llx\n", prefix, (unsigned long long)(s).field)

static void PrintName(const char* prefix, const char* field, const HSAuint16* wide, const HSAuint8* narrow) {
  printf("%s %s ", prefix, field);
  for (int i = 0; i < HSA_PUBLIC_NAME_SIZE; ++i) {
    const unsigned c = wide != NULL ? wide[i] : narrow[i];
    if (c == 0) break;
    putchar(c < 128 ? (int)c : '?');
  }
  putchar('\n');
}

int main(int argc, char** argv) {
#ifdef HSAKMT_DUMP_DEBIAN
  if (argc != 2) {
    fprintf(stderr, "usage: hsakmt_dump_debian LIBHSAKMT_PATH\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "hsakmt_dump: dlopen(%s): %s\n", argv[1], dlerror());
    return 1;
  }
  kmt.OpenKFD = (__typeof__(kmt.OpenKFD))Lookup(lib, "hsaKmtOpenKFD");
  kmt.CloseKFD = (__typeof__(kmt.CloseKFD))Lookup(lib, "hsaKmtCloseKFD");
  kmt.AcquireSystemProperties = (__typeof__(kmt.AcquireSystemProperties))Lookup(lib, "hsaKmtAcquireSystemProperties");
  kmt.ReleaseSystemProperties = (__typeof__(kmt.ReleaseSystemProperties))Lookup(lib, "hsaKmtReleaseSystemProperties");
  kmt.GetNodeProperties = (__typeof__(kmt.GetNodeProperties))Lookup(lib, "hsaKmtGetNodeProperties");
  kmt.GetNodeMemoryProperties = (__typeof__(kmt.GetNodeMemoryProperties))Lookup(lib, "hsaKmtGetNodeMemoryProperties");
  kmt.GetNodeCacheProperties = (__typeof__(kmt.GetNodeCacheProperties))Lookup(lib, "hsaKmtGetNodeCacheProperties");
  kmt.GetNodeIoLinkProperties = (__typeof__(kmt.GetNodeIoLinkProperties))Lookup(lib, "hsaKmtGetNodeIoLinkProperties");
#else
  (void)argc;
  (void)argv;
#endif
  Check(kmt.OpenKFD(), "hsaKmtOpenKFD");
  HsaSystemProperties system;
  Check(kmt.AcquireSystemProperties(&system), "hsaKmtAcquireSystemProperties");
  printf("system NumNodes %u\n", system.NumNodes);
  for (HSAuint32 n = 0; n < system.NumNodes; ++n) {
    NodeProps p;
    Check(kmt.GetNodeProperties(n, &p), "hsaKmtGetNodeProperties");
    char node[32];
    snprintf(node, sizeof(node), "node %u", n);
    U(node, p, NumCPUCores);
    U(node, p, NumFComputeCores);
    U(node, p, NumMemoryBanks);
    U(node, p, NumCaches);
    U(node, p, NumIOLinks);
    U(node, p, CComputeIdLo);
    U(node, p, FComputeIdLo);
    X(node, p, Capability.Value);
    U(node, p, MaxWavesPerSIMD);
    U(node, p, LDSSizeInKB);
    U(node, p, GDSSizeInKB);
    U(node, p, WaveFrontSize);
    U(node, p, NumShaderBanks);
    U(node, p, NumArrays);
    U(node, p, NumCUPerArray);
    U(node, p, NumSIMDPerCU);
    U(node, p, MaxSlotsScratchCU);
    X(node, p, EngineId.Value);
    X(node, p, VendorId);
    X(node, p, DeviceId);
    X(node, p, LocationId);
    U(node, p, LocalMemSize);
    U(node, p, MaxEngineClockMhzFCompute);
    U(node, p, MaxEngineClockMhzCCompute);
    U(node, p, DrmRenderMinor);
    PrintName(node, "MarketingName", p.MarketingName, NULL);
    PrintName(node, "AMDName", NULL, p.AMDName);
    X(node, p, uCodeEngineVersions.Value);
    X(node, p, DebugProperties.Value);
    X(node, p, HiveID);
    U(node, p, NumSdmaEngines);
    U(node, p, NumSdmaXgmiEngines);
    U(node, p, NumSdmaQueuesPerEngine);
    U(node, p, NumCpQueues);
    U(node, p, NumGws);
    U(node, p, Domain);
    X(node, p, UniqueID);
    U(node, p, VGPRSizePerCU);
    U(node, p, SGPRSizePerCU);

    HsaMemoryProperties banks[16];
    const HSAuint32 nbanks = p.NumMemoryBanks < 16 ? p.NumMemoryBanks : 16;
    Check(kmt.GetNodeMemoryProperties(n, nbanks, banks), "hsaKmtGetNodeMemoryProperties");
    for (HSAuint32 b = 0; b < nbanks; ++b) {
      char bank[48];
      snprintf(bank, sizeof(bank), "node %u bank %u", n, b);
      U(bank, banks[b], HeapType);
      U(bank, banks[b], SizeInBytes);
      X(bank, banks[b], Flags.MemoryProperty);
      U(bank, banks[b], Width);
      U(bank, banks[b], MemoryClockMax);
      /* The LDS and scratch apertures are the kernel's; the SVM and MMIO ones are where this thunk reserved them. */
      if (banks[b].HeapType == HSA_HEAPTYPE_GPU_LDS || banks[b].HeapType == HSA_HEAPTYPE_GPU_SCRATCH) {
        X(bank, banks[b], VirtualBaseAddress);
      }
    }

    const HSAuint32 ncaches = p.NumCaches < 256 ? p.NumCaches : 256;
    CacheProps* caches = calloc(ncaches + 1, sizeof(CacheProps));
    if (ncaches > 0) {
      Check(kmt.GetNodeCacheProperties(n, p.NumFComputeCores != 0 ? p.FComputeIdLo : p.CComputeIdLo, ncaches, caches),
            "hsaKmtGetNodeCacheProperties");
    }
    for (HSAuint32 c = 0; c < ncaches; ++c) {
      char cache[48];
      snprintf(cache, sizeof(cache), "node %u cache %u", n, c);
      U(cache, caches[c], ProcessorIdLow);
      U(cache, caches[c], CacheLevel);
      U(cache, caches[c], CacheSize);
      U(cache, caches[c], CacheLineSize);
      U(cache, caches[c], CacheLinesPerTag);
      U(cache, caches[c], CacheAssociativity);
      U(cache, caches[c], CacheLatency);
      X(cache, caches[c], CacheType.Value);
      int siblings = 0;
      for (int s = 0; s < HSA_CPU_SIBLINGS; ++s) siblings += caches[c].SiblingMap[s] != 0;
      printf("%s SiblingCount %d\n", cache, siblings);
    }
    free(caches);

    LinkProps links[16];
    const HSAuint32 nlinks = p.NumIOLinks < 16 ? p.NumIOLinks : 16;
    if (nlinks > 0) Check(kmt.GetNodeIoLinkProperties(n, nlinks, links), "hsaKmtGetNodeIoLinkProperties");
    for (HSAuint32 l = 0; l < nlinks; ++l) {
      char link[48];
      snprintf(link, sizeof(link), "node %u link %u", n, l);
      U(link, links[l], IoLinkType);
      U(link, links[l], NodeFrom);
      U(link, links[l], NodeTo);
      U(link, links[l], Weight);
      U(link, links[l], MinimumLatency);
      U(link, links[l], MaximumLatency);
      U(link, links[l], MinimumBandwidth);
      U(link, links[l], MaximumBandwidth);
      U(link, links[l], RecTransferSize);
      X(link, links[l], Flags.LinkProperty);
    }
  }
  Check(kmt.ReleaseSystemProperties(), "hsaKmtReleaseSystemProperties");
  Check(kmt.CloseKFD(), "hsaKmtCloseKFD");
  return 0;
}
