#include "thunk/amdgpu_ids.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/status/status.h"
#include "testing/status_matchers.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Optional;

TEST(AmdgpuIdsTest, CheckedInTableNamesEveryPresetPart) {
  ASSERT_OK_AND_ASSIGN(AmdgpuIds ids, AmdgpuIds::Load("thunk/testdata/amdgpu.ids"));
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_THAT(ids.Find(0x74a1, 0x00), Optional(std::string("AMD Instinct MI300X")));
  EXPECT_THAT(ids.Find(0x744c, 0xc8), Optional(std::string("AMD Radeon RX 7900 XTX")));
  EXPECT_THAT(ids.Find(0x744c, 0xcc), Optional(std::string("AMD Radeon RX 7900 XT")));
}

TEST(AmdgpuIdsTest, RevisionMustMatchExactly) {
  ASSERT_OK_AND_ASSIGN(AmdgpuIds ids, AmdgpuIds::Load("thunk/testdata/amdgpu.ids"));
  EXPECT_EQ(ids.Find(0x74a1, 0x01), std::nullopt);
  EXPECT_EQ(ids.Find(0x1234, 0x00), std::nullopt);
  EXPECT_EQ(ids.Find(0x174a1, 0x00), std::nullopt);  // not a 16-bit device id
}

TEST(AmdgpuIdsTest, FirstRowForAPairWins) {
  ASSERT_OK_AND_ASSIGN(AmdgpuIds ids, AmdgpuIds::Parse("1.0.0\n1234,\t00,\tFirst\n1234,\t00,\tSecond\n", "t"));
  EXPECT_THAT(ids.Find(0x1234, 0), Optional(std::string("First")));
}

TEST(AmdgpuIdsTest, MalformedRowsNameTheLine) {
  struct Row {
    const char* text;
    const char* cause;
  };
  constexpr Row kRows[] = {
      {"1.0.0\n1234, 00\n", "t:2): expected"},
      {"1.0.0\nXYZ,\t00,\tName\n", "t:2): device id"},
      {"1.0.0\n12345,\t00,\tName\n", "t:2): device id"},
      {"1.0.0\n# c\n1234,\t100,\tName\n", "t:3): revision id"},
      {"1.0.0\n1234,\t00,\t  \n", "t:2): empty product name"},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.text);
    EXPECT_THAT(AmdgpuIds::Parse(row.text, "t"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.cause)));
  }
}

TEST(AmdgpuIdsTest, MissingFileIsNotFound) {
  EXPECT_THAT(AmdgpuIds::Load("/nonexistent/amdgpu.ids"), StatusIs(absl::StatusCode::kNotFound));
}

TEST(AmdgpuIdsTest, MarketingNameKnowsPresetPartsAndNotOthers) {
  EXPECT_THAT(MarketingName(0x74a1, 0x00), Optional(std::string("AMD Instinct MI300X")));
  EXPECT_THAT(MarketingName(0x740c, 0x01), Optional(std::string("AMD Instinct MI250X / MI250")));
  EXPECT_THAT(MarketingName(0x738c, 0x01), Optional(std::string("AMD Instinct MI100")));
  EXPECT_THAT(MarketingName(0x744c, 0xc8), Optional(std::string("AMD Radeon RX 7900 XTX")));
  EXPECT_EQ(MarketingName(0xffff, 0xff), std::nullopt);
}

TEST(AmdgpuIdsTest, SystemTableParsesWhenInstalled) {
  absl::StatusOr<AmdgpuIds> ids = AmdgpuIds::Load(kSystemAmdgpuIdsPath);
  if (absl::IsNotFound(ids.status())) GTEST_SKIP() << "no libdrm-common on this machine";
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_GT(ids->size(), 100u);
  EXPECT_THAT(ids->Find(0x738c, 0x01), Optional(std::string("AMD Instinct MI100")));
}

TEST(AmdgpuIdsTest, PciRevisionFile) {
  const std::string path = ::testing::TempDir() + "/revision";
  const auto write = [&](const char* text) { std::ofstream(path) << text; };
  write("0xc8\n");
  EXPECT_THAT(ReadPciRevision(path), IsOkAndHolds(0xc8u));
  write("200\n");
  EXPECT_THAT(ReadPciRevision(path), StatusIs(absl::StatusCode::kInvalidArgument));
  write("0x100\n");
  EXPECT_THAT(ReadPciRevision(path), StatusIs(absl::StatusCode::kInvalidArgument));
  std::remove(path.c_str());
  EXPECT_THAT(ReadPciRevision(path), StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace hipmem::thunk
