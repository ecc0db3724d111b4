#include "hsa/signal.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/aliased_memory_sync.h"
#include "base/lock_count.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "hsa/hsa_status.h"
#include "hsa/signal_allocator.h"
#include "thunk/events.h"

namespace hipmem::hsa {

struct SignalAccess {
  static SignalCore& Core(const SignalRef& ref) { return *ref.core_; }
};

namespace {

// The naps of a wait on a signal without an event double from the first to the last (ROCr's async loop
// polls event-less signals the same way: 20 us up to 2 ms).
constexpr absl::Duration kFirstNap = absl::Microseconds(20);
constexpr absl::Duration kLastNap = absl::Milliseconds(2);
// Without event ages a set can be consumed by another waiter of the same auto-reset event, so each sleep is
// bounded (ROCr makes every waiter after the first spin instead).
constexpr absl::Duration kAgelessSleep = absl::Milliseconds(1);

std::atomic_ref<int64_t> Value(const SignalCore& core) { return std::atomic_ref<int64_t>(core.slot.get()->value); }

std::memory_order LoadOrder(MemoryOrder o) {
  return o == MemoryOrder::kAcquire || o == MemoryOrder::kAcqRel ? std::memory_order_acquire
                                                                  : std::memory_order_relaxed;
}

// A change of an interrupt signal's value is sequentially consistent, whatever the variant asked: with the
// waiters count and a waiter's look at the value, also sequentially consistent, it makes the store-buffering
// pattern safe -- either the waiter sees the new value or the writer sees the waiter and sets the event.
std::memory_order ChangeOrder(const SignalCore& core, MemoryOrder o) {
  if (core.event.has_value()) return std::memory_order_seq_cst;
  switch (o) {
    case MemoryOrder::kRelaxed: return std::memory_order_relaxed;
    case MemoryOrder::kAcquire: return std::memory_order_acquire;
    case MemoryOrder::kRelease: return std::memory_order_release;
    case MemoryOrder::kAcqRel: return std::memory_order_acq_rel;
  }
  return std::memory_order_seq_cst;
}

std::memory_order StoreOrder(const SignalCore& core, MemoryOrder o) {
  const std::memory_order order = ChangeOrder(core, o);
  if (order == std::memory_order_acquire) return std::memory_order_relaxed;  // a store has no acquire half
  if (order == std::memory_order_acq_rel) return std::memory_order_release;
  return order;
}

// After a change of the value: sets the event if a thread waits (ROCr's InterruptSignal::SetEvent).
void Wake(const SignalCore& core) {
  if (!core.event.has_value() || core.waiters.load(std::memory_order_seq_cst) == 0) return;
  if (absl::Status s = core.event->Set(); !s.ok()) HIPMEM_LOG(kError, "waking a signal's waiters: ", s.message());
}

// One thread's wait on some signals: it counts as their waiter for its lifetime (so changes set their
// events), and either looks at their values, yielding, until the deadline (ACTIVE) or sleeps between looks
// (BLOCKED). ROCr's WaitRelaxed / WaitMultiple loop, without the BLOCKED wait's first 200 us of looking.
// Thread-compatible (one per waiting call).
class WaitSession {
 public:
  WaitSession(std::span<SignalCore* const> cores, absl::Duration timeout, WaitHint hint)
      : cores_(cores.begin(), cores.end()) {
    const absl::Time now = absl::Now();
    deadline_ = timeout == absl::InfiniteDuration() ? absl::InfiniteFuture() : now + timeout;
    // An ACTIVE wait looks until its deadline; a BLOCKED one sleeps after its first look (see signal.h).
    if (hint == WaitHint::kActive) spin_until_ = deadline_;
    for (SignalCore* core : cores_) {
      core->waiters.fetch_add(1, std::memory_order_seq_cst);
      // Before the first look at the value: an age another wait saw then holds only sets that came before
      // this look, so a change this look misses still sends WAIT_EVENTS back (its set bumps the age).
      if (core->event.has_value() && core->event_age) {
        seen_ages_.try_emplace(core->event->handle().id.raw(), core->seen_event_age.load(std::memory_order_acquire));
      }
    }
  }
  ~WaitSession() {
    for (SignalCore* core : cores_) core->waiters.fetch_sub(1, std::memory_order_seq_cst);
  }
  WaitSession(const WaitSession&) = delete;
  WaitSession& operator=(const WaitSession&) = delete;

