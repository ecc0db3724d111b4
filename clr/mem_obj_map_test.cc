// The address -> memory object map: interior pointers, shared pages, small and large objects, removal, against a
// plain ordered reference.
#include "clr/mem_obj_map.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

// An object the map owns without an HSA runtime behind it (nothing to release).
std::unique_ptr<Memory> Object(uint64_t base, uint64_t size, MemoryKind kind = MemoryKind::kDevice) {
  const MemoryDesc desc{.range = AddressRange{DeviceAddress(base), Bytes(size)},
                        .gpu_address = DeviceAddress(base),
                        .kind = kind,
                        .device = 0,
                        .user_flags = 0,
                        .pool = hsa::PoolId(1)};
  return std::make_unique<Memory>(nullptr, desc);
}

std::optional<uint64_t> BaseOf(const MemObjMap& map, uint64_t address) {
  std::optional<MemObjRef> ref = map.Find(DeviceAddress(address));
  if (!ref.has_value()) return std::nullopt;
  EXPECT_EQ(ref->desc.range.base.raw() + ref->offset.raw(), address);
  return ref->desc.range.base.raw();
}

TEST(MemObjMapTest, InteriorPointersResolveAndNeighboursStayApart) {
  MemObjMap map;
  ASSERT_THAT(map.Insert(Object(0x100000, 256)), IsOk());        // small, part of a page
  ASSERT_THAT(map.Insert(Object(0x100100, 0x100)), IsOk());      // the same page
  ASSERT_THAT(map.Insert(Object(0x200000, 64 << 20)), IsOk());   // large
  ASSERT_THAT(map.Insert(Object(0x4200800, 0x1000, MemoryKind::kRegistered)), IsOk());  // straddles the large end page
  EXPECT_EQ(BaseOf(map, 0x100000), 0x100000u);
  EXPECT_EQ(BaseOf(map, 0x1000ff), 0x100000u);
  EXPECT_EQ(BaseOf(map, 0x100100), 0x100100u);
  EXPECT_EQ(BaseOf(map, 0x100200), std::nullopt);  // the page's unused tail
  EXPECT_EQ(BaseOf(map, 0x200000 + (33 << 20) + 5), 0x200000u);
  EXPECT_EQ(BaseOf(map, 0x4200000 - 1), 0x200000u);
  EXPECT_EQ(BaseOf(map, 0x4200000), std::nullopt);
  EXPECT_EQ(BaseOf(map, 0x4200800), 0x4200800u);
  EXPECT_EQ(BaseOf(map, 0x42017ff), 0x4200800u);
  EXPECT_EQ(BaseOf(map, 0x4201800), std::nullopt);
  EXPECT_THAT(map.Insert(Object(0x1000f0, 0x20)), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(map.Insert(Object(0x4000000, 0x1000)), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_EQ(map.size(), 4u);
}

// Registered memory is also found at the GPU address its lock gave it, for as long as it is in the map.
TEST(MemObjMapTest, AnObjectsGpuAddressResolvesToIt) {
  MemObjMap map;
  std::unique_ptr<Memory> registered = Object(0x5000, 0x3000, MemoryKind::kRegistered);
  MemoryDesc desc = registered->desc();
  desc.gpu_address = DeviceAddress(0x7000000);
  ASSERT_THAT(map.Insert(std::make_unique<Memory>(nullptr, desc)), IsOk());
  std::optional<MemObjRef> ref = map.Find(DeviceAddress(0x7000000 + 0x2345));
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->desc.range.base.raw(), 0x5000u) << "described as the object, by its CPU range";
  EXPECT_EQ(ref->offset.raw(), 0x2345u);
  EXPECT_EQ(BaseOf(map, 0x5000 + 0x2345), 0x5000u);
  EXPECT_FALSE(map.Find(DeviceAddress(0x7003000)).has_value()) << "one past the GPU range";
  // An object whose GPU range would overlap another keeps no alias there: the other one answers.
  ASSERT_THAT(map.Insert(Object(0x9000000, 0x1000)), IsOk());
  std::unique_ptr<Memory> second = Object(0x20000, 0x1000, MemoryKind::kRegistered);
  MemoryDesc second_desc = second->desc();
  second_desc.gpu_address = DeviceAddress(0x9000000);
  ASSERT_THAT(map.Insert(std::make_unique<Memory>(nullptr, second_desc)), IsOk());
  EXPECT_EQ(BaseOf(map, 0x9000010), 0x9000000u);
  EXPECT_THAT(map.Extract(DeviceAddress(0x7000000), {MemoryKind::kRegistered}),
              StatusIs(absl::StatusCode::kNotFound)) << "the GPU address is not the object's name";
  ASSERT_THAT(map.Extract(DeviceAddress(0x5000), {MemoryKind::kRegistered}).status(), IsOk());
  EXPECT_FALSE(map.Find(DeviceAddress(0x7000000)).has_value());
  ASSERT_THAT(map.Extract(DeviceAddress(0x20000), {MemoryKind::kRegistered}).status(), IsOk());
  EXPECT_EQ(BaseOf(map, 0x9000010), 0x9000000u) << "removing the other object leaves this one";
}

TEST(MemObjMapTest, RemovalKeepsTheOtherObjectOfASharedPage) {
  MemObjMap map;
  ASSERT_THAT(map.Insert(Object(0x100000, 0x80)), IsOk());
  ASSERT_THAT(map.Insert(Object(0x100080, 0x80)), IsOk());
  EXPECT_THAT(map.Extract(DeviceAddress(0x100040), {MemoryKind::kDevice}), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(map.Extract(DeviceAddress(0x100000), {MemoryKind::kHost}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_THAT(map.Extract(DeviceAddress(0x100000), {MemoryKind::kDevice}), IsOk());
  EXPECT_EQ(BaseOf(map, 0x100010), std::nullopt);
  EXPECT_EQ(BaseOf(map, 0x1000a0), 0x100080u);
  ASSERT_THAT(map.Extract(DeviceAddress(0x100080), {MemoryKind::kDevice}), IsOk());
  EXPECT_EQ(BaseOf(map, 0x1000a0), std::nullopt);
  // The page is free again for a new object.
  ASSERT_THAT(map.Insert(Object(0x100000, 0x1000)), IsOk());
  EXPECT_EQ(BaseOf(map, 0x100fff), 0x100000u);
}

// Random inserts, lookups and removals of objects in [0x10000000, + space) agree with a plain ordered map. A
// quarter of the objects are up to 4 MiB, the rest up to `small_max` bytes.
void CheckAgainstReference(uint64_t kSpace, uint64_t small_max, int steps) {
  MemObjMap map;
  std::map<uint64_t, uint64_t> reference;  // base -> size
  std::mt19937_64 rng(7);
  // The base of the object holding `a`, or kNone. (A plain value: GCC's -Wmaybe-uninitialized misreads an
  // optional returned from this lambda under the sanitizer configurations.)
  constexpr uint64_t kNone = UINT64_MAX;
  auto reference_find = [&](uint64_t a) -> uint64_t {
    auto it = reference.upper_bound(a);
    if (it == reference.begin()) return kNone;
    --it;
    return a - it->first < it->second ? it->first : kNone;
  };
  for (int step = 0; step < steps; ++step) {
    const int op = static_cast<int>(rng() % 3);
    if (op == 0) {
      const uint64_t size = (rng() % 4 == 0) ? 1 + rng() % (uint64_t{1} << 22) : 1 + rng() % small_max;
      const uint64_t base = 0x10000000 + (rng() % kSpace) / 16 * 16;
      const bool free = reference_find(base) == kNone &&
                        [&] {
                          auto it = reference.lower_bound(base);
                          return it == reference.end() || it->first >= base + size;
                        }();
      absl::Status s = map.Insert(Object(base, size));
      ASSERT_EQ(s.ok(), free) << s;
      if (free) reference[base] = size;
    } else if (op == 1 && !reference.empty()) {
      auto it = reference.lower_bound(0x10000000 + rng() % kSpace);
      if (it == reference.end()) it = reference.begin();
      ASSERT_THAT(map.Extract(DeviceAddress(it->first), {MemoryKind::kDevice}), IsOk());
      reference.erase(it);
    } else {
      for (int i = 0; i < 8; ++i) {
        uint64_t a = 0x10000000 + rng() % kSpace;
        if (!reference.empty() && i % 2 == 0) {
          auto it = reference.lower_bound(a);
          if (it == reference.end()) it = reference.begin();
          a = it->first + rng() % (it->second + 64);
        }
        ASSERT_EQ(BaseOf(map, a).value_or(kNone), reference_find(a)) << std::hex << a;
      }
    }
  }
  EXPECT_EQ(map.size(), reference.size());
}

// Small, page-sharing and large objects spread over 1 GiB.
TEST(MemObjMapTest, AgreesWithAnOrderedReference) { CheckAgainstReference(uint64_t{1} << 30, 9000, 20000); }

// Small objects packed into 8 MiB: many share pages, and objects up to and past the index's size limit straddle
// each other's pages.
TEST(MemObjMapTest, AgreesWithAnOrderedReferenceWhenDense) {
  CheckAgainstReference(uint64_t{8} << 20, (uint64_t{64} << 10) + 8192, 20000);
}

}  // namespace
}  // namespace hipmem::clr
