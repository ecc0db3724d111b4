#include "thunk/svm_aperture.h"

#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::testing::ElementsAre;
using ::hipmem_testing::StatusIs;

SvmAperture Aperture() {
  return SvmAperture(DeviceAddress(0x200000), DeviceAddress((1ull << 47) - 1), Bytes::MiB(2), /*guard_pages=*/1);
}

TEST(SvmApertureTest, AlignsToNextPowerOfTwoCappedAtTwoMiB) {
  SvmAperture ap = Aperture();
  EXPECT_EQ(ap.DefaultAlignment(Bytes(4096)), Bytes::KiB(4));
  EXPECT_EQ(ap.DefaultAlignment(Bytes::KiB(12)), Bytes::KiB(16));
  EXPECT_EQ(ap.DefaultAlignment(Bytes::MiB(64)), Bytes::MiB(2));
  for (Bytes size : {Bytes::KiB(4), Bytes::KiB(12), Bytes::MiB(3)}) {
    ASSERT_OK_AND_ASSIGN(AddressRange r, ap.Reserve(size, Bytes(0)));
    EXPECT_TRUE(IsAligned(r.base, ap.DefaultAlignment(size))) << r.base;
    EXPECT_EQ(r.size, size);
    ap.Release(r);
  }
}

TEST(SvmApertureTest, ReservationIsInaccessibleUntilCommitted) {
  SvmAperture ap = Aperture();
  ASSERT_OK_AND_ASSIGN(AddressRange r, ap.Reserve(Bytes::KiB(8), Bytes(0)));
  // mincore-free check of PROT_NONE: mprotect succeeds on a mapped range, and the page is not
  // readable until committed.
  EXPECT_EQ(mprotect(r.base.ToPointer(), r.size.raw(), PROT_NONE), 0);
  ASSERT_THAT(ap.CommitAnonymous(r), IsOk());
  std::memset(r.base.ToPointer(), 0x5a, r.size.raw());
  EXPECT_EQ(static_cast<unsigned char*>(r.base.ToPointer())[8191], 0x5a);
  ap.Release(r);
}

TEST(SvmApertureTest, GuardPagesSeparateNeighbours) {
  SvmAperture ap = Aperture();
  ASSERT_OK_AND_ASSIGN(AddressRange a, ap.Reserve(Bytes::KiB(4), Bytes(0)));
  ASSERT_OK_AND_ASSIGN(AddressRange b, ap.Reserve(Bytes::KiB(4), Bytes(0)));
  EXPECT_FALSE(a.Overlaps(AddressRange{b.base - kPageSize, b.size + kPageSize + kPageSize}));
  ap.Release(a);
  ap.Release(b);
}

// Whether the byte at `p` can be read, asked of the kernel so that an inaccessible page cannot crash the test.
bool Readable(const void* p) {
  char byte = 0;
  iovec local{&byte, 1};
  iovec remote{const_cast<void*>(p), 1};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1;
}

TEST(SvmApertureTest, ReleasedRangeIsAFreshReservationForTheNextReserveOfItsSize) {
  SvmAperture ap = Aperture();
  ASSERT_OK_AND_ASSIGN(AddressRange r, ap.Reserve(Bytes::KiB(8), Bytes(0)));
  ASSERT_THAT(ap.CommitAnonymous(r), IsOk());
  std::memset(r.base.ToPointer(), 0x5a, r.size.raw());
  ap.Release(r);
  EXPECT_EQ(ap.kept_ranges(), 1u);
  EXPECT_FALSE(Readable(r.base.ToPointer())) << "the committed memory is gone";

  ASSERT_OK_AND_ASSIGN(AddressRange again, ap.Reserve(Bytes::KiB(8), Bytes(0)));
  EXPECT_EQ(again.base, r.base);
  EXPECT_EQ(ap.kept_ranges(), 0u);
  ASSERT_THAT(ap.CommitAnonymous(again), IsOk());
  EXPECT_EQ(static_cast<unsigned char*>(again.base.ToPointer())[100], 0) << "nothing of the old contents";
  ap.Release(again);
}

