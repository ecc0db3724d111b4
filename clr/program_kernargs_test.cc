// BuildKernargs' cooperative-launch workspace: the record the device libraries read through
// hidden_multigrid_sync_arg (ockl's mg_info, ROCclr's Device::MGSyncInfo) at the offsets they read it.
#include <cstdint>
#include <cstring>
#include <vector>

#include "clr/program.h"
#include "gtest/gtest.h"

namespace hipmem::clr {
namespace {

template <typename T>
T At(const std::vector<uint8_t>& bytes, size_t offset) {
  T value{};
  EXPECT_LE(offset + sizeof(T), bytes.size());
  if (offset + sizeof(T) <= bytes.size()) std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// A code object v5 kernel with one pointer argument: its hidden arguments start at 8, so hidden_multigrid_sync_arg
// (implicit offset 88) is at 96.
Kernel OnePointerKernel() {
  Kernel k;
  k.name = "k";
  k.kernarg_segment_size = 264;
  k.explicit_args = {{"p", 0, 8, "global_buffer", "global"}};
  k.hidden_args = {{"", 8, 4, "hidden_block_count_x", ""}, {"", 96, 8, "hidden_multigrid_sync_arg", ""}};
  return k;
}

TEST(BuildKernargs, AMultiDeviceGridsWorkspaceCarriesItsPlaceWhereOcklReadsIt) {
  const Kernel k = OnePointerKernel();
  uint64_t pointer = 0x1000;
  void* args[] = {&pointer};
  LaunchGeometry g;
  g.grid[0] = 256;
  g.workgroup[0] = 64;
  g.cooperative = true;
  g.multi_grid = MultiGridPlace{0x7f0012345000, 1, 2, 256, 512};
  absl::StatusOr<std::vector<uint8_t>> segment = BuildKernargs(k, ExplicitArgs{args, {}}, g);
  ASSERT_TRUE(segment.ok()) << segment.status();
  // The workspace: 64-byte aligned after the kernel's segment; its offset in the field until the stream relocates it.
  const uint64_t workspace = At<uint64_t>(*segment, 96);
  EXPECT_EQ(workspace, 320u);
  ASSERT_EQ(segment->size(), workspace + kGridSyncWorkspaceBytes);
  EXPECT_EQ(At<uint64_t>(*segment, workspace + 0), 0x7f0012345000u);  // the barrier dword every grid shares
  EXPECT_EQ(At<uint32_t>(*segment, workspace + 8), 1u);               // grid id
  EXPECT_EQ(At<uint32_t>(*segment, workspace + 12), 2u);              // number of grids
  EXPECT_EQ(At<uint64_t>(*segment, workspace + 16), 256u);            // work-items before this grid
  EXPECT_EQ(At<uint64_t>(*segment, workspace + 24), 512u);            // work-items of all grids
  for (uint32_t b = kGridBarrierOffset; b < kGridSyncWorkspaceBytes; ++b) {
    EXPECT_EQ((*segment)[workspace + b], 0) << "byte " << b << ": the grid barrier starts at 0";
  }
  EXPECT_EQ(At<uint64_t>(*segment, 0), 0x1000u);
  EXPECT_EQ(At<uint32_t>(*segment, 8), 4u);
}

TEST(BuildKernargs, ASingleDeviceCooperativeWorkspaceHasNoGrids) {
  const Kernel k = OnePointerKernel();
  uint64_t pointer = 0x1000;
  void* args[] = {&pointer};
  LaunchGeometry g;
  g.cooperative = true;
  absl::StatusOr<std::vector<uint8_t>> segment = BuildKernargs(k, ExplicitArgs{args, {}}, g);
  ASSERT_TRUE(segment.ok()) << segment.status();
  const uint64_t workspace = At<uint64_t>(*segment, 96);
  ASSERT_EQ(segment->size(), workspace + kGridSyncWorkspaceBytes);
  for (uint32_t b = 0; b < kGridSyncWorkspaceBytes; ++b) EXPECT_EQ((*segment)[workspace + b], 0) << "byte " << b;
}

TEST(BuildKernargs, APlainLaunchHasNoWorkspace) {
  const Kernel k = OnePointerKernel();
  uint64_t pointer = 0x1000;
  void* args[] = {&pointer};
  LaunchGeometry g;
  g.multi_grid = MultiGridPlace{0x7f0012345000, 0, 1, 0, 64};  // ignored without `cooperative`
  absl::StatusOr<std::vector<uint8_t>> segment = BuildKernargs(k, ExplicitArgs{args, {}}, g);
  ASSERT_TRUE(segment.ok()) << segment.status();
  EXPECT_EQ(segment->size(), 264u);
  EXPECT_EQ(At<uint64_t>(*segment, 96), 0u);
}

}  // namespace
}  // namespace hipmem::clr
