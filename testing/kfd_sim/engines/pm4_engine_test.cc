#include "testing/kfd_sim/engines/pm4_engine.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <string_view>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gpu_abi/pm4_packets.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/pm4_test_shaders.h"
#include "testing/kfd_sim/engines/test_memory.h"

namespace hipmem::kfd_sim {
namespace pm4 = ::hipmem::gpu_abi::pm4;
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

template <typename T>
T Load(const T& v) {
  return std::atomic_ref<const T>(v).load(std::memory_order_acquire);
}

// A PM4 queue as kfdtest lays it out: a ring of dwords plus read/write pointers, all GPU-mapped, and a producer
// that counts its write pointer in dwords.
class Pm4EngineTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kRingDwords = 64;

  void SetUp() override {
    ring_.assign(kRingDwords, 0);
    memory_.Map(ring_.data(), kRingDwords * 4);
    memory_.Map(&rptr_, sizeof(rptr_));
    memory_.Map(&wptr_, sizeof(wptr_));
    Start();
  }

  void Start(uint64_t initial_rptr = 0, std::optional<gfx9::Target> isa = std::nullopt) {
    engine_.reset();
    engine_ = std::make_unique<Pm4Engine>(
        "pm4 0", &memory_,
        Pm4QueueDescriptor{.ring_va = Va(ring_.data()),
                           .ring_bytes = kRingDwords * 4,
                           .rptr_va = Va(&rptr_),
                           .wptr_va = Va(&wptr_),
                           .initial_rptr = initial_rptr,
                           .isa = isa},
        Pm4Engine::Callbacks{
            .on_interrupt =
                [this](uint32_t context) {
                  std::lock_guard<std::mutex> lock(mu_);
                  interrupts_.push_back(context);
                },
            .on_vm_fault =
                [this](uint64_t va) {
                  std::lock_guard<std::mutex> lock(mu_);
                  faults_.push_back(va);
                },
            .on_queue_error =
                [this](Pm4Error error, const std::string& detail) {
                  std::lock_guard<std::mutex> lock(mu_);
                  errors_.push_back(error);
                  details_.push_back(detail);
                }});
  }

  // Writes a packet at the write pointer, wrapping at the ring's end, without ringing.
  void Place(const std::vector<uint32_t>& packet) {
    for (uint32_t dw : packet) {
      ring_[wptr_ % kRingDwords] = dw;
      ++wptr_;
    }
  }
  void Submit(const std::vector<uint32_t>& packet) {
    Place(packet);
    engine_->RingDoorbell(wptr_);
  }

  std::vector<uint32_t> interrupts() {
    std::lock_guard<std::mutex> lock(mu_);
    return interrupts_;
  }
  std::vector<uint64_t> faults() {
    std::lock_guard<std::mutex> lock(mu_);
    return faults_;
  }
  std::vector<Pm4Error> errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return errors_;
  }
  std::string last_detail() {
    std::lock_guard<std::mutex> lock(mu_);
    return details_.empty() ? "" : details_.back();
  }

  IdentityPageTable memory_;
  std::vector<uint32_t> ring_;
  uint64_t rptr_ = 0;
  uint64_t wptr_ = 0;
  std::mutex mu_;
  std::vector<uint32_t> interrupts_;
  std::vector<uint64_t> faults_;
  std::vector<Pm4Error> errors_;
  std::vector<std::string> details_;
  std::unique_ptr<Pm4Engine> engine_;
};

TEST_F(Pm4EngineTest, WriteDataLandsAndTheReadPointerReachesTheWritePointerInDwords) {
  uint32_t dst[3] = {};
  memory_.Map(dst, sizeof(dst));
  Submit(pm4::MakeWriteData(Va(dst), {0x11, 0x22, 0x33}));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_THAT(dst, ElementsAre(0x11u, 0x22u, 0x33u));
  EXPECT_EQ(wptr_, 7u) << "header, control, two address dwords and three data dwords";
  EXPECT_EQ(Load(rptr_), 7u);
  EXPECT_EQ(engine_->rptr(), 7u);
}

