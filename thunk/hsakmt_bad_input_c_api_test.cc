// Bad input through the hsaKmt C API, one row per case, each asserting the code current libhsakmt answers (issue
// #24 §5). The comment on a row names the libhsakmt function (ROCm/ROCT-Thunk-Interface, now ROCm/rocm-systems
// projects/rocr-runtime/libhsakmt/src) that decides it.
#include <cstdint>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_test_nodes.h"

namespace {

struct Env {
  HSAuint32 gpu_node = 0;
  void* buffer = nullptr;   // a live, unmapped system-memory allocation
  void* unknown = nullptr;  // an address no allocation holds
};

struct Row {
  const char* name;
  HSAKMT_STATUS (*call)(const Env&);
  HSAKMT_STATUS expected;
};

constexpr Row kRows[] = {
    // memory.c hsaKmtUnmapMemoryToGPU: a null address succeeds ("workaround for runtime bug").
    {"hsaKmtUnmapMemoryToGPU(nullptr)", [](const Env&) { return hsaKmtUnmapMemoryToGPU(nullptr); },
     HSAKMT_STATUS_SUCCESS},
    // fmm.c hsakmt_fmm_release: an address of no allocation succeeds when the SVM API is supported (the simulated
    // GPUs advertise it), since it may be an SVM range.
    {"hsaKmtFreeMemory(unknown)", [](const Env& e) { return hsaKmtFreeMemory(e.unknown, 4096); },
     HSAKMT_STATUS_SUCCESS},
    // memory.c hsaKmtFreeMemory: a null address is an ERROR ("freeing NULL pointer").
    {"hsaKmtFreeMemory(nullptr)", [](const Env&) { return hsaKmtFreeMemory(nullptr, 0); }, HSAKMT_STATUS_ERROR},
    // memory.c hsaKmtMapMemoryToGPU: a null address is an ERROR ("mapping NULL pointer").
    {"hsaKmtMapMemoryToGPU(nullptr)",
     [](const Env&) {
       HSAuint64 va = 0;
       return hsaKmtMapMemoryToGPU(nullptr, 4096, &va);
     },
     HSAKMT_STATUS_ERROR},
    // memory.c hsaKmtMapMemoryToGPUNodes: a null address is an ERROR before the node list is read.
    {"hsaKmtMapMemoryToGPUNodes(nullptr)",
     [](const Env& e) {
       HSAuint32 nodes[1] = {e.gpu_node};
       HSAuint64 va = 0;
       return hsaKmtMapMemoryToGPUNodes(nullptr, 4096, &va, HsaMemMapFlags{}, 1, nodes);
     },
     HSAKMT_STATUS_ERROR},
    // topology.c hsakmt_validate_nodeid_array takes a uint32_t count: 1 << 40 truncates to 0, INVALID_PARAMETER,
    // and the one-element array is never read past its end (ASan would say so).
    {"hsaKmtMapMemoryToGPUNodes(NumberOfNodes = 1 << 40)",
     [](const Env& e) {
       HSAuint32 nodes[1] = {e.gpu_node};
       HSAuint64 va = 0;
       return hsaKmtMapMemoryToGPUNodes(e.buffer, 4096, &va, HsaMemMapFlags{}, HSAuint64{1} << 40, nodes);
     },
     HSAKMT_STATUS_INVALID_PARAMETER},
    // The same truncation keeps only the low 32 bits: (1 << 40) + 1 is one node, and the map succeeds.
    {"hsaKmtMapMemoryToGPUNodes(NumberOfNodes = (1 << 40) + 1)",
     [](const Env& e) {
       HSAuint32 nodes[1] = {e.gpu_node};
       HSAuint64 va = 0;
       HSAKMT_STATUS mapped =
           hsaKmtMapMemoryToGPUNodes(e.buffer, 4096, &va, HsaMemMapFlags{}, (HSAuint64{1} << 40) + 1, nodes);
       if (mapped == HSAKMT_STATUS_SUCCESS) mapped = hsaKmtUnmapMemoryToGPU(e.buffer);
       return mapped;
     },
     HSAKMT_STATUS_SUCCESS},
    // memory.c hsaKmtRegisterMemoryToNodes -> hsakmt_validate_nodeid_array: the same truncation.
    {"hsaKmtRegisterMemoryToNodes(NumberOfNodes = 1 << 40)",
     [](const Env& e) {
       HSAuint32 nodes[1] = {e.gpu_node};
       return hsaKmtRegisterMemoryToNodes(e.unknown, 4096, HSAuint64{1} << 40, nodes);
     },
     HSAKMT_STATUS_INVALID_PARAMETER},
};

TEST(HsakmtBadInput, EachCaseAnswersLibhsakmtsCode) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  Env env;
  env.gpu_node = hipmem_testing::FirstGpuNode();
  ASSERT_NE(env.gpu_node, 0u);
  HsaMemFlags flags{};
  flags.ui32.HostAccess = 1;
  flags.ui32.CoarseGrain = 1;
  ASSERT_EQ(hsaKmtAllocMemory(0, 4096, flags, &env.buffer), HSAKMT_STATUS_SUCCESS);
  alignas(4096) static uint8_t not_allocated[4096];
  env.unknown = not_allocated;
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(row.call(env), row.expected);
  }
  EXPECT_EQ(hsaKmtFreeMemory(env.buffer, 4096), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
}

}  // namespace
