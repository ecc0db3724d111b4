// kfdtest-style checks of hsaKmtRegisterMemory*, hsaKmtDeregisterMemory, hsaKmtQueryPointerInfo and
// hsaKmtSetMemoryUserData through the C API only, on the default simulated machine.
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_test_nodes.h"

namespace {

constexpr uintptr_t kPage = 4096;

uintptr_t Raw(const void* p) { return reinterpret_cast<uintptr_t>(p); }

class HsakmtRegisterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    gpu_nodes_ = hipmem_testing::GpuNodes();
    ASSERT_FALSE(gpu_nodes_.empty());
  }
  void TearDown() override { EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS); }

  std::vector<HSAuint32> gpu_nodes_;
};

TEST(HsakmtRegisterClosedTest, EveryCallNeedsAnOpenKfd) {
  int x = 0;
  HsaPointerInfo info{};
  EXPECT_EQ(hsaKmtRegisterMemory(&x, sizeof(x)), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtDeregisterMemory(&x), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtQueryPointerInfo(&x, &info), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtSetMemoryUserData(&x, nullptr), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
}

TEST_F(HsakmtRegisterTest, RegisteredHeapBufferMapsAtItsOwnGpuAddress) {
  std::vector<char> heap(2 * kPage);
  void* p = heap.data() + 24;
  const HSAuint64 size = 1000;
  ASSERT_EQ(hsaKmtRegisterMemory(p, size), HSAKMT_STATUS_SUCCESS);
  HSAuint64 gpu_va = 0;
  ASSERT_EQ(hsaKmtMapMemoryToGPU(p, size, &gpu_va), HSAKMT_STATUS_SUCCESS);
  EXPECT_NE(gpu_va, Raw(p)) << "a userptr buffer has a GPU VA of its own without the SVM API";
  EXPECT_EQ(gpu_va % kPage, Raw(p) % kPage);

  HsaPointerInfo info{};
  ASSERT_EQ(hsaKmtQueryPointerInfo(p, &info), HSAKMT_STATUS_SUCCESS);
  // Copies: 8-byte fields at 4-byte offsets in this pack(4) struct.
  void* const cpu_address = info.CPUAddress;
  const HSAuint64 gpu_address = info.GPUAddress;
  const HSAuint64 info_size = info.SizeInBytes;
  const HSAuint32* const mapped = info.MappedNodes;
  const HSAuint32* const registered = info.RegisteredNodes;
  EXPECT_EQ(info.Type, HSA_POINTER_REGISTERED_USER);
  EXPECT_EQ(cpu_address, p);
  EXPECT_EQ(gpu_address, gpu_va);
  EXPECT_EQ(info_size, size);
  EXPECT_EQ(info.MemFlags.ui32.CoarseGrain, 1u) << "hsaKmtRegisterMemory registers coarse-grained";
  EXPECT_EQ(info.NRegisteredNodes, 0u);
  EXPECT_EQ(registered, nullptr);
  ASSERT_EQ(info.NMappedNodes, gpu_nodes_.size());
  EXPECT_EQ(mapped[0], gpu_nodes_[0]);

  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(gpu_va)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDeregisterMemory(reinterpret_cast<void*>(gpu_va)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDeregisterMemory(p), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(hsaKmtQueryPointerInfo(p, &info), HSAKMT_STATUS_ERROR);
}

// kfdtest MemoryRegisterSamePtr.
TEST_F(HsakmtRegisterTest, SamePointerRegistersByPointerAndSize) {
  static volatile HSAuint32 mem[4];
  HSAuint64 gpuva1 = 0;
  HSAuint64 gpuva2 = 0;
  void* first = const_cast<HSAuint32*>(&mem[0]);
  // Same address, different size: two registrations.
  ASSERT_EQ(hsaKmtRegisterMemory(first, sizeof(HSAuint32) * 2), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtMapMemoryToGPU(first, sizeof(HSAuint32) * 2, &gpuva1), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtRegisterMemory(first, sizeof(HSAuint32)), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtMapMemoryToGPU(first, sizeof(HSAuint32), &gpuva2), HSAKMT_STATUS_SUCCESS);
  EXPECT_NE(gpuva1, gpuva2);
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(gpuva1)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDeregisterMemory(reinterpret_cast<void*>(gpuva1)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(gpuva2)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDeregisterMemory(reinterpret_cast<void*>(gpuva2)), HSAKMT_STATUS_SUCCESS);

  // Same address, same size: one registration counted twice, still usable after one release.
  void* second = const_cast<HSAuint32*>(&mem[2]);
  HsaMemMapFlags map_flags{};
  map_flags.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  map_flags.ui32.HostAccess = 1;
  std::vector<HSAuint32> nodes = gpu_nodes_;
  ASSERT_EQ(hsaKmtRegisterMemoryToNodes(second, sizeof(HSAuint32) * 2, nodes.size(), nodes.data()),
            HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtMapMemoryToGPUNodes(second, sizeof(HSAuint32) * 2, &gpuva1, map_flags, nodes.size(), nodes.data()),
            HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtRegisterMemoryToNodes(second, sizeof(HSAuint32) * 2, nodes.size(), nodes.data()),
            HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtMapMemoryToGPUNodes(second, sizeof(HSAuint32) * 2, &gpuva2, map_flags, nodes.size(), nodes.data()),
            HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(gpuva1, gpuva2);
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(gpuva1)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDeregisterMemory(reinterpret_cast<void*>(gpuva1)), HSAKMT_STATUS_SUCCESS);
  HsaPointerInfo info{};
  ASSERT_EQ(hsaKmtQueryPointerInfo(second, &info), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(info.NMappedNodes, nodes.size()) << "the other registration keeps it mapped";
  EXPECT_EQ(info.NRegisteredNodes, nodes.size());
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(gpuva2)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDeregisterMemory(reinterpret_cast<void*>(gpuva2)), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDeregisterMemory(second), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
}

TEST_F(HsakmtRegisterTest, BadRegistrationsAreRefused) {
  std::vector<char> heap(64);
  // No check of its own upstream: the kernel refuses these, reported as HSAKMT_STATUS_ERROR.
  EXPECT_EQ(hsaKmtRegisterMemory(nullptr, 64), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(hsaKmtRegisterMemory(heap.data(), 0), HSAKMT_STATUS_ERROR);
  // hsakmt_validate_nodeid_array.
  HSAuint32 node = gpu_nodes_[0];
  EXPECT_EQ(hsaKmtRegisterMemoryToNodes(heap.data(), 64, 0, &node), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtRegisterMemoryToNodes(heap.data(), 64, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  HSAuint32 bogus = 999;
  EXPECT_EQ(hsaKmtRegisterMemoryToNodes(heap.data(), 64, 1, &bogus), HSAKMT_STATUS_INVALID_NODE_UNIT);

  HsaMemFlags flags{};
  EXPECT_EQ(hsaKmtRegisterMemoryWithFlags(heap.data(), 64, flags), HSAKMT_STATUS_NOT_SUPPORTED) << "no HostAccess";
  flags.ui32.HostAccess = 1;
  flags.ui32.NonPaged = 1;
  EXPECT_EQ(hsaKmtRegisterMemoryWithFlags(heap.data(), 64, flags), HSAKMT_STATUS_NOT_SUPPORTED);
  flags.ui32.NonPaged = 0;
  flags.ui32.CoarseGrain = 1;
  flags.ui32.ExtendedCoherent = 1;
  EXPECT_EQ(hsaKmtRegisterMemoryWithFlags(heap.data(), 64, flags), HSAKMT_STATUS_INVALID_PARAMETER);

  int stranger = 0;
  EXPECT_EQ(hsaKmtDeregisterMemory(&stranger), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
  HsaPointerInfo info{};
  EXPECT_EQ(hsaKmtQueryPointerInfo(heap.data(), &info), HSAKMT_STATUS_ERROR) << "nothing was registered";
}

TEST_F(HsakmtRegisterTest, FineGrainedRegistrationWithFlags) {
  std::vector<char> heap(64);
  HsaMemFlags flags{};
  flags.ui32.HostAccess = 1;
  ASSERT_EQ(hsaKmtRegisterMemoryWithFlags(heap.data(), 64, flags), HSAKMT_STATUS_SUCCESS);
  HsaPointerInfo info{};
  ASSERT_EQ(hsaKmtQueryPointerInfo(heap.data(), &info), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(info.MemFlags.ui32.CoarseGrain, 0u);
  EXPECT_EQ(hsaKmtDeregisterMemory(heap.data()), HSAKMT_STATUS_SUCCESS);
}

// kfdtest QueryPointerInfo, allocated memory and strangers.
TEST_F(HsakmtRegisterTest, PointerInfoOfAllocationsAndStrangers) {
  HsaMemFlags flags{};
  flags.ui32.HostAccess = 1;
  flags.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  const HSAuint64 size = 8 * kPage;
  void* host = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(0, size, flags, &host), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtMapMemoryToGPU(host, size, nullptr), HSAKMT_STATUS_SUCCESS);
  HsaPointerInfo info{};
  ASSERT_EQ(hsaKmtQueryPointerInfo(static_cast<char*>(host) + 4, &info), HSAKMT_STATUS_SUCCESS);
  void* const cpu_address = info.CPUAddress;
  const HSAuint64 gpu_address = info.GPUAddress;
  const HSAuint64 info_size = info.SizeInBytes;
  EXPECT_EQ(info.Type, HSA_POINTER_ALLOCATED);
  EXPECT_EQ(info.Node, 0u);
  EXPECT_EQ(info.MemFlags.Value, flags.Value);
  EXPECT_EQ(cpu_address, host);
  EXPECT_EQ(gpu_address, Raw(host));
  EXPECT_EQ(info_size, size);
  EXPECT_EQ(info.NMappedNodes, gpu_nodes_.size());
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(host), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtQueryPointerInfo(host, &info), HSAKMT_STATUS_SUCCESS);
  const HSAuint32* const mapped = info.MappedNodes;
  EXPECT_EQ(info.NMappedNodes, 0u);
  EXPECT_EQ(mapped, nullptr);

  // An unknown pointer: zeroed, Type UNKNOWN, and an error.
  std::memset(&info, 0xab, sizeof(info));
  int stranger = 0;
  EXPECT_EQ(hsaKmtQueryPointerInfo(&stranger, &info), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(info.Type, HSA_POINTER_UNKNOWN);
  const HSAuint64 stranger_size = info.SizeInBytes;
  EXPECT_EQ(stranger_size, 0u);
  EXPECT_EQ(hsaKmtQueryPointerInfo(host, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtFreeMemory(host, size), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtRegisterTest, UserDataRoundTrips) {
  HsaMemFlags flags{};
  flags.ui32.HostAccess = 1;
  void* host = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(0, kPage, flags, &host), HSAKMT_STATUS_SUCCESS);
  char user_data[16] = "This is a test.";
  ASSERT_EQ(hsaKmtSetMemoryUserData(host, user_data), HSAKMT_STATUS_SUCCESS);
  HsaPointerInfo info{};
  ASSERT_EQ(hsaKmtQueryPointerInfo(host, &info), HSAKMT_STATUS_SUCCESS);
  void* const got = info.UserData;
  EXPECT_EQ(got, user_data);
  int stranger = 0;
  EXPECT_EQ(hsaKmtSetMemoryUserData(&stranger, user_data), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(hsaKmtFreeMemory(host, kPage), HSAKMT_STATUS_SUCCESS);
}

}  // namespace