TEST_F(Pm4EngineTest, WriteDataToOneAddressLeavesTheLastDword) {
  uint32_t dst[2] = {};
  memory_.Map(dst, sizeof(dst));
  Submit(pm4::MakeWriteData(Va(dst), std::vector<uint32_t>{1, 2, 3}, /*one_address=*/true));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_THAT(dst, ElementsAre(3u, 0u));
}

TEST_F(Pm4EngineTest, NopsOfEveryLengthAreSkipped) {
  uint32_t dst = 0;
  memory_.Map(&dst, sizeof(dst));
  Submit(pm4::MakeNop(1));  // kfdtest's header-only padding NOP (count 0x3FFF)
  Submit(pm4::MakeNop(2));
  Submit(pm4::MakeNop(9));
  Submit(pm4::MakeWriteData(Va(&dst), {0xabcd}));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(dst, 0xabcdu);
  EXPECT_EQ(engine_->rptr(), wptr_);
}

TEST_F(Pm4EngineTest, ReadPointerWrapsAtTheRingSizeAndPacketsMayStraddleTheEnd) {
  uint32_t dst[4] = {};
  memory_.Map(dst, sizeof(dst));
  // 60 dwords of NOP leave 4 before the end; the 6-dword WRITE_DATA wraps.
  Submit(pm4::MakeNop(60));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(Load(rptr_), 60u);
  Submit(pm4::MakeWriteData(Va(dst), {5, 6}));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_THAT(dst, ElementsAre(5u, 6u, 0u, 0u));
  EXPECT_EQ(wptr_, 66u);
  EXPECT_EQ(Load(rptr_), 2u) << "the reported read pointer is the dword offset in the ring";
  EXPECT_EQ(engine_->rptr(), 66u);
}

TEST_F(Pm4EngineTest, APartlyWrittenPacketWaitsForTheRest) {
  uint32_t dst = 0;
  memory_.Map(&dst, sizeof(dst));
  const std::vector<uint32_t> packet = pm4::MakeWriteData(Va(&dst), {77});
  Place(packet);
  engine_->RingDoorbell(wptr_ - 2);  // the producer announces only part of it
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(Load(dst), 0u);
  EXPECT_EQ(engine_->rptr(), 0u);
  EXPECT_FALSE(engine_->halted());
  engine_->RingDoorbell(wptr_);
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(dst, 77u);
}

TEST_F(Pm4EngineTest, ReleaseMemWritesItsDatumThenInterruptsWithTheContextId) {
  alignas(8) uint64_t slot = ~uint64_t{0};
  alignas(8) uint64_t fence32 = ~uint64_t{0};
  memory_.Map(&slot, sizeof(slot));
  memory_.Map(&fence32, sizeof(fence32));
  Submit(pm4::MakeSignalEvent(Va(&slot), 42));
  Submit(pm4::MakeReleaseMem(Va(&fence32), 0x1234567890ull, pm4::ReleaseData::kLow32,
                             pm4::ReleaseInterrupt::kWriteConfirmOnly, 99));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(slot, 42u) << "64-bit data: the event id, as kfdtest writes it into the event's mailbox";
  EXPECT_EQ(fence32, 0xffffffff00000000ull | 0x34567890u) << "32-bit data writes only the low dword";
  EXPECT_THAT(interrupts(), ElementsAre(42u)) << "write-confirm-only raises no interrupt";
}

TEST_F(Pm4EngineTest, ReleaseMemInterruptOnlyWritesNothing) {
  Submit(pm4::MakeReleaseMem(0, 0, pm4::ReleaseData::kNone, pm4::ReleaseInterrupt::kInterruptOnly, 7));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_THAT(interrupts(), ElementsAre(7u));
}

