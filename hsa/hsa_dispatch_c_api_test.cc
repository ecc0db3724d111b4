// A plain HSA program, as a ROCr user writes one: loads code objects v4 and v5 that clang-19 builds for the
// preset's GPU (gfx942 on mi300x, gfx90a on 2xmi250x, gfx908 on mi100), dispatches a dozen kernels of different
// kinds through an AQL queue, checks their results, and sees a kernel's store to an unmapped address as a GPU
// memory fault event, a kernel's trap and an illegal instruction as queue errors.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/dispatch_test_kernels.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_test_util.h"
#include "testing/kfd_sim/fault_injection.h"

namespace {

using hipmem::hsa_test::CollectAgents;

struct Objects {
  std::string_view v4;
  std::string_view v5;
};

Objects ObjectsFor(std::string_view processor) {
  using namespace hipmem_testing;
  if (processor == "gfx942") return {dispatch_kernels_gfx942_v4(), dispatch_kernels_gfx942_v5()};
  if (processor == "gfx90a") return {dispatch_kernels_gfx90a_v4(), dispatch_kernels_gfx90a_v5()};
  if (processor == "gfx908") return {dispatch_kernels_gfx908_v4(), dispatch_kernels_gfx908_v5()};
  return {};
}

hsa_status_t FindKernargPool(hsa_amd_memory_pool_t pool, void* data) {
  uint32_t flags = 0;
  if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) != HSA_STATUS_SUCCESS) {
    return HSA_STATUS_ERROR;
  }
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) == 0) return HSA_STATUS_SUCCESS;
  *static_cast<hsa_amd_memory_pool_t*>(data) = pool;
  return HSA_STATUS_INFO_BREAK;
}

