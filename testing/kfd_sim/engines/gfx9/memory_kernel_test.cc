// The kernels of testdata/memory_kernels.hip, compiled by clang-19 for gfx908, gfx90a and gfx942, on the GFX9 engine
// through an identity page table: LDS with barriers and dynamic shared memory, device atomics under contention,
// scratch, generic pointers into LDS and global memory, sub-dword accesses.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"
#include "testing/kfd_sim/engines/gfx9/memory_kernel_objects.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

constexpr uint32_t kGroup = 256;  // memory_kernels.hip's workgroup size

struct TargetCase {
  Target target;
  const char* name;
  std::string_view (*code_object)();
};

// Runs the kernel; the test ends here when it failed.
#define RUN_OR_RETURN(...)        \
  do {                            \
    Run(__VA_ARGS__);             \
    if (HasFatalFailure()) return; \
  } while (0)

class MemoryKernelTest : public ::testing::TestWithParam<TargetCase> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<LoadedCodeObject>> loaded =
        LoadedCodeObject::Load(GetParam().code_object(), &memory_);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    code_ = std::move(*loaded);
  }

  template <typename T>
  void Map(std::vector<T>& v) {
    memory_.Map(v.data(), v.size() * sizeof(T));
  }

  // Runs `kernel` over `groups` workgroups of kGroup work-items with `dynamic_lds` bytes of dynamic LDS after the
  // kernel's static LDS.
  void Run(std::string_view kernel, uint32_t groups, const void* args, size_t args_bytes, uint32_t dynamic_lds = 0) {
    absl::StatusOr<uint64_t> kd = code_->KernelObject(kernel);
    ASSERT_TRUE(kd.ok()) << kd.status();
    memory_.Map(args, args_bytes);
    uint32_t fixed_lds;  // the descriptor's group_segment_fixed_size (its first field)
    std::memcpy(&fixed_lds, reinterpret_cast<const void*>(*kd), 4);
    const Launch launch{.grid = {groups * kGroup, 1, 1},
                        .workgroup = {kGroup, 1, 1},
                        .kernargs = args,
                        .group_segment_size = dynamic_lds == 0 ? 0 : fixed_lds + dynamic_lds};
    absl::StatusOr<RunResult> result = RunKernel(&memory_, GetParam().target, *kd, launch);
    memory_.Unmap(args);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_FALSE(result->failure.has_value())
        << "dispatch failed: " << result->failure->illegal << " fault 0x" << std::hex
        << result->failure->fault_va.value_or(0);
  }

  IdentityPageTable memory_;
  std::unique_ptr<LoadedCodeObject> code_;
};

TEST_P(MemoryKernelTest, LdsReductionWithBarriersAndDynamicSharedMemory) {
  constexpr uint32_t kGroups = 4;
  std::vector<uint32_t> in(kGroups * kGroup), out(3 * kGroups, 0);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = (i * 2654435761u) >> 20;
  Map(in);
  Map(out);
  struct {
    const uint32_t* in;
    uint32_t* out;
  } args{in.data(), out.data()};
  RUN_OR_RETURN("lds_reduce", kGroups, &args, sizeof(args), 2 * kGroup * 4);
  for (uint32_t g = 0; g < kGroups; ++g) {
    uint32_t sum = 0, squares = 0;
    for (uint32_t t = 0; t < kGroup; ++t) {
      sum += in[g * kGroup + t];
      squares += in[g * kGroup + t] * in[g * kGroup + t];
    }
    EXPECT_EQ(out[3 * g], sum) << "group " << g;
    EXPECT_EQ(out[3 * g + 1], squares) << "group " << g;
    EXPECT_EQ(out[3 * g + 2], in[g * kGroup]) << "group " << g << ": the static LDS variable";
  }
}

struct AtomicTotals {
  uint32_t count;
  uint32_t cas_count;
  float fsum;
  uint32_t max;
  uint32_t min;
  uint32_t bits[8];
  uint32_t xor_all;
  uint32_t wrap;
  uint64_t sum64;
  double dsum;
};

TEST_P(MemoryKernelTest, DeviceAtomicsUnderContentionAreExact) {
  constexpr uint32_t kGroups = 8;
  constexpr uint32_t kN = kGroups * kGroup;
  constexpr uint32_t kWrapLimit = 100;
  std::vector<AtomicTotals> totals(1);
  totals[0] = AtomicTotals{};
  totals[0].min = 0xffffffffu;
  totals[0].xor_all = 0x5a5a5a5au;
  std::vector<uint32_t> tickets(kN, 0xffffffffu);
  Map(totals);
  Map(tickets);
  struct {
    AtomicTotals* totals;
    uint32_t* tickets;
    uint32_t wrap_limit;
  } args{totals.data(), tickets.data(), kWrapLimit};
  RUN_OR_RETURN("contended_atomics", kGroups, &args, sizeof(args));
  const AtomicTotals& t = totals[0];
  EXPECT_EQ(t.count, kN);
  EXPECT_EQ(t.cas_count, kN);
  EXPECT_EQ(t.fsum, 0.5f * kN);
  EXPECT_EQ(t.max, kN - 1);
  EXPECT_EQ(t.min, 0u);
  for (uint32_t b : t.bits) EXPECT_EQ(b, 0xffffffffu);
  uint32_t x = 0x5a5a5a5au;
  uint64_t sum64 = 0;
  for (uint32_t id = 0; id < kN; ++id) {
    x ^= id;
    sum64 += uint64_t{id} << 20;
  }
  EXPECT_EQ(t.xor_all, x);
  EXPECT_EQ(t.wrap, kN % (kWrapLimit + 1)) << "inc wraps to 0 after reaching the limit";
  EXPECT_EQ(t.sum64, sum64);
  EXPECT_EQ(t.dsum, 0.25 * kN);
  std::vector<uint32_t> sorted = tickets;
  std::sort(sorted.begin(), sorted.end());
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(sorted[i], i) << "fetch_add's returns are a permutation";
}

