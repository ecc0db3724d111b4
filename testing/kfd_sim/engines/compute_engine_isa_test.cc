// The compute CP running real kernels (clang-19 code objects for GFX9) from an AQL ring: completion signals,
// VM faults, traps and illegal instructions as queue halts.
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "gpu_abi/aql_packets.h"
#include "testing/kfd_sim/engines/compute_engine.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"
#include "testing/kfd_sim/engines/gfx9/test_code_objects.h"
#include "testing/kfd_sim/engines/test_memory.h"

namespace hipmem::kfd_sim {
namespace {

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

struct alignas(64) Slot {
  unsigned char bytes[aql::kPacketBytes];
};

class ComputeEngineIsaTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kSlots = 8;

  void Start(gfx9::Target target, std::string_view code_object) {
    ring_.resize(kSlots);
    for (Slot& s : ring_) aql::InvalidateSlot(&s);
    memory_.Map(ring_.data(), kSlots * aql::kPacketBytes);
    memory_.Map(&read_index_, sizeof(read_index_));
    memory_.Map(&signal_, sizeof(signal_));
    absl::StatusOr<std::unique_ptr<gfx9::LoadedCodeObject>> loaded = gfx9::LoadedCodeObject::Load(code_object, &memory_);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    code_ = std::move(*loaded);
    AqlQueueDescriptor queue{Va(ring_.data()), kSlots * aql::kPacketBytes, Va(&read_index_), Va(&write_index_)};
    queue.isa = target;
    engine_ = std::make_unique<ComputeEngine>(
        "cp0", &memory_, queue, 4,
        ComputeEngine::Callbacks{.on_signal_interrupt = nullptr,
                                 .on_vm_fault =
                                     [this](uint64_t va) {
                                       std::lock_guard<std::mutex> lock(mu_);
                                       faults_.push_back(va);
                                     },
                                 .on_queue_error =
                                     [this](QueueError e) {
                                       std::lock_guard<std::mutex> lock(mu_);
                                       errors_.push_back(e);
                                     }});
  }

  void TearDown() override {
    engine_.reset();
    code_.reset();
  }

  // Dispatches `kernel` over a 1-D grid and waits for the queue; returns whether it completed.
  bool Dispatch(std::string_view kernel, uint32_t grid, uint16_t workgroup, const void* kernargs) {
    absl::StatusOr<uint64_t> kd = code_->KernelObject(kernel);
    EXPECT_TRUE(kd.ok()) << kd.status();
    std::atomic_ref<int64_t>(signal_.value).store(1, std::memory_order_release);
    aql::KernelDispatchPacket p{};
    p.header = aql::Header(aql::PacketType::kKernelDispatch);
    p.setup = 1;
    p.workgroup_size_x = workgroup;
    p.workgroup_size_y = 1;
    p.workgroup_size_z = 1;
    p.grid_size_x = grid;
    p.grid_size_y = 1;
    p.grid_size_z = 1;
    p.kernel_object = *kd;
    p.kernarg_address = Va(kernargs);
    p.completion_signal = Va(&signal_);
    aql::WritePacket(&ring_[write_index_ % kSlots], p);
    engine_->RingDoorbell(write_index_);
    ++write_index_;
    return engine_->WaitIdle();
  }