TEST_F(Pm4EngineTest, ReleaseMemTimestampsMoveForward) {
  alignas(8) uint64_t stamps[2] = {};
  memory_.Map(stamps, sizeof(stamps));
  Submit(pm4::MakeReleaseMem(Va(&stamps[0]), 0, pm4::ReleaseData::kGpuClock, pm4::ReleaseInterrupt::kNone, 0));
  ASSERT_TRUE(engine_->WaitIdle());
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  Submit(pm4::MakeReleaseMem(Va(&stamps[1]), 0, pm4::ReleaseData::kGpuClock, pm4::ReleaseInterrupt::kNone, 0));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_GT(stamps[0], 0u);
  // 1 ms at the 100 MHz counter is 100000 ticks.
  EXPECT_GE(stamps[1] - stamps[0], 100000u);
}

TEST_F(Pm4EngineTest, WaitRegMemHoldsLaterPacketsUntilMemoryMatches) {
  uint32_t flag = 0;
  uint32_t dst = 0;
  memory_.Map(&flag, sizeof(flag));
  memory_.Map(&dst, sizeof(dst));
  Submit(pm4::MakeWaitRegMem(Va(&flag), 0x5, 0xf, pm4::CompareFunction::kEqual));
  Submit(pm4::MakeWriteData(Va(&dst), {1}));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(Load(dst), 0u) << "the wait blocks the queue";
  std::atomic_ref<uint32_t>(flag).store(0xf5, std::memory_order_release);  // masked: 0x5
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(dst, 1u);
}