TEST(SvmApertureTest, ReleaseDropsOrRevokesASharedMappingOfTheRange) {
  // A BO's CPU mapping: releasing the range must drop it, as munmap would, so the kernel can free the BO; a mapping
  // that may stay (the simulator's) is only made inaccessible. Either way the range is kept, and a touch faults.
  struct Row {
    const char* name;
    void (SvmAperture::*release)(const AddressRange&);
  };
  constexpr Row kRows[] = {{"Release", &SvmAperture::Release}, {"ReleaseRevocable", &SvmAperture::ReleaseRevocable}};
  const int fd = memfd_create("bo", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  const Bytes large = SvmAperture::kMaxKeptSize + kPageSize;
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(large.raw())), 0);
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    SvmAperture ap = Aperture();
    ASSERT_OK_AND_ASSIGN(AddressRange r, ap.Reserve(Bytes::KiB(4), Bytes(0)));
    ASSERT_NE(mmap(r.base.ToPointer(), 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0), MAP_FAILED);
    static_cast<char*>(r.base.ToPointer())[0] = 'b';
    (ap.*row.release)(r);
    EXPECT_EQ(ap.kept_ranges(), 1u);
    EXPECT_FALSE(Readable(r.base.ToPointer()));
    EXPECT_FALSE(Readable((r.base - kPageSize).ToPointer())) << "the guard pages are still there";
    EXPECT_FALSE(Readable((r.base + r.size).ToPointer()));
    ASSERT_OK_AND_ASSIGN(AddressRange again, ap.Reserve(Bytes::KiB(4), Bytes(0)));
    ASSERT_EQ(again.base, r.base);
    ASSERT_THAT(ap.CommitAnonymous(again), IsOk());
    EXPECT_EQ(static_cast<char*>(again.base.ToPointer())[0], 0) << "not the file's page";
    ap.Release(again);

    // Too large to keep: unmapped, mapping and all.
    ASSERT_OK_AND_ASSIGN(AddressRange big, ap.Reserve(large, Bytes(0)));
    ASSERT_NE(mmap(big.base.ToPointer(), large.raw(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0),
              MAP_FAILED);
    (ap.*row.release)(big);
    EXPECT_EQ(ap.kept_ranges(), 1u);
    EXPECT_EQ(mprotect(big.base.ToPointer(), large.raw(), PROT_NONE), -1) << "unmapped";
    EXPECT_EQ(errno, ENOMEM);
  }
  close(fd);
}

TEST(SvmApertureTest, KeptRangeIsReusedOnlyWithTheAlignmentAsked) {
  SvmAperture ap = Aperture();
  // A 4 KiB range aligned to 4 KiB but not to 64 KiB, kept after release.
  std::optional<AddressRange> odd;
  std::vector<AddressRange> others;
  for (int i = 0; i < 32; ++i) {
    ASSERT_OK_AND_ASSIGN(AddressRange r, ap.Reserve(Bytes::KiB(4), Bytes(0)));
    if (!IsAligned(r.base, Bytes::KiB(64))) {
      odd = r;
      break;
    }
    others.push_back(r);
  }
  ASSERT_TRUE(odd.has_value());
  for (const AddressRange& r : others) ap.Release(r);
  ap.Release(*odd);
  ASSERT_OK_AND_ASSIGN(AddressRange aligned, ap.Reserve(Bytes::KiB(4), Bytes::KiB(64)));
  EXPECT_TRUE(IsAligned(aligned.base, Bytes::KiB(64)));
  ap.Release(aligned);
}

TEST(SvmApertureTest, KeepsABoundedNumberOfSmallRanges) {
  SvmAperture ap = Aperture();
  std::vector<AddressRange> ranges;
  for (size_t i = 0; i < SvmAperture::kMaxKeptRanges + 4; ++i) {
    ASSERT_OK_AND_ASSIGN(AddressRange r, ap.Reserve(Bytes::KiB(4), Bytes(0)));
    ranges.push_back(r);
  }
  ASSERT_OK_AND_ASSIGN(AddressRange large, ap.Reserve(SvmAperture::kMaxKeptSize + kPageSize, Bytes(0)));
  ap.Release(large);
  EXPECT_EQ(ap.kept_ranges(), 0u) << "a range above kMaxKeptSize goes back to the OS";
  for (const AddressRange& r : ranges) ap.Release(r);
  EXPECT_EQ(ap.kept_ranges(), SvmAperture::kMaxKeptRanges);
}

TEST(SvmApertureTest, DestructionReturnsKeptRangesToTheOs) {
  std::optional<AddressRange> kept;
  {
    SvmAperture ap = Aperture();
    ASSERT_OK_AND_ASSIGN(AddressRange r, ap.Reserve(Bytes::KiB(4), Bytes(0)));
    kept = r;
    ap.Release(r);
    ASSERT_EQ(ap.kept_ranges(), 1u);
    EXPECT_EQ(mprotect(r.base.ToPointer(), r.size.raw(), PROT_NONE), 0) << "still reserved while kept";
  }
  errno = 0;
  EXPECT_EQ(mprotect(kept->base.ToPointer(), kept->size.raw(), PROT_NONE), -1) << "unmapped";
  EXPECT_EQ(errno, ENOMEM);
}

