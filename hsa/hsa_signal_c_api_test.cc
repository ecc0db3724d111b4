// The hsa_signal_* / hsa_amd_signal_* C API as ROCr's clients use it: every operation and memory-order
// spelling computes the value it must, waits return what satisfied them (or the value at the timeout), a
// store from another thread wakes a blocked waiter, groups and multi-signal waits pick the right signal, the
// asynchronous handler thread calls, re-arms, drops and stops as upstream's, and bad handles are errors, not
// crashes. Built twice (see BUILD): with interrupt signals, and with HSA_ENABLE_INTERRUPT=0 (every signal
// polled).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gpu_abi/aql_packets.h"
#include "gtest/gtest.h"
#include "testing/notification.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

using ::hipmem::gpu_abi::aql::AmdSignal;

constexpr uint64_t kForever = UINT64_MAX;
constexpr hsa_signal_condition_t kConditions[] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_NE,
                                                  HSA_SIGNAL_CONDITION_LT, HSA_SIGNAL_CONDITION_GTE};
constexpr hsa_status_t kNotSupported = static_cast<hsa_status_t>(HSA_STATUS_ERROR_NOT_SUPPORTED);

bool InterruptsOn() {
  const char* v = std::getenv("HSA_ENABLE_INTERRUPT");
  return v == nullptr || std::string(v) != "0";
}

// Timestamp ticks (HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) in `d`.
uint64_t Ticks(absl::Duration d) {
  uint64_t hz = 0;
  EXPECT_EQ(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &hz), HSA_STATUS_SUCCESS);
  return static_cast<uint64_t>(absl::ToDoubleSeconds(d) * static_cast<double>(hz));
}

const AmdSignal& Abi(hsa_signal_t s) { return *reinterpret_cast<const AmdSignal*>(s.handle); }

// One spelling of an operation: its name, for SCOPED_TRACE, and the entry point.
template <typename Fn>
struct Spelling {
  const char* name;
  Fn fn;
};

// A value that satisfies `c` against 10, and one that does not.
hsa_signal_value_t Meets(hsa_signal_condition_t c) {
  switch (c) {
    case HSA_SIGNAL_CONDITION_NE: return 11;
    case HSA_SIGNAL_CONDITION_LT: return 9;
    default: return 10;  // EQ, GTE
  }
}
hsa_signal_value_t Misses(hsa_signal_condition_t c) {
  switch (c) {
    case HSA_SIGNAL_CONDITION_EQ: return 11;
    case HSA_SIGNAL_CONDITION_GTE: return 9;
    default: return 10;  // NE, LT
  }
}

struct Agents {
  hsa_agent_t cpu{0}, gpu{0};
};

hsa_status_t CollectAgent(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
  (type == HSA_DEVICE_TYPE_GPU ? static_cast<Agents*>(data)->gpu : static_cast<Agents*>(data)->cpu) = agent;
  return HSA_STATUS_SUCCESS;
}

TEST(HsaSignalBeforeInitTest, StatusCallsAreNotInitializedAndOthersAnswerZero) {
  hsa_signal_t s{0x5151};
  EXPECT_EQ(hsa_signal_create(1, 0, nullptr, &s), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_signal_create(1, 0, nullptr, 0, &s), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(s.handle, 0x5151u);
  EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_ERROR_NOT_INITIALIZED);
  hsa_signal_group_t g{0x5151};
  EXPECT_EQ(hsa_signal_group_create(1, &s, 0, nullptr, &g), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_signal_group_destroy(g), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 0, [](hsa_signal_value_t, void*) { return false; },
                                         nullptr),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_async_function([](void*) {}, nullptr), HSA_STATUS_ERROR_NOT_INITIALIZED);
  uint32_t id = 7;
  EXPECT_EQ(hsa_amd_signal_get_event_id(s, &id), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(id, 7u);
  EXPECT_EQ(hsa_signal_load_scacquire(s), 0);
  EXPECT_EQ(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 1, kForever, HSA_WAIT_STATE_BLOCKED), 0);
  hsa_signal_condition_t c = HSA_SIGNAL_CONDITION_EQ;
  hsa_signal_value_t v = 0;
  EXPECT_EQ(hsa_amd_signal_wait_any(1, &s, &c, &v, kForever, HSA_WAIT_STATE_BLOCKED, nullptr), UINT32_MAX);
}

class HsaSignalApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(CollectAgent, &agents_), HSA_STATUS_SUCCESS);
    ASSERT_NE(agents_.cpu.handle, 0u);
    ASSERT_NE(agents_.gpu.handle, 0u);
  }
  void TearDown() override {
    for (hsa_signal_t s : made_) hsa_signal_destroy(s);  // those a test destroyed answer INVALID_SIGNAL
    EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  }

  hsa_signal_t Make(hsa_signal_value_t value, uint64_t attributes = 0) {
    hsa_signal_t s{0};
    EXPECT_EQ(hsa_amd_signal_create(value, 0, nullptr, attributes, &s), HSA_STATUS_SUCCESS);
    made_.push_back(s);
    return s;
  }

  Agents agents_;
  std::vector<hsa_signal_t> made_;
};

// ---- creation ----