// A kernarg segment laid out as the metadata describes it: explicit arguments at their natural alignment, then
// (code object v5) the hidden block counts, group sizes and remainders a runtime fills in.
class Kernargs {
 public:
  template <typename T>
  Kernargs& Arg(T value) {
    Align(alignof(T));
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
    return *this;
  }
  Kernargs& Hidden(uint32_t version, const uint32_t grid[3], const uint16_t workgroup[3]) {
    Align(8);
    if (version >= 5) {
      for (int d = 0; d < 3; ++d) Arg<uint32_t>((grid[d] + workgroup[d] - 1) / workgroup[d]);
      for (int d = 0; d < 3; ++d) Arg<uint16_t>(workgroup[d]);
      for (int d = 0; d < 3; ++d) Arg<uint16_t>(static_cast<uint16_t>(grid[d] % workgroup[d]));
    }
    bytes_.resize(bytes_.size() + 256, 0);  // the rest of the hidden block (global offsets, ...) stays zero
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  void Align(size_t a) { bytes_.resize((bytes_.size() + a - 1) / a * a, 0); }
  std::vector<uint8_t> bytes_;
};

struct Geometry {
  uint32_t grid[3] = {1, 1, 1};
  uint16_t workgroup[3] = {1, 1, 1};
  uint32_t group_bytes = 0;  // dynamic group memory
  uint32_t private_bytes = 0;  // added to the kernel's private segment size in the packet
};

class DispatchTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    gpu_ = CollectAgents().gpus.at(0);
    cpu_ = CollectAgents().cpus.at(0);
    char name[64] = {};
    ASSERT_EQ(hsa_agent_get_info(gpu_, HSA_AGENT_INFO_NAME, name), HSA_STATUS_SUCCESS);
    const Objects objects = ObjectsFor(name);
    ASSERT_FALSE(objects.v5.empty()) << "no code objects for " << name;
    const std::string_view bytes = GetParam() == 4 ? objects.v4 : objects.v5;
    ASSERT_EQ(hsa_amd_agent_iterate_memory_pools(cpu_, FindKernargPool, &kernarg_pool_), HSA_STATUS_INFO_BREAK);
    ASSERT_EQ(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                        &executable_),
              HSA_STATUS_SUCCESS);
    hsa_code_object_reader_t reader{};
    ASSERT_EQ(hsa_code_object_reader_create_from_memory(bytes.data(), bytes.size(), &reader), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_executable_load_agent_code_object(executable_, gpu_, reader, nullptr, nullptr),
              HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_executable_freeze(executable_, nullptr), HSA_STATUS_SUCCESS);
    uint32_t invalid = 1;
    ASSERT_EQ(hsa_executable_validate(executable_, &invalid), HSA_STATUS_SUCCESS);
    EXPECT_EQ(invalid, 0u);
    ASSERT_EQ(hsa_code_object_reader_destroy(reader), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_queue_create(gpu_, 128, HSA_QUEUE_TYPE_MULTI, OnQueueError, this, UINT32_MAX, UINT32_MAX, &queue_),
              HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &done_), HSA_STATUS_SUCCESS);
  }

  void TearDown() override {
    if (done_.handle != 0) {
      EXPECT_EQ(hsa_signal_destroy(done_), HSA_STATUS_SUCCESS);
    }
    if (queue_ != nullptr) {
      EXPECT_EQ(hsa_queue_destroy(queue_), HSA_STATUS_SUCCESS);
    }
    for (void* p : allocations_) EXPECT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_destroy(executable_), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  }

  static void OnQueueError(hsa_status_t status, hsa_queue_t*, void* data) {
    auto* self = static_cast<DispatchTest*>(data);
    std::lock_guard<std::mutex> lock(self->mu_);
    self->queue_errors_.push_back(status);
  }

  // Fine-grained system memory every agent reaches (the kernarg pool), freed at TearDown.
  template <typename T>
  T* Allocate(size_t count) {
    void* p = nullptr;
    EXPECT_EQ(hsa_amd_memory_pool_allocate(kernarg_pool_, std::max<size_t>(count * sizeof(T), 64), 0, &p),
              HSA_STATUS_SUCCESS);
    allocations_.push_back(p);
    return static_cast<T*>(p);
  }

  // Dispatches `kernel` and waits for its completion signal (bounded). Returns whether it completed. `before_doorbell`
  // runs once the dispatch's memory is allocated, right before the doorbell rings.
  bool Launch(const char* kernel, const Geometry& g, Kernargs args,
              const std::function<void()>& before_doorbell = nullptr) {
    args.Hidden(GetParam(), g.grid, g.workgroup);
    hsa_executable_symbol_t symbol{};
    const std::string kd = std::string(kernel) + ".kd";
    EXPECT_EQ(hsa_executable_get_symbol_by_name(executable_, kd.c_str(), &gpu_, &symbol), HSA_STATUS_SUCCESS)
        << kernel;
    uint64_t object = 0;
    uint32_t kernarg_size = 0, group_size = 0, private_size = 0;
    EXPECT_EQ(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                             &kernarg_size),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                                             &group_size),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                                             &private_size),
              HSA_STATUS_SUCCESS);
    EXPECT_LE(kernarg_size, args.bytes().size()) << kernel;
    void* kernargs = Allocate<uint8_t>(args.bytes().size());
    std::memcpy(kernargs, args.bytes().data(), args.bytes().size());

    hsa_signal_store_screlease(done_, 1);
    const uint64_t index = hsa_queue_add_write_index_scacq_screl(queue_, 1);
    auto* packet = static_cast<hsa_kernel_dispatch_packet_t*>(queue_->base_address) + index % queue_->size;
    std::memset(reinterpret_cast<char*>(packet) + 4, 0, sizeof(*packet) - 4);
    const int dims = g.grid[2] > 1 ? 3 : g.grid[1] > 1 ? 2 : 1;
    packet->workgroup_size_x = g.workgroup[0];
    packet->workgroup_size_y = g.workgroup[1];
    packet->workgroup_size_z = g.workgroup[2];
    packet->grid_size_x = g.grid[0];
    packet->grid_size_y = g.grid[1];
    packet->grid_size_z = g.grid[2];
    packet->private_segment_size = private_size + g.private_bytes;
    packet->group_segment_size = group_size + g.group_bytes;
    packet->kernel_object = object;
    packet->kernarg_address = kernargs;
    packet->completion_signal = done_;
    const uint32_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                            (1 << HSA_PACKET_HEADER_BARRIER) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    __atomic_store_n(reinterpret_cast<uint32_t*>(packet), header | (dims << 16), __ATOMIC_RELEASE);
    if (before_doorbell) before_doorbell();
    hsa_signal_store_screlease(queue_->doorbell_signal, static_cast<hsa_signal_value_t>(index));
    // Bounded, so that a broken engine fails instead of hanging: a dispatch that should complete gets minutes (a
    // sanitizer build runs a large grid many times slower; passing must not depend on the machine's speed), one the
    // test expects to stop (expect_stop_) gets 2 s to show that it does not complete. Waits are in
    // HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY ticks (1 GHz).
    const auto deadline = std::chrono::steady_clock::now() +
                          (expect_stop_ ? std::chrono::seconds(2) : std::chrono::seconds(300));
    while (true) {
      const hsa_signal_value_t left =
          hsa_signal_wait_scacquire(done_, HSA_SIGNAL_CONDITION_LT, 1, 100'000'000ull, HSA_WAIT_STATE_BLOCKED);
      if (left == 0) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
    }
  }
  // Set by a test whose dispatch must not complete (a fault, a trap, an illegal instruction, no scratch).
  bool expect_stop_ = false;

  // grid_barrier over half the GPU's CUs (at least 17 workgroups of 256 work-items) with 64 KiB of scratch per
  // work-item: 4 MiB a wave. Its counter starts at 0.
  struct BarrierGrid {
    uint32_t groups;
    uint32_t* arrived;
    uint32_t* out;
    Geometry geometry;
    Kernargs args() const { return Kernargs().Arg(arrived).Arg(out).Arg(groups); }
  };
  BarrierGrid LargeScratchBarrierGrid() {
    uint32_t cus = 0;
    EXPECT_EQ(hsa_agent_get_info(gpu_, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &cus),
              HSA_STATUS_SUCCESS);
    constexpr uint16_t kGroup = 256;
    BarrierGrid grid{.groups = std::max(cus / 2, 17u), .arrived = nullptr, .out = nullptr, .geometry = {}};
    grid.arrived = Allocate<uint32_t>(1);
    *grid.arrived = 0;
    grid.out = Allocate<uint32_t>(uint64_t{grid.groups} * kGroup);
    grid.geometry.grid[0] = grid.groups * kGroup;
    grid.geometry.workgroup[0] = kGroup;
    grid.geometry.private_bytes = 64 * 1024;
    return grid;
  }

  std::vector<hsa_status_t> QueueErrors() {
    std::lock_guard<std::mutex> lock(mu_);
    return queue_errors_;
  }

  hsa_agent_t gpu_{}, cpu_{};
  hsa_amd_memory_pool_t kernarg_pool_{};
  hsa_executable_t executable_{};
  hsa_queue_t* queue_ = nullptr;
  hsa_signal_t done_{};
  std::vector<void*> allocations_;
  std::mutex mu_;
  std::vector<hsa_status_t> queue_errors_;
};