TEST(SvmApertureTest, RejectsBadAlignmentAndOverflow) {
  SvmAperture ap = Aperture();
  EXPECT_THAT(ap.Reserve(Bytes::KiB(4), Bytes(3 * 4096)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ap.Reserve(Bytes(UINT64_MAX - 4096), Bytes(0)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ap.Reserve(Bytes(1ull << 60), Bytes(0)), StatusIs(absl::StatusCode::kResourceExhausted));
}

// Records releases instead of touching the address space.
class RecordingSpace : public VaSpace {
 public:
  void Release(const AddressRange& range) override { released.push_back(range); }
  std::vector<AddressRange> released;
};

TEST(VaReservationTest, DestructorMoveAndReleaseEachReleaseOnce) {
  RecordingSpace space;
  const AddressRange a{DeviceAddress(0x10000), Bytes::KiB(4)};
  const AddressRange b{DeviceAddress(0x20000), Bytes::KiB(8)};
  {
    VaReservation first(&space, a);
    VaReservation second(&space, b);
    VaReservation moved(std::move(first));
    EXPECT_TRUE(first.empty());  // NOLINT(bugprone-use-after-move)
    second = std::move(moved);   // releases b
    EXPECT_THAT(space.released, ElementsAre(b));
    VaReservation& self = second;
    second = std::move(self);
    EXPECT_THAT(space.released, ElementsAre(b));
    VaReservation given_up(&space, b);
    EXPECT_EQ(std::move(given_up).Release(), b);
  }
  EXPECT_THAT(space.released, ElementsAre(b, a)) << "second (holding a) released at scope end; given_up never";
}

TEST(HandleApertureTest, HandsOutDisjointGuardedRangesAndReusesReleasedOnes) {
  HandleAperture aperture(DeviceAddress(uint64_t{1} << 47), Bytes::MiB(1), /*guard_pages=*/1);
  ASSERT_OK_AND_ASSIGN(VaReservation a, aperture.Allocate(Bytes::KiB(8)));
  ASSERT_OK_AND_ASSIGN(VaReservation b, aperture.Allocate(Bytes::KiB(4)));
  EXPECT_GE(a.range().base, aperture.base() + kPageSize) << "a guard page before the first";
  EXPECT_GE(b.range().base, a.range().end() + kPageSize) << "a guard page between neighbours";
  const AddressRange first = a.range();
  { VaReservation dropped = std::move(a); }
  ASSERT_OK_AND_ASSIGN(VaReservation again, aperture.Allocate(Bytes::KiB(8)));
  EXPECT_EQ(again.range(), first);
  EXPECT_THAT(aperture.Allocate(Bytes::MiB(1)), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(aperture.Allocate(Bytes(100)), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SvmApertureTest, AllocateAtTakesAFreeOrKeptRangeAndRefusesOneInUse) {
  SvmAperture ap = Aperture();
  ASSERT_OK_AND_ASSIGN(AddressRange r, ap.Reserve(Bytes::KiB(8), Bytes(0)));
  ap.Release(r);  // kept for reuse: still mapped, but free
  ASSERT_EQ(ap.kept_ranges(), 1u);
  {
    ASSERT_OK_AND_ASSIGN(VaReservation at, ap.AllocateAt(r.base, r.size));
    EXPECT_EQ(at.range(), r);
    EXPECT_EQ(ap.kept_ranges(), 0u);
    EXPECT_THAT(ap.AllocateAt(r.base + kPageSize, kPageSize), StatusIs(absl::StatusCode::kAlreadyExists));
  }
  EXPECT_THAT(ap.AllocateAt(r.base + Bytes(100), kPageSize), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ap.AllocateAt(DeviceAddress(uint64_t{1} << 47), kPageSize), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SvmApertureTest, UnchangedReservationIsKeptAsItIsAndReused) {
  SvmAperture ap = Aperture();
  AddressRange first{DeviceAddress(0), Bytes(0)};
  {
    ASSERT_OK_AND_ASSIGN(VaReservation va, ap.Allocate(Bytes::KiB(4), Bytes(0)));
    first = va.range();
    va.MarkUnchanged();
  }
  EXPECT_EQ(ap.kept_ranges(), 1u);
  EXPECT_EQ(mprotect(first.base.ToPointer(), first.size.raw(), PROT_NONE), 0) << "still reserved";
  ASSERT_OK_AND_ASSIGN(VaReservation again, ap.Allocate(Bytes::KiB(4), Bytes(0)));
  EXPECT_EQ(again.range().base, first.base) << "handed out again";
  EXPECT_EQ(ap.kept_ranges(), 0u);
}

TEST(SvmApertureTest, MoveCarriesTheUnchangedMarkAndReleaseDropsIt) {
  SvmAperture ap = Aperture();
  ASSERT_OK_AND_ASSIGN(VaReservation va, ap.Allocate(Bytes::KiB(4), Bytes(0)));
  va.MarkUnchanged();
  VaReservation moved = std::move(va);
  ASSERT_THAT(ap.CommitAnonymous(moved.range()), IsOk());  // the caller broke its word: still released correctly
  const AddressRange range = std::move(moved).Release();
  ap.Release(range);
  EXPECT_EQ(ap.kept_ranges(), 1u);
}

}  // namespace
}  // namespace hipmem::thunk
