// The C++ API under hipExtMallocWithFlags, the pointer-attribute queries and the allocation lookups, over a
// private runtime (default simulated machine): which pool each kind lands in, and what each attribute answers.
#include <memory>
#include <optional>
#include <variant>

#include "clr/context.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/memory_ext.h"
#include "hip/pointer_info.h"
#include "hip/runtime.h"
#include "testing/status_matchers.h"

namespace hipmem::hip {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;

class MemoryExtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<clr::Context>> ctx = clr::Context::Create();
    ASSERT_THAT(ctx, IsOk());
    rt_ = std::make_unique<Runtime>(*std::move(ctx));
    device_ = &rt_->context().devices()[0];
  }

  std::optional<clr::MemObjRef> Find(const void* p) { return rt_->context().Find(DeviceAddress::FromPointer(p)); }

  std::unique_ptr<Runtime> rt_;
  const clr::Device* device_ = nullptr;
};

TEST_F(MemoryExtTest, EachKindLandsInRocclrsPool) {
  struct Row {
    ExtMallocKind kind;
    clr::DeviceGrain grain;
  };
  constexpr Row kRows[] = {
      {ExtMallocKind::kDefault, clr::DeviceGrain::kCoarse},
      {ExtMallocKind::kFinegrained, clr::DeviceGrain::kFineGrained},
      {ExtMallocKind::kUncached, clr::DeviceGrain::kUncached},
      {ExtMallocKind::kContiguous, clr::DeviceGrain::kUncached},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(static_cast<uint32_t>(row.kind));
    ASSERT_OK_AND_ASSIGN(void* p, ExtMallocWithFlags(*rt_, 4096, static_cast<uint32_t>(row.kind)));
    std::optional<clr::MemObjRef> ref = Find(p);
    ASSERT_TRUE(ref.has_value());
    EXPECT_EQ(ref->desc.kind, clr::MemoryKind::kDevice);
    EXPECT_EQ(ref->desc.pool, clr::Context::DevicePool(*device_, row.grain));
    EXPECT_EQ(ref->desc.user_flags, static_cast<uint32_t>(row.kind));
    EXPECT_THAT(rt_->Free(p), IsOk());
  }
  ASSERT_OK_AND_ASSIGN(void* signal, ExtMallocWithFlags(*rt_, 8, static_cast<uint32_t>(ExtMallocKind::kSignalMemory)));
  EXPECT_EQ(Find(signal)->desc.kind, clr::MemoryKind::kHost);
  EXPECT_EQ(Find(signal)->desc.pool, device_->host_pool) << "coherent fine-grained system memory";
  EXPECT_THAT(rt_->Free(signal), IsOk());
}

TEST_F(MemoryExtTest, BadKindsAndSizesAreInvalidValueOrOutOfMemory) {
  EXPECT_THAT(ExtMallocWithFlags(*rt_, 64, 7), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ExtMallocWithFlags(*rt_, 4, 2), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ExtMallocWithFlags(*rt_, 0, 0), IsOkAndHolds(nullptr));
  EXPECT_THAT(ExtMallocWithFlags(*rt_, device_->max_alloc_size.raw() + 1, 3),
              StatusIs(absl::StatusCode::kResourceExhausted));
}

TEST_F(MemoryExtTest, AttributeAnswersCarryClrsTypes) {
  ASSERT_OK_AND_ASSIGN(void* p, rt_->Malloc(1000));
  const char* inside = static_cast<const char*>(p) + 10;
  auto get = [&](PointerAttribute a, const void* ptr) {
    return GetPointerAttribute(*rt_, static_cast<uint32_t>(a), ptr);
  };
  PointerAttributeAnswer size = get(PointerAttribute::kRangeSize, inside);
  EXPECT_THAT(size.status, IsOk());
  EXPECT_EQ(std::get<uint32_t>(size.value), 1000u) << "32-bit, as CLR writes it";
  PointerAttributeAnswer ordinal = get(PointerAttribute::kDeviceOrdinal, inside);
  EXPECT_EQ(std::get<int32_t>(ordinal.value), 0);
  PointerAttributeAnswer host = get(PointerAttribute::kHostPointer, inside);
  EXPECT_THAT(host.status, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(std::get<void*>(host.value), nullptr);
  PointerAttributeAnswer context = get(PointerAttribute::kContext, inside);
  EXPECT_EQ(std::get<void*>(context.value), DeviceContextHandle(*rt_, 0));
  PointerAttributeAnswer tokens = get(PointerAttribute::kP2pTokens, inside);
  EXPECT_EQ(ToHipError(tokens.status), hipErrorNotSupported);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(tokens.value)) << "nothing written";
  PointerAttributeAnswer bogus = GetPointerAttribute(*rt_, 1000, inside);
  EXPECT_EQ(ToHipError(bogus.status), hipErrorInvalidValue);

  EXPECT_THAT(SetPointerAttribute(*rt_, static_cast<uint32_t>(PointerAttribute::kSyncMemops), 1, inside), IsOk());
  EXPECT_TRUE(std::get<bool>(get(PointerAttribute::kSyncMemops, p).value));
  int on_stack = 0;
  EXPECT_EQ(ToHipError(SetPointerAttribute(*rt_, static_cast<uint32_t>(PointerAttribute::kSyncMemops), 1, &on_stack)),
            hipErrorInvalidDevicePointer);
  EXPECT_THAT(rt_->Free(p), IsOk());
}

TEST_F(MemoryExtTest, LookupsFindTheWholeAllocation) {
  ASSERT_OK_AND_ASSIGN(void* p, rt_->HostMalloc(3000, 0));
  ASSERT_OK_AND_ASSIGN(AllocationExtent extent, MemGetAddressRange(*rt_, static_cast<char*>(p) + 2999));
  EXPECT_EQ(extent.base, p);
  EXPECT_EQ(extent.size, 3000u);
  EXPECT_THAT(MemPtrGetInfo(*rt_, static_cast<char*>(p) + 5), IsOkAndHolds(3000u));
  EXPECT_THAT(MemPtrGetInfo(*rt_, nullptr), IsOkAndHolds(0u));
  EXPECT_THAT(rt_->Free(p), IsOk());
  EXPECT_EQ(ToHipError(MemGetAddressRange(*rt_, p).status()), hipErrorNotFound);
  EXPECT_EQ(ToHipError(MemPtrGetInfo(*rt_, p).status()), hipErrorInvalidValue);
}

}  // namespace
}  // namespace hipmem::hip
