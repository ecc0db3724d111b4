#include "hsa/signal_allocator.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/units.h"

namespace hipmem::hsa {
namespace {

using thunk::MemFlags;

// ROCr's system allocator with AllocateNonPaged on the fine-grained system region: host-visible, coherent
// system memory the kernel pins (a GTT buffer), mapped on every GPU.
constexpr MemFlags kSignalMemory = MemFlags::kNonPaged | MemFlags::kHostAccess;

static_assert(sizeof(AmdSignal) == 64 && alignof(AmdSignal) == 64, "amd_signal_t is 64 bytes, 64-byte aligned");

constexpr absl::Duration kDrainTimeout = absl::Seconds(1);
constexpr absl::Duration kDrainPoll = absl::Milliseconds(1);

// KFD 1.14 added event ages (kfd_ioctl.h KFD_IOCTL_MINOR_VERSION 14; ROCr's supports_event_age).
bool SupportsEventAge(thunk::KfdVersion v) { return v.major > 1 || (v.major == 1 && v.minor >= 14); }

}  // namespace

// ---- Block ----

class SignalAllocator::Block {
 public:
  static absl::StatusOr<Block> Allocate(thunk::Kfd& kfd, Bytes size) {
    const std::string context = absl::StrCat("signal memory (", size.raw(), " bytes)");
    ASSIGN_OR_RETURN(thunk::KfdAllocation memory, kfd.AllocMemory(thunk::kSystemMemoryNode, size, kSignalMemory));
    const bool any_gpu = std::any_of(kfd.topology().nodes.begin(), kfd.topology().nodes.end(),
                                     [](const thunk::NodeProperties& n) { return n.is_gpu(); });
    // System memory: every GPU. On failure `memory` frees it.
    if (any_gpu) RETURN_IF_ERROR(Annotate(kfd.MapMemoryToGpu(memory.address()), context));
    return Block(std::move(memory));
  }

  AmdSignal* slots() const { return static_cast<AmdSignal*>(memory_.pointer()); }
  size_t slot_count() const { return memory_.size().raw() / sizeof(AmdSignal); }

 private:
  explicit Block(thunk::KfdAllocation memory) : memory_(std::move(memory)) {}

  thunk::KfdAllocation memory_;
};

// ---- SignalSlot / PooledEvent ----

SignalSlot::SignalSlot(SignalSlot&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), abi_(std::exchange(other.abi_, nullptr)) {}

SignalSlot& SignalSlot::operator=(SignalSlot&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->Return(abi_);
    owner_ = std::exchange(other.owner_, nullptr);
    abi_ = std::exchange(other.abi_, nullptr);
  }
  return *this;
}

SignalSlot::~SignalSlot() {
  if (owner_ != nullptr) owner_->Return(abi_);
}

PooledEvent::PooledEvent(PooledEvent&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), event_(std::move(other.event_)) {}

PooledEvent& PooledEvent::operator=(PooledEvent&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->Return(std::move(event_));
    owner_ = std::exchange(other.owner_, nullptr);
    event_ = std::move(other.event_);
  }
  return *this;
}

PooledEvent::~PooledEvent() {
  if (owner_ != nullptr) owner_->Return(std::move(event_));
}

// ---- SignalAllocator ----

SignalAllocator::SignalAllocator(thunk::Kfd& kfd, bool interrupts)
    : kfd_(kfd), interrupts_(interrupts), event_age_(SupportsEventAge(kfd.version())) {}

SignalAllocator::~SignalAllocator() {
  // A thread woken inside a wait on a signal just destroyed still holds it for a moment (hsa_shut_down racing
  // a wait, which HSA leaves undefined): give it that moment before the memory goes.
  size_t lent = 0;
  for (absl::Duration waited; waited < kDrainTimeout; waited += kDrainPoll) {
    {
      ScopedLock lock(&mu_);
      lent = slots_lent_;
    }
    if (lent == 0) return;
    absl::SleepFor(kDrainPoll);
  }
  HIPMEM_LOG(kError, "the HSA runtime goes while ", lent, " signals are still in use; their memory is freed");
}

