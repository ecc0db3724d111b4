#include "hsa/async_signal_handler.h"

#include <functional>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"

namespace hipmem::hsa {

absl::StatusOr<std::unique_ptr<AsyncSignalHandler>> AsyncSignalHandler::Start(SignalAllocator& allocator) {
  ASSIGN_OR_RETURN(Signal wake, Signal::Create(allocator, 0, SignalKind::kInterrupt));
  std::unique_ptr<AsyncSignalHandler> handler(new AsyncSignalHandler(std::move(wake)));
  ScopedLock lock(&handler->join_mu_);
  handler->thread_ = std::thread([h = handler.get()] { h->Loop(); });
  return handler;
}

AsyncSignalHandler::~AsyncSignalHandler() { Stop(); }

absl::Status AsyncSignalHandler::Register(SignalRef signal, SignalCondition condition, SignalValue compare,
                                          Handler handler) {
  if (!IsValidCondition(condition)) {
    return absl::InvalidArgumentError(absl::StrCat("hsa_amd_signal_async_handler: condition ",
                                                   static_cast<uint32_t>(condition),
                                                   " is not an hsa_signal_condition_t"));
  }
  std::vector<Registration> registrations;
  registrations.push_back(Registration{std::move(signal), condition, compare, std::move(handler)});
  return Post(std::move(registrations), {});
}

absl::Status AsyncSignalHandler::Run(std::function<void()> function) {
  std::vector<std::function<void()>> functions;
  functions.push_back(std::move(function));
  return Post({}, std::move(functions));
}

absl::Status AsyncSignalHandler::Post(std::vector<Registration> registrations,
                                      std::vector<std::function<void()>> functions) {
  {
    ScopedLock lock(&mu_);
    if (stopping_) return absl::FailedPreconditionError("the asynchronous signal handler thread has stopped");
    for (Registration& r : registrations) new_registrations_.push_back(std::move(r));
    for (std::function<void()>& f : functions) functions_.push_back(std::move(f));
  }
  // After the queueing: the thread resets the wake signal before it takes the queue (Loop), so this store
  // is either seen by its next wait or made before the take.
  wake_->Store(1, MemoryOrder::kRelease);
  return absl::OkStatus();
}

void AsyncSignalHandler::Stop() {
  {
    ScopedLock lock(&mu_);
    stopping_ = true;
  }
  wake_->Store(1, MemoryOrder::kRelease);
  ScopedLock lock(&join_mu_);
  if (thread_.joinable()) thread_.join();
}

void AsyncSignalHandler::Loop() {
  std::vector<Registration> active;
  std::vector<SignalWait> waits;
  while (true) {
    std::vector<Registration> added;
    std::vector<std::function<void()>> functions;
    {
      ScopedLock lock(&mu_);
      if (stopping_) break;
      added.swap(new_registrations_);
      functions.swap(functions_);
    }
    for (Registration& r : added) active.push_back(std::move(r));
    for (const std::function<void()>& f : functions) f();
    // The handle of a destroyed signal names nothing any more: its registration ends without a call.
    std::erase_if(active, [](const Registration& r) { return r.signal.destroyed(); });

    waits.clear();
    waits.push_back(SignalWait{wake_.ref(), SignalCondition::kNe, 0});
    for (const Registration& r : active) waits.push_back(SignalWait{r.signal, r.condition, r.compare});
    const absl::StatusOr<WaitAnyResult> hit = WaitAny(waits, absl::InfiniteDuration(), WaitHint::kBlocked);
    if (!hit.ok()) {
      // A signal destroyed during the wait (dropped at the top of the next turn); nothing else fails an
      // unbounded wait of valid conditions.
      if (!absl::IsInvalidArgument(hit.status())) HIPMEM_LOG(kError, "async signal handler: ", hit.status().message());
      continue;
    }
    if (hit->index == 0) {
      wake_->Store(0, MemoryOrder::kRelaxed);  // before taking the queue: see Post
      continue;
    }
    // Call the one WaitAny found with the value that satisfied it, then every other whose condition holds
    // now (ROCr's loop makes the same pass), so a handler that stays registered while its condition holds
    // cannot starve the ones after it.
    const size_t found = hit->index - 1;
    std::vector<std::pair<size_t, SignalValue>> due = {{found, hit->value}};
    for (size_t i = 0; i < active.size(); ++i) {
      const SignalValue value = active[i].signal.Load(MemoryOrder::kAcquire);
      if (i != found && ConditionHolds(active[i].condition, value, active[i].compare)) due.emplace_back(i, value);
    }
    std::vector<bool> keep(active.size(), true);
    for (const auto& [i, value] : due) keep[i] = active[i].handler(value);
    size_t kept = 0;
    for (size_t i = 0; i < active.size(); ++i) {
      if (keep[i]) active[kept++] = std::move(active[i]);
    }
    active.erase(active.begin() + static_cast<ptrdiff_t>(kept), active.end());
  }
}

}  // namespace hipmem::hsa
