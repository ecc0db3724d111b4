#include "testing/kfd_sim/bo_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "base/units.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/status_matchers.h"

namespace hipmem::kfd_sim {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::NoFreeDescriptors;
using ::hipmem_testing::StatusIs;

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

// Fills the pages with `byte` through a CPU mapping of their range, as a client writes a buffer.
void Fill(BoPages& pages, char byte) {
  ASSERT_OK_AND_ASSIGN(const BoPages::FileRange range, pages.File());
  void* cpu = mmap(nullptr, pages.size().raw(), PROT_READ | PROT_WRITE, MAP_SHARED, range.fd,
                   static_cast<off_t>(range.offset));
  ASSERT_NE(cpu, MAP_FAILED);
  std::memset(cpu, byte, pages.size().raw());
  munmap(cpu, pages.size().raw());
}

// Returns whether the file's page at `offset` holds memory (SEEK_DATA lands on it).
bool HasData(int fd, uint64_t offset) { return lseek(fd, static_cast<off_t>(offset), SEEK_DATA) == static_cast<off_t>(offset); }

TEST(BoPagesTest, UntouchedPagesOpenNoFile) {
  // A buffer that is only allocated, GPU-mapped and freed must not cost a descriptor or a system call.
  auto file = std::make_shared<PageFile>("kfd_sim vram");
  std::vector<std::shared_ptr<BoPages>> buffers;
  {
    const NoFreeDescriptors none;
    for (int i = 0; i < 64; ++i) {
      ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> pages, BoPages::Create(file, Bytes::MiB(2)));
      buffers.push_back(std::move(pages));
    }
  }
  for (const auto& pages : buffers) EXPECT_FALSE(pages->touched());
  EXPECT_FALSE(file->has_file());
}

TEST(BoPagesTest, BuffersShareOneFileAtDisjointRanges) {
  auto file = std::make_shared<PageFile>("kfd_sim vram");
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> a, BoPages::Create(file, Bytes::KiB(8)));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> b, BoPages::Create(file, Bytes::KiB(4)));
  ASSERT_OK_AND_ASSIGN(const BoPages::FileRange ra, a->File());
  ASSERT_OK_AND_ASSIGN(const BoPages::FileRange rb, b->File());
  EXPECT_EQ(ra.fd, rb.fd);
  EXPECT_GE(rb.offset, ra.offset + 8192) << "b's range must not overlap a's";
  Fill(*a, 'a');
  Fill(*b, 'b');
  EXPECT_EQ(static_cast<char>(a->EngineView()[8191]), 'a');
  EXPECT_EQ(static_cast<char>(b->EngineView()[0]), 'b');
}

TEST(BoPagesTest, FileClosesWithTheLastBufferAndItsFile) {
  int fd = -1;
  {
    auto file = std::make_shared<PageFile>("kfd_sim vram");
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> pages, BoPages::Create(std::move(file), Bytes::KiB(8)));
    ASSERT_OK_AND_ASSIGN(const BoPages::FileRange range, pages->File());
    fd = range.fd;
    EXPECT_TRUE(IsOpen(fd));
  }
  EXPECT_FALSE(IsOpen(fd));
}

TEST(BoPagesTest, FreedRangeIsNeverHandedOutAgainAndNewPagesAreZero) {
  // A stale CPU mapping of a freed buffer must never see (or write) the next buffer's data: the kernel keeps
  // a mapped BO alive, the simulator never reuses its range.
  auto file = std::make_shared<PageFile>("kfd_sim vram");
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> old_pages, BoPages::Create(file, Bytes::KiB(4)));
  ASSERT_OK_AND_ASSIGN(const BoPages::FileRange old_range, old_pages->File());
  void* stale = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, old_range.fd, static_cast<off_t>(old_range.offset));
  ASSERT_NE(stale, MAP_FAILED);
  std::memset(stale, 'x', 4096);
  old_pages.reset();  // freed while the CPU mapping remains

  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> next, BoPages::Create(file, Bytes::KiB(4)));
  EXPECT_NE(next->offset(), old_range.offset);
  std::byte* view = next->EngineView();
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view[0], std::byte{0}) << "fresh pages are zero";
  std::memset(stale, 'y', 4096);
  EXPECT_EQ(view[0], std::byte{0}) << "a stale mapping writes nothing the new buffer sees";
  view[1] = std::byte{'n'};
  EXPECT_EQ(static_cast<char*>(stale)[1], 'y');
  munmap(stale, 4096);
}

TEST(BoPagesTest, FreedPagesAreReturnedInBatches) {
  auto file = std::make_shared<PageFile>("kfd_sim vram");
  int fd = -1;
  std::vector<uint64_t> offsets;
  // Free touched buffers until a batch is due; every one of them must then hold no memory.
  const Bytes size = Bytes::MiB(2);
  const uint64_t per_batch = PageFile::kDiscardBatch.raw() / size.raw();
  for (uint64_t i = 0; i < per_batch; ++i) {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> pages, BoPages::Create(file, size));
    Fill(*pages, 'd');
    ASSERT_OK_AND_ASSIGN(const BoPages::FileRange range, pages->File());
    fd = range.fd;
    offsets.push_back(range.offset);
    EXPECT_TRUE(HasData(fd, range.offset));
    if (i + 1 < per_batch) {
      pages.reset();
      EXPECT_EQ(file->pending_discard(), Bytes(size.raw() * (i + 1))) << "punched before the batch was full";
    }
  }
  EXPECT_EQ(file->pending_discard(), Bytes(0));
  for (uint64_t offset : offsets) EXPECT_FALSE(HasData(fd, offset)) << "offset " << offset;
}