Geometry Linear(uint32_t n, uint16_t workgroup) {
  Geometry g;
  g.grid[0] = n;
  g.workgroup[0] = workgroup;
  return g;
}

TEST_P(DispatchTest, VectorAddCoversAPartialLastWorkgroupAndNoMore) {
  constexpr uint32_t kN = 100'003;
  float* a = Allocate<float>(kN);
  float* b = Allocate<float>(kN);
  float* c = Allocate<float>(kN + 64);
  for (uint32_t i = 0; i < kN; ++i) {
    a[i] = 0.25f * static_cast<float>(i);
    b[i] = 7.0f - static_cast<float>(i);
  }
  std::fill(c, c + kN + 64, -1.0f);
  ASSERT_TRUE(Launch("vector_add", Linear(kN, 256), Kernargs().Arg(a).Arg(b).Arg(c).Arg(kN)));
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  for (uint32_t i = kN; i < kN + 64; ++i) ASSERT_EQ(c[i], -1.0f) << i;
}

TEST_P(DispatchTest, SaxpyIsOneFusedMultiplyAddPerElement) {
  constexpr uint32_t kN = 4096;
  float* x = Allocate<float>(kN);
  float* y = Allocate<float>(kN);
  for (uint32_t i = 0; i < kN; ++i) {
    x[i] = 1.0f / static_cast<float>(i + 1);
    y[i] = static_cast<float>(i);
  }
  std::vector<float> expect(kN);
  for (uint32_t i = 0; i < kN; ++i) expect[i] = std::fma(3.1f, x[i], y[i]);
  ASSERT_TRUE(Launch("saxpy", Linear(kN, 128), Kernargs().Arg(3.1f).Arg(x).Arg(y).Arg(kN)));
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(y[i], expect[i]) << i;
}

TEST_P(DispatchTest, BlockSumReducesThroughLdsWithBarriers) {
  constexpr uint32_t kGroups = 40;
  uint32_t* in = Allocate<uint32_t>(kGroups * 256);
  uint32_t* out = Allocate<uint32_t>(kGroups);
  for (uint32_t i = 0; i < kGroups * 256; ++i) in[i] = i * 7 + 1;
  ASSERT_TRUE(Launch("block_sum", Linear(kGroups * 256, 256), Kernargs().Arg(in).Arg(out)));
  for (uint32_t g = 0; g < kGroups; ++g) {
    uint32_t sum = 0;
    for (uint32_t t = 0; t < 256; ++t) sum += in[g * 256 + t];
    ASSERT_EQ(out[g], sum) << g;
  }
}

