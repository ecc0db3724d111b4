// Svm: attributes of managed ranges by agent, and prefetch after dependency signals, on the simulated KFD.
// Built per preset (BUILD): mi300x (one GPU) and 2xmi250x (two GPUs, prefetch from one to the other).
#include "hsa/svm.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime.h"
#include "hsa/runtime_testing.h"
#include "hsa/signal.h"
#include "hsa/signal_runtime.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::ElementsAre;

constexpr Bytes kRange = Bytes::MiB(4);
constexpr absl::Duration kPatience = absl::Seconds(20);

// Private anonymous memory the process owns, as hipMallocManaged takes from the OS.
class Mapping {
 public:
  explicit Mapping(Bytes size) : size_(size) {
    void* p = mmap(nullptr, size.raw(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : p;
  }
  ~Mapping() {
    if (base_ != nullptr) munmap(base_, size_.raw());
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  DeviceAddress address() const { return DeviceAddress::FromPointer(base_); }
  uint32_t* words() const { return static_cast<uint32_t*>(base_); }
  size_t word_count() const { return size_.raw() / sizeof(uint32_t); }

 private:
  Bytes size_;
  void* base_;
};

class SvmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(runtime_, Runtime::Create());
    for (const Agent& agent : runtime_->agents()) {
      if (agent.type == DeviceType::kCpu && !cpu_.has_value()) cpu_ = agent.id;
      if (agent.type == DeviceType::kGpu) gpus_.push_back(agent.id);
    }
    ASSERT_TRUE(cpu_.has_value());
    ASSERT_FALSE(gpus_.empty());
    signals_ = SignalRuntime::Create(*runtime_);
    svm_ = Svm::Create(*runtime_);
  }
  void TearDown() override {
    svm_.reset();
    signals_.reset();
  }

  SignalRef NewSignal(SignalValue initial) {
    absl::StatusOr<SignalHandle> handle = signals_->CreateSignal(initial, {});
    EXPECT_THAT(handle.status(), IsOk());
    return *signals_->Find(*handle);
  }
  Bytes Available(AgentId gpu) { return *runtime_->MemoryAvailable(gpu); }
  // Prefetches `mapping` to `agent` and waits for the completion signal.
  void PrefetchAndWait(const Mapping& mapping, AgentId agent) {
    SignalRef done = NewSignal(1);
    ASSERT_THAT(svm_->PrefetchAsync(mapping.address(), kRange, agent, {}, done), IsOk());
    ASSERT_EQ(done.Wait(SignalCondition::kEq, 0, kPatience, WaitHint::kBlocked), 0);
  }

  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<SignalRuntime> signals_;
  std::unique_ptr<Svm> svm_;
  std::optional<AgentId> cpu_;
  std::vector<AgentId> gpus_;
};

TEST_F(SvmTest, SimulatedKfdAdvertisesSvm) { EXPECT_TRUE(svm_->Supported()); }

TEST_F(SvmTest, AttributesReadBackAsSet) {
  Mapping m(kRange);
  SvmAttributes set;
  set.grain = SvmGrain::kCoarseGrained;
  set.read_only = true;
  set.read_mostly = true;
  set.migration_granularity = 40;  // above ROCr's cap of 18
  set.preferred_location = std::optional<AgentId>(gpus_[0]);
  set.access = {{gpus_[0], SvmAccess::kAccessibleInPlace}, {*cpu_, SvmAccess::kAccessible}};
  ASSERT_THAT(svm_->SetAttributes(m.address(), kRange, set), IsOk());

  const AgentId queries[] = {gpus_[0], *cpu_};
  ASSERT_OK_AND_ASSIGN(const SvmRangeAttributes got, svm_->GetAttributes(m.address(), kRange, queries));
  EXPECT_EQ(got.grain, SvmGrain::kCoarseGrained);
  EXPECT_TRUE(got.read_only);
  EXPECT_TRUE(got.read_mostly);
  EXPECT_FALSE(got.hive_local);
  EXPECT_EQ(got.migration_granularity, 18u);
  EXPECT_EQ(got.preferred_location, gpus_[0]);
  EXPECT_THAT(got.access, ElementsAre(SvmAgentAccess{gpus_[0], SvmAccess::kAccessibleInPlace},
                                      SvmAgentAccess{*cpu_, SvmAccess::kAccessible}));

  // Clearing: fine-grained again, no preference, the GPU refused.
  SvmAttributes clear;
  clear.grain = SvmGrain::kFineGrained;
  clear.read_only = false;
  clear.preferred_location = std::optional<AgentId>();
  clear.access = {{gpus_[0], SvmAccess::kNoAccess}};
  ASSERT_THAT(svm_->SetAttributes(m.address(), kRange, clear), IsOk());
  ASSERT_OK_AND_ASSIGN(const SvmRangeAttributes after, svm_->GetAttributes(m.address(), kRange, queries));
  EXPECT_EQ(after.grain, SvmGrain::kFineGrained);
  EXPECT_FALSE(after.read_only);
  EXPECT_TRUE(after.read_mostly) << "untouched attributes stay";
  EXPECT_EQ(after.preferred_location, std::nullopt);
  EXPECT_EQ(after.access[0].access, SvmAccess::kNoAccess);
}

TEST_F(SvmTest, UnalignedRangesWidenToWholePages) {
  Mapping m(kRange);
  SvmAttributes set;
  set.read_mostly = true;
  // One byte inside the second page marks the whole page.
  ASSERT_THAT(svm_->SetAttributes(m.address() + Bytes(4096 + 17), Bytes(1), set), IsOk());
  ASSERT_OK_AND_ASSIGN(const SvmRangeAttributes page, svm_->GetAttributes(m.address() + Bytes(4096), Bytes(4096)));
  EXPECT_TRUE(page.read_mostly);
  ASSERT_OK_AND_ASSIGN(const SvmRangeAttributes first, svm_->GetAttributes(m.address(), Bytes(4096)));
  EXPECT_FALSE(first.read_mostly) << "the page before is not part of it";
}

TEST_F(SvmTest, MixedGrainReadsIndeterminate) {
  Mapping m(kRange);
  SvmAttributes coarse;
  coarse.grain = SvmGrain::kCoarseGrained;
  SvmAttributes fine;
  fine.grain = SvmGrain::kFineGrained;
  ASSERT_THAT(svm_->SetAttributes(m.address(), Bytes::MiB(1), coarse), IsOk());
  ASSERT_THAT(svm_->SetAttributes(m.address() + Bytes::MiB(1), Bytes::MiB(1), fine), IsOk());
  ASSERT_OK_AND_ASSIGN(const SvmRangeAttributes got, svm_->GetAttributes(m.address(), Bytes::MiB(2)));
  EXPECT_EQ(got.grain, SvmGrain::kIndeterminate);
}

TEST_F(SvmTest, BadInputIsRefusedWithTheRightCode) {
  Mapping m(kRange);
  SvmAttributes ok;
  ok.read_mostly = true;
  EXPECT_THAT(svm_->SetAttributes(DeviceAddress(0), kRange, ok), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(svm_->SetAttributes(m.address(), Bytes(0), ok), StatusIs(absl::StatusCode::kInvalidArgument));

  SvmAttributes twice;
  twice.access = {{gpus_[0], SvmAccess::kAccessible}, {gpus_[0], SvmAccess::kNoAccess}};
  EXPECT_EQ(ToHsaStatus(svm_->SetAttributes(m.address(), kRange, twice)), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);

  SvmAttributes stranger;
  stranger.access = {{AgentId(0x1234), SvmAccess::kAccessible}};
  EXPECT_EQ(ToHsaStatus(svm_->SetAttributes(m.address(), kRange, stranger)), HSA_STATUS_ERROR_INVALID_AGENT);
  SvmAttributes indeterminate;
  indeterminate.grain = SvmGrain::kIndeterminate;
  EXPECT_THAT(svm_->SetAttributes(m.address(), kRange, indeterminate), StatusIs(absl::StatusCode::kInvalidArgument));

  const AgentId unknown[] = {AgentId(0x1234)};
  EXPECT_EQ(ToHsaStatus(svm_->GetAttributes(m.address(), kRange, unknown).status()), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(ToHsaStatus(svm_->PrefetchAsync(m.address(), kRange, AgentId(0x1234), {}, std::nullopt)),
            HSA_STATUS_ERROR_INVALID_AGENT);

  // Address space the process never mapped: the KFD refuses (-EFAULT), and that is HSA_STATUS_ERROR as in ROCr.
  void* hole = mmap(nullptr, kRange.raw(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(hole, MAP_FAILED);
  munmap(hole, kRange.raw());
  EXPECT_EQ(ToHsaStatus(svm_->SetAttributes(DeviceAddress::FromPointer(hole), kRange, ok)), HSA_STATUS_ERROR);
}

TEST_F(SvmTest, PrefetchWaitsForItsDependencyAndNeverBlocksTheCaller) {
  Mapping m(kRange);
  for (size_t i = 0; i < m.word_count(); ++i) m.words()[i] = static_cast<uint32_t>(i * 2654435761u);
  SignalRef dep = NewSignal(1);
  SignalRef done = NewSignal(1);
  const SignalRef deps[] = {dep};
  const Bytes before = Available(gpus_[0]);
  ASSERT_THAT(svm_->PrefetchAsync(m.address(), kRange, gpus_[0], deps, done), IsOk());

  // Queued: the location already reads as the GPU, nothing has moved, the signal is untouched.
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_EQ(done.Load(MemoryOrder::kAcquire), 1);
  EXPECT_EQ(Available(gpus_[0]), before);
  ASSERT_OK_AND_ASSIGN(const SvmRangeAttributes queued, svm_->GetAttributes(m.address(), kRange));
  EXPECT_EQ(queued.prefetch_location, gpus_[0]);

  dep.Store(0, MemoryOrder::kRelease);
  ASSERT_EQ(done.Wait(SignalCondition::kEq, 0, kPatience, WaitHint::kBlocked), 0);
  ASSERT_OK_AND_ASSIGN(const SvmRangeAttributes landed, svm_->GetAttributes(m.address(), kRange));
  EXPECT_EQ(landed.prefetch_location, gpus_[0]);
  if (Available(gpus_[0]) == before) GTEST_SKIP() << "no userfaultfd here: the simulator keeps ranges in system memory";
  EXPECT_EQ(before - Available(gpus_[0]), kRange) << "the range's VRAM is charged to the GPU";

  // Back to system memory: the VRAM is returned and the data is what the CPU wrote.
  PrefetchAndWait(m, *cpu_);
  EXPECT_EQ(Available(gpus_[0]), before);
  for (size_t i = 0; i < m.word_count(); ++i) {
    ASSERT_EQ(m.words()[i], static_cast<uint32_t>(i * 2654435761u)) << "word " << i;
  }
}

TEST_F(SvmTest, CpuTouchBringsAPrefetchedRangeBack) {
  Mapping m(kRange);
  std::memset(m.words(), 0x5a, kRange.raw());
  PrefetchAndWait(m, gpus_[0]);
  EXPECT_EQ(m.words()[m.word_count() - 1], 0x5a5a5a5au) << "the CPU reads what it wrote before the prefetch";
  m.words()[0] = 7;
  EXPECT_EQ(m.words()[0], 7u);
}

TEST_F(SvmTest, PrefetchFromGpuToGpuKeepsTheData) {
  if (gpus_.size() < 2) GTEST_SKIP() << "one GPU in this preset";
  Mapping m(kRange);
  for (size_t i = 0; i < m.word_count(); ++i) m.words()[i] = static_cast<uint32_t>(i ^ 0xdeadbeef);
  const Bytes before0 = Available(gpus_[0]);
  const Bytes before1 = Available(gpus_[1]);
  PrefetchAndWait(m, gpus_[0]);
  PrefetchAndWait(m, gpus_[1]);
  ASSERT_OK_AND_ASSIGN(const SvmRangeAttributes on1, svm_->GetAttributes(m.address(), kRange));
  EXPECT_EQ(on1.prefetch_location, gpus_[1]);
  if (Available(gpus_[1]) != before1) {
    EXPECT_EQ(Available(gpus_[0]), before0) << "GPU 0 got its VRAM back";
    EXPECT_EQ(before1 - Available(gpus_[1]), kRange);
  }
  PrefetchAndWait(m, *cpu_);
  EXPECT_EQ(Available(gpus_[1]), before1);
  for (size_t i = 0; i < m.word_count(); ++i) ASSERT_EQ(m.words()[i], static_cast<uint32_t>(i ^ 0xdeadbeef));
}

TEST_F(SvmTest, LatePrefetchDoesNotHoldBackAReadyOne) {
  Mapping a(kRange);
  Mapping b(kRange);
  SignalRef never = NewSignal(1);
  SignalRef done_a = NewSignal(1);
  SignalRef done_b = NewSignal(1);
  const SignalRef deps[] = {never};
  ASSERT_THAT(svm_->PrefetchAsync(a.address(), kRange, gpus_[0], deps, done_a), IsOk());
  ASSERT_THAT(svm_->PrefetchAsync(b.address(), kRange, gpus_[0], {}, done_b), IsOk());
  EXPECT_EQ(done_b.Wait(SignalCondition::kEq, 0, kPatience, WaitHint::kBlocked), 0);
  EXPECT_EQ(done_a.Load(MemoryOrder::kAcquire), 1);
  // Destroying the Svm with a prefetch still waiting returns, and leaves that signal alone.
  svm_.reset();
  EXPECT_EQ(done_a.Load(MemoryOrder::kAcquire), 1);
}

TEST_F(SvmTest, FailedMigrationSetsTheCompletionNegative) {
  // The KFD refuses SVM attributes over a GPU buffer (-EADDRINUSE), so migrating one fails on the worker. (Not an
  // unmapped hole: the address space may be reused by any thread before the prefetch runs.)
  std::optional<PoolId> vram;
  for (const Agent& agent : runtime_->agents()) {
    if (agent.id == gpus_[0] && !agent.pools.empty()) vram = agent.pools[0];
  }
  ASSERT_TRUE(vram.has_value());
  ASSERT_OK_AND_ASSIGN(const DeviceAddress buffer, Unowned(runtime_->Allocate(*vram, kRange)));
  SignalRef done = NewSignal(1);
  ASSERT_THAT(svm_->PrefetchAsync(buffer, kRange, gpus_[0], {}, done), IsOk());
  EXPECT_EQ(done.Wait(SignalCondition::kLt, 0, kPatience, WaitHint::kBlocked), -1);
  EXPECT_THAT(runtime_->Free(buffer), IsOk());
}

}  // namespace
}  // namespace hipmem::hsa