TEST_F(HsaSignalApi, HandleIsTheAddressOfAnAmdSignalHoldingTheValue) {
  const hsa_signal_t s = Make(-42);
  ASSERT_NE(s.handle, 0u);
  EXPECT_EQ(s.handle % 64, 0u);
  const AmdSignal& abi = Abi(s);
  EXPECT_EQ(abi.kind, 1);  // AMD_SIGNAL_KIND_USER
  EXPECT_EQ(abi.value, -42);
  uint32_t id = 0;
  ASSERT_EQ(hsa_amd_signal_get_event_id(s, &id), HSA_STATUS_SUCCESS);
  if (InterruptsOn()) {
    EXPECT_NE(id, 0u);
    EXPECT_EQ(abi.event_id, id);
    EXPECT_NE(abi.event_mailbox_ptr, 0u);
  } else {
    EXPECT_EQ(id, 0u);
    EXPECT_EQ(abi.event_mailbox_ptr, 0u);
  }
  hsa_signal_store_screlease(s, 7);
  EXPECT_EQ(abi.value, 7);
}

TEST_F(HsaSignalApi, SignalsAreDistinct) {
  const hsa_signal_t a = Make(1), b = Make(2);
  EXPECT_NE(a.handle, b.handle);
  EXPECT_EQ(hsa_signal_load_relaxed(a), 1);
  EXPECT_EQ(hsa_signal_load_relaxed(b), 2);
}

TEST_F(HsaSignalApi, ConsumersAndAttributesDecideWhetherThereIsAnEvent) {
  struct Row {
    const char* name;
    std::vector<hsa_agent_t> consumers;
    uint64_t attributes;
    bool event;
  };
  const Row rows[] = {
      {"no consumers", {}, 0, true},
      {"the CPU", {agents_.cpu}, 0, true},
      {"GPU and CPU", {agents_.gpu, agents_.cpu}, 0, true},
      {"the GPU only", {agents_.gpu}, 0, false},
      {"GPU_ONLY attribute", {}, HSA_AMD_SIGNAL_AMD_GPU_ONLY, false},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    hsa_signal_t s{0};
    ASSERT_EQ(hsa_amd_signal_create(3, static_cast<uint32_t>(row.consumers.size()), row.consumers.data(),
                                    row.attributes, &s),
              HSA_STATUS_SUCCESS);
    made_.push_back(s);
    uint32_t id = 0;
    ASSERT_EQ(hsa_amd_signal_get_event_id(s, &id), HSA_STATUS_SUCCESS);
    EXPECT_EQ(id != 0, row.event && InterruptsOn());
    EXPECT_EQ(Abi(s).event_mailbox_ptr != 0, row.event && InterruptsOn());
    EXPECT_EQ(hsa_signal_load_relaxed(s), 3);
  }
}