absl::StatusOr<std::shared_ptr<SignalCore>> SignalAllocator::Allocate(int64_t initial, SignalKind kind) {
  if (!interrupts_) kind = SignalKind::kDefault;
  ASSIGN_OR_RETURN(SignalSlot slot, TakeSlot());
  std::optional<PooledEvent> event;
  if (kind == SignalKind::kInterrupt) {
    ASSIGN_OR_RETURN(event, TakeEvent());
  }
  AmdSignal& abi = *slot.get();
  std::memset(&abi, 0, sizeof(abi));
  abi.kind = static_cast<int64_t>(gpu_abi::aql::SignalKind::kUser);
  abi.value = initial;
  if (event.has_value()) {
    abi.event_mailbox_ptr = reinterpret_cast<uintptr_t>(event->handle().mailbox);
    abi.event_id = event->handle().id.raw();
  }
  return std::make_shared<SignalCore>(std::move(slot), std::move(event), kind, &kfd_, event_age_);
}

absl::StatusOr<SignalSlot> SignalAllocator::TakeSlot() {
  ScopedLock lock(&mu_);
  if (free_slots_.empty()) {
    ASSIGN_OR_RETURN(Block block, Block::Allocate(kfd_, next_block_));
    // Hand out the lowest addresses first.
    for (size_t i = block.slot_count(); i-- > 0;) free_slots_.push_back(block.slots() + i);
    blocks_.push_back(std::move(block));
    next_block_ = std::min(next_block_ + next_block_, kMaxBlock);
  }
  AmdSignal* abi = free_slots_.back();
  free_slots_.pop_back();
  ++slots_lent_;
  return SignalSlot(this, abi);
}

absl::StatusOr<std::optional<PooledEvent>> SignalAllocator::TakeEvent() {
  {
    ScopedLock lock(&mu_);
    if (!free_events_.empty()) {
      thunk::Event event = std::move(free_events_.back());
      free_events_.pop_back();
      return PooledEvent(this, std::move(event));
    }
    if (events_exhausted_) return std::nullopt;
  }
  absl::StatusOr<thunk::Event> event = thunk::Event::Create(
      kfd_, thunk::EventDescriptor{.type = thunk::EventType::kSignal, .node = thunk::kSystemMemoryNode});
  if (event.ok()) return PooledEvent(this, *std::move(event));
  if (!absl::IsResourceExhausted(event.status())) return Annotate(event.status(), "a signal's KFD event");
  ScopedLock lock(&mu_);
  events_exhausted_ = true;
  if (!std::exchange(exhaustion_logged_, true)) {
    HIPMEM_LOG(kWarning, "the KFD has no more signal events (", event.status().message(),
               "); new interrupt signals are polled until some are given back");
  }
  return std::nullopt;
}

void SignalAllocator::Return(AmdSignal* abi) {
  abi->kind = static_cast<int64_t>(gpu_abi::aql::SignalKind::kInvalid);
  ScopedLock lock(&mu_);
  free_slots_.push_back(abi);
  --slots_lent_;
}

void SignalAllocator::Return(thunk::Event event) {
  {
    ScopedLock lock(&mu_);
    if (free_events_.size() < kMaxIdleEvents) {
      free_events_.push_back(std::move(event));
      return;
    }
  }
  // Outside the lock: destroying it is an ioctl. Its slot is free once that returned, so new interrupt signals
  // may have events again.
  if (absl::Status s = std::move(event).Free(); !s.ok()) {
    HIPMEM_LOG(kError, "giving a signal event back: ", s.message());
    return;
  }
  ScopedLock lock(&mu_);
  events_exhausted_ = false;
}

}  // namespace hipmem::hsa