TEST_P(MemoryKernelTest, PrivateArrayIndexedAtRunTime) {
  constexpr uint32_t kGroups = 2;
  std::vector<uint32_t> index(kGroups * kGroup), out(kGroups * kGroup, 0);
  for (uint32_t i = 0; i < index.size(); ++i) index[i] = (i * 7 + 3) % 64 | (((i * 13) % 64) << 8);
  Map(index);
  Map(out);
  struct {
    const uint32_t* index;
    uint32_t* out;
  } args{index.data(), out.data()};
  RUN_OR_RETURN("private_array", kGroups, &args, sizeof(args));
  for (uint32_t id = 0; id < out.size(); ++id) {
    uint32_t a[64];
    for (uint32_t i = 0; i < 64; ++i) a[i] = i * 1000 + id;
    a[index[id] & 63] += 7;
    ASSERT_EQ(out[id], a[index[id] & 63] + a[(index[id] >> 8) & 63]) << "work-item " << id;
  }
}

TEST_P(MemoryKernelTest, GenericPointerReachesLdsInSomeLanesAndGlobalInOthers) {
  std::vector<uint32_t> global(kGroup), out(kGroup, 0);
  for (uint32_t t = 0; t < kGroup; ++t) global[t] = 3 * t;
  Map(global);
  Map(out);
  struct {
    uint32_t* global;
    uint32_t* out;
  } args{global.data(), out.data()};
  RUN_OR_RETURN("generic_pointer", 1, &args, sizeof(args));
  for (uint32_t t = 0; t < kGroup; ++t) {
    if (t % 2 == 1) {
      EXPECT_EQ(out[t], 1000 + t + 105) << "LDS lane " << t;
      EXPECT_EQ(global[t], 3 * t) << "LDS lane " << t << " left global memory alone";
    } else {
      EXPECT_EQ(out[t], 3 * t + 105) << "global lane " << t;
      EXPECT_EQ(global[t], 3 * t + 105) << "global lane " << t;
    }
  }
}

TEST_P(MemoryKernelTest, ByteAndShortLoadsAndStores) {
  std::vector<int8_t> bytes(kGroup);
  std::vector<int16_t> shorts(kGroup), shorts_out(kGroup + 4, 0x5555);
  std::vector<int32_t> widened(2 * kGroup, 0);
  std::vector<uint8_t> bytes_out(kGroup + 4, 0xaa);
  std::vector<int16_t> pairs(2 * kGroup, 0);
  for (uint32_t t = 0; t < kGroup; ++t) {
    bytes[t] = static_cast<int8_t>(t * 37 + 5);
    shorts[t] = static_cast<int16_t>(t * 4099 + 17);
  }
  Map(bytes);
  Map(shorts);
  Map(widened);
  Map(bytes_out);
  Map(shorts_out);
  Map(pairs);
  struct {
    const int8_t* bytes;
    const int16_t* shorts;
    int32_t* widened;
    uint8_t* bytes_out;
    int16_t* shorts_out;
    int16_t* pairs;
  } args{bytes.data(), shorts.data(), widened.data(), bytes_out.data(), shorts_out.data(), pairs.data()};
  RUN_OR_RETURN("sub_dword", 1, &args, sizeof(args));
  for (uint32_t t = 0; t < kGroup; ++t) {
    SCOPED_TRACE(t);
    EXPECT_EQ(widened[2 * t], bytes[t]);
    EXPECT_EQ(widened[2 * t + 1], static_cast<uint16_t>(shorts[t]));
    EXPECT_EQ(bytes_out[t], static_cast<uint8_t>(bytes[t] + 1));
    EXPECT_EQ(shorts_out[t], static_cast<int16_t>(shorts[255 - t] * 2));
    EXPECT_EQ(pairs[2 * t], shorts[t]);
    EXPECT_EQ(pairs[2 * t + 1], shorts[255 - t]);
  }
  for (uint32_t k = kGroup; k < kGroup + 4; ++k) {
    EXPECT_EQ(bytes_out[k], 0xaa) << "past the grid";
    EXPECT_EQ(shorts_out[k], 0x5555) << "past the grid";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Gfx9, MemoryKernelTest,
    ::testing::Values(TargetCase{Target::kGfx908, "gfx908", &hipmem_testing::memory_kernels_gfx908},
                      TargetCase{Target::kGfx90a, "gfx90a", &hipmem_testing::memory_kernels_gfx90a},
                      TargetCase{Target::kGfx942, "gfx942", &hipmem_testing::memory_kernels_gfx942}),
    [](const ::testing::TestParamInfo<TargetCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