TEST_F(HsaSignalApi, CreateRejectsBadArguments) {
  hsa_signal_t s{0x5151};
  EXPECT_EQ(hsa_signal_create(0, 0, nullptr, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_signal_create(0, 1, nullptr, &s), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  const hsa_agent_t twice[] = {agents_.cpu, agents_.cpu};
  EXPECT_EQ(hsa_signal_create(0, 2, twice, &s), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // IPC signals would be shared with another process; the simulated KFD has none.
  EXPECT_EQ(hsa_amd_signal_create(0, 0, nullptr, HSA_AMD_SIGNAL_IPC, &s), kNotSupported);
  EXPECT_EQ(s.handle, 0x5151u);
  hsa_amd_ipc_signal_t ipc{};
  EXPECT_EQ(hsa_amd_ipc_signal_create(Make(0), &ipc), kNotSupported);
}

TEST_F(HsaSignalApi, ValuePointerIsForGpuOnlySignals) {
  const hsa_signal_t gpu_only = Make(5, HSA_AMD_SIGNAL_AMD_GPU_ONLY);
  volatile hsa_signal_value_t* p = nullptr;
  ASSERT_EQ(hsa_amd_signal_value_pointer(gpu_only, &p), HSA_STATUS_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p), gpu_only.handle + offsetof(AmdSignal, value));
  *p = 9;
  EXPECT_EQ(hsa_signal_load_scacquire(gpu_only), 9);
  EXPECT_EQ(hsa_amd_signal_value_pointer(gpu_only, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  if (InterruptsOn()) {
    EXPECT_EQ(hsa_amd_signal_value_pointer(Make(0), &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  }
}

// ---- destruction and bad handles ----

TEST_F(HsaSignalApi, DestroyThenTheHandleIsInvalid) {
  hsa_signal_t s{0};
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &s), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_ERROR_INVALID_SIGNAL);
  uint32_t id = 0;
  EXPECT_EQ(hsa_amd_signal_get_event_id(s, &id), HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(hsa_signal_destroy(hsa_signal_t{0}), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_F(HsaSignalApi, ForeignHandlesAreErrorsAndNothingIsWritten) {
  // Memory laid out as a signal, but not one the runtime made.
  AmdSignal fake{};
  fake.kind = 1;
  fake.value = 42;
  const hsa_signal_t s{reinterpret_cast<uintptr_t>(&fake)};
  EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(hsa_signal_load_scacquire(s), 0);
  hsa_signal_store_screlease(s, 1);
  hsa_signal_add_relaxed(s, 1);
  hsa_signal_and_scacq_screl(s, 0);
  EXPECT_EQ(hsa_signal_exchange_relaxed(s, 7), 0);
  EXPECT_EQ(hsa_signal_cas_screlease(s, 42, 7), 0);
  EXPECT_EQ(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, kForever, HSA_WAIT_STATE_BLOCKED), 0);
  volatile hsa_signal_value_t* p = nullptr;
  EXPECT_EQ(hsa_amd_signal_value_pointer(s, &p), HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 0, [](hsa_signal_value_t, void*) { return false; },
                                         nullptr),
            HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(fake.value, 42);
  EXPECT_EQ(fake.kind, 1);
}

TEST_F(HsaSignalApi, OperationsOnADestroyedSignalAnswerZero) {
  hsa_signal_t s{0};
  ASSERT_EQ(hsa_signal_create(5, 0, nullptr, &s), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_load_relaxed(s), 0);
  EXPECT_EQ(hsa_signal_exchange_scacq_screl(s, 3), 0);
  EXPECT_EQ(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_EQ, 99, kForever, HSA_WAIT_STATE_BLOCKED), 0);
}

// ---- loads, stores and read-modify-writes, every spelling ----

TEST_F(HsaSignalApi, EveryStoreAndLoadSpellingSeesTheValue) {
  using Load = hsa_signal_value_t (*)(hsa_signal_t);
  const Spelling<void (*)(hsa_signal_t, hsa_signal_value_t)> stores[] = {
      {"store_relaxed", hsa_signal_store_relaxed},
      {"store_screlease", hsa_signal_store_screlease},
      {"store_release", hsa_signal_store_release},
      {"silent_store_relaxed", hsa_signal_silent_store_relaxed},
      {"silent_store_screlease", hsa_signal_silent_store_screlease}};
  const Load loads[] = {hsa_signal_load_relaxed, hsa_signal_load_scacquire, hsa_signal_load_acquire};
  const hsa_signal_t s = Make(0);
  hsa_signal_value_t v = INT64_MIN;
  for (const auto& st : stores) {
    SCOPED_TRACE(st.name);
    st.fn(s, v);
    for (Load load : loads) EXPECT_EQ(load(s), v);
    v = v / 3 + 1;
  }
}

TEST_F(HsaSignalApi, EveryReadModifyWriteSpellingComputesItsValue) {
  using Op = void (*)(hsa_signal_t, hsa_signal_value_t);
  struct Row {
    const char* name;
    Op op;
    hsa_signal_value_t initial, operand, result;
  };
  const Row rows[] = {
      {"add_relaxed", hsa_signal_add_relaxed, 40, 2, 42},
      {"add_scacquire", hsa_signal_add_scacquire, -5, 3, -2},
      {"add_screlease", hsa_signal_add_screlease, 0, INT64_MAX, INT64_MAX},
      {"add_scacq_screl", hsa_signal_add_scacq_screl, INT64_MAX, 1, INT64_MIN},  // wraps
      {"add_acquire", hsa_signal_add_acquire, 1, 1, 2},
      {"add_release", hsa_signal_add_release, 2, 2, 4},
      {"add_acq_rel", hsa_signal_add_acq_rel, 3, 3, 6},
      {"subtract_relaxed", hsa_signal_subtract_relaxed, 5, 7, -2},
      {"subtract_scacquire", hsa_signal_subtract_scacquire, 1, 1, 0},
      {"subtract_screlease", hsa_signal_subtract_screlease, 100, 1, 99},
      {"subtract_scacq_screl", hsa_signal_subtract_scacq_screl, 0, -9, 9},
      {"subtract_acquire", hsa_signal_subtract_acquire, 10, 4, 6},
      {"subtract_release", hsa_signal_subtract_release, 10, 5, 5},
      {"subtract_acq_rel", hsa_signal_subtract_acq_rel, 10, 6, 4},
      {"and_relaxed", hsa_signal_and_relaxed, 0b1100, 0b1010, 0b1000},
      {"and_scacquire", hsa_signal_and_scacquire, -1, 0x7f, 0x7f},
      {"and_screlease", hsa_signal_and_screlease, 0xff, 0xf0, 0xf0},
      {"and_scacq_screl", hsa_signal_and_scacq_screl, 0xff, 0, 0},
      {"and_acquire", hsa_signal_and_acquire, 6, 3, 2},
      {"and_release", hsa_signal_and_release, 7, 5, 5},
      {"and_acq_rel", hsa_signal_and_acq_rel, 12, 4, 4},
      {"or_relaxed", hsa_signal_or_relaxed, 0b1100, 0b1010, 0b1110},
      {"or_scacquire", hsa_signal_or_scacquire, 0, INT64_MIN, INT64_MIN},
      {"or_screlease", hsa_signal_or_screlease, 1, 2, 3},
      {"or_scacq_screl", hsa_signal_or_scacq_screl, 4, 1, 5},
      {"or_acquire", hsa_signal_or_acquire, 8, 8, 8},
      {"or_release", hsa_signal_or_release, 16, 1, 17},
      {"or_acq_rel", hsa_signal_or_acq_rel, 32, 32, 32},
      {"xor_relaxed", hsa_signal_xor_relaxed, 0b1100, 0b1010, 0b0110},
      {"xor_scacquire", hsa_signal_xor_scacquire, -1, -1, 0},
      {"xor_screlease", hsa_signal_xor_screlease, 0, 5, 5},
      {"xor_scacq_screl", hsa_signal_xor_scacq_screl, 5, 5, 0},
      {"xor_acquire", hsa_signal_xor_acquire, 3, 1, 2},
      {"xor_release", hsa_signal_xor_release, 2, 3, 1},
      {"xor_acq_rel", hsa_signal_xor_acq_rel, 1, -1, -2},
  };
  const hsa_signal_t s = Make(0);
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    hsa_signal_store_relaxed(s, row.initial);
    row.op(s, row.operand);
    EXPECT_EQ(hsa_signal_load_scacquire(s), row.result);
  }
}

TEST_F(HsaSignalApi, EveryExchangeSpellingReturnsTheValueBefore) {
  const Spelling<hsa_signal_value_t (*)(hsa_signal_t, hsa_signal_value_t)> rows[] = {
      {"relaxed", hsa_signal_exchange_relaxed}, {"scacquire", hsa_signal_exchange_scacquire},
      {"screlease", hsa_signal_exchange_screlease}, {"scacq_screl", hsa_signal_exchange_scacq_screl},
      {"acquire", hsa_signal_exchange_acquire}, {"release", hsa_signal_exchange_release},
      {"acq_rel", hsa_signal_exchange_acq_rel}};
  const hsa_signal_t s = Make(0);
  hsa_signal_value_t expected_before = 0;
  for (size_t i = 0; i < std::size(rows); ++i) {
    SCOPED_TRACE(rows[i].name);
    const hsa_signal_value_t next = static_cast<hsa_signal_value_t>(i) * 11 - 30;
    EXPECT_EQ(rows[i].fn(s, next), expected_before);
    EXPECT_EQ(hsa_signal_load_relaxed(s), next);
    expected_before = next;
  }
}

TEST_F(HsaSignalApi, EveryCasSpellingSwapsOnlyOnAMatchAndReturnsTheValueBefore) {
  const Spelling<hsa_signal_value_t (*)(hsa_signal_t, hsa_signal_value_t, hsa_signal_value_t)> rows[] = {
      {"relaxed", hsa_signal_cas_relaxed}, {"scacquire", hsa_signal_cas_scacquire},
      {"screlease", hsa_signal_cas_screlease}, {"scacq_screl", hsa_signal_cas_scacq_screl},
      {"acquire", hsa_signal_cas_acquire}, {"release", hsa_signal_cas_release},
      {"acq_rel", hsa_signal_cas_acq_rel}};
  const hsa_signal_t s = Make(0);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    hsa_signal_store_relaxed(s, 5);
    EXPECT_EQ(row.fn(s, 6, 100), 5);  // mismatch: unchanged
    EXPECT_EQ(hsa_signal_load_relaxed(s), 5);
    EXPECT_EQ(row.fn(s, 5, -100), 5);  // match: swapped
    EXPECT_EQ(hsa_signal_load_relaxed(s), -100);
  }
}

// ---- waits ----

using WaitFn = hsa_signal_value_t (*)(hsa_signal_t, hsa_signal_condition_t, hsa_signal_value_t, uint64_t,
                                      hsa_wait_state_t);
constexpr Spelling<WaitFn> kWaits[] = {{"scacquire", hsa_signal_wait_scacquire},
                                       {"relaxed", hsa_signal_wait_relaxed},
                                       {"acquire", hsa_signal_wait_acquire}};

TEST_F(HsaSignalApi, WaitReturnsTheValueAtOnceWhenTheConditionHolds) {
  const hsa_signal_t s = Make(0);
  for (const auto& w : kWaits) {
    for (hsa_signal_condition_t c : kConditions) {
      SCOPED_TRACE(std::string(w.name) + " condition " + std::to_string(c));
      hsa_signal_store_relaxed(s, Meets(c));
      EXPECT_EQ(w.fn(s, c, 10, kForever, HSA_WAIT_STATE_BLOCKED), Meets(c));
    }
  }
}

TEST_F(HsaSignalApi, WaitTimesOutWithTheCurrentValue) {
  const hsa_signal_t s = Make(0);
  for (const hsa_wait_state_t hint : {HSA_WAIT_STATE_BLOCKED, HSA_WAIT_STATE_ACTIVE}) {
    for (hsa_signal_condition_t c : kConditions) {
      SCOPED_TRACE(std::string(hint == HSA_WAIT_STATE_ACTIVE ? "active" : "blocked") + " condition " +
                   std::to_string(c));
      hsa_signal_store_relaxed(s, Misses(c));
      const absl::Time start = absl::Now();
      EXPECT_EQ(hsa_signal_wait_scacquire(s, c, 10, Ticks(absl::Milliseconds(3)), hint), Misses(c));
      const absl::Duration took = absl::Now() - start;
      EXPECT_GE(took, absl::Milliseconds(3));
      EXPECT_LT(took, absl::Seconds(5));
    }
  }
  hsa_signal_store_relaxed(s, 1);
  EXPECT_EQ(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_EQ, 0, 0, HSA_WAIT_STATE_BLOCKED), 1);  // just a look
  EXPECT_EQ(hsa_signal_wait_relaxed(s, static_cast<hsa_signal_condition_t>(9), 0, kForever, HSA_WAIT_STATE_BLOCKED),
            0);  // no such condition: logged, 0
}

TEST_F(HsaSignalApi, AStoreFromAnotherThreadWakesABlockedWaiter) {
  const hsa_signal_t s = Make(0);
  for (const hsa_wait_state_t hint : {HSA_WAIT_STATE_BLOCKED, HSA_WAIT_STATE_ACTIVE}) {
    for (hsa_signal_condition_t c : kConditions) {
      SCOPED_TRACE(std::string(hint == HSA_WAIT_STATE_ACTIVE ? "active" : "blocked") + " condition " +
                   std::to_string(c));
      hsa_signal_store_relaxed(s, Misses(c));
      std::atomic<bool> returned{false};
      hsa_signal_value_t seen = -1;
      std::thread waiter([&] {
        seen = hsa_signal_wait_scacquire(s, c, 10, kForever, hint);
        returned = true;
      });
      absl::SleepFor(absl::Milliseconds(10));
      EXPECT_FALSE(returned);
      hsa_signal_store_screlease(s, Meets(c));
      waiter.join();
      EXPECT_EQ(seen, Meets(c));
    }
  }
}

TEST_F(HsaSignalApi, EveryKindOfChangeWakesTheWaiter) {
  using Change = void (*)(hsa_signal_t);
  const Spelling<Change> changes[] = {  // each from 1 to 0
      {"store", [](hsa_signal_t s) { hsa_signal_store_relaxed(s, 0); }},
      {"silent store", [](hsa_signal_t s) { hsa_signal_silent_store_screlease(s, 0); }},
      {"subtract", [](hsa_signal_t s) { hsa_signal_subtract_screlease(s, 1); }},
      {"add", [](hsa_signal_t s) { hsa_signal_add_relaxed(s, -1); }},
      {"and", [](hsa_signal_t s) { hsa_signal_and_scacq_screl(s, 0); }},
      {"xor", [](hsa_signal_t s) { hsa_signal_xor_screlease(s, 1); }},
      {"exchange", [](hsa_signal_t s) { hsa_signal_exchange_screlease(s, 0); }},
      {"cas", [](hsa_signal_t s) { hsa_signal_cas_scacq_screl(s, 1, 0); }},
  };
  const hsa_signal_t s = Make(1);
  for (const auto& change : changes) {
    SCOPED_TRACE(change.name);
    hsa_signal_store_relaxed(s, 1);
    hsa_signal_value_t seen = -1;
    std::thread waiter([&] { seen = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, kForever,
                                                              HSA_WAIT_STATE_BLOCKED); });
    absl::SleepFor(absl::Milliseconds(5));
    change.fn(s);
    waiter.join();
    EXPECT_EQ(seen, 0);
  }
}

TEST_F(HsaSignalApi, OneStoreWakesEveryWaiter) {
  const hsa_signal_t s = Make(0);
  std::atomic<int> woke{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&] {
      if (hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 1, kForever, HSA_WAIT_STATE_BLOCKED) == 1) ++woke;
    });
  }
  absl::SleepFor(absl::Milliseconds(10));
  hsa_signal_store_screlease(s, 1);
  for (std::thread& t : waiters) t.join();
  EXPECT_EQ(woke, 4);
}