TEST_P(DispatchTest, DynamicGroupMemoryIsSizedByThePacket) {
  constexpr uint32_t kN = 8 * 128;
  uint32_t* in = Allocate<uint32_t>(kN);
  uint32_t* out = Allocate<uint32_t>(kN);
  for (uint32_t i = 0; i < kN; ++i) in[i] = i;
  Geometry g = Linear(kN, 128);
  g.group_bytes = 128 * 4;
  ASSERT_TRUE(Launch("reverse_block", g, Kernargs().Arg(in).Arg(out)));
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], (i / 128) * 128 + 127 - i % 128) << i;
}

TEST_P(DispatchTest, ThreeDimensionalGridsNumberEveryWorkItem) {
  constexpr uint32_t kW = 24, kH = 10, kD = 3;  // partial workgroups in x and y
  uint32_t* out = Allocate<uint32_t>(kW * kH * kD);
  std::fill(out, out + kW * kH * kD, 0xffffffffu);
  Geometry g;
  g.grid[0] = kW;
  g.grid[1] = kH;
  g.grid[2] = kD;
  g.workgroup[0] = 16;
  g.workgroup[1] = 4;
  g.workgroup[2] = 2;
  ASSERT_TRUE(Launch("coordinates", g, Kernargs().Arg(out).Arg(kW).Arg(kH)));
  for (uint32_t z = 0; z < kD; ++z) {
    for (uint32_t y = 0; y < kH; ++y) {
      for (uint32_t x = 0; x < kW; ++x) ASSERT_EQ(out[(z * kH + y) * kW + x], (z << 20) | (y << 10) | x);
    }
  }
}

TEST_P(DispatchTest, DeviceAtomicsLoseNoUpdate) {
  constexpr uint32_t kN = 50'000;
  uint32_t* counter = Allocate<uint32_t>(1);
  *counter = 5;
  ASSERT_TRUE(Launch("count_all", Linear(kN, 256), Kernargs().Arg(counter)));
  EXPECT_EQ(*counter, kN + 5);
}

TEST_P(DispatchTest, CompareAndSwapLoopsFindTheMaximum) {
  constexpr uint32_t kN = 10'000;
  uint32_t* in = Allocate<uint32_t>(kN);
  uint32_t* result = Allocate<uint32_t>(1);
  for (uint32_t i = 0; i < kN; ++i) in[i] = (i * 2654435761u) % 1'000'003u;
  *result = 0;
  ASSERT_TRUE(Launch("atomic_max_cas", Linear(kN, 256), Kernargs().Arg(in).Arg(result).Arg(kN)));
  EXPECT_EQ(*result, *std::max_element(in, in + kN));
}

TEST_P(DispatchTest, DoublePrecisionDivisionAndSquareRootAreCorrectlyRounded) {
  constexpr uint32_t kN = 1000;
  double* x = Allocate<double>(kN);
  double* out = Allocate<double>(kN);
  for (uint32_t i = 0; i < kN; ++i) x[i] = 0.37 * i + 0.001;
  ASSERT_TRUE(Launch("double_math", Linear(kN, 64), Kernargs().Arg(x).Arg(out).Arg(kN)));
  // HIP compiles with floating-point contraction on, so x * x + q is one fused multiply-add.
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], std::fma(x[i], x[i], std::sqrt(x[i]) / 3.0)) << i;
}

TEST_P(DispatchTest, AnFmaChainMatchesTheHost) {
  constexpr uint32_t kN = 256, kIterations = 1000;
  float* out = Allocate<float>(kN);
  ASSERT_TRUE(Launch("fma_chain", Linear(kN, 64), Kernargs().Arg(out).Arg(kIterations)));
  for (uint32_t i = 0; i < kN; ++i) {
    float v = static_cast<float>(i % 64);
    for (uint32_t k = 0; k < kIterations; ++k) v = std::fma(v, 0.999f, 0.5f);
    ASSERT_EQ(out[i], v) << i;
  }
}

TEST_P(DispatchTest, APrivateArrayLivesInScratch) {
  constexpr uint32_t kN = 256;
  uint32_t* index = Allocate<uint32_t>(kN);
  uint32_t* out = Allocate<uint32_t>(kN);
  for (uint32_t i = 0; i < kN; ++i) index[i] = (i * 37) % 64;
  ASSERT_TRUE(Launch("private_array", Linear(kN, 64), Kernargs().Arg(index).Arg(out)));
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], index[i] * 3 + i % 64) << i;
}