TEST_F(Pm4EngineTest, StoppingAbandonsAnUnsatisfiedWait) {
  uint32_t flag = 0;
  memory_.Map(&flag, sizeof(flag));
  Submit(pm4::MakeWaitRegMem(Va(&flag), 1, ~0u, pm4::CompareFunction::kEqual));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto start = std::chrono::steady_clock::now();
  engine_.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_F(Pm4EngineTest, IndirectBufferRunsItsPacketsThenTheRingContinues) {
  uint32_t dst[3] = {};
  memory_.Map(dst, sizeof(dst));
  std::vector<uint32_t> ib = pm4::MakeWriteData(Va(&dst[0]), {10});
  const std::vector<uint32_t> second = pm4::MakeWriteData(Va(&dst[1]), {20});
  ib.insert(ib.end(), second.begin(), second.end());
  memory_.Map(ib.data(), ib.size() * 4);
  Submit(pm4::MakeIndirectBuffer(Va(ib.data()), static_cast<uint32_t>(ib.size())));
  Submit(pm4::MakeWriteData(Va(&dst[2]), {30}));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_THAT(dst, ElementsAre(10u, 20u, 30u));
}

TEST_F(Pm4EngineTest, AChainedIndirectBufferReplacesTheRestOfItsIb) {
  uint32_t dst[3] = {};
  memory_.Map(dst, sizeof(dst));
  std::vector<uint32_t> tail = pm4::MakeWriteData(Va(&dst[1]), {2});
  memory_.Map(tail.data(), tail.size() * 4);
  std::vector<uint32_t> head = pm4::MakeWriteData(Va(&dst[0]), {1});
  const std::vector<uint32_t> chain = pm4::MakeIndirectBuffer(Va(tail.data()), static_cast<uint32_t>(tail.size()),
                                                              /*chain=*/true);
  const std::vector<uint32_t> skipped = pm4::MakeWriteData(Va(&dst[2]), {3});
  head.insert(head.end(), chain.begin(), chain.end());
  head.insert(head.end(), skipped.begin(), skipped.end());
  memory_.Map(head.data(), head.size() * 4);
  Submit(pm4::MakeIndirectBuffer(Va(head.data()), static_cast<uint32_t>(head.size())));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_THAT(dst, ElementsAre(1u, 2u, 0u));
}

TEST_F(Pm4EngineTest, AThirdIbLevelHaltsTheQueue) {
  std::vector<uint32_t> ib3 = pm4::MakeNop(2);
  memory_.Map(ib3.data(), ib3.size() * 4);
  std::vector<uint32_t> ib2 = pm4::MakeIndirectBuffer(Va(ib3.data()), 2);
  memory_.Map(ib2.data(), ib2.size() * 4);
  std::vector<uint32_t> ib1 = pm4::MakeIndirectBuffer(Va(ib2.data()), 4);
  memory_.Map(ib1.data(), ib1.size() * 4);
  Submit(pm4::MakeIndirectBuffer(Va(ib1.data()), 4));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_THAT(errors(), ElementsAre(Pm4Error::kIbNesting));
}

TEST_F(Pm4EngineTest, SetShRegRecordsRegisterStateAndAcquireMemAndFlushesPass) {
  uint32_t dst = 0;
  memory_.Map(&dst, sizeof(dst));
  Submit(pm4::MakeSetShReg(0x2E0C, {0xaa, 0xbb}));  // COMPUTE_PGM_LO/HI-style consecutive registers
  Submit(pm4::MakeAcquireMem());
  Submit(pm4::MakeCsPartialFlush());
  Submit(pm4::MakeWriteData(Va(&dst), {1}));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(engine_->sh_register(0x2E0C), 0xaau);
  EXPECT_EQ(engine_->sh_register(0x2E0D), 0xbbu);
  EXPECT_EQ(engine_->sh_register(0x2E0E), std::nullopt);
  EXPECT_EQ(dst, 1u);
}

TEST_F(Pm4EngineTest, CopyDataMovesImmediatesAndMemory) {
  alignas(8) uint64_t src = 0x1122334455667788ull;
  alignas(8) uint64_t dst64 = 0;
  uint32_t dst32 = 0;
  memory_.Map(&src, sizeof(src));
  memory_.Map(&dst64, sizeof(dst64));
  memory_.Map(&dst32, sizeof(dst32));
  Submit(pm4::MakeCopyData(Va(&dst64), Va(&src), /*is64=*/true));
  Submit(pm4::MakeCopyImmediate(Va(&dst32), 0xfeed, /*is64=*/false));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(dst64, src);
  EXPECT_EQ(dst32, 0xfeedu);
}

TEST_F(Pm4EngineTest, ADispatchHaltsTheQueueWithAClearErrorAndNothingAfterItRuns) {
  uint32_t dst = 0;
  memory_.Map(&dst, sizeof(dst));
  Submit(pm4::MakeSetShReg(0x2E0C, {0x1000}));
  Submit(pm4::MakeDispatchDirect(1, 1, 1));
  Submit(pm4::MakeWriteData(Va(&dst), {1}));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_TRUE(engine_->halted());
  EXPECT_THAT(errors(), ElementsAre(Pm4Error::kShaderDispatch));
  EXPECT_THAT(last_detail(), HasSubstr("DISPATCH_DIRECT"));
  EXPECT_EQ(Load(dst), 0u);
  EXPECT_EQ(engine_->rptr(), 3u) << "the read pointer stops before the dispatch";
}

TEST_F(Pm4EngineTest, PacketsTheCpCannotRunHaltTheQueue) {
  struct Row {
    const char* what;
    std::vector<uint32_t> packet;
    Pm4Error error;
  };
  const Row rows[] = {
      {"type-0 register write", {0x00001234u, 0}, Pm4Error::kBadPacketType},
      {"type-2 filler", {0x80000000u}, Pm4Error::kBadPacketType},
      {"unknown opcode", {pm4::Header(static_cast<pm4::Opcode>(0xEE), 2), 0}, Pm4Error::kUnknownOpcode},
      {"WRITE_DATA without data", {pm4::Header(pm4::Opcode::kWriteData, 4), 5u << 8, 0, 0}, Pm4Error::kMalformedPacket},
      {"WRITE_DATA to a register", {pm4::Header(pm4::Opcode::kWriteData, 5), 0, 0x1234, 0, 1}, Pm4Error::kUnsupported},
      {"WAIT_REG_MEM on a register", {pm4::Header(pm4::Opcode::kWaitRegMem, 7), 3, 0x1234, 0, 0, ~0u, 4},
       Pm4Error::kUnsupported},
      {"packet longer than the ring", {pm4::Header(pm4::Opcode::kWriteData, 100)}, Pm4Error::kMalformedPacket},
      {"DISPATCH_INDIRECT", {pm4::Header(pm4::Opcode::kDispatchIndirect, 4), 0, 0, 1}, Pm4Error::kShaderDispatch},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    {
      std::lock_guard<std::mutex> lock(mu_);
      errors_.clear();
    }
    wptr_ = 0;
    Start();
    Submit(row.packet);
    EXPECT_FALSE(engine_->WaitIdle());
    EXPECT_THAT(errors(), ElementsAre(row.error));
    EXPECT_THAT(faults(), IsEmpty());
  }
}

TEST_F(Pm4EngineTest, AnUnmappedDestinationIsAVmFaultThatHaltsTheQueue) {
  uint32_t after = 0;
  memory_.Map(&after, sizeof(after));
  const uint64_t unmapped = uint64_t{1} << 45;
  Submit(pm4::MakeWriteData(unmapped + 0x40, {1}));
  Submit(pm4::MakeWriteData(Va(&after), {2}));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_THAT(faults(), ElementsAre(unmapped + 0x40));
  EXPECT_EQ(Load(after), 0u);
  EXPECT_EQ(engine_->rptr(), 0u);
  // A halted queue ignores further doorbells.
  Submit(pm4::MakeWriteData(Va(&after), {3}));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(Load(after), 0u);
  EXPECT_THAT(faults(), ElementsAre(unmapped + 0x40)) << "reported once";
}

TEST_F(Pm4EngineTest, AnUnmappedIndirectBufferIsAVmFault) {
  const uint64_t unmapped = uint64_t{1} << 45;
  Submit(pm4::MakeIndirectBuffer(unmapped, 16));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_THAT(faults(), ElementsAre(unmapped));
}

TEST_F(Pm4EngineTest, AnUnusableRingHaltsAtOnce) {
  engine_.reset();
  engine_ = std::make_unique<Pm4Engine>(
      "bad", &memory_, Pm4QueueDescriptor{.ring_va = Va(ring_.data()), .ring_bytes = 100, .rptr_va = Va(&rptr_),
                                          .wptr_va = Va(&wptr_)},
      Pm4Engine::Callbacks{.on_queue_error = [this](Pm4Error error, const std::string&) {
        std::lock_guard<std::mutex> lock(mu_);
        errors_.push_back(error);
      }});
  engine_->RingDoorbell(1);
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_THAT(errors(), ElementsAre(Pm4Error::kInvalidQueue));
}

TEST_F(Pm4EngineTest, ARestartedEngineContinuesWhereTheLastStopped) {
  uint32_t dst[2] = {};
  memory_.Map(dst, sizeof(dst));
  Submit(pm4::MakeWriteData(Va(&dst[0]), {1}));
  ASSERT_TRUE(engine_->WaitIdle());
  const uint64_t progress = engine_->rptr();
  Start(progress);  // UPDATE_QUEUE: the MQD is unmapped and mapped again
  Submit(pm4::MakeWriteData(Va(&dst[1]), {2}));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_THAT(dst, ElementsAre(1u, 2u));
  EXPECT_EQ(engine_->rptr(), wptr_);
}


// Shaders run by PM4 dispatches, on each GFX9 target. The dispatch's registers and DISPATCH_DIRECT sit in an
// indirect buffer, as kfdtest's Dispatch::BuildIb puts them.
class Pm4ShaderTest : public Pm4EngineTest, public ::testing::WithParamInterface<gfx9::Target> {
 protected:
  void SetUp() override {
    Pm4EngineTest::SetUp();
    Start(0, GetParam());
    shaders_ = Pm4ShadersFor(GetParam());
  }

  // Copies `code` into 256-byte aligned mapped memory (COMPUTE_PGM_LO drops the low 8 bits); returns its VA.
  uint64_t LoadCode(std::string_view code) {
    code_.assign(code.size() + 512, 0);
    const uint64_t va = (Va(code_.data()) + 255) & ~uint64_t{255};
    std::memcpy(reinterpret_cast<void*>(va), code.data(), code.size());
    memory_.Map(reinterpret_cast<void*>(va), code.size());
    return va;
  }

  pm4::ShaderDispatch Launch(std::string_view code, std::vector<uint32_t> user_data, uint32_t rsrc2) {
    pm4::ShaderDispatch d;
    d.code_va = LoadCode(code);
    d.rsrc1 = kKfdtestRsrc1;
    d.rsrc2 = rsrc2;
    d.rsrc3 = kKfdtestRsrc3;
    d.write_rsrc3 = GetParam() != gfx9::Target::kGfx908;
    d.user_data = std::move(user_data);
    return d;
  }

  // Runs `d` from an IB, then a WRITE_DATA of 1 to `marker_` (which shows whether the ring went on after it);
  // returns whether the queue went idle rather than halting.
  bool Run(const pm4::ShaderDispatch& d) {
    ib_ = pm4::MakeShaderDispatch(d);
    memory_.Map(ib_.data(), ib_.size() * 4);
    memory_.Map(&marker_, sizeof(marker_));
    Submit(pm4::MakeIndirectBuffer(Va(ib_.data()), static_cast<uint32_t>(ib_.size())));
    Submit(pm4::MakeWriteData(Va(&marker_), {1}));
    return engine_->WaitIdle();
  }

  static std::vector<uint32_t> Address(const void* p) { return {pm4::Lo(Va(p)), pm4::Hi(Va(p))}; }

  Pm4TestShaders shaders_;
  std::vector<unsigned char> code_;
  std::vector<uint32_t> ib_;
  uint32_t marker_ = 0;
};

TEST_P(Pm4ShaderTest, AShaderWritesAConstantWhereItsUserSgprsPoint) {
  uint32_t dst = 0;
  memory_.Map(&dst, sizeof(dst));
  ASSERT_TRUE(Run(Launch(shaders_.write_constant, Address(&dst), Rsrc2(2))));
  EXPECT_EQ(Load(dst), 0x1234abcdu);
  EXPECT_EQ(Load(marker_), 1u) << "the ring goes on after the dispatch";
  EXPECT_EQ(engine_->rptr(), wptr_);
  EXPECT_THAT(errors(), IsEmpty());
}

TEST_P(Pm4ShaderTest, AShaderCopiesADword) {
  uint32_t words[2] = {0xc0ffee, 0};
  memory_.Map(words, sizeof(words));
  std::vector<uint32_t> user = Address(&words[0]);
  const std::vector<uint32_t> dst = Address(&words[1]);
  user.insert(user.end(), dst.begin(), dst.end());
  ASSERT_TRUE(Run(Launch(shaders_.copy_dword, user, Rsrc2(4))));
  EXPECT_EQ(Load(words[1]), 0xc0ffeeu);
}

TEST_P(Pm4ShaderTest, AtomicIncrementsFromEveryLaneWaveAndWorkgroupAllLand) {
  struct Row {
    const char* what;
    std::array<uint32_t, 3> workgroup_size;
    std::array<uint32_t, 3> dims;
    uint32_t initiator;
    uint32_t work_items;
  };
  const Row rows[] = {
      {"4 workgroups of 128", {128, 1, 1}, {4, 1, 1}, pm4::kInitiatorComputeShaderEn, 512},
      {"200 work-items in workgroups of 64 (a partial last one)", {64, 1, 1}, {200, 1, 1},
       pm4::kKfdtestDispatchInitiator, 200},
      {"kfdtest's shape: 3 work-items, one per workgroup", {1, 1, 1}, {3, 1, 1}, pm4::kKfdtestDispatchInitiator, 3},
      {"2x2x2 workgroups of 4x2x1", {4, 2, 1}, {2, 2, 2}, pm4::kInitiatorComputeShaderEn, 64},
  };
  constexpr uint32_t kLoops = 10;
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    uint32_t counter = 0;
    memory_.Map(&counter, sizeof(counter));
    std::vector<uint32_t> user = Address(&counter);
    user.push_back(kLoops);
    pm4::ShaderDispatch d = Launch(shaders_.atomic_loop, user, Rsrc2(3));
    d.workgroup_size = row.workgroup_size;
    d.dims = row.dims;
    d.initiator = row.initiator;
    ASSERT_TRUE(Run(d));
    EXPECT_EQ(Load(counter), row.work_items * kLoops);
    memory_.Unmap(&counter);
  }
}

