// HSA signals: a 64-bit value in an amd_signal_t that hosts and GPUs change atomically and wait on.
//
// Plays ROCr's core::Signal and its two kinds (signal.h/.cpp, interrupt_signal.cpp, default_signal.cpp).
// An interrupt signal has a KFD event: its amd_signal_t names the event's mailbox and id, so a GPU that
// completes it writes the value, then the mailbox, and interrupts, and the kernel wakes the waiters. A
// waiter looks at the value, then sleeps in WAIT_EVENTS (ROCr's hsaKmtWaitOnEvent_Ext, with event ages
// where the KFD has them); a host change of the value sets the event when a thread waits (ROCr's
// InterruptSignal::SetEvent). A default signal has no event and is polled, napping between looks.
//
// Wait states: an ACTIVE wait looks at the value until the condition holds or the timeout passes and never sleeps,
// as ROCr's; it yields the CPU between looks, so that on a small, busy host the engine it waits for still runs. A
// BLOCKED wait sleeps on the KFD event right after its first look and never spins (issue #8). ROCr looks for
// 200 us first (kMaxElapsed in InterruptSignal::WaitRelaxed); a client that wants that latency asks for ACTIVE,
// as latency-minded clients and CLR's active-wait devices do. Waits read the value with acquire semantics whatever
// the variant (stronger than relaxed, which is allowed).
#ifndef HIPMEM_HSA_SIGNAL_H_
#define HIPMEM_HSA_SIGNAL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/strong_id.h"
#include "hsa/signal_kind.h"

namespace hipmem::hsa {

// signal_allocator.h: a signal's memory and KFD event, and where they come from. Only declared here, so that
// clients of signal.h do not compile against the thunk.
struct SignalCore;
class SignalAllocator;

using SignalValue = int64_t;  // hsa_signal_value_t (large model)
// hsa_signal_t.handle: the address of the signal's amd_signal_t, which is also the GPU's address of it.
using SignalHandle = StrongId<struct SignalHandleTag, uint64_t>;

enum class SignalCondition : uint32_t { kEq = 0, kNe = 1, kLt = 2, kGte = 3 };  // hsa_signal_condition_t
enum class WaitHint : uint32_t { kBlocked = 0, kActive = 1 };                    // hsa_wait_state_t
// The orderings of the hsa_signal_* variants: _relaxed, _scacquire, _screlease, _scacq_screl. A load
// uses the acquire half, a store the release half.
enum class MemoryOrder { kRelaxed, kAcquire, kRelease, kAcqRel };
enum class SignalOp { kAdd, kSubtract, kAnd, kOr, kXor };

// Returns whether `condition` is one of the four hsa_signal_condition_t values.
bool IsValidCondition(SignalCondition condition);
// Returns whether `value` satisfies `condition` against `compare` (false for an invalid condition).
bool ConditionHolds(SignalCondition condition, SignalValue value, SignalValue compare);

// A reference to a signal: its operations. Copyable; keeps the signal's memory and event alive (ROCr's
// Retain) but not its handle: once the owner destroys the signal, waits return 0 and the C API no longer
// finds it. Thread-safe.
class SignalRef {
 public:
  SignalHandle handle() const;
  SignalKind kind() const;
  // The KFD event behind the signal (hsa_amd_signal_get_event_id); nullopt for a signal without one.
  std::optional<uint32_t> event_id() const;
  bool destroyed() const;
  // The value word, for hsa_amd_signal_value_pointer.
  volatile SignalValue* value_pointer() const;

  SignalValue Load(MemoryOrder order) const;
  // Stores, then wakes the signal's waiters (silent stores are the same: ROCr aliases them).
  void Store(SignalValue value, MemoryOrder order) const;
  // value = value `op` operand, then wakes the waiters.
  void Apply(SignalOp op, SignalValue operand, MemoryOrder order) const;
  // Returns the value before.
  SignalValue Exchange(SignalValue value, MemoryOrder order) const;
  // Stores `desired` if the value is `expected`; returns the value before either way (and wakes the waiters
  // either way, as ROCr).
  SignalValue CompareExchange(SignalValue expected, SignalValue desired, MemoryOrder order) const;

  // hsa_signal_wait_*: returns the value once `value condition compare` holds; the value last seen when
  // `timeout` (absl::InfiniteDuration() for none) passes first or the condition is invalid; 0 once the
  // signal is destroyed.
  SignalValue Wait(SignalCondition condition, SignalValue compare, absl::Duration timeout, WaitHint hint) const;

 private:
  friend class Signal;
  friend struct SignalAccess;
  explicit SignalRef(std::shared_ptr<SignalCore> core) : core_(std::move(core)) {}

  std::shared_ptr<SignalCore> core_;  // never null
};

// Owns one signal (ROCr's hsa_signal_create ... hsa_signal_destroy). Move-only; a moved-from Signal is empty
// and must not be dereferenced. Dropping it destroys the signal: the handle becomes invalid, and threads
// waiting on it wake and return 0. The allocator must outlive it and every SignalRef of it.
class Signal {
 public:
  // A signal holding `initial`: kInterrupt gets a KFD event when the allocator has interrupts on.
  // Errors: SignalAllocator::Allocate's.
  static absl::StatusOr<Signal> Create(SignalAllocator& allocator, SignalValue initial,
                                       SignalKind kind = SignalKind::kInterrupt);

  Signal(Signal&& other) noexcept : ref_(std::exchange(other.ref_, std::nullopt)) {}
  Signal& operator=(Signal&& other) noexcept;
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;
  ~Signal();

  bool empty() const { return !ref_.has_value(); }
  const SignalRef& ref() const { return *ref_; }
  const SignalRef* operator->() const { return &*ref_; }

  // Destroys the signal now. Errors: waking its waiters failed (SetEvent's; the signal is destroyed
  // anyway, and a sleeping waiter wakes at its timeout). OK when empty.
  absl::Status Free() &&;

 private:
  explicit Signal(SignalRef ref) : ref_(std::move(ref)) {}

  std::optional<SignalRef> ref_;
};

// One (signal, condition, compare value) triple of a multi-signal wait.
struct SignalWait {
  SignalRef signal;
  SignalCondition condition;
  SignalValue compare;
};

struct WaitAnyResult {
  size_t index;       // of the triple that held
  SignalValue value;  // the value that satisfied it
};

// hsa_amd_signal_wait_any: waits until one triple holds (the first in order when several do), sleeping on
// the events of all of them. Errors: kInvalidArgument for no triples or an invalid condition;
// InvalidSignalError (naming the index) when a signal is or gets destroyed; kDeadlineExceeded after
// `timeout`.
absl::StatusOr<WaitAnyResult> WaitAny(std::span<const SignalWait> waits, absl::Duration timeout, WaitHint hint);

// hsa_amd_signal_wait_all: waits until every triple has held; returns, per triple, the value that satisfied
// it when it first did (ROCr stops looking at a signal once it has). Errors as WaitAny's.
absl::StatusOr<std::vector<SignalValue>> WaitAll(std::span<const SignalWait> waits, absl::Duration timeout,
                                                 WaitHint hint);

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_SIGNAL_H_