  IdentityPageTable memory_;
  std::vector<Slot> ring_;
  uint64_t read_index_ = 0;
  uint64_t write_index_ = 0;
  aql::AmdSignal signal_{};
  std::unique_ptr<gfx9::LoadedCodeObject> code_;
  std::unique_ptr<ComputeEngine> engine_;
  std::mutex mu_;
  std::vector<uint64_t> faults_;
  std::vector<QueueError> errors_;
};


struct VectorAddArgs {
  const float* a;
  const float* b;
  float* c;
  int32_t n;
  uint32_t pad;
  gfx9::HiddenArgs hidden;
};

TEST_F(ComputeEngineIsaTest, AqlDispatchOfARealKernelCompletesItsSignalWithTheResults) {
  Start(gfx9::Target::kGfx942, hipmem_testing::kernels_gfx942());
  constexpr int kN = 100000;  // 391 workgroups spread over the compute-unit threads
  std::vector<float> a(kN), b(kN), c(kN, 0.0f);
  for (int i = 0; i < kN; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 2.0f * static_cast<float>(i);
  }
  memory_.Map(a.data(), kN * 4);
  memory_.Map(b.data(), kN * 4);
  memory_.Map(c.data(), kN * 4);
  VectorAddArgs args{a.data(), b.data(), c.data(), kN, 0, gfx9::Hidden1d(kN, 256)};
  memory_.Map(&args, sizeof(args));
  ASSERT_TRUE(Dispatch("vector_add", kN, 256, &args));
  EXPECT_EQ(std::atomic_ref<int64_t>(signal_.value).load(), 0);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(c[i], 3.0f * static_cast<float>(i)) << i;
  EXPECT_GT(engine_->instructions_executed(), uint64_t{kN / 64});
  EXPECT_TRUE(faults_.empty());
  EXPECT_TRUE(errors_.empty());
}

TEST_F(ComputeEngineIsaTest, AStoreToAnUnmappedAddressIsAVmFaultAtThatAddress) {
  Start(gfx9::Target::kGfx90a, hipmem_testing::kernels_gfx90a());
  // A page-aligned block nobody mapped: the kernel's first lane stores at its start.
  std::vector<uint32_t> unmapped(4096);
  struct {
    uint32_t* where;
    gfx9::HiddenArgs hidden;
  } args{unmapped.data(), gfx9::Hidden1d(64, 64)};
  memory_.Map(&args, sizeof(args));
  EXPECT_FALSE(Dispatch("store_to", 64, 64, &args));
  ASSERT_EQ(faults_.size(), 1u);
  EXPECT_EQ(faults_[0], Va(unmapped.data()));
  EXPECT_EQ(unmapped[0], 0u) << "nothing is written through a missing mapping";
  EXPECT_EQ(std::atomic_ref<int64_t>(signal_.value).load(), 1) << "a halted dispatch never completes";
}

TEST_F(ComputeEngineIsaTest, AnInstructionTheEngineCannotRunHaltsTheQueueAsIllegal) {
  Start(gfx9::Target::kGfx90a, hipmem_testing::illegal_gfx90a());
  float out[4] = {1, 2, 3, 4};
  memory_.Map(out, sizeof(out));
  struct {
    float* out;
    float a, b;
    gfx9::HiddenArgs hidden;
  } args{out, 1.0f, 2.0f, gfx9::Hidden1d(64, 64)};
  memory_.Map(&args, sizeof(args));
  EXPECT_FALSE(Dispatch("illegal_gws", 64, 64, &args));
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_EQ(errors_[0], QueueError::kIllegalInstruction);
  EXPECT_TRUE(faults_.empty());
}

// The arguments of testdata/illegal.hip's kernels: out[0] = a + b, around what stops the wave.
struct StopArgs {
  float* out;
  float a, b;
  gfx9::HiddenArgs hidden;
};

// __builtin_trap (llvm.trap: s_trap 2, which HIP's abort() and a failed assert reach) halts the queue as a trap, not
// as an illegal instruction; what the wave stored before it stays.
TEST_F(ComputeEngineIsaTest, LlvmTrapHaltsTheQueueAsAWaveTrap) {
  Start(gfx9::Target::kGfx90a, hipmem_testing::illegal_gfx90a());
  float out[4] = {1, 2, 3, 4};
  memory_.Map(out, sizeof(out));
  StopArgs args{out, 10.0f, 20.0f, gfx9::Hidden1d(64, 64)};
  memory_.Map(&args, sizeof(args));
  EXPECT_FALSE(Dispatch("trap_after_store", 64, 64, &args));
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_EQ(errors_[0], QueueError::kTrap);
  EXPECT_TRUE(faults_.empty());
  EXPECT_EQ(out[0], 30.0f);
  EXPECT_EQ(std::atomic_ref<int64_t>(signal_.value).load(), 1) << "a trapped dispatch never completes";
}

// __builtin_debugtrap (s_trap 3) without a debugger is a no-op: the kernel runs on and completes.
TEST_F(ComputeEngineIsaTest, DebugTrapWithoutADebuggerFallsThrough) {
  Start(gfx9::Target::kGfx90a, hipmem_testing::illegal_gfx90a());
  float out[4] = {1, 2, 3, 4};
  memory_.Map(out, sizeof(out));
  StopArgs args{out, 10.0f, 20.0f, gfx9::Hidden1d(64, 64)};
  memory_.Map(&args, sizeof(args));
  ASSERT_TRUE(Dispatch("debugtrap_then_store", 64, 64, &args));
  EXPECT_EQ(out[0], 30.0f);
  EXPECT_TRUE(errors_.empty());
  EXPECT_EQ(std::atomic_ref<int64_t>(signal_.value).load(), 0);
}

TEST_F(ComputeEngineIsaTest, AGpuWithoutAnIsaRefusesARealKernelObject) {
  Start(gfx9::Target::kGfx90a, hipmem_testing::kernels_gfx90a());
  engine_.reset();
  AqlQueueDescriptor queue{Va(ring_.data()), kSlots * aql::kPacketBytes, Va(&read_index_), Va(&write_index_)};
  queue.initial_read_index = read_index_;
  engine_ = std::make_unique<ComputeEngine>(
      "cp-rdna", &memory_, queue, 4,
      ComputeEngine::Callbacks{.on_signal_interrupt = nullptr,
                               .on_vm_fault = nullptr,
                               .on_queue_error = [this](QueueError e) {
                                 std::lock_guard<std::mutex> lock(mu_);
                                 errors_.push_back(e);
                               }});
  uint32_t nothing[64] = {};
  memory_.Map(nothing, sizeof(nothing));
  EXPECT_FALSE(Dispatch("store_to", 64, 64, nothing));
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_EQ(errors_[0], QueueError::kInvalidKernelObject);
}

}  // namespace
}  // namespace hipmem::kfd_sim