TEST_P(Pm4ShaderTest, EveryWaveSeesItsWorkgroupIdsAndWorkItemIds) {
  constexpr uint32_t kWidth = 3;
  constexpr uint32_t kHeight = 2;
  std::vector<uint32_t> out(kWidth * kHeight * 64, 0xffffffffu);
  memory_.Map(out.data(), out.size() * 4);
  std::vector<uint32_t> user = Address(out.data());
  user.push_back(kWidth);
  pm4::ShaderDispatch d = Launch(shaders_.ids, user, Rsrc2(3, /*tgid_x=*/true, /*tgid_y=*/true));
  d.workgroup_size = {64, 1, 1};
  d.dims = {kWidth, kHeight, 1};
  d.initiator = pm4::kInitiatorComputeShaderEn;
  ASSERT_TRUE(Run(d));
  for (uint32_t y = 0; y < kHeight; ++y) {
    for (uint32_t x = 0; x < kWidth; ++x) {
      for (uint32_t t = 0; t < 64; ++t) {
        ASSERT_EQ(out[(y * kWidth + x) * 64 + t], x << 24 | y << 16 | t) << "workgroup " << x << "," << y << " tid " << t;
      }
    }
  }
}

TEST_P(Pm4ShaderTest, DispatchIndirectReadsItsGridFromMemory) {
  uint32_t counter = 0;
  uint32_t dims[3] = {5, 1, 1};
  memory_.Map(&counter, sizeof(counter));
  memory_.Map(dims, sizeof(dims));
  std::vector<uint32_t> user = Address(&counter);
  user.push_back(1);
  pm4::ShaderDispatch d = Launch(shaders_.atomic_loop, user, Rsrc2(3));
  d.dims = {0, 0, 0};  // the DISPATCH_DIRECT launches nothing; the DISPATCH_INDIRECT after it runs 5
  ib_ = pm4::MakeShaderDispatch(d);
  const std::vector<uint32_t> indirect = pm4::MakeDispatchIndirect(Va(dims), pm4::kKfdtestDispatchInitiator);
  ib_.insert(ib_.end(), indirect.begin(), indirect.end());
  memory_.Map(ib_.data(), ib_.size() * 4);
  Submit(pm4::MakeIndirectBuffer(Va(ib_.data()), static_cast<uint32_t>(ib_.size())));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(Load(counter), 5u);
}

