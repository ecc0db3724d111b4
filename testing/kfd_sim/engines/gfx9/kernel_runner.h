// For the engine's tests: a code object loaded into host memory that an identity page table maps (GPU VA == host
// address), and kernels from it run on the compute units directly, without a queue.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_KERNEL_RUNNER_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_KERNEL_RUNNER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/dispatch.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/test_memory.h"

namespace hipmem::kfd_sim::gfx9 {

// Owns the loaded image; maps it into `memory` (which must outlive this) and unmaps it when destroyed.
class LoadedCodeObject {
 public:
  // Parses the code object, copies its PT_LOAD segments to a 64 KiB-aligned block and applies its dynamic
  // relocations (RELATIVE64 and ABS64 against its own symbols).
  static absl::StatusOr<std::unique_ptr<LoadedCodeObject>> Load(std::string_view elf, IdentityPageTable* memory);
  ~LoadedCodeObject();

  // The VA of `kernel`'s descriptor (`<kernel>.kd`).
  absl::StatusOr<uint64_t> KernelObject(std::string_view kernel) const;

 private:
  LoadedCodeObject() = default;
  IdentityPageTable* memory_ = nullptr;
  unsigned char* base_ = nullptr;
  uint64_t bytes_ = 0;
  std::vector<std::pair<std::string, uint64_t>> symbols_;
};

struct Launch {
  std::array<uint32_t, 3> grid = {1, 1, 1};       // work-items per dimension
  std::array<uint32_t, 3> workgroup = {1, 1, 1};  // work-items per workgroup
  const void* kernargs = nullptr;                 // mapped by the caller
  uint32_t group_segment_size = 0;                // dynamic LDS
  uint32_t compute_units = 1;                     // whose resident workgroups the calling thread holds
  std::shared_ptr<GwsBlock> gws = nullptr;        // the queue's global wave sync, if it has one
};

struct RunResult {
  std::optional<DispatchFailure> failure;
  uint64_t instructions = 0;
};

// Runs every workgroup of the dispatch on the calling thread, started in order and resident up to
// `launch.compute_units` units' occupancy (KernelDispatch::RunUnits). The kernarg block must be mapped.
absl::StatusOr<RunResult> RunKernel(IdentityPageTable* memory, Target target, uint64_t kernel_object,
                                    const Launch& launch);

// Code object v5's hidden kernel arguments (AMDGPUUsage's hidden kernarg layout) as a runtime fills them for a 1-D
// launch: block counts, group sizes, remainders; the rest zero. Kernels read their workgroup size from here.
struct HiddenArgs {
  uint32_t block_count[3];
  uint16_t group_size[3];
  uint16_t remainder[3];
  uint32_t rest[58];
};
HiddenArgs Hidden1d(uint32_t grid, uint16_t workgroup);

// One GFX9 target's build of a test code object, for suites that run on gfx908, gfx90a and gfx942.
struct TargetCase {
  Target target;
  const char* name;
  std::string_view (*code_object)();
};
// The three cases, from the code object's three builds; use with ::testing::ValuesIn and TargetCaseName.
std::vector<TargetCase> Gfx9Targets(std::string_view (*gfx908)(), std::string_view (*gfx90a)(),
                                    std::string_view (*gfx942)());
std::string TargetCaseName(const ::testing::TestParamInfo<TargetCase>& info);

// A fixture with the case's code object loaded into an identity page table (memory_, code_).
class CodeObjectTest : public ::testing::TestWithParam<TargetCase> {
 protected:
  void SetUp() override;

  IdentityPageTable memory_;
  std::unique_ptr<LoadedCodeObject> code_;
};

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_KERNEL_RUNNER_H_