// The queue starts without scratch; the first dispatch with a private segment makes the CP ask for it (ROCr's
// dynamic scratch) and the runtime fills the amd_queue_t's scratch fields, and the waves' private arrays then live in
// that memory in the hardware's swizzled layout: work-item l of a wave keeps dword k at its slot + k * 256 + l * 4.
TEST_P(DispatchTest, PrivateArraysLiveInTheQueuesScratchSwizzled) {
  // ROCr's amd_queue_t: compute_tmpring_size at 140, scratch_backing_memory_location at 160, its byte size at 168.
  auto field = [&](size_t offset, auto* out) {
    std::memcpy(out, reinterpret_cast<const char*>(queue_) + offset, sizeof(*out));
  };
  uint64_t bytes = 0;
  field(168, &bytes);
  EXPECT_EQ(bytes, 0u) << "a queue has no scratch until a dispatch needs it";
  constexpr uint32_t kN = 256;  // one workgroup of four waves, each in a slot of its own
  uint32_t* index = Allocate<uint32_t>(kN);
  uint32_t* out = Allocate<uint32_t>(kN);
  for (uint32_t i = 0; i < kN; ++i) index[i] = (i * 37) % 256;
  ASSERT_TRUE(Launch("private_trace", Linear(kN, kN), Kernargs().Arg(index).Arg(out)));
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], (i << 12) | index[i]) << i;
  EXPECT_TRUE(QueueErrors().empty());

  uint32_t tmpring = 0;
  uint64_t location = 0;
  field(140, &tmpring);
  field(160, &location);
  field(168, &bytes);
  const uint64_t wave_bytes = ((tmpring >> 12) & 0x1fff) * 1024;
  // WAVES is per XCC (each XCC's CP has its own COMPUTE_TMPRING_SIZE); the XCCs share the backing.
  uint32_t xccs = 1;
  ASSERT_EQ(hsa_agent_get_info(gpu_, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_NUM_XCC), &xccs),
            HSA_STATUS_SUCCESS);
  const uint64_t slots = uint64_t{tmpring & 0xfff} * xccs;
  ASSERT_GE(wave_bytes, 64u * 1024) << "a wave's 64 lanes of at least 1 KiB";
  ASSERT_GE(slots, 4u);
  ASSERT_LE(slots * wave_bytes, bytes);
  ASSERT_NE(location, 0u);
  const auto* scratch = reinterpret_cast<const uint32_t*>(location);
  for (uint32_t wave = 0; wave < kN / 64; ++wave) {
    // Find the slot whose dword for (lane 0, element 0) is this wave's, then check every element of every lane.
    std::optional<uint64_t> slot;
    for (uint64_t s = 0; s < slots && !slot.has_value(); ++s) {
      if (scratch[(s * wave_bytes + 256) / 4] == (((wave * 64) << 12) | 1)) slot = s;  // lane 0, element 1
    }
    ASSERT_TRUE(slot.has_value()) << "wave " << wave << "'s private array is not in the queue's scratch";
    for (uint32_t lane = 0; lane < 64; ++lane) {
      for (uint32_t k = 0; k < 256; ++k) {
        ASSERT_EQ(scratch[(*slot * wave_bytes + k * 256 + lane * 4) / 4], ((wave * 64 + lane) << 12) | k)
            << "wave " << wave << " lane " << lane << " element " << k;
      }
    }
  }
}

// A private segment no wave can hold (64 lanes over COMPUTE_TMPRING_SIZE's 8191 KiB): the runtime cannot grow the
// queue's scratch, reports HSA_STATUS_ERROR_OUT_OF_RESOURCES through the queue's callback (as ROCr's handler does)
// and the dispatch never completes.
TEST_P(DispatchTest, ScratchNoWaveCanHoldIsOutOfResources) {
  uint32_t* index = Allocate<uint32_t>(64);
  uint32_t* out = Allocate<uint32_t>(64);
  Geometry g = Linear(64, 64);
  g.private_bytes = 200 * 1024;
  expect_stop_ = true;
  EXPECT_FALSE(Launch("private_trace", g, Kernargs().Arg(index).Arg(out)));
  std::vector<hsa_status_t> errors;
  for (int i = 0; i < 2000 && errors.empty(); ++i) {
    errors = QueueErrors();
    if (errors.empty()) usleep(1000);
  }
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], HSA_STATUS_ERROR_OUT_OF_RESOURCES);
}