TEST_P(Pm4ShaderTest, WithoutComputeShaderEnNoWaveRunsAndTheQueueGoesOn) {
  uint32_t dst = 0;
  memory_.Map(&dst, sizeof(dst));
  pm4::ShaderDispatch d = Launch(shaders_.write_constant, Address(&dst), Rsrc2(2));
  d.initiator = pm4::kInitiatorUseThreadDimensions;
  ASSERT_TRUE(Run(d));
  EXPECT_EQ(Load(dst), 0u);
  EXPECT_EQ(Load(marker_), 1u);
}

TEST_P(Pm4ShaderTest, AShaderStoreToAnUnmappedAddressIsAVmFaultThatHaltsTheQueue) {
  const uint64_t unmapped = uint64_t{1} << 44;
  EXPECT_FALSE(Run(Launch(shaders_.write_constant, {pm4::Lo(unmapped), pm4::Hi(unmapped)}, Rsrc2(2))));
  EXPECT_TRUE(engine_->halted());
  EXPECT_THAT(faults(), ElementsAre(unmapped));
  EXPECT_THAT(errors(), IsEmpty());
  EXPECT_EQ(Load(marker_), 0u) << "nothing after the dispatch runs";
}

TEST_P(Pm4ShaderTest, AnInstructionTheComputeUnitsCannotRunHaltsTheQueue) {
  EXPECT_FALSE(Run(Launch(shaders_.illegal, {}, Rsrc2(0))));
  EXPECT_THAT(errors(), ElementsAre(Pm4Error::kIllegalInstruction));
  EXPECT_THAT(last_detail(), HasSubstr("DISPATCH_DIRECT"));
  EXPECT_THAT(faults(), IsEmpty());
  EXPECT_EQ(Load(marker_), 0u);
}