  // Sleeps until an event of `pending`'s signals fires, the deadline passes or, when one of them has no
  // event, a nap ends. Returns false, at once, when the deadline has passed.
  bool Pause(std::span<SignalCore* const> pending) {
    const absl::Time now = absl::Now();
    if (now >= deadline_) return false;
    if (now < spin_until_) {
      std::this_thread::yield();
      return true;
    }
    const absl::Duration remaining = deadline_ - now;
    events_.clear();
    ages_.clear();
    cores_of_events_.clear();
    for (SignalCore* core : pending) {
      if (!core->event.has_value()) return Nap(remaining);
      const thunk::EventHandle& event = core->event->handle();
      if (std::any_of(events_.begin(), events_.end(), [&](const thunk::EventHandle& e) { return e.id == event.id; })) {
        continue;
      }
      events_.push_back(event);
      cores_of_events_.push_back(core);
      // Without ages, 0 (the kernel ignores it).
      auto [it, inserted] = seen_ages_.try_emplace(event.id.raw(), core->event_age ? 1 : 0);
      ages_.push_back(it->second);
    }
    if (events_.empty()) return true;
    const bool ages = pending.front()->event_age;
    const absl::StatusOr<thunk::WaitResult> woke =
        thunk::WaitOnEvents(*pending.front()->kfd, events_, thunk::WaitMode::kAny,
                            ages ? remaining : std::min(remaining, kAgelessSleep),
                            ages ? std::span<uint64_t>(ages_) : std::span<uint64_t>());
    for (size_t i = 0; ages && i < events_.size(); ++i) {
      seen_ages_[events_[i].id.raw()] = ages_[i];
      // Ages only grow; keep the newest for the next wait.
      std::atomic<uint64_t>& shared = cores_of_events_[i]->seen_event_age;
      uint64_t known = shared.load(std::memory_order_relaxed);
      while (known < ages_[i] && !shared.compare_exchange_weak(known, ages_[i], std::memory_order_release)) {
      }
    }
    if (!woke.ok() && !absl::IsDeadlineExceeded(woke.status())) {
      // The kernel refused the wait: look again after a nap rather than spin on the error.
      if (!std::exchange(logged_, true)) HIPMEM_LOG(kError, "waiting on signals: ", woke.status().message());
      return Nap(remaining);
    }
    return true;
  }

 private:
  bool Nap(absl::Duration remaining) {
    absl::SleepFor(std::min(nap_, remaining));
    nap_ = std::min(nap_ * 2, kLastNap);
    return true;
  }

  const std::vector<SignalCore*> cores_;
  absl::Time deadline_;
  absl::Time spin_until_ = absl::InfinitePast();
  absl::Duration nap_ = kFirstNap;
  absl::flat_hash_map<uint32_t, uint64_t> seen_ages_;  // by event id
  std::vector<thunk::EventHandle> events_;             // of the current Pause
  std::vector<uint64_t> ages_;                         // of the current Pause, parallel to events_
  std::vector<SignalCore*> cores_of_events_;           // of the current Pause, parallel to events_
  bool logged_ = false;
  // The locks a wait takes (the thunk's event waits) say how long it waited, not what the waiting call costs:
  // issue #26's lock counts leave them out.
  const LockCountPause not_counted_;
};

// The value of `core` as a wait looks at it (see ChangeOrder).
SignalValue Look(const SignalCore& core) {
  const SignalValue value = Value(core).load(std::memory_order_seq_cst);
  ObserveThroughAliases();  // an engine may have written it through its own mapping
  return value;
}

absl::Status CheckWaits(std::span<const SignalWait> waits, absl::string_view what) {
  if (waits.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": no signals"));
  for (size_t i = 0; i < waits.size(); ++i) {
    if (!IsValidCondition(waits[i].condition)) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": condition ", static_cast<uint32_t>(waits[i].condition),
                                                     " of signal ", i, " is not an hsa_signal_condition_t"));
    }
  }
  return absl::OkStatus();
}