// A grid whose workgroups wait for each other (a cooperative launch's grid sync) with a private segment whose slots
// for the whole GPU are past ROCr's single-use limit: the runtime sizes the queue's scratch for this dispatch's waves
// (ROCr's "large" scratch) rather than fewer slots, so every workgroup is resident at once and the grid finishes. With
// fewer slots than the grid's waves, the workgroups holding them would wait at the barrier for ever.
TEST_P(DispatchTest, AGridBarrierWithLargeScratchHasAllItsWorkgroupsResident) {
  // 4 MiB of scratch per wave (64 KiB per work-item): the GPU's 32 slots per CU would be GiBs, far past the limit,
  // and 256 MiB (what a fixed cap would give) holds 64 waves, fewer than this grid's 4 per workgroup on half the CUs.
  const BarrierGrid grid = LargeScratchBarrierGrid();
  const uint32_t groups = grid.groups;
  uint32_t* arrived = grid.arrived;
  uint32_t* out = grid.out;
  Geometry g = grid.geometry;
  ASSERT_TRUE(Launch("grid_barrier", g, Kernargs().Arg(arrived).Arg(out).Arg(groups)));
  for (uint64_t i = 0; i < uint64_t{groups} * g.workgroup[0]; ++i) ASSERT_EQ(out[i], groups) << i;
  EXPECT_TRUE(QueueErrors().empty());
  uint32_t tmpring = 0;
  std::memcpy(&tmpring, reinterpret_cast<const char*>(queue_) + 140, sizeof(tmpring));
  uint32_t xccs = 1;
  ASSERT_EQ(hsa_agent_get_info(gpu_, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_NUM_XCC), &xccs),
            HSA_STATUS_SUCCESS);
  EXPECT_GE(uint64_t{tmpring & 0xfff} * xccs, uint64_t{groups} * 4) << "a slot for each of the grid's waves";
  EXPECT_EQ((tmpring >> 12) & 0x1fff, 4096u) << "4 MiB per wave, in KiB";

  // A later dispatch with less scratch per work-item does not run on the single-use scratch sized for the first:
  // the runtime sizes a new one, with slots for every wave of this grid too.
  *arrived = 0;
  g.private_bytes = 32 * 1024;
  ASSERT_TRUE(Launch("grid_barrier", g, Kernargs().Arg(arrived).Arg(out).Arg(groups)));
  for (uint64_t i = 0; i < uint64_t{groups} * g.workgroup[0]; ++i) ASSERT_EQ(out[i], groups) << i;
  std::memcpy(&tmpring, reinterpret_cast<const char*>(queue_) + 140, sizeof(tmpring));
  EXPECT_EQ((tmpring >> 12) & 0x1fff, 2048u) << "sized for the second dispatch";
}

TEST_P(DispatchTest, LanesReadTheFirstLaneAndCountTheLanesBelowThem) {
  constexpr uint32_t kN = 100;  // the second wave has 36 active lanes
  uint32_t* in = Allocate<uint32_t>(kN);
  uint32_t* out = Allocate<uint32_t>(kN);
  for (uint32_t i = 0; i < kN; ++i) in[i] = 1000 + i;
  ASSERT_TRUE(Launch("wave_broadcast", Linear(kN, 128), Kernargs().Arg(in).Arg(out)));
  for (uint32_t i = 0; i < kN; ++i) {
    const uint32_t first = 1000 + (i / 64) * 64;  // readfirstlane: the wave's lowest active lane
    const uint32_t below = i % 64;                // mbcnt over a full mask: the lanes below this one
    ASSERT_EQ(out[i], first + below) << i;
  }
}

// Waits (bounded) for the queue's error callback to have run; returns what it reported.
std::vector<hsa_status_t> AwaitQueueErrors(const std::function<std::vector<hsa_status_t>()>& errors) {
  std::vector<hsa_status_t> seen;
  for (int i = 0; i < 2000 && seen.empty(); ++i) {
    seen = errors();
    if (seen.empty()) usleep(1000);
  }
  return seen;
}

// A kernel's llvm.trap (s_trap 2) puts the queue into the error state: ROCr's trap handler reports it and the queue's
// callback sees HSA_STATUS_ERROR_EXCEPTION (0x1016), not an illegal instruction. The dispatch never completes; what
// the waves stored before the trap stays.
TEST_P(DispatchTest, LlvmTrapIsAnExceptionReportedToTheQueueCallback) {
  uint32_t* out = Allocate<uint32_t>(64);
  std::memset(out, 0, 64 * sizeof(uint32_t));
  expect_stop_ = true;
  EXPECT_FALSE(Launch("trap_after_store", Linear(64, 64), Kernargs().Arg(out)));
  const std::vector<hsa_status_t> errors = AwaitQueueErrors([this] { return QueueErrors(); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], HSA_STATUS_ERROR_EXCEPTION);
  EXPECT_EQ(static_cast<uint32_t>(errors[0]), 0x1016u);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(out[i], 7u) << i;
}

// llvm.debugtrap (s_trap 3) with no debugger attached is a no-op (AMDGPUUsage's trap handler ABI).
TEST_P(DispatchTest, LlvmDebugTrapWithoutADebuggerDoesNothing) {
  uint32_t* out = Allocate<uint32_t>(64);
  std::memset(out, 0, 64 * sizeof(uint32_t));
  ASSERT_TRUE(Launch("debugtrap_then_store", Linear(64, 64), Kernargs().Arg(out)));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(out[i], 9u) << i;
  EXPECT_TRUE(QueueErrors().empty());
}