// A large buffer written only in its middle: freeing it punches from its first page of data on, so that page holds
// no memory afterwards, and the live buffer beside it keeps its data. One mapped but never written is dropped
// without a punch (no data to find), leaving its neighbours alone too.
TEST(BoPagesTest, FreedPagesArePunchedFromTheirFirstData) {
  auto file = std::make_shared<PageFile>("kfd_sim vram");
  const Bytes size = PageFile::kDiscardBatch + PageFile::kDiscardBatch;  // punched when freed
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> blank, BoPages::Create(file, size));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> big, BoPages::Create(file, size));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> neighbour, BoPages::Create(file, Bytes::KiB(4)));
  ASSERT_OK_AND_ASSIGN(const BoPages::FileRange blank_range, blank->File());  // mapped, never written
  Fill(*neighbour, 'n');
  ASSERT_OK_AND_ASSIGN(const BoPages::FileRange range, big->File());
  const uint64_t middle = range.offset + size.raw() / 2;
  ASSERT_EQ(pwrite(range.fd, "m", 1, static_cast<off_t>(middle)), 1);
  ASSERT_TRUE(HasData(range.fd, middle));
  blank.reset();
  EXPECT_EQ(file->pending_discard(), Bytes(0));
  EXPECT_FALSE(HasData(range.fd, blank_range.offset));
  big.reset();
  EXPECT_EQ(file->pending_discard(), Bytes(0));
  EXPECT_FALSE(HasData(range.fd, middle)) << "the written page was not punched";
  ASSERT_OK_AND_ASSIGN(const BoPages::FileRange neighbour_range, neighbour->File());
  EXPECT_TRUE(HasData(range.fd, neighbour_range.offset));
  char byte = 0;
  ASSERT_EQ(pread(range.fd, &byte, 1, static_cast<off_t>(neighbour_range.offset)), 1);
  EXPECT_EQ(byte, 'n');
}

TEST(BoPagesTest, UntouchedBuffersAreNotPunched) {
  auto file = std::make_shared<PageFile>("kfd_sim vram");
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> touched, BoPages::Create(file, Bytes::KiB(4)));
  Fill(*touched, 't');
  { ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> untouched, BoPages::Create(file, Bytes::KiB(4))); }
  EXPECT_EQ(file->pending_discard(), Bytes(0)) << "nothing could have written an untouched buffer";
}

TEST(BoPagesTest, FailureToMakeTheFileIsReportedAndRetried) {
  auto file = std::make_shared<PageFile>("kfd_sim vram");
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> pages, BoPages::Create(file, Bytes::KiB(4)));
  absl::Status without_descriptors;
  std::byte* view_without_descriptors = nullptr;
  {
    // Only the calls under test run without descriptors: UBSan's own checks need one (a pipe).
    const NoFreeDescriptors none;
    without_descriptors = pages->File().status();
    view_without_descriptors = pages->EngineView();
  }
  EXPECT_THAT(without_descriptors, StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(view_without_descriptors, nullptr) << "an engine sees a fault, not a crash";
  EXPECT_FALSE(pages->touched());
  ASSERT_OK_AND_ASSIGN(const BoPages::FileRange range, pages->File());
  EXPECT_TRUE(IsOpen(range.fd));
  EXPECT_NE(pages->EngineView(), nullptr);
}

TEST(BoPagesTest, BorrowedPagesAreTheOwnersAndAreNeverPunched) {
  // The owner's buffer, written.
  auto owner_file = std::make_shared<PageFile>("kfd_sim vram");
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<BoPages> owned, BoPages::Create(owner_file, Bytes::KiB(8)));
  Fill(*owned, 'o');
  ASSERT_OK_AND_ASSIGN(const BoPages::FileRange range, owned->File());
  // Another process's view of it: a copy of the descriptor, the same range.
  const int copy = fcntl(range.fd, F_DUPFD_CLOEXEC, 0);
  ASSERT_GE(copy, 0);
  auto keepalive = std::make_shared<int>(0);
  const std::weak_ptr<int> kept = keepalive;
  std::shared_ptr<PageFile> borrowed =
      PageFile::Borrow("kfd_sim ipc", MemFd::Adopt(copy, PageFile::kSpan), std::move(keepalive));
  EXPECT_FALSE(borrowed->Take(Bytes::KiB(4)).has_value()) << "nothing is allocated from someone else's file";
  std::shared_ptr<BoPages> view = BoPages::Borrow(borrowed, range.offset, Bytes::KiB(8));
  std::byte* engine = view->EngineView();
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(static_cast<char>(engine[4096]), 'o');
  engine[0] = std::byte{'b'};
  view.reset();
  borrowed.reset();
  EXPECT_TRUE(kept.expired()) << "the keepalive goes with the file";
  EXPECT_FALSE(IsOpen(copy));
  EXPECT_TRUE(HasData(range.fd, range.offset)) << "the borrower's free punches nothing";
  char first = 0;
  ASSERT_EQ(pread(range.fd, &first, 1, static_cast<off_t>(range.offset)), 1);
  EXPECT_EQ(first, 'b') << "the borrower wrote the owner's pages";
}

TEST(BoPagesTest, ExhaustedOffsetSpaceIsResourceExhausted) {
  auto file = std::make_shared<PageFile>("kfd_sim vram");
  ASSERT_TRUE(file->Take(PageFile::kSpan - Bytes::KiB(4)).has_value());
  EXPECT_THAT(BoPages::Create(file, Bytes::KiB(8)).status(), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(BoPages::Create(file, Bytes::KiB(4)).status(), IsOk());
}

}  // namespace
}  // namespace hipmem::kfd_sim
