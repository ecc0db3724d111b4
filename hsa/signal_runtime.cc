#include "hsa/signal_runtime.h"

#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "hsa/hsa.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime_kfd.h"
#include "hsa/signal_allocator.h"

namespace hipmem::hsa {
namespace {

// Group handles are opaque; a distinct base makes an agent or pool handle passed as a group fail lookup.
constexpr uint64_t kGroupHandleBase = 0x5347'0000'0000'0000ull;  // "SG"

std::string HandleText(SignalHandle handle) { return absl::StrCat("signal 0x", absl::Hex(handle.raw())); }

absl::Status NoSuchGroup(SignalGroupId group) {
  return WithHsaStatus(
      absl::InvalidArgumentError(absl::StrCat("signal group 0x", absl::Hex(group.raw()), " does not exist")),
      HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
}

}  // namespace

std::unique_ptr<SignalRuntime> SignalRuntime::Create(Runtime& runtime) {
  // ROCr: HSA_ENABLE_INTERRUPT=0 turns interrupt signals off; any other value (or none) leaves them on.
  const bool interrupts = EnvUint64("HSA_ENABLE_INTERRUPT", 1) != 0;
  return std::unique_ptr<SignalRuntime>(new SignalRuntime(runtime, interrupts));
}

SignalRuntime::SignalRuntime(Runtime& runtime, bool interrupts)
    : runtime_(runtime), allocator_(std::make_unique<SignalAllocator>(KfdOf(runtime), interrupts)) {}

SignalRuntime::~SignalRuntime() {
  std::unique_ptr<AsyncSignalHandler> handler;
  {
    ScopedLock lock(&handler_mu_);
    handler_stopped_ = true;
    handler = std::move(handler_);
  }
  // Joined outside the lock: a handler running now may still call in (and is refused).
  handler.reset();
  ScopedLock lock(&mu_);
  if (!signals_.empty() || !groups_.empty()) {
    HIPMEM_LOG(kWarning, "hsa_shut_down: destroying ", signals_.size(), " signals and ", groups_.size(),
               " signal groups the application left");
  }
}

RegisteredSignal::RegisteredSignal(RegisteredSignal&& other) noexcept
    : runtime_(std::exchange(other.runtime_, nullptr)), ref_(std::exchange(other.ref_, std::nullopt)) {}

RegisteredSignal& RegisteredSignal::operator=(RegisteredSignal&& other) noexcept {
  if (this != &other) {
    RegisteredSignal old(std::move(*this));  // destroys what this held when it goes
    runtime_ = std::exchange(other.runtime_, nullptr);
    ref_ = std::exchange(other.ref_, std::nullopt);
  }
  return *this;
}

RegisteredSignal::~RegisteredSignal() {
  if (runtime_ == nullptr) return;
  if (absl::Status s = runtime_->DestroySignal(ref_->handle()); !s.ok()) {
    HIPMEM_LOG(kError, "destroying a signal: ", s.message());
  }
}

absl::Status RegisteredSignal::Destroy() && {
  SignalRuntime* runtime = std::exchange(runtime_, nullptr);
  if (runtime == nullptr) return absl::FailedPreconditionError("RegisteredSignal::Destroy: nothing owned");
  return runtime->DestroySignal(std::exchange(ref_, std::nullopt)->handle());
}

absl::StatusOr<SignalHandle> SignalRuntime::CreateSignal(SignalValue initial, std::span<const AgentId> consumers,
                                                         SignalAttributes attributes) {
  ASSIGN_OR_RETURN(SignalRef ref, Register(initial, consumers, attributes));
  return ref.handle();
}

absl::StatusOr<RegisteredSignal> SignalRuntime::CreateOwned(SignalValue initial, std::span<const AgentId> consumers,
                                                            SignalAttributes attributes) {
  ASSIGN_OR_RETURN(SignalRef ref, Register(initial, consumers, attributes));
  return RegisteredSignal(this, std::move(ref));
}

absl::StatusOr<SignalRef> SignalRuntime::Register(SignalValue initial, std::span<const AgentId> consumers,
                                                  SignalAttributes attributes) {
  if (attributes.ipc) {
    // kUnimplemented is HSA_STATUS_ERROR_NOT_SUPPORTED (hsa_status.h).
    return absl::UnimplementedError(
        "hsa_amd_signal_create: IPC signals are not supported (the simulated KFD serves one process)");
  }
  const absl::flat_hash_set<AgentId> distinct(consumers.begin(), consumers.end());
  if (distinct.size() != consumers.size()) {
    return absl::InvalidArgumentError("hsa_amd_signal_create: a consumer is named twice");
  }
  // ROCr: only a signal the host may wait on needs the interrupt; unknown consumers are simply not CPUs.
  bool host_waits = consumers.empty();
  for (const AgentId consumer : consumers) {
    const absl::StatusOr<const Agent*> agent = runtime_.GetAgent(consumer);
    host_waits = host_waits || (agent.ok() && (*agent)->type == DeviceType::kCpu);
  }
  const SignalKind kind = !attributes.gpu_only && host_waits ? SignalKind::kInterrupt : SignalKind::kDefault;
  // The signal stays in its StatusOr until it is stored: moved out first, gcc 12 at -O2 takes the copy of its
  // reference for a read of uninitialised memory (-Werror=maybe-uninitialized, a false positive).
  absl::StatusOr<Signal> signal = Signal::Create(*allocator_, initial, kind);
  if (!signal.ok()) return signal.status();
  SignalRef ref = signal->ref();
  ScopedLock lock(&mu_);
  signals_.emplace(ref.handle().raw(), *std::move(signal));
  return ref;
}

absl::Status SignalRuntime::DestroySignal(SignalHandle handle) {
  if (handle.raw() == 0) return absl::InvalidArgumentError("hsa_signal_destroy: signal handle 0");
  std::optional<Signal> signal;
  {
    ScopedLock lock(&mu_);
    auto it = signals_.find(handle.raw());
    if (it == signals_.end()) {
      return InvalidSignalError(absl::StrCat("hsa_signal_destroy: ", HandleText(handle), " does not exist"));
    }
    signal.emplace(std::move(it->second));
    signals_.erase(it);
  }
  return std::move(*signal).Free();  // outside the lock: it may wake waiters
}

absl::StatusOr<SignalRef> SignalRuntime::Find(SignalHandle handle) const {
  if (handle.raw() == 0) return absl::InvalidArgumentError("signal handle 0");
  ScopedReaderLock lock(&mu_);
  auto it = signals_.find(handle.raw());
  if (it == signals_.end()) return InvalidSignalError(absl::StrCat(HandleText(handle), " does not exist"));
  return it->second.ref();
}

size_t SignalRuntime::signal_count() const {
  ScopedReaderLock lock(&mu_);
  return signals_.size();
}

absl::StatusOr<SignalGroupId> SignalRuntime::CreateGroup(std::span<const SignalHandle> signals,
                                                         std::span<const AgentId> consumers) {
  if (signals.empty()) return absl::InvalidArgumentError("hsa_signal_group_create: no signals");
  for (const SignalHandle handle : signals) {
    RETURN_IF_ERROR(Annotate(Find(handle).status(), "hsa_signal_group_create"));
  }
  for (const AgentId consumer : consumers) {
    RETURN_IF_ERROR(Annotate(runtime_.GetAgent(consumer).status(), "hsa_signal_group_create"));
  }
  ScopedLock lock(&mu_);
  const SignalGroupId group(kGroupHandleBase + next_group_++);
  groups_.emplace(group.raw(), std::vector<SignalHandle>(signals.begin(), signals.end()));
  return group;
}

absl::Status SignalRuntime::DestroyGroup(SignalGroupId group) {
  ScopedLock lock(&mu_);
  if (groups_.erase(group.raw()) == 0) return NoSuchGroup(group);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SignalHandle>> SignalRuntime::GroupSignals(SignalGroupId group) const {
  ScopedReaderLock lock(&mu_);
  auto it = groups_.find(group.raw());
  if (it == groups_.end()) return NoSuchGroup(group);
  return it->second;
}

absl::StatusOr<AsyncSignalHandler*> SignalRuntime::Handler() {
  ScopedLock lock(&handler_mu_);
  if (handler_stopped_) return absl::FailedPreconditionError("the HSA runtime is shutting down");
  if (handler_ == nullptr) {
    ASSIGN_OR_RETURN(handler_, AsyncSignalHandler::Start(*allocator_));
  }
  return handler_.get();
}

absl::Status SignalRuntime::SetAsyncHandler(SignalHandle handle, SignalCondition condition, SignalValue compare,
                                            AsyncSignalHandler::Handler handler) {
  ASSIGN_OR_RETURN(SignalRef signal, Find(handle));
  if (allocator_->interrupts() && signal.kind() != SignalKind::kInterrupt) {
    return InvalidSignalError(absl::StrCat("hsa_amd_signal_async_handler: ", HandleText(handle),
                                           " has no interrupt (made GPU-only or for GPU consumers)"));
  }
  ASSIGN_OR_RETURN(AsyncSignalHandler * thread, Handler());
  return thread->Register(std::move(signal), condition, compare, std::move(handler));
}

absl::Status SignalRuntime::RunAsync(std::function<void()> function) {
  ASSIGN_OR_RETURN(AsyncSignalHandler * thread, Handler());
  return thread->Run(std::move(function));
}

}  // namespace hipmem::hsa