TEST_P(Pm4ShaderTest, AShaderTrapHaltsTheQueueAsATrapAfterWhatItStored) {
  uint32_t dst = 0;
  memory_.Map(&dst, sizeof(dst));
  EXPECT_FALSE(Run(Launch(shaders_.trap, Address(&dst), Rsrc2(2))));
  EXPECT_TRUE(engine_->halted());
  EXPECT_THAT(errors(), ElementsAre(Pm4Error::kTrap));
  EXPECT_THAT(last_detail(), HasSubstr("s_trap 2"));
  EXPECT_THAT(faults(), IsEmpty());
  EXPECT_EQ(Load(dst), 0x1234abcdu);
  EXPECT_EQ(Load(marker_), 0u) << "nothing after the dispatch runs";
}

TEST_P(Pm4ShaderTest, RegisterStateTheComputeUnitsCannotLaunchHaltsTheQueue) {
  struct Row {
    const char* what;
    void (*edit)(pm4::ShaderDispatch&);
    Pm4Error error;
  };
  const Row rows[] = {
      {"a workgroup of 0 work-items", [](pm4::ShaderDispatch& d) { d.workgroup_size = {0, 1, 1}; },
       Pm4Error::kInvalidDispatch},
      {"a workgroup of 2048 work-items", [](pm4::ShaderDispatch& d) { d.workgroup_size = {1024, 2, 1}; },
       Pm4Error::kInvalidDispatch},
      {"LDS_SIZE of 129 granules (over 64 KiB)",
       [](pm4::ShaderDispatch& d) { d.rsrc2 = gpu_abi::amdhsa::rsrc2::kGranulatedLdsSize.Set(d.rsrc2, 129); },
       Pm4Error::kInvalidDispatch},
      {"USER_SGPR 17", [](pm4::ShaderDispatch& d) { d.rsrc2 = Rsrc2(17); }, Pm4Error::kInvalidDispatch},
      {"over 2^32 work-items", [](pm4::ShaderDispatch& d) {
         d.workgroup_size = {1024, 1, 1};
         d.dims = {1u << 23, 1, 1};
         d.initiator = pm4::kInitiatorComputeShaderEn;
       },
       Pm4Error::kInvalidDispatch},
      {"COMPUTE_START_X 1", [](pm4::ShaderDispatch& d) { d.start = {1, 0, 0}; }, Pm4Error::kUnsupported},
      {"ordered append", [](pm4::ShaderDispatch& d) { d.initiator |= pm4::kInitiatorOrderedAppendEnbl; },
       Pm4Error::kUnsupported},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    {
      std::lock_guard<std::mutex> lock(mu_);
      errors_.clear();
    }
    wptr_ = 0;
    Start(0, GetParam());
    uint32_t dst = 0;
    memory_.Map(&dst, sizeof(dst));
    pm4::ShaderDispatch d = Launch(shaders_.write_constant, Address(&dst), Rsrc2(2));
    row.edit(d);
    EXPECT_FALSE(Run(d));
    EXPECT_THAT(errors(), ElementsAre(row.error));
    EXPECT_EQ(Load(dst), 0u) << "no wave ran";
    memory_.Unmap(&dst);
  }
}

INSTANTIATE_TEST_SUITE_P(Gfx9, Pm4ShaderTest,
                         ::testing::Values(gfx9::Target::kGfx908, gfx9::Target::kGfx90a, gfx9::Target::kGfx942),
                         [](const ::testing::TestParamInfo<gfx9::Target>& info) {
                           switch (info.param) {
                             case gfx9::Target::kGfx908: return "gfx908";
                             case gfx9::Target::kGfx90a: return "gfx90a";
                             case gfx9::Target::kGfx942: return "gfx942";
                           }
                           return "unknown";
                         });

}  // namespace
}  // namespace hipmem::kfd_sim
