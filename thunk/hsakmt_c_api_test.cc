// kfdtest-style checks through the C API only, on the default simulated machine.
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "hsakmt/linux/kfd_ioctl.h"
#include "thunk/hsakmt_test_nodes.h"
#include "thunk/host_cpu.h"

namespace {

using ::hipmem_testing::FirstGpuNode;

class HsakmtCApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    ASSERT_NE(FirstGpuNode(), 0u) << "no GPU node";
  }
  void TearDown() override { EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS); }

  static HsaMemFlags VramFlags() {
    HsaMemFlags f{};
    f.ui32.NonPaged = 1;
    f.ui32.NoSubstitute = 1;
    f.ui32.HostAccess = 1;
    return f;
  }
};

TEST(HsakmtOpenCloseTest, SecondOpenReportsAlreadyOpenedAndCounts) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  HsaVersionInfo v{};
  EXPECT_EQ(hsaKmtGetVersion(&v), HSAKMT_STATUS_SUCCESS) << "one reference is still held";
  EXPECT_EQ(v.KernelInterfaceMajorVersion, 1u);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtGetVersion(&v), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
}

TEST(HsakmtOpenCloseTest, GetVersionAnswersNotOpenedBeforeTheNullCheckAndInvalidParameterOnceOpen) {
  // As libhsakmt's CHECK_KFD_OPEN comes first: a closed KFD wins over a missing out-pointer.
  EXPECT_EQ(hsaKmtGetVersion(nullptr), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtGetVersion(nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  HsaVersionInfo v{};
  ASSERT_EQ(hsaKmtGetVersion(&v), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(v.KernelInterfaceMajorVersion, 1u);
  EXPECT_GE(v.KernelInterfaceMinorVersion, 1u);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtCApiTest, GpuNodeHasFrameBufferBankAndGfxVersion) {
  const HSAuint32 gpu = FirstGpuNode();
  HsaNodeProperties props{};
  ASSERT_EQ(hsaKmtGetNodeProperties(gpu, &props), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(props.EngineId.ui32.Major, 9u);
  ASSERT_GE(props.NumMemoryBanks, 1u);
  HsaMemoryProperties bank{};
  ASSERT_EQ(hsaKmtGetNodeMemoryProperties(gpu, 1, &bank), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(bank.HeapType, HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC);
  // Copies: both fields are 8-byte values at 4-byte offsets in these pack(4) structs.
  const HSAuint64 bank_size = bank.SizeInBytes;
  const HSAuint64 local_mem = props.LocalMemSize;
  EXPECT_EQ(bank_size, local_mem);
  EXPECT_EQ(hsaKmtGetNodeProperties(999, &props), HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(hsaKmtGetNodeProperties(gpu, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
}

// Beyond the kernel's frame-buffer bank, libhsakmt reports a dGPU node's LDS, scratch and SVM apertures as banks, in
// that order, then the MMIO_REMAP page it mapped at open: one CPU-writable page holding the HDP flush registers.
TEST_F(HsakmtCApiTest, GpuNodeReportsItsAperturesAndMmioPageAsBanks) {
  const HSAuint32 gpu = FirstGpuNode();
  HsaNodeProperties props{};
  ASSERT_EQ(hsaKmtGetNodeProperties(gpu, &props), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(props.NumMemoryBanks, 5u);
  std::vector<HsaMemoryProperties> banks(props.NumMemoryBanks);
  ASSERT_EQ(hsaKmtGetNodeMemoryProperties(gpu, props.NumMemoryBanks, banks.data()), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(banks[0].HeapType, HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC);
  EXPECT_EQ(banks[1].HeapType, HSA_HEAPTYPE_GPU_LDS);
  const HSAuint64 lds = banks[1].SizeInBytes;
  EXPECT_EQ(lds, HSAuint64{props.LDSSizeInKB} * 1024);
  EXPECT_EQ(banks[2].HeapType, HSA_HEAPTYPE_GPU_SCRATCH);
  EXPECT_EQ(banks[3].HeapType, HSA_HEAPTYPE_DEVICE_SVM);
  EXPECT_EQ(banks[4].HeapType, HSA_HEAPTYPE_MMIO_REMAP);
  const HSAuint64 mmio_size = banks[4].SizeInBytes;
  EXPECT_EQ(mmio_size, 4096u);
  for (int i = 1; i < 5; ++i) {
    const HSAuint64 base = banks[i].VirtualBaseAddress;
    const HSAuint64 size = banks[i].SizeInBytes;
    EXPECT_NE(base, 0u) << i;
    EXPECT_NE(size, 0u) << i;
  }
  // ROCr flushes the HDP by writing the register; the page must take the store.
  auto* regs = reinterpret_cast<volatile uint32_t*>(static_cast<uintptr_t>(banks[4].VirtualBaseAddress));
  regs[KFD_MMIO_REMAP_HDP_MEM_FLUSH_CNTL / sizeof(uint32_t)] = 1;
  EXPECT_EQ(regs[KFD_MMIO_REMAP_HDP_MEM_FLUSH_CNTL / sizeof(uint32_t)], 1u);
  // Asking for fewer fills only those.
  HsaMemoryProperties two[2] = {};
  ASSERT_EQ(hsaKmtGetNodeMemoryProperties(gpu, 2, two), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(two[1].HeapType, HSA_HEAPTYPE_GPU_LDS);
}

// kfdtest's GetSysMemSize sizes its system memory tests from this bank (CheckZeroInitializationSysMem touches a
// quarter of it): it must be memory this host has.
TEST_F(HsakmtCApiTest, CpuNodeBankIsTheHostsMemTotal) {
  HsaNodeProperties props{};
  ASSERT_EQ(hsaKmtGetNodeProperties(0, &props), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(props.NumMemoryBanks, 1u);
  HsaMemoryProperties bank{};
  ASSERT_EQ(hsaKmtGetNodeMemoryProperties(0, 1, &bank), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(bank.HeapType, HSA_HEAPTYPE_SYSTEM);
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  HSAuint64 kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit && key != "MemTotal:") {
  }
  ASSERT_EQ(key, "MemTotal:");
  const HSAuint64 bank_size = bank.SizeInBytes;
  EXPECT_EQ(bank_size, kib * 1024);
}

TEST_F(HsakmtCApiTest, IoLinksJoinTheGpuAndTheCpuBothWaysOverPcie) {
  const HSAuint32 gpu = FirstGpuNode();
  HsaNodeProperties gpu_props{};
  ASSERT_EQ(hsaKmtGetNodeProperties(gpu, &gpu_props), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(gpu_props.NumIOLinks, 1u) << "one MI300X: its link to the CPU";
  HsaIoLinkProperties link{};
  ASSERT_EQ(hsaKmtGetNodeIoLinkProperties(gpu, 1, &link), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(link.IoLinkType, HSA_IOLINKTYPE_PCIEXPRESS);
  EXPECT_EQ(link.NodeFrom, gpu);
  EXPECT_EQ(link.NodeTo, 0u);
  EXPECT_EQ(link.Weight, 20u);
  EXPECT_EQ(link.MaximumBandwidth, 64000u) << "PCIe Gen5 x16, MB/s";
  EXPECT_EQ(link.Flags.ui32.NonCoherent, 0u);

  HsaNodeProperties cpu_props{};
  ASSERT_EQ(hsaKmtGetNodeProperties(0, &cpu_props), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(cpu_props.NumIOLinks, 1u);
  HsaIoLinkProperties back{};
  ASSERT_EQ(hsaKmtGetNodeIoLinkProperties(0, 1, &back), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(back.NodeFrom, 0u);
  EXPECT_EQ(back.NodeTo, gpu);
  EXPECT_EQ(back.Flags.ui32.NonCoherent, 1u) << "the kernel marks CPU->GPU PCIe links non-coherent";
}

TEST_F(HsakmtCApiTest, GpuCachesReportL1AndL2InKib) {
  const HSAuint32 gpu = FirstGpuNode();
  HsaNodeProperties props{};
  ASSERT_EQ(hsaKmtGetNodeProperties(gpu, &props), HSAKMT_STATUS_SUCCESS);
  ASSERT_GE(props.NumCaches, 2u);
  std::vector<HsaCacheProperties> caches(props.NumCaches);
  ASSERT_EQ(hsaKmtGetNodeCacheProperties(gpu, 0, props.NumCaches, caches.data()), HSAKMT_STATUS_SUCCESS);
  HSAuint32 l1_kib = 0;
  HSAuint32 l2_kib = 0;
  for (const HsaCacheProperties& cache : caches) {
    EXPECT_EQ(cache.ProcessorIdLow, props.FComputeIdLo);
    EXPECT_EQ(cache.CacheType.ui32.HSACU, 1u);
    EXPECT_EQ(cache.SiblingMap[0], 1u) << "the first CU shares every cache it names";
    if (cache.CacheLevel == 1 && l1_kib == 0) l1_kib = cache.CacheSize;
    if (cache.CacheLevel == 2 && l2_kib == 0) l2_kib = cache.CacheSize;
  }
  EXPECT_EQ(l1_kib, 32u) << "MI300X vector L1";
  EXPECT_EQ(l2_kib, 4096u) << "MI300X L2 per XCD";

  EXPECT_EQ(hsaKmtGetNodeCacheProperties(gpu, 0, 0, caches.data()), HSAKMT_STATUS_SUCCESS) << "zero of them";
}

// The kernel lists no CPU caches; libhsakmt reads the host's (host_cpu.h), sizes in bytes, the CPU bit set.
TEST_F(HsakmtCApiTest, CpuNodeCachesAreTheHostsInBytes) {
  HsaNodeProperties cpu{};
  ASSERT_EQ(hsaKmtGetNodeProperties(0, &cpu), HSAKMT_STATUS_SUCCESS);
  std::ifstream cpuinfo(hipmem::thunk::HostCpuPaths().cpuinfo);
  std::stringstream text;
  text << cpuinfo.rdbuf();
  const std::vector<hipmem::thunk::Cache> host =
      hipmem::thunk::HostCpuCaches(0, hipmem::thunk::ParseCpuInfo(text.str()), hipmem::thunk::HostCpuPaths());
  ASSERT_EQ(cpu.NumCaches, host.size());
  std::vector<HsaCacheProperties> caches(cpu.NumCaches + 1);
  ASSERT_EQ(hsaKmtGetNodeCacheProperties(0, cpu.CComputeIdLo, cpu.NumCaches, caches.data()), HSAKMT_STATUS_SUCCESS);
  for (size_t i = 0; i < host.size(); ++i) {
    EXPECT_EQ(caches[i].CacheType.ui32.CPU, 1u);
    EXPECT_EQ(caches[i].CacheLevel, host[i].level);
    EXPECT_EQ(caches[i].CacheSize, host[i].size.raw()) << "bytes, not KiB";
  }
}

TEST_F(HsakmtCApiTest, CacheAndIoLinkQueriesRefuseBadArguments) {
  const HSAuint32 gpu = FirstGpuNode();
  HsaNodeProperties props{};
  ASSERT_EQ(hsaKmtGetNodeProperties(gpu, &props), HSAKMT_STATUS_SUCCESS);
  std::vector<HsaCacheProperties> caches(props.NumCaches + 1);
  std::vector<HsaIoLinkProperties> links(props.NumIOLinks + 1);
  EXPECT_EQ(hsaKmtGetNodeCacheProperties(gpu, 0, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtGetNodeIoLinkProperties(gpu, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtGetNodeCacheProperties(999, 0, 1, caches.data()), HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(hsaKmtGetNodeIoLinkProperties(999, 1, links.data()), HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(hsaKmtGetNodeCacheProperties(gpu, 0, props.NumCaches + 1, caches.data()),
            HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtGetNodeIoLinkProperties(gpu, props.NumIOLinks + 1, links.data()), HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST(HsakmtClosedTest, CacheAndIoLinkQueriesNeedAnOpenKfdButCheckPointersFirst) {
  HsaCacheProperties cache{};
  HsaIoLinkProperties link{};
  EXPECT_EQ(hsaKmtGetNodeCacheProperties(0, 0, 1, &cache), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtGetNodeIoLinkProperties(0, 1, &link), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtGetNodeCacheProperties(0, 0, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtGetNodeIoLinkProperties(0, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_F(HsakmtCApiTest, ZeroSizeAndNullPointerAllocationsAreInvalidParameter) {
  // kfdtest ZeroMemorySizeAlloc / InvalidMemoryPointerAlloc.
  void* p = nullptr;
  EXPECT_EQ(hsaKmtAllocMemory(FirstGpuNode(), 0, VramFlags(), &p), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtAllocMemory(FirstGpuNode(), 4096, VramFlags(), nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_F(HsakmtCApiTest, AllocMapUnmapFreeRestoresAvailableMemory) {
  const HSAuint32 gpu = FirstGpuNode();
  HSAuint64 before = 0;
  ASSERT_EQ(hsaKmtAvailableMemory(gpu, &before), HSAKMT_STATUS_SUCCESS);
  void* p = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(gpu, 1 << 20, VramFlags(), &p), HSAKMT_STATUS_SUCCESS);
  std::memset(p, 0x11, 1 << 20);  // host-visible VRAM
  HSAuint64 during = 0;
  ASSERT_EQ(hsaKmtAvailableMemory(gpu, &during), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(before - during, 1u << 20);
  HSAuint64 gpu_va = 0;
  ASSERT_EQ(hsaKmtMapMemoryToGPU(p, 1 << 20, &gpu_va), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(gpu_va, reinterpret_cast<uintptr_t>(p));
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(p), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtFreeMemory(p, 1 << 20), HSAKMT_STATUS_SUCCESS);
  HSAuint64 after = 0;
  ASSERT_EQ(hsaKmtAvailableMemory(gpu, &after), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(after, before);
}

TEST_F(HsakmtCApiTest, MapOfUnknownAddressIsInvalidHandle) {
  int local = 0;
  EXPECT_EQ(hsaKmtMapMemoryToGPU(&local, sizeof(local), nullptr), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(&local), HSAKMT_STATUS_INVALID_HANDLE);
}

TEST_F(HsakmtCApiTest, MapToExplicitNodesNeedsGpuNodes) {
  const HSAuint32 gpu = FirstGpuNode();
  void* p = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(gpu, 4096, VramFlags(), &p), HSAKMT_STATUS_SUCCESS);
  HSAuint32 nodes[] = {gpu};
  HsaMemMapFlags map_flags{};
  EXPECT_EQ(hsaKmtMapMemoryToGPUNodes(p, 4096, nullptr, map_flags, 1, nodes), HSAKMT_STATUS_SUCCESS);
  HSAuint32 cpu_only[] = {0};
  EXPECT_EQ(hsaKmtMapMemoryToGPUNodes(p, 4096, nullptr, map_flags, 1, cpu_only), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtFreeMemory(p, 4096), HSAKMT_STATUS_SUCCESS);
}

}  // namespace