// An illegal instruction keeps its own code.
TEST_P(DispatchTest, AnIllegalInstructionIsReportedAsOne) {
  uint32_t* out = Allocate<uint32_t>(4);
  std::memset(out, 0, 4 * sizeof(uint32_t));
  expect_stop_ = true;
  EXPECT_FALSE(Launch("gws_without_allocation", Linear(64, 64), Kernargs().Arg(out)));
  const std::vector<hsa_status_t> errors = AwaitQueueErrors([this] { return QueueErrors(); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], static_cast<hsa_status_t>(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION));
  EXPECT_EQ(out[1], 0u);
}

struct FaultSeen {
  std::mutex mu;
  std::vector<hsa_amd_event_t> events;
};

hsa_status_t OnSystemEvent(const hsa_amd_event_t* event, void* data) {
  auto* seen = static_cast<FaultSeen*>(data);
  std::lock_guard<std::mutex> lock(seen->mu);
  seen->events.push_back(*event);
  return HSA_STATUS_SUCCESS;
}

TEST_P(DispatchTest, AStoreToAnUnmappedAddressIsAGpuMemoryFault) {
  static FaultSeen seen;  // handlers stay registered for the runtime's life
  {
    std::lock_guard<std::mutex> lock(seen.mu);
    seen.events.clear();
  }
  ASSERT_EQ(hsa_amd_register_system_event_handler(OnSystemEvent, &seen), HSA_STATUS_SUCCESS);
  constexpr uint64_t kUnmapped = 0x10000;  // below the GPUVM aperture's first mappable page
  expect_stop_ = true;
  EXPECT_FALSE(Launch("store_to", Linear(64, 64), Kernargs().Arg(reinterpret_cast<uint32_t*>(kUnmapped))));
  bool reported = false;
  for (int i = 0; i < 2000 && !reported; ++i) {
    {
      std::lock_guard<std::mutex> lock(seen.mu);
      reported = !seen.events.empty();
    }
    if (!reported) usleep(1000);
  }
  ASSERT_TRUE(reported);
  std::lock_guard<std::mutex> lock(seen.mu);
  EXPECT_EQ(seen.events[0].event_type, HSA_AMD_GPU_MEMORY_FAULT_EVENT);
  EXPECT_EQ(seen.events[0].memory_fault.agent.handle, gpu_.handle);
  EXPECT_EQ(seen.events[0].memory_fault.virtual_address, kUnmapped);
}

// hsa_queue_create(COOPERATIVE), as ROCr's GpuAgent::QueueCreate: the agent's one GWS queue, handed out shared
// (16384 packets, whatever the caller asked) and counted; hsa_queue_destroy gives back one reference, the last one
// destroys it, and the next request makes a new queue. Its hsa_queue_t says COOPERATIVE; it runs work as any queue.
TEST_P(DispatchTest, TheCooperativeQueueIsSharedCountedAndRunsWork) {
  bool cooperative = false;
  ASSERT_EQ(hsa_agent_get_info(gpu_, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES), &cooperative),
            HSA_STATUS_SUCCESS);
  ASSERT_TRUE(cooperative);
  uint32_t max_size = 0;
  ASSERT_EQ(hsa_agent_get_info(gpu_, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &max_size), HSA_STATUS_SUCCESS);
  hsa_queue_t* first = nullptr;
  hsa_queue_t* second = nullptr;
  ASSERT_EQ(hsa_queue_create(gpu_, 64, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &first),
            HSA_STATUS_SUCCESS);
  // A size past the agent's maximum is no error here: the shared queue's size is its own.
  ASSERT_EQ(hsa_queue_create(gpu_, max_size * 2, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, UINT32_MAX, UINT32_MAX,
                             &second),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(first, second);
  EXPECT_NE(first, queue_);
  EXPECT_EQ(first->type, static_cast<uint32_t>(HSA_QUEUE_TYPE_COOPERATIVE));
  EXPECT_EQ(first->size, 16384u);
  const uint64_t id = first->id;

  // One reference given back: the other still runs work on it.
  ASSERT_EQ(hsa_queue_destroy(first), HSA_STATUS_SUCCESS);
  hsa_queue_t* ordinary = queue_;
  queue_ = second;
  constexpr uint32_t kN = 1000;
  uint32_t* counter = Allocate<uint32_t>(1);
  *counter = 0;
  const bool ran = Launch("count_all", Linear(kN, 256), Kernargs().Arg(counter));
  queue_ = ordinary;
  ASSERT_TRUE(ran);
  EXPECT_EQ(*counter, kN);

  // The last reference destroys it; one more destroy names no queue.
  ASSERT_EQ(hsa_queue_destroy(second), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(second), HSA_STATUS_ERROR_INVALID_QUEUE);
  hsa_queue_t* again = nullptr;
  ASSERT_EQ(hsa_queue_create(gpu_, 64, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &again),
            HSA_STATUS_SUCCESS);
  EXPECT_NE(again->id, id) << "a new queue";
  EXPECT_EQ(again->type, static_cast<uint32_t>(HSA_QUEUE_TYPE_COOPERATIVE));
  EXPECT_EQ(hsa_queue_destroy(again), HSA_STATUS_SUCCESS);
}