TEST_F(HsaSignalApi, ProducerAndConsumerHandOverDataThroughSignals) {
  // Ping-pong: the producer writes a payload, then releases it through `full`; the consumer acquires it
  // from `full`, checks the payload, and hands the buffer back through `empty`.
  constexpr int kRounds = 500;
  const hsa_signal_t full = Make(0), empty = Make(0);
  std::vector<int> payload(64, 0);
  std::thread consumer([&] {
    for (int round = 1; round <= kRounds; ++round) {
      ASSERT_EQ(hsa_signal_wait_scacquire(full, HSA_SIGNAL_CONDITION_GTE, round, kForever, HSA_WAIT_STATE_BLOCKED),
                round);
      for (int x : payload) ASSERT_EQ(x, round);
      hsa_signal_add_screlease(empty, 1);
    }
  });
  for (int round = 1; round <= kRounds; ++round) {
    for (int& x : payload) x = round;
    hsa_signal_store_screlease(full, round);
    ASSERT_EQ(hsa_signal_wait_scacquire(empty, HSA_SIGNAL_CONDITION_EQ, round, kForever, HSA_WAIT_STATE_BLOCKED),
              round);
  }
  consumer.join();
}

TEST_F(HsaSignalApi, DestroyWakesTheWaitersWithZero) {
  hsa_signal_t s{0};
  ASSERT_EQ(hsa_signal_create(3, 0, nullptr, &s), HSA_STATUS_SUCCESS);
  hsa_signal_value_t seen = -1;
  std::thread waiter([&] { seen = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, kForever,
                                                            HSA_WAIT_STATE_BLOCKED); });
  absl::SleepFor(absl::Milliseconds(10));
  ASSERT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
  waiter.join();
  EXPECT_EQ(seen, 0);
}

