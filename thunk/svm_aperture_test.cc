#include "thunk/svm_aperture.h"

#include <sys/mman.h>

#include <cstring>

#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

SvmAperture Aperture() {
  return SvmAperture(DeviceAddress(0x200000), DeviceAddress((1ull << 47) - 1), Bytes::MiB(2), /*guard_pages=*/1);
}

TEST(SvmApertureTest, AlignsToNextPowerOfTwoCappedAtTwoMiB) {
  const SvmAperture ap = Aperture();
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
  const SvmAperture ap = Aperture();
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
  const SvmAperture ap = Aperture();
  ASSERT_OK_AND_ASSIGN(AddressRange a, ap.Reserve(Bytes::KiB(4), Bytes(0)));
  ASSERT_OK_AND_ASSIGN(AddressRange b, ap.Reserve(Bytes::KiB(4), Bytes(0)));
  EXPECT_FALSE(a.Overlaps(AddressRange{b.base - kPageSize, b.size + kPageSize + kPageSize}));
  ap.Release(a);
  ap.Release(b);
}

TEST(SvmApertureTest, RejectsBadAlignmentAndOverflow) {
  const SvmAperture ap = Aperture();
  EXPECT_THAT(ap.Reserve(Bytes::KiB(4), Bytes(3 * 4096)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ap.Reserve(Bytes(UINT64_MAX - 4096), Bytes(0)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ap.Reserve(Bytes(1ull << 60), Bytes(0)), StatusIs(absl::StatusCode::kResourceExhausted));
}

}  // namespace
}  // namespace hipmem::thunk