// ROCr's answers to a wrong cooperative request: hsa_queue_create's own checks (no out pointer, a size of 0 or not a
// power of two, a type past COOPERATIVE) are INVALID_ARGUMENT; a CPU agent has no queues (INVALID_QUEUE_CREATION);
// a KFD that refuses the GWS (EBUSY: another queue of the process holds it) is OUT_OF_RESOURCES, and no queue stays.
TEST_P(DispatchTest, WrongCooperativeRequestsGetROCrsCodes) {
  hsa_queue_t* q = nullptr;
  EXPECT_EQ(hsa_queue_create(gpu_, 64, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, 0, 0, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_queue_create(gpu_, 0, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, 0, 0, &q),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_queue_create(gpu_, 100, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, 0, 0, &q),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_queue_create(gpu_, 64, static_cast<hsa_queue_type32_t>(3), nullptr, nullptr, 0, 0, &q),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_queue_create(cpu_, 64, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, 0, 0, &q),
            HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  {
    hipmem::kfd_sim::ScopedFaultInjection busy(hipmem::kfd_sim::FaultPlan{
        .fail_at = 1, .error = EBUSY, .only_ioctl_nr = hipmem::kfd_uapi::kAllocQueueGws.nr});
    EXPECT_EQ(hsa_queue_create(gpu_, 64, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, 0, 0, &q),
              HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    EXPECT_EQ(busy.failed(), 1u);
  }
  // Nothing of the failed attempt is left: the next request makes the queue.
  ASSERT_EQ(hsa_queue_create(gpu_, 64, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, 0, 0, &q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(q->type, static_cast<uint32_t>(HSA_QUEUE_TYPE_COOPERATIVE));
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
}

// The grid barrier of AGridBarrierWithLargeScratchHasAllItsWorkgroupsResident on the cooperative queue, with VRAM
// short: the scratch for all of the grid's waves cannot be had (the KFD refuses that one allocation). The cooperative
// queue does not run the grid with fewer workgroups resident (which would wait at the barrier for ever): the dispatch
// fails with OUT_OF_RESOURCES, reported to the callback the cooperative request gave.
TEST_P(DispatchTest, ACooperativeGridWithoutScratchForAllItsWavesFails) {
  hsa_queue_t* ordinary = queue_;
  ASSERT_EQ(hsa_queue_create(gpu_, 64, HSA_QUEUE_TYPE_COOPERATIVE, OnQueueError, this, UINT32_MAX, UINT32_MAX, &queue_),
            HSA_STATUS_SUCCESS);
  const BarrierGrid grid = LargeScratchBarrierGrid();
  // The first VRAM allocation after the doorbell fails, on every thread (the runtime's signal handler thread
  // allocates the scratch): the one sized for the whole grid. A smaller one would succeed.
  std::optional<hipmem::kfd_sim::ScopedFaultInjection> short_of_vram;
  expect_stop_ = true;
  const bool completed = Launch("grid_barrier", grid.geometry, grid.args(), [&] {
    short_of_vram.emplace(hipmem::kfd_sim::FaultPlan{.fail_at = 1,
                                                     .fail_count = 1,
                                                     .only_ioctl_nr = hipmem::kfd_uapi::kAllocMemoryOfGpu.nr,
                                                     .all_threads = true});
  });
  EXPECT_FALSE(completed);
  ASSERT_TRUE(short_of_vram.has_value());
  EXPECT_EQ(short_of_vram->failed(), 1u);
  short_of_vram.reset();
  const std::vector<hsa_status_t> errors = AwaitQueueErrors([this] { return QueueErrors(); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  EXPECT_EQ(hsa_queue_destroy(queue_), HSA_STATUS_SUCCESS);
  queue_ = ordinary;
}

INSTANTIATE_TEST_SUITE_P(CodeObjectVersions, DispatchTest, ::testing::Values(4u, 5u),
                         [](const ::testing::TestParamInfo<uint32_t>& info) {
                           return "v" + std::to_string(info.param);
                         });

}  // namespace
