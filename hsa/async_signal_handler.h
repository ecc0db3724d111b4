// The runtime thread behind hsa_amd_signal_async_handler and hsa_amd_async_function.
//
// Plays ROCr's asynchronous events thread (runtime.cpp: SetAsyncSignalHandler, AsyncEventsLoop). One thread
// waits on every registered signal at once, plus a wake signal of its own (condition NE 0), sleeping on their
// KFD events (WaitAny). When a registered condition holds it calls that handler with the value, and every
// other handler whose condition holds then; a handler returning false is dropped, one returning true stays
// (and runs again while its condition still holds, as upstream). New registrations and functions are queued
// and the wake signal stored, so the thread takes them at its next turn; functions run once, on the thread.
// A registration whose signal is destroyed ends without a call.
#ifndef HIPMEM_HSA_ASYNC_SIGNAL_HANDLER_H_
#define HIPMEM_HSA_ASYNC_SIGNAL_HANDLER_H_

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "hsa/signal.h"

namespace hipmem::hsa {

// Owns the thread and its wake signal. Thread-safe. A handler must not stop its own AsyncSignalHandler
// (hsa_shut_down from a handler), since Stop joins the thread.
class AsyncSignalHandler {
 public:
  // Returns true to stay registered.
  using Handler = std::function<bool(SignalValue value)>;

  // Makes the wake signal from `allocator` (which must outlive this) and starts the thread.
  // Errors: Signal::Create's.
  static absl::StatusOr<std::unique_ptr<AsyncSignalHandler>> Start(SignalAllocator& allocator);

  // Stop().
  ~AsyncSignalHandler();
  AsyncSignalHandler(const AsyncSignalHandler&) = delete;
  AsyncSignalHandler& operator=(const AsyncSignalHandler&) = delete;

  // Calls `handler` on the thread whenever `signal condition compare` holds, until it returns false.
  // Errors: kInvalidArgument for an invalid condition; kFailedPrecondition after Stop.
  absl::Status Register(SignalRef signal, SignalCondition condition, SignalValue compare, Handler handler);

  // Calls `function` once on the thread. Errors: kFailedPrecondition after Stop.
  absl::Status Run(std::function<void()> function);

  // Stops and joins the thread; registrations and functions not yet run are dropped without a call.
  // Idempotent.
  void Stop();

 private:
  struct Registration {
    SignalRef signal;
    SignalCondition condition;
    SignalValue compare;
    Handler handler;
  };

  explicit AsyncSignalHandler(Signal wake) : wake_(std::move(wake)) {}

  // Queues work for the thread and wakes it. kFailedPrecondition after Stop.
  absl::Status Post(std::vector<Registration> registrations, std::vector<std::function<void()>> functions);
  void Loop();

  const Signal wake_;

  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Registration> new_registrations_ ABSL_GUARDED_BY(mu_);
  std::vector<std::function<void()>> functions_ ABSL_GUARDED_BY(mu_);

  absl::Mutex join_mu_;  // serialises Stop's join
  std::thread thread_ ABSL_GUARDED_BY(join_mu_);
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_ASYNC_SIGNAL_HANDLER_H_