std::vector<SignalCore*> Cores(std::span<const SignalWait> waits) {
  std::vector<SignalCore*> cores;
  cores.reserve(waits.size());
  for (const SignalWait& w : waits) cores.push_back(&SignalAccess::Core(w.signal));
  return cores;
}

absl::Status Destroyed(absl::string_view what, size_t index, const SignalCore& core) {
  return InvalidSignalError(absl::StrCat(what, ": signal ", index, " (0x",
                                         absl::Hex(reinterpret_cast<uintptr_t>(core.slot.get())), ") was destroyed"));
}

}  // namespace

bool IsValidCondition(SignalCondition condition) {
  switch (condition) {
    case SignalCondition::kEq:
    case SignalCondition::kNe:
    case SignalCondition::kLt:
    case SignalCondition::kGte:
      return true;
  }
  return false;
}

bool ConditionHolds(SignalCondition condition, SignalValue value, SignalValue compare) {
  switch (condition) {
    case SignalCondition::kEq: return value == compare;
    case SignalCondition::kNe: return value != compare;
    case SignalCondition::kLt: return value < compare;
    case SignalCondition::kGte: return value >= compare;
  }
  return false;
}

// ---- SignalRef ----

SignalKind SignalRef::kind() const { return core_->kind; }

SignalHandle SignalRef::handle() const { return SignalHandle(reinterpret_cast<uintptr_t>(core_->slot.get())); }

std::optional<uint32_t> SignalRef::event_id() const {
  if (!core_->event.has_value()) return std::nullopt;
  return core_->event->handle().id.raw();
}

bool SignalRef::destroyed() const { return core_->destroyed.load(std::memory_order_seq_cst); }

volatile SignalValue* SignalRef::value_pointer() const { return &core_->slot.get()->value; }

SignalValue SignalRef::Load(MemoryOrder order) const {
  const SignalValue value = Value(*core_).load(LoadOrder(order));
  ObserveThroughAliases();  // an engine may have written it through its own mapping
  return value;
}

void SignalRef::Store(SignalValue value, MemoryOrder order) const {
  PublishThroughAliases();  // an engine may read it through its own mapping
  Value(*core_).store(value, StoreOrder(*core_, order));
  Wake(*core_);
}

void SignalRef::Apply(SignalOp op, SignalValue operand, MemoryOrder order) const {
  const std::atomic_ref<int64_t> value = Value(*core_);
  const std::memory_order o = ChangeOrder(*core_, order);
  PublishThroughAliases();
  switch (op) {
    case SignalOp::kAdd: value.fetch_add(operand, o); break;
    case SignalOp::kSubtract: value.fetch_sub(operand, o); break;
    case SignalOp::kAnd: value.fetch_and(operand, o); break;
    case SignalOp::kOr: value.fetch_or(operand, o); break;
    case SignalOp::kXor: value.fetch_xor(operand, o); break;
  }
  Wake(*core_);
}

SignalValue SignalRef::Exchange(SignalValue value, MemoryOrder order) const {
  PublishThroughAliases();
  const SignalValue before = Value(*core_).exchange(value, ChangeOrder(*core_, order));
  Wake(*core_);
  return before;
}

SignalValue SignalRef::CompareExchange(SignalValue expected, SignalValue desired, MemoryOrder order) const {
  PublishThroughAliases();
  Value(*core_).compare_exchange_strong(expected, desired, ChangeOrder(*core_, order));
  Wake(*core_);
  return expected;  // the value before, whether or not it matched
}

SignalValue SignalRef::Wait(SignalCondition condition, SignalValue compare, absl::Duration timeout,
                            WaitHint hint) const {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_signal_wait_scacquire");
  SignalCore* const core = core_.get();
  WaitSession session(std::span<SignalCore* const>(&core, 1), timeout, hint);
  while (true) {
    if (core->destroyed.load(std::memory_order_seq_cst)) return 0;
    const SignalValue value = Look(*core);
    if (ConditionHolds(condition, value, compare)) {
      // The arrow from the engine's write of this value (sdma_engine.cc, compute_engine.cc) ends at the waiter.
      TraceFlowEnd(TraceCategory::kHsaApi, "completion",
                   SignalFlowId(reinterpret_cast<uint64_t>(core->slot.get()), value));
      return value;
    }
    if (!IsValidCondition(condition) || !session.Pause(std::span<SignalCore* const>(&core, 1))) return value;
  }
}