TEST_F(HsaSignalApi, AGpuOnlySignalIsPolledButStillWakesItsWaiter) {
  const hsa_signal_t s = Make(1, HSA_AMD_SIGNAL_AMD_GPU_ONLY);
  hsa_signal_value_t seen = -1;
  std::thread waiter([&] { seen = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, kForever,
                                                            HSA_WAIT_STATE_BLOCKED); });
  absl::SleepFor(absl::Milliseconds(10));
  hsa_signal_subtract_screlease(s, 1);
  waiter.join();
  EXPECT_EQ(seen, 0);
}

// ---- multi-signal waits ----

TEST_F(HsaSignalApi, WaitAnyReturnsTheFirstSatisfiedIndexSkippingInvalidSignals) {
  const hsa_signal_t a = Make(0), b = Make(5);
  hsa_signal_t signals[] = {{0}, {0x1234}, a, b};  // null and foreign signals are skipped, as upstream
  hsa_signal_condition_t conds[] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ,
                                    HSA_SIGNAL_CONDITION_GTE};
  hsa_signal_value_t values[] = {0, 0, 1, 5};
  hsa_signal_value_t seen = -1;
  EXPECT_EQ(hsa_amd_signal_wait_any(4, signals, conds, values, kForever, HSA_WAIT_STATE_BLOCKED, &seen), 3u);
  EXPECT_EQ(seen, 5);
  hsa_signal_store_relaxed(b, 0);
  EXPECT_EQ(hsa_amd_signal_wait_any(4, signals, conds, values, Ticks(absl::Milliseconds(2)), HSA_WAIT_STATE_BLOCKED,
                                    &seen),
            UINT32_MAX);  // timed out
  std::thread setter([&] {
    absl::SleepFor(absl::Milliseconds(10));
    hsa_signal_store_screlease(a, 1);
  });
  EXPECT_EQ(hsa_amd_signal_wait_any(4, signals, conds, values, kForever, HSA_WAIT_STATE_BLOCKED, &seen), 2u);
  EXPECT_EQ(seen, 1);
  setter.join();
  EXPECT_EQ(hsa_amd_signal_wait_any(2, signals, conds, values, kForever, HSA_WAIT_STATE_BLOCKED, &seen), UINT32_MAX);
}

