// hsaKmtShareMemory / hsaKmtRegisterSharedHandle(ToNodes) through the C API only, in one OS process: a process may
// import its own handle (a second buffer of its own over the same pages, as with the kernel), every refused call
// answers its code and leaves nothing behind. Across OS processes: hsakmt_fork_c_api_test (kfdtest's BasicTest).
#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_test_nodes.h"

namespace {

using ::hipmem_testing::FirstGpuNode;

constexpr HSAuint64 kBytes = 65536;

HsaMemFlags HostVisibleVram() {
  HsaMemFlags flags{};
  flags.ui32.NonPaged = 1;
  flags.ui32.HostAccess = 1;
  flags.ui32.CoarseGrain = 1;
  return flags;
}

TEST(HsakmtIpcClosedTest, EveryCallAnswersNotOpenedBeforeOpenKfd) {
  HsaSharedMemoryHandle handle{};
  void* address = nullptr;
  HSAuint64 size = 0;
  HSAuint32 node = 1;
  EXPECT_EQ(hsaKmtShareMemory(&size, 4096, &handle), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtRegisterSharedHandle(&handle, &address, &size), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtRegisterSharedHandleToNodes(&handle, &address, &size, 1, &node),
            HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
}

class HsakmtIpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    gpu_ = FirstGpuNode();
    ASSERT_NE(gpu_, 0u);
    ASSERT_EQ(hsaKmtAvailableMemory(gpu_, &available_), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(hsaKmtAllocMemory(gpu_, kBytes, HostVisibleVram(), &vram_), HSAKMT_STATUS_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(hsaKmtFreeMemory(vram_, kBytes), HSAKMT_STATUS_SUCCESS);
    HSAuint64 available = 0;
    EXPECT_EQ(hsaKmtAvailableMemory(gpu_, &available), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(available, available_) << "every buffer, import and reservation went back";
    EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  }

  HSAuint32 gpu_ = 0;
  HSAuint64 available_ = 0;
  void* vram_ = nullptr;
};

TEST_F(HsakmtIpcTest, AProcessImportsItsOwnHandleOverTheSamePages) {
  std::memset(vram_, 0x42, kBytes);
  HsaSharedMemoryHandle handle{};
  ASSERT_EQ(hsaKmtShareMemory(vram_, kBytes, &handle), HSAKMT_STATUS_SUCCESS);
  HsaSharedMemoryHandle again{};
  ASSERT_EQ(hsaKmtShareMemory(vram_, kBytes, &again), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(std::memcmp(handle, again, sizeof(handle)), 0) << "one buffer, one handle";

  void* imported = nullptr;
  HSAuint64 size = 0;
  HSAuint32 nodes[] = {gpu_};
  ASSERT_EQ(hsaKmtRegisterSharedHandleToNodes(&handle, &imported, &size, 1, nodes), HSAKMT_STATUS_SUCCESS);
  EXPECT_NE(imported, vram_) << "a VA of its own";
  EXPECT_EQ(size, kBytes);
  EXPECT_EQ(static_cast<const uint8_t*>(imported)[kBytes - 1], 0x42);
  static_cast<uint8_t*>(imported)[0] = 0x17;
  EXPECT_EQ(static_cast<const uint8_t*>(vram_)[0], 0x17) << "the same pages";

  HsaPointerInfo info{};
  ASSERT_EQ(hsaKmtQueryPointerInfo(imported, &info), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(info.Type, HSA_POINTER_REGISTERED_SHARED);
  EXPECT_EQ(info.Node, gpu_);
  EXPECT_EQ(info.GPUAddress, reinterpret_cast<HSAuint64>(imported));
  EXPECT_EQ(info.CPUAddress, nullptr);
  EXPECT_EQ(info.SizeInBytes, kBytes);
  EXPECT_EQ(info.MemFlags.Value, HostVisibleVram().Value);
  ASSERT_EQ(info.NRegisteredNodes, 1u);
  EXPECT_EQ(info.RegisteredNodes[0], gpu_);

  ASSERT_EQ(hsaKmtMapMemoryToGPU(imported, size, nullptr), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtQueryPointerInfo(imported, &info), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(info.NMappedNodes, 1u);
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(imported), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDeregisterMemory(imported), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtQueryPointerInfo(imported, &info), HSAKMT_STATUS_ERROR) << "gone";
  EXPECT_EQ(hsaKmtDeregisterMemory(imported), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
}

TEST_F(HsakmtIpcTest, MissingPointersAndBadNodeListsAreInvalidParameters) {
  HsaSharedMemoryHandle handle{};
  ASSERT_EQ(hsaKmtShareMemory(vram_, kBytes, &handle), HSAKMT_STATUS_SUCCESS);
  void* address = nullptr;
  HSAuint64 size = 0;
  HSAuint32 nodes[] = {gpu_};
  HSAuint32 unknown[] = {999};
  EXPECT_EQ(hsaKmtShareMemory(vram_, kBytes, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtRegisterSharedHandle(nullptr, &address, &size), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtRegisterSharedHandle(&handle, nullptr, &size), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtRegisterSharedHandle(&handle, &address, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtRegisterSharedHandleToNodes(&handle, &address, &size, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtRegisterSharedHandleToNodes(&handle, &address, &size, 0, nodes), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtRegisterSharedHandleToNodes(&handle, &address, &size, 1, unknown),
            HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(address, nullptr) << "a refused call writes nothing";
  EXPECT_EQ(size, 0u);
}

TEST_F(HsakmtIpcTest, OnlyAWholeAllocationFromItsStartIsShared) {
  HsaSharedMemoryHandle handle{};
  EXPECT_EQ(hsaKmtShareMemory(static_cast<char*>(vram_) + 4096, 4096, &handle), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtShareMemory(vram_, kBytes / 2, &handle), HSAKMT_STATUS_INVALID_PARAMETER) << "size mismatch";
  EXPECT_EQ(hsaKmtShareMemory(vram_, kBytes * 2, &handle), HSAKMT_STATUS_INVALID_PARAMETER) << "size mismatch";
  EXPECT_EQ(hsaKmtShareMemory(vram_, HSAuint64{1} << 44, &handle), HSAKMT_STATUS_INVALID_PARAMETER);
  int on_stack = 0;
  EXPECT_EQ(hsaKmtShareMemory(&on_stack, 4096, &handle), HSAKMT_STATUS_INVALID_PARAMETER) << "not an allocation";
}

TEST_F(HsakmtIpcTest, ForgedOrReleasedHandlesAreErrorsAndLeaveNothing) {
  void* other = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(gpu_, kBytes, HostVisibleVram(), &other), HSAKMT_STATUS_SUCCESS);
  HsaSharedMemoryHandle handle{};
  ASSERT_EQ(hsaKmtShareMemory(other, kBytes, &handle), HSAKMT_STATUS_SUCCESS);
  HsaSharedMemoryHandle forged{};
  std::memcpy(forged, handle, sizeof(forged));
  forged[0] ^= 0x100;  // a word of the kernel's 128-bit name
  void* address = nullptr;
  HSAuint64 size = 0;
  EXPECT_EQ(hsaKmtRegisterSharedHandle(&forged, &address, &size), HSAKMT_STATUS_ERROR);
  ASSERT_EQ(hsaKmtFreeMemory(other, kBytes), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtRegisterSharedHandle(&handle, &address, &size), HSAKMT_STATUS_ERROR)
      << "the buffer is gone with its only holder";
  EXPECT_EQ(address, nullptr);
  // TearDown checks that the VRAM is all back.
}

}  // namespace