// ---- Signal ----

absl::StatusOr<Signal> Signal::Create(SignalAllocator& allocator, SignalValue initial, SignalKind kind) {
  ASSIGN_OR_RETURN(std::shared_ptr<SignalCore> core, allocator.Allocate(initial, kind));
  return Signal(SignalRef(std::move(core)));
}

Signal& Signal::operator=(Signal&& other) noexcept {
  if (this != &other) {
    if (absl::Status s = std::move(*this).Free(); !s.ok()) HIPMEM_LOG(kError, "destroying a signal: ", s.message());
    ref_ = std::exchange(other.ref_, std::nullopt);
  }
  return *this;
}

Signal::~Signal() {
  if (absl::Status s = std::move(*this).Free(); !s.ok()) HIPMEM_LOG(kError, "destroying a signal: ", s.message());
}

absl::Status Signal::Free() && {
  if (!ref_.has_value()) return absl::OkStatus();
  const std::shared_ptr<SignalCore> core = std::exchange(ref_, std::nullopt)->core_;
  // ROCr's DestroySignal: the handle goes invalid, then a no-op change wakes the retained sleepers.
  core->destroyed.store(true, std::memory_order_seq_cst);
  if (!core->event.has_value() || core->waiters.load(std::memory_order_seq_cst) == 0) return absl::OkStatus();
  return Annotate(core->event->Set(), "waking the waiters of a destroyed signal");
}

// ---- multi-signal waits ----

absl::StatusOr<WaitAnyResult> WaitAny(std::span<const SignalWait> waits, absl::Duration timeout, WaitHint hint) {
  constexpr absl::string_view kWhat = "hsa_amd_signal_wait_any";
  RETURN_IF_ERROR(CheckWaits(waits, kWhat));
  const std::vector<SignalCore*> cores = Cores(waits);
  WaitSession session(cores, timeout, hint);
  while (true) {
    for (size_t i = 0; i < waits.size(); ++i) {
      if (cores[i]->destroyed.load(std::memory_order_seq_cst)) return Destroyed(kWhat, i, *cores[i]);
      const SignalValue value = Look(*cores[i]);
      if (ConditionHolds(waits[i].condition, value, waits[i].compare)) return WaitAnyResult{i, value};
    }
    if (!session.Pause(cores)) return absl::DeadlineExceededError(absl::StrCat(kWhat, ": timed out"));
  }
}

absl::StatusOr<std::vector<SignalValue>> WaitAll(std::span<const SignalWait> waits, absl::Duration timeout,
                                                 WaitHint hint) {
  constexpr absl::string_view kWhat = "hsa_amd_signal_wait_all";
  RETURN_IF_ERROR(CheckWaits(waits, kWhat));
  const std::vector<SignalCore*> cores = Cores(waits);
  WaitSession session(cores, timeout, hint);
  std::vector<SignalValue> values(waits.size());
  std::vector<size_t> unmet(waits.size());
  for (size_t i = 0; i < unmet.size(); ++i) unmet[i] = i;
  std::vector<SignalCore*> pending;
  while (true) {
    pending.clear();
    for (auto it = unmet.begin(); it != unmet.end();) {
      const size_t i = *it;
      if (cores[i]->destroyed.load(std::memory_order_seq_cst)) return Destroyed(kWhat, i, *cores[i]);
      values[i] = Look(*cores[i]);
      if (ConditionHolds(waits[i].condition, values[i], waits[i].compare)) {
        it = unmet.erase(it);
      } else {
        pending.push_back(cores[i]);
        ++it;
      }
    }
    if (unmet.empty()) return values;
    if (!session.Pause(pending)) return absl::DeadlineExceededError(absl::StrCat(kWhat, ": timed out"));
  }
}

}  // namespace hipmem::hsa