TEST_F(HsaSignalApi, WaitAllReturnsOnceEverySignalHasMetItsCondition) {
  const hsa_signal_t a = Make(2), b = Make(0);
  hsa_signal_t signals[] = {a, {0x1234}, b};
  hsa_signal_condition_t conds[] = {HSA_SIGNAL_CONDITION_GTE, HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_NE};
  hsa_signal_value_t values[] = {2, 0, 0};
  hsa_signal_value_t seen[3] = {-1, -1, -1};
  EXPECT_EQ(hsa_amd_signal_wait_all(3, signals, conds, values, Ticks(absl::Milliseconds(2)), HSA_WAIT_STATE_BLOCKED,
                                    seen),
            UINT32_MAX);  // b never met
  std::thread setter([&] {
    absl::SleepFor(absl::Milliseconds(10));
    hsa_signal_store_screlease(b, 7);
  });
  EXPECT_EQ(hsa_amd_signal_wait_all(3, signals, conds, values, kForever, HSA_WAIT_STATE_BLOCKED, seen), 0u);
  setter.join();
  EXPECT_EQ(seen[0], 2);
  EXPECT_EQ(seen[1], 0);  // an invalid signal counts as met with 0
  EXPECT_EQ(seen[2], 7);
}

TEST_F(HsaSignalApi, GroupWaitAnyReturnsTheSatisfiedSignalAndItsValue) {
  const hsa_signal_t a = Make(0), b = Make(0);
  const hsa_signal_t members[] = {a, b};
  hsa_signal_group_t group{0};
  ASSERT_EQ(hsa_signal_group_create(2, members, 1, &agents_.cpu, &group), HSA_STATUS_SUCCESS);
  const hsa_signal_condition_t conds[] = {HSA_SIGNAL_CONDITION_NE, HSA_SIGNAL_CONDITION_NE};
  const hsa_signal_value_t values[] = {0, 0};
  std::thread setter([&] {
    absl::SleepFor(absl::Milliseconds(10));
    hsa_signal_store_screlease(b, 4);
  });
  hsa_signal_t which{0};
  hsa_signal_value_t value = 0;
  EXPECT_EQ(hsa_signal_group_wait_any_scacquire(group, conds, values, HSA_WAIT_STATE_BLOCKED, &which, &value),
            HSA_STATUS_SUCCESS);
  setter.join();
  EXPECT_EQ(which.handle, b.handle);
  EXPECT_EQ(value, 4);
  hsa_signal_store_relaxed(a, 9);
  EXPECT_EQ(hsa_signal_group_wait_any_relaxed(group, conds, values, HSA_WAIT_STATE_ACTIVE, &which, &value),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(which.handle, a.handle);
  EXPECT_EQ(value, 9);
  EXPECT_EQ(hsa_signal_group_destroy(group), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_group_destroy(group), HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
  EXPECT_EQ(hsa_signal_group_wait_any_relaxed(group, conds, values, HSA_WAIT_STATE_BLOCKED, &which, &value),
            HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
}

TEST_F(HsaSignalApi, GroupCreateChecksItsArguments) {
  const hsa_signal_t a = Make(0);
  hsa_signal_group_t group{0x5151};
  EXPECT_EQ(hsa_signal_group_create(0, &a, 0, nullptr, &group), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_signal_group_create(1, &a, 0, nullptr, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  const hsa_signal_t dead[] = {a, {0x1234}};
  EXPECT_EQ(hsa_signal_group_create(2, dead, 0, nullptr, &group), HSA_STATUS_ERROR_INVALID_SIGNAL);
  const hsa_agent_t nobody{0x9999};
  EXPECT_EQ(hsa_signal_group_create(1, &a, 1, &nobody, &group), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(group.handle, 0x5151u);
}

TEST_F(HsaSignalApi, AGroupWhoseSignalsAreAllGoneCannotBeWaitedOn) {
  hsa_signal_t s{0};
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &s), HSA_STATUS_SUCCESS);
  hsa_signal_group_t group{0};
  ASSERT_EQ(hsa_signal_group_create(1, &s, 0, nullptr, &group), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
  const hsa_signal_condition_t cond = HSA_SIGNAL_CONDITION_EQ;
  const hsa_signal_value_t value = 1;
  hsa_signal_t which{0};
  hsa_signal_value_t seen = 0;
  EXPECT_EQ(hsa_signal_group_wait_any_scacquire(group, &cond, &value, HSA_WAIT_STATE_BLOCKED, &which, &seen),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_signal_group_destroy(group), HSA_STATUS_SUCCESS);
}

// ---- the asynchronous handler ----

struct Calls {
  std::atomic<int> count{0};
  std::atomic<hsa_signal_value_t> last{0};
  std::atomic<std::thread::id> thread{};
  int stop_after = 1;       // the handler returns false on this call
  hsa_signal_t reset{0};    // when set, the handler stores 0 here
  hipmem_testing::Notification done;  // notified on the stop_after-th call
};

bool Record(hsa_signal_value_t value, void* arg) {
  auto* calls = static_cast<Calls*>(arg);
  calls->last = value;
  calls->thread = std::this_thread::get_id();
  if (calls->reset.handle != 0) hsa_signal_store_screlease(calls->reset, 0);
  const int n = ++calls->count;
  const bool keep = n < calls->stop_after;
  if (!keep) calls->done.Notify();  // the last touch of *calls: the test may end right after
  return keep;
}

TEST_F(HsaSignalApi, AsyncHandlerRunsOnItsThreadWithTheValueThenDeregisters) {
  const hsa_signal_t s = Make(0);
  Calls calls;
  ASSERT_EQ(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_GTE, 5, Record, &calls), HSA_STATUS_SUCCESS);
  absl::SleepFor(absl::Milliseconds(5));
  EXPECT_EQ(calls.count, 0);
  hsa_signal_store_screlease(s, 6);
  ASSERT_TRUE(calls.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(calls.last, 6);
  EXPECT_NE(calls.thread.load(), std::this_thread::get_id());
  // It returned false: the condition still holds, yet it is not called again.
  hsa_signal_store_screlease(s, 7);
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(calls.count, 1);
}

TEST_F(HsaSignalApi, AsyncHandlerReturningTrueIsCalledAgainOnTheNextChange) {
  const hsa_signal_t s = Make(0);
  Calls calls;
  calls.stop_after = 3;
  calls.reset = s;  // re-arms: the condition no longer holds after each call
  ASSERT_EQ(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 1, Record, &calls), HSA_STATUS_SUCCESS);
  for (int i = 1; i <= 3; ++i) {
    // Wait for the handler to reset it, then fire again.
    ASSERT_EQ(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, kForever, HSA_WAIT_STATE_BLOCKED), 0);
    hsa_signal_store_screlease(s, 1);
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (calls.count < i && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(1));
    EXPECT_EQ(calls.count, i);
  }
  ASSERT_TRUE(calls.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  hsa_signal_store_screlease(s, 1);
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(calls.count, 3);
}

TEST_F(HsaSignalApi, AsyncHandlerWhoseConditionAlreadyHoldsRunsAtOnce) {
  Calls calls;
  ASSERT_EQ(hsa_amd_signal_async_handler(Make(3), HSA_SIGNAL_CONDITION_EQ, 3, Record, &calls), HSA_STATUS_SUCCESS);
  ASSERT_TRUE(calls.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(calls.last, 3);
}

TEST_F(HsaSignalApi, ManyHandlersOnManySignalsEachFireOnce) {
  constexpr int kSignals = 16;
  std::vector<hsa_signal_t> signals;
  std::vector<Calls> calls(kSignals);
  for (int i = 0; i < kSignals; ++i) {
    signals.push_back(Make(0));
    ASSERT_EQ(hsa_amd_signal_async_handler(signals[i], HSA_SIGNAL_CONDITION_NE, 0, Record, &calls[i]),
              HSA_STATUS_SUCCESS);
  }
  for (int i = kSignals - 1; i >= 0; --i) hsa_signal_store_screlease(signals[i], i + 100);
  for (int i = 0; i < kSignals; ++i) {
    ASSERT_TRUE(calls[i].done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    EXPECT_EQ(calls[i].last, i + 100);
    EXPECT_EQ(calls[i].count, 1);
  }
}

TEST_F(HsaSignalApi, AHandlerThatStaysDueDoesNotStarveTheOthers) {
  // The first handler's condition keeps holding and it keeps asking to stay registered.
  struct Busy {
    std::atomic<bool> stop{false};
    std::atomic<int> calls{0};
    hipmem_testing::Notification gone;
  } busy;
  ASSERT_EQ(hsa_amd_signal_async_handler(Make(1), HSA_SIGNAL_CONDITION_EQ, 1,
                                         [](hsa_signal_value_t, void* arg) {
                                           auto* b = static_cast<Busy*>(arg);
                                           ++b->calls;
                                           if (!b->stop.load()) return true;
                                           b->gone.Notify();  // the last touch of *b
                                           return false;
                                         },
                                         &busy),
            HSA_STATUS_SUCCESS);
  const hsa_signal_t s = Make(0);
  Calls calls;
  ASSERT_EQ(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 1, Record, &calls), HSA_STATUS_SUCCESS);
  hsa_signal_store_screlease(s, 1);
  EXPECT_TRUE(calls.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_GT(busy.calls, 0);
  busy.stop = true;
  ASSERT_TRUE(busy.gone.WaitForNotificationWithTimeout(absl::Seconds(10)));
}

TEST_F(HsaSignalApi, AsyncHandlerMayRegisterAnotherFromInside) {
  struct Chain {
    hsa_signal_t second{0};
    Calls calls;
  } chain;
  chain.second = Make(0);
  const hsa_signal_t first = Make(1);
  ASSERT_EQ(hsa_amd_signal_async_handler(
                first, HSA_SIGNAL_CONDITION_EQ, 1,
                [](hsa_signal_value_t, void* arg) {
                  auto* c = static_cast<Chain*>(arg);
                  EXPECT_EQ(hsa_amd_signal_async_handler(c->second, HSA_SIGNAL_CONDITION_EQ, 2, Record, &c->calls),
                            HSA_STATUS_SUCCESS);
                  hsa_signal_store_screlease(c->second, 2);
                  return false;
                },
                &chain),
            HSA_STATUS_SUCCESS);
  ASSERT_TRUE(chain.calls.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(chain.calls.last, 2);
}

TEST_F(HsaSignalApi, AHandlerOfADestroyedSignalIsDroppedWithoutACall) {
  hsa_signal_t doomed{0};
  ASSERT_EQ(hsa_signal_create(0, 0, nullptr, &doomed), HSA_STATUS_SUCCESS);
  Calls never, later;
  ASSERT_EQ(hsa_amd_signal_async_handler(doomed, HSA_SIGNAL_CONDITION_EQ, 1, Record, &never), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_signal_destroy(doomed), HSA_STATUS_SUCCESS);
  // The thread goes on serving the others.
  const hsa_signal_t s = Make(0);
  ASSERT_EQ(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 1, Record, &later), HSA_STATUS_SUCCESS);
  hsa_signal_store_screlease(s, 1);
  ASSERT_TRUE(later.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(never.count, 0);
}

TEST_F(HsaSignalApi, AsyncHandlerChecksItsArguments) {
  const hsa_signal_t s = Make(0);
  Calls calls;
  EXPECT_EQ(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 0, nullptr, &calls),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_signal_async_handler(hsa_signal_t{0}, HSA_SIGNAL_CONDITION_EQ, 0, Record, &calls),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_signal_async_handler(s, static_cast<hsa_signal_condition_t>(7), 0, Record, &calls),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // With interrupts on, only interrupt signals may have handlers (ROCr's rule); without, any signal may.
  EXPECT_EQ(hsa_amd_signal_async_handler(Make(0, HSA_AMD_SIGNAL_AMD_GPU_ONLY), HSA_SIGNAL_CONDITION_EQ, 1, Record,
                                         &calls),
            InterruptsOn() ? HSA_STATUS_ERROR_INVALID_SIGNAL : HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_async_function(nullptr, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  absl::SleepFor(absl::Milliseconds(5));
  EXPECT_EQ(calls.count, 0);
}

TEST_F(HsaSignalApi, AsyncFunctionRunsOnceOnTheHandlerThread) {
  struct Ran {
    std::atomic<int> count{0};
    std::atomic<std::thread::id> thread{};
    hipmem_testing::Notification done;
  } ran;
  ASSERT_EQ(hsa_amd_async_function(
                [](void* arg) {
                  auto* r = static_cast<Ran*>(arg);
                  r->thread = std::this_thread::get_id();
                  ++r->count;
                  r->done.Notify();
                },
                &ran),
            HSA_STATUS_SUCCESS);
  ASSERT_TRUE(ran.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::SleepFor(absl::Milliseconds(10));
  EXPECT_EQ(ran.count, 1);
  EXPECT_NE(ran.thread.load(), std::this_thread::get_id());
}

// ---- the runtime's lifetime ----

TEST(HsaSignalLifetimeTest, ShutDownStopsTheHandlerThreadWithoutCallingAndDestroysLeftoverSignals) {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  hsa_signal_t s{0};
  ASSERT_EQ(hsa_signal_create(0, 0, nullptr, &s), HSA_STATUS_SUCCESS);
  Calls calls;
  ASSERT_EQ(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 1, Record, &calls), HSA_STATUS_SUCCESS);
  // A second reference keeps everything.
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_load_relaxed(s), 0);
  hsa_signal_store_relaxed(s, 2);
  EXPECT_EQ(hsa_signal_load_relaxed(s), 2);
  // The last one goes: the thread stops (the handler never runs) and s is destroyed with the runtime.
  const absl::Time start = absl::Now();
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(calls.count, 0);
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

TEST(HsaSignalLifetimeTest, ShutDownWakesAThreadStillWaitingOnALeftoverSignal) {
  // Undefined by HSA (a call racing the last hsa_shut_down); here the waiter returns 0 and nothing crashes.
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  hsa_signal_t s{0};
  ASSERT_EQ(hsa_signal_create(0, 0, nullptr, &s), HSA_STATUS_SUCCESS);
  std::atomic<hsa_signal_value_t> seen{-1};
  std::thread waiter([&] { seen = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 1, kForever,
                                                            HSA_WAIT_STATE_BLOCKED); });
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  waiter.join();
  EXPECT_EQ(seen, 0);
}

}  // namespace
