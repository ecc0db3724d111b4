#include "clr/blit_policy.h"

#include <vector>

#include "gtest/gtest.h"

namespace hipmem::clr {
namespace {

using Kind = CopySide::Kind;

const CopySide kPageable{Kind::kPageable};
const CopySide kHost{Kind::kHostDirect};
const CopySide kGpu0{Kind::kDevice, 0};
const CopySide kGpu1{Kind::kDevice, 1};

struct Case {
  const char* what;
  CopySide dst, src;
  Bytes size;
  bool prefer_sdma;
  CopyPath expected;
};

// Current CLR's defaults: GPU_FORCE_BLIT_COPY_SIZE 16 KiB, ROC_P2P_SDMA_SIZE 1 MiB.
TEST(ChooseCopyPath, FollowsCurrentClrWithDefaultSettings) {
  const Settings settings;
  const std::vector<Case> cases = {
      {"H2H pageable", kPageable, kPageable, Bytes::MiB(64), false, CopyPath::kHostMemcpy},
      {"H2D pageable small", kGpu0, kPageable, Bytes::KiB(16), false, CopyPath::kStagedShaderCopy},
      {"H2D pageable above 16 KiB", kGpu0, kPageable, Bytes::KiB(16) + Bytes(1), false,
       CopyPath::kStagedOrPinnedSdma},
      {"D2H pageable small", kPageable, kGpu0, Bytes(4), false, CopyPath::kStagedShaderCopy},
      {"D2H pageable large", kPageable, kGpu0, Bytes::MiB(64), false, CopyPath::kStagedOrPinnedSdma},
      {"pageable into pinned host", kHost, kPageable, Bytes::MiB(64), false, CopyPath::kHostMemcpy},
      {"pinned host into pageable", kPageable, kHost, Bytes(100), false, CopyPath::kHostMemcpy},
      {"H2D pinned small", kGpu0, kHost, Bytes::KiB(16), false, CopyPath::kShaderCopy},
      {"H2D pinned large", kGpu0, kHost, Bytes::MiB(64), false, CopyPath::kSdma},
      {"D2H pinned large", kHost, kGpu0, Bytes::MiB(1), false, CopyPath::kSdma},
      {"D2D small", kGpu0, kGpu0, Bytes(256), false, CopyPath::kShaderCopy},
      {"D2D large stays on the kernel", kGpu0, kGpu0, Bytes::GiB(1), false, CopyPath::kShaderCopy},
      {"D2D NoCU small", kGpu0, kGpu0, Bytes(256), true, CopyPath::kSdma},
      {"D2D NoCU large", kGpu0, kGpu0, Bytes::MiB(64), true, CopyPath::kSdma},
      {"P2P at the threshold", kGpu1, kGpu0, Bytes::MiB(1), false, CopyPath::kShaderCopyLimitedWg},
      {"P2P above the threshold", kGpu1, kGpu0, Bytes::MiB(1) + Bytes(1), false, CopyPath::kSdma},
      {"pinned to pinned small", kHost, kHost, Bytes::KiB(4), false, CopyPath::kShaderCopy},
      {"pinned to pinned large", kHost, kHost, Bytes::MiB(4), false, CopyPath::kHostMemcpy},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ChooseCopyPath(c.dst, c.src, c.size, c.prefer_sdma, settings), c.expected)
        << c.what << ": got " << CopyPathName(ChooseCopyPath(c.dst, c.src, c.size, c.prefer_sdma, settings));
  }
}

TEST(ChooseCopyPath, ThresholdsComeFromTheSettings) {
  Settings settings;
  settings.sdma_copy_threshold = Bytes(0);  // GPU_FORCE_BLIT_COPY_SIZE=0, the Oct-2024 default
  EXPECT_EQ(ChooseCopyPath(kGpu0, kPageable, Bytes(4), false, settings), CopyPath::kStagedOrPinnedSdma);
  EXPECT_EQ(ChooseCopyPath(kGpu0, kHost, Bytes(4), false, settings), CopyPath::kSdma);
  settings.sdma_p2p_threshold = Bytes::KiB(64);
  EXPECT_EQ(ChooseCopyPath(kGpu1, kGpu0, Bytes::KiB(65), false, settings), CopyPath::kSdma);
  EXPECT_EQ(ChooseCopyPath(kGpu1, kGpu0, Bytes::KiB(64), false, settings), CopyPath::kShaderCopyLimitedWg);
}

}  // namespace
}  // namespace hipmem::clr
