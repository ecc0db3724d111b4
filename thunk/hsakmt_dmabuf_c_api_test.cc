// hsaKmtExportDMABufHandle and hsaKmtRegisterGraphicsHandleToNodes(Ext) through the C API, in one process on the
// default simulated machine: a buffer exported and imported back is the same memory at a second GPU address.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "testing/kfd_sim/simulator.h"
#include "thunk/kfd.h"
#include "thunk/kfd_device_sim.h"
#include "thunk/shared_kfd.h"

namespace {

constexpr HSAuint64 kSize = 64 * 1024;

class HsakmtDmaBufTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys{};
    ASSERT_EQ(hsaKmtAcquireSystemProperties(&sys), HSAKMT_STATUS_SUCCESS);
    for (HSAuint32 n = 0; n < sys.NumNodes && gpu_node_ == 0; ++n) {
      HsaNodeProperties props{};
      ASSERT_EQ(hsaKmtGetNodeProperties(n, &props), HSAKMT_STATUS_SUCCESS);
      if (props.KFDGpuID != 0) {
        gpu_node_ = n;
        gpu_id_ = props.KFDGpuID;
      }
    }
    ASSERT_NE(gpu_node_, 0u);
  }
  void TearDown() override { EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS); }

  // What this process's GPU reads at `va` (the import is not CPU-mapped, as in libhsakmt).
  std::vector<uint8_t> GpuBytes(const void* va, size_t size) {
    std::vector<uint8_t> out(size);
    absl::StatusOr<hipmem::thunk::Kfd*> kfd = hipmem::thunk::SharedKfd();
    EXPECT_TRUE(kfd.ok());
    if (!kfd.ok()) return {};
    EXPECT_TRUE(hipmem::thunk::SimulatedFile((*kfd)->device())
                    ->ReadGpuMemory(gpu_id_, hipmem::DeviceAddress::FromPointer(va), hipmem::Bytes(size), out.data()));
    return out;
  }

  HSAuint32 gpu_node_ = 0;
  HSAuint32 gpu_id_ = 0;
};

TEST(HsakmtDmaBufClosedTest, EveryCallNeedsAnOpenKfd) {
  int fd = -1;
  HSAuint64 offset = 0;
  HsaGraphicsResourceInfo info{};
  HSA_REGISTER_MEM_FLAGS flags{};
  EXPECT_EQ(hsaKmtExportDMABufHandle(&fd, 4, &fd, &offset), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtRegisterGraphicsHandleToNodes(0, &info, 0, nullptr), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtRegisterGraphicsHandleToNodesExt(0, &info, 0, nullptr, flags),
            HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
}

TEST_F(HsakmtDmaBufTest, ExportedBufferImportedBackIsTheSameMemory) {
  HsaMemFlags mem{};
  mem.ui32.NonPaged = 1;
  mem.ui32.HostAccess = 1;
  mem.ui32.CoarseGrain = 1;
  void* original = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(gpu_node_, kSize, mem, &original), HSAKMT_STATUS_SUCCESS);
  auto* bytes = static_cast<uint8_t*>(original);
  for (HSAuint64 i = 0; i < kSize; ++i) bytes[i] = static_cast<uint8_t>(i ^ 0xa5);
  ASSERT_EQ(hsaKmtMapMemoryToGPU(original, kSize, nullptr), HSAKMT_STATUS_SUCCESS);

  int fd = -1;
  HSAuint64 offset = 1;
  ASSERT_EQ(hsaKmtExportDMABufHandle(bytes + 4096, 4096, &fd, &offset), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(offset, 4096u);
  ASSERT_GE(fd, 0);

  HsaGraphicsResourceInfo info{};
  HSAuint32 nodes[] = {gpu_node_};
  ASSERT_EQ(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(fd), &info, 1, nodes), HSAKMT_STATUS_SUCCESS);
  ASSERT_NE(info.MemoryAddress, nullptr);
  EXPECT_NE(info.MemoryAddress, original) << "a second GPU address for the same pages";
  EXPECT_EQ(info.SizeInBytes, kSize) << "the whole buffer, whatever the exported range";
  EXPECT_EQ(info.NodeId, gpu_node_);
  EXPECT_EQ(info.MetadataSizeInBytes, 0u);
  EXPECT_EQ(info.Metadata, nullptr);

  HSAuint64 gpu_va = 0;
  ASSERT_EQ(hsaKmtMapMemoryToGPUNodes(info.MemoryAddress, kSize, &gpu_va, HsaMemMapFlags{}, 1, nodes),
            HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(gpu_va, reinterpret_cast<uintptr_t>(info.MemoryAddress));
  EXPECT_EQ(GpuBytes(info.MemoryAddress, kSize), GpuBytes(original, kSize));
  EXPECT_EQ(GpuBytes(info.MemoryAddress, 1)[0], 0xa5);

  HsaPointerInfo pointer{};
  ASSERT_EQ(hsaKmtQueryPointerInfo(static_cast<uint8_t*>(info.MemoryAddress) + 100, &pointer),
            HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(pointer.Type, HSA_POINTER_REGISTERED_GRAPHICS);
  EXPECT_EQ(pointer.Node, gpu_node_);
  EXPECT_EQ(pointer.NRegisteredNodes, 1u);
  EXPECT_EQ(pointer.NMappedNodes, 1u);

  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(info.MemoryAddress), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtFreeMemory(info.MemoryAddress, kSize), HSAKMT_STATUS_SUCCESS);
  close(fd);
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(original), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtFreeMemory(original, kSize), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtDmaBufTest, ErrorsAreUpstreams) {
  int fd = -1;
  HSAuint64 offset = 0;
  int not_gpu_memory = 0;
  EXPECT_EQ(hsaKmtExportDMABufHandle(&not_gpu_memory, 4, &fd, &offset), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtExportDMABufHandle(&not_gpu_memory, 4, nullptr, &offset), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtExportDMABufHandle(&not_gpu_memory, 4, &fd, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);

  HsaGraphicsResourceInfo info{};
  EXPECT_EQ(hsaKmtRegisterGraphicsHandleToNodes(1'000'000, &info, 0, nullptr), HSAKMT_STATUS_ERROR) << "EBADF";
  EXPECT_EQ(hsaKmtRegisterGraphicsHandleToNodes(1'000'000, nullptr, 0, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  HSAuint32 node = gpu_node_;
  EXPECT_EQ(hsaKmtRegisterGraphicsHandleToNodes(1'000'000, &info, 0, &node), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtRegisterGraphicsHandleToNodes(1'000'000, &info, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  HSAuint32 bad_node = 1000;
  EXPECT_EQ(hsaKmtRegisterGraphicsHandleToNodes(1'000'000, &info, 1, &bad_node), HSAKMT_STATUS_INVALID_NODE_UNIT);
}

}  // namespace
